//! `predict` and `check` over many programs: each as alone, in the order
//! given whatever `--jobs`, a summary, a progress bar only on a terminal
//! and never beside JSON.

mod common;

use std::process::Command;

use common::{json, p4cost, p4cost_in, root, scratch};

const DIR: &str = "p4-samples/tofino/classes";

/// The `*.p4` files of DIR, sorted (as a directory walk lists them).
fn programs() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(root().join(DIR))
        .expect("dir")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "p4"))
        .map(|p| format!("{DIR}/{}", p.file_name().expect("name").to_string_lossy()))
        .collect();
    v.sort();
    v
}

#[test]
fn a_directory_is_each_program_as_alone_with_a_summary() {
    let v = json(&[
        "predict",
        DIR,
        "--format",
        "json",
        "--no-config",
        "--max-paths",
        "2",
    ]);
    let files = programs();
    let listed: Vec<&str> = v["programs"]
        .as_array()
        .expect("programs")
        .iter()
        .map(|p| p["program"].as_str().expect("name"))
        .collect();
    assert_eq!(listed, files);
    let mut slowest = (0.0f64, String::new());
    for (entry, f) in v["programs"]
        .as_array()
        .expect("programs")
        .iter()
        .zip(&files)
    {
        let alone = json(&[
            "predict",
            f,
            "--format",
            "json",
            "--no-config",
            "--max-paths",
            "2",
        ]);
        assert!(entry["error"].is_null());
        assert_eq!(entry["pipelines"][0]["summary"], alone["summary"], "{f}");
        let max = alone["summary"]["max"]["latency_ns"].as_f64().expect("max");
        if max > slowest.0 {
            slowest = (max, f.clone());
        }
    }
    let s = &v["summary"];
    assert_eq!(s["programs"], files.len());
    assert_eq!(s["predicted"], files.len());
    assert_eq!(s["failed"], 0);
    assert_eq!(s["slowest"]["program"], slowest.1.as_str());
    assert_eq!(s["slowest"]["latency_ns"].as_f64(), Some(slowest.0));
}

#[test]
fn the_output_does_not_depend_on_the_number_of_jobs() {
    let one = p4cost(&["predict", DIR, "--no-config", "--jobs", "1"]);
    let four = p4cost(&["predict", DIR, "--no-config", "-j", "4"]);
    assert_eq!(one.code, 0, "{}", one.stderr);
    assert_eq!(one.stdout, four.stdout);
    assert!(one.stdout.contains(&format!("=== {} ===\n", programs()[0])));
    assert!(one.stdout.contains(&format!(
        "{} programs: {} predicted, 0 failed\n",
        programs().len(),
        programs().len()
    )));
    // Into a pipe: no progress bar.
    assert!(one.stderr.is_empty(), "{}", one.stderr);
    let c1 = p4cost(&[
        "check",
        DIR,
        "--max-latency",
        "290",
        "--no-config",
        "-j",
        "1",
    ]);
    let c3 = p4cost(&[
        "check",
        DIR,
        "--max-latency",
        "290",
        "--no-config",
        "-j",
        "3",
    ]);
    assert_eq!(c1.code, 1);
    assert_eq!(c1.stdout, c3.stdout);
    assert_eq!(c1.code, c3.code);
}

#[test]
fn a_program_that_fails_is_named_and_the_others_still_predicted() {
    let dir = scratch("batch-fail");
    std::fs::copy(
        root().join("p4-samples/tofino/tc2_datacenter.p4"),
        dir.join("a_good.p4"),
    )
    .expect("copy");
    std::fs::write(dir.join("b_bad.p4"), "header h_t {\n    bit<8> f\n}\n").expect("write");
    let r = p4cost_in(&dir, &["predict", ".", "--no-config"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stdout.contains("=== ./a_good.p4 ===\np4cost"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("=== ./b_bad.p4 ===\nerror: ./b_bad.p4:3:1: expected"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.ends_with("2 programs: 1 predicted, 1 failed\nslowest ./a_good.p4: 304.548 ns, class 5.1\nfastest ./a_good.p4: 273.764 ns, class 18.1\n"), "{}", r.stdout);
    let r = p4cost_in(&dir, &["predict", ".", "--jobs", "0"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--jobs 0"), "{}", r.stderr);
    let r = p4cost_in(&dir, &["predict", "a_good.p4", "-"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("cannot be one of several"),
        "{}",
        r.stderr
    );
}

/// Runs p4cost on a pseudo-terminal (util-linux `script`): stdout and
/// stderr both go to it. `None` where `script` is missing.
fn on_a_terminal(args: &str) -> Option<String> {
    let cmd = format!("{} {args}", env!("CARGO_BIN_EXE_p4cost"));
    let out = Command::new("script")
        .args(["-qefc", &cmd, "/dev/null"])
        .current_dir(root())
        .env("TERM", "xterm")
        .output()
        .ok()?;
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn a_progress_bar_on_a_terminal_only_for_the_table() {
    let n = programs().len();
    let Some(table) = on_a_terminal(&format!("predict {DIR} --no-config")) else {
        eprintln!("util-linux `script` is not installed: the terminal case is not run");
        return;
    };
    // The bar's `pos/len elapsed` counter.
    let counter = |s: &str| {
        s.match_indices(&format!("/{n} "))
            .any(|(i, _)| s[i + format!("/{n} ").len()..].starts_with(|c: char| c.is_ascii_digit()))
    };
    assert!(counter(&table), "a bar on a terminal: {table}");
    let js = on_a_terminal(&format!("predict {DIR} --no-config --format json")).expect("script");
    assert!(!counter(&js), "no bar beside JSON");
    let v: serde_json::Value = serde_json::from_str(&js.replace('\r', "")).expect("plain JSON");
    assert_eq!(v["summary"]["programs"], n);
}
