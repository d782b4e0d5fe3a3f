//! How long the editor waits after a one-line edit: `p4cost lsp` over
//! stdio, 20 edits of switch_p4_16.p4 (a table's size, a comment) and of
//! fabric_tna.p4 (a control application commented out and back, a
//! comment), each timed from `didChange` to its diagnostics published and
//! the inlay hints answered for that version. The median is printed
//! (`--nocapture`); the bound asserted here is a debug build's, generous:
//! the figure that counts is a release build's,
//! `P4COST_BIN=target/release/p4cost cargo test --release --test lsp_latency -- --nocapture`.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;

use common::lsp::Client;
use common::{root, scratch};

/// Edits timed per program.
const EDITS: usize = 20;

/// The server under test: `P4COST_BIN` when set (a release build), else
/// the binary this test was built with.
fn server(dir: &Path) -> Client {
    match std::env::var_os("P4COST_BIN") {
        Some(bin) => Client::start_binary(Path::new(&bin), dir, &["lsp"]),
        None => Client::start(dir),
    }
}

/// The median of `xs`.
fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

/// Opens `file` (its text), applies `edit(k, text)` for k in 0..EDITS, and
/// gives the median time from each `didChange` to its diagnostics and
/// hints; each edit's hints are checked to be there (`hints(n)` holds).
fn time_edits(
    dir: &Path,
    file: &Path,
    edit: impl Fn(usize, &str) -> String,
    hints: impl Fn(usize) -> bool,
) -> Duration {
    let uri = format!("file://{}", file.display());
    let mut text = std::fs::read_to_string(file).expect("program");
    let mut c = server(dir);
    let mut seen = Vec::new();
    c.initialize(&mut seen);
    c.open(&uri, &text);
    let first = c.diagnostics(1, &mut seen);
    let mut took = Vec::new();
    for k in 0..EDITS {
        text = edit(k, &text);
        let version = k as i64 + 2;
        let start = Instant::now();
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version},
                   "contentChanges": [{"text": text}]}),
        );
        let diags = c.diagnostics(version, &mut seen);
        let hinted = c.request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": uri},
                   "range": {"start": {"line": 0, "character": 0},
                             "end": {"line": text.lines().count() + 1, "character": 0}}}),
            &mut seen,
        );
        took.push(start.elapsed());
        let n = hinted.as_array().map_or(0, Vec::len);
        assert!(hints(n), "edit {k}: {n} hints");
        assert!(
            diags.iter().all(|d| d["code"] != "input"),
            "edit {k} keeps the program valid: {diags:?} (first: {})",
            first.len()
        );
    }
    c.shut_down(&mut seen);
    let m = median(took.clone());
    eprintln!(
        "{}: median {:.1} ms over {EDITS} edits ({:?})",
        file.display(),
        m.as_secs_f64() * 1e3,
        took.iter().map(|d| d.as_millis()).collect::<Vec<_>>()
    );
    m
}

#[path = "edits/timed.rs"]
mod edits;
use edits::{fabric_edit, scale_size, switch_edit};

#[test]
fn an_edit_of_switch_p4_16_is_answered_in_time() {
    let dir = scratch("latency-switch");
    let file = dir.join("switch_p4_16.p4");
    std::fs::copy(
        root().join("tests/fixtures/programs/switch_p4_16.p4"),
        &file,
    )
    .expect("copy");
    let m = time_edits(&dir, &file, switch_edit, |n| n > 100);
    assert!(m < Duration::from_secs(30), "median {m:?}");
}

/// fabric-tna's tree copied into `dir`, with a p4cost.toml naming its
/// include directory and the INT profile; gives fabric_tna.p4.
fn fabric_tna(dir: &Path) -> PathBuf {
    let from = root().join("tests/fixtures/fabric-tna");
    common::copy_tree(&from, dir);
    std::fs::write(
        dir.join("p4cost.toml"),
        "[defaults]\ninclude-dirs = [\"p4src\"]\ndefines = [\"WITH_INT\"]\n",
    )
    .expect("config");
    dir.join("p4src/tna/fabric_tna.p4")
}

#[test]
fn an_edit_of_fabric_tna_is_answered_in_time() {
    let dir = scratch("latency-fabric");
    let file = fabric_tna(&dir);
    let m = time_edits(&dir, &file, fabric_edit, |_| true);
    assert!(m < Duration::from_secs(30), "median {m:?}");
}

/// The edits are what they say: each changes the text, a round of four
/// puts it back, and some make it shorter.
#[test]
fn the_timed_edits_change_the_programs() {
    assert_eq!(
        scale_size("    size = 1024;", 2).as_deref(),
        Some("    size = 2048;")
    );
    let text = std::fs::read_to_string(root().join("tests/fixtures/programs/switch_p4_16.p4"))
        .expect("program");
    let mut now = text.clone();
    let mut lengths = Vec::new();
    for k in 0..4 {
        let next = switch_edit(k, &now);
        assert_ne!(next, now, "edit {k}");
        lengths.push(next.len() as i64 - now.len() as i64);
        now = next;
    }
    assert_eq!(now, text, "the round puts everything back");
    assert!(lengths[1] > 0 && lengths[3] < 0, "{lengths:?}");
}
