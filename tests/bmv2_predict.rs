//! `p4cost predict` on every BMv2 JSON fixture (real compiler outputs):
//! each loads, its parse paths are counted and predicted, and p4c's
//! action-call tables are not charged as match tables.

mod common;
use common::{json, p4cost};

#[test]
fn every_bmv2_fixture_predicts() {
    let dir = common::root().join("tests/fixtures/bmv2");
    let mut n = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures")
        .filter_map(|e| e.ok())
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".json") {
            continue;
        }
        let rel = format!("tests/fixtures/bmv2/{name}");
        let r = p4cost(&["predict", &rel, "--format", "json", "--max-paths", "4"]);
        assert_eq!(r.code, 0, "{name}: {}", r.stderr);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("JSON");
        assert_eq!(v["input"], "bmv2_json", "{name}");
        assert!(
            v["path_count"].as_u64().is_some_and(|c| c >= 1),
            "{name}: no path"
        );
        for p in v["paths"].as_array().expect("paths") {
            assert!(p["latency_ns"].as_f64().is_some_and(|l| l > 0.0), "{name}");
        }
        n += 1;
    }
    assert_eq!(n, 60, "all 60 BMv2 fixtures");
}

#[test]
fn action_call_tables_are_not_charged() {
    // p4pktgen's header-stack-ops: 24 tables in the JSON, of which one is a
    // match table in ingress and 23 are p4c's `tbl_act*` action calls.
    let v = json(&[
        "predict",
        "tests/fixtures/bmv2/p4pktgen__header-stack-ops-bmv2.json",
        "--format",
        "json",
        "--max-paths",
        "1",
    ]);
    let tables: Vec<&str> = v["control"]["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .filter_map(|t| t.as_str())
        .collect();
    assert!(tables.iter().all(|t| !t.starts_with("tbl_")), "{tables:?}");
    let w = v["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .find(|w| w["code"] == "action_call_tables_skipped")
        .expect("skip warning");
    assert!(
        w["message"].as_str().unwrap_or("").starts_with("23 "),
        "{w}"
    );
}

#[test]
fn switch_json_paths_are_counted_without_listing() {
    // 1.5 MB switch program: tens of thousands of parse paths, counted.
    let v = json(&[
        "predict",
        "tests/fixtures/bmv2/p4pktgen__switch-p416.json",
        "--format",
        "json",
        "--max-paths",
        "2",
    ]);
    assert_eq!(v["paths"].as_array().map(|p| p.len()), Some(2));
    assert!(
        v["path_count"].as_u64().unwrap_or(0) > 10_000,
        "{}",
        v["path_count"]
    );
}

#[test]
fn tofino_model_on_a_v1model_program_is_flagged() {
    let v = json(&[
        "predict",
        "p4-samples/v1model/basic_router.p4",
        "--format",
        "json",
    ]);
    assert_eq!(v["arch"], "v1model");
    assert!(
        v["warnings"]
            .as_array()
            .expect("warnings")
            .iter()
            .any(|w| w["code"] == "target_mismatch"),
        "{}",
        v["warnings"]
    );
    let t = json(&[
        "predict",
        "p4-samples/tofino/tc2_datacenter.p4",
        "--format",
        "json",
    ]);
    assert!(!t["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .any(|w| w["code"] == "target_mismatch"));
}

/// A control is named as declared, as a P4 source names it: the JSON's
/// pipeline `ingress` quotes `control IngressI` in its `source_info`, and
/// p4c's table names agree (`IngressI.indirect`). Old JSON without the
/// quote keeps the pipeline's name.
#[test]
fn controls_are_named_as_declared() {
    let v = json(&[
        "predict",
        "tests/fixtures/bmv2/action_profile-bmv2.json",
        "--format",
        "json",
    ]);
    assert_eq!(v["control"]["name"], "IngressI");
    let tables = v["control"]["tables"].as_array().expect("tables");
    assert!(
        tables
            .iter()
            .all(|t| t.as_str().is_some_and(|t| t.starts_with("IngressI."))),
        "{tables:?}"
    );
    let v = json(&[
        "predict",
        "tests/fixtures/bmv2/behavioral-model__simple_router.json",
        "--format",
        "json",
    ]);
    assert_eq!(v["control"]["name"], "ingress");
}

/// A parser is named by the package slot it fills, the one name a source
/// and its BMv2 JSON both know (p4c's JSON calls v1model's parser `parser`
/// and quotes no source name for it); the declared name stands beside it
/// when the input has one.
#[test]
fn parsers_are_named_by_their_slot() {
    let cases = [
        (
            "tests/fixtures/bmv2/action_profile-bmv2.json",
            "parser",
            None,
        ),
        (
            "tests/fixtures/bmv2/behavioral-model__pna-demo-L2-one-table.json",
            "main_parser",
            None,
        ),
        (
            "tests/fixtures/programs/names_v1model.p4",
            "parser",
            Some("MyParser"),
        ),
        (
            "p4-samples/tofino/tc2_datacenter.p4",
            "ingress_parser",
            Some("DcIngressParser"),
        ),
    ];
    for (file, slot, declared) in cases {
        let v = json(&["predict", file, "--max-paths", "1", "--format", "json"]);
        assert_eq!(v["parser"], slot, "{file}");
        assert_eq!(v["parser_declared"].as_str(), declared, "{file}");
    }
    let out = p4cost(&["predict", "tests/fixtures/programs/names_v1model.p4"]).stdout;
    assert!(out.contains("parser    MyParser (slot parser): "), "{out}");
}

/// The egress control lists its match tables as ingress does: p4c's
/// action-call tables of switch_p4_16's egress (`tbl_switch_p4_16l1774`,
/// `tbl_switch_p4_16l1847`) are not among them, so the source and its JSON
/// list the same egress tables.
#[test]
fn egress_lists_match_tables_only() {
    let v = json(&[
        "predict",
        "tests/fixtures/bmv2/switch_p4_16.json",
        "--format",
        "json",
        "--max-paths",
        "1",
    ]);
    let tables: Vec<&str> = v["control"]["egress"]["tables"]
        .as_array()
        .expect("egress tables")
        .iter()
        .filter_map(|t| t.as_str())
        .collect();
    assert_eq!(tables.len(), 35, "{tables:?}");
    assert!(
        tables
            .iter()
            .all(|t| !t.rsplit('.').next().unwrap_or(t).starts_with("tbl_")),
        "{tables:?}"
    );
}

/// issue2170's control starts with p4c's `tbl_act` (the source's action
/// call): its one class lists `simple_table` only, as from the source, and
/// no skip reason names a `tbl_*` table (issue 24).
#[test]
fn a_class_lists_no_action_call_table() {
    let v = json(&[
        "predict",
        "tests/fixtures/bmv2/issue2170-bmv2.json",
        "--format",
        "json",
        "--path",
        "eth,h",
    ]);
    // A class names its tables and skips by index into the report's lists.
    let c = &v["paths"][0]["classes"]["classes"][0];
    let lookup = |field: &str, list: &str| -> Vec<serde_json::Value> {
        c[field]
            .as_array()
            .expect("indexes")
            .iter()
            .map(|i| {
                let i = i.as_u64().expect("an index") as usize;
                v[list][i].clone()
            })
            .collect()
    };
    let tables: Vec<String> = lookup("tables", "tables")
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect();
    assert_eq!(tables, ["ingress.simple_table"]);
    let skipped = lookup("skipped", "skipped");
    assert!(
        skipped
            .iter()
            .all(|s| !s["table"].as_str().unwrap_or("").contains("tbl_")),
        "{skipped:?}"
    );
    let all_tables = v["tables"].as_array().expect("the report's tables");
    assert!(
        all_tables
            .iter()
            .all(|t| !t["name"].as_str().unwrap_or("").contains("tbl_")),
        "{all_tables:?}"
    );
}

/// issue1879's sub-parser extracts into its local `inf_0`, which p4c then
/// copies into `hdr.prot_inf_0` / `hdr.prot_inf_1`: the paths name the
/// headers the source does (issue 24).
#[test]
fn a_sub_parser_extract_is_named_after_the_header_it_fills() {
    let v = json(&[
        "predict",
        "tests/fixtures/bmv2/issue1879-bmv2.json",
        "--format",
        "json",
    ]);
    let mut seen = std::collections::BTreeSet::new();
    for p in v["paths"].as_array().expect("paths") {
        for h in p["headers"].as_array().expect("headers") {
            seen.insert(h.as_str().unwrap_or("").to_string());
        }
    }
    assert!(seen.contains("hdr.prot_inf_0"), "{seen:?}");
    assert!(seen.contains("hdr.prot_inf_1"), "{seen:?}");
    assert!(
        !seen
            .iter()
            .any(|h| h.contains("inf_0") && !h.contains("prot_")),
        "{seen:?}"
    );
}
