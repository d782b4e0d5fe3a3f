//! Canonical table names: the names p4c gives tables in its outputs (BMv2
//! JSON, context.json), so a report made from the source and one made from
//! a compiler output name the same table the same way (ARCHITECTURE.md,
//! "Names").
//!
//! p4c names a table by the control instance path it is applied under,
//! then its local name: `FabricIngress.filtering.fwd_classifier` for table
//! `fwd_classifier` of the control instance `filtering` applied by the
//! top-level control `FabricIngress`. An `@name("x")` annotation replaces
//! the local name; `@name(".x")` (leading dot) is the whole, global name.

use p4cost_ir as ir;

use crate::lower::Cx;

/// The local or global name an `@name` annotation gives, if any:
/// `(name, global)`.
fn name_annotation(t: &ir::Table) -> Option<(String, bool)> {
    let a = t.annotations.iter().find(|a| a.name == "name")?;
    let body = a.body.trim().trim_matches('"');
    if body.is_empty() {
        return None;
    }
    Some(match body.strip_prefix('.') {
        Some(global) => (global.to_string(), true),
        None => (body.to_string(), false),
    })
}

/// `format!("{}.{name}", path.join("."))`, built in one allocation.
fn under(path: &[String], name: &str) -> String {
    let len = path.iter().map(|p| p.len() + 1).sum::<usize>() + name.len() + 1;
    let mut out = String::with_capacity(len);
    for (i, p) in path.iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        out.push_str(p);
    }
    out.push('.');
    out.push_str(name);
    out
}

/// Records that table `t` is applied under the current instance path.
pub fn record_apply(cx: &mut Cx<'_, '_>, t: ir::TableId) {
    let Some(table) = cx.program.tables.get(t.index()) else {
        return;
    };
    let name = match name_annotation(table) {
        Some((n, true)) => n,
        Some((n, false)) => under(&cx.instance_path, &n),
        None => under(&cx.instance_path, &table.name),
    };
    let names = cx.applied_as.entry(t.0).or_default();
    if !names.contains(&name) {
        names.push(name);
    }
}

/// Renames every table to its qualified name once the pipelines are bound.
/// A sub-control is also lowered as a control of its own, so its tables
/// are reached under two paths: the one rooted at a control bound to a
/// pipeline wins. A table reached under several such paths (a sub-control
/// instantiated twice shares one lowered table) keeps its local name, as
/// does a table never applied.
pub fn qualify_tables(cx: &mut Cx<'_, '_>) {
    let bound: Vec<String> = cx
        .program
        .pipelines
        .iter()
        .flat_map(|p| [p.ingress, p.egress, p.ingress_deparser, p.egress_deparser])
        .flatten()
        .filter_map(|c| cx.program.controls.get(c.index()))
        .map(|c| c.name.clone())
        .collect();
    let applied = std::mem::take(&mut cx.applied_as);
    let root = |n: &String| {
        n.split('.')
            .next()
            .is_some_and(|r| bound.iter().any(|b| b == r))
    };
    for (index, mut names) in applied {
        // The one name rooted at a bound control, else the only name.
        let mut in_pipeline = names
            .iter()
            .enumerate()
            .filter(|(_, n)| root(n))
            .map(|(i, _)| i);
        let pick = match (in_pipeline.next(), in_pipeline.next(), names.len()) {
            (Some(i), None, _) => Some(names.swap_remove(i)),
            (None, _, 1) => names.pop(),
            _ => None,
        };
        if let (Some(name), Some(t)) = (pick, cx.program.tables.get_mut(index as usize)) {
            t.name = name;
        }
    }
}
