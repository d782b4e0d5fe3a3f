//! Bad input: a clear `file:line:col: message` on stderr and exit code 2,
//! never a panic.

mod common;
use common::{p4cost_in, scratch};

const TNA_HEAD: &str = "#include <core.p4>\n#include <tna.p4>\n";

/// Writes `files` into a scratch dir, runs `p4cost predict main.p4` there.
fn predict_files(name: &str, files: &[(&str, &str)]) -> common::Run {
    let d = scratch(name);
    for (f, text) in files {
        std::fs::write(d.join(f), text).expect("write");
    }
    p4cost_in(&d, &["predict", "main.p4"])
}

fn assert_error(r: &common::Run, location: &str, words: &str) {
    assert_eq!(r.code, 2, "stdout: {}\nstderr: {}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains(location) && r.stderr.contains(words),
        "expected `{location}` and `{words}` in: {}",
        r.stderr
    );
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
}

#[test]
fn unterminated_comment() {
    let r = predict_files(
        "comment",
        &[(
            "main.p4",
            "header h_t { bit<8> a; }\n  /* never closed\nconst bit<8> X = 1;\n",
        )],
    );
    assert_error(&r, "main.p4:2:3:", "unterminated");
}

#[test]
fn unknown_include() {
    let r = predict_files(
        "include",
        &[("main.p4", "#include <core.p4>\n\n#include \"nowhere.p4\"\n")],
    );
    assert_error(&r, "main.p4:3:1:", "nowhere.p4");
}

#[test]
fn include_cycle() {
    let r = predict_files(
        "cycle",
        &[
            ("main.p4", "#include \"a.p4\"\n"),
            ("a.p4", "// a\n#include \"b.p4\"\n"),
            ("b.p4", "#include \"a.p4\"\n"),
        ],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("b.p4:1:1:") && r.stderr.contains("cycle"),
        "{}",
        r.stderr
    );
}

#[test]
fn undefined_width() {
    // `bit<W>` with a bare name is not P4 (only a literal or `(expr)`), so
    // the width must be parenthesised to reach the lowering.
    let src = format!("{TNA_HEAD}header h_t {{\n    bit<8> a;\n    bit<(WIDTH + 1)> b;\n}}\n");
    let r = predict_files("width", &[("main.p4", &src)]);
    assert_error(&r, "main.p4:5:10:", "`WIDTH`, which is undefined");
}

#[test]
fn error_directive() {
    let r = predict_files(
        "error",
        &[(
            "main.p4",
            "#ifndef TARGET\n#error \"define TARGET\"\n#endif\n",
        )],
    );
    assert_error(&r, "main.p4:2:1:", "define TARGET");
}

#[test]
fn syntax_error_points_at_the_token() {
    let src = format!("{TNA_HEAD}header h_t {{\n    bit<8> a\n}}\n");
    let r = predict_files("syntax", &[("main.p4", &src)]);
    assert_error(&r, "main.p4:5:1:", "expected");
}

#[test]
fn unknown_state_in_transition() {
    let src = format!(
        "{TNA_HEAD}header h_t {{ bit<8> a; }}\nstruct hs {{ h_t h; }}\nparser P(packet_in pkt, out hs hdr) {{\n    state start {{ pkt.extract(hdr.h); transition nowhere; }}\n}}\n"
    );
    let r = predict_files("state", &[("main.p4", &src)]);
    assert_error(&r, "main.p4:6:", "unknown state `nowhere`");
}

#[test]
fn missing_file_and_bad_flags() {
    let d = scratch("flags");
    let r = p4cost_in(&d, &["predict", "missing.p4"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("missing.p4"), "{}", r.stderr);
    let r = p4cost_in(&d, &["predict", "x.p4", "--port", "25g"]);
    assert_eq!(r.code, 2);
    let r = p4cost_in(&d, &["predict", "x.p4", "--bogus"]);
    assert_eq!(r.code, 2);
    let r = p4cost_in(&d, &["predict", "x.p4", "--model", "nope"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("unknown model"), "{}", r.stderr);
}

#[test]
fn truncated_json_is_an_input_error() {
    let root = common::root();
    let full = std::fs::read_to_string(
        root.join("tests/fixtures/bmv2/behavioral-model__simple_router.json"),
    )
    .expect("fixture");
    let d = scratch("json");
    std::fs::write(d.join("cut.json"), &full[..full.len() / 2]).expect("write");
    let r = p4cost_in(&d, &["predict", "cut.json"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("cut.json:") && r.stderr.contains("JSON"),
        "{}",
        r.stderr
    );
}

#[test]
fn define_flag_reaches_the_preprocessor() {
    let src =
        "#ifndef TARGET\n#error \"define TARGET\"\n#endif\n#include <core.p4>\n#include <tna.p4>\n";
    let d = scratch("define");
    std::fs::write(d.join("main.p4"), src).expect("write");
    let r = p4cost_in(&d, &["parse", "-D", "TARGET=1", "main.p4"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let r = p4cost_in(&d, &["parse", "main.p4"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(r.stdout.contains("0 parsed, 1 failed"), "{}", r.stdout);
}

/// `--path` that selects no path says what the parser has instead: the
/// listed names it does not extract, with close ones, or the path that
/// extracts the listed headers in order with the fewest others (fabric-tna's
/// `ethernet,ipv4,udp` lacked `eth_type`; issue 24, item 10).
#[test]
fn a_path_no_path_matches_names_what_the_parser_has() {
    let tc2 = "p4-samples/tofino/tc2_datacenter.p4";
    let run = |want: &str| {
        let r = common::p4cost(&["predict", tc2, "--no-config", "--path", want]);
        assert_eq!(r.code, 2, "{}", r.stdout);
        r.stderr
    };
    let missing_udp = run("ipv4,vxlan");
    assert!(
        missing_udp.contains(
            "ipv4, vxlan are all headers the parser extracts; the path with the fewest others \
             among them: --path ethernet,ipv4,udp,vxlan,inner_ethernet\n"
        ),
        "{missing_udp}"
    );
    assert!(
        missing_udp
            .contains("every path that extracts them in this order extracts more after vxlan"),
        "{missing_udp}"
    );
    let typo = run("ipv4,udpp,vxlan");
    assert!(
        typo.contains("of these, the parser extracts ipv4, vxlan\n"),
        "{typo}"
    );
    assert!(
        typo.contains("`udpp` is no header the parser extracts (close: udp)"),
        "{typo}"
    );
    let order = run("udp,ipv4");
    assert!(
        order.contains(
            "udp, ipv4 are headers the parser extracts, but no path extracts them in this order"
        ),
        "{order}"
    );
    // The suggested path is one `--path` selects.
    let ok = common::p4cost(&[
        "predict",
        tc2,
        "--no-config",
        "--path",
        "ethernet,ipv4,udp,vxlan,inner_ethernet",
    ]);
    assert_eq!(ok.code, 0, "{}", ok.stderr);
}

/// A program p4c would reject (an action bound two ways) parses and lowers,
/// but its `main` binds no parser: the error says what `main` is and which
/// parsers there are, not only that none was found.
#[test]
fn no_ingress_parser_names_main_and_the_parsers_declared() {
    let r = predict_files(
        "no-parser-main",
        &[(
            "main.p4",
            "control c(inout bit<32> x) { apply { } }\n\
             control proto(inout bit<32> x);\npackage top(proto p);\ntop(c()) main;\n",
        )],
    );
    assert_error(
        &r,
        "main.p4: no ingress parser found",
        "(`main` is a `top`, whose arguments bind no ingress parser; the program declares no parser)",
    );
    // No `main`, and parsers none of which the fallback can take.
    let mut src =
        String::from("#include <core.p4>\nheader h_t { bit<8> a; }\nstruct H { h_t h; }\n");
    for i in 0..7 {
        src += &format!(
            "parser P{i}(packet_in p, out H h) {{ state start {{ p.extract(h.h); transition accept; }} }}\n"
        );
    }
    let r = predict_files("no-parser-no-main", &[("main.p4", &src)]);
    assert_error(
        &r,
        "main.p4: no ingress parser found",
        "(the program has no `main` package instantiation; parsers declared: P0, P1, P2, P3, P4 and 2 more)",
    );
}
