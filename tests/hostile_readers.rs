//! Hostile reader inputs found while hardening the BMv2 and context.json
//! readers (issue 7): each one used to take seconds and gigabytes, and
//! now gives an answer or a JSON-path error quickly. The documents are
//! generated here rather than committed (the originals are megabytes).

mod common;

use std::time::{Duration, Instant};

use common::{p4cost, root, scratch};
use serde_json::{json, Value};

fn fixture(rel: &str) -> Value {
    let text = std::fs::read_to_string(root().join(rel)).expect("fixture");
    serde_json::from_str(&text).expect("fixture JSON")
}

/// simple_router with its start state rewritten by `edit`.
fn simple_router(edit: impl FnOnce(&mut Value)) -> Value {
    let mut v = fixture("tests/fixtures/bmv2/behavioral-model__simple_router.json");
    edit(&mut v);
    v
}

fn start_state(v: &mut Value) -> &mut Value {
    let init = v["parsers"][0]["init_state"].as_str().unwrap().to_string();
    v["parsers"][0]["parse_states"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|s| s["name"] == init.as_str())
        .expect("start state")
}

/// Writes `doc`, runs `p4cost predict` on it, and checks it came back
/// within `limit` (debug build; the release build is far faster).
fn run(name: &str, doc: &Value, extra: &[&str], limit: Duration) -> common::Run {
    let dir = scratch(name);
    let file = dir.join(format!("{name}.json"));
    std::fs::write(&file, doc.to_string()).expect("write");
    let mut args = vec!["predict", file.to_str().unwrap()];
    args.extend_from_slice(extra);
    let t = Instant::now();
    let r = p4cost(&args);
    assert!(t.elapsed() < limit, "{name} took {:?}", t.elapsed());
    r
}

#[test]
fn bmv2_state_with_100k_transitions_is_linear() {
    // One select with 100k cases, each to its own state: the duplicate
    // check on targets was quadratic (6-10 s in release).
    let n = 100_000;
    let doc = simple_router(|v| {
        let s = start_state(v);
        s["transition_key"] = json!([{"type": "field", "value": ["ethernet", "etherType"]}]);
        s["transitions"] = (0..n)
            .map(|i| {
                json!({"type": "hexstr", "value": format!("0x{:04x}", i % 65536),
                       "mask": null, "next_state": format!("s{i}")})
            })
            .collect();
        let states = v["parsers"][0]["parse_states"].as_array_mut().unwrap();
        for i in 0..n {
            states.push(json!({"name": format!("s{i}"), "id": 1000 + i, "parser_ops": [],
                "transition_key": [],
                "transitions": [{"type": "default", "value": null, "mask": null, "next_state": null}]}));
        }
    });
    let r = run(
        "transitions100k",
        &doc,
        &["--format", "json", "--max-paths", "1"],
        Duration::from_secs(60),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).expect("JSON report");
    // One path per case (the counted value may be a number or a string).
    assert_eq!(v["path_count"].to_string().trim_matches('"'), "100000");
}

/// simple_router plus a stack of `n` tags extracted in a loop from start.
fn stack_loop(n: usize) -> Value {
    simple_router(|v| {
        v["header_types"].as_array_mut().unwrap().push(
            json!({"name": "tag_t", "id": 99, "fields": [["v", 8, false], ["more", 8, false]]}),
        );
        v["header_stacks"] = json!([{"name": "tags", "id": 0, "header_type": "tag_t",
            "header_ids": (1000..1000 + n).collect::<Vec<_>>()}]);
        let s = start_state(v);
        s["transition_key"] = json!([]);
        s["transitions"] =
            json!([{"type": "default", "value": null, "mask": null, "next_state": "tags_loop"}]);
        v["parsers"][0]["parse_states"]
            .as_array_mut()
            .unwrap()
            .push(json!({
            "name": "tags_loop", "id": 500,
            "parser_ops": [{"op": "extract", "parameters": [{"type": "stack", "value": "tags"}]}],
            "transition_key": [{"type": "stack_field", "value": ["tags", "more"]}],
            "transitions": [
                {"type": "hexstr", "value": "0x01", "mask": null, "next_state": "tags_loop"},
                {"type": "default", "value": null, "mask": null, "next_state": null}]}));
    })
}

#[test]
fn bmv2_stack_with_100k_header_ids_is_refused_with_its_path() {
    // Unrolling it took 12 s and 4.4 GB before the report.
    let r = run(
        "stack100k",
        &stack_loop(100_000),
        &[],
        Duration::from_secs(20),
    );
    assert_ne!(r.code, 0);
    assert!(
        r.stderr.contains(
            "header_stacks[0].header_ids: a header stack of 100000 elements is more than the 4096"
        ),
        "{}",
        r.stderr
    );
}

#[test]
fn bmv2_stack_at_the_limit_is_analysed() {
    // 4096 elements: one path per fill level (exit after 1..=4096 tags).
    let r = run(
        "stack4096",
        &stack_loop(4096),
        &["--format", "json", "--max-paths", "1"],
        Duration::from_secs(60),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).expect("JSON report");
    assert_eq!(v["path_count"].to_string().trim_matches('"'), "4096");
}

#[test]
fn context_stage_beyond_the_last_mau_stage_is_refused_with_its_path() {
    let mut doc = fixture("tests/fixtures/tofino/open-p4studio__tna_action_selector__context.json");
    let table = doc["tables"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|t| t["table_type"] == "match")
        .expect("a match table");
    table["match_attributes"]["stage_tables"][0]["stage_number"] = json!(100_000);
    let r = run(
        "stage100k",
        &doc,
        &["--model", "tofino1-mau-cycles"],
        Duration::from_secs(20),
    );
    assert_ne!(r.code, 0);
    assert!(
        r.stderr
            .contains(".match_attributes.stage_tables[0].stage_number: stage 100000 is beyond"),
        "{}",
        r.stderr
    );
}

/// Writes `text` as `name.json` and runs `p4cost predict` on it.
fn run_text(name: &str, text: &str, limit: Duration) -> common::Run {
    let dir = scratch(name);
    let file = dir.join(format!("{name}.json"));
    std::fs::write(&file, text).expect("write");
    let t = Instant::now();
    let r = p4cost(&["predict", file.to_str().unwrap(), "--format", "json"]);
    assert!(t.elapsed() < limit, "{name} took {:?}", t.elapsed());
    r
}

/// The report of `r` without the directory and file name it was given.
fn report_of(r: &common::Run, name: &str) -> String {
    assert_eq!(r.code, 0, "{name}: {}", r.stderr);
    r.stdout.replace(&format!("{name}/{name}.json"), "X/X.json")
}

#[test]
fn bmv2_repeated_keys_keep_the_last_value_as_serde_json_does() {
    // The reader parses into its own document (issue 26): a repeated key
    // must still mean what it meant in a `serde_json::Value`, the last
    // value (at the first key's place).
    let text = fixture("tests/fixtures/bmv2/behavioral-model__simple_router.json").to_string();
    let limit = Duration::from_secs(30);
    let plain = report_of(&run_text("dup-plain", &text, limit), "dup-plain");
    // The document's first key, repeated before it with a junk value.
    let junk_first = text.replacen('{', r#"{"program": 5,"#, 1);
    assert!(text.starts_with(r#"{"program":"#), "{}", &text[..40]);
    let first = run_text("dup-first", &junk_first, limit);
    assert_eq!(report_of(&first, "dup-first"), plain);
    let junk_last = format!(
        "{}, \"parsers\": 5}}",
        text.trim_end().strip_suffix('}').unwrap()
    );
    let last = run_text("dup-last", &junk_last, limit);
    assert_eq!(last.code, 2, "{}", last.stderr);
    assert!(
        last.stderr
            .contains("parsers: expected an array, found number"),
        "{}",
        last.stderr
    );
}

#[test]
fn bmv2_with_an_escaped_key_is_still_read() {
    // `header_types` written with an escape: the quick look for the key
    // misses it, the general JSON path reads it to the same report.
    let text = fixture("tests/fixtures/bmv2/behavioral-model__simple_router.json").to_string();
    let limit = Duration::from_secs(30);
    let plain = report_of(&run_text("esc-plain", &text, limit), "esc-plain");
    let escaped = text.replacen("\"header_types\"", r#""header\u005ftypes""#, 1);
    assert!(!escaped.contains("\"header_types\""));
    let r = run_text("esc-key", &escaped, limit);
    assert_eq!(report_of(&r, "esc-key"), plain);
}

#[test]
fn bmv2_object_with_100k_members_is_read_quickly() {
    // Objects are member lists searched in order; a huge one must not
    // make lookups or the repeated-key check quadratic.
    let mut doc = fixture("tests/fixtures/bmv2/behavioral-model__simple_router.json");
    let junk: serde_json::Map<String, Value> =
        (0..100_000).map(|i| (format!("k{i}"), json!(i))).collect();
    doc["parsers"][0]
        .as_object_mut()
        .unwrap()
        .extend(junk.clone());
    doc.as_object_mut().unwrap().extend(junk);
    let r = run_text("members100k", &doc.to_string(), Duration::from_secs(20));
    assert_eq!(r.code, 0, "{}", r.stderr);
}
