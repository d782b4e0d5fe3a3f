//! Loading an input file by its content, not its extension.

use std::path::Path;

use p4cost_ir::Program;

use crate::args::{parse_define, SourceArgs};
use crate::exit::CliError;

/// What an input turned out to be, and what its reader noticed.
pub struct LoadedInput {
    /// The program model.
    pub program: Program,
    /// Reader warnings, already `file:line:col: message` where located.
    pub warnings: Vec<String>,
}

/// Reads `path` and lowers it: JSON is sniffed as BMv2 or Tofino
/// context.json; anything else is P4-16 source.
pub fn load(path: &Path, src: &SourceArgs) -> Result<LoadedInput, CliError> {
    let shown = path.display().to_string();
    let bytes =
        std::fs::read(path).map_err(|e| CliError::input(format!("{shown}: cannot read: {e}")))?;
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace()).copied();
    if first == Some(b'{') {
        let text = String::from_utf8(bytes)
            .map_err(|e| CliError::input(format!("{shown}: not UTF-8 text: {e}")))?;
        return load_json(&shown, &text);
    }
    let opts = p4cost_front::Options {
        defines: src.defines.iter().map(|d| parse_define(d)).collect(),
        include_dirs: src.include_dirs.clone(),
    };
    let loaded =
        p4cost_front::load_file(path, &opts).map_err(|e| CliError::input(e.to_string()))?;
    Ok(LoadedInput {
        program: loaded.program,
        warnings: loaded.warnings.iter().map(|d| d.to_string()).collect(),
    })
}

fn load_json(shown: &str, text: &str) -> Result<LoadedInput, CliError> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        CliError::input(format!(
            "{shown}:{}:{}: invalid JSON: {e}",
            e.line(),
            e.column()
        ))
    })?;
    if p4cost_bmv2::looks_like_bmv2(&v) {
        let program = p4cost_bmv2::read_value(&v, shown)
            .map_err(|e| CliError::input(format!("{shown}: {e}")))?;
        return Ok(LoadedInput {
            program,
            warnings: Vec::new(),
        });
    }
    if p4cost_tofino::looks_like_context(&v) {
        let program = p4cost_tofino::read_context(text, shown)
            .map_err(|e| CliError::input(format!("{shown}: {e}")))?;
        return Ok(LoadedInput {
            program,
            warnings: Vec::new(),
        });
    }
    if p4cost_tofino::looks_like_bfrt(&v) {
        return Err(CliError::input(format!(
            "{shown}: this is a BF-RT bfrt.json; it has tables but no stage placement or parse graph: give the context.json next to it"
        )));
    }
    Err(CliError::input(format!(
        "{shown}: JSON, but neither p4c BMv2 JSON (expected `header_types`, `parsers` and `pipelines`) nor a Tofino context.json (expected `tables` and `schema_version`)"
    )))
}
