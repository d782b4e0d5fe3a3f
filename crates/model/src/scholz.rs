//! The Tofino 1 resource model of Scholz et al. 2020 (ITC 32, Table III;
//! docs/models.md, Tofino resources): a table of n entries and k key bits
//! uses `n * (p * k + q)` percent of the chip's SRAM (exact match) or TCAM
//! (ternary, LPM). The coefficients and the measured range live in
//! `models/resources/tofino1-scholz2020.json`; no number lives in code.

use serde::{Deserialize, Serialize};

use crate::spec::Source;
use crate::ModelError;

/// The embedded file.
pub const SCHOLZ2020: (&str, &str) = (
    "tofino1-scholz2020.json",
    include_str!("../../../models/resources/tofino1-scholz2020.json"),
);

/// `p` and `q` of one match kind.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Coefficients {
    /// `sram` or `tcam`.
    pub resource: Memory,
    /// Percent per entry and key bit.
    pub p: f64,
    /// Percent per entry.
    pub q: f64,
}

/// The memory a match kind uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Memory {
    /// SRAM (exact match).
    Sram,
    /// TCAM (ternary and LPM).
    Tcam,
}

/// The coefficients per match kind.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Kinds {
    /// Exact match.
    pub exact: Coefficients,
    /// Ternary match.
    pub ternary: Coefficients,
    /// Longest-prefix match.
    pub lpm: Coefficients,
}

/// What the paper measured: the range the fit holds in.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Measured {
    /// Smallest and largest key width, bits.
    pub key_bits: [u64; 2],
    /// Fewest and most entries.
    pub entries: [u64; 2],
}

/// The model file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scholz {
    /// File format version (1).
    pub schema: u32,
    /// Its name.
    pub name: String,
    /// One-line title.
    pub title: String,
    /// The chip.
    pub target: String,
    /// Provenance.
    pub source: Source,
    /// What it gives.
    pub predicts: String,
    /// Coefficients per match kind.
    pub kinds: Kinds,
    /// The measured range.
    pub measured: Measured,
    /// Notes.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// The model's figure for one table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Share {
    /// The memory it is a share of.
    pub memory: Memory,
    /// Percent of the chip's total of that memory.
    pub percent: f64,
    /// True when `n` or `k` is outside the measured range.
    pub extrapolated: bool,
}

impl Scholz {
    /// The embedded model.
    pub fn embedded() -> Result<Scholz, ModelError> {
        crate::values::parse_file(SCHOLZ2020.0, SCHOLZ2020.1, Scholz::check)
    }

    fn check(&self) -> Result<(), String> {
        if self.schema != 1 {
            return Err(format!("unsupported schema {}", self.schema));
        }
        let m = &self.measured;
        if m.key_bits[0] > m.key_bits[1] || m.entries[0] > m.entries[1] {
            return Err("measured: the range's first figure must not exceed its second".into());
        }
        Ok(())
    }

    /// `n * (p * k + q)` for a table of `kind` (`exact`, `ternary`, `lpm`;
    /// `None` for another kind, which the paper did not measure), never
    /// below zero.
    pub fn share(&self, kind: &str, entries: u64, key_bits: u64) -> Option<Share> {
        let c = match kind {
            "exact" => self.kinds.exact,
            "ternary" => self.kinds.ternary,
            "lpm" => self.kinds.lpm,
            _ => return None,
        };
        let percent = (entries as f64 * (c.p * key_bits as f64 + c.q)).max(0.0);
        let m = &self.measured;
        let within = |x: u64, r: [u64; 2]| x >= r[0] && x <= r[1];
        Some(Share {
            memory: c.resource,
            percent,
            extrapolated: !within(entries, m.entries) || !within(key_bits, m.key_bits),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The paper's own check (Fig. 13a): 201-bit exact keys at 100,000
    /// entries use 19.891 % of the SRAM (the paper: 19.9); a 32-bit ternary key at 10,000
    /// entries 1.44e-5 * 32 + 4.81e-4 = 9.42e-4 % per entry.
    #[test]
    fn table_three_figures() {
        let m = Scholz::embedded().expect("embedded model parses");
        let s = m.share("exact", 100_000, 201).expect("exact");
        assert_eq!(s.memory, Memory::Sram);
        assert!((s.percent - 19.891).abs() < 1e-3, "{}", s.percent);
        assert!(!s.extrapolated);
        let t = m.share("ternary", 10_000, 32).expect("ternary");
        assert_eq!(t.memory, Memory::Tcam);
        assert!((t.percent - 9.418).abs() < 1e-3, "{}", t.percent);
        assert!(m.share("range", 10, 32).is_none());
    }

    /// Outside 9..=201 key bits or 1..=100,000 entries is extrapolation.
    #[test]
    fn outside_the_measured_range_is_flagged() {
        let m = Scholz::embedded().expect("model");
        assert!(m
            .share("exact", 200_000, 32)
            .is_some_and(|s| s.extrapolated));
        assert!(m.share("lpm", 1000, 8).is_some_and(|s| s.extrapolated));
        assert!(m.share("lpm", 1000, 9).is_some_and(|s| !s.extrapolated));
    }
}
