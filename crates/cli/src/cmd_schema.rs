//! `p4cost schema COMMAND`: the JSON Schema of what `COMMAND --format
//! json` prints, generated from the Rust types that are serialized (so it
//! cannot drift from them). The same schemas are committed under
//! `schema/<command>.schema.json`; a test keeps them equal.

use std::io::Write;

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;

use crate::args::{SchemaArgs, SchemaFor};
use crate::exit::{CliError, Exit};

/// The schema of `what`'s JSON output, as pretty JSON.
pub fn schema_text(what: SchemaFor) -> Result<String, CliError> {
    let schema = match what {
        SchemaFor::Predict => of::<p4cost_engine::report::PredictOutput>(),
        SchemaFor::Check => of::<p4cost_engine::check::CheckReport>(),
        SchemaFor::Diff => of::<p4cost_engine::diff::DiffReport>(),
        SchemaFor::Stages => of::<crate::cmd_stages::StagesReport<'static>>(),
        SchemaFor::Resources => of::<crate::cmd_resources::ResourcesReport<'static>>(),
        SchemaFor::Deps => of::<crate::cmd_deps::DepsReport<'static>>(),
        SchemaFor::Models => of::<crate::cmd_models::ModelsReport>(),
        SchemaFor::Explain => of::<crate::cmd_explain::ExplainOutput>(),
        SchemaFor::Validate => of::<crate::cmd_calibrate::ValidateReport>(),
        SchemaFor::Fit => of::<crate::cmd_calibrate::FitReport>(),
        SchemaFor::Bound => of::<p4cost_engine::bound::BoundReport>(),
        SchemaFor::Throughput => of::<p4cost_engine::recirc::ThroughputReport>(),
    };
    let mut text =
        serde_json::to_string_pretty(&schema).map_err(|e| CliError::input(e.to_string()))?;
    text.push('\n');
    Ok(text)
}

/// The schema of what serializing a `T` gives (fields skipped when empty
/// are optional), JSON Schema 2020-12.
fn of<T: JsonSchema>() -> schemars::Schema {
    SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>()
}

/// Runs `schema`.
pub fn run(a: &SchemaArgs, out: &mut dyn Write) -> Result<Exit, CliError> {
    let text = schema_text(a.command)?;
    out.write_all(text.as_bytes()).map_err(CliError::output)?;
    Ok(Exit::Ok)
}
