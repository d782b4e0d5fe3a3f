//! `p4cost models`.

use std::io::Write;

use crate::args::{Format, ModelsArgs};
use crate::exit::{CliError, Exit};

/// The JSON of `p4cost models`.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct ModelsReport {
    schema_version: u32,
    p4cost_version: &'static str,
    /// Every embedded model, as its file describes it.
    models: Vec<p4cost_model::ModelSpec>,
}

pub fn run(a: &ModelsArgs, out: &mut dyn Write) -> Result<Exit, CliError> {
    let models = p4cost_model::all_models().map_err(|e| CliError::input(e.to_string()))?;
    let text = match a.format {
        Format::Json => crate::json_out::to_pretty(&ModelsReport {
            schema_version: p4cost_engine::report::SCHEMA_VERSION,
            p4cost_version: env!("CARGO_PKG_VERSION"),
            models,
        })?,
        Format::Human => {
            let mut s = String::new();
            for m in &models {
                s.push_str(&format!("{:<24} {}\n", m.name, m.title));
                let port = m
                    .port_gbps
                    .map(|g| format!(", {g}G port"))
                    .unwrap_or_default();
                s.push_str(&format!(
                    "{:<24} target {}{port}; predicts {}\n",
                    "", m.target, m.predicts
                ));
                s.push_str(&format!(
                    "{:<24} source: {} ({})",
                    "", m.source.citation, m.source.location
                ));
                if let Some(doi) = &m.source.doi {
                    s.push_str(&format!(", doi:{doi}"));
                }
                s.push_str(&format!("; {}\n", m.source.spec));
            }
            s
        }
    };
    out.write_all(text.as_bytes()).map_err(CliError::output)?;
    Ok(Exit::Ok)
}
