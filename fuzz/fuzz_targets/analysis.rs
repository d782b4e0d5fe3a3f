//! `predict` (with `--top`, `--sort`, `--class`, `--max-classes` picked by
//! the first byte) and `explain` on the rest of the input, read as the CLI
//! reads a program (P4-16 source, BMv2 JSON or context.json), with the
//! CLI's default budgets; the reports are serialised as `--format json`
//! would.
#![no_main]

mod shared;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    if shared::names_device(text) {
        return;
    }
    let o = shared::options("fuzz.p4", flags);
    let mut session = shared::session_with(&o, text);
    if let Ok(reports) = session.reports(&o) {
        let _ = serde_json::to_string(&reports);
    }
    if let Ok(all) = p4cost_engine::explain::explain(&mut session, &o) {
        let _ = serde_json::to_string(&all);
    }
});
