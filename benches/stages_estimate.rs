//! Stage placement from the source: a generated TNA program with `chains`
//! independent chains of match-dependent tables (each table keys on the
//! field the previous one sets, under a validity gateway), run through
//! `load_source` alone and through `load_source` + dependency graph +
//! placement + cycles (the `tofino1-mau-estimate` model). The ratio of the
//! two is what `p4cost stages prog.p4` adds to parsing; the dependency
//! graph alone is also timed on two sizes to show it grows linearly.

use std::fmt::Write;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

/// `chains` chains of `depth` tables; every table has an exact key, two
/// actions and a gateway on a header's validity.
fn program(chains: usize, depth: usize) -> String {
    let mut s = String::new();
    s.push_str("#include <core.p4>\n#include <tna.p4>\n\n");
    s.push_str("header eth_h { bit<48> dst; bit<48> src; bit<16> ty; }\n");
    s.push_str("struct header_t { eth_h eth; }\nstruct md_t {\n");
    for c in 0..chains {
        for d in 0..=depth {
            let _ = writeln!(s, "    bit<16> c{c}_{d};");
        }
    }
    s.push_str("}\nstruct emd_t {}\n");
    s.push_str(
        "parser IP(packet_in pkt, out header_t hdr, out md_t md, out ingress_intrinsic_metadata_t ig) {
    state start { pkt.extract(ig); pkt.advance(PORT_METADATA_SIZE); pkt.extract(hdr.eth); transition accept; }
}
control Ig(inout header_t hdr, inout md_t md, in ingress_intrinsic_metadata_t ig,
           in ingress_intrinsic_metadata_from_parser_t pr,
           inout ingress_intrinsic_metadata_for_deparser_t dp,
           inout ingress_intrinsic_metadata_for_tm_t tm) {
",
    );
    for c in 0..chains {
        for d in 0..depth {
            let _ = writeln!(
                s,
                "    action a{c}_{d}(bit<16> v) {{ md.c{c}_{n} = v; }}
    table t{c}_{d} {{
        key = {{ md.c{c}_{d} : exact; hdr.eth.ty : exact; }}
        actions = {{ a{c}_{d}; NoAction; }}
        const default_action = NoAction;
        size = 1024;
    }}",
                n = d + 1
            );
        }
    }
    s.push_str("    apply {\n");
    for c in 0..chains {
        for d in 0..depth {
            let _ = writeln!(s, "        if (hdr.eth.isValid()) {{ t{c}_{d}.apply(); }}");
        }
    }
    s.push_str("    }\n}\n");
    s.push_str(
        "control ID(packet_out pkt, inout header_t hdr, in md_t md, in ingress_intrinsic_metadata_for_deparser_t dp) { apply { pkt.emit(hdr); } }
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

fn load(src: &str) -> p4cost_ir::Program {
    p4cost_front::load_source("gen.p4", src, &p4cost_front::Options::default())
        .expect("the generated program lowers")
        .program
}

fn estimate(program: &p4cost_ir::Program, model: &p4cost_model::ModelSpec) -> u32 {
    let pipe = &program.analysed_pipelines()[0];
    let controls = pipe.gress_controls();
    let (_, placement) = p4cost_model::mau_estimate::estimate(
        model,
        program,
        &controls,
        &p4cost_analysis::DepLimits::default(),
    )
    .expect("the generated program fits");
    p4cost_model::mau_cycles::predict_with(model, program, &placement, None)
        .expect("cycles")
        .gresses[0]
        .cycles
}

fn bench(c: &mut Criterion) {
    let model = p4cost_model::model_by_name("tofino1-mau-estimate").expect("embedded model");
    let mut g = c.benchmark_group("stages_estimate");
    g.sample_size(10);
    // 12 chains of 9 tables: 108 tables, 108 gateways, 9 match-dependent
    // stages, within the 16 logical tables of a stage.
    let src = program(12, 9);
    let p = load(&src);
    assert_eq!(p.tables.len(), 108);
    assert!(estimate(&p, &model) > 0);
    g.throughput(Throughput::Bytes(src.len() as u64));
    g.bench_with_input(
        BenchmarkId::new("load_source", "108 tables"),
        &src,
        |b, s| b.iter(|| load(s).tables.len()),
    );
    g.bench_with_input(
        BenchmarkId::new("load_source+estimate", "108 tables"),
        &src,
        |b, s| b.iter(|| estimate(&load(s), &model)),
    );
    // The dependency graph alone, on programs too big for 12 stages.
    for chains in [50usize, 100] {
        let src = program(chains, 9);
        let p = load(&src);
        let ig = p.analysed_pipelines()[0].ingress.expect("ingress");
        g.throughput(Throughput::Elements((chains * 9) as u64));
        g.bench_with_input(
            BenchmarkId::new("dependency_graph", format!("{} tables", chains * 9)),
            &p,
            |b, p| {
                b.iter(|| {
                    p4cost_analysis::deps::dependency_graph(
                        p,
                        ig,
                        &p4cost_analysis::DepLimits::default(),
                    )
                    .map(|d| d.edges.len())
                })
            },
        );
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
