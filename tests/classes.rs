//! Packet classes in `p4cost predict` (issue 9): counted over all parse
//! paths x control paths, each class charged only the tables its control
//! path applies. Expectations derived by hand from the sample programs.

mod common;
use common::json;

const TC2: &str = "p4-samples/tofino/tc2_datacenter.p4";

#[test]
fn classes_are_decided_by_validity_and_pay_only_their_tables() {
    // TC2's ingress applies vxlan_tunnel_steer only under
    // `hdr.ipv4.isValid() && hdr.udp.isValid()`: validity decides the
    // condition on every parse path, so each of the 18 paths is one class.
    let v = json(&["predict", TC2, "--format", "json", "--max-paths", "100"]);
    assert_eq!(v["schema_version"], 3);
    let c = &v["classes"];
    assert_eq!(c["count"]["text"], "18");
    assert_eq!(
        c["tested_headers"],
        serde_json::json!(["hdr.ipv4", "hdr.udp"])
    );
    let table_ns = v["paths"][0]["breakdown"]["tables"][0]["latency_ns"]
        .as_f64()
        .expect("table term");
    // Every listed path is charged the table; a class only when its path
    // has IPv4 and UDP.
    let mut best: Option<f64> = None;
    let mut worst: Option<f64> = None;
    for p in v["paths"].as_array().expect("paths") {
        let headers: Vec<&str> = p["headers"]
            .as_array()
            .expect("headers")
            .iter()
            .filter_map(|h| h.as_str())
            .collect();
        let applies = headers.contains(&"hdr.ipv4") && headers.contains(&"hdr.udp");
        let l = p["latency_ns"].as_f64().expect("latency") - if applies { 0.0 } else { table_ns };
        best = Some(best.map_or(l, |b: f64| b.min(l)));
        worst = Some(worst.map_or(l, |w: f64| w.max(l)));
    }
    let close = |a: f64, b: f64| (a - b).abs() < 1e-6;
    assert!(close(
        c["min"]["latency_ns"].as_f64().expect("min"),
        best.expect("paths")
    ));
    assert!(close(
        c["max"]["latency_ns"].as_f64().expect("max"),
        worst.expect("paths")
    ));
    // The slowest class's tables are exactly those it applies.
    let max_headers = c["max"]["headers"].to_string();
    let max_tables = c["max"]["tables"].as_array().expect("tables").len();
    assert_eq!(
        max_tables,
        usize::from(max_headers.contains("hdr.ipv4") && max_headers.contains("hdr.udp"))
    );
}

/// `--path` lists that path's classes: dep_kinds' only parse path meets a
/// validity test made undecidable by `tag` (its action may set hdr.vlan
/// valid) and acl's hit/miss: 2 x 2 = 4 classes, each with its tables and
/// why the others are skipped.
#[test]
fn the_selected_path_lists_its_classes_with_skip_reasons() {
    let v = json(&[
        "predict",
        "p4-samples/tofino/deps/dep_kinds.p4",
        "--path",
        "ethernet",
        "--format",
        "json",
    ]);
    let pc = &v["path_classes"];
    assert_eq!(pc["total"]["text"], "4");
    assert_eq!(pc["truncated"], false);
    let classes = pc["classes"].as_array().expect("classes");
    assert_eq!(classes.len(), 4);
    let reasons: Vec<String> = classes
        .iter()
        .flat_map(|c| c["skipped"].as_array().cloned().unwrap_or_default())
        .map(|s| {
            format!(
                "{}: {}",
                s["table"].as_str().unwrap_or(""),
                s["reason"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert!(
        reasons.contains(&"Ig.fallback: on hit of Ig.acl".to_string()),
        "{reasons:?}"
    );
    assert!(
        reasons.contains(&"Ig.vlan_fwd: branch not taken: hdr.vlan.isValid()".to_string()),
        "{reasons:?}"
    );
    // A class pays the path's latency minus the tables it skips.
    let path_ns = v["paths"][0]["latency_ns"].as_f64().expect("latency");
    let table_ns = |name: &str| {
        v["paths"][0]["breakdown"]["tables"]
            .as_array()
            .and_then(|a| a.iter().find(|t| t["name"] == name))
            .and_then(|t| t["latency_ns"].as_f64())
            .expect("table term")
    };
    for c in classes {
        let skipped: f64 = c["skipped"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|s| table_ns(s["table"].as_str().unwrap_or("")))
                    .sum()
            })
            .unwrap_or(0.0);
        let l = c["latency_ns"].as_f64().expect("latency");
        assert!(
            (l - (path_ns - skipped)).abs() < 1e-9,
            "{l} vs {path_ns} - {skipped}"
        );
    }
}
