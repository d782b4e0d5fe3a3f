//! BMv2 "type value" objects and expression trees: rendered as readable
//! P4-like text, with the fields they read (or write, for l-values).

use std::collections::{HashMap, HashSet};

use p4cost_ir::HeaderTypeId;

use crate::access::J;
use crate::actions::Objects;
use crate::doc::Value;
use crate::error::Result;
use crate::headers::Headers;
use crate::names::Names;

/// An ordered set of field or object names (the set beside the list keeps
/// `add` constant-time on actions with thousands of primitives).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Refs(pub Vec<String>, HashSet<String>);

impl Refs {
    /// Adds a name unless already present.
    pub fn add(&mut self, name: impl Into<String>) {
        let name = name.into();
        if !self.1.contains(&name) {
            self.1.insert(name.clone());
            self.0.push(name);
        }
    }

    /// Adds every name of another set.
    pub fn extend(&mut self, other: Refs) {
        for n in other.0 {
            self.add(n);
        }
    }
}

/// Rendered text and whether it needs parentheses inside a larger
/// expression.
struct Text {
    s: String,
    compound: bool,
}

impl Text {
    fn atom(s: String) -> Text {
        Text { s, compound: false }
    }

    fn wrapped(&self) -> String {
        if self.compound {
            format!("({})", self.s)
        } else {
            self.s.clone()
        }
    }
}

/// What expressions are evaluated against.
#[derive(Clone, Copy)]
pub(crate) struct Exprs<'h> {
    /// Header lookups.
    pub headers: &'h Headers,
    /// Calculation name -> fields it reads.
    pub calcs: &'h HashMap<String, Vec<String>>,
    /// Canonical names of instances and fields.
    pub names: &'h Names,
    /// Field lists and extern instance types.
    pub objects: &'h Objects,
    /// Texts name fields and headers canonically (`hdr.ipv4.ttl`) rather
    /// than as the JSON does (`ipv4.ttl`).
    pub canonical_text: bool,
}

fn binary_op(op: &str) -> Option<&'static str> {
    Some(match op {
        "+" => "+",
        "-" => "-",
        "*" => "*",
        "/" => "/",
        "%" => "%",
        "<<" => "<<",
        ">>" => ">>",
        "==" => "==",
        "!=" => "!=",
        ">" => ">",
        ">=" => ">=",
        "<" => "<",
        "<=" => "<=",
        "&" => "&",
        "|" => "|",
        "^" => "^",
        "and" => "&&",
        "or" => "||",
        _ => return None,
    })
}

/// The two strings of a `[a, b]` JSON pair.
fn pair<'a>(j: &J<'a>) -> Result<(&'a str, &'a str)> {
    let items = j.items()?;
    match (items.first(), items.get(1)) {
        (Some(a), Some(b)) => Ok((a.str()?, b.str()?)),
        _ => Err(j.invalid("expected a pair")),
    }
}

impl Exprs<'_> {
    /// How texts name a header instance.
    fn header_text(&self, h: &str) -> String {
        if self.canonical_text {
            self.names.header(h)
        } else {
            h.to_string()
        }
    }

    /// Renders a type-value object (`{"type": ..., "value": ...}`) as
    /// text, adding what it reads to `reads`. `params` names the action's
    /// runtime data.
    pub fn value(&self, j: &J, params: &[String], reads: &mut Refs) -> Result<String> {
        Ok(self.typed(j, params, reads)?.s)
    }

    fn typed(&self, j: &J, params: &[String], reads: &mut Refs) -> Result<Text> {
        if j.v.get("op").is_some() && j.v.get("type").is_none() {
            // A bare operation object (as under `"type": "expression"`).
            return self.op(j, params, reads);
        }
        let ty = j.key_str("type")?;
        let val = j.key("value")?;
        Ok(match ty {
            "field" => self.field_text(&val, reads)?,
            "hexstr" => Text::atom(val.str()?.to_string()),
            "bool" => Text::atom(val.bool()?.to_string()),
            "string" => Text::atom(format!("\"{}\"", val.str()?)),
            "header" | "header_stack" | "header_union" | "header_union_stack" => {
                let name = val.str()?;
                reads.add(self.names.header(name));
                Text::atom(self.header_text(name))
            }
            // Extern objects are not fields: their use is an extern call
            // of the action (`Action::externs`).
            "register_array" | "meter_array" | "counter_array" | "extern" => {
                Text::atom(val.str()?.to_string())
            }
            "calculation" => {
                let name = val.str()?;
                if let Some(fields) = self.calcs.get(name) {
                    for f in fields {
                        reads.add(f.clone());
                    }
                }
                Text::atom(name.to_string())
            }
            "runtime_data" => {
                let i = val.u64()?;
                let name = usize::try_from(i)
                    .ok()
                    .and_then(|i| params.get(i))
                    .ok_or_else(|| {
                        val.invalid(format!("runtime_data index {i} is out of range"))
                    })?;
                Text::atom(name.clone())
            }
            "local" => Text::atom(format!("local#{}", val.u64()?)),
            "lookahead" => lookahead_text(&val)?,
            "register" => {
                let items = val.items()?;
                let (Some(reg), Some(idx)) = (items.first(), items.get(1)) else {
                    return Err(val.invalid("expected [register, index]"));
                };
                let reg = reg.str()?;
                let idx = self.typed(idx, params, reads)?;
                Text::atom(format!("{reg}[{}]", idx.s))
            }
            "stack_field" => {
                let (s, f) = pair(&val)?;
                reads.add(format!("{}.last.{f}", self.names.header(s)));
                Text::atom(format!("{}.last.{f}", self.header_text(s)))
            }
            "union_stack_field" => self.union_stack_field_text(&val, reads)?,
            "expression" => {
                if val.v.get("op").is_some() {
                    self.op(&val, params, reads)?
                } else {
                    self.typed(&val, params, reads)?
                }
            }
            "parameters_vector" => {
                let mut parts = Vec::new();
                for p in val.items()? {
                    parts.push(self.typed(&p, params, reads)?.s);
                }
                Text::atom(format!("{{{}}}", parts.join(", ")))
            }
            other => match val.v {
                Value::String(s) => Text::atom(s.to_string()),
                Value::Number(n) => Text::atom(n.to_string()),
                _ => Text::atom(format!("<{other}>")),
            },
        })
    }

    /// A `field` operand: `[header, field]`, canonical or as p4c names it.
    fn field_text(&self, val: &J, reads: &mut Refs) -> Result<Text> {
        let (h, f) = pair(val)?;
        reads.add(self.names.field(h, f));
        Ok(if self.canonical_text && f != "$valid$" {
            Text::atom(self.names.field(h, f))
        } else if self.canonical_text {
            Text::atom(format!("{}.$valid$", self.names.header(h)))
        } else {
            Text::atom(format!("{h}.{f}"))
        })
    }

    /// A `union_stack_field` operand: `[union stack, member, field]`.
    fn union_stack_field_text(&self, val: &J, reads: &mut Refs) -> Result<Text> {
        let items = val.items()?;
        let (Some(s), Some(m), Some(f)) = (items.first(), items.get(1), items.get(2)) else {
            return Err(val.invalid("expected [union stack, member, field]"));
        };
        let (s, m, f) = (s.str()?, m.str()?, f.str()?);
        reads.add(format!("{}.last.{m}.{f}", self.names.header(s)));
        Ok(Text::atom(format!("{}.last.{m}.{f}", self.header_text(s))))
    }

    /// The header type an expression producing a header evaluates to.
    fn header_type(&self, j: &J) -> Option<HeaderTypeId> {
        let ty = j.v.get("type")?.as_str()?;
        let val = j.v.get("value")?;
        match ty {
            "header" => self.headers.type_of_header(val.as_str()?),
            "expression" => {
                let inner = j.at_value(val);
                if val.get("op").is_none() {
                    return self.header_type(&inner);
                }
                let op = val.get("op")?.as_str()?;
                let left = val.get("left")?;
                match op {
                    "dereference_header_stack" => {
                        self.headers.type_of_stack(left.get("value")?.as_str()?)
                    }
                    "access_union_header" => {
                        let union = self.union_name(left)?;
                        let idx = val.get("right")?.as_u64()?;
                        let member = self.headers.union_member_name(&union, idx)?;
                        self.headers.type_of_union_member(&union, member)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The union (or union stack) name behind a union-valued expression.
    fn union_name(&self, v: &Value) -> Option<String> {
        match v.get("type")?.as_str()? {
            "header_union" => Some(v.get("value")?.as_str()?.to_string()),
            "expression" => {
                let val = v.get("value")?;
                if val.get("op").is_none() {
                    return self.union_name(val);
                }
                // dereference_union_stack: the union stack's name.
                val.get("left")?
                    .get("value")?
                    .as_str()
                    .map(|s| s.to_string())
            }
            _ => None,
        }
    }

    fn operand(&self, parent: &J, key: &str, params: &[String], reads: &mut Refs) -> Result<Text> {
        let j = parent.key(key)?;
        if j.is_null() {
            return Err(j.expected("an operand"));
        }
        self.typed(&j, params, reads)
    }

    fn op(&self, j: &J, params: &[String], reads: &mut Refs) -> Result<Text> {
        let op = j.key_str("op")?;
        let has_left = j.opt("left")?.is_some();
        if let Some(sym) = binary_op(op) {
            if has_left {
                let l = self.operand(j, "left", params, reads)?;
                let r = self.operand(j, "right", params, reads)?;
                return Ok(Text {
                    s: format!("{} {sym} {}", l.wrapped(), r.wrapped()),
                    compound: true,
                });
            }
        }
        let text = match op {
            "not" | "~" | "-" => {
                let r = self.operand(j, "right", params, reads)?;
                let sym = if op == "not" { "!" } else { op };
                format!("{sym}{}", r.wrapped())
            }
            "d2b" => {
                let rj = j.key("right")?;
                let r = self.typed(&rj, params, reads)?;
                match r.s.strip_suffix(".$valid$") {
                    Some(h) => format!("{h}.isValid()"),
                    None => format!("(bool){}", r.wrapped()),
                }
            }
            "b2d" => format!(
                "(bit<1>){}",
                self.operand(j, "right", params, reads)?.wrapped()
            ),
            "valid" | "valid_union" => self.valid(j, params, reads)?,
            "last_stack_index" => {
                format!(
                    "{}.lastIndex",
                    self.operand(j, "right", params, reads)?.wrapped()
                )
            }
            "size_stack" => format!(
                "{}.size",
                self.operand(j, "right", params, reads)?.wrapped()
            ),
            "?" => {
                let c = self.operand(j, "cond", params, reads)?;
                let l = self.operand(j, "left", params, reads)?;
                let r = self.operand(j, "right", params, reads)?;
                return Ok(Text {
                    s: format!("{} ? {} : {}", c.wrapped(), l.wrapped(), r.wrapped()),
                    compound: true,
                });
            }
            "dereference_header_stack" | "dereference_union_stack" => {
                let l = self.operand(j, "left", params, reads)?;
                let r = self.operand(j, "right", params, reads)?;
                format!("{}[{}]", l.wrapped(), r.s)
            }
            "access_field" | "access_union_header" => self.access(j, op, params, reads)?,
            _ => self.other_op(j, op, params, reads)?,
        };
        Ok(Text::atom(text))
    }

    /// `valid` and `valid_union`: the validity bit of the header (or
    /// union) operand, which is read, not the header's fields.
    fn valid(&self, j: &J, params: &[String], reads: &mut Refs) -> Result<String> {
        let rj = j.key("right")?;
        let header = match (rj.v.get("type").and_then(|t| t.as_str()), rj.v.get("value")) {
            (Some("header" | "header_union"), Some(Value::String(h))) => Some(h.as_ref()),
            _ => None,
        };
        Ok(match header {
            Some(h) => {
                reads.add(format!("{}.$valid", self.names.header(h)));
                format!("{}.isValid()", self.header_text(h))
            }
            None => format!(
                "{}.isValid()",
                self.operand(j, "right", params, reads)?.wrapped()
            ),
        })
    }

    /// `access_field` and `access_union_header` (`op`): a header's field,
    /// or a union's member, by its offset (`#N` when the type is unknown).
    fn access(&self, j: &J, op: &str, params: &[String], reads: &mut Refs) -> Result<String> {
        let left = j.key("left")?;
        let l = self.operand(j, "left", params, reads)?;
        let off = j.key("right")?.u64()?;
        let name = if op == "access_field" {
            self.header_type(&left)
                .and_then(|t| self.headers.field_name_at(t, off))
                .map(|s| s.to_string())
        } else {
            self.union_name(left.v)
                .and_then(|u| self.headers.union_member_name(&u, off).map(String::from))
        };
        Ok(format!(
            "{}.{}",
            l.wrapped(),
            name.unwrap_or_else(|| format!("#{off}"))
        ))
    }

    /// Any other operator `op`, written as a call of its operands.
    fn other_op(&self, j: &J, op: &str, params: &[String], reads: &mut Refs) -> Result<String> {
        let mut args = Vec::new();
        for key in ["left", "right"] {
            if let Some(x) = j.opt(key)? {
                if x.v.is_object() {
                    args.push(self.typed(&x, params, reads)?.s);
                } else {
                    args.push(x.v.to_string());
                }
            }
        }
        Ok(format!("{op}({})", args.join(", ")))
    }

    /// The object an l-value type-value object writes (a field, a header,
    /// a stack, an extern), adding fields read to compute it (stack
    /// indices) to `reads`. Writes into a stack element name the stack.
    pub fn lvalue(&self, j: &J, params: &[String], reads: &mut Refs) -> Result<String> {
        if j.v.get("op").is_some() && j.v.get("type").is_none() {
            return self.lvalue_op(j, params, reads);
        }
        let ty = j.key_str("type")?;
        let val = j.key("value")?;
        match ty {
            "field" => {
                let (h, f) = pair(&val)?;
                Ok(self.names.field(h, f))
            }
            "header" | "header_stack" | "header_union" | "header_union_stack" => {
                Ok(self.names.header(val.str()?))
            }
            "register_array" | "meter_array" | "counter_array" | "extern" => {
                Ok(val.str()?.to_string())
            }
            "expression" => {
                if val.v.get("op").is_some() {
                    self.lvalue_op(&val, params, reads)
                } else {
                    self.lvalue(&val, params, reads)
                }
            }
            _ => {
                let mut inner = Refs::default();
                let text = self.value(j, params, &mut inner)?;
                reads.extend(inner);
                Ok(text)
            }
        }
    }

    fn lvalue_op(&self, j: &J, params: &[String], reads: &mut Refs) -> Result<String> {
        let op = j.key_str("op")?;
        match op {
            "dereference_header_stack" | "dereference_union_stack" => {
                let base = self.lvalue(&j.key("left")?, params, reads)?;
                self.operand(j, "right", params, reads)?;
                Ok(base)
            }
            "access_field" | "access_union_header" => {
                let left = j.key("left")?;
                let base = self.lvalue(&left, params, reads)?;
                let off = j.key("right")?.u64()?;
                let is_stack_elem = left
                    .v
                    .get("value")
                    .and_then(|v| v.get("op"))
                    .and_then(|o| o.as_str())
                    .is_some_and(|o| o.starts_with("dereference"));
                if is_stack_elem || op == "access_union_header" {
                    return Ok(base);
                }
                let name = self
                    .header_type(&left)
                    .and_then(|t| self.headers.field_name_at(t, off))
                    .map(|s| s.to_string())
                    .unwrap_or_else(|| format!("#{off}"));
                Ok(format!("{base}.{name}"))
            }
            _ => {
                let mut inner = Refs::default();
                let text = self.op(j, params, &mut inner)?.s;
                reads.extend(inner);
                Ok(text)
            }
        }
    }
}

/// Runs `f` with an expression context whose tables are all empty (for
/// tests of this module and of `cond`).
/// A `lookahead` operand: `[offset, width]`.
fn lookahead_text(val: &J) -> Result<Text> {
    let items = val.items()?;
    let (Some(off), Some(w)) = (items.first(), items.get(1)) else {
        return Err(val.invalid("expected [offset, width]"));
    };
    let (off, w) = (off.u64()?, w.u64()?);
    Ok(if off == 0 {
        Text::atom(format!("lookahead<bit<{w}>>()"))
    } else {
        Text::atom(format!("lookahead<bit<{w}>>(offset {off})"))
    })
}

#[cfg(test)]
pub(crate) fn with_empty_exprs<R>(f: impl FnOnce(&Exprs) -> R) -> R {
    let headers = Headers::default();
    let calcs = HashMap::new();
    let names = Names::default();
    let objects = Objects::default();
    f(&Exprs {
        headers: &headers,
        calcs: &calcs,
        names: &names,
        objects: &objects,
        canonical_text: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn with_exprs(f: impl FnOnce(&Exprs)) {
        with_empty_exprs(f)
    }

    fn render(text: &str) -> (String, Vec<String>) {
        let v: Value = serde_json::from_str(text).unwrap();
        let mut out = (String::new(), Vec::new());
        with_exprs(|e| {
            let mut reads = Refs::default();
            let s = e
                .value(
                    &J::root(&crate::doc::Value::from_serde(&v)),
                    &["port".to_string()],
                    &mut reads,
                )
                .unwrap();
            out = (s, reads.0);
        });
        out
    }

    #[test]
    fn valid_and_comparison() {
        let (s, reads) = render(
            r#"{"type":"expression","value":{"op":"and",
              "left":{"type":"expression","value":{"op":"d2b","left":null,
                      "right":{"type":"field","value":["ipv4","$valid$"]}}},
              "right":{"type":"expression","value":{"op":">",
                      "left":{"type":"field","value":["ipv4","ttl"]},
                      "right":{"type":"hexstr","value":"0x00"}}}}}"#,
        );
        assert_eq!(s, "ipv4.isValid() && (ipv4.ttl > 0x00)");
        // Validity is its own bit, not the header.
        assert_eq!(reads, vec!["ipv4.$valid", "ipv4.ttl"]);
    }

    #[test]
    fn unary_runtime_data_and_ternary() {
        let (s, reads) = render(
            r#"{"type":"expression","value":{"op":"?",
              "cond":{"type":"expression","value":{"op":"not","left":null,
                      "right":{"type":"bool","value":true}}},
              "left":{"type":"runtime_data","value":0},
              "right":{"type":"stack_field","value":["mpls","label"]}}}"#,
        );
        assert_eq!(s, "!true ? port : mpls.last.label");
        assert_eq!(reads, vec!["mpls.last.label"]);
    }

    #[test]
    fn lvalue_of_stack_element_writes_the_stack() {
        let v: Value = serde_json::from_str(
            r#"{"type":"expression","value":{"type":"expression","value":{"op":"access_field",
              "left":{"type":"expression","value":{"op":"dereference_header_stack",
                 "left":{"type":"header_stack","value":"h2"},
                 "right":{"type":"field","value":["h1","idx"]}}},
              "right":0}}}"#,
        )
        .unwrap();
        with_exprs(|e| {
            let mut reads = Refs::default();
            let w = e
                .lvalue(
                    &J::root(&crate::doc::Value::from_serde(&v)),
                    &[],
                    &mut reads,
                )
                .unwrap();
            assert_eq!(w, "h2");
            assert_eq!(reads.0, vec!["h1.idx"]);
        });
    }

    #[test]
    fn bad_runtime_index_is_an_error() {
        let v: Value = serde_json::from_str(r#"{"type":"runtime_data","value":3}"#).unwrap();
        with_exprs(|e| {
            let err = e
                .value(
                    &J::root(&crate::doc::Value::from_serde(&v)),
                    &[],
                    &mut Refs::default(),
                )
                .unwrap_err();
            assert_eq!(
                err.to_string(),
                "value: runtime_data index 3 is out of range"
            );
        });
    }
}
