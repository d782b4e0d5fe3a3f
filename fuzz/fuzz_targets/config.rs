//! `p4cost.toml`: parsed and resolved as `--config` reads it (relative
//! paths against p4-samples/project, as the example there), then each
//! program's options and model settled as `check` does before reading
//! the program.
#![no_main]

mod shared;

use std::path::Path;

use libfuzzer_sys::fuzz_target;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../p4-samples/project");

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
    for p in cfg.programs.iter().take(8) {
        let _ = p4cost_engine::predict::settle(&cfg.predict_options(p));
    }
});
