//! `p4cost.toml`: parsed and resolved as `--config` reads it (relative
//! paths against p4-samples/project, as the example there), the options
//! and model of the defaults settled, then `check` run over its programs
//! (at most 4), their budgets and its chains, as `p4cost check` runs in
//! the project's directory. Programs are read from the disk once per 256
//! runs (one session).
#![no_main]

mod shared;

use std::cell::RefCell;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use p4cost_engine::check::{self, Target};
use p4cost_engine::Session;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../p4-samples/project");

thread_local! {
    /// The session programs are loaded into, and the runs it served.
    static SESSION: RefCell<(Session, u32)> = RefCell::new((Session::new(), 0));
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // Model files and programs it names are read from the disk.
    if shared::names_device(text) {
        return;
    }
    let Ok(cfg) = p4cost_config::Config::parse(text, "p4cost.toml", Path::new(DIR)) else {
        return;
    };
    let (o, _) = cfg.target_for(Path::new("fuzz.p4"));
    let _ = p4cost_engine::predict::settle(&o);
    let targets: Vec<Target> = cfg
        .programs
        .iter()
        .take(4)
        .map(|p| Target {
            options: cfg.predict_options(p),
            budgets: p.budgets.clone(),
        })
        .collect();
    SESSION.with(|s| {
        let (session, runs) = &mut *s.borrow_mut();
        *runs += 1;
        if *runs > 256 {
            *session = Session::new();
            *runs = 1;
        }
        if let Ok(report) = check::check(session, &targets, &cfg.chains) {
            let _ = serde_json::to_string(&report);
        }
    });
});
