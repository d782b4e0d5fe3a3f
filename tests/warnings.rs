//! Warning levels and grouping (issue 24 item 9): `--allow`, `--deny`,
//! p4cost.toml's `[warnings]`, `-q` / `-v`, on the real binary.

mod common;

use common::{json, p4cost, p4cost_in, root, scratch};

/// A program with 2 or more warnings of several codes (more than 3 of
/// some): the BMv2 JSON of p4c's switch_p4_16 sample.
const SWITCH: &str = "tests/fixtures/bmv2/switch_p4_16.json";
const UNION: &str = "p4-samples/tofino/tc6_big_union.p4";

/// How many warnings of `code` the JSON report has.
fn count(v: &serde_json::Value, code: &str) -> usize {
    v["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .filter(|w| w["code"] == code)
        .count()
}

/// The `warnings` section of a table (up to the next blank line).
fn section(stdout: &str) -> String {
    let start = stdout.find("\nwarnings\n").expect("a warnings section");
    let rest = &stdout[start + 1..];
    rest.split("\n\n").next().unwrap_or(rest).to_string()
}

#[test]
fn a_code_with_many_sites_is_one_heading_three_sites_and_a_count() {
    let v = json(&["predict", SWITCH, "--format", "json"]);
    let n = count(&v, "actions_outside_training");
    assert!(n > 3, "the fixture has {n} such warnings");
    let r = p4cost(&["predict", SWITCH, "--color", "never"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let w = section(&r.stdout);
    let heading = format!("  actions_outside_training: {n} warnings: ");
    assert_eq!(w.matches(&heading).count(), 1, "{w}");
    let sites = w
        .lines()
        .filter(|l| l.starts_with("    table `") && l.contains("do more than set the egress port"))
        .count();
    assert_eq!(sites, 3, "{w}");
    assert!(
        w.contains(&format!("    ... and {} more (-v to list all)", n - 3)),
        "{w}"
    );
    // `-v`: every site, no "more" line.
    let r = p4cost(&["predict", SWITCH, "-v", "--color", "never"]);
    let w = section(&r.stdout);
    let sites = w
        .lines()
        .filter(|l| l.starts_with("    table `") && l.contains("do more than set the egress port"))
        .count();
    assert_eq!(sites, n, "{w}");
    assert!(!w.contains("-v to list all"), "{w}");
}

#[test]
fn quiet_prints_one_count_line_and_no_warning() {
    let v = json(&["predict", SWITCH, "--format", "json"]);
    let n = v["warnings"].as_array().unwrap().len() + v["path_warnings"].as_array().unwrap().len();
    let r = p4cost(&["predict", SWITCH, "-q"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stdout.contains("\nwarnings"), "{}", r.stdout);
    assert!(
        !r.stdout.contains("actions_outside_training"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains(&format!("\n{n} warnings of ")),
        "{}",
        r.stdout
    );
    let r = p4cost(&["predict", SWITCH, "-q", "-v"]);
    assert_eq!(r.code, 2, "-q and -v together: {}", r.stderr);
}

#[test]
fn allowed_codes_leave_every_output() {
    let args = ["predict", UNION, "--allow", "actions_outside_training"];
    let r = p4cost(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        !r.stdout.contains("actions_outside_training"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("key_width_out_of_range"), "{}", r.stdout);
    let v = json(&[&args[..], &["--format", "json"]].concat());
    assert_eq!(count(&v, "actions_outside_training"), 0);
    assert!(count(&v, "key_width_out_of_range") > 0);
    assert_eq!(
        v["allowed"],
        serde_json::json!(["actions_outside_training"])
    );
    assert!(v.get("denied").is_none());
    let sarif = p4cost(&[&args[..], &["--format", "sarif"]].concat());
    assert!(!sarif.stdout.contains("actions_outside_training"));
    assert!(sarif.stdout.contains("key_width_out_of_range"));
    // Several codes in one flag, `all` for every code.
    let v = json(&["predict", UNION, "--allow", "all", "--format", "json"]);
    assert_eq!(v["warnings"].as_array().unwrap().len(), 0);
    assert_eq!(v["path_warnings"].as_array().unwrap().len(), 0);
    let v = json(&[
        "predict",
        UNION,
        "--allow",
        "actions_outside_training,key_width_out_of_range",
        "--format",
        "json",
    ]);
    assert_eq!(count(&v, "key_width_out_of_range"), 0);
}

#[test]
fn a_denied_code_fails_predict_and_check_and_a_named_code_beats_all() {
    let r = p4cost(&["predict", UNION, "--deny", "actions_outside_training"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("actions_outside_training: 3 warnings (denied)"),
        "{}",
        r.stdout
    );
    assert!(r
        .stdout
        .contains("error: denied warning code occurred: actions_outside_training"));
    let j = p4cost(&[
        "predict",
        UNION,
        "--deny",
        "actions_outside_training",
        "--format",
        "json",
    ]);
    assert_eq!(j.code, 1);
    let v: serde_json::Value = serde_json::from_str(&j.stdout).unwrap();
    assert_eq!(v["denied"], serde_json::json!(["actions_outside_training"]));
    let s = p4cost(&[
        "predict",
        UNION,
        "--deny",
        "actions_outside_training",
        "--format",
        "sarif",
    ]);
    assert_eq!(s.code, 1);
    assert!(s.stdout.contains("\"level\": \"error\""), "{}", s.stdout);
    // Several programs: exit 1 when one of them has a denied code.
    let two = [UNION, "p4-samples/tofino/tc2_datacenter.p4", "-j", "1"];
    let r = p4cost(
        &[
            &["predict"][..],
            &two,
            &["--deny", "actions_outside_training"],
        ]
        .concat(),
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let r = p4cost(&[&["predict"][..], &two, &["--deny", "keyless_table"]].concat());
    assert_eq!(r.code, 0, "{}", r.stderr);
    // A code that does not occur fails nothing.
    assert_eq!(
        p4cost(&["predict", UNION, "--deny", "keyless_table"]).code,
        0
    );
    // `--deny all --allow X`: every code but X fails; with all allowed but
    // those denied, nothing occurs, nothing fails.
    let r = p4cost(&[
        "predict",
        UNION,
        "--deny",
        "all",
        "--allow",
        "actions_outside_training,key_width_out_of_range,header_size_out_of_range",
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let c = p4cost(&["check", UNION, "--deny", "actions_outside_training"]);
    assert_eq!(c.code, 1, "{}{}", c.stdout, c.stderr);
    assert!(
        c.stdout
            .contains("FAIL p4-samples/tofino/tc6_big_union.p4: 3 warning(s) of denied code actions_outside_training"),
        "{}",
        c.stdout
    );
    let c = p4cost(&[
        "check",
        UNION,
        "--deny",
        "actions_outside_training",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&c.stdout).unwrap();
    assert_eq!(v["denied"].as_array().map(Vec::len), Some(3));
    // A budget that holds and no denied code: exit 0.
    let c = p4cost(&["check", UNION, "--max-latency", "100000"]);
    assert_eq!(c.code, 0, "{}", c.stdout);
}

#[test]
fn unknown_or_contradictory_codes_are_usage_errors() {
    let r = p4cost(&["predict", UNION, "--allow", "keyless"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("unknown warning code `keyless`"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("keyless_table"), "{}", r.stderr);
    let r = p4cost(&["check", UNION, "--deny", "nope"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let r = p4cost(&[
        "predict",
        UNION,
        "--allow",
        "too_many_keys",
        "--deny",
        "too_many_keys",
    ]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("both allowed and denied"), "{}", r.stderr);
}

#[test]
fn p4cost_toml_warnings_table_under_the_flags() {
    let d = scratch("warnings-toml");
    std::fs::copy(root().join(UNION), d.join("u.p4")).unwrap();
    std::fs::write(
        d.join("p4cost.toml"),
        "[warnings]\nallow = [\"key_width_out_of_range\"]\ndeny = [\"actions_outside_training\"]\n",
    )
    .unwrap();
    let r = p4cost_in(&d, &["predict", "u.p4", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(count(&v, "key_width_out_of_range"), 0);
    assert_eq!(v["denied"], serde_json::json!(["actions_outside_training"]));
    // A flag wins over the file.
    let r = p4cost_in(
        &d,
        &["predict", "u.p4", "--allow", "actions_outside_training"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = p4cost_in(
        &d,
        &[
            "predict",
            "u.p4",
            "--deny",
            "key_width_out_of_range",
            "--format",
            "json",
        ],
    );
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(count(&v, "key_width_out_of_range") > 0);
    // `check` reads it too, with no budget needed.
    let r = p4cost_in(&d, &["check", "u.p4"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    // An unknown code is an error at its line:col.
    std::fs::write(
        d.join("p4cost.toml"),
        "[warnings]\nallow = [\"keyless_table\",\n  \"actions_outside_trainin\"]\n",
    )
    .unwrap();
    let r = p4cost_in(&d, &["predict", "u.p4"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("p4cost.toml:3:3: warnings: unknown warning code `actions_outside_trainin`"),
        "{}",
        r.stderr
    );
    std::fs::write(
        d.join("p4cost.toml"),
        "[warnings]\nallow = [\"all\"]\ndeny = [\"keyless_table\", \"all\"]\n",
    )
    .unwrap();
    let r = p4cost_in(&d, &["predict", "u.p4"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("p4cost.toml:3:26: warnings: warning code `all` is both allowed and denied"),
        "{}",
        r.stderr
    );
    std::fs::write(d.join("p4cost.toml"), "[warnings]\nignore = []\n").unwrap();
    let r = p4cost_in(&d, &["predict", "u.p4"]);
    assert_eq!(r.code, 2, "unknown key: {}", r.stderr);
}

#[test]
fn every_code_a_report_carries_is_known() {
    let known = p4cost_engine::warnings::KNOWN_CODES;
    for f in [
        SWITCH,
        UNION,
        "tests/fixtures/bmv2/behavioral-model__simple_router.json",
        "p4-samples/v1model/basic_router.p4",
        "p4-samples/tofino/tc5_int_md.p4",
    ] {
        let v = json(&["predict", f, "--format", "json"]);
        for w in v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .chain(v["path_warnings"].as_array().unwrap())
        {
            let c = w["code"].as_str().unwrap();
            assert!(known.contains(&c), "{f}: {c} is not in KNOWN_CODES");
        }
    }
}
