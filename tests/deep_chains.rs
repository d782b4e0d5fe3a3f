//! Long chains of parse states: the median tables are handed down a chain
//! instead of copied per state, so a deep header stack gets its median.

mod common;
crate::spawner_entry!();

use std::time::Duration;

/// tc3_edge_mpls.p4 with its MPLS stack made `depth` deep, in `name`.
fn deep_mpls(name: &str, depth: u32) -> std::path::PathBuf {
    let d = common::scratch(name);
    let src = std::fs::read_to_string(common::root().join("p4-samples/tofino/tc3_edge_mpls.p4"))
        .expect("sample");
    assert!(src.contains("mpls_h[6]"), "the sample's stack changed");
    let deep = src.replace("mpls_h[6]", &format!("mpls_h[{depth}]"));
    std::fs::write(d.join("m.p4"), deep).expect("write");
    d
}

#[test]
fn deep_mpls_stacks_get_a_median_within_the_budget() {
    for depth in [4096, 8192] {
        let d = deep_mpls(&format!("chain{depth}"), depth);
        let args = [
            "predict",
            "m.p4",
            "--packet-size",
            "16384",
            "--format",
            "json",
        ];
        // CPU time, which a loaded machine stretches far less than wall time.
        let r = common::measured(&d, &args, &d.join("out"));
        let took = r.cpu;
        assert_eq!(r.code, 0, "depth {depth}: {}", r.stderr);
        let v: serde_json::Value = serde_json::from_str(&r.stdout_text()).expect("json");
        let s = &v["summary"];
        assert_eq!(s["median_note"], "", "depth {depth}");
        let (lo, med, hi) = (
            s["min"]["latency_ns"].as_f64().expect("min"),
            s["median_ns"].as_f64().expect("median"),
            s["max"]["latency_ns"].as_f64().expect("max"),
        );
        assert!(lo <= med && med <= hi, "depth {depth}: {lo} {med} {hi}");
        assert!(
            took < Duration::from_secs(20),
            "depth {depth} took {took:?}"
        );
    }
}
