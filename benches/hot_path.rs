//! The hot path on the largest bundled sample: front end (preprocess,
//! parse, lower), all parse paths, and a prediction for each path.

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};

use p4cost_analysis::{control_tables, parse_paths, PathOptions};
use p4cost_model::{model_by_name, tofino_linear};

fn predict_all(file: &Path) -> f64 {
    let loaded =
        p4cost_front::load_file(file, &p4cost_front::Options::default()).expect("sample loads");
    let p = &loaded.program;
    let parser = p.ingress_parser().expect("ingress parser");
    let paths =
        parse_paths(p, parser, &PathOptions::default()).expect("within the analysis budget");
    let tables = p
        .ingress_control()
        .map(|c| control_tables(p, c))
        .unwrap_or_default();
    let model = model_by_name("tofino1-10g").expect("model");
    paths
        .paths
        .iter()
        .map(|path| {
            tofino_linear::predict(
                &model,
                &tofino_linear::Inputs {
                    program: p,
                    path,
                    tables: &tables,
                    packet_size: 512,
                },
            )
            .latency_ns
        })
        .sum()
}

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let router = root.join("p4-samples/tofino/realistic/l3_router.p4");
    c.bench_function("hot_path/l3_router", |b| b.iter(|| predict_all(&router)));
    let small = root.join("p4-samples/tofino/tc2_datacenter.p4");
    c.bench_function("hot_path/tc2_datacenter", |b| {
        b.iter(|| predict_all(&small))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
