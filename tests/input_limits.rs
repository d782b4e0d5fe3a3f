//! Reading inputs once (`-`, `/dev/stdin`, pipes) and the input and preprocessor budgets:
//! each hostile input, generated here, ends quickly with an error naming the limit.

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::{p4cost, p4cost_stdin, root, scratch};

const PROGRAM: &str = "tests/fixtures/guards/tna_guarded.p4";

fn program_text() -> Vec<u8> {
    std::fs::read(root().join(PROGRAM)).expect("fixture")
}

#[test]
fn dash_reads_stdin_for_predict_and_parse() {
    let r = p4cost_stdin(&["predict", "-"], &program_text());
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .starts_with("p4cost 0.1.0: <stdin> (tna, p4_source)"),
        "{}",
        r.stdout
    );
    let from_file = p4cost(&["predict", PROGRAM]);
    // the same table of paths whichever way the program came in
    let table = |s: &str| s.lines().skip(1).take(8).collect::<Vec<_>>().join("\n");
    assert_eq!(table(&r.stdout), table(&from_file.stdout));
    let r = p4cost_stdin(&["parse", "-"], &program_text());
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "P4 sources parsed and lowered, not type-checked (p4cost has no type checker: p4c \
         reports type errors)\nok     <stdin>\n1 parsed, 0 failed\n"
    );
}

#[test]
fn errors_in_stdin_name_it() {
    let r = p4cost_stdin(&["predict", "-"], b"header h_t {\n  bit<8> a\n}\n");
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(r.stderr.starts_with("error: <stdin>:3:1: "), "{}", r.stderr);
}

#[test]
fn stdin_can_be_given_once() {
    let r = p4cost_stdin(&["predict", "-", "--context", "-"], b"");
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("`-` (stdin) can be given for only one"),
        "{}",
        r.stderr
    );
}

#[test]
fn dev_stdin_on_a_pipe_is_read_once() {
    if !std::path::Path::new("/dev/stdin").exists() {
        return;
    }
    let r = p4cost_stdin(&["predict", "/dev/stdin"], &program_text());
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("parser    IgParser (slot ingress_parser): 1 paths"),
        "{}",
        r.stdout
    );
    // JSON detection reads the same bytes as the reader: a BMv2 JSON through a pipe
    let bmv2 = std::fs::read_dir(root().join("tests/fixtures/bmv2"))
        .expect("bmv2 fixtures")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .expect("a BMv2 fixture");
    let text = std::fs::read(&bmv2).expect("read");
    let r = p4cost_stdin(&["predict", "/dev/stdin"], &text);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("bmv2_json"), "{}", r.stdout);
}

#[test]
fn stdin_larger_than_the_budget_is_refused() {
    let big = vec![b' '; 5000];
    let r = p4cost_stdin(&["predict", "--max-input-bytes", "4096", "-"], &big);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr.trim(),
        "error: <stdin>: input larger than 4096 bytes (limit: --max-input-bytes)"
    );
}

#[test]
fn dev_zero_ends_quickly_naming_the_limit() {
    if !std::path::Path::new("/dev/zero").exists() {
        return;
    }
    let t = Instant::now();
    let r = p4cost(&["predict", "/dev/zero"]);
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr.trim(),
        "error: /dev/zero: is a character device, not a regular file"
    );
}

fn mkfifo(path: &std::path::Path) -> bool {
    Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn a_named_fifo_is_refused_at_once() {
    let dir = scratch("fifo-nowriter");
    let fifo = dir.join("in.p4");
    if !mkfifo(&fifo) {
        return; // no mkfifo here
    }
    let t = Instant::now();
    let r = p4cost(&["predict", fifo.to_str().expect("utf-8 path")]);
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("in.p4: is a FIFO (named pipe), not a regular file"),
        "{}",
        r.stderr
    );
}

#[test]
fn include_bomb_ends_at_the_include_budget() {
    let dir = scratch("include-bomb");
    for i in 0..18 {
        let text = format!("#include \"f{}.p4\"\n#include \"f{}.p4\"\n", i + 1, i + 1);
        std::fs::write(dir.join(format!("f{i}.p4")), text).expect("write");
    }
    std::fs::write(dir.join("f18.p4"), "const bit<8> X = 1;\n").expect("write");
    let t = Instant::now();
    let r = p4cost(&["predict", dir.join("f0.p4").to_str().expect("utf-8")]);
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains(
            ": more than 10000 files entered by #include in this program, each inclusion \
             counted (limit: max-includes)"
        ),
        "{}",
        r.stderr
    );
    // the flag moves the limit
    let r = p4cost(&[
        "predict",
        "--max-includes",
        "100",
        dir.join("f0.p4").to_str().expect("utf-8"),
    ]);
    assert!(
        r.stderr.contains("more than 100 files entered"),
        "{}",
        r.stderr
    );
}

#[test]
fn macro_bomb_over_many_lines_ends_at_the_global_budget() {
    let dir = scratch("macro-bomb");
    let mut src = String::from("#define A0 x\n");
    for i in 1..=12 {
        src.push_str(&format!("#define A{i} A{} A{}\n", i - 1, i - 1));
    }
    src.push_str(&"A12\n".repeat(64));
    let file = dir.join("bomb.p4");
    std::fs::write(&file, src).expect("write");
    let f = file.to_str().expect("utf-8");
    // one line costs 20,477 tokens (see the pp unit test): the 5th use, line 18, crosses 100,000
    let r = p4cost(&["parse", "--max-macro-output", "100000", f]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.contains(&format!(
            "{f}:18:1: macro expansion produced more than 100000 tokens in this program \
             (limit: max-macro-output)"
        )),
        "{}",
        r.stdout
    );
    // with room for all 64 lines the preprocessor finishes; the text is then not P4
    let r = p4cost(&["parse", "--max-macro-output", "2000000", f]);
    assert_eq!(r.code, 1);
    assert!(!r.stdout.contains("limit:"), "{}", r.stdout);
}
