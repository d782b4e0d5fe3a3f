//! Helpers shared by the fixture tests (included with `mod common;`).

#![allow(dead_code)]

/// The fixture directory of the workspace.
pub const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/tofino");

/// Reads a fixture file relative to `tests/fixtures/tofino`.
pub fn fixture(rel: &str) -> String {
    let path = format!("{FIXTURES}/{rel}");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

/// The names of the compiled programs.
pub const COMPILED: &[&str] = &[
    "parser_reject",
    "switch_tofino_x1",
    "tna_action_profile_1",
    "tna_hash_3",
    "tna_hash_9",
    "tna_pvs_fixed",
    "tna_random_extern",
    "tna_register_action_1",
    "tna_register_action_2",
    "tna_simple_switch",
    "tna_table_control_exact",
    "tna_table_control_lpm",
    "tna_table_control_ternary",
    "tna_table_entries_range",
    "tna_tainted_table_key",
    "tna_varbit_extract",
];

/// The Tofino corner turn added once per gress: a documented figure
/// (docs/models.md, Tofino MAU cycles), restated here so that the reader tests check the
/// compiler's per-gress totals from the stage records the reader fills.
pub const CORNER_TURN: u32 = 4;

/// The stage records of one gress, in stage order.
pub fn gress_stages(p: &p4cost_ir::Program, gress: p4cost_ir::Gress) -> Vec<p4cost_ir::MauStage> {
    let mut stages: Vec<p4cost_ir::MauStage> = p
        .mau
        .as_ref()
        .map(|m| {
            m.stages
                .iter()
                .filter(|s| s.gress == gress)
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    stages.sort_by_key(|s| s.stage);
    stages
}

/// The corner turn plus the gress's `cycles_contribute_to_latency`: the
/// compiler's documented MAU latency of the gress.
pub fn gress_cycles(p: &p4cost_ir::Program, gress: p4cost_ir::Gress) -> u32 {
    gress_stages(p, gress)
        .iter()
        .fold(CORNER_TURN, |acc, s| acc + s.cycles_contribute_to_latency)
}

/// The match-dependent stages of one gress, in stage order.
pub fn match_dependent(p: &p4cost_ir::Program, gress: p4cost_ir::Gress) -> Vec<i32> {
    gress_stages(p, gress)
        .iter()
        .filter(|s| s.match_dependent)
        .map(|s| s.stage)
        .collect()
}
