//! A FIFO, a directory or a device where a file is read is refused at
//! once, naming its kind, for every command and flag that reads a file
//! (issue 25 item 10); a held descriptor (`<(cmd)`) is still read.
#![cfg(unix)]

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{root, scratch};

const TC2: &str = "p4-samples/tofino/tc2_datacenter.p4";

/// Runs p4cost with `args`, killing it after 5 s (a hang fails the test
/// rather than the suite): exit code, and stdout then stderr (small
/// outputs, within a pipe's buffer).
fn run_bounded(args: &[&str]) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_p4cost"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("p4cost runs");
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            let mut text = String::new();
            if let Some(mut o) = child.stdout.take() {
                std::io::Read::read_to_string(&mut o, &mut text).expect("stdout");
            }
            if let Some(mut e) = child.stderr.take() {
                std::io::Read::read_to_string(&mut e, &mut text).expect("stderr");
            }
            return (status.code().unwrap_or(-1), text);
        }
        if start.elapsed() > Duration::from_secs(5) {
            let _ = child.kill();
            panic!("p4cost {args:?} still running after 5 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn mkfifo(p: &Path) {
    let ok = Command::new("mkfifo").arg(p).status().expect("mkfifo");
    assert!(ok.success());
}

#[test]
fn a_fifo_is_refused_by_every_reader_naming_its_kind() {
    let dir = scratch("special-fifo");
    let f = dir.join("pipe.p4");
    mkfifo(&f);
    let f = f.to_str().expect("path");
    let cases: Vec<Vec<&str>> = vec![
        vec!["predict", f, "--no-config"],
        vec!["explain", f, "--no-config"],
        vec!["stages", f],
        vec!["deps", f],
        vec!["report", f, "-o", "/nonexistent/r.html"],
        vec!["diff", f, TC2],
        vec!["fit", f, "-o", "/nonexistent/x.json"],
        vec!["parse", f],
        vec!["check", f, "--max-latency", "300", "--no-config"],
        vec!["predict", TC2, "--context", f, "--no-config"],
        vec!["predict", TC2, "--model-file", f, "--no-config"],
        vec!["predict", TC2, "--config", f],
    ];
    for args in cases {
        let (code, err) = run_bounded(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains("is a FIFO (named pipe), not a regular file"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn an_include_of_a_fifo_a_directory_or_a_device_names_its_kind() {
    let dir = scratch("special-include");
    mkfifo(&dir.join("pipe.p4"));
    std::fs::create_dir(dir.join("sub")).expect("dir");
    for (name, kind) in [
        ("pipe.p4", "is a FIFO (named pipe)"),
        ("sub", "is a directory"),
        ("/dev/zero", "is a character device"),
    ] {
        let main = dir.join("main.p4");
        std::fs::write(&main, format!("#include \"{name}\"\n")).expect("write");
        let (code, out) = run_bounded(&["parse", main.to_str().expect("path")]);
        assert_eq!(code, 1, "{name}: {out}");
        assert!(
            out.contains("cannot read '") && out.contains(kind),
            "{name}: {out}"
        );
        assert!(!out.contains("not found"), "{name}: {out}");
    }
}
