//! Peak memory per input byte of ordinary code (issue 7). `p4cost predict`
//! runs as a child on about 2 MB of each kind of large, plain input, and
//! its peak resident set size (from wait4(2)), less that of a one-statement
//! program, must stay within a fixed multiple of the input size:
//!
//! * one apply block of `;` statements (a million statements per MB), and
//!   the same inside an `if` (the usual shape of a large control);
//! * one apply block of `x = x + 1;` statements;
//! * a parser of 20,000 states chained by `select`.
//!
//! Linux only: the resident set is what the kernel reports for the child.
#![cfg(target_os = "linux")]

mod common;
crate::spawner_entry!();

use std::path::{Path, PathBuf};

/// Input size of each generated program.
const TARGET_BYTES: usize = 2_000_000;

/// Peak resident bytes allowed per input byte.
const MAX_RATIO: f64 = 50.0;

const HEAD: &str = "#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> f; }
struct headers_t { h_t h; }
struct meta_t { bit<32> x; }
";

const TAIL: &str =
    "control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
";

fn parser(body: &str) -> String {
    format!(
        "parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, \
         inout standard_metadata_t sm) {{\n{body}}}\n"
    )
}

fn ingress(body: &str) -> String {
    format!(
        "control I(inout headers_t hdr, inout meta_t meta, \
         inout standard_metadata_t sm) {{\n    bit<32> x = 0;\n    apply {{\n{body}        meta.x = x;\n    }}\n}}\n"
    )
}

/// A v1model program whose ingress apply block repeats `line` up to about
/// [`TARGET_BYTES`].
fn apply_block_of(line: &str) -> String {
    apply_block_of_n(line, TARGET_BYTES / line.len())
}

/// The same program with `n` copies of `line`.
fn apply_block_of_n(line: &str, n: usize) -> String {
    let start =
        "    state start {\n        pkt.extract(hdr.h);\n        transition accept;\n    }\n";
    format!("{HEAD}{}{}{TAIL}", parser(start), ingress(&line.repeat(n)))
}

/// A v1model program whose parser is a chain of states of about
/// [`TARGET_BYTES`] in all.
fn state_chain() -> String {
    let mut body = String::from("    state start {\n        transition s0;\n    }\n");
    let mut i = 0;
    while body.len() < TARGET_BYTES {
        body.push_str(&format!(
            "state s{i} {{\npkt.extract(hdr.h);\ntransition select(hdr.h.f) {{ {}: s{}; default: accept; }}\n}}\n",
            i & 0xff,
            i + 1
        ));
        i += 1;
    }
    body.push_str(&format!("state s{i} {{\ntransition accept;\n}}\n"));
    format!("{HEAD}{}{}{TAIL}", parser(&body), ingress(""))
}

/// Runs `p4cost predict file`; returns its peak resident set in bytes.
fn predict_peak_rss(file: &Path, scratch: &Path) -> u64 {
    let file_arg = file.to_string_lossy();
    let m = common::measured(
        &common::root(),
        &["predict", "--max-paths", "4", &file_arg],
        scratch,
    );
    assert_eq!(
        m.code,
        0,
        "p4cost predict {} failed: {}",
        file.display(),
        m.stderr
    );
    m.peak_rss
}

fn check(name: &str, program: &str, max_ratio: f64) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("memory");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let file = dir.join(format!("{name}.p4"));
    std::fs::write(&file, program).expect("write program");
    let peak = predict_peak_rss(&file, &dir.join(name));
    // What p4cost holds whatever the input (its code, the bundled
    // architecture files, the models): measured on a one-statement program
    // and not counted per input byte, so the ratio does not move when the
    // binary grows.
    let tiny = dir.join(format!("{name}-baseline.p4"));
    std::fs::write(&tiny, apply_block_of_n("x = x + 1;\n", 1)).expect("write baseline");
    let base = predict_peak_rss(&tiny, &dir.join(format!("{name}-baseline")));
    let ratio = peak.saturating_sub(base) as f64 / program.len() as f64;
    eprintln!(
        "{name}: {} bytes of input, peak RSS {} KiB ({} KiB at baseline), {ratio:.1}x",
        program.len(),
        peak / 1024,
        base / 1024
    );
    assert!(
        ratio < max_ratio,
        "{name}: peak RSS {peak} bytes ({base} at baseline) is {ratio:.1} times the {} input bytes \
         above the baseline (limit {max_ratio})",
        program.len()
    );
}

#[test]
fn empty_statements_in_one_apply_block() {
    check(
        "empty_statements",
        &apply_block_of(&format!("{}\n", ";".repeat(79))),
        MAX_RATIO,
    );
}

#[test]
fn empty_statements_inside_an_if() {
    let body = format!("{}\n", ";".repeat(79)).repeat(TARGET_BYTES / 80);
    let start =
        "    state start {\n        pkt.extract(hdr.h);\n        transition accept;\n    }\n";
    check(
        "empty_statements_in_if",
        &format!(
            "{HEAD}{}{}{TAIL}",
            parser(start),
            ingress(&format!("if (hdr.h.isValid()) {{\n{body}}} else {{ ; }}\n"))
        ),
        MAX_RATIO,
    );
}

#[test]
fn assignments_in_one_apply_block() {
    check("assignments", &apply_block_of("x = x + 1;\n"), MAX_RATIO);
}

#[test]
fn a_chain_of_parser_states() {
    check("parser_states", &state_chain(), MAX_RATIO);
}

/// Peak resident set allowed for `predict` of switch_p4_16's BMv2 JSON
/// (1.5 MB, 23,497 parse paths, about 10^18 packet classes), as run by
/// default: about 1.5 times what it takes (25 MiB with the test profile's
/// binary, 19 MiB release; 93 MB while the class analysis kept every
/// control state's table of weights, issue 26).
const SWITCH_JSON_PEAK: u64 = 38 << 20;

/// The packet-class analysis keeps only the tables it still has to read:
/// switch_p4_16's JSON, summary, median and listing, stays within
/// [`SWITCH_JSON_PEAK`].
#[test]
fn switch_p4_16_json_classes_in_bounded_memory() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("memory");
    let m = common::measured(
        &common::root(),
        &["predict", "tests/fixtures/bmv2/switch_p4_16.json"],
        &dir.join("switch_p4_16_json"),
    );
    assert_eq!(m.code, 0, "p4cost predict failed: {}", m.stderr);
    assert!(
        m.stdout_text()
            .contains("packet classes over 23497 parse paths"),
        "{}",
        m.stdout_text()
    );
    eprintln!("switch_p4_16.json: peak RSS {} KiB", m.peak_rss / 1024);
    assert!(
        m.peak_rss < SWITCH_JSON_PEAK,
        "peak RSS {} KiB, limit {} KiB",
        m.peak_rss / 1024,
        SWITCH_JSON_PEAK / 1024
    );
}
