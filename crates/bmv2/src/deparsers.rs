//! `deparsers[]` to IR deparsers: the order in which headers are emitted.
//!
//! The JSON lists every header instance it emits, stack elements one by
//! one (`h[0]`, `h[1]`) and union stack members as `stack[i].member`. The
//! IR names a stack by the stack instance, as the rest of the reader does,
//! so a run of elements of one stack becomes a single entry.

use p4cost_ir::{Deparser, Program};

use crate::access::J;
use crate::error::Result;
use crate::headers::Headers;
use crate::spans::Spans;

/// Reads every deparser into `prog.deparsers` (none when the array is
/// absent).
pub(crate) fn read(
    root: &J,
    prog: &mut Program,
    headers: &Headers,
    spans: &mut Spans,
) -> Result<()> {
    for d in root.opt_items("deparsers")? {
        let name = d.key_str("name")?;
        let span = spans.of(prog, &d)?;
        let mut order: Vec<String> = Vec::new();
        for item in d.key_items("order")? {
            let emitted = item.str()?;
            let instance = instance_of(prog, headers, emitted)
                .ok_or_else(|| item.invalid(format!("unknown header instance `{emitted}`")))?;
            if order.last().map(String::as_str) != Some(instance) {
                order.push(instance.to_string());
            }
        }
        prog.deparsers.push(Deparser {
            name: name.to_string(),
            order,
            span,
        });
    }
    Ok(())
}

/// The IR header instance a JSON header name stands for: the stack for a
/// stack element (`h[2]`) or a union stack member (`u[1].a`), else the name
/// itself when it is a known header instance.
fn instance_of<'a>(prog: &Program, headers: &Headers, emitted: &'a str) -> Option<&'a str> {
    if let Some((base, _)) = emitted.split_once('[') {
        let is_stack = headers
            .instance_id(base)
            .and_then(|id| prog.headers.get(id.index()))
            .is_some_and(|h| h.stack_size.is_some());
        if is_stack {
            return Some(base);
        }
    }
    let known = headers.type_of_header(emitted).is_some() || headers.instance_id(emitted).is_some();
    known.then_some(emitted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use p4cost_ir::InputKind;

    fn run(text: &str) -> Result<Program> {
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        let v = crate::doc::Value::from_serde(&v);
        let root = J::root(&v);
        let mut prog = Program::new("t", InputKind::Bmv2Json);
        let mut spans = Spans {
            json: prog.add_file("t.json"),
        };
        let h = crate::headers::read(&root, &mut prog, spans.json_start())?;
        read(&root, &mut prog, &h, &mut spans)?;
        Ok(prog)
    }

    const HEADERS: &str = r#""header_types": [{"name": "t", "id": 0, "fields": [["x", 8, false]]}],
      "headers": [
        {"name": "a", "id": 0, "header_type": "t", "metadata": false},
        {"name": "s[0]", "id": 1, "header_type": "t", "metadata": false},
        {"name": "s[1]", "id": 2, "header_type": "t", "metadata": false},
        {"name": "b", "id": 3, "header_type": "t", "metadata": false}],
      "header_stacks": [{"name": "s", "id": 0, "header_type": "t", "header_ids": [1, 2]}]"#;

    #[test]
    fn stack_elements_collapse_to_the_stack() {
        let p = run(&format!(
            r#"{{{HEADERS}, "deparsers": [{{"name": "dp", "id": 0,
                "source_info": {{"filename": "x.p4", "line": 7, "column": 2}},
                "order": ["a", "s[0]", "s[1]", "b"]}}]}}"#
        ))
        .unwrap();
        assert_eq!(p.deparsers.len(), 1);
        assert_eq!(p.deparsers[0].name, "dp");
        assert_eq!(p.deparsers[0].order, vec!["a", "s", "b"]);
        assert_eq!(p.deparsers[0].span.line, 7);
        assert_eq!(p.deparsers[0].span.col, 3);
        assert_eq!(p.file_path(p.deparsers[0].span.file), "x.p4");
    }

    #[test]
    fn absent_array_gives_no_deparser() {
        let p = run(&format!("{{{HEADERS}}}")).unwrap();
        assert!(p.deparsers.is_empty());
    }

    #[test]
    fn unknown_header_and_wrong_type_name_their_path() {
        let err = run(&format!(
            r#"{{{HEADERS}, "deparsers": [{{"name": "dp", "order": ["a", "zz"]}}]}}"#
        ))
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "deparsers[0].order[1]: unknown header instance `zz`"
        );
        let err = run(&format!(
            r#"{{{HEADERS}, "deparsers": [{{"name": "dp", "order": [3]}}]}}"#
        ))
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "deparsers[0].order[0]: expected a string, found number"
        );
    }
}
