//! The project configuration for a command: `--config`, `--no-config`, or
//! the nearest `p4cost.toml`; and the flags laid over what it sets.

use std::path::Path;

use p4cost_config::Config;
use p4cost_engine::PredictOptions;

use crate::args::{ConfigArgs, SourceArgs, TargetArgs};
use crate::exit::CliError;

/// The configuration for inputs at `near` (the working directory when
/// `None` or stdin).
pub fn config(a: &ConfigArgs, near: Option<&Path>) -> Result<Option<Config>, CliError> {
    if a.no_config {
        return Ok(None);
    }
    let file = match &a.config {
        Some(f) => Some(f.clone()),
        None => {
            let start = near
                .filter(|p| !p4cost_engine::read::is_stdin(p))
                .unwrap_or(Path::new("."));
            p4cost_config::discover(start)
        }
    };
    match file {
        Some(f) => Config::load(&f)
            .map(Some)
            .map_err(|e| CliError::input(e.to_string())),
        None => Ok(None),
    }
}

/// Lays the command line's target and source flags over `o` (built from a
/// configuration): a given flag wins; include directories and defines
/// come after the configuration's; the budgets of reading are the flags'.
pub fn overlay(target: &TargetArgs, source: &SourceArgs, o: &mut PredictOptions) {
    o.target = target.options().over(&o.target);
    let s = source.options();
    o.source.include_dirs.extend(s.include_dirs);
    o.source.defines.extend(s.defines);
    o.source.max_includes = s.max_includes;
    o.source.max_macro_output = s.max_macro_output;
    o.source.max_inlined = s.max_inlined;
    o.source.max_input_bytes = s.max_input_bytes;
}

/// `predict`'s options for FILE: the flags over the configuration's
/// settings for it (its `[[program]]`, else `[defaults]`).
pub fn predict_options(a: &crate::args::PredictArgs) -> Result<PredictOptions, CliError> {
    let cfg = config(&a.config, Some(&a.file))?;
    Ok(with_config(a.options(), cfg.as_ref()))
}

/// `o` (from flags) laid over `cfg`'s settings for `o.file`: its
/// `[[program]]`'s context, bfrt and pipe when the flags give none, and
/// its settings under the flags.
pub fn with_config(mut o: PredictOptions, cfg: Option<&Config>) -> PredictOptions {
    let Some(cfg) = cfg else {
        return o;
    };
    if let Some(p) = cfg.program_for(&o.file) {
        if o.context.is_none() && o.bfrt.is_none() {
            o.context.clone_from(&p.context);
            o.bfrt.clone_from(&p.bfrt);
        }
        if o.pipe.is_none() {
            o.pipe.clone_from(&p.pipe);
        }
    }
    let settings = cfg.settings_for(&o.file);
    p4cost_config::apply(settings, &mut o);
    o
}
