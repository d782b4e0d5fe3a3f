//! Fitting a component model (docs/models.md, "Component models"): the
//! rows are sorted into the suite's sweeps by their features alone (not by
//! name, so any measurement file of the same shapes works):
//!
//! - baseline rows (no counted state, no table): the base curve of packet
//!   size;
//! - parser rows (no table, n states all of the same size H): per H, the
//!   cost of n states over the base;
//! - control rows (n tables of one match kind and key layout, all with the
//!   reference entries): per kind and key bits, the cost of n tables over
//!   the base and the row's parse states (priced by the curves above: the
//!   suite's control programs parse their keys);
//! - entries rows (one table): per kind, the cost of the table's entries
//!   over its cost at the reference.
//!
//! Each curve is chosen by [`crate::families`]. Rows of other shapes
//! (mixed state sizes, mixed tables) are not fitted on but count in the
//! fit's figures, which are over every row of the port.

use std::collections::BTreeMap;

use p4cost_model::component::{AtWidth, ComponentSpec, TableCurves};
use p4cost_model::curve::Curve;
use p4cost_model::{Features, ModelKind, ModelSpec, TableMatch};

use crate::data::{Measurement, Measurements};
use crate::families::{fit_curve, Point};
use crate::lr::{rows_of_port, training, Naming};
use crate::CalibrateError;

/// The match kind a table's curves are fitted under (keyless tables use
/// no TCAM and count as exact).
fn kind_of(k: TableMatch) -> &'static str {
    match k {
        TableMatch::Keyless | TableMatch::Exact => "exact",
        TableMatch::Lpm => "lpm",
        TableMatch::Ternary => "ternary",
    }
}

/// One kind, one key layout, n copies: `Some((kind, key bits per table,
/// entries))`.
fn uniform_tables(f: &Features) -> Option<(&'static str, u64, Option<u64>)> {
    let first = f.tables.first()?;
    f.tables
        .iter()
        .all(|t| {
            kind_of(t.kind) == kind_of(first.kind)
                && t.key_bits == first.key_bits
                && t.entries == first.entries
        })
        .then(|| (kind_of(first.kind), first.total_key_bits(), first.entries))
}

fn curve_or(pts: &[Point], what: &str) -> Result<Curve, CalibrateError> {
    fit_curve(pts).ok_or_else(|| CalibrateError::Invalid(format!("{what}: no function fits")))
}

/// Fits a `component` model on the rows of one port.
pub fn fit(
    m: &Measurements,
    port: Option<u32>,
    naming: &Naming,
) -> Result<ModelSpec, CalibrateError> {
    let (port, rows) = rows_of_port(m, port)?;
    let mut notes = Vec::new();
    let base = fit_base(&rows, port, &mut notes)?;
    let states = fit_states(&rows, &base, &mut notes)?;
    let reference = reference_entries(&rows);
    // What the base and the parse states cost in a row, from the curves
    // fitted so far (the suite's control programs parse their keys).
    let parsed = ComponentSpec {
        base: base.clone(),
        states: states.clone(),
        tables: Vec::new(),
        reference_entries: None,
        borrow: Vec::new(),
    };
    let mut tables = fit_tables(&rows, &parsed, reference, &mut notes)?;
    let partial = ComponentSpec {
        tables: tables.clone(),
        ..parsed
    };
    fit_entries(&rows, &partial, reference, &mut tables, &mut notes)?;
    let borrow = borrowed(&tables, &mut notes);
    note_unfitted(&rows, &mut notes);
    notes.insert(
        0,
        format!(
            "Fitted by `p4cost fit --kind component` on {} measured rows at {port} Gbit/s of {}.",
            rows.len(),
            naming.data
        ),
    );
    let mut model = naming.model(
        ModelKind::Component,
        port,
        "component model",
        "fitted by p4cost fit --kind component (function families by held-out sMAPE, breakpoints)",
        "docs/models.md#component-models",
        notes,
    );
    model.training = Some(training(&rows));
    model.component = Some(ComponentSpec {
        base,
        states,
        tables,
        reference_entries: reference,
        borrow,
    });
    naming.finish(model, &rows, "component")
}

/// The base curve of packet size, on the baseline rows (no counted state,
/// no table): at least 2.
fn fit_base(
    rows: &[&Measurement],
    port: u32,
    notes: &mut Vec<String>,
) -> Result<Curve, CalibrateError> {
    let base_pts: Vec<Point> = rows
        .iter()
        .filter(|r| r.features.states() == 0 && r.features.tables.is_empty())
        .map(|r| Point {
            x: f64::from(r.features.packet_size),
            y: r.latency_ns,
            offset: 0.0,
        })
        .collect();
    if base_pts.len() < 2 {
        return Err(CalibrateError::Invalid(format!(
            "{} baseline rows (no counted state, no table) at {port} Gbit/s: the base curve needs at least 2 (measure the suite's baseline sweep)",
            base_pts.len()
        )));
    }
    let base = curve_or(&base_pts, "the base curve")?;
    notes.push(format!(
        "base (by packet size): {} on {} rows, sMAPE {:.4} %",
        base.describe(),
        base.points,
        base.smape_percent
    ));
    Ok(base)
}

/// Per bytes per state H, the cost of n states of H bytes over the base,
/// on the parser rows (no table, every state of one size).
fn fit_states(
    rows: &[&Measurement],
    base: &Curve,
    notes: &mut Vec<String>,
) -> Result<Vec<AtWidth>, CalibrateError> {
    let mut by_h: BTreeMap<u64, Vec<Point>> = BTreeMap::new();
    for r in rows {
        let f = &r.features;
        let Some(&h) = f.state_bytes.first() else {
            continue;
        };
        if f.tables.is_empty() && f.state_bytes.iter().all(|&b| b == h) {
            let b = base.eval(f64::from(f.packet_size));
            by_h.entry(h).or_default().push(Point {
                x: f.states() as f64,
                y: r.latency_ns - b,
                offset: b,
            });
        }
    }
    let mut states = Vec::new();
    for (h, pts) in &by_h {
        let curve = curve_or(pts, &format!("states of {h} B"))?;
        notes.push(format!(
            "states of {h} B (by count): {} on {} rows, sMAPE {:.4} %",
            curve.describe(),
            curve.points,
            curve.smape_percent
        ));
        states.push(AtWidth {
            width: *h as f64,
            curve,
        });
    }
    if states.is_empty() {
        notes.push("no parser rows (states of one size, no table): parse states cost nothing under this model".into());
    }
    Ok(states)
}

/// The reference entries: the most common among uniform table rows (the
/// fewest on a tie).
fn reference_entries(rows: &[&Measurement]) -> Option<u64> {
    let mut entries_seen: BTreeMap<Option<u64>, usize> = BTreeMap::new();
    for r in rows {
        if let Some((_, _, e)) = uniform_tables(&r.features) {
            *entries_seen.entry(e).or_default() += 1;
        }
    }
    entries_seen
        .iter()
        .max_by_key(|(e, n)| (**n, std::cmp::Reverse(**e)))
        .and_then(|(e, _)| *e)
}

/// Per kind and key bits, the cost of n tables over what `parsed` prices
/// the row's base and parse states at, on the control rows at the
/// `reference` entries.
fn fit_tables(
    rows: &[&Measurement],
    parsed: &ComponentSpec,
    reference: Option<u64>,
    notes: &mut Vec<String>,
) -> Result<Vec<TableCurves>, CalibrateError> {
    let mut by_kind: BTreeMap<&str, BTreeMap<u64, Vec<Point>>> = BTreeMap::new();
    for r in rows {
        if let Some((kind, bits, e)) = uniform_tables(&r.features) {
            if e == reference {
                let (b, p, _) = parsed.terms(&r.features);
                by_kind
                    .entry(kind)
                    .or_default()
                    .entry(bits)
                    .or_default()
                    .push(Point {
                        x: r.features.tables.len() as f64,
                        y: r.latency_ns - (b + p),
                        offset: b + p,
                    });
            }
        }
    }
    let mut tables = Vec::new();
    for (kind, by_bits) in &by_kind {
        let mut curves = Vec::new();
        for (bits, pts) in by_bits {
            let curve = curve_or(pts, &format!("{kind} tables of {bits} key bits"))?;
            notes.push(format!(
                "{kind} tables of {bits} key bits (by count): {} on {} rows, sMAPE {:.4} %",
                curve.describe(),
                curve.points,
                curve.smape_percent
            ));
            curves.push(AtWidth {
                width: *bits as f64,
                curve,
            });
        }
        tables.push(TableCurves {
            kind: kind.to_string(),
            by_key_bits: curves,
            entries: None,
        });
    }
    Ok(tables)
}

/// Per kind, the cost of one table's entries over its cost at the
/// reference (`partial` prices the rest of the row), on the rows of one
/// table; fitted where at least 3 entry counts were measured.
fn fit_entries(
    rows: &[&Measurement],
    partial: &ComponentSpec,
    reference: Option<u64>,
    tables: &mut [TableCurves],
    notes: &mut Vec<String>,
) -> Result<(), CalibrateError> {
    let mut entries_pts: BTreeMap<&str, Vec<Point>> = BTreeMap::new();
    for r in rows {
        let f = &r.features;
        if f.tables.len() != 1 {
            continue;
        }
        let t = &f.tables[0];
        let (Some(e), true) = (
            t.entries,
            partial.tables.iter().any(|c| c.kind == kind_of(t.kind)),
        ) else {
            continue;
        };
        let (b, p, c) = partial.terms(f);
        entries_pts.entry(kind_of(t.kind)).or_default().push(Point {
            x: e as f64,
            y: r.latency_ns - b - p - c,
            offset: b + p + c,
        });
    }
    for t in tables {
        let Some(pts) = entries_pts.get(t.kind.as_str()) else {
            continue;
        };
        let mut xs: Vec<u64> = pts.iter().map(|p| p.x as u64).collect();
        xs.sort_unstable();
        xs.dedup();
        if xs.len() < 3 || reference.is_none() {
            continue;
        }
        let curve = curve_or(pts, &format!("{} entries", t.kind))?;
        notes.push(format!(
            "{} table entries (by entries, relative to {}): {} on {} rows, sMAPE {:.4} %",
            t.kind,
            reference.unwrap_or_default(),
            curve.describe(),
            curve.points,
            curve.smape_percent
        ));
        t.entries = Some(curve);
    }
    Ok(())
}

/// Kinds not measured borrow a measured kind's curves, as the linear fit
/// does: `[kind, from]` pairs.
fn borrowed(tables: &[TableCurves], notes: &mut Vec<String>) -> Vec<[String; 2]> {
    let mut borrow = Vec::new();
    if tables.is_empty() {
        notes.push(
            "no control rows (tables of one kind and layout): tables cost nothing under this model"
                .into(),
        );
        return borrow;
    }
    for (kind, order) in [
        ("exact", ["lpm", "ternary"]),
        ("lpm", ["ternary", "exact"]),
        ("ternary", ["lpm", "exact"]),
    ] {
        if tables.iter().any(|t| t.kind == kind) {
            continue;
        }
        if let Some(from) = order.iter().find(|o| tables.iter().any(|t| t.kind == **o)) {
            notes.push(format!(
                "{kind} tables: not measured; use the {from} curves"
            ));
            borrow.push([kind.to_string(), from.to_string()]);
        }
    }
    borrow
}

/// A note on the rows of other shapes (mixed state sizes or tables),
/// which no curve was fitted on.
fn note_unfitted(rows: &[&Measurement], notes: &mut Vec<String>) {
    let used = rows
        .iter()
        .filter(|r| {
            let f = &r.features;
            (f.tables.is_empty() && f.state_bytes.windows(2).all(|w| w[0] == w[1]))
                || uniform_tables(f).is_some()
        })
        .count();
    if used < rows.len() {
        notes.push(format!(
            "{} rows of other shapes (mixed state sizes or tables) were not fitted on; the fit figures include them",
            rows.len() - used
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::parse;
    use crate::noise::Noise;

    fn naming() -> Naming {
        Naming {
            name: "c".into(),
            target: "test".into(),
            data: "d.csv".into(),
        }
    }

    /// A program's latency: base, a parser whose per-state cost jumps
    /// after 5 states, tables whose cost depends on their count and key
    /// bits, entries that cost by their logarithm.
    fn truth(p: f64, n: f64, h: f64, t: f64, bits: f64, entries: f64) -> f64 {
        let parser = if n <= 5.0 {
            (2.0 + 0.2 * h) * n
        } else {
            (2.0 + 0.2 * h) * n + 12.0
        };
        150.0 + 0.2 * p + parser + t * (1.0 + bits / 32.0) + 0.8 * (entries / 100.0).ln()
    }

    #[test]
    fn fits_the_sweeps_and_finds_the_parser_breakpoint() {
        let mut noise = Noise::new(21);
        let mut csv = String::from("program,port_gbps,packet_size,state_bytes,tables,latency_ns\n");
        for p in [100u32, 400, 700, 1000, 1300] {
            let pf = f64::from(p);
            for n in 0..=10u32 {
                for h in [2u32, 20] {
                    let y = truth(pf, n.into(), h.into(), 0.0, 0.0, 100.0);
                    let sb = vec![h.to_string(); n as usize].join("+");
                    csv.push_str(&format!("x,10,{p},{sb},,{}\n", y + noise.normal(0.05)));
                    if n == 0 {
                        break;
                    }
                }
            }
            for t in 1..=8u32 {
                for bits in [8u32, 32] {
                    let y = truth(pf, 0.0, 0.0, t.into(), bits.into(), 100.0);
                    let tables = vec![format!("exact:{bits}:100"); t as usize].join(";");
                    csv.push_str(&format!("x,10,{p},,{tables},{}\n", y + noise.normal(0.05)));
                }
            }
            for e in [1u64, 10, 100, 1000, 10_000, 100_000] {
                let y = truth(pf, 0.0, 0.0, 1.0, 32.0, e as f64);
                csv.push_str(&format!(
                    "x,10,{p},,exact:32:{e},{}\n",
                    y + noise.normal(0.05)
                ));
            }
        }
        let m = fit(&parse("d.csv", &csv).unwrap(), None, &naming()).unwrap();
        let spec = m.component.as_ref().unwrap();
        for s in &spec.states {
            assert_eq!(
                s.curve.breakpoints(),
                vec![5.0],
                "{} B: {}",
                s.width,
                s.curve.describe()
            );
        }
        assert_eq!(spec.reference_entries, Some(100));
        assert_eq!(spec.borrow.len(), 2, "{:?}", spec.borrow);
        assert!(m.fit.as_ref().unwrap().rmse_ns < 0.15, "{:?}", m.fit);
        // A class between the measured widths and counts.
        let f = Features {
            packet_size: 550,
            state_bytes: vec![11; 3],
            tables: Features::parse_tables("exact:16:5000;exact:16:5000").unwrap(),
        };
        let want = truth(550.0, 3.0, 11.0, 2.0, 16.0, 100.0) + 2.0 * 0.8 * 50f64.ln();
        let got = p4cost_model::fitted::latency_of_features(&m, &f).unwrap();
        assert!((got - want).abs() < 0.5, "{got} vs {want}");
    }

    #[test]
    fn without_baseline_rows_it_says_what_to_measure() {
        let csv = "program,port_gbps,packet_size,state_bytes,tables,latency_ns\nx,10,100,4,,1\n";
        let e = fit(&parse("d.csv", csv).unwrap(), None, &naming())
            .unwrap_err()
            .to_string();
        assert!(e.contains("baseline sweep"), "{e}");
    }
}
