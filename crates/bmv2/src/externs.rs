//! Stateful objects to IR extern instances: `register_arrays[]`,
//! `counter_arrays[]`, `meter_arrays[]` and the `action_profiles[]` of
//! every pipeline.
//!
//! Format facts: registers carry `size` and `bitwidth`; counters and
//! meters carry `is_direct` and, when indirect (meters also when direct),
//! `size`; action profiles carry `max_size` and, for selectors, a
//! `selector` object. Every entry may carry `source_info`.

use std::collections::HashSet;

use p4cost_ir::{ExternInstance, ExternKind, Program};

use crate::access::J;
use crate::error::Result;
use crate::spans::Spans;

/// Reads every register, counter, meter and action profile into
/// `prog.externs`, in that order. Absent arrays contribute nothing.
pub(crate) fn read(root: &J, prog: &mut Program, spans: &mut Spans) -> Result<()> {
    for r in root.opt_items("register_arrays")? {
        let width_bits = match r.opt("bitwidth")? {
            Some(w) => Some(w.u32()?),
            None => None,
        };
        push(prog, spans, &r, ExternKind::Register, "size", width_bits)?;
    }
    for c in root.opt_items("counter_arrays")? {
        push(prog, spans, &c, ExternKind::Counter, "size", None)?;
    }
    for m in root.opt_items("meter_arrays")? {
        push(prog, spans, &m, ExternKind::Meter, "size", None)?;
    }
    let mut profiles_seen: HashSet<&str> = HashSet::new();
    for p in root.opt_items("pipelines")? {
        for ap in p.opt_items("action_profiles")? {
            let name = ap.key_str("name")?;
            // A profile shared by two pipelines is one object.
            if !profiles_seen.insert(name) {
                continue;
            }
            let kind = match ap.opt("selector")? {
                Some(_) => ExternKind::ActionSelector,
                None => ExternKind::ActionProfile,
            };
            push(prog, spans, &ap, kind, "max_size", None)?;
        }
    }
    Ok(())
}

/// Adds one instance read from `item`, its size taken from `size_key`.
fn push(
    prog: &mut Program,
    spans: &mut Spans,
    item: &J,
    kind: ExternKind,
    size_key: &str,
    width_bits: Option<u32>,
) -> Result<()> {
    let name = item.key_str("name")?;
    let size = match item.opt(size_key)? {
        Some(s) => Some(s.u64()?),
        None => None,
    };
    let direct = match item.opt("is_direct")? {
        Some(d) => d.bool()?,
        None => false,
    };
    let span = spans.of(prog, item)?;
    prog.externs.push(ExternInstance {
        name: name.to_string(),
        kind,
        size,
        width_bits,
        direct,
        max_group_size: None,
        args: Vec::new(),
        works_on: None,
        span,
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use p4cost_ir::InputKind;

    fn run(text: &str) -> Result<Program> {
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        let v = crate::doc::Value::from_serde(&v);
        let mut prog = Program::new("t", InputKind::Bmv2Json);
        let mut spans = Spans {
            json: prog.add_file("t.json"),
        };
        read(&J::root(&v), &mut prog, &mut spans)?;
        Ok(prog)
    }

    #[test]
    fn every_kind_with_its_figures() {
        let p = run(r#"{
          "register_arrays": [{"name": "r", "id": 0, "size": 10, "bitwidth": 48,
             "source_info": {"filename": "a.p4", "line": 3, "column": 0}}],
          "counter_arrays": [{"name": "c", "id": 0, "is_direct": true, "binding": "t"},
                             {"name": "c2", "id": 1, "is_direct": false, "size": 5}],
          "meter_arrays": [{"name": "m", "id": 0, "is_direct": false, "size": 7}],
          "pipelines": [
            {"name": "ingress", "action_profiles": [
              {"name": "ap", "id": 0, "max_size": 64},
              {"name": "sel", "id": 1, "max_size": 32, "selector": {"algo": "crc16", "input": []}}]},
            {"name": "egress", "action_profiles": [{"name": "sel", "id": 1, "max_size": 32,
              "selector": {"algo": "crc16", "input": []}}]}]
        }"#)
        .unwrap();
        type Row<'a> = (&'a str, ExternKind, Option<u64>, Option<u32>, bool);
        let got: Vec<Row> = p
            .externs
            .iter()
            .map(|e| {
                (
                    e.name.as_str(),
                    e.kind.clone(),
                    e.size,
                    e.width_bits,
                    e.direct,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("r", ExternKind::Register, Some(10), Some(48), false),
                ("c", ExternKind::Counter, None, None, true),
                ("c2", ExternKind::Counter, Some(5), None, false),
                ("m", ExternKind::Meter, Some(7), None, false),
                ("ap", ExternKind::ActionProfile, Some(64), None, false),
                ("sel", ExternKind::ActionSelector, Some(32), None, false),
            ]
        );
        assert_eq!(p.file_path(p.externs[0].span.file), "a.p4");
        assert_eq!(p.externs[0].span.line, 3);
        assert_eq!(p.file_path(p.externs[1].span.file), "t.json");
    }

    #[test]
    fn wrong_types_name_their_path() {
        let err =
            run(r#"{"register_arrays": [{"name": "r", "size": 1, "bitwidth": "8"}]}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "register_arrays[0].bitwidth: expected a non-negative integer, found string"
        );
        let err = run(r#"{"counter_arrays": [{"name": "c", "is_direct": 1}]}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "counter_arrays[0].is_direct: expected a boolean, found number"
        );
        let err = run(r#"{"meter_arrays": {"name": "m"}}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "meter_arrays: expected an array, found object"
        );
        let err = run(r#"{"pipelines": [{"action_profiles": [{"max_size": 1}]}]}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "pipelines[0].action_profiles[0]: missing key `name`"
        );
    }
}
