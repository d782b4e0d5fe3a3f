//! SARIF 2.1.0 output (issue 10): `check --format sarif` and `predict
//! --format sarif`, validated against the official SARIF 2.1.0 JSON Schema
//! (the copy the serde-sarif crate ships and generates its types from; it
//! is found through `cargo metadata`, not committed here).

mod common;

use std::path::PathBuf;

use serde_json::Value;

/// The SARIF schema from the serde-sarif package cargo downloaded (the
/// version Cargo.lock pins, under `$CARGO_HOME/registry/src`).
fn sarif_schema() -> Value {
    let lock = std::fs::read_to_string(common::root().join("Cargo.lock")).expect("Cargo.lock");
    let version = lock
        .split("[[package]]")
        .find(|p| p.contains("name = \"serde-sarif\""))
        .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = ")))
        .map(|v| v.trim_matches('"').to_string())
        .expect("serde-sarif is a dev-dependency");
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .expect("CARGO_HOME or HOME");
    let registries =
        std::fs::read_dir(home.join("registry/src")).expect("cargo's registry sources");
    let path = registries
        .filter_map(Result::ok)
        .map(|d| {
            d.path()
                .join(format!("serde-sarif-{version}/src/schema.json"))
        })
        .find(|p| p.is_file())
        .expect("serde-sarif's schema.json in cargo's registry sources");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let schema: Value = serde_json::from_str(&text).expect("schema JSON");
    assert_eq!(
        schema["title"],
        "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    );
    schema
}

fn sarif(args: &[&str], code: i32) -> Value {
    let r = common::p4cost(args);
    assert_eq!(r.code, code, "p4cost {args:?}: {}", r.stderr);
    let log: Value = serde_json::from_str(&r.stdout).expect("SARIF is JSON");
    common::assert_valid(&sarif_schema(), &log, &format!("p4cost {args:?}"));
    // The typed model of the format reads it too.
    let typed: Result<serde_sarif::sarif::Sarif, _> = serde_json::from_value(log.clone());
    assert!(typed.is_ok(), "{:?}", typed.err());
    log
}

#[test]
fn a_budget_violation_is_an_error_at_its_largest_term() {
    let f = "p4-samples/tofino/tc2_datacenter.p4";
    let log = sarif(
        &[
            "check",
            f,
            "--max-latency",
            "300",
            "--format",
            "sarif",
            "--no-config",
        ],
        1,
    );
    let run = &log["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "p4cost");
    let results = run["results"].as_array().expect("results");
    assert_eq!(results.len(), 1);
    let r = &results[0];
    assert_eq!(r["ruleId"], "max_latency");
    assert_eq!(r["level"], "error");
    let rule = &run["tool"]["driver"]["rules"][r["ruleIndex"].as_u64().unwrap() as usize];
    assert_eq!(rule["id"], "max_latency");
    // The same figures as the JSON report, at the same site.
    let r2 = common::p4cost(&[
        "check",
        f,
        "--max-latency",
        "300",
        "--format",
        "json",
        "--no-config",
    ]);
    let v: Value = serde_json::from_str(&r2.stdout).expect("json");
    let verdict = &v["results"][0];
    assert_eq!(r["properties"]["predicted"], verdict["predicted"]);
    let top = &verdict["contributors"][0]["span"];
    let loc = &r["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], f);
    assert_eq!(loc["region"]["startLine"], top["line"]);
    assert_eq!(loc["region"]["startColumn"], top["col"]);
    assert!(r["message"]["text"]
        .as_str()
        .unwrap()
        .contains("over the budget of 300 ns"));
}

#[test]
fn budgets_and_chains_of_a_project_validate() {
    // Every budget of the sample project holds; its chain prioritises some
    // packets (above PL, within DL): warnings at the segment's line.
    let log = sarif(
        &[
            "check",
            "--config",
            "p4-samples/project/p4cost.toml",
            "--format",
            "sarif",
        ],
        0,
    );
    let results = log["runs"][0]["results"].as_array().expect("results");
    assert!(!results.is_empty());
    for r in results {
        assert_eq!(r["ruleId"], "chain_priority_threshold", "{r}");
        assert_eq!(r["level"], "warning");
        let loc = &r["locations"][0]["physicalLocation"];
        assert_eq!(
            loc["artifactLocation"]["uri"],
            "p4-samples/project/p4cost.toml"
        );
    }
    let json = common::json(&[
        "check",
        "--config",
        "p4-samples/project/p4cost.toml",
        "--format",
        "json",
    ]);
    assert_eq!(
        Some(results.len() as u64),
        json["chains"][0]["prioritised"].as_u64()
    );
    // A budget set in a p4cost.toml points back at it.
    let d = common::scratch("sarif-config");
    std::fs::copy(
        common::root().join("p4-samples/tofino/tc2_datacenter.p4"),
        d.join("tc2.p4"),
    )
    .expect("copy");
    std::fs::write(
        d.join("p4cost.toml"),
        "[[program]]\npath = \"tc2.p4\"\n[program.budget]\nmax-latency = 290\ningress-cycles = 10\n",
    )
    .expect("toml");
    let r = common::p4cost_in(&d, &["check", "--format", "sarif"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let log: Value = serde_json::from_str(&r.stdout).expect("json");
    let results = log["runs"][0]["results"]
        .as_array()
        .expect("results")
        .clone();
    let ids: Vec<&str> = results
        .iter()
        .filter_map(|r| r["ruleId"].as_str())
        .collect();
    assert_eq!(ids, ["max_latency", "ingress_cycles"]);
    let budget_site = results[0]["relatedLocations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["message"]["text"] == "the budget")
        .expect("the budget's site");
    assert_eq!(
        budget_site["physicalLocation"]["artifactLocation"]["uri"],
        "p4cost.toml"
    );
    assert_eq!(budget_site["physicalLocation"]["region"]["startLine"], 4);
}

#[test]
fn predict_warnings_validate_with_levels() {
    // tc5 at 1500 B is outside the training range: a warning.
    let log = sarif(
        &[
            "predict",
            "p4-samples/tofino/tc5_int_md.p4",
            "--packet-size",
            "1500",
            "--format",
            "sarif",
            "--no-config",
        ],
        0,
    );
    let results = log["runs"][0]["results"].as_array().expect("results");
    assert!(
        results
            .iter()
            .any(|r| r["ruleId"] == "packet_size_out_of_range" && r["level"] == "warning"),
        "{results:#?}"
    );
    // A v1model program under a Tofino model: target_mismatch.
    sarif(
        &[
            "predict",
            "tests/fixtures/bmv2/onos__fabric.json",
            "--format",
            "sarif",
        ],
        0,
    );
}

/// The README's CI step, verbatim, in a copy of the sample project: it
/// writes a valid SARIF file and passes (the budgets hold).
#[test]
fn the_readme_ci_step_writes_a_valid_log() {
    let readme = std::fs::read_to_string(common::root().join("README.md")).expect("README");
    let step = readme
        .lines()
        .find_map(|l| l.trim().strip_prefix("run: p4cost check --format sarif"))
        .map(|rest| format!("p4cost check --format sarif{rest}"))
        .expect("the README shows the CI step");
    let d = common::scratch("sarif-ci");
    for sub in ["project", "tofino"] {
        let to = d.join("p4-samples").join(sub);
        std::fs::create_dir_all(&to).expect("mkdir");
        for e in std::fs::read_dir(common::root().join("p4-samples").join(sub)).expect("dir") {
            let e = e.expect("entry");
            if e.path().is_file() {
                std::fs::copy(e.path(), to.join(e.file_name())).expect("copy");
            }
        }
    }
    let project = d.join("p4-samples/project");
    let out = std::process::Command::new("sh")
        .args(["-c", &step])
        .current_dir(&project)
        .env("PATH", common::path_with_p4cost())
        .output()
        .expect("sh runs");
    assert!(
        out.status.success(),
        "{step}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log: Value = serde_json::from_str(
        &std::fs::read_to_string(project.join("p4cost.sarif")).expect("p4cost.sarif"),
    )
    .expect("JSON");
    common::assert_valid(&sarif_schema(), &log, &step);
}
