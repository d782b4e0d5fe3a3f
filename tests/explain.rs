//! `p4cost explain`: every term of one prediction, recomputed here from
//! the model file's coefficients and `predict`'s own figures.

mod common;

use common::{json, p4cost, root};
use serde_json::Value;

const TC2: &str = "p4-samples/tofino/tc2_datacenter.p4";

fn model(name: &str) -> Value {
    let all = json(&["models", "--format", "json"]);
    all["models"]
        .as_array()
        .expect("models")
        .iter()
        .find(|m| m["name"] == name)
        .expect("model")
        .clone()
}

fn f(v: &Value) -> f64 {
    v.as_f64().expect("a number")
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1.5e-3
}

#[test]
fn each_linear_term_is_its_coefficient_times_its_input() {
    for (port, name) in [("10g", "tofino1-10g"), ("100g", "tofino1-100g")] {
        let args = [
            TC2,
            "--path",
            "ethernet,vlan,ipv4,udp",
            "--port",
            port,
            "--packet-size",
            "700",
            "--format",
            "json",
            "--no-config",
        ];
        let e = json(&[&["explain"], &args[..]].concat());
        let p = json(&[&["predict"], &args[..]].concat());
        let m = model(name);
        assert_eq!(e["model"]["name"], name);
        assert_eq!(e["model"]["file"], format!("models/{name}.json"));
        assert!(root()
            .join(e["model"]["file"].as_str().expect("file"))
            .is_file());
        let terms = e["terms"].as_array().expect("terms");
        // L_B from the model file's two base coefficients.
        let base = &terms[0];
        assert_eq!(base["part"], "L_B");
        let want = f(&m["base"]["per_packet_byte_ns"]) * 700.0 + f(&m["base"]["constant_ns"]);
        assert!(close(f(&base["ns"]), want), "{base} vs {want}");
        // Each parse state: bytes counted x per byte + per state, or 0 in
        // the baseline, from predict's listing of the same path.
        let path = &p["paths"][0];
        let states = path["states"].as_array().expect("states");
        let l_pd: Vec<&Value> = terms.iter().filter(|t| t["part"] == "L_PD").collect();
        assert_eq!(l_pd.len(), states.len());
        for (t, s) in l_pd.iter().zip(states) {
            assert_eq!(
                t["item"],
                format!("parse state {}", s["name"].as_str().expect("name"))
            );
            let want = if s["in_baseline"] == true || s["counted_bytes"] == 0 {
                0.0
            } else {
                f(&m["parser"]["per_header_byte_ns"]) * f(&s["counted_bytes"])
                    + f(&m["parser"]["per_state_ns"])
            };
            assert!(close(f(&t["ns"]), want), "{t} vs {want}");
        }
        // Each table of the slowest class: its class's coefficient.
        let class = path["classes"]["classes"]
            .as_array()
            .expect("classes")
            .iter()
            .max_by(|a, b| f(&a["latency_ns"]).total_cmp(&f(&b["latency_ns"])))
            .expect("a class");
        assert_eq!(e["class"], class["id"]);
        let l_c: Vec<&Value> = terms.iter().filter(|t| t["part"] == "L_C").collect();
        let tables = class["tables"].as_array().expect("tables");
        assert_eq!(l_c.len(), tables.len());
        for (t, ct) in l_c.iter().zip(tables) {
            let b = path["breakdown"]["tables"]
                .as_array()
                .expect("breakdown")
                .iter()
                .find(|b| b["name"] == ct["name"])
                .expect("table in breakdown");
            let kind = if b["match_class"] == "lpm" {
                "lpm"
            } else {
                "exact"
            };
            let key = if b["key_class"] == "wide" {
                "wide_key_ns"
            } else {
                "narrow_key_ns"
            };
            let want = f(&m["control"][kind][key]);
            assert!(close(f(&t["ns"]), want), "{t} vs {want}");
            assert!(
                t["formula"]
                    .as_str()
                    .expect("formula")
                    .contains(&format!("{kind}.{key}")),
                "{t}"
            );
        }
        // The sum is predict's figure for the class.
        assert!(close(f(&e["total_ns"]), f(&class["latency_ns"])), "{e}");
        assert_eq!(e["predicted_ns"], class["latency_ns"]);
    }
}

#[test]
fn without_a_path_the_slowest_class_is_explained() {
    let e = json(&["explain", TC2, "--format", "json", "--no-config"]);
    let p = json(&["predict", TC2, "--format", "json", "--no-config"]);
    let max = &p["summary"]["max"];
    assert!(close(f(&e["total_ns"]), f(&max["latency_ns"])), "{e}");
    assert_eq!(e["headers"], max["headers"]);
    assert_eq!(e["class"], max["class"]);
}

#[test]
fn mau_cycles_add_up_per_stage_to_what_predict_gives() {
    let ctx = "tests/fixtures/tofino/fabric-tna__fabric__sde9.0.0__context.json";
    let e = json(&[
        "explain",
        ctx,
        "--model",
        "tofino1-mau-cycles",
        "--format",
        "json",
        "--no-config",
    ]);
    let p = json(&[
        "predict",
        ctx,
        "--model",
        "tofino1-mau-cycles",
        "--format",
        "json",
        "--no-config",
    ]);
    let mau = &p["mau"];
    let clock = f(&mau["clock_ghz"]);
    let mut cycles = 0.0;
    let mut stages = 0;
    for g in ["ingress", "egress"] {
        if mau[g].is_null() {
            continue;
        }
        cycles += f(&mau[g]["cycles"]);
        stages += mau[g]["stages"].as_array().expect("stages").len();
        let corner = e["terms"]
            .as_array()
            .expect("terms")
            .iter()
            .find(|t| t["part"] == format!("MAU {g}") && t["item"] == "corner turn")
            .expect("corner turn term");
        assert!(close(
            f(&corner["ns"]),
            f(&mau[g]["corner_turn_cycles"]) / clock
        ));
    }
    let stage_terms = e["terms"]
        .as_array()
        .expect("terms")
        .iter()
        .filter(|t| t["item"].as_str().is_some_and(|i| i.starts_with("stage ")))
        .count();
    assert_eq!(stage_terms, stages);
    assert!(close(f(&e["total_ns"]), cycles / clock), "{e}");
}

#[test]
fn the_human_table_names_the_paper_and_the_model_doc() {
    let r = p4cost(&["explain", TC2, "--path", "ethernet,ipv4", "--no-config"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("L_B    packet of 512 B"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("0.237 ns/B (per_packet_byte_ns) x 512 B + 152.42 ns (constant_ns)"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("file    models/tofino1-10g.json"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("doi:10.1016/j.comcom.2024.01.010"),
        "{}",
        r.stdout
    );
    // The doc anchor it names is a heading of docs/models.md.
    let doc = r
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("doc     "))
        .expect("doc line");
    let anchor = doc.split('#').nth(1).expect("anchor");
    let text = std::fs::read_to_string(root().join("docs/models.md")).expect("docs/models.md");
    assert!(
        text.lines().filter(|l| l.starts_with('#')).any(|l| l
            .trim_start_matches('#')
            .trim()
            .to_lowercase()
            .replace(' ', "-")
            == anchor),
        "{anchor}"
    );
}

#[test]
fn explain_refuses_sarif_and_unknown_paths() {
    let r = p4cost(&["explain", TC2, "--format", "sarif", "--no-config"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("explain prints a table or JSON"),
        "{}",
        r.stderr
    );
    let r = p4cost(&["explain", TC2, "--path", "ipx", "--no-config"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("no parse path"), "{}", r.stderr);
}
