//! Truncated and mutated inputs give errors, never panics.

mod common;

use common::fixture;
use p4cost_tofino::{read_context, read_context_with_bfrt, TofinoError};
use proptest::prelude::*;
use serde_json::{json, Value};

const SMALL: &[&str] = &[
    "open-p4studio__tna_action_selector__context.json",
    "compiled/tna_register_action_1/context.json",
    "compiled/tna_table_entries_range/context.json",
    "fabric-tna__fabric__sde9.0.0__context.json",
];

#[test]
fn truncated_files_are_json_errors() {
    for f in SMALL {
        let text = fixture(f);
        for k in 1..12 {
            let mut cut = text.len() * k / 12;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            match read_context(&text[..cut], f) {
                Err(TofinoError::Json { .. }) => {}
                other => panic!("{f} cut at {cut}: {:?}", other.map(|p| p.name)),
            }
        }
    }
    let b = fixture("open-p4studio__tna_action_selector__bf-rt.json");
    let c = fixture(SMALL[0]);
    let cut = b.len() / 2;
    assert!(matches!(
        read_context_with_bfrt(&c, "c", &b[..cut], "b"),
        Err(TofinoError::Json { .. })
    ));
}

/// JSON paths (as pointer strings) of every node below `v` down to a
/// depth, skipping large subtrees.
fn pointers(v: &Value, base: String, depth: usize, out: &mut Vec<String>) {
    out.push(base.clone());
    if depth == 0 {
        return;
    }
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                if k == "pack_format" || k == "memory_resource_allocation" || k == "hash_functions"
                {
                    continue;
                }
                pointers(c, format!("{base}/{k}"), depth - 1, out);
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate().take(3) {
                pointers(c, format!("{base}/{i}"), depth - 1, out);
            }
        }
        _ => {}
    }
}

fn replacements() -> Vec<Value> {
    vec![
        json!(null),
        json!("x"),
        json!(-7),
        json!(1.5),
        json!(u64::MAX),
        json!([]),
        json!({}),
        json!(true),
    ]
}

fn check_mutation(doc: &Value, ptr: &str, with: &Value) {
    let mut d = doc.clone();
    if let Some(slot) = d.pointer_mut(ptr) {
        *slot = with.clone();
    }
    // Either outcome is fine; a panic fails the test.
    let _ = read_context(&d.to_string(), "mutated.json");
}

#[test]
fn mutated_values_never_panic() {
    let text = fixture("compiled/tna_register_action_1/context.json");
    let doc: Value = serde_json::from_str(&text).unwrap();
    let mut ptrs = Vec::new();
    pointers(&doc, String::new(), 6, &mut ptrs);
    assert!(ptrs.len() > 200, "{}", ptrs.len());
    let reps = replacements();
    for (i, p) in ptrs.iter().enumerate() {
        check_mutation(&doc, p, &reps[i % reps.len()]);
    }
}

#[test]
fn mutated_stage_number_names_its_path() {
    let f = "open-p4studio__tna_action_selector__context.json";
    let mut doc: Value = serde_json::from_str(&fixture(f)).unwrap();
    let slot = doc
        .pointer_mut("/tables/1/match_attributes/stage_tables/0/stage_number")
        .unwrap();
    *slot = json!("zero");
    let err = read_context(&doc.to_string(), f).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{f}: tables[1].match_attributes.stage_tables[0].stage_number: \
             expected integer, found string"
        )
    );
    let mut doc: Value = serde_json::from_str(&fixture(f)).unwrap();
    doc["mau_stage_characteristics"][3]["gress"] = json!("sideways");
    let err = read_context(&doc.to_string(), f).unwrap_err();
    assert!(
        err.to_string()
            .contains("mau_stage_characteristics[3].gress: expected"),
        "{err}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn random_mutations_never_panic(idx in 0usize..10_000, rep in 0usize..8) {
        let text = fixture("compiled/tna_table_entries_range/context.json");
        let doc: Value = serde_json::from_str(&text).unwrap();
        let mut ptrs = Vec::new();
        pointers(&doc, String::new(), 7, &mut ptrs);
        let reps = replacements();
        let p = &ptrs[idx % ptrs.len()];
        check_mutation(&doc, p, &reps[rep % reps.len()]);
    }
}
