//! `p4cost throughput --model nfp4000` (issue 27, item 2): pipeline passes
//! per packet class and the NFP-4000's rates. Expected figures are typed
//! from the paper (ANCS 2021, Fig. 3: 134 B with one recirculation is
//! loss-free up to 5.7 Gbit/s and settles at about 4.9; 275 B loses
//! nothing at 10 Gbit/s).

mod common;

use serde_json::Value;

const SAMPLE: &str = "p4-samples/nfp/recirculate_once.p4";

fn report(size: &str) -> Value {
    common::json(&[
        "throughput",
        SAMPLE,
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

#[test]
fn a_recirculating_class_at_134_bytes_is_the_papers_curve() {
    let r = report("134");
    let ipv4 = class(&r, "1.1");
    assert_eq!(ipv4["headers"][1], "hdr.ipv4");
    assert_eq!(ipv4["passes"], 2, "{ipv4}");
    assert!(
        (ipv4["loss_free_bps"].as_f64().unwrap() - 5.7e9).abs() < 1.0,
        "{ipv4}"
    );
    assert!(
        (ipv4["received_past_bps"].as_f64().unwrap() - 4.9e9).abs() < 1.0,
        "{ipv4}"
    );
    assert_eq!(ipv4["line_rate_lossless"], false);
    assert!(
        ipv4["sites"][0].as_str().unwrap().contains("action again"),
        "{ipv4}"
    );
    // Without IPv4 the egress `if` is not taken: one pass.
    let plain = class(&r, "2.1");
    assert_eq!(plain["passes"], 1, "{plain}");
    assert_eq!(r["pipelines"][0]["most_passes"]["passes"], 2);
}

#[test]
fn at_275_bytes_line_rate_is_lossless() {
    let r = report("275");
    let ipv4 = class(&r, "1.1");
    assert_eq!(ipv4["passes"], 2);
    assert_eq!(ipv4["line_rate_lossless"], true, "{ipv4}");
    assert_eq!(ipv4["received_past_bps"].as_f64(), Some(10e9));
    // and 1500 B too, while a size under the paper's 275 B loses.
    assert_eq!(class(&report("1500"), "1.1")["line_rate_lossless"], true);
    assert_eq!(class(&report("260"), "1.1")["line_rate_lossless"], false);
}

#[test]
fn another_model_or_a_runt_frame_is_refused() {
    let r = common::p4cost(&["throughput", SAMPLE, "--model", "tofino1-10g"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--model"), "{}", r.stderr);
    let r = common::p4cost(&["throughput", SAMPLE, "--packet-size", "40"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--packet-size"), "{}", r.stderr);
}
