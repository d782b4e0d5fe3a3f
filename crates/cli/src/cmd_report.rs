//! `p4cost report`: the engine's pipeline view
//! (`p4cost_engine::pipeline_view`) rendered by `p4cost-report-html` as one
//! HTML page, written to `-o` (or stdout). A program that does not fit its
//! chip's stages still gets its page (the overflow drawn) and exits 1.

use std::io::Write;

use p4cost_engine::pipeline_view::{self, StageMap};
use p4cost_engine::Session;

use crate::args::ReportArgs;
use crate::exit::{CliError, Exit};

/// Writes the page; exit 1 when the stage map shows a program over its
/// chip's stages.
pub fn run(a: &ReportArgs, out: &mut dyn Write) -> Result<Exit, CliError> {
    let o = a.options();
    let to_stdout = p4cost_engine::read::is_stdin(&a.output);
    let inputs: Vec<&std::path::Path> = [Some(&a.file), a.context.as_ref(), a.bfrt.as_ref()]
        .into_iter()
        .flatten()
        .map(|p| p.as_path())
        .collect();
    if !to_stdout {
        crate::output_file::check(&a.output, true, &inputs)?;
    }
    let view = pipeline_view::pipeline_view(&mut Session::new(), &o)?;
    let page = p4cost_report_html::render(&view);
    if to_stdout {
        out.write_all(page.as_bytes()).map_err(CliError::output)?;
    } else {
        crate::output_file::write_new(&a.output, page.as_bytes(), true, &inputs)?;
    }
    Ok(match view.stages {
        StageMap::DoesNotFit(_) => Exit::Failed,
        _ => Exit::Ok,
    })
}
