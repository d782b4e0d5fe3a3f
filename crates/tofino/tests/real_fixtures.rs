//! The real context.json / bfrt.json files of tests/fixtures/tofino
//! (figures from tests/fixtures/SOURCES.md and docs/models.md, MAU cycle rules).

mod common;

use common::{fixture, gress_cycles, gress_stages, match_dependent};
use p4cost_ir::{Arch, ControlRole, ExternKind, Gress, InputKind, MatchKind, Program};
use p4cost_tofino::{read_context, read_context_with_bfrt};

/// (context file, bfrt file, tables= in SOURCES.md, ingress, egress,
/// match-dependent ingress stages).
type Row = (&'static str, &'static str, usize, u32, u32, &'static [i32]);

const REAL: &[Row] = &[
    (
        "fabric-tna__fabric__sde9.2.0__context.json",
        "fabric-tna__fabric__sde9.2.0__bfrt.json",
        58,
        105,
        195,
        &[0, 1, 3, 6],
    ),
    (
        "fabric-tna__fabric-int__sde9.2.0__context.json",
        "fabric-tna__fabric-int__sde9.2.0__bfrt.json",
        70,
        124,
        182,
        &[0, 1, 2, 4, 6],
    ),
    (
        "open-p4studio__tna_exact_match__context.json",
        "open-p4studio__tna_exact_match__bf-rt.json",
        8,
        77,
        187,
        &[0, 2, 6],
    ),
    (
        "open-p4studio__tna_action_profile__context.json",
        "open-p4studio__tna_action_profile__bf-rt.json",
        10,
        79,
        187,
        &[0, 1, 6],
    ),
    (
        "open-p4studio__tna_action_selector__context.json",
        "open-p4studio__tna_action_selector__bf-rt.json",
        7,
        85,
        187,
        &[0, 1, 6],
    ),
];

fn count_tables(text: &str) -> (usize, usize) {
    let v: serde_json::Value = serde_json::from_str(text).unwrap();
    let tables = v["tables"].as_array().unwrap();
    let matches = tables.iter().filter(|t| t["table_type"] == "match").count();
    (tables.len(), matches)
}

#[test]
fn per_gress_latency_matches_the_compiler() {
    for (ctx, _, _, ing, eg, md) in REAL {
        let p = read_context(&fixture(ctx), ctx).unwrap();
        let mau = p.mau.as_ref().unwrap();
        let gresses: Vec<Gress> = [Gress::Ingress, Gress::Egress, Gress::Ghost, Gress::Unknown]
            .into_iter()
            .filter(|g| mau.stages.iter().any(|s| s.gress == *g))
            .collect();
        assert_eq!(gresses, vec![Gress::Ingress, Gress::Egress], "{ctx}");
        assert_eq!(gress_cycles(&p, Gress::Ingress), *ing, "{ctx}");
        assert_eq!(gress_cycles(&p, Gress::Egress), *eg, "{ctx}");
        assert!(!mau.estimated, "{ctx}");
        assert_eq!(match_dependent(&p, Gress::Ingress), md.to_vec(), "{ctx}");
        assert_eq!(
            gress_stages(&p, Gress::Ingress).len(),
            12,
            "{ctx}: Tofino 1 has 12 stages"
        );
    }
}

#[test]
fn table_counts_and_program_shape() {
    for (ctx, _, total, _, _, _) in REAL {
        let text = fixture(ctx);
        let (all, matches) = count_tables(&text);
        assert_eq!(all, *total, "{ctx}: tables= column of SOURCES.md");
        let p = read_context(&text, ctx).unwrap();
        assert_eq!(p.tables.len(), matches, "{ctx}");
        assert_eq!(p.input, InputKind::TofinoContext);
        assert_eq!(p.arch, Arch::Tna);
        assert!(p.parsers.is_empty());
        assert_eq!(p.pipelines.len(), 1);
        let ing = p.pipelines[0].ingress.unwrap();
        let eg = p.pipelines[0].egress.unwrap();
        assert_eq!(p.control(ing).role, ControlRole::Ingress);
        assert_eq!(p.control(eg).role, ControlRole::Egress);
        // Every match table sits in exactly one chain, and chains are in
        // stage order.
        let mut seen = 0;
        for c in [ing, eg] {
            let chain = p.control(c).flow.tables();
            seen += chain.len();
            let firsts: Vec<i32> = chain
                .iter()
                .map(|t| p.table(*t).stages.first().copied().unwrap_or(i32::MAX))
                .collect();
            assert!(firsts.windows(2).all(|w| w[0] <= w[1]), "{ctx}");
        }
        assert_eq!(seen, p.tables.len(), "{ctx}");
        assert!(p.notes.iter().any(|n| n.contains("no control flow")));
    }
}

#[test]
fn stage_placement_spot_checks() {
    let f = "open-p4studio__tna_action_selector__context.json";
    let p = read_context(&fixture(f), f).unwrap();
    let fwd = p.table(p.table_by_name("SwitchIngress.forward").unwrap());
    assert_eq!(fwd.stages, vec![0]);
    assert_eq!(fwd.size, Some(512));
    assert_eq!(fwd.keys.len(), 1);
    assert_eq!(fwd.keys[0].field, "ig_intr_md.ingress_port");
    assert_eq!(fwd.keys[0].width_bits, Some(9));
    assert_eq!(fwd.keys[0].match_kind, MatchKind::Exact);
    assert_eq!(
        fwd.implementation.as_deref(),
        Some("SwitchIngress.example_action_selector")
    );
    let hit = fwd
        .actions
        .iter()
        .map(|a| p.action(*a))
        .find(|a| a.name == "SwitchIngress.hit")
        .unwrap();
    assert_eq!(hit.params[0].name, "port");
    assert_eq!(hit.params[0].width_bits, Some(9));
    assert!(hit
        .writes
        .contains(&"ig_intr_md_for_tm.ucast_egress_port".to_string()));
    let pm = p.table(
        p.table_by_name("SwitchIngressParser.$PORT_METADATA")
            .unwrap(),
    );
    assert_eq!(pm.stages, vec![-1]);
    // The control takes the program's control name.
    let ing = p.pipelines[0].ingress.unwrap();
    assert_eq!(p.control(ing).name, "SwitchIngress");
    // Stage 0 of ingress lists the forward table.
    assert_eq!(p.control(fwd.control.unwrap()).gress, Gress::Ingress);
    let s0 = &gress_stages(&p, Gress::Ingress)[0];
    assert_eq!((s0.stage, s0.clock_cycles), (0, 30));

    let f = "fabric-tna__fabric__sde9.2.0__context.json";
    let p = read_context(&fixture(f), f).unwrap();
    let t = p.table(
        p.table_by_name("FabricIngress.forwarding.routing_v4")
            .unwrap(),
    );
    assert_eq!(t.size, Some(1024));
    assert!(t.keys.iter().any(|k| k.match_kind == MatchKind::Lpm));
}

#[test]
fn schema_1_8_4_is_estimated_and_flagged() {
    let f = "fabric-tna__fabric__sde9.0.0__context.json";
    let text = fixture(f);
    let (all, matches) = count_tables(&text);
    assert_eq!(all, 62);
    let p = read_context(&text, f).unwrap();
    assert_eq!(p.tables.len(), matches);
    let mau = p.mau.as_ref().unwrap();
    assert!(mau.estimated);
    assert_eq!(mau.stages.len(), 24);
    assert!(p.notes.iter().any(|n| n.contains("ESTIMATED")));
    // Match-dependence comes from the file's stage_dependency records.
    assert_eq!(match_dependent(&p, Gress::Ingress), vec![0, 2, 4, 5, 6]);
    // Placement spot checks.
    let acl = p.table(p.table_by_name("FabricIngress.acl.acl").unwrap());
    assert_eq!(acl.stages, vec![3]);
    let hashed = p.table(p.table_by_name("FabricIngress.next.hashed").unwrap());
    assert_eq!(hashed.stages, vec![5]);
    // Egress stages 0-8 are match dependent (the assembler's padding), so
    // egress is at least 4 + 9 * 20 + 3 * 1.
    let eg = gress_cycles(&p, Gress::Egress);
    assert!(eg >= 187, "{eg}");
    // Ingress lies between the all-concurrent and the all-wide bounds.
    let ing = gress_cycles(&p, Gress::Ingress);
    assert!(ing > 4 + 5 * 20 && ing < 4 + 5 * 30 + 7 * 2, "{ing}");
}

#[test]
fn bfrt_pairs_with_its_context() {
    for (ctx, bfrt, _, ing, eg, _) in REAL {
        let plain = read_context(&fixture(ctx), ctx).unwrap();
        let p = read_context_with_bfrt(&fixture(ctx), ctx, &fixture(bfrt), bfrt).unwrap();
        assert_eq!(p.files.len(), 2, "{ctx}");
        assert_eq!(p.tables.len(), plain.tables.len());
        let note = p
            .notes
            .iter()
            .find(|n| n.starts_with("bfrt.json"))
            .unwrap_or_else(|| panic!("{ctx}: no pairing note"));
        // Every BF-RT match table has a context table.
        assert!(
            !p.notes
                .iter()
                .any(|n| n.starts_with("bfrt.json match tables absent")),
            "{ctx}: {:?}",
            p.notes
        );
        assert!(note.contains("paired by name"), "{note}");
        assert_eq!(
            (
                gress_cycles(&p, Gress::Ingress),
                gress_cycles(&p, Gress::Egress)
            ),
            (*ing, *eg)
        );
    }
    // tna_action_selector: both user match tables and the phase-0 table pair.
    let (c, b) = (
        "open-p4studio__tna_action_selector__context.json",
        "open-p4studio__tna_action_selector__bf-rt.json",
    );
    let p = read_context_with_bfrt(&fixture(c), c, &fixture(b), b).unwrap();
    assert!(
        p.notes
            .iter()
            .any(|n| n.contains("3 of 4 match tables paired")),
        "{:?}",
        p.notes
    );
}

#[test]
fn bfrt_of_another_kind_is_rejected() {
    let c = "open-p4studio__tna_exact_match__context.json";
    let err = read_context_with_bfrt(&fixture(c), c, &fixture(c), "ctx-as-bfrt.json").unwrap_err();
    assert!(err.to_string().contains("not a BF-RT JSON"), "{err}");
    let err = read_context(
        &fixture("open-p4studio__tna_exact_match__bf-rt.json"),
        "b.json",
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("not a Tofino context.json"),
        "{err}"
    );
}

/// (name, kind, size, width, direct) of one extern instance.
type ExternRow<'a> = (&'a str, ExternKind, Option<u64>, Option<u32>, bool);

fn externs(p: &Program) -> Vec<ExternRow<'_>> {
    p.externs
        .iter()
        .map(|e| {
            (
                e.name.as_str(),
                e.kind.clone(),
                e.size,
                e.width_bits,
                e.direct,
            )
        })
        .collect()
}

#[test]
fn externs_of_the_open_p4studio_examples() {
    // The selector (size 200) with its action profile (2048); the hidden
    // `$salu` stateful table holding the selector's members is no register.
    let f = "open-p4studio__tna_action_selector__context.json";
    let p = read_context(&fixture(f), f).unwrap();
    assert_eq!(
        externs(&p),
        vec![
            (
                "SwitchIngress.example_action_selector",
                ExternKind::ActionSelector,
                Some(200),
                None,
                false
            ),
            (
                "SwitchIngress.example_action_selector_ap",
                ExternKind::ActionProfile,
                Some(2048),
                None,
                false
            ),
        ]
    );
    assert!(p.notes.iter().any(|n| n.contains("2 of them")));

    // Two indirect action tables of 1024 entries.
    let f = "open-p4studio__tna_action_profile__context.json";
    let p = read_context(&fixture(f), f).unwrap();
    assert_eq!(
        externs(&p),
        vec![
            (
                "SwitchIngress.action_profile",
                ExternKind::ActionProfile,
                Some(1024),
                None,
                false
            ),
            (
                "SwitchIngress.shared_action_profile",
                ExternKind::ActionProfile,
                Some(1024),
                None,
                false
            ),
        ]
    );

    // A direct counter and a direct meter of ipRoute (4096 entries); its
    // direct `$action` data table is no profile.
    let f = "open-p4studio__tna_exact_match__context.json";
    let p = read_context(&fixture(f), f).unwrap();
    assert_eq!(
        externs(&p),
        vec![
            (
                "SwitchIngress.cntr",
                ExternKind::Counter,
                Some(4096),
                None,
                true
            ),
            (
                "SwitchIngress.meter",
                ExternKind::Meter,
                Some(4096),
                None,
                true
            ),
        ]
    );
}

#[test]
fn fabric_int_register_and_counters() {
    let f = "fabric-tna__fabric-int__sde9.2.0__context.json";
    let p = read_context(&fixture(f), f).unwrap();
    let e = externs(&p);
    assert_eq!(
        e.iter()
            .filter(|r| r.1 == ExternKind::Counter && r.4)
            .count(),
        9
    );
    assert!(e.contains(&(
        "FabricEgress.int_egress.seq_number",
        ExternKind::Register,
        Some(1024),
        Some(32),
        false
    )));
    assert!(e.contains(&(
        "FabricIngress.next.hashed_profile",
        ExternKind::ActionProfile,
        Some(1024),
        None,
        false
    )));
    assert!(e.contains(&(
        "FabricIngress.next.hashed_selector",
        ExternKind::ActionSelector,
        Some(1024),
        None,
        false
    )));
    assert_eq!(e.len(), 12);
}
