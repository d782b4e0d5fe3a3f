//! What a new user tripped on (issue 10, item 12): each case as they met
//! it, run through the real binary.

mod common;
use common::p4cost;

use std::io::Read;
use std::process::{Command, Stdio};

#[test]
fn a_closed_pipe_ends_the_report_quietly() {
    // `p4cost predict big.json | head -1`: the reader goes away after one
    // line. The report is far larger than a pipe's buffer, so the writes
    // after the reader closed fail with EPIPE.
    let mut child = Command::new(env!("CARGO_BIN_EXE_p4cost"))
        .args([
            "predict",
            "tests/fixtures/bmv2/switch_p4_16.json",
            "--max-paths",
            "2000",
        ])
        .current_dir(common::root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("p4cost runs");
    let mut first = [0u8; 16];
    let mut out = child.stdout.take().expect("stdout");
    out.read_exact(&mut first).expect("the report starts");
    drop(out);
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("stderr");
    let status = child.wait().expect("p4cost ends");
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(err.is_empty(), "{err}");
    assert!(first.starts_with(b"p4cost "));
}

#[test]
fn json_numbers_carry_no_binary_noise() {
    let r = p4cost(&[
        "predict",
        "p4-samples/tofino/classes/parser_set_metadata.p4",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // A number with more than 12 significant digits is noise from summing
    // model terms (312.54499999999996).
    let noisy: Vec<&str> = r
        .stdout
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter(|t| t.contains('.') && t.chars().filter(char::is_ascii_digit).count() > 12)
        .collect();
    assert!(noisy.is_empty(), "{noisy:?}");
}
