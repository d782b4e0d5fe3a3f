//! Hostile inputs (issue 7): each is generated here, small enough to keep the
//! test fast in a debug build, and big enough to show the old failure mode
//! (stack overflow, quadratic time, exponential inlining, memory per byte).

use std::time::{Duration, Instant};

use p4cost_front::{load_source, FrontError, Loaded, Options};

/// A v1model program: `top` before the parser, `apply` inside the ingress
/// apply block, `actions` among the ingress locals, `states` after the
/// parser's start state (which goes to `s0` when `states` is not empty).
fn program(top: &str, plocals: &str, states: &str, actions: &str, apply: &str) -> String {
    let next = if states.is_empty() { "accept" } else { "s0" };
    format!(
        "#include <core.p4>
#include <v1model.p4>
header eth_h {{ bit<48> d; bit<48> s; bit<16> t; }}
struct headers_t {{ eth_h eth; }}
struct meta_t {{ bit<32> x; }}
{top}
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{
{plocals}
    state start {{ pkt.extract(hdr.eth); transition {next}; }}
{states}
}}
control VC(inout headers_t hdr, inout meta_t m) {{ apply {{ }} }}
control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{
    bit<32> x = 0;
{actions}
    apply {{
{apply}
    }}
}}
control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{ apply {{ }} }}
control CC(inout headers_t hdr, inout meta_t m) {{ apply {{ }} }}
control D(packet_out pkt, in headers_t hdr) {{ apply {{ pkt.emit(hdr.eth); }} }}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"
    )
}

fn ingress(apply: &str) -> String {
    program("", "", "", "", apply)
}

fn load(src: &str) -> Result<Loaded, FrontError> {
    load_source("t.p4", src, &Options::default())
}

/// The error message of a program that must fail, with its location.
fn error(src: &str) -> String {
    match load(src) {
        Ok(_) => panic!("the program loaded"),
        Err(e) => e.to_string(),
    }
}

/// Runs `f` and returns how long it took.
fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed())
}

#[test]
fn long_binary_chains_below_the_limit_lower() {
    // 4,000 terms: 3,999 operators, under the 4,096 limit, lowered by every
    // pass (read sets, constant folding, Drop) without overflowing a test
    // thread's stack.
    let sum = vec!["x"; 4000].join(" + ");
    let l = load(&ingress(&format!("x = {sum};"))).map_err(|e| e.to_string());
    assert!(l.is_ok(), "{l:?}");
    let and = vec!["x == 1"; 1500].join(" && ");
    let l = load(&ingress(&format!("if ({and}) {{ x = 2; }}"))).map_err(|e| e.to_string());
    assert!(l.is_ok(), "{l:?}");
}

#[test]
fn operator_chains_beyond_the_limit_are_an_error_not_a_crash() {
    // Was a stack overflow (abort) in the read-set pass at 60k terms; the
    // limit is an operator count, so 20k terms show it.
    let sum = vec!["1"; 20_000].join(" + ");
    let e = error(&ingress(&format!("x = {sum};")));
    assert!(
        e.starts_with("t.p4:17:5: expression nested too deeply (limit 4096"),
        "{e}"
    );
    let and = vec!["x == 1"; 10_000].join(" && ");
    let e = error(&ingress(&format!("if ({and}) {{ x = 2; }}")));
    assert!(
        e.contains("expression nested too deeply (limit 4096"),
        "{e}"
    );
}

#[test]
fn prefix_operator_chains_are_an_error_not_a_crash() {
    // Were a stack overflow in the parser thread (300k) and in the
    // recursive Drop of the AST (200k).
    for op in ["-", "!", "~", "(bit<32>)"] {
        let e = error(&ingress(&format!("x = {}1;", op.repeat(40_000 / op.len()))));
        assert!(
            e.starts_with("t.p4:17:5: expression nested too deeply (limit 4096"),
            "{op}: {e}"
        );
    }
    // Just under the limit is fine.
    assert!(load(&ingress(&format!("x = {}1;", "-".repeat(4000)))).is_ok());
}

#[test]
fn deep_braces_fail_at_once() {
    // 4,000 braces around a broken statement took 20 s of backtracking
    // before "nested too deeply"; the nesting is now checked before parsing.
    let n = 4000;
    let (e, took) = timed(|| {
        error(&ingress(&format!(
            "{}x = 1{}",
            "{".repeat(n),
            "}".repeat(n)
        )))
    });
    assert!(e.contains("nested too deeply (limit 1000"), "{e}");
    assert!(took < Duration::from_secs(1), "{took:?}");
    // Under the limit, a broken statement in nested blocks is reported
    // where it is, without re-trying every level as an expression.
    let n = 400;
    let (e, took) = timed(|| {
        error(&ingress(&format!(
            "{}x = 1{}",
            "{".repeat(n),
            "}".repeat(n)
        )))
    });
    assert!(e.starts_with("t.p4:17:406: expected `;`"), "{e}");
    assert!(took < Duration::from_secs(1), "{took:?}");
}
