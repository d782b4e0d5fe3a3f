//! Fitting the PCA-Lasso-polynomial model (docs/models.md, "PLP models"):
//! degree-2 polynomial features, standardised, projected on principal
//! components, weighed by a Lasso regression; the number of components
//! and the penalty are chosen by k-fold cross-validation. As in the paper,
//! two parts are fitted: the parser (rows without tables: packet size,
//! counted states, header bytes) and then the control (rows with tables:
//! what the parser part leaves of their latency, on the table counts by
//! match kind, key fields, key bits and entries).

use nalgebra::DMatrix;
use p4cost_model::plp::{self, PlpPart, PlpSpec};
use p4cost_model::{ModelKind, ModelSpec};

use crate::data::{Measurement, Measurements};
use crate::lasso::Gram;
use crate::lr::{rows_of_port, training, Naming};
use crate::pca::Pca;
use crate::CalibrateError;

/// How the cross-validation searches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlpOptions {
    /// Folds (5).
    pub folds: usize,
    /// Penalties tried, log-spaced from the one that zeroes every weight
    /// down to `alpha_span` times it (40).
    pub alphas: usize,
    /// Ratio of the smallest penalty tried to the largest (1e-7).
    pub alpha_span: f64,
}

impl Default for PlpOptions {
    fn default() -> Self {
        PlpOptions {
            folds: 5,
            alphas: 40,
            alpha_span: 1e-7,
        }
    }
}

/// Rows a part needs at least (two per fold).
pub const MIN_ROWS: usize = 10;

/// Convergence tolerance of the Lasso (relative weight change per sweep).
const TOL: f64 = 1e-10;

/// The standardiser: column means and standard deviations (1 where a
/// column is constant, as scikit-learn's `StandardScaler`).
pub fn scaler(p: &DMatrix<f64>) -> (Vec<f64>, Vec<f64>) {
    let (n, m) = p.shape();
    let nf = n.max(1) as f64;
    let mean: Vec<f64> = (0..m).map(|j| p.column(j).sum() / nf).collect();
    let scale = (0..m)
        .map(|j| {
            let var = p
                .column(j)
                .iter()
                .map(|v| (v - mean[j]).powi(2))
                .sum::<f64>()
                / nf;
            let sd = var.sqrt();
            if sd <= 1e-12 * mean[j].abs().max(1.0) {
                1.0
            } else {
                sd
            }
        })
        .collect();
    (mean, scale)
}

/// `(p - mean) / scale`, column by column.
pub fn standardise(p: &DMatrix<f64>, mean: &[f64], scale: &[f64]) -> DMatrix<f64> {
    DMatrix::from_fn(p.nrows(), p.ncols(), |i, j| {
        (p[(i, j)] - mean[j]) / scale[j]
    })
}

fn rows_of(p: &DMatrix<f64>, idx: &[usize]) -> DMatrix<f64> {
    DMatrix::from_fn(idx.len(), p.ncols(), |i, j| p[(idx[i], j)])
}

/// A fixed permutation of `0..n` (xorshift from a constant seed): the
/// folds are the same on every run.
fn shuffled(n: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).collect();
    let mut s: u64 = 0x2545_f491_4f6c_dd1d;
    for i in (1..n).rev() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        v.swap(i, (s % (i as u64 + 1)) as usize);
    }
    v
}

/// Fits one part on raw inputs `x` (one row per measurement) and targets
/// `y`. `what` names the part in errors.
pub fn fit_part(
    x: &[Vec<f64>],
    y: &[f64],
    inputs: &[&str],
    opts: &PlpOptions,
    what: &str,
) -> Result<PlpPart, CalibrateError> {
    let n = x.len();
    if n < MIN_ROWS.max(2 * opts.folds) {
        return Err(CalibrateError::Invalid(format!(
            "{what}: {n} measured rows; PLP needs at least {} for {}-fold cross-validation",
            MIN_ROWS.max(2 * opts.folds),
            opts.folds
        )));
    }
    let polys: Vec<Vec<f64>> = x.iter().map(|r| plp::poly2(r)).collect();
    let m = polys[0].len();
    let p = DMatrix::from_fn(n, m, |i, j| polys[i][j]);

    // The penalties, from the data as a whole.
    let (mean, scale) = scaler(&p);
    let s = standardise(&p, &mean, &scale);
    let pca = Pca::fit(&s, m);
    let r = pca.components.len();
    let alpha_max = Gram::new(&pca.transform(&s, r), y).alpha_max();
    if !(alpha_max.is_finite() && alpha_max > 0.0) {
        return Err(CalibrateError::Invalid(format!(
            "{what}: the latency does not vary with the inputs in the {n} rows"
        )));
    }
    let alphas = penalties(alpha_max, opts);
    // sse[k-1][a]: squared validation error with k components, alpha a.
    let mut sse = vec![vec![0.0; alphas.len()]; r];
    let order = shuffled(n);
    for fold in 0..opts.folds {
        validate_fold(&p, y, &order, (fold, opts.folds), &alphas, &mut sse);
    }
    let best = best_setting(&sse);
    let (k, alpha) = (best.0 + 1, alphas[best.1]);
    let scores = pca.transform(&s, k);
    let f = Gram::new(&scores, y).solve(alpha, None, TOL);
    Ok(PlpPart {
        inputs: inputs.iter().map(|s| s.to_string()).collect(),
        mean,
        scale,
        pca_mean: pca.mean.clone(),
        components: pca.components[..k].to_vec(),
        coef: f.coef,
        intercept: f.intercept,
        alpha,
        cv_rmse_ns: (sse[best.0][best.1] / n as f64).sqrt(),
    })
}

/// The Lasso penalties tried: `opts.alphas` of them, from `alpha_max`
/// (no component kept) down to `alpha_max * opts.alpha_span`,
/// geometrically spaced.
fn penalties(alpha_max: f64, opts: &PlpOptions) -> Vec<f64> {
    (0..opts.alphas)
        .map(|i| {
            alpha_max
                * opts
                    .alpha_span
                    .powf(i as f64 / (opts.alphas.max(2) - 1) as f64)
        })
        .collect()
}

/// Adds to `sse[k-1][a]` the squared error, on the rows of fold `fold`
/// of `folds` (in `order`), of the model fitted on the other rows of
/// `p` (polynomial inputs) and `y` with `k` components and penalty
/// `alphas[a]`, for every `k` and `a`.
fn validate_fold(
    p: &DMatrix<f64>,
    y: &[f64],
    order: &[usize],
    (fold, folds): (usize, usize),
    alphas: &[f64],
    sse: &mut [Vec<f64>],
) {
    let r = sse.len();
    let (mut tr, mut va) = (Vec::new(), Vec::new());
    for (pos, &i) in order.iter().enumerate() {
        if pos % folds == fold {
            va.push(i)
        } else {
            tr.push(i)
        }
    }
    let ptr = rows_of(p, &tr);
    let (fm, fs) = scaler(&ptr);
    let fpca = Pca::fit(&standardise(&ptr, &fm, &fs), r);
    let ztr = fpca.transform(&standardise(&ptr, &fm, &fs), r);
    let zva = fpca.transform(&standardise(&rows_of(p, &va), &fm, &fs), r);
    let ytr: Vec<f64> = tr.iter().map(|&i| y[i]).collect();
    let gram = Gram::new(&ztr, &ytr);
    let rk = ztr.ncols();
    let mut warm: Option<Vec<f64>> = None;
    for (a, &alpha) in alphas.iter().enumerate() {
        // The scores are uncorrelated on the rows PCA was fitted on,
        // so the Lasso decouples per component: the solution for the
        // first k components is the first k weights of this one.
        let f = gram.solve(alpha, warm.as_deref(), TOL);
        for (row, &i) in va.iter().enumerate() {
            let mut pred = f.intercept;
            for k in 0..r {
                if k < rk {
                    pred += f.coef[k] * zva[(row, k)];
                }
                sse[k][a] += (y[i] - pred).powi(2);
            }
        }
        warm = Some(f.coef);
    }
}

/// The (components - 1, penalty) of the least validation error; ties go
/// to fewer components, then the larger penalty (the simpler model).
fn best_setting(sse: &[Vec<f64>]) -> (usize, usize) {
    let mut best = (0usize, 0usize);
    for (k, row) in sse.iter().enumerate() {
        for (a, v) in row.iter().enumerate() {
            if *v < sse[best.0][best.1] * (1.0 - 1e-12) {
                best = (k, a);
            }
        }
    }
    best
}

/// Fits a `plp` model on the rows of one port.
pub fn fit(
    m: &Measurements,
    port: Option<u32>,
    naming: &Naming,
    opts: &PlpOptions,
) -> Result<ModelSpec, CalibrateError> {
    let (port, rows) = rows_of_port(m, port)?;
    let (parser_rows, control_rows): (Vec<&Measurement>, Vec<&Measurement>) =
        rows.iter().partition(|r| r.features.tables.is_empty());
    let px: Vec<Vec<f64>> = parser_rows
        .iter()
        .map(|r| plp::parser_inputs(&r.features).to_vec())
        .collect();
    let py: Vec<f64> = parser_rows.iter().map(|r| r.latency_ns).collect();
    let parser = fit_part(
        &px,
        &py,
        &plp::PARSER_INPUTS,
        opts,
        &format!(
            "the parser part (rows without tables at {port} Gbit/s: measure the suite's baseline and parser sweeps)"
        ),
    )?;
    let control = if control_rows.is_empty() {
        None
    } else {
        let cx: Vec<Vec<f64>> = control_rows
            .iter()
            .map(|r| plp::control_inputs(&r.features).to_vec())
            .collect();
        let cy: Vec<f64> = control_rows
            .iter()
            .map(|r| r.latency_ns - parser.eval(&plp::parser_inputs(&r.features)))
            .collect();
        Some(fit_part(
            &cx,
            &cy,
            &plp::CONTROL_INPUTS,
            opts,
            &format!("the control part (rows with tables at {port} Gbit/s)"),
        )?)
    };
    let mut notes = vec![format!(
        "Fitted by `p4cost fit --kind plp` on {} measured rows at {port} Gbit/s of {}: parser part on {} rows ({} components, alpha {:.3e}, cross-validated RMSE {:.3} ns){}.",
        rows.len(),
        naming.data,
        parser_rows.len(),
        parser.components.len(),
        parser.alpha,
        parser.cv_rmse_ns,
        match &control {
            Some(c) => format!(
                "; control part on {} rows ({} components, alpha {:.3e}, cross-validated RMSE {:.3} ns)",
                control_rows.len(),
                c.components.len(),
                c.alpha,
                c.cv_rmse_ns
            ),
            None => "; no row had a table, so the model has no control part".to_string(),
        }
    )];
    if control.is_none() {
        notes.push("Tables cost nothing under this model: it was fitted without tables.".into());
    }
    let mut model = naming.model(
        ModelKind::Plp,
        port,
        "PLP",
        "fitted by p4cost fit --kind plp (polynomial features, PCA, Lasso; cross-validated)",
        "docs/models.md#plp-models",
        notes,
    );
    model.training = Some(training(&rows));
    model.plp = Some(PlpSpec { parser, control });
    naming.finish(model, &rows, "plp")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::parse;
    use crate::noise::Noise;

    fn naming() -> Naming {
        Naming {
            name: "t".into(),
            target: "test".into(),
            data: "d.csv".into(),
        }
    }

    /// A surface with curvature in every part: the parser cost grows with
    /// the square of the states and with packet size squared, and the
    /// tables cost more the more of them there are.
    fn quadratic(p: f64, n: f64, h: f64, t: f64, bits: f64) -> f64 {
        150.0
            + 0.2 * p
            + 2e-5 * p * p
            + 3.0 * n
            + 0.2 * n * h
            + 0.4 * n * n
            + 1.5 * t
            + 0.3 * t * t
            + 0.01 * t * bits
    }

    fn data(seed: u64, sizes: &[u32], noise_sd: f64) -> String {
        let mut noise = Noise::new(seed);
        let mut csv = String::from("program,port_gbps,packet_size,state_bytes,tables,latency_ns\n");
        for &p in sizes {
            for n in 0..9u32 {
                for h in [2u32, 5, 10, 20] {
                    let y = quadratic(p.into(), n.into(), h.into(), 0.0, 0.0);
                    let sb = vec![h.to_string(); n as usize].join("+");
                    csv.push_str(&format!("x,10,{p},{sb},,{}\n", y + noise.normal(noise_sd)));
                }
            }
            for t in 1..=8u32 {
                for bits in [8u32, 16, 32] {
                    let y = quadratic(p.into(), 0.0, 0.0, t.into(), bits.into());
                    let tables = vec![format!("exact:{bits}:100"); t as usize].join(";");
                    csv.push_str(&format!(
                        "x,10,{p},,{tables},{}\n",
                        y + noise.normal(noise_sd)
                    ));
                }
            }
        }
        csv
    }

    fn rmse(model: &ModelSpec, m: &Measurements) -> f64 {
        let se: f64 = m
            .rows
            .iter()
            .map(|r| {
                let p = p4cost_model::fitted::latency_of_features(model, &r.features).unwrap();
                (p - r.latency_ns).powi(2)
            })
            .sum();
        (se / m.rows.len() as f64).sqrt()
    }

    #[test]
    fn plp_beats_lr_on_a_quadratic_surface() {
        let train = parse("d.csv", &data(11, &[100, 400, 700, 1000, 1300], 0.1)).unwrap();
        // Held out: other packet sizes, other noise.
        let test = parse("t.csv", &data(12, &[250, 850, 1150], 0.1)).unwrap();
        let plp = fit(&train, None, &naming(), &PlpOptions::default()).unwrap();
        let lr = crate::lr::fit(&train, None, 16, &naming()).unwrap();
        let (e_plp, e_lr) = (rmse(&plp, &test), rmse(&lr, &test));
        assert!(e_plp < 0.35, "PLP held-out RMSE {e_plp}");
        assert!(e_plp * 5.0 < e_lr, "PLP {e_plp} vs LR {e_lr}");
        let spec = plp.plp.as_ref().unwrap();
        assert!(spec.control.is_some());
        assert!(plp.fit.as_ref().unwrap().r2 > 0.9999);
        assert_eq!(plp.kind, ModelKind::Plp);
        // The file round-trips through the model loader.
        let text = serde_json::to_string(&plp).unwrap();
        let back = p4cost_model::catalog::parse_model("m.json", &text).unwrap();
        assert!((rmse(&back, &test) - e_plp).abs() < 1e-9);
    }

    #[test]
    fn too_few_rows_are_refused_by_part() {
        let csv = "program,port_gbps,packet_size,state_bytes,tables,latency_ns\nx,10,100,,,1\nx,10,200,4,,2\n";
        let e = fit(
            &parse("d.csv", csv).unwrap(),
            None,
            &naming(),
            &PlpOptions::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("parser part") && e.contains("2 measured rows"),
            "{e}"
        );
    }

    #[test]
    fn folds_are_a_fixed_permutation() {
        let v = shuffled(50);
        let mut s = v.clone();
        s.sort_unstable();
        assert_eq!(s, (0..50).collect::<Vec<_>>());
        assert_eq!(v, shuffled(50));
        assert_ne!(v, s);
    }
}
