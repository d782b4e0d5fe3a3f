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
