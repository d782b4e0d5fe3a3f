//! `p4cost parse`: files and directories, exit codes, --summary.

mod common;
use common::{p4cost, p4cost_in, scratch};

#[test]
fn every_bundled_sample_parses() {
    let r = p4cost(&["parse", "p4-samples"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let last = r.stdout.lines().last().unwrap_or("");
    let n: usize = last
        .split(' ')
        .next()
        .and_then(|x| x.parse().ok())
        .unwrap_or(0);
    assert!(n >= 17, "{last}");
    assert!(last.ends_with("parsed, 0 failed"), "{last}");
}

#[test]
fn summary_lists_failures_with_location_and_counts() {
    let d = scratch("parse-summary");
    std::fs::create_dir_all(d.join("sub")).expect("dir");
    std::fs::write(
        d.join("good.p4"),
        "#include <core.p4>\nheader h_t { bit<8> a; }\n",
    )
    .expect("write");
    std::fs::write(
        d.join("sub/bad.p4"),
        "#include <core.p4>\nheader h_t { bit<8> a }\n",
    )
    .expect("write");
    std::fs::write(d.join("notes.txt"), "not P4").expect("write");
    let r = p4cost_in(&d, &["parse", "--summary", "."]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", r.stdout);
    // good.p4 parsed: the first line says what "parsed" did not check.
    assert_eq!(
        lines[0],
        "P4 sources parsed and lowered, not type-checked (p4cost has no type checker: p4c reports type errors)"
    );
    assert!(
        lines[1].starts_with("./sub/bad.p4:2:23: expected `;` or `[`, found `}`"),
        "{}",
        lines[1]
    );
    assert_eq!(lines[2], "1 parsed, 1 failed");
    let r = p4cost_in(&d, &["parse", "good.p4"]);
    assert_eq!(r.code, 0);
    let r = p4cost_in(&d, &["parse"]);
    assert_eq!(r.code, 2, "no path is a usage error");
    let r = p4cost_in(&d, &["parse", "missing-dir"]);
    assert_eq!(r.code, 2);
}
