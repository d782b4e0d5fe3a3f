//! Large programs of one shape each (issue 26, item 2): 80,000 header
//! instances, 80,000 tables, 80,000 actions, 80,000 parser states and
//! 40,000 `if`s in a row (1-4.5 MB each).  Each must `parse` and `predict`
//! within [`MAX_CPU`]: the 2 s for the release build.  CPU time
//! (user and system, from `wait4`) rather than wall-clock time, as the
//! machines running the tests are often loaded; a quadratic step takes
//! minutes, far above either bound.

mod common;
crate::spawner_entry!();

use std::fmt::Write;
use std::path::Path;
use std::time::Duration;

/// CPU time bound of one run: 2 s for the release build
/// (`cargo test --release --test front_shapes`), fifteen times that for
/// the debug build CI runs (our crates at opt-level 0: measured 8-10x
/// slower on these shapes, e.g. 80,000 tables parsed in 1.7 s of CPU
/// against 14.6 s, 80,000 actions in 1.2 s against 11.1 s). The release
/// bound is issue 26's goal and is not met yet by 80,000 tables (predict
/// 2.1 s, of which the front end 1.4 s); the debug bound still fails on
/// anything superlinear (twice these sizes would quadruple the time).
const MAX_CPU: Duration = Duration::from_secs(if cfg!(debug_assertions) { 30 } else { 2 });

/// How many of each element the shapes hold.
const N: usize = 80_000;

/// A v1model program with `fields` in its header struct, `states` in its
/// parser (after `start`) and `ingress` as the body of its ingress control.
fn program(fields: &str, states: &str, ingress: &str) -> String {
    format!(
        "#include <core.p4>\n#include <v1model.p4>\nheader h_t {{ bit<8> k; bit<8> f; }}\n\
         struct headers {{\n{fields}}}\nstruct meta_t {{ bit<32> x; bit<32> y; }}\n\
         parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {{\n{states}}}\n\
         control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {{\n{ingress}}}\n\
         control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {{ apply {{ }} }}\n\
         control V(inout headers hdr, inout meta_t m) {{ apply {{ }} }}\n\
         control C(inout headers hdr, inout meta_t m) {{ apply {{ }} }}\n\
         control D(packet_out pkt, in headers hdr) {{ apply {{ pkt.emit(hdr.h0); }} }}\n\
         V1Switch(P(), V(), I(), E(), C(), D()) main;\n"
    )
}

const ONE_FIELD: &str = "  h_t h0;\n";
const ONE_STATE: &str = "  state start { pkt.extract(hdr.h0); transition accept; }\n";
const EMPTY_APPLY: &str = "  apply { }\n";

/// `count` lines made by `line(i)`.
fn lines(count: usize, line: impl Fn(&mut String, usize)) -> String {
    let mut s = String::new();
    for i in 0..count {
        line(&mut s, i);
    }
    s
}

fn headers() -> String {
    let fields = lines(N, |s, i| {
        let _ = writeln!(s, "  h_t h{i};");
    });
    program(&fields, ONE_STATE, EMPTY_APPLY)
}

fn tables() -> String {
    let decls = lines(N, |s, i| {
        let _ = writeln!(s, "  table t{i} {{ actions = {{ a; }} }}");
    });
    let applies = lines(N, |s, i| {
        let _ = writeln!(s, "    t{i}.apply();");
    });
    let ingress = format!("  action a() {{ }}\n{decls}  apply {{\n{applies}  }}\n");
    program(ONE_FIELD, ONE_STATE, &ingress)
}

fn actions() -> String {
    let ingress = lines(N, |s, i| {
        let _ = writeln!(s, "  action a{i}() {{ m.x = {i}; }}");
    }) + EMPTY_APPLY;
    program(ONE_FIELD, ONE_STATE, &ingress)
}

fn states() -> String {
    let chain = lines(N, |s, i| {
        let next = if i + 1 < N {
            format!("s{}", i + 1)
        } else {
            "accept".to_string()
        };
        let _ = writeln!(s, "  state s{i} {{ transition {next}; }}");
    });
    let states = format!("  state start {{ pkt.extract(hdr.h0); transition s0; }}\n{chain}");
    program(ONE_FIELD, &states, EMPTY_APPLY)
}

fn ifs() -> String {
    let body = lines(N / 2, |s, i| {
        let _ = writeln!(s, "    if (m.x == {i}) {{ m.y = {i}; }}");
    });
    program(ONE_FIELD, ONE_STATE, &format!("  apply {{\n{body}  }}\n"))
}

/// Runs `p4cost args` in `dir`, asserting exit 0 within [`MAX_CPU`];
/// returns its standard output.
fn run_ok(dir: &Path, args: &[&str]) -> String {
    let out = dir.join(format!("out-{}", args[0]));
    let m = common::measured(dir, args, &out);
    assert_eq!(m.code, 0, "p4cost {args:?}: {}", m.stderr);
    assert!(
        m.cpu < MAX_CPU,
        "p4cost {args:?} took {:?} of CPU (limit {MAX_CPU:?})",
        m.cpu
    );
    m.stdout_text()
}

/// Writes the shape, parses and predicts it; returns the prediction.
fn parse_and_predict(name: &str, src: &str) -> serde_json::Value {
    let dir = common::scratch(&format!("front-shape-{name}"));
    let file = format!("{name}.p4");
    std::fs::write(dir.join(&file), src).expect("write the shape");
    let parsed = run_ok(&dir, &["parse", &file]);
    assert!(parsed.contains("1 parsed, 0 failed"), "{parsed}");
    let r = run_ok(&dir, &["predict", "--format", "json", &file]);
    let _ = std::fs::remove_dir_all(&dir);
    serde_json::from_str(&r).expect("valid JSON")
}

/// The tables the longest path applies.
fn max_path_tables(p: &serde_json::Value) -> usize {
    p["summary"]["max"]["tables"]
        .as_array()
        .map_or(0, |t| t.len())
}

#[test]
fn header_instances() {
    let p = parse_and_predict("headers", &headers());
    assert_eq!(p["path_count"], 1);
}

#[test]
fn tables_in_a_row() {
    let p = parse_and_predict("tables", &tables());
    assert_eq!(max_path_tables(&p), N);
}

#[test]
fn actions_in_a_control() {
    let p = parse_and_predict("actions", &actions());
    assert_eq!(max_path_tables(&p), 0);
}

#[test]
fn parser_states_in_a_chain() {
    let p = parse_and_predict("states", &states());
    assert_eq!(p["path_count"], 1);
}

#[test]
fn ifs_in_a_row() {
    let p = parse_and_predict("ifs", &ifs());
    assert_eq!(p["path_count"], 1);
}
