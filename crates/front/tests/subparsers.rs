//! Sub-parsers inlined into their caller, controls applied by their type
//! name, and table `@name` annotations. Every program here is our own; path
//! counts are worked out by hand in the comments and checked with a small
//! enumerator that tracks header-stack fill like the analysis does.

use std::collections::HashMap;

use p4cost_front::{load_source, Loaded, Options};
use p4cost_ir::*;

fn load(src: &str) -> Loaded {
    match load_source("t.p4", src, &Options::default()) {
        Ok(l) => l,
        Err(e) => panic!("{e}"),
    }
}

fn parser<'p>(l: &'p Loaded, name: &str) -> &'p Parser {
    l.program
        .parsers
        .iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("no parser {name}"))
}

fn state<'p>(p: &'p Parser, name: &str) -> &'p ParseState {
    let id = p.state_by_name(name).unwrap_or_else(|| {
        panic!(
            "no state {name} in {:?}",
            p.states.iter().map(|s| &s.name).collect::<Vec<_>>()
        )
    });
    p.state(id)
}

fn target_name(p: &Parser, t: Target) -> String {
    match t {
        Target::State(s) => p.state(s).name.clone(),
        Target::Accept => "accept".into(),
        Target::Reject => "reject".into(),
    }
}

fn direct(p: &Parser, s: &ParseState) -> String {
    match &s.transition {
        Transition::Direct { target } => target_name(p, *target),
        t => panic!("{} is not a direct transition: {t:?}", s.name),
    }
}

/// The extracted header names of every accepted path; stack elements as
/// `h[i]`. A `.next` extract into a full stack rejects the packet.
fn paths(prog: &Program, p: &Parser) -> Vec<Vec<String>> {
    fn walk(
        prog: &Program,
        p: &Parser,
        s: StateId,
        fill: HashMap<String, u32>,
        seq: Vec<String>,
        depth: u32,
        out: &mut Vec<Vec<String>>,
    ) {
        assert!(depth < 200, "runaway path");
        let (mut fill, mut seq) = (fill, seq);
        for op in &p.state(s).ops {
            if let ParserOp::Extract {
                header,
                instance,
                stack,
                ..
            } = op
            {
                let size = instance.and_then(|i| prog.header(i).stack_size);
                match stack {
                    Some(StackAccess::Next) => {
                        let f = fill.entry(header.clone()).or_insert(0);
                        if Some(*f) >= size {
                            return;
                        }
                        seq.push(format!("{header}[{f}]"));
                        *f += 1;
                    }
                    Some(StackAccess::Index(i)) => {
                        seq.push(format!("{header}[{i}]"));
                        let f = fill.entry(header.clone()).or_insert(0);
                        *f = (*f).max(i + 1);
                    }
                    None => seq.push(header.clone()),
                }
            }
        }
        for t in p.state(s).transition.targets() {
            match t {
                Target::Accept => out.push(seq.clone()),
                Target::Reject => {}
                Target::State(n) => walk(prog, p, n, fill.clone(), seq.clone(), depth + 1, out),
            }
        }
    }
    let mut out = Vec::new();
    walk(prog, p, p.start, HashMap::new(), Vec::new(), 0, &mut out);
    out.sort();
    out
}

fn seqs(v: &[&[&str]]) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = v
        .iter()
        .map(|s| s.iter().map(|x| x.to_string()).collect())
        .collect();
    out.sort();
    out
}

fn no_unfollowed(l: &Loaded) {
    for w in &l.warnings {
        assert!(!w.message.contains("not followed"), "{w}");
    }
}

/// Every extract of every state: (state, header, instance, stack).
fn extracts(p: &Parser) -> Vec<(String, String, Option<HeaderId>, Option<StackAccess>)> {
    let mut out = Vec::new();
    for s in &p.states {
        for op in &s.ops {
            if let ParserOp::Extract {
                header,
                instance,
                stack,
                ..
            } = op
            {
                out.push((s.name.clone(), header.clone(), *instance, *stack));
            }
        }
    }
    out
}

const L3: &str = r#"
#include <core.p4>
header eth_h { bit<48> dst; bit<48> src; bit<16> etype; }
header ipv4_h { bit<8> vihl; bit<8> proto; bit<16> len; bit<32> src; bit<32> dst; }
header ipv6_h { bit<32> vtf; bit<8> next_hdr; bit<8> hops; bit<16> len; }
header udp_h { bit<16> sport; bit<16> dport; bit<16> len; bit<16> csum; }
struct headers_t { eth_h eth; ipv4_h ipv4; ipv6_h ipv6; udp_h udp; }

parser L3Parser(packet_in p, inout headers_t h, out bit<8> proto) {
    bit<8> scratch;
    state start {
        transition select(h.eth.etype) {
            0x0800: v4;
            0x86dd: v6;
            default: accept;
        }
    }
    state v4 { p.extract(h.ipv4); proto = h.ipv4.proto; transition accept; }
    state v6 { p.extract(h.ipv6); scratch = h.ipv6.next_hdr; proto = scratch; transition accept; }
}

parser Top(packet_in pkt, out headers_t hdr) {
    L3Parser() l3;
    bit<8> proto;
    state start {
        pkt.extract(hdr.eth);
        l3.apply(pkt, hdr, proto);
        transition select(proto) {
            17: parse_udp;
            default: accept;
        }
    }
    state parse_udp { pkt.extract(hdr.udp); transition accept; }
}
"#;

#[test]
fn a_local_sub_parser_instance_is_inlined_with_its_parameters_bound() {
    let l = load(L3);
    no_unfollowed(&l);
    let p = parser(&l, "Top");
    // start keeps the extract before the call and goes to the copy.
    let start = state(p, "start");
    assert_eq!(start.ops.len(), 1);
    assert!(matches!(&start.ops[0], ParserOp::Extract { header, .. } if header == "hdr.eth"));
    assert_eq!(direct(p, start), "l3.start");
    // The copy's select reads the caller's header.
    let sub_start = state(p, "l3.start");
    match &sub_start.transition {
        Transition::Select { keys, cases } => {
            assert_eq!(keys[0].expr, "hdr.eth.etype");
            let targets: Vec<String> = cases.iter().map(|c| target_name(p, c.target)).collect();
            // `accept` of the sub-parser resumes the caller.
            assert_eq!(targets, ["l3.v4", "l3.v6", "start.after_l3"]);
        }
        t => panic!("{t:?}"),
    }
    // Extracts land on the caller's header names; writes to the `out`
    // parameter become writes to the caller's variable; the sub-parser's
    // local is kept apart under the prefix.
    let v6 = state(p, "l3.v6");
    assert!(matches!(&v6.ops[0], ParserOp::Extract { header, .. } if header == "hdr.ipv6"));
    let writes: Vec<&String> = v6
        .ops
        .iter()
        .filter_map(|o| match o {
            ParserOp::Statement { writes, .. } => writes.first(),
            _ => None,
        })
        .collect();
    assert_eq!(writes, ["l3.scratch", "proto"]);
    assert_eq!(direct(p, state(p, "l3.v4")), "start.after_l3");
    // The continuation holds the caller's own transition.
    let cont = state(p, "start.after_l3");
    assert!(cont.ops.is_empty());
    match &cont.transition {
        Transition::Select { keys, .. } => assert_eq!(keys[0].expr, "proto"),
        t => panic!("{t:?}"),
    }
    // The instance the copy extracts is the program's `hdr.ipv4`, made once.
    let v4_inst = extracts(p)
        .into_iter()
        .find(|e| e.1 == "hdr.ipv4")
        .and_then(|e| e.2)
        .expect("instance");
    assert_eq!(l.program.header(v4_inst).name, "hdr.ipv4");
    assert_eq!(
        l.program
            .headers
            .iter()
            .filter(|h| h.name == "hdr.ipv4")
            .count(),
        1
    );
    // By hand: the sub-parser leaves with ipv4, ipv6 or nothing (3 ways),
    // then the caller's select goes to udp or accepts (2 ways): 6 paths.
    assert_eq!(
        paths(&l.program, p),
        seqs(&[
            &["hdr.eth"],
            &["hdr.eth", "hdr.udp"],
            &["hdr.eth", "hdr.ipv4"],
            &["hdr.eth", "hdr.ipv4", "hdr.udp"],
            &["hdr.eth", "hdr.ipv6"],
            &["hdr.eth", "hdr.ipv6", "hdr.udp"],
        ])
    );
    // The declared states keep their ids; copies come after them.
    assert_eq!(p.states[0].name, "start");
    assert_eq!(p.states[1].name, "parse_udp");
    assert_eq!(p.states.len(), 2 + 1 + 3);
}

const TWICE: &str = r#"
#include <core.p4>
header kind_h { bit<8> dst_kind; bit<8> src_kind; }
header short_h { bit<16> a; }
header long_h { bit<64> a; }
struct addr_t { short_h short; long_h long; }
struct headers_t { kind_h kind; addr_t dst; addr_t src; }

parser AddrParser(packet_in b, in bit<8> kind, out addr_t addr) {
    state start {
        transition select(kind) {
            1: parse_short;
            2: parse_long;
        }
    }
    state parse_short { b.extract(addr.short); transition accept; }
    state parse_long { b.extract(addr.long); transition accept; }
}

parser Top(packet_in pkt, out headers_t hdr) {
    AddrParser() ap;
    state start {
        pkt.extract(hdr.kind);
        ap.apply(pkt, hdr.kind.dst_kind, hdr.dst);
        ap.apply(pkt, hdr.kind.src_kind, hdr.src);
        transition accept;
    }
}
"#;

#[test]
fn a_sub_parser_applied_twice_gets_two_copies() {
    let l = load(TWICE);
    no_unfollowed(&l);
    let p = parser(&l, "Top");
    assert_eq!(direct(p, state(p, "start")), "ap.start");
    assert_eq!(direct(p, state(p, "ap.parse_short")), "start.after_ap");
    assert_eq!(direct(p, state(p, "start.after_ap")), "ap#2.start");
    assert_eq!(direct(p, state(p, "ap#2.parse_long")), "start.after_ap#2");
    assert_eq!(direct(p, state(p, "start.after_ap#2")), "accept");
    match &state(p, "ap#2.start").transition {
        Transition::Select { keys, .. } => assert_eq!(keys[0].expr, "hdr.kind.src_kind"),
        t => panic!("{t:?}"),
    }
    // By hand: 2 choices (no default: anything else rejects) in each of the
    // two copies: 4 paths.
    assert_eq!(
        paths(&l.program, p),
        seqs(&[
            &["hdr.kind", "hdr.dst.short", "hdr.src.short"],
            &["hdr.kind", "hdr.dst.short", "hdr.src.long"],
            &["hdr.kind", "hdr.dst.long", "hdr.src.short"],
            &["hdr.kind", "hdr.dst.long", "hdr.src.long"],
        ])
    );
}

const NESTED: &str = r#"
#include <core.p4>
header outer_h { bit<16> etype; }
header ip_h { bit<32> addr; }
header l4_h { bit<16> port; }
struct inner_t { ip_h ip; l4_h l4; }
struct tunnel_t { outer_h outer; inner_t inner; }
struct headers_t { tunnel_t tun; l4_h tail; }

parser Inner(packet_in b, out inner_t x) {
    state start { b.extract(x.ip); transition select(x.ip.addr) { 0: accept; default: l4; } }
    state l4 { b.extract(x.l4); transition accept; }
}

parser Outer(packet_in b, out tunnel_t t) {
    Inner() i;
    state start {
        b.extract(t.outer);
        t.outer.etype = 0;
        i.apply(b, t.inner);
        transition accept;
    }
}

parser Top(packet_in pkt, out headers_t hdr) {
    Outer() o;
    state start {
        o.apply(pkt, hdr.tun);
        pkt.extract(hdr.tail);
        transition accept;
    }
}
"#;

#[test]
fn nested_sub_parsers_are_inlined_through_both_levels() {
    let l = load(NESTED);
    no_unfollowed(&l);
    let p = parser(&l, "Top");
    assert_eq!(direct(p, state(p, "start")), "o.start");
    assert_eq!(direct(p, state(p, "o.start")), "o.i.start");
    // Statements before a nested call are renamed too.
    assert!(state(p, "o.start").ops.iter().any(|o| matches!(o,
        ParserOp::Statement { writes, .. } if writes == &["hdr.tun.outer.etype".to_string()])));
    assert_eq!(direct(p, state(p, "o.i.l4")), "o.start.after_i");
    assert_eq!(direct(p, state(p, "o.start.after_i")), "start.after_o");
    let cont = state(p, "start.after_o");
    assert!(matches!(&cont.ops[0], ParserOp::Extract { header, .. } if header == "hdr.tail"));
    match &state(p, "o.i.start").transition {
        Transition::Select { keys, .. } => assert_eq!(keys[0].expr, "hdr.tun.inner.ip.addr"),
        t => panic!("{t:?}"),
    }
    // By hand: Inner accepts after ip or after ip+l4: 2 paths.
    assert_eq!(
        paths(&l.program, p),
        seqs(&[
            &["hdr.tun.outer", "hdr.tun.inner.ip", "hdr.tail"],
            &[
                "hdr.tun.outer",
                "hdr.tun.inner.ip",
                "hdr.tun.inner.l4",
                "hdr.tail"
            ],
        ])
    );
    // The standalone `Outer` declaration is lowered too, with its own names.
    let o = parser(&l, "Outer");
    assert_eq!(direct(o, state(o, "start")), "i.start");
}

#[test]
fn a_sub_parser_that_applies_its_caller_is_an_error() {
    // A applies B, which applies A (both by type name).
    let src = r#"
#include <core.p4>
header a_h { bit<8> x; }
parser B(packet_in b, out a_h h) {
    state start { A.apply(b, h); transition accept; }
}
parser A(packet_in b, out a_h h) {
    state start { b.extract(h); B.apply(b, h); transition accept; }
}
"#;
    let e = load_source("t.p4", src, &Options::default()).expect_err("recursion must fail");
    let m = e.to_string();
    assert!(m.contains("applied inside itself"), "{m}");
}

const STACK: &str = r#"
#include <core.p4>
header first_h { bit<8> nxt; }
header item_h { bit<8> val; bit<8> nxt; }
header tail_h { bit<16> v; }
struct headers_t { first_h first; item_h[3] items; tail_h tail; }

parser ItemParser(packet_in p, inout headers_t h, out bit<8> nxt) {
    state start {
        p.extract(h.items.next);
        nxt = h.items.last.nxt;
        transition accept;
    }
}

parser Top(packet_in pkt, out headers_t hdr) {
    ItemParser() item;
    bit<8> nxt;
    state start {
        pkt.extract(hdr.first);
        transition select(hdr.first.nxt) { 1: first_item; 2: tail; default: accept; }
    }
    state first_item {
        item.apply(pkt, hdr, nxt);
        transition select(nxt) { 1: more; 2: tail; default: accept; }
    }
    state more {
        pkt.extract(hdr.items.next);
        transition select(hdr.items.last.nxt) { 1: more; 2: tail; default: accept; }
    }
    state tail { pkt.extract(hdr.tail); transition accept; }
}
"#;

#[test]
fn next_inside_a_sub_parser_fills_the_callers_stack() {
    let l = load(STACK);
    no_unfollowed(&l);
    let p = parser(&l, "Top");
    let ex = extracts(p);
    let in_sub = ex.iter().find(|e| e.0 == "item.start").expect("copy");
    let in_top = ex.iter().find(|e| e.0 == "more").expect("more");
    assert_eq!(in_sub.1, "hdr.items");
    assert_eq!(in_sub.3, Some(StackAccess::Next));
    assert_eq!(in_sub.2, in_top.2);
    let inst = in_sub.2.expect("instance");
    assert_eq!(l.program.header(inst).stack_size, Some(3));
    // By hand: [first] and [first, tail]; then k = 1..3 items, each ending
    // in accept or tail (a 4th item overflows and rejects): 2 + 3*2 = 8.
    let got = paths(&l.program, p);
    assert_eq!(got.len(), 8, "{got:?}");
    assert!(got.contains(&vec![
        "hdr.first".to_string(),
        "hdr.items[0]".into(),
        "hdr.items[1]".into(),
        "hdr.items[2]".into(),
        "hdr.tail".into(),
    ]));
}

#[test]
fn a_parser_applied_by_its_type_name_with_constructor_arguments() {
    let src = r#"
#include <core.p4>
header h_t { bit<8> x; }
struct headers_t { h_t a; h_t b; }
parser Skip(packet_in p)(bit<32> n) {
    state start { p.advance(n); transition accept; }
}
parser Grab(packet_in p, out h_t h) {
    state start { p.extract(h); transition accept; }
}
parser Top(packet_in pkt, out headers_t hdr) {
    Skip(16) skip16;
    state start {
        skip16.apply(pkt);
        Grab.apply(pkt, hdr.b);
        transition accept;
    }
}
"#;
    let l = load(src);
    no_unfollowed(&l);
    let p = parser(&l, "Top");
    assert_eq!(direct(p, state(p, "start")), "skip16.start");
    let skip = state(p, "skip16.start");
    assert!(matches!(
        skip.ops[0],
        ParserOp::Advance { bits: Some(16), .. }
    ));
    assert_eq!(direct(p, skip), "start.after_skip16");
    assert_eq!(direct(p, state(p, "start.after_skip16")), "Grab.start");
    let grab = state(p, "Grab.start");
    assert!(matches!(&grab.ops[0], ParserOp::Extract { header, bits: 8, .. } if header == "hdr.b"));
    assert_eq!(direct(p, grab), "start.after_Grab");
    assert_eq!(paths(&l.program, p), seqs(&[&["hdr.b"]]));
}

#[test]
fn a_sub_parser_applied_under_a_condition_is_followed_on_its_branch() {
    // The state ends in a select on the condition (as p4c's midend makes
    // it): `1` to the branch that applies the sub-parser, `default` past
    // the `if`; both paths are counted, and nothing is left unfollowed.
    let src = r#"
#include <core.p4>
header h_t { bit<8> x; }
struct headers_t { h_t a; h_t b; h_t c; }
parser Grab(packet_in p, out h_t h) {
    state start { p.extract(h); transition accept; }
}
parser Top(packet_in pkt, out headers_t hdr) {
    Grab() g;
    state start {
        pkt.extract(hdr.a);
        if (hdr.a.x == 1) { g.apply(pkt, hdr.b); } else if (hdr.a.x == 2) { pkt.extract(hdr.c); }
        transition accept;
    }
}
"#;
    let l = load(src);
    no_unfollowed(&l);
    let p = parser(&l, "Top");
    let start = state(p, "start");
    let Transition::Select { keys, cases } = &start.transition else {
        panic!("a select on the condition: {:?}", start.transition)
    };
    assert_eq!(keys[0].expr, "hdr.a.x == 1");
    assert_eq!(keys[0].width_bits, Some(1));
    let target = |t: &Target| match t {
        Target::State(s) => p.states[s.index()].name.clone(),
        other => format!("{other:?}"),
    };
    assert_eq!(target(&cases[0].target), "start.if1_then");
    assert_eq!(target(&cases[1].target), "start.if1_else");
    assert_eq!(direct(p, state(p, "start.if1_then")), "g.start");
    assert_eq!(direct(p, state(p, "g.start")), "start.after_g");
    assert_eq!(direct(p, state(p, "start.after_g")), "start.after_if1");
    assert_eq!(
        paths(&l.program, p),
        seqs(&[&["hdr.a", "hdr.b"], &["hdr.a", "hdr.c"], &["hdr.a"]])
    );
}

// ---- The TNA pattern: the ingress parser's start state applies a
// sub-parser that extracts the intrinsic metadata and skips the port
// metadata.

const TNA_HEAD: &str = r#"
#include <core.p4>
#include <tna.p4>
header ethernet_h { bit<48> dst; bit<48> src; bit<16> ether_type; }
header ipv4_h { bit<4> version; bit<4> ihl; bit<8> tos; bit<16> len; bit<16> id; bit<3> flags;
                bit<13> frag; bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst; }
header udp_h { bit<16> sport; bit<16> dport; bit<16> len; bit<16> csum; }
struct headers_t { ethernet_h ethernet; ipv4_h ipv4; udp_h udp; }
struct meta_t { }
"#;

const TNA_WITH_SUB: &str = r#"
parser PortMetaParser(packet_in pkt, out ingress_intrinsic_metadata_t ig_intr_md) {
    state start {
        pkt.extract(ig_intr_md);
        transition select(ig_intr_md.resubmit_flag) { 1: parse_resubmit; 0: parse_port_metadata; }
    }
    state parse_resubmit { transition reject; }
    state parse_port_metadata { pkt.advance(PORT_METADATA_SIZE); transition accept; }
}
parser IgParser(packet_in pkt, out headers_t hdr, out meta_t md,
                out ingress_intrinsic_metadata_t ig_intr_md) {
    PortMetaParser() port_meta;
    state start {
        port_meta.apply(pkt, ig_intr_md);
        transition parse_ethernet;
    }
"#;

const TNA_FLAT: &str = r#"
parser IgParser(packet_in pkt, out headers_t hdr, out meta_t md,
                out ingress_intrinsic_metadata_t ig_intr_md) {
    state start {
        pkt.extract(ig_intr_md);
        transition select(ig_intr_md.resubmit_flag) { 1: parse_resubmit; 0: parse_port_metadata; }
    }
    state parse_resubmit { transition reject; }
    state parse_port_metadata { pkt.advance(PORT_METADATA_SIZE); transition parse_ethernet; }
"#;

const TNA_TAIL: &str = r#"
    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) { 0x0800: parse_ipv4; default: accept; }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.proto) { 17: parse_udp; default: accept; }
    }
    state parse_udp { pkt.extract(hdr.udp); transition accept; }
}
control Ig(inout headers_t hdr, inout meta_t md, in ingress_intrinsic_metadata_t ig_intr_md,
           in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
           inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
           inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    action fwd(PortId_t p) { ig_tm_md.ucast_egress_port = p; }
    table route { key = { hdr.ipv4.dst : exact; } actions = { fwd; NoAction; } size = 1024; }
    apply { if (hdr.ipv4.isValid()) { route.apply(); } }
}
control IgDeparser(packet_out pkt, inout headers_t hdr, in meta_t md,
                   in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    apply { pkt.emit(hdr); }
}
parser EgParser(packet_in pkt, out headers_t hdr, out meta_t md,
                out egress_intrinsic_metadata_t eg_intr_md) {
    state start { pkt.extract(eg_intr_md); transition accept; }
}
control Eg(inout headers_t hdr, inout meta_t md, in egress_intrinsic_metadata_t eg_intr_md,
           in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
           inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
           inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) { apply { } }
control EgDeparser(packet_out pkt, inout headers_t hdr, in meta_t md,
                   in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) { apply { pkt.emit(hdr); } }
Pipeline(IgParser(), Ig(), IgDeparser(), EgParser(), Eg(), EgDeparser()) pipe;
Switch(pipe) main;
"#;

/// Per path: the states that extract or skip something, as (extracted
/// headers with bits, skipped bits) — what a per-state cost model sees.
type Cost = Vec<(Vec<(String, u64, Origin)>, Vec<Option<u64>>)>;

fn costs(p: &Parser) -> Vec<Cost> {
    fn walk(p: &Parser, s: StateId, acc: Cost, out: &mut Vec<Cost>, depth: u32) {
        assert!(depth < 64);
        let st = p.state(s);
        let mut ex = Vec::new();
        let mut adv = Vec::new();
        for op in &st.ops {
            match op {
                ParserOp::Extract {
                    header,
                    bits,
                    origin,
                    ..
                } => ex.push((header.clone(), *bits, *origin)),
                ParserOp::Advance { bits, .. } => adv.push(*bits),
                _ => {}
            }
        }
        let mut acc = acc;
        if !ex.is_empty() || !adv.is_empty() {
            acc.push((ex, adv));
        }
        for t in st.transition.targets() {
            match t {
                Target::Accept => out.push(acc.clone()),
                Target::Reject => {}
                Target::State(n) => walk(p, n, acc.clone(), out, depth + 1),
            }
        }
    }
    let mut out = Vec::new();
    walk(p, p.start, Vec::new(), &mut out, 0);
    out.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    out
}

#[test]
fn tna_port_metadata_sub_parser_matches_the_flat_parser() {
    let with_sub = load(&format!("{TNA_HEAD}{TNA_WITH_SUB}{TNA_TAIL}"));
    let flat = load(&format!("{TNA_HEAD}{TNA_FLAT}{TNA_TAIL}"));
    no_unfollowed(&with_sub);
    let prog = &with_sub.program;
    let p = prog.parser(prog.ingress_parser().expect("ingress parser"));
    // The first states of every path: the 8-byte metadata extract, then the
    // 64-bit port-metadata skip.
    assert_eq!(direct(p, state(p, "start")), "port_meta.start");
    let md = state(p, "port_meta.start");
    match &md.ops[0] {
        ParserOp::Extract {
            header,
            bits,
            origin,
            ..
        } => {
            assert_eq!(header, "ig_intr_md");
            assert_eq!(*bits, 64);
            assert_eq!(*origin, Origin::Architecture);
        }
        o => panic!("{o:?}"),
    }
    let skip = state(p, "port_meta.parse_port_metadata");
    assert!(matches!(
        skip.ops[0],
        ParserOp::Advance { bits: Some(64), .. }
    ));
    assert_eq!(direct(p, skip), "start.after_port_meta");
    assert_eq!(
        direct(p, state(p, "start.after_port_meta")),
        "parse_ethernet"
    );
    // Same paths, same extracting states with the same bits as the parser
    // written without the sub-parser: eth / eth+ipv4 / eth+ipv4+udp.
    let fp = flat
        .program
        .parser(flat.program.ingress_parser().expect("ingress parser"));
    let a = costs(p);
    assert_eq!(a.len(), 3);
    assert_eq!(a, costs(fp));
    let udp_path = a.iter().find(|c| c.len() == 5).expect("udp path");
    assert_eq!(udp_path[0].0[0].1, 64);
    assert_eq!(udp_path[1].1, vec![Some(64)]);
    assert_eq!(udp_path[4].0[0].0, "hdr.udp");
}

// ---- Controls applied by their type name.

const DIRECT_CONTROL: &str = r#"
#include <core.p4>
header eth_h { bit<48> dst; bit<48> src; bit<16> etype; }
struct headers_t { eth_h eth; }
control table0_control(inout headers_t hdr) {
    action drop() { hdr.eth.etype = 0; }
    @name(".table0") table table0_0 { key = { hdr.eth.dst : exact; } actions = { drop; NoAction; } }
    apply { table0_0.apply(); }
}
control wrapper_t(inout headers_t hdr);
control Other(inout headers_t hdr)(wrapper_t w) {
    apply { w.apply(hdr); }
}
control Ingress(inout headers_t hdr) {
    apply {
        table0_control.apply(hdr);
    }
}
"#;

#[test]
fn a_control_applied_by_its_type_name_is_inlined() {
    let l = load(DIRECT_CONTROL);
    let prog = &l.program;
    let c = prog
        .controls
        .iter()
        .find(|c| c.name == "Ingress")
        .expect("Ingress");
    let tables: Vec<&str> = c
        .flow
        .nodes
        .iter()
        .filter_map(|n| match &n.kind {
            NodeKind::Table { table, .. } => Some(prog.table(*table).name.as_str()),
            _ => None,
        })
        .collect();
    // `@name(".table0")` is the table's global name, as p4c names it.
    assert_eq!(tables, ["table0"]);
    // The entry is that table.
    let entry = c.flow.entry.expect("entry");
    assert!(matches!(
        c.flow.nodes[entry.index()].kind,
        NodeKind::Table { .. }
    ));
    // A control parameter's apply cannot be followed: a warning, not silence.
    assert!(
        l.warnings
            .iter()
            .any(|w| w.message.contains("`w.apply()` is not followed")),
        "{:?}",
        l.warnings
    );
}

#[test]
fn a_global_name_annotation_names_the_table_and_is_kept() {
    let l = load(DIRECT_CONTROL);
    let t = l
        .program
        .tables
        .iter()
        .find(|t| t.name == "table0")
        .expect("global @name");
    let ann = t
        .annotations
        .iter()
        .find(|a| a.name == "name")
        .expect("@name kept");
    assert!(ann.body.contains(".table0"), "{:?}", ann.body);
}

#[test]
fn a_stack_element_argument_is_that_element_of_the_callers_stack() {
    // Like p4c's inline-parser sample: the same sub-parser fills h[0], then
    // h[1] (through a nested call for the second one).
    let src = r#"
#include <core.p4>
header e_h { bit<32> v; }
parser One(packet_in p, out e_h h) {
    state start { p.extract(h); transition accept; }
}
parser Fwd(packet_in p, out e_h x) {
    One() one;
    state start { one.apply(p, x); transition accept; }
}
parser Top(packet_in p, out e_h[2] h) {
    One() one;
    Fwd() fwd;
    state start {
        one.apply(p, h[0]);
        fwd.apply(p, h[1]);
        transition accept;
    }
}
"#;
    let l = load(src);
    no_unfollowed(&l);
    let p = parser(&l, "Top");
    let ex = extracts(p);
    assert_eq!(ex.len(), 2, "{ex:?}");
    assert_eq!(ex[0].0, "one.start");
    assert_eq!(ex[1].0, "fwd.one.start");
    for (e, i) in ex.iter().zip([0u32, 1]) {
        // The headers parameter `h` is shown as `hdr` (canonical naming).
        assert_eq!(e.1, "hdr");
        assert_eq!(e.3, Some(StackAccess::Index(i)));
        let inst = e.2.expect("instance");
        assert_eq!(l.program.header(inst).name, "h");
        assert_eq!(l.program.header(inst).stack_size, Some(2));
    }
    assert_eq!(ex[0].2, ex[1].2);
    assert_eq!(paths(&l.program, p), seqs(&[&["hdr[0]", "hdr[1]"]]));
}
