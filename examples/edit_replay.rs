//! Replays the language server's keystrokes without the transport, for a
//! profiler: `edit_replay switch|fabric [EDITS]` loads the program, then
//! applies EDITS (default 20) one-line edits as `tests/lsp_latency.rs`
//! does, each loaded through the document's `Reuse` and analysed by
//! `ide::facts` with its class memo, as the server's worker does. Prints
//! each edit's milliseconds and their median. Under callgrind, the
//! instructions of the edits alone are the run's minus a run with 0 edits;
//! with `--separate-threads=yes`, the main thread's are those on the path
//! from keystroke to facts (the last edit's session and facts are freed on
//! a thread of their own, as the server frees them).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use p4cost_engine::class_memo::ClassMemo;
use p4cost_engine::drop_later::DropLater;
use p4cost_engine::overlay::Overlay;
use p4cost_engine::{ide, input, PredictOptions, Session};

#[path = "../tests/edits/timed.rs"]
mod edits;
use edits::{fabric_edit, switch_edit};

fn main() {
    let mut args = std::env::args().skip(1);
    let which = args.next().unwrap_or_else(|| "switch".to_string());
    let edits: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(20);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let (mut o, edit): (PredictOptions, fn(usize, &str) -> String) = match which.as_str() {
        "fabric" => {
            let tna = root.join("fabric-tna/p4src");
            let mut o = PredictOptions::new(tna.join("tna/fabric_tna.p4"));
            o.source.include_dirs = vec![tna];
            o.source.defines = vec![("WITH_INT".to_string(), None)];
            (o, fabric_edit)
        }
        _ => (
            PredictOptions::new(root.join("programs/switch_p4_16.p4")),
            switch_edit,
        ),
    };
    o.class_memo = ClassMemo::new();
    let mut text = std::fs::read_to_string(&o.file).expect("the program");
    let mut overlay = Overlay::new();
    let mut reuse = input::Reuse::new();
    let mut took = Vec::new();
    let drops = DropLater::new();
    for k in 0..=edits {
        if k > 0 {
            text = edit(k - 1, &text);
        }
        let start = Instant::now();
        overlay.set(o.file.clone(), Arc::from(text.as_str()));
        let loaded =
            input::load_text_reusing(&o.file, text.clone(), &o.source, &overlay, &mut reuse);
        let mut session = Session::new();
        session.preload(&o, loaded);
        let (f, reports) = ide::facts_keeping(&mut session, &o, &[]);
        if k > 0 {
            took.push(start.elapsed().as_secs_f64() * 1e3);
        }
        assert!(f.error.is_none(), "edit {k}: {:?}", f.error);
        // As the server does: the session (the program), the reports and
        // the facts replaced are freed on a thread of their own.
        drops.drop_later((session, reports, f));
    }
    let mut sorted = took.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted.get(sorted.len() / 2).copied().unwrap_or(0.0);
    let (replayed, lowered) = reuse.lower_counts();
    println!(
        "{which}: median {median:.1} ms over {edits} edits {:?}; last edit: {replayed} controls replayed, {lowered} lowered",
        took.iter().map(|t| t.round() as u64).collect::<Vec<_>>()
    );
}
