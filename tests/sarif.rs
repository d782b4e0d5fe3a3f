//! SARIF 2.1.0 output (issue 10): `check --format sarif` and `predict
//! --format sarif`, validated against the official SARIF 2.1.0 JSON Schema
//! (the copy the serde-sarif crate ships and generates its types from; it
//! is found through `cargo metadata`, not committed here).

mod common;

use std::path::{Path, PathBuf};

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
    sarif_in(&common::root(), args, code)
}

/// `p4cost args` run in `dir`: a log valid under the schema, the typed
/// model and GitHub's rules.
fn sarif_in(dir: &Path, args: &[&str], code: i32) -> Value {
    let r = common::p4cost_in(dir, args);
    assert_eq!(r.code, code, "p4cost {args:?}: {}", r.stderr);
    let log: Value = serde_json::from_str(&r.stdout).expect("SARIF is JSON");
    common::assert_valid(&sarif_schema(), &log, &format!("p4cost {args:?}"));
    // The typed model of the format reads it too.
    let typed: Result<serde_sarif::sarif::Sarif, _> = serde_json::from_value(log.clone());
    assert!(typed.is_ok(), "{:?}", typed.err());
    github_rules(&log);
    log
}

/// The rules of Microsoft's SARIF validator (`Sarif.Multitool validate
/// --rule-kind "Gh;Sarif"`) at level error and warning that a log of ours
/// can break: GH2012 (`fullDescription` and `help` on every rule),
/// SARIF1001 (`name` distinct from `id`; SARIF2012 asks PascalCase),
/// SARIF1004 (a relative URI has a `uriBaseId`, begins with no `/`; the
/// base is an absolute URI ending in `/`), and GitHub's one location per
/// result.
fn github_rules(log: &Value) {
    let run = &log["runs"][0];
    for rule in run["tool"]["driver"]["rules"].as_array().expect("rules") {
        let id = rule["id"].as_str().expect("id");
        for key in ["shortDescription", "fullDescription"] {
            assert!(
                !rule[key]["text"].as_str().unwrap_or("").is_empty(),
                "{id}: {key}"
            );
        }
        for key in ["text", "markdown"] {
            assert!(
                !rule["help"][key].as_str().unwrap_or("").is_empty(),
                "{id}: help.{key}"
            );
        }
        let name = rule["name"].as_str().expect("name");
        assert_ne!(name, id);
        assert!(
            name.starts_with(|c: char| c.is_ascii_uppercase())
                && name.chars().all(|c| c.is_ascii_alphanumeric()),
            "{id}: name {name} is not PascalCase"
        );
    }
    let base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        .as_str()
        .expect("%SRCROOT% is given");
    assert!(
        base.starts_with("file:///") && base.ends_with('/'),
        "{base}"
    );
    let results = run["results"].as_array().expect("results");
    for r in results {
        assert_eq!(r["locations"].as_array().map(Vec::len), Some(1), "{r}");
        let locations = r["locations"].as_array().into_iter().flatten();
        let related = r["relatedLocations"].as_array().into_iter().flatten();
        for l in locations.chain(related) {
            let a = &l["physicalLocation"]["artifactLocation"];
            let uri = a["uri"].as_str().expect("uri");
            assert!(!uri.contains(['\\', ' ']), "{uri}");
            if uri.starts_with("file:///") {
                assert!(a.get("uriBaseId").is_none(), "{a}");
            } else {
                assert!(!uri.starts_with('/') && !uri.contains(':'), "{uri}");
                assert!(!uri.split('/').any(|s| s == ".." || s == "."), "{uri}");
                assert_eq!(a["uriBaseId"], "%SRCROOT%", "{a}");
            }
        }
    }
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
    github_rules(&log);
}

/// Run from a subdirectory of a git work tree, a log names the files from
/// the work tree's root, as GitHub reads them (issue 24: not
/// `../p4src/main.p4`); a file outside it is an absolute `file:` URI.
#[test]
fn uris_are_relative_to_the_work_tree_root_from_a_subdirectory() {
    let d = common::scratch("sarif-srcroot");
    // What makes a work tree's root for p4cost: its `.git`.
    std::fs::create_dir_all(d.join(".git")).expect(".git");
    std::fs::create_dir_all(d.join("p4src")).expect("p4src");
    std::fs::create_dir_all(d.join("ci/run")).expect("ci/run");
    let tc2 = common::root().join("p4-samples/tofino/tc2_datacenter.p4");
    std::fs::copy(&tc2, d.join("p4src/main prog.p4")).expect("copy");
    let args = [
        "check",
        "../../p4src/main prog.p4",
        "--max-latency",
        "300",
        "--format",
        "sarif",
        "--no-config",
    ];
    let log = sarif_in(&d.join("ci/run"), &args, 1);
    let run = &log["runs"][0];
    let a = &run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(a["uri"], "p4src/main%20prog.p4");
    assert_eq!(a["uriBaseId"], "%SRCROOT%");
    let root = d.canonicalize().expect("canonical");
    let base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        .as_str()
        .unwrap();
    assert!(
        base.ends_with(&format!("{}/", root.file_name().unwrap().to_string_lossy())),
        "{base} is not {}",
        root.display()
    );
    // The same program outside the work tree, by its absolute path.
    let outside = common::scratch("sarif-outside");
    let abs = outside.join("tc2.p4");
    std::fs::copy(&tc2, &abs).expect("copy");
    let abs = abs.canonicalize().expect("canonical");
    let args = [
        "check",
        abs.to_str().expect("utf-8 path"),
        "--max-latency",
        "300",
        "--format",
        "sarif",
        "--no-config",
    ];
    let log = sarif_in(&d.join("ci/run"), &args, 1);
    let a = &log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(a["uri"], format!("file://{}", abs.display()));
    assert!(a.get("uriBaseId").is_none(), "{a}");
}

/// An end-to-end budget over in a chain: the result stands at the
/// budget's line (GitHub takes no result without a location).
#[test]
fn a_chain_over_its_end_to_end_budget_points_at_the_budget() {
    let d = common::scratch("sarif-chain");
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
    let toml = d.join("p4-samples/project/p4cost.toml");
    let text = std::fs::read_to_string(&toml).expect("toml");
    let line = text
        .lines()
        .position(|l| l.starts_with("max-latency = 2000"))
        .expect("the chain's end-to-end budget")
        + 1;
    std::fs::write(
        &toml,
        text.replace("max-latency = 2000", "max-latency = 500"),
    )
    .expect("write");
    let log = sarif_in(
        &d.join("p4-samples/project"),
        &["check", "--format", "sarif"],
        1,
    );
    let over: Vec<&Value> = log["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|r| r["ruleId"] == "chain_latency")
        .collect();
    assert!(!over.is_empty());
    for r in over {
        let p = &r["locations"][0]["physicalLocation"];
        assert_eq!(p["artifactLocation"]["uri"], "p4cost.toml");
        assert_eq!(p["region"]["startLine"], line);
    }
}

/// A program over its chip's stages under the placement estimate is a
/// `chip_stages` error result (issue 24) naming the chain.
#[test]
fn a_program_that_does_not_fit_is_a_result() {
    let log = sarif(
        &[
            "check",
            "p4-samples/tofino/deps/chain_13.p4",
            "--model",
            "tofino1-mau-estimate",
            "--max-latency",
            "1000",
            "--format",
            "sarif",
            "--no-config",
        ],
        1,
    );
    let run = &log["runs"][0];
    let r = &run["results"][0];
    assert_eq!(
        (r["ruleId"].as_str(), r["level"].as_str()),
        (Some("chip_stages"), Some("error"))
    );
    let text = r["message"]["text"].as_str().expect("message");
    assert!(text.contains("does not fit: needs 13 stages"), "{text}");
    assert!(text.contains("Ig.t0 -> Ig.t1 -> Ig.t2"), "{text}");
    assert_eq!(
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "p4-samples/tofino/deps/chain_13.p4"
    );
    assert_eq!(run["tool"]["driver"]["rules"][0]["name"], "ChipStages");
}

/// The resource findings of `check` (issue 28): `chip_memory` for a
/// program whose memory exceeds its pipe's and `max_sram_percent` for the
/// budget, both valid SARIF results at the budget's line or the program.
/// The program's two gresses each fit 7 stages (262 SRAM blocks a table,
/// 2 tables a gress: tests/resources.rs `overflow_human` works them out),
/// their 4 x 262 = 1,048 blocks not the pipe's 12 x 80 = 960: ingress and
/// egress share the stages, so the placement runs to 14 stages
/// (tests/resources.rs `pipe_overflow_names_both_gresses`) and `check`'s
/// one result is `chip_stages`, naming the tables of both gresses; the
/// budgets need a placement and are not checked.
#[test]
fn check_resource_findings_are_sarif_results() {
    let d = common::scratch("sarif-resources");
    std::fs::copy(
        common::root().join("p4-samples/tofino/resources/pipe_sram_two_gresses.p4"),
        d.join("prog.p4"),
    )
    .expect("copy");
    std::fs::write(
        d.join("p4cost.toml"),
        "[[program]]\npath = \"prog.p4\"\n[program.budget]\nmax-sram-percent = 50\nmax-stages = 2\n",
    )
    .expect("toml");
    let log = sarif_in(&d, &["check", "--format", "sarif"], 1);
    let results = log["runs"][0]["results"].as_array().expect("results");
    let ids: Vec<&str> = results
        .iter()
        .filter_map(|r| r["ruleId"].as_str())
        .collect();
    assert_eq!(ids, ["chip_stages"]);
    let text = results[0]["message"]["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("needs 14 stages, the chip has 12: SRAM blocks fill stages 0-11"),
        "{text}"
    );
    for t in ["Eg.by_id", "Eg.by_mac", "Ig.by_dst", "Ig.by_src"] {
        assert!(text.contains(t), "{t}: {text}");
    }
    let rules: Vec<&str> = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert!(rules.contains(&"chip_stages"), "{rules:?}");
}
