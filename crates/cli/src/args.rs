//! Command-line arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// p4cost: predict the data-plane latency of P4 programs before they run.
#[derive(Debug, Parser)]
#[command(name = "p4cost", version, about, long_about = None, after_help = TOP_HELP)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// Colour in diagnostics: auto colours on a terminal unless NO_COLOR
    /// is set (non-empty) or TERM is dumb.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
}

/// When to colour output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless NO_COLOR or TERM=dumb.
    Auto,
    /// Always (even into a pipe or with NO_COLOR).
    Always,
    /// Never.
    Never,
}

/// Exit codes, closing every command's help (a macro: `concat!` takes
/// literals only).
macro_rules! exit_codes {
    () => {
        "Exit codes:
  0  success (and a reader that closed the pipe early)
  1  the command ran and found a failure (parse: a file that does not parse)
  2  usage or input error, with file:line:col (a JSON path for JSON) on stderr"
    };
}

/// Exit codes alone.
const EXIT_CODES: &str = exit_codes!();

/// The top-level help's closing text.
const TOP_HELP: &str = concat!(
    "Examples:
  p4cost predict prog.p4
  p4cost predict prog.p4 --port 100g --packet-size 256 --format json
  p4cost stages build/pipe/context.json
  p4cost parse p4src

",
    exit_codes!()
);

/// `predict`'s closing help text.
const PREDICT_HELP: &str = concat!(
    "Examples:
  p4cost predict prog.p4
  p4cost predict prog.p4 --path ethernet,ipv4,udp
  p4cost predict prog.p4 --model tofino1-mau-estimate
  p4cost predict build/prog.json --top 5 --format json
  p4cost predict p4src --jobs 2 --max-paths 4

",
    exit_codes!()
);

/// `parse`'s closing help text.
const PARSE_HELP: &str = concat!(
    "Examples:
  p4cost parse p4src
  p4cost parse --summary p4src/main.p4

",
    exit_codes!()
);

/// `stages`' and `deps`' closing help text.
const STAGES_HELP: &str = concat!(
    "Examples:
  p4cost stages build/pipe/context.json
  p4cost stages prog.p4 --format json
  p4cost deps prog.p4

",
    exit_codes!()
);

/// `resources`' closing help text.
const RESOURCES_HELP: &str = concat!(
    "Examples:
  p4cost resources prog.p4
  p4cost resources prog.p4 --format json
  p4cost resources t2na_prog.p4 --model tofino2-mau-estimate

",
    exit_codes!()
);

/// `report`'s closing help text.
const REPORT_HELP: &str = concat!(
    "Examples:
  p4cost report prog.p4 -o report.html
  p4cost report build/pipe/context.json -o report.html
  p4cost report prog.p4 --context build/pipe/context.json -o report.html

",
    exit_codes!()
);

/// `check`'s closing help text.
const CHECK_HELP: &str = concat!(
    "Examples:
  p4cost check prog.p4 --max-latency 400
  p4cost check p4src --max-latency 400 --port 100g --format json
  p4cost check --config ci/p4cost.toml

",
    exit_codes!()
);

/// `diff`'s closing help text.
const DIFF_HELP: &str = concat!(
    "What is compared: the slowest and fastest packet class over all paths
(exact), parse paths and classes counted, tables added and removed, MAU
cycles per gress (the compiler's on a context.json, else the placement
estimate); each parse path by its headers (its slowest and fastest class,
exact); each packet class by its name: its headers and its control path
(the tables with the way taken, and the conditions), so a class that now
applies one more table is a new class. Paths and classes are compared over
the first --max-paths paths of each side; beyond that the report says what
was left out and calls nothing added or removed. Two context.json files
(no parse graph) are compared on MAU cycles and tables.

--fail-above NS exits 1 when the slowest class of a pipeline or of a parse
path, or a class on both sides, got slower by more than NS (on MAU cycles
alone: a gress's MAU latency).

Examples:
  p4cost diff old.p4 new.p4
  p4cost diff p4src/main.p4 --base HEAD --fail-above 5
  p4cost diff old/prog.json new/prog.json --rows 3
  p4cost diff old/pipe/context.json new/pipe/context.json

",
    exit_codes!()
);

/// `lsp`'s closing help text.
const LSP_HELP: &str = concat!(
    "The server speaks the Language Server Protocol over stdin and stdout.
Each open file is analysed with the settings and budgets of the nearest
p4cost.toml (as `p4cost check FILE` would), on every change (changes that
arrive while an analysis runs are analysed once, at their last version).
It ends at `exit`, or when the client closes stdin: with exit code 0 after
a `shutdown` request, 1 without one (the protocol's rule).

Examples:
  p4cost lsp
  (VS Code, Neovim, Helix: see the README's editor section)

",
    exit_codes!()
);

/// `explain`'s closing help text.
const EXPLAIN_HELP: &str = concat!(
    "Examples:
  p4cost explain prog.p4
  p4cost explain prog.p4 --path ethernet,ipv4,udp --port 100g
  p4cost explain prog.p4 --model tofino1-mau-estimate --format json

",
    exit_codes!()
);

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Predict the latency of every parse path of a program.
    #[command(after_help = PREDICT_HELP)]
    Predict(PredictArgs),
    /// List the embedded latency models and their sources.
    #[command(after_help = EXIT_CODES)]
    Models(ModelsArgs),
    /// Check that P4 files parse and lower (files or directories,
    /// recursively `*.p4`).
    #[command(after_help = PARSE_HELP)]
    Parse(ParseArgs),
    /// MAU latency per gress and stage: the compiler's, from context.json,
    /// or estimated from a P4 program's dependencies and resources.
    #[command(after_help = STAGES_HELP)]
    Stages(StagesArgs),
    /// Memory per table and stage of the estimated placement (SRAM, TCAM,
    /// map RAM, action data, hash bits, gateways) against the chip's
    /// limits, with Scholz et al. 2020's share of the chip per table;
    /// exit 1 when it does not fit.
    #[command(after_help = RESOURCES_HELP)]
    Resources(StagesArgs),
    /// The table dependency graph of each ingress and egress control
    /// (match, action, control and reverse-read dependencies).
    #[command(after_help = STAGES_HELP)]
    Deps(DepsArgs),
    /// One self-contained HTML page of the pipeline: summary with the
    /// latency histogram over packet classes, stage map, dependency graph,
    /// parse graph, classes and warnings (no network access when opened).
    #[command(after_help = REPORT_HELP)]
    Report(ReportArgs),
    /// Hold programs to their budgets (`--max-latency`, and p4cost.toml's
    /// per program, class, gress and chain): exit 0 when all hold, 1 when
    /// one is exceeded (for hooks and CI).
    #[command(after_help = CHECK_HELP)]
    Check(CheckArgs),
    /// What a change cost: two programs, or one file at a git revision
    /// and now, compared class by class.
    #[command(after_help = DIFF_HELP)]
    Diff(DiffArgs),
    /// The whole arithmetic of one prediction: each term, its inputs and
    /// coefficient, the model file and paper (the slowest path, or
    /// --path; its slowest class, or --class). Takes predict's flags.
    #[command(after_help = EXPLAIN_HELP)]
    Explain(PredictArgs),
    /// Write a profiling suite to measure on your hardware: programs in
    /// parser, control, entries and packet-size sweeps, their table
    /// entries and manifest.csv (one row per measurement to make).
    #[command(after_help = GEN_HELP)]
    Gen(GenArgs),
    /// Fit a model of your own to measurements (a filled manifest.csv):
    /// writes a model file for --model-file.
    #[command(after_help = FIT_HELP)]
    Fit(FitArgs),
    /// How well models predict measurements: the papers' accuracy, MAE,
    /// RMSE and more, per port and overall, with an optional plot.
    #[command(after_help = VALIDATE_HELP)]
    Validate(ValidateArgs),
    /// Run the language server on stdin/stdout (for editors): diagnostics,
    /// inlay hints, hover and code lenses for open P4 files.
    #[command(after_help = LSP_HELP)]
    Lsp(LspArgs),
    /// Network-calculus delay and backlog bounds per packet class for a
    /// token-bucket flow: a device's building blocks (--device) or any
    /// latency model as a rate-latency service curve.
    #[command(after_help = EXIT_CODES)]
    Bound(BoundArgs),
    /// Throughput per packet class: pipeline passes and the NFP-4000's
    /// loss-free rate and received rate past it (--model nfp4000), or
    /// BMv2 simple_switch's coarse latency range, rate and register calls
    /// (--model bmv2-coarse).
    #[command(after_help = EXIT_CODES)]
    Throughput(ThroughputArgs),
    /// Print the JSON Schema of a command's `--format json` output (also
    /// committed as schema/<command>.schema.json).
    #[command(after_help = SCHEMA_HELP)]
    Schema(SchemaArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish,
    /// powershell).
    #[command(after_help = COMPLETIONS_HELP)]
    Completions(CompletionsArgs),
    /// Print the manual page (roff) of p4cost or of one command.
    #[command(after_help = MAN_HELP)]
    Man(ManArgs),
}

/// `gen`'s closing help text.
const GEN_HELP: &str = concat!(
    "The defaults follow the Tofino latency study (docs/models.md): 0-10 states of
2, 5, 10 and 20 B; 1-10 tables of 1-3 keys of 8, 16 and 32 bits, exact, LPM and
ternary; 1 to 100K entries; 100-1400 B packets; 10G and 100G ports.

Examples:
  p4cost gen --out suite
  p4cost gen --out suite-bmv2 --arch v1model --ports 1 --max-tables 4

",
    exit_codes!()
);

/// `fit`'s closing help text.
const FIT_HELP: &str = concat!(
    "Reads the columns port_gbps, packet_size, state_bytes, tables and latency_ns
(rows with an empty latency_ns are skipped). Models are per port: without --port
each port of the data is fitted and the file holds one fit per port, which
--port picks at predict time (the first port without it).

Examples:
  p4cost fit suite/manifest.csv --kind lr -o mine.json
  p4cost predict prog.p4 --model-file mine.json --port 100g
  p4cost fit suite/manifest.csv --kind lr --port 100 -o my-100g.json

",
    exit_codes!()
);

/// `validate`'s closing help text.
const VALIDATE_HELP: &str = concat!(
    "MODEL is a model name (p4cost models) or a model file; give one per port (a
file fitted at several ports covers each of them).

Examples:
  p4cost validate my-100g.json suite/manifest.csv
  p4cost validate my-10g.json my-100g.json suite/manifest.csv --plot fit.svg
  p4cost validate tofino1-100g suite/manifest.csv --format json

",
    exit_codes!()
);

/// `p4cost gen`.
#[derive(Debug, Args)]
pub struct GenArgs {
    /// Directory to write the suite into: new or empty (a previous suite or
    /// any other non-empty directory only with --force).
    #[arg(long, short)]
    pub out: PathBuf,
    /// Architecture of the programs.
    #[arg(long, value_enum, default_value = "tna")]
    pub arch: GenArch,
    /// Most parse states after Ethernet (parser sweep: 1..=N).
    #[arg(long, default_value_t = 10)]
    pub max_states: u32,
    /// Bytes per parse state in the parser sweep.
    #[arg(long, value_delimiter = ',', default_value = "2,5,10,20")]
    pub header_bytes: Vec<u32>,
    /// Most tables (control sweep: 1..=T).
    #[arg(long, default_value_t = 10)]
    pub max_tables: u32,
    /// Key field widths in the control sweep, bits (8, 16, 32, 64).
    #[arg(long, value_delimiter = ',', default_value = "8,16,32")]
    pub key_bits: Vec<u32>,
    /// Most key fields per table (control sweep: 1..=K).
    #[arg(long, default_value_t = 3)]
    pub max_keys: u32,
    /// Match kinds of the control and entries sweeps.
    #[arg(
        long = "match",
        value_enum,
        value_delimiter = ',',
        default_value = "exact,lpm,ternary"
    )]
    pub matches: Vec<GenMatch>,
    /// Entries per table in the control sweep (combinations whose keys
    /// cannot hold that many are left out).
    #[arg(long, default_value_t = 100)]
    pub control_entries: u64,
    /// Entry counts of the entries sweep (one 32-bit key).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1,10,100,1000,10000,100000"
    )]
    pub entries: Vec<u64>,
    /// Packet sizes every program is measured at, bytes.
    #[arg(long, value_delimiter = ',', default_value = "100,400,700,1000,1400")]
    pub packet_sizes: Vec<u32>,
    /// Packet sizes of the baseline program (the packet-size sweep).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "100,200,300,400,500,600,700,800,900,1000,1100,1200,1300,1400"
    )]
    pub baseline_sizes: Vec<u32>,
    /// Port speeds to measure at, Gbit/s.
    #[arg(long, value_delimiter = ',', default_value = "10,100")]
    pub ports: Vec<u32>,
    /// Write into a non-empty directory: the files gen writes replace any
    /// there (a previous manifest.csv's measurements are lost; a link is
    /// replaced, never written through); other files are left alone.
    #[arg(long)]
    pub force: bool,
}

/// Architectures `gen` writes for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GenArch {
    /// Tofino Native Architecture (tna.p4); entries as bfrt_python.
    Tna,
    /// BMv2 simple_switch (v1model.p4); entries as simple_switch_CLI commands.
    V1model,
}

/// Match kinds `gen` sweeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GenMatch {
    /// Exact match (SRAM).
    Exact,
    /// Longest-prefix match on the first key field (TCAM).
    Lpm,
    /// Ternary match (TCAM).
    Ternary,
}

/// Kinds of model `fit` makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FitKind {
    /// The papers' linear regression: a tofino_ingress_linear model (base,
    /// per-state and per-byte parser terms, per-table costs by match and
    /// key class).
    Lr,
    /// PCA-Lasso-polynomial: degree-2 polynomial features, PCA and Lasso,
    /// components and penalty cross-validated; a parser part and a control
    /// part (a `plp` model).
    Plp,
    /// The component-model method: per component (base, parse states by
    /// size, tables by kind and key bits, entries) the function family that
    /// scores best on held-out points, with breakpoints (a `component`
    /// model).
    Component,
}

/// `p4cost fit`.
#[derive(Debug, Args)]
pub struct FitArgs {
    /// The measurements (a filled manifest.csv of `p4cost gen`).
    pub data: PathBuf,
    /// The kind of model.
    #[arg(long, value_enum, default_value = "lr")]
    pub kind: FitKind,
    /// The model file to write.
    #[arg(long, short)]
    pub output: PathBuf,
    /// Fit this port only [default: every port of the data, one fit per
    /// port in one file].
    #[arg(long, value_parser = port_gbps)]
    pub port: Option<u32>,
    /// The model's name [default: the output file's stem].
    #[arg(long)]
    pub name: Option<String>,
    /// The target measured (recorded in the model; `tofino1` models warn
    /// on programs for other targets).
    #[arg(long, default_value = "custom")]
    pub target: String,
    /// Narrowest single key of the wide key class, bits (the paper: 16).
    #[arg(long, default_value_t = 16)]
    pub wide_key_bits: u32,
    /// Write the model even when one of its terms (the base, a state's or
    /// a table's share, the parser or control part) goes below zero on its
    /// own training rows; the model's notes say which, and predict warns
    /// `fitted_model_extrapolates` where it happens.
    #[arg(long)]
    pub allow_negative: bool,
    /// Output format of the summary printed (the model file is JSON).
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// Replace an existing -o file (a link is replaced, never written
    /// through); the data file itself is never replaced.
    #[arg(long)]
    pub force: bool,
}

/// `p4cost validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// MODEL [MODEL...] DATA: model names or files (one per port), then
    /// the measurement file.
    #[arg(required = true, num_args = 2.., value_names = ["MODEL", "DATA"])]
    pub inputs: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// Also draw predicted against measured, and the residuals, as SVG
    /// (a new file; an input is never replaced).
    #[arg(long, value_name = "OUT.svg")]
    pub plot: Option<PathBuf>,
    /// Replace an existing --plot file (a link is replaced, never written
    /// through).
    #[arg(long)]
    pub force: bool,
}

/// `-D NAME[=VALUE]`.
fn define(s: &str) -> Result<String, String> {
    p4cost_engine::options::check_define(s).map(|()| s.to_string())
}

/// `--port` of fit: `100`, `100g` or `100G`.
fn port_gbps(s: &str) -> Result<u32, String> {
    let t = s.trim().trim_end_matches(['g', 'G']);
    match t.parse::<u32>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("`{s}` is not a port speed in Gbit/s (10, 100g)")),
    }
}

/// `completions`' closing help text.
const COMPLETIONS_HELP: &str = concat!(
    "Install, for example:
  bash: p4cost completions bash > ~/.local/share/bash-completion/completions/p4cost
  zsh:  p4cost completions zsh > ~/.zfunc/_p4cost   (with fpath+=~/.zfunc)
  fish: p4cost completions fish > ~/.config/fish/completions/p4cost.fish

Examples:
  p4cost completions bash
  p4cost completions fish

",
    exit_codes!()
);

/// `man`'s closing help text.
const MAN_HELP: &str = concat!(
    "Read it with `p4cost man | man -l -`; install it as man1/p4cost.1.

Examples:
  p4cost man
  p4cost man check

",
    exit_codes!()
);

/// `p4cost completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// `p4cost man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// A command (`predict`, `check`, ...) for its own page [default: the
    /// page of p4cost].
    pub command: Option<String>,
}

/// `schema`'s closing help text.
const SCHEMA_HELP: &str = concat!(
    "Every JSON report carries `schema_version`; it changes when the shape does.

Examples:
  p4cost schema predict
  p4cost schema check

",
    exit_codes!()
);

/// `p4cost schema`.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// The command whose JSON output the schema describes.
    #[arg(value_enum)]
    pub command: SchemaFor,
}

/// Commands with a JSON output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SchemaFor {
    /// `predict --format json`: one report, or `pipelines[]`.
    Predict,
    /// `check --format json`.
    Check,
    /// `diff --format json`.
    Diff,
    /// `stages --format json`.
    Stages,
    /// `resources --format json`.
    Resources,
    /// `deps --format json`.
    Deps,
    /// `models --format json`.
    Models,
    /// `explain --format json`: one explanation, or one per pipeline.
    Explain,
    /// `validate --format json`.
    Validate,
    /// `fit --format json`: the summary printed (the model file itself is
    /// one element of `models`' schema).
    Fit,
    /// `bound --format json`.
    Bound,
    /// `throughput --format json`.
    Throughput,
}

/// `p4cost lsp`.
#[derive(Debug, Args)]
pub struct LspArgs {
    /// Accepted for clients that pass it: stdio is the transport.
    #[arg(long)]
    pub stdio: bool,
}

/// `p4cost diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The old program (P4-16 source, BMv2 JSON or context.json); with
    /// --base and no NEW, the file itself.
    pub old: PathBuf,
    /// The new program [default: OLD as it is now].
    pub new: Option<PathBuf>,
    /// Read OLD, its includes, its compiler outputs and its p4cost.toml as
    /// they are at this git revision (`HEAD~1`, a branch, a tag), through
    /// git: nothing is checked out.
    #[arg(long, value_name = "REV")]
    pub base: Option<String>,
    /// Exit 1 when the slowest class of a pipeline or of a parse path, or
    /// a class on both sides, got slower by more than NS.
    #[arg(long, value_name = "NS", allow_negative_numbers = true)]
    pub fail_above: Option<f64>,
    /// Also compare parse paths and packet classes one by one, from each
    /// side's listing (bounded by --max-paths and --max-classes); without
    /// it only the summaries are compared (counts, slowest and fastest
    /// class, each table's and parse state's term), in time linear in the
    /// program.
    #[arg(long)]
    pub paths: bool,
    /// With --paths: parse paths listed on each side to compare classes
    /// (all are counted; the slowest and fastest class are exact whatever
    /// this is).
    #[arg(long, value_name = "N", requires = "paths", default_value_t = p4cost_engine::diff::DEFAULT_MAX_PATHS)]
    pub max_paths: usize,
    /// With --paths: classes listed under each path to compare.
    #[arg(long, value_name = "N", requires = "paths", default_value_t = p4cost_engine::diff::DEFAULT_MAX_CLASSES)]
    pub max_classes: usize,
    /// Rows of each list (changed, added, removed) printed; JSON lists up
    /// to 1000, and the counts are always complete.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub rows: usize,
    /// Only the pipeline with this name.
    #[arg(long, value_name = "NAME")]
    pub pipe: Option<String>,
    /// Model, port and packet size of both sides.
    #[command(flatten)]
    pub target: TargetArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// Project configuration (its settings for each file, under the
    /// flags; with --base the old side's is the nearest p4cost.toml of the
    /// revision, unless --config names one for both sides).
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Preprocessor flags (both sides).
    #[command(flatten)]
    pub source: SourceArgs,
    /// Preprocessor flags of one side (after -D/-I).
    #[command(flatten)]
    pub sides: SideSourceArgs,
}

/// `diff`'s preprocessor flags for one side only, added after the `-D` and
/// `-I` both sides get (two profiles of one program: `--new-define
/// WITH_INT`).
#[derive(Debug, Args)]
pub struct SideSourceArgs {
    /// Define a macro for OLD only: `--old-define NAME[=VALUE]`.
    #[arg(long = "old-define", value_name = "NAME[=VALUE]")]
    pub old_defines: Vec<String>,
    /// Define a macro for NEW only.
    #[arg(long = "new-define", value_name = "NAME[=VALUE]")]
    pub new_defines: Vec<String>,
    /// Add an include directory for OLD only (it must exist).
    #[arg(long = "old-include", value_name = "DIR", value_parser = existing_dir)]
    pub old_include_dirs: Vec<PathBuf>,
    /// Add an include directory for NEW only (it must exist).
    #[arg(long = "new-include", value_name = "DIR", value_parser = existing_dir)]
    pub new_include_dirs: Vec<PathBuf>,
}

impl SideSourceArgs {
    /// `both` with one side's own defines and include directories after
    /// its own.
    pub fn apply(
        &self,
        mut both: p4cost_engine::SourceOptions,
        new: bool,
    ) -> p4cost_engine::SourceOptions {
        let (defines, dirs) = if new {
            (&self.new_defines, &self.new_include_dirs)
        } else {
            (&self.old_defines, &self.old_include_dirs)
        };
        both.defines.extend(
            defines
                .iter()
                .map(|d| p4cost_engine::options::parse_define(d)),
        );
        both.include_dirs.extend(dirs.iter().cloned());
        both
    }
}

/// `p4cost deps`.
#[derive(Debug, Args)]
pub struct DepsArgs {
    /// A P4-16 source file or p4c's BMv2 JSON; `-` reads stdin.
    pub file: PathBuf,
    /// Only this pipeline (a package instance name, e.g. `pipe`).
    #[arg(long, value_name = "NAME")]
    pub pipe: Option<String>,
    /// Output format: a readable list, JSON, or a graphviz DOT graph
    /// (`p4cost deps prog.p4 --format dot | dot -Tsvg > deps.svg`).
    #[arg(long, value_enum, default_value = "human")]
    pub format: DepsFormat,
    /// Dependency-graph budgets.
    #[command(flatten)]
    pub deps: DepArgs,
    /// Preprocessor flags.
    #[command(flatten)]
    pub source: SourceArgs,
}

/// Budgets of the table dependency graph (`deps`, and the placement
/// estimate of `stages` and `predict --model tofino1-mau-estimate`).
#[derive(Debug, Clone, Args)]
pub struct DepArgs {
    /// Most tables, gateways and statement runs in one control's
    /// dependency graph.
    #[arg(long, value_name = "N", default_value_t = p4cost_analysis::DEFAULT_MAX_DEP_UNITS)]
    pub max_dep_units: usize,
    /// Most pairs of those the graph examines through shared fields.
    #[arg(long, value_name = "N", default_value_t = p4cost_analysis::DEFAULT_MAX_DEP_PAIRS)]
    pub max_dep_pairs: u64,
}

impl DepArgs {
    /// The engine's dependency-graph budgets these flags give.
    pub fn options(&self) -> p4cost_engine::DepOptions {
        p4cost_engine::DepOptions {
            max_dep_units: self.max_dep_units,
            max_dep_pairs: self.max_dep_pairs,
        }
    }
}

/// Output format of `p4cost deps`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DepsFormat {
    /// A readable list.
    Human,
    /// One JSON object (versioned schema).
    Json,
    /// A graphviz DOT graph: tables boxes, gateways diamonds, statement
    /// runs ellipses; match edges red, action blue, control dashed grey,
    /// reverse read dotted green.
    Dot,
}

/// `p4cost parse`.
#[derive(Debug, Args)]
pub struct ParseArgs {
    /// Files or directories; `-` reads stdin.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// One line per failure and a closing `N parsed, M failed` line.
    #[arg(long)]
    pub summary: bool,
    /// Preprocessor flags.
    #[command(flatten)]
    pub source: SourceArgs,
}

/// `p4cost stages`.
#[derive(Debug, Args)]
pub struct StagesArgs {
    /// A Tofino context.json (the compiler's placement), or a P4-16 source
    /// or BMv2 JSON (placement estimated by p4cost); `-` reads stdin.
    pub file: PathBuf,
    /// Model for an estimate from the program [default:
    /// tofino1-mau-estimate, tofino2-mau-estimate for t2na programs].
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// A placement-estimate model file of your own (kind
    /// tofino_mau_estimate) instead of an embedded model.
    #[arg(long, value_name = "PATH", conflicts_with = "model")]
    pub model_file: Option<PathBuf>,
    /// Only this pipeline (a package instance name) [default: the first].
    #[arg(long, value_name = "NAME")]
    pub pipe: Option<String>,
    /// MAU clock in GHz (Tofino SKUs run at 1.0-1.5 GHz) [default: the
    /// tofino1-mau-cycles model's `default_clock_ghz`].
    #[arg(long, value_name = "F")]
    pub clock_ghz: Option<f64>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// Each table's and gateway's stage and why it is not earlier: the
    /// dependency (which field, written by which unit in which stage), the
    /// resource that was full, or "first stage" (estimates only).
    #[arg(long)]
    pub explain: bool,
    /// Dependency-graph budgets (estimates).
    #[command(flatten)]
    pub deps: DepArgs,
    /// Preprocessor flags and input budget.
    #[command(flatten)]
    pub source: SourceArgs,
}

impl StagesArgs {
    /// The engine's options these flags give (`stages` and `resources`
    /// take the same).
    pub fn options(&self) -> p4cost_engine::stages::StagesOptions {
        p4cost_engine::stages::StagesOptions {
            file: self.file.clone(),
            source: self.source.options(),
            model: self.model.clone(),
            model_file: self.model_file.clone(),
            pipe: self.pipe.clone(),
            clock_ghz: self.clock_ghz,
            deps: self.deps.options(),
        }
    }
}

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A readable table.
    Human,
    /// One JSON object (versioned schema).
    Json,
}

/// Output format of `predict` and `check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// A readable table.
    Human,
    /// One JSON object (versioned schema, `p4cost schema COMMAND`).
    Json,
    /// SARIF 2.1.0 for code-scanning UIs (check: each exceeded budget;
    /// predict: the warnings).
    Sarif,
}

/// Order of listed paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SortBy {
    /// Graph (listing) order.
    Order,
    /// Slowest first.
    Latency,
}

/// Port speed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Port {
    /// 10 Gbit/s.
    #[value(name = "10g")]
    G10,
    /// 100 Gbit/s.
    #[value(name = "100g")]
    G100,
}

impl Port {
    /// Speed in Gbit/s.
    pub fn gbps(self) -> u32 {
        match self {
            Port::G10 => 10,
            Port::G100 => 100,
        }
    }
}

/// Flags shared by everything that reads P4 source.
#[derive(Debug, Clone, Args)]
pub struct SourceArgs {
    /// Define a preprocessor macro: `-D NAME` or `-D NAME=VALUE`.
    #[arg(short = 'D', value_name = "NAME[=VALUE]", value_parser = define)]
    pub defines: Vec<String>,
    /// Add an include directory (searched before the bundled includes);
    /// it must exist.
    #[arg(short = 'I', value_name = "DIR", value_parser = existing_dir)]
    pub include_dirs: Vec<PathBuf>,
    /// Most files entered by `#include` in one program, each inclusion
    /// counted (guarded re-includes are free).
    #[arg(long, value_name = "N", default_value_t = p4cost_front::Limits::DEFAULT_INCLUDES)]
    pub max_includes: usize,
    /// Most tokens macro expansion may produce in one program.
    #[arg(long, value_name = "TOKENS", default_value_t = p4cost_front::Limits::DEFAULT_MACRO_TOKENS)]
    pub max_macro_output: usize,
    /// Most parse states and statements that sub-parser and sub-control
    /// calls may copy into their callers, over the whole program.
    #[arg(long, value_name = "N", default_value_t = p4cost_front::DEFAULT_MAX_INLINED)]
    pub max_inlined: usize,
    /// Input budget.
    #[command(flatten)]
    pub input: InputArgs,
}

impl SourceArgs {
    /// The engine's source options these flags give.
    pub fn options(&self) -> p4cost_engine::SourceOptions {
        p4cost_engine::SourceOptions {
            defines: self
                .defines
                .iter()
                .map(|d| p4cost_engine::options::parse_define(d))
                .collect(),
            include_dirs: self.include_dirs.clone(),
            max_includes: self.max_includes,
            max_macro_output: self.max_macro_output,
            max_inlined: self.max_inlined,
            max_input_bytes: self.input.max_input_bytes,
            revision: None,
            leave_to_exit: false,
        }
    }
}

/// The budget on what is read from one file, stdin or pipe.
#[derive(Debug, Clone, Args)]
pub struct InputArgs {
    /// Largest input read, in bytes: FILE, stdin, each included file and
    /// JSON input [default: 67108864, 64 MiB].
    #[arg(long, value_name = "BYTES", default_value_t = p4cost_front::Limits::DEFAULT_FILE_BYTES, hide_default_value = true)]
    pub max_input_bytes: u64,
}

/// What a prediction is for: the model, the port and the packet size
/// (`predict` and `check`).
#[derive(Debug, Clone, Args)]
pub struct TargetArgs {
    /// Port speed the model is for; picks the port's fit in a model file
    /// of several ports [default: the --model's port (a file of several
    /// ports: its first); 10g without --model].
    #[arg(long, value_enum)]
    pub port: Option<Port>,
    /// Packet size in bytes, 64-16384 [default: 512; under nfp4000 and
    /// bmv2-coarse the size the model was measured at: 134 and 1500]; the
    /// latency models were trained on 100-1400.
    #[arg(long, value_name = "BYTES", allow_negative_numbers = true, value_parser = packet_bytes)]
    pub packet_size: Option<u32>,
    /// Model name (see `p4cost models`) [default: tofino1-<port>].
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// A model file (JSON, the format of the embedded models: `p4cost
    /// models --format json`), such as one fitted on your own hardware,
    /// in place of --model.
    #[arg(long, value_name = "MODEL.json", conflicts_with = "model")]
    pub model_file: Option<PathBuf>,
}

/// What the traffic-dependent portability lints are told (`predict` and
/// `check`; docs/sarif.md).
#[derive(Debug, Clone, Args)]
pub struct LintArgs {
    /// Packets per second that write a ring array's slot (`10Mpps`; pps,
    /// Kpps, Mpps, Gpps): with --window, `register_window_too_small`
    /// holds ring arrays of per-packet slots to rate x window cells
    /// (without both, that lint is silent).
    #[arg(long, value_name = "RATE", allow_hyphen_values = true, value_parser = rate_flag)]
    pub rate: Option<f64>,
    /// How long a ring array's slot must live (`20ms`; ns, us, ms, s).
    #[arg(long, value_name = "TIME", allow_hyphen_values = true, value_parser = window_flag)]
    pub window: Option<f64>,
    /// Largest packet the links carry, in bytes, counted as
    /// --packet-size counts (`int_bytes_exceed_mtu`) [default: 1500].
    #[arg(long, value_name = "BYTES", allow_negative_numbers = true, value_parser = mtu_flag)]
    pub mtu: Option<u32>,
    /// INT hops that each add the pipeline's added headers to a packet
    /// [default: 1].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = hops_flag)]
    pub hops: Option<u32>,
}

impl LintArgs {
    /// The engine's lint options these flags give.
    pub fn options(&self) -> p4cost_engine::options::LintOptions {
        p4cost_engine::options::LintOptions {
            rate_pps: self.rate,
            window_ns: self.window,
            mtu_bytes: self.mtu,
            hops: self.hops,
        }
    }
}

fn rate_flag(s: &str) -> Result<f64, String> {
    p4cost_engine::lint_units::parse_rate(s, "--rate").map_err(|e| e.to_string())
}

fn window_flag(s: &str) -> Result<f64, String> {
    p4cost_engine::lint_units::parse_window(s, "--window").map_err(|e| e.to_string())
}

fn whole_flag(s: &str, what: &str, min: u32, of: &str) -> Result<u32, String> {
    let v: i64 = s
        .trim()
        .parse()
        .map_err(|_| format!("{what} `{s}` is not a whole number"))?;
    p4cost_engine::lint_units::whole(v, what, min, of).map_err(|e| e.to_string())
}

fn mtu_flag(s: &str) -> Result<u32, String> {
    whole_flag(s, "--mtu", MIN_MTU_BYTES, "a size in bytes")
}

fn hops_flag(s: &str) -> Result<u32, String> {
    whole_flag(s, "--hops", 1, "a hop count")
}

/// The smallest MTU `--mtu` (and p4cost.toml's `mtu`) takes: Ethernet's
/// smallest frame.
pub const MIN_MTU_BYTES: u32 = 64;

/// Where the project configuration comes from.
#[derive(Debug, Clone, Args)]
pub struct ConfigArgs {
    /// The p4cost.toml to use [default: the nearest p4cost.toml in the
    /// file's directory or above, else in the working directory or above].
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,
    /// Use no p4cost.toml.
    #[arg(long)]
    pub no_config: bool,
}

/// Which warnings are shown, dropped or fail, and how many sites the
/// table lists (`predict`, `explain`, `check`).
#[derive(Debug, Clone, Args)]
pub struct WarningArgs {
    /// Drop warnings of these codes (repeatable, or comma-separated;
    /// `all` for every code) from every output: table, JSON, SARIF. Over
    /// p4cost.toml's `[warnings]`.
    #[arg(long, value_name = "CODE", value_delimiter = ',')]
    pub allow: Vec<String>,
    /// Make warnings of these codes failures (repeatable, or
    /// comma-separated; `all` or `warnings` for every code): exit 1 when
    /// one occurs. A named code beats `all`.
    #[arg(long, value_name = "CODE", value_delimiter = ',')]
    pub deny: Vec<String>,
    /// Print no warnings in the table (a line counts them); JSON and
    /// SARIF keep them.
    #[arg(long, short = 'q', conflicts_with = "verbose")]
    pub quiet: bool,
    /// List every site of each warning code in the table (default: the
    /// first 3 per code).
    #[arg(long, short = 'v')]
    pub verbose: bool,
}

impl WarningArgs {
    /// The policy these flags give; an unknown code (or one both allowed
    /// and denied) is a usage error.
    pub fn policy(&self) -> Result<p4cost_engine::warnings::WarningPolicy, crate::exit::CliError> {
        p4cost_engine::warnings::WarningPolicy::new(
            self.allow.iter().map(String::as_str),
            self.deny.iter().map(String::as_str),
        )
        .map_err(|e| crate::exit::CliError::input(format!("--allow/--deny: {e}")))
    }

    /// How much of the warnings the table shows.
    pub fn detail(&self) -> crate::render::Detail {
        match (self.quiet, self.verbose) {
            (true, _) => crate::render::Detail::Quiet,
            (_, true) => crate::render::Detail::Verbose,
            _ => crate::render::Detail::Normal,
        }
    }
}

/// `p4cost check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Programs: P4-16 source, BMv2 JSON or context.json files, or
    /// directories (every `*.p4` under them that no other file there
    /// includes) [default: the p4cost.toml's programs and chains].
    pub paths: Vec<PathBuf>,
    /// Programs judged at once [default: the number of CPUs].
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
    /// Budget in ns on every packet class of every program (its slowest
    /// class must be within it), added to the p4cost.toml's.
    #[arg(long, value_name = "NS", allow_negative_numbers = true)]
    pub max_latency: Option<f64>,
    /// Model, port and packet size (over the p4cost.toml's).
    #[command(flatten)]
    pub target: TargetArgs,
    /// Rate, window, MTU and hops of the portability lints (over the
    /// p4cost.toml's).
    #[command(flatten)]
    pub lints: LintArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: ReportFormat,
    /// Project configuration.
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Preprocessor flags (after the p4cost.toml's).
    #[command(flatten)]
    pub source: SourceArgs,
    /// Warning levels and detail.
    #[command(flatten)]
    pub warnings: WarningArgs,
}

/// `p4cost predict`.
#[derive(Debug, Args)]
pub struct PredictArgs {
    /// The program: P4-16 source, BMv2 JSON or Tofino context.json
    /// (detected by content); `-` reads stdin. A directory, or more than
    /// one FILE, predicts each program (every `*.p4` under a directory
    /// that no other file there includes) and ends with a summary.
    pub file: PathBuf,
    /// More programs (files or directories), as FILE.
    #[arg(value_name = "MORE")]
    pub more: Vec<PathBuf>,
    /// Programs analysed at once, over several files [default: the
    /// number of CPUs].
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
    /// Model, port and packet size.
    #[command(flatten)]
    pub target: TargetArgs,
    /// Rate, window, MTU and hops of the portability lints.
    #[command(flatten)]
    pub lints: LintArgs,
    /// Only the path whose extracted program headers are exactly this
    /// comma-separated sequence (`hdr.ipv4,hdr.udp` or `ipv4,udp`). An
    /// exact match wins; when there is none, a path with a leading Ethernet
    /// header before the sequence is taken and the output says so. When
    /// several paths match, the first in listing order is shown.
    #[arg(long, value_name = "H1,H2,...", value_delimiter = ',')]
    pub path: Option<Vec<String>>,
    /// Show only the packet classes whose ingress control path does
    /// this: comma-separated terms, all required: `TABLE` (applied),
    /// `!TABLE` (not applied), `TABLE:hit`, `TABLE:miss`, `TABLE:ACTION`
    /// (the `action_run` arm taken). A name matches a qualified name that
    /// ends with it (`acl` matches `FabricIngress.acl.acl`).
    #[arg(long, value_name = "TERMS")]
    pub class: Option<String>,
    /// List at most this many packet classes under each listed path (all
    /// are counted) [default: 8; 32 with --path].
    #[arg(long, value_name = "N")]
    pub max_classes: Option<usize>,
    /// Order of the listed paths: `order` (graph order) or `latency`
    /// (by their slowest class, slowest first).
    #[arg(long, value_enum, default_value = "order")]
    pub sort: SortBy,
    /// List the N paths with the heaviest parse terms of all (found
    /// without listing them all) instead of the first --max-paths; each
    /// path shows its classes.
    #[arg(long, value_name = "N", conflicts_with = "path")]
    pub top: Option<usize>,
    /// Give up analysing a parser past this many analysis states (parse
    /// state x header-stack fill).
    #[arg(long, value_name = "N", default_value_t = p4cost_analysis::DEFAULT_MAX_ANALYSIS_STATES)]
    pub max_analysis_states: usize,
    /// Stop listing paths once the listed paths hold this many parse
    /// states in all (bounds output size and memory).
    #[arg(long, value_name = "N", default_value_t = p4cost_engine::options::DEFAULT_MAX_LISTED_STATES)]
    pub max_listed_states: usize,
    /// With --format json: write at most about this many bytes; listed
    /// paths that would go over are left out, and `output_cut` (and a note
    /// on stderr) says so [default: 64 MiB].
    #[arg(long, value_name = "BYTES", default_value_t = crate::output_budget::DEFAULT_MAX_OUTPUT_BYTES)]
    pub max_output_bytes: u64,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: ReportFormat,
    /// List at most this many paths (all paths are always counted).
    #[arg(long, value_name = "N", default_value_t = p4cost_engine::options::DEFAULT_MAX_PATHS)]
    pub max_paths: usize,
    /// The Tofino compiler's context.json (`pipe/context.json`) for FILE:
    /// the parse graph comes from FILE, the tables, controls and stage
    /// placement from this file.
    #[arg(long, value_name = "CONTEXT.json")]
    pub context: Option<PathBuf>,
    /// The bfrt.json of the same compile (key widths and sizes the context
    /// lacks); needs --context or a context.json as FILE.
    #[arg(long, value_name = "BFRT.json")]
    pub bfrt: Option<PathBuf>,
    /// Clock in GHz: the MAU clock for `--model tofino1-mau-cycles`
    /// [default: the model's, 1.22], the CPU clock for `--model t4p4s`
    /// [default: 2.0]; rejected with other models.
    #[arg(long, value_name = "F")]
    pub clock_ghz: Option<f64>,
    /// CPU cores forwarding, for `--model t4p4s` (1 or more) [default: 1].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = cores)]
    pub cores: Option<u32>,
    /// L3 cache in MB (10^6 bytes) an exact table must fit in, for
    /// `--model t4p4s` [default: 20].
    #[arg(long, value_name = "MB", allow_negative_numbers = true, value_parser = l3_mb)]
    pub l3_mb: Option<f64>,
    /// Expected entries of a table, `TABLE=N` (repeatable; N at least 1;
    /// a name matches a qualified name that ends with it, as --class):
    /// over p4cost.toml's `[program.entries]` and the table's `size`.
    #[arg(long, value_name = "TABLE=N", value_parser = entries_flag)]
    pub entries: Vec<(String, u64)>,
    /// Only the pipeline with this name (a `Pipeline` instance of `main`,
    /// `main` for single-pipeline architectures); default: every pipeline.
    #[arg(long, value_name = "NAME")]
    pub pipe: Option<String>,
    /// Dependency-graph budgets (`--model tofino1-mau-estimate`).
    #[command(flatten)]
    pub deps: DepArgs,
    /// Project configuration (its settings for FILE, under the flags).
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Preprocessor flags.
    #[command(flatten)]
    pub source: SourceArgs,
    /// Warning levels and detail.
    #[command(flatten)]
    pub warnings: WarningArgs,
}

/// `p4cost report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The program: P4-16 source, BMv2 JSON or Tofino context.json.
    pub file: PathBuf,
    /// Where to write the page (`-`: stdout); an existing file is
    /// replaced, an input is refused.
    #[arg(short = 'o', long, value_name = "FILE.html")]
    pub output: PathBuf,
    /// Model, port and packet size.
    #[command(flatten)]
    pub target: TargetArgs,
    /// Parse paths whose classes the page lists (all are counted).
    #[arg(long, value_name = "N", default_value_t = p4cost_engine::options::DEFAULT_MAX_PATHS)]
    pub max_paths: usize,
    /// Classes listed per path (all are counted) [default: 8].
    #[arg(long, value_name = "N")]
    pub max_classes: Option<usize>,
    /// The Tofino compiler's context.json for FILE (its placement is shown
    /// as exact).
    #[arg(long, value_name = "CONTEXT.json")]
    pub context: Option<PathBuf>,
    /// The bfrt.json of the same compile; needs --context or a
    /// context.json as FILE.
    #[arg(long, value_name = "BFRT.json")]
    pub bfrt: Option<PathBuf>,
    /// MAU clock in GHz [default: the model's].
    #[arg(long, value_name = "F")]
    pub clock_ghz: Option<f64>,
    /// Only this pipeline [default: the first].
    #[arg(long, value_name = "NAME")]
    pub pipe: Option<String>,
    /// Dependency-graph budgets.
    #[command(flatten)]
    pub deps: DepArgs,
    /// Preprocessor flags and input budget.
    #[command(flatten)]
    pub source: SourceArgs,
}

impl ReportArgs {
    /// The engine's prediction options these flags give.
    pub fn options(&self) -> p4cost_engine::PredictOptions {
        let mut o = p4cost_engine::PredictOptions::new(self.file.clone());
        o.target = self.target.options();
        o.max_paths = self.max_paths;
        o.max_classes = self.max_classes;
        o.context = self.context.clone();
        o.bfrt = self.bfrt.clone();
        o.clock_ghz = self.clock_ghz;
        o.pipe = self.pipe.clone();
        o.deps = self.deps.options();
        o.source = self.source.options();
        o.histogram_bins = p4cost_engine::pipeline_view::HISTOGRAM_BINS;
        o
    }
}

/// `p4cost bound`.
#[derive(Debug, Args)]
pub struct BoundArgs {
    /// The program: P4-16 source, BMv2 JSON or Tofino context.json; `-`
    /// reads stdin.
    pub file: PathBuf,
    /// The flow as a token bucket: burst and rate (`640B,10Mbps`; burst
    /// in B, b or KB, rate in bps, Kbps, Mbps or Gbps).
    #[arg(long, value_name = "BURST,RATE")]
    pub arrival: String,
    /// Price the classes with a device's network-calculus building blocks
    /// (netfpga-sume, zodiac-fx) instead of a latency model.
    #[arg(long, value_name = "DEVICE", conflicts_with_all = ["model", "model_file"])]
    pub device: Option<String>,
    /// Which measured delays a device's blocks stand for [default: max].
    #[arg(long, value_enum)]
    pub level: Option<BoundLevel>,
    /// Model, port and packet size (without --device).
    #[command(flatten)]
    pub target: TargetArgs,
    /// List at most this many packet classes under each listed path.
    #[arg(long, value_name = "N")]
    pub max_classes: Option<usize>,
    /// List at most this many paths (all are counted; the worst class is
    /// found over all of them).
    #[arg(long, value_name = "N", default_value_t = p4cost_engine::options::DEFAULT_MAX_PATHS)]
    pub max_paths: usize,
    /// Only the pipeline with this name.
    #[arg(long, value_name = "NAME")]
    pub pipe: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: BoundFormat,
    /// Project configuration.
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Preprocessor flags.
    #[command(flatten)]
    pub source: SourceArgs,
}

/// `p4cost throughput`.
#[derive(Debug, Args)]
pub struct ThroughputArgs {
    /// The program: P4-16 source or BMv2 JSON; `-` reads stdin.
    pub file: PathBuf,
    /// The throughput model: nfp4000 or bmv2-coarse [default: nfp4000].
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// Frame size in bytes (without preamble and gap) [default: the size
    /// the model was measured at, from its file: 134 for nfp4000, 1500 for
    /// bmv2-coarse; the same default as predict's].
    #[arg(long, value_name = "BYTES", value_parser = packet_bytes)]
    pub packet_size: Option<u32>,
    /// List at most this many packet classes under each parse path.
    #[arg(long, value_name = "N")]
    pub max_classes: Option<usize>,
    /// List at most this many parse paths.
    #[arg(long, value_name = "N", default_value_t = p4cost_engine::options::DEFAULT_MAX_PATHS)]
    pub max_paths: usize,
    /// Only the pipeline with this name.
    #[arg(long, value_name = "NAME")]
    pub pipe: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// Preprocessor flags.
    #[command(flatten)]
    pub source: SourceArgs,
}

/// `bound --level`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BoundLevel {
    /// The smallest delays measured.
    Min,
    /// The median delays.
    Median,
    /// The largest delays measured (the paper's "worst case").
    Max,
}

/// `bound --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BoundFormat {
    /// A readable table.
    Human,
    /// One JSON object (`p4cost schema bound`).
    Json,
    /// The network description Saihu reads (xTFA, DiscoDNC, Panco).
    Saihu,
}

/// `p4cost models`.
#[derive(Debug, Args)]
pub struct ModelsArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
}

/// `-I DIR`: a directory that exists (a mistyped include directory is
/// otherwise silently never searched).
fn existing_dir(s: &str) -> Result<PathBuf, String> {
    let p = PathBuf::from(s);
    match std::fs::metadata(&p) {
        Ok(m) if m.is_dir() => Ok(p),
        Ok(_) => Err("not a directory".to_string()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err("no such directory".to_string()),
        Err(e) => Err(e.to_string()),
    }
}

/// `--packet-size`: a whole number of bytes (the range is checked with
/// the model, which says what it was trained on).
fn packet_bytes(s: &str) -> Result<u32, String> {
    match s.trim().parse::<i64>() {
        Ok(n) if n < 0 => Err(format!("a packet has a positive size in bytes, not {n}")),
        Ok(n) => u32::try_from(n).map_err(|_| format!("{n} bytes is larger than any packet")),
        Err(_) => Err(format!("`{s}` is not a whole number of bytes")),
    }
}

/// `--cores`: a whole number of cores, at least 1.
fn cores(s: &str) -> Result<u32, String> {
    match s.trim().parse::<i64>() {
        Ok(n) if n < 1 => Err(format!("{n} cores: give 1 or more")),
        Ok(n) => u32::try_from(n).map_err(|_| format!("{n} cores is more than any CPU has")),
        Err(_) => Err(format!("`{s}` is not a whole number of cores")),
    }
}

/// `--l3-mb`: a positive size in MB.
fn l3_mb(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 && x <= 1e6 => Ok(x),
        Ok(x) => Err(format!("{x} MB: give a size above 0 and at most 1000000")),
        Err(_) => Err(format!("`{s}` is not a number of MB")),
    }
}

/// `--entries TABLE=N`: a table name and a count of at least 1.
fn entries_flag(s: &str) -> Result<(String, u64), String> {
    let Some((table, n)) = s.split_once('=') else {
        return Err(format!(
            "`{s}`: give TABLE=N (a table name, `=`, its entries)"
        ));
    };
    let table = table.trim();
    if table.is_empty() {
        return Err(format!("`{s}`: the table name is empty"));
    }
    match n.trim().parse::<i128>() {
        Ok(v) if v < 1 => Err(format!(
            "`{s}`: {v} entries; a table the model prices holds 1 or more"
        )),
        Ok(v) => u64::try_from(v)
            .map(|v| (table.to_string(), v))
            .map_err(|_| format!("`{s}`: {v} entries is out of range")),
        Err(_) => Err(format!(
            "`{s}`: `{}` is not a whole number of entries",
            n.trim()
        )),
    }
}

impl TargetArgs {
    /// The engine's target options these flags give.
    pub fn options(&self) -> p4cost_engine::TargetOptions {
        p4cost_engine::TargetOptions {
            port_gbps: self.port.map(Port::gbps),
            packet_size: self.packet_size,
            model: self.model.clone(),
            model_file: self.model_file.clone(),
        }
    }
}

impl PredictArgs {
    /// The engine's prediction options these flags give.
    pub fn options(&self) -> p4cost_engine::PredictOptions {
        p4cost_engine::PredictOptions {
            file: self.file.clone(),
            target: self.target.options(),
            path: self.path.clone(),
            path_index: None,
            cancel: Default::default(),
            class_memo: Default::default(),
            leave_to_exit: false,
            class: self.class.clone(),
            max_classes: self.max_classes,
            sort: match self.sort {
                SortBy::Order => p4cost_engine::SortBy::Order,
                SortBy::Latency => p4cost_engine::SortBy::Latency,
            },
            top: self.top,
            max_analysis_states: self.max_analysis_states,
            max_listed_states: self.max_listed_states,
            max_paths: self.max_paths,
            // The JSON's budget bounds what is listed, so memory too.
            max_listing_bytes: (self.format == ReportFormat::Json).then_some(self.max_output_bytes),
            context: self.context.clone(),
            bfrt: self.bfrt.clone(),
            clock_ghz: self.clock_ghz,
            cores: self.cores,
            l3_mb: self.l3_mb,
            pipe: self.pipe.clone(),
            deps: self.deps.options(),
            source: self.source.options(),
            entries: self
                .entries
                .iter()
                .map(|(table, n)| p4cost_engine::options::Entries {
                    table: table.clone(),
                    entries: *n,
                    origin: None,
                })
                .collect(),
            listed_only: false,
            path_classes: true,
            full_listing: true,
            histogram_bins: 0,
            warnings: p4cost_engine::warnings::WarningPolicy::default(),
            lints: self.lints.options(),
        }
    }
}
