//! The estimate's match memory per table against the compiler's
//! (issue 28 item 2): bf-p4c 9.13.4's resources.json of the compiled
//! fixtures (tests/fixtures/tofino/compiled/*/resources.json) lists each
//! SRAM and TCAM block with the table that uses it; p4cost's block model
//! (`mau_estimate::table_match_blocks`, the blocks the placement gives a
//! table) is run on the same tables as the compiler's context.json
//! describes them (keys, widths, sizes: the P4 sources are not in this
//! repository), so this measures the memory model, not the front end.
//!
//! Match memory only: SRAM is `match_entry_ram` (+ `algorithmic_tcam`,
//! ALPM's partitions), TCAM `ternary_match`. The agreement is printed and
//! held to its present level: the test fails if it gets worse.

use std::collections::BTreeMap;

use serde_json::Value;

mod common;

const PROGRAMS: [&str; 9] = [
    "tna_table_control_exact",
    "tna_table_control_lpm",
    "tna_table_control_ternary",
    "tna_table_entries_range",
    "tna_simple_switch",
    "switch_tofino_x1",
    "tna_action_profile_1",
    "tna_hash_3",
    "tna_tainted_table_key",
];

/// Per table (`used_by`), the compiler's SRAM and TCAM match blocks.
fn compiler_blocks(resources: &Value) -> BTreeMap<String, (u32, u32)> {
    let mut out: BTreeMap<String, (u32, u32)> = BTreeMap::new();
    let stages = resources["resources"]["mau"]["mau_stages"]
        .as_array()
        .expect("mau_stages");
    for st in stages {
        let rams = st["rams"]["srams"].as_array().into_iter().flatten();
        let tcams = st["tcams"]["tcams"].as_array().into_iter().flatten();
        for (block, is_tcam) in rams.map(|r| (r, false)).chain(tcams.map(|r| (r, true))) {
            for u in block["usages"].as_array().into_iter().flatten() {
                let (Some(by), Some(what)) = (u["used_by"].as_str(), u["used_for"].as_str()) else {
                    continue;
                };
                let e = out.entry(by.to_string()).or_default();
                match (is_tcam, what) {
                    (false, "match_entry_ram" | "algorithmic_tcam") => e.0 += 1,
                    (true, "ternary_match") => e.1 += 1,
                    _ => {}
                }
            }
        }
    }
    out
}

#[test]
fn match_blocks_against_the_compilers() {
    let model = p4cost_model::model_by_name("tofino1-mau-estimate").expect("model");
    let p = model.placement().expect("placement").clone();
    let (mut compared, mut equal, mut within) = (0, 0, 0);
    let mut rows = Vec::new();
    for name in PROGRAMS {
        let dir = common::root()
            .join("tests/fixtures/tofino/compiled")
            .join(name);
        let ctx = std::fs::read_to_string(dir.join("context.json")).expect("context.json");
        let program = p4cost_tofino::read_context(&ctx, "context.json").expect("reads");
        let res: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join("resources.json")).expect("resources.json"),
        )
        .expect("json");
        let theirs = compiler_blocks(&res);
        for t in program.tables.iter().filter(|t| !t.keys.is_empty()) {
            let Some(&(cs, ct)) = theirs.get(&t.name).filter(|c| c.0 + c.1 > 0) else {
                continue;
            };
            let (os, ot) = p4cost_model::mau_estimate::table_match_blocks(&p, &program, t);
            compared += 1;
            let (ours, comp) = (os + ot, cs + ct);
            if (os, ot) == (cs, ct) {
                equal += 1;
            }
            // Same memory, within a factor of two or 3 blocks.
            let same_kind = (os > 0) == (cs > 0) && (ot > 0) == (ct > 0);
            if same_kind && (ours.abs_diff(comp) <= 3 || (ours <= 2 * comp && comp <= 2 * ours)) {
                within += 1;
            }
            rows.push(format!(
                "{name} {}: ours {os}+{ot}, compiler {cs}+{ct}",
                t.name
            ));
        }
    }
    println!("{}", rows.join("\n"));
    println!(
        "match blocks (SRAM+TCAM) of {compared} tables: equal on {equal}, same memory within \
         a factor of 2 or 3 blocks on {within}"
    );
    // The present agreement (see the printout): 123 tables, equal on 93,
    // within tolerance on 122 (63 equal before exact tables of a key
    // narrower than 10 bits took one way, bf-p4c's identity hash). The
    // ALPM tables (marked from the context's `algorithmic_lpm`) compare
    // pre-classifier TCAM and ATCAM SRAM with the compiler's:
    // switch_tofino_x1 ipv4_lpm 40+4 against 41+4, ipv6_lpm64 54+16
    // against 56+16. The misses: small exact tables the compiler gives
    // fewer RAMs than the model's `exact_min_ways` takes, a range table
    // (TCAM range expansion), and tables the compiler sized up or down.
    // Lower figures mean the model got worse.
    assert_eq!(compared, 123, "tables compared");
    assert!(equal >= 93, "equal on {equal} of {compared}");
    assert!(within >= 122, "within tolerance on {within} of {compared}");
}
