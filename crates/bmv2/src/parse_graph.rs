//! `parsers[]` to IR parsers: states, their operations and their
//! transitions.

use std::collections::HashMap;

use p4cost_ir::{
    Gress, HeaderTypeId, Keyset, ParseState, Parser, ParserOp, Program, SelectCase, SelectKey,
    StackAccess, StateId, Target, Transition,
};

use crate::access::J;
use crate::actions::primitive_effects;
use crate::doc::Value;
use crate::error::Result;
use crate::expr::{Exprs, Refs};
use crate::hexstr;
use crate::spans::Spans;

/// Reads every parser into `prog.parsers`.
pub(crate) fn read(root: &J, prog: &mut Program, e: &Exprs, spans: &Spans) -> Result<()> {
    for p in root.key_items("parsers")? {
        let parser = read_parser(&p, prog, e, spans)?;
        prog.parsers.push(parser);
    }
    Ok(())
}

fn read_parser(p: &J, prog: &Program, e: &Exprs, spans: &Spans) -> Result<Parser> {
    let name = p.key_str("name")?;
    let states_j = p.key_items("parse_states")?;
    let mut ids: HashMap<&str, StateId> = HashMap::new();
    for (i, s) in states_j.iter().enumerate() {
        let sname = s.key_str("name")?;
        if ids.insert(sname, StateId(i as u32)).is_some() {
            return Err(s
                .key("name")?
                .invalid(format!("duplicate parse state `{sname}`")));
        }
    }
    let init = p.key("init_state")?;
    let init_name = init.str()?;
    let start = *ids
        .get(init_name)
        .ok_or_else(|| init.invalid(format!("unknown parse state `{init_name}`")))?;
    let values: Vec<&Value> = states_j.iter().map(|s| s.v).collect();
    let index: HashMap<&str, usize> = ids.iter().map(|(&n, id)| (n, id.index())).collect();
    let copies = crate::copy_out::copy_out_targets(&values, &index);
    let mut states = Vec::with_capacity(states_j.len());
    for (i, s) in states_j.iter().enumerate() {
        states.push(read_state(s, prog, e, spans, &ids, |op| {
            copies.get(&(i, op)).map(String::as_str)
        })?);
    }
    let gress = if name.contains("egress") {
        Gress::Egress
    } else {
        Gress::Ingress
    };
    Ok(Parser {
        name: name.to_string(),
        gress,
        states,
        start,
        span: spans.json_start(),
    })
}

/// One parse state; `copied_to(i)` names the header the local its
/// operation `i` extracts is copied into ([`crate::copy_out`]).
fn read_state<'c>(
    s: &J,
    prog: &Program,
    e: &Exprs,
    spans: &Spans,
    ids: &HashMap<&str, StateId>,
    copied_to: impl Fn(usize) -> Option<&'c str>,
) -> Result<ParseState> {
    let name = s.key_str("name")?;
    let mut ops = Vec::new();
    for (i, op) in s.key_items("parser_ops")?.iter().enumerate() {
        read_op(op, prog, e, spans, copied_to(i), &mut ops)?;
    }
    let transition = read_transition(s, e, ids, spans)?;
    Ok(ParseState {
        name: name.to_string(),
        ops,
        transition,
        annotations: Vec::new(),
        span: spans.json_start(),
    })
}

/// What an extract parameter designates.
struct ExtractTarget {
    header: String,
    stack: Option<StackAccess>,
    ty: HeaderTypeId,
}

fn extract_target(j: &J, e: &Exprs) -> Result<ExtractTarget> {
    let ty = j.key_str("type")?;
    let val = j.key("value")?;
    match ty {
        "regular" => {
            let name = val.str()?;
            let hty = e
                .headers
                .type_of_header(name)
                .ok_or_else(|| val.invalid(format!("unknown header instance `{name}`")))?;
            // `stack[3]` is element 3 of a stack.
            if let Some((base, idx)) = name
                .strip_suffix(']')
                .and_then(|n| n.rsplit_once('['))
                .and_then(|(b, i)| i.parse::<u32>().ok().map(|i| (b, i)))
            {
                if e.headers.type_of_stack(base).is_some() {
                    return Ok(ExtractTarget {
                        header: base.to_string(),
                        stack: Some(StackAccess::Index(idx)),
                        ty: hty,
                    });
                }
            }
            Ok(ExtractTarget {
                header: name.to_string(),
                stack: None,
                ty: hty,
            })
        }
        "stack" => {
            let name = val.str()?;
            let hty = e
                .headers
                .type_of_stack(name)
                .ok_or_else(|| val.invalid(format!("unknown header stack `{name}`")))?;
            Ok(ExtractTarget {
                header: name.to_string(),
                stack: Some(StackAccess::Next),
                ty: hty,
            })
        }
        "union_stack" => {
            let parts = val.items()?;
            let (Some(us), Some(member)) = (parts.first(), parts.get(1)) else {
                return Err(val.invalid("expected [union stack, member]"));
            };
            let (us, member) = (us.str()?, member.str()?);
            let hty = e.headers.type_of_union_member(us, member).ok_or_else(|| {
                val.invalid(format!("unknown union stack member `{us}.{member}`"))
            })?;
            Ok(ExtractTarget {
                header: us.to_string(),
                stack: Some(StackAccess::Next),
                ty: hty,
            })
        }
        other => Err(j
            .key("type")?
            .invalid(format!("unknown extract parameter type `{other}`"))),
    }
}

fn first_param<'a>(op: &J<'a>, params: &[J<'a>]) -> Result<J<'a>> {
    params
        .first()
        .cloned()
        .ok_or_else(|| op.invalid("operation has no parameters"))
}

fn read_op(
    op: &J,
    prog: &Program,
    e: &Exprs,
    spans: &Spans,
    copied_to: Option<&str>,
    out: &mut Vec<ParserOp>,
) -> Result<()> {
    let kind = op.key_str("op")?;
    let params = op.key_items("parameters")?;
    let span = spans.json_start();
    match kind {
        "extract" | "extract_VL" => {
            let t = Extract {
                op,
                prog,
                e,
                copied_to,
                vl: kind == "extract_VL",
            };
            out.push(t.read(&params, span)?);
        }
        "advance" | "shift" => out.push(read_advance(op, e, &params, kind == "shift", span)?),
        "set" => read_set(op, e, &params, span, out)?,
        "verify" => {
            let mut reads = Refs::default();
            for p in &params {
                e.value(p, &[], &mut reads)?;
            }
            out.push(statement("verify".into(), reads, Vec::new(), span));
        }
        "primitive" => {
            let call = first_param(op, &params)?;
            let name = call.key_str("op")?;
            let args = call.opt_items("parameters")?;
            let fx = primitive_effects(e, name, &args, &[], span)?;
            out.push(statement(
                name.to_string().into(),
                fx.reads,
                fx.writes.0,
                span,
            ));
        }
        other => {
            return Err(op
                .key("op")?
                .invalid(format!("unknown parser operation `{other}`")))
        }
    }
    Ok(())
}

/// A parser statement with no constant value.
fn statement(
    what: std::borrow::Cow<'static, str>,
    reads: Refs,
    writes: Vec<String>,
    span: p4cost_ir::Span,
) -> ParserOp {
    ParserOp::Statement {
        what,
        reads: reads.0,
        writes,
        constant: None,
        span,
    }
}

/// One `extract` / `extract_VL` operation being read.
struct Extract<'x, 'a> {
    op: &'x J<'a>,
    prog: &'x Program,
    e: &'x Exprs<'x>,
    copied_to: Option<&'x str>,
    /// `extract_VL`: the second parameter is the varbit length.
    vl: bool,
}

impl<'a> Extract<'_, 'a> {
    fn read(&self, params: &[J<'a>], span: p4cost_ir::Span) -> Result<ParserOp> {
        let (op, e) = (self.op, self.e);
        let mut t = extract_target(&first_param(op, params)?, e)?;
        // A sub-parser's local copied into a header of the caller's
        // stands for that header, as the source names it.
        if let Some(d) = self
            .copied_to
            .filter(|d| e.headers.type_of_header(d) == Some(t.ty))
        {
            t.header = d.to_string();
        }
        let hty = self.prog.header_type(t.ty);
        let bits = hty.fixed_bits();
        let varbit_max_bits = if self.vl {
            match params.get(1) {
                Some(len) => {
                    e.value(len, &[], &mut Refs::default())?;
                }
                None => return Err(op.invalid("extract_VL needs a length expression")),
            }
            hty.max_bits() - bits
        } else {
            0
        };
        // Canonical naming (ARCHITECTURE.md, "Names"): packet headers
        // under the headers parameter, always shown as `hdr`; p4c's
        // BMv2 JSON drops the parameter name.
        let header = if hty.origin == p4cost_ir::Origin::Program {
            format!("hdr.{}", t.header)
        } else {
            t.header.clone()
        };
        Ok(ParserOp::Extract {
            instance: e.headers.instance_id(&t.header),
            header,
            stack: t.stack,
            bits,
            varbit_max_bits,
            origin: hty.origin,
            span,
        })
    }
}

/// `advance` (bits) or `shift` (bytes): the bits skipped when constant.
fn read_advance<'a>(
    op: &J<'a>,
    e: &Exprs,
    params: &[J<'a>],
    shift: bool,
    span: p4cost_ir::Span,
) -> Result<ParserOp> {
    let p = first_param(op, params)?;
    let mut reads = Refs::default();
    let text = e.value(&p, &[], &mut reads)?;
    let ty = p.key_str("type")?;
    let n = if ty == "hexstr" {
        hexstr::to_u64(&text)
    } else {
        None
    };
    let bits = if shift {
        n.and_then(|b| b.checked_mul(8))
    } else {
        n
    };
    Ok(ParserOp::Advance { bits, span })
}

/// `set`: an assignment, after the lookahead it reads (if it reads one).
fn read_set<'a>(
    op: &J<'a>,
    e: &Exprs,
    params: &[J<'a>],
    span: p4cost_ir::Span,
    out: &mut Vec<ParserOp>,
) -> Result<()> {
    let (Some(dst), Some(src)) = (params.first(), params.get(1)) else {
        return Err(op.invalid("set needs 2 parameters"));
    };
    let mut reads = Refs::default();
    let write = e.lvalue(dst, &[], &mut reads)?;
    e.value(src, &[], &mut reads)?;
    if let Some(bits) = lookahead_bits(src)? {
        out.push(ParserOp::Lookahead {
            bits: Some(bits),
            span,
        });
    }
    out.push(ParserOp::Statement {
        what: "set".into(),
        reads: reads.0,
        writes: vec![write],
        constant: crate::actions::const_value(src.v),
        span,
    });
    Ok(())
}

/// Bits a `lookahead` source inspects (offset + width), if it is one.
fn lookahead_bits(src: &J) -> Result<Option<u64>> {
    if src.v.get("type").and_then(|t| t.as_str()) != Some("lookahead") {
        return Ok(None);
    }
    let parts = src.key("value")?.items()?;
    match (parts.first(), parts.get(1)) {
        (Some(o), Some(w)) => Ok(o.u64()?.checked_add(w.u64()?)),
        _ => Ok(None),
    }
}

fn select_key(k: &J, e: &Exprs, spans: &Spans) -> Result<SelectKey> {
    let ty = k.key_str("type")?;
    let val = k.key("value")?;
    let width = match ty {
        "field" => {
            let parts = val.items()?;
            match (parts.first(), parts.get(1)) {
                (Some(h), Some(f)) => e.headers.field_width(h.str()?, f.str()?),
                _ => return Err(val.invalid("expected [header, field]")),
            }
        }
        "stack_field" => {
            let parts = val.items()?;
            match (parts.first(), parts.get(1)) {
                (Some(s), Some(f)) => e
                    .headers
                    .type_of_stack(s.str()?)
                    .and_then(|t| e.headers.field_width_in(t, f.str().unwrap_or(""))),
                _ => return Err(val.invalid("expected [stack, field]")),
            }
        }
        "union_stack_field" => {
            let parts = val.items()?;
            match (parts.first(), parts.get(1), parts.get(2)) {
                (Some(s), Some(m), Some(f)) => e
                    .headers
                    .type_of_union_member(s.str()?, m.str()?)
                    .and_then(|t| e.headers.field_width_in(t, f.str().unwrap_or(""))),
                _ => return Err(val.invalid("expected [union stack, member, field]")),
            }
        }
        "lookahead" => {
            let parts = val.items()?;
            match parts.get(1) {
                Some(w) => Some(w.u32()?),
                None => return Err(val.invalid("expected [offset, width]")),
            }
        }
        other => {
            return Err(k
                .key("type")?
                .invalid(format!("unknown transition key type `{other}`")))
        }
    };
    let expr = e.value(k, &[], &mut Refs::default())?;
    // A field key is named as conditions name it; a stack field or a
    // lookahead is not a plain field.
    let field = (ty == "field").then(|| expr.clone());
    Ok(SelectKey {
        expr,
        width_bits: width,
        field,
        span: spans.json_start(),
    })
}

fn target(j: &J, ids: &HashMap<&str, StateId>) -> Result<Target> {
    match j.opt_str()? {
        None => Ok(Target::Accept),
        Some(name) => ids
            .get(name)
            .map(|id| Target::State(*id))
            .ok_or_else(|| j.invalid(format!("unknown parse state `{name}`"))),
    }
}

fn read_transition(
    s: &J,
    e: &Exprs,
    ids: &HashMap<&str, StateId>,
    spans: &Spans,
) -> Result<Transition> {
    let mut keys = Vec::new();
    for k in s.opt_items("transition_key")? {
        keys.push(select_key(&k, e, spans)?);
    }
    let widths: Vec<Option<u32>> = keys.iter().map(|k| k.width_bits).collect();
    let mut cases = Vec::new();
    for t in s.key_items("transitions")? {
        let next = target(&t.key("next_state")?, ids)?;
        let value = t.opt("value")?;
        // Old files have no `type` and write `"value": "default"`.
        let ty = match t.opt_key_str("type")? {
            Some(ty) => ty,
            None => match value.as_ref().map(|v| v.str()).transpose()? {
                None | Some("default") => "default",
                Some(_) => "hexstr",
            },
        };
        let keysets = match ty {
            "default" => vec![Keyset::Default],
            "hexstr" => {
                let v = value.ok_or_else(|| t.invalid("hexstr transition without a value"))?;
                let text = v.str()?;
                if hexstr::digits(text).is_none() {
                    return Err(v.invalid(format!("`{text}` is not a hex string")));
                }
                let mask = match t.opt("mask")? {
                    Some(m) => {
                        let mt = m.str()?;
                        if hexstr::digits(mt).is_none() {
                            return Err(m.invalid(format!("`{mt}` is not a hex string")));
                        }
                        Some(mt)
                    }
                    None => None,
                };
                match hexstr::split_keyset(text, mask, &widths) {
                    Some(ks) => ks,
                    None => vec![match mask {
                        Some(m) => Keyset::Mask {
                            value: text.to_string(),
                            mask: m.to_string(),
                        },
                        None => Keyset::Value {
                            value: text.to_string(),
                        },
                    }],
                }
            }
            "parse_vset" => {
                let v = value.ok_or_else(|| t.invalid("parse_vset transition without a name"))?;
                vec![Keyset::ValueSet {
                    name: v.str()?.to_string(),
                }]
            }
            other => {
                return Err(t
                    .key("type")?
                    .invalid(format!("unknown transition type `{other}`")))
            }
        };
        cases.push(SelectCase {
            keysets,
            target: next,
            span: spans.json_start(),
        });
    }
    if keys.is_empty() {
        // No key: the first case decides (BMv2 only writes a default).
        let target = match cases.first() {
            Some(c) if c.keysets == [Keyset::Default] => c.target,
            Some(_) => return Ok(Transition::Select { keys, cases }),
            None => Target::Accept,
        };
        return Ok(Transition::Direct { target });
    }
    Ok(Transition::Select { keys, cases })
}
