//! Placement fidelity (issue 28, item 1): the stage-placement estimate
//! `p4cost stages SOURCE` against the compiler's placement `p4cost stages
//! context.json`, on every compiled Tofino output in tests/fixtures/tofino
//! whose source is copied beside it (tests/fixtures/SOURCES.md). The same
//! comparison as `scripts/placement-fidelity`, on the repository's copies.
//!
//! A gress agrees when the estimate is within 10 % of the compiler's cycles
//! and has its exact count of match-dependent stages. Every gress agrees
//! today except those in [`KNOWN_MISSES`]; one that stops agreeing fails
//! the test (a miss that starts agreeing does not: move it out of the list).
//!
//! Table by table: the first stage the compiler placed each match table
//! in (`stage_tables[].stage_number` in its context.json, read here, not
//! through p4cost) against the first stage the estimate lists it in, held
//! to the present count per gress ([`SAME_FIRST_STAGE`]).

use std::collections::BTreeMap;

use serde_json::Value;

mod common;

/// Per gress, the tables the estimate puts in the compiler's first stage
/// and the tables compared (both sides know the name), over every program
/// here; `scripts/placement-fidelity --tables` lists them. Fewer fails:
/// the placement got further from the compiler's; more: raise the floor.
const SAME_FIRST_STAGE: [(&str, usize, usize); 2] = [("ingress", 86, 116), ("egress", 15, 61)];

/// (program, gress): estimated placements that do not agree yet, with why.
const KNOWN_MISSES: &[(&str, &str, &str)] = &[
    (
        "switch_tofino_x1",
        "ingress",
        "292 cycles / 12 match stages by the compiler, 272 / 11 estimated (within 10 %, one match \
         stage short): the compiler's stages 5-7 hold ipv4_host, then ipv4_lpm's pre-classifier \
         and ATCAM, each match dependent; ours put them closer",
    ),
    (
        "switch_tofino_x1",
        "egress",
        "258 / 12 by the compiler, 199 / 9 estimated: the compiler's egress reaches stage 11, \
         all match dependent; ours ends earlier with action-dependent stages (a TCAM table split \
         over two stages where ingress's TCAM tables fill the first, the compiler puts it whole \
         in the next; egress_system_acl one stage after meter_action, the compiler two)",
    ),
    (
        "fabric-int",
        "ingress",
        "124 / 5 by the compiler, 106 / 4 estimated: stage 1 is match dependent through a PHV \
         container two tables share",
    ),
    (
        "fabric-int",
        "egress",
        "182 / 8 by the compiler, 199 / 9 estimated: the compiler packs INT's egress tables \
         tighter",
    ),
];

const TESTGEN: &[&str] = &[
    "parser_reject",
    "switch_tofino_x1",
    "tna_action_profile_1",
    "tna_hash_3",
    "tna_hash_9",
    "tna_pvs_fixed",
    "tna_random_extern",
    "tna_register_action_1",
    "tna_register_action_2",
    "tna_simple_switch",
    "tna_table_control_exact",
    "tna_table_control_lpm",
    "tna_table_control_ternary",
    "tna_table_entries_range",
    "tna_tainted_table_key",
    "tna_varbit_extract",
];

const OPEN_P4STUDIO: &[&str] = &[
    "tna_exact_match",
    "tna_action_profile",
    "tna_action_selector",
];

/// One program: its name, the estimate's arguments, the context.json.
struct Program {
    name: String,
    estimate: Vec<String>,
    context: String,
}

fn programs() -> Vec<Program> {
    let f = "tests/fixtures/tofino";
    let mut out: Vec<Program> = TESTGEN
        .iter()
        .map(|n| Program {
            name: n.to_string(),
            estimate: vec![
                "-D__TARGET_TOFINO__=1".into(),
                "-I".into(),
                format!("{f}/compiled"),
                format!("{f}/compiled/{n}/{n}.p4"),
            ],
            context: format!("{f}/compiled/{n}/context.json"),
        })
        .collect();
    out.extend(OPEN_P4STUDIO.iter().map(|n| Program {
        name: n.to_string(),
        estimate: vec![
            "-I".into(),
            format!("{f}/open-p4studio"),
            format!("{f}/open-p4studio/{n}/{n}.p4"),
        ],
        context: format!("{f}/open-p4studio__{n}__context.json"),
    }));
    for (profile, extra) in [("fabric", None), ("fabric-int", Some("-DWITH_INT"))] {
        let mut estimate = vec![
            "-I".to_string(),
            format!("{f}/fabric-tna-29030f4/p4src"),
            "-DCPU_PORT=192".into(),
        ];
        estimate.extend(extra.map(String::from));
        estimate.push(format!("{f}/fabric-tna-29030f4/p4src/fabric_tna.p4"));
        out.push(Program {
            name: profile.into(),
            estimate,
            context: format!("{f}/fabric-tna__{profile}__sde9.2.0__context.json"),
        });
    }
    out
}

/// `p4cost stages --format json ARGS`.
fn stages_json(args: &[String]) -> Value {
    let mut a: Vec<&str> = vec!["stages", "--format", "json"];
    a.extend(args.iter().map(String::as_str));
    common::json(&a)
}

/// (cycles, match-dependent stages) of `gress` in `p4cost stages ARGS`.
fn figures(args: &[String], gress: &str) -> (u64, usize) {
    let v = stages_json(args);
    let g = &v["mau"][gress];
    let cycles = g["cycles"].as_u64().expect("cycles");
    let stages = g["stages"].as_array().expect("stages");
    let matched = stages
        .iter()
        .filter(|s| s["match_dependent"] == true)
        .count();
    (cycles, matched)
}

#[test]
fn estimates_agree_with_the_compiler() {
    let mut failures = Vec::new();
    let mut agreeing = 0;
    for p in programs() {
        for gress in ["ingress", "egress"] {
            let (cc, cs) = figures(std::slice::from_ref(&p.context), gress);
            let (oc, os) = figures(&p.estimate, gress);
            let within = (oc as f64 - cc as f64).abs() <= 0.10 * cc as f64;
            let agrees = within && cs == os;
            let known = KNOWN_MISSES
                .iter()
                .any(|(n, g, _)| *n == p.name && *g == gress);
            if agrees {
                agreeing += 1;
            } else if !known {
                failures.push(format!(
                    "{} {gress}: compiler {cc} cycles / {cs} match stages, estimate {oc} / {os}",
                    p.name
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "stopped agreeing:\n{}",
        failures.join("\n")
    );
    assert_eq!(
        agreeing,
        2 * (TESTGEN.len() + OPEN_P4STUDIO.len() + 2) - KNOWN_MISSES.len(),
        "every gress not in KNOWN_MISSES agrees"
    );
}

/// Every `stage_number` of a `stage_tables` list anywhere under `v` (an
/// ALPM's pre-classifier and ATCAM, each part of a split table).
fn stage_numbers(v: &Value) -> Vec<i64> {
    let (mut found, mut todo) = (Vec::new(), vec![v]);
    while let Some(o) = todo.pop() {
        match o {
            Value::Object(m) => {
                if let Some(Value::Array(st)) = m.get("stage_tables") {
                    found.extend(st.iter().filter_map(|s| s["stage_number"].as_i64()));
                }
                todo.extend(m.values());
            }
            Value::Array(a) => todo.extend(a),
            _ => {}
        }
    }
    found
}

/// The compiler's first stage of each match table of `gress` (phase 0,
/// the parser's stage -1, left out).
fn compiler_first_stages(context: &str, gress: &str) -> BTreeMap<String, i64> {
    let text = std::fs::read_to_string(common::root().join(context)).expect("context.json");
    let ctx: Value = serde_json::from_str(&text).expect("json");
    let tables = ctx["tables"].as_array().expect("tables");
    tables
        .iter()
        .filter(|t| t["table_type"] == "match" && t["direction"] == gress)
        .filter_map(|t| {
            let first = stage_numbers(t).into_iter().filter(|&n| n >= 0).min()?;
            Some((t["name"].as_str()?.to_string(), first))
        })
        .collect()
}

/// The estimate's first stage of each table of `gress`; a name listed
/// twice in one stage (two units `tbl_assign`) is ambiguous: None.
fn our_first_stages(v: &Value, gress: &str) -> BTreeMap<String, Option<i64>> {
    let mut out: BTreeMap<String, Option<i64>> = BTreeMap::new();
    for s in v["mau"][gress]["stages"].as_array().expect("stages") {
        let stage = s["stage"].as_i64().expect("stage");
        let mut seen = Vec::new();
        for t in s["tables"].as_array().expect("tables") {
            let name = t.as_str().expect("name").to_string();
            if seen.contains(&name) {
                out.insert(name.clone(), None);
            }
            out.entry(name.clone()).or_insert(Some(stage));
            seen.push(name);
        }
    }
    out
}

/// Our stage of the compiler's table `name`: the same name, or for the
/// compiler's `tbl_<instance>_<action>` (a direct action call) the one
/// table of ours `tbl_<action>` it ends with.
fn our_stage(
    name: &str,
    ours: &BTreeMap<String, Option<i64>>,
    theirs: &BTreeMap<String, i64>,
) -> Option<i64> {
    if let Some(s) = ours.get(name) {
        return *s;
    }
    if !name.starts_with("tbl_") {
        return None;
    }
    let mut c = ours.iter().filter(|(o, s)| {
        s.is_some()
            && o.starts_with("tbl_")
            && !theirs.contains_key(o.as_str())
            && name.ends_with(&format!("_{}", &o[4..]))
    });
    match (c.next(), c.next()) {
        (Some((_, s)), None) => *s,
        _ => None,
    }
}

#[test]
fn tables_sit_in_the_compilers_first_stage() {
    for (gress, floor, compared_now) in SAME_FIRST_STAGE {
        let (mut same, mut compared, mut rows) = (0, 0, Vec::new());
        for p in programs() {
            let theirs = compiler_first_stages(&p.context, gress);
            let ours = our_first_stages(&stages_json(&p.estimate), gress);
            for (name, &cs) in &theirs {
                let Some(os) = our_stage(name, &ours, &theirs) else {
                    continue;
                };
                compared += 1;
                if os == cs {
                    same += 1;
                } else {
                    rows.push(format!("{} {name}: compiler {cs}, ours {os}", p.name));
                }
            }
        }
        println!(
            "{gress}: same first stage {same}/{compared}\n{}",
            rows.join("\n")
        );
        assert!(
            same >= floor,
            "{gress}: {same}/{compared} tables in the compiler's first stage, was {floor}/{compared_now}"
        );
    }
}
