//! Time, memory and output of the commands that compare or list many
//! paths stay bounded on a large real program (issue 25, items 6 and 7):
//! switch_p4_16 (p4c's BMv2 JSON of it), 23,497 parse paths and about
//! 10^18 packet classes.
//!
//! Linux only: the peak resident set is what the kernel reports for the
//! child (wait4(2)).
#![cfg(target_os = "linux")]

mod common;
crate::spawner_entry!();

use std::time::Duration;

const SWITCH: &str = "tests/fixtures/bmv2/switch_p4_16.json";

/// What a run of p4cost took.
struct Usage {
    code: i32,
    stdout: Vec<u8>,
    stderr: String,
    peak_rss: u64,
    wall: Duration,
}

/// Runs p4cost with `args` in the repository root, stdout to a file.
fn run(name: &str, args: &[&str]) -> Usage {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("output_bounds")
        .join(name);
    let m = common::measured(&common::root(), args, &dir);
    assert!(m.code >= 0, "p4cost {args:?} died: {}", m.stderr);
    Usage {
        code: m.code,
        stdout: m.stdout,
        stderr: m.stderr,
        peak_rss: m.peak_rss,
        wall: m.elapsed,
    }
}

const MIB: u64 = 1 << 20;

/// `diff` of a program against itself compares summaries, linear in the
/// program: before, it listed 4096 paths and 64 classes of each on both
/// sides and matched classes by a quadratic renumbering (9.8 s and
/// 1.27 GB in a release build). The answer is "no difference".
#[test]
fn diff_of_switch_against_itself_is_bounded_and_finds_nothing() {
    let u = run(
        "diff_switch",
        &["diff", SWITCH, SWITCH, "--format", "json", "--no-config"],
    );
    assert_eq!(u.code, 0, "{}", u.stderr);
    eprintln!(
        "diff: peak RSS {} MiB, {:.1} s",
        u.peak_rss / MIB,
        u.wall.as_secs_f64()
    );
    assert!(u.peak_rss < 400 * MIB, "peak RSS {} MiB", u.peak_rss / MIB);
    assert!(u.wall < Duration::from_secs(60), "{:?}", u.wall);
    let v: serde_json::Value = serde_json::from_slice(&u.stdout).expect("JSON");
    let p = &v["pipelines"][0];
    assert_eq!(v["worst_increase_ns"], 0.0);
    assert_eq!(p["max_latency"]["delta"], 0.0, "{p}");
    assert_eq!(p["min_latency"]["delta"], 0.0, "{p}");
    assert_eq!(p["paths"]["old"], p["paths"]["new"]);
    assert_eq!(p["paths"]["new"], "23497");
    assert_eq!(p["classes"]["old"], p["classes"]["new"]);
    assert_eq!(p["table_terms_changed"], serde_json::json!([]));
    assert_eq!(p["state_terms_changed"], serde_json::json!([]));
    assert!(p["table_terms_unchanged"].as_u64().unwrap() > 70, "{p}");
    assert!(p["state_terms_unchanged"].as_u64().unwrap() > 40, "{p}");
    assert_eq!(p["tables_added"], serde_json::json!([]));
    assert_eq!(p["tables_removed"], serde_json::json!([]));
}

/// With `--paths`, the listings are compared by key in hash maps: many
/// classes of one name (the same headers and control path on thousands of
/// paths) are numbered in linear time, and nothing differs.
#[test]
fn diff_paths_of_switch_against_itself_is_linear_in_the_listing() {
    let u = run(
        "diff_switch_paths",
        &[
            "diff",
            SWITCH,
            SWITCH,
            "--paths",
            "--max-paths",
            "512",
            "--max-classes",
            "8",
            "--format",
            "json",
            "--no-config",
        ],
    );
    assert_eq!(u.code, 0, "{}", u.stderr);
    assert!(u.peak_rss < 600 * MIB, "peak RSS {} MiB", u.peak_rss / MIB);
    assert!(u.wall < Duration::from_secs(120), "{:?}", u.wall);
    let v: serde_json::Value = serde_json::from_slice(&u.stdout).expect("JSON");
    let p = &v["pipelines"][0];
    assert_eq!(p["listings_compared"], true);
    for k in [
        "changed_count",
        "added_count",
        "removed_count",
        "paths_changed_count",
    ] {
        assert_eq!(p[k], 0, "{k}: {p}");
    }
    assert!(p["unchanged"].as_u64().unwrap() >= 512, "{p}");
    assert!(p["paths_unchanged"].as_u64().unwrap() > 0, "{p}");
}

/// The predict JSON schema, committed.
fn predict_schema() -> serde_json::Value {
    let text =
        std::fs::read_to_string(common::root().join("schema/predict.schema.json")).expect("schema");
    serde_json::from_str(&text).expect("schema JSON")
}

/// `--max-output-bytes` cuts the listing where the next path would go
/// over, says so in `output_cut` and on stderr, and the output is within
/// the budget and valid against the schema. Each class names its tables by
/// index into the report's one `tables` list.
#[test]
fn the_json_listing_stops_at_its_byte_budget_and_says_so() {
    let budget: u64 = 2_000_000;
    let b = budget.to_string();
    let u = run(
        "predict_budget",
        &[
            "predict",
            SWITCH,
            "--max-paths",
            "40",
            "--format",
            "json",
            "--max-output-bytes",
            &b,
            "--no-config",
        ],
    );
    assert_eq!(u.code, 0, "{}", u.stderr);
    assert!(u.stdout.len() as u64 <= budget, "{} bytes", u.stdout.len());
    let v: serde_json::Value = serde_json::from_slice(&u.stdout).expect("JSON");
    common::assert_valid(&predict_schema(), &v, "predict with a cut listing");
    let cut = &v["output_cut"];
    assert_eq!(cut["max_output_bytes"], budget, "{cut}");
    assert_eq!(cut["paths_before"], 40, "{cut}");
    let kept = v["paths"].as_array().expect("paths").len();
    assert!(kept > 0 && kept < 40, "{kept}");
    assert_eq!(v["paths_listed"], kept);
    assert!(
        cut["note"].as_str().unwrap().contains("--max-output-bytes"),
        "{cut}"
    );
    assert!(
        u.stderr.contains("left out of the JSON") && u.stderr.contains(&b),
        "{}",
        u.stderr
    );
    // One table list: each table once, every class index points into it.
    let tables = v["tables"].as_array().expect("tables");
    let mut names: Vec<&str> = tables.iter().filter_map(|t| t["name"].as_str()).collect();
    let n = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), n, "a table listed twice");
    for p in v["paths"].as_array().unwrap() {
        for c in p["classes"]["classes"].as_array().unwrap() {
            for i in c["tables"].as_array().unwrap() {
                assert!((i.as_u64().unwrap() as usize) < n, "{i}");
            }
        }
    }
    // Decisions and skipped tables likewise, through the cut (entries
    // only the paths left out named may remain).
    for list in ["decisions", "skipped"] {
        unused_entries(&v, list);
    }

    // Sorted by latency every path is listed first, then the output cut.
    let u = run(
        "predict_budget_sorted",
        &[
            "predict",
            SWITCH,
            "--max-paths",
            "40",
            "--sort",
            "latency",
            "--format",
            "json",
            "--max-output-bytes",
            &b,
            "--no-config",
        ],
    );
    assert_eq!(u.code, 0, "{}", u.stderr);
    assert!(u.stdout.len() as u64 <= budget, "{} bytes", u.stdout.len());
    let v: serde_json::Value = serde_json::from_slice(&u.stdout).expect("JSON");
    assert_eq!(v["output_cut"]["paths_before"], 40);
    let ns: Vec<f64> = v["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["latency_ns"].as_f64().unwrap())
        .collect();
    assert!(
        !ns.is_empty() && ns.windows(2).all(|w| w[0] >= w[1]),
        "{ns:?}"
    );

    // Within the budget: no cut, nothing on stderr.
    let u = run(
        "predict_no_cut",
        &[
            "predict",
            SWITCH,
            "--max-paths",
            "2",
            "--format",
            "json",
            "--no-config",
        ],
    );
    assert_eq!(u.code, 0, "{}", u.stderr);
    let v: serde_json::Value = serde_json::from_slice(&u.stdout).expect("JSON");
    assert_eq!(v["output_cut"], serde_json::Value::Null);
    assert_eq!(v["paths"].as_array().unwrap().len(), 2);
    assert!(!u.stderr.contains("left out"), "{}", u.stderr);
}

/// A listing of 2000 switch_p4_16 paths with their classes stays within
/// the byte budget and a bounded peak memory: before, it wrote 601 MB at
/// 3.2 GB (a `serde_json::Value` of the whole report, then its text), and
/// 8000 aborted at 4 GB.
#[test]
fn a_long_json_listing_is_bounded_in_bytes_and_memory() {
    let budget: u64 = 16 << 20;
    let b = budget.to_string();
    let u = run(
        "predict_long",
        &[
            "predict",
            SWITCH,
            "--max-paths",
            "2000",
            "--format",
            "json",
            "--max-output-bytes",
            &b,
            "--no-config",
        ],
    );
    assert_eq!(u.code, 0, "{}", u.stderr);
    eprintln!(
        "predict: {} bytes, peak RSS {} MiB, {:.1} s",
        u.stdout.len(),
        u.peak_rss / MIB,
        u.wall.as_secs_f64()
    );
    assert!(u.stdout.len() as u64 <= budget, "{} bytes", u.stdout.len());
    // The listing stops being built at the budget: memory does not grow
    // with --max-paths (2000 paths built in full took 314 MB in release).
    assert!(u.peak_rss < 200 * MIB, "peak RSS {} MiB", u.peak_rss / MIB);
    let v: serde_json::Value = serde_json::from_slice(&u.stdout).expect("JSON");
    assert_eq!(v["output_cut"]["paths_before"], 2000);
}

/// The entries of `list` (`decisions` or `skipped`) of report `v`, each
/// checked to be there once; every class index into them checked to be
/// valid; returns how many entries no class names.
fn unused_entries(v: &serde_json::Value, list: &str) -> usize {
    let all = v[list].as_array().expect("report-level list");
    let mut texts: Vec<String> = all.iter().map(|e| e.to_string()).collect();
    texts.sort_unstable();
    texts.dedup();
    assert_eq!(texts.len(), all.len(), "an entry of {list} twice");
    let mut used = vec![false; all.len()];
    for p in v["paths"].as_array().expect("paths") {
        let pc = &p["classes"];
        let listed = pc["classes"].as_array().expect("classes");
        for c in listed.iter().chain(std::iter::once(&pc["slowest"])) {
            for i in c[list].as_array().expect("class indexes") {
                let i = i.as_u64().expect("an index") as usize;
                assert!(i < all.len(), "{list} index {i} of {}", all.len());
                used[i] = true;
            }
        }
    }
    used.iter().filter(|u| !**u).count()
}

/// A listed path of switch_p4_16 with its 8 classes is under 128 KiB of
/// JSON: each class's decisions and skipped tables are indexes into the
/// report's `decisions` and `skipped` lists, each entry written once (it
/// was 369 KB a path, every class repeating their text and spans). Every
/// index points into its list and every entry is named by some class.
#[test]
fn a_listed_path_is_bounded_in_bytes_and_its_class_indexes_are_valid() {
    let u = run(
        "predict_per_path",
        &[
            "predict",
            SWITCH,
            "--max-paths",
            "64",
            "--format",
            "json",
            "--no-config",
        ],
    );
    assert_eq!(u.code, 0, "{}", u.stderr);
    let v: serde_json::Value = serde_json::from_slice(&u.stdout).expect("JSON");
    assert_eq!(v["output_cut"], serde_json::Value::Null);
    assert_eq!(v["paths"].as_array().expect("paths").len(), 64);
    let per_path = u.stdout.len() / 64;
    assert!(per_path < 128 << 10, "{per_path} bytes a path");
    for list in ["decisions", "skipped"] {
        assert!(!v[list].as_array().expect(list).is_empty(), "{list} empty");
        assert_eq!(unused_entries(&v, list), 0, "{list} entries no class names");
    }
    let d = &v["decisions"][0];
    for k in ["at", "outcome", "forced", "span", "gress"] {
        assert!(d.get(k).is_some(), "missing decisions[].{k}");
    }
    let s = &v["skipped"][0];
    for k in ["table", "reason"] {
        assert!(s.get(k).is_some(), "missing skipped[].{k}");
    }
}
