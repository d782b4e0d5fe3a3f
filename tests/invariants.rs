//! Property tests over the whole pipeline (front end or reader, analysis,
//! model): predictions never fall when the packet grows, the program
//! model survives a JSON round trip unchanged, and random byte mutations
//! of valid programs give a result or an error, never a panic.
//!
//! Case counts are kept small so each test stays well under 20 s in a
//! debug build.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use p4cost_analysis::{control_tables, parse_paths, PathOptions};
use p4cost_ir::{Program, TableId};
use p4cost_model::{all_models, tofino_linear, ModelKind};
use proptest::prelude::*;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).expect("fixture readable")
}

/// Sources the mutation test starts from: small programs of ours, one per
/// architecture and shape (states chain, tables, realistic router).
const SOURCES: &[&str] = &[
    "p4-samples/tofino/micro/states_5_h5.p4",
    "p4-samples/tofino/micro/tables_3_lpm32.p4",
    "p4-samples/tofino/realistic/l3_router.p4",
    "p4-samples/v1model/basic_router.p4",
];

/// BMv2 fixtures the mutation test starts from (small, with a header
/// stack loop and a parser value set among them).
const BMV2: &[&str] = &[
    "tests/fixtures/bmv2/behavioral-model__simple_router.json",
    "tests/fixtures/bmv2/stack_complex-bmv2.json",
    "tests/fixtures/bmv2/pvs-struct-3-bmv2.json",
];

fn load_source(rel: &str) -> Program {
    p4cost_front::load_file(&root().join(rel), &p4cost_front::Options::default())
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
        .program
}

/// Every sample program and a BMv2 fixture, loaded once.
fn programs() -> &'static Vec<(String, Program)> {
    static P: OnceLock<Vec<(String, Program)>> = OnceLock::new();
    P.get_or_init(|| {
        let mut out: Vec<(String, Program)> = Vec::new();
        for rel in [
            "p4-samples/tofino/tc1_enterprise.p4",
            "p4-samples/tofino/tc3_edge_mpls.p4",
            "p4-samples/tofino/tc5_int_md.p4",
            "p4-samples/tofino/realistic/l3_router.p4",
            "p4-samples/v1model/basic_router.p4",
        ] {
            out.push((rel.to_string(), load_source(rel)));
        }
        let rel = "tests/fixtures/bmv2/behavioral-model__simple_router.json";
        let prog = p4cost_bmv2::read(&read(rel), rel).expect("fixture reads");
        out.push((rel.to_string(), prog));
        out
    })
}

/// Runs analysis and every linear model over a program, as `predict`
/// does: parse paths (a few listed) and one prediction per listed path.
/// Returns the latencies, in path order, per model.
fn predict_all(program: &Program, packet_size: u32, max_paths: usize) -> Vec<f64> {
    let Some(parser) = program.ingress_parser() else {
        return Vec::new();
    };
    let opts = PathOptions {
        max_paths,
        ..PathOptions::default()
    };
    // A program past the analysis budget has no paths to predict: the
    // budget error itself is the answer (checked in the analysis tests).
    let Ok(paths) = parse_paths(program, parser, &opts) else {
        return Vec::new();
    };
    let tables: Vec<TableId> = program
        .ingress_control()
        .map(|c| control_tables(program, c))
        .unwrap_or_default();
    let mut out = Vec::new();
    for model in all_models().expect("embedded models load") {
        if model.kind != ModelKind::TofinoIngressLinear {
            continue;
        }
        for path in &paths.paths {
            let pred = tofino_linear::predict(
                &model,
                &tofino_linear::Inputs {
                    program,
                    path,
                    tables: &tables,
                    packet_size,
                },
            );
            out.push(pred.latency_ns);
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A bigger packet never costs less, on any path of any sample under
    /// any linear model (the base term grows with the size and nothing
    /// else depends on it).
    #[test]
    fn predictions_are_monotone_in_packet_size(
        which in 0usize..6,
        a in 64u32..=9216,
        b in 64u32..=9216,
    ) {
        let (small, large) = if a <= b { (a, b) } else { (b, a) };
        let (name, program) = &programs()[which % programs().len()];
        let lo = predict_all(program, small, 16);
        let hi = predict_all(program, large, 16);
        prop_assert_eq!(lo.len(), hi.len());
        prop_assert!(!lo.is_empty(), "{} has no predicted path", name);
        for (i, (l, h)) in lo.iter().zip(&hi).enumerate() {
            prop_assert!(l <= h, "{}: path {} costs {} ns at {} B but {} ns at {} B",
                name, i, l, small, h, large);
        }
    }
}

/// Serialises and reads back the program model: the copy is equal.
fn assert_round_trips(name: &str, program: &Program) {
    let text = serde_json::to_string(program).expect("serialises");
    let back: Program =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: reads back: {e}"));
    assert!(
        back == *program,
        "{name}: the program changed in a JSON round trip"
    );
}

#[test]
fn program_model_json_round_trips_for_every_input_kind() {
    for (name, program) in programs() {
        assert_round_trips(name, program);
    }
    // Every BMv2 fixture under 100 KB (covers stacks, unions, value sets,
    // externs, action profiles) and the Tofino context readers.
    let dir = root().join("tests/fixtures/bmv2");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("fixture dir") {
        let path = entry.expect("entry").path();
        if path.metadata().map(|m| m.len()).unwrap_or(u64::MAX) > 100_000 {
            continue;
        }
        let name = path.display().to_string();
        let program = p4cost_bmv2::read(&std::fs::read_to_string(&path).unwrap(), &name)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_round_trips(&name, &program);
        n += 1;
    }
    assert!(n >= 20, "only {n} BMv2 fixtures checked");
    let ctx = "tests/fixtures/tofino/open-p4studio__tna_action_selector__context.json";
    let bfrt = "tests/fixtures/tofino/open-p4studio__tna_action_selector__bf-rt.json";
    let program = p4cost_tofino::read_context_with_bfrt(&read(ctx), ctx, &read(bfrt), bfrt)
        .expect("context reads");
    assert!(!program.tables.is_empty());
    assert_round_trips(ctx, &program);
}

/// One byte edit: overwrite, insert or delete at a position (taken modulo
/// the length).
#[derive(Debug, Clone)]
enum Edit {
    Set(usize, u8),
    Insert(usize, u8),
    Delete(usize),
}

/// Bytes that make edits land on syntax more often than uniform bytes.
fn edit_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        any::<u8>(),
        prop::sample::select(b"{}[]()<>;:,.\"'#/*-+=!&|0123456789 \n".to_vec()),
    ]
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), edit_byte()).prop_map(|(i, b)| Edit::Set(i, b)),
        (any::<usize>(), edit_byte()).prop_map(|(i, b)| Edit::Insert(i, b)),
        any::<usize>().prop_map(Edit::Delete),
    ]
}

fn mutate(text: &str, edits: &[Edit]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for e in edits {
        let len = bytes.len().max(1);
        match *e {
            Edit::Set(i, b) if !bytes.is_empty() => bytes[i % len] = b,
            Edit::Insert(i, b) => bytes.insert(i % (bytes.len() + 1), b),
            Edit::Delete(i) if !bytes.is_empty() => {
                bytes.remove(i % len);
            }
            _ => {}
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Mutated text is written where `#include "..."` of a sibling would look,
/// so relative includes behave as for the original file.
fn load_mutated_source(rel: &str, text: &str) -> Option<Program> {
    let name = Path::new(rel).file_name()?.to_str()?;
    p4cost_front::load_source(name, text, &p4cost_front::Options::default())
        .ok()
        .map(|l| l.program)
}

proptest! {
    // The front end is the slow part in debug builds (about 0.3 s a case).
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Mutated sources: the front end answers (program or error), and a
    /// program that loads goes through analysis and prediction.
    #[test]
    fn mutated_sources_never_panic(
        which in 0usize..SOURCES.len(),
        edits in prop::collection::vec(edit(), 1..8),
    ) {
        let rel = SOURCES[which];
        let text = mutate(&read(rel), &edits);
        if let Some(program) = load_mutated_source(rel, &text) {
            predict_all(&program, 512, 4);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Mutated BMv2 JSON: the reader answers, and a program that reads
    /// goes through analysis and prediction.
    #[test]
    fn mutated_bmv2_never_panics(
        which in 0usize..BMV2.len(),
        edits in prop::collection::vec(edit(), 1..8),
    ) {
        let rel = BMV2[which];
        let text = mutate(&read(rel), &edits);
        if let Ok(program) = p4cost_bmv2::read(&text, rel) {
            predict_all(&program, 512, 4);
        }
    }
}
