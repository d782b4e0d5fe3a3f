//! Lowering the context records to a [`Program`].

use std::collections::{BTreeMap, HashSet};

use p4cost_ir::{
    Action, ActionId, Annotation, Arch, Control, ControlFlow, ControlId, ControlRole,
    ExternInstance, ExternKind, FileId, Gress, InputKind, MatchKind, MauPlacement, Node, NodeId,
    NodeKind, Param, Pipeline, Primitive, Program, Span, Table, TableId, TableKey, TableNext,
};

use crate::context::{ContextData, CtxAction, MatchTable, StageSource};
use crate::estimate::{self, Chip};

/// The architecture for a context `target`.
fn arch_of(target: &str) -> Option<Arch> {
    match target {
        "tofino" => Some(Arch::Tna),
        t if t.starts_with("tofino") => Some(Arch::T2na),
        _ => None,
    }
}

/// The control name for one gress: the most common first component of the
/// qualified names of its placed tables (`SwitchIngress.forward` ->
/// `SwitchIngress`), else the gress name.
fn control_name(data: &ContextData, gress: Gress, fallback: &str) -> String {
    let mut votes: BTreeMap<&str, usize> = BTreeMap::new();
    for t in &data.match_tables {
        if t.gress != gress || !t.stages.iter().any(|s| *s >= 0) {
            continue;
        }
        if let Some((prefix, _)) = t.name.split_once('.') {
            *votes.entry(prefix).or_insert(0) += 1;
        }
    }
    let mut best: Option<(&str, usize)> = None;
    for (name, n) in votes {
        if best.is_none_or(|(_, b)| n > b) {
            best = Some((name, n));
        }
    }
    best.map_or_else(|| fallback.to_string(), |(n, _)| n.to_string())
}

/// Builds the program from the context records.
pub(crate) fn lower(data: ContextData, file_name: &str) -> Program {
    let name = data.program_name.clone().unwrap_or_else(|| {
        let base = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
        base.trim_end_matches(".json").to_string()
    });
    let mut p = Program::new(name, InputKind::TofinoContext);
    let file: FileId = p.add_file(file_name);
    let span = Span::file_start(file);
    match arch_of(&data.target) {
        Some(a) => p.arch = a,
        None => p.notes.push(format!(
            "unknown target \"{}\": architecture left unknown",
            data.target
        )),
    }
    p.notes.push(format!(
        "read from the Tofino compiler's context.json (schema {}, compiler {}, target {})",
        data.schema_version.as_deref().unwrap_or("unknown"),
        data.compiler_version.as_deref().unwrap_or("unknown"),
        data.target
    ));
    p.notes.push(
        "context.json holds no control flow: each control is a straight chain of its match \
         tables in stage order, not the program's apply blocks"
            .to_string(),
    );
    if !data.other_tables.is_empty() {
        let parts: Vec<String> = data
            .other_tables
            .iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect();
        p.notes.push(format!(
            "context.json also lists non-match tables (not in the table list): {}; {} of them \
             (registers, counters, meters, selectors, action profiles) are extern instances",
            parts.join(", "),
            data.externs.len()
        ));
    }
    p.externs = externs(&data, span);
    let control_of = controls(&mut p, &data, span);
    tables(&mut p, &data, &control_of, span);
    for (_, cid) in &control_of {
        chain(&mut p, *cid, span);
    }
    let control_for = |g: Gress| control_of.iter().find(|(cg, _)| *cg == g).map(|(_, c)| *c);
    p.pipelines.push(Pipeline {
        name: "pipe".into(),
        ingress: control_for(Gress::Ingress),
        egress: control_for(Gress::Egress),
        ..Pipeline::default()
    });

    p.mau = placement(&mut p, &data);
    p
}

/// The context's extern instances (registers, counters, meters, selectors,
/// action profiles).
fn externs(data: &ContextData, span: Span) -> Vec<ExternInstance> {
    data.externs
        .iter()
        .map(|e| ExternInstance {
            name: e.name.clone(),
            kind: e.kind.clone(),
            size: e.size,
            width_bits: e.width_bits,
            direct: e.direct,
            max_group_size: None,
            args: Vec::new(),
            works_on: None,
            span,
        })
        .collect()
}

/// One control per gress that has tables (ingress and egress always).
fn controls(p: &mut Program, data: &ContextData, span: Span) -> Vec<(Gress, ControlId)> {
    // Controls, one per gress that has tables (ingress and egress always).
    let mut gresses = vec![Gress::Ingress, Gress::Egress];
    for t in &data.match_tables {
        if !gresses.contains(&t.gress) {
            gresses.push(t.gress);
        }
    }
    let mut control_of: Vec<(Gress, ControlId)> = Vec::new();
    for g in &gresses {
        let (role, fallback) = match g {
            Gress::Ingress => (ControlRole::Ingress, "ingress"),
            Gress::Egress => (ControlRole::Egress, "egress"),
            Gress::Ghost => (ControlRole::Other, "ghost"),
            Gress::Unknown => (ControlRole::Other, "unknown"),
        };
        let id = ControlId(p.controls.len() as u32);
        p.controls.push(Control {
            name: control_name(data, *g, fallback),
            role,
            gress: *g,
            flow: ControlFlow::default(),
            span,
        });
        control_of.push((*g, id));
    }
    control_of
}

/// The actions (shared by name across tables) and the match tables.
fn tables(p: &mut Program, data: &ContextData, control_of: &[(Gress, ControlId)], span: Span) {
    let control_for = |g: Gress| control_of.iter().find(|(cg, _)| *cg == g).map(|(_, c)| *c);
    let mut actions = Actions::default();
    for t in &data.match_tables {
        let mut ids = Vec::new();
        let mut ids_seen: HashSet<ActionId> = HashSet::new();
        let mut default_action = None;
        for a in &t.actions {
            let id = actions.id(p, a, span);
            if ids_seen.insert(id) {
                ids.push(id);
            }
            if a.handle.is_some() && a.handle == t.default_handle {
                default_action = Some(id);
            }
        }
        let mut annotations = Vec::new();
        if t.hidden {
            annotations.push(Annotation {
                name: "hidden".into(),
                body: String::new(),
                span,
            });
        }
        let mut implementation = t.implementation.clone();
        if let Some(args) = &t.alpm {
            mark_alpm(p, t, args, &mut implementation, &mut annotations, span);
        }
        p.tables.push(Table {
            name: t.name.clone(),
            control: control_for(t.gress),
            keys: t
                .keys
                .iter()
                .map(|k| TableKey {
                    field: k.field.clone(),
                    width_bits: k.width,
                    match_kind: MatchKind::from_name(&k.match_type),
                    reads: vec![k.field.clone()],
                    span,
                })
                .collect(),
            size: t.size,
            actions: ids,
            default_action,
            default_action_const: false,
            const_entries: t.static_entries,
            implementation,
            attached: Vec::new(),
            stages: t.stages.clone(),
            annotations,
            span,
        });
    }
}

/// Marks an algorithmic LPM table as the source marks it, so that the
/// model splits it into its pre-classifier (TCAM) and ATCAM partitions
/// (SRAM): an `Alpm` extern instance `<table>$alpm` holding the context's
/// parameters, named by the table's `implementation`; or, when the table
/// has an implementation already (an action profile), `@alpm(1)` with
/// `@alpm_partitions` / `@alpm_subtrees_per_partition`.
fn mark_alpm(
    p: &mut Program,
    t: &MatchTable,
    args: &[(String, u64)],
    implementation: &mut Option<String>,
    annotations: &mut Vec<Annotation>,
    span: Span,
) {
    if implementation.is_none() {
        let name = format!("{}$alpm", t.name);
        p.externs.push(ExternInstance {
            name: name.clone(),
            kind: ExternKind::Other("Alpm".into()),
            size: None,
            width_bits: None,
            direct: false,
            max_group_size: None,
            args: args.to_vec(),
            works_on: None,
            span,
        });
        *implementation = Some(name);
        return;
    }
    let ann = |name: &str, body: String| Annotation {
        name: name.into(),
        body,
        span,
    };
    annotations.push(ann("alpm", "1".into()));
    for (arg, name) in [
        ("number_partitions", "alpm_partitions"),
        ("subtrees_per_partition", "alpm_subtrees_per_partition"),
    ] {
        if let Some((_, v)) = args.iter().find(|(k, _)| k == arg) {
            annotations.push(ann(name, v.to_string()));
        }
    }
}

/// The program's actions, one per name across the tables that list it.
#[derive(Default)]
struct Actions {
    ids: BTreeMap<String, ActionId>,
    /// Per action: the reads and writes it already has, so merging the
    /// same action from another table stays linear.
    refs: Vec<(HashSet<String>, HashSet<String>)>,
}

impl Actions {
    /// The id of action `a`: a new action, or the one of its name with
    /// `a`'s reads and writes added.
    fn id(&mut self, p: &mut Program, a: &CtxAction, span: Span) -> ActionId {
        if let Some(id) = self.ids.get(&a.name) {
            if let (Some(existing), Some((reads, writes))) = (
                p.actions.get_mut(id.index()).map(std::sync::Arc::make_mut),
                self.refs.get_mut(id.index()),
            ) {
                for r in &a.reads {
                    if reads.insert(r.clone()) {
                        existing.reads.push(r.clone());
                    }
                }
                for w in &a.writes {
                    if writes.insert(w.clone()) {
                        existing.writes.push(w.clone());
                    }
                }
            }
            return *id;
        }
        let id = ActionId(p.actions.len() as u32);
        p.actions.push(std::sync::Arc::new(Action {
            name: a.name.clone(),
            params: a
                .params
                .iter()
                .map(|(n, w)| Param {
                    name: n.clone(),
                    width_bits: *w,
                })
                .collect(),
            reads: a.reads.clone(),
            writes: a.writes.clone(),
            // context.json lists operations, not their operands.
            validity: Vec::new(),
            flags: Vec::new(),
            primitives: a
                .ops
                .iter()
                .map(|op| Primitive {
                    op: op.clone(),
                    span,
                })
                .collect(),
            externs: Vec::new(),
            annotations: Vec::new(),
            span,
        }));
        self.ids.insert(a.name.clone(), id);
        self.refs.push((
            a.reads.iter().cloned().collect(),
            a.writes.iter().cloned().collect(),
        ));
        id
    }
}

/// Control `cid`'s flow: a chain of its tables in stage order (unplaced
/// last).
fn chain(p: &mut Program, cid: ControlId, span: Span) {
    let mut order: Vec<(i32, usize)> = p
        .tables
        .iter()
        .enumerate()
        .filter(|(_, t)| t.control == Some(cid))
        .map(|(i, t)| (t.stages.first().copied().unwrap_or(i32::MAX), i))
        .collect();
    order.sort();
    let n = order.len();
    let nodes: Vec<Node> = order
        .iter()
        .enumerate()
        .map(|(k, (_, ti))| Node {
            kind: NodeKind::Table {
                table: TableId(*ti as u32),
                next: TableNext::Always {
                    next: (k + 1 < n).then(|| NodeId((k + 1) as u32)),
                },
            },
            span,
        })
        .collect();
    if let Some(c) = p.controls.get_mut(cid.index()) {
        c.flow = ControlFlow {
            entry: (!nodes.is_empty()).then_some(NodeId(0)),
            nodes,
        };
    }
}

/// The stage characteristics: the compiler's, else estimated from the
/// match-dependence flags, else none (with a note).
fn placement(p: &mut Program, data: &ContextData) -> Option<MauPlacement> {
    // Stage characteristics.
    let chip = Chip::for_target(&data.target);
    match &data.stages {
        StageSource::Compiler(stages) => Some(MauPlacement {
            stages: stages.clone(),
            estimated: false,
            target: data.target.clone(),
        }),
        StageSource::Dependency(deps) => {
            p.notes.push(format!(
                "context.json (schema {}) has no stage cycle figures, only match-dependence \
                 flags: stage lengths and latency contributions are ESTIMATED by p4cost from \
                 the tables placed in each stage",
                data.schema_version.as_deref().unwrap_or("unknown")
            ));
            Some(MauPlacement {
                stages: estimate::estimate(chip, deps, &data.stage_use),
                estimated: true,
                target: data.target.clone(),
            })
        }
        StageSource::Absent => {
            p.notes.push(
                "context.json has neither mau_stage_characteristics nor stage_dependency: \
                 no stage latency is available"
                    .to_string(),
            );
            None
        }
    }
}
