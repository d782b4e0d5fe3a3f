//! The table dependency graph of one control, with the Tofino compiler's
//! notions of dependency (docs/models.md, "Table dependencies").
//!
//! The units are what the compiler places into stages: every table the
//! control applies (once, however often it is applied), every gateway (an
//! `if` or a `switch` on a value), and every run of apply-block statements
//! or direct action calls (which the compiler turns into keyless tables).
//!
//! For two units A and B where B can run after A on some packet (A reaches
//! B in the acyclic control-flow graph; units on exclusive branches never
//! depend on each other):
//! - **match**: B's key or gateway reads a field A's actions write
//!   (validity included, as `<header>.$valid`);
//! - **action**: B's actions read a field A's actions write, or both write
//!   one field;
//! - **control**: B runs only on some outcomes of A (hit/miss, action,
//!   true/false branch of a gateway), A being the nearest such unit;
//! - **reverse read**: B writes a field A reads (write after read).
//!
//! Code after an `exit` never runs on a packet that took it, so the two are
//! exclusive (the compiler places them in one stage: fabric-tna's
//! packet-out branch and its filtering tables).
//!
//! A write that a later unit always overwrites on every path before it is
//! read (or before the other write) is dead, as the compiler's dead-code
//! elimination finds, and makes no dependency.
//!
//! Local variables of the apply block that only ever receive constants are
//! propagated by the compiler: their assignments are no unit.
//!
//! A pair gets one edge, of the strongest kind (match, action, control,
//! reverse read), with the field that caused it. Fields overlap when one
//! name is the other or a prefix of it at a `.`/`[` boundary (`hdr.ipv4`
//! and `hdr.ipv4.ttl`). Lookups go through hash maps from names and name
//! prefixes, and reachability through one bitset per node, so building the
//! graph is linear in the control times the number of units / 64, bounded
//! by [`DEFAULT_MAX_DEP_UNITS`].

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use serde::Serialize;

use p4cost_ir::{
    ActionId, ControlId, ExternCall, NodeId, NodeKind, Program, Span, TableId, TableNext,
};

/// Default bound on the units of one control's dependency graph.
pub const DEFAULT_MAX_DEP_UNITS: usize = 20_000;

/// Default bound on the (unit, unit) pairs the graph examines through
/// shared fields (switch-size programs stay under 50,000).
pub const DEFAULT_MAX_DEP_PAIRS: u64 = 1_000_000;

/// The dependency graph's budgets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DepLimits {
    /// Most units (tables, gateways, statement runs) in one control.
    pub max_units: usize,
    /// Most unit pairs examined through shared fields.
    pub max_pairs: u64,
}

impl Default for DepLimits {
    fn default() -> DepLimits {
        DepLimits {
            max_units: DEFAULT_MAX_DEP_UNITS,
            max_pairs: DEFAULT_MAX_DEP_PAIRS,
        }
    }
}

impl DepLimits {
    /// Bound on units x control-flow nodes (the reachability bitsets):
    /// [`MAX_REACH_BITS`], or the square of the unit bound if larger.
    pub fn reach_bits(&self) -> u64 {
        MAX_REACH_BITS.max((self.max_units as u64).saturating_mul(self.max_units as u64))
    }
}

/// What a unit is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum UnitKind {
    /// A table of the program.
    Table {
        /// The table.
        #[serde(skip)]
        table: TableId,
    },
    /// An `if` condition or a `switch` on a value.
    Gateway,
    /// Apply-block statements or direct action calls (a keyless table for
    /// the compiler).
    Statements,
}

/// One thing the compiler places: a table, a gateway or a statement run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unit {
    /// Table name, or a name for a gateway / statements at their site.
    pub name: String,
    /// What it is.
    #[serde(flatten)]
    pub kind: UnitKind,
    /// Site (first application).
    #[serde(skip)]
    pub span: Span,
    /// Fields read to match: keys, or the gateway's condition.
    pub match_reads: Vec<String>,
    /// Fields its actions read.
    pub action_reads: Vec<String>,
    /// Fields its actions write.
    pub writes: Vec<String>,
    /// Control-flow nodes that are this unit.
    #[serde(skip)]
    pub nodes: Vec<NodeId>,
    /// Extern calls its actions (a table's, its default included) or its
    /// statements make.
    #[serde(skip)]
    pub externs: Vec<ExternCall>,
}

/// The kind of a dependency, strongest first.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum DepKind {
    /// The later unit's match (key, gateway) reads what the earlier writes.
    Match,
    /// The later unit's actions read what the earlier writes, or both write
    /// one field.
    Action,
    /// The later unit runs only on some outcomes of the earlier one.
    Control,
    /// The later unit writes what the earlier one reads.
    ReverseRead,
}

impl DepKind {
    /// Name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            DepKind::Match => "match",
            DepKind::Action => "action",
            DepKind::Control => "control",
            DepKind::ReverseRead => "reverse_read",
        }
    }
}

/// One dependency between two units.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DepEdge {
    /// Earlier unit (index in [`DepGraph::units`]).
    pub from: usize,
    /// Later unit.
    pub to: usize,
    /// Kind.
    pub kind: DepKind,
    /// The field that causes it (for control: the outcome, e.g. `hit`).
    pub field: String,
    /// Whether the two units touch the same field or only one shared
    /// container ([`SharedContainers`]); not in the JSON.
    #[serde(skip)]
    pub through: Through,
}

/// How an edge's two units meet. bf-p4c's dependency graph compares
/// fields (`FindDataDependencyGraph`); two tables writing different fields
/// of one container are a *container conflict*, kept out of one stage by
/// table placement but no edge of the graph (`container_conflicts`,
/// `mau/table_dependency_graph.cpp`), and a table reading a field whose
/// container another wrote is no dependency at all there (the assembler's
/// container comparison only makes its stage match dependent).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Through {
    /// One field (or overlapping ones).
    #[default]
    Field,
    /// Both write fields of one container.
    ContainerWrite,
    /// One reads a field of the container the other writes.
    ContainerRead,
}

/// The dependency graph of one control.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DepGraph {
    /// The control.
    #[serde(skip)]
    pub control: ControlId,
    /// Units in control-flow order (a topological order).
    pub units: Vec<Unit>,
    /// Edges, sorted by (to, from).
    pub edges: Vec<DepEdge>,
    /// The longest chain of match dependencies (unit indexes, first to
    /// last); a single unit when there is none.
    pub longest_match_chain: Vec<usize>,
}

/// Fields the hardware keeps in one container, so that writing one of
/// them conflicts with reading or writing another: `(suffix, container)`
/// pairs. A pseudo-field suffix (`.$valid`) matches every field ending with
/// it: the validity bits of all headers. A field suffix (`.drop_ctl`,
/// `.copy_to_cpu`) names a member of the architecture's intrinsic metadata
/// (the deparser and traffic-manager flags bf-p4c packs together), and
/// matches only a direct member of a control parameter (`ig_dprsr_md.drop_ctl`):
/// those structs are flat, and a header or user-metadata field that happens
/// to have the same name (`hdr.bridged_md.base.bypass_egress`) is a field of
/// its own. Empty for the compiler's field-level graph.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SharedContainers(pub Vec<(String, String)>);

impl SharedContainers {
    /// The container a field shares, if any.
    pub fn of(&self, field: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(suffix, _)| shares(field, suffix))
            .map(|(_, c)| c.as_str())
    }
}

/// True when `field` belongs to the container of `suffix`, per
/// [`SharedContainers`].
fn shares(field: &str, suffix: &str) -> bool {
    let Some(root) = field.strip_suffix(suffix) else {
        return false;
    };
    suffix.starts_with(".$") || (!root.is_empty() && !root.contains(['.', '[']))
}

/// The graph is larger than allowed: more units than the bound, or more
/// units x control-flow nodes than [`MAX_REACH_BITS`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooManyUnits {
    /// Units found.
    pub units: usize,
    /// The bound on units.
    pub limit: usize,
    /// Control-flow nodes of the control.
    pub nodes: usize,
    /// Unit pairs examined when the pair budget ran out (0 otherwise).
    pub pairs: u64,
    /// The bound on pairs.
    pub pair_limit: u64,
    /// The bound on units x nodes.
    pub reach_limit: u64,
}

impl std::fmt::Display for TooManyUnits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.pairs > 0 {
            return write!(
                f,
                "{} tables, gateways and statement runs touch the same fields so often that the dependency graph would examine more than {} pairs of them (--max-dep-pairs raises it)",
                self.units, self.pair_limit
            );
        }
        write!(
            f,
            "{} tables, gateways and statement runs over {} control-flow nodes: more than the dependency graph's limits ({} units, {} units x nodes; --max-dep-units raises both)",
            self.units, self.nodes, self.limit, self.reach_limit
        )
    }
}

/// Bound on units x control-flow nodes: the reachability bitsets take
/// three times this many bits (about 100 MB at the bound).
pub const MAX_REACH_BITS: u64 = 256 << 20;

impl Unit {
    /// The nodes control leaves the unit from: every application of a
    /// table or gateway, the last node of a statement run.
    fn exits(&self) -> &[NodeId] {
        match self.kind {
            UnitKind::Statements => {
                let n = self.nodes.len();
                &self.nodes[n.saturating_sub(1)..]
            }
            _ => &self.nodes,
        }
    }
}

/// Builds the dependency graph of a control.
pub fn dependency_graph(
    program: &Program,
    control: ControlId,
    limits: &DepLimits,
) -> Result<DepGraph, TooManyUnits> {
    dependency_graph_with(program, control, limits, &SharedContainers::default())
}

/// [`dependency_graph`] where fields sharing a hardware container (per
/// `shared`) conflict as if they were one field.
pub fn dependency_graph_with(
    program: &Program,
    control: ControlId,
    limits: &DepLimits,
    shared: &SharedContainers,
) -> Result<DepGraph, TooManyUnits> {
    let flow = &program.control(control).flow;
    let order = topo_order(program, control);
    let n = flow.nodes.len();
    let too_many = |units: usize, pairs: u64| TooManyUnits {
        units,
        limit: limits.max_units,
        nodes: n,
        pairs,
        pair_limit: limits.max_pairs,
        reach_limit: limits.reach_bits(),
    };
    let folded = const_only_locals(program, flow, &order);
    let (units, unit_of) = collect_units(program, flow, &order, &folded, limits.max_units)
        .map_err(|units| too_many(units, 0))?;
    let nu = units.len();
    let words = nu.div_ceil(64).max(1);
    if (n as u64).saturating_mul(words as u64 * 64) > limits.reach_bits() {
        return Err(too_many(nu, 0));
    }
    let g = Graph::new(program, flow, &order, units, unit_of, shared, words);
    let mut best: BestEdges = HashMap::new();
    g.data_edges(&mut best, limits.max_pairs)
        .map_err(|pairs| too_many(nu, pairs))?;
    g.control_edges(&mut best);
    keep_nearest_control(&mut best);
    let placing: HashMap<(usize, usize), DepKind> = best
        .iter()
        .filter(|(k, _)| !k.2)
        .map(|(&(f, t, _), e)| ((f, t), e.1))
        .collect();
    // A container read beside an edge as strong that places: nothing to add.
    best.retain(|&(f, t, read), e| !read || placing.get(&(f, t)).is_none_or(|&k| e.1 < k));
    let mut edges: Vec<DepEdge> = best
        .into_iter()
        .map(|((from, to, _), (through, kind, field))| DepEdge {
            from,
            to,
            kind,
            field,
            through,
        })
        .collect();
    edges.sort_by_key(|e| (e.to, e.from, e.through));
    let longest_match_chain = longest_match_chain(nu, &edges);
    Ok(DepGraph {
        control,
        units: g.units,
        edges,
        longest_match_chain,
    })
}

/// The strongest edge offered so far per (from, to), with its field.
/// Two per pair: the strongest edge that places the later unit (through a
/// field, or a container both write) and the strongest that only reads a
/// container (`true`), which types a stage without moving a table.
type BestEdges = HashMap<(usize, usize, bool), (Through, DepKind, String)>;

/// Keeps the strongest edge offered for a pair in its slot (the first
/// field of it): the strongest kind, then a field before a container.
fn offer(best: &mut BestEdges, from: usize, to: usize, link: (Through, DepKind), field: &str) {
    let read = link.0 == Through::ContainerRead;
    let e = best
        .entry((from, to, read))
        .or_insert_with(|| (link.0, link.1, field.to_string()));
    if (link.1, link.0) < (e.1, e.0) {
        *e = (link.0, link.1, field.to_string());
    }
}

/// Local variables of the apply block that only ever get constants: the
/// compiler propagates the constant into every use (a key reading `vrf`
/// after `vrf = 0;` matches on 0), so the assignments place no table and
/// make no dependency.
fn const_only_locals<'a>(
    program: &'a Program,
    flow: &'a p4cost_ir::ControlFlow,
    order: &[NodeId],
) -> HashSet<&'a str> {
    let is_local = |w: &str| !w.contains(['.', '[']);
    let mut non_const: HashSet<&str> = HashSet::new();
    let mut const_only: HashSet<&str> = HashSet::new();
    let action_writes = |non_const: &mut HashSet<&'a str>, a: ActionId| {
        for w in program.action(a).writes.iter().filter(|w| is_local(w)) {
            non_const.insert(w);
        }
    };
    for &id in order {
        match &flow.node(id).kind {
            NodeKind::Statement {
                what,
                reads,
                writes,
                externs,
                ..
            } => {
                let constant = what == "assign" && reads.is_empty() && externs.is_empty();
                for w in writes.iter().filter(|w| is_local(w)) {
                    if constant {
                        const_only.insert(w);
                    } else {
                        non_const.insert(w);
                    }
                }
            }
            NodeKind::Table { table, .. } => {
                let t = program.table(*table);
                for a in t.actions.iter().chain(t.default_action.iter()) {
                    action_writes(&mut non_const, *a);
                }
            }
            NodeKind::Action { action, .. } => action_writes(&mut non_const, *action),
            _ => {}
        }
    }
    const_only.retain(|w| !non_const.contains(w));
    const_only
}

/// Predecessor counts of the nodes, to merge straight runs of statements.
fn pred_counts(flow: &p4cost_ir::ControlFlow, order: &[NodeId]) -> Vec<u32> {
    let mut preds = vec![0u32; flow.nodes.len()];
    for &id in order {
        for s in placed_successors(flow.node(id)) {
            if let Some(p) = preds.get_mut(s.index()) {
                *p += 1;
            }
        }
    }
    preds
}

/// The units in topological order of their first node, and the unit of
/// each node; `Err(units)` past `max_units`.
fn collect_units(
    program: &Program,
    flow: &p4cost_ir::ControlFlow,
    order: &[NodeId],
    folded: &HashSet<&str>,
    max_units: usize,
) -> Result<(Vec<Unit>, Vec<Option<usize>>), usize> {
    let preds = pred_counts(flow, order);
    let mut units: Vec<Unit> = Vec::new();
    let mut unit_of: Vec<Option<usize>> = vec![None; flow.nodes.len()];
    let mut table_unit: HashMap<TableId, usize> = HashMap::new();
    for &id in order {
        if unit_of[id.index()].is_some() {
            continue;
        }
        let node = flow.node(id);
        let u = match &node.kind {
            NodeKind::Table { table, .. } => {
                if let Some(&u) = table_unit.get(table) {
                    unit_of[id.index()] = Some(u);
                    units[u].nodes.push(id);
                    continue;
                }
                table_unit.insert(*table, units.len());
                table_unit_of(program, *table, node, id)
            }
            NodeKind::Condition { reads, expr, .. } => Unit {
                name: format!("if ({expr})"),
                kind: UnitKind::Gateway,
                span: node.span,
                match_reads: reads.clone(),
                action_reads: vec![],
                writes: vec![],
                nodes: vec![id],
                externs: vec![],
            },
            NodeKind::Action { .. } | NodeKind::Statement { .. } => {
                let run = statement_run(flow, id, &preds, &unit_of);
                match statements_unit(program, flow, run, folded) {
                    Some(u) => u,
                    None => continue,
                }
            }
            NodeKind::Exit => continue,
        };
        let idx = units.len();
        for nid in &u.nodes {
            unit_of[nid.index()] = Some(idx);
        }
        units.push(u);
        if units.len() > max_units {
            return Err(units.len());
        }
    }
    Ok((units, unit_of))
}

/// The unit of a table: its keys' fields, and what its actions (the
/// default included) read, write and call.
fn table_unit_of(program: &Program, table: TableId, node: &p4cost_ir::Node, id: NodeId) -> Unit {
    let t = program.table(table);
    let mut match_reads = Names::default();
    for k in &t.keys {
        if k.reads.is_empty() {
            match_reads.push(k.field.clone());
        }
        for r in &k.reads {
            match_reads.push(r.clone());
        }
    }
    let mut action_reads = Names::default();
    let mut writes = Names::default();
    let mut externs = Vec::new();
    for a in t.actions.iter().chain(t.default_action.iter()) {
        let a = program.action(*a);
        for r in &a.reads {
            action_reads.push(r.clone());
        }
        for w in &a.writes {
            writes.push(w.clone());
        }
        externs.extend(a.externs.iter().cloned());
    }
    Unit {
        name: t.name.clone(),
        kind: UnitKind::Table { table },
        span: node.span,
        match_reads: match_reads.0,
        action_reads: action_reads.0,
        writes: writes.0,
        nodes: vec![id],
        externs,
    }
}

/// A straight run: node `id` and the following statement nodes that only
/// it leads to.
fn statement_run(
    flow: &p4cost_ir::ControlFlow,
    id: NodeId,
    preds: &[u32],
    unit_of: &[Option<usize>],
) -> Vec<NodeId> {
    let mut run = vec![id];
    let mut cur = id;
    while let Some(next) = single_next(flow.node(cur)) {
        let joins = preds.get(next.index()).copied().unwrap_or(0) > 1;
        let is_stmt = matches!(
            flow.node(next).kind,
            NodeKind::Action { .. } | NodeKind::Statement { .. }
        );
        if joins || !is_stmt || unit_of[next.index()].is_some() || run.contains(&next) {
            break;
        }
        run.push(next);
        cur = next;
    }
    run
}

/// The unit of a statement run; `None` when nothing in it is placed (only
/// folded constant assignments and returns).
fn statements_unit(
    program: &Program,
    flow: &p4cost_ir::ControlFlow,
    run: Vec<NodeId>,
    folded: &HashSet<&str>,
) -> Option<Unit> {
    let mut action_reads = Names::default();
    let mut writes = Names::default();
    let mut what = Vec::new();
    let mut externs = Vec::new();
    for &r in &run {
        match &flow.node(r).kind {
            NodeKind::Action { action, .. } => {
                let a = program.action(*action);
                what.push(a.name.clone());
                externs.extend(a.externs.iter().cloned());
                for x in &a.reads {
                    action_reads.push(x.clone());
                }
                for x in &a.writes {
                    writes.push(x.clone());
                }
            }
            NodeKind::Statement {
                what: w,
                writes: ws,
                ..
            } if w == "assign" && ws.iter().all(|x| folded.contains(x.as_str())) => {}
            NodeKind::Statement {
                what: w,
                reads,
                writes: ws,
                externs: calls,
                ..
            } => {
                externs.extend(calls.iter().cloned());
                if w != "return" {
                    what.push(w.to_string());
                }
                for x in reads {
                    action_reads.push(x.clone());
                }
                for x in ws {
                    writes.push(x.clone());
                }
            }
            _ => {}
        }
    }
    if what.is_empty() {
        return None;
    }
    Some(Unit {
        name: statements_name(&what),
        kind: UnitKind::Statements,
        span: flow.node(run[0]).span,
        match_reads: vec![],
        action_reads: action_reads.0,
        writes: writes.0,
        nodes: run,
        externs,
    })
}

/// reach[node] = units strictly after the node on some path.
fn reach_sets(
    flow: &p4cost_ir::ControlFlow,
    order: &[NodeId],
    unit_of: &[Option<usize>],
    words: usize,
) -> Vec<Vec<u64>> {
    let mut reach: Vec<Vec<u64>> = vec![Vec::new(); flow.nodes.len()];
    for &id in order.iter().rev() {
        let mut bits = vec![0u64; words];
        for s in placed_successors(flow.node(id)) {
            let si = s.index();
            if let Some(u) = unit_of.get(si).copied().flatten() {
                set(&mut bits, u);
            }
            if let Some(r) = reach.get(si) {
                or_into(&mut bits, r);
            }
        }
        reach[id.index()] = bits;
    }
    reach
}

/// must[node] = units on every path from the node to the end (the node's
/// own unit excluded); an `exit` or the end gives none.
fn must_sets(
    flow: &p4cost_ir::ControlFlow,
    order: &[NodeId],
    unit_of: &[Option<usize>],
    words: usize,
) -> Vec<Vec<u64>> {
    let mut must: Vec<Vec<u64>> = vec![Vec::new(); flow.nodes.len()];
    for &id in order.iter().rev() {
        let succ = flow.node(id).successors();
        let mut bits = if succ.is_empty() {
            vec![0u64; words]
        } else {
            vec![u64::MAX; words]
        };
        for s in succ {
            let along = match s {
                None => vec![0u64; words],
                Some(s) => {
                    let mut v = must.get(s.index()).cloned().unwrap_or_default();
                    v.resize(words, 0);
                    if let Some(u) = unit_of.get(s.index()).copied().flatten() {
                        set(&mut v, u);
                    }
                    v
                }
            };
            for (b, x) in bits.iter_mut().zip(&along) {
                *b &= x;
            }
        }
        must[id.index()] = bits;
    }
    must
}

/// `bits |= other`, word by word.
fn or_into(bits: &mut [u64], other: &[u64]) {
    for (b, x) in bits.iter_mut().zip(other) {
        *b |= x;
    }
}

/// A branch of a table or gateway: its label, where it goes, and the
/// table's actions that can have run on it (`None` for a gateway).
type Branch = (String, Option<NodeId>, Option<Vec<ActionId>>);

/// The branches of a node: a table's hit/miss or action_run cases, a
/// gateway's true/false; `None` for a node that does not branch.
fn branches(program: &Program, node: &p4cost_ir::Node) -> Option<Vec<Branch>> {
    match &node.kind {
        NodeKind::Table { next, table } => {
            let t = program.table(*table);
            match next {
                TableNext::Always { .. } => None,
                TableNext::HitMiss { hit, miss } => {
                    let on_miss = match (t.default_action, t.default_action_const) {
                        (Some(d), true) => vec![d],
                        (None, true) => vec![],
                        (d, false) => t.actions.iter().copied().chain(d).collect(),
                    };
                    Some(vec![
                        ("hit".into(), *hit, Some(t.actions.clone())),
                        ("miss".into(), *miss, Some(on_miss)),
                    ])
                }
                TableNext::ByAction { arms, default } => {
                    let mut v: Vec<Branch> = arms
                        .iter()
                        .map(|(act, n)| {
                            let label = format!("action {}", program.action(*act).name);
                            (label, *n, Some(vec![*act]))
                        })
                        .collect();
                    let rest: Vec<ActionId> = t
                        .actions
                        .iter()
                        .copied()
                        .chain(t.default_action)
                        .filter(|x| !arms.iter().any(|(a, _)| a == x))
                        .collect();
                    v.push(("default".into(), *default, Some(rest)));
                    Some(v)
                }
            }
        }
        NodeKind::Condition {
            then_next,
            else_next,
            ..
        } => Some(vec![
            ("true".into(), *then_next, None),
            ("false".into(), *else_next, None),
        ]),
        _ => None,
    }
}

/// Only the nearest controlling unit keeps a control edge: in structured
/// code the units controlling B are nested, and the latest of them is the
/// one whose outcome decides B (the compiler's next-table link).
fn keep_nearest_control(best: &mut BestEdges) {
    let mut nearest: HashMap<usize, usize> = HashMap::new();
    for (&(from, to, _), (_, kind, _)) in best.iter() {
        if *kind == DepKind::Control {
            let e = nearest.entry(to).or_insert(from);
            if from > *e {
                *e = from;
            }
        }
    }
    best.retain(|&(from, to, _), (_, kind, _)| {
        *kind != DepKind::Control || nearest.get(&to) == Some(&from)
    });
}

/// Longest chain of match dependencies (units are topologically ordered
/// by first node, and every edge goes forward in that order except for
/// re-applied tables, which the DP skips); `edges` sorted by (to, from).
fn longest_match_chain(nu: usize, edges: &[DepEdge]) -> Vec<usize> {
    let mut len = vec![1usize; nu];
    let mut prev: Vec<Option<usize>> = vec![None; nu];
    for e in edges {
        let field_match = e.kind == DepKind::Match && e.through == Through::Field;
        if field_match && e.from < e.to && len[e.from] + 1 > len[e.to] {
            len[e.to] = len[e.from] + 1;
            prev[e.to] = Some(e.from);
        }
    }
    let mut chain = Vec::new();
    if let Some((mut cur, _)) = len
        .iter()
        .enumerate()
        .max_by_key(|(i, l)| (**l, usize::MAX - i))
    {
        chain.push(cur);
        while let Some(p) = prev[cur] {
            chain.push(p);
            cur = p;
        }
        chain.reverse();
    }
    chain
}

/// The units with what the edges are computed from: reachability, the
/// outcomes of branching units, and indexes from fields to units.
struct Graph<'a> {
    program: &'a Program,
    shared: &'a SharedContainers,
    units: Vec<Unit>,
    words: usize,
    /// must[node], see [`must_sets`].
    must: Vec<Vec<u64>>,
    /// after[u] = units that can run after u.
    after: Vec<Vec<u64>>,
    outcomes: Vec<Vec<Outcome>>,
    writers: FieldIndex,
    match_readers: FieldIndex,
    action_readers: FieldIndex,
    /// [`Graph::first_killer`]'s cache, per (unit, outcome, field).
    killers: RefCell<HashMap<(usize, usize, String), Option<usize>>>,
}

impl<'a> Graph<'a> {
    fn new(
        program: &'a Program,
        flow: &p4cost_ir::ControlFlow,
        order: &[NodeId],
        units: Vec<Unit>,
        unit_of: Vec<Option<usize>>,
        shared: &'a SharedContainers,
        words: usize,
    ) -> Graph<'a> {
        let reach = reach_sets(flow, order, &unit_of, words);
        let must = must_sets(flow, order, &unit_of, words);
        let mut after: Vec<Vec<u64>> = vec![vec![0u64; words]; units.len()];
        for (u, unit) in units.iter().enumerate() {
            for &nid in unit.exits() {
                if let Some(r) = reach.get(nid.index()) {
                    or_into(&mut after[u], r);
                }
            }
        }
        let mut g = Graph {
            program,
            shared,
            units,
            words,
            must,
            after,
            outcomes: Vec::new(),
            writers: FieldIndex::default(),
            match_readers: FieldIndex::default(),
            action_readers: FieldIndex::default(),
            killers: RefCell::new(HashMap::new()),
        };
        g.index_fields();
        g.outcomes = g.outcomes_of(flow, &unit_of, &reach);
        g
    }

    /// Fills the field indexes (a field sharing a container is indexed
    /// under the container too).
    fn index_fields(&mut self) {
        for (u, unit) in self.units.iter().enumerate() {
            let lists = [
                (&unit.writes, &mut self.writers),
                (&unit.match_reads, &mut self.match_readers),
                (&unit.action_reads, &mut self.action_readers),
            ];
            for (fields, index) in lists {
                for f in fields {
                    index.add(f, u);
                    if let Some(k) = container_key(self.shared, f) {
                        index.add(&k, u);
                    }
                }
            }
        }
    }

    /// Outcomes of branching tables and gateways: which units each outcome
    /// leads to, and which of a table's actions can have run on it.
    fn outcomes_of(
        &self,
        flow: &p4cost_ir::ControlFlow,
        unit_of: &[Option<usize>],
        reach: &[Vec<u64>],
    ) -> Vec<Vec<Outcome>> {
        let words = self.words;
        let mut outcomes: Vec<Vec<Outcome>> = vec![Vec::new(); self.units.len()];
        for (a, unit) in self.units.iter().enumerate() {
            for &nid in &unit.nodes {
                let Some(list) = branches(self.program, flow.node(nid)) else {
                    continue;
                };
                for (label, next, actions) in list {
                    let mut always = vec![0u64; words];
                    let mut bits = vec![0u64; words];
                    if let Some(s) = next {
                        if let Some(m) = self.must.get(s.index()) {
                            or_into(&mut always, m);
                        }
                        if let Some(u) = unit_of.get(s.index()).copied().flatten() {
                            set(&mut always, u);
                            set(&mut bits, u);
                        }
                        if let Some(r) = reach.get(s.index()) {
                            or_into(&mut bits, r);
                        }
                    }
                    outcomes[a].push(Outcome {
                        label,
                        bits,
                        always,
                        actions,
                    });
                }
            }
        }
        outcomes
    }

    /// `a` precedes `b` when b can run after a and not (only) the other
    /// way round; a table applied both before and after another keeps its
    /// first position.
    fn precedes(&self, a: usize, b: usize) -> bool {
        a != b && get(&self.after[a], b) && (a < b || !get(&self.after[b], a))
    }

    /// How unit `a`, which writes `writes`, meets `f` (which the other
    /// unit writes when `write`, else reads).
    fn through(writes: &[String], f: &str, write: bool) -> Through {
        if writes.iter().any(|w| overlaps(w, f)) {
            Through::Field
        } else if write {
            Through::ContainerWrite
        } else {
            Through::ContainerRead
        }
    }

    /// Units touching `f` or its shared container.
    fn touching(&self, index: &FieldIndex, f: &str) -> Vec<usize> {
        let mut v = index.overlapping(f);
        if let Some(k) = container_key(self.shared, f) {
            for u in index.overlapping(&k) {
                if !v.contains(&u) {
                    v.push(u);
                }
            }
        }
        v
    }

    /// Whether what `a` writes to `field` can reach `b`: on a table that
    /// branches, only the actions of the outcomes leading to `b` count (a
    /// miss runs the default action only).
    fn writes_reaching(&self, a: usize, b: usize, field: &str) -> bool {
        let outs = &self.outcomes[a];
        let leading: Vec<&Outcome> = outs.iter().filter(|o| get(&o.bits, b)).collect();
        if outs.is_empty() || leading.len() == outs.len() {
            return true;
        }
        let shared = self.shared;
        leading.iter().any(|o| match &o.actions {
            None => true,
            Some(acts) => acts.iter().any(|x| {
                self.program.action(*x).writes.iter().any(|w| {
                    overlaps(w, field) || shared.of(w).is_some_and(|c| shared.of(field) == Some(c))
                })
            }),
        })
    }

    /// Units that run on every path after `a` (any outcome).
    fn must_after_unit(&self, a: usize) -> Vec<u64> {
        let mut bits = vec![u64::MAX; self.words];
        for &nid in self.units[a].exits() {
            let m = self.must.get(nid.index()).cloned().unwrap_or_default();
            for (i, b) in bits.iter_mut().enumerate() {
                *b &= m.get(i).copied().unwrap_or(0);
            }
        }
        bits
    }

    /// True when unit `b` writes `field` whatever it does: every action of
    /// a table (its default included), or a statement run.
    fn always_writes(&self, b: usize, field: &str) -> bool {
        let covers = |w: &String| covers(w, field);
        match &self.units[b].kind {
            UnitKind::Gateway => false,
            UnitKind::Statements => self.units[b].writes.iter().any(covers),
            UnitKind::Table { table } => {
                // With no default action declared, a miss runs NoAction.
                let t = self.program.table(*table);
                t.default_action.is_some()
                    && t.actions
                        .iter()
                        .chain(t.default_action.iter())
                        .all(|x| self.program.action(*x).writes.iter().any(covers))
            }
        }
    }

    /// The first unit after `a` (on outcome `oi`, `usize::MAX` for any)
    /// that always writes `field` and runs on every such path. Units that
    /// run on every path after `a` are ordered along each path, so the
    /// first is the one that kills `a`'s write, if any does. Cached per
    /// (a, oi, field): each write is looked at once.
    fn first_killer(&self, a: usize, oi: usize, field: &str) -> Option<usize> {
        let key = (a, oi, field.to_string());
        if let Some(k) = self.killers.borrow().get(&key) {
            return *k;
        }
        let must_bits = if oi == usize::MAX {
            self.must_after_unit(a)
        } else {
            self.outcomes[a][oi].always.clone()
        };
        let k = self
            .writers
            .overlapping(field)
            .into_iter()
            .filter(|&b| b != a && get(&must_bits, b) && self.always_writes(b, field))
            .min();
        self.killers.borrow_mut().insert(key, k);
        k
    }

    /// True when what `a` writes to `field` is dead on its way to `c`: a
    /// unit that always rewrites the field runs on every path after `a`'s
    /// outcomes that lead to `c`, and before `c` (or is `c`, for a
    /// write-write pair). The compiler removes such writes, so they make
    /// no dependency.
    fn killed(&self, a: usize, c: usize, field: &str, c_may_kill: bool) -> bool {
        // Only a write of this very field is killed (a field sharing its
        // container is another field).
        if !self.units[a].writes.iter().any(|w| overlaps(w, field)) {
            return false;
        }
        let outs = &self.outcomes[a];
        let leading: Vec<usize> = if outs.is_empty() {
            vec![usize::MAX]
        } else {
            (0..outs.len()).filter(|&i| get(&outs[i].bits, c)).collect()
        };
        !leading.is_empty()
            && leading
                .iter()
                .all(|&oi| match self.first_killer(a, oi, field) {
                    Some(k) if k == c => c_may_kill,
                    Some(k) => self.precedes(k, c),
                    None => false,
                })
    }

    /// Match, action and reverse-read edges. Pairs looked at are bounded
    /// by `max_pairs`, so that a control where thousands of units touch
    /// one field ends with an error (`Err(pairs)`) instead of running for
    /// minutes.
    fn data_edges(&self, best: &mut BestEdges, max_pairs: u64) -> Result<(), u64> {
        let mut checks: u64 = 0;
        for (b, unit) in self.units.iter().enumerate() {
            // Earlier writers of what `b` reads at its match, reads in its
            // actions, or writes (write-write: `b`'s own write may kill).
            let uses = [
                (&unit.match_reads, DepKind::Match, false),
                (&unit.action_reads, DepKind::Action, false),
                (&unit.writes, DepKind::Action, true),
            ];
            for (fields, kind, b_may_kill) in uses {
                for f in fields {
                    let ws = self.touching(&self.writers, f);
                    checks += ws.len() as u64;
                    if checks > max_pairs {
                        return Err(checks);
                    }
                    for a in ws {
                        if self.precedes(a, b)
                            && self.writes_reaching(a, b, f)
                            && !self.killed(a, b, f, b_may_kill)
                        {
                            let through = Graph::through(&self.units[a].writes, f, b_may_kill);
                            offer(best, a, b, (through, kind), f);
                        }
                    }
                }
            }
            for w in &unit.writes {
                for a in self
                    .touching(&self.match_readers, w)
                    .into_iter()
                    .chain(self.touching(&self.action_readers, w))
                {
                    if self.precedes(a, b) {
                        let u = &self.units[a];
                        let reads = u.match_reads.iter().chain(&u.action_reads);
                        let through = if reads.clone().any(|r| overlaps(r, w)) {
                            Through::Field
                        } else {
                            Through::ContainerRead
                        };
                        offer(best, a, b, (through, DepKind::ReverseRead), w);
                    }
                }
            }
        }
        Ok(())
    }

    /// Control edges: units reached from some but not all outcomes.
    fn control_edges(&self, best: &mut BestEdges) {
        let nu = self.units.len();
        for (a, outs) in self.outcomes.iter().enumerate() {
            if outs.is_empty() {
                continue;
            }
            let mut all = vec![u64::MAX; self.words];
            for o in outs {
                for (b, x) in all.iter_mut().zip(&o.bits) {
                    *b &= x;
                }
            }
            for o in outs {
                // Set bits of (reached on this outcome) and not (on all).
                for (w, (&x, &y)) in o.bits.iter().zip(&all).enumerate() {
                    let mut word = x & !y;
                    while word != 0 {
                        let b = w * 64 + word.trailing_zeros() as usize;
                        word &= word - 1;
                        if b < nu && self.precedes(a, b) {
                            offer(best, a, b, (Through::Field, DepKind::Control), &o.label);
                        }
                    }
                }
            }
        }
    }
}

/// The index key of a field's shared container, if it has one.
fn container_key(shared: &SharedContainers, f: &str) -> Option<String> {
    shared.of(f).map(|c| format!("$container:{c}"))
}

/// A name for a statement run: `tbl_<action>` for one direct action call
/// (as p4c names it), else the statements' descriptions.
fn statements_name(what: &[String]) -> String {
    match what {
        [one] => format!("tbl_{}", one.replace(' ', "_")),
        many => format!(
            "tbl_{}_and_{}_more",
            many[0].replace(' ', "_"),
            many.len() - 1
        ),
    }
}

/// A node's successors that are nodes (the end of the control left out).
fn placed_successors(node: &p4cost_ir::Node) -> Vec<NodeId> {
    node.successors().into_iter().flatten().collect()
}

fn single_next(node: &p4cost_ir::Node) -> Option<NodeId> {
    match &node.kind {
        NodeKind::Action { next, .. } | NodeKind::Statement { next, .. } => *next,
        _ => None,
    }
}

/// Reachable nodes from the entry in a topological order (iterative DFS
/// post-order, reversed).
fn topo_order(program: &Program, control: ControlId) -> Vec<NodeId> {
    let flow = &program.control(control).flow;
    let n = flow.nodes.len();
    let mut state = vec![0u8; n]; // 0 new, 1 on stack, 2 done
    let mut post = Vec::with_capacity(n);
    let mut stack: Vec<(NodeId, bool)> = flow.entry.into_iter().map(|e| (e, false)).collect();
    while let Some((id, expanded)) = stack.pop() {
        let i = id.index();
        if i >= n {
            continue;
        }
        if expanded {
            if state[i] != 2 {
                state[i] = 2;
                post.push(id);
            }
            continue;
        }
        if state[i] != 0 {
            continue;
        }
        state[i] = 1;
        stack.push((id, true));
        for s in placed_successors(flow.node(id)).into_iter().rev() {
            if s.index() < n && state[s.index()] == 0 {
                stack.push((s, false));
            }
        }
    }
    post.reverse();
    post
}

fn set(bits: &mut [u64], i: usize) {
    if let Some(w) = bits.get_mut(i / 64) {
        *w |= 1 << (i % 64);
    }
}

fn get(bits: &[u64], i: usize) -> bool {
    bits.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
}

/// One outcome of a branching unit.
#[derive(Clone)]
struct Outcome {
    label: String,
    /// Units reachable on this outcome.
    bits: Vec<u64>,
    /// Units that run on every path of this outcome.
    always: Vec<u64>,
    /// Actions of the table that can have run (`None`: not a table).
    actions: Option<Vec<ActionId>>,
}

/// True when one name is the other or a prefix of it at a `.`/`[`
/// boundary.
fn overlaps(x: &str, y: &str) -> bool {
    covers(x, y) || covers(y, x)
}

/// True when `field` is `whole` or a part of it (`whole` followed by a
/// `.`/`[` boundary).
fn covers(whole: &str, field: &str) -> bool {
    field.starts_with(whole)
        && (field.len() == whole.len() || matches!(field.as_bytes()[whole.len()], b'.' | b'['))
}

/// Names in first-seen order, deduplicated.
#[derive(Default)]
struct Names(Vec<String>, std::collections::HashSet<String>);

impl Names {
    fn push(&mut self, s: String) {
        if self.1.insert(s.clone()) {
            self.0.push(s);
        }
    }
}

/// Units by the names they touch, and by every prefix of those names.
#[derive(Default)]
struct FieldIndex {
    exact: HashMap<String, Vec<usize>>,
    under: HashMap<String, Vec<usize>>,
}

impl FieldIndex {
    fn add(&mut self, name: &str, u: usize) {
        push_unique(self.exact.entry(name.to_string()).or_default(), u);
        for p in prefixes(name) {
            push_unique(self.under.entry(p.to_string()).or_default(), u);
        }
    }

    /// Units touching `name`, a prefix of it, or something under it.
    fn overlapping(&self, name: &str) -> Vec<usize> {
        let mut out = Vec::new();
        let mut add = |v: Option<&Vec<usize>>| {
            for &u in v.into_iter().flatten() {
                if !out.contains(&u) {
                    out.push(u);
                }
            }
        };
        add(self.exact.get(name));
        add(self.under.get(name));
        for p in prefixes(name) {
            add(self.exact.get(p));
        }
        out
    }
}

fn push_unique(v: &mut Vec<usize>, u: usize) {
    if v.last() != Some(&u) {
        v.push(u);
    }
}

/// Proper prefixes of a name at `.`/`[` boundaries (`hdr.a[0].b` ->
/// `hdr`, `hdr.a`, `hdr.a[0]`).
fn prefixes(name: &str) -> impl Iterator<Item = &str> {
    name.char_indices()
        .filter(|(i, c)| *i > 0 && (*c == '.' || *c == '['))
        .map(move |(i, _)| &name[..i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intrinsic_flags_share_a_container_and_header_fields_do_not() {
        let shared = SharedContainers(vec![
            (".$valid".into(), "validity".into()),
            (".bypass_egress".into(), "flags".into()),
        ]);
        assert_eq!(shared.of("hdr.ipv4.$valid"), Some("validity"));
        assert_eq!(shared.of("ig_tm_md.bypass_egress"), Some("flags"));
        // A bridged header's field of the same name is not the TM flag
        // (switch_tofino_x1's add_bridged_md and ingress_copp).
        assert_eq!(shared.of("hdr.bridged_md.base.bypass_egress"), None);
        assert_eq!(shared.of("local_md.flags.bypass_egress"), None);
        assert_eq!(shared.of("hdr.stack[0].bypass_egress"), None);
        assert_eq!(shared.of("bypass_egress"), None);
        assert_eq!(shared.of("ig_tm_md.no_bypass_egress"), None);
    }

    #[test]
    fn a_container_only_links_writers_or_readers() {
        let w = |f: &[&str]| f.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let tag = w(&["hdr.vlan.$valid", "hdr.vlan.vid"]);
        assert_eq!(Graph::through(&tag, "hdr.vlan.vid", false), Through::Field);
        assert_eq!(
            Graph::through(&tag, "hdr.ipv4.$valid", false),
            Through::ContainerRead
        );
        assert_eq!(
            Graph::through(&tag, "hdr.ipv4.$valid", true),
            Through::ContainerWrite
        );
        // A container read keeps its own slot beside a weaker placing edge.
        let mut best = BestEdges::new();
        offer(&mut best, 0, 1, (Through::Field, DepKind::Control), "hit");
        offer(
            &mut best,
            0,
            1,
            (Through::ContainerRead, DepKind::Match),
            "h.$valid",
        );
        offer(
            &mut best,
            0,
            1,
            (Through::ContainerWrite, DepKind::Action),
            "g.$valid",
        );
        assert_eq!(best[&(0, 1, false)].1, DepKind::Action);
        assert_eq!(best[&(0, 1, true)].1, DepKind::Match);
    }

    #[test]
    fn prefixes_split_at_members_and_indexes() {
        let p: Vec<&str> = prefixes("hdr.a[0].b").collect();
        assert_eq!(p, vec!["hdr", "hdr.a", "hdr.a[0]"]);
    }

    #[test]
    fn overlap_covers_prefixes_both_ways() {
        let mut f = FieldIndex::default();
        f.add("hdr.ipv4", 0);
        f.add("hdr.ipv4.ttl", 1);
        f.add("meta.x", 2);
        let mut v = f.overlapping("hdr.ipv4.ttl");
        v.sort();
        assert_eq!(v, vec![0, 1]);
        let mut v = f.overlapping("hdr.ipv4");
        v.sort();
        assert_eq!(v, vec![0, 1]);
        assert_eq!(f.overlapping("hdr.ipv4.$valid"), vec![0]);
        assert!(f.overlapping("meta.xy").is_empty());
    }
}
