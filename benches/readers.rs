//! Compiler-output readers on the largest real fixtures: the 1.5 MB BMv2
//! switch JSON and the 15 MB Tofino switch context.json, read and
//! analysed.

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};

use p4cost_analysis::{parse_paths, PathOptions};

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let switch =
        std::fs::read_to_string(root.join("tests/fixtures/bmv2/p4pktgen__switch-p416.json"))
            .expect("fixture");
    let mut g = c.benchmark_group("readers");
    g.sample_size(20);
    g.bench_function("bmv2/switch-p416 read+paths", |b| {
        b.iter(|| {
            let p = p4cost_bmv2::read(&switch, "switch-p416.json").expect("reads");
            let parser = p.ingress_parser().expect("parser");
            parse_paths(&p, parser, &PathOptions::default())
                .expect("within the analysis budget")
                .count
        })
    });
    let ctx = std::fs::read_to_string(
        root.join("tests/fixtures/tofino/compiled/switch_tofino_x1/context.json"),
    )
    .expect("fixture");
    let mau = p4cost_model::model_by_name("tofino1-mau-cycles").expect("embedded model");
    g.bench_function("tofino/switch_tofino_x1 read+stages", |b| {
        b.iter(|| {
            let p = p4cost_tofino::read_context(&ctx, "context.json").expect("reads");
            p4cost_model::mau_cycles::predict(&mau, &p, None).map(|m| m.gresses.len())
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
