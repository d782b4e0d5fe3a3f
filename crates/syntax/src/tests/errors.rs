//! Syntax errors: offsets and readable messages.

use crate::parse;

fn err(src: &str) -> (usize, String) {
    match parse(src) {
        Ok(p) => panic!("expected an error for {src:?}, got {p:?}"),
        Err(e) => (e.offset, e.message),
    }
}

#[test]
fn missing_semicolon_after_assignment() {
    let src = "control C() { apply { x = 1 } }";
    let (off, msg) = err(src);
    assert_eq!(off, src.find("1 }").map(|i| i + 2).unwrap_or(0));
    assert_eq!(msg, "expected `;`, found `}`");
}

#[test]
fn missing_semicolon_at_end_of_input() {
    let src = "const bit<8> X = 1";
    let (off, msg) = err(src);
    assert_eq!(off, src.len());
    assert_eq!(msg, "expected `;`, found end of input");
}

#[test]
fn missing_semicolon_after_field() {
    let src = "header h { bit<8> a }";
    let (off, msg) = err(src);
    assert_eq!(off, 20);
    assert!(msg.starts_with("expected `;`"), "{msg}");
    assert!(msg.ends_with("found `}`"), "{msg}");
}

#[test]
fn missing_close_paren() {
    let src = "control C() { apply { if (x { } } }";
    let (off, msg) = err(src);
    assert_eq!(off, src.find("{ }").unwrap_or(0));
    assert_eq!(msg, "expected `)`, found `{`");
}

#[test]
fn missing_operand() {
    let (_, msg) = err("control C() { apply { x = (1 + ; } }");
    assert_eq!(msg, "expected expression, found `;`");
    let (_, msg) = err("control C() { apply { f(1, ); } }");
    assert_eq!(msg, "expected expression, found `)`");
}

#[test]
fn missing_name() {
    let (off, msg) = err("struct { }");
    assert_eq!(off, 7);
    assert_eq!(msg, "expected identifier, found `{`");
}

#[test]
fn expression_is_not_a_statement() {
    let (off, msg) = err("control C() { apply { x == 1; } }");
    assert_eq!(off, 28);
    assert!(msg.contains("not a statement"), "{msg}");
}

#[test]
fn keyword_cannot_be_a_name() {
    let (off, msg) = err("const bit<8> if = 1;");
    assert_eq!(off, 13);
    assert!(msg.starts_with("expected identifier"), "{msg}");
    assert!(msg.ends_with("found `if`"), "{msg}");
}

#[test]
fn messages_never_mention_internal_rule_names() {
    for src in [
        "parser P() { state start { transition select(x) { 1: a } } }",
        "control C() { table t { key = { a : exact } } apply {} }",
        "foo bar baz;",
        "extern E { void f() }",
        "control C() { apply { switch (x) { a } } }",
        "header h { bit<8 x; }",
        "enum E { }",
        "@ const int x = 1;",
        "control C() { apply { x = \"unterminated; } }",
    ] {
        let (_, msg) = err(src);
        assert!(!msg.contains('_') || msg.contains("`_`"), "{src}: {msg}");
        assert!(!msg.contains("rule"), "{src}: {msg}");
        assert!(
            msg.contains("found") || msg.contains("unexpected"),
            "{src}: {msg}"
        );
    }
}

#[test]
fn line_and_column() {
    let src = "const int A = 1;\nconst int B = 2\nconst int C = 3;";
    let e = parse(src).expect_err("missing semicolon");
    assert_eq!(e.line_col(src), (3, 1));
}

#[test]
fn deep_nesting_fails_gracefully() {
    let depth = 20_000;
    let src = format!("const int X = {}1{};", "(".repeat(depth), ")".repeat(depth));
    let e = parse(&src).expect_err("too deep");
    assert!(e.message.contains("nested too deeply"), "{}", e.message);
}
