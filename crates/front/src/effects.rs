//! What control code touches, for the table dependency graph: structured
//! gateway conditions, extern calls with what they use, and canonical field
//! names. Every walk here is iterative (explicit stacks), so the depth of
//! an input expression never becomes stack depth.

use crate::HashMap;

use p4cost_ir as ir;
use p4cost_syntax::ast::{self, BinaryOp, Expr, ExprKind, IntValue, UnaryOp};

use crate::names::is_place;
use crate::scope::{expr_name, Globals};

/// Canonical names in one control instance: the control's headers
/// parameter is `hdr`, the canonical name every reader uses for packet
/// headers (ARCHITECTURE.md, "Names"); the parameters of an applied
/// sub-control are the caller's arguments (`dst_addr` of
/// `fib.apply(ig_md.vrf, lkp.ipv6_dst_addr)` is `lkp.ipv6_dst_addr`).
#[derive(Debug, Clone, Default)]
pub struct Canon {
    /// Parameter name -> the canonical name it stands for.
    pub roots: HashMap<String, String>,
}

impl Canon {
    /// The canonical form of a field, header or variable name.
    pub fn name(&self, n: String) -> String {
        if self.roots.is_empty() {
            return n;
        }
        let end = n.find(['.', '[']).unwrap_or(n.len());
        match self.roots.get(&n[..end]) {
            Some(to) => {
                let mut out = String::with_capacity(to.len() + n.len() - end);
                out.push_str(to);
                out.push_str(&n[end..]);
                out
            }
            None => n,
        }
    }

    /// The parameters renamed (to another name than their own), sorted:
    /// two canons with equal lists name everything alike.
    pub fn renamed(&self) -> Vec<(String, String)> {
        let mut roots: Vec<(String, String)> = self
            .roots
            .iter()
            .filter(|(k, v)| k != v)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        roots.sort_unstable();
        roots
    }

    /// Canonical forms of a list of names.
    pub fn names(&self, v: Vec<String>) -> Vec<String> {
        if self.roots.is_empty() {
            return v;
        }
        v.into_iter().map(|n| self.name(n)).collect()
    }
}

/// The headers parameter of a control: the parameter whose type is the
/// headers struct of a parser of the program (the parameter after the
/// `packet_in`, when it is a struct), when exactly one parameter has such
/// a type.
pub fn control_headers_param(g: &Globals<'_>, params: &[ast::Param]) -> Canon {
    let header_types: Vec<&str> = g
        .parsers
        .values()
        .filter_map(|p| {
            let i = p.params.iter().position(is_packet_in)?;
            p.params.get(i + 1).map(|x| type_key(&x.ty))
        })
        // A struct of headers, not a header (a sub-parser extracting one
        // intrinsic-metadata header takes the header itself).
        .filter(|t| {
            g.structs
                .get(*t)
                .is_some_and(|s| s.kind == ast::StructKind::Struct)
        })
        .collect();
    let mut found = params
        .iter()
        .filter(|p| header_types.contains(&type_key(&p.ty)));
    match (found.next(), found.next()) {
        (Some(one), None) if one.name.name != "hdr" => Canon {
            roots: HashMap::from_iter([(one.name.name.as_str().to_owned(), "hdr".to_string())]),
        },
        _ => Canon::default(),
    }
}

fn is_packet_in(p: &ast::Param) -> bool {
    type_key(&p.ty) == "packet_in"
}

/// The base name of a type (`Register` of `Register<bit<32>, _>`), empty
/// for a type without one.
fn type_key(t: &ast::Type) -> &str {
    crate::scope::type_base_name(t).unwrap_or_default()
}

/// Every sub-expression of `e` (itself included), without recursion.
pub fn subexprs(e: &Expr) -> Vec<&Expr> {
    let mut out = Vec::new();
    let mut stack = vec![e];
    while let Some(x) = stack.pop() {
        out.push(x);
        match &x.kind {
            ExprKind::Member { base, .. } => stack.push(base),
            ExprKind::Index { base, index } => {
                stack.push(base);
                stack.push(index);
            }
            ExprKind::WidthSlice {
                base, start, width, ..
            } => {
                stack.push(base);
                stack.push(start);
                stack.push(width);
            }
            ExprKind::Slice { base, hi, lo } => {
                stack.push(base);
                stack.push(hi);
                stack.push(lo);
            }
            ExprKind::Call { callee, args, .. } => {
                stack.push(callee);
                stack.extend(args.iter().map(|a| &a.value));
            }
            ExprKind::Cast { expr, .. } | ExprKind::Unary { expr, .. } => stack.push(expr),
            ExprKind::Binary { lhs, rhs, .. } => {
                stack.push(lhs);
                stack.push(rhs);
            }
            ExprKind::Ternary { cond, then, els } => {
                stack.push(cond);
                stack.push(then);
                stack.push(els);
            }
            ExprKind::List(items) => stack.extend(items.iter()),
            ExprKind::Struct { fields, .. } => stack.extend(fields.iter().map(|f| &f.value)),
            ExprKind::Specialize { base, .. } => stack.push(base),
            _ => {}
        }
    }
    out
}

/// True when `e` divides or takes a modulo anywhere inside.
pub fn divides(e: &Expr) -> bool {
    subexprs(e).iter().any(|x| {
        matches!(
            x.kind,
            ExprKind::Binary {
                op: BinaryOp::Div | BinaryOp::Mod,
                ..
            }
        )
    })
}

/// True when any statement of an extern instance's initializer (the
/// `apply` of a `RegisterAction`) divides or takes a modulo.
pub fn initializer_divides(inst: &ast::Instantiation) -> bool {
    let Some(objs) = &inst.initializer else {
        return false;
    };
    let mut stmts: Vec<&ast::Stmt> = Vec::new();
    for o in objs {
        if let ast::ObjDecl::Function(f) = o {
            stmts.extend(f.body.stmts.iter());
        }
    }
    while let Some(s) = stmts.pop() {
        match &s.kind {
            ast::StmtKind::Assign(a) if divides(&a.lhs) || divides(&a.rhs) => return true,
            ast::StmtKind::Var(v) if v.init.as_ref().is_some_and(divides) => return true,
            ast::StmtKind::Call(c) if divides(c) => return true,
            ast::StmtKind::If(i) => {
                if divides(&i.cond) {
                    return true;
                }
                stmts.push(&i.then);
                if let Some(e) = &i.els {
                    stmts.push(e);
                }
            }
            ast::StmtKind::Block(b) => stmts.extend(b.stmts.iter()),
            _ => {}
        }
    }
    false
}

/// Extern calls (`inst.method(...)` on a known extern instance) anywhere
/// in `e`, in source order. `type_of` maps an instance name to its type.
pub fn extern_calls(
    e: &Expr,
    type_of: &dyn Fn(&str) -> Option<String>,
    divides_of: &dyn Fn(&str) -> bool,
    span: &dyn Fn(ast::Span) -> ir::Span,
) -> Vec<ir::ExternCall> {
    let mut out = Vec::new();
    if !may_call(e, 0) {
        // Most right-hand sides: nothing to walk.
        return out;
    }
    if is_only_call(e) {
        // Most calls (`pkt.emit(hdr.eth)`, `c.count(i)`): no walk.
        out.extend(extern_call(e, type_of, divides_of, span));
        return out;
    }
    let mut all = subexprs(e);
    all.retain(|x| matches!(x.kind, ExprKind::Call { .. }));
    if all.is_empty() {
        return out;
    }
    all.sort_by_key(|x| x.span.lo);
    for x in all {
        out.extend(extern_call(x, type_of, divides_of, span));
    }
    out
}

/// True when `e` is a call whose callee and arguments are places or
/// literals: the only call in it is itself.
fn is_only_call(e: &Expr) -> bool {
    let simple = |x: &Expr| is_place(x) || matches!(x.kind, ExprKind::Int(_) | ExprKind::Bool(_));
    match &e.kind {
        ExprKind::Call { callee, args, .. } => {
            let plain_callee = match &callee.kind {
                ExprKind::Path(_) => true,
                ExprKind::Member { base, .. } => is_place(base),
                _ => false,
            };
            plain_callee && args.iter().all(|a| simple(&a.value))
        }
        _ => false,
    }
}

/// The extern call `x` is, if it is a method call on an instance whose
/// type `type_of` knows (see [`extern_calls`]).
fn extern_call(
    x: &Expr,
    type_of: &dyn Fn(&str) -> Option<String>,
    divides_of: &dyn Fn(&str) -> bool,
    span: &dyn Fn(ast::Span) -> ir::Span,
) -> Option<ir::ExternCall> {
    let ExprKind::Call { callee, args, .. } = &x.kind else {
        return None;
    };
    let ExprKind::Member { base, member } = &callee.kind else {
        return None;
    };
    if !is_place(base) {
        return None;
    }
    let inst = expr_name(base);
    let ty = type_of(&inst)?;
    let uses = ir::ExternUse::of_type(&ty);
    let (index_reads, result) = index_and_result(&member.name, args);
    Some(ir::ExternCall {
        divides: uses == ir::ExternUse::StatefulAlu && divides_of(&inst),
        instance: inst,
        ty,
        method: member.name.to_string(),
        uses,
        index_reads,
        result,
        span: span(x.span),
    })
}

/// Deepest level [`may_call`] looks at.
const CALL_SCAN_DEPTH: u32 = 6;

/// False when `e` has no call anywhere inside, found without allocating
/// by looking at most [`CALL_SCAN_DEPTH`] levels deep (deeper, or a kind
/// of expression it does not look into, is a maybe).
fn may_call(e: &Expr, depth: u32) -> bool {
    if depth > CALL_SCAN_DEPTH {
        return true;
    }
    let d = depth + 1;
    match &e.kind {
        ExprKind::Call { .. } => true,
        ExprKind::Path(_)
        | ExprKind::Int(_)
        | ExprKind::Bool(_)
        | ExprKind::Str(_)
        | ExprKind::DontCare
        | ExprKind::This => false,
        ExprKind::Member { base, .. } => may_call(base, d),
        ExprKind::Index { base, index } => may_call(base, d) || may_call(index, d),
        ExprKind::Slice { base, hi, lo } => may_call(base, d) || may_call(hi, d) || may_call(lo, d),
        ExprKind::Cast { expr, .. } | ExprKind::Unary { expr, .. } => may_call(expr, d),
        ExprKind::Binary { lhs, rhs, .. } => may_call(lhs, d) || may_call(rhs, d),
        ExprKind::Ternary { cond, then, els } => {
            may_call(cond, d) || may_call(then, d) || may_call(els, d)
        }
        _ => true,
    }
}

/// What a register-like method call's index argument reads, and the place
/// it reads into: v1model's `read(out result, in index)` (the result is
/// the first argument), `write(index, value)`, and a one-index-argument
/// `read(index)` / `execute(index)` (PSA, TNA; the result is the place
/// the caller assigns, [`set_result`]).
fn index_and_result(method: &str, args: &[ast::Argument]) -> (Vec<String>, Option<String>) {
    let names_of = |e: &Expr| {
        let mut r = crate::names::NameList::default();
        crate::names::reads(e, &|_: &str| false, &mut r);
        r.into_vec()
    };
    match (method, args) {
        ("read", [dst, index]) => {
            let result = is_place(&dst.value).then(|| expr_name(&dst.value));
            (names_of(&index.value), result)
        }
        ("write", [index, _]) | ("read" | "execute", [index]) => (names_of(&index.value), None),
        _ => (Vec::new(), None),
    }
}

/// Records `place` as the result of the calls of `calls` that return
/// their value (no result yet): `place = r.execute(i)`.
pub fn set_result(calls: &mut [ir::ExternCall], place: &str) {
    for c in calls.iter_mut().filter(|c| c.result.is_none()) {
        if matches!(c.method.as_str(), "read" | "execute") {
            c.result = Some(place.to_string());
        }
    }
}

/// The extern call a call of the free function `name` is, when it is one
/// of the architectures' extern functions (see [`function_use`]).
pub fn function_call(name: &str, span: ir::Span) -> Option<ir::ExternCall> {
    function_use(name).map(|uses| ir::ExternCall {
        instance: String::new(),
        ty: name.to_string(),
        method: name.to_string(),
        uses,
        divides: false,
        index_reads: Vec::new(),
        result: None,
        span,
    })
}

/// Uses of free extern functions of the architectures (v1model's `hash`,
/// `random`, `digest`, `clone`, `resubmit`, ...), by function name.
fn function_use(name: &str) -> Option<ir::ExternUse> {
    Some(match name {
        "hash" => ir::ExternUse::Hash,
        "random" => ir::ExternUse::Random,
        "digest" => ir::ExternUse::Digest,
        "clone" | "clone3" | "clone_preserving_field_list" => ir::ExternUse::Mirror,
        "resubmit"
        | "resubmit_preserving_field_list"
        | "recirculate"
        | "recirculate_preserving_field_list" => ir::ExternUse::Resubmit,
        "verify_checksum"
        | "update_checksum"
        | "verify_checksum_with_payload"
        | "update_checksum_with_payload" => ir::ExternUse::Checksum,
        _ => return None,
    })
}

/// How to turn an expression into a structured condition.
pub struct CondCx<'x, 'a> {
    /// Global declarations (constants).
    pub g: &'x Globals<'a>,
    /// Local constants in scope.
    pub consts: &'x HashMap<&'a str, &'a Expr>,
    /// Canonical naming.
    pub canon: &'x Canon,
    /// Source text of a span.
    pub text: &'x dyn Fn(ast::Span) -> String,
    /// Table name for `t.apply()`'s `t`, when `t` is a table.
    pub table: &'x dyn Fn(&Expr) -> Option<String>,
}

/// A structured condition for `e`, built bottom-up without recursion:
/// constants fold to `Int`/`Bool`, places become `Field`, `isValid()`
/// `IsValid`, `t.apply().hit/miss` `TableHit`, `!`/`&&`/`||`/comparisons
/// and constant slices their own nodes; anything else `Other` with its
/// operands.
pub fn cond_of(cx: &CondCx<'_, '_>, e: &Expr) -> ir::Cond {
    let mut cond = ir::Cond::default();
    // (expr, how many operands it was expanded to: `None` before), each
    // expression classified once (a leaf's name is built once).
    let mut stack: Vec<(&Expr, Option<usize>)> = vec![(e, None)];
    let mut results: Vec<u32> = Vec::new();
    while let Some((x, expanded)) = stack.pop() {
        let n = match expanded {
            Some(n) => n,
            None => {
                if let Some(node) = leaf(cx, x) {
                    results.push(cond.push(node));
                    continue;
                }
                let at = stack.len();
                let n = push_operands(x, &mut stack);
                if n > 0 {
                    // Its operands go above it, first operand on top.
                    stack.insert(at, (x, Some(n)));
                    continue;
                }
                0
            }
        };
        let at = results.len().saturating_sub(n);
        let node = inner_node(cx, x, results.get(at..).unwrap_or_default());
        results.truncate(at);
        results.push(cond.push(node));
    }
    cond
}

/// Pushes the operands a node that is no leaf (see [`leaf`]) is built
/// from onto `stack`, last operand first (so the first is popped first);
/// how many.
fn push_operands<'e>(x: &'e Expr, stack: &mut Vec<(&'e Expr, Option<usize>)>) -> usize {
    let at = stack.len();
    let mut put = |k: &'e Expr| stack.push((k, None));
    match &x.kind {
        ExprKind::Unary { expr, .. } | ExprKind::Cast { expr, .. } => put(expr),
        ExprKind::Binary { lhs, rhs, .. } => {
            put(rhs);
            put(lhs);
        }
        ExprKind::Slice { base, .. } => put(base),
        ExprKind::WidthSlice { base, start, .. } => {
            put(start);
            put(base);
        }
        ExprKind::Ternary { cond, then, els } => {
            put(els);
            put(then);
            put(cond);
        }
        ExprKind::Call { args, .. } => args.iter().rev().for_each(|a| put(&a.value)),
        ExprKind::Index { base, index } => {
            put(index);
            put(base);
        }
        ExprKind::Member { base, .. } => put(base),
        ExprKind::List(items) => items.iter().rev().for_each(put),
        _ => {}
    }
    stack.len() - at
}

/// The node for a leaf expression, if `x` is one.
fn leaf(cx: &CondCx<'_, '_>, x: &Expr) -> Option<ir::CondNode> {
    match &x.kind {
        ExprKind::Bool(b) => return Some(ir::CondNode::Bool { value: *b }),
        ExprKind::Int(i) => {
            let value = match &i.value {
                IntValue::Small(v) => crate::scope::decimal(v.get()),
                _ => (cx.text)(x.span),
            };
            return Some(ir::CondNode::Int { value });
        }
        _ => {}
    }
    if let ExprKind::Member { base, member } = &x.kind {
        if matches!(member.name.as_str(), "hit" | "miss") {
            if let ExprKind::Call { callee, .. } = &base.kind {
                if let ExprKind::Member { base: t, member: m } = &callee.kind {
                    if m.name == "apply" {
                        if let Some(table) = (cx.table)(t) {
                            return Some(ir::CondNode::TableHit {
                                table,
                                hit: member.name == "hit",
                            });
                        }
                    }
                }
            }
        }
    }
    if let ExprKind::Call { callee, args, .. } = &x.kind {
        if let ExprKind::Member { base, member } = &callee.kind {
            if args.is_empty() && member.name == "isValid" && is_place(base) {
                return Some(ir::CondNode::IsValid {
                    header: cx.canon.name(expr_name(base)),
                });
            }
        }
    }
    if is_place(x) {
        if let Some(v) = cx.g.eval(x, cx.consts) {
            let value = match u128::try_from(v) {
                Ok(u) => crate::scope::decimal(u),
                Err(_) => v.to_string(),
            };
            return Some(ir::CondNode::Int { value });
        }
        return Some(ir::CondNode::Field {
            name: cx.canon.name(expr_name(x)),
        });
    }
    None
}

/// The node of `x`, no leaf (see [`leaf`]), over its operands' nodes `args`.
fn inner_node(cx: &CondCx<'_, '_>, x: &Expr, args: &[u32]) -> ir::CondNode {
    let two = |f: fn(u32, u32) -> ir::CondNode| match args {
        [l, r] => Some(f(*l, *r)),
        _ => None,
    };
    let node = match &x.kind {
        ExprKind::Unary {
            op: UnaryOp::Not, ..
        } => args.first().map(|a| ir::CondNode::Not { arg: *a }),
        ExprKind::Cast { .. } => None,
        ExprKind::Binary { op, .. } => {
            let cmp = match op {
                BinaryOp::Eq => Some(ir::CmpOp::Eq),
                BinaryOp::Ne => Some(ir::CmpOp::Ne),
                BinaryOp::Lt => Some(ir::CmpOp::Lt),
                BinaryOp::Le => Some(ir::CmpOp::Le),
                BinaryOp::Gt => Some(ir::CmpOp::Gt),
                BinaryOp::Ge => Some(ir::CmpOp::Ge),
                _ => None,
            };
            match (op, cmp) {
                (BinaryOp::And, _) => two(|lhs, rhs| ir::CondNode::And { lhs, rhs }),
                (BinaryOp::Or, _) => two(|lhs, rhs| ir::CondNode::Or { lhs, rhs }),
                (_, Some(cmp)) => match args {
                    [l, r] => Some(ir::CondNode::Cmp {
                        cmp,
                        lhs: *l,
                        rhs: *r,
                    }),
                    _ => None,
                },
                _ => None,
            }
        }
        ExprKind::Slice { hi, lo, .. } => {
            match (cx.g.eval(hi, cx.consts), cx.g.eval(lo, cx.consts), args) {
                (Some(h), Some(l), [b]) => match (u32::try_from(h), u32::try_from(l)) {
                    (Ok(hi), Ok(lo)) => Some(ir::CondNode::Slice { base: *b, hi, lo }),
                    _ => None,
                },
                _ => None,
            }
        }
        _ => None,
    };
    if let Some(n) = node {
        return n;
    }
    // A cast is transparent: it passes its operand through as `Other`
    // with one argument, so the tree stays well formed.
    let text = match &x.kind {
        ExprKind::Binary { op, .. } => format!("{op:?}").to_ascii_lowercase(),
        ExprKind::Unary { op, .. } => format!("{op:?}").to_ascii_lowercase(),
        ExprKind::Cast { .. } => "cast".to_string(),
        ExprKind::Call { callee, .. } => (cx.text)(callee.span),
        _ => (cx.text)(x.span),
    };
    ir::CondNode::Other {
        text,
        args: args.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canon_renames_only_the_whole_root() {
        let c = Canon {
            roots: HashMap::from_iter([("h".to_string(), "hdr".to_string())]),
        };
        assert_eq!(c.name("h.ipv4.ttl".into()), "hdr.ipv4.ttl");
        assert_eq!(c.name("h".into()), "hdr");
        assert_eq!(c.name("h[0]".into()), "hdr[0]");
        assert_eq!(c.name("hx.y".into()), "hx.y");
        assert_eq!(c.name("meta.h".into()), "meta.h");
    }
}
