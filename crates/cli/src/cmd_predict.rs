//! `p4cost predict`: flags to engine options, the engine's reports to the
//! table or JSON.

use std::io::Write;

use p4cost_engine::{predict, report};

use crate::args::{PredictArgs, ReportFormat};
use crate::diagnostics::Snippets;
use crate::exit::{CliError, Exit};
use crate::render;
use crate::Ui;

/// Runs `predict`.
pub fn run(a: &PredictArgs, out: &mut dyn Write, ui: &Ui) -> Result<Exit, CliError> {
    let reports = predict::reports(&crate::project::predict_options(a)?)?;
    let write_err = CliError::output;
    match a.format {
        ReportFormat::Sarif => {
            let text = crate::json_out::to_pretty(&crate::sarif::predict_log(&reports))?;
            out.write_all(text.as_bytes()).map_err(write_err)?;
            out.flush().map_err(write_err)?;
        }
        ReportFormat::Json => {
            let text = if reports.len() == 1 {
                crate::json_out::to_pretty(&reports[0])?
            } else {
                crate::json_out::to_pretty(&report::MultiReport {
                    schema_version: report::SCHEMA_VERSION,
                    p4cost_version: env!("CARGO_PKG_VERSION").to_string(),
                    program: a.file.display().to_string(),
                    pipelines: reports,
                })?
            };
            out.write_all(text.as_bytes()).map_err(write_err)?;
            out.flush().map_err(write_err)?;
        }
        ReportFormat::Human => {
            let mut snippets = Snippets::new(ui.color_out);
            let text = if reports.len() == 1 {
                render::render_human(&reports[0], &mut snippets)
            } else {
                render::render_human_multi(&reports, &mut snippets)
            };
            out.write_all(text.as_bytes()).map_err(write_err)?;
        }
    }
    Ok(Exit::Ok)
}
