//! Unit tests for the parser, grouped by construct.

mod annotations;
mod corpus_constructs;
mod decls;
mod errors;
mod exprs;
mod fast;
mod parser_control;
mod pieces;
mod printer;
mod programs;
mod stmts;

use crate::ast::*;
use crate::parse;

/// Parses `src`, panicking with a readable message on failure.
pub(crate) fn ok(src: &str) -> Program {
    match parse(src) {
        Ok(p) => p,
        Err(e) => {
            let near = src.get(e.offset..).unwrap_or("");
            let near = near.get(..near.len().min(40)).unwrap_or(near);
            panic!("parse failed: {e} at {:?} near {near:?}", e.line_col(src))
        }
    }
}

/// Parses `src` as the value of a constant and returns that expression.
pub(crate) fn expr(src: &str) -> Expr {
    let p = ok(&format!("const int X = {src};"));
    match p.decls.into_iter().next() {
        Some(Decl::Const(c)) => c.value,
        other => panic!("expected a constant, got {other:?}"),
    }
}

/// Parses `body` as the statements of a control's apply block.
pub(crate) fn stmts(body: &str) -> Vec<Stmt> {
    let p = ok(&format!("control C() {{ apply {{ {body} }} }}"));
    match p.decls.into_iter().next() {
        Some(Decl::Control(c)) => c.apply.stmts,
        other => panic!("expected a control, got {other:?}"),
    }
}

/// Parses `locals` as the local declarations of a control.
pub(crate) fn control_locals(locals: &str) -> Vec<LocalDecl> {
    let p = ok(&format!("control C() {{ {locals} apply {{ }} }}"));
    match p.decls.into_iter().next() {
        Some(Decl::Control(c)) => c.locals,
        other => panic!("expected a control, got {other:?}"),
    }
}

/// Compact s-expression rendering of an expression, for shape assertions.
pub(crate) fn sx(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Int(i) => {
            let v = match &i.value {
                IntValue::Small(v) => v.get().to_string(),
                IntValue::Big(d) => format!("big:{d}"),
            };
            match i.width {
                Some(w) => format!("{}{}{}", w.bits, if w.signed { "s" } else { "w" }, v),
                None => v,
            }
        }
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Str(s) => format!("{s:?}"),
        ExprKind::Path(p) => format!("{}{}", if p.absolute { "." } else { "" }, p.name.name),
        ExprKind::This => "this".into(),
        ExprKind::DontCare => "_".into(),
        ExprKind::Dots => "...".into(),
        ExprKind::InvalidHeader => "{#}".into(),
        ExprKind::Member { base, member } => format!("{}.{}", sx(base), member.name),
        ExprKind::Index { base, index } => format!("{}[{}]", sx(base), sx(index)),
        ExprKind::Slice { base, hi, lo } => format!("{}[{}:{}]", sx(base), sx(hi), sx(lo)),
        ExprKind::WidthSlice {
            base,
            start,
            width,
            up,
        } => format!(
            "{}[{}{}{}]",
            sx(base),
            sx(start),
            if *up { "+:" } else { "-:" },
            sx(width)
        ),
        ExprKind::Specialize { base, type_args } => {
            let ta: Vec<String> = type_args.iter().map(ty).collect();
            format!("{}<{}>", sx(base), ta.join(", "))
        }
        ExprKind::Call {
            callee,
            type_args,
            args,
        } => {
            let ta: Vec<String> = type_args.iter().map(ty).collect();
            let a: Vec<String> = args
                .iter()
                .map(|a| match &a.name {
                    Some(n) => format!("{}={}", n.name, sx(&a.value)),
                    None => sx(&a.value),
                })
                .collect();
            if ta.is_empty() {
                format!("{}({})", sx(callee), a.join(", "))
            } else {
                format!("{}<{}>({})", sx(callee), ta.join(", "), a.join(", "))
            }
        }
        ExprKind::Cast { ty: t, expr } => format!("(cast {} {})", ty(t), sx(expr)),
        ExprKind::Unary { op, expr } => format!("({} {})", op.symbol(), sx(expr)),
        ExprKind::Binary { op, lhs, rhs } => format!("({} {} {})", op.symbol(), sx(lhs), sx(rhs)),
        ExprKind::Ternary { cond, then, els } => {
            format!("(? {} {} {})", sx(cond), sx(then), sx(els))
        }
        ExprKind::List(items) => {
            let v: Vec<String> = items.iter().map(sx).collect();
            format!("{{{}}}", v.join(", "))
        }
        ExprKind::Struct { fields, rest } => {
            let mut v: Vec<String> = fields
                .iter()
                .map(|f| format!("{}={}", f.key.name, sx(&f.value)))
                .collect();
            if *rest {
                v.push("...".into());
            }
            format!("{{{}}}", v.join(", "))
        }
    }
}

/// Compact rendering of a type.
pub(crate) fn ty(t: &Type) -> String {
    match &t.kind {
        TypeKind::Bool => "bool".into(),
        TypeKind::Error => "error".into(),
        TypeKind::MatchKind => "match_kind".into(),
        TypeKind::String => "string".into(),
        TypeKind::Void => "void".into(),
        TypeKind::DontCare => "_".into(),
        TypeKind::Bit { width: None } => "bit".into(),
        TypeKind::Bit { width: Some(w) } => format!("bit<{}>", sx(w)),
        TypeKind::Int { width: None } => "int".into(),
        TypeKind::Int { width: Some(w) } => format!("int<{}>", sx(w)),
        TypeKind::Varbit { width } => format!("varbit<{}>", sx(width)),
        TypeKind::Name(p) => p.name.name.to_string(),
        TypeKind::Specialized { base, args } => {
            let a: Vec<String> = args.iter().map(ty).collect();
            format!("{}<{}>", base.name.name, a.join(", "))
        }
        // Outermost size first, as written: `T[a][b]`.
        TypeKind::Stack { elem, size } => {
            let mut dims = format!("[{}]", sx(size));
            let mut inner = elem;
            while let TypeKind::Stack { elem, size } = &inner.kind {
                dims.push_str(&format!("[{}]", sx(size)));
                inner = elem;
            }
            format!("{}{}", ty(inner), dims)
        }
        TypeKind::Tuple(a) => format!("tuple<{}>", a.iter().map(ty).collect::<Vec<_>>().join(", ")),
        TypeKind::List(e) => format!("list<{}>", ty(e)),
    }
}
mod sizes;
