//! `p4cost bound` (issue 27, item 4): network-calculus bounds per packet
//! class. The expected figures are typed from the paper's worked examples
//! (Helm et al., ITC 2021: f0 = 51.058 us, five-tuple about 3 us,
//! set-tp-src about 9 us, R = 50 Mbit/s; NetFPGA SUME T <= 1.917 us,
//! R = 6.6 Gbit/s), never produced by p4cost.

mod common;

use serde_json::Value;

const SAMPLE: &str = "p4-samples/nc/five_tuple_set_tp_src.p4";

fn bound(args: &[&str]) -> Value {
    let mut all = vec!["bound", SAMPLE, "--no-config", "--format", "json"];
    all.extend_from_slice(args);
    common::json(&all)
}

fn close(v: &Value, want: f64, tol: f64) -> bool {
    v.as_f64().is_some_and(|x| (x - want).abs() <= tol)
}

#[test]
fn zodiac_fx_five_tuple_set_tp_src_is_the_papers_example() {
    // b = 10 x 64 B, r = 10 Mbit/s: 63.058 us + 5120 bit / 50 Mbit/s.
    let r = bound(&["--device", "zodiac-fx", "--arrival", "640B,10Mbps"]);
    assert!(close(&r["delay_bound_ns"], 165_458.0, 0.5), "{r}");
    assert!(close(&r["backlog_bound_bytes"], 718.8, 0.05), "{r}");
    let worst = &r["pipelines"][0]["worst"];
    assert!(
        close(&worst["service"]["latency_ns"], 63_058.0, 0.5),
        "{worst}"
    );
    assert!(close(&worst["service"]["rate_bps"], 50e6, 0.5), "{worst}");
    assert_eq!(worst["blocks"][0]["match_group"], "five_tuple");
    assert_eq!(worst["blocks"][0]["action_groups"][0], "l3_l4_rewrite");
    // The same burst in bits.
    let bits = bound(&["--device", "zodiac-fx", "--arrival", "5120b,10Mbps"]);
    assert_eq!(bits["delay_bound_ns"], r["delay_bound_ns"]);
}

#[test]
fn netfpga_sume_is_the_papers_example() {
    // b = 10 x 68 B, r = 1 Gbit/s: 1.917 us + 5440 bit / 6.6 Gbit/s.
    let r = bound(&["--device", "netfpga-sume", "--arrival", "680B,1Gbps"]);
    assert!(close(&r["delay_bound_ns"], 2741.0, 0.5), "{r}");
    assert!(close(&r["backlog_bound_bytes"], 919.6, 0.05), "{r}");
}

#[test]
fn classes_without_the_table_pay_the_baseline_only() {
    let r = bound(&["--device", "zodiac-fx", "--arrival", "0B,1Mbps"]);
    let classes = r["pipelines"][0]["classes"].as_array().unwrap();
    assert_eq!(classes.len(), 3, "{r}");
    let ts: Vec<f64> = classes
        .iter()
        .map(|c| c["service"]["latency_ns"].as_f64().unwrap())
        .collect();
    assert_eq!(ts, vec![63_058.0, 51_058.0, 51_058.0]);
    // Levels: the median baseline is 3 us under the max one.
    let m = bound(&[
        "--device",
        "zodiac-fx",
        "--arrival",
        "0B,1Mbps",
        "--level",
        "median",
    ]);
    assert!(close(
        &m["pipelines"][0]["worst"]["service"]["latency_ns"],
        60_058.0,
        0.5
    ));
}

#[test]
fn a_model_prices_classes_at_the_ports_rate() {
    let pred = common::json(&[
        "predict",
        SAMPLE,
        "--no-config",
        "--port",
        "100g",
        "--format",
        "json",
    ]);
    let t = pred["summary"]["max"]["latency_ns"].as_f64().unwrap();
    let r = bound(&["--port", "100g", "--arrival", "1KB,10Gbps"]);
    let worst = &r["pipelines"][0]["worst"];
    assert!(close(&worst["service"]["rate_bps"], 100e9, 0.5), "{worst}");
    assert!(close(&worst["service"]["latency_ns"], t, 1e-9), "{worst}");
    // T + b/R with b = 8000 bit, R = 100 Gbit/s: 80 ns more than T.
    assert!(close(&r["delay_bound_ns"], t + 80.0, 1e-6), "{r}");
    assert_eq!(r["service"]["kind"], "model");
}

#[test]
fn a_flow_faster_than_the_service_is_a_finding_naming_both_rates() {
    let run = common::p4cost(&[
        "bound",
        SAMPLE,
        "--no-config",
        "--device",
        "zodiac-fx",
        "--arrival",
        "640B,60Mbps",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stdout.is_empty());
    assert!(
        run.stderr.contains("60 Mbit/s") && run.stderr.contains("50 Mbit/s"),
        "{}",
        run.stderr
    );
}

#[test]
fn bad_flags_are_usage_errors_naming_the_flag() {
    for (args, flag) in [
        (
            vec!["--device", "zodiac-fx", "--arrival", "640B"],
            "--arrival",
        ),
        (
            vec!["--device", "zodiac-fx", "--arrival", "640X,1Mbps"],
            "--arrival",
        ),
        (
            vec!["--device", "zodiac-fx", "--arrival", "-1B,1Mbps"],
            "--arrival",
        ),
        (
            vec!["--device", "zodiac", "--arrival", "1B,1Mbps"],
            "--device",
        ),
        (vec!["--arrival", "1B,1Mbps", "--level", "min"], "--level"),
    ] {
        let mut all = vec!["bound", SAMPLE, "--no-config"];
        all.extend(args.iter().copied());
        let run = common::p4cost(&all);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(flag), "{args:?}: {}", run.stderr);
    }
}

#[test]
fn the_output_says_the_worst_case_is_observed_not_proven() {
    let run = common::p4cost(&[
        "bound",
        SAMPLE,
        "--no-config",
        "--device",
        "zodiac-fx",
        "--arrival",
        "640B,10Mbps",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("165.458 us"), "{}", run.stdout);
    assert!(run.stdout.contains("not a proof"), "{}", run.stdout);
    assert!(
        run.stdout.contains("largest delay it observed"),
        "{}",
        run.stdout
    );
}

#[test]
fn saihu_format_has_the_network_flows_and_servers_of_its_examples() {
    let r = common::json(&[
        "bound",
        SAMPLE,
        "--no-config",
        "--device",
        "zodiac-fx",
        "--arrival",
        "640B,10Mbps",
        "--format",
        "saihu",
    ]);
    assert_eq!(r["network"]["time_unit"], "us");
    assert_eq!(r["network"]["data_unit"], "B");
    assert_eq!(r["network"]["rate_unit"], "Mbps");
    let server = &r["servers"][0];
    assert!(
        close(&server["service_curve"]["latencies"][0], 63.058, 1e-9),
        "{server}"
    );
    assert!(
        close(&server["service_curve"]["rates"][0], 50.0, 1e-9),
        "{server}"
    );
    assert!(close(&server["capacity"], 100.0, 1e-9), "{server}");
    let flow = &r["flows"][0];
    assert_eq!(flow["path"][0], server["name"]);
    assert!(
        close(&flow["arrival_curve"]["bursts"][0], 640.0, 1e-9),
        "{flow}"
    );
    assert!(
        close(&flow["arrival_curve"]["rates"][0], 10.0, 1e-9),
        "{flow}"
    );
}

/// A chain of two program hops (10G and 100G ports) and a 1000 ns delay,
/// with a token bucket: its bound composes the hops (least rate 10 Gbit/s,
/// summed latency, the burst paid once) and `check` holds the segment's DL
/// against that bound, not the latency sum.
fn chain_config(arrival: &str, drop_ns: f64) -> std::path::PathBuf {
    let dir = common::scratch(&format!("bound-chain-{}", arrival.replace([',', '.'], "_")));
    let sample = common::root().join(SAMPLE);
    let text = format!(
        "[[program]]\nname = \"a\"\npath = \"{p}\"\n\
         [[program]]\nname = \"b\"\npath = \"{p}\"\nport = \"100g\"\n\
         [[chain]]\nname = \"c\"\narrival = \"{arrival}\"\n\
         packets = [[\"ethernet\", \"ipv4\", \"tcp\"]]\n\
         hops = [ {{ program = \"a\" }}, {{ name = \"link\", delay-ns = 1000 }}, {{ program = \"b\" }} ]\n\
         segments = [ {{ from = \"a\", to = \"b\", drop-ns = {drop_ns} }} ]\n",
        p = sample.display()
    );
    let f = dir.join("p4cost.toml");
    std::fs::write(&f, text).expect("config");
    f
}

#[test]
fn a_chain_with_an_arrival_is_judged_on_its_composed_bound() {
    let cfg = chain_config("1KB,1Gbps", 1e9);
    let cfg = cfg.to_str().unwrap();
    let r = common::json(&["check", "--config", cfg, "--format", "json"]);
    let p = &r["chains"][0]["packets"][0];
    let total = p["total_ns"].as_f64().unwrap();
    let hop_sum: f64 = p["hops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["ns"].as_f64().unwrap())
        .sum();
    assert!(close(&p["bound"]["latency_ns"], hop_sum, 1e-9), "{p}");
    assert!(close(&p["bound"]["rate_bps"], 10e9, 0.5), "{p}");
    // b = 8000 bit over R = 10 Gbit/s: 800 ns, paid once for the chain.
    assert!(
        close(&p["bound"]["delay_bound_ns"], total + 800.0, 1e-6),
        "{p}"
    );
    assert_eq!(
        p["hops"][1]["rate_bps"],
        Value::Null,
        "a delay limits no rate"
    );
    // A DL between the latency sum and the bound: late on the bound.
    let between = total + 400.0;
    let cfg = chain_config("1KB,1Gbps", between);
    let run = common::p4cost(&["check", "--config", cfg.to_str().unwrap()]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("delay bound"), "{}", run.stdout);
}

#[test]
fn a_chain_flow_faster_than_a_hop_is_late_with_both_rates() {
    let cfg = chain_config("1KB,40Gbps", 1e9);
    let r = common::p4cost(&[
        "check",
        "--config",
        cfg.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let why = v["chains"][0]["packets"][0]["bound"]["unbounded"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        why.contains("40 Gbit/s") && why.contains("10 Gbit/s"),
        "{why}"
    );
}

#[test]
fn a_malformed_chain_arrival_is_a_config_error_at_its_place() {
    let cfg = chain_config("1KB", 1e9);
    let r = common::p4cost(&["check", "--config", cfg.to_str().unwrap()]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("p4cost.toml:10:11:") && r.stderr.contains("arrival"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_model_without_a_port_has_no_rate_and_says_what_to_use() {
    let r = common::p4cost(&[
        "bound",
        "tests/fixtures/tofino/fabric-tna__fabric__sde9.2.0__context.json",
        "--no-config",
        "--arrival",
        "640B,10Mbps",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("tofino1-mau-cycles") && r.stderr.contains("no rate R"),
        "{}",
        r.stderr
    );
}
