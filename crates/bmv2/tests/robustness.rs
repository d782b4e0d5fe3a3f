//! Broken input is rejected with an error that names the JSON path, and
//! never panics: truncated files, wrong types, dangling references, and a
//! sweep that replaces every value of small fixtures.

use p4cost_bmv2::{read, read_value, Bmv2Error};
use proptest::prelude::*;
use serde_json::{json, Value};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/bmv2/");

fn text(name: &str) -> String {
    std::fs::read_to_string(format!("{DIR}{name}")).unwrap()
}

fn all_fixtures() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(DIR)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    names
}

/// The longest prefix of `s` of at most `n` bytes.
fn prefix(s: &str, mut n: usize) -> &str {
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    &s[..n]
}

#[test]
fn truncated_fixtures_are_json_errors() {
    for name in all_fixtures() {
        let t = text(&name);
        let end = t.trim_end().len();
        let mut cuts: Vec<usize> = (1..8).map(|k| end * k / 8).collect();
        cuts.push(0);
        cuts.push(end - 1);
        for cut in cuts {
            match read(prefix(&t, cut), &name) {
                Err(Bmv2Error::Json { line, .. }) => assert!(line >= 1, "{name} cut {cut}"),
                other => panic!("{name} cut at {cut}: {other:?}"),
            }
        }
    }
}

/// Reads `name` after `edit` changed its JSON and returns the error text.
fn error_after(name: &str, edit: impl FnOnce(&mut Value)) -> String {
    let mut v: Value = serde_json::from_str(&text(name)).unwrap();
    edit(&mut v);
    match read(&v.to_string(), name) {
        Ok(_) => panic!("{name}: the edited file was accepted"),
        Err(e) => e.to_string(),
    }
}

fn set(v: &mut Value, pointer: &str, new: Value) {
    *v.pointer_mut(pointer)
        .unwrap_or_else(|| panic!("no {pointer}")) = new;
}

#[test]
fn wrong_types_name_their_path() {
    let sr = "behavioral-model__simple_router.json";
    assert_eq!(
        error_after(sr, |v| set(
            v,
            "/pipelines/0/tables/0/key/0/match_type",
            json!(3)
        )),
        "pipelines[0].tables[0].key[0].match_type: expected a string, found number"
    );
    assert_eq!(
        error_after(sr, |v| set(
            v,
            "/actions/1/runtime_data/0/bitwidth",
            json!("x")
        )),
        "actions[1].runtime_data[0].bitwidth: expected a non-negative integer, found string"
    );
    assert_eq!(
        error_after(sr, |v| set(v, "/header_types/1/fields/0/1", json!("wide"))),
        "header_types[1].fields[0][1]: field width `wide` is not `*`"
    );
    assert_eq!(
        error_after(sr, |v| set(v, "/parsers/0/parse_states", json!({}))),
        "parsers[0].parse_states: expected an array, found object"
    );
    assert_eq!(
        error_after(sr, |v| {
            v.pointer_mut("/pipelines/0/tables/0")
                .unwrap()
                .as_object_mut()
                .unwrap()
                .remove("name");
        }),
        "pipelines[0].tables[0]: missing key `name`"
    );
    assert_eq!(
        error_after(sr, |v| set(
            v,
            "/pipelines/0/conditionals/0/expression/value/op",
            json!(null)
        )),
        "pipelines[0].conditionals[0].expression.value.op: expected a string, found null"
    );
}

#[test]
fn dangling_references_are_errors() {
    let sr = "behavioral-model__simple_router.json";
    assert_eq!(
        error_after(sr, |v| set(
            v,
            "/parsers/0/parse_states/0/transitions/0/next_state",
            json!("nowhere")
        )),
        "parsers[0].parse_states[0].transitions[0].next_state: unknown parse state `nowhere`"
    );
    assert_eq!(
        error_after(sr, |v| set(
            v,
            "/pipelines/0/conditionals/0/true_next",
            json!("nope")
        )),
        "pipelines[0].conditionals[0].true_next: unknown control-flow node `nope`"
    );
    assert_eq!(
        error_after(sr, |v| set(
            v,
            "/pipelines/0/tables/0/action_ids/0",
            json!(999)
        )),
        "pipelines[0].tables[0].action_ids[0]: unknown action id 999"
    );
    assert_eq!(
        error_after(sr, |v| set(v, "/headers/2/header_type", json!("zzz"))),
        "headers[2].header_type: unknown header type `zzz`"
    );
    assert_eq!(
        error_after(sr, |v| set(
            v,
            "/parsers/0/parse_states/0/parser_ops/0/parameters/0/value",
            json!("nohdr")
        )),
        "parsers[0].parse_states[0].parser_ops[0].parameters[0].value: unknown header instance `nohdr`"
    );
    assert_eq!(
        error_after(sr, |v| set(v, "/pipelines/0/init_table", json!("ghost"))),
        "pipelines[0].init_table: unknown control-flow node `ghost`"
    );
    assert_eq!(
        error_after(sr, |v| set(
            v,
            "/parsers/0/parse_states/0/transitions/0/value",
            json!("0xzz")
        )),
        "parsers[0].parse_states[0].transitions[0].value: `0xzz` is not a hex string"
    );
    // forward -> ipv4_lpm -> forward is a loop, which P4 controls cannot have.
    let err = error_after(sr, |v| {
        for a in ["_drop", "set_dmac", "NoAction"] {
            if let Some(n) = v.pointer_mut(&format!("/pipelines/0/tables/1/next_tables/{a}")) {
                *n = json!("ipv4_lpm");
            }
        }
    });
    assert!(
        err.starts_with("pipelines[0]: the control flow has a cycle"),
        "{err}"
    );
    assert_eq!(
        error_after(sr, |v| set(v, "/__meta__/version", json!([1, 0]))),
        "__meta__.version: unsupported BMv2 JSON format version 1.0 (2.x expected)"
    );
}

#[test]
fn non_bmv2_documents_are_rejected() {
    assert!(matches!(
        read("[]", "x.json"),
        Err(Bmv2Error::NotBmv2 { .. })
    ));
    assert!(matches!(
        read(r#"{"tables": []}"#, "x.json"),
        Err(Bmv2Error::NotBmv2 { .. })
    ));
}

/// Every JSON pointer in a document.
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                pointers(x, format!("{at}/{i}"), out);
            }
        }
        Value::Object(o) => {
            for (k, x) in o {
                pointers(
                    x,
                    format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        _ => {}
    }
    out.push(at);
}

#[test]
fn replacing_any_value_never_panics() {
    let replacements = [
        json!(null),
        json!(7),
        json!(-1),
        json!("x"),
        json!([]),
        json!({}),
    ];
    for name in [
        "behavioral-model__simple_router.json",
        "p4pktgen__table-key-mask.json",
        "pvs-struct-3-bmv2.json",
        "gauntlet_switch_exclusivity-bmv2.json",
        "union-bmv2.json",
        "equality-varbit-bmv2.json",
    ] {
        let original: Value = serde_json::from_str(&text(name)).unwrap();
        let mut ptrs = Vec::new();
        pointers(&original, String::new(), &mut ptrs);
        let (mut errors, mut total) = (0usize, 0usize);
        for p in ptrs.iter().filter(|p| !p.is_empty()) {
            for r in &replacements {
                let mut v = original.clone();
                set(&mut v, p, r.clone());
                total += 1;
                if read_value(&v, name).is_err() {
                    errors += 1;
                }
            }
        }
        // Most edits hit something the reader checks.
        assert!(
            errors * 2 > total,
            "{name}: only {errors} of {total} edits rejected"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn any_truncation_is_rejected(frac in 0.0f64..1.0) {
        let t = text("behavioral-model__simple_router.json");
        let end = t.trim_end().len();
        let cut = ((end as f64) * frac) as usize;
        let cut = cut.min(end - 1);
        let rejected = matches!(read(prefix(&t, cut), "x.json"), Err(Bmv2Error::Json { .. }));
        prop_assert!(rejected, "cut at {} was not a JSON error", cut);
    }
}

#[test]
fn bad_key_masks_and_selector_inputs_are_errors() {
    let km = "p4pktgen__table-key-mask.json";
    assert_eq!(
        error_after(km, |v| set(
            v,
            "/pipelines/0/tables/0/key/0/mask",
            json!("0xzz")
        )),
        "pipelines[0].tables[0].key[0].mask: `0xzz` is not a hex mask"
    );
    let ap = "action_profile-bmv2.json";
    assert_eq!(
        error_after(ap, |v| set(
            v,
            "/pipelines/0/action_profiles/1/selector/input/0/type",
            json!("expression")
        )),
        "pipelines[0].action_profiles[1].selector.input[0].type: selector input of type \
         `expression` (expected `field`)"
    );
    assert_eq!(
        error_after(ap, |v| set(
            v,
            "/pipelines/0/action_profiles/1/selector/input/0/value",
            json!(["scalars"])
        )),
        "pipelines[0].action_profiles[1].selector.input[0].value: expected [header, field]"
    );
}
