//! Reads every BMv2 JSON fixture and checks it against figures recorded
//! independently in tests/fixtures/SOURCES.md (copied from the shared
//! fixture notes) and against facts checked by hand in the JSON.

use p4cost_ir::{
    Action, Arch, CmpOp, CondNode, ControlRole, ExternKind, ExternUse, HeaderKind, Keyset,
    MatchKind, NodeKind, ParserOp, Program, StackAccess, TableNext, Target, Transition,
};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/bmv2/");

fn text(name: &str) -> String {
    std::fs::read_to_string(format!("{DIR}{name}")).unwrap()
}

fn load(name: &str) -> Program {
    match p4cost_bmv2::read(&text(name), name) {
        Ok(p) => p,
        Err(e) => panic!("{name}: {e}"),
    }
}

/// (file, header_types, parse states, tables, conditionals, actions).
/// Real files: tables/conditionals/parse states from the `contents`
/// column of SOURCES.md, header_types and actions from the array lengths.
/// Compiled files: all five from SOURCES.md (figures.py).
const FIGURES: &[(&str, usize, usize, usize, usize, usize)] = &[
    ("behavioral-model__action_profile.json", 3, 1, 1, 0, 2),
    ("behavioral-model__meter.json", 2, 1, 1, 0, 2),
    ("behavioral-model__parser_error.json", 3, 1, 5, 3, 5),
    (
        "behavioral-model__pna-demo-L2-one-table.json",
        5,
        1,
        0,
        0,
        0,
    ),
    ("behavioral-model__pvs_struct_2.json", 3, 2, 2, 0, 3),
    ("behavioral-model__simple_router.json", 5, 3, 3, 1, 9),
    ("onos__basic.json", 8, 6, 11, 6, 16),
    ("onos__fabric-full.json", 30, 26, 95, 64, 179),
    ("onos__fabric.json", 15, 20, 41, 29, 64),
    ("onos__int.json", 22, 7, 21, 12, 61),
    ("onos__mytunnel.json", 7, 5, 10, 8, 16),
    ("p4pktgen__checksum-ipv4-with-options.json", 6, 3, 1, 2, 1),
    ("p4pktgen__demo16.json", 9, 1, 14, 14, 14),
    ("p4pktgen__header-stack-ops-bmv2.json", 5, 3, 24, 30, 25),
    (
        "p4pktgen__parser-impossible-transitions2.json",
        8,
        6,
        8,
        8,
        8,
    ),
    ("p4pktgen__switch-p416.json", 74, 47, 129, 77, 607),
    ("p4pktgen__table-key-mask.json", 5, 2, 1, 2, 2),
    ("p4pktgen__tcp-options-parser2.json", 9, 11, 3, 0, 6),
    ("action_profile-bmv2.json", 2, 1, 2, 0, 4),
    ("action_selector_shared-bmv2.json", 2, 1, 2, 0, 4),
    ("basic_routing-bmv2.json", 4, 2, 6, 1, 16),
    ("checksum-l4-bmv2.json", 8, 4, 2, 2, 4),
    ("checksum1-bmv2.json", 6, 3, 1, 0, 1),
    ("crc32-bmv2.json", 4, 3, 2, 1, 8),
    ("equality-varbit-bmv2.json", 3, 1, 2, 1, 2),
    ("fabric_20190420-fabric.json", 12, 13, 41, 26, 60),
    ("flowlet_switching-bmv2.json", 5, 4, 6, 1, 16),
    ("gauntlet_lookahead_expansion-bmv2.json", 3, 2, 0, 0, 0),
    ("gauntlet_nested_table_calls-bmv2.json", 3, 1, 6, 1, 7),
    ("gauntlet_switch_exclusivity-bmv2.json", 3, 1, 2, 0, 4),
    ("header-stack-ops-bmv2.json", 5, 3, 75, 86, 75),
    ("hit-expr-bmv2.json", 2, 1, 1, 0, 1),
    ("issue-2123-3-bmv2.json", 8, 6, 15, 5, 15),
    ("issue1352-bmv2.json", 4, 2, 4, 0, 9),
    ("issue1879-bmv2.json", 10, 6, 1, 1, 1),
    ("issue1897-bmv2.json", 5, 7, 0, 0, 0),
    ("issue2170-bmv2.json", 4, 1, 4, 1, 5),
    ("issue2465-bmv2.json", 3, 5, 0, 0, 0),
    ("issue297-bmv2.json", 2, 1, 2, 0, 4),
    ("issue355-bmv2.json", 3, 1, 0, 0, 0),
    ("issue364-bmv2.json", 3, 1, 1, 0, 1),
    ("issue447-bmv2.json", 3, 1, 0, 0, 0),
    ("issue461-bmv2.json", 4, 2, 3, 0, 6),
    ("issue561-bmv2.json", 11, 11, 3, 0, 6),
    ("issue995-bmv2.json", 3, 6, 1, 0, 1),
    ("named_meter_bmv2.json", 3, 2, 2, 0, 6),
    ("pvs-bitstring-bmv2.json", 3, 2, 2, 0, 3),
    ("pvs-struct-3-bmv2.json", 3, 2, 2, 0, 3),
    ("register-serenum-bmv2.json", 3, 1, 1, 0, 1),
    ("stack_complex-bmv2.json", 3, 1, 1, 0, 1),
    ("subparser-with-header-stack-bmv2.json", 5, 4, 6, 5, 6),
    ("switch_p4_16.json", 52, 48, 120, 68, 539),
    ("table-entries-lpm-bmv2.json", 3, 1, 1, 0, 2),
    ("table-entries-range-bmv2.json", 3, 1, 1, 0, 2),
    ("table-entries-ternary-bmv2.json", 3, 1, 1, 0, 2),
    ("ternary2-bmv2.json", 4, 2, 6, 0, 14),
    ("union-bmv2.json", 4, 3, 0, 0, 0),
    ("union-valid-bmv2.json", 4, 1, 2, 0, 2),
    ("v1model-const-entries-bmv2.json", 3, 1, 2, 0, 3),
    ("v1model-special-ops-bmv2.json", 5, 2, 8, 6, 17),
];

fn conditionals(p: &Program) -> usize {
    p.controls
        .iter()
        .flat_map(|c| &c.flow.nodes)
        .filter(|n| matches!(n.kind, NodeKind::Condition { .. }))
        .count()
}

#[test]
fn every_fixture_matches_its_recorded_counts() {
    let on_disk = std::fs::read_dir(DIR)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "json")
        })
        .count();
    assert_eq!(on_disk, FIGURES.len(), "every fixture has a row");
    for &(name, types, states, tables, conds, actions) in FIGURES {
        let p = load(name);
        let non_union = p
            .header_types
            .iter()
            .filter(|t| t.kind != HeaderKind::Union)
            .count();
        assert_eq!(non_union, types, "{name}: header types");
        let n_states: usize = p.parsers.iter().map(|x| x.states.len()).sum();
        assert_eq!(n_states, states, "{name}: parse states");
        assert_eq!(p.tables.len(), tables, "{name}: tables");
        assert_eq!(conditionals(&p), conds, "{name}: conditionals");
        assert_eq!(p.actions.len(), actions, "{name}: actions");
        // Every table appears as exactly one node, in its own control.
        let table_nodes: usize = p.controls.iter().map(|c| c.flow.tables().len()).sum();
        assert_eq!(table_nodes, tables, "{name}: table nodes");
        for (ci, c) in p.controls.iter().enumerate() {
            for t in c.flow.tables() {
                assert_eq!(p.table(t).control.map(|x| x.index()), Some(ci));
            }
        }
        assert_eq!(p.files[0].path, name);
        assert_eq!(p.input, p4cost_ir::InputKind::Bmv2Json);
        for span in p.actions.iter().map(|a| a.span) {
            assert!(span.file.index() < p.files.len());
        }
    }
}

#[test]
fn simple_router() {
    let p = load("behavioral-model__simple_router.json");
    assert_eq!(p.name, "simple_router");
    assert_eq!(p.arch, Arch::V1model);
    let t = p.table(p.table_by_name("ipv4_lpm").unwrap());
    assert_eq!(t.keys.len(), 1);
    assert_eq!(t.keys[0].field, "ipv4.dstAddr");
    assert_eq!(t.keys[0].match_kind, MatchKind::Lpm);
    assert_eq!(t.keys[0].width_bits, Some(32));
    assert_eq!(t.size, Some(1024));
    assert_eq!(t.actions.len(), 3);
    assert_eq!(p.action(t.default_action.unwrap()).name, "NoAction");
    // source_info: line 110, column 0 (0-based) of the P4 file.
    assert_eq!(
        p.file_path(t.span.file),
        "../../../simple_router/simple_router.p4"
    );
    assert_eq!((t.span.line, t.span.col), (110, 1));

    let set_nhop = p.actions.iter().find(|a| a.name == "set_nhop").unwrap();
    assert_eq!(set_nhop.params.len(), 2);
    assert_eq!(set_nhop.params[1].name, "port");
    assert_eq!(set_nhop.params[1].width_bits, Some(9));
    // Canonical names: packet headers under `hdr`; this P4-14 program's
    // metadata instance is quoted as `routing_metadata` and stays so.
    assert_eq!(
        set_nhop.writes,
        vec![
            "routing_metadata.nhop_ipv4",
            "standard_metadata.egress_spec",
            "hdr.ipv4.ttl"
        ]
    );
    assert_eq!(set_nhop.reads, vec!["hdr.ipv4.ttl"]);
    assert_eq!(set_nhop.primitives.len(), 3);
    assert_eq!(set_nhop.primitives[0].op, "assign");

    let ingress = p.control(p.ingress_control().unwrap());
    assert_eq!(ingress.role, ControlRole::Ingress);
    let entry = ingress.flow.node(ingress.flow.entry.unwrap());
    match &entry.kind {
        NodeKind::Condition {
            expr,
            reads,
            cond,
            then_next,
            else_next,
        } => {
            // The text names fields canonically, as the reads do.
            assert_eq!(expr, "hdr.ipv4.isValid() && (hdr.ipv4.ttl > 0x00)");
            // Hand-checked: {"op": "and", "left": d2b(["ipv4", "$valid$"]),
            // "right": {"op": ">", ["ipv4", "ttl"], "0x00"}}.
            assert_eq!(
                cond.nodes,
                vec![
                    CondNode::IsValid {
                        header: "hdr.ipv4".into()
                    },
                    CondNode::Field {
                        name: "hdr.ipv4.ttl".into()
                    },
                    CondNode::Int { value: "0".into() },
                    CondNode::Cmp {
                        cmp: CmpOp::Gt,
                        lhs: 1,
                        rhs: 2
                    },
                    CondNode::And { lhs: 0, rhs: 3 },
                ]
            );
            assert_eq!(reads, &cond.reads());
            assert_eq!(reads, &vec!["hdr.ipv4.$valid", "hdr.ipv4.ttl"]);
            assert_eq!(*else_next, None);
            let NodeKind::Table { table, next } = &ingress.flow.node(then_next.unwrap()).kind
            else {
                panic!("then branch is not a table");
            };
            assert_eq!(p.table(*table).name, "ipv4_lpm");
            // All actions go to `forward`.
            let TableNext::Always { next: Some(n) } = next else {
                panic!("expected Always, got {next:?}");
            };
            let NodeKind::Table { table, .. } = &ingress.flow.node(*n).kind else {
                panic!()
            };
            assert_eq!(p.table(*table).name, "forward");
        }
        other => panic!("entry is {other:?}"),
    }

    // Parser: start -> parse_ethernet -> select(etherType) 0x0800 -> parse_ipv4.
    let parser = p.parser(p.ingress_parser().unwrap());
    assert_eq!(parser.state(parser.start).name, "start");
    let eth = parser.state_by_name("parse_ethernet").unwrap();
    let ipv4 = parser.state_by_name("parse_ipv4").unwrap();
    assert_eq!(
        parser.state(parser.start).transition,
        Transition::Direct {
            target: Target::State(eth)
        }
    );
    let s = parser.state(eth);
    assert_eq!(s.extracted_bits(), 112);
    let Transition::Select { keys, cases } = &s.transition else {
        panic!()
    };
    assert_eq!(keys[0].expr, "ethernet.etherType");
    assert_eq!(keys[0].width_bits, Some(16));
    assert_eq!(cases.len(), 2);
    assert_eq!(
        cases[0].keysets,
        vec![Keyset::Value {
            value: "0x0800".to_string()
        }]
    );
    assert_eq!(cases[0].target, Target::State(ipv4));
    // Old-style `"value": "default"` without `type`.
    assert_eq!(cases[1].keysets, vec![Keyset::Default]);
    assert_eq!(cases[1].target, Target::Accept);
}

#[test]
fn stack_extract_and_parser_loop() {
    let p = load("header-stack-ops-bmv2.json");
    let parser = &p.parsers[0];
    let id = parser.state_by_name("parse_h2").unwrap();
    let s = parser.state(id);
    let ParserOp::Extract {
        header,
        instance,
        stack,
        bits,
        ..
    } = &s.ops[0]
    else {
        panic!("{:?}", s.ops[0]);
    };
    assert_eq!(header, "hdr.h2");
    assert_eq!(*stack, Some(StackAccess::Next));
    assert_eq!(*bits, 32);
    let inst = p.header(instance.unwrap());
    assert_eq!(inst.stack_size, Some(5));
    assert!(s.transition.targets().contains(&Target::State(id)));
    let Transition::Select { keys, .. } = &s.transition else {
        panic!()
    };
    assert_eq!(keys[0].expr, "h2.last.next_hdr_type");
    assert_eq!(keys[0].width_bits, Some(8));
    // Stack elements are represented by their stack.
    assert!(p.header_by_name("h2[0]").is_none());
    // push_front writes (and reads) the stack.
    let push = p
        .actions
        .iter()
        .find(|a| a.primitives.iter().any(|x| x.op == "push"))
        .unwrap();
    assert!(push.writes.contains(&"hdr.hdr_0_h2".to_string()));
    assert!(push.reads.contains(&"hdr.hdr_0_h2".to_string()));
}

#[test]
fn varbit_extract() {
    let p = load("equality-varbit-bmv2.json");
    let h = p.header_types.iter().find(|t| t.name == "H").unwrap();
    assert!(h.fields[1].varbit);
    assert_eq!(h.fields[1].width_bits, 32); // max_length 5 bytes - 8 fixed bits
    let ParserOp::Extract {
        bits,
        varbit_max_bits,
        header,
        ..
    } = &p.parsers[0].states[0].ops[0]
    else {
        panic!()
    };
    assert_eq!(header, "hdr.h");
    assert_eq!((*bits, *varbit_max_bits), (8, 32));
}

#[test]
fn value_sets_and_split_masks() {
    let p = load("pvs-struct-3-bmv2.json");
    let s = &p.parsers[0].states[0];
    let Transition::Select { keys, cases } = &s.transition else {
        panic!()
    };
    let widths: Vec<_> = keys.iter().map(|k| k.width_bits).collect();
    assert_eq!(widths, vec![Some(16), Some(3), Some(6), Some(5)]);
    assert_eq!(
        cases[0].keysets,
        vec![Keyset::ValueSet {
            name: "MyParser.pvs".to_string()
        }]
    );
    assert_eq!(cases[0].target, Target::Accept);
    let v = |s: &str| Keyset::Value {
        value: s.to_string(),
    };
    let m = |a: &str, b: &str| Keyset::Mask {
        value: a.to_string(),
        mask: b.to_string(),
    };
    // 0x081004320a &&& 0xffff06331e, split by byte-padded widths 16/3/6/5.
    assert_eq!(
        cases[1].keysets,
        vec![
            v("0x0810"),
            m("0x04", "0x06"),
            m("0x32", "0x33"),
            m("0x0a", "0x1e")
        ]
    );
    // 0x0810043214 &&& 0xffff06331f: the last mask covers all 5 bits.
    assert_eq!(cases[4].keysets[3], v("0x14"));

    let p = load("pvs-bitstring-bmv2.json");
    let has_vset = p.parsers[0].states.iter().any(|s| match &s.transition {
        Transition::Select { cases, .. } => cases
            .iter()
            .any(|c| matches!(c.keysets.as_slice(), [Keyset::ValueSet { .. }])),
        _ => false,
    });
    assert!(has_vset);
}

#[test]
fn hit_miss_next_tables() {
    let p = load("gauntlet_nested_table_calls-bmv2.json");
    let c = p.control(p.ingress_control().unwrap());
    let tid = p.table_by_name("ingress.exit_table").unwrap();
    let next = c
        .flow
        .nodes
        .iter()
        .find_map(|n| match &n.kind {
            NodeKind::Table { table, next } if *table == tid => Some(next.clone()),
            _ => None,
        })
        .unwrap();
    let TableNext::HitMiss {
        hit: Some(h),
        miss: Some(m),
    } = next
    else {
        panic!("{next:?}")
    };
    let name = |id: p4cost_ir::NodeId| match &c.flow.node(id).kind {
        NodeKind::Table { table, .. } => p.table(*table).name.clone(),
        _ => String::new(),
    };
    assert_eq!(name(h), "tbl_act");
    assert_eq!(name(m), "tbl_act_0");

    let p = load("hit-expr-bmv2.json");
    let NodeKind::Table { next, .. } = &p.controls[0].flow.nodes[0].kind else {
        panic!()
    };
    assert_eq!(
        next,
        &TableNext::HitMiss {
            hit: None,
            miss: None
        }
    );
}

#[test]
fn switch_on_action_run() {
    let p = load("gauntlet_switch_exclusivity-bmv2.json");
    let c = &p.controls[0];
    let tid = p.table_by_name("ingress.simple_table").unwrap();
    let NodeKind::Table { table, next } = &c.flow.nodes[0].kind else {
        panic!()
    };
    assert_eq!(*table, tid);
    let TableNext::ByAction { arms, default } = next else {
        panic!("{next:?}")
    };
    assert_eq!(*default, None);
    let named: Vec<(String, Option<String>)> = arms
        .iter()
        .map(|(a, n)| {
            let target = n.map(|n| match &c.flow.node(n).kind {
                NodeKind::Table { table, .. } => p.table(*table).name.clone(),
                _ => String::new(),
            });
            (p.action(*a).name.clone(), target)
        })
        .collect();
    assert_eq!(
        named,
        vec![
            (
                "ingress.action_0".to_string(),
                Some("tbl_gauntlet_switch_exclusivitybmv2l45".to_string())
            ),
            ("ingress.action_1".to_string(), None),
            ("NoAction".to_string(), None),
        ]
    );
    let call = p.table(
        p.table_by_name("tbl_gauntlet_switch_exclusivitybmv2l45")
            .unwrap(),
    );
    assert!(call.keys.is_empty());
    assert!(call
        .annotations
        .iter()
        .any(|a| a.name == "action_call" && a.body == "gauntlet_switch_exclusivitybmv2l45"));
}

#[test]
fn key_masks_profiles_and_entries() {
    let p = load("p4pktgen__table-key-mask.json");
    let t = p.table(p.table_by_name("ipv4_da").unwrap());
    // 32-bit dstAddr under the non-contiguous mask 0xff00ff00: 16 bits.
    assert_eq!(t.keys[0].width_bits, Some(16));
    assert!(t
        .annotations
        .iter()
        .any(|a| a.name == "key_mask" && a.body == "ipv4.dstAddr &&& 0xff00ff00"));

    let p = load("behavioral-model__action_profile.json");
    assert!(p.tables[0].implementation.is_some());

    let p = load("table-entries-ternary-bmv2.json");
    let t = p.table(p.table_by_name("ingress.t_ternary").unwrap());
    assert_eq!(t.const_entries, 4);
    assert_eq!(t.keys[0].match_kind, MatchKind::Ternary);
    let p = load("table-entries-range-bmv2.json");
    assert_eq!(p.tables[0].keys[0].match_kind, MatchKind::Range);
}

#[test]
fn unions_and_union_stacks() {
    let p = load("union-bmv2.json");
    let u = p.header(p.header_by_name("u").unwrap());
    assert_eq!(p.header_type(u.ty).kind, HeaderKind::Union);
    let ParserOp::Extract {
        header, instance, ..
    } = &p.parsers[0].states[1].ops[0]
    else {
        panic!()
    };
    assert_eq!(header, "hdr.u.h1");
    assert!(instance.is_some());

    let p = load("issue561-bmv2.json");
    let inst = p.header(p.header_by_name("tcp_options_vec").unwrap());
    assert!(inst.stack_size.is_some());
    let s = p.parsers[0]
        .state_by_name("Tcp_option_parser_parse_tcp_option_sack")
        .unwrap();
    let extract = p.parsers[0]
        .state(s)
        .ops
        .iter()
        .find(|o| matches!(o, ParserOp::Extract { .. }))
        .unwrap();
    let ParserOp::Extract {
        header,
        stack,
        bits,
        varbit_max_bits,
        ..
    } = extract
    else {
        panic!()
    };
    assert_eq!(header, "hdr.tcp_options_vec");
    assert_eq!(*stack, Some(StackAccess::Next));
    // Tcp_option_sack_h: kind 8 + length 8, max_length 34 bytes.
    assert_eq!((*bits, *varbit_max_bits), (16, 34 * 8 - 16));
}

#[test]
fn lookahead_and_pna() {
    let p = load("gauntlet_lookahead_expansion-bmv2.json");
    let has = p.parsers[0]
        .states
        .iter()
        .flat_map(|s| &s.ops)
        .any(|o| matches!(o, ParserOp::Lookahead { bits: Some(_), .. }));
    assert!(has);

    let p = load("behavioral-model__pna-demo-L2-one-table.json");
    assert_eq!(p.arch, Arch::Pna);
    assert_eq!(p.controls[0].role, ControlRole::Ingress);
    assert_eq!(p.pipelines.len(), 1);
    // BMv2 JSON holds one package binding; it takes the name of the
    // source's single-pipeline `main`, so both inputs name it alike.
    assert_eq!(p.pipelines[0].name, "main");
}

#[test]
fn the_large_switch_program_loads() {
    let p = load("p4pktgen__switch-p416.json");
    assert_eq!(p.tables.len(), 129);
    let p = load("switch_p4_16.json");
    assert_eq!(p.tables.len(), 120);
    assert!(p.controls.iter().any(|c| c.role == ControlRole::Egress));
}

#[test]
fn profiles_selectors_registers_and_hashes() {
    let p = load("action_profile-bmv2.json");
    let ind = p.table(p.table_by_name("IngressI.indirect").unwrap());
    assert_eq!(ind.implementation.as_deref(), Some("ap"));
    assert!(!ind.annotations.iter().any(|a| a.name == "action_selector"));
    let ws = p.table(p.table_by_name("IngressI.indirect_ws").unwrap());
    assert_eq!(ws.implementation.as_deref(), Some("ap_ws"));
    assert!(ws
        .annotations
        .iter()
        .any(|a| a.name == "action_selector" && a.body == "ap_ws"));

    let p = load("flowlet_switching-bmv2.json");
    let act = |n: &str| p.actions.iter().find(|a| a.name == n).unwrap();
    let calls = |a: &Action| -> Vec<(String, String, String, ExternUse)> {
        a.externs
            .iter()
            .map(|x| (x.instance.clone(), x.ty.clone(), x.method.clone(), x.uses))
            .collect()
    };
    let row = |i: &str, t: &str, m: &str, u: ExternUse| (i.into(), t.into(), m.into(), u);
    // register_write(reg, index, value): a stateful ALU call; reads the
    // index and value, writes no field (the register is not a field).
    let upd = act("ingress.update_flowlet_id");
    assert_eq!(
        calls(upd),
        vec![row(
            "ingress.flowlet_id",
            "register",
            "write",
            ExternUse::StatefulAlu
        )]
    );
    assert!(upd.reads.contains(&"scalars.tmp_16".to_string()));
    // `scalars.metadata._ingress_metadata_flowlet_id2` is the source's
    // `meta.ingress_metadata.flowlet_id`.
    assert!(upd
        .reads
        .contains(&"meta.ingress_metadata.flowlet_id".to_string()));
    assert!(!upd
        .writes
        .iter()
        .any(|w| w.contains("flowlet_id") && w.starts_with("ingress.")));
    // register_read(dst, reg, index): writes dst.
    let look = act("ingress.lookup_flowlet_map");
    assert!(look
        .writes
        .contains(&"meta.ingress_metadata.flowlet_id".to_string()));
    assert!(!look.reads.contains(&"ingress.flowlet_id".to_string()));
    // Hand-checked primitive order: hash (calc_0), register_read
    // flowlet_id, register_read flowlet_lasttime, register_write
    // flowlet_lasttime.
    assert_eq!(
        calls(look),
        vec![
            row("calc_0", "hash", "hash", ExternUse::Hash),
            row(
                "ingress.flowlet_id",
                "register",
                "read",
                ExternUse::StatefulAlu
            ),
            row(
                "ingress.flowlet_lasttime",
                "register",
                "read",
                ExternUse::StatefulAlu
            ),
            row(
                "ingress.flowlet_lasttime",
                "register",
                "write",
                ExternUse::StatefulAlu
            ),
        ]
    );
    // The call sites are the primitives' source_info lines.
    assert!(look.externs.iter().all(|x| x.span.line > 1));
    // A hash reads the inputs of its calculation (`calc`: tmp_0..tmp_5)
    // and writes its destination.
    let ecmp = act("ingress.set_ecmp_select");
    assert_eq!(
        calls(ecmp),
        vec![row("calc", "hash", "hash", ExternUse::Hash)]
    );
    assert!(ecmp
        .writes
        .contains(&"meta.ingress_metadata.ecmp_offset".to_string()));
    for f in ["scalars.tmp_0", "scalars.tmp_5", "scalars.tmp_6"] {
        assert!(ecmp.reads.contains(&f.to_string()), "{f}");
    }
}

/// (field, width) of every key of a table.
fn key_widths(p: &Program, table: &str) -> Vec<(String, Option<u32>)> {
    let t = p.table(p.table_by_name(table).unwrap());
    t.keys
        .iter()
        .map(|k| (k.field.clone(), k.width_bits))
        .collect()
}

fn kw(field: &str, width: u32) -> (String, Option<u32>) {
    (field.to_string(), Some(width))
}

#[test]
fn masked_slice_keys_take_the_mask_width() {
    // JSON format 2.7: slices are the whole field plus a `mask`. Masks and
    // widths read by hand from the JSON (header_types for the fields).
    let p = load("p4pktgen__switch-p416.json");
    // ipv4.srcAddr (32) &&& 0xff000000 -> 8 bits.
    assert_eq!(
        key_widths(&p, "validate_outer_ipv4_packet"),
        vec![
            kw("ipv4.version", 4),
            kw("ipv4.ttl", 8),
            kw("ipv4.srcAddr", 8)
        ]
    );
    // ipv6.srcAddr (128) &&& 0xffff00..00 -> 16 bits.
    assert_eq!(
        key_widths(&p, "validate_outer_ipv6_packet"),
        vec![
            kw("ipv6.version", 4),
            kw("ipv6.hopLimit", 8),
            kw("ipv6.srcAddr", 16)
        ]
    );
    let w = key_widths(&p, "validate_packet");
    assert_eq!(w.len(), 7);
    assert_eq!(w[5], kw("ipv4_metadata.lkp_ipv4_sa", 8));
    assert_eq!(w[6], kw("ipv6_metadata.lkp_ipv6_sa", 16));
    // ipv4.dstAddr &&& 0xf0000000 -> 4; ipv6.dstAddr &&& 0xff00..00 -> 8.
    let w = key_widths(&p, "rewrite_multicast");
    assert_eq!(w[2..], [kw("ipv4.dstAddr", 4), kw("ipv6.dstAddr", 8)]);
    let w = key_widths(&p, "l3_rewrite");
    assert_eq!(w[3..], [kw("ipv4.dstAddr", 4), kw("ipv6.dstAddr", 8)]);
    let t = p.table(p.table_by_name("l3_rewrite").unwrap());
    assert!(t
        .annotations
        .iter()
        .any(|a| a.name == "key_mask" && a.body == "ipv4.dstAddr &&& 0xf0000000"));
    // Unmasked keys keep the field width.
    let t = p.table(p.table_by_name("validate_outer_ipv4_packet").unwrap());
    assert_eq!(t.keys[0].match_kind, MatchKind::Ternary);
}

/// The selector keys of a table, as (field, width).
fn selector_keys(p: &Program, table: &str) -> Vec<(String, Option<u32>)> {
    let t = p.table(p.table_by_name(table).unwrap());
    t.keys
        .iter()
        .filter(|k| k.match_kind == MatchKind::Selector)
        .map(|k| (k.field.clone(), k.width_bits))
        .collect()
}

#[test]
fn selector_inputs_become_selector_keys() {
    // action_profiles[].selector.input, widths from header_types.
    let p = load("action_profile-bmv2.json");
    // `ap` has no selector: no keys at all.
    assert!(p
        .table(p.table_by_name("IngressI.indirect").unwrap())
        .keys
        .is_empty());
    assert_eq!(
        selector_keys(&p, "IngressI.indirect_ws"),
        vec![kw("scalars.M.hash1", 32)]
    );
    assert_eq!(
        p.table(p.table_by_name("IngressI.indirect_ws").unwrap())
            .keys
            .len(),
        1
    );

    // Both tables sharing the selector get its input.
    let p = load("action_selector_shared-bmv2.json");
    for t in ["IngressI.indirect_ws", "IngressI.indirect_ws_1"] {
        assert_eq!(selector_keys(&p, t), vec![kw("scalars.M.hash1", 32)]);
    }

    // Fabric: the exact next_id key first, then the five hashed fields.
    let p = load("fabric_20190420-fabric.json");
    let t = p.table(p.table_by_name("FabricIngress.next.hashed").unwrap());
    assert_eq!(t.keys[0].field, "scalars.fabric_metadata_t._next_id10");
    assert_eq!(t.keys[0].match_kind, MatchKind::Exact);
    assert_eq!(
        selector_keys(&p, "FabricIngress.next.hashed"),
        vec![
            kw("ipv4.dst_addr", 32),
            kw("ipv4.src_addr", 32),
            kw("scalars.fabric_metadata_t._ip_proto14", 8),
            kw("scalars.fabric_metadata_t._l4_sport15", 16),
            kw("scalars.fabric_metadata_t._l4_dport16", 16),
        ]
    );
    assert_eq!(t.keys.len(), 6);
    assert!(t
        .annotations
        .iter()
        .any(|a| a.name == "action_selector" && a.body == "FabricIngress.next.hashed_selector"));
}

/// (name, kind, size, width, direct) of one extern instance.
type ExternRow<'a> = (&'a str, ExternKind, Option<u64>, Option<u32>, bool);

/// The rows of every extern instance.
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

fn order<'p>(p: &'p Program, deparser: &str) -> Vec<&'p str> {
    let d = p.deparsers.iter().find(|d| d.name == deparser).unwrap();
    d.order.iter().map(String::as_str).collect()
}

#[test]
fn registers_meters_counters_and_profiles() {
    // register_arrays of flowlet_switching: two 8192-cell registers of
    // bit<16> and bit<32>, declared at lines 117 and 118.
    let p = load("flowlet_switching-bmv2.json");
    assert_eq!(
        externs(&p),
        vec![
            (
                "ingress.flowlet_id",
                ExternKind::Register,
                Some(8192),
                Some(16),
                false
            ),
            (
                "ingress.flowlet_lasttime",
                ExternKind::Register,
                Some(8192),
                Some(32),
                false
            ),
        ]
    );
    assert_eq!(p.externs[0].span.line, 117);
    assert_eq!(
        p.file_path(p.externs[0].span.file),
        "testdata/p4_16_samples/flowlet_switching-bmv2.p4"
    );

    // One direct meter of 16384 cells bound to ingress.m_table.
    let p = load("named_meter_bmv2.json");
    assert_eq!(
        externs(&p),
        vec![(
            "ingress.namedmeter",
            ExternKind::Meter,
            Some(16384),
            None,
            true
        )]
    );

    // `ap` (max_size 128) and the selector `ap_ws` (max_size 1024).
    let p = load("action_profile-bmv2.json");
    assert_eq!(
        externs(&p),
        vec![
            ("ap", ExternKind::ActionProfile, Some(128), None, false),
            ("ap_ws", ExternKind::ActionSelector, Some(1024), None, false),
        ]
    );
    let p = load("action_selector_shared-bmv2.json");
    assert_eq!(
        externs(&p),
        vec![(
            "IngressI.as",
            ExternKind::ActionSelector,
            Some(1024),
            None,
            false
        )]
    );

    // Two indirect counters of 255 cells and one direct counter without a
    // size.
    let p = load("onos__mytunnel.json");
    assert_eq!(
        externs(&p),
        vec![
            (
                "c_ingress.tx_port_counter",
                ExternKind::Counter,
                Some(255),
                None,
                false
            ),
            (
                "c_ingress.rx_port_counter",
                ExternKind::Counter,
                Some(255),
                None,
                false
            ),
            (
                "c_ingress.l2_fwd_counter",
                ExternKind::Counter,
                None,
                None,
                true
            ),
        ]
    );

    let p = load("behavioral-model__simple_router.json");
    assert!(p.externs.is_empty());
}

#[test]
fn deparser_orders() {
    // simple_router has no source_info on its deparser.
    let p = load("behavioral-model__simple_router.json");
    assert_eq!(p.deparsers.len(), 1);
    assert_eq!(order(&p, "deparser"), vec!["ethernet", "ipv4"]);
    assert_eq!(
        p.file_path(p.deparsers[0].span.file),
        "behavioral-model__simple_router.json"
    );

    let p = load("flowlet_switching-bmv2.json");
    assert_eq!(order(&p, "deparser"), vec!["ethernet", "ipv4", "tcp"]);
    assert_eq!(p.deparsers[0].span.line, 207);

    // h2[0] .. h2[4] are the stack h2.
    let p = load("header-stack-ops-bmv2.json");
    assert_eq!(order(&p, "deparser"), vec!["h1", "h2", "h3"]);
    // tcp_options_vec[i].member are the union stack tcp_options_vec.
    let p = load("issue561-bmv2.json");
    assert_eq!(
        order(&p, "deparser"),
        vec![
            "ethernet",
            "ipv4",
            "tcp",
            "tcp_options_vec",
            "tcp_options_padding"
        ]
    );
    // Members of a plain union keep their own names.
    let p = load("union-bmv2.json");
    assert_eq!(order(&p, "deparser"), vec!["h1", "u.h1", "u.h2"]);
    let p = load("behavioral-model__pna-demo-L2-one-table.json");
    assert_eq!(order(&p, "main_deparser"), vec!["eth"]);
    let p = load("action_profile-bmv2.json");
    assert!(order(&p, "deparser").is_empty());
}

// ---------------------------------------------------------------------
// What the table dependency graph needs (issue 8): structured conditions,
// key reads, action reads/writes with validity as `<header>.$valid`,
// extern calls, direct resources, and names as the P4 source front end
// gives them. Expectations checked by hand in the JSON files.

fn action<'p>(p: &'p Program, name: &str) -> &'p Action {
    p.actions
        .iter()
        .find(|a| a.name == name)
        .unwrap_or_else(|| panic!("no action {name}"))
}

/// The structured condition of the conditional whose reads are `reads`.
fn condition_reading(p: &Program, reads: &[&str]) -> p4cost_ir::Cond {
    for c in &p.controls {
        for n in &c.flow.nodes {
            if let NodeKind::Condition { reads: r, cond, .. } = &n.kind {
                if r == reads {
                    return cond.clone();
                }
            }
        }
    }
    panic!("no condition reads {reads:?}");
}

#[test]
fn every_condition_is_structured_and_reads_what_it_tests() {
    for name in all_fixture_names() {
        let p = load(&name);
        for c in &p.controls {
            for n in &c.flow.nodes {
                if let NodeKind::Condition { reads, cond, .. } = &n.kind {
                    assert!(!cond.nodes.is_empty(), "{name}: empty condition");
                    assert!(cond.is_well_formed(), "{name}: {cond:?}");
                    assert_eq!(reads, &cond.reads(), "{name}");
                    // Validity is `<header>.$valid`, never the JSON's
                    // `$valid$` nor the bare header.
                    assert!(!reads.iter().any(|r| r.contains("$valid$")), "{name}");
                }
            }
        }
        for t in &p.tables {
            for k in &t.keys {
                assert_eq!(k.reads.len(), 1, "{name}: {} {}", t.name, k.field);
            }
        }
    }
}

fn all_fixture_names() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(DIR)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    v.sort();
    v
}

#[test]
fn conditions_with_validity_comparisons_and_slices() {
    // switch_p4_16 node_17: `meta.ingress_metadata.port_type == 2w0 &&
    // meta.l2_metadata.stp_group != 10w0` (its source_fragment); the
    // fields are p4c's flattened `scalars.metadata._ingress_metadata_
    // port_type40` and `..._l2_metadata_stp_group74`.
    let p = load("switch_p4_16.json");
    let c = condition_reading(
        &p,
        &[
            "meta.ingress_metadata.port_type",
            "meta.l2_metadata.stp_group",
        ],
    );
    assert_eq!(
        c.nodes,
        vec![
            CondNode::Field {
                name: "meta.ingress_metadata.port_type".into()
            },
            CondNode::Int { value: "0".into() },
            CondNode::Cmp {
                cmp: CmpOp::Eq,
                lhs: 0,
                rhs: 1
            },
            CondNode::Field {
                name: "meta.l2_metadata.stp_group".into()
            },
            CondNode::Int { value: "0".into() },
            CondNode::Cmp {
                cmp: CmpOp::Ne,
                lhs: 3,
                rhs: 4
            },
            CondNode::And { lhs: 2, rhs: 5 },
        ]
    );
    // `hdr.mpls[0].isValid()`: d2b of ["mpls[0]", "$valid$"].
    let c = condition_reading(&p, &["hdr.mpls[0].$valid"]);
    assert_eq!(
        c.nodes,
        vec![CondNode::IsValid {
            header: "hdr.mpls[0]".into()
        }]
    );

    // fabric node_46: d2b of a bool metadata field is the field itself.
    let p = load("fabric_20190420-fabric.json");
    let c = condition_reading(&p, &["fabric_metadata.is_controller_packet_out"]);
    assert_eq!(c.text(), "fabric_metadata.is_controller_packet_out");

    // header-stack-ops node_4, `op[7:4] == 1`: ((op1 >> 4) & 0xff) & 0x0f
    // on the 8-bit h1.op1.
    let p = load("header-stack-ops-bmv2.json");
    let conds: Vec<String> = p.controls[0]
        .flow
        .nodes
        .iter()
        .filter_map(|n| match &n.kind {
            NodeKind::Condition { cond, .. } => Some(cond.text()),
            _ => None,
        })
        .collect();
    assert_eq!(conds[0], "hdr.h1.op1 == 0");
    assert_eq!(conds[1], "hdr.h1.op1[7:4] == 1");
    assert_eq!(conds[2], "hdr.h1.op1[3:0] == 1");
}

#[test]
fn key_reads_name_fields_and_validity() {
    let p = load("fabric_20190420-fabric.json");
    let t = p.table(
        p.table_by_name("FabricIngress.filtering.ingress_port_vlan")
            .unwrap(),
    );
    let reads: Vec<&str> = t.keys.iter().map(|k| k.reads[0].as_str()).collect();
    // ["vlan_tag", "$valid$"] is the source's `hdr.vlan_tag.isValid()`.
    assert_eq!(
        reads,
        vec![
            "standard_metadata.ingress_port",
            "hdr.vlan_tag.$valid",
            "hdr.vlan_tag.vlan_id"
        ]
    );
    // A flattened metadata key reads its source name.
    let t = p.table(p.table_by_name("FabricIngress.next.hashed").unwrap());
    assert_eq!(t.keys[0].field, "scalars.fabric_metadata_t._next_id10");
    assert_eq!(t.keys[0].reads, vec!["fabric_metadata.next_id"]);
    // Selector inputs read their fields too.
    assert_eq!(t.keys[1].match_kind, MatchKind::Selector);
    assert_eq!(t.keys[1].reads, vec!["hdr.ipv4.dst_addr"]);

    let p = load("p4pktgen__switch-p416.json");
    // A masked key (`ipv4.srcAddr[31:24]`) still reads the whole field.
    let t = p.table(p.table_by_name("validate_outer_ipv4_packet").unwrap());
    assert_eq!(t.keys[2].width_bits, Some(8));
    assert_eq!(t.keys[2].reads, vec!["hdr.ipv4.srcAddr"]);
    let t = p.table(p.table_by_name("validate_mpls_packet").unwrap());
    assert_eq!(t.keys[2].reads, vec!["hdr.mpls[0].$valid"]);
}

#[test]
fn validity_writes_and_whole_header_copies() {
    let p = load("fabric_20190420-fabric.json");
    // remove_header(mpls) is `hdr.mpls.setInvalid()`.
    let pop = action(&p, "FabricEgress.egress_next.pop_mpls_if_present");
    assert_eq!(
        pop.writes,
        vec!["hdr.mpls.$valid", "fabric_metadata.eth_type"]
    );
    // add_header(vlan_tag) then field assignments.
    let push = action(&p, "FabricEgress.egress_next.push_vlan");
    assert_eq!(push.writes[0], "hdr.vlan_tag.$valid");
    // assign_header(udp, inner_udp) copies the whole header (validity
    // included): it writes `hdr.udp` and reads `hdr.inner_udp`.
    let copy = action(&p, "spgw26");
    assert!(copy.writes.contains(&"hdr.udp".to_string()));
    assert!(copy.reads.contains(&"hdr.inner_udp".to_string()));
    // mark_to_drop(standard_metadata) sets the egress port.
    let drop = action(&p, "FabricIngress.acl.drop");
    assert!(drop
        .writes
        .contains(&"standard_metadata.egress_spec".to_string()));
    assert!(!drop.reads.contains(&"standard_metadata".to_string()));
}

#[test]
fn extern_calls_of_actions() {
    let row = |x: &p4cost_ir::ExternCall| (x.instance.clone(), x.method.clone(), x.uses);
    // execute_meter(meter, index, dst): a meter; writes the colour.
    let p = load("onos__fabric.json");
    let m = action(&p, "slicing114");
    assert_eq!(
        m.externs.iter().map(row).collect::<Vec<_>>(),
        vec![(
            "FabricIngress.qos.slice_tc_meter".to_string(),
            "execute_meter".to_string(),
            ExternUse::Meter
        )]
    );
    assert!(m
        .writes
        .contains(&"fabric_metadata.packet_color".to_string()));
    // count(counter, index): a counter, and no field written for it.
    let c = action(&p, "port_counter31");
    assert_eq!(c.externs[0].uses, ExternUse::Counter);
    assert_eq!(c.externs[0].ty, "counter");

    // clone / resubmit / recirculate.
    let p = load("v1model-special-ops-bmv2.json");
    let uses = |n: &str| {
        action(&p, n)
            .externs
            .iter()
            .map(|x| x.uses)
            .collect::<Vec<_>>()
    };
    assert_eq!(uses("ingress.do_resubmit"), vec![ExternUse::Resubmit]);
    assert_eq!(uses("ingress.do_clone_i2e"), vec![ExternUse::Mirror]);
    assert_eq!(uses("egress.do_recirculate"), vec![ExternUse::Resubmit]);
    assert_eq!(uses("egress.do_clone_e2e"), vec![ExternUse::Mirror]);

    // generate_digest(receiver, learn list 1): reads the learn list's
    // field (`scalars.tmp`).
    let p = load("issue1352-bmv2.json");
    let d = action(&p, "MyIngress.send_digest");
    assert_eq!(d.externs[0].uses, ExternUse::Digest);
    assert!(d.reads.contains(&"scalars.tmp".to_string()));
}

#[test]
fn direct_counters_and_meters_are_attached() {
    // issue364: counter `ingress.c` is bound to `ingress.t`.
    let p = load("issue364-bmv2.json");
    let t = p.table(p.table_by_name("ingress.t").unwrap());
    assert_eq!(t.attached, vec!["ingress.c"]);
    let a = action(&p, "ingress.my_action");
    assert_eq!(a.externs[0].ty, "direct_counter");
    assert_eq!(a.externs[0].uses, ExternUse::Counter);

    // named_meter: direct meter `ingress.namedmeter` on `ingress.m_table`
    // writes its colour to `meta.meta.meter_tag` (result_target
    // `scalars.metadata._meta_meter_tag0`), the key of `m_filter`.
    let p = load("named_meter_bmv2.json");
    let t = p.table(p.table_by_name("ingress.m_table").unwrap());
    assert_eq!(t.attached, vec!["ingress.namedmeter"]);
    for &a in &t.actions {
        let a = p.action(a);
        assert!(
            a.writes.contains(&"meta.meta.meter_tag".to_string()),
            "{}",
            a.name
        );
        assert_eq!(a.externs[0].uses, ExternUse::Meter);
    }
    let f = p.table(p.table_by_name("ingress.m_filter").unwrap());
    assert_eq!(f.keys[0].reads, vec!["meta.meta.meter_tag"]);
    assert!(f.attached.is_empty());
}

#[test]
fn names_match_the_source_front_end() {
    // Instance-style metadata (p4c 2.7): `acl_metadata.acl_deny` is the
    // source's `meta.acl_metadata.acl_deny`.
    let p = load("p4pktgen__switch-p416.json");
    assert!(action(&p, "acl_deny")
        .writes
        .contains(&"meta.acl_metadata.acl_deny".to_string()));
    // A nested struct quoted only through a sub-control parameter
    // (`fabric_meta.spgw.direction` in spgw.p4) keeps its structure.
    let p = load("fabric_20190420-fabric.json");
    assert!(action(&p, "spgw142")
        .writes
        .contains(&"fabric_metadata.spgw.direction".to_string()));
    // The intrinsic metadata parameter is called `sm` in meter.p4; the
    // metadata nobody quotes keeps its JSON name, and a note says so.
    let p = load("behavioral-model__meter.json");
    assert!(action(&p, "ingress.port_redirect")
        .writes
        .contains(&"sm.egress_spec".to_string()));
    assert!(p
        .notes
        .iter()
        .any(|n| n.contains("scalars.Meta.color") && n.contains("flattened")));
}

#[test]
fn an_apply_block_exit_ends_the_control() {
    // fabric egress: `if (standard_metadata.egress_port == CPU_PORT) {
    // hdr.packet_in.setValid(); ...; exit; }` becomes tbl_packetio40,
    // whose only action runs `exit`.
    let p = load("fabric_20190420-fabric.json");
    let egress = p
        .controls
        .iter()
        .find(|c| c.role == ControlRole::Egress)
        .unwrap();
    let tid = p.table_by_name("tbl_packetio40").unwrap();
    let node = egress
        .flow
        .nodes
        .iter()
        .find(|n| matches!(n.kind, NodeKind::Table { table, .. } if table == tid))
        .unwrap();
    let NodeKind::Table {
        next: TableNext::Always { next: Some(n) },
        ..
    } = &node.kind
    else {
        panic!("{:?}", node.kind)
    };
    assert_eq!(egress.flow.node(*n).kind, NodeKind::Exit);
}

#[test]
fn parser_sets_of_constants_keep_the_constant() {
    // issue995: state a3 runs `meta.transition_taken = 3`, which p4c writes
    // as a `set` of `{"type": "hexstr", "value": "0x0003"}`.
    let p = load("issue995-bmv2.json");
    let parser = &p.parsers[0];
    let state = parser.states.iter().find(|s| s.name == "a3").unwrap();
    let sets: Vec<(&[String], Option<u128>)> = state
        .ops
        .iter()
        .filter_map(|op| match op {
            ParserOp::Statement {
                writes, constant, ..
            } => Some((writes.as_slice(), *constant)),
            _ => None,
        })
        .collect();
    assert_eq!(
        sets,
        [(&["meta.transition_taken".to_string()][..], Some(3))]
    );
}

#[test]
fn an_action_switch_naming_every_action_has_no_default_way() {
    // switch_p4_16's outer_rmac: next_tables names on_miss (-> node_35),
    // outer_rmac_hit and NoAction (-> node_41); its base_default_next
    // node_49 is taken by no action, so the switch has two ways.
    let p = load("switch_p4_16.json");
    let tid = p.table_by_name("outer_rmac").unwrap();
    let ingress = p
        .controls
        .iter()
        .find(|c| c.role == ControlRole::Ingress)
        .unwrap();
    let node = ingress
        .flow
        .nodes
        .iter()
        .find(|n| matches!(n.kind, NodeKind::Table { table, .. } if table == tid))
        .unwrap();
    assert_eq!(node.successors().len(), 2, "{:?}", node.kind);
}
