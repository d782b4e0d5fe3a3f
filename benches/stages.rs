//! Each stage of `p4cost predict` alone, through the crates' public APIs,
//! on a small, a medium and a large real program (all in the repository):
//!
//! - small: `p4-samples/tofino/realistic/l3_router.p4` (TNA, 22 KB);
//! - medium: fabric-tna's `fabric_tna.p4` (TNA, default profile, 154 KB
//!   with its includes; `tests/fixtures/fabric-tna`);
//! - large: p4c's `switch_p4_16.p4` (v1model, 239 KB;
//!   `tests/fixtures/programs`).
//!
//! Stages: `preprocess` (`front::stages::preprocess_source`), `parse`
//! (`front::stages::parse`), `lower` (`front::stages::lower`), all three in
//! MB/s of preprocessed text; `paths` (the unrolled parse graph and its
//! path count), `classes` (packet classes of the ingress control joined to
//! the egress one, as `predict` walks them), `deps` (the table dependency
//! graph of ingress and egress), `placement` (the `tofino1-mau-estimate`
//! stage placement and cycles: TNA programs only, so not `switch_p4_16`),
//! `predict` (the engine's reports of the loaded program with the default
//! model: paths, classes, model, listing), `total` (file to reports, what
//! `p4cost predict FILE` computes) and `stages_command` (file to the
//! estimated placement, what `p4cost stages FILE` computes: TNA only). README "Performance" has the figures.

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};

use p4cost_engine::{input, predict, PredictOptions};
use p4cost_front::stages;

/// One program measured.
struct Input {
    /// `small`, `medium`, `large` with the program's name.
    label: String,
    path: PathBuf,
    text: String,
    front: p4cost_front::Options,
    /// A Tofino program: the stage estimate applies.
    tofino: bool,
}

fn inputs() -> Vec<Input> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fabric = root.join("tests/fixtures/fabric-tna/p4src");
    let one = |size: &str, rel: &str, include: Option<&Path>, tofino: bool| {
        let path = root.join(rel);
        let text = std::fs::read_to_string(&path).expect("the program is in the repository");
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned());
        let front = p4cost_front::Options {
            include_dirs: include.into_iter().map(Path::to_path_buf).collect(),
            ..Default::default()
        };
        Input {
            label: format!("{size} {}", name.unwrap_or_default()),
            path,
            text,
            front,
            tofino,
        }
    };
    vec![
        one(
            "small",
            "p4-samples/tofino/realistic/l3_router.p4",
            None,
            true,
        ),
        one(
            "medium",
            "tests/fixtures/fabric-tna/p4src/tna/fabric_tna.p4",
            Some(&fabric),
            true,
        ),
        one(
            "large",
            "tests/fixtures/programs/switch_p4_16.p4",
            None,
            false,
        ),
    ]
}

impl Input {
    fn name(&self) -> String {
        self.path.display().to_string()
    }

    fn preprocess(&self) -> p4cost_pp::Output {
        stages::preprocess_source(&self.name(), &self.text, &self.front).expect("preprocesses")
    }

    fn load(&self) -> p4cost_ir::Program {
        let out = self.preprocess();
        let parsed = stages::parse(&out).expect("parses");
        stages::lower(parsed, "bench", &self.front)
            .expect("lowers")
            .program
    }

    fn predict_options(&self) -> PredictOptions {
        let mut o = PredictOptions::new(&self.path);
        o.source.include_dirs = self.front.include_dirs.clone();
        o
    }
}

/// Preprocess, parse and lower, each alone, in MB/s of preprocessed text.
fn front(c: &mut Criterion, inputs: &[Input]) {
    let mut g = c.benchmark_group("stages");
    g.sample_size(10);
    for i in inputs {
        let out = i.preprocess();
        g.throughput(Throughput::Bytes(out.text.len() as u64));
        g.bench_function(BenchmarkId::new("preprocess", &i.label), |b| {
            b.iter(|| i.preprocess().text.len())
        });
        g.bench_function(BenchmarkId::new("parse", &i.label), |b| {
            b.iter(|| stages::parse(&out).expect("parses").tree().decls.len())
        });
        g.bench_function(BenchmarkId::new("lower", &i.label), |b| {
            b.iter_batched(
                || stages::parse(&out).expect("parses"),
                |parsed| {
                    stages::lower(parsed, "bench", &i.front)
                        .expect("lowers")
                        .program
                        .tables
                        .len()
                },
                BatchSize::PerIteration,
            )
        });
    }
    g.finish();
}

/// The parse graph and its path count.
fn paths(program: &p4cost_ir::Program) -> u128 {
    let pipe = &program.analysed_pipelines()[0];
    let parser = program.parser(pipe.ingress_parser.expect("an ingress parser"));
    let mut warnings = Vec::new();
    let opts = p4cost_analysis::PathOptions::default();
    p4cost_analysis::path_graph(program, parser, &opts, &mut warnings)
        .expect("within the analysis budget")
        .total()
        .value
}

/// `program` with the first pipeline's ingress joined to its egress, as
/// `predict` walks classes, and that control.
fn joined(program: &p4cost_ir::Program) -> (p4cost_ir::Program, p4cost_ir::ControlId) {
    let mut p = program.clone();
    let pipe = &p.analysed_pipelines()[0];
    match p4cost_analysis::join_egress(&p, pipe) {
        Some((control, _)) => {
            p.controls.push(control);
            let id = p4cost_ir::ControlId((p.controls.len() - 1) as u32);
            (p, id)
        }
        None => {
            let id = pipe.ingress.expect("an ingress control");
            (p, id)
        }
    }
}

/// The packet-class summary over the whole pipeline, unit weights.
fn classes(program: &p4cost_ir::Program, control: p4cost_ir::ControlId) -> u128 {
    let pipe = &program.analysed_pipelines()[0];
    let parser = program.parser(pipe.ingress_parser.expect("an ingress parser"));
    let mut warnings = Vec::new();
    let opts = p4cost_analysis::PathOptions::default();
    let pg = p4cost_analysis::path_graph(program, parser, &opts, &mut warnings)
        .expect("within the analysis budget");
    let parse_w = vec![1.0; pg.len()];
    let table_w = vec![1.0; program.tables.len()];
    let budget = p4cost_analysis::ClassBudget::default();
    p4cost_analysis::packet_classes(program, control, &pg, &parse_w, &table_w, &budget)
        .expect("within the class budget")
        .classes
        .value
}

/// The dependency graphs of the first pipeline's ingress and egress.
fn deps(program: &p4cost_ir::Program) -> usize {
    let limits = p4cost_analysis::DepLimits::default();
    program.analysed_pipelines()[0]
        .gress_controls()
        .into_iter()
        .map(|(_, c)| {
            p4cost_analysis::dependency_graph(program, c, &limits)
                .expect("within the dependency budget")
                .edges
                .len()
        })
        .sum()
}

/// The estimated stage placement and its cycles.
fn placement(program: &p4cost_ir::Program, model: &p4cost_model::ModelSpec) -> u32 {
    let controls = program.analysed_pipelines()[0].gress_controls();
    let limits = p4cost_analysis::DepLimits::default();
    p4cost_model::mau_estimate::predict(model, program, &controls, &limits, None)
        .expect("the program fits")
        .1
        .gresses
        .iter()
        .map(|g| g.cycles)
        .sum()
}

/// Paths, classes, deps and placement on the lowered program.
fn analyses(c: &mut Criterion, inputs: &[Input]) {
    let mau = p4cost_model::model_by_name("tofino1-mau-estimate").expect("embedded model");
    let mut g = c.benchmark_group("stages");
    g.sample_size(10);
    for i in inputs {
        let program = i.load();
        assert!(paths(&program) > 0, "{}: no parse path", i.label);
        g.bench_function(BenchmarkId::new("paths", &i.label), |b| {
            b.iter(|| paths(&program))
        });
        let (with_egress, control) = joined(&program);
        assert!(classes(&with_egress, control) > 0, "{}: no class", i.label);
        g.bench_function(BenchmarkId::new("classes", &i.label), |b| {
            b.iter(|| classes(&with_egress, control))
        });
        assert!(deps(&program) > 0, "{}: no dependency", i.label);
        g.bench_function(BenchmarkId::new("deps", &i.label), |b| {
            b.iter(|| deps(&program))
        });
        if i.tofino {
            assert!(placement(&program, &mau) > 0, "{}: no cycles", i.label);
            g.bench_function(BenchmarkId::new("placement", &i.label), |b| {
                b.iter(|| placement(&program, &mau))
            });
        }
    }
    g.finish();
}

/// The engine's predict reports of the loaded program, and of the file.
fn prediction(c: &mut Criterion, inputs: &[Input]) {
    let mut g = c.benchmark_group("stages");
    g.sample_size(10);
    for i in inputs {
        let o = i.predict_options();
        let (model, size) = predict::settle(&o).expect("the default model");
        let loaded = input::load(&o.file, &o.source).expect("loads");
        let reports = predict::reports_of(&o, model.clone(), size, loaded.clone());
        assert!(!reports.expect("predicts").is_empty());
        g.bench_function(BenchmarkId::new("predict", &i.label), |b| {
            b.iter_batched(
                || loaded.clone(),
                |l| predict::reports_of(&o, model.clone(), size, l).map(|r| r.len()),
                BatchSize::PerIteration,
            )
        });
        g.bench_function(BenchmarkId::new("total", &i.label), |b| {
            b.iter(|| predict::reports(&o).map(|r| r.len()))
        });
        if i.tofino {
            // `p4cost stages FILE`: file to the estimated placement and its
            // cycles (issue 28: under 50 ms for fabric-tna).
            let so = p4cost_engine::stages::StagesOptions {
                file: i.path.clone(),
                source: o.source.clone(),
                ..Default::default()
            };
            assert!(p4cost_engine::stages::stages(&so).is_ok(), "{}", i.label);
            g.bench_function(BenchmarkId::new("stages_command", &i.label), |b| {
                b.iter(|| p4cost_engine::stages::stages(&so).map(|s| s.prediction.gresses.len()))
            });
        }
    }
    g.finish();
}

fn bench(c: &mut Criterion) {
    let inputs = inputs();
    front(c, &inputs);
    analyses(c, &inputs);
    prediction(c, &inputs);
}

criterion_group!(benches, bench);
criterion_main!(benches);
