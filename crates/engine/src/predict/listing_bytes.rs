//! The budget on the bytes the listed paths take as pretty JSON: the
//! listing stops where it would go over `--max-output-bytes`.
//!
//! A path's table terms are most of its JSON (switch_p4_16: 78 tables, 4
//! of its 5 KB without classes), and the paths of a linear prediction
//! share them ([`report::SharedTables`]): their bytes are counted once
//! for all the paths that share them, not on every path (`predict
//! --format json switch_p4_16.p4`: 69 M instructions counting, of 370 M).

use crate::report;

/// The bytes the listed paths take as pretty JSON, against a budget.
pub(super) struct ListingBytes {
    max: Option<u64>,
    used: u64,
    /// Paths within the budget, once one went over.
    over_at: Option<usize>,
    added: usize,
    /// The table terms last counted, with the bytes they add to a path.
    shared: Option<(report::SharedTables, u64)>,
    /// No table terms: in a path's place while it is counted without its.
    no_tables: report::SharedTables,
}

impl ListingBytes {
    /// A count against `max` bytes (`None`: no budget, nothing counted).
    pub(super) fn new(max: Option<u64>) -> ListingBytes {
        ListingBytes {
            max,
            used: 0,
            over_at: None,
            added: 0,
            shared: None,
            no_tables: Vec::new().into(),
        }
    }

    /// True once a path went over the budget: list no more.
    pub(super) fn full(&self) -> bool {
        self.over_at.is_some()
    }

    /// Counts path `p` (its classes listed). `p` is the same afterwards
    /// (its tables are set aside while it is counted).
    pub(super) fn add(&mut self, p: &mut report::PathOut) {
        let Some(max) = self.max else {
            return;
        };
        let bytes = self.path_bytes(p);
        self.used = self.used.saturating_add(bytes);
        if self.used > max {
            self.over_at = Some(self.added);
        }
        self.added += 1;
    }

    /// Bytes of `p` as `serde_json::to_writer_pretty` writes it: without
    /// its table terms (`"tables": []`), plus what they add.
    fn path_bytes(&mut self, p: &mut report::PathOut) -> u64 {
        if p.breakdown.tables.is_empty() {
            return pretty_bytes(&*p).bytes;
        }
        let tables = self.tables_bytes(&p.breakdown.tables);
        std::mem::swap(&mut p.breakdown.tables, &mut self.no_tables);
        let without = pretty_bytes(&*p).bytes;
        std::mem::swap(&mut p.breakdown.tables, &mut self.no_tables);
        // `[]` is 2 bytes: the tables are written in their place.
        without.saturating_sub(2).saturating_add(tables)
    }

    /// Bytes `tables` (not empty) take in a path's JSON: their array as
    /// written alone, each line after the first indented 2 levels (4
    /// spaces) more, as `breakdown.tables` is. Counted once for the
    /// paths that share them (the count holds them: the same pointer is
    /// the same terms).
    fn tables_bytes(&mut self, tables: &report::SharedTables) -> u64 {
        if let Some((t, bytes)) = &self.shared {
            if std::ptr::eq(t.as_ptr(), tables.as_ptr()) && t.len() == tables.len() {
                return *bytes;
            }
        }
        let c = pretty_bytes(tables);
        let bytes = c.bytes.saturating_add(c.lines.saturating_mul(4));
        self.shared = Some((tables.clone(), bytes));
        bytes
    }

    /// Counts report-level entries a path's classes added (`decisions`,
    /// `skipped`), before the path itself is [`ListingBytes::add`]ed.
    pub(super) fn add_entries<T: serde::Serialize>(&mut self, entries: Option<&[T]>) {
        let (Some(_), Some(entries)) = (self.max, entries) else {
            return;
        };
        for e in entries {
            self.used = self.used.saturating_add(pretty_bytes(e).bytes);
        }
    }

    /// How many paths to keep, when the budget cut the listing.
    pub(super) fn kept(&self) -> Option<usize> {
        self.over_at
    }

    /// The report's note for a listing of `before` paths cut to `keep`.
    pub(super) fn cut_note(&self, keep: usize, before: usize) -> report::OutputCutOut {
        let max = self.max.unwrap_or(0);
        report::OutputCutOut {
            max_output_bytes: max,
            paths_before: before,
            note: format!(
                "{keep} of the {before} listed paths written: more would exceed \
                 --max-output-bytes {max}"
            ),
        }
    }
}

/// Bytes and line breaks of `v` as `serde_json::to_writer_pretty` writes
/// it (writing to a counter fails only if serializing does, which a
/// report cannot: such a value counts what was written).
fn pretty_bytes<T: serde::Serialize + ?Sized>(v: &T) -> ByteCount {
    let mut count = ByteCount::default();
    let _ = serde_json::to_writer_pretty(&mut count, v);
    count
}

/// A `Write` that only counts bytes and line breaks.
#[derive(Default)]
struct ByteCount {
    bytes: u64,
    lines: u64,
}

impl std::io::Write for ByteCount {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes = self.bytes.saturating_add(buf.len() as u64);
        self.lines = self
            .lines
            .saturating_add(memchr::memchr_iter(b'\n', buf).count() as u64);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A path with `n` table terms, `tables` shared or its own.
    fn path(tables: report::SharedTables) -> report::PathOut {
        report::PathOut {
            index: report::CountOut::of(p4cost_analysis::PathCount::exact(0)),
            number: p4cost_analysis::PathCount::exact(1),
            headers: vec!["hdr.ethernet".to_string()],
            metadata: Vec::new(),
            states: Vec::new(),
            latency_ns: 1.5,
            min_latency_ns: 1.25,
            breakdown: report::BreakdownOut {
                base_ns: 1.0,
                parser_ns: 0.25,
                control_ns: 0.25,
                tables,
            },
            warnings: vec!["too_many_keys".into()],
            classes: None,
        }
    }

    fn table(name: &str) -> report::TableOut {
        report::TableOut {
            name: name.to_string(),
            match_kind: "exact".to_string(),
            match_class: "exact".to_string(),
            class_reason: "a \"quoted\" reason\nover two lines".to_string(),
            key_class: "narrow".to_string(),
            keys: 2,
            key_bits: 40,
            latency_ns: 0.492,
            stages: vec![1, 2],
            span: report::Loc {
                file: "a.p4".to_string(),
                line: 3,
                col: 1,
                lo: 10,
                hi: 20,
            },
        }
    }

    /// The count of a path is its whole JSON's, tables shared or not,
    /// none or several.
    #[test]
    fn a_path_counts_its_whole_json() {
        let shared: report::SharedTables = vec![table("a"), table("b_é")].into();
        let mut count = ListingBytes::new(Some(u64::MAX));
        for tables in [
            shared.clone(),
            Vec::new().into(),
            shared.clone(),
            vec![table("c")].into(),
            shared,
        ] {
            let mut p = path(tables);
            let whole = serde_json::to_string_pretty(&p).expect("json").len() as u64;
            let before = count.used;
            count.add(&mut p);
            assert_eq!(count.used - before, whole);
            assert_eq!(
                serde_json::to_string_pretty(&p).expect("json").len() as u64,
                whole
            );
        }
    }
}
