//! Front-end throughput: a large generated v1model program (headers,
//! parser states, actions, tables and controls, 10k+ lines) run through
//! `p4cost_front::load_source` (preprocess, parse, lower).  Reported in
//! bytes per second; two sizes (about 0.6 and 5.0 MB) show whether the
//! cost is linear.  The loaded program is dropped outside the timing.
//! p4c's `switch_p4_16.p4` is measured too when a p4c checkout is found
//! (`P4C_DIR`, default `/work/ext/p4c`).

use std::fmt::Write;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

/// A v1model program with `units` repetitions of: a header type, a parser
/// state extracting it, two actions, a table keyed on its fields, and a
/// sub-control applying the table under conditions.  About 40 lines per
/// unit.
fn program(units: usize) -> String {
    let mut s = String::new();
    s.push_str("#include <core.p4>\n#include <v1model.p4>\n\n");
    for i in 0..units {
        let _ = writeln!(
            s,
            "header h{i}_t {{\n    bit<8> kind;\n    bit<16> port;\n    bit<32> addr;\n    bit<8> ttl;\n}}"
        );
    }
    s.push_str("struct headers_t {\n");
    for i in 0..units {
        let _ = writeln!(s, "    h{i}_t h{i};");
    }
    s.push_str("}\nstruct meta_t {\n    bit<32> acc;\n    bit<16> port;\n}\n\n");
    s.push_str(
        "parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {\n",
    );
    s.push_str("    state start {\n        transition parse_h0;\n    }\n");
    for i in 0..units {
        let next = if i + 1 < units {
            format!("parse_h{}", i + 1)
        } else {
            "accept".to_string()
        };
        let _ = writeln!(
            s,
            "    state parse_h{i} {{\n        pkt.extract(hdr.h{i});\n        m.acc = m.acc + (bit<32>)hdr.h{i}.ttl;\n        transition select(hdr.h{i}.kind) {{\n            8w{k}: {next};\n            8w0xFF &&& 8w0x0F: reject;\n            default: accept;\n        }}\n    }}",
            k = i % 256
        );
    }
    s.push_str("}\n\n");
    for i in 0..units {
        let _ = writeln!(
            s,
            "control C{i}(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{
    action fwd{i}(bit<9> port, bit<32> addr) {{
        sm.egress_spec = port;
        hdr.h{i}.addr = addr;
        hdr.h{i}.ttl = hdr.h{i}.ttl - 1;
    }}
    action drop{i}() {{
        mark_to_drop(sm);
    }}
    table t{i} {{
        key = {{
            hdr.h{i}.addr : lpm;
            hdr.h{i}.port : exact;
            m.port : ternary;
        }}
        actions = {{ fwd{i}; drop{i}; NoAction; }}
        size = {size};
        default_action = NoAction();
    }}
    apply {{
        if (hdr.h{i}.isValid() && hdr.h{i}.ttl > 8w1) {{
            t{i}.apply();
        }} else {{
            m.acc = m.acc |+| 32w{i};
        }}
    }}
}}",
            size = 1024 + i
        );
    }
    s.push_str("control Ig(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {\n");
    for i in 0..units {
        let _ = writeln!(s, "    C{i}() c{i};");
    }
    s.push_str("    apply {\n");
    for i in 0..units {
        let _ = writeln!(s, "        c{i}.apply(hdr, m, sm);");
    }
    s.push_str("    }\n}\n");
    s.push_str(
        "control Eg(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control Vc(inout headers_t hdr, inout meta_t m) { apply { } }
control Cc(inout headers_t hdr, inout meta_t m) { apply { } }
control Dp(packet_out pkt, in headers_t hdr) {
    apply {
",
    );
    for i in 0..units {
        let _ = writeln!(s, "        pkt.emit(hdr.h{i});");
    }
    s.push_str("    }\n}\nV1Switch(P(), Vc(), Ig(), Eg(), Cc(), Dp()) main;\n");
    s
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("front_throughput");
    g.sample_size(10);
    for units in [500usize, 4300] {
        let src = program(units);
        let lines = src.lines().count();
        // Check once that the program really lowers: each `C{i}` has its
        // table, and `Ig`'s instance `c{i}` a copy of it.
        let loaded = p4cost_front::load_source("gen.p4", &src, &p4cost_front::Options::default())
            .expect("the generated program lowers");
        assert_eq!(loaded.program.tables.len(), 2 * units);
        bench_source(&mut g, &format!("{lines} lines"), "gen.p4", &src);
    }
    let p4c = std::env::var("P4C_DIR").unwrap_or_else(|_| "/work/ext/p4c".to_string());
    let switch = format!("{p4c}/testdata/p4_16_samples/switch_p4_16.p4");
    match std::fs::read_to_string(&switch) {
        Ok(src) => bench_source(&mut g, "switch_p4_16", &switch, &src),
        Err(e) => eprintln!("skipping switch_p4_16: {switch}: {e}"),
    }
    g.finish();
}

/// Measures `load_source` on `src` (named `name`) as bytes per second.
fn bench_source(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    id: &str,
    name: &str,
    src: &str,
) {
    g.throughput(Throughput::Bytes(src.len() as u64));
    // The loaded program is dropped outside the timed part: the front end's
    // job ends with it built, and its callers keep it (the language server)
    // or leave it to the process exit (the CLI, `process::leave`).
    g.bench_with_input(BenchmarkId::new("load_source", id), src, |b, src| {
        b.iter_with_large_drop(|| {
            p4cost_front::load_source(name, src, &p4cost_front::Options::default())
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
