//! The engine options and budgets for a document: the nearest
//! p4cost.toml's settings for it (its `[[program]]`, else `[defaults]`),
//! as `predict` and `check` would use.

use std::path::Path;

use p4cost_engine::check::Budget;
use p4cost_engine::PredictOptions;

/// Options and budgets for `path`, and the configuration error to show
/// when the p4cost.toml found cannot be read.
pub fn target_for(path: &Path) -> (PredictOptions, Vec<Budget>, Option<String>) {
    let dir = path.parent().unwrap_or(Path::new("."));
    let Some(file) = p4cost_config::discover(dir) else {
        return (PredictOptions::new(path), Vec::new(), None);
    };
    match p4cost_config::Config::load(&file) {
        Ok(cfg) => {
            let (mut o, budgets) = cfg.target_for(path);
            // The document as the editor names it: what the buffer is
            // preloaded under, and the file its spans name.
            o.file = path.to_path_buf();
            (o, budgets, None)
        }
        Err(e) => (PredictOptions::new(path), Vec::new(), Some(e.to_string())),
    }
}
