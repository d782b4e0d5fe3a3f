//! p4cost-bmv2: reads p4c's BMv2 JSON (format versions 2.x) into the
//! program model [`p4cost_ir::Program`].
//!
//! The reader walks the JSON through a path-tracking accessor, so every
//! error names the JSON path where the file differs from what was
//! expected (`pipelines[0].tables[3].key[1].match_type: expected a string,
//! found number`). It never panics on bad input.
//!
//! Naming (`names.rs`): read and write sets, key reads and conditions use
//! the canonical names the P4 source front end gives (ARCHITECTURE.md,
//! "Names"): packet headers under `hdr` (`hdr.ipv4.dstAddr`), a header's
//! validity as `hdr.ipv4.$valid`, metadata by its source path
//! (`meta.ingress_metadata.vrf` for p4c's flattened
//! `scalars.metadata._ingress_metadata_vrf0`, learned from the source text
//! the JSON quotes), compiler temporaries as `scalars.tmp_3`. A key's
//! `field` text keeps the JSON's names; a condition's `expr` text names
//! fields as its reads do. Writes through a stack element with a
//! computed index name the stack.
//!
//! Controls (`pipelines.rs`) carry structured conditions (`cond.rs`),
//! key reads, direct counters and meters attached to their tables, and an
//! `Exit` node after a table whose actions all run `exit`; actions
//! (`actions.rs`) carry their extern calls (registers, counters, meters,
//! hashes, random, clone, resubmit, digest, checksum).
//!
//! Besides parsers, controls, tables and actions, the program gets its
//! deparsers' emit order (`deparsers[]`) and its stateful objects as
//! extern instances: registers, counters, meters, action profiles and
//! action selectors.
//!
//! Dependencies: `p4cost-ir`, `serde_json`, `thiserror` (and `serde`).

mod access;
mod actions;
mod cond;
mod copy_out;
mod deparsers;
mod doc;
mod error;
mod expr;
mod externs;
mod headers;
mod hexstr;
mod names;
mod parse_graph;
mod pipelines;
mod spans;

use crate::doc::Value;
use p4cost_ir::{Arch, ControlRole, Gress, InputKind, Pipeline, Program};

use crate::access::J;
pub use crate::error::Bmv2Error;
use crate::error::Result;
use crate::expr::Exprs;
use crate::spans::Spans;

/// True when a JSON document looks like a BMv2 program description: an
/// object with a `header_types` array and a `parsers` or `pipelines`
/// array.
pub fn looks_like_bmv2(v: &serde_json::Value) -> bool {
    let Some(obj) = v.as_object() else {
        return false;
    };
    let is_array = |k: &str| obj.get(k).is_some_and(serde_json::Value::is_array);
    is_array("header_types") && (is_array("parsers") || is_array("pipelines"))
}

/// [`looks_like_bmv2`] on the reader's own document.
fn is_bmv2(v: &Value) -> bool {
    let Some(obj) = v.as_object() else {
        return false;
    };
    let is_array = |k: &str| obj.get(k).is_some_and(Value::is_array);
    is_array("header_types") && (is_array("parsers") || is_array("pipelines"))
}

/// A JSON document parsed for the reader: strings borrowed from the text,
/// objects as short member lists (cheaper to build, search and drop than
/// a `serde_json::Value`). Parse once, then ask [`Document::is_bmv2`] and
/// [`read_document`].
#[derive(Debug)]
pub struct Document<'a>(Value<'a>);

impl<'a> Document<'a> {
    /// Parses JSON text; a syntax error is serde_json's (its message, line
    /// and column).
    pub fn parse(json_text: &'a str) -> serde_json::Result<Document<'a>> {
        Value::parse(json_text).map(Document)
    }

    /// True when the document looks like a BMv2 program description (see
    /// [`looks_like_bmv2`]).
    pub fn is_bmv2(&self) -> bool {
        is_bmv2(&self.0)
    }
}

/// Reads BMv2 JSON text. `file_name` names the JSON file; it becomes
/// `files[0]` of the program and the span of entries without
/// `source_info`.
pub fn read(json_text: &str, file_name: &str) -> std::result::Result<Program, Bmv2Error> {
    read_document(&Document::parse(json_text)?, file_name)
}

/// Reads an already parsed BMv2 JSON document.
pub fn read_value(
    v: &serde_json::Value,
    file_name: &str,
) -> std::result::Result<Program, Bmv2Error> {
    read_tree(&Value::from_serde(v), file_name)
}

/// Reads a [`Document`] (see [`read`]).
pub fn read_document(d: &Document<'_>, file_name: &str) -> std::result::Result<Program, Bmv2Error> {
    read_tree(&d.0, file_name)
}

/// The stem of a path: `../x/simple_router.p4` -> `simple_router`.
fn stem(path: &str) -> &str {
    let base = path.rsplit(['/', '\\']).next().unwrap_or(path);
    match base.rsplit_once('.') {
        Some((s, _)) if !s.is_empty() => s,
        _ => base,
    }
}

/// The architecture the JSON was compiled for.
fn detect_arch(prog: &Program) -> Arch {
    let has_type = |prefix: &str| prog.header_types.iter().any(|t| t.name.starts_with(prefix));
    if prog.controls.iter().any(|c| c.name == "main_control") || has_type("pna_") {
        Arch::Pna
    } else if has_type("psa_") {
        Arch::Psa
    } else {
        Arch::V1model
    }
}

/// Reads the document `v`.
fn read_tree(v: &Value, file_name: &str) -> std::result::Result<Program, Bmv2Error> {
    if !is_bmv2(v) {
        return Err(Bmv2Error::NotBmv2 {
            reason: "expected an object with a `header_types` array and `parsers` or \
                     `pipelines` arrays"
                .to_string(),
        });
    }
    let root = J::root(v);
    let program_path = root.opt_key_str("program")?;
    let name = stem(program_path.unwrap_or(file_name));
    let mut prog = Program::new(name, InputKind::Bmv2Json);
    let json_file = prog.add_file(file_name);
    let mut spans = Spans { json: json_file };
    check_version(&root, &mut prog)?;

    let headers = headers::read(&root, &mut prog, spans.json_start())?;
    let names = names::read(&root, &headers)?;
    note_unmapped_names(&names, &mut prog);
    let calcs = actions::read_calculations(&root, &names)?;
    let objects = actions::Objects::read(&root, &names)?;
    let e = Exprs {
        headers: &headers,
        calcs: &calcs,
        names: &names,
        objects: &objects,
        canonical_text: false,
    };
    let action_index = actions::read(&root, &mut prog, &e, &mut spans)?;
    parse_graph::read(&root, &mut prog, &e, &spans)?;
    pipelines::read(&root, &mut prog, &e, &mut spans, &action_index)?;
    prog.close_action_switches();
    deparsers::read(&root, &mut prog, &headers, &mut spans)?;
    externs::read(&root, &mut prog, &mut spans)?;
    prog.arch = detect_arch(&prog);
    bind_pipeline(&mut prog);
    name_controls_as_declared(v, &mut prog);
    note_merged_states(&mut prog);
    Ok(prog)
}

/// p4c names a BMv2 pipeline for its architecture slot (`ingress`) and
/// quotes the control's declaration in its `source_info`: the control is
/// named for that (`MyIngress`), as the P4 source front and p4c's table
/// names (`MyIngress.t`) name it. Without a plain identifier there (older
/// JSON has no `source_info`) the slot name stays. The parser has no such
/// quote: it keeps the JSON's name (`parser`).
fn name_controls_as_declared(v: &Value, prog: &mut Program) {
    let Some(pipes) = v.get("pipelines").and_then(Value::as_array) else {
        return;
    };
    let is_identifier = |s: &str| {
        s.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    // One control per pipeline, in order (`pipelines::read`).
    for (c, p) in prog.controls.iter_mut().zip(pipes) {
        let quoted = p
            .get("source_info")
            .and_then(|s| s.get("source_fragment"))
            .and_then(Value::as_str);
        if let Some(name) = quoted.filter(|s| is_identifier(s)) {
            c.name = name.to_string();
        }
    }
}

/// Says which user-metadata fields keep p4c's flattened names.
fn note_unmapped_names(names: &names::Names, prog: &mut Program) {
    if names.unmapped.is_empty() {
        return;
    }
    let shown: Vec<&str> = names.unmapped.iter().take(4).map(String::as_str).collect();
    prog.notes.push(format!(
        "{} user-metadata field(s) keep p4c's flattened BMv2 names ({}{}): no source text the JSON quotes names their source path, so they will not match names read from the P4 source",
        names.unmapped.len(),
        shown.join(", "),
        if names.unmapped.len() > shown.len() { ", ..." } else { "" }
    ));
}

/// p4c's front end merges a parse state into its only predecessor when
/// nothing else leads to it, so one BMv2 state may extract what two source
/// states did. Per-state models then count it once where the source counts
/// it twice: say so, naming the states that extract several headers.
fn note_merged_states(prog: &mut Program) {
    let multi: Vec<String> = prog
        .parsers
        .iter()
        .flat_map(|p| p.states.iter())
        .filter(|s| {
            s.ops
                .iter()
                .filter(|o| matches!(o, p4cost_ir::ParserOp::Extract { .. }))
                .count()
                >= 2
        })
        .map(|s| s.name.clone())
        .collect();
    if multi.is_empty() {
        return;
    }
    let shown: Vec<&str> = multi.iter().take(8).map(String::as_str).collect();
    prog.notes.push(format!(
        "p4c may merge extracting parser states when it compiles to BMv2 JSON: {} state(s) here extract several headers ({}{}), so per-state terms (and totals of the paths through them) can differ from a prediction made from the P4 source",
        multi.len(),
        shown.join(", "),
        if multi.len() > shown.len() { ", ..." } else { "" }
    ));
}

fn check_version(root: &J, prog: &mut Program) -> Result<()> {
    let Some(meta) = root.opt("__meta__")? else {
        prog.notes
            .push("no __meta__.version: assuming BMv2 JSON format 2.x".to_string());
        return Ok(());
    };
    let Some(ver) = meta.opt("version")? else {
        prog.notes
            .push("no __meta__.version: assuming BMv2 JSON format 2.x".to_string());
        return Ok(());
    };
    let parts = ver.items()?;
    let (Some(major), Some(minor)) = (parts.first(), parts.get(1)) else {
        return Err(ver.invalid("expected [major, minor]"));
    };
    let (major, minor) = (major.u64()?, minor.u64()?);
    if major != 2 {
        return Err(ver.invalid(format!(
            "unsupported BMv2 JSON format version {major}.{minor} (2.x expected)"
        )));
    }
    prog.notes.push(format!("BMv2 JSON format {major}.{minor}"));
    Ok(())
}

/// One package binding from the parsers and pipelines found.
fn bind_pipeline(prog: &mut Program) {
    let parser_of = |g: Gress| {
        prog.parsers
            .iter()
            .position(|p| p.gress == g)
            .map(|i| p4cost_ir::ParserId(i as u32))
    };
    let control_of = |r: ControlRole| {
        prog.controls
            .iter()
            .position(|c| c.role == r)
            .map(|i| p4cost_ir::ControlId(i as u32))
    };
    let binding = Pipeline {
        name: "main".to_string(),
        ingress_parser: parser_of(Gress::Ingress),
        ingress: control_of(ControlRole::Ingress),
        ingress_deparser: None,
        egress_parser: parser_of(Gress::Egress),
        egress: control_of(ControlRole::Egress),
        egress_deparser: None,
    };
    if binding.ingress_parser.is_some() || binding.ingress.is_some() {
        prog.pipelines.push(binding);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems() {
        assert_eq!(
            stem("../../../simple_router/simple_router.p4"),
            "simple_router"
        );
        assert_eq!(stem("./pvs_struct_2.p4i"), "pvs_struct_2");
        assert_eq!(stem("x"), "x");
    }

    #[test]
    fn detection_needs_header_types_and_a_graph() {
        let yes: serde_json::Value =
            serde_json::from_str(r#"{"header_types": [], "parsers": []}"#).unwrap();
        let no: serde_json::Value =
            serde_json::from_str(r#"{"header_types": [], "tables": []}"#).unwrap();
        assert!(looks_like_bmv2(&yes));
        assert!(!looks_like_bmv2(&no));
        assert!(!looks_like_bmv2(&serde_json::Value::Null));
    }

    #[test]
    fn invalid_json_reports_line_and_column() {
        let err = read("{\n  \"a\": [1,\n", "x.json").unwrap_err();
        match err {
            Bmv2Error::Json { line, .. } => assert_eq!(line, 3),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn wrong_major_version_is_rejected() {
        let text = r#"{"__meta__": {"version": [3, 0]}, "header_types": [], "headers": [],
                      "parsers": [], "pipelines": [], "actions": []}"#;
        let err = read(text, "x.json").unwrap_err();
        assert_eq!(
            err.to_string(),
            "__meta__.version: unsupported BMv2 JSON format version 3.0 (2.x expected)"
        );
    }
}

#[cfg(test)]
mod synthetic_tests {
    use super::*;
    use p4cost_ir::{Keyset, NodeKind, ParserOp, StackAccess, Target, Transition};

    /// A small hand-written file using features the fixtures lack:
    /// extract of a constant stack element, `advance`, a lookahead select
    /// key, an unsplittable value, and `action_calls`.
    const DOC: &str = r#"{
      "program": "dir/synthetic.p4",
      "__meta__": {"version": [2, 23]},
      "header_types": [
        {"name": "m_t", "id": 0, "fields": [["x", 4, false], ["y", 12, false]]},
        {"name": "standard_metadata", "id": 1, "fields": [["egress_spec", 9, false]]}
      ],
      "headers": [
        {"name": "m[0]", "id": 0, "header_type": "m_t", "metadata": false},
        {"name": "m[1]", "id": 1, "header_type": "m_t", "metadata": false},
        {"name": "standard_metadata", "id": 2, "header_type": "standard_metadata", "metadata": true}
      ],
      "header_stacks": [{"name": "m", "id": 0, "header_type": "m_t", "header_ids": [0, 1]}],
      "parsers": [{"name": "parser", "id": 0, "init_state": "start", "parse_states": [
        {"name": "start", "id": 0,
         "parser_ops": [
           {"op": "extract", "parameters": [{"type": "regular", "value": "m[1]"}]},
           {"op": "advance", "parameters": [{"type": "hexstr", "value": "0x10"}]}],
         "transition_key": [{"type": "lookahead", "value": [0, 8]}],
         "transitions": [
           {"value": "0x2a", "mask": null, "next_state": "start"},
           {"value": "default", "mask": null, "next_state": null}]}
      ]}],
      "actions": [
        {"name": "a", "id": 5, "runtime_data": [], "primitives": [
          {"op": "assign", "parameters": [
            {"type": "field", "value": ["standard_metadata", "egress_spec"]},
            {"type": "hexstr", "value": "0x1"}]}]}
      ],
      "pipelines": [{"name": "ingress", "id": 0, "init_table": "call_a",
        "source_info": {"filename": "s.p4", "line": 9, "column": 8, "source_fragment": "MyIngress"},
        "tables": [], "action_profiles": [], "conditionals": [],
        "action_calls": [{"name": "call_a", "id": 0, "action_id": 5, "next_node": null}]}]
    }"#;

    #[test]
    fn synthetic_features() {
        let p = read(DOC, "synthetic.json").unwrap();
        assert_eq!(p.name, "synthetic");
        assert_eq!(p.arch, Arch::V1model);
        assert_eq!(p.notes, vec!["BMv2 JSON format 2.23".to_string()]);
        // Named as declared (the pipeline is `ingress`), role from the slot.
        assert_eq!(p.controls[0].name, "MyIngress");
        assert_eq!(p.controls[0].role, ControlRole::Ingress);
        let start = &p.parsers[0].states[0];
        match &start.ops[0] {
            ParserOp::Extract {
                header,
                stack,
                bits,
                instance,
                ..
            } => {
                assert_eq!(header, "hdr.m");
                assert_eq!(*stack, Some(StackAccess::Index(1)));
                assert_eq!(*bits, 16);
                assert_eq!(p.header(instance.unwrap()).stack_size, Some(2));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            start.ops[1],
            ParserOp::Advance { bits: Some(16), .. }
        ));
        let Transition::Select { keys, cases } = &start.transition else {
            panic!()
        };
        assert_eq!(keys[0].expr, "lookahead<bit<8>>()");
        assert_eq!(keys[0].width_bits, Some(8));
        assert_eq!(
            cases[0].keysets,
            vec![Keyset::Value {
                value: "0x2a".to_string()
            }]
        );
        assert_eq!(cases[0].target, Target::State(p4cost_ir::StateId(0)));
        assert_eq!(cases[1].keysets, vec![Keyset::Default]);
        let flow = &p.controls[0].flow;
        let NodeKind::Action { action, next } = &flow.node(flow.entry.unwrap()).kind else {
            panic!()
        };
        assert_eq!(p.action(*action).name, "a");
        assert_eq!(*next, None);
        assert_eq!(p.pipelines[0].ingress, Some(p4cost_ir::ControlId(0)));
        assert_eq!(p.pipelines[0].ingress_parser, Some(p4cost_ir::ParserId(0)));
    }
}
