//! End-to-end tests of `predict` with the Tofino compiler's placement:
//! `predict prog.p4 --context context.json` (parse graph from the source,
//! control from the context) and the `tofino1-mau-cycles` model.

mod common;
use common::{json, p4cost, root};

const TOFINO: &str = "tests/fixtures/tofino";
const EXACT_MATCH: &str = "tests/fixtures/tofino/open-p4studio__tna_exact_match__context.json";
const TC2: &str = "p4-samples/tofino/tc2_datacenter.p4";

/// The five real contexts with compiler cycle figures and their per-gress
/// MAU latency as docs/models.md, Tofino MAU cycles and tests/fixtures/SOURCES.md state
/// it (ingress, egress; cycles, the 4-cycle corner turn included).
const FIGURES: &[(&str, u64, u64)] = &[
    ("fabric-tna__fabric__sde9.2.0__context.json", 105, 195),
    ("fabric-tna__fabric-int__sde9.2.0__context.json", 124, 182),
    ("open-p4studio__tna_exact_match__context.json", 77, 187),
    ("open-p4studio__tna_action_profile__context.json", 79, 187),
    ("open-p4studio__tna_action_selector__context.json", 85, 187),
];

fn codes(v: &serde_json::Value) -> Vec<String> {
    v["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .map(|w| w["code"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn source_parse_graph_with_context_tables() {
    let v = json(&[
        "predict",
        TC2,
        "--context",
        EXACT_MATCH,
        "--path",
        "ipv4,udp",
        "--format",
        "json",
    ]);
    // The parse graph is the source's: its parser, its 18 paths, its
    // headers on the selected path, its file in the state spans.
    assert_eq!(v["parser"], "ingress_parser");
    assert_eq!(v["parser_declared"], "DcIngressParser");
    assert_eq!(v["path_count"], 18);
    assert_eq!(v["context"], EXACT_MATCH);
    let path = &v["paths"][0];
    let headers: Vec<&str> = path["headers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_str().unwrap())
        .collect();
    assert_eq!(headers, vec!["hdr.ethernet", "hdr.ipv4", "hdr.udp"]);
    for st in path["states"].as_array().unwrap() {
        assert_eq!(st["span"]["file"], TC2);
    }
    // The tables are the context's, with their stages and its file.
    assert_eq!(v["control"]["name"], "SwitchIngress");
    let tables = path["breakdown"]["tables"].as_array().unwrap();
    let forward = tables
        .iter()
        .find(|t| t["name"] == "SwitchIngress.forward")
        .expect("context table");
    assert_eq!(forward["stages"], serde_json::json!([0]));
    assert_eq!(forward["span"]["file"], EXACT_MATCH);
    let timeout = tables
        .iter()
        .find(|t| t["name"] == "SwitchIngress.forward_timeout")
        .expect("context table");
    assert_eq!(timeout["stages"], serde_json::json!([2, 3]));
    assert!(!tables.iter().any(|t| t["name"] == "vxlan_tunnel_steer"));

    // The source's table is not in the context: a coded warning, and a
    // note saying which part came from where.
    let w = v["warnings"].as_array().unwrap();
    let mismatch = w
        .iter()
        .find(|w| w["code"] == "table_names_differ")
        .expect("name mismatch warning");
    let msg = mismatch["message"].as_str().unwrap();
    assert!(
        msg.contains("only in the source: vxlan_tunnel_steer"),
        "{msg}"
    );
    assert!(msg.contains("forward"), "{msg}");
    assert!(w.iter().any(|w| w["code"] == "reader_note"
        && w["message"].as_str().unwrap().starts_with(&format!(
            "parse graph (parsers, header types, headers) from {TC2}"
        ))));
}

#[test]
fn context_human_output_shows_stages() {
    let r = p4cost(&["predict", TC2, "--context", EXACT_MATCH, "--path", "ipv4"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains(&format!("context   {EXACT_MATCH}")));
    assert!(r
        .stdout
        .contains("parser    DcIngressParser (slot ingress_parser): 18 paths"));
    let line = r
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("SwitchIngress.forward_timeout"))
        .expect("table line");
    assert!(line.contains("stages 2-3"), "{line}");
    assert!(r.stdout.contains("table_names_differ:"), "{}", r.stdout);
}

#[test]
fn with_bfrt_the_context_is_still_the_control() {
    let v = json(&[
        "predict",
        TC2,
        "--context",
        EXACT_MATCH,
        "--bfrt",
        &format!("{TOFINO}/open-p4studio__tna_exact_match__bf-rt.json"),
        "--format",
        "json",
    ]);
    assert_eq!(v["control"]["name"], "SwitchIngress");
    assert_eq!(v["path_count"], 18);
    assert!(v["bfrt"].as_str().unwrap().ends_with("bf-rt.json"));
}

/// Ingress cycles summed independently from the context's own
/// `mau_stage_characteristics` (plus the 4-cycle corner turn).
fn ingress_cycles_in_file(file: &str) -> u64 {
    let text = std::fs::read_to_string(root().join(TOFINO).join(file)).expect("fixture");
    let v: serde_json::Value = serde_json::from_str(&text).expect("json");
    4 + v["mau_stage_characteristics"]
        .as_array()
        .expect("stage records")
        .iter()
        .filter(|s| s["gress"] == "ingress")
        .map(|s| s["cycles_contribute_to_latency"].as_u64().expect("cycles"))
        .sum::<u64>()
}

#[test]
fn mau_model_on_every_real_context() {
    for (file, ingress, egress) in FIGURES {
        assert_eq!(ingress_cycles_in_file(file), *ingress, "{file}");
        let path = format!("{TOFINO}/{file}");
        let v = json(&[
            "predict",
            &path,
            "--model",
            "tofino1-mau-cycles",
            "--format",
            "json",
        ]);
        let m = &v["mau"];
        assert_eq!(m["ingress"]["cycles"], *ingress, "{file}");
        assert_eq!(m["egress"]["cycles"], *egress, "{file}");
        assert_eq!(m["ingress"]["corner_turn_cycles"], 4, "{file}");
        assert_eq!(m["clock_ghz"], 1.22);
        assert_eq!(m["estimated"], false);
        let want = *ingress as f64 / 1.22;
        let got = v["paths"][0]["latency_ns"].as_f64().unwrap();
        assert!((got - want).abs() < 1e-9, "{file}: {got} vs {want}");
        let ing_ns = m["ingress"]["ns"].as_f64().unwrap();
        assert!((ing_ns - want).abs() < 1e-9, "{file}");
        // A context has no parse graph: no path is counted, one
        // path-independent entry carries the figure.
        assert_eq!(v["path_count"], 0, "{file}");
        assert_eq!(v["parser"], serde_json::Value::Null);
        assert_eq!(v["paths"].as_array().unwrap().len(), 1);
        assert!(v["paths"][0]["headers"].as_array().unwrap().is_empty());
        assert_eq!(v["port_gbps"], serde_json::Value::Null);
        assert!(!codes(&v).contains(&"estimated_placement".to_string()));
        // Per-stage breakdown sums to the total.
        let stage_sum: u64 = m["ingress"]["stages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["cycles"].as_u64().unwrap())
            .sum();
        assert_eq!(stage_sum + 4, *ingress, "{file}");
    }
}

/// tna_exact_match: 77 cycles / 1.22 GHz = 63.115 ns; at 1.0 GHz, 77 ns.
#[test]
fn mau_model_human_and_clock() {
    let r = p4cost(&["predict", EXACT_MATCH, "--model", "tofino1-mau-cycles"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("clock     1.22 GHz (default"),
        "{}",
        r.stdout
    );
    let ingress = r
        .stdout
        .lines()
        .find(|l| l.starts_with("ingress "))
        .expect("ingress row");
    assert!(
        ingress.contains(" 77 ") && ingress.contains("63.115"),
        "{ingress}"
    );

    let v = json(&[
        "predict",
        EXACT_MATCH,
        "--model",
        "tofino1-mau-cycles",
        "--clock-ghz",
        "1.0",
        "--format",
        "json",
    ]);
    assert_eq!(v["paths"][0]["latency_ns"], 77.0);
    assert_eq!(v["mau"]["clock_is_default"], false);
}

#[test]
fn mau_model_with_source_and_context() {
    let v = json(&[
        "predict",
        TC2,
        "--context",
        EXACT_MATCH,
        "--model",
        "tofino1-mau-cycles",
        "--format",
        "json",
    ]);
    // Parse paths are counted from the source; the latency is the same
    // for all of them.
    assert_eq!(v["path_count"], 18);
    assert_eq!(v["paths_listed"], 1);
    assert_eq!(v["mau"]["ingress"]["cycles"], 77);
    let got = v["paths"][0]["latency_ns"].as_f64().unwrap();
    assert!((got - 77.0 / 1.22).abs() < 1e-9);
    assert!(codes(&v).contains(&"table_names_differ".to_string()));
}

#[test]
fn schema_184_context_is_flagged_estimated() {
    let v = json(&[
        "predict",
        &format!("{TOFINO}/fabric-tna__fabric__sde9.0.0__context.json"),
        "--model",
        "tofino1-mau-cycles",
        "--format",
        "json",
    ]);
    assert_eq!(v["mau"]["estimated"], true);
    assert!(codes(&v).contains(&"estimated_placement".to_string()));
    assert!(v["mau"]["ingress"]["cycles"].as_u64().unwrap() > 4);
}

#[test]
fn bad_inputs_exit_2_with_a_clear_message() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["predict", TC2, "--context", TC2],
            "not a context.json (not a JSON object)",
        ),
        (
            &[
                "predict",
                TC2,
                "--context",
                "tests/fixtures/tofino/open-p4studio__tna_exact_match__bf-rt.json",
            ],
            "this is a BF-RT bfrt.json",
        ),
        (
            &[
                "predict",
                TC2,
                "--context",
                "tests/fixtures/bmv2/behavioral-model__simple_router.json",
            ],
            "this is p4c's BMv2 JSON",
        ),
        (
            &["predict", TC2, "--context", "tests/no/such/context.json"],
            "cannot read",
        ),
        (
            &["predict", EXACT_MATCH, "--context", EXACT_MATCH],
            "is itself a context.json",
        ),
        // A context alone with a linear model (or its classes) asked for:
        // no parse graph.
        (
            &["predict", EXACT_MATCH, "--model", "tofino1-10g"],
            "no ingress parser found",
        ),
        (
            &["predict", EXACT_MATCH, "--class", "t:hit"],
            "no ingress parser found",
        ),
        // The clock belongs to the MAU model only.
        (
            &["predict", TC2, "--clock-ghz", "1.1"],
            "--clock-ghz applies only to MAU-cycle models",
        ),
        (
            &[
                "predict",
                EXACT_MATCH,
                "--model",
                "tofino1-mau-cycles",
                "--clock-ghz",
                "0",
            ],
            "--clock-ghz must be a positive number",
        ),
        // Source alone has no placement for the MAU model.
        (
            &["predict", TC2, "--model", "tofino1-mau-cycles"],
            "no MAU stage placement",
        ),
    ];
    for (args, want) in cases {
        let r = p4cost(args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stdout);
        assert!(r.stderr.contains(want), "{args:?}: {}", r.stderr);
    }
}

/// `p4cost stages` and `predict --model tofino1-mau-cycles` are one
/// computation: the same per-gress cycles (the documented figures), the
/// model file's default clock, and ns = cycles / clock.
#[test]
fn stages_command_agrees_with_the_mau_model() {
    for (f, ing, eg) in FIGURES {
        let path = format!("{TOFINO}/{f}");
        let s = json(&["stages", &path, "--format", "json"]);
        assert_eq!(s["mau"]["ingress"]["cycles"], *ing, "{f}");
        assert_eq!(s["mau"]["egress"]["cycles"], *eg, "{f}");
        assert_eq!(s["mau"]["ingress"]["corner_turn_cycles"], 4, "{f}");
        assert_eq!(s["mau"]["clock_ghz"], 1.22, "{f}");
        assert_eq!(s["mau"]["clock_is_default"], true, "{f}");
        assert_eq!(s["mau"]["estimated"], false, "{f}");
        let ns = s["mau"]["egress"]["ns"].as_f64().unwrap_or(0.0);
        assert!((ns - *eg as f64 / 1.22).abs() < 1e-9, "{f}: {ns}");
        let stage_sum: u64 = s["mau"]["ingress"]["stages"]
            .as_array()
            .expect("stages")
            .iter()
            .map(|r| r["cycles"].as_u64().unwrap_or(0))
            .sum();
        assert_eq!(stage_sum + 4, *ing, "{f}");
        let p = json(&[
            "predict",
            &path,
            "--model",
            "tofino1-mau-cycles",
            "--format",
            "json",
        ]);
        assert_eq!(p["mau"]["ingress"]["cycles"], s["mau"]["ingress"]["cycles"]);
        assert_eq!(p["mau"]["egress"]["ns"], s["mau"]["egress"]["ns"]);
    }
    let s = json(&[
        "stages",
        EXACT_MATCH,
        "--clock-ghz",
        "1",
        "--format",
        "json",
    ]);
    assert_eq!(
        (
            s["mau"]["ingress"]["ns"].as_f64(),
            s["mau"]["clock_is_default"].as_bool()
        ),
        (Some(77.0), Some(false))
    );
    // Schema 1.8: estimated figures, flagged in both outputs.
    let old = format!("{TOFINO}/fabric-tna__fabric__sde9.0.0__context.json");
    let s = json(&["stages", &old, "--format", "json"]);
    assert_eq!(
        (
            s["mau"]["estimated"].as_bool(),
            s["model"]["name"]
                .as_str()
                .map(|n| n == "tofino1-mau-cycles")
        ),
        (Some(true), Some(true))
    );
    assert_eq!(s["warnings"][0]["code"], "estimated_placement");
    let r = p4cost(&["stages", &old]);
    assert!(r.stdout.contains("[ESTIMATED"), "{}", r.stdout);
    let r = p4cost(&["stages", EXACT_MATCH, "--clock-ghz", "0"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("--clock-ghz must be a positive number"),
        "{}",
        r.stderr
    );
}

/// A context.json alone, no model asked for: the compiler's MAU cycles are
/// what it holds, so predict and check use them and say so, instead of an
/// error about a parse graph the input cannot have.
#[test]
fn a_context_alone_is_predicted_and_checked_with_its_mau_cycles() {
    let auto = json(&["predict", EXACT_MATCH, "--format", "json"]);
    let asked = json(&[
        "predict",
        EXACT_MATCH,
        "--model",
        "tofino1-mau-cycles",
        "--format",
        "json",
    ]);
    assert_eq!(auto["model"]["name"], "tofino1-mau-cycles");
    assert_eq!(auto["mau"], asked["mau"]);
    assert_eq!(
        auto["paths"][0]["latency_ns"],
        asked["paths"][0]["latency_ns"]
    );
    let notes = auto["warnings"].as_array().expect("warnings");
    let note = notes
        .iter()
        .find(|w| w["code"] == "model_for_input")
        .unwrap_or_else(|| panic!("{notes:?}"));
    let text = note["message"].as_str().expect("message");
    assert!(
        text.contains("tofino1-mau-cycles") && !text.contains("  "),
        "{text}"
    );
    // check --max-latency holds every packet to the ingress MAU latency.
    let ns = asked["mau"]["ingress"]["ns"].as_f64().expect("ingress ns");
    let limit = format!("{}", (ns - 1.0).max(1.0));
    let r = p4cost(&["check", EXACT_MATCH, "--max-latency", &limit, "--no-config"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("every packet (ingress MAU, tofino1-mau-cycles)"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("stage 0"),
        "the stages are its terms: {}",
        r.stdout
    );
    let limit = format!("{}", ns + 1.0);
    let r = p4cost(&["check", EXACT_MATCH, "--max-latency", &limit, "--no-config"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
}
