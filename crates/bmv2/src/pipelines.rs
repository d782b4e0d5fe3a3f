//! `pipelines[]` to IR controls: tables, conditionals and action calls as
//! the nodes of a control-flow graph.

use std::collections::{HashMap, HashSet};

use p4cost_ir::{
    ActionId, Annotation, Control, ControlFlow, ControlId, ControlRole, ExternCall, ExternUse,
    Gress, MatchKind, Node, NodeId, NodeKind, Program, Table, TableId, TableKey, TableNext,
};

use crate::access::J;
use crate::actions::ActionIndex;
use crate::cond::cond_of;
use crate::error::Result;
use crate::expr::Exprs;
use crate::hexstr;
use crate::spans::Spans;

/// The role and gress of a BMv2 pipeline, from its name.
fn role_of(name: &str) -> (ControlRole, Gress) {
    let lower = name.to_ascii_lowercase();
    if lower.contains("egress") {
        (ControlRole::Egress, Gress::Egress)
    } else if lower.contains("ingress") || lower == "main_control" {
        (ControlRole::Ingress, Gress::Ingress)
    } else {
        (ControlRole::Other, Gress::Unknown)
    }
}

/// Reads every pipeline into `prog.controls` (and its tables into
/// `prog.tables`).
pub(crate) fn read(
    root: &J,
    prog: &mut Program,
    e: &Exprs,
    spans: &mut Spans,
    actions: &ActionIndex,
) -> Result<()> {
    let direct = Direct::read(root, e)?;
    for p in root.key_items("pipelines")? {
        let control = read_pipeline(&p, prog, e, spans, actions, &direct)?;
        prog.controls.push(control);
    }
    direct.apply(prog);
    Ok(())
}

/// Direct resources: counters by the table they are bound to, meters by
/// name with the field their result (colour) goes to.
#[derive(Debug, Default)]
struct Direct {
    counters: HashMap<String, String>,
    /// Every direct meter, with its result field when it has one.
    meters: HashMap<String, Option<String>>,
}

impl Direct {
    fn read(root: &J, e: &Exprs) -> Result<Direct> {
        let mut d = Direct::default();
        let is_direct = |j: &J| -> Result<bool> {
            Ok(match j.opt("is_direct")? {
                Some(x) => x.bool()?,
                None => false,
            })
        };
        for c in root.opt_items("counter_arrays")? {
            if is_direct(&c)? {
                if let Some(t) = c.opt_key_str("binding")? {
                    let name = c.key_str("name")?;
                    d.counters
                        .entry(t.to_string())
                        .or_insert_with(|| name.to_string());
                }
            }
        }
        for m in root.opt_items("meter_arrays")? {
            if !is_direct(&m)? {
                continue;
            }
            let result = match m.opt("result_target")? {
                Some(rt) => Some(field_ref(&rt, e)?.2),
                None => None,
            };
            d.meters.insert(m.key_str("name")?.to_string(), result);
        }
        Ok(d)
    }

    /// BMv2 runs a table's direct counter and meter whenever the table
    /// hits, whatever the action, and p4c drops their calls from the
    /// actions: give every action of the table the call back (as the
    /// source's `counter.count()` / `meter.read(color)`), and the meter's
    /// result field as a write. Actions other tables share are left alone:
    /// they would count or write there too.
    fn apply(&self, prog: &mut Program) {
        let mut uses: HashMap<ActionId, usize> = HashMap::new();
        for t in &prog.tables {
            for a in &t.actions {
                *uses.entry(*a).or_default() += 1;
            }
        }
        let counters: HashSet<&String> = self.counters.values().collect();
        let mut edits: Vec<(ActionId, ExternCall, Option<String>)> = Vec::new();
        for t in &prog.tables {
            for x in &t.attached {
                let (call, write) = if counters.contains(x) {
                    (("direct_counter", "count", ExternUse::Counter), None)
                } else if let Some(result) = self.meters.get(x) {
                    (("direct_meter", "read", ExternUse::Meter), result.clone())
                } else {
                    continue;
                };
                for a in &t.actions {
                    if uses.get(a) == Some(&1) {
                        let c = ExternCall {
                            instance: x.clone(),
                            ty: call.0.to_string(),
                            method: call.1.to_string(),
                            uses: call.2,
                            divides: false,
                            index_reads: Vec::new(),
                            result: None,
                            span: t.span,
                        };
                        edits.push((*a, c, write.clone()));
                    }
                }
            }
        }
        for (a, call, write) in edits {
            let Some(action) = prog
                .actions
                .get_mut(a.index())
                .map(std::sync::Arc::make_mut)
            else {
                continue;
            };
            if let Some(w) = write {
                if !action.writes.contains(&w) {
                    action.writes.push(w);
                }
            }
            action.externs.push(call);
        }
    }
}

/// Node names of one pipeline.
struct NodeNames<'a> {
    ids: HashMap<&'a str, NodeId>,
}

impl<'a> NodeNames<'a> {
    /// The ids of the nodes `items` (tables, conditionals, action calls,
    /// numbered in that order), by name; a name given twice is an error.
    fn of<'j>(items: impl Iterator<Item = &'j J<'a>>) -> Result<NodeNames<'a>>
    where
        'a: 'j,
    {
        let mut ids = HashMap::new();
        for (i, n) in items.enumerate() {
            let nname = n.key_str("name")?;
            if ids.insert(nname, NodeId(i as u32)).is_some() {
                return Err(n
                    .key("name")?
                    .invalid(format!("duplicate control-flow node `{nname}`")));
            }
        }
        Ok(NodeNames { ids })
    }

    /// The name of node `at` (`?` when it has none).
    fn name_of(&self, at: NodeId) -> &'a str {
        self.ids
            .iter()
            .find(|(_, id)| **id == at)
            .map(|(n, _)| *n)
            .unwrap_or("?")
    }
}

impl NodeNames<'_> {
    /// The node a `next` reference names (`null` = end of control).
    fn resolve(&self, j: &J) -> Result<Option<NodeId>> {
        match j.opt_str()? {
            None => Ok(None),
            Some(name) => self
                .ids
                .get(name)
                .copied()
                .map(Some)
                .ok_or_else(|| j.invalid(format!("unknown control-flow node `{name}`"))),
        }
    }
}

fn read_pipeline(
    p: &J,
    prog: &mut Program,
    e: &Exprs,
    spans: &mut Spans,
    actions: &ActionIndex,
    direct: &Direct,
) -> Result<Control> {
    let name = p.key_str("name")?;
    let control_id = ControlId(prog.controls.len() as u32);
    let (role, gress) = role_of(name);
    let span = spans.of(prog, p)?;
    let tables = p.opt_items("tables")?;
    let conds = p.opt_items("conditionals")?;
    let calls = p.opt_items("action_calls")?;
    let names = NodeNames::of(tables.iter().chain(&conds).chain(&calls))?;
    let profiles = read_profiles(p, e)?;
    let mut nodes = Vec::new();
    for t in &tables {
        let (table, next) = read_table(t, prog, spans, actions, &names, &profiles, e, direct)?;
        let tspan = table.span;
        let mut table = table;
        table.control = Some(control_id);
        let tid = TableId(prog.tables.len() as u32);
        prog.tables.push(table);
        nodes.push(Node {
            kind: NodeKind::Table { table: tid, next },
            span: tspan,
        });
    }
    for c in &conds {
        nodes.push(condition_node(c, prog, e, spans, &names)?);
    }
    for a in &calls {
        nodes.push(action_call_node(a, prog, spans, actions, &names)?);
    }
    exits_to_exit_nodes(prog, &mut nodes, span);
    let entry = match p.opt("init_table")? {
        Some(j) => names.resolve(&j)?,
        None => None,
    };
    let flow = ControlFlow { nodes, entry };
    if let Some(at) = find_cycle(&flow) {
        return Err(p.invalid(format!(
            "the control flow has a cycle through `{}`",
            names.name_of(at)
        )));
    }
    Ok(Control {
        name: name.to_string(),
        role,
        gress,
        flow,
        span,
    })
}

/// The node of conditional `c`: its expression (fields named as the
/// source names them, as its reads and its gateway in a dependency graph
/// do), its structured condition and its two successors.
fn condition_node(
    c: &J,
    prog: &mut Program,
    e: &Exprs,
    spans: &mut Spans,
    names: &NodeNames,
) -> Result<Node> {
    let ej = c.key("expression")?;
    let canonical = Exprs {
        canonical_text: true,
        ..*e
    };
    let expr = canonical.value(&ej, &[], &mut Default::default())?;
    let cond = cond_of(e, &ej)?;
    let then_next = names.resolve(&c.key("true_next")?)?;
    let else_next = names.resolve(&c.key("false_next")?)?;
    Ok(Node {
        kind: NodeKind::Condition {
            expr,
            reads: cond.reads(),
            cond,
            then_next,
            else_next,
        },
        span: spans.of(prog, c)?,
    })
}

/// The node of action call `a`: its action, by id, and its successor.
fn action_call_node(
    a: &J,
    prog: &mut Program,
    spans: &mut Spans,
    actions: &ActionIndex,
    names: &NodeNames,
) -> Result<Node> {
    let id_j = a.key("action_id")?;
    let id = id_j.u64()?;
    let action = actions
        .by_id(id)
        .ok_or_else(|| id_j.invalid(format!("unknown action id {id}")))?;
    let next = names.resolve(&a.key("next_node")?)?;
    Ok(Node {
        kind: NodeKind::Action { action, next },
        span: spans.of(prog, a)?,
    })
}

/// True when an action always ends the pipeline: it runs `exit` and has
/// no jumps (which could go around it).
fn always_exits(prog: &Program, a: ActionId) -> bool {
    let ops = || prog.action(a).primitives.iter().map(|p| p.op.as_str());
    ops().any(|o| o == "exit") && !ops().any(|o| o == "_jump" || o == "_jump_if_zero")
}

/// p4c turns an apply block's `exit` into an `exit` primitive in the
/// action of a one-action table, and lets the table go on to what follows
/// it in the source. A table whose every action exits goes to an `Exit`
/// node instead, as the source's `exit` statement does, so what follows
/// is control dependent on the conditions that lead around the exit.
fn exits_to_exit_nodes(prog: &Program, nodes: &mut Vec<Node>, span: p4cost_ir::Span) {
    let mut exit: Option<NodeId> = None;
    for i in 0..nodes.len() {
        let NodeKind::Table { table, .. } = &nodes[i].kind else {
            continue;
        };
        let t = prog.table(*table);
        let all_exit = !t.actions.is_empty()
            && t.actions.iter().all(|a| always_exits(prog, *a))
            && t.default_action.is_none_or(|a| always_exits(prog, a));
        if !all_exit {
            continue;
        }
        let id = *exit.get_or_insert(NodeId(nodes.len() as u32));
        if let NodeKind::Table { next, .. } = &mut nodes[i].kind {
            *next = TableNext::Always { next: Some(id) };
        }
    }
    if exit.is_some() {
        nodes.push(Node {
            kind: NodeKind::Exit,
            span,
        });
    }
}

/// A node on a cycle, if the graph has one.
fn find_cycle(flow: &ControlFlow) -> Option<NodeId> {
    // 0 = unseen, 1 = on the stack, 2 = done.
    let n = flow.nodes.len();
    let mut state = vec![0u8; n];
    for start in 0..n {
        if state[start] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        state[start] = 1;
        while let Some(&mut (node, ref mut next_i)) = stack.last_mut() {
            let succs: Vec<usize> = flow.nodes[node]
                .successors()
                .into_iter()
                .flatten()
                .map(|s| s.index())
                .collect();
            if let Some(&s) = succs.get(*next_i) {
                *next_i += 1;
                match state.get(s) {
                    Some(1) => return Some(NodeId(s as u32)),
                    Some(0) => {
                        state[s] = 1;
                        stack.push((s, 0));
                    }
                    _ => {}
                }
            } else {
                state[node] = 2;
                stack.pop();
            }
        }
    }
    None
}

/// The fields an action selector hashes, as (field text, width,
/// canonical name).
type SelectorInputs = Vec<(String, Option<u32>, String)>;

/// Action profile name -> the selector's inputs (`None`: no selector).
fn read_profiles(p: &J, e: &Exprs) -> Result<HashMap<String, Option<SelectorInputs>>> {
    let mut out = HashMap::new();
    for ap in p.opt_items("action_profiles")? {
        let name = ap.key_str("name")?;
        let selector = match ap.opt("selector")? {
            None => None,
            Some(sel) => {
                let mut inputs = Vec::new();
                for i in sel.opt_items("input")? {
                    let ty = i.key_str("type")?;
                    if ty != "field" {
                        return Err(i
                            .key("type")?
                            .invalid(format!("selector input of type `{ty}` (expected `field`)")));
                    }
                    inputs.push(field_ref(&i.key("value")?, e)?);
                }
                Some(inputs)
            }
        };
        out.insert(name.to_string(), selector);
    }
    Ok(out)
}

/// The text, width and canonical name of a `[header, field]` reference.
fn field_ref(j: &J, e: &Exprs) -> Result<(String, Option<u32>, String)> {
    let parts = j.items()?;
    let (Some(h), Some(f)) = (parts.first(), parts.get(1)) else {
        return Err(j.invalid("expected [header, field]"));
    };
    let (h, f) = (h.str()?, f.str()?);
    Ok((
        format!("{h}.{f}"),
        e.headers.field_width(h, f),
        e.names.field(h, f),
    ))
}

/// The width of a key read through `mask` (p4c's JSON 2.7 form of a
/// slice key: the whole field plus a mask): the number of set bits within
/// the field. A contiguous mask is a slice and its popcount is the slice
/// width; a non-contiguous mask matches that many bits too. An all-zero
/// mask leaves the field width.
fn masked_width(mask_j: &J, mask: &str, field_width: Option<u32>) -> Result<Option<u32>> {
    let ones = hexstr::count_ones(mask, field_width)
        .ok_or_else(|| mask_j.invalid(format!("`{mask}` is not a hex mask")))?;
    Ok(if ones == 0 { field_width } else { Some(ones) })
}

fn annotation(name: &str, body: String, span: p4cost_ir::Span) -> Annotation {
    Annotation {
        name: name.to_string(),
        body,
        span,
    }
}

#[allow(clippy::too_many_arguments)]
fn read_table(
    t: &J,
    prog: &mut Program,
    spans: &mut Spans,
    actions: &ActionIndex,
    names: &NodeNames,
    profiles: &HashMap<String, Option<SelectorInputs>>,
    e: &Exprs,
    direct: &Direct,
) -> Result<(Table, TableNext)> {
    let name = t.key_str("name")?;
    let span = spans.of(prog, t)?;
    let mut annotations = Vec::new();
    let mut keys = read_keys(t, e, span, &mut annotations)?;
    let size = match t.opt("max_size")? {
        Some(s) => Some(s.u64()?),
        None => None,
    };
    // Action names (for next_tables) paired with their ids.
    let action_names: Vec<&str> = t
        .opt_items("actions")?
        .iter()
        .map(|a| a.str())
        .collect::<Result<_>>()?;
    let table_actions = read_table_actions(t, actions, &action_names)?;
    let (default_action, default_action_const) = read_default_entry(t, actions)?;
    let const_entries = t.opt_items("entries")?.len() as u64;
    let implementation = t.opt_key_str("action_profile")?.map(str::to_string);
    if let Some(ap) = &implementation {
        push_selector_keys(ap, profiles, span, &mut keys, &mut annotations);
    }
    let attached = read_direct_externs(t, name, direct, span, &mut annotations)?;
    // p4c turns each direct action call into a keyless one-action table.
    let short = name.rsplit('.').next().unwrap_or(name);
    if keys.is_empty() && table_actions.len() == 1 && short.starts_with("tbl_") {
        let body = action_names
            .first()
            .map(|s| s.to_string())
            .unwrap_or_default();
        annotations.push(annotation("action_call", body, span));
    }
    let next = read_next_tables(t, names, actions, &action_names, &table_actions)?;
    let table = Table {
        name: name.to_string(),
        control: None,
        keys,
        size,
        actions: table_actions,
        default_action,
        default_action_const,
        const_entries,
        implementation,
        attached,
        stages: Vec::new(),
        annotations,
        span,
    };
    Ok((table, next))
}

/// The table's `key` list; a masked key adds a `key_mask` annotation.
fn read_keys(
    t: &J,
    e: &Exprs,
    span: p4cost_ir::Span,
    annotations: &mut Vec<Annotation>,
) -> Result<Vec<TableKey>> {
    let mut keys = Vec::new();
    for k in t.opt_items("key")? {
        let mt = k.key_str("match_type")?;
        let target = k.key("target")?;
        // A masked key still reads its whole field.
        let (field, width, read) = match target.v.as_str() {
            // A `valid` match names a header.
            Some(h) => (
                format!("{h}.$valid$"),
                Some(1),
                format!("{}.$valid", e.names.header(h)),
            ),
            None => field_ref(&target, e)?,
        };
        let width = match k.opt_key_str("mask")? {
            Some(mask) => {
                annotations.push(annotation("key_mask", format!("{field} &&& {mask}"), span));
                masked_width(&k.key("mask")?, mask, width)?
            }
            None => width,
        };
        keys.push(TableKey {
            field,
            width_bits: width,
            match_kind: MatchKind::from_name(mt),
            reads: vec![read],
            span,
        });
    }
    Ok(keys)
}

/// The table's actions: by `action_ids` when present, else by the names in
/// `actions`.
fn read_table_actions(
    t: &J,
    actions: &ActionIndex,
    action_names: &[&str],
) -> Result<Vec<ActionId>> {
    let mut table_actions: Vec<ActionId> = Vec::new();
    match t.opt("action_ids")? {
        Some(ids) => {
            for id_j in ids.items()? {
                let id = id_j.u64()?;
                let a = actions
                    .by_id(id)
                    .ok_or_else(|| id_j.invalid(format!("unknown action id {id}")))?;
                table_actions.push(a);
            }
        }
        None => {
            for (i, n) in action_names.iter().enumerate() {
                let a = actions
                    .by_name(n)
                    .ok_or_else(|| t.invalid(format!("actions[{i}] names unknown action `{n}`")))?;
                table_actions.push(a);
            }
        }
    }
    Ok(table_actions)
}

/// The `default_entry`'s action and whether it is constant.
fn read_default_entry(t: &J, actions: &ActionIndex) -> Result<(Option<ActionId>, bool)> {
    let default_action_const = match t.opt("default_entry")? {
        Some(d) => d.opt("action_const")?.map(|c| c.bool()).transpose()? == Some(true),
        None => false,
    };
    let default_action = match t.opt("default_entry")? {
        Some(d) => {
            let id_j = d.key("action_id")?;
            let id = id_j.u64()?;
            Some(
                actions
                    .by_id(id)
                    .ok_or_else(|| id_j.invalid(format!("unknown action id {id}")))?,
            )
        }
        None => None,
    };
    Ok((default_action, default_action_const))
}

/// An action selector's inputs as `Selector` keys, with an
/// `action_selector` annotation, when profile `ap` has a selector.
fn push_selector_keys(
    ap: &str,
    profiles: &HashMap<String, Option<SelectorInputs>>,
    span: p4cost_ir::Span,
    keys: &mut Vec<TableKey>,
    annotations: &mut Vec<Annotation>,
) {
    if let Some(Some(inputs)) = profiles.get(ap) {
        annotations.push(annotation("action_selector", ap.to_string(), span));
        // p4c moves `selector` keys into the selector's inputs; put
        // them back so the table matches the source's key list.
        for (field, width, read) in inputs {
            keys.push(TableKey {
                field: field.clone(),
                width_bits: *width,
                match_kind: MatchKind::Selector,
                reads: vec![read.clone()],
                span,
            });
        }
    }
}

/// The table's direct counter and meter (its attached externs), each
/// with its annotation.
fn read_direct_externs(
    t: &J,
    name: &str,
    direct: &Direct,
    span: p4cost_ir::Span,
    annotations: &mut Vec<Annotation>,
) -> Result<Vec<String>> {
    let mut attached = Vec::new();
    if t.opt("with_counters")?.map(|c| c.bool()).transpose()? == Some(true) {
        annotations.push(annotation("direct_counter", String::new(), span));
        if let Some(c) = direct.counters.get(name) {
            attached.push(c.clone());
        }
    }
    if let Some(m) = t.opt_key_str("direct_meters")? {
        annotations.push(annotation("direct_meter", m.to_string(), span));
        attached.push(m.to_string());
    }
    Ok(attached)
}

/// Where the table goes next: `base_default_next` and `next_tables`, by
/// hit/miss or by action.
fn read_next_tables(
    t: &J,
    names: &NodeNames,
    actions: &ActionIndex,
    action_names: &[&str],
    table_actions: &[ActionId],
) -> Result<TableNext> {
    let base = match t.opt("base_default_next")? {
        Some(j) => names.resolve(&j)?,
        None => None,
    };
    let next_j = t.key("next_tables")?;
    let entries = next_j.entries()?;
    let is_hit_miss = entries
        .iter()
        .any(|(k, _)| *k == "__HIT__" || *k == "__MISS__");
    if is_hit_miss {
        hit_miss_next(&entries, names, base)
    } else {
        by_action_next(&entries, names, actions, action_names, table_actions, base)
    }
}

/// `next_tables` keyed by `__HIT__` and `__MISS__` (either defaulting to
/// `base`).
fn hit_miss_next(
    entries: &[(&str, J)],
    names: &NodeNames,
    base: Option<NodeId>,
) -> Result<TableNext> {
    let mut hit = base;
    let mut miss = base;
    for (k, j) in entries {
        match *k {
            "__HIT__" => hit = names.resolve(j)?,
            "__MISS__" => miss = names.resolve(j)?,
            other => {
                return Err(j.invalid(format!(
                    "`{other}` mixed with __HIT__/__MISS__ in next_tables"
                )))
            }
        }
    }
    Ok(TableNext::HitMiss { hit, miss })
}

/// `next_tables` keyed by action name, in the table's action order; one
/// next node for every action is `Always`.
fn by_action_next(
    entries: &[(&str, J)],
    names: &NodeNames,
    actions: &ActionIndex,
    action_names: &[&str],
    table_actions: &[ActionId],
    base: Option<NodeId>,
) -> Result<TableNext> {
    // First position of each name and each action, for constant-time
    // lookups below.
    let mut name_at: HashMap<&str, usize> = HashMap::new();
    for (i, n) in action_names.iter().enumerate() {
        name_at.entry(n).or_insert(i);
    }
    let mut action_at: HashMap<ActionId, usize> = HashMap::new();
    for (i, a) in table_actions.iter().enumerate() {
        action_at.entry(*a).or_insert(i);
    }
    let action_of_name = |n: &str| -> Option<ActionId> {
        name_at
            .get(n)
            .and_then(|&i| table_actions.get(i).copied())
            .or_else(|| actions.by_name(n))
    };
    let mut arms: Vec<(ActionId, Option<NodeId>)> = Vec::new();
    for (k, j) in entries {
        let a = action_of_name(k)
            .ok_or_else(|| j.invalid(format!("next_tables names unknown action `{k}`")))?;
        arms.push((a, names.resolve(j)?));
    }
    // Keep the table's action order.
    arms.sort_by_key(|(a, _)| action_at.get(a).copied().unwrap_or(usize::MAX));
    let first = arms.first().map(|(_, n)| *n);
    Ok(match first {
        None => TableNext::Always { next: base },
        Some(n) if arms.iter().all(|(_, m)| *m == n) => TableNext::Always { next: n },
        Some(_) => TableNext::ByAction {
            arms,
            default: base,
        },
    })
}
