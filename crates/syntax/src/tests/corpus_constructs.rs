//! Constructs found in p4c's sample programs that the first grammar missed.

use super::{control_locals, expr, ok, stmts, sx, ty};
use crate::ast::*;

fn assign(s: &Stmt) -> (String, String) {
    match &s.kind {
        StmtKind::Assign(a) => (sx(&a.lhs), sx(&a.rhs)),
        other => panic!("expected an assignment, got {other:?}"),
    }
}

#[test]
fn compound_assignments_desugar_to_binary_operations() {
    let s = stmts("x += 1; y.f |= 0x1; z <<= 2; w >>= 3; a |+|= b; c |-|= d; e ^= f; g %= 3;");
    let got: Vec<(String, String)> = s.iter().map(assign).collect();
    assert_eq!(
        got,
        vec![
            ("x".into(), "(+ x 1)".into()),
            ("y.f".into(), "(| y.f 1)".into()),
            ("z".into(), "(<< z 2)".into()),
            ("w".into(), "(>> w 3)".into()),
            ("a".into(), "(|+| a b)".into()),
            ("c".into(), "(|-| c d)".into()),
            ("e".into(), "(^ e f)".into()),
            ("g".into(), "(% g 3)".into()),
        ]
    );
    // The desugared value spans the whole statement text.
    let src = "control C() { apply { x -= 2; } }";
    let p = ok(src);
    let Some(Decl::Control(c)) = p.decls.first() else {
        panic!("no control")
    };
    let StmtKind::Assign(a) = &c.apply.stmts[0].kind else {
        panic!("no assignment")
    };
    assert_eq!(a.rhs.span.text(src), "x -= 2;");
}

#[test]
fn plain_assignment_is_not_an_equality() {
    let s = stmts("x = y == z;");
    assert_eq!(assign(&s[0]), ("x".into(), "(== y z)".into()));
}

#[test]
fn compound_assignments_in_for_loop_headers() {
    let s = stmts("for (bit<32> i = 5; i != 0; i -= 1) { sum += i; } for (; i < 3;) { }");
    let StmtKind::For(f) = &s[0].kind else {
        panic!("expected a for loop, got {:?}", s[0].kind)
    };
    let ForStmt {
        update, cond, body, ..
    } = &**f;
    assert_eq!(cond.as_ref().map(sx).as_deref(), Some("(!= i 0)"));
    assert_eq!(assign(&update[0]), ("i".into(), "(- i 1)".into()));
    let StmtKind::Block(b) = &body.kind else {
        panic!("body is not a block")
    };
    assert_eq!(assign(&b.stmts[0]), ("sum".into(), "(+ sum i)".into()));
    let StmtKind::For(f) = &s[1].kind else {
        panic!("expected a second for loop")
    };
    assert!(f.init.is_empty() && f.update.is_empty());
}

#[test]
fn width_slices_up_and_down() {
    assert_eq!(sx(&expr("h.f[8 +: 8]")), "h.f[8+:8]");
    assert_eq!(sx(&expr("h.f[15 -: 4]")), "h.f[15-:4]");
    // The start is a full expression (`&` binds looser than `+`, which is
    // not taken because `+:` follows).
    assert_eq!(sx(&expr("d[x & 0xff +: 32]")), "d[(& x 255)+:32]");
    assert_eq!(sx(&expr("d[i+:8]")), "d[i+:8]");
    assert_eq!(sx(&expr("d[7:0]")), "d[7:0]");
}

#[test]
fn underscore_right_after_the_base_prefix() {
    assert_eq!(sx(&expr("8w0b_1010_1010")), "8w170");
    assert_eq!(sx(&expr("7s0b_010_0111")), "7s39");
    assert_eq!(sx(&expr("48w0x_6A_F3")), "48w27379");
}

#[test]
fn width_expressions_without_parentheses() {
    let p = ok(
        "const bit<2 + 2> a = 5; const bit<a < 3 ? 5 : 4> b = 6; typedef bit<v1> t; \
                typedef bit<v4[7:0]-v1> u; action f() { g<bit<b^3>>(x); }",
    );
    let tys: Vec<String> = p
        .decls
        .iter()
        .filter_map(|d| match d {
            Decl::Const(c) => Some(ty(&c.ty)),
            Decl::Typedef(t) => Some(ty(&t.ty)),
            _ => None,
        })
        .collect();
    assert_eq!(
        tys,
        vec![
            "bit<(+ 2 2)>",
            "bit<(? (< a 3) 5 4)>",
            "bit<v1>",
            "bit<(- v4[7:0] v1)>"
        ]
    );
    let Some(Decl::Action(a)) = p.decls.last() else {
        panic!("no action")
    };
    let StmtKind::Call(call) = &a.body.stmts[0].kind else {
        panic!("no call")
    };
    assert_eq!(sx(call), "g<bit<(^ b 3)>>(x)");
}

#[test]
fn array_declarators_and_multi_dimensional_types() {
    let p = ok("header H { bit<8> arr[16]; bit<8>[2][3] m; bit<1> w; }");
    let Some(Decl::Struct(h)) = p.decls.first() else {
        panic!("no header")
    };
    let tys: Vec<String> = h.fields.iter().map(|f| ty(&f.ty)).collect();
    assert_eq!(tys, vec!["bit<8>[16]", "bit<8>[2][3]", "bit<1>"]);
    // The first size is the outermost dimension.
    let TypeKind::Stack { elem, size } = &h.fields[1].ty.kind else {
        panic!("not an array")
    };
    assert_eq!(sx(size), "2");
    assert_eq!(ty(elem), "bit<8>[3]");

    let locals = control_locals("E<bit<32>>() data[256]; bit<4> v[2][2];");
    match &locals[0] {
        LocalDecl::Instantiation(i) => {
            assert_eq!(ty(&i.ty), "E<bit<32>>");
            assert_eq!(i.dims.iter().map(sx).collect::<Vec<_>>(), vec!["256"]);
        }
        other => panic!("expected an instantiation, got {other:?}"),
    }
    match &locals[1] {
        LocalDecl::Var(v) => assert_eq!(ty(&v.ty), "bit<4>[2][2]"),
        other => panic!("expected a variable, got {other:?}"),
    }
    let p = ok("control C(out bit<8> x) { action a(S2[4][2] stk) { x = stk[1][0].f; } apply { } }");
    let Some(Decl::Control(c)) = p.decls.first() else {
        panic!("no control")
    };
    let LocalDecl::Action(a) = &c.locals[0] else {
        panic!("no action")
    };
    assert_eq!(ty(&a.params[0].ty), "S2[4][2]");
}

#[test]
fn annotated_blocks() {
    let p = ok("control C() { apply @noWarn(\"uninitialized-use\") { x = 1; } }");
    let Some(Decl::Control(c)) = p.decls.first() else {
        panic!("no control")
    };
    assert_eq!(c.apply.annotations.len(), 1);
    assert_eq!(c.apply.annotations[0].name.name, "noWarn");
    assert_eq!(c.apply.stmts.len(), 1);
}

#[test]
fn strings_spanning_lines() {
    let p = ok("@pragma name \"string with\nnewline\"\nconst bit d = 1;\n\
                E(8w4, \"10\n 01\") e;");
    let Some(Decl::Const(c)) = p.decls.first() else {
        panic!("no constant")
    };
    match &c.annotations[0].body {
        AnnotationBody::Pragma(r) => assert_eq!(r.text, "\"string with\nnewline\""),
        other => panic!("expected a pragma, got {other:?}"),
    }
    let Some(Decl::Instantiation(i)) = p.decls.get(1) else {
        panic!("no instantiation")
    };
    assert_eq!(sx(&i.args[1].value), "\"10\\n 01\"");
}

#[test]
fn typedef_of_an_inline_struct_declares_both() {
    let p =
        ok("typedef struct Point { int<32> x; int<32> y; } Pt; typedef header H { bit<8> a; } Hh;");
    assert_eq!(p.decls.len(), 4);
    match (&p.decls[0], &p.decls[1]) {
        (Decl::Struct(s), Decl::Typedef(t)) => {
            assert_eq!(s.name.name, "Point");
            assert_eq!(s.kind, StructKind::Struct);
            assert_eq!(s.fields.len(), 2);
            assert_eq!(t.name.name, "Pt");
            assert_eq!(ty(&t.ty), "Point");
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(matches!(&p.decls[2], Decl::Struct(s) if s.kind == StructKind::Header));
}

#[test]
fn specialised_type_invoked_directly() {
    let p = ok("parser P() { state start { MyParser<bit>.apply(1); transition accept; } }");
    let Some(Decl::Parser(pd)) = p.decls.first() else {
        panic!("no parser")
    };
    let StmtKind::Call(call) = &pd.states[0].stmts[0].kind else {
        panic!("no call")
    };
    assert_eq!(sx(call), "MyParser<bit>.apply(1)");
    // A comparison is still a comparison.
    assert_eq!(sx(&expr("a < b")), "(< a b)");
}

#[test]
fn reserved_word_trie_and_statement_order() {
    // Names that start like reserved words are names.
    let s = stmts(
        "inner = 1; interval = 2; headers.h = 3; format_x = 4; iff = 5; \
         header_unionx = 6; tablex.apply(); bitmap = 7; in_port = 8;",
    );
    assert_eq!(s.len(), 9);
    assert!(matches!(&s[6].kind, StmtKind::Call(_)));
    // Reserved words are not names.
    assert!(crate::parse("control C() { apply { header_union = 1; } }").is_err());
    assert!(crate::parse("control C() { apply { inout = 1; } }").is_err());
    // A generic-typed declaration is not a comparison, with or without an
    // initializer; a place assignment and an instantiation still parse.
    let s = stmts("S<T> x; S<T> y = {a = 1}; h.s[1].f = 2; E<bit<8>>(1) e;");
    assert!(matches!(&s[0].kind, StmtKind::Var(v) if ty(&v.ty) == "S<T>" && v.init.is_none()));
    assert!(matches!(&s[1].kind, StmtKind::Var(v) if v.init.is_some()));
    assert_eq!(assign(&s[2]), ("h.s[1].f".into(), "2".into()));
    assert!(matches!(&s[3].kind, StmtKind::Instantiation(_)));
}
