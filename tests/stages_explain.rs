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

const GW2: &str = "p4-samples/tofino/deps/gateway_two_tables.p4";
const GW3: &str = "p4-samples/tofino/deps/gateway_three_tables.p4";

/// The ingress stages that are match dependent.
fn match_stages(v: &Value) -> Vec<u64> {
    v["mau"]["ingress"]["stages"]
        .as_array()
        .expect("stages")
        .iter()
        .filter(|s| s["match_dependent"] == true)
        .filter_map(|s| s["stage"].as_u64())
        .collect()
}

/// Issue 28: a condition on what a table wrote. bf-p4c reads a gateway's
/// condition at the input crossbar of the table it is attached to
/// (table_dependency_graph.cpp, FindDataDependencyGraph::preorder(Table):
/// the gateway rows are visited as ixbar reads), so `if (ig_md.cls == 1)`
/// after classify, which writes ig_md.cls, is a match dependency: the
/// gateway goes to stage 1, and fwd, which it controls, with it (a control
/// dependency adds no stage, DependencyGraph::is_ctrl_edge). By hand:
/// stages 0 (classify), 1 (gateway, fwd) and 6 (Tofino 1's corner) are
/// match dependent; exact tables of 20 cycles, concurrent stages 1 cycle:
/// 4 + 3 x 20 + 9 x 1 = 73 cycles.
#[test]
fn a_condition_on_what_a_table_wrote_is_a_match_dependency() {
    let v = json(&["stages", GW2, "--explain", "--format", "json"]);
    let c = entry(&v, "Ig.classify");
    assert_eq!(
        (c["stage"].as_u64(), c["why"]["reason"].as_str()),
        (Some(0), Some("first_stage"))
    );
    let g = entry(&v, "if (ig_md.cls == 1)");
    assert_eq!(g["kind"], "gateway");
    assert_eq!(g["stage"], 1);
    assert_eq!(g["why"]["kind"], "match");
    assert_eq!(g["why"]["field"], "ig_md.cls");
    assert_eq!(g["why"]["on"], "Ig.classify");
    let f = entry(&v, "Ig.fwd");
    assert_eq!(f["stage"], 1);
    assert_eq!(f["why"]["kind"], "control");
    assert_eq!(f["why"]["on"], "if (ig_md.cls == 1)");
    assert_eq!(match_stages(&v), vec![0, 1, 6]);
    assert_eq!(v["mau"]["ingress"]["cycles"], 4 + 3 * 20 + 9);
}

/// Issue 28: the same condition under one arm of a `switch` on classify's
/// action, and on the other arm rw_dst, which writes the address fwd keys
/// on. The arms are exclusive (bf-p4c: FindDataDependencyGraph is a
/// control-flow visitor, so one branch's writes do not reach its sibling;
/// TablesMutuallyExclusive in mau/table_mutex.h): fwd does not depend on
/// rw_dst. rw_dst runs only on classify's default arm, a control
/// dependency: stage 0 with classify. By hand: classify and rw_dst in stage
/// 0, gateway and fwd in stage 1; 73 cycles as in the two-table program.
#[test]
fn exclusive_switch_arms_do_not_depend_and_the_condition_still_does() {
    let v = json(&["stages", GW3, "--explain", "--format", "json"]);
    assert_eq!(entry(&v, "Ig.classify")["stage"], 0);
    assert_eq!(entry(&v, "Ig.rw_dst")["stage"], 0);
    let g = entry(&v, "if (ig_md.cls == 1)");
    assert_eq!(
        (g["stage"].as_u64(), g["why"]["kind"].as_str()),
        (Some(1), Some("match"))
    );
    assert_eq!(g["why"]["on"], "Ig.classify");
    let f = entry(&v, "Ig.fwd");
    assert_eq!(
        (f["stage"].as_u64(), f["why"]["kind"].as_str()),
        (Some(1), Some("control"))
    );
    assert_eq!(match_stages(&v), vec![0, 1, 6]);
    assert_eq!(v["mau"]["ingress"]["cycles"], 73);
    // No edge between the exclusive tables in the dependency graph.
    let d = json(&["deps", GW3, "--format", "json"]);
    let g0 = &d["graphs"][0];
    let units = g0["units"].as_array().expect("units");
    let idx = |n: &str| units.iter().position(|u| u["name"] == n).expect(n);
    let (fwd, rw) = (idx("Ig.fwd"), idx("Ig.rw_dst"));
    for e in g0["edges"].as_array().expect("edges") {
        let pair = (e["from"].as_u64(), e["to"].as_u64());
        assert!(
            pair != (Some(rw as u64), Some(fwd as u64))
                && pair != (Some(fwd as u64), Some(rw as u64)),
            "{e}"
        );
    }
}

/// Issue 28: reading a field whose PHV container another table wrote
/// (validity bits share one) is no dependency in bf-p4c's graph, which
/// compares fields (FindDataDependencyGraph); only two writers of one
/// container conflict (`container_conflicts`). The assembler's container
/// comparison still types the stage. By hand (the program's comment):
/// classify, tag and route in stage 0 (route reads hdr.ipv4.$valid, tag
/// wrote hdr.vlan.$valid: no dependency, first stage); mark in stage 1 by
/// its action's read of ig_md.cls (classify), and stage 1 match dependent
/// because mark's key reads hdr.ethernet.$valid in the container tag
/// wrote; 20 + 20 + 4 x 1 + 20 + 5 x 1 + 4 = 73 cycles.
#[test]
fn reading_a_container_another_table_wrote_moves_no_table() {
    let v = json(&[
        "stages",
        "p4-samples/tofino/deps/container_read.p4",
        "--explain",
        "--format",
        "json",
    ]);
    for t in ["Ig.classify", "Ig.tag", "Ig.route"] {
        let e = entry(&v, t);
        assert_eq!(
            (e["stage"].as_u64(), e["why"]["reason"].as_str()),
            (Some(0), Some("first_stage")),
            "{t}"
        );
    }
    let m = entry(&v, "Ig.mark");
    assert_eq!(m["stage"], 1);
    assert_eq!(m["why"]["kind"], "action");
    assert_eq!(m["why"]["field"], "ig_md.cls");
    assert_eq!(match_stages(&v), vec![0, 1, 6]);
    assert_eq!(v["mau"]["ingress"]["cycles"], 20 + 20 + 4 + 20 + 5 + 4);
}

/// The ingress or egress `explain` entry of `unit` (`basis[i]` by gress).
fn entry_in<'v>(v: &'v Value, gress: &str, unit: &str) -> &'v Value {
    v["basis"]
        .as_array()
        .expect("basis")
        .iter()
        .filter(|b| b["gress"] == gress)
        .flat_map(|b| b["explain"].as_array().expect("explain"))
        .find(|u| u["unit"] == unit)
        .unwrap_or_else(|| panic!("{unit} in {gress}"))
}

/// Issue 28 item 4, on fabric-tna's INT profile (tests/fixtures copy):
/// watchlist's action sets fabric_md.int_mirror_md valid and report's
/// sets the report headers valid; no field is shared, the validity bits'
/// container is (bf-p4c's container conflict). The reason names it as
/// such, not as an action that "reads or also writes" the field.
#[test]
fn a_container_conflict_is_named_as_one() {
    let f = "tests/fixtures/tofino/fabric-tna-29030f4/p4src";
    let v = json(&[
        "stages",
        "-I",
        f,
        "-DCPU_PORT=192",
        "-DWITH_INT",
        &format!("{f}/fabric_tna.p4"),
        "--explain",
        "--format",
        "json",
    ]);
    let w = entry_in(&v, "egress", "FabricEgress.int_egress.watchlist");
    assert_eq!(w["why"]["kind"], "action");
    assert_eq!(w["why"]["field"], "fabric_md.int_mirror_md.$valid");
    assert_eq!(w["why"]["on"], "FabricEgress.int_egress.report");
    let human = p4cost(&[
        "stages",
        "-I",
        f,
        "-DCPU_PORT=192",
        "-DWITH_INT",
        &format!("{f}/fabric_tna.p4"),
        "--explain",
    ]);
    assert!(
        human.stdout.contains(
            "FabricEgress.int_egress.watchlist: container conflict: it writes \
             fabric_md.int_mirror_md.$valid, which shares a PHV container with a field \
             FabricEgress.int_egress.report (stage"
        ),
        "{}",
        human.stdout
    );
}

/// Issue 28 item 4, on switch_tofino_x1 (tests/fixtures copy): source_napt
/// is a table whose source_napt_miss action leads to source_nat. Only a
/// gateway rides with a unit it controls (`TablePlacement::gateway_merge`);
/// the table's own reason was "placed with source_nat, the table it
/// controls", naming the table that waits for it.
#[test]
fn a_branching_table_is_not_placed_with_what_it_controls() {
    let d = "tests/fixtures/tofino/compiled";
    let v = json(&[
        "stages",
        "-D__TARGET_TOFINO__=1",
        "-I",
        d,
        &format!("{d}/switch_tofino_x1/switch_tofino_x1.p4"),
        "--explain",
        "--format",
        "json",
    ]);
    for u in v["basis"]
        .as_array()
        .expect("basis")
        .iter()
        .flat_map(|b| b["explain"].as_array().expect("explain"))
    {
        if u["why"]["reason"] == "with_table" {
            assert_eq!(u["kind"], "gateway", "{u}");
        }
    }
    let s = entry_in(&v, "ingress", "source_napt");
    assert_ne!(s["why"]["reason"], "with_table", "{s}");
}
