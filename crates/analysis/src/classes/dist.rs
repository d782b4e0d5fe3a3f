//! The distribution of packet-class weights, for the median over classes
//! (issue 9), by dynamic programs on both sides, never by listing classes.
//!
//! A class's weight is its parse path's (an additive integer vector, such as
//! the linear model's counted bytes and counted states) plus its control
//! path's (the sum of its tables' integer weights). Given the parse path's
//! signature the two are independent, so the distribution over classes is
//! the sum over signatures of the product of the parse side's distribution
//! (paths with that signature) and the control side's (control paths
//! consistent with it); signatures with equal control sides make one term,
//! their parse sides joined. The product is kept *factored*: its order
//! statistics (the median) are found by counting, per term, the pairs
//! at or below a candidate value with one merge of the two sorted sides,
//! and searching the candidate; the product itself, which can hold the
//! product of the sides' sizes, is never tabulated.

mod control_side;

use std::collections::{BTreeMap, HashSet};

use super::{times, ClassError, ControlClasses, EdgeSigs, Key};
use crate::{Next, PathCount, PathGraph, Product};
use control_side::{control_sides, ControlSides};

/// The classes of one control side: the parse paths (of every signature
/// whose control walk it is) and the control side (an index into
/// [`ClassDistribution::controls`]) they pair with, every parse entry with
/// every control entry.
#[derive(Debug, Clone)]
pub struct DistributionPart<const D: usize> {
    /// Parse vector -> parse paths with a signature of this control side
    /// (a vector may repeat, in no particular order).
    pub parse: Vec<([u64; D], PathCount)>,
    /// The control side these paths pair with.
    pub control: usize,
}

/// The distribution of (parse vector, control sum) over all packet
/// classes, factored per control side.
#[derive(Debug, Clone, Default)]
pub struct ClassDistribution<const D: usize> {
    /// Per distinct control side (signatures whose control sides are
    /// equal share a part).
    pub parts: Vec<DistributionPart<D>>,
    /// Control sum -> control paths, per distinct control side.
    pub controls: Vec<Vec<(i64, PathCount)>>,
}

impl<const D: usize> ClassDistribution<D> {
    /// The whole table (parse vector, control sum) -> classes, expanded:
    /// as large as the product of the sides, for small programs and tests.
    pub fn joint(&self) -> BTreeMap<([u64; D], i64), PathCount> {
        let mut out: BTreeMap<([u64; D], i64), PathCount> = BTreeMap::new();
        for part in &self.parts {
            for (v, pc) in &part.parse {
                for (w, c) in &self.controls[part.control] {
                    let e = out.entry((*v, *w)).or_default();
                    *e = e.plus(times(*pc, *c));
                }
            }
        }
        out
    }

    /// The `k`-th smallest (from 0) of `parse(v) + control(w)` over all
    /// classes, each counted as often as it occurs; `None` when there are
    /// at most `k` classes or a value is not finite. `parse` and `control`
    /// map the integer weights to the figures being ranked; the sum is
    /// rounded as `f64` addition rounds it, and the result is exactly one
    /// class's sum. Costs a merge of the sorted sides per step of a search
    /// over the classes' sums (at most about 64): linear in the sides'
    /// sizes, never in their product.
    pub fn kth_smallest(
        &self,
        k: u128,
        parse: impl Fn(&[u64; D]) -> f64,
        control: impl Fn(i64) -> f64,
    ) -> Option<f64> {
        let sides = Sides::new(self, parse, control);
        let (lo, hi) = sides.range()?;
        if sides.at_most(hi) <= k {
            return None;
        }
        if sides.ends_decide && sides.counted {
            return Some(sides.kth_by_sums(k, lo, hi, sides.pass_len() / 12));
        }
        Some(sides.kth_by_floats(k, lo, hi))
    }

    /// The classes whose `parse(v) + control(w)` (as [`Self::kth_smallest`]
    /// ranks it) falls in each of `bins` equal bins between the least and
    /// the greatest sum: bin `i` holds the sums in `(e_i, e_i+1]`, the first
    /// bin its lower edge too, so the counts add up to every class (each
    /// count saturates at `u128::MAX`). `None` when there is no class or a
    /// sum is not finite. One merge of the sorted sides per bin: exact, and
    /// never the product of the sides.
    pub fn histogram(
        &self,
        bins: usize,
        parse: impl Fn(&[u64; D]) -> f64,
        control: impl Fn(i64) -> f64,
    ) -> Option<Histogram> {
        let sides = Sides::new(self, parse, control);
        let (lo, hi) = sides.range()?;
        let bins = bins.max(1);
        let width = (hi - lo) / bins as f64;
        let mut counts = Vec::with_capacity(bins);
        let mut below = 0u128;
        for i in 1..=bins {
            let edge = if i == bins { hi } else { lo + width * i as f64 };
            let n = sides.at_most(edge);
            counts.push(n.saturating_sub(below));
            below = n;
        }
        Some(Histogram { lo, hi, counts })
    }
}

/// Classes counted per bin of latency ([`ClassDistribution::histogram`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    /// The least sum (the first bin's lower edge).
    pub lo: f64,
    /// The greatest sum (the last bin's upper edge).
    pub hi: f64,
    /// Classes per bin, equal bins from `lo` to `hi`.
    pub counts: Vec<u128>,
}

/// One side's entries mapped to figures, sorted, and what one pass over
/// them tells.
struct Mapped {
    rows: Vec<(f64, u128)>,
    /// The counts' saturating sum.
    total: u128,
    /// Every figure is finite.
    finite: bool,
    /// Every count is positive.
    counted: bool,
}

impl Mapped {
    /// `rows` sorted by figure (sides mapped by monotone figures come
    /// sorted: checked, in the same pass, not sorted).
    fn of(mut rows: Vec<(f64, u128)>) -> Mapped {
        let (mut total, mut finite, mut counted, mut sorted) = (0u128, true, true, true);
        let mut last = f64::NEG_INFINITY;
        for &(x, n) in &rows {
            total = total.saturating_add(n);
            finite &= x.is_finite();
            counted &= n > 0;
            sorted &= last.total_cmp(&x).is_le();
            last = x;
        }
        if !sorted {
            // Equal figures are equal floats: their order does not matter.
            rows.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
        }
        Mapped {
            rows,
            total,
            finite,
            counted,
        }
    }
}

/// Both sides of a distribution mapped to figures and sorted, for counting
/// the classes at or below a figure.
struct Sides {
    controls: Vec<Vec<(f64, u128)>>,
    /// Each control side's total, once (parts share sides).
    totals: Vec<u128>,
    parts: Vec<(Vec<(f64, u128)>, usize)>,
    /// Each part's parse paths (saturating sum).
    part_totals: Vec<u128>,
    /// Every figure is finite, so a part's least and greatest sums bound
    /// all of its sums (a NaN is never compared past).
    ends_decide: bool,
    /// Every entry counts some paths (no count is 0), so every sum is a
    /// class's.
    counted: bool,
}

impl Sides {
    fn new<const D: usize>(
        d: &ClassDistribution<D>,
        parse: impl Fn(&[u64; D]) -> f64,
        control: impl Fn(i64) -> f64,
    ) -> Sides {
        let (mut ends_decide, mut counted) = (true, true);
        let mut side = |rows: Vec<(f64, u128)>| {
            let m = Mapped::of(rows);
            ends_decide &= m.finite;
            counted &= m.counted;
            (m.rows, m.total)
        };
        let (controls, totals): (Vec<_>, Vec<_>) = d
            .controls
            .iter()
            .map(|c| side(c.iter().map(|(w, n)| (control(*w), n.value)).collect()))
            .unzip();
        let (parts, part_totals): (Vec<_>, Vec<_>) = d
            .parts
            .iter()
            .map(|p| {
                let (rows, total) =
                    side(p.parse.iter().map(|(v, n)| (parse(v), n.value)).collect());
                ((rows, p.control), total)
            })
            .unzip();
        Sides {
            controls,
            totals,
            parts,
            part_totals,
            ends_decide,
            counted,
        }
    }

    /// The entries one count at a figure reads at most (each part's and
    /// its control side's). Listing and sorting a pair costs about ten
    /// times reading an entry (measured: listing from a twelfth as many
    /// pairs as this beat a quarter on switch_p4_16 and 4096 on
    /// fabric-tna).
    fn pass_len(&self) -> u128 {
        let len = |(p, c): &(Vec<(f64, u128)>, usize)| (p.len() + self.controls[*c].len()) as u128;
        self.parts.iter().map(len).sum()
    }

    /// The least and greatest sum, when both are finite.
    fn range(&self) -> Option<(f64, f64)> {
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        for (p, c) in &self.parts {
            let (Some(p0), Some(p1), Some(c0), Some(c1)) = (
                p.first(),
                p.last(),
                self.controls[*c].first(),
                self.controls[*c].last(),
            ) else {
                continue;
            };
            lo = lo.min(p0.0 + c0.0);
            hi = hi.max(p1.0 + c1.0);
        }
        (lo.is_finite() && hi.is_finite()).then_some((lo, hi))
    }

    /// Classes whose sum is at most `x`: per part, parse values rising
    /// while the control values that still fit fall (f64 addition is
    /// monotone in each argument), one merge ([`Self::count`]).
    fn at_most(&self, x: f64) -> u128 {
        self.count(x, &mut ())
    }

    /// Classes whose sum is at most `x`, each sum met told to `near`
    /// (the greatest at most `x` and the least over it are among them).
    ///
    /// A part whose least sum is over `x` adds nothing, and one whose
    /// greatest sum is at most `x` adds all its classes without a merge
    /// (as the search closes in, most parts are one or the other), when
    /// every figure is finite ([`Self::ends_decide`]).
    fn count(&self, x: f64, near: &mut impl Near) -> u128 {
        let mut n = 0u128;
        for ((p, ci), &p_total) in self.parts.iter().zip(&self.part_totals) {
            let c = &self.controls[*ci];
            if let (true, Some(p0), Some(pl), Some(c0), Some(cl)) =
                (self.ends_decide, p.first(), p.last(), c.first(), c.last())
            {
                if p0.0 + c0.0 > x {
                    near.above(p0.0 + c0.0);
                    continue;
                }
                if pl.0 + cl.0 <= x {
                    n = n.saturating_add(p_total.saturating_mul(self.totals[*ci]));
                    near.below(pl.0 + cl.0);
                    near.entries(p.len() as u128 * c.len() as u128);
                    continue;
                }
            }
            let (mut j, mut fit) = (c.len(), self.totals[*ci]);
            for (pv, pn) in p {
                while j > 0 && pv + c[j - 1].0 > x {
                    j -= 1;
                    fit = fit.saturating_sub(c[j].1);
                }
                if let Some(over) = c.get(j) {
                    near.above(pv + over.0);
                }
                if j == 0 {
                    break;
                }
                near.below(pv + c[j - 1].0);
                near.entries(j as u128);
                n = n.saturating_add(mul_sat(*pn, fit));
            }
        }
        n
    }
}

/// `a * b`, saturating at `u128::MAX` ([`u128::saturating_mul`]), one
/// machine multiplication when both fit in 64 bits (counts mostly do).
fn mul_sat(a: u128, b: u128) -> u128 {
    match (u64::try_from(a), u64::try_from(b)) {
        (Ok(x), Ok(y)) => u128::from(x) * u128::from(y),
        _ => a.saturating_mul(b),
    }
}

/// What a count at a figure ([`Sides::count`]) notes of the sums it meets.
trait Near {
    /// A sum at most the figure.
    fn below(&mut self, sum: f64);
    /// A sum over the figure.
    fn above(&mut self, sum: f64);
    /// `n` more pairs of entries (parse, control) at most the figure.
    fn entries(&mut self, n: u128);
}

/// Notes nothing: the count alone.
impl Near for () {
    fn below(&mut self, _: f64) {}
    fn above(&mut self, _: f64) {}
    fn entries(&mut self, _: u128) {}
}

/// The greatest sum at most the figure and the least over it (infinite
/// when there is none), and the pairs of entries at most the figure.
struct Around {
    below: f64,
    above: f64,
    entries: u128,
}

impl Near for Around {
    fn below(&mut self, sum: f64) {
        self.below = self.below.max(sum);
    }
    fn above(&mut self, sum: f64) {
        self.above = self.above.min(sum);
    }
    fn entries(&mut self, n: u128) {
        self.entries = self.entries.saturating_add(n);
    }
}

impl Sides {
    /// The least `x` with more than `k` classes at or below it, searched
    /// over the order of the floats between `lo` and `hi`: one class's
    /// sum, whatever the figures (NaN, counts of 0).
    fn kth_by_floats(&self, k: u128, lo: f64, hi: f64) -> f64 {
        let (mut a, mut b) = (order_key(lo), order_key(hi));
        while a < b {
            // The difference in i128: keys of opposite signs span more
            // than i64 holds.
            let mid = a + ((i128::from(b) - i128::from(a)) / 2) as i64;
            if self.at_most(from_order_key(mid)) > k {
                b = mid;
            } else {
                a = mid + 1;
            }
        }
        from_order_key(a)
    }

    /// The least `x` in the order of floats from `lo` to `hi` with more
    /// than `k` classes at or below it (the search of
    /// [`ClassDistribution::kth_smallest`], every figure finite, every
    /// entry counting some paths): each count also gives the sums on either
    /// side of the figure counted at, and the search moves its ends onto
    /// them, so it closes in on the classes' sums, not on every float
    /// between them; once at most `few` pairs of entries (parse, control)
    /// lie between the figures counted on either side, their classes are
    /// listed and ranked instead.
    fn kth_by_sums(&self, k: u128, lo: f64, hi: f64, few: u128) -> f64 {
        let (mut a, mut b) = (order_key(lo), order_key(hi));
        // Counted figures on either side of the answer, with the classes
        // (under it) and the pairs of entries at or below them.
        let (mut under, mut n_under, mut e_under) = (f64::NEG_INFINITY, 0u128, 0u128);
        let (mut over, mut e_over) = (hi, self.around(hi).1.entries);
        while a < b {
            if e_over.saturating_sub(e_under) <= few {
                return self.kth_between(k - n_under, under, over);
            }
            let mid = a + ((i128::from(b) - i128::from(a)) / 2) as i64;
            let (n, near) = self.around(from_order_key(mid));
            if n > k {
                // No sum in (below, mid]: the answer is at most `below`.
                b = order_key(near.below).min(mid).max(a);
                (over, e_over) = (from_order_key(mid), near.entries);
            } else {
                // The answer is a sum over mid: at least `above`.
                a = order_key(near.above).max(mid + 1).min(b);
                (under, n_under, e_under) = (from_order_key(mid), n, near.entries);
            }
        }
        // -0 and 0 share a key: the result is 0, as the search over
        // every float gives it.
        from_order_key(a)
    }

    /// The `k`-th smallest (from 0) sum of the classes whose sum lies in
    /// `(under, over]`, each counted as often as it occurs (there are more
    /// than `k`), listed part by part: each parse value's control values
    /// in the range found by a walk down the control side.
    fn kth_between(&self, k: u128, under: f64, over: f64) -> f64 {
        let mut sums: Vec<(f64, u128)> = Vec::new();
        for (p, ci) in &self.parts {
            let c = &self.controls[*ci];
            // As the parse value rises, fewer control values fit under
            // either end: both ends only fall.
            let (mut from, mut to) = (c.len(), c.len());
            for &(pv, pn) in p {
                while to > 0 && pv + c[to - 1].0 > over {
                    to -= 1;
                }
                if to == 0 {
                    break;
                }
                from = from.min(to);
                while from > 0 && pv + c[from - 1].0 > under {
                    from -= 1;
                }
                sums.extend(c[from..to].iter().map(|e| (pv + e.0, mul_sat(pn, e.1))));
            }
        }
        // -0 and 0 share a place: 0, as the search gives it.
        kth_weighted(&mut sums, k).map_or(over, |sum| if sum == 0.0 { 0.0 } else { sum })
    }

    /// [`Self::at_most`] of `x`, with the greatest sum at most `x` and the
    /// least sum over it (infinite when there is none) and the pairs of
    /// entries at most `x`, every figure finite ([`Self::ends_decide`]).
    fn around(&self, x: f64) -> (u128, Around) {
        let mut near = Around {
            below: f64::NEG_INFINITY,
            above: f64::INFINITY,
            entries: 0,
        };
        let n = self.count(x, &mut near);
        (n, near)
    }
}

/// The `k`-th smallest (from 0) figure of `rows`, each counted as often as
/// its count says (counts added saturating); `None` when they add up to at
/// most `k`. Partitions around the middle row and keeps the side holding
/// the rank, the figures compared as [`f64::total_cmp`] orders them: linear,
/// where sorting the rows is not.
fn kth_weighted(mut rows: &mut [(f64, u128)], mut k: u128) -> Option<f64> {
    while !rows.is_empty() {
        let mid = rows.len() / 2;
        let (left, pivot, right) =
            std::mem::take(&mut rows).select_nth_unstable_by(mid, |x, y| x.0.total_cmp(&y.0));
        let below = left.iter().fold(0u128, |a, e| a.saturating_add(e.1));
        if k < below {
            rows = left;
            continue;
        }
        // A saturated count is over every rank asked.
        let upto = below.saturating_add(pivot.1);
        if k < upto {
            return Some(pivot.0);
        }
        k -= upto;
        rows = right;
    }
    None
}

/// A finite float's place in the order of floats, as an integer.
fn order_key(x: f64) -> i64 {
    let b = x.to_bits() as i64;
    if b < 0 {
        i64::MIN - b
    } else {
        b
    }
}

/// The float at a place in the order of floats ([`order_key`]'s inverse).
fn from_order_key(k: i64) -> f64 {
    if k < 0 {
        f64::from_bits((i64::MIN - k) as u64)
    } else {
        f64::from_bits(k as u64)
    }
}

/// The distribution over all packet classes of `pg` (through the product
/// `prod`) and the control `cc` walks of (the sum of `parse_w[i]` over the
/// path's product nodes, the sum of `table_w[t]` over the control path's
/// tables), factored per control side. `None` when a table of the parse
/// side or the control side would pass `budget` entries (or the parse
/// side's merges 16 x that), the sides kept (each signature's parse side,
/// each distinct start state's control side) pass `budget` entries in all,
/// or the control's states pass `cc`'s limit.
pub fn class_distribution<S: Copy + Eq + std::hash::Hash, const D: usize>(
    cc: &ControlClasses<'_>,
    pg: &PathGraph<'_>,
    prod: &Product<S>,
    parse_w: &[[u64; D]],
    table_w: &[i64],
    budget: usize,
) -> Result<Option<ClassDistribution<D>>, ClassError> {
    if parse_w.len() < prod.nodes.len() {
        return Err(ClassError::Weights {
            what: "product nodes",
            needed: prod.nodes.len(),
            given: parse_w.len(),
        });
    }
    if table_w.len() < cc.table_w.len() {
        return Err(ClassError::Weights {
            what: "tables",
            needed: cc.table_w.len(),
            given: table_w.len(),
        });
    }
    let h = &cc.h;
    // Parse side: per (signature of the rest, vector, state of the head).
    let edges = std::cell::RefCell::new(EdgeSigs::default());
    let own: Vec<u64> = prod.nodes.iter().map(|n| h.visit_sig(pg, n.node)).collect();
    let parse = parse_side(prod, parse_w, budget, |i, rest| {
        let g = prod.nodes[i as usize].node;
        let (sig, to) = match rest {
            None => (0, Next::Accept),
            Some((sig, head)) => (sig, Next::Node(head)),
        };
        let edge = edges.borrow_mut().get(pg, h, g, to);
        (h.compose(h.compose(own[i as usize], edge), sig), g)
    });
    let Some(parse) = parse else {
        return Ok(None);
    };
    // Per signature, ascending by (vector, head), the heads then dropped
    // (each key is once: one sort of them all).
    let mut parse = parse;
    parse.sort_unstable_by_key(|&(sig, vec, head, _)| (sig, vec, head));
    let by_sig: Vec<(u64, ParseRows<D>)> = parse
        .chunk_by(|a, b| a.0 == b.0)
        .map(|rows| {
            let vecs = rows.iter().map(|&(_, vec, _, c)| (vec, c)).collect();
            (rows[0].0, vecs)
        })
        .collect();
    // Control side, one table per distinct start state; signatures whose
    // walk starts at the same control state share it.
    let roots: Vec<Option<Key>> = by_sig.iter().map(|&(sig, _)| cc.root(sig)).collect();
    let Some(sides) = control_sides(cc, table_w, budget, &roots) else {
        return Ok(None);
    };
    if kept_entries(&by_sig, &roots, &sides) > budget {
        return Ok(None);
    }
    Ok(Some(joined(by_sig, sides)))
}

/// The entries kept: each signature's parse side and the control side of
/// each distinct start state.
fn kept_entries<const D: usize>(
    by_sig: &[(u64, ParseRows<D>)],
    roots: &[Option<Key>],
    sides: &ControlSides,
) -> usize {
    let mut seen: HashSet<Option<Key>> = HashSet::new();
    let mut kept = 0usize;
    for ((_, parse_side), (root, &i)) in by_sig.iter().zip(roots.iter().zip(&sides.of_root)) {
        if seen.insert(*root) {
            kept += sides.tables[i].len();
        }
        kept += parse_side.len();
    }
    kept
}

/// The distribution with one part per control side: the parse sides of
/// the signatures sharing a control side pair with it as one (the classes
/// of a part are every parse entry with every control entry, so their
/// union is the concatenation).
fn joined<const D: usize>(
    by_sig: Vec<(u64, ParseRows<D>)>,
    sides: ControlSides,
) -> ClassDistribution<D> {
    let mut parts: Vec<DistributionPart<D>> = (0..sides.tables.len())
        .map(|control| DistributionPart {
            parse: Vec::new(),
            control,
        })
        .collect();
    for ((_, parse_side), &i) in by_sig.into_iter().zip(&sides.of_root) {
        parts[i].parse.extend(parse_side);
    }
    ClassDistribution {
        parts,
        controls: sides.tables,
    }
}

/// One signature's parse side: (summed parse weights, paths).
type ParseRows<const D: usize> = Vec<([u64; D], PathCount)>;

/// (signature, summed parse weights, head graph node, paths), each key once.
type ParseSide<const D: usize> = Vec<(u64, [u64; D], u32, PathCount)>;

/// The parse side of [`class_distribution`]: per accepted path, (the
/// signature of the path folded by `sig` into (signature, head graph node),
/// the sum of `parse_w`, the head) -> paths, each key once. Sums that fit `u64` go through
/// [`Product::grouped_sums`] (linear on chains), others through the
/// saturating [`Product::fold_tables`]; both give the same table.
fn parse_side<S: Copy + Eq + std::hash::Hash, const D: usize>(
    prod: &Product<S>,
    parse_w: &[[u64; D]],
    budget: usize,
    sig: impl Fn(u32, Option<(u64, u32)>) -> (u64, u32),
) -> Option<ParseSide<D>> {
    if let Some(start) = prod.start_node().filter(|_| prod.sums_fit_u64(parse_w)) {
        let t = prod.grouped_sums(start, parse_w, budget, sig)?;
        return Some(
            t.into_iter()
                .map(|(((s, head), vec), c)| (s, vec, head, c))
                .collect(),
        );
    }
    let t = prod.fold_tables(budget, |i, v: Option<(u64, [u64; D], u32)>| {
        let (s, head) = sig(i, v.map(|(s, _, head)| (s, head)));
        let mut vec = v.map_or([0; D], |(_, vec, _)| vec);
        for (o, x) in vec.iter_mut().zip(parse_w[i as usize]) {
            *o = o.saturating_add(x);
        }
        (s, vec, head)
    })?;
    Some(
        t.into_iter()
            .map(|((s, vec, head), c)| (s, vec, head, c))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(v: u128) -> PathCount {
        PathCount::exact(v)
    }

    #[test]
    fn order_keys_follow_the_order_of_floats() {
        let xs = [
            -3.5,
            -1e-300,
            -0.0,
            0.0,
            1e-300,
            0.1,
            0.30000000000000004,
            7.0,
        ];
        for w in xs.windows(2) {
            assert!(order_key(w[0]) <= order_key(w[1]), "{w:?}");
            assert_eq!(from_order_key(order_key(w[0])), w[0]);
        }
    }

    /// Two signatures sharing one control side, one with its own: ranks
    /// counted by hand from the expanded product.
    #[test]
    fn ranks_come_from_the_factored_product_without_expanding_it() {
        let d = ClassDistribution::<1> {
            parts: vec![
                DistributionPart {
                    parse: vec![([10], n(2)), ([30], n(1))],
                    control: 0,
                },
                DistributionPart {
                    parse: vec![([20], n(1))],
                    control: 1,
                },
                DistributionPart {
                    parse: vec![([0], n(1))],
                    control: 0,
                },
            ],
            controls: vec![vec![(1, n(1)), (5, n(3))], vec![(0, n(2))]],
        };
        // Values: 11 x2, 15 x6, 31 x1, 35 x3, 20 x2, 1 x1, 5 x3: 18 classes.
        let mut want = vec![1.0];
        want.extend([5.0; 3]);
        want.extend([11.0; 2]);
        want.extend([15.0; 6]);
        want.extend([20.0; 2]);
        want.push(31.0);
        want.extend([35.0; 3]);
        for (k, w) in want.iter().enumerate() {
            let got = d.kth_smallest(k as u128, |v| v[0] as f64, |q| q as f64);
            assert_eq!(got, Some(*w), "rank {k}");
        }
        assert_eq!(d.kth_smallest(18, |v| v[0] as f64, |q| q as f64), None);
        let total: u128 = d.joint().values().map(|c| c.value).sum();
        assert_eq!(total, 18);
        // Scaled to fractions, the result is one class's sum as f64 adds it.
        let got = d.kth_smallest(8, |v| v[0] as f64 * 0.1, |q| q as f64 * 0.01);
        assert_eq!(got, Some(1.0 + 0.05));
        // Bins of (35 - 1) / 2 = 17: [1, 18] holds 1, 5, 11, 15 (12), (18, 35] the rest (6).
        let h = d
            .histogram(2, |v| v[0] as f64, |q| q as f64)
            .expect("classes");
        assert_eq!((h.lo, h.hi), (1.0, 35.0));
        assert_eq!(h.counts, vec![12, 6]);
        assert!(ClassDistribution::<1>::default()
            .histogram(4, |v| v[0] as f64, |q| q as f64)
            .is_none());
    }

    /// The search over the classes' sums finds, at every rank, the float
    /// the search over every float finds: the sign of a zero sum included
    /// (-0 and 0 share a place in the order, which gives 0).
    #[test]
    fn searching_the_sums_finds_what_searching_every_float_finds() {
        type Parse = Vec<([u64; 1], PathCount)>;
        type Control = Vec<(i64, PathCount)>;
        let frac = |v: &[u64; 1]| v[0] as f64 / 10.0 - 3.0;
        let cases: [(Parse, Control); 4] = [
            (vec![([30], n(2)), ([40], n(1))], vec![(0, n(2)), (3, n(1))]),
            (
                vec![([30], n(2)), ([31], n(1))],
                vec![(-1, n(1)), (0, n(3)), (1, n(1))],
            ),
            (vec![([0], n(1)), ([30], n(5))], vec![(0, n(2)), (3, n(1))]),
            (
                vec![([1], n(3)), ([7], n(1)), ([29], n(2))],
                vec![(-5, n(1)), (2, n(4)), (9, n(1))],
            ),
        ];
        for (parse, control) in cases {
            let d = ClassDistribution::<1> {
                parts: vec![DistributionPart { parse, control: 0 }],
                controls: vec![control],
            };
            for scale in [1.0, 0.01, 0.3] {
                let sides = Sides::new(&d, frac, |q| q as f64 * scale);
                let (lo, hi) = sides.range().expect("classes");
                assert!(sides.ends_decide && sides.counted);
                let total = sides.at_most(hi);
                for k in 0..total {
                    let slow = sides.kth_by_floats(k, lo, hi);
                    // Searched to the end, listed at once, and in between.
                    for few in [0, total, 2] {
                        let fast = sides.kth_by_sums(k, lo, hi, few);
                        assert_eq!(fast.to_bits(), slow.to_bits(), "rank {k} at scale {scale}");
                    }
                }
            }
        }
    }

    /// Every class's figure, listed one by one and sorted: the brute force
    /// the ranks are checked against (no merge, no search, no sides).
    fn every_figure(
        d: &ClassDistribution<1>,
        parse: impl Fn(&[u64; 1]) -> f64,
        control: impl Fn(i64) -> f64,
    ) -> Vec<f64> {
        let mut all = Vec::new();
        for part in &d.parts {
            for (v, pc) in &part.parse {
                for (w, c) in &d.controls[part.control] {
                    for _ in 0..pc.value * c.value {
                        all.push(parse(v) + control(*w));
                    }
                }
            }
        }
        all.sort_by(f64::total_cmp);
        all
    }

    proptest::proptest! {
        /// Ranks, counts at or below a figure and bins agree with every
        /// class's figure listed by brute force, on random small sides
        /// (shared control sides, repeated and negative weights, counts of
        /// 0 to 3, fractional figures that round).
        #[test]
        fn ranks_match_every_class_listed(
            parts in proptest::collection::vec(
                (proptest::collection::vec((0u64..40, 0u128..4), 0..6), 0usize..3),
                0..5,
            ),
            controls in proptest::collection::vec(
                proptest::collection::vec((-30i64..30, 0u128..4), 0..6),
                3,
            ),
            scale in proptest::sample::select(vec![1.0, 0.1, 0.3, 1e-9, 7.25]),
            base in proptest::sample::select(vec![0.0, -2.5, 0.1, 1e6]),
        ) {
            let sorted = |v: Vec<(i64, u128)>| {
                let mut m = std::collections::BTreeMap::new();
                for (w, c) in v {
                    *m.entry(w).or_insert(0u128) += c;
                }
                m.into_iter().map(|(w, c)| (w, n(c))).collect::<Vec<_>>()
            };
            let d = ClassDistribution::<1> {
                parts: parts
                    .into_iter()
                    .map(|(p, control)| DistributionPart {
                        parse: p.into_iter().map(|(v, c)| ([v], n(c))).collect(),
                        control,
                    })
                    .collect(),
                controls: controls.into_iter().map(sorted).collect(),
            };
            let parse = |v: &[u64; 1]| base + v[0] as f64 * scale;
            let control = |q: i64| q as f64 * scale / 3.0;
            let all = every_figure(&d, parse, control);
            for (k, want) in all.iter().enumerate() {
                let got = d.kth_smallest(k as u128, parse, control);
                proptest::prop_assert_eq!(got.map(f64::to_bits), Some(want.to_bits()), "rank {}", k);
            }
            proptest::prop_assert_eq!(d.kth_smallest(all.len() as u128, parse, control), None);
            let sides = Sides::new(&d, parse, control);
            // The search counted to the end, listing late, listing at once.
            if let (true, Some((lo, hi))) = (sides.counted, sides.range()) {
                for (k, want) in all.iter().enumerate() {
                    for few in [0, 3, u128::MAX] {
                        let got = sides.kth_by_sums(k as u128, lo, hi, few);
                        proptest::prop_assert_eq!(got.to_bits(), want.to_bits(), "rank {} few {}", k, few);
                    }
                }
            }
            for x in all.iter().chain(&[-1e300, 0.0, 3.3]) {
                let want = all.iter().filter(|y| *y <= x).count() as u128;
                proptest::prop_assert_eq!(sides.at_most(*x), want, "at most {}", x);
            }
            match d.histogram(5, parse, control) {
                None => proptest::prop_assert!(all.is_empty()),
                Some(h) => {
                    let width = (h.hi - h.lo) / 5.0;
                    let mut want = vec![0u128; 5];
                    for v in &all {
                        let bin = (1..=5)
                            .find(|&i| *v <= if i == 5 { h.hi } else { h.lo + width * i as f64 });
                        want[bin.expect("within the range") - 1] += 1;
                    }
                    // The ends are the least and greatest sums of entries
                    // that count some classes (an entry of 0 paths still
                    // bounds the range).
                    if sides.counted {
                        let ends = (Some(&h.lo), Some(&h.hi));
                        proptest::prop_assert_eq!(ends, (all.first(), all.last()));
                    }
                    proptest::prop_assert_eq!(h.counts, want);
                }
            }
        }
    }

    /// Counting at or below a figure skips the merge of a part wholly
    /// below or above it: the counts are the expanded product's at every
    /// figure, saturating counts included, and with a NaN figure (no part
    /// judged by its ends) the merge's own count.
    #[test]
    fn counts_at_or_below_match_the_expanded_product() {
        let big = u128::MAX / 2;
        let d = ClassDistribution::<1> {
            parts: vec![
                DistributionPart {
                    parse: vec![([0], n(2)), ([3], n(1))],
                    control: 0,
                },
                DistributionPart {
                    parse: vec![([40], n(big)), ([50], n(3))],
                    control: 1,
                },
                DistributionPart {
                    parse: vec![([7], n(1))],
                    control: 1,
                },
            ],
            controls: vec![vec![(1, n(1)), (2, n(4))], vec![(0, n(3)), (9, n(1))]],
        };
        let sides = Sides::new(&d, |v| v[0] as f64, |q| q as f64);
        assert!(sides.ends_decide);
        let joint = d.joint();
        for x in -1..=62 {
            let want = joint
                .iter()
                .filter(|((v, w), _)| v[0] as i64 + w <= x)
                .fold(0u128, |a, (_, c)| a.saturating_add(c.value));
            assert_eq!(sides.at_most(x as f64), want, "x = {x}");
        }
        let nan = Sides::new(
            &d,
            |v| if v[0] == 50 { f64::NAN } else { v[0] as f64 },
            |q| q as f64,
        );
        assert!(!nan.ends_decide);
        let merged = |s: &Sides, x: f64| {
            let mut n = 0u128;
            for (p, ci) in &s.parts {
                let c = &s.controls[*ci];
                let (mut j, mut fit) = (c.len(), s.totals[*ci]);
                for (pv, pn) in p {
                    while j > 0 && pv + c[j - 1].0 > x {
                        j -= 1;
                        fit = fit.saturating_sub(c[j].1);
                    }
                    if j == 0 {
                        break;
                    }
                    n = n.saturating_add(pn.saturating_mul(fit));
                }
            }
            n
        };
        for x in -1..=62 {
            assert_eq!(nan.at_most(x as f64), merged(&nan, x as f64), "x = {x}");
        }
    }
}
