//! Top-level `actions` (and `calculations`, `learn_lists`, `field_lists`
//! and `extern_instances`, which primitives refer to): parameters,
//! primitive names, read/write sets and extern calls.

use std::collections::HashMap;

use p4cost_ir::{
    Action, ActionId, ExternCall, ExternUse, FlagSet, Param, Primitive, Program, Span, ValiditySet,
};

use crate::access::J;
use crate::doc::Value;
use crate::error::Result;
use crate::expr::{Exprs, Refs};
use crate::hexstr;
use crate::names::Names;
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

/// The fields each named calculation reads (canonical names).
pub(crate) fn read_calculations(root: &J, names: &Names) -> Result<HashMap<String, Vec<String>>> {
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
                    fields.push(names.field(h.str()?, f.str()?));
                }
                "header" => fields.push(names.header(inp.key_str("value")?)),
                _ => {}
            }
        }
        out.insert(name.to_string(), fields);
    }
    Ok(out)
}

/// Named objects primitives refer to besides fields: the field lists of
/// digests (`learn_lists`) and of clones and resubmits (`field_lists`),
/// by id, and the type of every `extern_instances` entry.
#[derive(Debug, Default)]
pub(crate) struct Objects {
    learn_lists: HashMap<u64, Vec<String>>,
    field_lists: HashMap<u64, Vec<String>>,
    extern_types: HashMap<String, String>,
}

impl Objects {
    /// Reads `learn_lists`, `field_lists` and `extern_instances`.
    pub fn read(root: &J, names: &Names) -> Result<Objects> {
        let mut o = Objects::default();
        for (key, map) in [
            ("learn_lists", &mut o.learn_lists),
            ("field_lists", &mut o.field_lists),
        ] {
            for l in root.opt_items(key)? {
                let id = l.key("id")?.u64()?;
                let mut fields = Vec::new();
                for el in l.opt_items("elements")? {
                    if el.key_str("type")? == "field" {
                        let v = el.key("value")?;
                        let parts = v.items()?;
                        let (Some(h), Some(f)) = (parts.first(), parts.get(1)) else {
                            return Err(v.invalid("expected [header, field]"));
                        };
                        fields.push(names.field(h.str()?, f.str()?));
                    }
                }
                map.insert(id, fields);
            }
        }
        for x in root.opt_items("extern_instances")? {
            o.extern_types.insert(
                x.key_str("name")?.to_string(),
                x.key_str("type")?.to_string(),
            );
        }
        Ok(o)
    }
}

/// The constant 0 or 1 an assignment's right-hand side is, if it is one
/// ([`const_value`]): how a `bool` flag such as `hasReturned` is set.
fn const_bit(v: &Value) -> Option<bool> {
    match const_value(v)? {
        0 => Some(false),
        1 => Some(true),
        _ => None,
    }
}

/// The non-negative constant an assignment's right-hand side is, if it is
/// one: `{"type": "hexstr", "value": "0x06"}`, `{"type": "bool", ...}`
/// (0 or 1), or either under p4c's `b2d` / `d2b` conversions.
pub(crate) fn const_value(v: &Value) -> Option<u128> {
    let mut v = v;
    // p4c nests `expression` objects a few deep; a bound keeps odd input
    // linear.
    for _ in 0..8 {
        match v.get("type").and_then(|t| t.as_str())? {
            "bool" => return v.get("value")?.as_bool().map(u128::from),
            "hexstr" => {
                let text = v.get("value")?.as_str()?;
                let digits = text.strip_prefix("0x").unwrap_or(text);
                return u128::from_str_radix(digits, 16).ok();
            }
            "expression" => {
                let inner = v.get("value")?;
                v = match inner.get("op").and_then(|o| o.as_str()) {
                    Some("b2d" | "d2b") => inner.get("right")?,
                    Some(_) => return None,
                    None => inner,
                };
            }
            _ => return None,
        }
    }
    None
}

/// What one primitive call does: fields read and written, extern calls.
#[derive(Debug, Default)]
pub(crate) struct Effects {
    /// Fields read.
    pub reads: Refs,
    /// Fields written (a header's validity as `<header>.$valid`).
    pub writes: Refs,
    /// Extern objects used.
    pub externs: Vec<ExternCall>,
    /// `add_header`/`remove_header` (or `setValid`/`setInvalid`): the
    /// header and whether it is made valid.
    pub sets_validity: Option<(String, bool)>,
}

/// `names` and what each was copied from earlier in the action, at most
/// [`p4cost_ir::MAX_INDEX_READS`].
fn through_copies(copies: &HashMap<String, Vec<String>>, names: &[String]) -> Vec<String> {
    let mut out = Refs::default();
    for n in names {
        out.add(n.clone());
        for c in copies.get(n).into_iter().flatten() {
            out.add(c.clone());
        }
    }
    let mut v = out.0;
    v.truncate(p4cost_ir::MAX_INDEX_READS);
    v
}

/// The fields the index parameter `i` of a register primitive reads (also
/// added to the action's reads), marking it done.
fn index_reads(
    e: &Exprs,
    params: &[J],
    i: usize,
    names: &[String],
    done: &mut [bool],
    fx: &mut Effects,
) -> Result<Vec<String>> {
    let Some(p) = params.get(i) else {
        return Ok(Vec::new());
    };
    done[i] = true;
    let mut r = Refs::default();
    e.value(p, names, &mut r)?;
    let out = r.0.clone();
    fx.reads.extend(r);
    Ok(out)
}

/// The effects of one primitive call `op(params...)`, with `names` naming
/// the enclosing action's runtime data and `span` the call's site.
///
/// Validity: `add_header`/`remove_header` (and `setValid`/`setInvalid`)
/// write `<header>.$valid`; `assign_header`, `push` and `pop` write the
/// whole header or stack. Extern primitives become [`ExternCall`]s
/// (`register_read`/`register_write`: stateful ALU; `count`: counter;
/// `execute_meter`: meter; hash, random, clone, resubmit/recirculate,
/// digest, checksum) and their objects are not fields: a register write
/// writes no field. Digests, clones and resubmits read their field lists.
pub(crate) fn primitive_effects(
    e: &Exprs,
    op: &str,
    params: &[J],
    names: &[String],
    span: Span,
) -> Result<Effects> {
    let mut c = PrimitiveCall {
        e,
        params,
        names,
        span,
        // Parameters already accounted for.
        done: vec![false; params.len()],
        fx: Effects::default(),
    };
    match op {
        "assign"
        | "assign_VL"
        | "modify_field"
        | "assign_header"
        | "assign_union"
        | "assign_header_stack"
        | "assign_union_stack" => {
            c.write(0)?;
        }
        "add_header" | "remove_header" | "setValid" | "setInvalid" => c.set_validity(op)?,
        "push" | "pop" => {
            // A stack shift reads what it writes.
            if let Some(w) = c.write(0)? {
                c.fx.reads.add(w);
            }
        }
        "mark_to_drop" | "drop" => c.mark_to_drop()?,
        _ => c.extern_primitive(op)?,
    }
    c.finish()
}

/// One primitive call being read by [`primitive_effects`]: its
/// parameters, which of them are accounted for, and the effects so far.
struct PrimitiveCall<'c, 'h, 'a> {
    e: &'c Exprs<'h>,
    params: &'c [J<'a>],
    names: &'c [String],
    span: Span,
    done: Vec<bool>,
    fx: Effects,
}

impl PrimitiveCall<'_, '_, '_> {
    /// Parameter `i` as a written lvalue (its own reads included).
    fn write(&mut self, i: usize) -> Result<Option<String>> {
        let Some(p) = self.params.get(i) else {
            return Ok(None);
        };
        self.done[i] = true;
        let w = self.e.lvalue(p, self.names, &mut self.fx.reads)?;
        self.fx.writes.add(w.clone());
        Ok(Some(w))
    }

    /// The extern object named by parameter `i` (empty when absent).
    fn object(&mut self, i: usize) -> Result<String> {
        match self.params.get(i) {
            Some(p) => {
                self.done[i] = true;
                Ok(p.key_str("value")?.to_string())
            }
            None => Ok(String::new()),
        }
    }

    /// An extern call at the primitive's site.
    fn call(&self, instance: String, ty: &str, method: &str, uses: ExternUse) -> ExternCall {
        ExternCall {
            instance,
            ty: ty.to_string(),
            method: method.to_string(),
            uses,
            divides: false,
            index_reads: Vec::new(),
            result: None,
            span: self.span,
        }
    }

    /// Adds an extern call to the effects.
    fn push_call(&mut self, instance: String, ty: &str, method: &str, uses: ExternUse) {
        let c = self.call(instance, ty, method, uses);
        self.fx.externs.push(c);
    }

    /// The fields index parameter `i` reads (see [`index_reads`]).
    fn index_reads(&mut self, i: usize) -> Result<Vec<String>> {
        index_reads(
            self.e,
            self.params,
            i,
            self.names,
            &mut self.done,
            &mut self.fx,
        )
    }

    /// The reads of the field list at parameter `i` (see [`list_reads`]).
    fn list_reads(&mut self, i: usize, learn: bool) -> Result<()> {
        list_reads(self.e, self.params, i, learn, &mut self.done, &mut self.fx)
    }

    /// The primitives that call externs: registers, counters, meters,
    /// hashes, random, clones, resubmits, digests, extern methods and
    /// checksums (any other primitive only reads its parameters).
    fn extern_primitive(&mut self, op: &str) -> Result<()> {
        let first_is_extern = self
            .params
            .first()
            .and_then(|p| p.v.get("type"))
            .and_then(|t| t.as_str())
            == Some("extern");
        match op {
            "register_read" => self.register_read()?,
            "register_write" => self.register_write()?,
            "count" => {
                let o = self.object(0)?;
                self.push_call(o, "counter", "count", ExternUse::Counter);
            }
            "execute_meter" => {
                let m = self.object(0)?;
                self.write(2)?;
                self.push_call(m, "meter", "execute_meter", ExternUse::Meter);
            }
            "modify_field_with_hash_based_offset" => self.hash_based_offset()?,
            "modify_field_rng_uniform" => {
                self.write(0)?;
                self.push_call(String::new(), "random", "random", ExternUse::Random);
            }
            "clone_ingress_pkt_to_egress" | "clone_egress_pkt_to_egress" => {
                self.list_reads(1, false)?;
                self.push_call(String::new(), "clone", op, ExternUse::Mirror);
            }
            "resubmit" | "recirculate" => {
                self.list_reads(0, false)?;
                self.push_call(String::new(), op, op, ExternUse::Resubmit);
            }
            "generate_digest" => {
                self.list_reads(1, true)?;
                self.push_call(String::new(), "digest", "digest", ExternUse::Digest);
            }
            _ if first_is_extern => self.extern_method(op)?,
            _ if op.contains("checksum") => {
                self.push_call(String::new(), op, op, ExternUse::Checksum);
            }
            _ => {}
        }
        Ok(())
    }

    /// `add_header`/`remove_header`/`setValid`/`setInvalid`: writes
    /// `<header>.$valid`.
    fn set_validity(&mut self, op: &str) -> Result<()> {
        if let Some(p) = self.params.first() {
            self.done[0] = true;
            let h = self.e.lvalue(p, self.names, &mut self.fx.reads)?;
            self.fx.writes.add(format!("{h}.$valid"));
            self.fx.sets_validity = Some((h, matches!(op, "add_header" | "setValid")));
        }
        Ok(())
    }

    /// `mark_to_drop`/`drop`: sets the egress port to the drop port; reads
    /// nothing.
    fn mark_to_drop(&mut self) -> Result<()> {
        let sm = match self.params.first() {
            Some(p) => {
                self.done[0] = true;
                self.e.lvalue(p, self.names, &mut self.fx.reads)?
            }
            None => self.e.names.header("standard_metadata"),
        };
        self.fx.writes.add(format!("{sm}.egress_spec"));
        Ok(())
    }

    /// `register_read(dst, register, index)`.
    fn register_read(&mut self) -> Result<()> {
        let dst = self.write(0)?;
        let r = self.object(1)?;
        let mut c = self.call(r, "register", "read", ExternUse::StatefulAlu);
        c.index_reads = self.index_reads(2)?;
        c.result = dst;
        self.fx.externs.push(c);
        Ok(())
    }

    /// `register_write(register, index, value)`.
    fn register_write(&mut self) -> Result<()> {
        let r = self.object(0)?;
        let mut c = self.call(r, "register", "write", ExternUse::StatefulAlu);
        c.index_reads = self.index_reads(1)?;
        self.fx.externs.push(c);
        Ok(())
    }

    /// `modify_field_with_hash_based_offset(dst, base, calculation, size)`.
    fn hash_based_offset(&mut self) -> Result<()> {
        self.write(0)?;
        // The calculation (parameter 2) is read below: its inputs.
        let calc = self
            .params
            .get(2)
            .and_then(|p| p.v.get("value"))
            .and_then(|v| v.as_str())
            .unwrap_or_default();
        self.push_call(calc.to_string(), "hash", "hash", ExternUse::Hash);
        Ok(())
    }

    /// `_<type>_<method>(instance, ...)`: a method of an extern instance.
    fn extern_method(&mut self, op: &str) -> Result<()> {
        let inst = self.object(0)?;
        let ty = self
            .e
            .objects
            .extern_types
            .get(&inst)
            .cloned()
            .unwrap_or_default();
        let method = op
            .strip_prefix('_')
            .and_then(|r| r.strip_prefix(ty.as_str()))
            .and_then(|r| r.strip_prefix('_'))
            .filter(|_| !ty.is_empty())
            .unwrap_or(op)
            .to_string();
        let uses = if op.contains("checksum") || op.contains("Checksum") {
            ExternUse::Checksum
        } else {
            ExternUse::of_type(&ty)
        };
        self.push_call(inst, &ty, &method, uses);
        Ok(())
    }

    /// The reads of every parameter not yet accounted for, and the effects.
    fn finish(mut self) -> Result<Effects> {
        for (i, p) in self.params.iter().enumerate() {
            if !self.done[i] {
                self.e.value(p, self.names, &mut self.fx.reads)?;
            }
        }
        Ok(self.fx)
    }
}

/// Reads of a field-list parameter (a digest's learn list, a clone's or
/// resubmit's field list) given by id at `params[i]`.
fn list_reads(
    e: &Exprs,
    params: &[J],
    i: usize,
    learn: bool,
    done: &mut [bool],
    fx: &mut Effects,
) -> Result<()> {
    let Some(p) = params.get(i) else {
        return Ok(());
    };
    if p.v.get("type").and_then(|t| t.as_str()) != Some("hexstr") {
        return Ok(());
    }
    done[i] = true;
    let id = hexstr::to_u64(p.key_str("value")?)
        .ok_or_else(|| p.invalid("expected a field list id (a hex string)"))?;
    let lists = if learn {
        &e.objects.learn_lists
    } else {
        &e.objects.field_lists
    };
    for f in lists.get(&id).into_iter().flatten() {
        fx.reads.add(f.clone());
    }
    Ok(())
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
        let mut externs = Vec::new();
        let mut primitives = Vec::new();
        let mut validity = Vec::new();
        let mut flags = Vec::new();
        // Field -> what the value an `assign` left in it was read from (p4c
        // copies a register index into a temporary first).
        let mut copies: HashMap<String, Vec<String>> = HashMap::new();
        for p in a.key_items("primitives")? {
            let op = p.key_str("op")?;
            let args = p.opt_items("parameters")?;
            let span = spans.of(prog, &p)?;
            let fx = primitive_effects(e, op, &args, &names, span)?;
            // Primitives run in order, unconditionally (p4c turns an
            // action's `if` into separate actions or `?:`).
            match &fx.sets_validity {
                Some((h, v)) => ValiditySet::record(&mut validity, h, *v),
                None => {
                    for w in &fx.writes.0 {
                        ValiditySet::clobber(&mut validity, w);
                    }
                }
            }
            for w in &fx.writes.0 {
                FlagSet::clobber(&mut flags, w);
            }
            if let (true, [field], Some(v)) = (
                op == "assign",
                fx.writes.0.as_slice(),
                args.get(1).and_then(|a| const_bit(a.v)),
            ) {
                FlagSet::record(&mut flags, field, v);
            }
            let mut fx = fx;
            for c in &mut fx.externs {
                c.index_reads = through_copies(&copies, &c.index_reads);
            }
            if let (true, [field]) = (op == "assign", fx.writes.0.as_slice()) {
                let from = through_copies(&copies, &fx.reads.0);
                copies.insert(field.clone(), from);
            } else {
                for w in &fx.writes.0 {
                    copies.remove(w);
                }
            }
            reads.extend(fx.reads);
            writes.extend(fx.writes);
            externs.extend(fx.externs);
            primitives.push(Primitive {
                op: op.to_string(),
                span,
            });
        }
        let span = spans.of(prog, &a)?;
        prog.actions.push(std::sync::Arc::new(Action {
            name: name.to_string(),
            params,
            reads: reads.0,
            writes: writes.0,
            primitives,
            externs,
            validity,
            flags,
            annotations: Vec::new(),
            span,
        }));
    }
    Ok(index)
}

#[cfg(test)]
mod tests {
    use super::const_bit;
    use crate::doc::Value;
    use serde_json::json;

    fn bit(v: serde_json::Value) -> Option<bool> {
        const_bit(&Value::from_serde(&v))
    }

    #[test]
    fn constant_bits_in_the_forms_p4c_writes() {
        // `hasReturned = true` as p4c writes it for a bool scalar.
        let b2d = json!({"type": "expression", "value": {"type": "expression",
            "value": {"op": "b2d", "left": null, "right": {"type": "bool", "value": true}}}});
        assert_eq!(bit(b2d), Some(true));
        assert_eq!(bit(json!({"type": "hexstr", "value": "0x00"})), Some(false));
        assert_eq!(
            bit(json!({"type": "hexstr", "value": "0x0001"})),
            Some(true)
        );
        assert_eq!(bit(json!({"type": "bool", "value": false})), Some(false));
        // Not a 0 / 1 constant: a plain write.
        assert_eq!(bit(json!({"type": "hexstr", "value": "0x02"})), None);
        assert_eq!(bit(json!({"type": "field", "value": ["m", "f"]})), None);
        let sum = json!({"type": "expression", "value": {"op": "+",
            "left": {"type": "hexstr", "value": "0x00"}, "right": {"type": "hexstr", "value": "0x01"}}});
        assert_eq!(bit(sum), None);
    }
}

/// Register calls of p4c's output keep their index and result
/// (`register_window_too_small` needs them), through the temporaries p4c
/// copies an index into.
#[cfg(test)]
mod register_index_tests {
    #[test]
    fn flowlet_switching_indexes_its_registers_by_the_hashed_flowlet_map_index() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/bmv2/flowlet_switching-bmv2.json"
        );
        let text = std::fs::read_to_string(path).expect("fixture");
        let p = crate::read(&text, "flowlet_switching-bmv2.json").expect("reads");
        let a = p
            .actions
            .iter()
            .find(|a| a.name.ends_with("lookup_flowlet_map"))
            .expect("action");
        let calls: Vec<_> = a
            .externs
            .iter()
            .filter(|c| c.ty == "register")
            .map(|c| (c.method.as_str(), c.index_reads.clone(), c.result.clone()))
            .collect();
        let idx = "meta.ingress_metadata.flowlet_map_index".to_string();
        // read(flowlet_id), read(flowlet_lasttime), write(flowlet_lasttime):
        // each index is p4c's temporary copied from the hashed index.
        assert_eq!(calls.len(), 3, "{calls:?}");
        for (_, reads, _) in &calls {
            assert!(reads.contains(&idx), "{calls:?}");
        }
        assert_eq!(
            calls[0].2.as_deref(),
            Some("meta.ingress_metadata.flowlet_id"),
            "{calls:?}"
        );
        assert_eq!(calls[2].2, None, "a write has no result: {calls:?}");
    }
}
