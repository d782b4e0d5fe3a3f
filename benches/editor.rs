//! What the language server does on each keystroke, on a generated
//! v1model program of about 6,000 lines (the size the editor must keep up
//! with): the unsaved buffer lowered through the editor's overlay, then
//! `ide::facts` (every parse state's and table's term, the totals over all
//! packet classes with their median, the warnings). Reported in MB/s of
//! buffer; the program has the shapes of a real switch: a parser with
//! VLAN and MPLS stacks and tunnels, and hundreds of tables applied under
//! validity tests and hit/miss branches.
//!
//! Then a one-line edit of two real programs, switch_p4_16.p4 (a table's
//! size, and a comment that moves every later declaration) and
//! fabric_tna.p4 (`-DWITH_INT`), as the worker does it: loaded through the
//! document's `Reuse` (the last parse's declarations taken back), then
//! `ide::facts` with the document's class memo; each iteration is an edit
//! (a table's size, a control's application, alternately changed and put
//! back, so after the first two the class figures of both texts are in
//! the memo: the rows time an edit that changes no class input), next to
//! the same edit loaded cold, without the memo.

use std::fmt::Write;
use std::path::PathBuf;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

use p4cost_engine::overlay::Overlay;
use p4cost_engine::{ide, input, PredictOptions, Session};

/// Header types, each with the fields tables match on.
const HEADERS: &[(&str, &str)] = &[
    ("ethernet", "bit<48> dst; bit<48> src; bit<16> ether_type;"),
    ("vlan", "bit<3> pcp; bit<1> cfi; bit<12> vid; bit<16> ether_type;"),
    ("mpls", "bit<20> label; bit<3> tc; bit<1> bos; bit<8> ttl;"),
    (
        "ipv4",
        "bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> total_len; bit<16> id; \
         bit<3> flags; bit<13> frag; bit<8> ttl; bit<8> protocol; bit<16> csum; \
         bit<32> src; bit<32> dst;",
    ),
    (
        "ipv6",
        "bit<4> version; bit<8> tc; bit<20> flow; bit<16> len; bit<8> next_hdr; \
         bit<8> hop_limit; bit<128> src; bit<128> dst;",
    ),
    ("tcp", "bit<16> sport; bit<16> dport; bit<32> seq; bit<32> ack; bit<16> flags; bit<16> window; bit<16> csum; bit<16> urg;"),
    ("udp", "bit<16> sport; bit<16> dport; bit<16> len; bit<16> csum;"),
    ("vxlan", "bit<8> flags; bit<24> reserved; bit<24> vni; bit<8> reserved2;"),
];

/// The keyed fields tables pick from, by header.
const KEYS: &[(&str, &str, u32)] = &[
    ("ethernet", "dst", 48),
    ("ethernet", "src", 48),
    ("ipv4", "dst", 32),
    ("ipv4", "src", 32),
    ("ipv6", "dst", 128),
    ("tcp", "dport", 16),
    ("udp", "dport", 16),
    ("vxlan", "vni", 24),
];

fn program(tables: usize) -> String {
    let mut s = String::from("#include <core.p4>\n#include <v1model.p4>\n\n");
    for (name, fields) in HEADERS {
        let _ = writeln!(s, "header {name}_t {{\n    {fields}\n}}\n");
    }
    s.push_str(
        "struct headers_t {
    ethernet_t ethernet;
    vlan_t[2] vlan;
    mpls_t[3] mpls;
    ipv4_t ipv4;
    ipv6_t ipv6;
    tcp_t tcp;
    udp_t udp;
    vxlan_t vxlan;
    ethernet_t inner_ethernet;
    ipv4_t inner_ipv4;
}

struct meta_t {
    bit<16> vrf;
    bit<16> nexthop;
    bit<8> tunnel;
    bit<1> routed;
    bit<1> dropped;
}

parser Prs(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.ethernet); transition select(hdr.ethernet.ether_type) {
        0x8100: parse_vlan; 0x8847: parse_mpls; 0x0800: parse_ipv4; 0x86dd: parse_ipv6; default: accept; } }
    state parse_vlan { pkt.extract(hdr.vlan.next); transition select(hdr.vlan.last.ether_type) {
        0x8100: parse_vlan; 0x8847: parse_mpls; 0x0800: parse_ipv4; 0x86dd: parse_ipv6; default: accept; } }
    state parse_mpls { pkt.extract(hdr.mpls.next); transition select(hdr.mpls.last.bos) {
        0: parse_mpls; 1: parse_mpls_payload; } }
    state parse_mpls_payload { transition select(pkt.lookahead<bit<4>>()) {
        4: parse_ipv4; 6: parse_ipv6; default: accept; } }
    state parse_ipv4 { pkt.extract(hdr.ipv4); transition select(hdr.ipv4.protocol) {
        6: parse_tcp; 17: parse_udp; default: accept; } }
    state parse_ipv6 { pkt.extract(hdr.ipv6); transition select(hdr.ipv6.next_hdr) {
        6: parse_tcp; 17: parse_udp; default: accept; } }
    state parse_tcp { pkt.extract(hdr.tcp); transition accept; }
    state parse_udp { pkt.extract(hdr.udp); transition select(hdr.udp.dport) {
        4789: parse_vxlan; default: accept; } }
    state parse_vxlan { pkt.extract(hdr.vxlan); transition parse_inner_ethernet; }
    state parse_inner_ethernet { pkt.extract(hdr.inner_ethernet); transition select(hdr.inner_ethernet.ether_type) {
        0x0800: parse_inner_ipv4; default: accept; } }
    state parse_inner_ipv4 { pkt.extract(hdr.inner_ipv4); transition accept; }
}

control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }

",
    );
    control(&mut s, "Ing", tables);
    control(&mut s, "Egr", tables / 2);
    s.push_str(
        "control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(Prs(), Vck(), Ing(), Egr(), Cck(), Dep()) main;
",
    );
    s
}

/// A control with `n` tables, each with its actions, applied in groups
/// under a validity test, some on a miss of the one before.
fn control(s: &mut String, name: &str, n: usize) {
    let _ = writeln!(
        s,
        "control {name}(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{"
    );
    for i in 0..n {
        let (h, f, _) = KEYS[i % KEYS.len()];
        let _ = writeln!(
            s,
            "    action set_{i}(bit<16> v, bit<9> port) {{
        meta.nexthop = v;
        sm.egress_spec = port;
    }}
    action mark_{i}() {{
        meta.routed = 1;
    }}
    action drop_{i}() {{
        meta.dropped = 1;
        mark_to_drop(sm);
    }}
    table t{i} {{
        key = {{
            hdr.{h}.{f} : {kind};
            meta.vrf : exact;
        }}
        actions = {{
            set_{i};
            mark_{i};
            drop_{i};
            NoAction;
        }}
        size = {size};
        default_action = NoAction();
    }}
",
            kind = if i % 3 == 0 { "lpm" } else { "exact" },
            size = 1024 + 256 * (i % 7),
        );
    }
    s.push_str("    apply {\n");
    for i in 0..n {
        let (h, _, _) = KEYS[i % KEYS.len()];
        if i % 4 == 1 {
            let _ = writeln!(s, "        if (!t{}.apply().hit) {{", i - 1);
            let _ = writeln!(s, "            t{i}.apply();\n        }}");
        } else if i % 4 != 0 {
            let _ = writeln!(
                s,
                "        if (hdr.{h}.isValid()) {{\n            t{i}.apply();\n        }}"
            );
        } else if i + 1 >= n || (i + 1) % 4 != 1 {
            let _ = writeln!(s, "        t{i}.apply();");
        }
    }
    s.push_str("    }\n}\n\n");
}

fn bench(c: &mut Criterion) {
    let text = program(140);
    let lines = text.lines().count();
    assert!(
        (5_000..8_000).contains(&lines),
        "about 6,000 lines: {lines}"
    );
    let path = PathBuf::from("bench_editor.p4");
    let o = PredictOptions::new(&path);
    let mut overlay = Overlay::new();
    overlay.set(path.clone(), Arc::from(text.as_str()));
    let keystroke = |text: &str| {
        let mut session = Session::new();
        let loaded = input::load_text(&path, text.to_string(), &o.source, &overlay);
        session.preload(&o, loaded);
        ide::facts(&mut session, &o, &[])
    };
    let f = keystroke(&text);
    assert!(f.error.is_none(), "{:?}", f.error);
    assert!(
        f.tables.len() >= 140,
        "every ingress table: {}",
        f.tables.len()
    );
    assert!(f.states.len() >= 10, "{} states", f.states.len());
    assert!(
        f.totals.iter().any(|t| t.text.contains("median")),
        "the totals have their median: {:?}",
        f.totals
    );
    let mut g = c.benchmark_group("editor");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function(format!("keystroke on a {lines}-line program"), |b| {
        b.iter(|| keystroke(&text).tables.len())
    });
    g.finish();
}

/// The texts a bench alternates between: `text` and `text` with its
/// first line holding `from` changed to hold `to`.
fn edited(text: &str, from: &str, to: &str) -> String {
    let at = text.find(from).expect("the line to edit");
    format!("{}{to}{}", &text[..at], &text[at + from.len()..])
}

/// One real program's edit, reusing and cold.
fn real_edit(c: &mut Criterion, name: &str, o: &PredictOptions, from: &str, to: &str) {
    let text = std::fs::read_to_string(&o.file).expect("fixture");
    let texts = [edited(&text, from, to), text];
    let mut overlay = Overlay::new();
    let mut reuse = input::Reuse::new();
    // The worker's per-document class memo, for the reusing rows.
    let mut kept = o.clone();
    kept.class_memo = p4cost_engine::class_memo::ClassMemo::new();
    let mut k = 0;
    let mut edit = |overlay: &mut Overlay, reuse: Option<&mut input::Reuse>| {
        k += 1;
        let t = &texts[k % 2];
        overlay.set(o.file.clone(), Arc::from(t.as_str()));
        let (o, loaded) = match reuse {
            Some(r) => (
                &kept,
                input::load_text_reusing(&o.file, t.clone(), &o.source, &*overlay, r),
            ),
            None => (
                o,
                input::load_text(&o.file, t.clone(), &o.source, &*overlay),
            ),
        };
        let mut session = Session::new();
        session.preload(o, loaded);
        ide::facts(&mut session, o, &[])
    };
    let f = edit(&mut overlay, Some(&mut reuse));
    assert!(f.error.is_none(), "{name}: {:?}", f.error);
    let mut g = c.benchmark_group("editor");
    g.sample_size(10);
    g.bench_function(format!("one-line edit of {name}, reusing"), |b| {
        b.iter(|| edit(&mut overlay, Some(&mut reuse)).tables.len())
    });
    g.bench_function(format!("one-line edit of {name}, cold"), |b| {
        b.iter(|| edit(&mut overlay, None).tables.len())
    });
    g.finish();
}

fn real(c: &mut Criterion) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let o = PredictOptions::new(root.join("programs/switch_p4_16.p4"));
    real_edit(c, "switch_p4_16.p4", &o, "size = 1024;", "size = 4096;");
    // A comment typed: the text grows, every later declaration moves.
    real_edit(
        c,
        "switch_p4_16.p4 (a comment, the rest moved)",
        &o,
        "size = 1024;",
        "size = 1024; // reviewed",
    );
    let tna = root.join("fabric-tna/p4src");
    let mut o = PredictOptions::new(tna.join("tna/fabric_tna.p4"));
    o.source.include_dirs = vec![tna];
    o.source.defines = vec![("WITH_INT".to_string(), None)];
    real_edit(
        c,
        "fabric_tna.p4",
        &o,
        "hasher.apply(hdr, fabric_md);",
        "// hasher.apply(hdr, fabric_md);",
    );
}

criterion_group!(benches, bench, real);
criterion_main!(benches);
