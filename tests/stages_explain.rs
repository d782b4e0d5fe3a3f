//! `p4cost stages --explain` (issue 28, item 4): each table's and
//! gateway's stage and the reason it is not earlier, in the human table
//! and the JSON basis. Expectations are derived by hand from the placement
//! rules of docs/models.md ("Tofino stage placement estimate") and the
//! programs' comments, not taken from the tool's output.

mod common;
use common::{json, p4cost};
use serde_json::Value;

const KINDS: &str = "p4-samples/tofino/deps/dep_kinds.p4";
const FULL: &str = "p4-samples/tofino/deps/stage_full.p4";

/// The ingress `explain` entry of `unit`.
fn entry<'v>(v: &'v Value, unit: &str) -> &'v Value {
    v["basis"][0]["explain"]
        .as_array()
        .expect("explain")
        .iter()
        .find(|u| u["unit"] == unit)
        .unwrap_or_else(|| panic!("{unit} in {v}"))
}

#[test]
fn a_dependency_names_the_field_the_writer_and_its_stage() {
    let v = json(&["stages", KINDS, "--explain", "--format", "json"]);
    assert_eq!(v["basis"][0]["gress"], "ingress");
    let c = entry(&v, "Ig.classify");
    assert_eq!(
        (c["stage"].as_u64(), c["why"]["reason"].as_str()),
        (Some(0), Some("first_stage"))
    );
    // by_class keys on ig_md.cls, which classify (stage 0) writes.
    let b = entry(&v, "Ig.by_class");
    assert_eq!(b["stage"], 1);
    assert_eq!(b["kind"], "table");
    assert_eq!(b["why"]["reason"], "dependency");
    assert_eq!(b["why"]["kind"], "match");
    assert_eq!(b["why"]["field"], "ig_md.cls");
    assert_eq!(b["why"]["on"], "Ig.classify");
    assert_eq!(b["why"]["on_stage"], 0);
    // vlan_fwd writes the port by_class (stage 1) writes: stage 2; its
    // gateway goes with it, later than its condition (on tag, stage 0)
    // alone allows.
    let f = entry(&v, "Ig.vlan_fwd");
    assert_eq!(
        (f["stage"].as_u64(), f["why"]["kind"].as_str()),
        (Some(2), Some("action"))
    );
    assert_eq!(f["why"]["on"], "Ig.by_class");
    let g = entry(&v, "if (hdr.vlan.isValid())");
    assert_eq!(g["kind"], "gateway");
    assert_eq!(g["stage"], 2);
    assert_eq!(g["why"]["reason"], "with_table");
    assert_eq!(g["why"]["table"], "Ig.vlan_fwd");
    assert_eq!(g["why"]["earliest"], 1);
    // Without --explain the basis has no per-unit list.
    let plain = json(&["stages", KINDS, "--format", "json"]);
    assert!(plain["basis"][0].get("explain").is_none(), "{plain}");
}

#[test]
fn a_full_stage_is_named_with_what_ran_out() {
    let v = json(&["stages", FULL, "--explain", "--format", "json"]);
    for t in 1..=8 {
        assert_eq!(entry(&v, &format!("Ig.t{t}"))["stage"], 0);
    }
    let t9 = entry(&v, "Ig.t9");
    assert_eq!(t9["stage"], 1);
    assert_eq!(t9["why"]["reason"], "resource");
    assert_eq!(t9["why"]["earliest"], 0);
    assert_eq!(t9["why"]["full_stage"], 0);
    assert_eq!(t9["why"]["what"], "no ternary logical table left");

    let r = p4cost(&["stages", FULL, "--explain"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("ingress (Ig): why each unit is in its stage  [ESTIMATED]"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains(
            "      1  Ig.t9: resources: its dependencies allow stage 0, which is full (no ternary \
             logical table left)"
        ),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("egress (Eg): why each unit is in its stage  [ESTIMATED]\n  (no tables)"),
        "{}",
        r.stdout
    );
}

#[test]
fn the_compilers_placement_has_no_reasons() {
    let ctx = "tests/fixtures/tofino/compiled/tna_hash_3/context.json";
    let r = p4cost(&["stages", ctx, "--explain"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("explain: the compiler's placement records no reasons"),
        "{}",
        r.stdout
    );
    let v = json(&["stages", ctx, "--explain", "--format", "json"]);
    assert_eq!(v["placement"], "context");
    assert!(v.get("basis").is_none(), "{v}");
}
