//! Choosing a function for one component (the component-model method,
//! docs/models.md "Component models"): every candidate family is fitted by
//! least squares and scored by sMAPE on points it did not see (each
//! measured `x` left out in turn, in up to 12 folds, so a family that chases the noise, or
//! goes astray past the last point, scores badly), and the family of
//! lowest rank whose sMAPE is within 10 % of the best wins; a curve may
//! split at one breakpoint when the two pieces score at least twice as
//! well as one.
//!
//! Families and their ranks (coefficients): `poly0` (1), `poly1` (2), `log`
//! (2), `poly2` (3), `exp` (3), `reciprocal` (3), `poly3` (4), `poly4` (5),
//! `poly5` (6). A family is tried only when, one `x` left out, more
//! distinct `x` remain than it has coefficients.

use nalgebra::{DMatrix, DVector};
use p4cost_model::curve::{Curve, Family, Piece};

/// One measured point of a component.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Copies of the component (or packet size, or entries).
    pub x: f64,
    /// The component's measured cost, ns.
    pub y: f64,
    /// What the rest of the program costs at this point, ns: sMAPE is
    /// taken on whole latencies (`offset + y`), as measured.
    pub offset: f64,
}

/// Relative margin of the method's rank rule (10 %).
pub const WITHIN: f64 = 0.10;

/// A breakpoint must divide the held-out sMAPE by at least this: a real
/// change of regime leaves one curve's error far above the noise, while
/// splitting noise around one curve gains little (and the 10 % of the rank
/// rule is within the chance variation of a few points' error).
pub const BREAK_GAIN: f64 = 2.0;

/// Most folds of the held-out score (leave-one-x-out below this many
/// distinct x).
pub const HELD_OUT_FOLDS: usize = 12;

/// Most breakpoints tried (evenly spread over the candidates).
pub const MAX_SPLITS: usize = 16;

/// Distinct `x` each piece of a split needs at least.
pub const MIN_PIECE_POINTS: usize = 3;

/// sMAPE in percent of `piece` (or any function) over `pts`.
pub fn smape(pts: &[Point], f: impl Fn(f64) -> f64) -> f64 {
    let mut s = 0.0;
    for p in pts {
        let (a, fc) = (p.offset + p.y, p.offset + f(p.x));
        let d = (a.abs() + fc.abs()) / 2.0;
        s += if d > 0.0 { (fc - a).abs() / d } else { 0.0 };
    }
    100.0 * s / pts.len().max(1) as f64
}

fn distinct(pts: &[Point]) -> usize {
    let mut xs: Vec<f64> = pts.iter().map(|p| p.x).collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    xs.len()
}

/// The points of one `x`, as least squares sees them: their mean and
/// count (the sum of squares over the points is the count-weighted sum
/// over the means plus a constant, so fits on these are exact and cost
/// the distinct `x`, not the rows).
#[derive(Debug, Clone, Copy)]
struct Agg {
    x: f64,
    y: f64,
    w: f64,
}

fn aggregate(pts: &[Point]) -> Vec<Agg> {
    let mut v: Vec<(f64, f64)> = pts.iter().map(|p| (p.x, p.y)).collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out: Vec<Agg> = Vec::new();
    for (x, y) in v {
        match out.last_mut() {
            Some(a) if a.x == x => {
                a.y += y;
                a.w += 1.0;
            }
            _ => out.push(Agg { x, y, w: 1.0 }),
        }
    }
    for a in &mut out {
        a.y /= a.w;
    }
    out
}

/// Weighted least squares of `y` on the columns `cols(t)`; `None` when
/// singular.
fn lstsq(pts: &[Agg], t: &dyn Fn(f64) -> f64, cols: &dyn Fn(f64) -> Vec<f64>) -> Option<Vec<f64>> {
    let k = cols(0.0).len();
    let a = DMatrix::from_fn(pts.len(), k, |i, j| pts[i].w.sqrt() * cols(t(pts[i].x))[j]);
    let b = DVector::from_iterator(pts.len(), pts.iter().map(|p| p.w.sqrt() * p.y));
    let svd = a.svd(true, true);
    let s = &svd.singular_values;
    if s.min() <= s.max() * 1e-12 {
        return None;
    }
    let x = svd.solve(&b, 0.0).ok()?;
    let v: Vec<f64> = x.iter().copied().collect();
    v.iter().all(|c| c.is_finite()).then_some(v)
}

/// `y = a + b * g(x)` by weighted least squares, in closed form.
fn simple_regression(pts: &[Agg], g: &dyn Fn(f64) -> f64) -> Option<Vec<f64>> {
    let n: f64 = pts.iter().map(|p| p.w).sum();
    let gs: Vec<f64> = pts.iter().map(|p| g(p.x)).collect();
    let gm = gs.iter().zip(pts).map(|(g, p)| g * p.w).sum::<f64>() / n;
    let ym = pts.iter().map(|p| p.y * p.w).sum::<f64>() / n;
    let (mut sgg, mut sgy) = (0.0, 0.0);
    for (gv, p) in gs.iter().zip(pts) {
        sgg += p.w * (gv - gm) * (gv - gm);
        sgy += p.w * (gv - gm) * (p.y - ym);
    }
    if !(sgg.is_finite() && sgg > 1e-300) {
        return None;
    }
    let b = sgy / sgg;
    let a = ym - b * gm;
    (a.is_finite() && b.is_finite()).then(|| vec![a, b])
}

fn sse(pts: &[Agg], f: &dyn Fn(f64) -> f64) -> f64 {
    pts.iter().map(|p| p.w * (f(p.x) - p.y).powi(2)).sum()
}

/// Fits `family` (with `params` coefficients) to `pts` on `[from, to]`.
pub fn fit_family(family: Family, params: usize, pts: &[Point]) -> Option<Piece> {
    let pts = &aggregate(pts)[..];
    let (from, to) = pts
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p.x), hi.max(p.x))
        });
    let scale = if to > from { to - from } else { 1.0 };
    let t = move |x: f64| (x - from) / scale;
    let params = match family {
        Family::Poly => lstsq(pts, &t, &|t| {
            (0..params).map(|i| t.powi(i as i32)).collect()
        })?,
        Family::Log => {
            if pts.iter().any(|p| p.x <= 0.0) {
                return None;
            }
            lstsq(pts, &|x| x, &|x| vec![1.0, x.ln()])?
        }
        Family::Exp | Family::Reciprocal => fit_shaped(family, pts, &t)?,
    };
    Some(Piece {
        family,
        params,
        from,
        to,
        x0: from,
        scale,
    })
}

/// `a + b * g_c(t)` for the exponential (`g_c(t) = exp(c t)`) or
/// reciprocal (`g_c(t) = 1 / (t + c)`) family: linear in (a, b) for a
/// fixed shape c, so c is scanned over a grid, then refined by a
/// golden-section search between the best grid point's neighbours of the
/// same sign. Returns `[a, b, c]`.
fn fit_shaped(family: Family, pts: &[Agg], t: &dyn Fn(f64) -> f64) -> Option<Vec<f64>> {
    let shape = |c: f64| -> Box<dyn Fn(f64) -> f64> {
        match family {
            Family::Exp => Box::new(move |t: f64| (c * t).exp()),
            _ => Box::new(move |t: f64| 1.0 / (t + c)),
        }
    };
    let fit_at = |c: f64| -> Option<(f64, Vec<f64>)> {
        let g = shape(c);
        let ab = simple_regression(pts, &|x| g(t(x)))?;
        let f = |x: f64| ab[0] + ab[1] * g(t(x));
        let e = sse(pts, &f);
        e.is_finite().then_some((e, vec![ab[0], ab[1], c]))
    };
    let grid = shape_grid(family);
    let mut best: Option<(f64, Vec<f64>, usize)> = None;
    for (i, &c) in grid.iter().enumerate() {
        if let Some((e, p)) = fit_at(c) {
            if best.as_ref().is_none_or(|b| e < b.0) {
                best = Some((e, p, i));
            }
        }
    }
    let (e, p, i) = best?;
    let (lo, hi) = golden_section(neighbours(family, &grid, grid[i]), &|c| {
        fit_at(c).map_or(f64::INFINITY, |r| r.0)
    });
    match fit_at((lo + hi) / 2.0) {
        Some((em, pm)) if em < e => Some(pm),
        _ => Some(p),
    }
}

/// The shapes c scanned: exp, rates of either sign; reciprocal, the pole
/// left of the range (c > 0) or right of it (c < -1).
fn shape_grid(family: Family) -> Vec<f64> {
    let mut grid = Vec::new();
    for i in 0..=16 {
        let m = 10f64.powf(-2.0 + 4.0 * f64::from(i) / 16.0);
        match family {
            Family::Exp => {
                grid.push(m.min(30.0));
                grid.push(-m.min(30.0));
            }
            _ => {
                grid.push(m * 0.1);
                grid.push(-1.0 - m * 0.1);
            }
        }
    }
    grid
}

/// The grid points on either side of `c0` among those of its sign, as
/// an interval `(lo, hi)`.
fn neighbours(family: Family, grid: &[f64], c0: f64) -> (f64, f64) {
    let same: Vec<f64> = grid
        .iter()
        .copied()
        .filter(|c| {
            c.signum() == c0.signum() && (family == Family::Exp || (*c > 0.0) == (c0 > 0.0))
        })
        .collect();
    let pos = same.iter().position(|c| *c == c0).unwrap_or(0);
    let at = |i: usize| same.get(i).copied().unwrap_or(c0);
    let (lo, hi) = (
        at(pos.saturating_sub(1)),
        at((pos + 1).min(same.len().saturating_sub(1))),
    );
    if lo > hi {
        (hi, lo)
    } else {
        (lo, hi)
    }
}

/// Narrows `(lo, hi)` around a minimum of `err` by 32 golden-section
/// steps.
fn golden_section((mut lo, mut hi): (f64, f64), err: &dyn Fn(f64) -> f64) -> (f64, f64) {
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..32 {
        let a = hi - g * (hi - lo);
        let b = lo + g * (hi - lo);
        if err(a) < err(b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    (lo, hi)
}

/// The candidates in rank order (ties in the listed order).
pub const CANDIDATES: [(Family, usize); 9] = [
    (Family::Poly, 1),
    (Family::Poly, 2),
    (Family::Log, 2),
    (Family::Poly, 3),
    (Family::Exp, 3),
    (Family::Reciprocal, 3),
    (Family::Poly, 4),
    (Family::Poly, 5),
    (Family::Poly, 6),
];

/// sMAPE of `family` on points it did not see: each distinct `x` in turn
/// (in [`HELD_OUT_FOLDS`] folds when there are more) is left out, the
/// family fitted to the rest, and the left-out points predicted. With one distinct `x` there is nothing to leave out and the
/// in-sample sMAPE is returned.
pub fn held_out_smape(family: Family, params: usize, pts: &[Point]) -> Option<f64> {
    let mut xs: Vec<f64> = pts.iter().map(|p| p.x).collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    if xs.len() < 2 {
        let piece = fit_family(family, params, pts)?;
        return Some(smape(pts, |x| piece.eval(x)));
    }
    // Every x its own fold up to HELD_OUT_FOLDS distinct x; beyond, x of
    // rank r in fold r mod HELD_OUT_FOLDS (each fold spans the range).
    let folds = xs.len().min(HELD_OUT_FOLDS);
    let fold_of = |x: f64| xs.partition_point(|v| *v < x) % folds;
    let mut total = 0.0;
    for k in 0..folds {
        let (out, rest): (Vec<Point>, Vec<Point>) = pts.iter().partition(|p| fold_of(p.x) == k);
        let piece = fit_family(family, params, &rest)?;
        total += smape(&out, |x| piece.eval(x)) * out.len() as f64;
    }
    let e = total / pts.len() as f64;
    e.is_finite().then_some(e)
}

/// The method's choice of one family for `pts`: the lowest-rank family
/// whose held-out sMAPE is within 10 % of the best one's; with that
/// held-out sMAPE.
pub fn best_piece(pts: &[Point]) -> Option<(Piece, f64)> {
    let d = distinct(pts);
    // A family is tried when, with one x left out, more distinct x remain
    // than it has coefficients (so no fit interpolates its points).
    let scored: Vec<((Family, usize), f64)> = CANDIDATES
        .iter()
        .filter(|(_, k)| d > *k + 1 || (*k == 1 && d >= 1))
        .filter_map(|&c| Some((c, held_out_smape(c.0, c.1, pts)?)))
        .collect();
    let best = scored.iter().map(|s| s.1).fold(f64::INFINITY, f64::min);
    let &((family, k), e) = scored
        .iter()
        .find(|(_, e)| *e <= best * (1.0 + WITHIN) + 1e-9)?;
    Some((fit_family(family, k, pts)?, e))
}

/// Fits a curve to `pts`: the best single piece, or two pieces split at
/// a breakpoint when their held-out sMAPE is [`BREAK_GAIN`] times better. The
/// curve records its in-sample sMAPE. `None` when no family fits (no
/// point).
pub fn fit_curve(pts: &[Point]) -> Option<Curve> {
    let (one, e1) = best_piece(pts)?;
    let mut best: (Vec<Piece>, f64) = (vec![one], e1);
    let mut xs: Vec<f64> = pts.iter().map(|p| p.x).collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    if xs.len() >= 2 * MIN_PIECE_POINTS {
        let candidates: Vec<usize> = (MIN_PIECE_POINTS..=xs.len() - MIN_PIECE_POINTS).collect();
        let step = candidates.len().div_ceil(MAX_SPLITS).max(1);
        for &s in candidates.iter().step_by(step) {
            let cut = xs[s - 1];
            let (left, right): (Vec<Point>, Vec<Point>) = pts.iter().partition(|p| p.x <= cut);
            let (Some((a, ea)), Some((b, eb))) = (best_piece(&left), best_piece(&right)) else {
                continue;
            };
            let e = (ea * left.len() as f64 + eb * right.len() as f64) / pts.len() as f64;
            if e * BREAK_GAIN + 1e-9 < best.1.min(e1) {
                best = (vec![a, b], e);
            }
        }
    }
    let mut c = Curve {
        pieces: best.0,
        smape_percent: 0.0,
        points: pts.len(),
    };
    c.smape_percent = smape(pts, |x| c.eval(x));
    Some(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::Noise;

    /// Four measurements per `x`, as the suite measures each program at
    /// several packet sizes.
    fn points(
        xs: impl Iterator<Item = f64>,
        f: impl Fn(f64) -> f64,
        sd: f64,
        seed: u64,
    ) -> Vec<Point> {
        let mut n = Noise::new(seed);
        xs.flat_map(|x| std::iter::repeat_n(x, 4))
            .map(|x| Point {
                x,
                y: f(x) + n.normal(sd),
                offset: 200.0,
            })
            .collect()
    }

    #[test]
    fn a_line_is_a_line() {
        let pts = points((1..=10).map(f64::from), |x| 3.0 * x + 1.0, 0.05, 3);
        let c = fit_curve(&pts).unwrap();
        assert_eq!(c.describe(), "poly1");
        assert!((c.eval(20.0) - 61.0).abs() < 0.5);
    }

    #[test]
    fn families_are_recognised() {
        // The t4p4s exact-table cost, 9.13 ln(90.19 n) + 258.16.
        let xs = || [1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 3e5, 1e6].into_iter();
        let log = points(xs(), |n| 9.13 * (90.19 * n).ln() + 258.16, 0.01, 5);
        assert_eq!(best_piece(&log).unwrap().0.family, Family::Log);
        // Growth: 4080.98 exp(0.00062 n) - 3831.64 on n < 1000.
        let exp = points(
            (0..12).map(|i| f64::from(i) * 90.0),
            |n| 4080.98 * (0.00062 * n).exp() - 3831.64,
            0.01,
            6,
        );
        let (p, _) = best_piece(&exp).unwrap();
        assert!(matches!(p.family, Family::Exp | Family::Poly), "{p:?}");
        assert!((p.eval(500.0) - (4080.98 * (0.31f64).exp() - 3831.64)).abs() < 0.1);
        // A cache running out: a / (b - n) + d.
        let rec = points(
            (0..12).map(|i| 1000.0 + f64::from(i) * 500.0),
            |n| 538706.18 / (-0.01 * n - 1101.14) + 743.9,
            0.001,
            7,
        );
        let (p, _) = best_piece(&rec).unwrap();
        assert!(p.rank() <= 3, "{p:?}");
        assert!((p.eval(3500.0) - (538706.18 / (-35.0 - 1101.14) + 743.9)).abs() < 0.01);
    }

    #[test]
    fn a_planted_breakpoint_is_found() {
        // 2.9 ns per state up to 5 states, then a 10 ns step and 7 ns per
        // state (a regime change like the 10G parser's past 5 states).
        let f = |n: f64| {
            if n <= 5.0 {
                2.9 * n
            } else {
                24.5 + 7.0 * (n - 5.0)
            }
        };
        let mut noise = Noise::new(100);
        let pts: Vec<Point> = (1..=12)
            .flat_map(|n| std::iter::repeat_n(f64::from(n), 3))
            .map(|n| Point {
                x: n,
                y: f(n) + noise.normal(0.1),
                offset: 250.0,
            })
            .collect();
        let c = fit_curve(&pts).unwrap();
        assert_eq!(c.breakpoints(), vec![5.0], "{}", c.describe());
        assert!((c.eval(3.0) - 8.7).abs() < 0.3 && (c.eval(10.0) - 59.5).abs() < 0.3);
    }

    #[test]
    fn too_few_points_keep_low_ranks() {
        let pts = points([1.0, 2.0, 3.0].into_iter(), |x| x * x, 0.0, 1);
        let (p, _) = best_piece(&pts).unwrap();
        assert!(p.rank() <= 2);
        assert!(fit_curve(&[]).is_none());
    }
}
