//! p4cost-tofino: reads the Tofino compiler's (bf-p4c) `context.json`
//! (schema 1.8.x to 1.12.x), optionally with the matching `bfrt.json`,
//! into a [`p4cost_ir::Program`], stage characteristics included. It reads;
//! it does not model: the per-gress MAU latency computed from the stage
//! records is the `tofino1-mau-cycles` model of `p4cost-model`.
//!
//! Dependencies: `p4cost-ir`, `serde_json`, `thiserror`; no other
//! p4cost crate.
//!
//! What the program holds: every match table of the context (keys, size,
//! actions with parameter widths and read/write sets taken from the action
//! primitives, default action, stages), one control per gress whose flow is
//! a straight chain of its tables in stage order (the context has no
//! control flow), one pipeline, no parsers, the stage records in
//! [`p4cost_ir::Program::mau`], and as [`p4cost_ir::Program::externs`] the
//! registers (`stateful` tables), counters (`statistics`), meters,
//! selectors (`selection`) and action profiles (indirect `action` tables). Schema 1.8 files carry only
//! match-dependence flags: the cycles are then estimated and flagged
//! `estimated` (see the `estimate` module's rules).
//!
//! ```no_run
//! let text = std::fs::read_to_string("context.json").unwrap();
//! let program = p4cost_tofino::read_context(&text, "context.json").unwrap();
//! for s in program.mau.iter().flat_map(|m| &m.stages) {
//!     println!("{:?} stage {}: adds {} cycles", s.gress, s.stage, s.cycles_contribute_to_latency);
//! }
//! ```

mod bfrt;
mod context;
mod error;
mod estimate;
mod json;
mod lower;

pub use error::TofinoError;

use p4cost_ir::Program;
use serde_json::Value;

fn parse(text: &str, file: &str) -> Result<Value, TofinoError> {
    serde_json::from_str(text).map_err(|source| TofinoError::Json {
        file: file.to_string(),
        source,
    })
}

/// True when a JSON document looks like a Tofino context.json: an object
/// with a `tables` array and at least one of `compiler_version`,
/// `program_name`, `mau_stage_characteristics`, `stage_dependency`.
pub fn looks_like_context(v: &Value) -> bool {
    let Some(m) = v.as_object() else { return false };
    m.get("tables").is_some_and(Value::is_array)
        && [
            "compiler_version",
            "program_name",
            "mau_stage_characteristics",
            "stage_dependency",
        ]
        .iter()
        .any(|k| m.contains_key(*k))
}

/// True when a JSON document looks like a BF-RT JSON file: an object with
/// a `tables` array whose entries carry `table_type`, and none of the
/// context.json top-level markers.
pub fn looks_like_bfrt(v: &Value) -> bool {
    let Some(m) = v.as_object() else { return false };
    if looks_like_context(v) {
        return false;
    }
    match m.get("tables").and_then(Value::as_array) {
        Some(tables) => tables
            .iter()
            .all(|t| t.get("table_type").is_some() && t.get("name").is_some()),
        None => false,
    }
}

/// Reads an already-parsed context.json document (for callers that parsed
/// it to detect its kind). `file_name` names the file in errors and in
/// [`Program::files`].
pub fn read_context_value(doc: &Value, file_name: &str) -> Result<Program, TofinoError> {
    if !looks_like_context(doc) {
        return Err(TofinoError::NotContext {
            file: file_name.to_string(),
            reason: "expected an object with a `tables` array and `compiler_version`, \
                     `program_name` or `mau_stage_characteristics`"
                .to_string(),
        });
    }
    let data = context::read(doc).map_err(|f| f.in_file(file_name))?;
    Ok(lower::lower(data, file_name))
}

/// Reads a context.json text. `file_name` names the file in errors and in
/// [`Program::files`].
pub fn read_context(json_text: &str, file_name: &str) -> Result<Program, TofinoError> {
    let doc = parse(json_text, file_name)?;
    read_context_value(&doc, file_name)
}

/// Reads a context.json with the bfrt.json of the same compile: the BF-RT
/// file fills key widths, key lists and sizes the context lacks, and
/// pairing problems become notes.
pub fn read_context_with_bfrt(
    ctx: &str,
    ctx_name: &str,
    bfrt: &str,
    bfrt_name: &str,
) -> Result<Program, TofinoError> {
    let mut program = read_context(ctx, ctx_name)?;
    merge_bfrt(&mut program, bfrt, bfrt_name)?;
    Ok(program)
}

/// Merges a bfrt.json text into a program read from the context.json of
/// the same compile (see [`read_context_with_bfrt`]).
pub fn merge_bfrt(program: &mut Program, bfrt: &str, bfrt_name: &str) -> Result<(), TofinoError> {
    let doc = parse(bfrt, bfrt_name)?;
    if !looks_like_bfrt(&doc) {
        return Err(TofinoError::NotBfrt {
            file: bfrt_name.to_string(),
            reason: "expected an object with a `tables` array of named, typed tables".to_string(),
        });
    }
    let tables = bfrt::read(&doc).map_err(|f| f.in_file(bfrt_name))?;
    bfrt::merge(program, &tables, bfrt_name);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn detection() {
        let ctx = json!({"program_name": "p", "tables": []});
        let bfrt = json!({"schema_version": "1.0.0", "tables": [{"name": "t", "table_type": "X"}]});
        assert!(looks_like_context(&ctx));
        assert!(!looks_like_bfrt(&ctx));
        assert!(looks_like_bfrt(&bfrt));
        assert!(!looks_like_context(&bfrt));
        assert!(!looks_like_context(&json!([1])));
    }

    #[test]
    fn invalid_json_reports_line_and_column() {
        let err = read_context("{\n  \"tables\": [,]\n}", "x.json").unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("x.json: invalid JSON"), "{text}");
        assert!(text.contains("line 2"), "{text}");
    }

    #[test]
    fn error_names_file_and_path() {
        let doc = json!({"program_name": "p", "tables": [
            {"name": "t", "table_type": "match", "direction": "ingress",
             "match_attributes": {"stage_tables": [{"stage_number": "one"}]}}]});
        let err = read_context(&doc.to_string(), "c.json").unwrap_err();
        assert_eq!(
            err.to_string(),
            "c.json: tables[0].match_attributes.stage_tables[0].stage_number: \
             expected integer, found string"
        );
    }

    #[test]
    fn minimal_context_lowers_to_chain() {
        let doc = json!({"program_name": "p", "target": "tofino2", "tables": [
            {"name": "C.b", "table_type": "match", "direction": "ingress",
             "match_attributes": {"stage_tables": [{"stage_number": 2}]}},
            {"name": "C.a", "table_type": "match", "direction": "ingress",
             "match_attributes": {"stage_tables": [{"stage_number": 0}, {"stage_number": 1}]}}],
            "mau_stage_characteristics": [
              {"stage": 0, "gress": "ingress", "match_dependent": true, "clock_cycles": 23,
               "predication_cycle": 13, "cycles_contribute_to_latency": 23}]});
        let p = read_context(&doc.to_string(), "c.json").unwrap();
        assert_eq!(p.arch, p4cost_ir::Arch::T2na);
        assert_eq!(p.controls[0].name, "C");
        let chain = p.controls[0].flow.tables();
        let names: Vec<&str> = chain.iter().map(|t| p.table(*t).name.as_str()).collect();
        assert_eq!(names, vec!["C.a", "C.b"]);
        assert_eq!(p.tables[1].stages, vec![0, 1]);
        let mau = p.mau.as_ref().unwrap();
        assert_eq!(mau.stages.len(), 1);
        let s0 = &mau.stages[0];
        assert_eq!((s0.gress, s0.stage), (p4cost_ir::Gress::Ingress, 0));
        assert_eq!((s0.clock_cycles, s0.cycles_contribute_to_latency), (23, 23));
        assert_eq!(s0.predication_cycle, Some(13));
        assert!(s0.match_dependent && !mau.estimated);
        let a = p.table(p.table_by_name("C.a").unwrap());
        assert_eq!(
            p.control(a.control.unwrap()).gress,
            p4cost_ir::Gress::Ingress
        );
    }
}
