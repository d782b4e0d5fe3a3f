//! A session keeps what was loaded, so asking again (another budget of the
//! same program, another hop of a chain, another keystroke's question)
//! reads and lowers each input once.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use crate::error::Error;
use crate::input::{self, LoadedInput};
use crate::options::{PredictOptions, SourceOptions};
use crate::report::Report;

/// What decides the program a load gives.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct LoadKey {
    file: PathBuf,
    context: Option<PathBuf>,
    bfrt: Option<PathBuf>,
    /// With a context, the pipeline picked before combining.
    pipe: Option<String>,
    source: SourceOptions,
}

impl LoadKey {
    fn of(o: &PredictOptions) -> LoadKey {
        LoadKey {
            file: o.file.clone(),
            context: o.context.clone(),
            bfrt: o.bfrt.clone(),
            pipe: o.pipe.clone().filter(|_| o.context.is_some()),
            source: o.source.clone(),
        }
    }
}

/// Loaded inputs by what loaded them; errors are kept too, so a program
/// that fails is not read again.
#[derive(Debug, Default)]
pub struct Session {
    /// Shared, so what is built from a load (an editor's facts) can keep
    /// it without a copy.
    loaded: HashMap<LoadKey, Result<Arc<LoadedInput>, Error>>,
}

impl Session {
    /// An empty session.
    pub fn new() -> Session {
        Session::default()
    }

    /// The input `o` names, loaded once per session.
    pub fn load(&mut self, o: &PredictOptions) -> Result<&LoadedInput, Error> {
        self.shared(o).map(|l| &**l)
    }

    /// [`Session::load`], shared: the caller keeps it without a copy.
    pub fn shared(&mut self, o: &PredictOptions) -> Result<&Arc<LoadedInput>, Error> {
        self.entry(o).as_ref().map_err(Clone::clone)
    }

    /// The session's load of `o`, loaded once.
    fn entry(&mut self, o: &PredictOptions) -> &mut Result<Arc<LoadedInput>, Error> {
        self.loaded
            .entry(LoadKey::of(o))
            .or_insert_with(|| input::load_for_predict(o).map(Arc::new))
    }

    /// Sets what loading `o`'s input gives (an editor's unsaved buffer,
    /// lowered by [`input::load_text`]), in place of reading it.
    pub fn preload(&mut self, o: &PredictOptions, loaded: Result<LoadedInput, Error>) {
        self.loaded.insert(LoadKey::of(o), loaded.map(Arc::new));
    }

    /// [`crate::predict::reports`] of `o`, its input loaded once. The
    /// session's program is analysed where it is kept when nothing else
    /// holds it and `o` sets no table's entries (a keystroke's program is
    /// not copied: switch_p4_16, 11 M instructions); else on a copy.
    pub fn reports(&mut self, o: &PredictOptions) -> Result<Vec<Report>, Error> {
        let (model, packet_size) = crate::predict::settle(o)?;
        let shared = self.entry(o).as_mut().map_err(|e| e.clone())?;
        match Arc::get_mut(shared) {
            Some(loaded) if o.entries.is_empty() => {
                crate::predict::reports_in(o, model, packet_size, loaded)
            }
            _ => crate::predict::reports_of(o, model, packet_size, (**shared).clone()),
        }
    }

    /// Forgets the loads of `file` (it changed).
    pub fn forget(&mut self, file: &std::path::Path) {
        self.loaded.retain(|k, _| k.file != file);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reports of a program analysed where the session keeps it equal
    /// those of a copy, and the program is left as it was (the joined
    /// controls the analysis adds taken off).
    #[test]
    fn reports_in_place_equal_a_copys_and_leave_the_program() {
        let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../p4-samples/tofino/classes/egress.p4");
        let o = PredictOptions::new(&file);
        let fresh = crate::predict::reports(&o).expect("reports");
        assert!(
            fresh.iter().any(|r| r.control.egress.is_some()),
            "the sample joins an egress control"
        );
        let mut session = Session::new();
        let before = session.load(&o).expect("load").program.clone();
        let json = |r: &[Report]| serde_json::to_string(r).expect("json");
        for _ in 0..2 {
            let kept = session.shared(&o).expect("load");
            assert_eq!(Arc::strong_count(kept), 1, "nothing else holds it");
            let r = session.reports(&o).expect("reports in place");
            assert_eq!(json(&fresh), json(&r));
            let after = &session.load(&o).expect("load").program;
            assert_eq!(before.controls.len(), after.controls.len());
            assert_eq!(format!("{before:?}"), format!("{after:?}"));
        }
    }
}
