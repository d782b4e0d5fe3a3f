//! What each unit of an estimated placement takes from its stages beyond
//! its match memory (action data, counter/meter/register RAM, map RAMs,
//! hash bits, gateways), from the program and the model file's
//! `placement` section alone.

use p4cost_analysis::deps::{Unit, UnitKind};
use p4cost_ir::{ExternInstance, ExternKind, MatchKind, Program, Table};

use super::memory::{matches_in_tcam, table_entries};
use crate::spec::{Memories, Placement};

/// The match kind of a unit, as `resources` names it: `exact`,
/// `ternary`, `lpm`, `range`, `alpm` (an LPM table the compiler makes
/// algorithmic, in SRAM), `keyless`, `statements`, `gateway`.
pub fn unit_kind(program: &Program, u: &Unit) -> &'static str {
    match &u.kind {
        UnitKind::Gateway => "gateway",
        UnitKind::Statements => "statements",
        UnitKind::Table { table } => table_kind(program, program.table(*table)),
    }
}

fn table_kind(program: &Program, t: &Table) -> &'static str {
    let has = |k: MatchKind| t.keys.iter().any(|x| x.match_kind == k);
    if t.keys.is_empty() {
        "keyless"
    } else if !matches_in_tcam(program, t) {
        if has(MatchKind::Lpm) || has(MatchKind::Ternary) {
            "alpm"
        } else {
            "exact"
        }
    } else if has(MatchKind::Range) {
        "range"
    } else if has(MatchKind::Ternary) || has(MatchKind::Optional) {
        "ternary"
    } else {
        "lpm"
    }
}

/// Key bits of a table (selector inputs left out; a key of unknown width
/// counts 32 bits, as the placement counts it).
pub fn key_bits(t: &Table) -> u64 {
    t.keys
        .iter()
        .filter(|k| k.match_kind != MatchKind::Selector)
        .map(|k| u64::from(k.width_bits.unwrap_or(32)))
        .sum()
}

/// Entries a unit holds (1 for gateways and statements).
pub fn unit_entries(p: &Placement, program: &Program, u: &Unit) -> u64 {
    match &u.kind {
        UnitKind::Table { table } => table_entries(p, program.table(*table)),
        _ => 1,
    }
}

/// The widest action data of a table's actions, bits (a parameter of
/// unknown width counts 32).
pub fn action_data_bits(program: &Program, t: &Table) -> u64 {
    t.actions
        .iter()
        .map(|&a| {
            program
                .action(a)
                .params
                .iter()
                .map(|x| u64::from(x.width_bits.unwrap_or(32)))
                .sum::<u64>()
        })
        .max()
        .unwrap_or(0)
}

/// SRAM blocks `entries` entries of `bits` action data take: none when
/// the data fits in the match result (immediate); else entries packed
/// into RAM words by the next power of two of their width (at least 8
/// bits), a wider entry taking whole words.
pub fn action_blocks(mm: &Memories, bits: u64, entries: u64) -> u32 {
    if bits <= mm.immediate_bits || entries == 0 {
        return 0;
    }
    let word = mm.sram_word_bits.max(1);
    let per_block = mm.sram_words.max(1);
    let slot = bits.next_power_of_two().max(8);
    let blocks = if slot <= word {
        entries.div_ceil(per_block * (word / slot))
    } else {
        entries.div_ceil(per_block) * bits.div_ceil(word)
    };
    u32::try_from(blocks).unwrap_or(u32::MAX)
}

/// SRAM blocks (each with its map RAM) a counter, meter or register of
/// `cells` cells of `bits` bits each takes: its cells packed into blocks,
/// plus the spare bank of a two-port table (bf-p4c
/// `Memories::mems_needed(.., is_twoport)`, `StageUseEstimate`'s
/// "spare bank"); none when there is no cell.
pub fn cell_blocks(mm: &Memories, cells: u64, bits: u64) -> u32 {
    if cells == 0 {
        return 0;
    }
    let block_bits = mm.sram_words.max(1) * mm.sram_word_bits.max(1);
    let blocks = cells
        .saturating_mul(bits.max(1))
        .div_ceil(block_bits)
        .saturating_add(mm.two_port_spare_blocks);
    u32::try_from(blocks).unwrap_or(u32::MAX)
}

/// A unit's counters, meters and registers, as the RAM they take.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cells {
    /// Bits per entry of each direct object (a cell per match entry).
    direct: Vec<u64>,
    /// SRAM blocks of its indirect objects (their declared cells).
    indirect: u32,
}

impl Cells {
    /// SRAM blocks of its indirect objects, in the unit's first part.
    pub fn indirect_blocks(&self, first: bool) -> u32 {
        if first {
            self.indirect
        } else {
            0
        }
    }

    /// SRAM blocks (each with its map RAM) of a part of `entries`
    /// entries: direct objects hold one cell per entry, indirect ones are
    /// counted in the unit's first part only (`first`).
    pub fn blocks(&self, mm: &Memories, entries: u64, first: bool) -> u32 {
        let direct = self.direct.iter().fold(0u32, |a, &bits| {
            a.saturating_add(cell_blocks(mm, entries, bits))
        });
        if first {
            direct.saturating_add(self.indirect)
        } else {
            direct
        }
    }
}

/// The extern objects unit `u` calls or has attached, each name once (its
/// first instance: controls may reuse one); a `RegisterAction` it calls
/// stands for the register it works on ([`works_on`]).
fn objects<'p>(program: &'p Program, u: &Unit) -> Vec<&'p ExternInstance> {
    let mut names: Vec<&str> = u
        .externs
        .iter()
        .map(|c| works_on(program, &c.instance))
        .collect();
    if let UnitKind::Table { table } = &u.kind {
        names.extend(program.table(*table).attached.iter().map(String::as_str));
    }
    names.sort_unstable();
    names.dedup();
    names
        .iter()
        .filter_map(|n| program.externs.iter().find(|x| x.name == *n))
        .collect()
}

/// The object a call of instance `name` uses: the register of a
/// `RegisterAction` (its first instance of the name, when that names a
/// declared register), else `name` itself. bf-p4c makes one stateful ALU
/// and one RAM of a register, whatever number of `RegisterAction`s run
/// on it (`common/extract_maupipe.cpp`,
/// `AttachTables::InitializeStatefulAlus::updateAttachedSalu`: one
/// `StatefulAlu` per register, each register action an instruction of
/// it).
pub fn works_on<'p>(program: &'p Program, name: &'p str) -> &'p str {
    let Some(of) = program
        .externs
        .iter()
        .find(|x| x.name == name)
        .and_then(|x| x.works_on.as_deref())
    else {
        return name;
    };
    let register = program
        .externs
        .iter()
        .find(|x| x.name == of)
        .is_some_and(|x| x.kind == ExternKind::Register);
    if register {
        of
    } else {
        name
    }
}

/// Statistics ALUs unit `u` takes in each stage it occupies: one per
/// counter, direct or indirect, it calls or has attached (bf-p4c
/// `Memories::analyze_tables`: each counter's allocation unit counts one
/// `stats_tables`, at most `STATS_ALUS` 4 a stage; a table split over
/// stages duplicates its counters in each, `can_duplicate`).
pub fn counter_count(program: &Program, u: &Unit) -> u32 {
    let n = objects(program, u)
        .iter()
        .filter(|x| x.kind == ExternKind::Counter)
        .count();
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The counters, meters and registers unit `u` calls or has attached
/// ([`objects`]; a register through the `RegisterAction`s its actions
/// execute), and its action selector's words ([`selector_blocks`]).
pub fn cells(mm: &Memories, program: &Program, u: &Unit) -> Cells {
    let mut out = Cells::default();
    if let UnitKind::Table { table } = &u.kind {
        if let Some(sel) = super::memory::selector_of(program, program.table(*table)) {
            out.indirect = selector_blocks(mm, sel);
        }
    }
    for x in objects(program, u) {
        let bits = match x.kind {
            ExternKind::Counter => mm.counter_cell_bits,
            ExternKind::Meter => mm.meter_cell_bits,
            ExternKind::Register => u64::from(x.width_bits.unwrap_or(32)),
            _ => continue,
        };
        if x.direct {
            out.direct.push(bits);
        } else {
            let b = cell_blocks(mm, x.size.unwrap_or(0), bits);
            out.indirect = out.indirect.saturating_add(b);
        }
    }
    out
}

/// SRAM blocks (each with its map RAM) of action selector `sel`'s words:
/// a RAM line per 120 members of its largest group, per group, packed
/// 1,024 lines to a block, plus the two-port spare bank (bf-p4c
/// `Memories::swbox_bus_selectors_indirects`: `SelectorRAMLinesPerEntry *
/// num_pools` lines, `mems_needed(.., is_twoport)`; a selector that gives
/// no group figures has 4 groups of 120, `extract_maupipe.cpp`).
pub fn selector_blocks(mm: &Memories, sel: &ExternInstance) -> u32 {
    let per_line = mm.selector_line_members.max(1);
    let members = sel.max_group_size.unwrap_or(per_line);
    let groups = sel
        .args
        .iter()
        .find(|(n, _)| n == "num_groups")
        .map_or(mm.selector_default_groups, |a| a.1);
    let lines = members.div_ceil(per_line).saturating_mul(groups);
    let blocks = lines
        .div_ceil(mm.sram_words.max(1))
        .saturating_add(mm.two_port_spare_blocks);
    u32::try_from(blocks).unwrap_or(u32::MAX)
}

/// Counter, meter and register RAM of a unit's part of `entries`
/// entries ([`Cells::blocks`]).
pub fn stateful_blocks(
    mm: &Memories,
    program: &Program,
    u: &Unit,
    entries: u64,
    first: bool,
) -> u32 {
    cells(mm, program, u).blocks(mm, entries, first)
}

/// Hash bits an exact-match part of `sram` match blocks and `ways` hash
/// ways takes: a RAM line select per way, plus the bits that pick a RAM
/// within a way when a way holds several.
pub fn hash_bits(mm: &Memories, sram: u32, width: u64, ways: u64) -> u32 {
    if sram == 0 {
        return 0;
    }
    let ways = ways.max(1);
    let rams_per_way = u64::from(sram).div_ceil(ways * width.max(1)).max(1);
    let select = u64::from(64 - (rams_per_way - 1).leading_zeros());
    u32::try_from(ways * (mm.hash_way_bits + select)).unwrap_or(u32::MAX)
}

/// Exact entries of `key_bits` one RAM word holds.
pub fn exact_per_word(mm: &Memories, key_bits: u64) -> u64 {
    let entry_bits = key_bits + mm.exact_overhead_bits;
    (mm.sram_word_bits / entry_bits.max(1)).clamp(1, mm.exact_max_entries_per_word)
}

/// Hash ways of an exact table of `entries` entries of `key_bits`: one
/// when the key is narrower than a RAM's line select (log2 of its words)
/// and the entries fit one RAM deep, bf-p4c's identity hash
/// (`StageUseEstimate::calculate_way_sizes`); else `exact_min_ways`.
pub fn exact_ways(mm: &Memories, key_bits: u64, entries: u64) -> u64 {
    let line_select = u64::from(64 - (mm.sram_words.max(1) - 1).leading_zeros());
    let one_deep = exact_per_word(mm, key_bits).saturating_mul(mm.sram_words);
    if key_bits < line_select && entries <= one_deep {
        1
    } else {
        mm.exact_min_ways.max(1)
    }
}

/// RAM words one exact entry of `key_bits` spans.
pub fn exact_width(mm: &Memories, key_bits: u64) -> u64 {
    (key_bits + mm.exact_overhead_bits)
        .div_ceil(mm.sram_word_bits.max(1))
        .max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mm() -> Memories {
        let m = crate::model_by_name("tofino1-mau-estimate").expect("model");
        m.placement().expect("placement").memories
    }

    /// 32 bits ride in the match result; 48 bits take a 64-bit slot, two
    /// per 128-bit word: 100,000 entries need ceil(100000 / 2048) = 49
    /// blocks; 200 bits take two words per entry.
    #[test]
    fn action_data_blocks() {
        let m = mm();
        assert_eq!(action_blocks(&m, 32, 100_000), 0);
        assert_eq!(action_blocks(&m, 48, 100_000), 49);
        assert_eq!(action_blocks(&m, 128, 1024), 1);
        assert_eq!(action_blocks(&m, 200, 1024), 2);
        assert_eq!(action_blocks(&m, 8 + 32, 1), 1);
    }

    /// Four ways of one RAM each take 4 x 10 line-select bits (the
    /// compiler's figure for a 4-RAM exact table); eight RAMs, two per
    /// way, one more bit per way.
    #[test]
    fn exact_hash_bits() {
        let m = mm();
        assert_eq!(hash_bits(&m, 4, 1, 4), 40);
        assert_eq!(hash_bits(&m, 8, 1, 4), 44);
        assert_eq!(hash_bits(&m, 0, 1, 4), 0);
        assert_eq!(hash_bits(&m, 1, 1, 1), 10);
    }

    /// A 9-bit key is narrower than a 1,024-word RAM's 10 line-select
    /// bits: 512 entries (at most 9 per word: 9,216 one RAM deep) take one
    /// way (identity hash); a 10-bit key, or 9,217 entries, four.
    #[test]
    fn identity_hash_takes_one_way() {
        let m = mm();
        assert_eq!(exact_ways(&m, 9, 512), 1);
        assert_eq!(exact_ways(&m, 9, 9216), 1);
        assert_eq!(exact_ways(&m, 9, 9217), 4);
        assert_eq!(exact_ways(&m, 10, 512), 4);
    }

    /// 65,536 64-bit counters fill 32 blocks of 1,024 x 128 bits, and
    /// the two-port spare bank makes 33 (bf-p4c: 65536 / (1024 * 2) plus
    /// one); one counter 1 + 1; a 32-bit register of 4,096 cells
    /// 4096 / (1024 * 4) plus one, 2.
    #[test]
    fn counter_cells() {
        let m = mm();
        assert_eq!(cell_blocks(&m, 65_536, 64), 33);
        assert_eq!(cell_blocks(&m, 1, 64), 2);
        assert_eq!(cell_blocks(&m, 4096, 32), 2);
        assert_eq!(cell_blocks(&m, 0, 64), 0);
    }

    /// A selector of no group figures: 4 groups of one 120-member line,
    /// 4 lines in one block, plus the spare: 2. Groups of up to 1,200
    /// members (10 lines each), 1,024 of them: 10,240 lines, 10 blocks
    /// and the spare, 11.
    #[test]
    fn selector_words() {
        use p4cost_ir::{FileId, Span};
        let mut sel = ExternInstance {
            name: "sel".into(),
            kind: ExternKind::ActionSelector,
            size: None,
            width_bits: None,
            direct: false,
            max_group_size: None,
            args: Vec::new(),
            works_on: None,
            span: Span::file_start(FileId(0)),
        };
        assert_eq!(selector_blocks(&mm(), &sel), 2);
        sel.max_group_size = Some(1200);
        sel.args = vec![("num_groups".into(), 1024)];
        assert_eq!(selector_blocks(&mm(), &sel), 11);
    }

    /// Two controls may each declare a counter `stats`: the unit's call
    /// counts one instance (the first), not every instance of the name
    /// (a regression: switch_tofino_x1's ACLs counted 21 blocks each).
    #[test]
    fn a_name_declared_twice_counts_once() {
        use p4cost_ir::{ExternCall, ExternInstance, ExternUse, FileId, InputKind, Span};
        let span = Span::file_start(FileId(0));
        let mut program = Program::new("p", InputKind::P4Source);
        for (direct, size) in [(true, None), (false, Some(1_000_000))] {
            program.externs.push(ExternInstance {
                name: "stats".into(),
                kind: ExternKind::Counter,
                size,
                width_bits: None,
                direct,
                max_group_size: None,
                args: Vec::new(),
                works_on: None,
                span,
            });
        }
        let u = Unit {
            name: "tbl_count".into(),
            kind: UnitKind::Statements,
            span,
            match_reads: Vec::new(),
            action_reads: Vec::new(),
            writes: Vec::new(),
            nodes: Vec::new(),
            externs: vec![ExternCall {
                instance: "stats".into(),
                ty: "Counter".into(),
                method: "count".into(),
                uses: ExternUse::Counter,
                divides: false,
                index_reads: Vec::new(),
                result: None,
                span,
            }],
        };
        // The first `stats` is direct: 1,024 entries of 64 bits, one
        // block, and the spare bank.
        assert_eq!(stateful_blocks(&mm(), &program, &u, 1024, true), 2);
    }
}
