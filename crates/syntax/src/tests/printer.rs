//! The pretty-printer: its output re-parses to the same tree.

use super::{expr, ok, sx};
use crate::dump;

/// Printing is a fixpoint: dump(parse(dump(parse(src)))) == dump(parse(src)).
fn roundtrip(src: &str) -> String {
    let first = dump(&ok(src));
    let second = dump(&ok(&first));
    assert_eq!(first, second, "printer output is not stable");
    first
}

#[test]
fn whole_programs_round_trip() {
    roundtrip(include_str!("../../testdata/tna_router.p4"));
    roundtrip(include_str!("../../testdata/v1model_basic.p4"));
}

#[test]
fn expressions_keep_their_meaning() {
    for src in [
        "(a + b) * c",
        "a - (b - c)",
        "a ? b : c ? d : e",
        "(a ? b : c) ? d : e",
        "(bit<8>)(x + 1)",
        "(MyT)(-x)",
        "-(-x)",
        "~(a & b) == c",
        "f<bit<8>>(x, y = 2).z[3:0]",
        "{a = 1, b = {2, 3}, ...}",
        "8w0x0F + 32s5 + 0b101 + 0o17",
        "error.NoError == .x",
    ] {
        let original = expr(src);
        let printed = crate::printer::expr(&original);
        let reparsed = expr(&printed);
        assert_eq!(sx(&reparsed), sx(&original), "{src} printed as {printed}");
    }
}

#[test]
fn statements_and_declarations_round_trip() {
    let out = roundtrip(
        "@name(\"x\") control C(inout H h)(bit<8> k) {
            @pragma stage 1
            table t { key = { h.a : exact @name(\"a\"); } actions = { a; @defaultonly b(1); }
                      const entries = { priority = 3 : (1, _) : a(); 2 &&& 3 : b(4) @x; } size = 16; }
            apply {
                @atomic { h.a = 1; }
                if (t.apply().hit) h.b = 2; else { exit; }
                switch (t.apply().action_run) { a: b: { return; } default: { } }
                for (bit<8> i = 0; i < 4; i = i + 1) { }
                for (x in 1 .. 3) ;
            }
        }
        parser P(packet_in p) { value_set<bit<8>>(2) vs; state start { transition select(p.lookahead<bit<8>>()) { vs: accept; default: reject; } } }
        enum bit<8> E { A = 1, B = 2 } extern X<T> { X(); abstract T f(in T v); } extern Y;",
    );
    assert!(out.contains("@pragma stage 1\n"));
    assert!(out.contains("priority = (3): (1, _) : a()"));
}
