//! Memory side of the placement estimate: what a unit needs from a stage
//! (logical tables, gateways, meter ALUs; SRAM blocks for its match
//! entries, action data and indirect counters, meters and registers; TCAM
//! blocks; map RAMs), whether a stage still holds it, and the "does not
//! fit" error. The blocks and hash bits a part takes are the ones
//! `resources` reports for it ([`super::usage`]).

use p4cost_analysis::deps::{self, DepGraph, UnitKind};
use p4cost_ir::{ControlId, ExternKind, ExternUse, MatchKind, Program};

use super::usage;
use crate::spec::{ModelSpec, Placement, StageResources};
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
#[derive(Debug, Clone, Default)]
pub(super) struct Needs {
    pub(super) logical: u32,
    pub(super) ternary: u32,
    /// Gateways it takes in its first stage: the `if` conditions that
    /// control it and go with it (see `place_unit`), or its own row for a
    /// gateway placed alone.
    pub(super) gateway: u32,
    pub(super) meter_alus: u32,
    /// Statistics ALUs: one per counter it calls or has attached, in each
    /// stage it occupies.
    pub(super) stats_alus: u32,
    /// Memory blocks per 1,024 entries for the unit's kind of memory.
    pub(super) sram_per_k: f64,
    pub(super) tcam_per_k: f64,
    /// Fewest blocks a part takes.
    pub(super) sram_min: u32,
    pub(super) tcam_min: u32,
    pub(super) entries: u64,
    /// Widest action data of its actions, bits (in SRAM beside the match
    /// when wider than the match result holds).
    pub(super) action_bits: u64,
    /// Its counters, meters and registers.
    pub(super) cells: usage::Cells,
    /// It cannot be split over stages: all its entries go in one stage
    /// (an indirect meter or register on a chip that cannot split one,
    /// [`stays_in_one_stage`]).
    pub(super) one_stage: bool,
    /// RAM words one exact entry spans when the unit matches exact in
    /// SRAM (its parts take hash bits, [`usage::hash_bits`]); 0 otherwise.
    pub(super) hash_width: u64,
    /// Its hash ways ([`usage::exact_ways`]).
    pub(super) hash_ways: u64,
    /// Their direct objects' SRAM is left out of a stage's fullness (a
    /// lighter count, `SramCount::NoDirectCells`; map RAMs stay).
    pub(super) direct_sram_out: bool,
}

#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Used {
    pub(super) logical: u32,
    pub(super) ternary: u32,
    pub(super) gateway: u32,
    pub(super) meter_alus: u32,
    pub(super) stats_alus: u32,
    pub(super) sram: u32,
    pub(super) tcam: u32,
    pub(super) map_rams: u32,
    pub(super) hash_bits: u32,
    /// Per resource ([`Full::index`]), how many times it was what a unit
    /// lacked here: the unit went to a later stage, or put only part of
    /// its entries here.
    pub(super) ran_out: [u32; Full::ALL.len()],
}

impl Used {
    /// Records that `what` was lacking in this stage.
    pub(super) fn lacked(&mut self, what: Full) {
        let n = &mut self.ran_out[what.index()];
        *n = n.saturating_add(1);
    }

    /// How much of `what` is in use.
    pub(super) fn of(&self, what: Full) -> u32 {
        match what {
            Full::Logical => self.logical,
            Full::Ternary => self.ternary,
            Full::Gateway => self.gateway,
            Full::MeterAlu => self.meter_alus,
            Full::StatsAlu => self.stats_alus,
            Full::Sram => self.sram,
            Full::Tcam => self.tcam,
            Full::MapRams => self.map_rams,
            Full::HashBits => self.hash_bits,
        }
    }

    /// The count of `what` in use, to change.
    pub(super) fn of_mut(&mut self, what: Full) -> &mut u32 {
        match what {
            Full::Logical => &mut self.logical,
            Full::Ternary => &mut self.ternary,
            Full::Gateway => &mut self.gateway,
            Full::MeterAlu => &mut self.meter_alus,
            Full::StatsAlu => &mut self.stats_alus,
            Full::Sram => &mut self.sram,
            Full::Tcam => &mut self.tcam,
            Full::MapRams => &mut self.map_rams,
            Full::HashBits => &mut self.hash_bits,
        }
    }
}

/// What one part of a unit takes from its stage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Taken {
    /// Entries the part holds.
    pub(super) entries: u64,
    /// SRAM blocks of match entries.
    pub(super) sram: u32,
    /// SRAM blocks of action data, counters, meters and registers.
    pub(super) other_sram: u32,
    pub(super) tcam: u32,
    pub(super) map_rams: u32,
    /// Hash bits of its exact-match ways.
    pub(super) hash_bits: u32,
    /// Gateways (the unit's first part only).
    pub(super) gateway: u32,
    /// What kept the part from holding more entries (`None`: it holds
    /// all that were left).
    pub(super) limited_by: Option<Full>,
}

/// A per-stage resource that can run out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Full {
    Logical,
    Ternary,
    Gateway,
    MeterAlu,
    StatsAlu,
    Sram,
    Tcam,
    MapRams,
    HashBits,
}

impl Full {
    /// Every resource, in the order [`Full::index`] numbers them.
    pub(super) const ALL: [Full; 9] = [
        Full::Logical,
        Full::Ternary,
        Full::Gateway,
        Full::MeterAlu,
        Full::StatsAlu,
        Full::Sram,
        Full::Tcam,
        Full::MapRams,
        Full::HashBits,
    ];

    pub(super) fn index(self) -> usize {
        self as usize
    }

    /// What a stage lacks, as `stages --explain` says it.
    pub(super) fn sentence(self) -> &'static str {
        match self {
            Full::Logical => "no logical table left",
            Full::Ternary => "no ternary logical table left",
            Full::Gateway => "no gateway left",
            Full::MeterAlu => "no meter/stateful ALU left",
            Full::StatsAlu => "no statistics ALU left",
            Full::Sram => "SRAM blocks exhausted",
            Full::Tcam => "TCAM blocks exhausted",
            Full::MapRams => "map RAMs exhausted",
            Full::HashBits => "hash bits exhausted",
        }
    }

    /// Its key, as `resources` names the figure (`sram_blocks`, ...).
    pub(super) fn key(self) -> &'static str {
        match self {
            Full::Logical => "logical_tables",
            Full::Ternary => "ternary_tables",
            Full::Gateway => "gateways",
            Full::MeterAlu => "meter_alus",
            Full::StatsAlu => "stats_alus",
            Full::Sram => "sram_blocks",
            Full::Tcam => "tcam_blocks",
            Full::MapRams => "map_rams",
            Full::HashBits => "hash_bits",
        }
    }

    /// A stage's limit of it in `r`, to read or change.
    pub(super) fn limit(self, r: &mut StageResources) -> &mut u32 {
        match self {
            Full::Logical => &mut r.logical_tables,
            Full::Ternary => &mut r.ternary_tables,
            Full::Gateway => &mut r.gateways,
            Full::MeterAlu => &mut r.meter_alus,
            Full::StatsAlu => &mut r.stats_alus,
            Full::Sram => &mut r.sram_blocks,
            Full::Tcam => &mut r.tcam_blocks,
            Full::MapRams => &mut r.map_rams,
            Full::HashBits => &mut r.hash_bits,
        }
    }

    /// Its name in a sentence (`SRAM blocks`).
    pub(super) fn name(self) -> &'static str {
        match self {
            Full::Logical => "logical tables",
            Full::Ternary => "ternary logical tables",
            Full::Gateway => "gateways",
            Full::MeterAlu => "meter/stateful ALUs",
            Full::StatsAlu => "statistics ALUs",
            Full::Sram => "SRAM blocks",
            Full::Tcam => "TCAM blocks",
            Full::MapRams => "map RAMs",
            Full::HashBits => "hash bits",
        }
    }

    /// What `need`'s part `t` takes of it.
    pub(super) fn amount(self, need: &Needs, t: &Taken) -> u32 {
        match self {
            Full::Logical => need.logical,
            Full::Ternary => need.ternary,
            Full::Gateway => t.gateway,
            Full::MeterAlu => need.meter_alus,
            Full::StatsAlu => need.stats_alus,
            Full::Sram => t.sram.saturating_add(t.other_sram),
            Full::Tcam => t.tcam,
            Full::MapRams => t.map_rams,
            Full::HashBits => t.hash_bits,
        }
    }
}

pub(super) enum Fit {
    /// Does not fit at all: what ran out.
    No(Full),
    /// Fits a part of the entries, taking this.
    Part(Taken),
}

/// What `entries` entries of `need` take; `first`: the unit's first part
/// (which holds its indirect counters, meters and registers).
pub(super) fn part_of(p: &Placement, need: &Needs, entries: u64, first: bool) -> Taken {
    let blocks = |per_k: f64, min: u32| -> u32 {
        if per_k <= 0.0 {
            return 0;
        }
        ((per_k * entries as f64 / 1024.0).ceil() as u32).max(min)
    };
    let mm = &p.memories;
    let sram = blocks(need.sram_per_k, need.sram_min);
    let cells = need.cells.blocks(mm, entries, first);
    // SRAM: match entries, action data, and counters, meters and
    // registers (direct ones a cell per entry of the part, indirect ones
    // in the first part), each of those with its map RAMs (bf-p4c's
    // `StageUseEstimate` counts both in a stage's `srams` and `maprams`).
    Taken {
        entries,
        sram,
        other_sram: usage::action_blocks(mm, need.action_bits, entries).saturating_add(
            if need.direct_sram_out {
                need.cells.indirect_blocks(first)
            } else {
                cells
            },
        ),
        tcam: tcam_blocks(mm, need, entries),
        map_rams: cells,
        hash_bits: if need.hash_width > 0 {
            usage::hash_bits(mm, sram, need.hash_width, need.hash_ways)
        } else {
            0
        },
        gateway: if first { need.gateway } else { 0 },
        limited_by: None,
    }
}

/// TCAM blocks of `entries` entries of `need`: whole rows of its width
/// (`tcam_min` blocks side by side) of 512 entries each, as the compiler
/// allocates them (a part of 819 entries of a 10-block-wide key takes two
/// rows, 20 blocks).
fn tcam_blocks(mm: &crate::spec::Memories, need: &Needs, entries: u64) -> u32 {
    if need.tcam_per_k <= 0.0 {
        return 0;
    }
    let rows = entries.div_ceil(mm.tcam_entries.max(1)).max(1);
    u32::try_from(rows.saturating_mul(u64::from(need.tcam_min.max(1)))).unwrap_or(u32::MAX)
}

/// What of a stage that has `st` in use runs out when `t` is added, if
/// anything.
fn ran_out(r: &crate::spec::StageResources, st: &Used, t: &Taken) -> Option<Full> {
    let sram = st.sram.saturating_add(t.sram).saturating_add(t.other_sram);
    if sram > r.sram_blocks {
        Some(Full::Sram)
    } else if st.tcam.saturating_add(t.tcam) > r.tcam_blocks {
        Some(Full::Tcam)
    } else if st.map_rams.saturating_add(t.map_rams) > r.map_rams {
        Some(Full::MapRams)
    } else if st.hash_bits.saturating_add(t.hash_bits) > r.hash_bits {
        Some(Full::HashBits)
    } else {
        None
    }
}

/// Whether a stage with `st` in use holds `entries` of `need`'s entries,
/// or how many of them (the most its free memories hold); `first`: no part
/// of the unit is placed yet.
pub(super) fn fits(p: &Placement, st: &Used, need: &Needs, entries: u64, first: bool) -> Fit {
    let r = &p.resources;
    if st.logical + need.logical > r.logical_tables {
        return Fit::No(Full::Logical);
    }
    if st.ternary + need.ternary > r.ternary_tables {
        return Fit::No(Full::Ternary);
    }
    if first && st.gateway + need.gateway > r.gateways {
        return Fit::No(Full::Gateway);
    }
    if st.meter_alus + need.meter_alus > r.meter_alus {
        return Fit::No(Full::MeterAlu);
    }
    if st.stats_alus + need.stats_alus > r.stats_alus {
        return Fit::No(Full::StatsAlu);
    }
    let all = part_of(p, need, entries, first);
    if ran_out(r, st, &all).is_none() {
        return Fit::Part(all);
    }
    // The most entries the free memories hold: what a part takes grows
    // with its entries, so the largest that fits is found by halving.
    let (mut lo, mut hi) = (0u64, entries);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if ran_out(r, st, &part_of(p, need, mid, first)).is_none() {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let limited_by = ran_out(r, st, &part_of(p, need, lo + 1, first)).unwrap_or(Full::Sram);
    if lo == 0 {
        return Fit::No(limited_by);
    }
    Fit::Part(Taken {
        limited_by: Some(limited_by),
        ..part_of(p, need, lo, first)
    })
}

pub(super) fn take(st: &mut Used, need: &Needs, t: &Taken) {
    st.logical += need.logical;
    st.ternary += need.ternary;
    st.gateway += t.gateway;
    st.meter_alus += need.meter_alus;
    st.stats_alus += need.stats_alus;
    st.sram = st.sram.saturating_add(t.sram).saturating_add(t.other_sram);
    st.tcam = st.tcam.saturating_add(t.tcam);
    st.map_rams = st.map_rams.saturating_add(t.map_rams);
    st.hash_bits = st.hash_bits.saturating_add(t.hash_bits);
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
        // A gateway table of its own (one that merges into a table it
        // controls takes its row with that table instead).
        UnitKind::Gateway => Needs {
            gateway: 1,
            logical: 1,
            entries: 1,
            ..Needs::default()
        },
        UnitKind::Statements => Needs {
            logical: 1,
            ternary: 1,
            meter_alus: stateful_count(program, u),
            stats_alus: usage::counter_count(program, u),
            entries: 1,
            cells: usage::cells(&p.memories, program, u),
            ..Needs::default()
        },
        UnitKind::Table { table } => {
            let t = program.table(*table);
            let mm = &p.memories;
            let exact = usage::unit_kind(program, u) == "exact";
            Needs {
                meter_alus: stateful_count(program, u),
                stats_alus: usage::counter_count(program, u),
                action_bits: usage::action_data_bits(program, t),
                cells: usage::cells(mm, program, u),
                one_stage: !p.split_indirect_stateful && stays_in_one_stage(program, u),
                hash_width: if exact {
                    usage::exact_width(mm, usage::key_bits(t))
                } else {
                    0
                },
                hash_ways: usage::exact_ways(mm, usage::key_bits(t), table_entries(p, t)),
                ..table_needs(p, program, t)
            }
        }
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
        let per_word = usage::exact_per_word(mm, key_bits);
        let width = entry_bits.div_ceil(mm.sram_word_bits).max(1);
        // blocks per 1,024 entries
        need.sram_per_k = width as f64 / per_word as f64;
        need.sram_min = (width * usage::exact_ways(mm, key_bits, entries)) as u32;
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
    for i in 0..64 {
        let Fit::Part(t) = fits(p, &Used::default(), need, left, i == 0) else {
            break;
        };
        sram += t.sram;
        tcam += t.tcam;
        left = left.saturating_sub(t.entries);
        if left == 0 || t.entries == 0 {
            break;
        }
    }
    (sram, tcam)
}

/// True when unit `u` uses an indirect meter, register (a stateful ALU),
/// LPF or WRED: bf-p4c cannot split such a table over stages on Tofino
/// (`TablePlacement::can_split` is false for every indirect attached
/// table there, and only counters, action data and selectors are
/// duplicated into each stage, `can_duplicate`), so a table with one
/// that does not fit whole in a stage goes whole to a later one.
pub(super) fn stays_in_one_stage(program: &Program, u: &deps::Unit) -> bool {
    let direct = |name: &str| {
        program
            .externs
            .iter()
            .find(|x| x.name == name)
            .is_some_and(|x| x.direct)
    };
    let calls = u.externs.iter().any(|c| {
        matches!(
            c.uses,
            ExternUse::StatefulAlu | ExternUse::Meter | ExternUse::Lpf | ExternUse::Wred
        ) && !c.ty.starts_with("Direct")
            && !direct(usage::works_on(program, &c.instance))
    });
    let attached = match &u.kind {
        UnitKind::Table { table } => program.table(*table).attached.iter().any(|a| {
            program.externs.iter().any(|x| {
                &x.name == a
                    && matches!(x.kind, ExternKind::Meter | ExternKind::Register)
                    && !x.direct
            })
        }),
        _ => false,
    };
    calls || attached
}

/// Meter ALUs a unit takes: its distinct stateful, meter and selector
/// objects.
pub(super) fn stateful_count(program: &Program, u: &deps::Unit) -> u32 {
    let mut names: Vec<String> = Vec::new();
    for c in u.externs.iter() {
        if c.uses.needs_meter_alu() || c.uses == ExternUse::Meter {
            // Register actions on one register share its stateful ALU.
            let key = if c.instance.is_empty() {
                c.ty.clone()
            } else {
                usage::works_on(program, &c.instance).to_string()
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
/// over stages; the memory of its smallest first part, which holds its
/// indirect counters, meters and registers whole), said as `needs 5
/// meter/stateful ALUs in one stage, a stage has 4`; `None` when a stage
/// can hold it.
pub(super) fn larger_than_a_stage(p: &Placement, need: &Needs) -> Option<String> {
    let r = &p.resources;
    if need.meter_alus > r.meter_alus {
        return Some(format!(
            "needs {} meter/stateful ALUs in one stage, a stage has {}",
            need.meter_alus, r.meter_alus
        ));
    }
    if need.stats_alus > r.stats_alus {
        return Some(format!(
            "needs {} statistics ALUs in one stage, a stage has {}",
            need.stats_alus, r.stats_alus
        ));
    }
    if need.logical > r.logical_tables {
        return Some(format!(
            "needs {} logical tables in one stage, a stage has {}",
            need.logical, r.logical_tables
        ));
    }
    // A table that stays in one stage needs all its entries there.
    let least = if need.one_stage {
        need.entries.max(1)
    } else {
        1
    };
    let one = part_of(p, need, least, true);
    let what = ran_out(r, &Used::default(), &one)?;
    let has = match what {
        Full::Sram => r.sram_blocks,
        Full::Tcam => r.tcam_blocks,
        Full::HashBits => r.hash_bits,
        _ => r.map_rams,
    };
    let whole = if need.one_stage {
        " (its indirect meter or register keeps it in one stage)"
    } else {
        ""
    };
    Some(format!(
        "needs {} {} in one stage{whole}, a stage has {has}",
        what.amount(need, &one),
        what.name()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placement() -> Placement {
        let m = crate::model_by_name("tofino1-mau-estimate").expect("model");
        m.placement().expect("placement").clone()
    }

    /// A stage with 16 of 16 gateway rows holds no table that brings a
    /// gateway, but holds a later part of one (its gateway went with the
    /// first part); with 4 of 4 statistics ALUs it holds no table with a
    /// counter, in any part (each part counts in its stage).
    #[test]
    fn gateways_and_stats_alus_fill_a_stage() {
        let p = placement();
        let need = Needs {
            logical: 1,
            gateway: 1,
            stats_alus: 1,
            entries: 1,
            ..Needs::default()
        };
        let full_rows = Used {
            gateway: 16,
            ..Used::default()
        };
        assert!(matches!(
            fits(&p, &full_rows, &need, 1, true),
            Fit::No(Full::Gateway)
        ));
        assert!(matches!(fits(&p, &full_rows, &need, 1, false), Fit::Part(t) if t.gateway == 0));
        let mut fifteen = Used {
            gateway: 15,
            ..Used::default()
        };
        let Fit::Part(t) = fits(&p, &fifteen, &need, 1, true) else {
            panic!("a 16th gateway fits");
        };
        take(&mut fifteen, &need, &t);
        assert_eq!((fifteen.gateway, fifteen.stats_alus), (16, 1));
        let full_alus = Used {
            stats_alus: 4,
            ..Used::default()
        };
        for first in [true, false] {
            assert!(matches!(
                fits(&p, &full_alus, &need, 1, first),
                Fit::No(Full::StatsAlu)
            ));
        }
    }
}
