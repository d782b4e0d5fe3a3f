//! p4cost-cli: the `p4cost` command line.
//!
//! Parses arguments (clap), loads the input by its content (P4-16 source,
//! BMv2 JSON or Tofino context.json), runs the analyses and models, and
//! renders a readable table or the versioned JSON report. This is the only
//! crate that prints; errors from the libraries become `file:line:col:
//! message` lines on stderr and exit code 2.
//!
//! Dependencies: every other p4cost crate, `clap`, `serde`, `serde_json`,
//! `codespan-reporting` and `termcolor` (snippets with carets).

mod args;
mod cmd_bound;
mod cmd_calibrate;
mod cmd_check;
mod cmd_deps;
mod cmd_diff;
mod cmd_explain;
mod cmd_models;
mod cmd_parse;
mod cmd_predict;
mod cmd_report;
mod cmd_resources;
mod cmd_schema;
mod cmd_shell;
mod cmd_stages;
mod cmd_throughput;
mod diagnostics;
mod exit;
mod fixed;
mod huge_heap;
mod json_out;
mod output_budget;
mod output_file;
mod plot;
mod process;
mod progress;
mod project;
mod render;
mod render_coarse;
mod render_cpu;
mod render_passes;
mod sarif;

use std::ffi::OsString;
use std::io::Write;

pub use exit::Exit;

/// Which of the output streams are terminals (colour and progress bars
/// go only to terminals, unless asked for).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Terminals {
    /// Standard output is a terminal.
    pub out: bool,
    /// Standard error is a terminal.
    pub err: bool,
}

/// How a command renders: colour on standard output and error.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ui {
    /// Colour what goes to standard output.
    pub color_out: bool,
    /// Colour what goes to standard error.
    pub color_err: bool,
    /// Standard error is a terminal (a progress bar may be drawn).
    pub err_is_terminal: bool,
    /// The process exits when the command returns (the `p4cost` binary,
    /// not a caller of [`run`]): the command may leave its largest
    /// structures (reports, the loaded program) to the exit instead of
    /// freeing them one allocation at a time.
    pub at_exit: bool,
}

/// Runs p4cost with `args` (the first item is the program name), writing
/// to `out` and `err` (neither a terminal), and returns the exit code.
pub fn run<I, T>(args: I, out: &mut dyn Write, err: &mut dyn Write) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    run_on(args, out, err, Terminals::default())
}

/// How [`run_on`] runs: as a library call, or as the `p4cost` process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Caller {
    Library,
    Process,
}

/// [`run`], told which streams are terminals.
pub fn run_on<I, T>(args: I, out: &mut dyn Write, err: &mut dyn Write, terms: Terminals) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    run_as(args, out, err, terms, Caller::Library)
}

/// [`run_on`] by `caller`: the process tunes its allocator and leaves its
/// structures to the exit ([`process`]).
fn run_as<I, T>(
    args: I,
    out: &mut dyn Write,
    err: &mut dyn Write,
    terms: Terminals,
    caller: Caller,
) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let mut cli = match parse_args(args, caller) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() {
                Exit::Input
            } else {
                Exit::Ok
            };
            let text = e.render().to_string();
            if e.use_stderr() {
                let _ = write!(err, "{text}");
            } else {
                let _ = write!(out, "{text}");
            }
            return code as u8;
        }
    };
    progress::cap_jobs(&mut cli.command, err);
    if caller == Caller::Process {
        process::cap_malloc_arenas(&cli.command);
    }
    let ui = Ui {
        color_out: diagnostics::use_color(cli.color, terms.out),
        color_err: diagnostics::use_color(cli.color, terms.err),
        err_is_terminal: terms.err,
        at_exit: caller == Caller::Process,
    };
    run_command(cli.command, out, err, &ui)
}

/// The arguments parsed as `Cli::try_parse_from` parses them. The
/// process leaves the parser it built (every subcommand's arguments) to
/// the exit, but for the language server: freeing it took 150 K
/// instructions.
fn parse_args<I, T>(args: I, caller: Caller) -> Result<args::Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    use clap::{CommandFactory as _, FromArgMatches as _};
    let mut parser = args::Cli::command();
    let parsed = parser.try_get_matches_from_mut(args).and_then(|mut m| {
        args::Cli::from_arg_matches_mut(&mut m).map_err(|e| e.format(&mut args::Cli::command()))
    });
    let lsp = matches!(&parsed, Ok(c) if matches!(c.command, args::Command::Lsp(_)));
    if caller == Caller::Process && !lsp {
        std::mem::forget(parser);
    }
    parsed
}

/// Runs the parsed `command`; its exit code.
fn run_command(command: args::Command, out: &mut dyn Write, err: &mut dyn Write, ui: &Ui) -> u8 {
    let result = match command {
        args::Command::Predict(a) => cmd_predict::run(&a, out, ui),
        args::Command::Models(a) => cmd_models::run(&a, out),
        args::Command::Parse(a) => cmd_parse::run(&a, out, ui),
        args::Command::Stages(a) => cmd_stages::run(&a, out),
        args::Command::Resources(a) => cmd_resources::run(&a, out),
        args::Command::Deps(a) => cmd_deps::run(&a, out),
        args::Command::Report(a) => cmd_report::run(&a, out),
        args::Command::Check(a) => cmd_check::run(&a, out, ui),
        args::Command::Diff(a) => cmd_diff::run(&a, out),
        args::Command::Explain(a) => cmd_explain::run(&a, out),
        args::Command::Gen(a) => cmd_calibrate::gen(&a, out),
        args::Command::Fit(a) => cmd_calibrate::fit(&a, out),
        args::Command::Validate(a) => cmd_calibrate::validate(&a, out),
        args::Command::Lsp(_) => match p4cost_lsp::run_stdio() {
            Ok(()) => Ok(Exit::Ok),
            // The protocol's rule: `exit` without `shutdown` is exit code 1.
            Err(p4cost_lsp::LspError::NoShutdown) => {
                let _ = writeln!(err, "p4cost lsp: {}", p4cost_lsp::LspError::NoShutdown);
                Ok(Exit::Failed)
            }
            Err(e) => Err(exit::CliError::input(e.to_string())),
        },
        args::Command::Bound(a) => cmd_bound::run(&a, out),
        args::Command::Throughput(a) => cmd_throughput::run(&a, out),
        args::Command::Schema(a) => cmd_schema::run(&a, out),
        args::Command::Completions(a) => cmd_shell::completions(&a, out),
        args::Command::Man(a) => cmd_shell::man(&a, out),
    };
    match result {
        Ok(code) => code as u8,
        Err(e) => {
            let rich = e
                .engine
                .as_ref()
                .and_then(|x| diagnostics::Snippets::new(ui.color_err).error(x));
            match rich {
                Some(text) => {
                    let _ = write!(err, "{text}");
                }
                // A finding (exit 1) is no error.
                None if !e.message.is_empty() && e.code == Exit::Failed => {
                    let _ = writeln!(err, "{e}");
                }
                None if !e.message.is_empty() => {
                    let _ = writeln!(err, "error: {e}");
                }
                None => {}
            }
            e.exit_code() as u8
        }
    }
}

/// The process entry point used by the `p4cost` binary.
pub fn main() -> std::process::ExitCode {
    huge_heap::at_start();
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    use std::io::IsTerminal;
    let terms = Terminals {
        out: stdout.is_terminal(),
        err: stderr.is_terminal(),
    };
    // Unlocked handles (each write locks): the language server's own
    // writer thread needs stdout, and would wait forever on a lock held
    // here.
    let code = run_as(
        std::env::args_os(),
        &mut std::io::stdout(),
        &mut std::io::stderr(),
        terms,
        Caller::Process,
    );
    // The last program's lowering worker frees behind its answer; the
    // process waits for it (done long since, as a rule: it had the
    // analysis and the output to finish) so that every run does the same
    // work, which the instruction-count check relies on.
    p4cost_front::finish_freeing();
    std::process::ExitCode::from(code)
}
