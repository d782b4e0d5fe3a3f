//! Expression parsing: precedence, postfix forms, literals, casts, spans.

use super::{expr, ok, sx};
use crate::ast::*;

#[test]
fn logical_and_comparison_precedence() {
    assert_eq!(sx(&expr("a || b && c")), "(|| a (&& b c))");
    assert_eq!(sx(&expr("a && b == c")), "(&& a (== b c))");
    assert_eq!(sx(&expr("a == b < c")), "(== a (< b c))");
    assert_eq!(sx(&expr("a != b >= c")), "(!= a (>= b c))");
}

#[test]
fn bitwise_bind_tighter_than_comparisons_like_p4c() {
    assert_eq!(sx(&expr("a < b | c")), "(< a (| b c))");
    assert_eq!(sx(&expr("a == b & c")), "(== a (& b c))");
    assert_eq!(sx(&expr("a | b ^ c & d")), "(| a (^ b (& c d)))");
}

#[test]
fn arithmetic_shift_concat_precedence() {
    assert_eq!(sx(&expr("a & b << c")), "(& a (<< b c))");
    assert_eq!(sx(&expr("a << b + c")), "(<< a (+ b c))");
    assert_eq!(sx(&expr("a >> b - c")), "(>> a (- b c))");
    assert_eq!(sx(&expr("a + b * c")), "(+ a (* b c))");
    assert_eq!(sx(&expr("a ++ b + c")), "(+ (++ a b) c)");
    assert_eq!(sx(&expr("a |+| b |-| c")), "(|-| (|+| a b) c)");
    assert_eq!(sx(&expr("a / b % c")), "(% (/ a b) c)");
    assert_eq!(sx(&expr("a - b - c")), "(- (- a b) c)");
}

#[test]
fn ternary_is_lowest_and_right_associative() {
    assert_eq!(sx(&expr("a ? b : c ? d : e")), "(? a b (? c d e))");
    assert_eq!(sx(&expr("a || b ? c + 1 : d")), "(? (|| a b) (+ c 1) d)");
}

#[test]
fn unary_operators() {
    assert_eq!(sx(&expr("!a")), "(! a)");
    assert_eq!(sx(&expr("~a & b")), "(& (~ a) b)");
    assert_eq!(sx(&expr("-a.b")), "(- a.b)");
    assert_eq!(sx(&expr("+a * -b")), "(* (+ a) (- b))");
    assert_eq!(sx(&expr("!!a")), "(! (! a))");
}

#[test]
fn casts() {
    assert_eq!(sx(&expr("(bit<8>)x")), "(cast bit<8> x)");
    assert_eq!(sx(&expr("(bit<8>)(x + 1)")), "(cast bit<8> (+ x 1))");
    assert_eq!(sx(&expr("(bit<8>)x + 1")), "(+ (cast bit<8> x) 1)");
    assert_eq!(sx(&expr("(int<8>)-1")), "(cast int<8> (- 1))");
    assert_eq!(sx(&expr("(bool)f.g")), "(cast bool f.g)");
    assert_eq!(sx(&expr("(MyT)x")), "(cast MyT x)");
    assert_eq!(sx(&expr("(MyT)(x)")), "(cast MyT x)");
    assert_eq!(sx(&expr("(bit<(W + 1)>)x")), "(cast bit<(+ W 1)> x)");
}

#[test]
fn parenthesised_names_are_not_casts_before_operators() {
    assert_eq!(sx(&expr("(a) - b")), "(- a b)");
    assert_eq!(sx(&expr("(a) + (b)")), "(+ a b)");
    assert_eq!(sx(&expr("(a).b")), "a.b");
    assert_eq!(sx(&expr("(a < b)")), "(< a b)");
}

#[test]
fn member_index_slice_and_calls() {
    assert_eq!(sx(&expr("a.b.c()")), "a.b.c()");
    assert_eq!(sx(&expr("a[3]")), "a[3]");
    assert_eq!(sx(&expr("x[7:0]")), "x[7:0]");
    assert_eq!(sx(&expr("h.s[i + 1].f[3:2]")), "h.s[(+ i 1)].f[3:2]");
    assert_eq!(sx(&expr("f(x, y)")), "f(x, y)");
    assert_eq!(sx(&expr("f(a = 1, b = x == y)")), "f(a=1, b=(== x y))");
    assert_eq!(sx(&expr("t.apply().hit")), "t.apply().hit");
    assert_eq!(sx(&expr("t.apply().action_run")), "t.apply().action_run");
    assert_eq!(
        sx(&expr("sizeof(h) + minSizeInBytes(h)")),
        "(+ sizeof(h) minSizeInBytes(h))"
    );
    assert_eq!(sx(&expr("f(_, 1)")), "f(_, 1)");
}

#[test]
fn generic_calls_versus_comparisons() {
    assert_eq!(sx(&expr("f<bit<8>>(x)")), "f<bit<8>>(x)");
    assert_eq!(
        sx(&expr("pkt.lookahead<bit<8>>()")),
        "pkt.lookahead<bit<8>>()"
    );
    assert_eq!(
        sx(&expr("Register<bit<32>, bit<8>>(1)")),
        "Register<bit<32>, bit<8>>(1)"
    );
    assert_eq!(
        sx(&expr("Register<bit<32>, _>(1024)")),
        "Register<bit<32>, _>(1024)"
    );
    assert_eq!(sx(&expr("a < b")), "(< a b)");
    assert_eq!(sx(&expr("a < b && c > d")), "(&& (< a b) (> c d))");
    assert_eq!(sx(&expr("x >> 2")), "(>> x 2)");
    assert_eq!(sx(&expr("x > y")), "(> x y)");
    assert_eq!(sx(&expr("x >= y")), "(>= x y)");
    assert_eq!(sx(&expr("a<b")), "(< a b)");
}

#[test]
fn integer_literals() {
    let lit = |s: &str| match expr(s).kind {
        ExprKind::Int(i) => i,
        other => panic!("not an integer: {other:?}"),
    };
    let i = lit("8w0x0F");
    assert_eq!(i.value, IntValue::Small(15.into()));
    assert_eq!(
        i.width,
        Some(IntWidth {
            bits: 8,
            signed: false
        })
    );
    assert_eq!(i.radix, 16);
    let i = lit("32s5");
    assert_eq!(i.value, IntValue::Small(5.into()));
    assert_eq!(
        i.width,
        Some(IntWidth {
            bits: 32,
            signed: true
        })
    );
    assert_eq!(lit("0b1010").value, IntValue::Small(10.into()));
    assert_eq!(lit("0o17").value, IntValue::Small(15.into()));
    assert_eq!(lit("0d99").value, IntValue::Small(99.into()));
    assert_eq!(lit("1_000").value, IntValue::Small(1000.into()));
    assert_eq!(
        lit("0xFFFF_FFFF").value,
        IntValue::Small(0xFFFF_FFFF.into())
    );
    assert_eq!(lit("42").width, None);
    // 2^128 does not fit in u128.
    assert_eq!(
        lit("340282366920938463463374607431768211456").value,
        IntValue::Big("340282366920938463463374607431768211456".into())
    );
    assert_eq!(
        lit("128w0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF").value,
        IntValue::Small(u128::MAX.into())
    );
}

#[test]
fn other_literals_and_primaries() {
    assert_eq!(expr("\"a b\\\"c\"").kind, ExprKind::Str("a b\\\"c".into()));
    assert_eq!(expr("true").kind, ExprKind::Bool(true));
    assert_eq!(expr("false").kind, ExprKind::Bool(false));
    assert_eq!(expr("this").kind, ExprKind::This);
    assert_eq!(sx(&expr("error.NoError")), "error.NoError");
    assert_eq!(sx(&expr(".x")), ".x");
    assert_eq!(sx(&expr(".x.y")), ".x.y");
    assert_eq!(sx(&expr("_")), "_");
    assert_eq!(sx(&expr("...")), "...");
    assert_eq!(sx(&expr("{#}")), "{#}");
    assert_eq!(sx(&expr("{ # }")), "{#}");
}

#[test]
fn list_and_struct_expressions() {
    assert_eq!(sx(&expr("{a, b.c, 1}")), "{a, b.c, 1}");
    assert_eq!(sx(&expr("{}")), "{}");
    assert_eq!(sx(&expr("{a == b}")), "{(== a b)}");
    assert_eq!(sx(&expr("{a = 1, b = 2}")), "{a=1, b=2}");
    assert_eq!(sx(&expr("{a = 1, ...}")), "{a=1, ...}");
    assert_eq!(sx(&expr("{a, ...}")), "{a, ...}");
    assert_eq!(sx(&expr("(S){a = 1}")), "(cast S {a=1})");
}

#[test]
fn spans_cover_source_text() {
    let src = "const int X = (a + b) * c.d[3:0];";
    let p = ok(src);
    let Some(Decl::Const(c)) = p.decls.first() else {
        panic!("expected a constant");
    };
    assert_eq!(c.value.span.text(src), "(a + b) * c.d[3:0]");
    let ExprKind::Binary { lhs, rhs, .. } = &c.value.kind else {
        panic!("expected a binary expression");
    };
    assert_eq!(lhs.span.text(src), "(a + b)");
    assert_eq!(rhs.span.text(src), "c.d[3:0]");
    assert_eq!(c.ty.span.text(src), "int");
    assert_eq!(c.name.span.text(src), "X");
    assert_eq!(c.span.text(src), src);
}

#[test]
fn deep_parenthesis_nesting_parses() {
    let depth = 300;
    let src = format!("{}x{}", "(".repeat(depth), ")".repeat(depth));
    assert_eq!(sx(&expr(&src)), "x");
    let sum = format!("{}1{}", "(1 + ".repeat(depth), ")".repeat(depth));
    assert!(sx(&expr(&sum)).starts_with("(+ 1 (+ 1"));
}

#[test]
fn long_operator_chains_parse() {
    let chain = vec!["a"; 2000].join(" + ");
    let e = expr(&chain);
    assert!(matches!(
        e.kind,
        ExprKind::Binary {
            op: BinaryOp::Add,
            ..
        }
    ));
}

#[test]
fn spans_exclude_trailing_comments() {
    let src = "const int X = a // first\n /* second */ ;";
    let p = ok(src);
    let Some(Decl::Const(c)) = p.decls.first() else {
        panic!("expected a constant");
    };
    assert_eq!(c.value.span.text(src), "a");
}

mod props {
    use super::expr;
    use crate::ast::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn decimal_and_hex_literals_keep_their_value(v in any::<u128>(), w in 1u32..=128) {
            let dec = expr(&v.to_string());
            prop_assert_eq!(&dec.kind, &ExprKind::Int(IntLit { value: IntValue::Small(v.into()), width: None, radix: 10 }));
            let hex = expr(&format!("{w}w0x{v:x}"));
            prop_assert_eq!(
                &hex.kind,
                &ExprKind::Int(IntLit { value: IntValue::Small(v.into()), width: Some(IntWidth { bits: w, signed: false }), radix: 16 })
            );
        }
    }
}
