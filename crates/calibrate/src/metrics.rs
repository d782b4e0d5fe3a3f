//! Accuracy figures of predictions against measurements: the papers'
//! accuracy metric, MAE, RMSE, R^2, sMAPE and the shares within 1 ns and
//! within 1 %.

use p4cost_model::spec::FitSummary;
use p4cost_model::ModelSpec;
use serde::Serialize;

use crate::data::Measurement;
use crate::CalibrateError;

/// Figures over a set of (predicted, measured) pairs.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Accuracy {
    /// Pairs compared.
    pub rows: usize,
    /// The papers' accuracy: mean of `100 - |pred - meas| / meas * 100`.
    pub accuracy_percent: f64,
    /// Mean absolute error, ns.
    pub mae_ns: f64,
    /// Root mean square error, ns.
    pub rmse_ns: f64,
    /// Largest absolute error, ns.
    pub max_abs_error_ns: f64,
    /// Mean signed error (predicted - measured), ns: the bias.
    pub bias_ns: f64,
    /// Coefficient of determination (1 - SS_res / SS_tot); 1 when the
    /// measurements do not vary and every prediction is exact.
    pub r2: f64,
    /// Symmetric mean absolute percentage error, percent.
    pub smape_percent: f64,
    /// Share of rows predicted within 1 ns, percent.
    pub within_1ns_percent: f64,
    /// Share of rows predicted within 1 % of the measurement, percent.
    pub within_1pct_percent: f64,
}

impl Accuracy {
    /// The figures of `pairs` (predicted, measured); `None` when empty.
    pub fn of(pairs: &[(f64, f64)]) -> Option<Accuracy> {
        if pairs.is_empty() {
            return None;
        }
        let n = pairs.len() as f64;
        let mean =
            |f: &dyn Fn(f64, f64) -> f64| pairs.iter().map(|&(p, m)| f(p, m)).sum::<f64>() / n;
        let mean_meas = mean(&|_, m| m);
        let ss_res: f64 = pairs.iter().map(|&(p, m)| (p - m).powi(2)).sum();
        let ss_tot: f64 = pairs.iter().map(|&(_, m)| (m - mean_meas).powi(2)).sum();
        let r2 = if ss_tot > 0.0 {
            1.0 - ss_res / ss_tot
        } else if ss_res == 0.0 {
            1.0
        } else {
            f64::NEG_INFINITY
        };
        let share = |f: &dyn Fn(f64, f64) -> bool| {
            100.0 * pairs.iter().filter(|&&(p, m)| f(p, m)).count() as f64 / n
        };
        Some(Accuracy {
            rows: pairs.len(),
            accuracy_percent: mean(&|p, m| 100.0 - (p - m).abs() / m * 100.0),
            mae_ns: mean(&|p, m| (p - m).abs()),
            rmse_ns: (ss_res / n).sqrt(),
            max_abs_error_ns: pairs
                .iter()
                .map(|&(p, m)| (p - m).abs())
                .fold(0.0, f64::max),
            bias_ns: mean(&|p, m| p - m),
            r2,
            smape_percent: mean(&|p, m| {
                let d = p.abs() + m.abs();
                if d == 0.0 {
                    0.0
                } else {
                    200.0 * (p - m).abs() / d
                }
            }),
            within_1ns_percent: share(&|p, m| (p - m).abs() <= 1.0),
            within_1pct_percent: share(&|p, m| (p - m).abs() <= 0.01 * m.abs()),
        })
    }
}

/// The `fit` section of a fitted model: its figures of `model` on its training rows.
pub fn fit_summary(
    model: &ModelSpec,
    rows: &[&Measurement],
    method: &str,
    data: &str,
) -> Result<FitSummary, CalibrateError> {
    let pairs: Vec<(f64, f64)> = rows
        .iter()
        .filter_map(|r| {
            p4cost_model::fitted::latency_of_features(model, &r.features).map(|p| (p, r.latency_ns))
        })
        .collect();
    let acc =
        Accuracy::of(&pairs).ok_or_else(|| CalibrateError::Invalid("nothing fitted".into()))?;
    if let Some(&(_, m)) = pairs
        .first()
        .filter(|_| pairs.iter().all(|&(_, x)| x == pairs[0].1))
    {
        return Err(CalibrateError::Invalid(format!(
            "every row measured the same latency ({m} ns): nothing tells the terms apart (R^2 is undefined); check the latency_ns column, or measure programs that differ"
        )));
    }
    if !(acc.rmse_ns.is_finite() && acc.r2.is_finite()) {
        return Err(CalibrateError::Invalid(format!(
            "the {method} fit predicts a non-finite latency for some of its own rows"
        )));
    }
    Ok(FitSummary {
        method: method.into(),
        data: data.into(),
        rows: acc.rows,
        r2: acc.r2,
        rmse_ns: acc.rmse_ns,
        mae_ns: acc.mae_ns,
        max_abs_residual_ns: acc.max_abs_error_ns,
        smape_percent: acc.smape_percent,
        accuracy_percent: acc.accuracy_percent,
        terms: p4cost_model::fitted::term_ranges(model, rows.iter().map(|r| &r.features)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_by_hand() {
        // Errors +2 and -1 on 100 and 200 ns.
        let a = Accuracy::of(&[(102.0, 100.0), (199.0, 200.0)]).unwrap();
        assert!((a.accuracy_percent - (98.0 + 99.5) / 2.0).abs() < 1e-12);
        assert!((a.mae_ns - 1.5).abs() < 1e-12);
        assert!((a.rmse_ns - (2.5f64).sqrt()).abs() < 1e-12);
        assert!((a.bias_ns - 0.5).abs() < 1e-12);
        assert_eq!(a.max_abs_error_ns, 2.0);
        assert_eq!(a.within_1ns_percent, 50.0);
        assert_eq!(a.within_1pct_percent, 50.0);
        // SS_tot = 2 * 50^2 = 5000, SS_res = 5.
        assert!((a.r2 - (1.0 - 5.0 / 5000.0)).abs() < 1e-12);
        let s = (200.0 * 2.0 / 202.0 + 200.0 * 1.0 / 399.0) / 2.0;
        assert!((a.smape_percent - s).abs() < 1e-12);
        assert!(Accuracy::of(&[]).is_none());
    }
}
