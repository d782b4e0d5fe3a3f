//! `p4cost throughput --model bmv2-coarse` (issue 27, item 3): per packet
//! class its passes, the coarse BMv2 latency range and rate, and its
//! register calls. Expected figures are typed from the service-chaining
//! paper (Fig. 9: 80-120 us per pass and 1.4 Gbit/s at 1500 B, about
//! 300 Mbit/s at 256 B) and counted by hand from the sample's source.

mod common;

use serde_json::Value;

const SAMPLE: &str = "p4-samples/bmv2/latency_control.p4";
const RECIRC: &str = "p4-samples/nfp/recirculate_once.p4";

fn report(file: &str, size: &str) -> Value {
    common::json(&[
        "throughput",
        file,
        "--model",
        "bmv2-coarse",
        "--packet-size",
        size,
        "--format",
        "json",
    ])
}

fn class<'a>(r: &'a Value, id: &str) -> &'a Value {
    r["pipelines"][0]["classes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["class"] == id)
        .unwrap_or_else(|| panic!("no class {id}: {r}"))
}

fn regs(c: &Value) -> (u64, u64, u64) {
    let r = &c["register_ops"];
    let n = |k: &str| r[k].as_u64().unwrap_or(u64::MAX);
    (n("reads"), n("writes"), n("other"))
}

#[test]
fn one_pass_at_1500_bytes_is_fig_9() {
    let r = report(SAMPLE, "1500");
    assert_eq!(r["precision"], "coarse");
    assert!(r["warnings"].as_array().unwrap().is_empty(), "{r}");
    let c = class(&r, "3.1");
    assert_eq!(c["passes"], 1);
    assert_eq!(c["latency_us"]["min"].as_f64(), Some(80.0));
    assert_eq!(c["latency_us"]["max"].as_f64(), Some(120.0));
    assert!(
        (c["throughput_bps"].as_f64().unwrap() - 1.4e9).abs() < 1.0,
        "{c}"
    );
    let at_256 = class(&report(SAMPLE, "256"), "3.1")["throughput_bps"].as_f64();
    assert!((at_256.unwrap() - 300e6).abs() < 1.0, "{at_256:?}");
}

/// By hand from the sample: Store reads offset1 and writes t1 and offset1;
/// Enforce reads offset2, t1 and T_queue and writes t2 and offset2; the
/// policy reads PL and DL; egress CongestionCheck (not UDP) writes T_queue.
#[test]
fn register_calls_follow_each_class_path() {
    let r = report(SAMPLE, "1500");
    let udp = class(&r, "1.1");
    assert_eq!(udp["headers"][2], "hdr.udp", "{udp}");
    assert_eq!(regs(udp), (6, 4, 0), "{udp}");
    // The UDP class that does not take the policy branch: no PL/DL reads.
    assert_eq!(regs(class(&r, "1.3")), (4, 4, 0));
    assert_eq!(regs(class(&r, "2.1")), (0, 1, 0));
    assert_eq!(regs(class(&r, "3.1")), (0, 1, 0));
}

#[test]
fn a_recirculating_class_pays_two_passes() {
    let ipv4 = class(&report(RECIRC, "1500"), "1.1").clone();
    assert_eq!(ipv4["passes"], 2, "{ipv4}");
    assert_eq!(ipv4["latency_us"]["min"].as_f64(), Some(160.0));
    assert_eq!(ipv4["latency_us"]["max"].as_f64(), Some(240.0));
    assert!((ipv4["throughput_bps"].as_f64().unwrap() - 0.7e9).abs() < 1.0);
}

#[test]
fn a_size_outside_the_measured_ones_warns() {
    let r = report(SAMPLE, "9000");
    let w = r["warnings"][0].as_str().unwrap_or_default();
    assert!(w.starts_with("packet_size_not_measured"), "{r}");
    // 1500 B's packet rate kept: 116,666.7 pps x 72,000 bit = 8.4 Gbit/s.
    let bps = class(&r, "3.1")["throughput_bps"].as_f64().unwrap();
    assert!((bps - 8.4e9).abs() < 1.0, "{bps}");
    assert!(!report(SAMPLE, "64")["warnings"][0].is_null());
}

#[test]
fn human_output_says_coarse_and_its_units() {
    let r = common::p4cost(&["throughput", SAMPLE, "--model", "bmv2-coarse"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("(COARSE)"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("coarse latency 80-120 us, up to 1.400 Gbit/s (116.7 kpps)"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_bad_model_or_size_is_refused() {
    let r = common::p4cost(&["throughput", SAMPLE, "--model", "bmv2"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("bmv2-coarse"), "{}", r.stderr);
    for (size, says) in [
        ("40", "at least 64 B"),
        ("-5", "positive size"),
        ("1.5k", "whole number"),
    ] {
        let flag = format!("--packet-size={size}");
        let r = common::p4cost(&["throughput", SAMPLE, "--model", "bmv2-coarse", &flag]);
        assert_eq!(r.code, 2, "{size}");
        assert!(r.stderr.contains(says), "{size}: {}", r.stderr);
    }
}
