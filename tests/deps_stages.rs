//! Table dependency graph (`p4cost deps`) and stage placement estimated
//! from the source (`p4cost stages prog.p4`, model tofino1-mau-estimate),
//! on programs written for each rule. Every expectation is derived by hand
//! from the rules in docs/models.md ("Table dependencies", "Tofino stage
//! placement estimate"), not taken from the tool's output.

mod common;
use common::{json, p4cost};
use serde_json::Value;

const KINDS: &str = "p4-samples/tofino/deps/dep_kinds.p4";
const LENGTHS: &str = "p4-samples/tofino/deps/stage_lengths.p4";
const CHAIN: &str = "p4-samples/tofino/deps/chain_13.p4";

/// `(from, to) -> (kind, field)` of the first graph of a `deps` report.
fn edges(v: &Value) -> Vec<(String, String, String, String)> {
    v["graphs"][0]["edges"]
        .as_array()
        .expect("edges")
        .iter()
        .map(|e| {
            (
                e["from"].as_str().unwrap_or_default().to_string(),
                e["to"].as_str().unwrap_or_default().to_string(),
                e["kind"].as_str().unwrap_or_default().to_string(),
                e["field"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

fn has(edges: &[(String, String, String, String)], from: &str, to: &str, kind: &str, field: &str) {
    assert!(
        edges
            .iter()
            .any(|(f, t, k, x)| f == from && t == to && k == kind && x == field),
        "missing {kind} edge {from} -> {to} ({field}) in {edges:#?}"
    );
}

#[test]
fn each_dependency_kind_with_its_field() {
    let v = json(&["deps", KINDS, "--format", "json"]);
    let e = edges(&v);
    // A key reading what an earlier action writes.
    has(&e, "Ig.classify", "Ig.by_class", "match", "ig_md.cls");
    // A gateway on validity an earlier action sets.
    has(
        &e,
        "Ig.tag",
        "if (hdr.vlan.isValid())",
        "match",
        "hdr.vlan.$valid",
    );
    has(&e, "Ig.tag", "Ig.vlan_fwd", "match", "hdr.vlan.vid");
    // The gateway controls the table on its true branch.
    has(
        &e,
        "if (hdr.vlan.isValid())",
        "Ig.vlan_fwd",
        "control",
        "true",
    );
    // Write-write.
    has(
        &e,
        "Ig.by_class",
        "Ig.override_port",
        "action",
        "ig_tm_md.ucast_egress_port",
    );
    // Write after read.
    has(
        &e,
        "Ig.tag",
        "Ig.rewrite_src",
        "reverse_read",
        "hdr.ethernet.src_addr",
    );
    // Applied on a miss.
    has(&e, "Ig.acl", "Ig.fallback", "control", "miss");
    // acl's miss runs only its const default (NoAction): fallback's write
    // of drop_ctl does not depend on acl's.
    assert!(
        !e.iter()
            .any(|(f, t, k, _)| f == "Ig.acl" && t == "Ig.fallback" && k == "action"),
        "{e:#?}"
    );
    // Tables on no common path or touching nothing in common: none.
    assert!(!e
        .iter()
        .any(|(f, t, _, _)| f == "Ig.classify" && t == "Ig.tag"));
    assert_eq!(
        v["graphs"][0]["longest_match_chain"],
        serde_json::json!(["Ig.classify", "Ig.by_class"])
    );
}

#[test]
fn dot_output_is_a_graph_with_coloured_edges() {
    let r = p4cost(&["deps", KINDS, "--format", "dot"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("digraph "), "{}", r.stdout);
    assert!(r.stdout.trim_end().ends_with('}'));
    assert!(r.stdout.contains("color=red"), "match edges are red");
    assert!(r.stdout.contains("color=blue"), "action edges are blue");
    assert!(r.stdout.contains("shape=diamond"), "gateways are diamonds");
    assert_eq!(
        r.stdout.matches('{').count(),
        r.stdout.matches('}').count(),
        "balanced braces"
    );
}

/// Stage records of one gress: (stage, match_dependent, clock_cycles,
/// cycles).
fn stages(v: &Value, gress: &str) -> Vec<(i64, bool, i64, i64)> {
    v["mau"][gress]["stages"]
        .as_array()
        .expect("stages")
        .iter()
        .map(|s| {
            (
                s["stage"].as_i64().unwrap_or(-1),
                s["match_dependent"].as_bool().unwrap_or(false),
                s["clock_cycles"].as_i64().unwrap_or(0),
                s["cycles"].as_i64().unwrap_or(0),
            )
        })
        .collect()
}

#[test]
fn placement_follows_match_action_and_control_dependencies() {
    let v = json(&["stages", KINDS, "--format", "json"]);
    assert_eq!(v["placement"], "estimate");
    assert_eq!(v["mau"]["estimated"], true);
    assert_eq!(v["model"]["name"], "tofino1-mau-estimate");
    let ig = stages(&v, "ingress");
    assert_eq!(ig.len(), 12);
    // Stage 0 (20), by_class match dependent in 1 (20), vlan_fwd action
    // dependent in 2 (2: it also sets the port by_class sets),
    // override_port action dependent in 3 (2), 4-5 concurrent (1 each),
    // 6 forced (20), 7-11 concurrent (1 each); no TCAM, selector or
    // stateful ALU: every stage 20 cycles long.
    let adds: Vec<i64> = ig.iter().map(|s| s.3).collect();
    assert_eq!(adds, vec![20, 20, 2, 2, 1, 1, 20, 1, 1, 1, 1, 1]);
    assert!(ig.iter().all(|s| s.2 == 20));
    assert_eq!(v["mau"]["ingress"]["cycles"], 4 + 71);
    let row = |s: i64| {
        v["mau"]["ingress"]["stages"]
            .as_array()
            .and_then(|a| a.iter().find(|r| r["stage"] == s))
            .cloned()
            .unwrap_or(Value::Null)
    };
    assert_eq!(row(1)["dependency"], "match");
    assert_eq!(row(2)["dependency"], "action");
    assert_eq!(row(4)["dependency"], "concurrent");
    let stage0 = row(0);
    let t0: Vec<&str> = stage0["tables"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    // A control or write-after-read dependency allows the same stage.
    for t in [
        "Ig.classify",
        "Ig.tag",
        "Ig.rewrite_src",
        "Ig.acl",
        "Ig.fallback",
    ] {
        assert!(t0.contains(&t), "{t} in stage 0: {t0:?}");
    }
    // Empty egress: the assembler's minimum pads stages 1-5, 7 and 8 to
    // match dependent: 20 + 8 x 20 + 3 x 1 + 4 = 187.
    assert_eq!(v["mau"]["egress"]["cycles"], 187);
}

#[test]
fn tcam_stateful_alu_and_selector_lengthen_their_stages() {
    let v = json(&["stages", LENGTHS, "--format", "json"]);
    let ig = stages(&v, "ingress");
    // 0: ternary table, 20 + 2; 1: RegisterAction, 20 + 4; 2-5: selector
    // with groups of 200 (> 120 members: wide), 20 + 8 + 2; 6-11: 20.
    let lengths: Vec<i64> = ig.iter().map(|s| s.2).collect();
    assert_eq!(
        lengths,
        vec![22, 24, 30, 30, 30, 30, 20, 20, 20, 20, 20, 20]
    );
    let md: Vec<i64> = ig.iter().filter(|s| s.1).map(|s| s.0).collect();
    assert_eq!(md, vec![0, 1, 2, 6]);
    assert_eq!(v["mau"]["ingress"]["cycles"], 4 + 22 + 24 + 30 + 3 + 20 + 5);
}

/// Does not fit is a finding (exit 1, issue 24), not an input error: the
/// report says so with the chain that overflows.
#[test]
fn a_chain_longer_than_the_pipeline_does_not_fit() {
    let r = p4cost(&["stages", CHAIN]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.contains("does not fit"), "{}", r.stdout);
    assert!(r.stdout.contains("the chip has 12"), "{}", r.stdout);
    assert!(
        r.stdout.contains("Ig.t0 -> Ig.t1 -> Ig.t2"),
        "names the chain: {}",
        r.stdout
    );
    assert!(!r.stdout.contains("error"), "{}", r.stdout);
    // JSON has no report to give: stdout stays empty, the finding on stderr.
    let j = p4cost(&["stages", CHAIN, "--format", "json"]);
    assert_eq!((j.code, j.stdout.as_str()), (1, ""));
    assert!(j.stderr.contains("Ig.t0 -> Ig.t1 -> Ig.t2"), "{}", j.stderr);
    let p = p4cost(&["predict", CHAIN, "--model", "tofino1-mau-estimate"]);
    assert_eq!(p.code, 1);
    assert!(p.stderr.contains("does not fit"), "{}", p.stderr);
}

/// `check` under the estimate: the program over its chip's stages is a
/// `chip_stages` verdict with the chain, among the other budgets.
#[test]
fn check_reports_a_program_that_does_not_fit() {
    let args = [
        "check",
        CHAIN,
        "--model",
        "tofino1-mau-estimate",
        "--max-latency",
        "1000",
        "--no-config",
    ];
    let r = p4cost(&args);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stdout.contains("does not fit: needs 13 stages"),
        "{}",
        r.stdout
    );
    let mut j = args.to_vec();
    j.extend(["--format", "json"]);
    let r = p4cost(&j);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).expect("JSON");
    let res = &v["results"][0];
    assert_eq!(res["budget"], "chip_stages");
    assert_eq!(res["status"], "over");
    assert_eq!(
        (res["predicted"].as_f64(), res["limit"].as_f64()),
        (Some(13.0), Some(12.0))
    );
    let chain: Vec<&str> = res["contributors"]
        .as_array()
        .expect("contributors")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(chain.len(), 13);
    assert!(
        chain.windows(3).any(|w| w == ["Ig.t0", "Ig.t1", "Ig.t2"]),
        "{chain:?}"
    );
    assert_eq!(v["over"], 1);
}

#[test]
fn predict_with_the_estimate_model_gives_the_stages_figure() {
    let s = json(&["stages", LENGTHS, "--format", "json"]);
    let p = json(&[
        "predict",
        LENGTHS,
        "--model",
        "tofino1-mau-estimate",
        "--format",
        "json",
    ]);
    let ns = s["mau"]["ingress"]["ns"].as_f64().expect("ns");
    let total = p["paths"][0]["latency_ns"].as_f64().expect("latency_ns");
    assert!((ns - total).abs() < 1e-9, "stages {ns} vs predict {total}");
}

#[test]
fn tofino2_programs_get_the_tofino2_numbers() {
    // The same program under the Tofino 2 model: 20 stages of 23 cycles,
    // no concurrent stages (2 each), no forced stage, no corner turn, no
    // egress minimum: 25 + 27 + 33 + 17 x 2 = 119.
    let v = json(&[
        "stages",
        LENGTHS,
        "--model",
        "tofino2-mau-estimate",
        "--format",
        "json",
    ]);
    assert_eq!(stages(&v, "ingress").len(), 20);
    assert_eq!(v["mau"]["ingress"]["cycles"], 25 + 27 + 33 + 17 * 2);
    assert_eq!(v["mau"]["egress"]["cycles"], 23 + 19 * 2);
}

/// A Tofino placement for a program of another target only when asked
/// for (issue 24): unasked, exit 2 telling how to ask.
#[test]
fn an_estimate_for_a_non_tofino_program_says_so() {
    for f in [
        "p4-samples/v1model/basic_router.p4",
        "tests/fixtures/bmv2/onos__fabric.json",
    ] {
        let r = p4cost(&["stages", f]);
        assert_eq!(r.code, 2, "{f}: {}", r.stdout);
        assert!(r.stdout.is_empty(), "{}", r.stdout);
        assert!(
            r.stderr.contains("not Tofino") && r.stderr.contains("--model tofino1-mau-estimate"),
            "{}",
            r.stderr
        );
    }
    let v = json(&[
        "stages",
        "p4-samples/v1model/basic_router.p4",
        "--model",
        "tofino1-mau-estimate",
        "--format",
        "json",
    ]);
    let codes: Vec<&str> = v["warnings"]
        .as_array()
        .map(|a| a.iter().filter_map(|w| w["code"].as_str()).collect())
        .unwrap_or_default();
    assert!(codes.contains(&"target_mismatch"), "{codes:?}");
    assert!(codes.contains(&"estimated_placement"), "{codes:?}");
}

/// Thousands of gated statements writing one field: every pair of them is
/// a write-write dependency. The graph's pair budget ends it with an error
/// naming the limit, within seconds, instead of minutes and gigabytes
/// (this input once ran for over ten minutes).
#[test]
fn a_control_too_dense_for_the_graph_is_an_error_not_a_hang() {
    let base = std::fs::read_to_string(common::root().join(CHAIN)).expect("sample");
    let at = base.find("    apply {\n        ig_md.f0").expect("apply");
    let end = at + base[at..].find("}\n}\n").expect("end of apply");
    let mut body = String::from("    apply {\n");
    for k in 0..1600 {
        body.push_str(&format!(
            "        if (hdr.ethernet.ether_type == {k}) {{ ig_md.f1 = {}; }}\n",
            k % 256
        ));
    }
    body.push_str("    ");
    let src = format!("{}{}{}", &base[..at], body, &base[end..]);
    let dir = common::scratch("dense");
    let file = dir.join("dense.p4");
    std::fs::write(&file, src).expect("write");
    let f = file.to_string_lossy().to_string();
    let started = std::time::Instant::now();
    let r = p4cost(&["deps", &f]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(r.stderr.contains("more than 1000000 pairs"), "{}", r.stderr);
    assert!(
        started.elapsed().as_secs() < 60,
        "took {:?}",
        started.elapsed()
    );
}

#[test]
fn a_program_without_controls_has_nothing_to_place() {
    let dir = common::scratch("noctl");
    let file = dir.join("p.p4");
    std::fs::write(
        &file,
        "#include <core.p4>\nparser p(packet_in b) { state start { transition accept; } }\npackage top(p _p);\ntop(p()) main;\n",
    )
    .expect("write");
    let f = file.to_string_lossy().to_string();
    let r = p4cost(&["stages", &f]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("no ingress or egress control found"),
        "{}",
        r.stderr
    );
    let d = p4cost(&["deps", &f]);
    assert_eq!(d.code, 2);
    assert!(
        d.stderr.contains("no ingress or egress control found"),
        "{}",
        d.stderr
    );
}

/// Parsers and controls passed as constructor parameters are followed:
/// the sub-parser's extract makes a path, the sub-control's table a
/// dependency, and nothing warns that a parameter is not tracked.
#[test]
fn constructor_parameters_are_followed() {
    let file = "p4-samples/tofino/ctor_params.p4";
    let v = json(&["predict", file, "--format", "json"]);
    let headers: Vec<String> = v["paths"]
        .as_array()
        .expect("paths")
        .iter()
        .map(|p| p["headers"].to_string())
        .collect();
    assert!(
        headers.iter().any(|h| h.contains("hdr.vlan")),
        "{headers:?}"
    );
    let warnings = v["warnings"].to_string();
    assert!(!warnings.contains("is a parameter"), "{warnings}");
    let d = json(&["deps", file, "--format", "json"]);
    has(&edges(&d), "Ig.step.mark", "Ig.by_x", "match", "md.x");
}

/// `predict --model tofino1-mau-estimate` and `stages` are one computation
/// (the engine's): the same stage records, each listing the tables placed
/// in it as the compiler's placement lists them (gateways are merged into
/// tables by the compiler, so only the estimate's `units` name them).
#[test]
fn predict_and_stages_list_the_same_tables_per_estimated_stage() {
    let s = json(&["stages", KINDS, "--format", "json"]);
    let p = json(&[
        "predict",
        KINDS,
        "--model",
        "tofino1-mau-estimate",
        "--format",
        "json",
    ]);
    let names = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    for gress in ["ingress", "egress"] {
        let (ss, ps) = (&s["mau"][gress]["stages"], &p["mau"][gress]["stages"]);
        let n = ss.as_array().map_or(0, Vec::len);
        assert!(n > 0, "{gress}: {s}");
        assert_eq!(ps.as_array().map_or(0, Vec::len), n, "{gress}");
        for i in 0..n {
            assert_eq!(
                names(&ss[i]["tables"]),
                names(&ps[i]["tables"]),
                "{gress} stage {i}"
            );
        }
    }
    let stage2 = &s["mau"]["ingress"]["stages"][2];
    assert_eq!(names(&stage2["tables"]), vec!["Ig.vlan_fwd"]);
    assert_eq!(
        names(&stage2["units"]),
        vec!["if (hdr.vlan.isValid())", "Ig.vlan_fwd"]
    );
    let placed: usize = ["ingress", "egress"]
        .iter()
        .flat_map(|g| {
            p["mau"][*g]["stages"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .map(|st| names(&st["tables"]).len())
        .sum();
    assert!(placed >= 7, "predict's estimated stages name their tables");
}
