//! The paper's seven validation cases (docs/models.md, two coefficient sets), end to end: our
//! sample programs go through the front end, the path search and the
//! model, and the `-paper-lr` models must give the published predictions.

mod common;
use common::json;

/// (case, file, --path, packet size, published 10G, published 100G):
/// the numbers are the paper's, copied from docs/models.md, two coefficient sets.
const CASES: &[(&str, &str, &str, &str, f64, f64)] = &[
    (
        "TC1",
        "tc1_enterprise.p4",
        "hdr.vlan,hdr.vlan,hdr.ipv6,hdr.udp",
        "600",
        318.926,
        188.751,
    ),
    (
        "TC2",
        "tc2_datacenter.p4",
        "hdr.ipv4,hdr.udp,hdr.vxlan,hdr.inner_ethernet",
        "900",
        388.886,
        204.945,
    ),
    (
        "TC3",
        "tc3_edge_mpls.p4",
        "mpls,mpls,mpls,mpls,inner_ethernet",
        "700",
        339.825,
        193.041,
    ),
    (
        "TC4",
        "tc4_service_provider.p4",
        "mpls,mpls,mpls,mpls,mpls,ipv4",
        "1300",
        487.497,
        229.189,
    ),
    (
        "TC5",
        "tc5_int_md.p4",
        "hdr.ipv4,hdr.tcp,hdr.int_shim,hdr.int_md,hdr.int_hops,hdr.int_hops",
        "1100",
        447.049,
        221.355,
    ),
    (
        "TC6A",
        "tc6_big_union.p4",
        "ipv4,gre,nvgre,inner_ethernet",
        "200",
        220.781,
        164.830,
    ),
    (
        "TC6B",
        "tc6_big_union.p4",
        "hdr.ipv6,hdr.udp",
        "300",
        240.097,
        168.212,
    ),
];

fn predict(file: &str, path: &str, packet: &str, model: &str) -> serde_json::Value {
    let f = format!("p4-samples/tofino/{file}");
    json(&[
        "predict",
        &f,
        "--model",
        model,
        "--packet-size",
        packet,
        "--path",
        path,
        "--format",
        "json",
    ])
}

#[test]
fn paper_lr_reproduces_every_published_prediction_from_source() {
    for (case, file, path, packet, l10, l100) in CASES {
        for (model, want) in [
            ("tofino1-10g-paper-lr", l10),
            ("tofino1-100g-paper-lr", l100),
        ] {
            let v = predict(file, path, packet, model);
            assert_eq!(v["paths"].as_array().map(|a| a.len()), Some(1), "{case}");
            let got = v["paths"][0]["latency_ns"].as_f64().expect("latency");
            assert!(
                (got - want).abs() < 0.01,
                "{case} {model}: got {got}, published {want}"
            );
            // The reproduction set has no control term.
            assert_eq!(v["paths"][0]["breakdown"]["control_ns"].as_f64(), Some(0.0));
        }
    }
}

/// The printed 10G model on TC2, by hand from docs/models.md, Tofino 1 ingress latency:
/// L_B = 0.237*900 + 152.42 = 365.72; L_PD = 0.221*50 + 4*2.886 = 22.594;
/// L_C = one exact table with four keys (k=8 class) = 0.492.
#[test]
fn printed_model_on_tc2_matches_the_hand_computation() {
    let v = predict(
        "tc2_datacenter.p4",
        "ipv4,udp,vxlan,inner_ethernet",
        "900",
        "tofino1-10g",
    );
    let p = &v["paths"][0];
    let b = &p["breakdown"];
    assert!((b["base_ns"].as_f64().unwrap_or(0.0) - 365.72).abs() < 1e-9);
    assert!((b["parser_ns"].as_f64().unwrap_or(0.0) - 22.594).abs() < 1e-9);
    assert!((b["control_ns"].as_f64().unwrap_or(0.0) - 0.492).abs() < 1e-9);
    assert!((p["latency_ns"].as_f64().unwrap_or(0.0) - 388.806).abs() < 1e-9);
    // The baseline covers intrinsic metadata and Ethernet: those states
    // contribute nothing of their own.
    let states = p["states"].as_array().expect("states");
    assert!(states[0]["in_baseline"].as_bool().unwrap_or(false));
    assert_eq!(
        states
            .iter()
            .filter(|s| s["latency_ns"].as_f64() > Some(0.0))
            .count(),
        4
    );
}

/// The printed 100G model on TC6B, by hand from docs/models.md, Tofino 1
/// ingress latency. The IPv6/UDP packet class applies only the two tables
/// of the paper's TC6B control block (the 6A tables sit under
/// `hdr.gre.isValid()`, false on this path):
/// L_B = 0.056*300 + 143.441 = 160.241;
/// L_PD = (0.105*40 + 1.431) + (0.105*8 + 1.431) = 7.902;
/// L_C = one 128-bit LPM (wide) 0.896 + one 32-bit exact (wide) 0.685
///     = 1.581; total 169.724. All four tables are still listed with their
/// terms.
#[test]
fn printed_model_on_tc6b_charges_the_tables_of_its_class() {
    let v = predict("tc6_big_union.p4", "ipv6,udp", "300", "tofino1-100g");
    let p = &v["paths"][0];
    assert_eq!(
        p["breakdown"]["tables"].as_array().map(|t| t.len()),
        Some(4)
    );
    assert!((p["breakdown"]["control_ns"].as_f64().unwrap_or(0.0) - 1.581).abs() < 1e-9);
    assert!((p["latency_ns"].as_f64().unwrap_or(0.0) - 169.724).abs() < 1e-9);
    assert!((p["min_latency_ns"].as_f64().unwrap_or(0.0) - 169.724).abs() < 1e-9);
    assert_eq!(
        v["control"]["path_sensitive"],
        serde_json::Value::Bool(true)
    );
    // IPv6 (40 B per state) and 128-bit keys lie outside the training range.
    // Table warnings hold for the program; the header size one is
    // computed over all paths (`path_warnings`).
    let codes: Vec<&str> = v["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .chain(v["path_warnings"].as_array().expect("path_warnings"))
        .filter_map(|w| w["code"].as_str())
        .collect();
    assert!(codes.contains(&"header_size_out_of_range"), "{codes:?}");
    assert!(codes.contains(&"key_width_out_of_range"), "{codes:?}");
    assert!(codes.contains(&"actions_outside_training"), "{codes:?}");
}

#[test]
fn json_report_has_the_documented_fields() {
    let v = json(&[
        "predict",
        "p4-samples/tofino/tc1_enterprise.p4",
        "--format",
        "json",
    ]);
    for k in [
        "schema_version",
        "program",
        "model",
        "port_gbps",
        "packet_size",
        "path_count",
        "path_count_text",
        "summary",
        "paths",
        "warnings",
        "path_warnings",
    ] {
        assert!(v.get(k).is_some(), "missing {k}");
    }
    let p = &v["paths"][0];
    for k in ["states", "latency_ns", "min_latency_ns", "breakdown"] {
        assert!(p.get(k).is_some(), "missing paths[].{k}");
    }
    for k in ["base_ns", "parser_ns", "control_ns", "tables"] {
        assert!(p["breakdown"].get(k).is_some(), "missing breakdown.{k}");
    }
    for k in ["name", "extracts", "bytes", "span"] {
        assert!(p["states"][0].get(k).is_some(), "missing states[].{k}");
    }
    // Each listed path's packet classes (issue 9).
    let c = &p["classes"];
    for k in ["total", "truncated", "classes"] {
        assert!(c.get(k).is_some(), "missing paths[].classes.{k}");
    }
    for k in ["id", "latency_ns", "tables", "decisions", "skipped"] {
        assert!(c["classes"][0].get(k).is_some(), "missing classes[].{k}");
    }
    // A class's tables are indexes into the report's one table list.
    let i = c["classes"][0]["tables"][0]
        .as_u64()
        .expect("classes[].tables[] holds indexes") as usize;
    for k in ["name", "latency_ns", "span", "gress"] {
        assert!(
            v["tables"][i].get(k).is_some(),
            "missing tables[].{k} (classes[].tables[] index {i})"
        );
    }
    assert_eq!(v["schema_version"], 15);
    assert_eq!(v["port_gbps"], 10);
    assert_eq!(v["packet_size"], 512);
    // Spans point into the original file.
    let span = &p["states"][0]["span"];
    assert_eq!(span["file"], "p4-samples/tofino/tc1_enterprise.p4");
    assert!(span["line"].as_u64().unwrap_or(0) > 1);
}

#[test]
fn path_listing_is_capped_and_the_cap_is_stated() {
    let v = json(&[
        "predict",
        "p4-samples/tofino/tc4_service_provider.p4",
        "--max-paths",
        "3",
        "--format",
        "json",
    ]);
    assert_eq!(v["paths"].as_array().map(|a| a.len()), Some(3));
    assert_eq!(v["max_paths"], 3);
    assert!(v["path_count"].as_u64().unwrap_or(0) > 3);
    let human = common::p4cost(&[
        "predict",
        "p4-samples/tofino/tc4_service_provider.p4",
        "--max-paths",
        "3",
    ]);
    assert!(
        human.stdout.contains("listing the first 3 (--max-paths 3)"),
        "{}",
        human.stdout
    );
}

#[test]
fn port_flag_selects_the_model_and_conflicts_are_errors() {
    let v = json(&[
        "predict",
        "p4-samples/tofino/tc2_datacenter.p4",
        "--port",
        "100g",
        "--format",
        "json",
    ]);
    assert_eq!(v["model"]["name"], "tofino1-100g");
    let r = common::p4cost(&[
        "predict",
        "p4-samples/tofino/tc2_datacenter.p4",
        "--port",
        "100g",
        "--model",
        "tofino1-10g",
    ]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("contradicts"), "{}", r.stderr);
}

#[test]
fn unknown_path_is_an_input_error() {
    let r = common::p4cost(&[
        "predict",
        "p4-samples/tofino/tc2_datacenter.p4",
        "--path",
        "ipv4,gre",
    ]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("no parse path"), "{}", r.stderr);
}
