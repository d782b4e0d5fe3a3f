//! `p4cost deps` on BMv2 JSON: the dependency graph read from p4c's output
//! names its fields and edges as the graph read from the P4 source does.
//!
//! The expected edges were checked by hand against the JSON and against
//! `p4cost deps` on the p4c sources the fixtures were compiled from
//! (`testdata/p4_16_samples/flowlet_switching-bmv2.p4` and
//! `basic_routing-bmv2.p4`, p4lang/p4c @ 34b86e9, tests/fixtures/SOURCES.md;
//! not in this repository): every edge below is also an edge of the
//! source's graph, with the same kind and field, except where noted.

mod common;
use common::json;

/// Every edge of every graph as (gress, kind, from, to, field).
fn edges(file: &str) -> Vec<(String, String, String, String, String)> {
    let v = json(&["deps", file, "--format", "json"]);
    let mut out = Vec::new();
    for g in v["graphs"].as_array().expect("graphs") {
        for e in g["edges"].as_array().expect("edges") {
            let s = |k: &str| e[k].as_str().expect("string").to_string();
            out.push((
                g["gress"].as_str().expect("gress").to_string(),
                s("kind"),
                s("from"),
                s("to"),
                s("field"),
            ));
        }
    }
    out
}

fn e(
    g: &str,
    kind: &str,
    from: &str,
    to: &str,
    field: &str,
) -> (String, String, String, String, String) {
    (g.into(), kind.into(), from.into(), to.into(), field.into())
}

#[test]
fn flowlet_switching_json_graph() {
    // Registers (flowlet_id, flowlet_lasttime), hashes and p4c's
    // flattened metadata (`scalars.metadata._ingress_metadata_flow_ipg0`
    // is `meta.ingress_metadata.flow_ipg`).
    let gate = "if (meta.ingress_metadata.flow_ipg > 0x0000c350)";
    let got = edges("tests/fixtures/bmv2/flowlet_switching-bmv2.json");
    let want = vec![
        e(
            "ingress",
            "match",
            "ingress.flowlet",
            gate,
            "meta.ingress_metadata.flow_ipg",
        ),
        e(
            "ingress",
            "action",
            "ingress.flowlet",
            "ingress.new_flowlet",
            "meta.ingress_metadata.flowlet_id",
        ),
        e("ingress", "control", gate, "ingress.new_flowlet", "true"),
        e(
            "ingress",
            "action",
            "ingress.flowlet",
            "ingress.ecmp_group",
            "meta.ingress_metadata.flowlet_id",
        ),
        e(
            "ingress",
            "action",
            "ingress.new_flowlet",
            "ingress.ecmp_group",
            "meta.ingress_metadata.flowlet_id",
        ),
        e(
            "ingress",
            "match",
            "ingress.ecmp_group",
            "ingress.ecmp_nhop",
            "meta.ingress_metadata.ecmp_offset",
        ),
        // Not in the source's graph: both tables can run `_drop`, whose
        // `mark_to_drop(standard_metadata)` sets the egress port; the
        // source front end reads its argument and writes nothing.
        e(
            "ingress",
            "action",
            "ingress.ecmp_group",
            "ingress.forward",
            "standard_metadata.egress_spec",
        ),
        e(
            "ingress",
            "match",
            "ingress.ecmp_nhop",
            "ingress.forward",
            "meta.ingress_metadata.nhop_ipv4",
        ),
    ];
    assert_eq!(got, want);
}

#[test]
fn basic_routing_json_graph() {
    let gate = "if (hdr.ipv4.isValid())";
    let got = edges("tests/fixtures/bmv2/basic_routing-bmv2.json");
    let want = vec![
        e("ingress", "control", gate, "ingress.port_mapping", "true"),
        e("ingress", "control", gate, "ingress.bd", "true"),
        e(
            "ingress",
            "match",
            "ingress.port_mapping",
            "ingress.bd",
            "meta.ingress_metadata.bd",
        ),
        e("ingress", "control", gate, "ingress.ipv4_fib", "true"),
        e(
            "ingress",
            "match",
            "ingress.bd",
            "ingress.ipv4_fib",
            "meta.ingress_metadata.vrf",
        ),
        e(
            "ingress",
            "match",
            "ingress.bd",
            "ingress.ipv4_fib_lpm",
            "meta.ingress_metadata.vrf",
        ),
        // The source names the action `on_miss`; p4c qualifies it.
        e(
            "ingress",
            "control",
            "ingress.ipv4_fib",
            "ingress.ipv4_fib_lpm",
            "action ingress.on_miss",
        ),
        e("ingress", "control", gate, "ingress.nexthop", "true"),
        e(
            "ingress",
            "match",
            "ingress.ipv4_fib",
            "ingress.nexthop",
            "meta.ingress_metadata.nexthop_index",
        ),
        e(
            "ingress",
            "match",
            "ingress.ipv4_fib_lpm",
            "ingress.nexthop",
            "meta.ingress_metadata.nexthop_index",
        ),
    ];
    assert_eq!(got, want);
}

#[test]
fn fabric_egress_exit_and_validity() {
    // fabric egress: `if (standard_metadata.egress_port == CPU_PORT) {
    // hdr.packet_in.setValid(); ...; exit; }` — everything after it is
    // control dependent on that gateway (p4c's `exit` primitive ends the
    // control, as the source's `exit` statement does), and MPLS validity
    // (`remove_header`, `add_header`) links the MPLS tables.
    let got = edges("tests/fixtures/bmv2/fabric_20190420-fabric.json");
    let gate = "if (standard_metadata.egress_port == 0x00ff)";
    assert!(got.contains(&e(
        "egress",
        "control",
        gate,
        "FabricEgress.egress_next.egress_vlan",
        "false"
    )));
    assert!(got.contains(&e(
        "egress",
        "match",
        "tbl_egress_next_pop_mpls_if_present",
        "if (hdr.mpls.isValid())",
        "hdr.mpls.$valid"
    )));
}
