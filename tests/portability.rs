//! Portability lints on the real binary (issue 27 item 5): each fires at
//! its site on a program that has the construct and not on its clean
//! variant.

mod common;

use common::{json, p4cost, root, scratch};

/// The warnings of `code` in a JSON report.
fn of<'v>(v: &'v serde_json::Value, code: &str) -> Vec<&'v serde_json::Value> {
    v["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .filter(|w| w["code"] == code)
        .collect()
}

const MIXED: &str = "tests/fixtures/programs/timestamp_units_mixed.p4";

#[test]
fn a_us_ns_comparison_is_flagged_at_its_if_and_a_us_us_one_not() {
    let v = json(&["predict", MIXED, "--format", "json"]);
    let w = of(&v, "timestamp_units_mixed");
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0]["span"]["line"], 33, "{w:?}");
    assert_eq!(w[0]["span"]["col"], 13, "{w:?}");
    let m = w[0]["message"].as_str().unwrap_or_default();
    assert!(
        m.contains("`sm.ingress_global_timestamp` (microseconds"),
        "{m}"
    );
    assert!(m.contains("`m.prsr.global_tstamp` (nanoseconds"), "{m}");
    // Converted to microseconds (>> 10): clean.
    let text = std::fs::read_to_string(root().join(MIXED)).expect("fixture");
    let fixed = text.replace("m.prsr.global_tstamp >", "(m.prsr.global_tstamp >> 10) >");
    assert_ne!(fixed, text);
    let dir = scratch("portability-ts");
    let f = dir.join("clean.p4");
    std::fs::write(&f, fixed).expect("write");
    let v = json(&["predict", f.to_str().expect("utf-8"), "--format", "json"]);
    assert!(of(&v, "timestamp_units_mixed").is_empty(), "{v}");
}

const RING: &str = "p4-samples/bmv2/ring_latency_monitor.p4";
const INT: &str = "p4-samples/bmv2/int_source.p4";

fn predict(extra: &[&str], file: &str) -> serde_json::Value {
    let mut args = vec!["predict", file, "--format", "json", "--no-config"];
    args.extend_from_slice(extra);
    json(&args)
}

/// 1024 slots at 100 Kpps last 10.24 ms: a longer window overwrites them.
#[test]
fn a_ring_shorter_than_rate_times_window_is_flagged_at_its_declaration() {
    let v = predict(&["--rate", "100Kpps", "--window", "10.25ms"], RING);
    let w = of(&v, "register_window_too_small");
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(
        (&w[0]["span"]["line"], &w[0]["span"]["col"]),
        (&53.into(), &1.into()),
        "{w:?}"
    );
    let m = w[0]["message"].as_str().unwrap_or_default();
    for part in [
        "register `arrivals`",
        "ring_latency_monitor.p4:53:1",
        "has 1024 cells",
        "ring_latency_monitor.p4:95:9",
        "register `head`",
        "100 Kpps over 10.25 ms needs 1025 cells",
    ] {
        assert!(m.contains(part), "{part}: {m}");
    }
    let v = predict(&["--rate", "100Kpps", "--window", "10.24ms"], RING);
    assert!(of(&v, "register_window_too_small").is_empty(), "{v}");
}

#[test]
fn without_rate_and_window_the_ring_lint_is_silent() {
    for extra in [&[][..], &["--rate", "1Gpps"], &["--window", "1s"]] {
        let v = predict(extra, RING);
        assert!(of(&v, "register_window_too_small").is_empty(), "{extra:?}");
    }
    // A register indexed by a hash (p4c's own flowlet sample, as BMv2
    // JSON) holds one cell per flow: never a ring.
    let v = predict(
        &["--rate", "1Gpps", "--window", "1s"],
        "tests/fixtures/bmv2/flowlet_switching-bmv2.json",
    );
    assert!(of(&v, "register_window_too_small").is_empty(), "{v}");
}

#[test]
fn the_ring_lint_obeys_allow_and_deny_and_check() {
    let flags = ["--rate", "100Kpps", "--window", "20ms"];
    let mut args = vec![
        "predict",
        RING,
        "--no-config",
        "--deny",
        "register_window_too_small",
    ];
    args.extend_from_slice(&flags);
    let r = p4cost(&args);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stdout.contains("register_window_too_small"),
        "{}",
        r.stdout
    );
    let v = predict(
        &[
            "--rate",
            "100Kpps",
            "--window",
            "20ms",
            "--allow",
            "register_window_too_small",
        ],
        RING,
    );
    assert!(of(&v, "register_window_too_small").is_empty(), "{v}");
    let mut args = vec![
        "check",
        RING,
        "--no-config",
        "--deny",
        "register_window_too_small",
    ];
    args.extend_from_slice(&flags);
    let r = p4cost(&args);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    let mut args = vec![
        "check",
        RING,
        "--no-config",
        "--deny",
        "register_window_too_small",
    ];
    args.extend_from_slice(&["--rate", "100Kpps", "--window", "1ms"]);
    let r = p4cost(&args);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let mut args = vec!["predict", RING, "--no-config", "--format", "sarif"];
    args.extend_from_slice(&flags);
    let r = p4cost(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("\"ruleId\": \"register_window_too_small\""),
        "{}",
        r.stdout
    );
}

#[test]
fn rate_and_window_come_from_p4cost_toml_per_program() {
    let dir = scratch("portability-toml");
    let text = std::fs::read_to_string(root().join(RING)).expect("sample");
    std::fs::write(dir.join("ring.p4"), text).expect("write");
    let toml = "[[program]]\npath = \"ring.p4\"\nrate = \"100Kpps\"\nwindow = \"20ms\"\n";
    std::fs::write(dir.join("p4cost.toml"), toml).expect("write");
    let r = common::p4cost_in(&dir, &["predict", "ring.p4", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(of(&v, "register_window_too_small").len(), 1, "{v}");
    // `check` of the file's programs holds them to it too (a denied code).
    let denied = format!("{toml}[warnings]\ndeny = [\"register_window_too_small\"]\n");
    std::fs::write(dir.join("p4cost.toml"), denied).expect("write");
    let r = common::p4cost_in(&dir, &["check"]);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("register_window_too_small"),
        "{}",
        r.stdout
    );
    let r = common::p4cost_in(&dir, &["check", "--window", "1ms"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    std::fs::write(dir.join("p4cost.toml"), toml).expect("write");
    // A flag beats the file.
    let r = common::p4cost_in(
        &dir,
        &["predict", "ring.p4", "--format", "json", "--window", "1ms"],
    );
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert!(of(&v, "register_window_too_small").is_empty(), "{v}");
    // Bad values are errors at their key.
    for (key, bad, says) in [
        (
            "rate",
            "\"0pps\"",
            "p4cost.toml:3:8: rate `0pps`: must be above zero",
        ),
        ("rate", "\"10Mbps\"", "p4cost.toml:3:8: rate `10Mbps`"),
        ("window", "\"-1ms\"", "p4cost.toml:4:10: window `-1ms`"),
        ("hops", "0", "p4cost.toml:5:8: hops 0"),
        ("mtu", "-1500", "p4cost.toml:5:7: mtu -1500"),
    ] {
        let mut t = toml.to_string();
        if key == "rate" {
            t = t.replace("\"100Kpps\"", bad);
        } else if key == "window" {
            t = t.replace("\"20ms\"", bad);
        } else {
            t.push_str(&format!("{key} = {bad}\n"));
        }
        std::fs::write(dir.join("p4cost.toml"), t).expect("write");
        let r = common::p4cost_in(&dir, &["predict", "ring.p4"]);
        assert_eq!(r.code, 2, "{key}: {}", r.stdout);
        assert!(r.stderr.contains(says), "{says}: {}", r.stderr);
    }
}

#[test]
fn bad_lint_flags_are_usage_errors_naming_the_flag() {
    for (flag, bad) in [
        ("--rate", "0Mpps"),
        ("--rate", "-5Mpps"),
        ("--rate", "10Mbps"),
        ("--rate", "10"),
        ("--window", "0ms"),
        ("--window", "1h"),
        ("--hops", "0"),
        ("--hops", "-2"),
        ("--mtu", "abc"),
        ("--mtu", "10"),
    ] {
        let r = p4cost(&["predict", RING, "--no-config", flag, bad]);
        assert_eq!(r.code, 2, "{flag} {bad}: {}", r.stdout);
        assert!(r.stderr.contains(flag), "{flag} {bad}: {}", r.stderr);
    }
}

/// The paper's INT source adds 24 B (Fig. 21): a 1500 B packet is 1524 B.
#[test]
fn int_headers_past_the_mtu_are_flagged_with_their_bytes() {
    let v = predict(&["--packet-size", "1500"], INT);
    let w = of(&v, "int_bytes_exceed_mtu");
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(
        (&w[0]["span"]["line"], &w[0]["span"]["col"]),
        (&116.into(), &5.into()),
        "{w:?}"
    );
    let m = w[0]["message"].as_str().unwrap_or_default();
    for part in [
        "24 B a hop",
        "`hdr.int_shim` 4 B, `hdr.int_md` 8 B, `hdr.int_switch_id` 4 B",
        "a 1500 B packet after 1 hop is 1524 B, 24 B over the 1500 B MTU",
        "made valid by action `int_source` of table `MyEgress.int_flows` at p4-samples/bmv2/int_source.p4:116:5",
    ] {
        assert!(m.contains(part), "{part}: {m}");
    }
    // The default 512 B fits; 42 hops of 24 B do not (512 + 1008).
    assert!(of(&predict(&[], INT), "int_bytes_exceed_mtu").is_empty());
    let v = predict(&["--hops", "42"], INT);
    assert_eq!(of(&v, "int_bytes_exceed_mtu").len(), 1, "{v}");
    let v = predict(&["--packet-size", "1500", "--mtu", "1524"], INT);
    assert!(of(&v, "int_bytes_exceed_mtu").is_empty(), "{v}");
    // A program that adds nothing: silent at any size.
    let v = predict(
        &["--packet-size", "16000", "--mtu", "64", "--hops", "9"],
        RING,
    );
    assert!(of(&v, "int_bytes_exceed_mtu").is_empty(), "{v}");
}

#[test]
fn the_int_lint_shows_in_the_table_and_obeys_deny() {
    let r = p4cost(&["predict", INT, "--no-config", "--packet-size", "1500"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("int_bytes_exceed_mtu"), "{}", r.stdout);
    let r = p4cost(&[
        "predict",
        INT,
        "--no-config",
        "--packet-size",
        "1500",
        "--deny",
        "int_bytes_exceed_mtu",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
}
