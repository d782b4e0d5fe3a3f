//! Fitting 10,000 measured rows (issue 11: "well under a second"): parsing
//! the CSV and the least-squares fit, reported per row (rows/s) and as MB/s
//! of measurement file; then the PLP fit (two parts, each cross-validated
//! over components and penalties) and the component fit (every family,
//! held out point by point, breakpoints) on the same rows.

use std::fmt::Write;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// 10,000 rows shaped like a `gen` manifest: packet sizes, parser chains
/// and tables of every class, latency from a known linear function with a
/// deterministic wobble.
fn data(rows: usize) -> String {
    let mut s = String::from("program,port_gbps,packet_size,state_bytes,tables,latency_ns\n");
    let tables = [
        "",
        "exact:8:100",
        "exact:32:100",
        "lpm:16+8:100",
        "ternary:32:100",
    ];
    for i in 0..rows {
        let p = 100 + (i * 37) % 1300;
        let n = i % 11;
        let h = [2, 5, 10, 20][(i / 11) % 4];
        let t = tables[(i / 44) % tables.len()];
        let reps = 1 + (i / 220) % 10;
        let tl = if t.is_empty() {
            String::new()
        } else {
            vec![t; reps].join(";")
        };
        let sb = vec![h.to_string(); n].join("+");
        let l = 0.05 * p as f64
            + 143.0
            + n as f64 * (0.1 * h as f64 + 1.4)
            + if t.is_empty() { 0.0 } else { 0.7 * reps as f64 }
            + ((i * 7919) % 100) as f64 * 0.002;
        let _ = writeln!(s, "programs/x{i}.p4,100,{p},{sb},{tl},{l:.3}");
    }
    s
}

fn fit(c: &mut Criterion) {
    let text = data(10_000);
    let naming = p4cost_calibrate::lr::Naming {
        name: "bench".into(),
        target: "tofino1".into(),
        data: "bench.csv".into(),
    };
    let mut g = c.benchmark_group("fit_lr_10k_rows");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("parse_and_fit", |b| {
        b.iter(|| {
            let m = p4cost_calibrate::data::parse("bench.csv", &text).unwrap();
            p4cost_calibrate::lr::fit(&m, None, 16, &naming).unwrap()
        })
    });
    let m = p4cost_calibrate::data::parse("bench.csv", &text).unwrap();
    g.throughput(Throughput::Elements(m.rows.len() as u64));
    g.bench_function("fit_only", |b| {
        b.iter(|| p4cost_calibrate::lr::fit(&m, None, 16, &naming).unwrap())
    });
    g.finish();

    let mut g = c.benchmark_group("fit_nonlinear_10k_rows");
    g.sample_size(10);
    g.throughput(Throughput::Elements(m.rows.len() as u64));
    g.bench_function("plp", |b| {
        b.iter(|| p4cost_calibrate::plp::fit(&m, None, &naming, &Default::default()).unwrap())
    });
    g.bench_function("component", |b| {
        b.iter(|| p4cost_calibrate::component::fit(&m, None, &naming).unwrap())
    });
    g.finish();
}

criterion_group!(benches, fit);
criterion_main!(benches);
