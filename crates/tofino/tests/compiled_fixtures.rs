//! The 16 programs compiled by bf-p4c 9.13.4 (schema 1.12.4) in
//! tests/fixtures/tofino/compiled; expected figures are those printed by
//! the fixtures' figures.py (fixtures SOURCES.md).

mod common;

use common::{fixture, gress_cycles, gress_stages, match_dependent, COMPILED};
use p4cost_ir::{ExternKind, Gress};
use p4cost_tofino::{read_context, read_context_with_bfrt};

/// (program, ingress cycles, egress cycles, tables in context.json,
/// match-dependent ingress stages).
const FIGURES: &[(&str, u32, u32, usize, &[i32])] = &[
    ("parser_reject", 56, 187, 3, &[0, 6]),
    (
        "switch_tofino_x1",
        292,
        258,
        250,
        &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
    ),
    ("tna_action_profile_1", 54, 187, 4, &[0, 6]),
    ("tna_hash_3", 77, 187, 5, &[0, 1, 6]),
    ("tna_hash_9", 75, 187, 5, &[0, 1, 6]),
    ("tna_pvs_fixed", 56, 187, 2, &[0, 6]),
    ("tna_random_extern", 56, 187, 3, &[0, 6]),
    ("tna_register_action_1", 81, 187, 8, &[0, 1, 6]),
    ("tna_register_action_2", 60, 187, 6, &[0, 6]),
    ("tna_simple_switch", 157, 187, 53, &[0, 1, 3, 4, 5, 6]),
    ("tna_table_control_exact", 56, 187, 3, &[0, 6]),
    ("tna_table_control_lpm", 56, 187, 3, &[0, 6]),
    ("tna_table_control_ternary", 56, 187, 3, &[0, 6]),
    ("tna_table_entries_range", 57, 187, 3, &[0, 6]),
    ("tna_tainted_table_key", 75, 187, 4, &[0, 1, 6]),
    ("tna_varbit_extract", 54, 187, 1, &[0, 6]),
];

#[test]
fn figures_cover_every_compiled_program() {
    let names: Vec<&str> = FIGURES.iter().map(|f| f.0).collect();
    assert_eq!(names, COMPILED.to_vec());
}

#[test]
fn latency_and_table_counts_match_figures() {
    for (prog, ing, eg, total, md) in FIGURES {
        let path = format!("compiled/{prog}/context.json");
        let text = fixture(&path);
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let tables = v["tables"].as_array().unwrap();
        assert_eq!(tables.len(), *total, "{prog}");
        let matches = tables.iter().filter(|t| t["table_type"] == "match").count();
        let p = read_context(&text, &path).unwrap();
        assert_eq!(p.tables.len(), matches, "{prog}");
        assert!(!gress_stages(&p, Gress::Ingress).is_empty(), "{prog}");
        assert_eq!(
            (
                gress_cycles(&p, Gress::Ingress),
                gress_cycles(&p, Gress::Egress)
            ),
            (*ing, *eg),
            "{prog}"
        );
        assert_eq!(match_dependent(&p, Gress::Ingress), md.to_vec(), "{prog}");
        // Egress already carries the assembler's padding: its stages 1..
        // sum to at least 160 with the corner turn (stage 0 excluded).
        let padded: u32 = 4 + gress_stages(&p, Gress::Egress)
            .iter()
            .skip(1)
            .map(|s| s.cycles_contribute_to_latency)
            .sum::<u32>();
        assert!(padded >= 160, "{prog}: {padded}");
    }
}

#[test]
fn switch_x1_spot_checks() {
    let path = "compiled/switch_tofino_x1/context.json";
    let p = read_context(&fixture(path), path).unwrap();
    assert_eq!(p.tables.len(), 113);
    // Algorithmic LPM: pre-classifier in stage 6, ATCAM units in 7.
    let t = p.table(p.table_by_name("ipv4_lpm").unwrap());
    assert_eq!(t.stages, vec![6, 7]);
    assert!(t.keys.iter().any(|k| k.field == "local_md.lkp.ip_dst_addr"));
    let t = p.table(p.table_by_name("ipv6_lpm64").unwrap());
    assert_eq!(t.stages, vec![7, 8]);
    let multi = p.tables.iter().filter(|t| t.stages.len() > 1).count();
    assert!(multi >= 2);
}

#[test]
fn every_compiled_bfrt_pairs() {
    for prog in COMPILED {
        let c = format!("compiled/{prog}/context.json");
        let b = format!("compiled/{prog}/bfrt.json");
        let p = read_context_with_bfrt(&fixture(&c), &c, &fixture(&b), &b).unwrap();
        assert!(
            !p.notes
                .iter()
                .any(|n| n.starts_with("bfrt.json match tables absent")),
            "{prog}: {:?}",
            p.notes
        );
        assert!(p.notes.iter().any(|n| n.contains("paired by name")));
    }
}

/// (name, kind, size, width, direct) of one extern instance.
type ExternRow = (String, ExternKind, Option<u64>, Option<u32>, bool);

/// The rows of every extern instance.
fn externs(p: &p4cost_ir::Program) -> Vec<ExternRow> {
    p.externs
        .iter()
        .map(|e| {
            (
                e.name.clone(),
                e.kind.clone(),
                e.size,
                e.width_bits,
                e.direct,
            )
        })
        .collect()
}

fn load(prog: &str) -> p4cost_ir::Program {
    let path = format!("compiled/{prog}/context.json");
    read_context(&fixture(&path), &path).unwrap()
}

#[test]
fn registers_of_the_register_action_programs() {
    // ping_reg: 2048 cells, alu_width 32 (bfrt.json agrees: data width 32),
    // used by two tables through stateful_table_refs (indirect).
    let p = load("tna_register_action_1");
    assert_eq!(
        externs(&p),
        vec![(
            "ping_reg".to_string(),
            ExternKind::Register,
            Some(2048),
            Some(32),
            false
        )]
    );
    // Two direct registers of 4096 32-bit cells.
    let p = load("tna_register_action_2");
    assert_eq!(
        externs(&p),
        vec![
            (
                "ping_reg2".to_string(),
                ExternKind::Register,
                Some(4096),
                Some(32),
                true
            ),
            (
                "ping_reg1".to_string(),
                ExternKind::Register,
                Some(4096),
                Some(32),
                true
            ),
        ]
    );
}

#[test]
fn counters_selectors_and_profiles_of_simple_switch() {
    let p = load("tna_simple_switch");
    let row = |n: &str, k: ExternKind, size: u64, direct: bool| {
        (n.to_string(), k, Some(size), None, direct)
    };
    assert_eq!(
        externs(&p),
        vec![
            row(
                "SwitchIngress.port_mapping.bd_action_profile",
                ExternKind::ActionProfile,
                1024,
                false
            ),
            row("SwitchIngress.srv6.cnt1", ExternKind::Counter, 2048, true),
            row(
                "SwitchIngress.nexthop.ecmp_selector",
                ExternKind::ActionSelector,
                200,
                false
            ),
            row(
                "SwitchIngress.nexthop.ecmp_selector_ap",
                ExternKind::ActionProfile,
                2048,
                false
            ),
            row("SwitchEgress.encap.cnt2", ExternKind::Counter, 4096, true),
            row(
                "SwitchIngress.lag.lag_selector",
                ExternKind::ActionSelector,
                200,
                false
            ),
            row(
                "SwitchIngress.lag.lag_selector_ap",
                ExternKind::ActionProfile,
                2048,
                false
            ),
        ]
    );
    // No match table is an extern, and no extern is a match table.
    assert!(p.externs.iter().all(|e| p.table_by_name(&e.name).is_none()));
}
