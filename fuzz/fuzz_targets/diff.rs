//! `diff OLD NEW`: the input split at its first NUL byte into the old and
//! the new program (no NUL: a program against itself), each read as the
//! CLI reads a program, compared with the CLI's default bounds; the first
//! byte picks the model as in the `analysis` target.
#![no_main]

mod shared;

use libfuzzer_sys::fuzz_target;
use p4cost_engine::diff::{self, DiffOptions};

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let (old, new) = match rest.iter().position(|b| *b == 0) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, rest),
    };
    let (Ok(old), Ok(new)) = (std::str::from_utf8(old), std::str::from_utf8(new)) else {
        return;
    };
    if shared::names_device(old) || shared::names_device(new) {
        return;
    }
    // Only the model: `diff` takes no --top, --sort or --class.
    let flags = flags & 0x30;
    let o = shared::options("old.p4", flags);
    let n = shared::options("new.p4", flags);
    let mut session = p4cost_engine::Session::new();
    session.preload(&o, shared::load(&o, old));
    session.preload(&n, shared::load(&n, new));
    let mut d = DiffOptions::new(o, n);
    d.fail_above_ns = Some(0.0);
    if let Ok(report) = diff::diff(&mut session, &d) {
        let _ = serde_json::to_string(&report);
    }
});
