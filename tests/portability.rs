//! Portability lints on the real binary (issue 27 item 5): each fires at
//! its site on a program that has the construct and not on its clean
//! variant.

mod common;

use common::{json, root, scratch};

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
