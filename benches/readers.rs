//! Compiler-output readers on the largest real fixtures: the 1.5 MB BMv2
//! switch JSONs and the 15 MB Tofino switch context.json, read and
//! analysed. `bmv2/switch_p4_16` is issue 26's target (read and predicted
//! under 50 ms): its `read` and `read+predict` report MB/s of JSON.

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

use p4cost_analysis::{parse_paths, PathOptions};
use p4cost_engine::{predict, PredictOptions};

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
    switch_p4_16(c, root);
}

/// p4c's BMv2 JSON of switch_p4_16: the reader alone (text to program),
/// and `p4cost predict FILE`'s reports from the file.
fn switch_p4_16(c: &mut Criterion, root: &Path) {
    let path = root.join("tests/fixtures/bmv2/switch_p4_16.json");
    let text = std::fs::read_to_string(&path).expect("fixture");
    let o = PredictOptions::new(&path);
    assert!(!predict::reports(&o).expect("predicts").is_empty());
    let mut g = c.benchmark_group("readers");
    g.sample_size(20);
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("bmv2/switch_p4_16 read", |b| {
        b.iter(|| {
            p4cost_bmv2::read(&text, "switch_p4_16.json")
                .expect("reads")
                .tables
                .len()
        })
    });
    g.bench_function("bmv2/switch_p4_16 read+predict", |b| {
        b.iter(|| predict::reports(&o).map(|r| r.len()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
