//! Statements in apply blocks, actions and functions.

use super::{stmts, sx, ty};
use crate::ast::*;

#[test]
fn assignments_calls_and_declarations() {
    let s = stmts(
        "x = 1; a.b[2].c = y + 1; h.s[7:0] = 0; f(); t.apply(); bit<8> v; bit<8> w = 3;
         const int K = 2; Hash<bit<16>>(HashAlgorithm_t.CRC16) h; .g(1);",
    );
    assert!(matches!(&s[0].kind, StmtKind::Assign(a) if sx(&a.lhs) == "x" && sx(&a.rhs) == "1"));
    assert!(matches!(&s[1].kind, StmtKind::Assign(a) if sx(&a.lhs) == "a.b[2].c"));
    assert!(matches!(&s[2].kind, StmtKind::Assign(a) if sx(&a.lhs) == "h.s[7:0]"));
    assert!(matches!(&s[3].kind, StmtKind::Call(e) if sx(e) == "f()"));
    assert!(matches!(&s[4].kind, StmtKind::Call(e) if sx(e) == "t.apply()"));
    assert!(matches!(&s[5].kind, StmtKind::Var(v) if v.init.is_none() && ty(&v.ty) == "bit<8>"));
    assert!(matches!(&s[6].kind, StmtKind::Var(v) if v.init.is_some()));
    assert!(matches!(&s[7].kind, StmtKind::Const(c) if c.name.name == "K"));
    assert!(matches!(&s[8].kind, StmtKind::Instantiation(i) if i.name.name == "h"));
    assert!(matches!(&s[9].kind, StmtKind::Call(e) if sx(e) == ".g(1)"));
}

#[test]
fn if_else_chains_bind_else_to_nearest_if() {
    let s = stmts("if (a) if (b) x = 1; else x = 2; if (c) { } else if (d) { } else { }");
    let StmtKind::If(i) = &s[0].kind else {
        panic!()
    };
    assert!(i.els.is_none());
    assert!(matches!(&i.then.kind, StmtKind::If(t) if t.els.is_some()));
    let StmtKind::If(i) = &s[1].kind else {
        panic!()
    };
    let IfStmt {
        cond, els: Some(e), ..
    } = &**i
    else {
        panic!()
    };
    assert_eq!(sx(cond), "c");
    assert!(matches!(&e.kind, StmtKind::If(t) if t.els.is_some()));
}

#[test]
fn switch_on_action_run_with_fallthrough_and_default() {
    let s = stmts(
        "switch (t.apply().action_run) {
            a: { x = 1; }
            b:
            c: { }
            default: { exit; }
         }",
    );
    let StmtKind::Switch(sw) = &s[0].kind else {
        panic!()
    };
    let SwitchStmt { expr, cases } = &**sw;
    assert_eq!(sx(expr), "t.apply().action_run");
    assert_eq!(cases.len(), 4);
    assert!(matches!(&cases[0].label, SwitchLabel::Expr(e) if sx(e) == "a"));
    assert!(cases[1].body.is_none());
    assert!(cases[2].body.is_some());
    assert_eq!(cases[3].label, SwitchLabel::Default);
    let Some(body) = &cases[3].body else { panic!() };
    assert!(matches!(body.stmts[0].kind, StmtKind::Exit));
}

#[test]
fn hit_miss_exit_return() {
    let s = stmts("if (t.apply().hit) { return; } if (!u.apply().miss) { exit; } return;");
    let StmtKind::If(i) = &s[0].kind else {
        panic!()
    };
    assert_eq!(sx(&i.cond), "t.apply().hit");
    assert!(
        matches!(&i.then.kind, StmtKind::Block(b) if matches!(b.stmts[0].kind, StmtKind::Return(None)))
    );
    let StmtKind::If(i) = &s[1].kind else {
        panic!()
    };
    assert_eq!(sx(&i.cond), "(! u.apply().miss)");
    assert!(matches!(s[2].kind, StmtKind::Return(None)));
}

#[test]
fn return_with_value_break_continue() {
    let s = stmts("return x + 1; break; continue;");
    assert!(matches!(&s[0].kind, StmtKind::Return(Some(e)) if sx(e) == "(+ x 1)"));
    assert!(matches!(s[1].kind, StmtKind::Break));
    assert!(matches!(s[2].kind, StmtKind::Continue));
}

#[test]
fn for_loops() {
    let s = stmts(
        "for (bit<8> i = 0; i < 4; i = i + 1) { x = x + i; }
         for (bit<8> j in 1 .. 4) { }
         for (e in list_of_things) ;
         for (; ; ) { break; }",
    );
    let StmtKind::For(f) = &s[0].kind else {
        panic!()
    };
    assert!(matches!(&f.init[0].kind, StmtKind::Var(v) if v.name.name == "i"));
    assert_eq!(f.cond.as_ref().map(sx).as_deref(), Some("(< i 4)"));
    assert!(matches!(&f.update[0].kind, StmtKind::Assign(_)));
    let StmtKind::ForIn(f) = &s[1].kind else {
        panic!()
    };
    let ForInStmt {
        ty: Some(t),
        var,
        collection,
        ..
    } = &**f
    else {
        panic!()
    };
    assert_eq!(ty(t), "bit<8>");
    assert_eq!(var.name, "j");
    assert!(matches!(collection, ForCollection::Range { .. }));
    let StmtKind::ForIn(f) = &s[2].kind else {
        panic!()
    };
    let ForInStmt {
        ty: None,
        collection: ForCollection::Expr(e),
        ..
    } = &**f
    else {
        panic!()
    };
    assert_eq!(sx(e), "list_of_things");
    let StmtKind::For(f) = &s[3].kind else {
        panic!()
    };
    assert!(f.init.is_empty() && f.cond.is_none() && f.update.is_empty());
}

#[test]
fn annotated_statements_and_blocks() {
    let s = stmts("@atomic { x = 1; } @name(\"v\") bit<8> v = 0;");
    assert_eq!(s[0].annotations[0].name.name, "atomic");
    assert!(matches!(s[0].kind, StmtKind::Block(_)));
    assert_eq!(s[1].annotations[0].name.name, "name");
    let StmtKind::Var(v) = &s[1].kind else {
        panic!()
    };
    assert_eq!(v.annotations.len(), 1);
}

#[test]
fn invalid_header_and_struct_assignment() {
    let s = stmts("h = {#}; m = {a = 1, b = 2}; l = {1, 2};");
    assert!(matches!(&s[0].kind, StmtKind::Assign(a) if a.rhs.kind == ExprKind::InvalidHeader));
    assert!(matches!(&s[1].kind, StmtKind::Assign(a) if sx(&a.rhs) == "{a=1, b=2}"));
    assert!(matches!(&s[2].kind, StmtKind::Assign(a) if sx(&a.rhs) == "{1, 2}"));
}

#[test]
fn deeply_nested_blocks_parse() {
    let depth = 300;
    let body = format!("{} x = 1; {}", "if (a) {".repeat(depth), "}".repeat(depth));
    let s = stmts(&body);
    let mut cur = &s[0];
    let mut seen = 0;
    while let StmtKind::If(i) = &cur.kind {
        seen += 1;
        let StmtKind::Block(b) = &i.then.kind else {
            panic!()
        };
        cur = &b.stmts[0];
    }
    assert_eq!(seen, depth);
}
