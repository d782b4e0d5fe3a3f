//! Golden tests: the CLI's human and JSON output on bundled samples and
//! real fixtures, reviewed like code (`tests/snapshots/`). Update with
//! `INSTA_UPDATE=always cargo test --test golden` and review the diff.

mod common;
use common::p4cost;

fn ok(args: &[&str]) -> String {
    let r = p4cost(args);
    assert_eq!(r.code, 0, "p4cost {args:?}: {}", r.stderr);
    r.stdout
}

#[test]
fn predict_tc6b_human() {
    insta::assert_snapshot!(ok(&[
        "predict",
        "p4-samples/tofino/tc6_big_union.p4",
        "--path",
        "ipv6,udp",
        "--packet-size",
        "300",
        "--port",
        "100g",
    ]));
}

#[test]
fn predict_tc3_human_all_paths() {
    insta::assert_snapshot!(ok(&[
        "predict",
        "p4-samples/tofino/tc3_edge_mpls.p4",
        "--packet-size",
        "700",
        "--max-paths",
        "8",
    ]));
}

#[test]
fn predict_tc1_json() {
    insta::assert_snapshot!(ok(&[
        "predict",
        "p4-samples/tofino/tc1_enterprise.p4",
        "--path",
        "vlan,vlan,ipv6,udp",
        "--packet-size",
        "600",
        "--format",
        "json",
    ]));
}

#[test]
fn predict_bmv2_json_input() {
    insta::assert_snapshot!(ok(&[
        "predict",
        "tests/fixtures/bmv2/behavioral-model__simple_router.json",
        "--packet-size",
        "256",
    ]));
}

#[test]
fn predict_two_pipelines_human() {
    insta::assert_snapshot!(ok(&[
        "predict",
        "p4-samples/tofino/multi_pipe/two_pipes.p4"
    ]));
}

#[test]
fn models_list() {
    insta::assert_snapshot!(ok(&["models"]));
}

#[test]
fn stages_tna_exact_match() {
    insta::assert_snapshot!(ok(&[
        "stages",
        "tests/fixtures/tofino/open-p4studio__tna_exact_match__context.json",
    ]));
}

#[test]
fn deps_dep_kinds_human() {
    insta::assert_snapshot!(ok(&["deps", "p4-samples/tofino/deps/dep_kinds.p4"]));
}

#[test]
fn stages_estimate_dep_kinds_human() {
    insta::assert_snapshot!(ok(&["stages", "p4-samples/tofino/deps/dep_kinds.p4"]));
}

#[test]
fn stages_explain_dep_kinds_human() {
    insta::assert_snapshot!(ok(&[
        "stages",
        "--explain",
        "p4-samples/tofino/deps/dep_kinds.p4"
    ]));
}

#[test]
fn stages_estimate_stage_lengths_json() {
    insta::assert_snapshot!(ok(&[
        "stages",
        "p4-samples/tofino/deps/stage_lengths.p4",
        "--format",
        "json"
    ]));
}

#[test]
fn diff_tc2_to_tc3_human() {
    insta::assert_snapshot!(ok(&[
        "diff",
        "p4-samples/tofino/tc2_datacenter.p4",
        "p4-samples/tofino/tc3_edge_mpls.p4",
        "--paths",
        "--rows",
        "4",
        "--no-config",
    ]));
}

/// Hand-derived in tests/stages_explain.rs (issue 28): classify in stage
/// 0; the gateway on ig_md.cls, match dependent on it, in stage 1 with fwd;
/// 73 cycles.
#[test]
fn stages_explain_gateway_two_tables_human() {
    insta::assert_snapshot!(ok(&[
        "stages",
        "--explain",
        "p4-samples/tofino/deps/gateway_two_tables.p4"
    ]));
}

/// Hand-derived in tests/stages_explain.rs (issue 28): classify and rw_dst
/// (exclusive with fwd) in stage 0; the gateway and fwd in stage 1.
#[test]
fn stages_explain_gateway_three_tables_human() {
    insta::assert_snapshot!(ok(&[
        "stages",
        "--explain",
        "p4-samples/tofino/deps/gateway_three_tables.p4"
    ]));
}

/// Hand-derived in p4-samples/tofino/deps/container_read.p4 and
/// tests/stages_explain.rs (issue 28): classify, tag and route in stage 0
/// (route's read of hdr.ipv4.$valid, in the container tag wrote, moves
/// nothing); mark in stage 1, match dependent through that container; 73
/// cycles.
#[test]
fn stages_explain_container_read_human() {
    insta::assert_snapshot!(ok(&[
        "stages",
        "--explain",
        "p4-samples/tofino/deps/container_read.p4"
    ]));
}
