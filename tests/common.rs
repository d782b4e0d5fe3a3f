//! Helpers shared by the end-to-end tests: run the real `p4cost` binary.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root (tests run the binary from here so paths in the
/// output are relative and stable).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Output of one run.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `p4cost args...` from the repository root.
pub fn p4cost(args: &[&str]) -> Run {
    p4cost_in(&root(), args)
}

/// Runs `p4cost args...` from `dir`.
pub fn p4cost_in(dir: &Path, args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_p4cost"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("p4cost runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs and parses the JSON report (asserting success).
pub fn json(args: &[&str]) -> serde_json::Value {
    let r = p4cost(args);
    assert_eq!(r.code, 0, "p4cost {args:?} failed: {}", r.stderr);
    serde_json::from_str(&r.stdout).expect("valid JSON")
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("p4cost-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}
