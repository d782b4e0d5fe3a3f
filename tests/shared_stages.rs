//! Ingress and egress share every MAU stage (issue 28, item 1): bf-p4c
//! places both gresses' tables in the same 12 stages (Tofino 1), each stage's
//! logical tables and memories shared, while each gress keeps its own
//! dependencies. The expectations are derived by hand from the chip's
//! per-stage limits (docs/models.md, "Tofino stage placement estimate") and
//! the arithmetic in each program's comment, not taken from the tool's
//! output.

mod common;
use common::json;
use serde_json::Value;

const TERNARY: &str = "p4-samples/tofino/shared_stage/ternary_tables.p4";
const SRAM: &str = "p4-samples/tofino/shared_stage/sram.p4";

/// The `explain` entries of the gress at `basis[i]`, as (unit, stage).
fn stages_of(v: &Value, i: usize) -> Vec<(String, u64)> {
    v["basis"][i]["explain"]
        .as_array()
        .expect("explain")
        .iter()
        .map(|u| {
            let unit = u["unit"].as_str().expect("unit").to_string();
            (unit, u["stage"].as_u64().expect("stage"))
        })
        .collect()
}

fn entry<'v>(v: &'v Value, i: usize, unit: &str) -> &'v Value {
    v["basis"][i]["explain"]
        .as_array()
        .expect("explain")
        .iter()
        .find(|u| u["unit"] == unit)
        .unwrap_or_else(|| panic!("{unit} in {v}"))
}

#[test]
fn ternary_tables_of_both_gresses_share_a_stage() {
    let v = json(&["stages", TERNARY, "--explain", "--format", "json"]);
    assert_eq!(v["basis"][0]["gress"], "ingress");
    assert_eq!(v["basis"][1]["gress"], "egress");
    // 8 ternary logical tables per stage: ingress's 5 go first (same
    // stage, no chain below any of them: the earlier gress), then 3 of
    // egress's; e4 and e5 find stage 0's 8 taken (5 + 3) and go to 1.
    let ig: Vec<(String, u64)> = (1..=5).map(|k| (format!("Ig.i{k}"), 0)).collect();
    assert_eq!(stages_of(&v, 0), ig);
    let eg: Vec<(String, u64)> = [0, 0, 0, 1, 1]
        .iter()
        .enumerate()
        .map(|(k, &s)| (format!("Eg.e{}", k + 1), s))
        .collect();
    assert_eq!(stages_of(&v, 1), eg);
    // e4 would fit stage 0 alone (egress holds 3 of its 8 there): the
    // reason names ingress and its 5.
    let why = &entry(&v, 1, "Eg.e4")["why"];
    assert_eq!(why["reason"], "resource");
    assert_eq!(why["earliest"], 0);
    assert_eq!(why["full_stage"], 0);
    assert_eq!(why["what"], "no ternary logical table left");
    assert_eq!(why["taken_by"]["gress"], "ingress");
    assert_eq!(why["taken_by"]["holds"], "5 ternary logical tables");
    // Nothing of ingress was pushed.
    assert_eq!(entry(&v, 0, "Ig.i5")["why"]["reason"], "first_stage");
    let human = common::p4cost(&["stages", TERNARY, "--explain"]);
    assert!(
        human.stdout.contains(
            "Eg.e5: resources: its dependencies allow stage 0, which is full (no ternary \
             logical table left; ingress tables hold 5 ternary logical tables of it)"
        ),
        "{}",
        human.stdout
    );
}

#[test]
fn stage_totals_count_both_gresses() {
    let v = json(&["resources", TERNARY, "--format", "json"]);
    let s = v["stages"].as_array().expect("stages");
    // Stage 0: 8 tables of 2 TCAM blocks each; stage 1: e4 and e5.
    assert_eq!(
        (
            s[0]["logical_tables"].as_u64(),
            s[0]["tcam_blocks"].as_u64()
        ),
        (Some(8), Some(16))
    );
    assert_eq!(
        (
            s[1]["logical_tables"].as_u64(),
            s[1]["tcam_blocks"].as_u64()
        ),
        (Some(2), Some(4))
    );
    assert_eq!(s[0]["units"].as_array().map(Vec::len), Some(8));
    assert!(v["stage_over"].as_array().expect("stage_over").is_empty());
}

#[test]
fn an_sram_full_stage_pushes_the_other_gress() {
    let v = json(&["stages", SRAM, "--explain", "--format", "json"]);
    // big: 159744 entries / 2 per word / 1024 words per block = 78 blocks
    // in stage 0; small needs 4, 80 - 78 = 2 are left: stage 1.
    assert_eq!(stages_of(&v, 0), vec![("Ig.big".to_string(), 0)]);
    assert_eq!(stages_of(&v, 1), vec![("Eg.small".to_string(), 1)]);
    let why = &entry(&v, 1, "Eg.small")["why"];
    assert_eq!(why["reason"], "resource");
    assert_eq!(why["what"], "SRAM blocks exhausted");
    assert_eq!(why["taken_by"]["gress"], "ingress");
    assert_eq!(why["taken_by"]["holds"], "78 SRAM blocks");
    let r = json(&["resources", SRAM, "--format", "json"]);
    let s = r["stages"].as_array().expect("stages");
    assert_eq!(s[0]["sram_blocks"].as_u64(), Some(78));
    assert_eq!(s[1]["sram_blocks"].as_u64(), Some(4));
}
