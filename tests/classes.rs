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

/// Thirty optional headers, each tested by the control: 2^30 validity
/// combinations. The class analysis stops at its budget with a warning
/// naming it; the rest of the report stands (this input once took 210 MB).
#[test]
fn too_many_validity_combinations_end_in_a_warning() {
    let n = 30;
    let mut src = String::from("#include <core.p4>\n#include <tna.p4>\nheader e_h { bit<8> k; }\n");
    for i in 0..n {
        src.push_str(&format!("header h{i}_h {{ bit<8> k; }}\n"));
    }
    src.push_str("struct header_t { e_h e; ");
    for i in 0..n {
        src.push_str(&format!("h{i}_h h{i}; "));
    }
    src.push_str("}\nstruct md_t { bit<8> x; }\nstruct emd_t {}\n");
    src.push_str("parser IP(packet_in pkt, out header_t hdr, out md_t md, out ingress_intrinsic_metadata_t ig) {\n    state start { pkt.extract(ig); pkt.advance(PORT_METADATA_SIZE); pkt.extract(hdr.e); transition s0; }\n");
    for i in 0..n {
        let next = if i + 1 < n {
            format!("s{}", i + 1)
        } else {
            "accept".into()
        };
        src.push_str(&format!(
            "    state s{i} {{ transition select(hdr.e.k) {{ {i}: x{i}; default: {next}; }} }}\n    state x{i} {{ pkt.extract(hdr.h{i}); transition {next}; }}\n"
        ));
    }
    src.push_str("}\ncontrol Ig(inout header_t hdr, inout md_t md, in ingress_intrinsic_metadata_t ig,\n  in ingress_intrinsic_metadata_from_parser_t pr, inout ingress_intrinsic_metadata_for_deparser_t dp,\n  inout ingress_intrinsic_metadata_for_tm_t tm) {\n    apply {\n");
    for i in 0..n {
        src.push_str(&format!(
            "        if (hdr.h{i}.isValid()) {{ md.x = {i}; }}\n"
        ));
    }
    src.push_str("    }\n}\ncontrol ID(packet_out pkt, inout header_t hdr, in md_t md, in ingress_intrinsic_metadata_for_deparser_t dp) { apply { pkt.emit(hdr); } }\nparser EP(packet_in pkt, out header_t hdr, out emd_t md, out egress_intrinsic_metadata_t eg) { state start { pkt.extract(eg); transition accept; } }\ncontrol Eg(inout header_t hdr, inout emd_t md, in egress_intrinsic_metadata_t eg, in egress_intrinsic_metadata_from_parser_t pr,\n  inout egress_intrinsic_metadata_for_deparser_t dp, inout egress_intrinsic_metadata_for_output_port_t op) { apply { } }\ncontrol ED(packet_out pkt, inout header_t hdr, in emd_t md, in egress_intrinsic_metadata_for_deparser_t dp) { apply { pkt.emit(hdr); } }\nPipeline(IP(), Ig(), ID(), EP(), Eg(), ED()) pipe;\nSwitch(pipe) main;\n");
    let dir = common::scratch("optional30");
    let file = dir.join("opt.p4");
    std::fs::write(&file, src).expect("write");
    let f = file.to_string_lossy().to_string();
    let started = std::time::Instant::now();
    let v = json(&["predict", &f, "--format", "json"]);
    assert!(
        started.elapsed().as_secs() < 30,
        "took {:?}",
        started.elapsed()
    );
    assert!(v.get("classes").is_none());
    let warnings = v["warnings"].to_string();
    assert!(warnings.contains("classes_not_computed"), "{warnings}");
    assert!(warnings.contains("100000"), "names the budget: {warnings}");
    assert_eq!(v["path_count"], 1u64 << 30);
}
