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
    config_in(a, near, &p4cost_engine::Disk, None)
}

/// [`config`] as the files `files` hold it (a git revision's, named `rev`
/// in messages): the nearest p4cost.toml there. A `--config FILE` is read
/// from the disk whatever `files` is.
pub fn config_in(
    a: &ConfigArgs,
    near: Option<&Path>,
    files: &dyn p4cost_engine::Files,
    rev: Option<&str>,
) -> Result<Option<Config>, CliError> {
    if a.no_config {
        return Ok(None);
    }
    let loaded = match &a.config {
        Some(f) => Config::load(f),
        None => {
            let start = near
                .filter(|p| !p4cost_engine::read::is_stdin(p))
                .unwrap_or(Path::new("."));
            let Some(f) = p4cost_config::discover_in(start, files) else {
                return Ok(None);
            };
            let shown = match rev {
                Some(r) => format!("{} (at {r})", f.display()),
                None => f.display().to_string(),
            };
            Config::load_from(&f, &shown, files)
        }
    };
    loaded.map(Some).map_err(|e| CliError::input(e.to_string()))
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
    let mut o = a.options();
    o.warnings = a.warnings.policy()?;
    Ok(with_config(o, cfg.as_ref()))
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
