//! An algorithmic-LPM (ALPM) table as bf-p4c builds it
//! (`bf-p4c/midend/alpm.cpp`, `SplitAlpm`): a pre-classifier TCAM table
//! that writes a partition index, then the algorithmic-TCAM (ATCAM) table
//! that matches within that partition in SRAM (`bf-p4c/mau/table_layout.cpp`,
//! `TableLayout::check_for_atcam`: ternary data kept twice in the RAM
//! line, the partition index selecting the RAM row). The ATCAM is match
//! dependent on the pre-classifier, so it goes at least one stage later.

use p4cost_ir::{ExternKind, MatchKind, Program, Table};

use super::memory::Needs;
use crate::spec::Placement;

/// `Alpm()` without arguments (`SplitAlpm::postorder` defaults).
const DEFAULT_PARTITIONS: u64 = 1024;
const DEFAULT_SUBTREES: u64 = 2;
/// An ATCAM entry's word spans at most this many RAMs: its priority is
/// ranked on one result bus (`LayoutChoices::setup_exact_match`: no
/// ATCAM layout with more than one overhead word). Two is what the
/// compiler chose on switch_tofino_x1's 69-bit IPv6 entries.
const ATCAM_MAX_WIDTH: u64 = 2;

/// The two tables an ALPM table becomes.
#[derive(Debug, Clone)]
pub(super) struct AlpmSplit {
    /// The pre-classifier: TCAM, `partitions * subtrees` entries over the
    /// table's whole key.
    pub(super) pre: Needs,
    /// The ATCAM partitions: SRAM, the table's entries.
    pub(super) atcam: Needs,
}

/// The ALPM parameters of `t` when it is an ALPM table: its
/// `implementation` (or `alpm`) names an `Alpm` instance, or it carries
/// `@alpm(1)` (then `@alpm_partitions` / `@alpm_subtrees_per_partition`).
fn params(program: &Program, t: &Table) -> Option<Vec<(String, u64)>> {
    if let Some(imp) = t.implementation.as_deref() {
        let imp = imp.trim().trim_start_matches('.');
        if let Some(x) = program
            .externs
            .iter()
            .find(|x| x.name == imp && matches!(&x.kind, ExternKind::Other(k) if k == "Alpm"))
        {
            return Some(x.args.clone());
        }
    }
    let ann = |n: &str| {
        t.annotations
            .iter()
            .find(|a| a.name == n)
            .and_then(|a| a.body.trim().parse::<u64>().ok())
    };
    if ann("alpm").is_some_and(|v| v != 0) {
        let mut out = Vec::new();
        if let Some(v) = ann("alpm_partitions") {
            out.push(("number_partitions".to_string(), v));
        }
        if let Some(v) = ann("alpm_subtrees_per_partition") {
            out.push(("subtrees_per_partition".to_string(), v));
        }
        return Some(out);
    }
    None
}

/// True when `t` is an ALPM table (split by the compiler).
pub(super) fn is_alpm(program: &Program, t: &Table) -> bool {
    params(program, t).is_some()
}

/// The pre-classifier and ATCAM needs of `t`, or `None` when it is not an
/// ALPM table or has no LPM key.
pub(super) fn split(
    p: &Placement,
    program: &Program,
    t: &Table,
    entries: u64,
) -> Option<AlpmSplit> {
    let args = params(program, t)?;
    let get = |n: &str| args.iter().find(|(k, _)| k == n).map(|(_, v)| *v);
    let width = |k: &p4cost_ir::TableKey| u64::from(k.width_bits.unwrap_or(32));
    let lpm = t.keys.iter().find(|k| k.match_kind == MatchKind::Lpm)?;
    let lpm_bits = width(lpm);
    let partitions = get("number_partitions")
        .unwrap_or(DEFAULT_PARTITIONS)
        .max(1);
    let subtrees = get("subtrees_per_partition")
        .unwrap_or(DEFAULT_SUBTREES)
        .max(1);
    let subset = get("atcam_subset_width").unwrap_or(lpm_bits).min(lpm_bits);
    let shift = get("shift_granularity").unwrap_or(lpm_bits).max(1);
    let mm = &p.memories;

    // Pre-classifier: the whole key in TCAM, by bits (switch_tofino_x1's
    // 12-bit VRF and 32-bit address take one 44-bit block wide: 2,048
    // entries in 4 blocks, as its context.json places `ipv4_lpm`).
    let key_bits: u64 = t
        .keys
        .iter()
        .filter(|k| k.match_kind != MatchKind::Selector)
        .map(width)
        .sum();
    let tcam_width = key_bits.div_ceil(mm.tcam_bits).max(1);
    let pre = Needs {
        logical: 1,
        ternary: 1,
        tcam_per_k: tcam_width as f64 * 1024.0 / mm.tcam_entries as f64,
        tcam_min: tcam_width as u32,
        entries: partitions.saturating_mul(subtrees),
        ..Needs::default()
    };

    // ATCAM entry: the ternary bits byte by byte, twice (s0q1 and s1q0
    // encodings); the other keys as exact bits unless a subset width
    // replaces the key by the partition key alone; a subtree id when the
    // pre-classifier has several actions and partitions hold subtrees.
    let subset_key = subset < lpm_bits || get("atcam_subset_width").is_some();
    let exact_bits: u64 = if subset_key {
        0
    } else {
        t.keys
            .iter()
            .filter(|k| k.match_kind != MatchKind::Lpm && k.match_kind != MatchKind::Selector)
            .map(width)
            .sum()
    };
    let actions = (lpm_bits - subset) / shift + 1;
    let subtree_bits = if actions > 1 && subtrees > 1 {
        u64::from(64 - (subtrees - 1).leading_zeros())
    } else {
        0
    };
    let entry_bits =
        2 * 8 * subset.div_ceil(8) + exact_bits + mm.exact_overhead_bits + subtree_bits;
    let (ram_width, per_word) =
        atcam_packing(mm.sram_word_bits, mm.exact_max_entries_per_word, entry_bits);
    // Partitions index RAM rows: past one RAM's rows a column is deeper.
    let depth = partitions.div_ceil(mm.sram_words.max(1)).max(1);
    let atcam = Needs {
        logical: 1,
        sram_per_k: (ram_width * depth) as f64 * 1024.0 / (per_word * partitions) as f64,
        sram_min: (ram_width * depth) as u32,
        entries,
        ..Needs::default()
    };
    Some(AlpmSplit { pre, atcam })
}

/// RAMs per ATCAM word and entries in it: the width (1 or 2 RAMs) that
/// holds the most entries per RAM, the narrower on a tie.
fn atcam_packing(word_bits: u64, max_per_word: u64, entry_bits: u64) -> (u64, u64) {
    let mut best = (1, 1);
    for w in 1..=ATCAM_MAX_WIDTH {
        let n = (w * word_bits / entry_bits.max(1)).clamp(1, max_per_word * w);
        // n / w > best.1 / best.0
        if n * best.0 > best.1 * w {
            best = (w, n);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// switch_tofino_x1's entries (context.json `pack_format`): an 18-bit
    /// subset key is 2 x 3 bytes + 4 + 1 = 53 bits, two per 128-bit RAM;
    /// a 32-bit one 2 x 4 bytes + 5 = 69 bits, three per two RAMs.
    #[test]
    fn packing_follows_the_compiler_on_switch() {
        assert_eq!(atcam_packing(128, 9, 53), (1, 2));
        assert_eq!(atcam_packing(128, 9, 69), (2, 3));
    }
}
