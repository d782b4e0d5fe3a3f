use super::*;
use crate::test_ir::{ingress_graph, lower_source};
use crate::{list_classes, packet_classes, ClassBudget};

/// The program with the joined control pushed, and its id.
fn joined(mut p: Program) -> (Program, ControlId, EgressJoin) {
    let pipe = p
        .analysed_pipelines()
        .into_iter()
        .next()
        .expect("a pipeline");
    let (c, j) = join_egress(&p, &pipe).expect("ingress and egress");
    p.controls.push(c);
    let id = ControlId((p.controls.len() - 1) as u32);
    (p, id, j)
}

/// Per parse path (by header chain, sorted), each class's tables.
fn classes_by_path(p: &Program, control: ControlId) -> Vec<(String, Vec<Vec<String>>)> {
    let pg = ingress_graph(p);
    let mut out: Vec<(String, Vec<Vec<String>>)> = pg
        .list(100)
        .into_iter()
        .map(|path| {
            let l = list_classes(p, control, &pg, &path, 100, &ClassBudget::default()).unwrap();
            assert!(!l.truncated);
            assert_eq!(l.total.value, l.classes.len() as u128);
            let tables = l
                .classes
                .iter()
                .map(|c| {
                    c.control_path
                        .tables
                        .iter()
                        .map(|t| p.table(*t).name.clone())
                        .collect()
                })
                .collect();
            (pg.path(&path).header_chain(), tables)
        })
        .collect();
    out.sort();
    out
}

const V1_HEAD: &str = r#"
#include <core.p4>
#include <v1model.p4>
header ethernet_h { bit<48> dst; bit<48> src; bit<16> ether_type; }
header ipv4_h { bit<8> ttl; bit<8> proto; bit<32> src; bit<32> dst; }
header ipv6_h { bit<8> hop; bit<128> dst; }
struct headers_t { ethernet_h ethernet; ipv4_h ipv4; ipv6_h ipv6; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t md, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) { 0x0800: parse_ipv4; 0x86dd: parse_ipv6; default: accept; }
    }
    state parse_ipv4 { pkt.extract(hdr.ipv4); transition accept; }
    state parse_ipv6 { pkt.extract(hdr.ipv6); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t md) { apply { } }
control CC(inout headers_t hdr, inout meta_t md) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
"#;

/// v1model: egress has no parser, so it sees the headers as ingress left
/// them; `exit` in ingress still goes on to egress.
#[test]
fn v1model_egress_sees_the_validity_ingress_left_and_follows_exit() {
    let src = format!(
        "{V1_HEAD}{}",
        r#"
control Ig(inout headers_t hdr, inout meta_t md, inout standard_metadata_t sm) {
    action fwd(bit<9> port) { sm.egress_spec = port; }
    action to_v4() { hdr.ipv6.setInvalid(); hdr.ipv4.setValid(); }
    table acl { key = { hdr.ethernet.src : exact; } actions = { fwd; NoAction; } }
    apply {
        if (hdr.ipv6.isValid()) { to_v4(); }
        if (acl.apply().hit) { exit; }
    }
}
control Eg(inout headers_t hdr, inout meta_t md, inout standard_metadata_t sm) {
    action count() { }
    table v4_stats { key = { hdr.ipv4.dst : exact; } actions = { count; } }
    table v6_stats { key = { hdr.ipv6.dst : exact; } actions = { count; } }
    apply {
        if (hdr.ipv6.isValid()) { v6_stats.apply(); }
        else if (hdr.ipv4.isValid()) { v4_stats.apply(); }
    }
}
V1Switch(P(), VC(), Ig(), Eg(), CC(), D()) main;
"#
    );
    let (p, joined_id, j) = joined(lower_source(&src));
    assert_eq!(j.parser, None);
    assert_eq!(p.control(joined_id).name, "Ig+Eg");
    // Per parse path: acl hit (then exit) or miss, each then through
    // egress. An IPv6 packet was turned into IPv4 in ingress, so egress
    // counts it as IPv4; v6_stats is never applied.
    let got = classes_by_path(&p, joined_id);
    let v = |ts: &[&str]| ts.iter().map(|t| t.to_string()).collect::<Vec<_>>();
    assert_eq!(
        got,
        vec![
            (
                "hdr.ethernet".to_string(),
                vec![v(&["Ig.acl"]), v(&["Ig.acl"])]
            ),
            (
                "hdr.ethernet -> hdr.ipv4".to_string(),
                vec![v(&["Ig.acl", "Eg.v4_stats"]), v(&["Ig.acl", "Eg.v4_stats"])]
            ),
            (
                "hdr.ethernet -> hdr.ipv6".to_string(),
                vec![v(&["Ig.acl", "Eg.v4_stats"]), v(&["Ig.acl", "Eg.v4_stats"])]
            ),
        ]
    );
    // Counted the same way (3 paths x 2), and only ingress tables weigh.
    let pg = ingress_graph(&p);
    let mut tw = vec![0.0; p.tables.len()];
    for (i, t) in p.tables.iter().enumerate() {
        if t.name.starts_with("Ig.") {
            tw[i] = 1.0;
        }
    }
    let s = packet_classes(
        &p,
        joined_id,
        &pg,
        &vec![0.0; pg.len()],
        &tw,
        &ClassBudget::default(),
    )
    .unwrap();
    assert_eq!(s.classes.value, 6);
    assert_eq!((s.min.unwrap().value, s.max.unwrap().value), (1.0, 1.0));
}

const TNA_HEAD: &str = r#"
#include <core.p4>
#include <tna.p4>
header ethernet_h { bit<48> dst; bit<48> src; bit<16> ether_type; }
header vlan_h { bit<16> tci; bit<16> ether_type; }
header tag_h { bit<16> id; }
header ipv4_h { bit<8> ttl; bit<8> proto; bit<32> src; bit<32> dst; }
header ipv6_h { bit<8> hop; bit<128> dst; }
struct headers_t { ethernet_h ethernet; vlan_h vlan; tag_h tag; ipv4_h ipv4; ipv6_h ipv6; }
struct meta_t { }
parser IgParser(packet_in pkt, out headers_t hdr, out meta_t md, out ingress_intrinsic_metadata_t ig_intr_md) {
    state start { pkt.extract(ig_intr_md); pkt.advance(PORT_METADATA_SIZE); transition parse_ethernet; }
    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) { 0x0800: parse_ipv4; 0x86dd: parse_ipv6; default: accept; }
    }
    state parse_ipv4 { pkt.extract(hdr.ipv4); transition accept; }
    state parse_ipv6 { pkt.extract(hdr.ipv6); transition accept; }
}
control Ig(inout headers_t hdr, inout meta_t md, in ingress_intrinsic_metadata_t ig_intr_md,
           in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
           inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
           inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    apply { if (hdr.ipv4.isValid()) { hdr.vlan.setValid(); } }
}
control IgDeparser(packet_out pkt, inout headers_t hdr, in meta_t md,
                   in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    apply {
        pkt.emit(hdr.ethernet); pkt.emit(hdr.vlan); pkt.emit(hdr.ipv4); pkt.emit(hdr.ipv6);
    }
}
parser EgParser(packet_in pkt, out headers_t hdr, out meta_t md, out egress_intrinsic_metadata_t eg_intr_md) {
    state start { pkt.extract(eg_intr_md); pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) { 0x8100: parse_vlan; 0x1234: parse_tag; default: accept; } }
    state parse_vlan { pkt.extract(hdr.vlan); transition accept; }
    state parse_tag { pkt.extract(hdr.tag); transition accept; }
}
control EgDeparser(packet_out pkt, inout headers_t hdr, in meta_t md,
                   in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) { apply { pkt.emit(hdr); } }
"#;

/// TNA: the egress parser re-parses what the ingress deparser emitted. A
/// header it never extracts is invalid in egress, one it extracts and the
/// ingress deparser emits is as ingress left it, one it extracts that the
/// ingress deparser does not emit is unknown.
#[test]
fn tna_egress_sees_what_its_parser_recovers_of_what_ingress_emitted() {
    let src = format!(
        "{TNA_HEAD}{}",
        r#"
control Eg(inout headers_t hdr, inout meta_t md, in egress_intrinsic_metadata_t eg_intr_md,
           in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
           inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
           inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    action nop() { }
    table e6 { key = { hdr.ethernet.dst : exact; } actions = { nop; } }
    table ev { key = { hdr.ethernet.dst : exact; } actions = { nop; } }
    table et { key = { hdr.ethernet.dst : exact; } actions = { nop; } }
    apply {
        if (hdr.ipv6.isValid()) { e6.apply(); }
        if (hdr.vlan.isValid()) { ev.apply(); }
        if (hdr.tag.isValid()) { et.apply(); }
    }
}
Pipeline(IgParser(), Ig(), IgDeparser(), EgParser(), Eg(), EgDeparser()) pipe;
Switch(pipe) main;
"#
    );
    let (p, joined_id, j) = joined(lower_source(&src));
    assert_eq!(j.parser.as_deref(), Some("EgParser"));
    assert_eq!(j.invalid, vec!["hdr.ipv6"]);
    assert_eq!(j.unknown, vec!["hdr.tag"]);
    let got = classes_by_path(&p, joined_id);
    let v = |ts: &[&str]| ts.iter().map(|t| t.to_string()).collect::<Vec<_>>();
    // ipv6 never reaches egress (EgParser does not extract it); vlan is
    // valid in egress exactly when ingress set it (IPv4 packets); tag forks.
    assert_eq!(
        got,
        vec![
            ("hdr.ethernet".to_string(), vec![v(&["Eg.et"]), v(&[])]),
            (
                "hdr.ethernet -> hdr.ipv4".to_string(),
                vec![v(&["Eg.ev", "Eg.et"]), v(&["Eg.ev"])]
            ),
            (
                "hdr.ethernet -> hdr.ipv6".to_string(),
                vec![v(&["Eg.et"]), v(&[])]
            ),
        ]
    );
    // Why e6 is skipped on the IPv6 path: invalid where egress tests it.
    let pg = ingress_graph(&p);
    let v6 = pg
        .list(10)
        .into_iter()
        .find(|path| pg.path(path).header_chain() == "hdr.ethernet -> hdr.ipv6")
        .unwrap();
    let l = list_classes(&p, joined_id, &pg, &v6, 10, &ClassBudget::default()).unwrap();
    let e6 = l.classes[0]
        .skipped
        .iter()
        .find(|s| &*s.name == "Eg.e6")
        .expect("e6 skipped");
    assert_eq!(&*e6.reason, "hdr.ipv6 invalid on this path");
}

/// An egress control that applies nothing joins nothing.
#[test]
fn an_empty_egress_is_not_joined() {
    let src = format!(
        "{TNA_HEAD}{}",
        r#"
control Eg(inout headers_t hdr, inout meta_t md, in egress_intrinsic_metadata_t eg_intr_md,
           in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
           inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
           inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) { apply { } }
Pipeline(IgParser(), Ig(), IgDeparser(), EgParser(), Eg(), EgDeparser()) pipe;
Switch(pipe) main;
"#
    );
    let p = lower_source(&src);
    let pipe = p.analysed_pipelines().into_iter().next().unwrap();
    assert!(join_egress(&p, &pipe).is_none());
}
