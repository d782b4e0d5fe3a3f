//! `p4cost stages`: the compiler's MAU latency per gress.

use std::io::Write;

use crate::args::{Format, StagesArgs};
use crate::exit::{CliError, Exit};
use crate::input;

pub fn run(a: &StagesArgs, out: &mut dyn Write) -> Result<Exit, CliError> {
    if !(a.clock_ghz.is_finite() && a.clock_ghz > 0.0) {
        return Err(CliError::input("--clock-ghz must be a positive number"));
    }
    let shown = a.file.display().to_string();
    let loaded = input::load(
        &a.file,
        &crate::args::SourceArgs {
            defines: vec![],
            include_dirs: vec![],
        },
    )?;
    let lat = p4cost_tofino::mau_latency(&loaded.program).ok_or_else(|| {
        CliError::input(format!(
            "{shown}: no MAU stage characteristics: `p4cost stages` needs the Tofino compiler's context.json"
        ))
    })?;
    let text = match a.format {
        Format::Human => p4cost_tofino::render_human(&lat, a.clock_ghz),
        Format::Json => {
            let report = p4cost_tofino::stages_report(&lat, a.clock_ghz);
            let mut v =
                serde_json::to_value(&report).map_err(|e| CliError::input(e.to_string()))?;
            if let Some(o) = v.as_object_mut() {
                o.insert(
                    "schema_version".into(),
                    crate::report::SCHEMA_VERSION.into(),
                );
                o.insert("program".into(), shown.clone().into());
                o.insert("notes".into(), loaded.program.notes.clone().into());
            }
            serde_json::to_string_pretty(&v).map_err(|e| CliError::input(e.to_string()))? + "\n"
        }
    };
    out.write_all(text.as_bytes())
        .map_err(|e| CliError::input(format!("cannot write output: {e}")))?;
    Ok(Exit::Ok)
}
