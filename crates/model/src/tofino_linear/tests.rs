use super::*;
use crate::model_by_name;
use p4cost_analysis::{PathExtract, PathState};
use p4cost_ir::*;

fn sp() -> Span {
    Span::file_start(FileId(0))
}

/// A TNA-shaped path: a start state with intrinsic metadata (8 B) and a
/// port-metadata skip, Ethernet, then one state per entry of `bytes`.
fn path(bytes: &[u64]) -> ParsePath {
    let ex = |h: &str, b: u64, o: Origin| PathExtract {
        header: h.into(),
        index: None,
        bits: b * 8,
        varbit_max_bits: 0,
        origin: o,
    };
    let mut states = vec![
        PathState {
            state: StateId(0),
            name: "start".into(),
            extracts: vec![ex("ig_intr_md", 8, Origin::Architecture)],
            extracted_bits: 64,
            advanced_bits: Some(64),
            span: sp(),
        },
        PathState {
            state: StateId(1),
            name: "parse_ethernet".into(),
            extracts: vec![ex("hdr.ethernet", 14, Origin::Program)],
            extracted_bits: 112,
            advanced_bits: Some(0),
            span: sp(),
        },
    ];
    for (i, b) in bytes.iter().enumerate() {
        states.push(PathState {
            state: StateId(2 + i as u32),
            name: format!("s{i}"),
            extracts: vec![ex(&format!("hdr.h{i}"), *b, Origin::Program)],
            extracted_bits: b * 8,
            advanced_bits: Some(0),
            span: sp(),
        });
    }
    ParsePath { states }
}

fn table(p: &mut Program, name: &str, keys: &[(u32, MatchKind)], size: u64) -> TableId {
    p.tables.push(Table {
        keys: keys
            .iter()
            .map(|(w, m)| TableKey {
                field: format!("k{w}"),
                width_bits: Some(*w),
                match_kind: m.clone(),
                reads: vec![],
                span: sp(),
            })
            .collect(),
        size: Some(size),
        ..Table::new(name, sp())
    });
    TableId((p.tables.len() - 1) as u32)
}

fn run(model: &str, bytes: &[u64], packet: u32, p: &Program, tables: &[TableId]) -> Prediction {
    let m = model_by_name(model).expect("model");
    let path = path(bytes);
    predict(
        &m,
        &Inputs {
            program: p,
            path: &path,
            tables,
            packet_size: packet,
        },
    )
}

/// The paper's published LR predictions (docs/models.md, two coefficient sets), reproduced by the
/// `-paper-lr` coefficient sets within 0.01 ns.
#[test]
fn paper_lr_reproduces_the_fourteen_published_predictions() {
    let cases: &[(&str, &[u64], u32, f64, f64)] = &[
        ("TC1", &[4, 4, 40, 8], 600, 318.926, 188.751),
        ("TC2", &[20, 8, 8, 14], 900, 388.886, 204.945),
        ("TC3", &[4, 4, 4, 4, 14], 700, 339.825, 193.041),
        ("TC4", &[4, 4, 4, 4, 4, 20], 1300, 487.497, 229.189),
        ("TC5", &[20, 20, 4, 12, 8, 8], 1100, 447.049, 221.355),
        ("TC6A", &[20, 4, 4, 14], 200, 220.781, 164.830),
        ("TC6B", &[40, 8], 300, 240.097, 168.212),
    ];
    let p = Program::new("t", InputKind::P4Source);
    for (name, bytes, pkt, l10, l100) in cases {
        let got10 = run("tofino1-10g-paper-lr", bytes, *pkt, &p, &[]).latency_ns;
        let got100 = run("tofino1-100g-paper-lr", bytes, *pkt, &p, &[]).latency_ns;
        assert!((got10 - l10).abs() < 0.01, "{name} 10G: {got10} vs {l10}");
        assert!(
            (got100 - l100).abs() < 0.01,
            "{name} 100G: {got100} vs {l100}"
        );
    }
}

/// TC2 on the printed 10G model, by hand from docs/models.md, Tofino 1 ingress latency:
/// L_B = 0.237*900 + 152.42 = 365.72;
/// L_PD = 0.221*(20+8+8+14) + 4*2.886 = 11.05 + 11.544 = 22.594;
/// L_C = one exact table with four keys (k=8 class) = 0.492;
/// total 388.806.
#[test]
fn printed_10g_model_by_hand_tc2() {
    let mut p = Program::new("t", InputKind::P4Source);
    let t = table(
        &mut p,
        "flows",
        &[
            (32, MatchKind::Exact),
            (32, MatchKind::Exact),
            (16, MatchKind::Exact),
            (16, MatchKind::Exact),
        ],
        5120,
    );
    let r = run("tofino1-10g", &[20, 8, 8, 14], 900, &p, &[t]);
    assert!((r.breakdown.base_ns - 365.72).abs() < 1e-9);
    assert!((r.breakdown.parser_ns - 22.594).abs() < 1e-9);
    assert!((r.breakdown.control_ns - 0.492).abs() < 1e-9);
    assert!((r.latency_ns - 388.806).abs() < 1e-9);
    // Four keys: outside the 1-3 keys trained.
    assert!(r.warnings.iter().any(|w| w.code == "too_many_keys"));
    // 900 B at 10G is in the non-linear region.
    assert!(r.warnings.iter().any(|w| w.code == "nonlinear_region"));
}

/// TC6B on the printed 100G model, by hand:
/// L_B = 0.056*300 + 143.441 = 160.241;
/// L_PD = (0.105*40 + 1.431) + (0.105*8 + 1.431) = 5.631 + 2.271 = 7.902;
/// L_C = LPM one 128-bit key (wide) 0.896 + exact one 32-bit key (wide)
/// 0.685 = 1.581; total 169.724.
#[test]
fn printed_100g_model_by_hand_tc6b() {
    let mut p = Program::new("t", InputKind::P4Source);
    let a = table(&mut p, "v6_lpm", &[(128, MatchKind::Lpm)], 30720);
    let b = table(&mut p, "v4_exact", &[(32, MatchKind::Exact)], 1536);
    let r = run("tofino1-100g", &[40, 8], 300, &p, &[a, b]);
    assert!((r.latency_ns - 169.724).abs() < 1e-9, "{}", r.latency_ns);
    assert_eq!(r.breakdown.tables[0].match_class, "lpm");
    assert_eq!(r.breakdown.tables[0].key_class, "wide");
    assert_eq!(r.breakdown.tables[1].key_class, "wide");
    // 40 B state and 128-bit key are extrapolations.
    assert!(r
        .warnings
        .iter()
        .any(|w| w.code == "header_size_out_of_range"));
    assert!(r
        .warnings
        .iter()
        .any(|w| w.code == "key_width_out_of_range"));
    assert!(!r.warnings.iter().any(|w| w.code == "nonlinear_region"));
}

#[test]
fn key_classes_follow_the_paper() {
    let mut p = Program::new("t", InputKind::P4Source);
    let one8 = table(&mut p, "a", &[(8, MatchKind::Exact)], 10);
    let one16 = table(&mut p, "b", &[(16, MatchKind::Exact)], 10);
    let two8 = table(
        &mut p,
        "c",
        &[(16, MatchKind::Exact), (16, MatchKind::Exact)],
        10,
    );
    let tern = table(&mut p, "d", &[(16, MatchKind::Ternary)], 10);
    let r = run("tofino1-10g", &[], 500, &p, &[one8, one16, two8, tern]);
    let ns: Vec<f64> = r.breakdown.tables.iter().map(|t| t.ns).collect();
    assert_eq!(ns, vec![0.492, 0.601, 0.492, 0.887]);
    assert!(r
        .warnings
        .iter()
        .any(|w| w.code == "match_kind_not_modelled"));
    let t = &r.breakdown.tables;
    assert_eq!(t[2].match_kind, "exact");
    assert!(t[2]
        .class_reason
        .contains("2 keys: the paper's key-class rule"));
    assert_eq!(
        (t[3].match_kind.as_str(), t[3].match_class.as_str()),
        ("ternary", "lpm")
    );
    assert!(t[3]
        .class_reason
        .starts_with("ternary keys were not measured"));
    assert!(t[0].class_reason.contains("one 8-bit key, below 16 bits"));
}

#[test]
fn mixed_kinds_are_named_and_untrained_kinds_listed_once() {
    let mut p = Program::new("t", InputKind::P4Source);
    let t = table(
        &mut p,
        "acl",
        &[
            (16, MatchKind::Exact),
            (16, MatchKind::Ternary),
            (8, MatchKind::Ternary),
        ],
        10,
    );
    let r = run("tofino1-10g", &[], 500, &p, &[t]);
    assert_eq!(r.breakdown.tables[0].match_kind, "exact+ternary");
    let w: Vec<_> = r
        .warnings
        .iter()
        .filter(|w| w.code == "match_kind_not_modelled")
        .collect();
    assert_eq!(w.len(), 1);
    assert!(
        w[0].message.contains("matches with ternary (trained"),
        "{}",
        w[0].message
    );
}

#[test]
fn baseline_covers_metadata_and_first_header_only() {
    let p = Program::new("t", InputKind::P4Source);
    let r = run("tofino1-10g", &[20], 500, &p, &[]);
    let s = &r.breakdown.states;
    assert!(s[0].in_baseline && s[1].in_baseline && !s[2].in_baseline);
    assert_eq!((s[0].ns, s[1].ns), (0.0, 0.0));
    assert!((s[2].ns - (0.221 * 20.0 + 2.886)).abs() < 1e-12);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

#[test]
fn packet_size_outside_training_is_flagged() {
    let p = Program::new("t", InputKind::P4Source);
    let r = run("tofino1-100g", &[20], 64, &p, &[]);
    assert!(r
        .warnings
        .iter()
        .any(|w| w.code == "packet_size_out_of_range"));
}

#[test]
fn a_non_linear_model_predicts_nothing_and_says_so() {
    let p = Program::new("t", InputKind::P4Source);
    let r = run("tofino1-mau-cycles", &[20], 500, &p, &[]);
    assert_eq!(r.latency_ns, 0.0);
    assert_eq!(r.warnings.len(), 1);
    assert_eq!(r.warnings[0].code, "model_not_linear");
}

proptest::proptest! {
    /// Adding a parse state (anywhere after the first, with any bytes,
    /// metadata or program header) never lowers `L_PD`: every counted
    /// state adds a positive term and the baseline only ever covers the
    /// states up to the first program header.
    #[test]
    fn adding_a_parse_state_never_lowers_l_pd(
        bytes in proptest::collection::vec(0u64..64, 0..8),
        at in 0usize..10,
        extra in 0u64..64,
        metadata in proptest::bool::ANY,
    ) {
        let model = model_by_name("tofino1-10g").unwrap();
        let program = Program::new("t", InputKind::P4Source);
        let before = path(&bytes);
        let mut after = before.clone();
        let pos = 1 + at % after.states.len();
        after.states.insert(
            pos,
            PathState {
                state: StateId(99),
                name: "added".into(),
                extracts: vec![PathExtract {
                    header: "hdr.added".into(),
                    index: None,
                    bits: extra * 8,
                    varbit_max_bits: 0,
                    origin: if metadata { Origin::Architecture } else { Origin::Program },
                }],
                extracted_bits: extra * 8,
                advanced_bits: Some(0),
                span: sp(),
            },
        );
        let l = |p: &ParsePath| {
            predict(
                &model,
                &Inputs {
                    program: &program,
                    path: p,
                    tables: &[],
                    packet_size: 512,
                },
            )
            .breakdown
            .parser_ns
        };
        proptest::prop_assert!(l(&after) >= l(&before) - 1e-9, "{} < {}", l(&after), l(&before));
    }
}

/// A path's prediction that shares the control term (its tables and
/// warnings left out, for the caller to keep once) is the full prediction
/// once the control's tables and warnings are put back where they stand.
#[test]
fn sharing_the_control_leaves_out_only_its_tables_and_warnings() {
    let mut p = Program::new("t", InputKind::P4Source);
    let acl = table(&mut p, "acl", &[(16, MatchKind::Ternary)], 10);
    let fwd = table(&mut p, "fwd", &[(32, MatchKind::Exact)], 10);
    let m = model_by_name("tofino1-10g").expect("model");
    let tables = [acl, fwd];
    for packet in [20, 500, 2000] {
        let path = path(&[20, 40]);
        let inp = Inputs {
            program: &p,
            path: &path,
            tables: &tables,
            packet_size: packet,
        };
        let ctl = control_terms_of(&m, &inp).expect("linear");
        assert!(!ctl.tables.is_empty() && !ctl.warnings.is_empty());
        let full = predict_with_control(&m, &inp, &ctl);
        let (mut shared, at) = predict_sharing_control(&m, &inp, &ctl);
        assert!(shared.breakdown.tables.is_empty());
        let at = at.expect("linear");
        shared.breakdown.tables = ctl.tables.clone();
        shared.warnings.splice(at..at, ctl.warnings.iter().cloned());
        assert_eq!(
            format!("{shared:?}"),
            format!("{full:?}"),
            "packet {packet}"
        );
    }
}
