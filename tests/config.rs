//! `p4cost.toml` (issue 10): discovery, budgets per program, class, gress
//! and table count, chains of hops with PL/DL segments, flags over the
//! file, and `file:line:col` errors. Every figure `check` judges must be
//! the one `predict` prints for the same program and settings.

mod common;
use common::{p4cost, p4cost_in};

const PROJECT: &str = "p4-samples/project/p4cost.toml";

fn json(r: &common::Run) -> serde_json::Value {
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", r.stdout, r.stderr))
}

/// The sample project's verdicts are predict's figures, budget by budget.
#[test]
fn the_sample_project_is_judged_on_predicts_figures() {
    let r = p4cost(&["check", "--config", PROJECT, "--format", "json"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let v = json(&r);
    let res = v["results"].as_array().expect("results");
    let by = |b: &str| {
        res.iter()
            .find(|x| x["budget"] == b && x["program"] == "p4-samples/tofino/tc2_datacenter.p4")
            .unwrap_or_else(|| panic!("{b}"))
    };
    let tc2 = "p4-samples/tofino/tc2_datacenter.p4";
    // Slowest class over all: the summary's max (304.548 ns, tests/hooks.rs).
    let p = common::json(&["predict", tc2, "--no-config", "--format", "json"]);
    assert_eq!(
        by("max_latency")["predicted"],
        p["summary"]["max"]["latency_ns"]
    );
    assert_eq!(by("max_latency")["predicted"], 304.548);
    assert_eq!(by("max_latency")["limit"], 310.0);
    // The program's own budget replaced the default one (320).
    assert_eq!(
        by("max_latency")["origin"],
        "p4-samples/project/p4cost.toml:27:15"
    );
    // The class budget: the slowest class of the path predict --path picks.
    let p = common::json(&[
        "predict",
        tc2,
        "--no-config",
        "--path",
        "ethernet,vlan,ipv4,udp",
        "--format",
        "json",
    ]);
    assert_eq!(
        by("class_latency")["predicted"],
        p["paths"][0]["latency_ns"]
    );
    assert_eq!(by("class_latency")["selector"][3], "udp");
    // Ingress MAU cycles: the stage estimate's, as predict gives it.
    let p = common::json(&[
        "predict",
        tc2,
        "--no-config",
        "--model",
        "tofino1-mau-estimate",
        "--format",
        "json",
    ]);
    assert_eq!(
        by("ingress_cycles")["predicted"].as_f64(),
        p["mau"]["ingress"]["cycles"].as_f64()
    );
    assert_eq!(by("ingress_cycles")["unit"], "cycles");
    assert_eq!(by("ingress_cycles")["model"], "tofino1-mau-estimate");
    // Match tables applied (TC2 applies one).
    assert_eq!(by("table_count")["predicted"], 1.0);
    // The edge program's port picks the 100G model over the default 10G one.
    let edge = res
        .iter()
        .find(|x| x["program"] == "p4-samples/tofino/tc3_edge_mpls.p4")
        .expect("edge");
    assert_eq!(edge["model"], "tofino1-100g");
    assert_eq!(edge["limit"], 320.0);
}

/// Each packet's chain total is the sum of its hops: predict's figure for
/// its path in each program plus the fixed delay.
#[test]
fn a_chain_sums_its_hops_per_packet_and_judges_segments() {
    let r = p4cost(&["check", "--config", PROJECT, "--format", "json"]);
    let v = json(&r);
    let c = &v["chains"][0];
    assert_eq!(c["name"], "dc-to-edge");
    let packets = c["packets"].as_array().expect("packets");
    assert!(!packets.is_empty());
    // TC3 parses no VXLAN or TCP: those packets do not cross the chain.
    assert!(c["not_crossing"].as_array().is_some_and(|n| !n.is_empty()));
    let pkt = packets
        .iter()
        .find(|p| p["headers"] == serde_json::json!(["hdr.ethernet", "hdr.ipv4"]))
        .expect("ethernet, ipv4 crosses");
    let dc = common::json(&[
        "predict",
        "p4-samples/tofino/tc2_datacenter.p4",
        "--no-config",
        "--path",
        "ethernet,ipv4",
        "--format",
        "json",
    ]);
    let edge = common::json(&[
        "predict",
        "p4-samples/tofino/tc3_edge_mpls.p4",
        "--no-config",
        "--port",
        "100g",
        "--path",
        "ethernet,ipv4",
        "--format",
        "json",
    ]);
    let dc_ns = dc["paths"][0]["latency_ns"].as_f64().expect("dc");
    let edge_ns = edge["paths"][0]["latency_ns"].as_f64().expect("edge");
    assert_eq!(pkt["hops"][0]["ns"].as_f64(), Some(dc_ns));
    assert_eq!(pkt["hops"][1]["ns"].as_f64(), Some(1200.0));
    assert_eq!(pkt["hops"][2]["ns"].as_f64(), Some(edge_ns));
    let total = pkt["total_ns"].as_f64().expect("total");
    assert!((total - (dc_ns + 1200.0 + edge_ns)).abs() < 1e-6);
    // The segment dc+fw is hops 1-2: above PL 1450, within DL 1600.
    let seg = &pkt["segments"][0];
    assert!((seg["ns"].as_f64().expect("ns") - (dc_ns + 1200.0)).abs() < 1e-6);
    assert_eq!(seg["status"], "priority");
    assert_eq!(pkt["status"], "priority");
    assert_eq!(c["over"], 0);
}

/// A project in a temporary directory: the config and one program.
fn project(name: &str, toml: &str) -> std::path::PathBuf {
    let dir = common::scratch(name);
    std::fs::create_dir_all(dir.join("p4src/sub")).expect("dirs");
    std::fs::copy(
        common::root().join("p4-samples/tofino/tc2_datacenter.p4"),
        dir.join("p4src/dc.p4"),
    )
    .expect("copy");
    std::fs::write(dir.join("p4cost.toml"), toml).expect("toml");
    dir
}

#[test]
fn the_config_is_found_from_a_subdirectory_and_budgets_fail_the_run() {
    let dir = project(
        "cfg-over",
        "[[program]]\npath = \"p4src/dc.p4\"\n\n[program.budget]\ningress-cycles = 10\nmax-latency = 300\n",
    );
    let r = p4cost_in(&dir.join("p4src/sub"), &["check"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    // Both budgets are exceeded (304.548 ns; TC2's ingress uses more than
    // 10 cycles); each names where it was set and its largest terms.
    assert!(
        r.stdout
            .contains("FAIL ../../p4src/dc.p4: slowest packet class 5.1"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("[../../p4cost.toml:6:15]"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("FAIL ../../p4src/dc.p4: ingress MAU"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("+20 cycles  stage 0"), "{}", r.stdout);
    assert!(
        r.stdout.ends_with("2 of 2 budget(s) exceeded\n"),
        "{}",
        r.stdout
    );
    // A flag overrides the file's budget of the same kind; --no-config
    // drops the file (and then nothing is left to check without PATH).
    let r = p4cost_in(&dir, &["check", "--max-latency", "400", "--format", "json"]);
    let v = json(&r);
    let lat = v["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|x| x["budget"] == "max_latency")
        .expect("latency");
    assert_eq!(lat["limit"], 400.0);
    assert_eq!(lat["status"], "ok");
    let r = p4cost_in(&dir, &["check", "--no-config"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("nothing to check"), "{}", r.stderr);
}

#[test]
fn predict_takes_its_settings_from_the_config_under_the_flags() {
    let dir = project(
        "cfg-predict",
        "[defaults]\nport = \"100g\"\npacket-size = 256\n",
    );
    let r = p4cost_in(&dir, &["predict", "p4src/dc.p4"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("model     tofino1-100g"), "{}", r.stdout);
    assert!(r.stdout.contains("packet    256 B"), "{}", r.stdout);
    let r = p4cost_in(&dir, &["predict", "p4src/dc.p4", "--port", "10g"]);
    assert!(r.stdout.contains("model     tofino1-10g"), "{}", r.stdout);
    assert!(r.stdout.contains("packet    256 B"), "{}", r.stdout);
    let r = p4cost_in(&dir, &["predict", "p4src/dc.p4", "--no-config"]);
    assert!(
        r.stdout.contains("packet    512 B (default"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_bad_config_is_an_error_at_its_line_and_column() {
    for (toml, want) in [
        ("[defaults]\nmax-latncy = 3\n", "p4cost.toml:2:1: unknown field `max-latncy`"),
        ("[defaults]\nmodel = \"tofino1-10G\"\n", "p4cost.toml:2:9: "),
        ("[defaults]\nport = \"40g\"\n", "p4cost.toml:2:8: port `40g`"),
        ("[defaults]\npacket-size = 20\n", "p4cost.toml:2:15: packet-size 20"),
        ("[[program]]\npath = \"nope.p4\"\n", "p4cost.toml:2:8: program `"),
        (
            "[[program]]\npath = \"p4src/dc.p4\"\n[program.budget]\nmax-latency = -1\n",
            "p4cost.toml:4:15: max-latency -1",
        ),
        (
            "[[program]]\npath = \"p4src/dc.p4\"\nentries = { nosuch = 5 }\n[program.budget]\ningress-cycles = 100\n",
            "p4cost.toml:3:22: entries: ",
        ),
        (
            "[[program]]\npath = \"p4src/dc.p4\"\n[[chain]]\nname = \"c\"\nhops = [{ program = \"dc\" }]\n",
            "p4cost.toml:5:21: hop 1: no [[program]] named `dc`",
        ),
        (
            "[[program]]\nname = \"dc\"\npath = \"p4src/dc.p4\"\n[[chain]]\nname = \"c\"\nhops = [{ program = \"dc\" }, { name = \"fw\", delay-ns = 5 }]\nsegments = [{ from = \"dc\", to = \"fw\", priority-ns = 900, drop-ns = 800 }]\n",
            "p4cost.toml:7:53: priority-ns 900 is above drop-ns 800",
        ),
        ("[defaults\n", "p4cost.toml:1:"),
    ] {
        let dir = project("cfg-bad", toml);
        let r = p4cost_in(&dir, &["check"]);
        assert_eq!(r.code, 2, "{toml}: {}{}", r.stdout, r.stderr);
        assert!(r.stderr.contains(want), "{toml}: want {want:?} in {}", r.stderr);
    }
}

/// `model-file` in p4cost.toml: relative to the configuration, used by
/// `predict` and `check` as `--model-file` is; a flag overrides it; a bad
/// file is an error at its key.
#[test]
fn a_model_file_in_the_config_is_used_and_checked() {
    let dir = project(
        "cfg-model-file",
        "[defaults]\nmodel-file = \"models/mine.json\"\n\n[[program]]\npath = \"p4src/dc.p4\"\n",
    );
    std::fs::create_dir_all(dir.join("models")).expect("dir");
    let mut m: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(common::root().join("models/tofino1-10g.json")).expect("model"),
    )
    .expect("JSON");
    m["name"] = "mine-10g".into();
    std::fs::write(dir.join("models/mine.json"), m.to_string()).expect("write");
    let r = p4cost_in(&dir.join("p4src/sub"), &["predict", "../dc.p4"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("model     mine-10g"), "{}", r.stdout);
    let r = p4cost_in(
        &dir,
        &["check", "--max-latency", "1000", "--format", "json"],
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("mine-10g"), "{}{}", r.stdout, r.stderr);
    let r = p4cost_in(&dir, &["predict", "p4src/dc.p4", "--model", "tofino1-100g"]);
    assert!(r.stdout.contains("model     tofino1-100g"), "{}", r.stdout);

    std::fs::write(dir.join("models/mine.json"), "{\"schema\": 1}").expect("write");
    let r = p4cost_in(&dir, &["predict", "p4src/dc.p4"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("p4cost.toml:2:14") && r.stderr.contains("mine.json"),
        "{}",
        r.stderr
    );
    std::fs::write(
        dir.join("p4cost.toml"),
        "[defaults]\nmodel = \"tofino1-10g\"\nmodel-file = \"models/mine.json\"\n",
    )
    .expect("toml");
    let r = p4cost_in(&dir, &["predict", "p4src/dc.p4"]);
    assert!(r.stderr.contains("not both"), "{}", r.stderr);
}

/// A model file of two ports (what `fit` writes for the default suite):
/// `port` beside `model-file` in p4cost.toml picks its fit, and `--port`
/// on the command line picks within the configured file rather than
/// dropping it for an embedded model.
#[test]
fn the_port_picks_the_fit_of_a_model_file_of_ports() {
    let dir = project(
        "cfg-model-file-ports",
        "[defaults]\nmodel-file = \"mine.json\"\nport = \"100g\"\n",
    );
    let port = |file: &str| {
        let text =
            std::fs::read_to_string(common::root().join("models").join(file)).expect("model");
        let mut v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        v["name"] = "mine".into();
        v
    };
    let file = serde_json::json!({
        "schema": 1, "name": "mine", "title": "mine at two ports", "kind": "tofino_ingress_linear",
        "target": "tofino1", "source": {"citation": "c", "where": "w", "spec": "docs/models.md#x"},
        "predicts": "p",
        "ports": [port("tofino1-10g.json"), port("tofino1-100g.json")]
    });
    std::fs::write(dir.join("mine.json"), file.to_string()).expect("write");
    let at = |args: &[&str]| {
        let mut all = vec!["predict", "p4src/dc.p4", "--format", "json"];
        all.extend(args);
        let r = p4cost_in(&dir, &all);
        let j = json(&r);
        (
            j["model"]["name"].clone(),
            j["port_gbps"].clone(),
            j["summary"]["max"]["latency_ns"].clone(),
        )
    };
    let published = |p: &str| {
        let r = p4cost_in(
            &dir,
            &[
                "predict",
                "p4src/dc.p4",
                "--no-config",
                "--port",
                p,
                "--format",
                "json",
            ],
        );
        json(&r)["summary"]["max"]["latency_ns"].clone()
    };
    let (name, port100, ns) = at(&[]);
    assert_eq!((name, port100), ("mine".into(), 100.into()));
    assert_eq!(ns, published("100g"));
    let (name, port10, ns) = at(&["--port", "10g"]);
    assert_eq!((name, port10), ("mine".into(), 10.into()));
    assert_eq!(ns, published("10g"));
}
