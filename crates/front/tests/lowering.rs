//! Lowering P4-16 source into the program model: widths, the parse graph,
//! tables, control flow, package binding and spans.

use p4cost_front::{load_file, load_source, Options};
use p4cost_ir::*;

fn load(src: &str) -> Program {
    match load_source("t.p4", src, &Options::default()) {
        Ok(l) => l.program,
        Err(e) => panic!("{e}"),
    }
}

const TNA_PROGRAM: &str = r#"
#include <core.p4>
#include <tna.p4>
#define VID_BITS 12
typedef bit<48> mac_t;
const bit<32> ROUTES = 1024 * 4;
header ethernet_h { mac_t dst; mac_t src; bit<16> ether_type; }
header vlan_h { bit<3> pcp; bit<1> dei; bit<VID_BITS> vid; bit<16> ether_type; }
header mpls_h { bit<20> label; bit<3> tc; bit<1> bos; bit<8> ttl; }
header ipv4_h { bit<4> version; bit<4> ihl; bit<8> tos; bit<16> len; bit<16> id; bit<3> flags;
                bit<13> frag; bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst; }
struct headers_t { ethernet_h ethernet; vlan_h vlan; mpls_h[3] mpls; ipv4_h ipv4; }
struct meta_t { bit<16> l4_port; }

parser IgParser(packet_in pkt, out headers_t hdr, out meta_t md, out ingress_intrinsic_metadata_t ig_intr_md) {
    value_set<bit<16>>(4) custom_types;
    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        transition parse_ethernet;
    }
    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x8100: parse_vlan;
            0x8847: parse_mpls;
            0x0800 &&& 0xFFFF: parse_ipv4;
            0x0600 .. 0x06FF: reject;
            custom_types: accept;
            default: accept;
        }
    }
    state parse_vlan {
        pkt.extract(hdr.vlan);
        transition select(hdr.vlan.ether_type, hdr.vlan.vid) {
            (0x0800, _): parse_ipv4;
            default: accept;
        }
    }
    state parse_mpls {
        pkt.extract(hdr.mpls.next);
        transition select(hdr.mpls.last.bos) {
            0: parse_mpls;
            1: parse_ipv4;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition accept;
    }
}

control Acl(inout headers_t hdr, inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    action deny() { ig_dprsr_md.drop_ctl = 1; }
    table acl { key = { hdr.ipv4.src : ternary; hdr.ipv4.dst[31:16] : ternary; } actions = { deny; NoAction; } size = 256; }
    apply { acl.apply(); }
}

control Ig(inout headers_t hdr, inout meta_t md, in ingress_intrinsic_metadata_t ig_intr_md,
           in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
           inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
           inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    Counter<bit<32>, bit<10>>(1024, CounterType_t.PACKETS) hits;
    Acl() acl_ctl;
    action set_port(PortId_t port) { ig_tm_md.ucast_egress_port = port; hits.count(0); }
    action dec_ttl() { hdr.ipv4.ttl = hdr.ipv4.ttl - 1; }
    action miss() { }
    table vlan_map {
        key = { hdr.vlan.vid : exact; ig_intr_md.ingress_port : exact; }
        actions = { set_port; miss; }
        default_action = miss();
        size = 512;
    }
    table routes {
        key = { hdr.ipv4.dst : lpm; }
        actions = { set_port; dec_ttl; @defaultonly miss; }
        const default_action = miss;
        size = ROUTES;
        const entries = { 0x0A000000 &&& 0xFF000000 : set_port(1); 0x0B000000 &&& 0xFF000000 : set_port(2); }
    }
    table l2 { key = { hdr.ethernet.dst : exact; } actions = { set_port; miss; } }
    apply {
        if (hdr.vlan.isValid()) {
            if (vlan_map.apply().hit) {
                exit;
            }
        }
        switch (routes.apply().action_run) {
            set_port: { }
            dec_ttl: { l2.apply(); }
        }
        acl_ctl.apply(hdr, ig_dprsr_md);
    }
}

control IgDeparser(packet_out pkt, inout headers_t hdr, in meta_t md, in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    apply { pkt.emit(hdr); }
}
parser EgParser(packet_in pkt, out headers_t hdr, out meta_t md, out egress_intrinsic_metadata_t eg_intr_md) {
    state start { pkt.extract(eg_intr_md); transition accept; }
}
control Eg(inout headers_t hdr, inout meta_t md, in egress_intrinsic_metadata_t eg_intr_md,
           in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
           inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
           inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    apply { }
}
control EgDeparser(packet_out pkt, inout headers_t hdr, in meta_t md, in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    apply { pkt.emit(hdr); }
}
Pipeline(IgParser(), Ig(), IgDeparser(), EgParser(), Eg(), EgDeparser()) pipe;
Switch(pipe) main;
"#;

fn ig_parser(p: &Program) -> &Parser {
    p.parser(p.ingress_parser().expect("ingress parser"))
}

#[test]
fn widths_come_from_typedefs_defines_and_arch_headers() {
    let p = load(TNA_PROGRAM);
    assert_eq!(p.arch, Arch::Tna);
    let ty = |n: &str| p.header_types.iter().find(|t| t.name == n).expect(n);
    assert_eq!(ty("ethernet_h").fixed_bits(), 112);
    assert_eq!(ty("vlan_h").fixed_bits(), 32);
    assert_eq!(ty("ipv4_h").fixed_bits(), 160);
    let md = ty("ingress_intrinsic_metadata_t");
    assert_eq!(md.fixed_bits(), 64);
    assert_eq!(md.origin, Origin::Architecture);
    assert_eq!(ty("ipv4_h").origin, Origin::Program);
}

#[test]
fn tna_start_state_extracts_metadata_and_skips_port_metadata() {
    let p = load(TNA_PROGRAM);
    let parser = ig_parser(&p);
    assert_eq!(parser.name, "IgParser");
    assert_eq!(parser.gress, Gress::Ingress);
    let start = parser.state(parser.start);
    assert_eq!(start.name, "start");
    match &start.ops[..] {
        [ParserOp::Extract {
            header,
            bits,
            origin,
            ..
        }, ParserOp::Advance { bits: adv, .. }] => {
            assert_eq!(header, "ig_intr_md");
            assert_eq!(*bits, 64);
            assert_eq!(*origin, Origin::Architecture);
            assert_eq!(*adv, Some(64));
        }
        other => panic!("unexpected ops {other:?}"),
    }
    assert_eq!(start.extracted_bits(), 64);
}

#[test]
fn select_keysets_are_lowered_faithfully() {
    let p = load(TNA_PROGRAM);
    let parser = ig_parser(&p);
    let eth = parser.state(parser.state_by_name("parse_ethernet").expect("state"));
    let Transition::Select { keys, cases } = &eth.transition else {
        panic!("select expected")
    };
    assert_eq!(keys.len(), 1);
    assert_eq!(keys[0].expr, "hdr.ethernet.ether_type");
    assert_eq!(keys[0].width_bits, Some(16));
    assert_eq!(cases.len(), 6);
    assert_eq!(
        cases[0].keysets,
        vec![Keyset::Value {
            value: "0x8100".into()
        }]
    );
    assert!(
        matches!(&cases[2].keysets[0], Keyset::Mask { value, mask } if value == "0x0800" && mask == "0xFFFF")
    );
    assert!(
        matches!(&cases[3].keysets[0], Keyset::Range { lo, hi } if lo == "0x0600" && hi == "0x06FF")
    );
    assert_eq!(cases[3].target, Target::Reject);
    assert_eq!(
        cases[4].keysets,
        vec![Keyset::ValueSet {
            name: "custom_types".into()
        }]
    );
    assert_eq!(cases[5].keysets, vec![Keyset::Default]);
    let vlan = parser.state(parser.state_by_name("parse_vlan").expect("state"));
    let Transition::Select { keys, cases } = &vlan.transition else {
        panic!("select expected")
    };
    assert_eq!(keys[1].width_bits, Some(12));
    assert_eq!(cases[0].keysets.len(), 2);
    assert_eq!(cases[0].keysets[1], Keyset::Default);
}

#[test]
fn header_stack_extracts_use_next_and_know_the_stack_size() {
    let p = load(TNA_PROGRAM);
    let parser = ig_parser(&p);
    let mpls = parser.state(parser.state_by_name("parse_mpls").expect("state"));
    let ParserOp::Extract {
        header,
        stack,
        instance,
        bits,
        ..
    } = &mpls.ops[0]
    else {
        panic!("extract expected")
    };
    assert_eq!(header, "hdr.mpls");
    assert_eq!(*stack, Some(StackAccess::Next));
    assert_eq!(*bits, 32);
    let inst = p.header(instance.expect("instance"));
    assert_eq!(inst.stack_size, Some(3));
    // Paths by hand: eth (the value-set and default cases both accept: one
    // path); eth vlan; eth vlan ipv4; eth ipv4; eth mpls{1,2,3} ipv4 (a
    // fourth label overflows the stack and rejects) = 7.
    assert_eq!(count_paths(&p), 7);
}

/// Counts accept paths by brute force over this small graph (the stack
/// bounds the loop), to check the lowered graph against the hand count.
fn count_paths(p: &Program) -> usize {
    fn walk(p: &Parser, s: StateId, mpls: u32, n: &mut usize) {
        let st = p.state(s);
        let mut mpls = mpls;
        for op in &st.ops {
            if let ParserOp::Extract {
                stack: Some(StackAccess::Next),
                ..
            } = op
            {
                if mpls == 3 {
                    return;
                }
                mpls += 1;
            }
        }
        // Each case edge counts (the same target twice is two cases but one
        // path: dedupe targets as the analysis does).
        for t in st.transition.targets() {
            match t {
                Target::Accept => *n += 1,
                Target::Reject => {}
                Target::State(x) => walk(p, x, mpls, n),
            }
        }
    }
    let parser = ig_parser(p);
    let mut n = 0;
    walk(parser, parser.start, 0, &mut n);
    n
}

#[test]
fn tables_have_keys_widths_match_kinds_sizes_and_actions() {
    let p = load(TNA_PROGRAM);
    let t = |n: &str| p.table(p.table_by_name(n).expect(n));
    let vlan_map = t("Ig.vlan_map");
    let keys: Vec<(&str, Option<u32>, &MatchKind)> = vlan_map
        .keys
        .iter()
        .map(|k| (k.field.as_str(), k.width_bits, &k.match_kind))
        .collect();
    assert_eq!(
        keys,
        vec![
            ("hdr.vlan.vid", Some(12), &MatchKind::Exact),
            ("ig_intr_md.ingress_port", Some(9), &MatchKind::Exact)
        ]
    );
    assert_eq!(vlan_map.size, Some(512));
    assert_eq!(vlan_map.actions.len(), 2);
    assert_eq!(
        vlan_map.default_action.map(|a| p.action(a).name.clone()),
        Some("miss".to_string())
    );
    let routes = t("Ig.routes");
    assert_eq!(routes.size, Some(4096));
    assert_eq!(routes.keys[0].match_kind, MatchKind::Lpm);
    assert_eq!(routes.keys[0].width_bits, Some(32));
    assert_eq!(routes.const_entries, 2);
    let acl = t("Ig.acl_ctl.acl");
    assert_eq!(acl.keys[1].width_bits, Some(16), "slice [31:16]");
    assert_eq!(acl.keys[1].match_kind, MatchKind::Ternary);
    assert_eq!(t("Ig.l2").size, None);
}

#[test]
fn actions_carry_read_write_sets_and_primitives() {
    let p = load(TNA_PROGRAM);
    let a = |n: &str| p.actions.iter().find(|a| a.name == n).expect(n);
    let set_port = a("set_port");
    assert_eq!(
        set_port.writes,
        vec!["ig_tm_md.ucast_egress_port".to_string()]
    );
    assert_eq!(set_port.params[0].width_bits, Some(9));
    assert!(
        set_port.primitives.iter().any(|x| x.op == "Counter.count"),
        "{:?}",
        set_port.primitives
    );
    let dec = a("dec_ttl");
    assert_eq!(dec.writes, vec!["hdr.ipv4.ttl".to_string()]);
    assert!(dec.reads.contains(&"hdr.ipv4.ttl".to_string()));
    assert_eq!(dec.primitives[0].op, "arith");
}

#[test]
fn apply_block_becomes_a_graph_with_hit_miss_action_arms_and_inlined_sub_controls() {
    let p = load(TNA_PROGRAM);
    let ig = p.control(p.ingress_control().expect("ingress"));
    assert_eq!(ig.name, "Ig");
    assert_eq!(ig.role, ControlRole::Ingress);
    let names: Vec<&str> = ig
        .flow
        .tables()
        .iter()
        .map(|t| p.table(*t).name.as_str())
        .collect();
    // Walk order from the entry, with the sub-control's table inlined where
    // applied (the empty `set_port` arm leads straight to it).
    assert_eq!(
        names,
        vec!["Ig.vlan_map", "Ig.routes", "Ig.acl_ctl.acl", "Ig.l2"]
    );
    let entry = ig.flow.node(ig.flow.entry.expect("entry"));
    let NodeKind::Condition {
        reads,
        then_next,
        else_next,
        ..
    } = &entry.kind
    else {
        panic!("condition first")
    };
    assert_eq!(reads, &vec!["hdr.vlan.$valid".to_string()]);
    let hit_node = ig.flow.node(then_next.expect("then"));
    let NodeKind::Table {
        next: TableNext::HitMiss { hit, miss },
        ..
    } = &hit_node.kind
    else {
        panic!("hit/miss")
    };
    assert!(matches!(
        ig.flow.node(hit.expect("hit")).kind,
        NodeKind::Exit
    ));
    assert_eq!(
        *miss, *else_next,
        "a miss falls through to what follows the if"
    );
    let sw = ig.flow.node(else_next.expect("switch"));
    let NodeKind::Table {
        next: TableNext::ByAction { arms, default },
        ..
    } = &sw.kind
    else {
        panic!("action_run")
    };
    // set_port and dec_ttl as written, and miss (no case of its own) to
    // the switch's default way, as p4c lists every action.
    assert_eq!(arms.len(), 3);
    let miss_arm = arms
        .iter()
        .find(|(a, _)| p.action(*a).name == "miss")
        .expect("miss arm");
    assert_eq!(miss_arm.1, *default);
    let dec_arm = arms
        .iter()
        .find(|(a, _)| p.action(*a).name == "dec_ttl")
        .expect("arm");
    let l2 = ig.flow.node(dec_arm.1.expect("l2"));
    assert!(matches!(l2.kind, NodeKind::Table { table, .. } if p.table(table).name == "Ig.l2"));
    assert!(
        default.is_some(),
        "unlisted actions continue to the sub-control"
    );
    // Control paths: vlan valid (hit: exit | miss) or not, then 2 arms + default.
    assert_eq!(ig.flow.tables().len(), 4);
}

#[test]
fn package_binding_finds_every_block() {
    let p = load(TNA_PROGRAM);
    assert_eq!(p.pipelines.len(), 1);
    let pipe = &p.pipelines[0];
    assert_eq!(pipe.name, "pipe");
    let name = |c: Option<ControlId>| c.map(|c| p.control(c).name.clone());
    assert_eq!(name(pipe.ingress), Some("Ig".into()));
    assert_eq!(name(pipe.egress), Some("Eg".into()));
    assert_eq!(name(pipe.ingress_deparser), Some("IgDeparser".into()));
    assert_eq!(name(pipe.egress_deparser), Some("EgDeparser".into()));
    assert_eq!(
        pipe.egress_parser.map(|x| p.parser(x).name.clone()),
        Some("EgParser".into())
    );
}

#[test]
fn v1model_binding_and_arch() {
    let src = r#"
#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> d; bit<48> s; bit<16> t; }
struct H { eth_t eth; }
struct M { }
parser P(packet_in pkt, out H h, inout M m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); transition accept; }
}
control VC(inout H h, inout M m) { apply { } }
control I(inout H h, inout M m, inout standard_metadata_t sm) {
    action fwd(bit<9> port) { sm.egress_spec = port; }
    table t { key = { h.eth.d : exact; sm.ingress_port : exact; } actions = { fwd; } }
    apply { t.apply(); }
}
control E(inout H h, inout M m, inout standard_metadata_t sm) { apply { } }
control CC(inout H h, inout M m) { apply { } }
control D(packet_out pkt, in H h) { apply { pkt.emit(h.eth); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"#;
    let p = load(src);
    assert_eq!(p.arch, Arch::V1model);
    let ig = p.control(p.ingress_control().expect("ingress"));
    assert_eq!(ig.name, "I");
    let t = p.table(p.table_by_name("I.t").expect("I.t"));
    assert_eq!(t.keys[1].width_bits, Some(9));
    assert_eq!(p.parser(p.ingress_parser().expect("parser")).name, "P");
    assert_eq!(p.control(p.pipelines[0].egress.expect("egress")).name, "E");
}

#[test]
fn spans_point_into_the_original_files_through_includes_and_macros() {
    let dir = std::env::temp_dir().join(format!("p4cost-front-spans-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("inc")).expect("dir");
    std::fs::write(
        dir.join("inc/hdrs.p4"),
        "// headers\n\n#define W 16\nheader h_t {\n    bit<W> a;\n}\nstruct hs { h_t h; }\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("main.p4"),
        "#include <core.p4>\n#include \"hdrs.p4\"\n\nparser P(packet_in pkt, out hs hdr) {\n    state start {\n        pkt.extract(hdr.h);\n        transition accept;\n    }\n}\n",
    )
    .expect("write");
    let opts = Options {
        defines: vec![],
        include_dirs: vec![dir.join("inc")],
        ..Options::default()
    };
    let l = load_file(&dir.join("main.p4"), &opts).expect("loads");
    let p = &l.program;
    let h = p
        .header_types
        .iter()
        .find(|t| t.name == "h_t")
        .expect("h_t");
    assert!(p.file_path(h.span.file).ends_with("inc/hdrs.p4"));
    assert_eq!((h.span.line, h.span.col), (4, 1));
    assert_eq!(h.fields[0].width_bits, 16);
    assert_eq!(h.fields[0].span.line, 5);
    let st = &p.parsers[0].states[0];
    assert!(p.file_path(st.span.file).ends_with("main.p4"));
    assert_eq!((st.span.line, st.span.col), (5, 5));
    let ParserOp::Extract { span, .. } = &st.ops[0] else {
        panic!("extract")
    };
    assert_eq!((span.line, span.col), (6, 9));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn define_flags_change_the_program() {
    let src = "#include <core.p4>\nheader h_t { bit<WIDTH> a; }\n";
    let opts = Options {
        defines: vec![("WIDTH".into(), Some("24".into()))],
        ..Options::default()
    };
    let p = load_source("t.p4", src, &opts).expect("loads").program;
    assert_eq!(
        p.header_types
            .iter()
            .find(|t| t.name == "h_t")
            .map(|t| t.fixed_bits()),
        Some(24)
    );
}

#[test]
fn lowering_errors_are_located() {
    let cases: &[(&str, &str)] = &[
        (
            "#include <core.p4>\nheader h_t { bit<8> a; }\nstruct hs { h_t h; }\nparser P(packet_in pkt, out hs hdr) {\n    state start { transition nowhere; }\n}\n",
            "t.p4:5:30: transition to unknown state `nowhere`",
        ),
        (
            "#include <core.p4>\nparser P(packet_in pkt) {\n    state begin { transition accept; }\n}\n",
            "t.p4:2:8: parser `P` has no `start` state",
        ),
        (
            "#include <core.p4>\nheader h_t { bit<8> a; }\ncontrol C(inout h_t h) {\n    table t { key = { h.a : exact; } actions = { missing_action; } }\n    apply { t.apply(); }\n}\n",
            "t.p4:4:50: table `t` lists unknown action `missing_action`",
        ),
        (
            "#include <core.p4>\nheader h_t { unknown_t a; }\n",
            "t.p4:2:14: field `a` of header `h_t` has a type without a known width",
        ),
    ];
    for (src, want) in cases {
        let e = load_source("t.p4", src, &Options::default())
            .map(|_| ())
            .expect_err(want);
        assert!(e.to_string().starts_with(want), "got `{e}`, want `{want}`");
    }
}

#[test]
fn deparser_order_and_extern_instances() {
    let p = load(TNA_PROGRAM);
    let ig = p
        .deparsers
        .iter()
        .find(|d| d.name == "IgDeparser")
        .expect("deparser");
    // `pkt.emit(hdr)` emits the struct's headers in field order.
    assert_eq!(
        ig.order,
        vec!["hdr.ethernet", "hdr.vlan", "hdr.mpls", "hdr.ipv4"]
    );
    assert!(p.deparsers.iter().any(|d| d.name == "EgDeparser"));
    let hits = p
        .externs
        .iter()
        .find(|e| e.name == "hits")
        .expect("counter");
    assert_eq!(hits.kind, ExternKind::Counter);
    assert_eq!(hits.size, Some(1024));
    assert!(!hits.direct);
    // Parser and control instances (`Acl() acl_ctl`, `pipe`, `main`) are
    // not externs.
    assert!(p
        .externs
        .iter()
        .all(|e| e.name != "acl_ctl" && e.name != "pipe" && e.name != "main"));
}

#[test]
fn v1model_registers_and_direct_counters() {
    let src = r#"
#include <core.p4>
#include <v1model.p4>
const bit<32> FLOWS = 8192;
header eth_t { bit<48> d; bit<48> s; bit<16> t; }
struct H { eth_t eth; }
struct M { }
parser P(packet_in pkt, out H h, inout M m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); transition accept; }
}
control VC(inout H h, inout M m) { apply { } }
control I(inout H h, inout M m, inout standard_metadata_t sm) {
    register<bit<48>>(FLOWS) last_seen;
    direct_counter(CounterType.packets) t_hits;
    action fwd(bit<9> port) { sm.egress_spec = port; last_seen.write(0, h.eth.s); }
    table t { key = { h.eth.d : exact; } actions = { fwd; } counters = t_hits; }
    apply { t.apply(); }
}
control E(inout H h, inout M m, inout standard_metadata_t sm) { apply { } }
control CC(inout H h, inout M m) { apply { } }
control D(packet_out pkt, in H h) { apply { pkt.emit(h.eth); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"#;
    let p = load(src);
    let r = p
        .externs
        .iter()
        .find(|e| e.name == "last_seen")
        .expect("register");
    assert_eq!(
        (r.kind.clone(), r.size, r.width_bits),
        (ExternKind::Register, Some(8192), Some(48))
    );
    let c = p
        .externs
        .iter()
        .find(|e| e.name == "t_hits")
        .expect("direct counter");
    assert_eq!((c.kind.clone(), c.direct), (ExternKind::Counter, true));
    assert_eq!(p.deparsers.len(), 1);
    assert_eq!(p.deparsers[0].order, vec!["h.eth"]);
    let fwd = p.actions.iter().find(|a| a.name == "fwd").expect("fwd");
    assert!(
        fwd.primitives.iter().any(|x| x.op == "register.write"),
        "{:?}",
        fwd.primitives
    );
}

#[test]
fn switch_binds_every_pipeline_by_instance_name() {
    let p = load(include_str!(
        "../../../p4-samples/tofino/multi_pipe/two_pipes.p4"
    ));
    let names: Vec<&str> = p.pipelines.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(names, ["pipe_l2", "pipe_l3"]);
    let parser = |i: usize| {
        p.parser(p.pipelines[i].ingress_parser.expect("parser"))
            .name
            .clone()
    };
    let control = |i: usize| {
        p.control(p.pipelines[i].ingress.expect("control"))
            .name
            .clone()
    };
    assert_eq!(
        (parser(0), control(0)),
        ("L2IgParser".into(), "L2Ingress".into())
    );
    assert_eq!(
        (parser(1), control(1)),
        ("L3IgParser".into(), "L3Ingress".into())
    );
    // Distinct bindings: two analysis groups.
    assert_eq!(p.ingress_pipeline_groups().len(), 2);
}

#[test]
fn same_pipeline_bound_twice_is_analysed_once() {
    let p = load(include_str!(
        "../../../p4-samples/tofino/multi_pipe/same_pipe_twice.p4"
    ));
    // `Switch(pipe, pipe, pipe_copy)`: `pipe` once, with a note.
    let names: Vec<&str> = p.pipelines.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(names, ["pipe", "pipe_copy"]);
    assert!(p
        .notes
        .iter()
        .any(|n| n.contains("`pipe` is bound more than once")));
    // `pipe_copy` has the same parser and control types: one group.
    let groups = p.ingress_pipeline_groups();
    assert_eq!(groups.len(), 1);
    assert_eq!(groups[0].len(), 2);
}

#[test]
fn program_without_main_gets_one_fallback_pipeline() {
    let src = r#"
#include <core.p4>
header eth_t { bit<48> d; bit<48> s; bit<16> t; }
struct H { eth_t eth; }
parser P(packet_in pkt, out H h) { state start { pkt.extract(h.eth); transition accept; } }
control MyIngress(inout H h) { apply { } }
"#;
    let p = load(src);
    assert!(p.pipelines.is_empty());
    let an = p.analysed_pipelines();
    assert_eq!(an.len(), 1);
    assert_eq!(an[0].name, "main");
    assert_eq!(p.parser(an[0].ingress_parser.expect("parser")).name, "P");
    assert_eq!(p.control(an[0].ingress.expect("control")).name, "MyIngress");
}

#[test]
fn multi_parser_pipeline_is_one_pipeline_with_its_first_parser() {
    // `MultiParserPipeline(IngressParsers(P0(), P1()), ...)`: the parser
    // group is part of the pipeline, not a pipeline of its own.
    let src = r#"
#include <core.p4>
#include <tna.p4>
header eth_t { bit<48> d; bit<48> s; bit<16> t; }
struct H { eth_t eth; }
struct M { }
parser P0(packet_in pkt, out H h, out M m, out ingress_intrinsic_metadata_t ig) {
    state start { pkt.extract(ig); pkt.advance(PORT_METADATA_SIZE); pkt.extract(h.eth); transition accept; }
}
parser P1(packet_in pkt, out H h, out M m, out ingress_intrinsic_metadata_t ig) {
    state start { pkt.extract(ig); pkt.advance(PORT_METADATA_SIZE); transition accept; }
}
control Ig(inout H h, inout M m, in ingress_intrinsic_metadata_t a,
           in ingress_intrinsic_metadata_from_parser_t b,
           inout ingress_intrinsic_metadata_for_deparser_t c,
           inout ingress_intrinsic_metadata_for_tm_t d) { apply { } }
control IgD(packet_out pkt, inout H h, in M m, in ingress_intrinsic_metadata_for_deparser_t c) {
    apply { pkt.emit(h); }
}
parser EgP(packet_in pkt, out H h, out M m, out egress_intrinsic_metadata_t eg) {
    state start { pkt.extract(eg); transition accept; }
}
control Eg(inout H h, inout M m, in egress_intrinsic_metadata_t a,
           in egress_intrinsic_metadata_from_parser_t b,
           inout egress_intrinsic_metadata_for_deparser_t c,
           inout egress_intrinsic_metadata_for_output_port_t d) { apply { } }
control EgD(packet_out pkt, inout H h, in M m, in egress_intrinsic_metadata_for_deparser_t c) {
    apply { pkt.emit(h); }
}
IngressParsers(P0(), P1()) ig_parsers;
EgressParsers(EgP()) eg_parsers;
MultiParserPipeline(ig_parsers, Ig(), IgD(), eg_parsers, Eg(), EgD()) pipe;
MultiParserSwitch(pipe) main;
"#;
    let p = load(src);
    let names: Vec<&str> = p.pipelines.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(names, ["pipe"]);
    let pipe = &p.pipelines[0];
    assert_eq!(p.parser(pipe.ingress_parser.expect("parser")).name, "P0");
    assert_eq!(p.parser(pipe.egress_parser.expect("eg parser")).name, "EgP");
    assert_eq!(p.control(pipe.ingress.expect("ingress")).name, "Ig");
    assert!(
        p.notes.iter().any(|n| n.contains("not analysed: P1")),
        "{:?}",
        p.notes
    );
}

#[test]
fn package_binding_budget_is_named_in_a_note() {
    let n = 70;
    let mut b = String::from(
        "#include <core.p4>\nheader h_t { bit<8> a; }\nstruct H { h_t h; }\n\
         parser Prs<T>(packet_in b, out T h);\ncontrol Ctl<T>(inout T h);\n\
         package Pipe<T>(Prs<T> ingress_parser, Ctl<T> ingress);\n",
    );
    let params: Vec<String> = (0..n).map(|i| format!("Pipe<T> p{i}")).collect();
    b += &format!("package Big<T>({});\n", params.join(", "));
    for i in 0..n {
        b += &format!(
            "parser P{i}(packet_in pkt, out H hdr) {{ state start {{ pkt.extract(hdr.h); transition accept; }} }}\n\
             control C{i}(inout H hdr) {{ apply {{ }} }}\nPipe(P{i}(), C{i}()) pipe{i};\n"
        );
    }
    let args: Vec<String> = (0..n).map(|i| format!("pipe{i}")).collect();
    b += &format!("Big({}) main;\n", args.join(", "));
    let p = load(&b);
    // `main` itself is the first of the 64 package instances.
    assert_eq!(p.pipelines.len(), 63);
    assert!(p.notes.iter().any(|n| n
        .contains("more than 64 package instances under `main`: the bindings from `pipe63` on")));
}

/// `return` in an applied sub-control leaves the sub-control, not the
/// caller: what follows the call still runs. At the top level it ends the
/// control.
#[test]
fn return_in_a_sub_control_goes_on_after_the_call() {
    let src = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> x; }
struct headers_t { h_t a; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t md, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.a); transition accept; }
}
control Sub(inout headers_t hdr) {
    action nop() { }
    table t1 { key = { hdr.a.x : exact; } actions = { nop; } }
    apply { if (hdr.a.x == 1) { return; } t1.apply(); }
}
control Ig(inout headers_t hdr, inout meta_t md, inout standard_metadata_t sm) {
    action nop() { }
    table t2 { key = { hdr.a.x : exact; } actions = { nop; } }
    Sub() sub;
    apply { sub.apply(hdr); t2.apply(); if (hdr.a.x == 2) { return; } t2.apply(); }
}
control VC(inout headers_t hdr, inout meta_t md) { apply { } }
control CC(inout headers_t hdr, inout meta_t md) { apply { } }
control Eg(inout headers_t hdr, inout meta_t md, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), Ig(), Eg(), CC(), D()) main;
"#;
    let p = load(src);
    let ig = p.controls.iter().find(|c| c.name == "Ig").expect("Ig");
    let flow = &ig.flow;
    let returns: Vec<Option<NodeId>> = flow
        .nodes
        .iter()
        .filter_map(|n| match &n.kind {
            NodeKind::Statement { what, next, .. } if what == "return" => Some(*next),
            _ => None,
        })
        .collect();
    assert_eq!(returns.len(), 2);
    let table_of = |id: Option<NodeId>| match id.map(|i| &flow.node(i).kind) {
        Some(NodeKind::Table { table, .. }) => p.table(*table).name.clone(),
        other => format!("{other:?}"),
    };
    // The sub-control's return goes to the first t2 (what follows
    // `sub.apply`); the top-level one ends the control.
    assert!(returns.contains(&None));
    let inner = returns.iter().flatten().next().copied();
    assert_eq!(table_of(inner), "Ig.t2");
    // It is the first t2: the condition holding the top-level return follows.
    let after = inner.map(|i| flow.node(i).successors());
    assert!(
        matches!(after.as_deref(), Some([Some(n)]) if matches!(flow.node(*n).kind, NodeKind::Condition { .. })),
        "{after:?}"
    );
}

#[test]
fn a_switch_naming_every_action_has_no_default_way() {
    let program = |default_action: &str| {
        format!(
            r#"
#include <core.p4>
#include <v1model.p4>
header eth_t {{ bit<48> d; bit<48> s; bit<16> t; }}
struct H {{ eth_t eth; }}
struct M {{ }}
parser P(packet_in pkt, out H h, inout M m, inout standard_metadata_t sm) {{
    state start {{ pkt.extract(h.eth); transition accept; }}
}}
control VC(inout H h, inout M m) {{ apply {{ }} }}
control I(inout H h, inout M m, inout standard_metadata_t sm) {{
    action a() {{ }}
    action b() {{ }}
    table t {{ key = {{ h.eth.d : exact; }} actions = {{ a; b; }} {default_action} }}
    table x {{ key = {{ h.eth.s : exact; }} actions = {{ a; }} }}
    table y {{ key = {{ h.eth.t : exact; }} actions = {{ a; }} }}
    apply {{
        switch (t.apply().action_run) {{
            a: {{ x.apply(); }}
            b: {{ y.apply(); }}
        }}
    }}
}}
control E(inout H h, inout M m, inout standard_metadata_t sm) {{ apply {{ }} }}
control CC(inout H h, inout M m) {{ apply {{ }} }}
control D(packet_out pkt, in H h) {{ apply {{ pkt.emit(h.eth); }} }}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"#
        )
    };
    let ways = |src: &str| {
        let p = load(src);
        let ig = p.control(p.ingress_control().expect("ingress"));
        let node = ig
            .flow
            .nodes
            .iter()
            .find(|n| {
                matches!(
                    n.kind,
                    NodeKind::Table {
                        next: TableNext::ByAction { .. },
                        ..
                    }
                )
            })
            .expect("the switch");
        node.successors().len()
    };
    // Every action t may run (a, b, its default b) has an arm: two ways.
    assert_eq!(ways(&program("default_action = b();")), 2);
    // Without a default action P4 runs NoAction on a miss: it takes the
    // switch's default way, past the switch.
    assert_eq!(ways(&program("")), 3);
}

/// The names of a pipeline's blocks: ingress parser, control, deparser,
/// then the same for egress.
fn block_names(p: &Program, pipe: &Pipeline) -> [Option<String>; 6] {
    let parser = |x: Option<ParserId>| x.map(|x| p.parser(x).name.clone());
    let control = |x: Option<ControlId>| x.map(|x| p.control(x).name.clone());
    [
        parser(pipe.ingress_parser),
        control(pipe.ingress),
        control(pipe.ingress_deparser),
        parser(pipe.egress_parser),
        control(pipe.egress),
        control(pipe.egress_deparser),
    ]
}

fn psa_blocks() -> [Option<String>; 6] {
    [
        "IgParser",
        "Ig",
        "IgDeparser",
        "EgParser",
        "Eg",
        "EgDeparser",
    ]
    .map(|s| Some(s.to_string()))
}

/// PSA's IngressPipeline and EgressPipeline are the two halves of the one
/// pipeline of `PSA_Switch`, written inline as nested constructor calls.
#[test]
fn psa_nested_pipelines_are_one_pipeline() {
    let p = load(include_str!("../../../p4-samples/psa/nested_pipelines.p4"));
    assert_eq!(p.arch, Arch::Psa);
    let names: Vec<&str> = p.pipelines.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(names, ["main"]);
    assert_eq!(block_names(&p, &p.pipelines[0]), psa_blocks());
    assert_eq!(p.ingress_pipeline_groups().len(), 1);
}

/// The same with every block and both halves as named instances.
#[test]
fn psa_named_pipeline_instances_are_one_pipeline() {
    let p = load(include_str!("../../../p4-samples/psa/named_pipelines.p4"));
    let names: Vec<&str> = p.pipelines.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(names, ["main"]);
    assert_eq!(block_names(&p, &p.pipelines[0]), psa_blocks());
    let eg = p.control(p.pipelines[0].egress.expect("egress"));
    assert_eq!((eg.role, eg.gress), (ControlRole::Egress, Gress::Egress));
}

/// PNA binds its blocks flat: the main parser, the main control (after the
/// pre-control, whose slot is the same) and the main deparser.
#[test]
fn pna_nic_binds_main_parser_control_and_deparser() {
    let p = load(include_str!("../../../p4-samples/pna/nic.p4"));
    assert_eq!(p.arch, Arch::Pna);
    assert_eq!(p.pipelines.len(), 1);
    let want = [
        Some("NicParser"),
        Some("NicMain"),
        Some("NicDeparser"),
        None,
        None,
        None,
    ]
    .map(|s| s.map(str::to_string));
    assert_eq!(block_names(&p, &p.pipelines[0]), want);
}

/// Two nested packages that each bind ingress only are not halves of one
/// pipeline: each stays a pipeline of its own, named for its instance.
#[test]
fn nested_packages_of_one_gress_each_stay_pipelines() {
    let src = r#"
#include <core.p4>
header h_t { bit<8> a; }
struct H { h_t h; }
parser Prs<T>(packet_in b, out T h);
control Ctl<T>(inout T h);
package Half<T>(Prs<T> ingress_parser, Ctl<T> ingress);
package Two<T>(Half<T> a, Half<T> b);
parser P0(packet_in pkt, out H hdr) { state start { pkt.extract(hdr.h); transition accept; } }
parser P1(packet_in pkt, out H hdr) { state start { transition accept; } }
control C0(inout H hdr) { apply { } }
control C1(inout H hdr) { apply { } }
Half(P0(), C0()) first;
Two(first, Half(P1(), C1())) main;
"#;
    let p = load(src);
    let names: Vec<&str> = p.pipelines.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(names, ["first", "b"]);
}

/// An action that calls another action does what the callee does (the
/// compiler inlines it): fabric-tna's `set_next_id_routing_v4` calls
/// `set_next_id`, which writes `fabric_md.next_id`; without the callee's
/// write the ACL after the routing tables lost its action dependency.
#[test]
fn an_action_calling_an_action_carries_its_writes() {
    let p = load(
        r#"
#include <core.p4>
#include <tna.p4>
struct m_t { bit<8> x; bit<8> y; bit<8> z; }
control C(inout m_t m) {
    action set_x(bit<8> v) { m.x = v; m.z = m.y; }
    action via(bit<8> v) { set_x(v); }
    table t { key = { m.y : exact; } actions = { via; } }
    apply { t.apply(); }
}
"#,
    );
    let a = |n: &str| p.actions.iter().find(|a| a.name == n).expect(n);
    let via = a("via");
    assert!(via.writes.contains(&"m.x".to_string()), "{:?}", via.writes);
    assert!(via.writes.contains(&"m.z".to_string()), "{:?}", via.writes);
    assert!(via.reads.contains(&"m.y".to_string()), "{:?}", via.reads);
    assert!(
        !via.writes.iter().any(|w| w == "v"),
        "the callee's parameter is not a field: {:?}",
        via.writes
    );
}

#[test]
fn a_direct_call_of_a_top_level_action_reads_and_writes_the_arguments() {
    // p4c inlines `bridge(hdr.vlan, md, 7)` with the arguments for the
    // directional parameters (frontends/p4/inlining.cpp): the call writes
    // `hdr.vlan.*` and reads `md.l4_port`; the directionless `tag` stays
    // action data.
    let top = "action bridge(inout vlan_h v, in meta_t m, bit<3> tag) {\n\
               v.setValid(); v.vid = (bit<12>)m.l4_port; v.pcp = tag; }\n\
               control Ig(";
    let src = TNA_PROGRAM.replacen("control Ig(", top, 1).replacen(
        "acl_ctl.apply(hdr, ig_dprsr_md);",
        "acl_ctl.apply(hdr, ig_dprsr_md); bridge(hdr.vlan, md, 7);",
        1,
    );
    let p = load(&src);
    let a = p
        .actions
        .iter()
        .find(|a| a.name == "bridge")
        .expect("bridge is lowered");
    assert_eq!(
        a.writes,
        vec!["hdr.vlan.$valid", "hdr.vlan.vid", "hdr.vlan.pcp"],
        "{a:?}"
    );
    assert_eq!(a.reads, vec!["md.l4_port"], "{a:?}");
}

/// `Alpm(...)` keeps its constant arguments by name (the ALPM split
/// needs them); positional ones as bf-p4c reads them: the first only, as
/// `number_partitions` (`SplitAlpm::values_through_impl`).
#[test]
fn alpm_constructor_arguments() {
    let src = TNA_PROGRAM.replace(
        "Pipeline(",
        "const bit<32> PARTS = 2048;\n\
         Alpm(number_partitions = PARTS, subtrees_per_partition = 4, atcam_subset_width = 18, \
         shift_granularity = 2) named_alpm;\n\
         Alpm(4096, 8) positional_alpm;\n\
         Pipeline(",
    );
    let p = load(&src);
    let args = |n: &str| {
        p.externs
            .iter()
            .find(|e| e.name == n)
            .unwrap_or_else(|| panic!("no {n}"))
            .args
            .clone()
    };
    let s = |k: &str, v: u64| (k.to_string(), v);
    assert_eq!(
        args("named_alpm"),
        [
            s("number_partitions", 2048),
            s("subtrees_per_partition", 4),
            s("atcam_subset_width", 18),
            s("shift_granularity", 2)
        ]
    );
    assert_eq!(args("positional_alpm"), [s("number_partitions", 4096)]);
    assert!(args("hits").is_empty());
}

#[test]
fn table_sizes_follow_each_instances_constructor_arguments() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../p4-samples/tofino");
    let l = load_file(&dir.join("ctor_sizes.p4"), &Options::default()).expect("loads");
    let p = &l.program;
    let size = |n: &str| p.table(p.table_by_name(n).expect(n)).size;
    // Positional, named, and the parameter's default.
    assert_eq!(size("Ig.acl_a.acl"), Some(1024));
    assert_eq!(size("Ig.acl_b.acl"), Some(2048));
    assert_eq!(size("Ig.acl_c.acl"), Some(300));
    // A global constant, a macro expression, and a parameter passed down.
    assert_eq!(size("Ig.fib.host"), Some(4096));
    assert_eq!(size("Ig.fib.lpm"), Some(8192));
    assert_eq!(size("Ig.fib.fib_acl.acl"), Some(4096));
    assert!(
        !l.warnings.iter().any(|w| w.message.contains("size")),
        "{:?}",
        l.warnings
    );
}

#[test]
fn a_constructor_argument_that_is_not_constant_leaves_the_size_unknown() {
    let src = r#"
#include <core.p4>
control Acl(in bit<32> k)(bit<32> table_size = 300) {
    action deny() { }
    table acl { key = { k : exact; } actions = { deny; } size = table_size; }
    apply { acl.apply(); }
}
control Top(in bit<32> k)(bit<32> n) {
    Acl(n) by_n;
    Acl(n + 1) by_expr;
    apply { by_n.apply(k); by_expr.apply(k); }
}
"#;
    let l = load_source("t.p4", src, &Options::default()).expect("loads");
    let p = &l.program;
    let size = |n: &str| p.table(p.table_by_name(n).expect(n)).size;
    // `n` has no value (Top's own arguments are not followed), so the
    // argument is not its default either.
    assert_eq!(size("Top.by_n.acl"), None);
    assert_eq!(size("Top.by_expr.acl"), None);
    // One warning at the table's declaration (repeats are merged).
    let warned = l
        .warnings
        .iter()
        .filter(|w| w.message.contains("depends on a constructor parameter"))
        .count();
    assert_eq!(warned, 1, "{:?}", l.warnings);
}

#[test]
fn action_data_is_the_directionless_parameters() {
    let src = r#"
#include <core.p4>
struct md_t { bit<16> nh; bit<1> routed; }
action hit(inout md_t md, bit<16> nh, bit<8> label) { md.nh = nh; md.routed = 1; }
control C(in bit<32> k, inout md_t md) {
    table host { key = { k : exact; } actions = { hit(md); } size = 64; }
    apply { host.apply(); }
}
"#;
    let l = load_source("t.p4", src, &Options::default()).expect("loads");
    let p = &l.program;
    let hit = p.actions.iter().find(|a| a.name == "hit").expect("hit");
    let params: Vec<(&str, Option<u32>)> = hit
        .params
        .iter()
        .map(|x| (x.name.as_str(), x.width_bits))
        .collect();
    assert_eq!(params, [("nh", Some(16)), ("label", Some(8))]);
}

#[test]
fn an_if_on_a_constructor_parameter_keeps_only_the_branch_taken() {
    let src = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> x; }
struct headers_t { h_t a; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t md, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.a); transition accept; }
}
control Fib(inout headers_t hdr)(bool local_enable = false, bool v6 = true) {
    action nop() { }
    table local_host { key = { hdr.a.x : exact; } actions = { nop; } }
    table host { key = { hdr.a.x : exact; } actions = { nop; } }
    table guarded { key = { hdr.a.x : exact; } actions = { nop; } }
    apply {
        if (local_enable) { local_host.apply(); } else { host.apply(); }
        if (v6 && hdr.a.x == 1) { guarded.apply(); }
    }
}
control Ig(inout headers_t hdr, inout meta_t md, inout standard_metadata_t sm) {
    Fib() by_default;
    Fib(true) positional;
    Fib(v6 = false, local_enable = !false) named;
    apply { by_default.apply(hdr); positional.apply(hdr); named.apply(hdr); }
}
control VC(inout headers_t hdr, inout meta_t md) { apply { } }
control CC(inout headers_t hdr, inout meta_t md) { apply { } }
control Eg(inout headers_t hdr, inout meta_t md, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), Ig(), Eg(), CC(), D()) main;
"#;
    let p = load(src);
    let ig = p.controls.iter().find(|c| c.name == "Ig").expect("Ig");
    let mut applied: Vec<String> = ig
        .flow
        .nodes
        .iter()
        .filter_map(|n| match &n.kind {
            NodeKind::Table { table, .. } => Some(p.table(*table).name.clone()),
            _ => None,
        })
        .collect();
    applied.sort();
    assert_eq!(
        applied,
        [
            "Ig.by_default.guarded",
            "Ig.by_default.host",
            "Ig.named.local_host",
            "Ig.positional.guarded",
            "Ig.positional.local_host",
        ]
    );
    // `v6 && hdr.a.x == 1` with `v6` true is decided by the field: it
    // stays a condition (one per instance that keeps it), and
    // `local_enable` is never one.
    let conditions: Vec<&str> = ig
        .flow
        .nodes
        .iter()
        .filter_map(|n| match &n.kind {
            NodeKind::Condition { expr, .. } => Some(expr.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(conditions, ["v6 && hdr.a.x == 1"; 2]);
}

#[test]
fn extern_sizes_follow_the_instances_constructor_arguments() {
    let src = r#"
#include <core.p4>
#include <v1model.p4>
const bit<32> BASE = 512;
header h_t { bit<8> x; }
struct headers_t { h_t a; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t md, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.a); transition accept; }
}
control Stats(inout headers_t hdr)(bit<32> cells, bit<32> unused = 7) {
    const bit<32> TWICE = 2;
    register<bit<32>>(cells * TWICE) reg;
    counter(cells, CounterType.packets) ctr;
    meter(unused, MeterType.packets) mtr;
    apply { ctr.count((bit<32>)hdr.a.x); }
}
control Twice(inout headers_t hdr)(bit<32> cells = 64, bit<32> same = 16) {
    counter(cells, CounterType.packets) twice_ctr;
    meter(same, MeterType.packets) twice_mtr;
    apply { twice_ctr.count((bit<32>)hdr.a.x); twice_mtr.execute_meter((bit<32>)hdr.a.x, hdr.a.x); }
}
control Unused(inout headers_t hdr)(bit<32> cells = 99) {
    counter(cells, CounterType.packets) unused_ctr;
    apply { }
}
control Ig(inout headers_t hdr, inout meta_t md, inout standard_metadata_t sm) {
    Stats(BASE * 2) stats;
    Twice() t1;
    Twice(cells = 128) t2;
    apply { stats.apply(hdr); t1.apply(hdr); t2.apply(hdr); }
}
control VC(inout headers_t hdr, inout meta_t md) { apply { } }
control CC(inout headers_t hdr, inout meta_t md) { apply { } }
control Eg(inout headers_t hdr, inout meta_t md, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), Ig(), Eg(), CC(), D()) main;
"#;
    let l = load_source("t.p4", src, &Options::default()).expect("loads");
    let size = |n: &str| {
        let x: Vec<_> = l.program.externs.iter().filter(|e| e.name == n).collect();
        assert_eq!(x.len(), 1, "{n}: one record");
        x[0].size
    };
    // The instance's argument (through a local constant too), and a
    // default the instance leaves.
    assert_eq!(size("reg"), Some(2048));
    assert_eq!(size("ctr"), Some(1024));
    assert_eq!(size("mtr"), Some(7));
    // Two instances: the argument they agree on, and unknown where they
    // differ (64 and 128), with a warning at the declaration.
    assert_eq!(size("twice_mtr"), Some(16));
    assert_eq!(size("twice_ctr"), None);
    let warned: Vec<_> = l
        .warnings
        .iter()
        .filter(|w| w.message.contains("differ between the instances"))
        .collect();
    assert_eq!(warned.len(), 1, "{:?}", l.warnings);
    assert!(warned[0].message.contains("twice_ctr"));
    // A control no pipeline instantiates: its declaration's defaults.
    assert_eq!(size("unused_ctr"), Some(99));
}

#[test]
fn each_instance_of_a_sub_control_has_its_own_copy_of_its_actions() {
    // Three instances, two of them bound alike: every instance gets an
    // action of its own (the tables list different ids), reading and
    // writing its own caller's fields, whether its copy was walked or
    // repeated from an instance bound the same way.
    let src = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> x; }
struct headers_t { h_t a; }
struct meta_t { bit<8> p; bit<8> q; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t md, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.a); transition accept; }
}
control Sub(inout headers_t h, inout bit<8> f) {
    action set() { h.a.x = f; f = 1; }
    table t { key = { h.a.x : exact; } actions = { set; } }
    apply { t.apply(); }
}
control Ig(inout headers_t hdr, inout meta_t md, inout standard_metadata_t sm) {
    Sub() s1;
    Sub() s2;
    Sub() s3;
    apply { s1.apply(hdr, md.p); s2.apply(hdr, md.q); s3.apply(hdr, md.p); }
}
control VC(inout headers_t hdr, inout meta_t md) { apply { } }
control CC(inout headers_t hdr, inout meta_t md) { apply { } }
control Eg(inout headers_t hdr, inout meta_t md, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), Ig(), Eg(), CC(), D()) main;
"#;
    let p = load(src);
    let of = |table: &str| {
        let t = p.tables.iter().find(|t| t.name == table).expect(table);
        let a = p.action(t.actions[0]);
        (t.actions[0], a.reads.clone(), a.writes.clone())
    };
    let (i1, r1, w1) = of("Ig.s1.t");
    let (i2, r2, w2) = of("Ig.s2.t");
    let (i3, r3, w3) = of("Ig.s3.t");
    assert!(i1 != i2 && i2 != i3 && i1 != i3);
    assert_eq!(r1, ["md.p"]);
    assert_eq!(w1, ["hdr.a.x", "md.p"]);
    assert_eq!(r2, ["md.q"]);
    assert_eq!(w2, ["hdr.a.x", "md.q"]);
    assert_eq!((r3, w3), (r1, w1));
}
