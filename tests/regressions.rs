//! Replays every input under `tests/fixtures/regressions/` (fuzz
//! findings and hostile inputs that once crashed, hung or ate memory)
//! through `p4cost predict`, the normal code path: each must end within
//! the time limit with a report or an error, never a panic or a signal.
//! See `tests/fixtures/regressions/README.md`.

mod common;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::root;

/// Inputs whose fix belongs to another part of the code base and has not
/// landed yet, with the owner; they are listed (so they are not lost) and
/// skipped. Remove an entry once its fix is in.
const PENDING: &[(&str, &str)] = &[];

const LIMIT: Duration = Duration::from_secs(30);

fn inputs() -> Vec<PathBuf> {
    let dir = root().join("tests/fixtures/regressions");
    let mut out = Vec::new();
    for sub in std::fs::read_dir(&dir).expect("regressions dir") {
        let sub = sub.expect("entry").path();
        if !sub.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&sub).expect("subdir") {
            out.push(f.expect("entry").path());
        }
    }
    out.sort();
    out
}

fn rel(p: &std::path::Path) -> String {
    p.strip_prefix(root().join("tests/fixtures/regressions"))
        .expect("under regressions")
        .to_string_lossy()
        .replace('\\', "/")
}

#[test]
fn pending_entries_name_existing_files() {
    let all: Vec<String> = inputs().iter().map(|p| rel(p)).collect();
    for (name, owner) in PENDING {
        assert!(all.iter().any(|a| a == name), "{name} ({owner}) is gone");
    }
}

#[test]
fn every_regression_input_gets_an_answer() {
    for path in inputs() {
        let name = rel(&path);
        if let Some((_, owner)) = PENDING.iter().find(|(n, _)| *n == name) {
            eprintln!("skipped (pending, {owner}): {name}");
            continue;
        }
        let mut child = Command::new(env!("CARGO_BIN_EXE_p4cost"))
            .args(["predict", path.to_str().unwrap(), "--max-paths", "4"])
            .current_dir(root())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("p4cost runs");
        let start = Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().expect("wait") {
                break s;
            }
            if start.elapsed() > LIMIT {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{name}: no answer within {LIMIT:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let out = child.wait_with_output().expect("output");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            status.code().is_some(),
            "{name}: killed by a signal: {stderr}"
        );
        assert_ne!(status.code(), Some(101), "{name}: panicked: {stderr}");
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
    }
}
