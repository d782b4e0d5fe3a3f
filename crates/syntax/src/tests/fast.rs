//! The fast path (`crate::fast`) against pest: each snippet parses to the
//! same tree with the fast path on and off, and the fast path builds it
//! (or, for malformed input, declines and leaves the error to pest).

use crate::{parse_items_sharing_names, Counts};

/// Parses `src` both ways, asserts the same result, and returns how many
/// of its declarations the fast path built, of how many.
fn both(src: &str) -> (usize, usize) {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(crate::PARSE_STACK_BYTES)
            .spawn_scoped(scope, || both_here(src))
            .expect("thread")
            .join()
            .expect("no panic")
    })
}

fn both_here(src: &str) -> (usize, usize) {
    let run = |fast: bool| {
        let mut counts = Counts::default();
        crate::name::forget_names();
        let r = parse_items_sharing_names(src, true, fast, None, &mut counts);
        (r, counts.fast, counts.items)
    };
    let (fast, taken, items) = run(true);
    let (slow, _, _) = run(false);
    assert_eq!(fast, slow, "{src}");
    (taken, items)
}

/// `src` parses the same both ways and every declaration took the fast
/// path.
fn fast(src: &str) {
    let (taken, items) = both(src);
    assert_eq!(taken, items, "the fast path declined part of:\n{src}");
}

/// The expression `e` as a constant's value.
fn fast_expr(e: &str) {
    fast(&format!("const int X = {e};"));
}

/// The statements `body` in an apply block.
fn fast_stmts(body: &str) {
    fast(&format!("control C(inout H h) {{ apply {{ {body} }} }}"));
}

#[test]
fn every_operator_and_precedence_pair() {
    let ops = [
        "||", "&&", "==", "!=", "<", ">", "<=", ">=", "|", "^", "&", "<<", ">>", "++", "+", "-",
        "|+|", "|-|", "*", "/", "%",
    ];
    for a in ops {
        fast_expr(&format!("x {a} y"));
        for b in ops {
            fast_expr(&format!("a {a} b {b} c"));
        }
    }
    for e in [
        "a ? b : c ? d : e",
        "a || b ? c + 1 : d",
        "x ? y : z || w",
        "-a * !b + ~c",
        "- - -x",
        "+x",
        "(a + b) * c",
        "((a))",
        "a[3:0] ++ b[7:4]",
        "a[i +: 4]",
        "a[i -: 4]",
        "h.f[2].g",
        "f(a, b)(c)",
        "f<bit<8>>(x)",
        "f<bit<8>, _>(x, y = 2)",
        "P<bit>.apply",
        "a < b && c > d",
        "a < b > c",
        "{ a, b, }",
        "{ a = 1, b = 2 }",
        "{ a = 1, ... }",
        "{ }",
        "{#}",
        ".a + error.NoError",
        "this",
        "true && false",
        "\"s\" ++ \"t\\\"u\"",
        "8w0x0F + 32s5 + 0b1010 + 0o17 + 0d9 + 1_000 + 340282366920938463463374607431768211456",
        "(bit<8>) x",
        "(bit<8>) -x",
        "(T) x",
        "(T) - x",
        "(T)(x)",
        "(list<bit<8>>) {1, 2}",
        "(tuple<bit<8>, bool>) {1, true}",
        "(int) 5",
        "_",
        "f(_, ...)",
        "a - 1 - 2",
        "a == b == c",
        "a & b == c",
        "sizeof(x)",
        "x[1][2][3]",
    ] {
        fast_expr(e);
    }
}

#[test]
fn types_and_widths() {
    for t in [
        "bit<8>",
        "bit",
        "int",
        "int<16>",
        "varbit<32>",
        "bit<(W)>",
        "bit<W + 1>",
        "bit<a < 3 ? 5 : 4>",
        "bool",
        "string",
        "error",
        "match_kind",
        "tuple<bit<8>, bool>",
        "list<bit<8>>",
        "T<bit<8>, _>",
        ".T",
        "T[4]",
        "T[2][3]",
        "G<T>[4]",
    ] {
        fast(&format!("typedef {t} N;"));
        fast(&format!("type {t} N;"));
        fast(&format!("struct S {{ {t} f; {t} g[2]; }}"));
    }
}

#[test]
fn statements() {
    for s in [
        "h.a = 1;",
        "h.a[1].b = h.c;",
        ".g = 1;",
        "h.a += 1; h.a -= 1; h.a *= 2; h.a /= 2; h.a %= 2; h.a <<= 1; h.a >>= 1;",
        "h.a &= 1; h.a |= 1; h.a ^= 1; h.a |+|= 1; h.a |-|= 1;",
        "h.a[7:0] = 1;",
        "f(x);",
        "t.apply();",
        "h.h.setValid();",
        "f<bit<8>>(x);",
        "bit<8> x;",
        "bit<8> x = 1;",
        "bit<8> x[4];",
        "T<A> x;",
        "a < b > c;",
        "C() c;",
        "C<T>(1) c;",
        "const bit<8> K = 3;",
        "if (a) { f(); }",
        "if (a) f(); else if (b) g(); else { }",
        "{ { } ; }",
        ";",
        "return;",
        "return 1;",
        "exit;",
        "@atomic { h.a = 1; }",
        "@name(\"x\") h.a = 1;",
        "@a[k = 1] bit<8> v = 2;",
        "switch (t.apply().action_run) { a: { } b: c: { f(); } default: { } }",
        "switch (x) { 1: { } 2: }",
        "h.a = (h.b > 1 ? 2 : 3);",
        "x = y < z;",
        "g.apply(h, 1);",
        "f()[1].x = 3;",
        "a.b = {1, 2};",
    ] {
        fast_stmts(s);
    }
}

#[test]
fn declarations() {
    for d in [
        "header H { bit<8> a; @n(\"x\") bit<4> b; }",
        "header_union U { H a; H b; }",
        "struct S<T> { T f; }",
        "enum E { A, B, }",
        "@a enum E { @b A }",
        "enum bit<8> E { A = 1, B = 2 }",
        "error { A, B }",
        "match_kind { exact, ternary, }",
        "const bit<8> K = 1;",
        "typedef bit<8> T;",
        "extern E;",
        "extern E<T> { E(int n); T read(in bit<32> i); abstract void f<U>(U u); void w(@optional in T v = 1); }",
        "extern void f(in bit<8> x);",
        "extern bit<8> g<T>(T x);",
        "extern Foo<T> h();",
        "package P<H>(C<H> c, D d);",
        "parser P<H>(packet_in p, out H h);",
        "control C(inout H h);",
        "action a(bit<8> v, in bit<8> w) { h.a = v; }",
        "bit<8> f(in bit<8> x) { return x + 1; }",
        "void g<T>(T x) { }",
        "V1Switch(P(), C()) main;",
        "E(1) e[4];",
        "Register<bit<32>, bit<8>>(16) r;",
        "RegisterAction<bit<32>, bit<8>, bit<32>>(r) ra = { void apply(inout bit<32> v, out bit<32> o) { v = v + 1; o = v; } };",
        "@pragma stage 1\nconst int K = 2;",
        "@a @b(1, 2) @c[x, y] @d(raw ( nested ) \"str)\") const int K = 3;",
    ] {
        fast(d);
    }
}

#[test]
fn parsers_and_controls() {
    fast(
        "parser P(packet_in p, out H h)(bit<8> k) {
            value_set<bit<16>>(4) vs;
            const bit<8> K = 1;
            bit<8> tmp;
            C() c;
            @name(\"s\") state start {
                p.extract(h.e);
                transition select(h.e.t, h.e.u) {
                    (0x800, _): ipv4;
                    (vs, default): accept;
                    (1 .. 5, 0x0F &&& 0xF0): reject;
                    default: accept;
                }
            }
            state ipv4 { transition select(h.e.t) { 0x800: a; (5): b; vs: c; } }
            state a { transition accept; }
            state b { }
        }",
    );
    fast(
        "control C(inout H h)(bool b) {
            bit<8> x = 1;
            @name(\"a\") action a(bit<8> v) { h.a = v; }
            action b() { }
            Counter(1) cnt;
            table t {
                key = { h.a : exact @name(\"k\"); h.b & 3 : ternary; }
                actions = { a; @defaultonly b; .c(1); }
                size = 1024;
                const default_action = b();
                @hidden implementation = p;
                const entries = {
                    1 : a(1);
                    (2, _) : b() @x;
                    priority = 10 : 7 : a(2);
                    const priority = (1 + 2) : 8 &&& 0xF : b();
                    priority : a(4);
                    (default, 0x1 &&& 0x3) : a(3);
                }
            }
            table u { key = { } actions = { } entries = { 5: a(1); } }
            apply @noWarn(\"x\") { if (t.apply().hit) { u.apply(); } }
        }",
    );
}

/// Malformed input: the fast path declines (it does not accept garbage),
/// and the error is pest's, as without the fast path.
#[test]
fn malformed_input_is_left_to_pest() {
    for src in [
        "control C() { apply { x = ; } }",
        "control C() { apply { x = 1 } }",
        "const int X = a < ;",
        "control C() { apply { a < b > c } }",
        "const int table = 1;",
        "control C() { apply { bit<8> if; } }",
        "header H { bit<8> a }",
        "struct S { bit<8> a; ",
        "const int X = (1 + ;",
        "const int X = 0x;",
        "const int X = 8w;",
        "control C() { apply { f() } }",
        "control C() { apply { a + b; } }",
        "parser P() { state s { transition select(x) { 1 x; } } }",
        "const int X = \"unterminated;",
        "@name(\"x\" const int X = 1;",
        "control C() { table t { key = { a : ; } } apply { } }",
    ] {
        let mut d = Vec::new();
        let blanked = crate::trivia::blank(src);
        assert_eq!(crate::fast::item(&blanked, 0, &mut d), None, "{src}");
        assert!(d.is_empty(), "{src}");
        let (taken, _) = both(src);
        assert_eq!(taken, 0, "{src}");
        assert!(crate::parse(src).is_err(), "{src}");
    }
}

/// What the fast path leaves to pest, on purpose: it declines, and the
/// tree is pest's.
#[test]
fn declined_constructs_still_parse_the_same() {
    for src in [
        "typedef struct S { bit<8> a; } T;",
        "control C() { apply { for (bit<8> i = 0; i < 4; i = i + 1) { } } }",
        "control C() { apply { for (bit<8> i in 0 .. 3) { } } }",
        "const string S = \"http://x\";",
    ] {
        let (taken, items) = both(src);
        assert!(taken < items, "{src}");
    }
}

/// True when the fast path declines the first declaration of `src`
/// (leaving the output untouched), run on a thread with the parser's stack.
fn declines(src: &str) -> bool {
    declines_taking(src).0
}

/// [`declines`], and the CPU time the fast path took (the worker thread's:
/// a loaded machine stretches wall time, not this).
fn declines_taking(src: &str) -> (bool, std::time::Duration) {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(crate::PARSE_STACK_BYTES)
            .spawn_scoped(scope, || {
                let t = cpu_time::ThreadTime::now();
                let mut d = Vec::new();
                let declined = crate::fast::item(src, 0, &mut d).is_none() && d.is_empty();
                (declined, t.elapsed())
            })
            .expect("thread")
            .join()
            .expect("no panic")
    })
}

/// Input that makes the grammar backtrack quadratically or worse runs out
/// of the fast path's budget and is left to pest, which gives up on it as
/// before (the fast path does not accept what pest rejects), without the
/// fast path running long. (Not compared both ways: whether pest gives up
/// depends on its process-wide call limit, which a parse running at the
/// same time on another thread raises.)
#[test]
fn backtracking_input_is_left_to_pest() {
    let chain = vec!["a"; 900].join(" < ");
    assert!(declines(&format!("const bool X = {chain};")));
    let nested = format!("const int X = {}1{};", "(a[".repeat(40), "])".repeat(40));
    let (declined, took) = declines_taking(&nested);
    assert!(declined);
    assert!(took < std::time::Duration::from_secs(20), "{took:?}");
    let short = vec!["a"; 20].join(" < ");
    fast(&format!("const bool X = {short};"));
}

/// The depth limits: input past them is declined and reported by the
/// builder, exactly as without the fast path.
#[test]
fn depth_limits_are_the_builders() {
    let deep = format!("const int X = {}1{};", "(".repeat(1200), ")".repeat(1200));
    let (taken, _) = both(&deep);
    assert_eq!(taken, 0);
    let long = format!("const int X = 1{};", " + 1".repeat(5000));
    let (taken, _) = both(&long);
    assert_eq!(taken, 0);
    let ok = format!("const int X = 1{};", " + 1".repeat(4000));
    fast(&ok);
    let neg = format!("const int X = {}1;", "-".repeat(4097));
    let (taken, _) = both(&neg);
    assert_eq!(taken, 0);
}

mod random {
    use super::both;
    use proptest::prelude::*;

    /// Tokens of expressions and statements, valid or not in any order.
    const TOKENS: &[&str] = &[
        "a",
        "b.c",
        "f",
        "T",
        "_",
        "1",
        "8w3",
        "0x1F",
        "\"s\"",
        "true",
        "error",
        "this",
        "bit",
        "<",
        ">",
        "<=",
        ">=",
        "<<",
        ">>",
        "=",
        "==",
        "!=",
        "+",
        "-",
        "*",
        "/",
        "%",
        "&",
        "&&",
        "&&&",
        "|",
        "||",
        "|+|",
        "^",
        "~",
        "!",
        "?",
        ":",
        "..",
        "...",
        "++",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        ",",
        ".",
        ";",
        "+:",
        "-:",
        "<<=",
        "+=",
        "@a",
        "@n(\"x\")",
        "if",
        "else",
        "return",
        "8",
        "bit<8>",
        "(bit<8>)",
    ];

    fn text(max: usize) -> impl Strategy<Value = String> {
        proptest::collection::vec((0..TOKENS.len(), any::<bool>()), 1..max).prop_map(|v| {
            let mut s = String::new();
            for (i, space) in v {
                s.push_str(TOKENS[i]);
                if space {
                    s.push(' ');
                }
            }
            s
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(600))]

        /// Random token strings as a constant's value: the same tree or
        /// the same error with the fast path on and off.
        #[test]
        fn random_expressions_parse_the_same(e in text(12)) {
            both(&format!("const int X = {e};"));
        }

        /// Random token strings as statements of an apply block.
        #[test]
        fn random_statements_parse_the_same(s in text(14)) {
            both(&format!("control C() {{ apply {{ {s} }} }}"));
        }

        /// Random token strings as table keys and entries.
        #[test]
        fn random_table_parts_parse_the_same(k in text(8), e in text(8)) {
            both(&format!(
                "control C() {{ table t {{ key = {{ {k} : exact; }} const entries = {{ {e} : a(); }} }} apply {{ }} }}"
            ));
        }
    }
}
