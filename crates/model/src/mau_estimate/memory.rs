//! Memory side of the placement estimate: what a unit needs from a stage
//! (logical tables, gateways, meter ALUs, SRAM and TCAM blocks for its
//! entries), whether a stage still holds it, and the "does not fit" error.

use p4cost_analysis::deps::{self, DepGraph, UnitKind};
use p4cost_ir::{ControlId, ExternKind, ExternUse, MatchKind, Program};

use crate::spec::{ModelSpec, Placement};
use crate::ModelError;

/// Memory blocks in one stage: a unit's share, or a stage's capacity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StageMemory {
    /// The stage (0 for a capacity).
    pub stage: u32,
    /// SRAM blocks.
    pub sram: u32,
    /// TCAM blocks.
    pub tcam: u32,
    /// Entries the unit's part holds (0 for a capacity or a stage total).
    pub entries: u64,
}

/// What a unit needs from a stage.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Needs {
    pub(super) logical: u32,
    pub(super) ternary: u32,
    pub(super) gateway: u32,
    pub(super) meter_alus: u32,
    /// Memory blocks per 1,024 entries for the unit's kind of memory.
    pub(super) sram_per_k: f64,
    pub(super) tcam_per_k: f64,
    /// Fewest blocks a part takes.
    pub(super) sram_min: u32,
    pub(super) tcam_min: u32,
    pub(super) entries: u64,
}

#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Used {
    pub(super) logical: u32,
    pub(super) ternary: u32,
    pub(super) gateway: u32,
    pub(super) meter_alus: u32,
    pub(super) sram: u32,
    pub(super) tcam: u32,
}

pub(super) enum Fit {
    /// Does not fit at all: what ran out.
    No(&'static str),
    /// Fits `entries` entries using `sram`, `tcam` blocks.
    Part(u64, u32, u32),
}

pub(super) fn fits(p: &Placement, st: &Used, need: &Needs, entries: u64) -> Fit {
    let r = &p.resources;
    if st.logical + need.logical > r.logical_tables {
        return Fit::No("no logical table left");
    }
    if st.ternary + need.ternary > r.ternary_tables {
        return Fit::No("no ternary logical table left");
    }
    if st.gateway + need.gateway > r.gateways {
        return Fit::No("no gateway left");
    }
    if st.meter_alus + need.meter_alus > r.meter_alus {
        return Fit::No("no meter/stateful ALU left");
    }
    let blocks = |per_k: f64, min: u32, e: u64| -> u32 {
        if per_k <= 0.0 {
            return 0;
        }
        ((per_k * e as f64 / 1024.0).ceil() as u32).max(min)
    };
    let sram_free = r.sram_blocks.saturating_sub(st.sram);
    let tcam_free = r.tcam_blocks.saturating_sub(st.tcam);
    let want_s = blocks(need.sram_per_k, need.sram_min, entries);
    let want_t = blocks(need.tcam_per_k, need.tcam_min, entries);
    if want_s <= sram_free && want_t <= tcam_free {
        return Fit::Part(entries, want_s, want_t);
    }
    // The most entries the free memories hold.
    let cap = |per_k: f64, free: u32, min: u32| -> u64 {
        if per_k <= 0.0 {
            u64::MAX
        } else if free < min {
            0
        } else {
            ((free as f64) * 1024.0 / per_k).floor() as u64
        }
    };
    let fit = cap(need.sram_per_k, sram_free, need.sram_min)
        .min(cap(need.tcam_per_k, tcam_free, need.tcam_min))
        .min(entries);
    if fit == 0 {
        return Fit::No(if want_s > sram_free {
            "SRAM blocks exhausted"
        } else {
            "TCAM blocks exhausted"
        });
    }
    Fit::Part(
        fit,
        blocks(need.sram_per_k, need.sram_min, fit).min(sram_free),
        blocks(need.tcam_per_k, need.tcam_min, fit).min(tcam_free),
    )
}

pub(super) fn take(st: &mut Used, need: &Needs, sram: u32, tcam: u32) {
    st.logical += need.logical;
    st.ternary += need.ternary;
    st.gateway += need.gateway;
    st.meter_alus += need.meter_alus;
    st.sram += sram;
    st.tcam += tcam;
}

/// True when a table matches in TCAM (any ternary, LPM or range key that
/// is not implemented as ALPM, or no key at all).
pub(super) fn uses_tcam(t: &p4cost_ir::Table) -> bool {
    let alpm = t
        .annotations
        .iter()
        .any(|a| a.name == "alpm" || a.name == "atcam_partition_index")
        || t.implementation
            .as_deref()
            .is_some_and(|i| i.contains("Alpm") || i.contains("alpm"));
    if t.keys.is_empty() {
        return true;
    }
    !alpm
        && t.keys.iter().any(|k| {
            matches!(
                k.match_kind,
                MatchKind::Ternary | MatchKind::Lpm | MatchKind::Range | MatchKind::Optional
            )
        })
}

/// [`uses_tcam`], knowing the program: an ALPM table whose
/// `implementation` names an `Alpm` instance matches in SRAM (its
/// pre-classifier aside, placed as its own part).
pub(super) fn matches_in_tcam(program: &Program, t: &p4cost_ir::Table) -> bool {
    uses_tcam(t) && !super::alpm::is_alpm(program, t)
}

pub(super) fn table_entries(p: &Placement, t: &p4cost_ir::Table) -> u64 {
    let annotated = t
        .annotations
        .iter()
        .find(|a| a.name == "p4cost_entries")
        .and_then(|a| a.body.trim().parse::<u64>().ok());
    if t.keys.is_empty() {
        return 1;
    }
    annotated
        .or(t.size)
        .or((t.const_entries > 0).then_some(t.const_entries))
        .unwrap_or(p.default_table_size)
}

pub(super) fn unit_needs(p: &Placement, program: &Program, u: &deps::Unit) -> Needs {
    match &u.kind {
        UnitKind::Gateway => Needs {
            gateway: 1,
            ..Needs::default()
        },
        UnitKind::Statements => Needs {
            logical: 1,
            ternary: 1,
            meter_alus: stateful_count(program, u),
            entries: 1,
            ..Needs::default()
        },
        UnitKind::Table { table } => Needs {
            meter_alus: stateful_count(program, u),
            ..table_needs(p, program, program.table(*table))
        },
    }
}

/// What a table's match needs (its meter ALUs aside): a logical table
/// (a ternary one in TCAM), its entries, and the blocks per 1,024 of them.
fn table_needs(p: &Placement, program: &Program, t: &p4cost_ir::Table) -> Needs {
    let mm = &p.memories;
    let entries = table_entries(p, t);
    let key_bits: u64 = t
        .keys
        .iter()
        .filter(|k| k.match_kind != MatchKind::Selector)
        .map(|k| u64::from(k.width_bits.unwrap_or(32)))
        .sum();
    let key_bytes: u64 = t
        .keys
        .iter()
        .filter(|k| k.match_kind != MatchKind::Selector)
        .map(|k| u64::from(k.width_bits.unwrap_or(32)).div_ceil(8))
        .sum();
    let tcam = matches_in_tcam(program, t);
    let mut need = Needs {
        logical: 1,
        ternary: u32::from(tcam),
        entries,
        ..Needs::default()
    };
    if t.keys.is_empty() {
        return need;
    }
    if tcam {
        let width = (key_bytes * 8).div_ceil(mm.tcam_bits).max(1);
        need.tcam_per_k = width as f64 * 1024.0 / mm.tcam_entries as f64;
        need.tcam_min = width as u32;
    } else {
        let entry_bits = key_bits + mm.exact_overhead_bits;
        let per_word =
            (mm.sram_word_bits / entry_bits.max(1)).clamp(1, mm.exact_max_entries_per_word);
        let width = entry_bits.div_ceil(mm.sram_word_bits).max(1);
        // blocks per 1,024 entries
        need.sram_per_k = width as f64 / per_word as f64;
        need.sram_min = (width * mm.exact_min_ways) as u32;
    }
    need
}

/// The match blocks (SRAM, TCAM) the estimate gives table `t` placed
/// alone in empty stages, summed over the stages it spans: what its
/// placement takes whatever else shares its stages. At most 64 stages are
/// filled (a table larger than that reports what they hold).
pub fn table_match_blocks(p: &Placement, program: &Program, t: &p4cost_ir::Table) -> (u32, u32) {
    if let Some(split) = super::alpm::split(p, program, t, table_entries(p, t)) {
        let (a, b) = (blocks_alone(p, &split.pre), blocks_alone(p, &split.atcam));
        return (a.0 + b.0, a.1 + b.1);
    }
    blocks_alone(p, &table_needs(p, program, t))
}

/// The blocks `need` takes placed alone in empty stages (at most 64).
fn blocks_alone(p: &Placement, need: &Needs) -> (u32, u32) {
    let mut left = need.entries.max(1);
    let (mut sram, mut tcam) = (0u32, 0u32);
    for _ in 0..64 {
        let Fit::Part(entries, s, c) = fits(p, &Used::default(), need, left) else {
            break;
        };
        sram += s;
        tcam += c;
        left = left.saturating_sub(entries);
        if left == 0 || entries == 0 {
            break;
        }
    }
    (sram, tcam)
}

/// Meter ALUs a unit takes: its distinct stateful, meter and selector
/// objects.
pub(super) fn stateful_count(program: &Program, u: &deps::Unit) -> u32 {
    let mut names: Vec<String> = Vec::new();
    for c in u.externs.iter() {
        if c.uses.needs_meter_alu() || c.uses == ExternUse::Meter {
            let key = if c.instance.is_empty() {
                c.ty.clone()
            } else {
                c.instance.clone()
            };
            if !names.contains(&key) {
                names.push(key);
            }
        }
    }
    if let UnitKind::Table { table } = &u.kind {
        let t = program.table(*table);
        if selector_of(program, t).is_some() {
            names.push("$selector".into());
        }
        for a in &t.attached {
            if let Some(x) = program.externs.iter().find(|x| &x.name == a) {
                if matches!(x.kind, ExternKind::Meter | ExternKind::Register) && !names.contains(a)
                {
                    names.push(a.clone());
                }
            }
        }
    }
    names.len() as u32
}

pub(super) fn selector_of<'p>(
    program: &'p Program,
    t: &p4cost_ir::Table,
) -> Option<&'p p4cost_ir::ExternInstance> {
    let imp = t.implementation.as_deref()?;
    program
        .externs
        .iter()
        .find(|x| x.kind == ExternKind::ActionSelector && imp.contains(x.name.as_str()))
}

/// The "does not fit" error: the chain of dependencies that overflows.
pub(super) fn does_not_fit(
    model: &ModelSpec,
    program: &Program,
    control: ControlId,
    graph: &DepGraph,
    why: &[Option<usize>],
    u: usize,
    stage: u32,
) -> ModelError {
    let mut chain = vec![graph.units[u].name.clone()];
    let mut cur = u;
    while let Some(a) = why[cur] {
        chain.push(graph.units[a].name.clone());
        cur = a;
    }
    chain.reverse();
    ModelError::DoesNotFit {
        model: model.name.clone(),
        control: program.control(control).name.clone(),
        stages: model.mau().map_or(0, |m| m.stages),
        needed: stage + 1,
        chain,
    }
}

/// What a unit needs in one stage beyond what any stage has (meter and
/// stateful ALUs, logical tables: the compiler cannot spread one table's
/// over stages), said as `needs 5 meter/stateful ALUs in one stage, a
/// stage has 4`; `None` when a stage can hold it.
pub(super) fn larger_than_a_stage(r: &crate::spec::StageResources, need: &Needs) -> Option<String> {
    if need.meter_alus > r.meter_alus {
        return Some(format!(
            "needs {} meter/stateful ALUs in one stage, a stage has {}",
            need.meter_alus, r.meter_alus
        ));
    }
    if need.logical > r.logical_tables {
        return Some(format!(
            "needs {} logical tables in one stage, a stage has {}",
            need.logical, r.logical_tables
        ));
    }
    None
}
