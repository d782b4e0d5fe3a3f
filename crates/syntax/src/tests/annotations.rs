//! Annotations in all their forms and positions.

use super::{ok, stmts, sx};
use crate::ast::*;

fn ann_of_const(src: &str) -> Vec<Annotation> {
    match ok(src).decls.into_iter().next() {
        Some(Decl::Const(c)) => c.annotations,
        other => panic!("expected a constant, got {other:?}"),
    }
}

#[test]
fn unstructured_annotation_bodies() {
    let src = "@name(\"x\") @hidden @foo(a, (b c) \")\" d) const int A = 1;";
    let a = ann_of_const(src);
    assert_eq!(a.len(), 3);
    assert_eq!(a[0].name.name, "name");
    let AnnotationBody::Unstructured(raw) = &a[0].body else {
        panic!()
    };
    assert_eq!(raw.text, "\"x\"");
    assert_eq!(raw.span.text(src), "\"x\"");
    let exprs = raw.exprs.as_ref().expect("parsed body");
    assert_eq!(exprs[0].kind, ExprKind::Str("x".into()));
    assert_eq!(exprs[0].span.text(src), "\"x\"");
    assert_eq!(a[1].body, AnnotationBody::Empty);
    let AnnotationBody::Unstructured(raw) = &a[2].body else {
        panic!()
    };
    assert_eq!(raw.text, "a, (b c) \")\" d");
    assert!(raw.exprs.is_none());
    assert_eq!(a[2].span.text(src), "@foo(a, (b c) \")\" d)");
}

#[test]
fn structured_annotations() {
    let a = ann_of_const("@a[k = 1, v = \"s\"] @b[1, 2 + 3] @c[] const int A = 1;");
    let AnnotationBody::KeyValues(kv) = &a[0].body else {
        panic!()
    };
    assert_eq!(kv[0].key.name, "k");
    assert_eq!(sx(&kv[1].value), "\"s\"");
    let AnnotationBody::Expressions(es) = &a[1].body else {
        panic!()
    };
    assert_eq!(es.iter().map(sx).collect::<Vec<_>>(), vec!["1", "(+ 2 3)"]);
    assert_eq!(a[2].body, AnnotationBody::Expressions(vec![]));
}

#[test]
fn pragma_annotations_run_to_end_of_line() {
    let src = "@pragma stage 1\n@pragma ignore_table_dependency \"Ig.t2\"\nconst int A = 1;";
    let a = ann_of_const(src);
    assert_eq!(a.len(), 2);
    assert_eq!(a[0].name.name, "stage");
    let AnnotationBody::Pragma(raw) = &a[0].body else {
        panic!()
    };
    assert_eq!(raw.text, "1");
    assert_eq!(raw.exprs.as_ref().map(|e| sx(&e[0])).as_deref(), Some("1"));
    assert_eq!(a[1].name.name, "ignore_table_dependency");
}

#[test]
fn annotations_on_params_statements_keys_and_properties() {
    let p = ok("control C(@optional in bit<8> a) {
                  table t { key = { a : exact @name(\"k\"); } @prop size = 4; }
                  apply { @likely if (a == 1) { } }
                }");
    let Some(Decl::Control(c)) = p.decls.first() else {
        panic!()
    };
    assert_eq!(c.params[0].annotations[0].name.name, "optional");
    let Some(LocalDecl::Table(t)) = c.locals.first() else {
        panic!()
    };
    assert_eq!(t.key().map(|k| k[0].annotations.len()), Some(1));
    assert_eq!(t.properties[1].annotations[0].name.name, "prop");
    assert_eq!(c.apply.stmts[0].annotations[0].name.name, "likely");
    let s = stmts("@name(\"x\") f();");
    assert_eq!(s[0].annotations.len(), 1);
}
