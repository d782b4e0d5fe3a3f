//! Packet classes (issue 9) on a parser with more than 2^64 paths: 70
//! diamonds, each extracting `hdr.a` or `hdr.b`, before a control that
//! branches on both headers' validity and on a table's hit or miss. The
//! classes are counted exactly and the fastest and slowest found by
//! dynamic programs; the time must stay in milliseconds.

use std::fmt::Write;

use criterion::{criterion_group, criterion_main, Criterion};

fn program(diamonds: usize) -> String {
    let mut s = String::from(
        "#include <core.p4>\n#include <tna.p4>\n
header a_h { bit<8> k; }
header b_h { bit<8> k; }
header e_h { bit<8> k; }
struct header_t { e_h e; a_h a; b_h b; }
struct md_t { bit<8> x; }
struct emd_t {}
parser IP(packet_in pkt, out header_t hdr, out md_t md, out ingress_intrinsic_metadata_t ig) {
    state start { pkt.extract(ig); pkt.advance(PORT_METADATA_SIZE); pkt.extract(hdr.e); transition s0; }
",
    );
    for i in 0..diamonds {
        let next = if i + 1 == diamonds {
            "accept".to_string()
        } else {
            format!("s{}", i + 1)
        };
        let _ = writeln!(
            s,
            "    state s{i} {{ transition select(hdr.e.k) {{ {i}: a{i}; default: b{i}; }} }}
    state a{i} {{ pkt.extract(hdr.a); transition {next}; }}
    state b{i} {{ pkt.extract(hdr.b); transition {next}; }}"
        );
    }
    s.push_str(
        "}
control Ig(inout header_t hdr, inout md_t md, in ingress_intrinsic_metadata_t ig,
           in ingress_intrinsic_metadata_from_parser_t pr,
           inout ingress_intrinsic_metadata_for_deparser_t dp,
           inout ingress_intrinsic_metadata_for_tm_t tm) {
    action set(bit<8> v) { md.x = v; }
    table ta { key = { hdr.a.k : exact; } actions = { set; NoAction; } }
    table tb { key = { hdr.b.k : exact; } actions = { set; NoAction; } }
    table acl { key = { md.x : exact; } actions = { set; NoAction; } }
    table fallback { key = { hdr.e.k : exact; } actions = { set; NoAction; } }
    apply {
        if (hdr.a.isValid()) { ta.apply(); }
        if (hdr.b.isValid() && !hdr.a.isValid()) { tb.apply(); }
        if (!acl.apply().hit) { fallback.apply(); }
    }
}
control ID(packet_out pkt, inout header_t hdr, in md_t md, in ingress_intrinsic_metadata_for_deparser_t dp) { apply { pkt.emit(hdr); } }
parser EP(packet_in pkt, out header_t hdr, out emd_t md, out egress_intrinsic_metadata_t eg) { state start { pkt.extract(eg); transition accept; } }
control Eg(inout header_t hdr, inout emd_t md, in egress_intrinsic_metadata_t eg,
           in egress_intrinsic_metadata_from_parser_t pr,
           inout egress_intrinsic_metadata_for_deparser_t dp,
           inout egress_intrinsic_metadata_for_output_port_t op) { apply { } }
control ED(packet_out pkt, inout header_t hdr, in emd_t md, in egress_intrinsic_metadata_for_deparser_t dp) { apply { pkt.emit(hdr); } }
Pipeline(IP(), Ig(), ID(), EP(), Eg(), ED()) pipe;
Switch(pipe) main;
",
    );
    s
}

fn bench(c: &mut Criterion) {
    let src = program(70);
    let program = p4cost_front::load_source("gen.p4", &src, &p4cost_front::Options::default())
        .expect("the generated program lowers")
        .program;
    let pipe = &program.analysed_pipelines()[0];
    let parser = program.parser(pipe.ingress_parser.expect("parser"));
    let control = pipe.ingress.expect("control");
    let mut warnings = Vec::new();
    let pg = p4cost_analysis::path_graph(
        &program,
        parser,
        &p4cost_analysis::PathOptions::default(),
        &mut warnings,
    )
    .expect("graph");
    let parse_w = vec![1.0; pg.len()];
    let table_w = vec![1.0; program.tables.len()];
    let classes = |pg: &p4cost_analysis::PathGraph<'_>| {
        p4cost_analysis::packet_classes(
            &program,
            control,
            pg,
            &parse_w,
            &table_w,
            &p4cost_analysis::ClassBudget::default(),
        )
        .expect("classes")
    };
    let s = classes(&pg);
    // 2^70 parse paths; every path has hdr.a or hdr.b or both, and the
    // acl's hit or miss doubles them.
    assert!(s.parse_paths.value >= 1u128 << 70, "{:?}", s.parse_paths);
    assert!(s.classes.value > s.parse_paths.value);
    let mut g = c.benchmark_group("classes");
    g.sample_size(20);
    g.bench_function("2^70 parse paths x hit/miss", |b| {
        b.iter(|| classes(&pg).classes)
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
