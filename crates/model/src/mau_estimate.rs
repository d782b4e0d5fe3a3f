//! The `tofino_mau_estimate` engine (docs/models.md, Tofino stage placement
//! estimate): places a program's tables, gateways and apply-block
//! statements into MAU stages from its dependency graph, decides each
//! stage's dependency on the one before, and hands the resulting per-stage
//! figures to the one MAU cycle computation ([`crate::mau_cycles`]).
//!
//! Placement: units in control-flow order; a unit goes to the first stage
//! at or after every earlier unit it depends on (one stage later for match,
//! action and write-write dependencies, the same stage allowed for control
//! and write-after-read ones) whose remaining resources hold it; a table
//! whose entries do not fit in one stage's memories continues in the next
//! stages. Every number comes from the model file's `placement` and
//! `mau_cycles` sections.

use serde::Serialize;

use p4cost_analysis::deps::{self, DepGraph, DepKind, SharedContainers, UnitKind};
use p4cost_ir::{ControlId, ExternKind, ExternUse, Gress, MauPlacement, MauStage, Program};

use crate::placement_why::Trace;
use crate::spec::{MauCycles, ModelSpec, Placement};
use crate::ModelError;

mod alpm;
mod memory;
mod overflow;
pub mod resources;
mod usage;

use memory::{
    does_not_fit, fits, larger_than_a_stage, selector_of, take, unit_needs, Fit, Needs, Used,
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
    let mut gresses = Vec::new();
    let mut records = Vec::new();
    for &(gress, control) in controls {
        let graph =
            deps::dependency_graph_with(program, control, limits, &shared).map_err(|e| {
                ModelError::NotApplicable {
                    model: model.name.clone(),
                    message: format!("control `{}`: {e}", program.control(control).name),
                }
            })?;
        let mut plan = place(model, m, p, program, gress, control, &graph)?;
        plan.graph = Some(graph);
        let recs = stage_records(m, p, gress, &plan);
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

/// Places `need` in the stages from `from` on, a part per stage until its
/// entries are placed; records the stages with no room before its first
/// part (`full`, `limits_hit`). `Err(stage)`: it runs past the chip.
#[allow(clippy::too_many_arguments)]
fn fill(
    p: &Placement,
    n_stages: u32,
    used: &mut [Used],
    need: &Needs,
    from: u32,
    name: &str,
    full: &mut Option<(u32, &'static str)>,
    limits_hit: &mut Vec<String>,
    memory: &mut Vec<StageMemory>,
) -> Result<Filled, u32> {
    let mut s = from;
    let mut left = need.entries.max(1);
    let mut first = None;
    loop {
        let Some(st) = used.get_mut(s as usize) else {
            return Err(s);
        };
        match fits(p, st, need, left, first.is_none()) {
            Fit::No(what) => {
                st.lacked(what);
                if first.is_none() {
                    let what = what.sentence();
                    *full = Some((s, what));
                    limits_hit.push(format!("{name} moved past stage {s}: {what}"));
                }
                if first.is_some() && s > from + n_stages {
                    return Err(s);
                }
                s += 1;
            }
            Fit::Part(t) => {
                take(st, need, &t);
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

/// The earliest stage unit `u`'s placed predecessors allow, recording the
/// predecessor (`why_stage`) and edge (`trace.edge`) that set it.
fn earliest_stage(
    graph: &DepGraph,
    incoming: &[usize],
    span: &[(u32, u32)],
    u: usize,
    why_stage: &mut [Option<usize>],
    trace: &mut Trace,
) -> u32 {
    let mut earliest = 0u32;
    for &i in incoming {
        let (a, kind) = (graph.edges[i].from, graph.edges[i].kind);
        let at = match kind {
            DepKind::Match | DepKind::Action => span[a].1 + 1,
            DepKind::Control | DepKind::ReverseRead => span[a].0,
        };
        if at > earliest || (at == earliest && why_stage[u].is_none() && at > 0) {
            earliest = at;
            why_stage[u] = Some(a);
            trace.edge[u] = Some(i);
        }
    }
    trace.earliest[u] = earliest;
    earliest
}

/// What a unit needs: one part, or an ALPM table's pre-classifier and
/// ATCAM partitions (placed one after the other, match dependent).
enum UnitNeed {
    One(Needs),
    Alpm(alpm::AlpmSplit),
}

fn unit_need(p: &Placement, program: &Program, u: &deps::Unit) -> UnitNeed {
    let one = unit_needs(p, program, u);
    if let UnitKind::Table { table } = &u.kind {
        if let Some(mut split) = alpm::split(p, program, program.table(*table), one.entries) {
            // Its meter ALUs, action data and counters go with the
            // ATCAM's result.
            split.atcam.meter_alus = one.meter_alus;
            split.atcam.action_bits = one.action_bits;
            split.atcam.cells = one.cells;
            return UnitNeed::Alpm(split);
        }
    }
    UnitNeed::One(one)
}

/// Places one control's units and decides its stages' dependencies.
#[allow(clippy::too_many_arguments)]
fn place(
    model: &ModelSpec,
    m: &MauCycles,
    p: &Placement,
    program: &Program,
    gress: Gress,
    control: ControlId,
    graph: &DepGraph,
) -> Result<GressPlan, ModelError> {
    let n_stages = m.stages;
    let nu = graph.units.len();
    let needs: Vec<UnitNeed> = graph
        .units
        .iter()
        .map(|u| unit_need(p, program, u))
        .collect();
    // Edges into each unit from earlier units (indexes into `graph.edges`).
    let mut incoming: Vec<Vec<usize>> = vec![Vec::new(); nu];
    for (i, e) in graph.edges.iter().enumerate() {
        if e.from < e.to {
            incoming[e.to].push(i);
        }
    }
    // stages[u] = stages the unit occupies (first..=last).
    let mut span: Vec<(u32, u32)> = vec![(0, 0); nu];
    let mut why_stage: Vec<Option<usize>> = vec![None; nu];
    let mut trace = Trace::new(nu);
    let mut used: Vec<Used> = vec![Used::default(); n_stages as usize + 64];
    let mut limits_hit = Vec::new();
    let mut memory: Vec<Vec<StageMemory>> = vec![Vec::new(); nu];
    // Per ALPM unit, its pre-classifier's stage and the ATCAM's first.
    let mut alpm_at: Vec<Option<(u32, u32)>> = vec![None; nu];
    // Past the chip: by a chain of dependencies (the error at once), or
    // by stages that filled up (the error once every unit is placed).
    let mut watch = overflow::Watch::default();
    let mut past = false;
    for u in 0..nu {
        let earliest = earliest_stage(graph, &incoming[u], &span, u, &mut why_stage, &mut trace);
        if matches!(graph.units[u].kind, UnitKind::Gateway) {
            // A gateway rides with the tables it controls (the compiler
            // merges it into one of them): placed below, once they are.
            span[u] = (earliest, earliest);
            continue;
        }
        let too_large = |message| ModelError::UnitTooLarge {
            model: model.name.clone(),
            control: program.control(control).name.clone(),
            unit: graph.units[u].name.clone(),
            stages: m.stages,
            message,
        };
        let no_fit = |s| does_not_fit(model, program, control, graph, &why_stage, u, s);
        let name = graph.units[u].name.as_str();
        let mut full = None;
        let placed = match &needs[u] {
            UnitNeed::One(need) => {
                if let Some(message) = larger_than_a_stage(p, need) {
                    return Err(too_large(message));
                }
                let f = fill(
                    p,
                    n_stages,
                    &mut used,
                    need,
                    earliest,
                    name,
                    &mut full,
                    &mut limits_hit,
                    &mut memory[u],
                );
                f.map(|f| (f.first, f.last))
            }
            UnitNeed::Alpm(split) => {
                for need in [&split.pre, &split.atcam] {
                    if let Some(message) = larger_than_a_stage(p, need) {
                        return Err(too_large(message));
                    }
                }
                // The pre-classifier has the table's key and only sets
                // the partition index: its actions' dependencies (action,
                // reverse-read) hold back the ATCAM, not it.
                let pre_from = incoming[u]
                    .iter()
                    .map(|&i| &graph.edges[i])
                    .filter_map(|e| match e.kind {
                        DepKind::Match => Some(span[e.from].1 + 1),
                        DepKind::Control => Some(span[e.from].0),
                        DepKind::Action | DepKind::ReverseRead => None,
                    })
                    .max()
                    .unwrap_or(0);
                let mut ignore = None;
                fill(
                    p,
                    n_stages,
                    &mut used,
                    &split.pre,
                    pre_from,
                    name,
                    &mut full,
                    &mut limits_hit,
                    &mut memory[u],
                )
                .and_then(|pre| {
                    let from = (pre.last + 1).max(earliest);
                    let at = fill(
                        p,
                        n_stages,
                        &mut used,
                        &split.atcam,
                        from,
                        name,
                        &mut ignore,
                        &mut limits_hit,
                        &mut memory[u],
                    )?;
                    alpm_at[u] = Some((pre.last, at.first));
                    Ok((pre.first, at.last))
                })
            }
        };
        trace.full[u] = full;
        let by_chain = |w: &mut overflow::Watch| w.by_chain(graph, &incoming, &needs, u, n_stages);
        match placed {
            Ok(x) if x.1 < n_stages => span[u] = x,
            Ok((_, last)) if by_chain(&mut watch) => return Err(no_fit(last)),
            Ok(x) => (span[u], past) = (x, true),
            Err(s) if by_chain(&mut watch) => return Err(no_fit(s)),
            Err(s) => {
                let at = full_at(p, graph, &needs, &memory, &used, n_stages);
                return Err(at.error(model, &program.control(control).name, &watch, s + 1));
            }
        }
    }
    if past {
        let needed = span.iter().map(|s| s.1 + 1).max().unwrap_or(n_stages);
        let at = full_at(p, graph, &needs, &memory, &used, n_stages);
        return Err(at.error(model, &program.control(control).name, &watch, needed));
    }

    place_gateways(p, graph, &mut span, &mut used, &mut trace, &mut limits_hit);
    let stages = plan_stages(p, n_stages, graph, &incoming, &span, &alpm_at);
    let chain_units = chain_to_last(&span, &why_stage);
    let chain = chain_units
        .iter()
        .map(|&u| graph.units[u].name.clone())
        .collect();
    let features: Vec<Features> = graph
        .units
        .iter()
        .map(|u| unit_features(p, program, u))
        .collect();
    let mut plan = GressPlan {
        gress,
        control: program.control(control).name.clone(),
        stages,
        chain,
        limits_hit,
        why: with_splits(
            crate::placement_why::explain(graph, &span, &trace),
            &memory,
            &alpm_at,
        ),
        features: Vec::new(),
        graph: None,
        unit_stages: Vec::new(),
        chain_units,
        unit_memory: memory,
        stage_memory: (0..n_stages)
            .map(|i| {
                let x = used.get(i as usize).copied().unwrap_or_default();
                StageMemory {
                    stage: i,
                    sram: x.sram,
                    tcam: x.tcam,
                    entries: 0,
                }
            })
            .collect(),
        stage_capacity: StageMemory {
            stage: 0,
            sram: p.resources.sram_blocks,
            tcam: p.resources.tcam_blocks,
            entries: 0,
        },
    };
    let mut per_stage = vec![Features::default(); n_stages as usize];
    for (u, &(a, b)) in span.iter().enumerate() {
        for s in a..=b {
            if let Some(x) = per_stage.get_mut(s as usize) {
                x.merge(features[u]);
            }
        }
        // An ALPM pre-classifier is a TCAM table (bf-asm's USE_TCAM).
        if let Some(x) = alpm_at[u].and_then(|(pre, _)| per_stage.get_mut(pre as usize)) {
            x.tcam = true;
        }
    }
    plan.features = per_stage;
    plan.unit_stages = span;
    if plan.stages.is_empty() {
        plan.chain.clear();
        plan.chain_units.clear();
    }
    Ok(plan)
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

/// Gateways go to the first stage of the units they control (their own
/// earliest stage when they control none), using a gateway there: the
/// compiler merges a gateway into a table it controls
/// (`bf-p4c/mau/table_placement.cpp`, `TablePlacement::gateway_merge`).
fn place_gateways(
    p: &Placement,
    graph: &DepGraph,
    span: &mut [(u32, u32)],
    used: &mut [Used],
    trace: &mut Trace,
    limits_hit: &mut Vec<String>,
) {
    let nu = graph.units.len();
    let mut controlled_at: Vec<Option<u32>> = vec![None; nu];
    for e in graph.edges.iter().filter(|e| e.kind == DepKind::Control) {
        let at = span[e.to].0;
        let c = &mut controlled_at[e.from];
        if c.is_none_or(|x| at < x) {
            *c = Some(at);
            trace.with[e.from] = Some(e.to);
        }
    }
    for u in 0..nu {
        if !matches!(graph.units[u].kind, UnitKind::Gateway) {
            continue;
        }
        let controlled = controlled_at[u];
        let s = controlled.map_or(span[u].0, |c| c.max(span[u].0));
        if s == span[u].0 {
            trace.with[u] = None;
        }
        span[u] = (s, s);
        if let Some(st) = used.get_mut(s as usize) {
            st.gateway += 1;
            if st.gateway == p.resources.gateways + 1 {
                limits_hit.push(format!(
                    "stage {s} needs more than {} gateways; the compiler would move some tables later",
                    p.resources.gateways
                ));
            }
        }
    }
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
