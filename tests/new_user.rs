//! What a new user tripped on (issue 10, item 12): each case as they met
//! it, run through the real binary.

mod common;
use common::{p4cost, scratch};

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

/// A run's exit code and stderr, for the usage errors below.
fn fails(args: &[&str]) -> String {
    let r = p4cost(args);
    assert_eq!(r.code, 2, "{args:?} exits 2: {}{}", r.stdout, r.stderr);
    r.stderr
}

const SAMPLE: &str = "p4-samples/v1model/basic_router.p4";

#[test]
fn flag_mistakes_are_named_with_what_was_meant() {
    let e = fails(&["predict", SAMPLE, "--model", "tofino1-10G"]);
    assert!(e.contains("did you mean `tofino1-10g`?"), "{e}");
    let e = fails(&["predict", SAMPLE, "--packet-size", "-5"]);
    assert!(e.contains("positive size in bytes"), "{e}");
    assert!(!e.contains("-- -5"), "no clap tip about `--`: {e}");
    let e = fails(&["predict", SAMPLE, "-I", "/nonexistent-p4cost-dir"]);
    assert!(
        e.contains("-I <DIR>") && e.contains("no such directory"),
        "{e}"
    );
}

#[test]
fn a_missing_include_lists_where_it_was_looked_for() {
    let d = scratch("missing-include");
    let inc = d.join("inc");
    std::fs::create_dir_all(&inc).unwrap();
    std::fs::write(d.join("prog.p4"), "#include \"nothere.p4\"\n").unwrap();
    let e = fails(&[
        "predict",
        d.join("prog.p4").to_str().unwrap(),
        "-I",
        inc.to_str().unwrap(),
    ]);
    assert!(
        e.contains("prog.p4:1:1: include file 'nothere.p4' not found"),
        "{e}"
    );
    assert!(
        e.contains(&format!(
            "searched: {}, {}, the bundled",
            d.display(),
            inc.display()
        )),
        "{e}"
    );
}

#[test]
fn a_byte_order_mark_is_not_a_syntax_error() {
    let d = scratch("bom");
    let text = std::fs::read(SAMPLE).unwrap();
    let mut with_bom = b"\xef\xbb\xbf".to_vec();
    with_bom.extend(text);
    std::fs::write(d.join("bom.p4"), with_bom).unwrap();
    let r = p4cost(&["predict", d.join("bom.p4").to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn a_p4_14_program_is_named_as_one() {
    let d = scratch("p4-14");
    std::fs::write(
        d.join("old.p4"),
        "header_type ethernet_t {\n    fields {\n        dstAddr : 48;\n    }\n}\n",
    )
    .unwrap();
    let e = fails(&["predict", d.join("old.p4").to_str().unwrap()]);
    assert!(e.contains("old.p4:1:"), "{e}");
    assert!(e.contains("looks like a P4-14 program"), "{e}");
    assert!(e.contains("p4test --std p4-14"), "{e}");
}

#[test]
fn parse_takes_any_input_kind_and_knows_fragments_from_programs() {
    // A BMv2 JSON file is read as one, not parsed as P4.
    let r = p4cost(&["parse", "tests/fixtures/bmv2/switch_p4_16.json"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("1 parsed, 0 failed"), "{}", r.stdout);
    // The compiler type-checked it: no "not type-checked" line.
    assert!(!r.stdout.contains("not type-checked"), "{}", r.stdout);
    // A directory with no P4 file is a usage error.
    let empty = scratch("empty-dir");
    let e = fails(&["parse", empty.to_str().unwrap()]);
    assert!(e.contains("no P4 file"), "{e}");
    // A program and the headers file it includes: the fragment is checked
    // through the program, not alone (it would fail: `mac_t` is the
    // program's).
    let d = scratch("fragments");
    std::fs::write(
        d.join("headers.p4"),
        "header ethernet_h { mac_t dst; mac_t src; bit<16> ether_type; }\n",
    )
    .unwrap();
    let program = std::fs::read_to_string(SAMPLE).unwrap();
    std::fs::write(
        d.join("main.p4"),
        format!("typedef bit<48> mac_t;\n#include \"headers.p4\"\n{program}"),
    )
    .unwrap();
    let r = p4cost(&["parse", d.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("1 parsed, 0 failed, 1 included by other files"),
        "{}",
        r.stdout
    );
    // Named on the command line, the fragment is a program, and the
    // summary names it, not only the line where the error is.
    let frag = d.join("headers.p4");
    let r = p4cost(&["parse", "--summary", frag.to_str().unwrap()]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.starts_with(&format!("{}:", frag.display())),
        "{}",
        r.stdout
    );
}

/// A user's project with the names the help's examples use (none of them
/// a path of this repository, which an installed user lacks), filled
/// with our samples and fixtures, under git with one commit.
fn example_project() -> std::path::PathBuf {
    let d = scratch("help-examples");
    let root = common::root();
    let copies = [
        ("p4-samples/tofino/tc2_datacenter.p4", "prog.p4"),
        ("p4-samples/tofino/tc2_datacenter.p4", "old.p4"),
        ("p4-samples/tofino/tc3_edge_mpls.p4", "new.p4"),
        ("p4-samples/tofino/tc2_datacenter.p4", "p4src/main.p4"),
        ("p4-samples/tofino/tc3_edge_mpls.p4", "p4src/edge.p4"),
        ("tests/fixtures/bmv2/switch_p4_16.json", "build/prog.json"),
        ("tests/fixtures/bmv2/onos__fabric.json", "old/prog.json"),
        (
            "tests/fixtures/bmv2/onos__fabric-full.json",
            "new/prog.json",
        ),
        (
            "tests/fixtures/tofino/fabric-tna__fabric__sde9.0.0__context.json",
            "build/pipe/context.json",
        ),
        (
            "tests/fixtures/tofino/fabric-tna__fabric__sde9.2.0__context.json",
            "old/pipe/context.json",
        ),
        (
            "tests/fixtures/tofino/fabric-tna__fabric-int__sde9.2.0__context.json",
            "new/pipe/context.json",
        ),
    ];
    for (from, to) in copies {
        let to = d.join(to);
        std::fs::create_dir_all(to.parent().expect("dir")).expect("dir");
        std::fs::copy(root.join(from), &to).expect(from);
    }
    std::fs::create_dir_all(d.join("ci")).expect("ci");
    std::fs::write(
        d.join("ci/p4cost.toml"),
        "[[program]]\npath = \"../prog.p4\"\n\n[program.budget]\nmax-latency = 400\n",
    )
    .expect("config");
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(&d)
            .output()
            .expect("git runs");
        assert!(ok.status.success(), "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["commit", "-qm", "programs"]);
    d
}

#[test]
fn every_help_states_exit_codes_and_its_examples_run() {
    let project = example_project();
    for cmd in [
        &["--help"][..],
        &["predict", "--help"],
        &["parse", "--help"],
        &["stages", "--help"],
        &["deps", "--help"],
        &["report", "--help"],
        &["check", "--help"],
        &["explain", "--help"],
        &["models", "--help"],
        &["diff", "--help"],
        &["schema", "--help"],
        &["completions", "--help"],
        &["man", "--help"],
    ] {
        let r = p4cost(cmd);
        assert_eq!(r.code, 0, "{cmd:?}");
        assert!(r.stdout.contains("Exit codes:\n  0  success"), "{cmd:?}");
        let examples: Vec<&str> = r
            .stdout
            .lines()
            .skip_while(|l| *l != "Examples:")
            .skip(1)
            .take_while(|l| !l.is_empty())
            .collect();
        assert!(
            cmd[0] == "models" || !examples.is_empty(),
            "{cmd:?} shows examples"
        );
        for ex in examples {
            let words: Vec<&str> = ex.split_whitespace().collect();
            assert_eq!(words.first(), Some(&"p4cost"), "{ex}");
            for w in &words {
                for repo_only in ["p4-samples", "tests/", "fixtures"] {
                    assert!(!w.contains(repo_only), "`{ex}` names {repo_only}");
                }
            }
            let run = common::p4cost_in(&project, &words[1..]);
            assert_eq!(run.code, 0, "`{ex}` runs: {}", run.stderr);
        }
    }
}

/// Shell completions and the manual page come from the same command-line
/// definition: every command is in them, and the bash script is valid bash.
#[test]
fn completions_and_man_pages_name_every_command() {
    let commands = [
        "predict", "check", "diff", "stages", "deps", "report", "parse", "models", "schema",
    ];
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let r = p4cost(&["completions", shell]);
        assert_eq!(r.code, 0, "{shell}: {}", r.stderr);
        for c in commands {
            assert!(r.stdout.contains(c), "{shell} completes {c}");
        }
        if shell == "bash" {
            let d = common::scratch("completions");
            let f = d.join("p4cost.bash");
            std::fs::write(&f, &r.stdout).expect("write");
            let ok = std::process::Command::new("bash")
                .arg("-n")
                .arg(&f)
                .status()
                .expect("bash runs");
            assert!(ok.success(), "the bash script parses");
        }
    }
    let r = p4cost(&["man"]);
    assert_eq!(r.code, 0);
    assert!(
        r.stdout.contains(".TH p4cost 1"),
        "{}",
        &r.stdout[..200.min(r.stdout.len())]
    );
    for c in commands {
        let page = p4cost(&["man", c]);
        assert_eq!(page.code, 0, "{c}");
        assert!(page.stdout.contains(&format!(".TH p4cost-{c} 1")), "{c}");
        assert!(
            page.stdout.contains(&format!("p4cost {c}")),
            "{c}: synopsis"
        );
    }
    let r = p4cost(&["man", "nope"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("no command `nope`"), "{}", r.stderr);
}

#[test]
fn the_readme_says_how_to_put_p4cost_on_the_path() {
    // Hooks, the language server and the shell examples call `p4cost` by
    // name: the README must say how it gets onto PATH before they do, and
    // name fabric-tna's profiles by the defines that select them.
    let readme = std::fs::read_to_string(common::root().join("README.md")).expect("README");
    let install = readme.find("## Install").expect("an Install section");
    let cmd = readme[install..]
        .find("    cargo install --path .\n")
        .map(|at| install + at)
        .expect("the install command, as a block of its own");
    for later in ["### Hooks", "### In the editor", "### In the shell"] {
        let at = readme.find(later).expect(later);
        assert!(cmd < at, "installed before {later} calls p4cost");
    }
    assert!(
        readme[install..].contains("2m28s"),
        "the measured build time"
    );
    let manifest = std::fs::read_to_string(common::root().join("Cargo.toml")).expect("manifest");
    assert!(
        manifest.contains("[[bin]]\nname = \"p4cost\""),
        "the installed binary is p4cost"
    );
    for line in readme
        .lines()
        .filter(|l| l.contains("fabric-tna with every profile"))
    {
        assert!(
            line.contains("-DWITH_UPF") && line.contains("-DWITH_INT"),
            "{line}"
        );
    }
}

/// p4cost has no type checker (issue 24, item 11): `predict` says so once
/// in the header of a P4 source's report, and in JSON; a compiler output
/// was checked by the compiler.
#[test]
fn predict_says_a_source_was_not_type_checked() {
    let r = p4cost(&["predict", SAMPLE]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let line = "checks    parsed and lowered, not type-checked (p4cost has no type checker: p4c reports type errors)";
    assert_eq!(r.stdout.lines().nth(1), Some(line), "{}", r.stdout);
    assert_eq!(r.stdout.matches("not type-checked").count(), 1);
    let v = common::json(&["predict", SAMPLE, "--format", "json"]);
    assert_eq!(v["type_checked"], false);
    let v = common::json(&[
        "predict",
        "tests/fixtures/bmv2/switch_p4_16.json",
        "--max-paths",
        "1",
        "--format",
        "json",
    ]);
    assert_eq!(v["type_checked"], true);
    let r = p4cost(&[
        "predict",
        "tests/fixtures/bmv2/switch_p4_16.json",
        "--max-paths",
        "1",
    ]);
    assert!(!r.stdout.contains("not type-checked"), "{}", r.stdout);
}
