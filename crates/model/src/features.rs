//! The features of one packet class, in a form every model kind, the
//! profiling suite's manifest and the fitters share (docs/models.md,
//! "Fitting your own model").
//!
//! A class is a parse path, the tables it applies and a packet size. Its
//! features are the bytes of each counted parse state (the baseline rule
//! of [`crate::baseline`] decides which states count) and one descriptor
//! per table (match kind, key widths, entries). In a measurement file the
//! two lists are columns of text: `state_bytes` = `20+8+8` and `tables` =
//! `exact:32+16:1000;lpm:32:500` (see [`Features::state_bytes_text`] and
//! [`TableFeature`]'s `Display`).

use std::fmt;
use std::str::FromStr;

use p4cost_analysis::ParsePath;
use p4cost_ir::{MatchKind, Program, Table, TableId};

use crate::baseline;

/// The features of one class.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Features {
    /// Packet size in bytes.
    pub packet_size: u32,
    /// Bytes extracted by each counted parse state, in path order.
    pub state_bytes: Vec<u64>,
    /// The tables applied, in order.
    pub tables: Vec<TableFeature>,
}

/// How a table matches, as the models class it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TableMatch {
    /// Every key exact (or a validity match): SRAM.
    Exact,
    /// At least one LPM key and no ternary, range or optional key: TCAM.
    Lpm,
    /// A ternary, range or optional key: TCAM.
    Ternary,
    /// No match key at all.
    Keyless,
}

impl TableMatch {
    /// The name used in measurement files.
    pub fn name(self) -> &'static str {
        match self {
            TableMatch::Exact => "exact",
            TableMatch::Lpm => "lpm",
            TableMatch::Ternary => "ternary",
            TableMatch::Keyless => "keyless",
        }
    }

    /// True for the kinds that match in TCAM (the linear model's LPM
    /// coefficients).
    pub fn tcam(self) -> bool {
        matches!(self, TableMatch::Lpm | TableMatch::Ternary)
    }

    /// Every kind, in file order.
    pub const ALL: [TableMatch; 4] = [
        TableMatch::Exact,
        TableMatch::Lpm,
        TableMatch::Ternary,
        TableMatch::Keyless,
    ];
}

/// One table: `KIND:W1+W2:ENTRIES` in a measurement file (`exact:32+16:1000`;
/// `?` for a key of unknown width; entries empty when unknown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableFeature {
    /// How it matches.
    pub kind: TableMatch,
    /// Width of each match key field in bits (selector inputs excluded);
    /// `None` when unknown.
    pub key_bits: Vec<Option<u32>>,
    /// Entries (the declared size), when known.
    pub entries: Option<u64>,
}

impl TableFeature {
    /// The descriptor of a program's table.
    pub fn of(t: &Table) -> TableFeature {
        let keys: Vec<_> = t
            .keys
            .iter()
            .filter(|k| k.match_kind != MatchKind::Selector)
            .collect();
        let kind = if keys.is_empty() {
            TableMatch::Keyless
        } else if keys.iter().any(|k| {
            matches!(
                k.match_kind,
                MatchKind::Ternary | MatchKind::Range | MatchKind::Optional
            )
        }) {
            TableMatch::Ternary
        } else if keys.iter().any(|k| k.match_kind == MatchKind::Lpm) {
            TableMatch::Lpm
        } else {
            TableMatch::Exact
        };
        TableFeature {
            kind,
            key_bits: keys.iter().map(|k| k.width_bits).collect(),
            entries: t.size,
        }
    }

    /// Total key width in bits (unknown widths count 0).
    pub fn total_key_bits(&self) -> u64 {
        self.key_bits.iter().flatten().map(|&w| u64::from(w)).sum()
    }

    /// True for the wide key class of the Tofino model (section 6.2 of the
    /// paper): exactly one key, at least `wide_min_bits` wide (or of
    /// unknown width).
    pub fn wide(&self, wide_min_bits: u32) -> bool {
        match self.key_bits.as_slice() {
            [one] => one.is_none_or(|w| w >= wide_min_bits),
            _ => false,
        }
    }
}

impl fmt::Display for TableFeature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:", self.kind.name())?;
        for (i, w) in self.key_bits.iter().enumerate() {
            if i > 0 {
                f.write_str("+")?;
            }
            match w {
                Some(w) => write!(f, "{w}")?,
                None => f.write_str("?")?,
            }
        }
        f.write_str(":")?;
        if let Some(e) = self.entries {
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl FromStr for TableFeature {
    type Err = String;

    fn from_str(s: &str) -> Result<TableFeature, String> {
        let mut parts = s.trim().split(':');
        let (Some(kind), Some(keys), Some(entries), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(format!(
                "table `{s}` is not KIND:KEY_BITS:ENTRIES (e.g. exact:32+16:1000)"
            ));
        };
        let kind = TableMatch::ALL
            .into_iter()
            .find(|k| k.name() == kind.trim())
            .ok_or_else(|| {
                format!("table `{s}`: match kind `{kind}` is not exact, lpm, ternary or keyless")
            })?;
        let key_bits = if keys.trim().is_empty() {
            Vec::new()
        } else {
            keys.split('+')
                .map(|w| match w.trim() {
                    "?" => Ok(None),
                    w => w
                        .parse::<u32>()
                        .map(Some)
                        .map_err(|_| format!("table `{s}`: key width `{w}` is not a number")),
                })
                .collect::<Result<_, _>>()?
        };
        if (kind == TableMatch::Keyless) != key_bits.is_empty() {
            return Err(format!(
                "table `{s}`: keyless tables, and only they, have no key widths"
            ));
        }
        let entries = match entries.trim() {
            "" => None,
            e => Some(
                e.parse::<u64>()
                    .map_err(|_| format!("table `{s}`: entries `{e}` is not a number"))?,
            ),
        };
        Ok(TableFeature {
            kind,
            key_bits,
            entries,
        })
    }
}

impl Features {
    /// The features of the class (`path`, `tables`) at `packet_size`.
    pub fn of(program: &Program, path: &ParsePath, tables: &[TableId], packet_size: u32) -> Self {
        Features {
            packet_size,
            state_bytes: baseline::split(path)
                .into_iter()
                .filter(|s| s.counted)
                .map(|s| s.counted_bytes)
                .collect(),
            tables: tables
                .iter()
                .map(|&t| TableFeature::of(program.table(t)))
                .collect(),
        }
    }

    /// Counted parse states.
    pub fn states(&self) -> usize {
        self.state_bytes.len()
    }

    /// Bytes extracted by the counted states.
    pub fn header_bytes(&self) -> u64 {
        self.state_bytes.iter().sum()
    }

    /// The `state_bytes` column: `20+8+8`, empty for no counted state.
    pub fn state_bytes_text(&self) -> String {
        let v: Vec<String> = self.state_bytes.iter().map(u64::to_string).collect();
        v.join("+")
    }

    /// Parses a `state_bytes` column.
    pub fn parse_state_bytes(s: &str) -> Result<Vec<u64>, String> {
        if s.trim().is_empty() {
            return Ok(Vec::new());
        }
        s.split('+')
            .map(|b| {
                b.trim()
                    .parse::<u64>()
                    .map_err(|_| format!("state bytes `{b}` is not a number (e.g. 20+8+8)"))
            })
            .collect()
    }

    /// The `tables` column: descriptors joined by `;`.
    pub fn tables_text(&self) -> String {
        let v: Vec<String> = self.tables.iter().map(ToString::to_string).collect();
        v.join(";")
    }

    /// Parses a `tables` column.
    pub fn parse_tables(s: &str) -> Result<Vec<TableFeature>, String> {
        if s.trim().is_empty() {
            return Ok(Vec::new());
        }
        s.split(';').map(str::parse).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_descriptors_round_trip() {
        for s in ["exact:32+16:1000", "lpm:32:", "ternary:?+8:5", "keyless::1"] {
            let t: TableFeature = s.parse().unwrap();
            assert_eq!(t.to_string(), s);
        }
    }

    #[test]
    fn malformed_descriptors_are_refused_with_the_reason() {
        for (s, why) in [
            ("exact:32", "KIND:KEY_BITS:ENTRIES"),
            ("hash:32:1", "match kind `hash`"),
            ("exact:x:1", "key width `x`"),
            ("exact:8:many", "entries `many`"),
            ("keyless:8:1", "keyless"),
            ("exact::1", "keyless"),
        ] {
            let e = s.parse::<TableFeature>().unwrap_err();
            assert!(e.contains(why), "{s}: {e}");
        }
    }

    #[test]
    fn key_class_follows_the_paper() {
        let t = |s: &str| s.parse::<TableFeature>().unwrap();
        assert!(!t("exact:8:1").wide(16));
        assert!(t("exact:16:1").wide(16));
        assert!(!t("exact:32+32:1").wide(16), "two keys are the k=8 class");
        assert!(t("lpm:?:1").wide(16), "unknown width: wide, as the model");
    }

    #[test]
    fn state_bytes_parse() {
        assert_eq!(Features::parse_state_bytes("").unwrap(), Vec::<u64>::new());
        assert_eq!(Features::parse_state_bytes("20+ 8").unwrap(), vec![20, 8]);
        assert!(Features::parse_state_bytes("20+").is_err());
    }
}
