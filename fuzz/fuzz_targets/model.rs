//! Model files (`--model-file`): the input is written to a file and
//! `predict` and `explain` run with it on p4-samples/tofino/tc2_datacenter.p4
//! (lowered once), as the CLI runs them; the first byte picks `--port`.
#![no_main]

mod shared;

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use p4cost_engine::input::LoadedInput;
use p4cost_engine::{Error, PredictOptions, Session};

const PROGRAM: &str = include_str!("../../p4-samples/tofino/tc2_datacenter.p4");

fn program() -> &'static Result<LoadedInput, Error> {
    static LOADED: OnceLock<Result<LoadedInput, Error>> = OnceLock::new();
    LOADED.get_or_init(|| shared::load(&PredictOptions::new("tc2_datacenter.p4"), PROGRAM))
}

fn model_path() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        std::env::temp_dir().join(format!("p4cost-fuzz-model-{}.json", std::process::id()))
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&port, text)) = data.split_first() else {
        return;
    };
    if std::fs::write(model_path(), text).is_err() {
        return;
    }
    let mut o = PredictOptions::new("tc2_datacenter.p4");
    o.target.model_file = Some(model_path().clone());
    o.target.port_gbps = [None, Some(10), Some(100), Some(400)][usize::from(port & 3)];
    o.top = (port & 4 != 0).then_some(2);
    let mut session = Session::new();
    session.preload(&o, program().clone());
    if let Ok(reports) = session.reports(&o) {
        let _ = serde_json::to_string(&reports);
    }
    if let Ok(all) = p4cost_engine::explain::explain(&mut session, &o) {
        let _ = serde_json::to_string(&all);
    }
});
