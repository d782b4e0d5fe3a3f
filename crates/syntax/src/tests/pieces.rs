//! Parser and control declarations parsed one element at a time
//! (`pieces.rs`) give the same tree, and the same errors, as parsed whole.

use crate::ast::Decl;
use crate::parse_items;

/// Runs `f` on a thread with the parser's stack (deep inputs below).
fn on_big_stack(f: impl FnOnce() + Send) {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(crate::PARSE_STACK_BYTES)
            .spawn_scoped(s, f)
            .expect("thread")
            .join()
            .expect("no panic");
    });
}

/// Both ways agree; true if `src` parses.
fn same(src: &str) -> bool {
    let pieces = parse_items(src, true, false);
    let whole = parse_items(src, false, false);
    assert_eq!(pieces, whole, "{src}");
    pieces.is_ok()
}

const CASES: &[&str] = &[
    "parser P() { }",
    "parser P();",
    "control C();",
    "control C() { apply { } }",
    "@name(\"x\") @hidden control C<T>(in T t)(bit<8> k) { apply { } }",
    "parser P<H>(packet_in p, out H h)(bool b) { value_set<bit<8>>(4) vs; bit<8> x; state start { transition accept; } }",
    "parser P() { bit<8> x; }",
    "parser P() { state start { transition accept; } bit<8> x; }",
    "parser P() { state start { x = 1; { y = 2; } transition select(x) { 1: a; default: accept; } } state a { transition accept; } }",
    "control C() { action a() { } table t { actions = { a; } } apply @noWarn(\"unused\") { t.apply(); } }",
    "control C() { apply x; apply { } }",
    "control C() { bit<8> x; }",
    "control C() { apply { } ",
    "control C() { apply { } } }",
    "control C() { apply { x = ; } }",
    "control C() { apply { x = 1 } }",
    "control C() { apply { x = 1; } y }",
    "control C() { apply { if (a) { b(); } else c(); switch (t.apply().action_run) { a: { } default: } } }",
    "control C() {\n#pragma foo\n // c\n /* d */ apply {\n# 3 \"x.p4\"\n ; ; }\n}\nconst bit<8> K = 1;",
    // A builder error (integer width) before a syntax error: the syntax
    // error wins, as when the declaration is parsed whole.
    "control C() { apply { x = 99999999999w1; y = ; } }",
    "control C() { apply { x = 99999999999w1; } }",
    "parser P() { state s { x = 99999999999w1; transition accept; } state t { transition ; } }",
    "control C() { apply { a; } }",
    "control C() { apply { a.b; c(); } }",
    // Nested blocks and `if`s are pieces too.
    "control C() { apply { { } { ; } { { x = 1; } ; } } }",
    "control C() { apply { @a { x = 1; @b if (c) { y(); } else if (d) ; else { } } } }",
    "control C() { apply { if (a) if (b) x = 1; else x = 2; z(); } }",
    "control C() { apply { if (a) x = 1; else @n { } if (b) { } } }",
    "control C() { apply { if (a) { } else } }",
    "control C() { apply { if (a) } }",
    "control C() { apply { if (a) else { } } }",
    "control C() { apply { if (x = 1) { } } }",
    "control C() { apply { if (a) { x = ; } } }",
    "control C() { apply { { x = 1; } } ",
    "control C() { apply { if (a) { b(); } else { c(); } }",
    "control C() { apply { if (a) { b(); } else { c(); } } } const bit<8> K = 1;",
    "control C() { apply { @a if (t.apply().hit) { exit; } else { switch (u.apply().action_run) { a: { } } } } }",
];

#[test]
fn valid_bodies_are_parsed_in_pieces() {
    on_big_stack(|| {
        for src in [
            "parser P() { }",
            "@a parser P<H>(out H h)(bool b) { bit<8> x; state start { transition accept; } }",
            "control C() { apply { } }",
            "control C()(bit<8> k) { action a() { } apply @x { a(); ; } }",
            "control C() { apply { @a { x = 1; if (c) { y(); } else if (d) ; } if (e) { } } }",
        ] {
            let (decl, end) = crate::pieces::container(src, 0).expect("in pieces");
            assert_eq!(end, src.len());
            assert_eq!(
                Some(&decl),
                parse_items(src, false, false)
                    .expect("parses")
                    .decls
                    .first()
            );
        }
        // Not containers with a body: parsed whole.
        for src in ["parser P();", "control C();", "const bit<8> K = 1;"] {
            assert!(crate::pieces::container(src, 0).is_none(), "{src}");
        }
    });
}

#[test]
fn small_cases() {
    on_big_stack(|| {
        for src in CASES {
            same(src);
        }
    });
}

#[test]
fn nesting_and_expression_limits() {
    on_big_stack(|| {
        // Each nested block is two levels for the builder (statement and
        // block): the limit is reached inside the apply block.
        for n in [490, 498, 499, 500, 501, 510] {
            let src = format!(
                "control C() {{ apply {{ {}x = 1;{} }} }}",
                "{".repeat(n),
                "}".repeat(n)
            );
            same(&src);
            let src = format!(
                "parser P() {{ state s {{ {}x = 1;{} transition accept; }} }}",
                "{".repeat(n),
                "}".repeat(n)
            );
            same(&src);
        }
        // An `if` is one level, its condition one more: the limit falls
        // inside each range.
        let ok: Vec<bool> = (996..=1000)
            .map(|n| {
                same(&format!(
                    "control C() {{ apply {{ {}x = 1; }} }}",
                    "if (a) ".repeat(n)
                ))
            })
            .collect();
        assert!(ok.contains(&true) && ok.contains(&false), "{ok:?}");
        let ok: Vec<bool> = (330..=336)
            .map(|n| {
                same(&format!(
                    "control C() {{ apply {{ {}x = 1;{} }} }}",
                    "if (a) {".repeat(n),
                    "} else { }".repeat(n)
                ))
            })
            .collect();
        assert!(ok.contains(&true) && ok.contains(&false), "{ok:?}");
        for n in [4095, 4096, 4097, 4098] {
            let src = format!("control C() {{ apply {{ x = a{}; }} }}", " + a".repeat(n));
            same(&src);
        }
    });
}

/// Every program of the test data, and the same with a byte deleted or a
/// token inserted at many places: both ways agree on the tree or on the
/// error (offset and message).
#[test]
fn mutated_programs() {
    on_big_stack(|| {
        for src in [
            include_str!("../../testdata/tna_router.p4"),
            include_str!("../../testdata/v1model_basic.p4"),
        ] {
            same(src);
            // Mutations inside parser and control declarations.
            let inside: Vec<(usize, usize)> = crate::parse(src)
                .expect("parses")
                .decls
                .iter()
                .filter_map(|d| match d {
                    Decl::Parser(p) => Some(p.span),
                    Decl::Control(c) => Some(c.span),
                    _ => None,
                })
                .map(|s| (s.lo as usize, s.hi as usize))
                .collect();
            for at in (0..src.len()).step_by(29) {
                if !src.is_char_boundary(at) || !inside.iter().any(|&(lo, hi)| lo <= at && at <= hi)
                {
                    continue;
                }
                let (a, b) = src.split_at(at);
                let tail = b.get(1..).filter(|_| b.is_char_boundary(1)).unwrap_or("");
                same(&format!("{a}{tail}"));
                for junk in ["}", ";", "@a ", "state s { } "] {
                    same(&format!("{a}{junk}{b}"));
                }
            }
        }
    });
}
