//! The memory of an estimated placement (docs/models.md, Tofino
//! resources): per unit what it takes in each stage, per stage the
//! totals of every gress against the chip's limits, the pipe's share of
//! its SRAM and TCAM, and what overflows.

use serde::Serialize;

use p4cost_analysis::deps::{DepGraph, UnitKind};
use p4cost_ir::{Gress, Program};

use super::usage;
use super::{GressPlan, PipelinePlan};
use crate::scholz::{Memory, Scholz};
use crate::spec::{ModelSpec, Placement};
use crate::ModelError;

/// One stage's limits (the model file's `placement.resources`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Limits {
    /// Stages of the chip.
    pub stages: u32,
    /// SRAM blocks per stage.
    pub sram_blocks: u32,
    /// TCAM blocks per stage.
    pub tcam_blocks: u32,
    /// Map RAMs per stage.
    pub map_rams: u32,
    /// Hash bits per stage.
    pub hash_bits: u32,
    /// Gateways per stage.
    pub gateways: u32,
    /// Logical tables per stage.
    pub logical_tables: u32,
    /// Meter ALUs per stage (meters, stateful ALUs, LPF/WRED, selectors).
    pub meter_alus: u32,
    /// Statistics ALUs per stage (counters).
    pub stats_alus: u32,
}

/// What one unit takes, in all its stages.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct UnitResources {
    /// Table, gateway or statement-table name.
    pub name: String,
    /// Its gress.
    pub gress: Gress,
    /// `exact`, `ternary`, `lpm`, `range`, `alpm`, `keyless`, `statements`
    /// or `gateway`.
    pub kind: &'static str,
    /// First and last stage it occupies.
    pub first_stage: u32,
    /// Last stage it occupies.
    pub last_stage: u32,
    /// Entries placed.
    pub entries: u64,
    /// Key bits.
    pub key_bits: u64,
    /// SRAM blocks of match entries.
    pub match_sram_blocks: u32,
    /// TCAM blocks.
    pub tcam_blocks: u32,
    /// Widest action data, bits.
    pub action_data_bits: u64,
    /// SRAM blocks of action data (0 when immediate).
    pub action_sram_blocks: u32,
    /// SRAM blocks of counters, meters and registers.
    pub stateful_sram_blocks: u32,
    /// Map RAMs (one per counter, meter or register block).
    pub map_rams: u32,
    /// Hash bits (exact match).
    pub hash_bits: u32,
    /// Gateways (1 for a gateway unit).
    pub gateways: u32,
    /// Meter ALUs, summed over its stages (its meters, registers,
    /// LPF/WRED and selector take one each in every stage it occupies).
    pub meter_alus: u32,
    /// Statistics ALUs, summed over its stages (each counter takes one in
    /// every stage it occupies).
    pub stats_alus: u32,
    /// Scholz et al. 2020: percent of the chip's SRAM (exact tables).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sram_percent: Option<f64>,
    /// Scholz et al. 2020: percent of the chip's TCAM (ternary, LPM).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tcam_percent: Option<f64>,
    /// True when the entries or key bits are outside what Scholz et al.
    /// measured: their figure is an extrapolation.
    pub scholz_extrapolated: bool,
    /// Per stage it occupies.
    pub parts: Vec<Part>,
}

/// A unit's share of one stage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Part {
    /// The stage.
    pub stage: u32,
    /// Entries in it.
    pub entries: u64,
    /// All SRAM blocks (match, action data, counters/meters/registers).
    pub sram_blocks: u32,
    /// TCAM blocks.
    pub tcam_blocks: u32,
    /// Map RAMs.
    pub map_rams: u32,
    /// Hash bits.
    pub hash_bits: u32,
    /// Gateways.
    pub gateways: u32,
    /// Logical tables (0 for a gateway).
    pub logical_tables: u32,
    /// Meter ALUs.
    pub meter_alus: u32,
    /// Statistics ALUs.
    pub stats_alus: u32,
}

/// One stage's totals over every gress.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct StageTotals {
    /// The stage and its sums (`entries`: of every part).
    #[serde(flatten)]
    pub used: Part,
    /// Units in it, `gress:name`.
    pub units: Vec<String>,
}

/// The pipe's totals.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct PipeTotals {
    /// SRAM blocks used.
    pub sram_blocks: u32,
    /// SRAM blocks of all stages.
    pub sram_capacity: u32,
    /// Percent of the pipe's SRAM.
    pub sram_percent: f64,
    /// TCAM blocks used.
    pub tcam_blocks: u32,
    /// TCAM blocks of all stages.
    pub tcam_capacity: u32,
    /// Percent of the pipe's TCAM.
    pub tcam_percent: f64,
    /// Stages used (the last used stage + 1, of any gress).
    pub stages_used: u32,
}

/// A limit exceeded: a finding.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Overflow {
    /// `stage_memory` (a stage over its limit, every gress together) or
    /// `pipe_memory` (the pipe's total over all its stages).
    pub kind: &'static str,
    /// The stage, for `stage_memory`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stage: Option<u32>,
    /// `sram_blocks`, `tcam_blocks`, `map_rams`, `hash_bits`, `gateways`,
    /// `logical_tables`, `meter_alus` or `stats_alus`.
    pub resource: &'static str,
    /// What is needed.
    pub needed: u32,
    /// What there is.
    pub available: u32,
    /// The units that take it, largest first.
    pub tables: Vec<Share>,
}

/// A unit's share of an exceeded limit.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Share {
    /// The unit.
    pub name: String,
    /// What it takes, in the limit's unit.
    pub amount: u32,
}

/// The memory report of one estimated placement.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Resources {
    /// One stage's limits.
    pub limits: Limits,
    /// Every unit placed, ingress then egress, in placement order.
    pub units: Vec<UnitResources>,
    /// Every stage, totals over the gresses (which share a stage's
    /// memories).
    pub stages: Vec<StageTotals>,
    /// The pipe.
    pub pipe: PipeTotals,
    /// The pipe's SRAM or TCAM over what all its stages hold: the
    /// program does not fit, wherever its tables go (findings).
    pub overflows: Vec<Overflow>,
    /// Stages over a limit as the estimate placed them (both gresses
    /// together; it leaves hash bits out of a stage's fullness, and direct
    /// counters, meters and registers' SRAM when it places again without
    /// them; the compiler would move tables to later stages): caveats, not
    /// findings.
    pub stage_over: Vec<Overflow>,
}

/// The memory report of `plan`, made by `model` from `program`.
pub fn resources(
    model: &ModelSpec,
    program: &Program,
    plan: &PipelinePlan,
    scholz: &Scholz,
) -> Result<Resources, ModelError> {
    let (Some(m), Some(p)) = (model.mau(), model.placement()) else {
        return Err(ModelError::NotApplicable {
            model: model.name.clone(),
            message: "it places no tables (not a tofino_mau_estimate model)".into(),
        });
    };
    let r = &p.resources;
    let limits = Limits {
        stages: m.stages,
        sram_blocks: r.sram_blocks,
        tcam_blocks: r.tcam_blocks,
        map_rams: r.map_rams,
        hash_bits: r.hash_bits,
        gateways: r.gateways,
        logical_tables: r.logical_tables,
        meter_alus: r.meter_alus,
        stats_alus: r.stats_alus,
    };
    let mut units = Vec::new();
    for g in &plan.gresses {
        units.extend(gress_units(p, program, g, scholz));
    }
    let stages = totals(&units, m.stages, |_| true);
    let pipe = pipe_totals(&limits, &stages);
    let overflows = pipe_overflows(&pipe, &units);
    let stage_over = stage_overflows(&limits, &stages, &units);
    Ok(Resources {
        limits,
        units,
        stages,
        pipe,
        overflows,
        stage_over,
    })
}

/// The units of one gress with their parts.
fn gress_units(
    p: &Placement,
    program: &Program,
    g: &GressPlan,
    scholz: &Scholz,
) -> Vec<UnitResources> {
    let Some(graph) = &g.graph else {
        return Vec::new();
    };
    (0..graph.units.len())
        .filter_map(|i| unit_resources(p, program, g, graph, i, scholz))
        .collect()
}

fn unit_resources(
    p: &Placement,
    program: &Program,
    g: &GressPlan,
    graph: &DepGraph,
    i: usize,
    scholz: &Scholz,
) -> Option<UnitResources> {
    let u = graph.units.get(i)?;
    let &(first, last) = g.unit_stages.get(i)?;
    let mm = &p.memories;
    let kind = usage::unit_kind(program, u);
    let table = match &u.kind {
        UnitKind::Table { table } => Some(program.table(*table)),
        _ => None,
    };
    let key_bits = table.map_or(0, usage::key_bits);
    let action_bits = table.map_or(0, |t| usage::action_data_bits(program, t));
    let width = usage::exact_width(mm, key_bits);
    let ways = usage::exact_ways(mm, key_bits, usage::unit_entries(p, program, u));
    let (meter_alus, stats_alus) = (
        super::memory::stateful_count(program, u),
        usage::counter_count(program, u),
    );
    let mut parts = Vec::new();
    let memory = g.unit_memory.get(i).map_or(&[][..], Vec::as_slice);
    for (n, sm) in memory.iter().enumerate() {
        // An ALPM pre-classifier's part (TCAM) only sets the partition
        // index: immediate data.
        let pre_classifier = kind == "alpm" && sm.tcam > 0;
        let action = if pre_classifier {
            0
        } else {
            usage::action_blocks(mm, action_bits, sm.entries)
        };
        let stateful = usage::stateful_blocks(mm, program, u, sm.entries, n == 0);
        parts.push(Part {
            stage: sm.stage,
            entries: sm.entries,
            sram_blocks: sm.sram + action + stateful,
            tcam_blocks: sm.tcam,
            map_rams: stateful,
            hash_bits: if kind == "exact" {
                usage::hash_bits(mm, sm.sram, width, ways)
            } else {
                0
            },
            gateways: 0,
            logical_tables: 1,
            // Its ALUs go with the ATCAM's result, not the pre-classifier.
            meter_alus: if pre_classifier { 0 } else { meter_alus },
            stats_alus: if pre_classifier { 0 } else { stats_alus },
        });
    }
    if matches!(u.kind, UnitKind::Gateway) {
        parts.push(Part {
            stage: first,
            gateways: 1,
            ..Part::default()
        });
    }
    let entries = usage::unit_entries(p, program, u);
    let share = scholz.share(kind, entries, key_bits);
    let sum = |f: fn(&Part) -> u32| parts.iter().map(f).sum::<u32>();
    let match_sram: u32 = memory.iter().map(|m| m.sram).sum();
    let action_sram: u32 = memory
        .iter()
        .filter(|m| !(kind == "alpm" && m.tcam > 0))
        .map(|m| usage::action_blocks(mm, action_bits, m.entries))
        .sum();
    Some(UnitResources {
        name: u.name.clone(),
        gress: g.gress,
        kind,
        first_stage: first,
        last_stage: last,
        entries,
        key_bits,
        match_sram_blocks: match_sram,
        tcam_blocks: sum(|x| x.tcam_blocks),
        action_data_bits: action_bits,
        action_sram_blocks: action_sram,
        stateful_sram_blocks: sum(|x| x.map_rams),
        map_rams: sum(|x| x.map_rams),
        hash_bits: sum(|x| x.hash_bits),
        gateways: sum(|x| x.gateways),
        meter_alus: sum(|x| x.meter_alus),
        stats_alus: sum(|x| x.stats_alus),
        sram_percent: share
            .filter(|s| s.memory == Memory::Sram)
            .map(|s| s.percent),
        tcam_percent: share
            .filter(|s| s.memory == Memory::Tcam)
            .map(|s| s.percent),
        scholz_extrapolated: share.is_some_and(|s| s.extrapolated),
        parts,
    })
}

/// Per stage, the sums of the parts of the units `keep` selects.
fn totals(
    units: &[UnitResources],
    stages: u32,
    keep: impl Fn(&UnitResources) -> bool,
) -> Vec<StageTotals> {
    let mut out: Vec<StageTotals> = (0..stages)
        .map(|s| StageTotals {
            used: Part {
                stage: s,
                ..Part::default()
            },
            units: Vec::new(),
        })
        .collect();
    for u in units.iter().filter(|u| keep(u)) {
        for x in &u.parts {
            let Some(t) = out.get_mut(x.stage as usize) else {
                continue;
            };
            let s = &mut t.used;
            s.entries = s.entries.saturating_add(x.entries);
            s.sram_blocks += x.sram_blocks;
            s.tcam_blocks += x.tcam_blocks;
            s.map_rams += x.map_rams;
            s.hash_bits += x.hash_bits;
            s.gateways += x.gateways;
            s.logical_tables += x.logical_tables;
            s.meter_alus += x.meter_alus;
            s.stats_alus += x.stats_alus;
            t.units.push(format!("{}:{}", gress_name(u.gress), u.name));
        }
    }
    out
}

fn gress_name(g: Gress) -> &'static str {
    match g {
        Gress::Ingress => "ingress",
        Gress::Egress => "egress",
        Gress::Ghost => "ghost",
        Gress::Unknown => "unknown",
    }
}

/// The pipe's totals.
fn pipe_totals(l: &Limits, stages: &[StageTotals]) -> PipeTotals {
    let sram: u32 = stages.iter().map(|s| s.used.sram_blocks).sum();
    let tcam: u32 = stages.iter().map(|s| s.used.tcam_blocks).sum();
    let (sc, tc) = (l.sram_blocks * l.stages, l.tcam_blocks * l.stages);
    let pct = |a: u32, c: u32| {
        if c == 0 {
            0.0
        } else {
            f64::from(a) * 100.0 / f64::from(c)
        }
    };
    PipeTotals {
        sram_blocks: sram,
        sram_capacity: sc,
        sram_percent: pct(sram, sc),
        tcam_blocks: tcam,
        tcam_capacity: tc,
        tcam_percent: pct(tcam, tc),
        stages_used: stages
            .iter()
            .filter(|s| !s.units.is_empty())
            .map(|s| s.used.stage + 1)
            .max()
            .unwrap_or(0),
    }
}

/// One figure of a part.
type PartFigure = fn(&Part) -> u32;

/// Each resource of a stage: its name, its use (a part's share) and limit.
type Measure = (&'static str, PartFigure, fn(&Limits) -> u32);

const MEASURES: [Measure; 8] = [
    ("sram_blocks", |p| p.sram_blocks, |l| l.sram_blocks),
    ("tcam_blocks", |p| p.tcam_blocks, |l| l.tcam_blocks),
    ("map_rams", |p| p.map_rams, |l| l.map_rams),
    ("hash_bits", |p| p.hash_bits, |l| l.hash_bits),
    ("gateways", |p| p.gateways, |l| l.gateways),
    ("logical_tables", |p| p.logical_tables, |l| l.logical_tables),
    ("meter_alus", |p| p.meter_alus, |l| l.meter_alus),
    ("stats_alus", |p| p.stats_alus, |l| l.stats_alus),
];

/// The stages of `stages` over a limit, each naming its units' shares.
fn stage_overflows(l: &Limits, stages: &[StageTotals], units: &[UnitResources]) -> Vec<Overflow> {
    let mut out = Vec::new();
    for s in stages {
        for (name, used, limit) in MEASURES {
            let (needed, available) = (used(&s.used), limit(l));
            if needed <= available {
                continue;
            }
            let shares = units.iter().filter_map(|u| {
                let v: u32 = u
                    .parts
                    .iter()
                    .filter(|x| x.stage == s.used.stage)
                    .map(used)
                    .sum();
                (v > 0).then(|| (u.name.clone(), v))
            });
            out.push(Overflow {
                kind: "stage_memory",
                stage: Some(s.used.stage),
                resource: name,
                needed,
                available,
                tables: largest(shares.collect()),
            });
        }
    }
    out
}

/// The pipe's SRAM or TCAM over all its stages.
fn pipe_overflows(pipe: &PipeTotals, units: &[UnitResources]) -> Vec<Overflow> {
    let mut out = Vec::new();
    let over: [(&'static str, u32, u32, PartFigure); 2] = [
        ("sram_blocks", pipe.sram_blocks, pipe.sram_capacity, |p| {
            p.sram_blocks
        }),
        ("tcam_blocks", pipe.tcam_blocks, pipe.tcam_capacity, |p| {
            p.tcam_blocks
        }),
    ];
    for (name, needed, available, f) in over {
        if needed <= available {
            continue;
        }
        let shares = units
            .iter()
            .map(|u| (u.name.clone(), u.parts.iter().map(f).sum::<u32>()))
            .filter(|x| x.1 > 0)
            .collect();
        out.push(Overflow {
            kind: "pipe_memory",
            stage: None,
            resource: name,
            needed,
            available,
            tables: largest(shares),
        });
    }
    out
}

/// Shares, largest first (ties by name).
fn largest(mut v: Vec<(String, u32)>) -> Vec<Share> {
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v.into_iter()
        .map(|(name, amount)| Share { name, amount })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits {
            stages: 2,
            sram_blocks: 80,
            tcam_blocks: 24,
            map_rams: 48,
            hash_bits: 416,
            gateways: 16,
            logical_tables: 16,
            meter_alus: 4,
            stats_alus: 4,
        }
    }

    fn unit(name: &str, gress: Gress, parts: &[(u32, u32, u32)]) -> UnitResources {
        UnitResources {
            name: name.into(),
            gress,
            kind: "exact",
            first_stage: parts.first().map_or(0, |p| p.0),
            last_stage: parts.last().map_or(0, |p| p.0),
            entries: 1,
            key_bits: 32,
            match_sram_blocks: 0,
            tcam_blocks: parts.iter().map(|p| p.2).sum(),
            action_data_bits: 0,
            action_sram_blocks: 0,
            stateful_sram_blocks: 0,
            map_rams: 0,
            hash_bits: 0,
            gateways: 0,
            meter_alus: 0,
            stats_alus: 0,
            sram_percent: None,
            tcam_percent: None,
            scholz_extrapolated: false,
            parts: parts
                .iter()
                .map(|&(stage, sram, tcam)| Part {
                    stage,
                    sram_blocks: sram,
                    tcam_blocks: tcam,
                    logical_tables: 1,
                    ..Part::default()
                })
                .collect(),
        }
    }

    /// Ingress and egress add up in a stage; 50 + 40 SRAM blocks in
    /// stage 0 is a stage over its 80 (a caveat), 90 + 60 of 160 in the
    /// pipe is no overflow; 170 would be, naming the tables largest first.
    #[test]
    fn stages_add_the_gresses_and_the_pipe_overflows_past_its_stages() {
        let l = limits();
        let units = vec![
            unit("a", Gress::Ingress, &[(0, 50, 0), (1, 10, 0)]),
            unit("b", Gress::Egress, &[(0, 40, 2), (1, 50, 0)]),
        ];
        let st = totals(&units, l.stages, |_| true);
        assert_eq!(st[0].used.sram_blocks, 90);
        assert_eq!(st[0].used.logical_tables, 2);
        assert_eq!(st[0].units, ["ingress:a", "egress:b"]);
        let pipe = pipe_totals(&l, &st);
        assert_eq!((pipe.sram_blocks, pipe.sram_capacity), (150, 160));
        assert!((pipe.sram_percent - 93.75).abs() < 1e-9);
        assert_eq!(pipe.stages_used, 2);
        assert!(pipe_overflows(&pipe, &units).is_empty());
        let over = stage_overflows(&l, &st, &units);
        assert_eq!(over.len(), 1);
        assert_eq!((over[0].stage, over[0].needed), (Some(0), 90));
        assert_eq!(over[0].tables[0].name, "a");

        let more = vec![
            unit("a", Gress::Ingress, &[(0, 80, 0), (1, 10, 0)]),
            unit("b", Gress::Egress, &[(1, 80, 0)]),
        ];
        let st = totals(&more, l.stages, |_| true);
        let o = pipe_overflows(&pipe_totals(&l, &st), &more);
        assert_eq!(o.len(), 1);
        assert_eq!(
            (o[0].kind, o[0].needed, o[0].available),
            ("pipe_memory", 170, 160)
        );
        let names: Vec<&str> = o[0].tables.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
    }
}
