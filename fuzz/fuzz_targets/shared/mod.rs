//! What the analysis targets share: a file system with no files (so an
//! `#include` finds only the bundled architecture files and the fuzzer never
//! reads the machine) and options as the CLI sets them from one flag byte.

#![allow(dead_code)]

use std::path::Path;

use p4cost_engine::input::{self, LoadedInput};
use p4cost_engine::{Error, PredictOptions, Session, SortBy};

/// No file exists: includes come from the bundled architecture files.
pub struct NoDisk;

impl p4cost_engine::Files for NoDisk {
    fn is_file(&self, _path: &Path) -> bool {
        false
    }
    fn read(&self, _path: &Path, _max: u64) -> Result<Vec<u8>, Option<std::io::Error>> {
        Err(Some(std::io::ErrorKind::NotFound.into()))
    }
    fn key(&self, path: &Path) -> String {
        path.display().to_string()
    }
}

/// Models a flag byte picks from (linear, MAU estimate, BMv2-style).
const MODELS: [Option<&str>; 4] = [
    None,
    Some("tofino1-100g"),
    Some("tofino1-mau-estimate"),
    Some("tofino2-mau-estimate"),
];

/// Class filters a flag byte picks from (`--class`).
const CLASSES: [&str; 4] = ["acl", "!acl,t:hit", "t:miss", "fwd:drop"];

/// `predict`/`explain` options for `file` from `flags`, budgets at the
/// CLI's defaults: bit 0 `--top N`, bit 1 `--sort latency`, bit 2
/// `--max-classes 32`, bit 3 `--class`, bits 4-5 the model, bits 6-7 N
/// and the filter.
pub fn options(file: &str, flags: u8) -> PredictOptions {
    let mut o = PredictOptions::new(file);
    let n = usize::from(flags >> 6);
    if flags & 1 != 0 {
        o.top = Some(1 + n);
    }
    if flags & 2 != 0 {
        o.sort = SortBy::Latency;
    }
    if flags & 4 != 0 {
        o.max_classes = Some(32);
    }
    o.target.model = MODELS[usize::from((flags >> 4) & 3)].map(str::to_string);
    if flags & 8 != 0 && o.target.model.is_none() {
        o.class = Some(CLASSES[n].to_string());
    }
    o
}

/// Lowers `text` as the program `o.file` (source, BMv2 or context JSON,
/// sniffed as the CLI does) into a new session.
pub fn session_with(o: &PredictOptions, text: &str) -> Session {
    let mut s = Session::new();
    s.preload(o, load(o, text));
    s
}

/// [`input::load_text`] through [`NoDisk`].
pub fn load(o: &PredictOptions, text: &str) -> Result<LoadedInput, Error> {
    input::load_text(&o.file, text.to_string(), &o.source, &NoDisk)
}

/// Whether `data` may name a device or kernel file (`#include "/dev/zero"`
/// would test the machine, not p4cost).
pub fn names_device(text: &str) -> bool {
    text.contains("/dev") || text.contains("/proc") || text.contains("/sys")
}
