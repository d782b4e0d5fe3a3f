//! The summaries' terms compared by name: each table's term (what it adds
//! to a class that applies it) and each parse state's largest term over
//! all paths. Both are exact whatever is listed, and the comparison is
//! linear in the number of tables and states.

use std::collections::HashMap;

use serde::Serialize;

use super::{same, PipelineDiff};
use crate::report::Report;

/// A term (a table's, or a parse state's largest) before and after.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct TermDelta {
    /// The table or parse state.
    pub name: String,
    /// Before (ns; `null`: the old program has none of that name).
    pub old_ns: Option<f64>,
    /// After (ns; `null`: the new program has none).
    pub new_ns: Option<f64>,
    /// `new_ns - old_ns` (a missing side counts 0).
    pub delta_ns: f64,
}

/// Each table's term in `r`, by name: the breakdown of a listed path holds
/// every table of the control with its term (the same on every path).
fn table_terms(r: &Report) -> HashMap<&str, f64> {
    let mut m: HashMap<&str, f64> = HashMap::new();
    for t in r.paths.first().map_or(&[][..], |p| &p.breakdown.tables[..]) {
        let e = m.entry(t.name.as_str()).or_insert(t.latency_ns);
        *e = e.max(t.latency_ns);
    }
    m
}

/// Each parse state's largest term over all paths in `r`, by name.
fn state_terms(r: &Report) -> HashMap<&str, f64> {
    let mut m: HashMap<&str, f64> = HashMap::new();
    for st in &r.state_terms {
        let e = m.entry(st.name.as_str()).or_insert(st.max_ns);
        *e = e.max(st.max_ns);
    }
    m
}

/// The terms of `old` and `new` that differ (largest change first, then
/// by name; all of them: one per table or state of the programs) and how
/// many are the same.
fn changed(old: &HashMap<&str, f64>, new: &HashMap<&str, f64>) -> (Vec<TermDelta>, usize) {
    let mut out = Vec::new();
    let mut unchanged = 0;
    let names = new
        .keys()
        .chain(old.keys().filter(|k| !new.contains_key(*k)));
    for &name in names {
        let (o, n) = (old.get(name).copied(), new.get(name).copied());
        if let (Some(a), Some(b)) = (o, n) {
            if same(a, b) {
                unchanged += 1;
                continue;
            }
        }
        out.push(TermDelta {
            name: name.to_string(),
            old_ns: o,
            new_ns: n,
            delta_ns: n.unwrap_or(0.0) - o.unwrap_or(0.0),
        });
    }
    out.sort_by(|a, b| {
        b.delta_ns
            .abs()
            .total_cmp(&a.delta_ns.abs())
            .then_with(|| a.name.cmp(&b.name))
    });
    (out, unchanged)
}

/// Fills `p`'s table and state terms from the two sides' reports.
pub(super) fn compare(p: &mut PipelineDiff, old: &Report, new: &Report) {
    (p.table_terms_changed, p.table_terms_unchanged) =
        changed(&table_terms(old), &table_terms(new));
    (p.state_terms_changed, p.state_terms_unchanged) =
        changed(&state_terms(old), &state_terms(new));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_matched_by_name_and_sorted_by_change() {
        let old: HashMap<&str, f64> = [("a", 1.0), ("b", 2.0), ("gone", 3.0)].into();
        let new: HashMap<&str, f64> = [("a", 1.0), ("b", 2.5), ("new", 0.25)].into();
        let (ch, same) = changed(&old, &new);
        assert_eq!(same, 1);
        let names: Vec<&str> = ch.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["gone", "b", "new"]);
        assert_eq!(ch[0].new_ns, None);
        assert_eq!(ch[0].delta_ns, -3.0);
        assert_eq!(ch[1].delta_ns, 0.5);
    }
}
