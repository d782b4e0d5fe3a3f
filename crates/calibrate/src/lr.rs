//! The papers' linear regression (docs/models.md, "Fitting your own
//! model"): latency on packet size, header bytes and counted states, and
//! table counts by match class (exact / TCAM) and key class (k=8 / k=16+),
//! fitted by ordinary least squares (linfa-linear). The result is a
//! `tofino_ingress_linear` model file: the same kind and equation as the
//! published models, so every command evaluates it.

use linfa::prelude::*;
use linfa_linear::LinearRegression;
use ndarray::{Array1, Array2};
use p4cost_model::spec::{Base, ControlTerm, KeyClassCost, ParserTerm, Source, Training};
use p4cost_model::{Features, ModelKind, ModelSpec, TableMatch};

use crate::data::{Measurement, Measurements};
use crate::metrics::fit_summary;
use crate::CalibrateError;

/// What the fitted model is called and where it is from.
#[derive(Debug, Clone, PartialEq)]
pub struct Naming {
    /// Model name (`my-100g`).
    pub name: String,
    /// Target chip or software (`tofino1`, `bmv2`, ...).
    pub target: String,
    /// The measurement file as given (recorded in the model).
    pub data: String,
}

impl Naming {
    /// A fitted model of `kind` for `port`, named, sourced and titled
    /// (`what`: `LR`, `PLP`, ...) but with no terms and no training range
    /// yet: the fitter fills those in, then [`Naming::finish`].
    pub fn model(
        &self,
        kind: ModelKind,
        port: u32,
        what: &str,
        location: &str,
        doc: &str,
        notes: Vec<String>,
    ) -> ModelSpec {
        ModelSpec {
            schema: 1,
            name: self.name.clone(),
            title: format!("{} ingress latency on a {port}G port (fitted, {what})", self.target),
            kind,
            target: self.target.clone(),
            architectures: Vec::new(),
            port_gbps: Some(port),
            source: Source {
                citation: format!("measurements in {}", self.data),
                doi: None,
                location: location.into(),
                spec: doc.into(),
            },
            predicts: "mean ingress latency (ingress parser + ingress control + ingress deparser), ns, as measured".into(),
            base: None,
            parser: None,
            control: None,
            training: None,
            nonlinear: None,
            mau_cycles: None,
            placement: None,
            plp: None,
            component: None,
            fit: None,
            cpu: None,
            nfp: None,
            bmv2_coarse: None,
            notes,
            ports: Vec::new(),
        }
    }

    /// One model file of the single-port `fits` (ascending ports): each
    /// port's fit kept whole under `ports`, the file naming what they
    /// share; a single fit is returned as it is.
    pub fn per_port(&self, mut fits: Vec<ModelSpec>) -> Result<ModelSpec, CalibrateError> {
        if fits.len() < 2 {
            return fits
                .pop()
                .ok_or_else(|| CalibrateError::Invalid("no port to fit".into()));
        }
        fits.sort_by_key(|m| m.port_gbps);
        let first = &fits[0];
        let ports: Vec<String> = fits
            .iter()
            .filter_map(|m| m.port_gbps)
            .map(|p| format!("{p}G"))
            .collect();
        let what = first
            .title
            .rsplit_once("(fitted, ")
            .map_or("", |(_, w)| w.trim_end_matches(')'));
        let mut model = ModelSpec {
            title: format!(
                "{} ingress latency on {} ports (fitted, {what})",
                self.target,
                ports.join(", ")
            ),
            port_gbps: None,
            base: None,
            parser: None,
            control: None,
            training: None,
            nonlinear: None,
            plp: None,
            component: None,
            fit: None,
            cpu: None,
            notes: vec![format!(
                "One fit per port ({}); --port picks one, the first without it.",
                ports.join(", ")
            )],
            ..first.clone()
        };
        model.ports = fits;
        model.check().map_err(CalibrateError::Invalid)?;
        Ok(model)
    }

    /// Adds the fit's figures on its own `rows` to `model` (`method`: the
    /// `--kind`) and checks it as the loader will.
    pub fn finish(
        &self,
        mut model: ModelSpec,
        rows: &[&Measurement],
        method: &str,
    ) -> Result<ModelSpec, CalibrateError> {
        model.fit = Some(fit_summary(&model, rows, method, &self.data)?);
        model.check().map_err(CalibrateError::Invalid)?;
        Ok(model)
    }
}

/// A design column: its name and its value for a row.
struct Column {
    name: &'static str,
    value: fn(&Features, u32) -> f64,
}

fn count(f: &Features, wide_min: u32, tcam: bool, wide: bool) -> f64 {
    f.tables
        .iter()
        .filter(|t| t.kind.tcam() == tcam && t.wide(wide_min) == wide)
        .count() as f64
}

const COLUMNS: [Column; 7] = [
    Column {
        name: "packet_size",
        value: |f, _| f64::from(f.packet_size),
    },
    Column {
        name: "header_bytes",
        value: |f, _| f.header_bytes() as f64,
    },
    Column {
        name: "states",
        value: |f, _| f.states() as f64,
    },
    Column {
        name: "exact_narrow",
        value: |f, w| count(f, w, false, false),
    },
    Column {
        name: "exact_wide",
        value: |f, w| count(f, w, false, true),
    },
    Column {
        name: "tcam_narrow",
        value: |f, w| count(f, w, true, false),
    },
    Column {
        name: "tcam_wide",
        value: |f, w| count(f, w, true, true),
    },
];

/// The rows of `port`, or of the only port in the data.
pub fn rows_of_port(
    m: &Measurements,
    port: Option<u32>,
) -> Result<(u32, Vec<&Measurement>), CalibrateError> {
    let ports = m.ports();
    let port = match (port, ports.as_slice()) {
        (_, []) => {
            return Err(CalibrateError::Invalid(format!(
                "no measured row (every latency_ns is empty{})",
                if m.unmeasured > 0 {
                    format!(": {} rows to measure", m.unmeasured)
                } else {
                    String::new()
                }
            )))
        }
        (Some(p), _) if ports.contains(&p) => p,
        (Some(p), _) => {
            return Err(CalibrateError::Invalid(format!(
                "--port {p}: the data has measurements at {} Gbit/s only",
                join(&ports)
            )))
        }
        (None, [one]) => *one,
        (None, _) => {
            return Err(CalibrateError::Invalid(format!(
                "the data has measurements at {} Gbit/s: models are per port, pick one with --port",
                join(&ports)
            )))
        }
    };
    Ok((
        port,
        m.rows.iter().filter(|r| r.port_gbps == port).collect(),
    ))
}

fn join(v: &[u32]) -> String {
    v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

/// Fits the linear model on the rows of one port. `wide_min_bits` is the
/// key-class threshold (16 in the paper).
pub fn fit(
    m: &Measurements,
    port: Option<u32>,
    wide_min_bits: u32,
    naming: &Naming,
) -> Result<ModelSpec, CalibrateError> {
    let (port, rows) = rows_of_port(m, port)?;
    // Columns that vary in the data; a constant one folds into the
    // intercept and cannot be told apart from it.
    let used: Vec<&Column> = COLUMNS
        .iter()
        .filter(|c| {
            let first = (c.value)(&rows[0].features, wide_min_bits);
            rows.iter()
                .any(|r| (c.value)(&r.features, wide_min_bits) != first)
        })
        .collect();
    for need in ["packet_size", "header_bytes", "states"] {
        if !used.iter().any(|c| c.name == need) {
            return Err(CalibrateError::Invalid(format!(
                "{need} does not vary in the {} rows at {port} Gbit/s: the {} term cannot be fitted (measure the suite's {} sweep)",
                rows.len(),
                if need == "packet_size" { "base" } else { "parser" },
                if need == "packet_size" { "baseline" } else { "parser" },
            )));
        }
    }
    if rows.len() <= used.len() + 1 {
        return Err(CalibrateError::Invalid(format!(
            "{} rows at {port} Gbit/s for {} coefficients: measure more",
            rows.len(),
            used.len() + 1
        )));
    }
    let x = Array2::from_shape_fn((rows.len(), used.len()), |(i, j)| {
        (used[j].value)(&rows[i].features, wide_min_bits)
    });
    check_rank(&x, &used)?;
    let y = Array1::from_iter(rows.iter().map(|r| r.latency_ns));
    let fitted = LinearRegression::new()
        .fit(&Dataset::new(x, y))
        .map_err(|e| CalibrateError::Invalid(format!("least squares failed: {e}")))?;
    let coef = |name: &str| {
        used.iter()
            .position(|c| c.name == name)
            .map(|i| fitted.params()[i])
    };

    let control = control_term(&coef, wide_min_bits);
    let training = training(&rows);
    let mut notes = vec![format!(
        "Fitted by `p4cost fit --kind lr` on {} measured rows at {port} Gbit/s of {}.",
        rows.len(),
        naming.data
    )];
    for (class, why) in &control.1 {
        notes.push(format!("{class}: {why}"));
    }
    let mut model = naming.model(
        ModelKind::TofinoIngressLinear,
        port,
        "LR",
        "fitted by p4cost fit --kind lr (ordinary least squares)",
        "docs/models.md#fitting-your-own-model",
        notes,
    );
    model.base = Some(Base {
        per_packet_byte_ns: coef("packet_size").unwrap_or(0.0),
        constant_ns: fitted.intercept(),
    });
    model.parser = Some(ParserTerm {
        per_header_byte_ns: coef("header_bytes").unwrap_or(0.0),
        per_state_ns: coef("states").unwrap_or(0.0),
    });
    model.control = control.0;
    model.training = Some(training);
    naming.finish(model, &rows, "lr")
}

/// The control term from the fitted table columns, and a note for each
/// class the data did not measure (it borrows a measured class's cost, and
/// the training range makes `predict` flag such tables).
#[allow(clippy::type_complexity)]
fn control_term(
    coef: &dyn Fn(&str) -> Option<f64>,
    wide_min_bits: u32,
) -> (Option<ControlTerm>, Vec<(String, String)>) {
    let cols = ["exact_narrow", "exact_wide", "tcam_narrow", "tcam_wide"];
    let vals: Vec<Option<f64>> = cols.iter().map(|c| coef(c)).collect();
    if vals.iter().all(Option::is_none) {
        return (None, Vec::new());
    }
    let mut notes = Vec::new();
    let mut pick = |i: usize, order: [usize; 3]| -> f64 {
        if let Some(v) = vals[i] {
            return v;
        }
        let from = order.into_iter().find(|&j| vals[j].is_some()).unwrap_or(i);
        notes.push((
            cols[i].to_string(),
            format!("not measured; uses the fitted {} cost", cols[from]),
        ));
        vals[from].unwrap_or(0.0)
    };
    let term = ControlTerm {
        exact: KeyClassCost {
            narrow_key_ns: pick(0, [1, 2, 3]),
            wide_key_ns: pick(1, [0, 3, 2]),
        },
        lpm: KeyClassCost {
            narrow_key_ns: pick(2, [3, 0, 1]),
            wide_key_ns: pick(3, [2, 1, 0]),
        },
        wide_key_min_bits: wide_min_bits,
    };
    (Some(term), notes)
}

/// Errs when two columns (or a column and the intercept) move together in
/// the data, so least squares cannot tell their coefficients apart.
fn check_rank(x: &Array2<f64>, used: &[&Column]) -> Result<(), CalibrateError> {
    let (n, k) = x.dim();
    // Centred and scaled columns: the intercept is then orthogonal to
    // them, and their singular values compare.
    let stats: Vec<(f64, f64)> = (0..k)
        .map(|j| {
            let col = x.column(j);
            let mean = col.sum() / n as f64;
            let sd = (col.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
            (mean, sd)
        })
        .collect();
    let m = nalgebra::DMatrix::from_fn(n, k, |i, j| (x[(i, j)] - stats[j].0) / stats[j].1);
    let svd = m.svd(false, true);
    let s = &svd.singular_values;
    let max = s.max();
    for (i, &sv) in s.iter().enumerate() {
        if sv <= max * 1e-8 {
            // The right singular vector shows which columns move together.
            let names: Vec<&str> = svd
                .v_t
                .as_ref()
                .map(|vt| {
                    (0..k)
                        .filter(|&j| vt[(i, j)].abs() > 0.1)
                        .map(|j| used[j].name)
                        .collect()
                })
                .unwrap_or_default();
            return Err(CalibrateError::Invalid(format!(
                "the data cannot tell apart the effects of {}: they vary together in every row (vary them independently, as the suite's sweeps do)",
                names.join(", ")
            )));
        }
    }
    Ok(())
}

/// The training ranges of `rows`.
pub fn training(rows: &[&Measurement]) -> Training {
    fn range<T: Copy + Ord + Default>(it: impl Iterator<Item = T>) -> [T; 2] {
        let mut lo: Option<T> = None;
        let mut hi: Option<T> = None;
        for v in it {
            lo = Some(lo.map_or(v, |l| l.min(v)));
            hi = Some(hi.map_or(v, |h| h.max(v)));
        }
        [lo.unwrap_or_default(), hi.unwrap_or_default()]
    }
    fn distinct<T: Copy + Ord>(it: impl Iterator<Item = T>) -> Vec<T> {
        let mut v: Vec<T> = it.collect();
        v.sort_unstable();
        v.dedup();
        v
    }
    let f = || rows.iter().map(|r| &r.features);
    let tables = || f().flat_map(|x| x.tables.iter());
    let key_bits = || tables().flat_map(|t| t.key_bits.iter().flatten().copied());
    Training {
        packet_size_bytes: range(f().map(|x| x.packet_size)),
        states_after_ethernet: range(f().map(|x| x.states() as u32)),
        header_bytes_per_state: range(f().flat_map(|x| x.state_bytes.iter().copied())),
        measured_header_bytes: distinct(f().flat_map(|x| x.state_bytes.iter().copied())),
        tables: range(f().map(|x| x.tables.len() as u32).filter(|&n| n > 0)),
        key_bits: range(key_bits()),
        measured_key_bits: distinct(key_bits()),
        keys_per_table: range(tables().map(|t| t.key_bits.len() as u32)),
        match_kinds: TableMatch::ALL
            .into_iter()
            .filter(|k| tables().any(|t| t.kind == *k))
            .map(|k| k.name().to_string())
            .collect(),
        entries: range(tables().filter_map(|t| t.entries)),
        latency_ns: rows.iter().map(|r| r.latency_ns).fold(None, |acc, l| {
            Some(acc.map_or([l, l], |[lo, hi]: [f64; 2]| [lo.min(l), hi.max(l)]))
        }),
    }
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

    /// Data from a known linear function of the features, with noise.
    #[test]
    fn recovers_known_coefficients() {
        let (a, b, c, d) = (0.4, 90.0, 0.3, 5.0);
        let (en, ew, tn, tw) = (1.5, 2.5, 3.0, 4.5);
        let mut noise = Noise::new(0x9e3779b97f4a7c15);
        let mut csv = String::from("program,port_gbps,packet_size,state_bytes,tables,latency_ns\n");
        let tables = [
            "",
            "exact:8:10",
            "exact:32:10",
            "lpm:8+8:1",
            "ternary:32:5",
            "exact:16;lpm:32:",
        ];
        for p in [100u32, 300, 800, 1500] {
            for n in 0..6u64 {
                for h in [3u64, 7, 40] {
                    for t in tables {
                        let t = if t == "exact:16;lpm:32:" {
                            "exact:16:1;lpm:32:"
                        } else {
                            t
                        };
                        let costs: f64 = Features::parse_tables(t)
                            .unwrap()
                            .iter()
                            .map(|x| match (x.kind.tcam(), x.wide(16)) {
                                (false, false) => en,
                                (false, true) => ew,
                                (true, false) => tn,
                                (true, true) => tw,
                            })
                            .sum();
                        let y = a * f64::from(p)
                            + b
                            + n as f64 * (c * h as f64 + d)
                            + costs
                            + noise.normal(0.05);
                        let sb = vec![h.to_string(); n as usize].join("+");
                        csv.push_str(&format!("x.p4,25,{p},{sb},{t},{y}\n"));
                    }
                }
            }
        }
        let m = fit(&parse("d.csv", &csv).unwrap(), None, 16, &naming()).unwrap();
        let close = |got: f64, want: f64| {
            assert!((got - want).abs() < 0.01 * want.abs(), "{got} vs {want}")
        };
        let base = m.base.unwrap();
        close(base.per_packet_byte_ns, a);
        close(base.constant_ns, b);
        let parser = m.parser.unwrap();
        close(parser.per_header_byte_ns, c);
        close(parser.per_state_ns, d);
        let ctl = m.control.unwrap();
        close(ctl.exact.narrow_key_ns, en);
        close(ctl.exact.wide_key_ns, ew);
        close(ctl.lpm.narrow_key_ns, tn);
        close(ctl.lpm.wide_key_ns, tw);
        assert_eq!(m.port_gbps, Some(25));
        let f = m.fit.unwrap();
        assert!(f.r2 > 0.9999 && f.rmse_ns < 0.1, "{f:?}");
        let tr = m.training.unwrap();
        assert_eq!(tr.packet_size_bytes, [100, 1500]);
        assert_eq!(tr.states_after_ethernet, [0, 5]);
        assert_eq!(tr.measured_header_bytes, vec![3, 7, 40]);
        assert_eq!(tr.match_kinds, vec!["exact", "lpm", "ternary"]);
        assert_eq!(tr.keys_per_table, [1, 2]);
    }

    #[test]
    fn features_that_move_together_are_named() {
        // Every state is 10 B: header bytes = 10 x states.
        let mut csv = String::from("program,port_gbps,packet_size,state_bytes,tables,latency_ns\n");
        for p in [100, 200, 300] {
            for n in 0..4usize {
                csv.push_str(&format!(
                    "x.p4,10,{p},{},,{}\n",
                    vec!["10"; n].join("+"),
                    100 + p + n
                ));
            }
        }
        let e = fit(&parse("d.csv", &csv).unwrap(), None, 16, &naming())
            .unwrap_err()
            .to_string();
        assert!(e.contains("header_bytes, states"), "{e}");
    }

    #[test]
    fn a_class_not_measured_borrows_and_says_so() {
        let mut csv = String::from("program,port_gbps,packet_size,state_bytes,tables,latency_ns\n");
        let mut noise = Noise::new(7);
        for p in [100, 500, 900] {
            for (sb, hb) in [("", 0.0), ("4", 4.0), ("4+20", 24.0), ("20+20+20", 60.0)] {
                for t in 0..4 {
                    let tables = vec!["exact:8:1"; t].join(";");
                    let states = if sb.is_empty() {
                        0
                    } else {
                        sb.split('+').count()
                    };
                    let y = 0.2 * f64::from(p)
                        + 100.0
                        + 0.1 * hb
                        + 2.0 * states as f64
                        + 0.5 * t as f64
                        + noise.normal(0.01);
                    csv.push_str(&format!("x.p4,10,{p},{sb},{tables},{y}\n"));
                }
            }
        }
        let m = fit(&parse("d.csv", &csv).unwrap(), None, 16, &naming()).unwrap();
        let ctl = m.control.unwrap();
        assert!((ctl.exact.narrow_key_ns - 0.5).abs() < 0.01);
        assert_eq!(ctl.lpm.wide_key_ns, ctl.exact.narrow_key_ns);
        assert!(
            m.notes
                .iter()
                .any(|n| n.starts_with("tcam_wide: not measured")),
            "{:?}",
            m.notes
        );
        assert_eq!(m.training.unwrap().match_kinds, vec!["exact"]);
    }

    #[test]
    fn ports_are_chosen_or_asked_for() {
        let csv = "program,port_gbps,packet_size,state_bytes,tables,latency_ns\nx,10,100,,,1\nx,100,100,,,1\n";
        let m = parse("d.csv", csv).unwrap();
        let e = fit(&m, None, 16, &naming()).unwrap_err().to_string();
        assert!(e.contains("10, 100 Gbit/s") && e.contains("--port"), "{e}");
        let e = fit(&m, Some(40), 16, &naming()).unwrap_err().to_string();
        assert!(e.contains("--port 40"), "{e}");
        let e = fit(&m, Some(10), 16, &naming()).unwrap_err().to_string();
        assert!(e.contains("packet_size does not vary"), "{e}");
    }
}
