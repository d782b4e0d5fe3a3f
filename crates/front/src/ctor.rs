//! Which parser or control each constructor parameter is bound to.
//!
//! `control Outer()(Inner inner) { apply { inner.apply(...); } }`
//! instantiated as `Outer(MyInner()) o;`, or a parser given to a
//! pipeline as `Pipeline(P(Sub()), ...)`: the parameter `inner` stands for
//! `MyInner`. Every instantiation of the program (top level, and in
//! parsers and controls) and every constructor call nested in their
//! arguments is read once, with an explicit work list. A parameter bound
//! to different types by different instantiations is ambiguous and stays
//! unbound (the caller then warns, as before).

use crate::HashMap;

use p4cost_syntax::ast::{self, Argument, BinaryOp, Expr, ExprKind, LocalDecl, Param, UnaryOp};

use crate::lower::Locals;
use crate::names::{reads, NameList};
use crate::scope::Globals;

/// Declaration name -> constructor parameter name -> the parser or control
/// type bound to it (`None` when instantiations disagree).
pub type Bindings = HashMap<String, HashMap<String, Option<String>>>;

/// The bindings of every constructor parameter the program instantiates.
pub fn bindings<'t>(g: &Globals<'_>, tree: &'t ast::Program) -> Bindings {
    let mut work: Vec<(String, &'t [Argument])> = Vec::new();
    fn push_inst<'t>(i: &'t ast::Instantiation, work: &mut Vec<(String, &'t [Argument])>) {
        if let Some(t) = type_name(&i.ty) {
            work.push((t, i.args.as_slice()));
        }
    }
    for d in &tree.decls {
        match d {
            ast::Decl::Instantiation(i) => push_inst(i, &mut work),
            ast::Decl::Control(c) => {
                for l in &c.locals {
                    if let LocalDecl::Instantiation(i) = l {
                        push_inst(i, &mut work);
                    }
                }
            }
            ast::Decl::Parser(p) => {
                for l in &p.locals {
                    if let LocalDecl::Instantiation(i) = l {
                        push_inst(i, &mut work);
                    }
                }
            }
            _ => {}
        }
    }
    let container = |t: &str| -> bool { g.parsers.contains_key(t) || g.controls.contains_key(t) };
    let ctor_params = |t: &str| -> Option<&[Param]> {
        g.parsers
            .get(t)
            .map(|p| p.ctor_params.as_slice())
            .or_else(|| g.controls.get(t).map(|c| c.ctor_params.as_slice()))
    };
    let mut out = Bindings::default();
    while let Some((ty, args)) = work.pop() {
        let params = ctor_params(&ty).unwrap_or(&[]);
        for (i, a) in args.iter().enumerate() {
            let bound = match &a.value.kind {
                ExprKind::Call {
                    callee,
                    args: inner,
                    ..
                } => match callee_name(callee) {
                    Some(x) => {
                        work.push((x.clone(), &inner[..]));
                        container(&x).then_some(x)
                    }
                    None => None,
                },
                ExprKind::Path(p) => g
                    .instances
                    .get(p.name.name.as_str())
                    .and_then(|inst| type_name(&inst.ty))
                    .filter(|t| container(t)),
                _ => None,
            };
            let Some(bound) = bound else { continue };
            let param = match &a.name {
                Some(n) => params.iter().find(|p| p.name.name == n.name),
                None => params.get(i),
            };
            let Some(param) = param else { continue };
            let slot = out
                .entry(ty.clone())
                .or_default()
                .entry(param.name.name.as_str().to_owned())
                .or_insert_with(|| Some(bound.clone()));
            if slot.as_deref() != Some(bound.as_str()) {
                *slot = None;
            }
        }
    }
    out
}

/// The constructor-bound types of one declaration's parameters.
pub fn bound_in(b: &Bindings, decl: &str) -> HashMap<String, String> {
    b.get(decl)
        .map(|m| {
            m.iter()
                .filter_map(|(p, t)| t.clone().map(|t| (p.clone(), t)))
                .collect()
        })
        .unwrap_or_default()
}

fn type_name(t: &ast::Type) -> Option<String> {
    crate::scope::type_base_name(t).map(str::to_string)
}

/// `X` of a constructor call `X(...)` or `X<T>(...)`.
fn callee_name(mut e: &Expr) -> Option<String> {
    loop {
        match &e.kind {
            ExprKind::Path(p) => return Some(p.name.name.as_str().to_owned()),
            ExprKind::Specialize { base, .. } => e = base,
            _ => return None,
        }
    }
}

/// The compile-time value of each constructor parameter of one instance:
/// its argument (positional or named), evaluated in the instantiating
/// scope (`consts` and `values`), else its default value. A parameter
/// whose argument is not a compile-time constant gets no value.
pub fn values<'a>(
    g: &Globals<'a>,
    params: &'a [Param],
    args: &[Argument],
    consts: &HashMap<&str, &'a Expr>,
    values: &HashMap<String, i128>,
) -> HashMap<String, i128> {
    let mut out = HashMap::default();
    for (i, p) in params.iter().enumerate() {
        let arg = args
            .iter()
            .find(|a| a.name.as_ref().is_some_and(|n| n.name == p.name.name))
            .or_else(|| args.get(i).filter(|a| a.name.is_none()));
        let v = match (arg, &p.default) {
            (Some(a), _) => g.eval_in(&a.value, consts, values),
            (None, Some(d)) => g.eval_in(d, &HashMap::default(), &out),
            (None, None) => None,
        };
        if let Some(v) = v {
            out.insert(p.name.name.as_str().to_owned(), v);
        }
    }
    out
}

/// The parsers and controls a declaration instantiates (`T(...) t;` at the
/// top level or in a parser or control), as opposed to a constructor call
/// nested in arguments such as `Pipeline(Ig(), ...)`.
pub fn declared(tree: &ast::Program) -> crate::HashSet<String> {
    let mut out = crate::HashSet::default();
    let mut add = |i: &ast::Instantiation| {
        out.extend(type_name(&i.ty));
    };
    for d in &tree.decls {
        match d {
            ast::Decl::Instantiation(i) => add(i),
            ast::Decl::Control(c) => c.locals.iter().for_each(|l| {
                if let LocalDecl::Instantiation(i) = l {
                    add(i)
                }
            }),
            ast::Decl::Parser(p) => p.locals.iter().for_each(|l| {
                if let LocalDecl::Instantiation(i) = l {
                    add(i)
                }
            }),
            _ => {}
        }
    }
    out
}

/// The value of an `if` condition known once this instance's constructor
/// arguments are substituted (`if (local_host_enable)` with the
/// parameter bound to `false`), as p4c's constant folding finds it after
/// specializing the instance: `!`, and `&&` / `||` whose left operand is
/// constant (the right one is then evaluated only if it decides), over
/// compile-time expressions. `None` when the condition reads a variable,
/// a parameter of the apply block, a field, or a constructor parameter
/// without a value.
pub fn constant_condition(g: &Globals<'_>, cond: &Expr, locals: &Locals<'_>) -> Option<bool> {
    fold_condition(g, cond, locals, 0)
}

fn fold_condition(g: &Globals<'_>, e: &Expr, locals: &Locals<'_>, depth: u32) -> Option<bool> {
    if depth > 64 {
        return None;
    }
    let fold = |x: &Expr| fold_condition(g, x, locals, depth + 1);
    match &e.kind {
        ExprKind::Unary {
            op: UnaryOp::Not,
            expr,
        } => fold(expr).map(|v| !v),
        ExprKind::Binary {
            op: BinaryOp::And,
            lhs,
            rhs,
        } => match fold(lhs)? {
            false => Some(false),
            true => fold(rhs),
        },
        ExprKind::Binary {
            op: BinaryOp::Or,
            lhs,
            rhs,
        } => match fold(lhs)? {
            true => Some(true),
            false => fold(rhs),
        },
        _ => {
            let mut names = NameList::default();
            reads(e, &|_| false, &mut names);
            let runtime = names.iter().any(|n| {
                let root = n.split(['.', '[']).next().unwrap_or(n);
                locals.vars.contains_key(root) && !locals.ctor_values.contains_key(root)
            });
            if runtime {
                return None;
            }
            g.eval_in(e, &locals.consts, &locals.ctor_values)
                .map(|v| v != 0)
        }
    }
}
