//! What a caller asks the engine: plain data, filled from command-line
//! flags, a `p4cost.toml` or a language-server session alike. Every
//! default is here, once.

use std::path::PathBuf;

/// How P4-16 source is read: preprocessor defines, include directories
/// and the global budgets of one translation unit.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SourceOptions {
    /// `-D NAME[=VALUE]`, in order.
    pub defines: Vec<(String, Option<String>)>,
    /// Include directories searched before the bundled includes.
    pub include_dirs: Vec<PathBuf>,
    /// Most files entered by `#include` in one program.
    pub max_includes: usize,
    /// Most tokens macro expansion may produce in one program.
    pub max_macro_output: usize,
    /// Most parse states and statements inlining may copy.
    pub max_inlined: usize,
    /// Largest input read from one file, stdin or pipe, in bytes.
    pub max_input_bytes: u64,
    /// Read the program, its includes and its compiler outputs as they are
    /// at this git revision (`HEAD~1`, a branch, a tag) instead of the
    /// working tree.
    pub revision: Option<String>,
    /// The process exits once this input is answered: the front end leaves
    /// the program's syntax tree to the exit instead of freeing it
    /// ([`p4cost_front::Options::tree_to_exit`]). Off by default.
    pub leave_to_exit: bool,
}

impl Default for SourceOptions {
    fn default() -> SourceOptions {
        SourceOptions {
            defines: Vec::new(),
            include_dirs: Vec::new(),
            max_includes: p4cost_front::Limits::DEFAULT_INCLUDES,
            max_macro_output: p4cost_front::Limits::DEFAULT_MACRO_TOKENS,
            max_inlined: p4cost_front::DEFAULT_MAX_INLINED,
            max_input_bytes: p4cost_front::Limits::DEFAULT_FILE_BYTES,
            revision: None,
            leave_to_exit: false,
        }
    }
}

impl SourceOptions {
    /// The preprocessor's budgets: the total text a program may expand to
    /// is 4 times the input budget, and at least 256 MiB.
    pub fn limits(&self) -> p4cost_front::Limits {
        let file = self.max_input_bytes;
        p4cost_front::Limits {
            max_file_bytes: file,
            max_includes: self.max_includes,
            max_macro_tokens: self.max_macro_output,
            max_total_bytes: file
                .saturating_mul(4)
                .max(p4cost_front::Limits::DEFAULT_TOTAL_BYTES),
            ..p4cost_front::Limits::default()
        }
    }

    /// The front end's options.
    pub fn front(&self) -> p4cost_front::Options {
        p4cost_front::Options {
            defines: self.defines.clone(),
            include_dirs: self.include_dirs.clone(),
            limits: self.limits(),
            max_inlined: self.max_inlined,
            tree_to_exit: self.leave_to_exit,
        }
    }
}

/// Checks `NAME[=VALUE]` as `-D` takes it: the name is a C identifier
/// (what the preprocessor can define).
pub fn check_define(d: &str) -> Result<(), String> {
    let name = d.split_once('=').map_or(d, |(n, _)| n);
    let mut chars = name.chars();
    let ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        return Ok(());
    }
    Err(format!(
        "define `{d}`: the macro name `{name}` is not an identifier (give NAME or NAME=VALUE)"
    ))
}

/// Splits `NAME[=VALUE]` as `-D` takes it.
pub fn parse_define(d: &str) -> (String, Option<String>) {
    match d.split_once('=') {
        Some((n, v)) => (n.to_string(), Some(v.to_string())),
        None => (d.to_string(), None),
    }
}

/// What a prediction is for: the model, the port and the packet size.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TargetOptions {
    /// Port speed in Gbit/s; `None`: the model's, or 10 without a model.
    pub port_gbps: Option<u32>,
    /// Packet size in bytes; `None`: [`crate::predict::DEFAULT_PACKET_SIZE`].
    pub packet_size: Option<u32>,
    /// Model name; `None`: `tofino1-<port>g`.
    pub model: Option<String>,
    /// A model file of the user's (the embedded models' format, `p4cost
    /// models --format json` shows them), in place of `model`.
    pub model_file: Option<PathBuf>,
}

impl TargetOptions {
    /// `self` laid over `base` (flags over a configuration, a program over
    /// the defaults, a hop over its program): each setting `self` gives
    /// wins; a port given without a model drops `base`'s model name, since
    /// the port then picks its own, as `--port` does, but keeps `base`'s
    /// model file, whose fit for that port the port picks (a file fitted
    /// at several ports holds one per port).
    pub fn over(&self, base: &TargetOptions) -> TargetOptions {
        let mine = self.model.is_some() || self.model_file.is_some();
        let (model, model_file) = match (mine, self.port_gbps) {
            (true, _) => (self.model.clone(), self.model_file.clone()),
            (false, Some(_)) => (None, base.model_file.clone()),
            (false, None) => (base.model.clone(), base.model_file.clone()),
        };
        TargetOptions {
            port_gbps: self.port_gbps.or(base.port_gbps),
            packet_size: self.packet_size.or(base.packet_size),
            model,
            model_file,
        }
    }
}

/// Budgets of the table dependency graph (`tofino1-mau-estimate`,
/// `stages`, `deps`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DepOptions {
    /// Most tables, gateways and statement runs in one control's graph.
    pub max_dep_units: usize,
    /// Most pairs of those examined through shared fields.
    pub max_dep_pairs: u64,
}

impl Default for DepOptions {
    fn default() -> DepOptions {
        DepOptions {
            max_dep_units: p4cost_analysis::DEFAULT_MAX_DEP_UNITS,
            max_dep_pairs: p4cost_analysis::DEFAULT_MAX_DEP_PAIRS,
        }
    }
}

impl DepOptions {
    /// The analysis limits.
    pub fn limits(&self) -> p4cost_analysis::DepLimits {
        p4cost_analysis::DepLimits {
            max_units: self.max_dep_units,
            max_pairs: self.max_dep_pairs,
        }
    }
}

/// Order of listed paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortBy {
    /// Graph (listing) order.
    #[default]
    Order,
    /// Slowest class first.
    Latency,
}

/// Most paths listed by default (all are counted).
pub const DEFAULT_MAX_PATHS: usize = 64;

/// Most parse states the listed paths hold in all, by default.
pub const DEFAULT_MAX_LISTED_STATES: usize = 200_000;

/// One prediction: the input, the target and what to list.
#[derive(Debug, Clone, PartialEq)]
pub struct PredictOptions {
    /// The program: P4-16 source, BMv2 JSON or context.json (`-`: stdin).
    pub file: PathBuf,
    /// Model, port and packet size.
    pub target: TargetOptions,
    /// Only the path extracting exactly these program headers.
    pub path: Option<Vec<String>>,
    /// Only the path at this zero-based index of the full listing (a
    /// summary extreme's `index`), in place of `path`.
    pub path_index: Option<u128>,
    /// Only the packet classes whose control path does this
    /// ([`p4cost_analysis::ClassFilter`] terms).
    pub class: Option<String>,
    /// Most classes listed under each path; `None`: 8, or 32 with `path`.
    pub max_classes: Option<usize>,
    /// Order of the listed paths.
    pub sort: SortBy,
    /// List the N paths with the heaviest parse terms instead.
    pub top: Option<usize>,
    /// Analysis-state budget of one parser.
    pub max_analysis_states: usize,
    /// Most parse states the listed paths hold in all.
    pub max_listed_states: usize,
    /// Most paths listed.
    pub max_paths: usize,
    /// Stop listing paths in graph order once the listed ones take more
    /// than this many bytes as pretty JSON (a caller's output budget):
    /// paths past it are not given their classes or kept, and
    /// `Report::output_cut` says so. `None`: no such bound.
    pub max_listing_bytes: Option<u64>,
    /// The Tofino context.json for `file`.
    pub context: Option<PathBuf>,
    /// The bfrt.json of the same compile.
    pub bfrt: Option<PathBuf>,
    /// Clock in GHz: the MAU clock of MAU-cycle models, the CPU clock of
    /// CPU models (`t4p4s`).
    pub clock_ghz: Option<f64>,
    /// CPU cores of a CPU model (`t4p4s`); `None`: the model's default.
    pub cores: Option<u32>,
    /// L3 cache in MB (10^6 bytes) of a CPU model; `None`: the model's.
    pub l3_mb: Option<f64>,
    /// Only this pipeline.
    pub pipe: Option<String>,
    /// Dependency-graph budgets.
    pub deps: DepOptions,
    /// How source is read.
    pub source: SourceOptions,
    /// Expected entries per table, by qualified name or a suffix of it
    /// after a `.` (`acl` names `FabricIngress.acl.acl`): what the stage
    /// placement estimate sizes the table's memories for, in place of its
    /// `size` or `@p4cost_entries`.
    pub entries: Vec<Entries>,
    /// Compute only what the listed paths need (each path's prediction and
    /// its fastest and slowest class), none of the figures over all paths
    /// (summary, class count and median, rejects, per-state terms, warnings
    /// over all paths): what a chain asks of a hop for each packet. The
    /// listed paths' figures are the same either way.
    pub listed_only: bool,
    /// Give each listed path its classes (`PathOut::classes`) and the
    /// report its class tables, decisions and skipped tables. Off, the
    /// listed paths keep their fastest and slowest class figures and
    /// everything over all paths stays: what the editor shows, which
    /// renders no class of a listed path (a keystroke of switch_p4_16
    /// spent a tenth of its analysis listing them).
    pub path_classes: bool,
    /// Build every listed path (the default). Off (the editor), a linear
    /// report lists only the first path that fits the packet: the editor
    /// reads of the listing only its table terms, which every path of a
    /// linear model shares, and its figures over all paths (summary,
    /// per-state terms, warnings) are the same either way.
    pub full_listing: bool,
    /// Bins of the latency histogram over packet classes in the summary
    /// (`SummaryOut::histogram`, counted exactly); 0: none.
    pub histogram_bins: usize,
    /// Which warning codes are dropped and which fail.
    pub warnings: crate::warnings::WarningPolicy,
    /// What the rate, window and MTU portability lints are told.
    pub lints: LintOptions,
    /// Set by a caller that no longer wants the answer (the language
    /// server, when a newer version arrives): checked between stages.
    pub cancel: crate::cancel::Cancel,
    /// Class-stage results kept between analyses of one document (the
    /// language server's, per open document); off by default.
    pub class_memo: crate::class_memo::ClassMemo,
    /// The process exits once this prediction is written (the `p4cost`
    /// binary's one-program `predict`): what the engine is done with is
    /// left to the exit, not freed one allocation at a time. Off by
    /// default; never for a long-lived caller or a batch.
    pub leave_to_exit: bool,
}

/// Expected entries of the tables a name picks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entries {
    /// A qualified table name or its last components.
    pub table: String,
    /// Entries expected.
    pub entries: u64,
    /// Where it was set (`p4cost.toml:9:11`), for errors.
    pub origin: Option<String>,
}

impl PredictOptions {
    /// The defaults for `file`.
    pub fn new(file: impl Into<PathBuf>) -> PredictOptions {
        PredictOptions {
            file: file.into(),
            target: TargetOptions::default(),
            path: None,
            path_index: None,
            class: None,
            max_classes: None,
            sort: SortBy::Order,
            top: None,
            max_analysis_states: p4cost_analysis::DEFAULT_MAX_ANALYSIS_STATES,
            max_listed_states: DEFAULT_MAX_LISTED_STATES,
            max_paths: DEFAULT_MAX_PATHS,
            max_listing_bytes: None,
            context: None,
            bfrt: None,
            clock_ghz: None,
            cores: None,
            l3_mb: None,
            pipe: None,
            deps: DepOptions::default(),
            source: SourceOptions::default(),
            entries: Vec::new(),
            listed_only: false,
            path_classes: true,
            full_listing: true,
            histogram_bins: 0,
            warnings: crate::warnings::WarningPolicy::default(),
            lints: LintOptions::default(),
            cancel: crate::cancel::Cancel::default(),
            class_memo: crate::class_memo::ClassMemo::default(),
            leave_to_exit: false,
        }
    }
}

/// The MTU the INT lint holds packets to when none is given, bytes
/// (Ethernet's).
pub const DEFAULT_MTU_BYTES: u32 = 1500;

/// INT hops the INT lint counts when none is given: the one hop of
/// metadata of the service-chaining paper's capture (Fig. 21: the source
/// switch's 24 B, the packet 996 -> 1020 B at the sink).
pub const DEFAULT_INT_HOPS: u32 = 1;

/// What the user tells the traffic-dependent portability lints
/// (`--rate`/`--window`/`--mtu`/`--hops`, p4cost.toml's `rate`, `window`,
/// `mtu`, `hops`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LintOptions {
    /// Packets per second that write a register slot; with `window_ns`
    /// it turns the window lint on.
    pub rate_pps: Option<f64>,
    /// How long a slot must live, ns.
    pub window_ns: Option<f64>,
    /// Largest packet the links carry, bytes; `None`: [`DEFAULT_MTU_BYTES`].
    pub mtu_bytes: Option<u32>,
    /// INT hops a packet crosses; `None`: [`DEFAULT_INT_HOPS`].
    pub hops: Option<u32>,
}

impl LintOptions {
    /// `self` laid over `base`: each setting `self` gives wins.
    pub fn over(&self, base: &LintOptions) -> LintOptions {
        LintOptions {
            rate_pps: self.rate_pps.or(base.rate_pps),
            window_ns: self.window_ns.or(base.window_ns),
            mtu_bytes: self.mtu_bytes.or(base.mtu_bytes),
            hops: self.hops.or(base.hops),
        }
    }
}
