//! Top-level `actions` (and `calculations`, which actions read through
//! hash primitives): parameters, primitive names and read/write sets.

use std::collections::HashMap;

use p4cost_ir::{Action, ActionId, Param, Primitive, Program};

use crate::access::J;
use crate::error::Result;
use crate::expr::{Exprs, Refs};
use crate::spans::Spans;

/// Lookups from JSON action ids and names to [`ActionId`]s.
#[derive(Debug, Default)]
pub(crate) struct ActionIndex {
    by_json_id: HashMap<u64, ActionId>,
    by_name: HashMap<String, ActionId>,
}

impl ActionIndex {
    /// The action with this JSON `id`.
    pub fn by_id(&self, id: u64) -> Option<ActionId> {
        self.by_json_id.get(&id).copied()
    }

    /// The first action with this name.
    pub fn by_name(&self, name: &str) -> Option<ActionId> {
        self.by_name.get(name).copied()
    }
}

/// The fields each named calculation reads.
pub(crate) fn read_calculations(root: &J) -> Result<HashMap<String, Vec<String>>> {
    let mut out = HashMap::new();
    for c in root.opt_items("calculations")? {
        let name = c.key_str("name")?;
        let mut fields = Vec::new();
        for inp in c.opt_items("input")? {
            let ty = inp.key_str("type")?;
            match ty {
                "field" => {
                    let v = inp.key("value")?;
                    let parts = v.items()?;
                    let (Some(h), Some(f)) = (parts.first(), parts.get(1)) else {
                        return Err(v.invalid("expected [header, field]"));
                    };
                    fields.push(format!("{}.{}", h.str()?, f.str()?));
                }
                "header" => fields.push(inp.key_str("value")?.to_string()),
                _ => {}
            }
        }
        out.insert(name.to_string(), fields);
    }
    Ok(out)
}

/// Which parameters of a primitive it writes. Everything else is read.
fn written_params(op: &str, first_is_extern: bool) -> &'static [usize] {
    match op {
        "assign"
        | "assign_VL"
        | "assign_header"
        | "assign_union"
        | "assign_header_stack"
        | "assign_union_stack"
        | "modify_field"
        | "add_header"
        | "remove_header"
        | "setValid"
        | "setInvalid"
        | "push"
        | "pop"
        | "register_read"
        | "register_write"
        | "count"
        | "modify_field_with_hash_based_offset"
        | "modify_field_rng_uniform"
        | "mark_to_drop" => &[0],
        "execute_meter" => &[0, 2],
        _ if first_is_extern => &[0],
        _ => &[],
    }
}

/// Reads and writes of one primitive call `op(params...)`, with `names`
/// naming the enclosing action's runtime data.
pub(crate) fn primitive_rw(
    e: &Exprs,
    op: &str,
    params: &[J],
    names: &[String],
) -> Result<(Refs, Refs)> {
    let mut reads = Refs::default();
    let mut writes = Refs::default();
    let first_is_extern = params
        .first()
        .and_then(|p| p.v.get("type"))
        .and_then(|t| t.as_str())
        == Some("extern");
    let written = written_params(op, first_is_extern);
    for (i, p) in params.iter().enumerate() {
        if written.contains(&i) {
            writes.add(e.lvalue(p, names, &mut reads)?);
            // Stack shifts and register/counter updates also read what
            // they write.
            if matches!(op, "push" | "pop" | "count" | "execute_meter") && i == 0 {
                reads.add(e.lvalue(p, names, &mut Refs::default())?);
            }
        } else {
            e.value(p, names, &mut reads)?;
        }
    }
    if op == "drop" && params.is_empty() {
        // simple_switch's P4_14-style drop sets the egress port to drop.
        writes.add("standard_metadata.egress_spec");
    }
    Ok((reads, writes))
}

/// Reads every action into `prog.actions`.
pub(crate) fn read(
    root: &J,
    prog: &mut Program,
    e: &Exprs,
    spans: &mut Spans,
) -> Result<ActionIndex> {
    let mut index = ActionIndex::default();
    for a in root.key_items("actions")? {
        let name = a.key_str("name")?;
        let id_j = a.key("id")?;
        let json_id = id_j.u64()?;
        let aid = ActionId(prog.actions.len() as u32);
        if index.by_json_id.insert(json_id, aid).is_some() {
            return Err(id_j.invalid(format!("duplicate action id {json_id}")));
        }
        index.by_name.entry(name.to_string()).or_insert(aid);
        let mut params = Vec::new();
        for rd in a.opt_items("runtime_data")? {
            params.push(Param {
                name: rd.key_str("name")?.to_string(),
                width_bits: Some(rd.key("bitwidth")?.u32()?),
            });
        }
        let names: Vec<String> = params.iter().map(|p| p.name.clone()).collect();
        let mut reads = Refs::default();
        let mut writes = Refs::default();
        let mut primitives = Vec::new();
        for p in a.key_items("primitives")? {
            let op = p.key_str("op")?;
            let args = p.opt_items("parameters")?;
            let (r, w) = primitive_rw(e, op, &args, &names)?;
            reads.extend(r);
            writes.extend(w);
            primitives.push(Primitive {
                op: op.to_string(),
                span: spans.of(prog, &p)?,
            });
        }
        let span = spans.of(prog, &a)?;
        prog.actions.push(Action {
            name: name.to_string(),
            params,
            reads: reads.0,
            writes: writes.0,
            primitives,
            externs: Vec::new(),
            annotations: Vec::new(),
            span,
        });
    }
    Ok(index)
}
