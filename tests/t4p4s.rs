//! `--model t4p4s` end to end (issue 27, item 1): per-class cycles and
//! packet rate, entries from flags, p4cost.toml or `size`, the L3 rule,
//! the training-range warnings, bad input, explain, and the JSON Schema.
//! Expected figures are the paper's (Scholz et al., ITC 32, 2020, as its
//! derived tables print them), not produced by the code under test.

mod common;

use common::{json, p4cost};
use serde_json::Value;

const PROG: &str = "p4-samples/t4p4s/cpu_tables.p4";

fn predict(extra: &[&str]) -> Value {
    let mut args = vec!["predict", PROG, "--model", "t4p4s", "--format", "json"];
    args.extend_from_slice(extra);
    json(&args)
}

/// The classes of path `number`, by id.
fn class<'a>(r: &'a Value, id: &str) -> &'a Value {
    r["paths"]
        .as_array()
        .expect("paths")
        .iter()
        .flat_map(|p| p["classes"]["classes"].as_array().expect("classes"))
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no class {id}"))
}

fn cycles(c: &Value) -> f64 {
    c["cpu"]["cycles_per_packet"].as_f64().expect("cycles")
}

fn table<'a>(r: &'a Value, name: &str) -> &'a Value {
    r["cpu"]["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no table {name}"))
}

fn near(got: f64, want: f64, tol: f64, what: &str) {
    assert!((got - want).abs() <= tol, "{what}: got {got}, paper {want}");
}

#[test]
fn classes_pay_only_the_tables_they_apply() {
    let r = predict(&[]);
    // Non-IPv4: no table, Eq. (2): 146 cycles.
    near(cycles(class(&r, "2.1")), 146.0, 1e-9, "baseline");
    // flows hit, not TCP: one exact table of 100 entries: 341.3 cycles,
    // 5.86 Mpps (the paper's exact table at n = 100).
    let one = class(&r, "1.2");
    assert_eq!(one["cpu"]["rule"], "one table");
    near(cycles(one), 341.3, 0.06, "exact n=100");
    near(
        one["cpu"]["packets_per_second"].as_f64().expect("pps") / 1e6,
        5.86,
        0.006,
        "Mpps",
    );
    // Every class has the median latency of Eq. (3) at one core.
    near(
        one["latency_ns"].as_f64().expect("ns"),
        13230.0,
        1e-6,
        "Eq. 3",
    );
    near(
        r["cpu"]["median_latency_us"].as_f64().expect("us"),
        13.23,
        1e-9,
        "Eq. 3",
    );
    // The summary's extremes over all 5 classes.
    let s = &r["cpu"]["summary"];
    assert_eq!(s["classes"]["value"], 5);
    assert_eq!(s["complete"], true);
    near(cycles(&s["fastest"]), 146.0, 1e-9, "fastest");
    assert_eq!(s["slowest"]["cpu"]["tables"], 3);
}

#[test]
fn two_one_entry_tables_cost_eq8_at_t_2() {
    // flows miss then routes, both with 1 entry: no excess, so Eq. (8) at
    // t = 2: 338.7 cycles.
    let r = predict(&["--entries", "flows=1", "--entries", "Ingress.routes=1"]);
    let c = class(&r, "1.4");
    assert_eq!(c["cpu"]["rule"], "Eq. (8) + excess");
    near(cycles(c), 338.7, 0.06, "Eq. 8 t=2");
    assert_eq!(table(&r, "Ingress.flows")["entries_source"], "--entries");
    assert_eq!(table(&r, "Ingress.acl")["entries_source"], "size");
}

#[test]
fn lpm_scales_with_c_plus_half() {
    // The paper: lpm at 250,000 entries on 8 cores, 72.0 cycles.
    let r = predict(&["--entries", "routes=250000", "--cores", "8"]);
    near(
        table(&r, "Ingress.routes")["alone_cycles"]
            .as_f64()
            .expect("cycles"),
        72.0,
        0.06,
        "lpm c=8",
    );
    // Eq. (3) at 8 cores: 23.73 us.
    near(
        r["cpu"]["median_latency_us"].as_f64().expect("us"),
        23.73,
        1e-9,
        "Eq. 3 c=8",
    );
    assert!(!codes(&r).contains(&"entries_out_of_range".to_string()));
}

#[test]
fn an_exact_table_past_the_l3_changes_regime() {
    // 300,000 entries of 16 B keys and 64 B action data: 26.4 MB, past the
    // 20 MB L3: the DRAM branch, 612.5 cycles (paper).
    let r = predict(&["--entries", "flows=300000"]);
    let t = table(&r, "Ingress.flows");
    assert_eq!(t["regime"], "dram");
    assert_eq!(t["footprint_bytes"], 128 + 300_000 * 88);
    assert_eq!(
        (t["key_bytes"].clone(), t["action_bytes"].clone()),
        (16.into(), 64.into())
    );
    near(
        t["alone_cycles"].as_f64().expect("cycles"),
        612.5,
        0.06,
        "exact dram",
    );
    // A larger L3 holds it.
    let big = predict(&["--entries", "flows=300000", "--l3-mb", "30"]);
    assert_eq!(table(&big, "Ingress.flows")["regime"], "cache");
}

fn codes(r: &Value) -> Vec<String> {
    r["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .map(|w| w["code"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn training_ranges_warn() {
    let r = predict(&[]);
    // The measured layouts: no key-layout warning, no range warning.
    assert!(codes(&r).is_empty(), "{:?}", codes(&r));
    let r = predict(&["--entries", "acl=2000", "--entries", "routes=300000"]);
    let msgs: Vec<&str> = r["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .filter(|w| w["code"] == "entries_out_of_range")
        .map(|w| w["message"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(msgs.len(), 2, "{msgs:?}");
    assert!(msgs
        .iter()
        .any(|m| m.contains("Ingress.acl") && m.contains("1000")));
    assert!(msgs
        .iter()
        .any(|m| m.contains("Ingress.routes") && m.contains("250000")));
    // A key not laid out as measured (basic_router's 32-bit lpm is, its
    // 48-bit exact MAC keys are not).
    let b = json(&[
        "predict",
        "p4-samples/v1model/basic_router.p4",
        "--model",
        "t4p4s",
        "--format",
        "json",
    ]);
    assert!(codes(&b).contains(&"key_layout_not_measured".to_string()));
    let cores = predict(&["--cores", "12"]);
    assert!(codes(&cores).contains(&"cores_out_of_range".to_string()));
}

#[test]
fn bad_input_is_refused_naming_the_flag() {
    let bad = |args: &[&str], want: &str| {
        let mut all = vec!["predict", PROG, "--model", "t4p4s"];
        all.extend_from_slice(args);
        let r = p4cost(&all);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains(want), "{args:?}: {}", r.stderr);
    };
    bad(&["--entries", "nosuch=5"], "--entries nosuch=5");
    bad(&["--entries", "flows=0"], "--entries");
    bad(&["--entries", "flows=-4"], "--entries");
    bad(&["--entries", "flows"], "TABLE=N");
    bad(&["--cores", "0"], "--cores");
    bad(&["--cores", "-1"], "--cores");
    bad(&["--l3-mb", "0"], "--l3-mb");
    // --top ranks parse terms, which this model has none of.
    bad(&["--top", "2"], "--top");
    // The CPU flags on a model that is not a CPU's.
    let r = p4cost(&["predict", PROG, "--cores", "2"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--cores"), "{}", r.stderr);
}

#[test]
fn entries_from_p4cost_toml_and_zero_there() {
    let dir = common::scratch("t4p4s-toml");
    let prog = dir.join("p.p4");
    std::fs::copy(common::root().join(PROG), &prog).expect("copy");
    let toml = dir.join("p4cost.toml");
    std::fs::write(
        &toml,
        "[defaults]\nmodel = \"t4p4s\"\nentries = { flows = 1 }\n",
    )
    .expect("toml");
    let r = common::p4cost_in(&dir, &["predict", "p.p4", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).expect("json");
    let t = table(&v, "Ingress.flows");
    assert_eq!(t["entries"], 1);
    assert!(
        t["entries_source"]
            .as_str()
            .unwrap_or_default()
            .contains("p4cost.toml:3:"),
        "{t}"
    );
    // The flag wins over the file.
    let r = common::p4cost_in(
        &dir,
        &[
            "predict",
            "p.p4",
            "--entries",
            "flows=7",
            "--format",
            "json",
        ],
    );
    let v: Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(table(&v, "Ingress.flows")["entries"], 7);
    // 0 in the file: an error at its place.
    std::fs::write(
        &toml,
        "[defaults]\nmodel = \"t4p4s\"\nentries = { flows = 0 }\n",
    )
    .expect("toml");
    let r = common::p4cost_in(&dir, &["predict", "p.p4"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("p4cost.toml:3:") && r.stderr.contains("0 entries"),
        "{}",
        r.stderr
    );
}

#[test]
fn explain_shows_the_arithmetic_that_predict_gives() {
    let args = ["explain", PROG, "--model", "t4p4s", "--format", "json"];
    let e = json(&args);
    let cpu = &e["cpu"];
    let predicted = cpu["cycles_per_packet"].as_f64().expect("cycles");
    near(
        cpu["total_cycles"].as_f64().expect("total"),
        predicted,
        1e-3,
        "sum of terms",
    );
    let parts: Vec<&str> = e["terms"]
        .as_array()
        .expect("terms")
        .iter()
        .map(|t| t["part"].as_str().unwrap_or_default())
        .collect();
    // The slowest class: flows, routes, acl.
    assert_eq!(parts, ["Eq. (8)", "excess", "excess", "excess"]);
    let human = p4cost(&["explain", PROG, "--model", "t4p4s"]);
    assert_eq!(human.code, 0, "{}", human.stderr);
    for want in [
        "(56.67 * 3 + 225.35) / 1",
        "exp(0.00062 * 100) - 3831.64",
        "cycles",
        "Mpps",
        "13.23 us median",
    ] {
        assert!(human.stdout.contains(want), "{want}: {}", human.stdout);
    }
}

#[test]
fn human_output_names_its_units_and_models_lists_the_paper() {
    let r = p4cost(&["predict", PROG, "--model", "t4p4s"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    for want in [
        "cycles",
        "Mpps",
        "13.23 us",
        "entries (size)",
        "in cache",
        "in dram",
    ] {
        assert!(r.stdout.contains(want), "{want}: {}", r.stdout);
    }
    let m = p4cost(&["models"]);
    assert!(
        m.stdout.contains("t4p4s") && m.stdout.contains("ITC 32"),
        "{}",
        m.stdout
    );
    assert!(m.stdout.contains("Eq. (8)"), "{}", m.stdout);
}

#[test]
fn json_validates_against_the_committed_schemas() {
    for (cmd, args) in [
        (
            "predict",
            vec!["predict", PROG, "--model", "t4p4s", "--format", "json"],
        ),
        (
            "explain",
            vec!["explain", PROG, "--model", "t4p4s", "--format", "json"],
        ),
        ("models", vec!["models", "--format", "json"]),
    ] {
        let p = common::root().join(format!("schema/{cmd}.schema.json"));
        let schema: Value =
            serde_json::from_str(&std::fs::read_to_string(&p).expect("schema")).expect("json");
        common::assert_valid(&schema, &json(&args), cmd);
    }
}
