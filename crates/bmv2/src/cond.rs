//! BMv2 condition expressions to structured conditions ([`Cond`]), in the
//! shapes the P4 source front end produces, built with an explicit stack
//! (the depth of an expression tree never becomes stack depth).
//!
//! - `["h", "$valid$"]` and the `valid` operation are `IsValid { h }`;
//! - `d2b` and `b2d` (p4c's bool/bit conversions) are transparent;
//! - `and`, `or`, `not` and the comparisons are their own nodes;
//! - hex constants are decimal `Int`s, `true`/`false` `Bool`s;
//! - p4c's form of a slice, `(x >> lo) & mask` or `x & mask` with a mask
//!   of low ones, is `Slice` (a mask no narrower than `x` is a no-op);
//! - anything else is `Other` with its operator (the source front end's
//!   names: `bitand`, `shr`, `add`, ...) and its operands.

use p4cost_ir::{CmpOp, Cond, CondNode};

use crate::access::J;
use crate::doc::Value;
use crate::error::Result;
use crate::expr::Exprs;
use crate::hexstr;

/// How a node is made from its operands' nodes.
enum Build {
    /// The operand itself (`d2b`, `b2d`).
    Transparent,
    Not,
    And,
    Or,
    Cmp(CmpOp),
    /// `(x >> shift) & ones(width)`.
    Slice {
        shift: u32,
        width: u32,
    },
    Other(String),
}

enum Task<'a> {
    Visit(J<'a>),
    Build(Build, usize),
}

/// Names the source front end gives operators it keeps as `Other`.
fn other_name(op: &str, unary: bool) -> String {
    match (op, unary) {
        ("-", true) => "neg",
        ("~", _) => "complement",
        ("+", _) => "add",
        ("-", false) => "sub",
        ("*", _) => "mul",
        ("/", _) => "div",
        ("%", _) => "mod",
        ("<<", _) => "shl",
        (">>", _) => "shr",
        ("&", _) => "bitand",
        ("|", _) => "bitor",
        ("^", _) => "bitxor",
        ("?", _) => "ternary",
        ("valid" | "valid_union", _) => "isValid",
        _ => op,
    }
    .to_string()
}

fn cmp_of(op: &str) -> Option<CmpOp> {
    Some(match op {
        "==" => CmpOp::Eq,
        "!=" => CmpOp::Ne,
        "<" => CmpOp::Lt,
        "<=" => CmpOp::Le,
        ">" => CmpOp::Gt,
        ">=" => CmpOp::Ge,
        _ => return None,
    })
}

/// `j` without its `{"type": "expression", "value": ...}` wrappers.
fn unwrap<'a>(mut j: J<'a>) -> Result<J<'a>> {
    while j.v.get("type").and_then(|t| t.as_str()) == Some("expression") {
        j = j.key("value")?;
    }
    Ok(j)
}

/// True for an operation object (`{"op": ..., "left": ..., "right": ...}`).
fn is_op(j: &J) -> bool {
    j.v.get("op").is_some() && j.v.get("type").is_none()
}

/// The value of a `hexstr` type-value object.
fn hex_u64(j: &J) -> Option<u64> {
    let j = unwrap(j.clone()).ok()?;
    if j.v.get("type")?.as_str()? != "hexstr" {
        return None;
    }
    hexstr::to_u64(j.v.get("value")?.as_str()?)
}

/// The width of a mask of low ones (`0xff` -> 8), if it is one.
fn ones_width(m: u64) -> Option<u32> {
    (m != 0 && m & m.wrapping_add(1) == 0).then(|| 64 - m.leading_zeros())
}

/// The structured form of the condition expression `j`, built bottom-up
/// with an explicit stack (the JSON's nesting is the input's).
pub(crate) fn cond_of(e: &Exprs, j: &J) -> Result<Cond> {
    let mut b = CondBuilder::default();
    let mut tasks = vec![Task::Visit(j.clone())];
    while let Some(t) = tasks.pop() {
        match t {
            Task::Visit(j) => b.visit(e, j, &mut tasks)?,
            Task::Build(op, n) => b.build(op, n),
        }
    }
    Ok(b.cond)
}

/// A condition under construction: its nodes, their known widths (for
/// slices), and the nodes of the operands built so far, waiting for
/// their operator.
#[derive(Default)]
struct CondBuilder {
    cond: Cond,
    widths: Vec<Option<u32>>,
    results: Vec<u32>,
}

impl CondBuilder {
    /// Adds node `n` of width `w` as the next operand.
    fn push(&mut self, n: CondNode, w: Option<u32>) {
        self.widths.push(w);
        let id = self.cond.push(n);
        self.results.push(id);
    }

    /// A leaf becomes a node; an operator's build comes after its
    /// operands' visits on `tasks`.
    fn visit<'a>(&mut self, e: &Exprs, j: J<'a>, tasks: &mut Vec<Task<'a>>) -> Result<()> {
        let j = unwrap(j)?;
        if !is_op(&j) {
            let (node, w) = leaf(e, &j)?;
            self.push(node, w);
            return Ok(());
        }
        let op = j.key_str("op")?;
        let (build, kids) = classify(&j, op)?;
        match build {
            Some(b) => {
                tasks.push(Task::Build(b, kids.len()));
                tasks.extend(kids.into_iter().rev().map(Task::Visit));
            }
            None => {
                // A leaf-like operation (`valid` on a header).
                let (node, w) = valid_leaf(e, &j)?;
                self.push(node, w);
            }
        }
        Ok(())
    }

    /// The operator `b` over the last `n` operands (`?` of them when
    /// their number is not its own).
    fn build(&mut self, b: Build, n: usize) {
        let at = self.results.len().saturating_sub(n);
        let args = self.results.split_off(at);
        let two = |f: fn(u32, u32) -> CondNode| match args[..] {
            [l, r] => Some(f(l, r)),
            _ => None,
        };
        let (node, w) = match b {
            Build::Transparent => {
                if let [a] = args[..] {
                    self.results.push(a);
                    return;
                }
                (None, None)
            }
            Build::Not => (args.first().map(|&a| CondNode::Not { arg: a }), Some(1)),
            Build::And => (two(|lhs, rhs| CondNode::And { lhs, rhs }), Some(1)),
            Build::Or => (two(|lhs, rhs| CondNode::Or { lhs, rhs }), Some(1)),
            Build::Cmp(cmp) => (
                match args[..] {
                    [lhs, rhs] => Some(CondNode::Cmp { cmp, lhs, rhs }),
                    _ => None,
                },
                Some(1),
            ),
            Build::Slice { shift, width } => return self.build_slice(args, shift, width),
            Build::Other(text) => (
                Some(CondNode::Other {
                    text,
                    args: args.clone(),
                }),
                None,
            ),
        };
        let node = node.unwrap_or_else(|| CondNode::Other {
            text: "?".into(),
            args,
        });
        self.push(node, w);
    }

    /// `(x >> shift) & ones(width)` over the one operand in `args`: a
    /// slice where [`slice`] makes one, else an opaque `bitand`.
    fn build_slice(&mut self, args: Vec<u32>, shift: u32, width: u32) {
        let [c] = args[..] else {
            let text = "bitand".into();
            return self.push(CondNode::Other { text, args }, None);
        };
        match slice(&mut self.cond, &mut self.widths, c, shift, width) {
            Some(r) => self.results.push(r),
            None => {
                let text = "bitand".into();
                self.push(CondNode::Other { text, args }, None)
            }
        }
    }
}

/// Takes bits `shift ..= shift + width - 1` of node `c` (the last node):
/// composes with a slice below, drops a mask that keeps every bit, or
/// adds a `Slice`. `None` when no bit is left.
fn slice(
    cond: &mut Cond,
    widths: &mut Vec<Option<u32>>,
    c: u32,
    shift: u32,
    width: u32,
) -> Option<u32> {
    let cw = widths.get(c as usize).copied().flatten();
    let last = cond.nodes.len().checked_sub(1)? as u32;
    if let (true, Some(CondNode::Slice { hi, lo, .. })) = (c == last, cond.nodes.last_mut()) {
        let new_lo = lo.checked_add(shift)?;
        let new_hi = (*hi).min(new_lo.checked_add(width - 1)?);
        if new_lo > new_hi {
            return None;
        }
        *lo = new_lo;
        *hi = new_hi;
        if let Some(w) = widths.last_mut() {
            *w = Some(new_hi - new_lo + 1);
        }
        return Some(c);
    }
    if shift == 0 && cw.is_some_and(|w| w <= width) {
        return Some(c);
    }
    let mut hi = shift.checked_add(width - 1)?;
    if let Some(w) = cw {
        if shift >= w {
            return None;
        }
        hi = hi.min(w - 1);
    }
    widths.push(Some(hi - shift + 1));
    Some(cond.push(CondNode::Slice {
        base: c,
        hi,
        lo: shift,
    }))
}

/// How an operation is built and its operands, or `None` for an
/// operation that is a leaf.
fn classify<'a>(j: &J<'a>, op: &str) -> Result<(Option<Build>, Vec<J<'a>>)> {
    let operand = |k: &str| -> Result<J<'a>> {
        let x = j.key(k)?;
        if x.is_null() {
            return Err(x.expected("an operand"));
        }
        Ok(x)
    };
    let unary = j.opt("left")?.is_none();
    Ok(match op {
        "and" => (Some(Build::And), vec![operand("left")?, operand("right")?]),
        "or" => (Some(Build::Or), vec![operand("left")?, operand("right")?]),
        "not" => (Some(Build::Not), vec![operand("right")?]),
        "d2b" | "b2d" => (Some(Build::Transparent), vec![operand("right")?]),
        "valid" | "valid_union" => {
            let r = unwrap(operand("right")?)?;
            match r.v.get("type").and_then(|t| t.as_str()) {
                Some("header" | "header_union") => (None, vec![]),
                _ => (Some(Build::Other(other_name(op, true))), vec![r]),
            }
        }
        "&" if !unary => {
            let left = unwrap(operand("left")?)?;
            let right = operand("right")?;
            match hex_u64(&right).and_then(ones_width) {
                Some(width) => {
                    let shifted = if is_op(&left) && left.key_str("op")? == ">>" {
                        match hex_u64(&operand_of(&left, "right")?)
                            .and_then(|k| u32::try_from(k).ok())
                        {
                            Some(k) => Some((k, unwrap(operand_of(&left, "left")?)?)),
                            None => None,
                        }
                    } else {
                        None
                    };
                    match shifted {
                        Some((shift, base)) => (Some(Build::Slice { shift, width }), vec![base]),
                        None => (Some(Build::Slice { shift: 0, width }), vec![left]),
                    }
                }
                None => (Some(Build::Other(other_name(op, false))), vec![left, right]),
            }
        }
        _ => {
            if let Some(cmp) = cmp_of(op) {
                (
                    Some(Build::Cmp(cmp)),
                    vec![operand("left")?, operand("right")?],
                )
            } else {
                // Operands are the object-valued members (an `access_field`
                // offset is a number, not an operand).
                let mut kids = Vec::new();
                for k in ["cond", "left", "right"] {
                    if let Some(x) = j.opt(k)? {
                        if x.v.is_object() {
                            kids.push(x);
                        }
                    }
                }
                (Some(Build::Other(other_name(op, unary))), kids)
            }
        }
    })
}

fn operand_of<'a>(j: &J<'a>, k: &str) -> Result<J<'a>> {
    let x = j.key(k)?;
    if x.is_null() {
        return Err(x.expected("an operand"));
    }
    Ok(x)
}

/// The node of the one leaf operation: `valid` on a header or union.
fn valid_leaf(e: &Exprs, j: &J) -> Result<(CondNode, Option<u32>)> {
    let r = unwrap(operand_of(j, "right")?)?;
    let header = r.key_str("value")?;
    Ok((
        CondNode::IsValid {
            header: e.names.header(header),
        },
        Some(1),
    ))
}

/// The node of a type-value leaf, and its width when known.
fn leaf(e: &Exprs, j: &J) -> Result<(CondNode, Option<u32>)> {
    let ty = j.key_str("type")?;
    let val = j.key("value")?;
    Ok(match ty {
        "field" => {
            let items = val.items()?;
            let (Some(h), Some(f)) = (items.first(), items.get(1)) else {
                return Err(val.invalid("expected [header, field]"));
            };
            let (h, f) = (h.str()?, f.str()?);
            if f == "$valid$" {
                (
                    CondNode::IsValid {
                        header: e.names.header(h),
                    },
                    Some(1),
                )
            } else {
                (
                    CondNode::Field {
                        name: e.names.field(h, f),
                    },
                    e.headers.field_width(h, f),
                )
            }
        }
        "hexstr" => {
            let text = val.str()?;
            match hexstr::to_decimal(text) {
                Some(value) => (CondNode::Int { value }, None),
                None => (
                    CondNode::Other {
                        text: text.to_string(),
                        args: vec![],
                    },
                    None,
                ),
            }
        }
        "bool" => (CondNode::Bool { value: val.bool()? }, Some(1)),
        "header" | "header_stack" | "header_union" | "header_union_stack" => (
            CondNode::Field {
                name: e.names.header(val.str()?),
            },
            None,
        ),
        "stack_field" => {
            let items = val.items()?;
            let (Some(s), Some(f)) = (items.first(), items.get(1)) else {
                return Err(val.invalid("expected [stack, field]"));
            };
            (
                CondNode::Field {
                    name: format!("{}.last.{}", e.names.header(s.str()?), f.str()?),
                },
                None,
            )
        }
        other => {
            let text = match val.v {
                Value::String(s) => s.to_string(),
                Value::Number(n) => n.to_string(),
                _ => other.to_string(),
            };
            (CondNode::Other { text, args: vec![] }, None)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::with_empty_exprs;
    use serde_json::Value;

    fn cond(text: &str) -> Cond {
        let v: Value = serde_json::from_str(text).unwrap();
        let c = cond_value(&v);
        assert!(c.is_well_formed());
        c
    }

    /// The condition of an already-built JSON value, with empty tables.
    fn cond_value(v: &Value) -> Cond {
        with_empty_exprs(|e| cond_of(e, &J::root(&crate::doc::Value::from_serde(v)))).unwrap()
    }

    #[test]
    fn validity_and_comparison() {
        let c = cond(
            r#"{"type":"expression","value":{"op":"and",
              "left":{"type":"expression","value":{"op":"d2b","left":null,
                      "right":{"type":"field","value":["ipv4","$valid$"]}}},
              "right":{"type":"expression","value":{"op":">",
                      "left":{"type":"field","value":["ipv4","ttl"]},
                      "right":{"type":"hexstr","value":"0x0100"}}}}}"#,
        );
        assert_eq!(c.text(), "(ipv4.isValid() && ipv4.ttl > 256)");
        assert_eq!(c.nodes.len(), 5);
    }

    #[test]
    fn valid_op_not_and_or() {
        let c = cond(
            r#"{"op":"or","left":{"type":"expression","value":{"op":"not","left":null,
                 "right":{"type":"expression","value":{"op":"valid","left":null,
                    "right":{"type":"header","value":"h"}}}}},
               "right":{"type":"bool","value":false}}"#,
        );
        assert_eq!(c.text(), "(!(h.isValid()) || false)");
        assert_eq!(c.reads(), vec!["h.$valid"]);
    }

    #[test]
    fn shifted_masks_are_slices() {
        // p4c's `op[7:4] == 1` on an 8-bit field whose width is unknown
        // here: ((op >> 4) & 0xff) & 0x0f.
        let c = cond(
            r#"{"op":"==","left":{"type":"expression","value":{"op":"&",
                 "left":{"type":"expression","value":{"op":"&",
                    "left":{"type":"expression","value":{"op":">>",
                       "left":{"type":"field","value":["h1","op1"]},
                       "right":{"type":"hexstr","value":"0x4"}}},
                    "right":{"type":"hexstr","value":"0xff"}}},
                 "right":{"type":"hexstr","value":"0x0f"}}},
               "right":{"type":"hexstr","value":"0x01"}}"#,
        );
        assert_eq!(c.text(), "h1.op1[7:4] == 1");
        let c = cond(
            r#"{"op":"!=","left":{"type":"expression","value":{"op":"+",
                 "left":{"type":"field","value":["a","x"]},
                 "right":{"type":"expression","value":{"op":"&",
                    "left":{"type":"field","value":["a","y"]},
                    "right":{"type":"hexstr","value":"0x0c"}}}}},
               "right":{"type":"hexstr","value":"-0x1"}}"#,
        );
        assert_eq!(c.text(), "add(a.x, bitand(a.y, 12)) != -1");
    }

    #[test]
    fn deep_trees_do_not_recurse() {
        // 10,000 nested `not`s, built as a Value without parsing (the
        // parser's own depth limit would refuse the text).
        let mut v = serde_json::json!({"type": "bool", "value": true});
        for _ in 0..10_000 {
            // Moved in, not serialized: `json!` would copy `v` recursively.
            let mut m = serde_json::Map::new();
            m.insert("op".into(), Value::String("not".into()));
            m.insert("left".into(), Value::Null);
            m.insert("right".into(), v);
            v = Value::Object(m);
        }
        let d = crate::doc::Value::from_serde(&v);
        let c = with_empty_exprs(|e| cond_of(e, &J::root(&d))).unwrap();
        assert!(c.is_well_formed());
        assert_eq!(c.nodes.len(), 10_001);
        // Dropping a deep value recurses (a parsed one is at most 128
        // deep): leak both instead.
        std::mem::forget(d);
        std::mem::forget(v);
    }

    #[test]
    fn missing_operands_name_their_path() {
        let v: Value = serde_json::from_str(
            r#"{"op":"and","left":null,"right":{"type":"bool","value":true}}"#,
        )
        .unwrap();
        let err = with_empty_exprs(|e| cond_of(e, &J::root(&crate::doc::Value::from_serde(&v))))
            .unwrap_err();
        assert_eq!(err.to_string(), "left: expected an operand, found null");
    }
}
