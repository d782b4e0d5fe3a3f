//! Diagnostics with source snippets and carets: syntax and JSON errors on
//! stderr, exceeded budgets in `check`, extrapolation warnings in
//! `predict`; colour only on a terminal, `--color` and `NO_COLOR` obeyed.

mod common;

use std::process::Command;

use common::{p4cost, p4cost_in, p4cost_stdin, root, scratch};

const ESC: char = '\u{1b}';

#[test]
fn a_syntax_error_shows_its_line_with_a_caret() {
    let dir = scratch("diag-syntax");
    std::fs::write(
        dir.join("bad.p4"),
        "#include <core.p4>\nheader h_t {\n    bit<8> f\n}\n",
    )
    .expect("write");
    let r = p4cost_in(&dir, &["predict", "bad.p4"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    // The first line stays `file:line:col: message` (for editors and
    // grep); the source line and a caret follow.
    assert!(
        r.stderr
            .starts_with("error: bad.p4:4:1: expected `;` or `[`, found `}`\n"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("┌─ bad.p4:4:1"), "{}", r.stderr);
    assert!(r.stderr.contains("4 │ }\n"), "{}", r.stderr);
    assert!(r.stderr.contains("│ ^ expected"), "{}", r.stderr);
    assert!(!r.stderr.contains(ESC), "no colour into a pipe");
}

#[test]
fn an_error_in_an_include_shows_the_include() {
    let dir = scratch("diag-include");
    std::fs::write(dir.join("inc.p4"), "const bit<8> X = ;\n").expect("write");
    std::fs::write(dir.join("main.p4"), "#include \"inc.p4\"\n").expect("write");
    let r = p4cost_in(&dir, &["parse", "main.p4"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("FAILED main.p4\n"), "{}", r.stdout);
    assert!(r.stdout.contains("1 │ const bit<8> X = ;"), "{}", r.stdout);
}

#[test]
fn invalid_json_shows_its_line_read_from_stdin_too() {
    let r = p4cost_stdin(&["predict", "-"], b"{\n  \"header_types\": [1,,]\n}\n");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("<stdin>:2:22: invalid JSON"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("2 │   \"header_types\": [1,,]"),
        "{}",
        r.stderr
    );
}

#[test]
fn colour_is_asked_for_or_refused_by_flag() {
    let dir = scratch("diag-color");
    std::fs::write(dir.join("bad.p4"), "header h_t {\n    bit<8> f\n}\n").expect("write");
    let r = p4cost_in(&dir, &["predict", "bad.p4", "--color", "always"]);
    assert!(r.stderr.contains(ESC), "{}", r.stderr);
    let r = p4cost_in(&dir, &["--color", "never", "predict", "bad.p4"]);
    assert!(!r.stderr.contains(ESC), "{}", r.stderr);
    let r = p4cost_in(&dir, &["predict", "bad.p4", "--color", "sometimes"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("possible values: auto, always, never"),
        "{}",
        r.stderr
    );
}

/// Runs p4cost on a pseudo-terminal (util-linux `script`), so that
/// `--color auto` sees a terminal; `None` where `script` is missing.
fn on_a_terminal(dir: &std::path::Path, args: &str, no_color: Option<&str>) -> Option<String> {
    let cmd = format!("{} {args}", env!("CARGO_BIN_EXE_p4cost"));
    let mut c = Command::new("script");
    c.args(["-qefc", &cmd, "/dev/null"])
        .current_dir(dir)
        .env("TERM", "xterm")
        .env_remove("NO_COLOR");
    if let Some(v) = no_color {
        c.env("NO_COLOR", v);
    }
    let out = c.output().ok()?;
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn auto_colours_a_terminal_unless_no_color_is_set() {
    let dir = scratch("diag-tty");
    std::fs::write(dir.join("bad.p4"), "header h_t {\n    bit<8> f\n}\n").expect("write");
    let Some(plain_tty) = on_a_terminal(&dir, "predict bad.p4", None) else {
        eprintln!("util-linux `script` is not installed: the terminal case is not run");
        return;
    };
    assert!(plain_tty.contains("bad.p4:3:1"), "{plain_tty}");
    assert!(
        plain_tty.contains(ESC),
        "a terminal gets colour: {plain_tty}"
    );
    let no_color = on_a_terminal(&dir, "predict bad.p4", Some("1")).expect("script ran");
    assert!(no_color.contains("bad.p4:3:1"), "{no_color}");
    assert!(!no_color.contains(ESC), "NO_COLOR=1: {no_color}");
    // An empty NO_COLOR does not count (no-color.org), and --color always
    // wins over NO_COLOR.
    let empty = on_a_terminal(&dir, "predict bad.p4", Some("")).expect("script ran");
    assert!(empty.contains(ESC), "{empty}");
    let forced =
        on_a_terminal(&dir, "predict bad.p4 --color always", Some("1")).expect("script ran");
    assert!(forced.contains(ESC), "{forced}");
}

#[test]
fn a_budget_from_the_config_points_at_its_line() {
    let dir = scratch("diag-budget");
    let prog = root().join("p4-samples/tofino/tc2_datacenter.p4");
    std::fs::copy(&prog, dir.join("dc.p4")).expect("copy");
    std::fs::write(
        dir.join("p4cost.toml"),
        "[[program]]\npath = \"dc.p4\"\n\n[program.budget]\nmax-latency = 280\n",
    )
    .expect("write");
    let r = p4cost_in(&dir, &["check"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("FAIL dc.p4:"), "{}", r.stdout);
    // The largest term is the primary label; the budget's line in
    // p4cost.toml is shown too.
    assert!(
        r.stdout.contains("^ +11.726 ns  parse state parse_ipv6"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("┌─ p4cost.toml:5:"), "{}", r.stdout);
    assert!(r.stdout.contains("5 │ max-latency = 280"), "{}", r.stdout);
    assert!(r.stdout.contains("budget 280.000 ns"), "{}", r.stdout);
}

#[test]
fn terms_read_from_stdin_are_listed_plainly() {
    // stdin cannot be read again: the terms are listed with their sites.
    let prog = std::fs::read(root().join("p4-samples/tofino/tc2_datacenter.p4")).expect("read");
    let r = p4cost_stdin(
        &["check", "-", "--max-latency", "280", "--no-config"],
        &prog,
    );
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stdout
            .contains("+11.726 ns  parse state parse_ipv6  (<stdin>:168:5)"),
        "{}",
        r.stdout
    );
}

#[test]
fn extrapolation_warnings_show_the_table_or_state() {
    let r = p4cost(&[
        "predict",
        "p4-samples/tofino/tc1_enterprise.p4",
        "--no-config",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // Three tables share the code: one heading, each table under it.
    let after = r
        .stdout
        .split("key_width_out_of_range: 3 warnings: ")
        .nth(1)
        .and_then(|s| {
            s.split("\n    table `EnterpriseIngress.station_check`: key widths")
                .nth(1)
        })
        .expect("the warning");
    assert!(
        after.contains("┌─ p4-samples/tofino/tc1_enterprise.p4:234:5"),
        "{after}"
    );
    assert!(after.contains("234 │     table station_check {"), "{after}");
    assert!(after.contains("^^^ key width out of range"), "{after}");
    // And the JSON report carries the span.
    let v = common::json(&[
        "predict",
        "p4-samples/tofino/tc1_enterprise.p4",
        "--format",
        "json",
        "--no-config",
    ]);
    let w = v["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .find(|w| w["code"] == "key_width_out_of_range")
        .expect("key width warning");
    assert_eq!(w["span"]["line"], 234);
}

/// A diagnostic on a very long line shows a window of it around the
/// column, cut with `...`, and keeps the file's line and column: a
/// 50,000-character P4 line, minified JSON, and a warning about a table
/// declared on a one-line program (issue 24, item 10).
#[test]
fn a_long_line_is_shown_as_a_window_around_the_column() {
    let dir = scratch("diag-long-line");
    let mut p4 = "#include <core.p4>\n#include <tna.p4>\n".to_string();
    p4.push_str(&"const bit<8> A = 1; ".repeat(2500));
    p4.push_str(" @@@ ");
    p4.push_str(&"const bit<8> B = 2; ".repeat(10));
    p4.push('\n');
    std::fs::write(dir.join("long.p4"), &p4).expect("write");
    let r = p4cost_in(&dir, &["predict", "long.p4", "--no-config"]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert!(
        lines.iter().all(|l| l.chars().count() < 200),
        "{}",
        r.stderr
    );
    assert!(lines[1].ends_with("long.p4:3:50003"), "{}", r.stderr);
    let (source, carets) = (lines[3], lines[4]);
    assert!(source.contains("│ ...nst bit<8> A = 1;"), "{source}");
    assert!(source.ends_with(" ..."), "{source}");
    let col = |s: &str, c: char| s.chars().position(|x| x == c);
    // Column 50003 is the second `@` of ` @@@` (the first starts an
    // annotation, whose name is missing).
    assert_eq!(
        col(carets, '^'),
        col(source, '@').map(|c| c + 1),
        "the caret is under the second `@`"
    );

    let json = format!("{{\"a\": [{}?]}}", "1, ".repeat(20_000));
    std::fs::write(dir.join("min.json"), &json).expect("write");
    let r = p4cost_in(&dir, &["predict", "min.json", "--no-config"]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(
        r.stderr.lines().all(|l| l.chars().count() < 200),
        "{}",
        r.stderr
    );
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert!(lines[1].ends_with("min.json:1:60008"), "{}", r.stderr);
    assert_eq!(col(lines[4], '^'), col(lines[3], '?'), "{}", r.stderr);

    // A warning's snippet: the table declared on the one long line.
    let mut src = std::fs::read_to_string(root().join("p4-samples/tofino/tc2_datacenter.p4"))
        .expect("sample");
    while let Some(open) = src.find("/*") {
        let close = src[open..].find("*/").expect("closed comment") + open;
        src.replace_range(open..close + 2, "");
    }
    let mut pre = String::new();
    let mut body = String::new();
    for line in src.lines() {
        let code = line.split("//").next().unwrap_or("").trim();
        if code.starts_with('#') {
            pre.push_str(code);
            pre.push('\n');
        } else {
            body.push_str(code);
            body.push(' ');
        }
    }
    std::fs::write(dir.join("one.p4"), format!("{pre}{body}\n")).expect("write");
    let r = p4cost_in(&dir, &["predict", "one.p4", "--no-config"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.lines().all(|l| l.chars().count() < 300),
        "{}",
        r.stdout
    );
    let at = r
        .stdout
        .find("too_many_keys")
        .expect("the too_many_keys warning");
    let snippet: Vec<&str> = r.stdout[at..].lines().take(5).collect();
    assert!(
        snippet[3].contains("...") && snippet[3].contains("table vxlan_tunnel_steer {"),
        "{snippet:?}"
    );
    assert_eq!(
        col(snippet[4], '^'),
        snippet[3]
            .find("table vxlan")
            .map(|b| snippet[3][..b].chars().count())
    );
}

/// A declaration's place is its keyword, not its annotations: a warning
/// about a `@hidden` table underlines `table ...`, and the listing names
/// that line (fabric-tna's hidden tables showed `@hidden`; issue 24,
/// item 10).
#[test]
fn an_annotated_table_is_shown_at_its_declaration_not_its_annotations() {
    let dir = scratch("diag-annotated");
    let src = std::fs::read_to_string(root().join("p4-samples/tofino/tc2_datacenter.p4"))
        .expect("sample");
    let decl = "    table vxlan_tunnel_steer {";
    assert!(src.contains(decl));
    let annotated = src.replacen(
        decl,
        &format!("    @hidden\n    @name(\"vxlan_tunnel_steer\")\n{decl}"),
        1,
    );
    let line = annotated
        .lines()
        .position(|l| l == decl)
        .expect("the declaration")
        + 1;
    std::fs::write(dir.join("dc.p4"), &annotated).expect("write");
    let r = p4cost_in(&dir, &["predict", "dc.p4", "--no-config"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stdout.contains("@hidden"), "{}", r.stdout);
    assert!(
        r.stdout.contains(&format!("┌─ dc.p4:{line}:5\n")),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains(&format!("{line} │ {decl}\n")),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains(&format!("(dc.p4:{line})")),
        "{}",
        r.stdout
    );
}
