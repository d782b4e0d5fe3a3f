//! p4cost-config: the project configuration, `p4cost.toml`.
//!
//! Found by walking up from a file or the working directory, as rustfmt and
//! ruff find theirs ([`discover`]); parsed with the `toml` crate, whose
//! spans make every mistake a `file:line:col` error ([`ConfigError`]);
//! checked as far as it can be without loading a program (paths and
//! include directories exist, model names are known, budgets are positive,
//! chains name their programs, PL <= DL); and turned into the engine's
//! options ([`Config::predict_options`]), budgets and chains, which command
//! line flags then override.
//!
//! Dependencies: `engine` (the options it fills), `model` (model names),
//! `ir`, `serde`, `toml`.

mod raw;

use std::fmt;
use std::path::{Path, PathBuf};

use p4cost_engine::chain::Chain;
use p4cost_engine::check::Budget;
use p4cost_engine::options::Entries;
use p4cost_engine::{Files, PredictOptions, TargetOptions};

/// The file name looked for.
pub const FILE_NAME: &str = "p4cost.toml";

/// Largest configuration read, in bytes.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// A configuration error, located.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The configuration file as shown.
    pub file: String,
    /// 1-based line and column, when known.
    pub line_col: Option<(usize, usize)>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line_col {
            Some((l, c)) => write!(f, "{}:{l}:{c}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for ConfigError {}

/// The nearest `p4cost.toml` in `start` (a directory, or a file's
/// directory) or a directory above it.
pub fn discover(start: &Path) -> Option<PathBuf> {
    discover_in(start, &p4cost_engine::Disk)
}

/// [`discover`] among `files` (a git revision's, say): the nearest
/// `p4cost.toml` that `files` has.
pub fn discover_in(start: &Path, files: &dyn Files) -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    let abs = raw::join(&cwd, &start.to_string_lossy());
    let mut dir = if abs.is_dir() && !files.is_file(&abs) {
        abs.as_path()
    } else {
        abs.parent()?
    };
    loop {
        let candidate = dir.join(FILE_NAME);
        if files.is_file(&candidate) {
            // Shown relative to the working directory when it is in it or
            // above it (`p4cost.toml`, `../../p4cost.toml`).
            if let Ok(rel) = candidate.strip_prefix(&cwd) {
                return Some(rel.to_path_buf());
            }
            if let Ok(below) = cwd.strip_prefix(dir) {
                let mut rel = PathBuf::new();
                for _ in below.components() {
                    rel.push("..");
                }
                return Some(rel.join(FILE_NAME));
            }
            return Some(candidate);
        }
        dir = dir.parent()?;
    }
}

/// Settings a program inherits from `[defaults]` and may override.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    /// `model`, `port` and `packet-size`.
    pub target: TargetOptions,
    /// `include-dirs`, resolved against the configuration's directory.
    pub include_dirs: Vec<PathBuf>,
    /// `defines`, as `NAME[=VALUE]`.
    pub defines: Vec<String>,
    /// `entries`.
    pub entries: Vec<Entries>,
    /// The top-level `[warnings]` table (every program's).
    pub warnings: p4cost_engine::warnings::WarningPolicy,
    /// `rate`, `window`, `mtu` and `hops` of the portability lints.
    pub lints: p4cost_engine::options::LintOptions,
}

/// One `[[program]]`.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgramConfig {
    /// `name` (default: `path` as written).
    pub name: String,
    /// `path`, resolved against the configuration's directory.
    pub path: PathBuf,
    /// `context`, resolved.
    pub context: Option<PathBuf>,
    /// `bfrt`, resolved.
    pub bfrt: Option<PathBuf>,
    /// `pipe`.
    pub pipe: Option<String>,
    /// Its settings, over the defaults.
    pub settings: Settings,
    /// Its budgets.
    pub budgets: Vec<Budget>,
}

/// A whole configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// The file it came from.
    pub file: PathBuf,
    /// `[defaults]`: what a file that is no `[[program]]` gets.
    pub defaults: Settings,
    /// Budgets every program gets (`[defaults.budget]`).
    pub default_budgets: Vec<Budget>,
    /// `[[program]]`s.
    pub programs: Vec<ProgramConfig>,
    /// `[[chain]]`s, resolved to the engine's chains.
    pub chains: Vec<Chain>,
}

impl Config {
    /// Reads and checks the configuration at `path`.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        Config::load_from(path, &path.display().to_string(), &p4cost_engine::Disk)
    }

    /// [`Config::load`] reading `path` through `files` (a git revision's),
    /// shown in messages as `shown`. Model files the configuration names
    /// are read from the disk.
    pub fn load_from(path: &Path, shown: &str, files: &dyn Files) -> Result<Config, ConfigError> {
        let err = |m: String| ConfigError {
            file: shown.to_string(),
            line_col: None,
            message: m,
        };
        let bytes = files.read(path, MAX_CONFIG_BYTES).map_err(|e| match e {
            None => err(format!(
                "larger than the {MAX_CONFIG_BYTES}-byte limit of a configuration"
            )),
            Some(e) => err(format!("cannot read: {e}")),
        })?;
        let text = String::from_utf8(bytes).map_err(|e| err(format!("not UTF-8 text: {e}")))?;
        let dir = path.parent().unwrap_or(Path::new("."));
        Config::parse(&text, shown, dir).map(|mut c| {
            c.file = path.to_path_buf();
            c
        })
    }

    /// Parses configuration `text` shown as `shown`, its relative paths
    /// resolved against `dir`.
    pub fn parse(text: &str, shown: &str, dir: &Path) -> Result<Config, ConfigError> {
        raw::resolve(text, shown, dir)
    }

    /// The program configured for `file` (same file on disk), if any.
    pub fn program_for(&self, file: &Path) -> Option<&ProgramConfig> {
        let want = std::fs::canonicalize(file).ok()?;
        self.programs
            .iter()
            .find(|p| std::fs::canonicalize(&p.path).ok().as_ref() == Some(&want))
    }

    /// The settings for `file`: its `[[program]]`'s, else `[defaults]`.
    pub fn settings_for(&self, file: &Path) -> &Settings {
        self.program_for(file)
            .map_or(&self.defaults, |p| &p.settings)
    }

    /// Engine options for program `p` (its settings over the defaults).
    pub fn predict_options(&self, p: &ProgramConfig) -> PredictOptions {
        p.options(&p.settings)
    }

    /// Engine options and budgets for `file`: its `[[program]]`'s, else
    /// `[defaults]`' settings and budgets.
    pub fn target_for(&self, file: &Path) -> (PredictOptions, Vec<Budget>) {
        match self.program_for(file) {
            Some(p) => (self.predict_options(p), p.budgets.clone()),
            None => {
                let mut o = PredictOptions::new(file);
                apply(&self.defaults, &mut o);
                (o, self.default_budgets.clone())
            }
        }
    }
}

impl ProgramConfig {
    /// Engine options for this program with settings `s` (its own, or a
    /// chain hop's over them).
    pub fn options(&self, s: &Settings) -> PredictOptions {
        let mut o = PredictOptions::new(&self.path);
        o.context.clone_from(&self.context);
        o.bfrt.clone_from(&self.bfrt);
        o.pipe.clone_from(&self.pipe);
        apply(s, &mut o);
        o
    }
}

/// Puts `s` under `o`: `o`'s target laid over `s`'s
/// ([`TargetOptions::over`]), include directories and defines before
/// `o`'s own.
pub fn apply(s: &Settings, o: &mut PredictOptions) {
    o.target = o.target.over(&s.target);
    let mut dirs = s.include_dirs.clone();
    dirs.append(&mut o.source.include_dirs);
    o.source.include_dirs = dirs;
    let mut defs: Vec<(String, Option<String>)> = s
        .defines
        .iter()
        .map(|d| p4cost_engine::options::parse_define(d))
        .collect();
    defs.append(&mut o.source.defines);
    o.source.defines = defs;
    let mut entries = s.entries.clone();
    entries.append(&mut o.entries);
    o.entries = entries;
    o.warnings = s.warnings.then(&o.warnings);
    o.lints = o.lints.over(&s.lints);
}
