//! `p4cost predict`: flags to engine options, the engine's reports to the
//! table or JSON.

use std::io::Write;

use p4cost_engine::batch::{self, BatchReport};
use p4cost_engine::{predict, report};

use crate::args::{PredictArgs, ReportFormat};
use crate::diagnostics::Snippets;
use crate::exit::{CliError, Exit};
use crate::progress::Progress;
use crate::render;
use crate::Ui;

/// Runs `predict`: one program, or many (a directory, several FILEs).
pub fn run(a: &PredictArgs, out: &mut dyn Write, ui: &Ui) -> Result<Exit, CliError> {
    if !a.more.is_empty() || a.file.is_dir() {
        return run_many(a, out, ui);
    }
    let mut options = crate::project::predict_options(a)?;
    options.leave_to_exit = ui.at_exit;
    // The syntax tree is not left to the exit: freed on the freeing thread
    // while the program is analysed, its memory serves the analysis
    // (left, it raised the peak of switch_p4_16 by 2.5 MiB).
    let (reports, input) = predict::reports_and_input(&options)?;
    p4cost_engine::drop_later::leave(ui.at_exit, input);
    let exit = exit_of(&reports);
    match a.format {
        ReportFormat::Sarif => {
            let text = crate::json_out::to_pretty(&crate::sarif::predict_log(&reports))?;
            write_flushed(out, &text)?;
            p4cost_engine::drop_later::leave(ui.at_exit, reports);
        }
        ReportFormat::Json => write_json(a, reports, out, ui)?,
        ReportFormat::Human => {
            let mut snippets = Snippets::new(ui.color_out);
            let text = if reports.len() == 1 {
                render::render_human(&reports[0], &mut snippets, a.warnings.detail())
            } else {
                render::render_human_multi(&reports, &mut snippets, a.warnings.detail())
            };
            out.write_all(text.as_bytes()).map_err(CliError::output)?;
            p4cost_engine::drop_later::leave(ui.at_exit, reports);
        }
    }
    Ok(exit)
}

/// `text` written and flushed.
fn write_flushed(out: &mut dyn Write, text: &str) -> Result<(), CliError> {
    write_flushed_bytes(out, text.as_bytes())
}

/// The reports as JSON, within `--max-output-bytes`: one report at the
/// top, or each under `pipelines`.
fn write_json(
    a: &PredictArgs,
    reports: Vec<report::Report>,
    out: &mut dyn Write,
    ui: &Ui,
) -> Result<(), CliError> {
    let max = a.max_output_bytes;
    if reports.len() == 1 {
        let mut one = reports;
        if let Some(text) = crate::output_budget::whole_if_fits(&one[0], &[&one[0]], max)? {
            write_flushed_bytes(out, &text)?;
        } else {
            fit_noted(one.iter_mut().collect(), 0, max)?;
            crate::json_out::write_pretty(&one[0], out)?;
        }
        p4cost_engine::drop_later::leave(ui.at_exit, one);
        return Ok(());
    }
    let mut multi = report::MultiReport {
        schema_version: report::SCHEMA_VERSION,
        p4cost_version: env!("CARGO_PKG_VERSION").to_string(),
        program: a.file.display().to_string(),
        pipelines: reports,
    };
    let all: Vec<&report::Report> = multi.pipelines.iter().collect();
    if let Some(text) = crate::output_budget::whole_if_fits(&multi, &all, max)? {
        write_flushed_bytes(out, &text)?;
    } else {
        fit_noted(multi.pipelines.iter_mut().collect(), 2, max)?;
        crate::json_out::write_pretty(&multi, out)?;
    }
    p4cost_engine::drop_later::leave(ui.at_exit, multi);
    Ok(())
}

/// [`crate::output_budget::fit`], and the stderr note when it cut.
fn fit_noted(reports: Vec<&mut report::Report>, depth: u64, max: u64) -> Result<(), CliError> {
    let dropped = crate::output_budget::fit(reports, depth, max)?;
    if dropped > 0 {
        let _ = writeln!(
            std::io::stderr(),
            "{}",
            crate::output_budget::note(dropped, max)
        );
    }
    Ok(())
}

/// `text` written and flushed.
fn write_flushed_bytes(out: &mut dyn Write, text: &[u8]) -> Result<(), CliError> {
    out.write_all(text).map_err(CliError::output)?;
    out.flush().map_err(CliError::output)
}

/// 1 when a denied warning occurred in `reports`, else 0.
fn exit_of(reports: &[report::Report]) -> Exit {
    if reports.iter().any(|r| !r.denied.is_empty()) {
        Exit::Failed
    } else {
        Exit::Ok
    }
}

/// Every program under FILE and MORE (fragments other files include are
/// predicted through them), on `--jobs` threads, in the order given, then
/// a summary. Exit 2 when any program could not be read.
fn run_many(a: &PredictArgs, out: &mut dyn Write, ui: &Ui) -> Result<Exit, CliError> {
    let options = batch_options(a)?;
    let jobs = crate::progress::jobs(a.jobs)?;
    let bar = Progress::new(
        options.len(),
        ui.err_is_terminal && a.format == ReportFormat::Human,
    );
    let done = batch::predict_many(&options, jobs, &|name| bar.tick(name))?;
    bar.finish();
    let write_err = CliError::output;
    let mut batch = BatchReport::of(done);
    let failed = batch.summary.failed;
    let denied = batch
        .programs
        .iter()
        .any(|p| exit_of(&p.pipelines) == Exit::Failed);
    let text = match a.format {
        ReportFormat::Json => {
            // Each report under `programs[].pipelines`.
            let all: Vec<&report::Report> = batch
                .programs
                .iter()
                .flat_map(|p| p.pipelines.iter())
                .collect();
            let max = a.max_output_bytes;
            if let Some(text) = crate::output_budget::whole_if_fits(&batch, &all, max)? {
                write_flushed_bytes(out, &text)?;
                return Ok(batch_exit(failed, denied));
            }
            fit_noted(
                batch
                    .programs
                    .iter_mut()
                    .flat_map(|p| p.pipelines.iter_mut())
                    .collect(),
                4,
                max,
            )?;
            return write_batch(&batch, out, failed, denied);
        }
        ReportFormat::Sarif => {
            let all: Vec<report::Report> = batch
                .programs
                .into_iter()
                .flat_map(|p| p.pipelines)
                .collect();
            crate::json_out::to_pretty(&crate::sarif::predict_log(&all))?
        }
        ReportFormat::Human => batch_human(&batch, a, ui),
    };
    out.write_all(text.as_bytes()).map_err(write_err)?;
    out.flush().map_err(write_err)?;
    Ok(batch_exit(failed, denied))
}

/// The options of each program under FILE and MORE, fragments (files
/// another one includes) left out; an input error when there is none.
fn batch_options(a: &PredictArgs) -> Result<Vec<p4cost_engine::PredictOptions>, CliError> {
    let paths: Vec<&std::path::Path> = std::iter::once(a.file.as_path())
        .chain(a.more.iter().map(|p| p.as_path()))
        .collect();
    if paths.iter().any(|p| p4cost_engine::read::is_stdin(p)) {
        return Err(CliError::input(
            "`-` (stdin) is one program: it cannot be one of several",
        ));
    }
    let mut files = Vec::new();
    for p in &paths {
        p4cost_engine::programs::collect(p, &mut files)?;
    }
    let cfg = crate::project::config(&a.config, Some(&a.file))?;
    let mut include_dirs = a.source.include_dirs.clone();
    if let Some(c) = &cfg {
        include_dirs.extend(c.defaults.include_dirs.iter().cloned());
    }
    let fragments = p4cost_engine::programs::included(&files, &include_dirs);
    let policy = a.warnings.policy()?;
    let options: Vec<_> = files
        .iter()
        .filter(|f| !p4cost_engine::programs::is_fragment(f, &fragments))
        .map(|f| {
            let mut o = a.options();
            o.file.clone_from(&f.path);
            o.warnings.clone_from(&policy);
            crate::project::with_config(o, cfg.as_ref())
        })
        .collect();
    if options.is_empty() {
        return Err(CliError::input(format!(
            "no P4 program under {}",
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(options)
}

/// A batch as text: each program's table (or error) under its name, then
/// the summary.
fn batch_human(batch: &BatchReport, a: &PredictArgs, ui: &Ui) -> String {
    let mut snippets = Snippets::new(ui.color_out);
    let mut s = String::new();
    for p in &batch.programs {
        s.push_str(&format!("=== {} ===\n", p.program));
        match &p.error {
            Some(e) => s.push_str(&format!("error: {e}\n")),
            None if p.pipelines.len() == 1 => {
                s.push_str(&render::render_human(
                    &p.pipelines[0],
                    &mut snippets,
                    a.warnings.detail(),
                ));
            }
            None => s.push_str(&render::render_human_multi(
                &p.pipelines,
                &mut snippets,
                a.warnings.detail(),
            )),
        }
        s.push('\n');
    }
    s.push_str(&summary_text(&batch.summary));
    s
}

/// Writes a batch's JSON (streamed) and gives its exit.
fn write_batch(
    batch: &BatchReport,
    out: &mut dyn Write,
    failed: usize,
    denied: bool,
) -> Result<Exit, CliError> {
    crate::json_out::write_pretty(batch, out)?;
    Ok(batch_exit(failed, denied))
}

/// Exit 2 when a program could not be read, else 1 when a denied warning
/// occurred, else 0.
fn batch_exit(failed: usize, denied: bool) -> Exit {
    match (failed > 0, denied) {
        (true, _) => Exit::Input,
        (false, true) => Exit::Failed,
        (false, false) => Exit::Ok,
    }
}

fn summary_text(s: &batch::BatchSummary) -> String {
    let mut t = format!(
        "{} programs: {} predicted, {} failed\n",
        s.programs, s.predicted, s.failed
    );
    let line = |what: &str, e: &batch::Extreme| {
        let pipe = e
            .pipeline
            .as_ref()
            .map(|p| format!(" ({p})"))
            .unwrap_or_default();
        let class = e
            .class
            .as_ref()
            .map(|c| format!(", class {c}"))
            .unwrap_or_default();
        format!(
            "{what} {}{pipe}: {:.3} ns{class}\n",
            e.program, e.latency_ns
        )
    };
    if let Some(e) = &s.slowest {
        t.push_str(&line("slowest", e));
    }
    if let Some(e) = &s.fastest {
        t.push_str(&line("fastest", e));
    }
    t
}
