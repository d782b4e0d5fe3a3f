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
        let key = LoadKey::of(o);
        self.loaded
            .entry(key)
            .or_insert_with(|| input::load_for_predict(o).map(Arc::new))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Sets what loading `o`'s input gives (an editor's unsaved buffer,
    /// lowered by [`input::load_text`]), in place of reading it.
    pub fn preload(&mut self, o: &PredictOptions, loaded: Result<LoadedInput, Error>) {
        self.loaded.insert(LoadKey::of(o), loaded.map(Arc::new));
    }

    /// [`crate::predict::reports`] of `o`, its input loaded once.
    pub fn reports(&mut self, o: &PredictOptions) -> Result<Vec<Report>, Error> {
        let (model, packet_size) = crate::predict::settle(o)?;
        let loaded = self.load(o)?.clone();
        crate::predict::reports_of(o, model, packet_size, loaded)
    }

    /// Forgets the loads of `file` (it changed).
    pub fn forget(&mut self, file: &std::path::Path) {
        self.loaded.retain(|k, _| k.file != file);
    }
}
