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
        // A class names its tables by index into the report's list.
        let tables: Vec<&Value> = class["tables"]
            .as_array()
            .expect("tables")
            .iter()
            .map(|i| &p["tables"][i.as_u64().expect("index") as usize])
            .collect();
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

/// The slowest class's figure as `predict` (summary and the path's
/// maximum), `explain`, `check` (`max-latency`, and `class` with the
/// path's headers), and `diff` give it, for `file` with `args`; all must
/// be one number, naming one class (issue 24).
fn one_figure(file: &str, args: &[&str]) {
    let with = |cmd: &[&str]| {
        let mut v: Vec<&str> = cmd.to_vec();
        v.extend(args);
        v.extend(["--format", "json", "--no-config"]);
        json(&v)
    };
    let p = with(&["predict", file, "--max-paths", "0"]);
    let max = &p["summary"]["max"];
    let e = with(&["explain", file]);
    assert!(
        close(f(&e["total_ns"]), f(&max["latency_ns"])),
        "{file}: {e}"
    );
    assert_eq!(e["predicted_ns"], max["latency_ns"], "{file}");
    assert_eq!(e["class"], max["class"], "{file}");
    assert_eq!(e["headers"], max["headers"], "{file}");
    let c = {
        let mut v = vec!["check", file, "--max-latency", "1"];
        v.extend(args);
        v.extend(["--format", "json", "--no-config"]);
        let r = p4cost(&v);
        assert_eq!(r.code, 1, "{file}: {}", r.stderr);
        serde_json::from_str::<Value>(&r.stdout).expect("JSON")
    };
    assert_eq!(c["results"][0]["predicted"], max["latency_ns"], "{file}");
    assert_eq!(c["results"][0]["class"], max["class"], "{file}");
    let d = with(&["diff", file, file]);
    assert_eq!(
        d["pipelines"][0]["max_latency"]["new"], max["latency_ns"],
        "{file}"
    );
    // One path (`--path` with its headers): explain's class and total are
    // the path's maximum, however far down its listing the class is.
    let headers: Vec<String> = max["headers"]
        .as_array()
        .expect("headers")
        .iter()
        .map(|h| {
            h.as_str()
                .expect("name")
                .trim_start_matches("hdr.")
                .to_string()
        })
        .collect();
    let sel = headers.join(",");
    let p1 = with(&["predict", file, "--path", &sel]);
    let path = &p1["paths"][0];
    let e1 = with(&["explain", file, "--path", &sel]);
    assert!(
        close(f(&e1["total_ns"]), f(&path["latency_ns"])),
        "{file}: {e1}"
    );
    assert_eq!(e1["predicted_ns"], path["latency_ns"], "{file}");
    if let Some(slowest) = path["classes"].get("slowest") {
        assert_eq!(e1["class"], slowest["id"], "{file}");
        assert_eq!(slowest["latency_ns"], path["latency_ns"], "{file}");
    }
    let dir = common::scratch(&format!("one-figure-{}", file.replace('/', "_")));
    let toml = format!(
        "[[program]]\npath = {:?}\n[[program.budget.class]]\nheaders = {:?}\nmax-latency = 1\n",
        root().join(file).display().to_string(),
        headers
    );
    std::fs::write(dir.join("p4cost.toml"), toml).expect("config");
    let mut v = vec!["check", "--format", "json"];
    v.extend(args);
    let r = common::p4cost_in(&dir, &v);
    assert_eq!(r.code, 1, "{file}: {}", r.stderr);
    let c1: Value = serde_json::from_str(&r.stdout).expect("JSON");
    let v = c1["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|v| v["budget"] == "class_latency")
        .expect("a class verdict");
    assert_eq!(v["predicted"], path["latency_ns"], "{file}");
    assert_eq!(v["class"], e1["class"], "{file}");
}

#[test]
fn a_slowest_class_past_the_listing_is_the_one_every_command_names() {
    // 64 classes per path, the slowest the 64th: past the 8 listed per
    // path and the 32 of `--path` (explain used to take the slowest listed).
    let file = "p4-samples/tofino/classes/deep_listing.p4";
    let p = json(&["predict", file, "--format", "json", "--no-config"]);
    assert_eq!(p["summary"]["max"]["class"], "1.64");
    one_figure(file, &[]);
}

#[test]
fn every_bundled_sample_has_one_slowest_figure() {
    for file in [
        "p4-samples/tofino/tc1_enterprise.p4",
        TC2,
        "p4-samples/tofino/tc3_edge_mpls.p4",
        "p4-samples/tofino/tc4_service_provider.p4",
        "p4-samples/tofino/tc5_int_md.p4",
        "p4-samples/tofino/tc6_big_union.p4",
        "p4-samples/tofino/classes/hit_miss_action_run.p4",
        "p4-samples/tofino/classes/egress.p4",
        "p4-samples/tofino/classes/mpls_stack8.p4",
    ] {
        one_figure(file, &[]);
    }
}
