//! A progress bar over many programs (indicatif), drawn on standard error
//! only when it is a terminal and the output is the human table: never in
//! a pipe, a log or beside JSON and SARIF.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use std::io::Write;

use crate::args::Command;
use crate::exit::CliError;

/// The bar, or nothing.
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A bar of `total` programs when `show`, else a no-op.
    pub fn new(total: usize, show: bool) -> Progress {
        if !show || total < 2 {
            return Progress { bar: None };
        }
        let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed} {wide_msg}")
        {
            bar.set_style(style);
        }
        Progress { bar: Some(bar) }
    }

    /// One program done (called from any thread).
    pub fn tick(&self, name: &str) {
        if let Some(b) = &self.bar {
            b.set_message(name.to_string());
            b.inc(1);
        }
    }

    /// Removes the bar before the results are printed.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// Threads for `--jobs`: the number asked for, else the CPUs.
pub fn jobs(asked: Option<usize>) -> Result<usize, CliError> {
    match asked {
        Some(0) => Err(CliError::input("--jobs 0: give at least 1")),
        Some(n) => Ok(n),
        None => Ok(cores()),
    }
}

/// The CPUs this process may use (1 when the system cannot say).
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Caps the `--jobs` of a command that takes it at the CPUs, saying so
/// once on `err`: more threads than cores only add cost, and asking for
/// 100,000 spent 42 s starting threads before failing.
pub fn cap_jobs(command: &mut Command, err: &mut dyn Write) {
    let jobs = match command {
        Command::Predict(a) => &mut a.jobs,
        Command::Check(a) => &mut a.jobs,
        _ => return,
    };
    let cores = cores();
    if let Some(n) = jobs.filter(|n| *n > cores) {
        let _ = writeln!(err, "note: --jobs {n} capped at {cores} cores");
        *jobs = Some(cores);
    }
}
