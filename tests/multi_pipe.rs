//! Programs that bind several pipelines (`Switch(pipe_a, pipe_b)`): every
//! pipeline is reported, each by name, and `--pipe NAME` picks one.

mod common;

use common::{json, p4cost};

const TWO: &str = "p4-samples/tofino/multi_pipe/two_pipes.p4";
const SAME: &str = "p4-samples/tofino/multi_pipe/same_pipe_twice.p4";

fn str_list(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_str().expect("string").to_string())
        .collect()
}

#[test]
fn default_json_reports_every_pipeline() {
    let v = json(&["predict", TWO, "--format", "json"]);
    assert_eq!(v["schema_version"], 15);
    assert_eq!(v["program"], TWO);
    let pipes = v["pipelines"].as_array().expect("pipelines array");
    assert_eq!(pipes.len(), 2);
    // (name, parser, control, paths, tables): read off two_pipes.p4.
    let want = [
        (
            "pipe_l2",
            "L2IgParser",
            "L2Ingress",
            2,
            vec!["L2Ingress.port_map", "L2Ingress.vlan_map"],
        ),
        (
            "pipe_l3",
            "L3IgParser",
            "L3Ingress",
            3,
            vec!["L3Ingress.route", "L3Ingress.acl", "L3Ingress.port_map"],
        ),
    ];
    for (r, (name, parser, control, paths, tables)) in pipes.iter().zip(want) {
        assert_eq!(r["pipeline"]["name"], name);
        assert_eq!(str_list(&r["pipeline"]["all"]), ["pipe_l2", "pipe_l3"]);
        assert!(str_list(&r["pipeline"]["identical"]).is_empty());
        assert_eq!(r["parser"], "ingress_parser");
        assert_eq!(r["parser_declared"], parser);
        assert_eq!(r["control"]["name"], control);
        assert_eq!(r["path_count"], paths);
        assert_eq!(r["paths"].as_array().expect("paths").len(), paths);
        assert_eq!(str_list(&r["control"]["tables"]), tables);
        // Each element is a whole report.
        assert_eq!(r["schema_version"], 15);
        assert_eq!(r["arch"], "tna");
    }
}

#[test]
fn pipe_selects_one_pipeline_and_keeps_the_single_report_shape() {
    let v = json(&["predict", TWO, "--pipe", "pipe_l3", "--format", "json"]);
    assert!(v.get("pipelines").is_none(), "one pipeline: one report");
    assert_eq!(v["pipeline"]["name"], "pipe_l3");
    assert_eq!(v["parser_declared"], "L3IgParser");
    assert_eq!(v["control"]["name"], "L3Ingress");
    assert_eq!(v["path_count"], 3);
    // The longest path: base + IPv4 (20 B) + L4 (4 B) + three tables.
    let h = str_list(&v["paths"][0]["headers"]);
    assert_eq!(h, ["hdr.ethernet", "hdr.ipv4", "hdr.l4"]);

    let human = p4cost(&["predict", TWO, "--pipe", "pipe_l2"]);
    assert_eq!(human.code, 0, "{}", human.stderr);
    assert!(human.stdout.contains("pipeline  pipe_l2;"));
    assert!(human
        .stdout
        .contains("parser    L2IgParser (slot ingress_parser): 2 paths"));
    assert!(!human.stdout.contains("L3IgParser"));
    assert!(!human.stdout.contains("==="));
}

#[test]
fn unknown_pipe_is_an_error_listing_the_names() {
    let r = p4cost(&["predict", TWO, "--pipe", "pipe_x"]);
    assert_eq!(r.code, 2);
    assert!(r.stdout.is_empty());
    assert!(
        r.stderr
            .contains("no pipeline named `pipe_x`; the program's pipelines: pipe_l2, pipe_l3"),
        "{}",
        r.stderr
    );
    // Also with --context, where the source's pipeline is chosen first.
    let r = p4cost(&[
        "predict",
        TWO,
        "--context",
        "tests/fixtures/tofino/compiled/tna_simple_switch/context.json",
        "--pipe",
        "pipe_x",
    ]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("pipe_l2, pipe_l3"), "{}", r.stderr);
}

#[test]
fn identical_pipelines_are_reported_once_with_every_name() {
    let v = json(&["predict", SAME, "--format", "json"]);
    // `Switch(pipe, pipe, pipe_copy)`: one report, both names.
    assert!(v.get("pipelines").is_none());
    assert_eq!(v["pipeline"]["name"], "pipe");
    assert_eq!(str_list(&v["pipeline"]["identical"]), ["pipe_copy"]);
    let notes: Vec<String> = v["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .map(|w| w["message"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(notes
        .iter()
        .any(|m| m.contains("`pipe` is bound more than once")));
    // Asking for the copy names it first.
    let v = json(&["predict", SAME, "--pipe", "pipe_copy", "--format", "json"]);
    assert_eq!(v["pipeline"]["name"], "pipe_copy");
    assert_eq!(str_list(&v["pipeline"]["identical"]), ["pipe"]);
}

#[test]
fn single_pipeline_programs_name_their_pipeline() {
    let v = json(&[
        "predict",
        "p4-samples/v1model/basic_router.p4",
        "--format",
        "json",
    ]);
    assert_eq!(v["pipeline"]["name"], "main");
    assert_eq!(str_list(&v["pipeline"]["all"]), ["main"]);
    let human = p4cost(&["predict", "p4-samples/v1model/basic_router.p4"]);
    assert!(
        !human.stdout.contains("pipeline  "),
        "no pipeline line for one pipeline"
    );
    let r = p4cost(&[
        "predict",
        "p4-samples/v1model/basic_router.p4",
        "--pipe",
        "main",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn path_missing_in_one_pipeline_names_it() {
    // pipe_l2 never parses L4.
    let r = p4cost(&["predict", TWO, "--path", "ipv4,l4"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("(pipeline `pipe_l2`; choose a pipeline with --pipe NAME)"),
        "{}",
        r.stderr
    );
    let r = p4cost(&["predict", TWO, "--path", "ipv4,l4", "--pipe", "pipe_l3"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

/// A program binding `n` distinct pipelines through a package of ours.
fn many_pipelines(n: usize) -> String {
    let mut b = String::from(
        "#include <core.p4>\nheader h_t { bit<8> a; }\nstruct H { h_t h; }\n\
         parser Prs<T>(packet_in b, out T h);\ncontrol Ctl<T>(inout T h);\n\
         package Pipe<T>(Prs<T> ingress_parser, Ctl<T> ingress);\n",
    );
    let params: Vec<String> = (0..n).map(|i| format!("Pipe<T> p{i}")).collect();
    b += &format!("package Big<T>({});\n", params.join(", "));
    for i in 0..n {
        b += &format!(
            "parser P{i}(packet_in pkt, out H hdr) {{ state start {{ pkt.extract(hdr.h); transition accept; }} }}\n\
             control Ingress{i}(inout H hdr) {{ apply {{ }} }}\nPipe(P{i}(), Ingress{i}()) pipe{i};\n"
        );
    }
    let args: Vec<String> = (0..n).map(|i| format!("pipe{i}")).collect();
    b += &format!("Big({}) main;\n", args.join(", "));
    b
}

#[test]
fn too_many_pipelines_at_once_is_an_error_naming_the_limit() {
    let dir = common::scratch("many-pipes");
    let f = dir.join("many.p4");
    std::fs::write(&f, many_pipelines(17)).expect("write");
    let f = f.to_str().expect("utf-8 path");
    let r = p4cost(&["predict", f]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("binds 17 distinct pipelines, more than the 16 predict reports at once"),
        "{}",
        r.stderr
    );
    let v = json(&["predict", f, "--pipe", "pipe16", "--format", "json"]);
    assert_eq!(v["parser_declared"], "P16");
    assert_eq!(v["control"]["name"], "Ingress16");
    // 16 are reported, each in its own report.
    std::fs::write(dir.join("sixteen.p4"), many_pipelines(16)).expect("write");
    let v = json(&[
        "predict",
        dir.join("sixteen.p4").to_str().expect("utf-8"),
        "--format",
        "json",
    ]);
    assert_eq!(v["pipelines"].as_array().expect("array").len(), 16);
}

/// PSA's IngressPipeline and EgressPipeline (nested calls or named
/// instances) are one pipeline: one report, ingress and egress bound.
#[test]
fn psa_ingress_and_egress_pipelines_are_one_report() {
    for f in [
        "p4-samples/psa/nested_pipelines.p4",
        "p4-samples/psa/named_pipelines.p4",
    ] {
        let v = json(&["predict", f, "--format", "json"]);
        assert!(v.get("pipelines").is_none(), "{f}: one report");
        assert_eq!(v["arch"], "psa");
        assert_eq!(v["parser"], "ingress_parser");
        assert_eq!(v["parser_declared"], "IgParser");
        assert_eq!(v["control"]["name"], "Ig");
        assert_eq!(v["path_count"], 3);
        assert_eq!(str_list(&v["pipeline"]["all"]), ["main"], "{f}");
    }
}
