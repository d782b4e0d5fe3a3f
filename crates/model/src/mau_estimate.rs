//! The `tofino_mau_estimate` engine (docs/models.md, Tofino stage placement
//! estimate): places a program's tables, gateways and apply-block
//! statements into MAU stages from its dependency graph, decides each
//! stage's dependency on the one before, and hands the resulting per-stage
//! figures to the one MAU cycle computation ([`crate::mau_cycles`]).
//!
//! Placement: of the units whose predecessors are placed, the one that
//! goes to the lowest stage, then the one with the longest chain below
//! it, then control-flow order (the compiler's work list, stage by
//! stage); a unit goes to the first stage at or after every earlier unit
//! it depends on (one stage later for match, action and write-write
//! dependencies, the same stage allowed for control and write-after-read
//! ones) whose remaining resources hold it; a table whose entries do not
//! fit in one stage's memories continues in the next stages, unless a
//! later stage holds it whole no later than its parts would end, or it
//! cannot be split (an indirect meter or register on Tofino 1). Every
//! number comes from the model file's `placement` and `mau_cycles`
//! sections.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use serde::Serialize;

use p4cost_analysis::deps::{self, DepGraph, DepKind, SharedContainers, Through, UnitKind};
use p4cost_ir::{ControlId, ExternKind, ExternUse, Gress, MauPlacement, MauStage, Program};

use crate::placement_why::{TakenBy, Trace};
use crate::spec::{MauCycles, ModelSpec, Placement};
use crate::ModelError;

mod alpm;
mod memory;
mod overflow;
pub mod resources;
mod usage;

use memory::{
    does_not_fit, fits, larger_than_a_stage, selector_of, take, unit_needs, Fit, Full, Needs, Used,
};
pub use memory::{table_match_blocks, StageMemory};
pub use overflow::{stage_ranges, FullStages};

/// How a stage depends on the stage before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StageDep {
    /// Waits for the previous stage's match result (stage 0 too).
    Match,
    /// Waits for the previous stage's action result.
    Action,
    /// Runs alongside the previous stage.
    Concurrent,
}

/// One estimated stage of one gress.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct StagePlan {
    /// Stage number.
    pub stage: u32,
    /// Units placed in it (tables, gateways `if (...)`, statement tables
    /// `tbl_...`); a table continued from an earlier stage is listed in
    /// each.
    pub units: Vec<String>,
    /// What of `units` the compiler lists as a stage's tables: the
    /// program's tables and statement tables, not the gateways it merges
    /// into them (the stage records' `tables`, as in context.json).
    #[serde(skip)]
    #[schemars(skip)]
    pub tables: Vec<String>,
    /// Its dependency on the previous stage.
    pub dependency: StageDep,
    /// Why (the unit and field that made it match or action dependent,
    /// `forced by the hardware`, `egress minimum latency`).
    pub reason: String,
}

/// The estimate for one gress.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct GressPlan {
    /// The gress.
    pub gress: Gress,
    /// The control placed.
    pub control: String,
    /// Every stage of the chip, in order.
    pub stages: Vec<StagePlan>,
    /// The chain of dependencies that reaches the last used stage.
    pub chain: Vec<String>,
    /// Resource limits that moved a unit to a later stage.
    pub limits_hit: Vec<String>,
    /// Per unit of `graph`, its stages and why it is not earlier
    /// (`stages --explain`).
    #[serde(skip)]
    #[schemars(skip)]
    pub why: Vec<crate::placement_why::UnitPlace>,
    /// What each stage holds that lengthens it.
    #[serde(skip)]
    features: Vec<Features>,
    /// The dependency graph placed (its units are what `unit_stages` and
    /// `chain_units` index).
    #[serde(skip)]
    #[schemars(skip)]
    pub graph: Option<DepGraph>,
    /// Per unit of `graph`, the first and last stage it occupies.
    #[serde(skip)]
    #[schemars(skip)]
    pub unit_stages: Vec<(u32, u32)>,
    /// `chain` as indexes into `graph.units`.
    #[serde(skip)]
    #[schemars(skip)]
    pub chain_units: Vec<usize>,
    /// Per unit of `graph`, the memory blocks the estimate gave it in each
    /// stage it occupies (a table split over stages has several).
    #[serde(skip)]
    #[schemars(skip)]
    pub unit_memory: Vec<Vec<StageMemory>>,
    /// Per stage of the chip, the blocks its units use in all.
    #[serde(skip)]
    #[schemars(skip)]
    pub stage_memory: Vec<StageMemory>,
    /// What one stage of the chip holds: SRAM and TCAM blocks.
    #[serde(skip)]
    #[schemars(skip)]
    pub stage_capacity: StageMemory,
}

/// The estimate for one pipeline.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct PipelinePlan {
    /// Ingress, then egress.
    pub gresses: Vec<GressPlan>,
}

/// What a unit adds to its stage's length.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Features {
    tcam: bool,
    wide_selector: bool,
    selector: bool,
    divide: bool,
    stateful: bool,
}

impl Features {
    /// Adds what `other` holds.
    fn merge(&mut self, other: Features) {
        self.tcam |= other.tcam;
        self.wide_selector |= other.wide_selector;
        self.selector |= other.selector;
        self.divide |= other.divide;
        self.stateful |= other.stateful;
    }
}

/// The cycle model's figures for the estimated placement of `controls`:
/// [`estimate`], then [`crate::mau_cycles::predict_with`] on its stage
/// records, each stage listing the tables the plan put in it (as the
/// compiler's placement lists them: gateways are not tables), with the plan
/// itself.
pub fn predict(
    model: &ModelSpec,
    program: &Program,
    controls: &[(Gress, ControlId)],
    limits: &deps::DepLimits,
    clock_ghz: Option<f64>,
) -> Result<(PipelinePlan, crate::mau_cycles::MauPrediction), ModelError> {
    let (plan, placement) = estimate(model, program, controls, limits)?;
    let mut mp = crate::mau_cycles::predict_with(model, program, &placement, clock_ghz)?;
    for g in &mut mp.gresses {
        let Some(gp) = plan.gresses.iter().find(|p| p.gress == g.gress) else {
            continue;
        };
        for s in &mut g.stages {
            if let Some(sp) = gp
                .stages
                .iter()
                .find(|x| i64::from(x.stage) == i64::from(s.stage))
            {
                s.tables = sp.tables.clone();
            }
        }
    }
    Ok((plan, mp))
}

/// Estimates the placement of every gress of `pipeline`'s controls and
/// returns it with the stage records the cycle model sums.
pub fn estimate(
    model: &ModelSpec,
    program: &Program,
    controls: &[(Gress, ControlId)],
    limits: &deps::DepLimits,
) -> Result<(PipelinePlan, MauPlacement), ModelError> {
    let (Some(m), Some(p)) = (model.mau(), model.placement()) else {
        return Err(ModelError::NotApplicable {
            model: model.name.clone(),
            message: format!(
                "it is of kind {}, not tofino_mau_estimate",
                model.kind.name()
            ),
        });
    };
    let shared = SharedContainers(
        p.shared_containers
            .iter()
            .map(|[s, c]| (s.clone(), c.clone()))
            .collect(),
    );
    let cx = Cx {
        model,
        m,
        p,
        program,
        sram: SramCount::All,
    };
    let mut graphs = Vec::new();
    for &(_, control) in controls {
        let graph =
            deps::dependency_graph_with(program, control, limits, &shared).map_err(|e| {
                ModelError::NotApplicable {
                    model: model.name.clone(),
                    message: format!("control `{}`: {e}", program.control(control).name),
                }
            })?;
        graphs.push(graph);
    }
    let plans = place_or_pack_match(cx, controls, &graphs)?;
    let mut gresses = Vec::new();
    let mut records = Vec::new();
    for (mut plan, graph) in plans.into_iter().zip(graphs) {
        plan.graph = Some(graph);
        let recs = stage_records(m, p, plan.gress, &plan);
        // Stages the egress minimum made match dependent.
        for (sp, r) in plan.stages.iter_mut().zip(&recs) {
            if r.match_dependent && sp.dependency != StageDep::Match {
                sp.dependency = StageDep::Match;
                sp.reason = "egress minimum latency: the assembler pads egress".to_string();
            }
        }
        records.extend(recs);
        gresses.push(plan);
    }
    Ok((
        PipelinePlan { gresses },
        MauPlacement {
            stages: records,
            estimated: true,
            target: m.context_target.clone(),
        },
    ))
}

/// A part of a unit placed by [`fill`]: its first and last stage.
struct Filled {
    first: u32,
    last: u32,
}

/// Where [`fill`] records what a unit's placement did: the last stage
/// it was moved past (`full`), the `resource limit` lines, the unit's
/// parts, and its gress's share of each stage (`own`).
struct Sink<'a> {
    full: &'a mut Option<(u32, &'static str)>,
    limits_hit: &'a mut Vec<String>,
    memory: &'a mut Vec<StageMemory>,
    own: &'a mut [Used],
}

/// Why a unit's first part is not in a stage its dependencies allow.
#[derive(Clone, Copy)]
enum Passed {
    /// The stage lacks `Full` for any part of it.
    Full(Full),
    /// The stage holds a part only, and the unit stays in one stage.
    OneStage(Full),
    /// The stage holds a part only, and the whole unit fits a later stage
    /// that the parts split from here would reach anyway.
    Deferred(Full, u32),
}

impl Passed {
    /// What the stage lacked.
    fn lacked(self) -> Full {
        match self {
            Passed::Full(f) | Passed::OneStage(f) | Passed::Deferred(f, _) => f,
        }
    }
}

/// The stage of a unit's first part from `from` on (`used.len()` when
/// none holds it), calling `passed` for each stage passed over, as bf-p4c
/// decides stage by stage (`TablePlacement::try_place_table`): a stage
/// that holds all its entries takes them; one that holds only a part
/// takes it (the compiler's `need_more` split) unless the unit cannot be
/// split (`one_stage`) or a later stage holds it whole no later than the
/// split's last part would be placed: the compiler prefers a placement
/// that is not `need_more` (`DecidePlacement::is_better`, `NEED_MORE`;
/// its backtracking keeps, per stage, a whole placement over a split
/// one), and the tables after it wait for its last part either way.
fn first_stage(
    p: &Placement,
    used: &[Used],
    need: &Needs,
    from: u32,
    passed: &mut dyn FnMut(u32, Passed),
) -> u32 {
    let all = need.entries.max(1);
    let mut s = from;
    while let Some(st) = used.get(s as usize) {
        let lacked = match fits(p, st, need, all, true) {
            Fit::No(what) => Passed::Full(what),
            Fit::Part(t) => match t.limited_by {
                None => return s,
                Some(what) if need.one_stage => Passed::OneStage(what),
                Some(what) => match whole_before_split_ends(p, used, need, s) {
                    Some(w) => Passed::Deferred(what, w),
                    None => return s,
                },
            },
        };
        passed(s, lacked);
        s += 1;
    }
    s
}

/// The first stage after `s` that holds all of `need`'s entries, when it
/// is no later than the last part of `need` split over the stages from
/// `s` on would be.
fn whole_before_split_ends(p: &Placement, used: &[Used], need: &Needs, s: u32) -> Option<u32> {
    let all = need.entries.max(1);
    let mut left = all;
    let mut first = true;
    let mut at = s;
    while let Some(st) = used.get(at as usize) {
        if at > s && matches!(fits(p, st, need, all, true), Fit::Part(t) if t.limited_by.is_none())
        {
            return Some(at);
        }
        if let Fit::Part(t) = fits(p, st, need, left, first) {
            first = false;
            left = left.saturating_sub(t.entries);
            if left == 0 {
                return None;
            }
        }
        at += 1;
    }
    None
}

/// Places `need` in the stages from `from` on: its first part where
/// [`first_stage`] says, then a part per stage until its entries are
/// placed; records the stages passed over before its first part (`full`,
/// `limits_hit`). `Err(stage)`: it runs past the chip.
fn fill(
    p: &Placement,
    n_stages: u32,
    used: &mut [Used],
    need: &Needs,
    from: u32,
    name: &str,
    sink: Sink<'_>,
) -> Result<Filled, u32> {
    let Sink {
        full,
        limits_hit,
        memory,
        own,
    } = sink;
    let mut passed = Vec::new();
    let mut s = first_stage(p, used, need, from, &mut |s, why| passed.push((s, why)));
    for (at, why) in passed {
        if let Some(st) = used.get_mut(at as usize) {
            st.lacked(why.lacked());
        }
        let what = why.lacked().sentence();
        *full = Some((at, what));
        limits_hit.push(match why {
            Passed::Full(_) => format!("{name} moved past stage {at}: {what}"),
            Passed::OneStage(_) => format!(
                "{name} moved past stage {at}: {what} (its indirect meter or register keeps it \
                 in one stage)"
            ),
            Passed::Deferred(_, w) => format!(
                "{name} moved past stage {at}: {what} (it fits whole in stage {w}, no later \
                 than its parts split from stage {at} would end)"
            ),
        });
    }
    let mut left = need.entries.max(1);
    let mut first = None;
    loop {
        let Some(st) = used.get_mut(s as usize) else {
            return Err(s);
        };
        match fits(p, st, need, left, first.is_none()) {
            Fit::No(what) => {
                st.lacked(what);
                if s > from + n_stages {
                    return Err(s);
                }
                s += 1;
            }
            Fit::Part(t) => {
                take(st, need, &t);
                if let Some(o) = own.get_mut(s as usize) {
                    take(o, need, &t);
                }
                if let Some(what) = t.limited_by {
                    st.lacked(what);
                }
                memory.push(StageMemory {
                    stage: s,
                    sram: t.sram,
                    tcam: t.tcam,
                    entries: t.entries,
                });
                first.get_or_insert(s);
                left = left.saturating_sub(t.entries);
                if left == 0 {
                    break;
                }
                s += 1;
            }
        }
    }
    Ok(Filled {
        first: first.unwrap_or(s),
        last: s,
    })
}

/// The earliest stage a unit's placed predecessors (`incoming`, edges
/// into it) allow, with the predecessor and edge that set it.
fn earliest_stage(
    graph: &DepGraph,
    incoming: &[usize],
    span: &[(u32, u32)],
) -> (u32, Option<(usize, usize)>) {
    let mut earliest = 0u32;
    let mut by = None;
    for &i in incoming {
        let (a, kind) = (graph.edges[i].from, graph.edges[i].kind);
        let at = match kind {
            DepKind::Match | DepKind::Action => span[a].1 + 1,
            DepKind::Control | DepKind::ReverseRead => span[a].0,
        };
        if at > earliest || (at == earliest && by.is_none() && at > 0) {
            earliest = at;
            by = Some((a, i));
        }
    }
    (earliest, by)
}

/// What a unit needs: one part, or an ALPM table's pre-classifier and
/// ATCAM partitions (placed one after the other, match dependent).
enum UnitNeed {
    One(Needs),
    Alpm(alpm::AlpmSplit),
}

impl UnitNeed {
    /// Leaves out of its SRAM what `count` says.
    fn count_sram(&mut self, count: SramCount) {
        let strip = |n: &mut Needs| match count {
            SramCount::All => {}
            SramCount::NoDirectCells => n.direct_sram_out = true,
            SramCount::MatchOnly => {
                n.action_bits = 0;
                n.cells = Default::default();
            }
        };
        match self {
            UnitNeed::One(n) => strip(n),
            UnitNeed::Alpm(split) => {
                strip(&mut split.pre);
                strip(&mut split.atcam);
            }
        }
    }
}

fn unit_need(p: &Placement, program: &Program, u: &deps::Unit) -> UnitNeed {
    let one = unit_needs(p, program, u);
    if let UnitKind::Table { table } = &u.kind {
        if let Some(mut split) = alpm::split(p, program, program.table(*table), one.entries) {
            // Its meter ALUs, action data and counters go with the
            // ATCAM's result.
            split.atcam.meter_alus = one.meter_alus;
            split.atcam.stats_alus = one.stats_alus;
            split.atcam.action_bits = one.action_bits;
            split.atcam.cells = one.cells;
            split.atcam.one_stage = one.one_stage;
            return UnitNeed::Alpm(split);
        }
    }
    UnitNeed::One(one)
}

/// What every placement step reads: the model, its two sections and the
/// program.
#[derive(Clone, Copy)]
struct Cx<'a> {
    model: &'a ModelSpec,
    m: &'a MauCycles,
    p: &'a Placement,
    program: &'a Program,
    /// What a stage's SRAM fullness counts (see [`place_or_pack_match`]).
    sram: SramCount,
}

/// What a stage's SRAM fullness counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SramCount {
    /// Match entries, action data, counters, meters and registers.
    All,
    /// All but the SRAM of direct counters, meters and registers (their
    /// map RAMs stay).
    NoDirectCells,
    /// Match entries only.
    MatchOnly,
}

/// One control's placement in progress: its units, what each needs, and
/// where the units placed so far went.
struct GressState<'g> {
    gress: Gress,
    control: ControlId,
    graph: &'g DepGraph,
    needs: Vec<UnitNeed>,
    /// Edges into each unit from earlier units (indexes into
    /// `graph.edges`), those that place it: not [`Through::ContainerRead`].
    incoming: Vec<Vec<usize>>,
    /// Edges into each unit that only read a container an earlier unit
    /// wrote: they make its stage match or action dependent (the
    /// assembler compares containers), they do not move it.
    container_reads: Vec<Vec<usize>>,
    /// Per unit, the stages it occupies (first..=last).
    span: Vec<(u32, u32)>,
    /// Per unit, the predecessor that set its earliest stage.
    why_stage: Vec<Option<usize>>,
    trace: Trace,
    limits_hit: Vec<String>,
    /// Per unit, its blocks in each stage it occupies.
    memory: Vec<Vec<StageMemory>>,
    /// Per ALPM unit, its pre-classifier's stage and the ATCAM's first.
    alpm_at: Vec<Option<(u32, u32)>>,
    /// The units whose predecessors are all placed, the next to place
    /// first: the lowest stage it goes to (a lower bound kept up to date
    /// by [`Self::settle`]), then the longest chain of dependencies below
    /// it, then control-flow order.
    ready: BinaryHeap<Reverse<(u32, Reverse<u32>, usize)>>,
    /// Per unit, how many of the edges into it come from units not yet
    /// placed.
    waiting: Vec<u32>,
    /// Per unit, the units its edges go to.
    outgoing: Vec<Vec<usize>>,
    /// The unit placed last.
    last: usize,
    /// Per unit, the match and action dependencies in the longest chain
    /// of them below it: how many stages at least follow it.
    below: Vec<u32>,
    /// Per stage, what this gress's units take of it (`used` holds every
    /// gress's).
    own: Vec<Used>,
    /// Past the chip: by a chain of dependencies (the error at once), or
    /// by stages that filled up (the error once every unit is placed).
    watch: overflow::Watch,
    /// A unit was placed past the chip's last stage, not by its chain.
    past: bool,
    /// Per unit, true for a gateway that merges into a table it controls
    /// and is not placed yet: the first of those tables placed takes it
    /// in its first stage ([`merged_gateways`]).
    gw_pending: Vec<bool>,
}

impl<'g> GressState<'g> {
    fn new(cx: Cx<'_>, gress: Gress, control: ControlId, graph: &'g DepGraph) -> Self {
        let nu = graph.units.len();
        let merges = merged_gateways(graph);
        let needs = graph
            .units
            .iter()
            .zip(&merges)
            .map(|(u, &merged)| {
                if merged {
                    // It takes its gateway row with the table it merges into.
                    return UnitNeed::One(Needs::default());
                }
                let mut need = unit_need(cx.p, cx.program, u);
                need.count_sram(cx.sram);
                need
            })
            .collect();
        let mut incoming: Vec<Vec<usize>> = vec![Vec::new(); nu];
        let mut container_reads: Vec<Vec<usize>> = vec![Vec::new(); nu];
        let mut outgoing: Vec<Vec<usize>> = vec![Vec::new(); nu];
        for (i, e) in graph.edges.iter().enumerate() {
            if e.from < e.to && e.through == Through::ContainerRead {
                container_reads[e.to].push(i);
            } else if e.from < e.to {
                incoming[e.to].push(i);
                outgoing[e.from].push(e.to);
            }
        }
        let below = chain_below(graph);
        let waiting: Vec<u32> = incoming.iter().map(|i| i.len() as u32).collect();
        let ready = (0..nu)
            .filter(|&u| waiting[u] == 0)
            .map(|u| Reverse((0, Reverse(below[u]), u)))
            .collect();
        GressState {
            gress,
            control,
            graph,
            needs,
            incoming,
            container_reads,
            span: vec![(0, 0); nu],
            why_stage: vec![None; nu],
            trace: Trace::new(nu),
            limits_hit: Vec::new(),
            memory: vec![Vec::new(); nu],
            alpm_at: vec![None; nu],
            ready,
            waiting,
            outgoing,
            last: 0,
            below,
            own: vec![Used::default(); cx.m.stages as usize + 64],
            watch: overflow::Watch::default(),
            past: false,
            gw_pending: merges,
        }
    }

    /// The gateway that controls unit `u` and merges into it, when not
    /// placed yet (at most one: a unit keeps the control edge of its
    /// nearest controlling unit only).
    fn pending_gateway(&self, u: usize) -> Option<usize> {
        self.incoming[u]
            .iter()
            .map(|&i| &self.graph.edges[i])
            .filter(|e| e.kind == DepKind::Control)
            .map(|e| e.from)
            .find(|&g| self.gw_pending[g])
    }

    /// `need` with the gateway of [`Self::pending_gateway`] added.
    fn with_gateway(&self, u: usize, need: &Needs) -> Needs {
        let mut need = need.clone();
        need.gateway += u32::from(self.pending_gateway(u).is_some());
        need
    }

    /// Places the gateway merging into unit `u` (placed) in `u`'s first
    /// stage: `TablePlacement::gateway_merge` puts a gateway in the stage
    /// of the table it merges with; the row was taken with `u`'s first
    /// part.
    fn merge_gateway(&mut self, u: usize) {
        let Some(g) = self.pending_gateway(u) else {
            return;
        };
        self.gw_pending[g] = false;
        let at = self.span[u].0;
        if at > self.span[g].0 {
            self.trace.with[g] = Some(u);
        }
        self.span[g] = (at, at);
    }

    /// True when every unit is placed.
    fn done(&self) -> bool {
        self.ready.is_empty()
    }

    /// The unit to place next (see `ready`).
    fn next(&self) -> usize {
        self.ready.peek().map_or(0, |Reverse((_, _, u))| *u)
    }

    /// Places the next unit, adding what it takes to `own`, and makes
    /// ready the units that waited only for it.
    fn place_next(&mut self, cx: Cx<'_>, used: &mut [Used]) -> Result<(), ModelError> {
        let Some(Reverse((_, _, u))) = self.ready.pop() else {
            return Ok(());
        };
        self.place_unit(cx, used, u)?;
        self.last = u;
        for i in 0..self.outgoing[u].len() {
            let v = self.outgoing[u][i];
            self.waiting[v] -= 1;
            if self.waiting[v] == 0 {
                let (earliest, _) = earliest_stage(self.graph, &self.incoming[v], &self.span);
                self.ready
                    .push(Reverse((earliest, Reverse(self.below[v]), v)));
            }
        }
        Ok(())
    }

    /// Brings the next unit's key up to date: a ready unit is keyed by the
    /// stage it would take when it became ready, and stages only fill
    /// up, so a key is a lower bound of the unit's stage. The top unit's
    /// stage in `used` is computed again and, when later than its key,
    /// it goes back with that stage, until the top's key is its stage:
    /// the next unit is then the one that goes to the lowest stage now,
    /// then the one with the longest chain below it (bf-p4c decides stage
    /// by stage: of the tables it can place in the current stage, the
    /// most critical first, `DecidePlacement::is_better`).
    fn settle(&mut self, cx: Cx<'_>, used: &[Used]) {
        while let Some(&Reverse((key, below, u))) = self.ready.peek() {
            let at = self.stage_of(cx, used, u);
            if at <= key {
                return;
            }
            self.ready.pop();
            self.ready.push(Reverse((at, below, u)));
        }
    }

    /// The stage the next unit goes to, once [`Self::settle`]d.
    fn next_stage(&self) -> u32 {
        self.ready.peek().map_or(0, |Reverse((at, _, _))| *at)
    }

    /// The first stage unit `u` (ready) would take in `used` (its
    /// earliest stage for a gateway, which takes nothing until its tables
    /// are placed).
    fn stage_of(&self, cx: Cx<'_>, used: &[Used], u: usize) -> u32 {
        let (earliest, _) = earliest_stage(self.graph, &self.incoming[u], &self.span);
        let (need, from) = match &self.needs[u] {
            _ if self.gw_pending[u] => return earliest,
            UnitNeed::One(need) => (need, earliest),
            UnitNeed::Alpm(split) => (&split.pre, self.pre_classifier_from(u)),
        };
        first_room(cx.p, used, &self.with_gateway(u, need), from)
    }

    /// Places unit `u` (every earlier unit placed) in `used`'s stages.
    fn place_unit(&mut self, cx: Cx<'_>, used: &mut [Used], u: usize) -> Result<(), ModelError> {
        let (earliest, by) = earliest_stage(self.graph, &self.incoming[u], &self.span);
        if let Some((a, i)) = by {
            self.why_stage[u] = Some(a);
            self.trace.edge[u] = Some(i);
        }
        self.trace.earliest[u] = earliest;
        if self.gw_pending[u] {
            // A gateway merging into a table it controls goes with the
            // first of them placed ([`Self::merge_gateway`]).
            self.span[u] = (earliest, earliest);
            return Ok(());
        }
        let mut full = None;
        let placed = match &self.needs[u] {
            UnitNeed::One(need) => {
                let need = self.with_gateway(u, need);
                self.check_size(cx, u, &need)?;
                self.place_one(cx, used, u, &need, earliest, &mut full)
            }
            UnitNeed::Alpm(split) => {
                let (pre, atcam) = (self.with_gateway(u, &split.pre), split.atcam.clone());
                self.check_size(cx, u, &pre)?;
                self.check_size(cx, u, &atcam)?;
                self.place_alpm(cx, used, u, (&pre, &atcam), earliest, &mut full)
            }
        };
        self.trace.full[u] = full;
        let n_stages = cx.m.stages;
        let (graph, incoming, needs) = (self.graph, &self.incoming, &self.needs);
        let by_chain = |w: &mut overflow::Watch| w.by_chain(graph, incoming, needs, u, n_stages);
        match placed {
            Ok(x) if x.1 < n_stages => self.span[u] = x,
            Ok((_, last)) if by_chain(&mut self.watch) => return Err(self.no_fit(cx, u, last)),
            Ok(x) => (self.span[u], self.past) = (x, true),
            Err(s) if by_chain(&mut self.watch) => return Err(self.no_fit(cx, u, s)),
            Err(s) => return Err(self.stages_full(cx, used, s + 1, &[])),
        }
        self.merge_gateway(u);
        Ok(())
    }

    /// What [`overflow::Placed`] reads of this gress, `used` the stages
    /// every gress shares.
    fn placed<'a>(&'a self, p: &'a Placement, used: &'a [Used], n: u32) -> overflow::Placed<'a> {
        full_at(p, self.graph, &self.needs, &self.memory, used, n)
    }

    /// The "does not fit" error of stages that filled up, the gress
    /// needing `needed` stages, `others` sharing them.
    fn stages_full(
        &self,
        cx: Cx<'_>,
        used: &[Used],
        needed: u32,
        others: &[&GressState],
    ) -> ModelError {
        let n = cx.m.stages;
        let others: Vec<overflow::Placed<'_>> =
            others.iter().map(|g| g.placed(cx.p, used, n)).collect();
        self.placed(cx.p, used, n).error(
            cx.model,
            &cx.program.control(self.control).name,
            &self.watch,
            needed,
            &others,
        )
    }

    /// The "too large for any stage" error when `need` is.
    fn check_size(&self, cx: Cx<'_>, u: usize, need: &Needs) -> Result<(), ModelError> {
        match larger_than_a_stage(cx.p, need) {
            None => Ok(()),
            Some(message) => Err(ModelError::UnitTooLarge {
                model: cx.model.name.clone(),
                control: cx.program.control(self.control).name.clone(),
                unit: self.graph.units[u].name.clone(),
                stages: cx.m.stages,
                message,
            }),
        }
    }

    /// The "does not fit" error of unit `u` reaching stage `s`.
    fn no_fit(&self, cx: Cx<'_>, u: usize, s: u32) -> ModelError {
        does_not_fit(
            cx.model,
            cx.program,
            self.control,
            self.graph,
            &self.why_stage,
            u,
            s,
        )
    }

    /// Places a one-part unit from stage `from` on: its first and last
    /// stage, or the stage it ran past the chip at.
    fn place_one(
        &mut self,
        cx: Cx<'_>,
        used: &mut [Used],
        u: usize,
        need: &Needs,
        from: u32,
        full: &mut Option<(u32, &'static str)>,
    ) -> Result<(u32, u32), u32> {
        let name = self.graph.units[u].name.as_str();
        let sink = Sink {
            full,
            limits_hit: &mut self.limits_hit,
            memory: &mut self.memory[u],
            own: &mut self.own,
        };
        let f = fill(cx.p, cx.m.stages, used, need, from, name, sink)?;
        Ok((f.first, f.last))
    }

    /// Places an ALPM unit's pre-classifier, then its ATCAM partitions
    /// after it and not before `earliest`.
    fn place_alpm(
        &mut self,
        cx: Cx<'_>,
        used: &mut [Used],
        u: usize,
        (pre, atcam): (&Needs, &Needs),
        earliest: u32,
        full: &mut Option<(u32, &'static str)>,
    ) -> Result<(u32, u32), u32> {
        let name = self.graph.units[u].name.as_str();
        let pre_from = self.pre_classifier_from(u);
        let mut ignore = None;
        let n_stages = cx.m.stages;
        let sink = Sink {
            full,
            limits_hit: &mut self.limits_hit,
            memory: &mut self.memory[u],
            own: &mut self.own,
        };
        let pre = fill(cx.p, n_stages, used, pre, pre_from, name, sink)?;
        let from = (pre.last + 1).max(earliest);
        let sink = Sink {
            full: &mut ignore,
            limits_hit: &mut self.limits_hit,
            memory: &mut self.memory[u],
            own: &mut self.own,
        };
        let at = fill(cx.p, n_stages, used, atcam, from, name, sink)?;
        self.alpm_at[u] = Some((pre.last, at.first));
        Ok((pre.first, at.last))
    }

    /// The earliest stage of an ALPM unit's pre-classifier: it has the
    /// table's key and only sets the partition index, so its actions'
    /// dependencies (action, reverse-read) hold back the ATCAM, not it.
    fn pre_classifier_from(&self, u: usize) -> u32 {
        self.incoming[u]
            .iter()
            .map(|&i| &self.graph.edges[i])
            .filter_map(|e| match e.kind {
                DepKind::Match => Some(self.span[e.from].1 + 1),
                DepKind::Control => Some(self.span[e.from].0),
                DepKind::Action | DepKind::ReverseRead => None,
            })
            .max()
            .unwrap_or(0)
    }

    /// The gress's plan once every unit is placed (gateways included),
    /// `used` holding the stages' blocks.
    fn finish(self, cx: Cx<'_>, used: &[Used]) -> GressPlan {
        let (p, n_stages) = (cx.p, cx.m.stages);
        let graph = self.graph;
        let span = self.span;
        let typed: Vec<Vec<usize>> = (self.incoming.iter().zip(&self.container_reads))
            .map(|(a, b)| a.iter().chain(b).copied().collect())
            .collect();
        let stages = plan_stages(p, n_stages, graph, &typed, &span, &self.alpm_at);
        let chain_units = chain_to_last(&span, &self.why_stage);
        let chain = chain_units
            .iter()
            .map(|&u| graph.units[u].name.clone())
            .collect();
        let why = with_splits(
            crate::placement_why::explain(graph, &span, &self.trace),
            &self.memory,
            &self.alpm_at,
        );
        let mut plan = GressPlan {
            gress: self.gress,
            control: cx.program.control(self.control).name.clone(),
            stages,
            chain,
            limits_hit: self.limits_hit,
            why,
            features: stage_features(cx, graph, &span, &self.alpm_at),
            graph: None,
            unit_stages: Vec::new(),
            chain_units,
            unit_memory: self.memory,
            stage_memory: stage_blocks(n_stages, used),
            stage_capacity: StageMemory {
                stage: 0,
                sram: p.resources.sram_blocks,
                tcam: p.resources.tcam_blocks,
                entries: 0,
            },
        };
        plan.unit_stages = span;
        if plan.stages.is_empty() {
            plan.chain.clear();
            plan.chain_units.clear();
        }
        plan
    }
}

/// Per stage of the chip, the blocks `used` holds.
fn stage_blocks(n_stages: u32, used: &[Used]) -> Vec<StageMemory> {
    (0..n_stages)
        .map(|i| {
            let x = used.get(i as usize).copied().unwrap_or_default();
            StageMemory {
                stage: i,
                sram: x.sram,
                tcam: x.tcam,
                entries: 0,
            }
        })
        .collect()
}

/// Per stage, what its units hold that lengthens it.
fn stage_features(
    cx: Cx<'_>,
    graph: &DepGraph,
    span: &[(u32, u32)],
    alpm_at: &[Option<(u32, u32)>],
) -> Vec<Features> {
    let mut per_stage = vec![Features::default(); cx.m.stages as usize];
    for (u, &(a, b)) in span.iter().enumerate() {
        let f = unit_features(cx.p, cx.program, &graph.units[u]);
        for s in a..=b {
            if let Some(x) = per_stage.get_mut(s as usize) {
                x.merge(f);
            }
        }
        // An ALPM pre-classifier is a TCAM table (bf-asm's USE_TCAM).
        if let Some(x) = alpm_at[u].and_then(|(pre, _)| per_stage.get_mut(pre as usize)) {
            x.tcam = true;
        }
    }
    per_stage
}

/// [`place`], and when the stages filled up (any resource: a table that
/// action data pushed later crowds the next stages' other resources)
/// while the program's dependencies fit them and the chip's stages
/// together hold what every table takes ([`pipe_holds`]), [`place`] again
/// leaving the SRAM of direct counters, meters and registers out of a
/// stage's fullness, then counting only match entries in a stage's SRAM,
/// then with every per-stage limit scaled by the packing's overshoot
/// ([`place_scaled`]). Our packing is greedier than the compiler's (which
/// tries other orders, splits and action-data layouts, with
/// backtracking), so stages that fill up while the pipe's totals fit are
/// not proof that the program does not fit: the lighter placement is
/// reported, with a caveat giving what the full count needed. A resource
/// over what all the chip's stages hold, and a chain longer than the
/// chip, keep the error.
fn place_or_pack_match(
    cx: Cx<'_>,
    controls: &[(Gress, ControlId)],
    graphs: &[DepGraph],
) -> Result<Vec<GressPlan>, ModelError> {
    let mut total = Used::default();
    let strict = place(cx, controls, graphs, &mut total);
    let Err(ModelError::StagesFull {
        control,
        needed,
        full,
        ..
    }) = &strict
    else {
        return strict;
    };
    if full.dependency_stages > cx.m.stages
        || !pipe_holds(cx, &total)
        || !windows_hold(cx, controls, graphs)
    {
        return strict;
    }
    // Lighter counts, in turn: without the SRAM of direct counters, meters
    // and registers (a cell per entry, which our first-fit order spreads
    // worse than the compiler), then match entries only.
    for (sram, counted) in [
        (
            SramCount::NoDirectCells,
            "direct counters, meters and registers",
        ),
        (SramCount::MatchOnly, "action data, counters and registers"),
    ] {
        let light = Cx { sram, ..cx };
        let Ok(mut plans) = place(light, controls, graphs, &mut Used::default()) else {
            continue;
        };
        let left = match sram {
            SramCount::NoDirectCells => "leaving their SRAM out of a stage's fullness",
            _ => "counting match entries only in a stage's SRAM",
        };
        let note = format!(
            "counting the SRAM of {counted}, the estimate's packing needs {needed} stages ({}); \
             placed {left} (the compiler packs tighter: compile to know)",
            full.sentence()
        );
        for plan in plans.iter_mut().filter(|p| &p.control == control) {
            plan.limits_hit.push(note.clone());
        }
        return Ok(plans);
    }
    place_scaled(cx, controls, graphs, *needed, full).map_or(strict, Ok)
}

/// Whether the chip's stages together hold `total` (what every unit took,
/// summed over the stages the packing used, past the chip's included):
/// each resource at most the chip's stages times a stage's limit.
fn pipe_holds(cx: Cx<'_>, total: &Used) -> bool {
    let mut r = cx.p.resources;
    Full::ALL
        .into_iter()
        .all(|f| total.of(f) <= cx.m.stages.saturating_mul(*f.limit(&mut r)))
}

/// Whether the chip's logical and ternary table IDs and meter/stateful
/// ALUs can hold every unit within the stages its dependencies leave it: from its first stage were
/// resources unlimited ([`overflow::dependency_stages`]) to the chip's
/// last less the stages its chain below needs. The units whose stages all
/// lie in stages `a..=b` need at most `b - a + 1` stages' worth; when some
/// window holds more, no packing fits (sixteen tables that each head a
/// chain as long as the chip all need stage 0). O(stages^2 x units).
fn windows_hold(cx: Cx<'_>, controls: &[(Gress, ControlId)], graphs: &[DepGraph]) -> bool {
    let n = cx.m.stages;
    // (first stage, last stage, [logical IDs, ternary IDs, meter ALUs,
    // statistics ALUs]).
    let mut units: Vec<(u32, u32, [u64; 4])> = Vec::new();
    for (&(gress, control), graph) in controls.iter().zip(graphs) {
        let st = GressState::new(cx, gress, control, graph);
        let at = overflow::dependency_stages(graph, &st.incoming, &st.needs);
        for (u, need) in st.needs.iter().enumerate() {
            let ids = |x: &Needs| [x.logical, x.ternary, x.meter_alus, x.stats_alus].map(u64::from);
            let takes = match need {
                UnitNeed::One(x) => ids(x),
                UnitNeed::Alpm(a) => {
                    let (p, q) = (ids(&a.pre), ids(&a.atcam));
                    [p[0] + q[0], p[1] + q[1], p[2] + q[2], p[3] + q[3]]
                }
            };
            let last = n.saturating_sub(1).saturating_sub(st.below[u]);
            let first = at.get(u).map_or(0, |x| x.0);
            units.push((first, last, takes));
        }
    }
    let r = &cx.p.resources;
    let per_stage = [
        r.logical_tables,
        r.ternary_tables,
        r.meter_alus,
        r.stats_alus,
    ]
    .map(u64::from);
    for a in 0..n {
        for b in a..n {
            let mut sum = [0u64; 4];
            for (_, _, takes) in units.iter().filter(|x| x.0 >= a && x.1 <= b) {
                for (s, t) in sum.iter_mut().zip(takes) {
                    *s = s.saturating_add(*t);
                }
            }
            let k = u64::from(b - a + 1);
            if sum.iter().zip(per_stage).any(|(s, p)| *s > k * p) {
                return false;
            }
        }
    }
    true
}

/// The last lighter placement: [`place`] with every per-stage limit
/// scaled by the stages the packing needed over the chip's (13 of 12: a
/// stage holds 13/12 of its logical tables, blocks, ...), the packing's
/// own overshoot spread over the stages, again while it overflows (at
/// most once per resource); `None` when it still overflows or fails
/// otherwise (a table too large for any stage). `resources` lists the
/// stages it fills past the chip's limits.
fn place_scaled(
    cx: Cx<'_>,
    controls: &[(Gress, ControlId)],
    graphs: &[DepGraph],
    needed: u32,
    first: &FullStages,
) -> Option<Vec<GressPlan>> {
    let mut p = cx.p.clone();
    let mut over = needed;
    for _ in 0..Full::ALL.len() {
        scale(&mut p.resources, over, cx.m.stages);
        let light = Cx { p: &p, ..cx };
        match place(light, controls, graphs, &mut Used::default()) {
            Ok(mut plans) => {
                let note = scaled_note(&cx.p.resources, &p.resources, needed, first);
                for plan in &mut plans {
                    plan.limits_hit.push(note.clone());
                }
                return Some(plans);
            }
            Err(ModelError::StagesFull {
                needed: n, full, ..
            }) if full.dependency_stages <= cx.m.stages => over = n,
            Err(_) => return None,
        }
    }
    None
}

/// The caveat of a [`place_scaled`] placement.
fn scaled_note(
    chip: &crate::spec::StageResources,
    used: &crate::spec::StageResources,
    needed: u32,
    first: &FullStages,
) -> String {
    format!(
        "the estimate's packing needs {needed} stages ({}) though the chip's stages together hold \
         every table's resources; placed with each stage's limits scaled to {} logical tables, \
         {} SRAM and {} TCAM blocks (the chip's {}, {}, {}): the compiler packs tighter, compile \
         to know",
        first.sentence(),
        used.logical_tables,
        used.sram_blocks,
        used.tcam_blocks,
        chip.logical_tables,
        chip.sram_blocks,
        chip.tcam_blocks,
    )
}

/// `r` with every per-stage limit scaled by `needed / stages`, rounded up.
fn scale(r: &mut crate::spec::StageResources, needed: u32, stages: u32) {
    let (n, d) = (u64::from(needed), u64::from(stages.max(1)));
    for f in Full::ALL {
        let x = f.limit(r);
        let v = (u64::from(*x) * n).div_ceil(d);
        *x = u32::try_from(v).unwrap_or(u32::MAX / 4);
    }
}

/// Places the units of every gress in the same stages, which they share
/// (bf-p4c `TablePlacement`: one work list of both gresses' tables, one
/// stage's resources for both), and decides each gress's stages'
/// dependencies, which stay its own.
///
/// Each gress takes its ready units (predecessors placed) lowest allowed
/// stage first, then longest chain below, then control-flow order;
/// between the gresses, the next unit placed is the one that goes to the
/// lower stage, then the
/// one with the longer chain of dependencies below it, then the earlier
/// gress (`DecidePlacement::is_better`: `CALC_STAGE`, then the downward
/// dependency chain).
///
/// `total`: set to what every stage holds together (each resource summed)
/// when the placement ran past the chip's stages.
fn place(
    cx: Cx<'_>,
    controls: &[(Gress, ControlId)],
    graphs: &[DepGraph],
    total: &mut Used,
) -> Result<Vec<GressPlan>, ModelError> {
    let mut states: Vec<GressState> = controls
        .iter()
        .zip(graphs)
        .map(|(&(gress, control), graph)| GressState::new(cx, gress, control, graph))
        .collect();
    let mut used: Vec<Used> = vec![Used::default(); cx.m.stages as usize + 64];
    loop {
        for st in states.iter_mut() {
            st.settle(cx, &used);
        }
        let Some(g) = pick_gress(&states) else {
            break;
        };
        states[g].place_next(cx, &mut used)?;
        let u = states[g].last;
        let taken = taken_by(cx, &states, g, u);
        states[g].trace.taken_by[u] = taken;
    }
    if let Some(g) = states.iter().position(|st| st.past) {
        *total = sum_used(&used);
        let st = &states[g];
        let needed = st.span.iter().map(|s| s.1 + 1).max().unwrap_or(cx.m.stages);
        let others: Vec<&GressState> = (0..states.len())
            .filter(|&h| h != g)
            .map(|h| &states[h])
            .collect();
        return Err(st.stages_full(cx, &used, needed, &others));
    }
    Ok(states
        .into_iter()
        .map(|st| {
            let own = st.own.clone();
            st.finish(cx, &own)
        })
        .collect())
}

/// Every resource of `used`, summed over its stages.
fn sum_used(used: &[Used]) -> Used {
    let mut t = Used::default();
    for u in used {
        for f in Full::ALL {
            let x = t.of_mut(f);
            *x = x.saturating_add(u.of(f));
        }
    }
    t
}

/// The gress whose next unit goes first (see [`place`]), every gress
/// [`GressState::settle`]d; `None` when all are placed.
fn pick_gress(states: &[GressState]) -> Option<usize> {
    states
        .iter()
        .enumerate()
        .filter(|(_, st)| !st.done())
        .min_by_key(|&(g, st)| {
            let below = st.below[st.next()];
            (st.next_stage(), std::cmp::Reverse(below), g)
        })
        .map(|(g, _)| g)
}

/// The stage of `need`'s first part from `from` on ([`first_stage`]; the
/// chip's stages and the 64 past them that `used` has).
fn first_room(p: &Placement, used: &[Used], need: &Needs, from: u32) -> u32 {
    first_stage(p, used, need, from, &mut |_, _| {})
}

/// Per unit, the match and action dependencies in the longest chain of
/// them that starts at it (edges go from earlier units to later ones).
fn chain_below(graph: &DepGraph) -> Vec<u32> {
    let nu = graph.units.len();
    let mut out: Vec<Vec<(usize, u32)>> = vec![Vec::new(); nu];
    // bf-p4c's dependence chain counts its graph's edges: fields, not
    // container conflicts (`DependencyGraph::dependence_tail_size`).
    for e in graph.edges.iter().filter(|e| e.from < e.to) {
        let field = e.through == Through::Field;
        let step = u32::from(field && matches!(e.kind, DepKind::Match | DepKind::Action));
        out[e.from].push((e.to, step));
    }
    let mut below = vec![0u32; nu];
    for u in (0..nu).rev() {
        below[u] = out[u]
            .iter()
            .map(|&(v, step)| below[v] + step)
            .max()
            .unwrap_or(0);
    }
    below
}

/// When unit `u` of gress `g` was moved past a full stage that would have
/// held it without the other gresses' units, the gress that took it and
/// what of it.
fn taken_by(cx: Cx<'_>, states: &[GressState], g: usize, u: usize) -> Option<TakenBy> {
    let st = &states[g];
    let (s, sentence) = st.trace.full[u]?;
    let what = Full::ALL.into_iter().find(|f| f.sentence() == sentence)?;
    let need = match &st.needs[u] {
        UnitNeed::One(need) => need,
        UnitNeed::Alpm(split) => &split.pre,
    };
    let alone = st.own.get(s as usize)?;
    // Alone, the stage would have held it whole (a stage that holds part
    // of it may be passed over too, [`first_stage`]).
    if !matches!(
        fits(cx.p, alone, need, need.entries.max(1), true),
        Fit::Part(t) if t.limited_by.is_none()
    ) {
        return None;
    }
    let (other, holds) = states
        .iter()
        .enumerate()
        .filter(|&(h, _)| h != g)
        .filter_map(|(_, o)| Some((o, o.own.get(s as usize)?)))
        .max_by_key(|(_, x)| x.of(what))?;
    if holds.of(what) == 0 {
        return None;
    }
    Some(TakenBy {
        gress: other.gress,
        holds: describe_held(what, holds),
    })
}

/// `9 logical tables`, `40 SRAM blocks`: what `x` holds of `what`.
fn describe_held(what: Full, x: &Used) -> String {
    format!("{} {}", x.of(what), what.name())
}

/// What [`overflow::Placed`] reads of a placement that ran past the chip.
fn full_at<'a>(
    p: &'a Placement,
    graph: &'a DepGraph,
    needs: &'a [UnitNeed],
    memory: &'a [Vec<StageMemory>],
    used: &'a [Used],
    n_stages: u32,
) -> overflow::Placed<'a> {
    overflow::Placed {
        p,
        graph,
        needs,
        memory,
        used,
        n_stages,
    }
}

/// Fills each unit's `split`: an ALPM table's two parts, or the parts of
/// a table larger than one stage (`TablePlacement`'s `need_more`: the
/// entries left over go to the next stage), with their entries.
fn with_splits(
    mut why: Vec<crate::placement_why::UnitPlace>,
    memory: &[Vec<StageMemory>],
    alpm_at: &[Option<(u32, u32)>],
) -> Vec<crate::placement_why::UnitPlace> {
    let range = |a: u32, b: u32| {
        if a == b {
            format!("stage {a}")
        } else {
            format!("stages {a}-{b}")
        }
    };
    for (u, w) in why.iter_mut().enumerate() {
        let parts = memory.get(u).map_or(&[][..], Vec::as_slice);
        if let Some((pre, atcam)) = alpm_at.get(u).copied().flatten() {
            let entries = |f: &dyn Fn(&StageMemory) -> bool| -> u64 {
                parts.iter().filter(|m| f(m)).map(|m| m.entries).sum()
            };
            w.split = Some(format!(
                "ALPM: pre-classifier (TCAM, {} entries) in stage {pre}, ATCAM partitions \
                 ({} entries, SRAM) in {}, match dependent on it",
                entries(&|m| m.stage == pre && m.tcam > 0),
                entries(&|m| m.stage >= atcam && m.tcam == 0),
                range(atcam, w.last_stage)
            ));
        } else if parts.len() > 1 {
            let each: Vec<String> = parts.iter().map(|m| m.entries.to_string()).collect();
            w.split = Some(format!(
                "split over {}: {} entries (more than one stage's memory holds)",
                range(w.stage, w.last_stage),
                each.join(" + ")
            ));
        }
    }
    why
}

/// Per unit, true for a gateway that merges into a table: one that
/// controls a table or statement table (a control edge to a unit that is
/// no gateway). bf-p4c merges a gateway into a match table it controls
/// (`TablePlacement::gateway_merge`), taking no logical table of its own
/// (`Memories::analyze_tables`: a gateway with a `table_link`); any other
/// gateway (its branches hold only other conditions, or nothing) is a
/// gateway table of its own, a gateway row and a logical table
/// (`independent_gw_tables`).
fn merged_gateways(graph: &DepGraph) -> Vec<bool> {
    let mut out = vec![false; graph.units.len()];
    for e in graph.edges.iter().filter(|e| e.kind == DepKind::Control) {
        let is_gw = |u: usize| matches!(graph.units[u].kind, UnitKind::Gateway);
        if e.from < e.to && is_gw(e.from) && !is_gw(e.to) {
            out[e.from] = true;
        }
    }
    out
}

/// Each stage's units and its dependency on the one before (the window
/// rule).
fn plan_stages(
    p: &Placement,
    n_stages: u32,
    graph: &DepGraph,
    incoming: &[Vec<usize>],
    span: &[(u32, u32)],
    alpm_at: &[Option<(u32, u32)>],
) -> Vec<StagePlan> {
    let mut units_in: Vec<Vec<usize>> = vec![Vec::new(); n_stages as usize];
    for (u, &(a, b)) in span.iter().enumerate() {
        for s in a..=b {
            if let Some(v) = units_in.get_mut(s as usize) {
                v.push(u);
            }
        }
    }
    let mut deps_of: Vec<(StageDep, String)> = Vec::with_capacity(n_stages as usize);
    let mut last_match = 0u32;
    for s in 0..n_stages {
        let d = if s == 0 {
            (StageDep::Match, "first stage".to_string())
        } else if p.forced_match_stages.contains(&s) {
            (
                StageDep::Match,
                "always match dependent on this chip".to_string(),
            )
        } else {
            stage_dep(
                graph,
                incoming,
                span,
                alpm_at,
                &units_in[s as usize],
                last_match,
                s,
            )
        };
        if d.0 == StageDep::Match {
            last_match = s;
        }
        deps_of.push(d);
    }
    deps_of
        .into_iter()
        .enumerate()
        .map(|(s, (dependency, reason))| StagePlan {
            stage: s as u32,
            units: units_in[s]
                .iter()
                .map(|&u| graph.units[u].name.clone())
                .collect(),
            tables: units_in[s]
                .iter()
                .filter(|&&u| !matches!(graph.units[u].kind, UnitKind::Gateway))
                .map(|&u| graph.units[u].name.clone())
                .collect(),
            dependency,
            reason,
        })
        .collect()
}

/// The chain of units (first to last) that reaches the last used stage,
/// following each unit's dependency that set its earliest stage.
fn chain_to_last(span: &[(u32, u32)], why_stage: &[Option<usize>]) -> Vec<usize> {
    let mut chain_units = Vec::new();
    if let Some(mut u) = (0..span.len()).max_by_key(|&u| (span[u].1, usize::MAX - u)) {
        chain_units.push(u);
        while let Some(a) = why_stage[u] {
            chain_units.push(a);
            u = a;
        }
        chain_units.reverse();
    }
    chain_units
}

/// The dependency of stage `s` given the units placed in it.
fn stage_dep(
    graph: &DepGraph,
    incoming: &[Vec<usize>],
    span: &[(u32, u32)],
    alpm_at: &[Option<(u32, u32)>],
    here: &[usize],
    last_match: u32,
    s: u32,
) -> (StageDep, String) {
    let in_window = |a: usize| span[a].1 >= last_match && span[a].1 < s;
    let mut action: Option<String> = None;
    for &b in here {
        // An ATCAM's first stage matches on the partition index its
        // pre-classifier wrote (`SplitAlpm`: the ATCAM key holds it).
        if let Some((pre, atcam)) = alpm_at[b] {
            if atcam == s && pre >= last_match {
                return (
                    StageDep::Match,
                    format!(
                        "{}'s ATCAM partitions read the partition index its ALPM pre-classifier \
                         wrote (stage {pre})",
                        graph.units[b].name
                    ),
                );
            }
        }
        // A table continued from the previous stage waits for its action.
        if span[b].0 < s && action.is_none() {
            action = Some(format!(
                "{} continues from stage {}",
                graph.units[b].name,
                s - 1
            ));
        }
        for e in incoming[b].iter().map(|&i| &graph.edges[i]) {
            if !in_window(e.from) {
                continue;
            }
            match e.kind {
                DepKind::Match => {
                    return (
                        StageDep::Match,
                        format!(
                            "{} reads {} written by {} (stage {})",
                            graph.units[b].name, e.field, graph.units[e.from].name, span[e.from].1
                        ),
                    )
                }
                DepKind::Action if action.is_none() => {
                    action = Some(format!(
                        "{} uses {} written by {} (stage {})",
                        graph.units[b].name, e.field, graph.units[e.from].name, span[e.from].1
                    ));
                }
                _ => {}
            }
        }
    }
    match action {
        Some(why) => (StageDep::Action, why),
        None => (StageDep::Concurrent, String::new()),
    }
}

/// Per-stage records with lengths by group and contributions, egress
/// padded to the model's minimum.
fn stage_records(m: &MauCycles, _p: &Placement, gress: Gress, plan: &GressPlan) -> Vec<MauStage> {
    let n = plan.stages.len();
    let mut feats = plan.features.clone();
    feats.resize(n, Features::default());
    let mut is_match: Vec<bool> = plan
        .stages
        .iter()
        .map(|s| s.dependency == StageDep::Match)
        .collect();
    let is_action: Vec<bool> = plan
        .stages
        .iter()
        .map(|s| s.dependency == StageDep::Action)
        .collect();
    let figures = |is_match: &[bool]| -> Vec<(u32, u32)> {
        // Group features: a match stage and the stages after it up to the
        // next match stage.
        let mut out = vec![(0u32, 0u32); n];
        let mut s = 0;
        while s < n {
            let mut e = s + 1;
            while e < n && !is_match[e] {
                e += 1;
            }
            let mut g = Features::default();
            for f in feats.iter().take(e).skip(s) {
                g.merge(*f);
            }
            let x = &m.stage_length_extra;
            let adr = if g.selector {
                x.selector
            } else if g.divide {
                x.stateful_divide
            } else if g.stateful {
                x.stateful_alu_or_meter
            } else {
                0
            };
            let len = m.stage_length_cycles
                + if g.tcam || g.wide_selector {
                    x.tcam_or_wide_selector
                } else {
                    0
                }
                + adr;
            for (i, o) in out.iter_mut().enumerate().take(e).skip(s) {
                let contrib = if i == 0 || is_match[i] {
                    len
                } else if is_action[i] {
                    m.contribution.action_dependent_cycles
                } else {
                    m.contribution.concurrent_cycles
                };
                *o = (len, contrib);
            }
            s = e;
        }
        out
    };
    let mut figs = figures(&is_match);
    if gress == Gress::Egress && m.egress_min_cycles > 0 {
        // The assembler pads egress: the lowest stages that are not match
        // dependent become so until the corner turn plus stages 1.. reach
        // the minimum.
        loop {
            let total: u32 = m.corner_turn_cycles + figs.iter().skip(1).map(|f| f.1).sum::<u32>();
            if total >= m.egress_min_cycles {
                break;
            }
            let Some(i) = (1..n).find(|&i| !is_match[i]) else {
                break;
            };
            is_match[i] = true;
            figs = figures(&is_match);
        }
    }
    figs.iter()
        .enumerate()
        .map(|(i, &(len, contrib))| MauStage {
            gress,
            stage: i as i32,
            clock_cycles: len,
            predication_cycle: None,
            match_dependent: i == 0 || is_match[i],
            cycles_contribute_to_latency: contrib,
        })
        .collect()
}

fn unit_features(p: &Placement, program: &Program, u: &deps::Unit) -> Features {
    let mut f = Features::default();
    match &u.kind {
        UnitKind::Gateway => return f,
        UnitKind::Statements => f.tcam = true,
        UnitKind::Table { table } => {
            let t = program.table(*table);
            f.tcam = memory::matches_in_tcam(program, t);
            if let Some(sel) = selector_of(program, t) {
                f.selector = true;
                f.wide_selector = sel
                    .max_group_size
                    .is_some_and(|g| g > p.wide_selector_members);
            } else if t.implementation.is_some()
                && t.annotations.iter().any(|a| a.name == "action_selector")
            {
                f.selector = true;
            }
            for a in &t.attached {
                if let Some(x) = program.externs.iter().find(|x| &x.name == a) {
                    if matches!(&x.kind, ExternKind::Other(k) if k.contains("Lpf") || k.contains("Wred"))
                    {
                        f.stateful = true;
                    }
                }
            }
        }
    }
    for c in u.externs.iter() {
        match c.uses {
            ExternUse::StatefulAlu | ExternUse::Lpf | ExternUse::Wred => {
                f.stateful = true;
                f.divide |= c.divides;
            }
            _ => {}
        }
    }
    f
}

#[cfg(test)]
mod fallback_tests {
    use super::{scale, sum_used, Used};
    use crate::spec::StageResources;

    /// Scaled by 13/12 and rounded up: 16 IDs -> 17.34 -> 18, 80 blocks
    /// -> 86.7 -> 87, 24 -> 26, 416 bits -> 450.7 -> 451; 12/12 leaves
    /// every limit as it is.
    #[test]
    fn scale_rounds_each_limit_up() {
        let chip = StageResources {
            logical_tables: 16,
            ternary_tables: 8,
            sram_blocks: 80,
            tcam_blocks: 24,
            gateways: 16,
            meter_alus: 4,
            stats_alus: 4,
            map_rams: 48,
            hash_bits: 416,
        };
        let mut r = chip;
        scale(&mut r, 13, 12);
        assert_eq!(
            (
                r.logical_tables,
                r.ternary_tables,
                r.sram_blocks,
                r.tcam_blocks
            ),
            (18, 9, 87, 26)
        );
        assert_eq!(
            (r.gateways, r.meter_alus, r.map_rams, r.hash_bits),
            (18, 5, 52, 451)
        );
        let mut same = chip;
        scale(&mut same, 12, 12);
        assert_eq!(same, chip);
    }

    #[test]
    fn sum_used_adds_every_stage() {
        let a = Used {
            logical: 3,
            sram: 10,
            tcam: 2,
            ..Used::default()
        };
        let b = Used {
            logical: 4,
            sram: 5,
            hash_bits: 40,
            ..Used::default()
        };
        let t = sum_used(&[a, b]);
        assert_eq!((t.logical, t.sram, t.tcam, t.hash_bits), (7, 15, 2, 40));
    }
}
