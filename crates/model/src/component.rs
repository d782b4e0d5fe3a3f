//! Component models (docs/models.md, "Component models"): the program's
//! cost as the sum of its components' costs, each a fitted [`Curve`] of how
//! many copies of the component a program has, as the component-model
//! method measures them (a baseline program plus n copies of one
//! component):
//!
//! `L = base(packet size) + states(n, bytes per state)
//!      + sum over match kinds k of tables_k(n_k, key bits)
//!      + sum over tables of entries_k(e) - entries_k(reference)`.
//!
//! A curve family measured at several widths (bytes per state, key bits)
//! is interpolated linearly between the two nearest widths and held at the
//! nearest one outside them (the training range flags that).

use serde::{Deserialize, Serialize};

use crate::curve::Curve;
use crate::features::{Features, TableMatch};

/// A curve of a count, measured at one width.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AtWidth {
    /// The width: bytes per state, or key bits per table.
    pub width: f64,
    /// Cost of n copies, ns, as a function of n.
    pub curve: Curve,
}

/// The curves of one match kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TableCurves {
    /// `exact`, `lpm` or `ternary`.
    pub kind: String,
    /// Cost of n tables of the kind (each with the reference entries), by
    /// key bits per table.
    pub by_key_bits: Vec<AtWidth>,
    /// Cost of one table of the kind by its entries, when measured (only
    /// differences from the reference entries are used).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entries: Option<Curve>,
}

/// The `component` section of a model file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ComponentSpec {
    /// Latency of the baseline program by packet size, ns.
    pub base: Curve,
    /// Cost of n counted parse states, by bytes per state.
    pub states: Vec<AtWidth>,
    /// Per match kind, the table curves. A kind not listed borrows the
    /// curves named in `borrow`.
    pub tables: Vec<TableCurves>,
    /// Entries the table curves were measured with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_entries: Option<u64>,
    /// `[kind, kind it borrows from]` for kinds not measured.
    #[serde(default)]
    pub borrow: Vec<[String; 2]>,
}

/// Linear interpolation over curves measured at several widths.
pub fn at_width(curves: &[AtWidth], width: f64, n: f64) -> f64 {
    let (mut lo, mut hi): (Option<&AtWidth>, Option<&AtWidth>) = (None, None);
    for c in curves {
        if c.width <= width && lo.is_none_or(|l| c.width > l.width) {
            lo = Some(c);
        }
        if c.width >= width && hi.is_none_or(|h| c.width < h.width) {
            hi = Some(c);
        }
    }
    match (lo, hi) {
        (Some(l), Some(h)) if h.width > l.width => {
            let f = (width - l.width) / (h.width - l.width);
            (1.0 - f) * l.curve.eval(n) + f * h.curve.eval(n)
        }
        (Some(c), _) | (None, Some(c)) => c.curve.eval(n),
        (None, None) => 0.0,
    }
}

impl ComponentSpec {
    /// The curves a match kind uses (its own, or those it borrows).
    pub fn curves_of(&self, kind: TableMatch) -> Option<&TableCurves> {
        let name = match kind {
            TableMatch::Keyless => "exact",
            k => k.name(),
        };
        let own = self.tables.iter().find(|t| t.kind == name);
        own.or_else(|| {
            let from = self.borrow.iter().find(|b| b[0] == name)?;
            self.tables.iter().find(|t| t.kind == from[1])
        })
    }

    /// (base, parser, control) ns of a class.
    pub fn terms(&self, f: &Features) -> (f64, f64, f64) {
        let base = self.base.eval(f64::from(f.packet_size));
        let n = f.states();
        let parser = if n == 0 {
            0.0
        } else {
            at_width(&self.states, f.header_bytes() as f64 / n as f64, n as f64)
        };
        let mut control = 0.0;
        for kind in [TableMatch::Exact, TableMatch::Lpm, TableMatch::Ternary] {
            let of_kind: Vec<_> = f
                .tables
                .iter()
                .filter(|t| match kind {
                    TableMatch::Exact => matches!(t.kind, TableMatch::Exact | TableMatch::Keyless),
                    k => t.kind == k,
                })
                .collect();
            if of_kind.is_empty() {
                continue;
            }
            let Some(curves) = self.curves_of(kind) else {
                continue;
            };
            let bits = of_kind.iter().map(|t| t.total_key_bits()).sum::<u64>() as f64
                / of_kind.len() as f64;
            control += at_width(&curves.by_key_bits, bits, of_kind.len() as f64);
            if let (Some(e), Some(reference)) = (&curves.entries, self.reference_entries) {
                let at_ref = e.eval(reference as f64);
                for t in &of_kind {
                    if let Some(n) = t.entries {
                        control += e.eval(n as f64) - at_ref;
                    }
                }
            }
        }
        (base, parser, control)
    }

    /// Checks every curve.
    pub fn check(&self) -> Result<(), String> {
        self.base
            .check()
            .map_err(|e| format!("component base: {e}"))?;
        for s in &self.states {
            s.curve
                .check()
                .map_err(|e| format!("component states at {} B: {e}", s.width))?;
        }
        for t in &self.tables {
            if !["exact", "lpm", "ternary"].contains(&t.kind.as_str()) {
                return Err(format!("component tables: unknown kind `{}`", t.kind));
            }
            for c in &t.by_key_bits {
                c.curve
                    .check()
                    .map_err(|e| format!("component tables {} at {} bits: {e}", t.kind, c.width))?;
            }
            if let Some(e) = &t.entries {
                e.check()
                    .map_err(|e| format!("component tables {} entries: {e}", t.kind))?;
            }
        }
        for [kind, from] in &self.borrow {
            if !self.tables.iter().any(|t| &t.kind == from) {
                return Err(format!(
                    "component borrow: `{kind}` borrows from `{from}`, which has no curves"
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curve::{Family, Piece};

    fn line(a: f64, b: f64, from: f64, to: f64) -> Curve {
        // a + b * x, written in t = (x - from) / (to - from).
        let scale = to - from;
        Curve {
            pieces: vec![Piece {
                family: Family::Poly,
                params: vec![a + b * from, b * scale],
                from,
                to,
                x0: from,
                scale,
            }],
            smape_percent: 0.0,
            points: 2,
        }
    }

    #[test]
    fn terms_add_components_and_interpolate_widths() {
        let spec = ComponentSpec {
            base: line(100.0, 0.1, 64.0, 1500.0),
            states: vec![
                AtWidth {
                    width: 2.0,
                    curve: line(0.0, 2.0, 1.0, 10.0),
                },
                AtWidth {
                    width: 20.0,
                    curve: line(0.0, 6.0, 1.0, 10.0),
                },
            ],
            tables: vec![TableCurves {
                kind: "exact".into(),
                by_key_bits: vec![AtWidth {
                    width: 32.0,
                    curve: line(0.0, 1.0, 1.0, 10.0),
                }],
                entries: Some(line(0.0, 0.001, 1.0, 100_000.0)),
            }],
            reference_entries: Some(100),
            borrow: vec![["lpm".into(), "exact".into()]],
        };
        assert!(spec.check().is_ok());
        let f = Features {
            packet_size: 200,
            // 11 B per state: halfway between 2 and 20.
            state_bytes: vec![11, 11],
            tables: Features::parse_tables("exact:32:1100;lpm:16:").unwrap(),
        };
        let (b, p, c) = spec.terms(&f);
        assert!((b - 120.0).abs() < 1e-9);
        assert!((p - 2.0 * 4.0).abs() < 1e-9);
        // One exact table (1 ns) + 1000 entries above the reference (1 ns)
        // + one LPM table borrowing the exact curve (1 ns).
        assert!((c - 3.0).abs() < 1e-9, "{c}");
    }
}
