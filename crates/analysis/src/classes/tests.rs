use super::*;
use crate::{path_graph, PathOptions};
use p4cost_ir::*;

use crate::test_ir::{accept, extract, ingress_graph, lower_source, sel, sp, Everything};
use proptest::prelude::*;

/// A hand-made program: parser states, tables, actions, one control.
struct B {
    p: Program,
    states: Vec<ParseState>,
    nodes: Vec<Node>,
}

impl B {
    fn new() -> B {
        let mut p = Program::new("t", InputKind::P4Source);
        p.add_file("t.p4");
        B {
            p,
            states: Vec::new(),
            nodes: Vec::new(),
        }
    }
    fn state(&mut self, name: &str, extracts: &[&str], transition: Transition) {
        let ops = extracts.iter().map(|h| extract(h, 8, false)).collect();
        self.states.push(ParseState {
            name: name.into(),
            ops,
            transition,
            annotations: vec![],
            span: sp(),
        });
    }
    fn action(&mut self, name: &str, writes: &[&str]) -> ActionId {
        self.p.actions.push(std::sync::Arc::new(Action {
            name: name.into(),
            params: vec![],
            reads: vec![],
            writes: writes.iter().map(|w| w.to_string()).collect(),
            primitives: vec![],
            externs: vec![],
            validity: vec![],
            flags: vec![],
            annotations: vec![],
            span: sp(),
        }));
        ActionId((self.p.actions.len() - 1) as u32)
    }
    fn table(&mut self, name: &str, actions: &[ActionId]) -> TableId {
        self.p.tables.push(Table {
            control: Some(ControlId(0)),
            actions: actions.to_vec(),
            ..Table::new(name, sp())
        });
        TableId((self.p.tables.len() - 1) as u32)
    }
    fn node(&mut self, kind: NodeKind) -> Option<NodeId> {
        self.nodes.push(Node { kind, span: sp() });
        Some(NodeId((self.nodes.len() - 1) as u32))
    }
    fn build(mut self, entry: Option<NodeId>) -> Program {
        self.p.parsers.push(Parser {
            name: "P".into(),
            gress: Gress::Ingress,
            states: self.states,
            start: StateId(0),
            span: sp(),
        });
        self.p.controls.push(Control {
            name: "Ig".into(),
            role: ControlRole::Ingress,
            gress: Gress::Ingress,
            flow: ControlFlow {
                nodes: self.nodes,
                entry,
            },
            span: sp(),
        });
        self.p
    }
}

fn is_valid(h: &str) -> Cond {
    let mut c = Cond::default();
    c.push(CondNode::IsValid { header: h.into() });
    c
}
fn cond(c: Cond, then_next: Option<NodeId>, else_next: Option<NodeId>) -> NodeKind {
    NodeKind::Condition {
        expr: c.text(),
        reads: c.reads(),
        cond: c,
        then_next,
        else_next,
    }
}
fn apply(table: TableId, next: Option<NodeId>) -> NodeKind {
    NodeKind::Table {
        table,
        next: TableNext::Always { next },
    }
}

/// start(eth) -> v4(ipv4) | v6(ipv6) -> accept.
fn v4_v6_parser(b: &mut B) {
    b.state(
        "start",
        &["hdr.eth"],
        sel(&[Target::State(StateId(1)), Target::State(StateId(2))]),
    );
    b.state("v4", &["hdr.ipv4"], accept());
    b.state("v6", &["hdr.ipv6"], accept());
}

/// `if (hdr.ipv4.isValid()) ipv4_lpm.apply(); else if (hdr.ipv6.isValid())
/// ipv6_lpm.apply();` followed by `tail` (nodes built last, entry first).
fn routing(b: &mut B, tail: Option<NodeId>) -> Option<NodeId> {
    let a = b.action("fwd", &[]);
    let t4 = b.table("ipv4_lpm", &[a]);
    let t6 = b.table("ipv6_lpm", &[a]);
    let n6 = b.node(apply(t6, tail));
    let c6 = b.node(cond(is_valid("hdr.ipv6"), n6, tail));
    let n4 = b.node(apply(t4, tail));
    b.node(cond(is_valid("hdr.ipv4"), n4, c6))
}

fn graph(p: &Program) -> PathGraph<'_> {
    let mut w = Vec::new();
    path_graph(p, &p.parsers[0], &PathOptions::default(), &mut w).unwrap()
}

/// Parse weights by state name.
fn weights(pg: &PathGraph<'_>, by_name: &[(&str, f64)]) -> Vec<f64> {
    (0..pg.len() as u32)
        .map(|n| {
            let name = pg.visit(n).name;
            by_name
                .iter()
                .find(|(s, _)| *s == name)
                .map_or(0.0, |x| x.1)
        })
        .collect()
}

fn names(pg: &PathGraph<'_>, nodes: &[u32]) -> Vec<String> {
    nodes.iter().map(|&n| pg.visit(n).name).collect()
}

fn table_names(p: &Program, ts: &[TableId]) -> Vec<String> {
    ts.iter().map(|t| p.table(*t).name.clone()).collect()
}

#[test]
fn validity_branches_give_one_class_per_parse_path() {
    let mut b = B::new();
    v4_v6_parser(&mut b);
    let entry = routing(&mut b, None);
    let p = b.build(entry);
    let pg = graph(&p);
    // The control alone has 3 paths; with validity resolved each parse
    // path meets exactly one: 2 classes, not 2 x 3 (nor 4).
    assert_eq!(crate::control_path_count(&p, ControlId(0)).value, 3);
    let pw = weights(&pg, &[("start", 1.0), ("v4", 2.0), ("v6", 3.0)]);
    let tw = [10.0, 20.0];
    let s = packet_classes(&p, ControlId(0), &pg, &pw, &tw, &ClassBudget::default()).unwrap();
    assert_eq!(s.classes.value, 2);
    assert_eq!(s.parse_paths.value, 2);
    assert_eq!(s.signatures, 2);
    assert_eq!(s.tested, vec!["hdr.ipv4", "hdr.ipv6"]);
    assert_eq!(s.note, None);
    let min = s.min.unwrap();
    assert_eq!(min.value, 1.0 + 2.0 + 10.0);
    assert_eq!(names(&pg, &min.parse_path), vec!["start", "v4"]);
    assert_eq!(table_names(&p, &min.control_path.tables), vec!["ipv4_lpm"]);
    let max = s.max.unwrap();
    assert_eq!(max.value, 1.0 + 3.0 + 20.0);
    assert_eq!(names(&pg, &max.parse_path), vec!["start", "v6"]);
    assert_eq!(table_names(&p, &max.control_path.tables), vec!["ipv6_lpm"]);

    // Listing: each parse path has one class, and says why the other
    // routing table is skipped.
    let paths = pg.list(10);
    let budget = ClassBudget::default();
    let l4 = list_classes(&p, ControlId(0), &pg, &paths[0], 10, &budget).unwrap();
    assert_eq!(l4.total.value, 1);
    assert!(!l4.truncated);
    assert_eq!(l4.classes.len(), 1);
    let c = &l4.classes[0];
    assert_eq!(table_names(&p, &c.control_path.tables), vec!["ipv4_lpm"]);
    assert_eq!(c.skipped.len(), 1);
    assert_eq!(&*c.skipped[0].name, "ipv6_lpm");
    assert_eq!(&*c.skipped[0].reason, "hdr.ipv4 valid on this path");
    let l6 = list_classes(&p, ControlId(0), &pg, &paths[1], 10, &budget).unwrap();
    let c = &l6.classes[0];
    assert_eq!(table_names(&p, &c.control_path.tables), vec!["ipv6_lpm"]);
    assert_eq!(&*c.skipped[0].name, "ipv4_lpm");
    assert_eq!(&*c.skipped[0].reason, "hdr.ipv4 invalid on this path");
}

#[test]
fn a_path_with_neither_header_skips_both_tables() {
    let mut b = B::new();
    b.state(
        "start",
        &["hdr.eth"],
        sel(&[Target::State(StateId(1)), Target::Accept]),
    );
    b.state("v4", &["hdr.ipv4"], accept());
    let entry = routing(&mut b, None);
    let p = b.build(entry);
    let pg = graph(&p);
    let paths = pg.list(10);
    assert_eq!(names(&pg, &paths[1]), vec!["start"]);
    let l = list_classes(
        &p,
        ControlId(0),
        &pg,
        &paths[1],
        10,
        &ClassBudget::default(),
    )
    .unwrap();
    assert_eq!(l.classes.len(), 1);
    let c = &l.classes[0];
    assert!(c.control_path.tables.is_empty());
    let why: Vec<(&str, &str)> = c.skipped.iter().map(|s| (&*s.name, &*s.reason)).collect();
    assert_eq!(
        why,
        vec![
            ("ipv4_lpm", "hdr.ipv4 invalid on this path"),
            ("ipv6_lpm", "hdr.ipv6 invalid on this path"),
        ]
    );
}

#[test]
fn a_hit_miss_fork_doubles_the_classes() {
    let mut b = B::new();
    v4_v6_parser(&mut b);
    let a = b.action("redirect_to", &[]);
    let deny = b.action("deny", &[]);
    let redirect = b.table("redirect", &[a]);
    let acl = b.table("acl", &[deny]);
    let r = b.node(apply(redirect, None));
    let acl_node = b.node(NodeKind::Table {
        table: acl,
        next: TableNext::HitMiss { hit: r, miss: None },
    });
    let entry = routing(&mut b, acl_node);
    let p = b.build(entry);
    let pg = graph(&p);
    let pw = vec![0.0; pg.len()];
    // redirect, acl, ipv4_lpm, ipv6_lpm
    let tw = [5.0, 1.0, 10.0, 20.0];
    let s = packet_classes(&p, ControlId(0), &pg, &pw, &tw, &ClassBudget::default()).unwrap();
    assert_eq!(s.classes.value, 4);
    assert_eq!(s.max.as_ref().unwrap().value, 20.0 + 1.0 + 5.0);
    assert_eq!(
        table_names(&p, &s.max.unwrap().control_path.tables),
        vec!["ipv6_lpm", "acl", "redirect"]
    );
    assert_eq!(s.min.as_ref().unwrap().value, 10.0 + 1.0);
    let paths = pg.list(10);
    let l = list_classes(
        &p,
        ControlId(0),
        &pg,
        &paths[0],
        10,
        &ClassBudget::default(),
    )
    .unwrap();
    assert_eq!(l.total.value, 2);
    assert_eq!(l.classes.len(), 2);
    assert_eq!(
        table_names(&p, &l.classes[0].control_path.tables),
        vec!["ipv4_lpm", "acl", "redirect"]
    );
    assert_eq!(
        table_names(&p, &l.classes[1].control_path.tables),
        vec!["ipv4_lpm", "acl"]
    );
    let miss = &l.classes[1].skipped;
    let why: Vec<(&str, &str)> = miss.iter().map(|s| (&*s.name, &*s.reason)).collect();
    assert_eq!(
        why,
        vec![
            ("redirect", "on miss of acl"),
            ("ipv6_lpm", "hdr.ipv4 valid on this path"),
        ]
    );
    // A cap of one lists one and says there are more.
    let l = list_classes(&p, ControlId(0), &pg, &paths[0], 1, &ClassBudget::default()).unwrap();
    assert_eq!(l.classes.len(), 1);
    assert!(l.truncated);
}

/// The way taken after a table, when a plain statement starts it: the
/// reason a skipped table gives is the way the class went (the statement
/// is jumped over, not taken for the other way).
#[test]
fn skip_reasons_follow_the_way_taken_past_plain_statements() {
    let mut b = B::new();
    b.state("start", &["hdr.eth"], accept());
    let deny = b.action("deny", &[]);
    let fwd = b.action("fwd", &[]);
    let acl = b.table("acl", &[deny]);
    let fallback = b.table("fallback", &[fwd]);
    let on_miss = b.node(apply(fallback, None));
    let on_hit = b.node(NodeKind::Statement {
        what: "assign".into(),
        reads: vec![].into(),
        writes: vec!["meta.x".to_string()].into(),
        externs: vec![].into(),
        validity: vec![].into(),
        flags: vec![].into(),
        next: None,
    });
    let entry = b.node(NodeKind::Table {
        table: acl,
        next: TableNext::HitMiss {
            hit: on_hit,
            miss: on_miss,
        },
    });
    let p = b.build(entry);
    let pg = graph(&p);
    let paths = pg.list(10);
    let l = list_classes(
        &p,
        ControlId(0),
        &pg,
        &paths[0],
        10,
        &ClassBudget::default(),
    )
    .unwrap();
    assert_eq!(l.classes.len(), 2);
    let hit = l
        .classes
        .iter()
        .find(|c| c.decisions.iter().any(|d| d.outcome == Outcome::Hit(true)))
        .expect("a class that hits acl");
    let why: Vec<(&str, &str)> = hit.skipped.iter().map(|s| (&*s.name, &*s.reason)).collect();
    assert_eq!(why, vec![("fallback", "on hit of acl")]);
}

#[test]
fn a_switch_on_action_run_forks_per_arm_and_names_the_arm_taken() {
    let mut b = B::new();
    b.state("start", &["hdr.eth"], accept());
    let drop = b.action("drop", &[]);
    let fwd = b.action("fwd", &[]);
    let t = b.table("classify", &[drop, fwd]);
    let nh = b.table("nexthop", &[fwd]);
    let n_nh = b.node(apply(nh, None));
    let entry = b.node(NodeKind::Table {
        table: t,
        next: TableNext::ByAction {
            arms: vec![(drop, None), (fwd, n_nh)],
            default: None,
        },
    });
    let p = b.build(entry);
    let pg = graph(&p);
    let pw = vec![0.0; pg.len()];
    let s = packet_classes(
        &p,
        ControlId(0),
        &pg,
        &pw,
        &[1.0, 1.0],
        &ClassBudget::default(),
    )
    .unwrap();
    // drop (and actions without a case) end; fwd goes on: 2 classes.
    assert_eq!(s.classes.value, 2);
    let l = list_classes(
        &p,
        ControlId(0),
        &pg,
        &[pg.start()],
        10,
        &ClassBudget::default(),
    )
    .unwrap();
    assert_eq!(l.classes.len(), 2);
    let dropped = &l.classes[0];
    assert_eq!(
        table_names(&p, &dropped.control_path.tables),
        vec!["classify"]
    );
    assert_eq!(&*dropped.skipped[0].name, "nexthop");
    assert_eq!(
        &*dropped.skipped[0].reason,
        "action_run = drop | (an action without a case) in classify"
    );
}

#[test]
fn set_valid_before_a_test_makes_it_undecidable() {
    // `hdr.ipv6.setValid(); if (hdr.ipv6.isValid()) t.apply();`
    let mut b = B::new();
    v4_v6_parser(&mut b);
    let a = b.action("a", &[]);
    let t = b.table("t", &[a]);
    let n_t = b.node(apply(t, None));
    let c = b.node(cond(is_valid("hdr.ipv6"), n_t, None));
    let entry = b.node(NodeKind::Statement {
        what: "hdr.ipv6.setValid()".into(),
        reads: vec![].into(),
        writes: vec!["hdr.ipv6.$valid".into()].into(),
        externs: vec![].into(),
        validity: vec![].into(),
        flags: vec![].into(),
        next: c,
    });
    let p = b.build(entry);
    let pg = graph(&p);
    let pw = vec![0.0; pg.len()];
    let s = packet_classes(&p, ControlId(0), &pg, &pw, &[1.0], &ClassBudget::default()).unwrap();
    // Without the statement: 1 class per parse path. With it, the test
    // is unknown on both: 2 each.
    assert_eq!(s.classes.value, 4);
    let l = list_classes(
        &p,
        ControlId(0),
        &pg,
        &pg.list(1)[0],
        10,
        &ClassBudget::default(),
    )
    .unwrap();
    assert_eq!(l.classes.len(), 2);
    assert_eq!(
        &*l.classes[1].skipped[0].reason,
        "branch not taken: hdr.ipv6.isValid()"
    );
    assert_eq!(l.classes[0].skipped, vec![]);
}

#[test]
fn set_invalid_in_a_table_action_makes_a_later_test_undecidable() {
    let mut b = B::new();
    v4_v6_parser(&mut b);
    let strip = b.action("strip", &["hdr.ipv4.$valid"]);
    let a = b.action("a", &[]);
    let decap = b.table("decap", &[strip]);
    let t = b.table("t", &[a]);
    let n_t = b.node(apply(t, None));
    let c = b.node(cond(is_valid("hdr.ipv4"), n_t, None));
    let c0 = b.node(apply(decap, c));
    let p = b.build(c0);
    let pg = graph(&p);
    let pw = vec![0.0; pg.len()];
    let s = packet_classes(
        &p,
        ControlId(0),
        &pg,
        &pw,
        &[0.0, 0.0],
        &ClassBudget::default(),
    )
    .unwrap();
    assert_eq!(s.classes.value, 4);
    // The same test before the table is decided.
    let mut b = B::new();
    v4_v6_parser(&mut b);
    let strip = b.action("strip", &["hdr.ipv4.$valid"]);
    let decap = b.table("decap", &[strip]);
    let n_d = b.node(apply(decap, None));
    let c = b.node(cond(is_valid("hdr.ipv4"), n_d, None));
    let p = b.build(c);
    let pg = graph(&p);
    let s = packet_classes(&p, ControlId(0), &pg, &pw, &[0.0], &ClassBudget::default()).unwrap();
    assert_eq!(s.classes.value, 2);
}

#[test]
fn kleene_logic_decides_and_or_not() {
    let h = TestedHeaders {
        names: vec!["a".into(), "b".into()],
        note: None,
        bits: HashMap::from([("a".into(), 0), ("b".into(), 1)]),
        ..TestedHeaders::default()
    };
    let mut c = Cond::default();
    let a = c.push(CondNode::IsValid { header: "a".into() });
    let f = c.push(CondNode::Field { name: "m.x".into() });
    let and = c.push(CondNode::And { lhs: a, rhs: f });
    let b = c.push(CondNode::IsValid { header: "b".into() });
    let nb = c.push(CondNode::Not { arg: b });
    c.push(CondNode::Or { lhs: and, rhs: nb });
    // (a && m.x) || !b
    assert_eq!(h.eval(&c, 0b00, 0), Some(true)); // !b
    assert_eq!(h.eval(&c, 0b10, 0), Some(false)); // a invalid, b valid
    assert_eq!(h.eval(&c, 0b11, 0), None); // m.x decides
    assert_eq!(h.eval(&c, 0b01, 0b10), None); // b unknown, m.x unknown
    assert_eq!(h.eval(&c, 0b00, 0b01), Some(true)); // !b whatever a is
}

#[test]
fn more_than_64_tested_headers_are_undecidable_and_noted() {
    let mut flow = ControlFlow::default();
    for i in 0..66 {
        flow.nodes.push(Node {
            kind: cond(is_valid(&format!("hdr.h{i}")), None, None),
            span: sp(),
        });
    }
    flow.nodes.push(Node {
        kind: cond(is_valid("hdr.s[meta.i]"), None, None),
        span: sp(),
    });
    let h = TestedHeaders::of(&flow);
    assert_eq!(h.names.len(), 64);
    let note = h.note.unwrap();
    assert!(note.contains("more than 64 headers"), "{note}");
    assert!(note.contains("hdr.h64, hdr.h65"), "{note}");
    assert!(note.contains("hdr.s[meta.i]"), "{note}");
}

#[test]
fn stack_elements_count_as_the_stack_and_as_themselves() {
    let mut flow = ControlFlow::default();
    for h in ["hdr.mpls", "hdr.vlan[1]"] {
        flow.nodes.push(Node {
            kind: cond(is_valid(h), None, None),
            span: sp(),
        });
    }
    let h = TestedHeaders::of(&flow);
    let ex = |header: &str, index| PathExtract {
        header: header.into(),
        index,
        bits: 8,
        varbit_max_bits: 0,
        origin: Origin::Program,
    };
    assert_eq!(h.mask_of_extracts(&[ex("hdr.mpls", Some(2))]), 0b01);
    assert_eq!(h.mask_of_extracts(&[ex("hdr.vlan", Some(0))]), 0);
    assert_eq!(h.mask_of_extracts(&[ex("hdr.vlan", Some(1))]), 0b10);
    assert_eq!(h.mask_of_write("hdr.mpls[0].$valid"), 0b01);
    assert_eq!(h.mask_of_write("hdr.mpls[0].label"), 0);
    assert_eq!(h.mask_of_write("hdr"), 0b11);
    assert_eq!(h.mask_of_write("hdr.vlan[1]"), 0b10);
}

#[test]
fn seventy_diamonds_count_classes_exactly_and_fast() {
    // 70 diamonds, each choosing hdr.a or hdr.b: 2^70 parse paths.
    let mut b = B::new();
    let n = 70u32;
    for i in 0..n {
        let join = 3 * i + 3;
        let next = if i + 1 == n {
            Target::Accept
        } else {
            Target::State(StateId(join))
        };
        b.state(
            &format!("s{i}"),
            &[],
            sel(&[
                Target::State(StateId(3 * i + 1)),
                Target::State(StateId(3 * i + 2)),
            ]),
        );
        let t = |x: Target| Transition::Direct { target: x };
        b.state(&format!("a{i}"), &["hdr.a"], t(next));
        b.state(&format!("b{i}"), &["hdr.b"], t(next));
    }
    // if (hdr.a.isValid()) ta; if (hdr.b.isValid()) tb; acl hit/miss.
    let x = b.action("x", &[]);
    let ta = b.table("ta", &[x]);
    let tb = b.table("tb", &[x]);
    let acl = b.table("acl", &[x]);
    let n_acl = b.node(NodeKind::Table {
        table: acl,
        next: TableNext::HitMiss {
            hit: None,
            miss: None,
        },
    });
    let n_tb = b.node(apply(tb, n_acl));
    let c_b = b.node(cond(is_valid("hdr.b"), n_tb, n_acl));
    let n_ta = b.node(apply(ta, c_b));
    let entry = b.node(cond(is_valid("hdr.a"), n_ta, c_b));
    let p = b.build(entry);
    // This thread's CPU time: a loaded machine stretches wall time.
    let t0 = cpu_time::ThreadTime::now();
    let pg = graph(&p);
    let pw = vec![1.0; pg.len()];
    let s = packet_classes(
        &p,
        ControlId(0),
        &pg,
        &pw,
        &[1.0, 2.0, 4.0],
        &ClassBudget::default(),
    )
    .unwrap();
    let took = t0.elapsed();
    assert_eq!(s.parse_paths.value, 1u128 << 70);
    // Every path has one control path (hit and miss of acl share the
    // successor): classes = parse paths.
    assert_eq!(s.classes.value, 1u128 << 70);
    assert!(!s.classes.saturated);
    assert_eq!(s.signatures, 3);
    // Lightest: all a (or all b): 140 nodes + ta + acl = 140 + 1 + 4.
    assert_eq!(s.min.as_ref().unwrap().value, 145.0);
    assert_eq!(s.max.as_ref().unwrap().value, 140.0 + 1.0 + 2.0 + 4.0);
    assert!(took < std::time::Duration::from_secs(2), "took {took:?}");
}

#[test]
fn budgets_end_in_errors_with_messages() {
    let mut b = B::new();
    v4_v6_parser(&mut b);
    let entry = routing(&mut b, None);
    let p = b.build(entry);
    let pg = graph(&p);
    let pw = vec![0.0; pg.len()];
    let tight = ClassBudget {
        max_signature_entries: 1,
        ..ClassBudget::default()
    };
    let e = packet_classes(&p, ControlId(0), &pg, &pw, &[0.0, 0.0], &tight).unwrap_err();
    assert!(e.to_string().contains("more than 1 (parse node"), "{e}");
    let tight = ClassBudget {
        max_control_states: 1,
        ..ClassBudget::default()
    };
    let e = packet_classes(&p, ControlId(0), &pg, &pw, &[0.0, 0.0], &tight).unwrap_err();
    assert!(e.to_string().contains("control `Ig`"), "{e}");
    let tight = ClassBudget {
        max_list_work: 2,
        ..ClassBudget::default()
    };
    let e = list_classes(&p, ControlId(0), &pg, &[pg.start()], 10, &tight).unwrap_err();
    assert!(e.to_string().contains("listing packet classes"), "{e}");
    let e =
        packet_classes(&p, ControlId(0), &pg, &pw, &[0.0], &ClassBudget::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "packet classes: 2 weights of tables needed, 1 given"
    );
}

/// A small TNA program through the real front end.
#[test]
fn classes_of_a_lowered_tna_program() {
    let src = r#"
#include <core.p4>
#include <tna.p4>
header ethernet_h { bit<48> dst; bit<48> src; bit<16> ether_type; }
header ipv4_h { bit<8> ttl; bit<8> proto; bit<32> src; bit<32> dst; }
header ipv6_h { bit<8> hop; bit<128> dst; }
struct headers_t { ethernet_h ethernet; ipv4_h ipv4; ipv6_h ipv6; }
struct meta_t { }
parser IgParser(packet_in pkt, out headers_t hdr, out meta_t md, out ingress_intrinsic_metadata_t ig_intr_md) {
    state start { pkt.extract(ig_intr_md); pkt.advance(PORT_METADATA_SIZE); transition parse_ethernet; }
    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) { 0x0800: parse_ipv4; 0x86dd: parse_ipv6; default: accept; }
    }
    state parse_ipv4 { pkt.extract(hdr.ipv4); transition accept; }
    state parse_ipv6 { pkt.extract(hdr.ipv6); transition accept; }
}
control Ig(inout headers_t hdr, inout meta_t md, in ingress_intrinsic_metadata_t ig_intr_md,
           in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
           inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
           inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    action set_port(PortId_t port) { ig_tm_md.ucast_egress_port = port; }
    action deny() { ig_dprsr_md.drop_ctl = 1; }
    table ipv4_lpm { key = { hdr.ipv4.dst : lpm; } actions = { set_port; } }
    table ipv6_lpm { key = { hdr.ipv6.dst : lpm; } actions = { set_port; } }
    table acl { key = { hdr.ethernet.src : exact; } actions = { deny; NoAction; } }
    table redirect { key = { hdr.ethernet.dst : exact; } actions = { set_port; } }
    apply {
        if (hdr.ipv4.isValid()) { ipv4_lpm.apply(); }
        else if (hdr.ipv6.isValid()) { ipv6_lpm.apply(); }
        if (acl.apply().miss) { redirect.apply(); }
    }
}
control IgDeparser(packet_out pkt, inout headers_t hdr, in meta_t md,
                   in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    apply { pkt.emit(hdr); }
}
parser EgParser(packet_in pkt, out headers_t hdr, out meta_t md, out egress_intrinsic_metadata_t eg_intr_md) {
    state start { pkt.extract(eg_intr_md); transition accept; }
}
control Eg(inout headers_t hdr, inout meta_t md, in egress_intrinsic_metadata_t eg_intr_md,
           in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
           inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
           inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) { apply { } }
control EgDeparser(packet_out pkt, inout headers_t hdr, in meta_t md,
                   in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) { apply { pkt.emit(hdr); } }
Pipeline(IgParser(), Ig(), IgDeparser(), EgParser(), Eg(), EgDeparser()) pipe;
Switch(pipe) main;
"#;
    let p = lower_source(src);
    let ig = p.ingress_control().unwrap();
    let pg = ingress_graph(&p);
    assert_eq!(pg.total().value, 3);
    let pw = vec![0.0; pg.len()];
    let tw = vec![1.0; p.tables.len()];
    let s = packet_classes(&p, ig, &pg, &pw, &tw, &ClassBudget::default()).unwrap();
    // (eth, eth-ipv4, eth-ipv6) x (acl hit, acl miss): routing is decided.
    assert_eq!(s.classes.value, 6);
    assert_eq!(s.tested, vec!["hdr.ipv4", "hdr.ipv6"]);
    assert_eq!(s.min.as_ref().unwrap().value, 1.0); // eth only, acl hit
    assert_eq!(s.max.as_ref().unwrap().value, 3.0); // a route, acl, redirect
    let eth_only = pg
        .list(10)
        .into_iter()
        .find(|path| pg.path(path).header_chain() == "hdr.ethernet")
        .unwrap();
    let l = list_classes(&p, ig, &pg, &eth_only, 10, &ClassBudget::default()).unwrap();
    assert_eq!(l.classes.len(), 2);
    let reasons: Vec<String> = l.classes[0]
        .skipped
        .iter()
        .map(|s| format!("{}: {}", s.name, s.reason))
        .collect();
    assert_eq!(
        reasons,
        vec![
            "Ig.ipv4_lpm: hdr.ipv4 invalid on this path",
            "Ig.redirect: on hit of Ig.acl",
            "Ig.ipv6_lpm: hdr.ipv6 invalid on this path",
        ]
    );
}

// ---- Brute force against the DP on random programs ----

const HDRS: [&str; 3] = ["hdr.a", "hdr.b", "hdr.c"];

#[derive(Debug, Clone)]
enum RCond {
    Valid(usize),
    Field,
    Bool(bool),
    Not(Box<RCond>),
    And(Box<RCond>, Box<RCond>),
    Or(Box<RCond>, Box<RCond>),
}

fn rcond() -> impl Strategy<Value = RCond> {
    let leaf = prop_oneof![
        (0..3usize).prop_map(RCond::Valid),
        Just(RCond::Field),
        any::<bool>().prop_map(RCond::Bool),
    ];
    leaf.prop_recursive(3, 8, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|c| RCond::Not(Box::new(c))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| RCond::And(Box::new(a), Box::new(b))),
            (inner.clone(), inner).prop_map(|(a, b)| RCond::Or(Box::new(a), Box::new(b))),
        ]
    })
}

fn lower(c: &RCond, out: &mut Cond) -> u32 {
    match c {
        RCond::Valid(i) => out.push(CondNode::IsValid {
            header: HDRS[*i].into(),
        }),
        RCond::Field => out.push(CondNode::Field {
            name: "meta.x".into(),
        }),
        RCond::Bool(v) => out.push(CondNode::Bool { value: *v }),
        RCond::Not(a) => {
            let a = lower(a, out);
            out.push(CondNode::Not { arg: a })
        }
        RCond::And(a, b) => {
            let (a, b) = (lower(a, out), lower(b, out));
            out.push(CondNode::And { lhs: a, rhs: b })
        }
        RCond::Or(a, b) => {
            let (a, b) = (lower(a, out), lower(b, out));
            out.push(CondNode::Or { lhs: a, rhs: b })
        }
    }
}

/// Reference Kleene evaluation on a name -> validity map.
fn ref_eval(c: &RCond, v: &HashMap<&str, Option<bool>>) -> Option<bool> {
    match c {
        RCond::Valid(i) => v[HDRS[*i]],
        RCond::Field => None,
        RCond::Bool(b) => Some(*b),
        RCond::Not(a) => ref_eval(a, v).map(|x| !x),
        RCond::And(a, b) => match (ref_eval(a, v), ref_eval(b, v)) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        },
        RCond::Or(a, b) => match (ref_eval(a, v), ref_eval(b, v)) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        },
    }
}

#[derive(Debug, Clone)]
enum RNode {
    /// Table `t` with 1 (always), 2 (hit/miss) or 3 (by action) successors.
    Table(usize, Vec<usize>),
    Cond(RCond, usize, usize),
    /// Statement changing a header's validity to something unknown.
    SetValid(usize, usize),
    /// Statement making a header valid (`true`) or invalid for certain.
    SetKnown(usize, bool, usize),
    Exit,
}

/// Successor `k` of node `i` of `n`: `k % (n - i)` steps ahead, the last
/// step being the end of the control.
fn ahead(i: usize, n: usize, k: usize) -> usize {
    i + 1 + k % (n - i)
}

fn rcontrol() -> impl Strategy<Value = Vec<RNode>> {
    let node = prop_oneof![
        4 => ((0..3usize), prop::collection::vec(0..8usize, 1..4)).prop_map(|(t, s)| RNode::Table(t, s)),
        4 => (rcond(), 0..8usize, 0..8usize).prop_map(|(c, a, b)| RNode::Cond(c, a, b)),
        1 => ((0..3usize), 0..8usize).prop_map(|(h, s)| RNode::SetValid(h, s)),
        1 => ((0..3usize), any::<bool>(), 0..8usize).prop_map(|(h, v, s)| RNode::SetKnown(h, v, s)),
        1 => Just(RNode::Exit),
    ];
    prop::collection::vec(node, 1..7)
}

/// (extracted headers per state, successor states; `None` accepts).
fn rparser() -> impl Strategy<Value = Vec<(Vec<bool>, Vec<Option<usize>>)>> {
    prop::collection::vec(
        (
            prop::collection::vec(any::<bool>(), 3),
            prop::collection::vec(prop::option::of(0..8usize), 1..4),
        ),
        1..6,
    )
}

fn build_random(states: &[(Vec<bool>, Vec<Option<usize>>)], control: &[RNode]) -> Program {
    let mut b = B::new();
    let n = states.len();
    for (i, (ex, succ)) in states.iter().enumerate() {
        let headers: Vec<&str> = (0..3).filter(|&k| ex[k]).map(|k| HDRS[k]).collect();
        let targets: Vec<Target> = succ
            .iter()
            .map(|s| match s {
                Some(k) if i + 1 < n => Target::State(StateId((i + 1 + k % (n - i - 1)) as u32)),
                _ => Target::Accept,
            })
            .collect();
        b.state(&format!("s{i}"), &headers, sel(&targets));
    }
    let x = b.action("x", &[]);
    let other = b.action("other", &[]);
    let tables: Vec<TableId> = (0..3)
        .map(|t| b.table(&format!("t{t}"), &[x, other]))
        .collect();
    let m = control.len();
    let to = |i: usize, k: usize| {
        let j = ahead(i, m, k);
        (j < m).then_some(NodeId(j as u32))
    };
    for (i, node) in control.iter().enumerate() {
        let kind = match node {
            RNode::Table(t, s) => {
                let next = match s.len() {
                    1 => TableNext::Always { next: to(i, s[0]) },
                    2 => TableNext::HitMiss {
                        hit: to(i, s[0]),
                        miss: to(i, s[1]),
                    },
                    _ => TableNext::ByAction {
                        arms: vec![(x, to(i, s[0])), (other, to(i, s[1]))],
                        default: to(i, s[2]),
                    },
                };
                NodeKind::Table {
                    table: tables[*t],
                    next,
                }
            }
            RNode::Cond(c, a, e) => {
                let mut cc = Cond::default();
                lower(c, &mut cc);
                cond(cc, to(i, *a), to(i, *e))
            }
            RNode::SetValid(h, s) => NodeKind::Statement {
                what: "setValid".into(),
                reads: vec![].into(),
                writes: vec![format!("{}.$valid", HDRS[*h])].into(),
                externs: vec![].into(),
                validity: vec![].into(),
                flags: vec![].into(),
                next: to(i, *s),
            },
            RNode::SetKnown(h, v, s) => NodeKind::Statement {
                what: "setValid".into(),
                reads: vec![].into(),
                writes: vec![format!("{}.$valid", HDRS[*h])].into(),
                externs: vec![].into(),
                validity: vec![p4cost_ir::ValiditySet {
                    header: HDRS[*h].to_string(),
                    valid: *v,
                }]
                .into(),
                flags: vec![].into(),
                next: to(i, *s),
            },
            RNode::Exit => NodeKind::Exit,
        };
        b.node(kind);
    }
    b.build(Some(NodeId(0)))
}

/// Every packet class for one validity map, as (tables weight sum) list,
/// by brute force: every way through the control is walked; a way is
/// known by the places where it could have gone more than one way or
/// applied a table (a table, an undecided test whose branches differ, an
/// `exit`), each with the validity of the headers some test at or after it
/// still reads. Ways known alike are one class.
fn ref_control_paths(
    p: &Program,
    control: &[RNode],
    valid: HashMap<&'static str, Option<bool>>,
    tw: &[f64],
) -> Vec<f64> {
    let flow = &p.controls[0].flow;
    let m = control.len();
    let tested_at = |i: usize| -> HashSet<usize> {
        let mut out = HashSet::new();
        if let RNode::Cond(c, ..) = &control[i] {
            let mut stack = vec![c];
            while let Some(c) = stack.pop() {
                match c {
                    RCond::Valid(h) => {
                        out.insert(*h);
                    }
                    RCond::Not(a) => stack.push(a),
                    RCond::And(a, b) | RCond::Or(a, b) => {
                        stack.push(a);
                        stack.push(b);
                    }
                    RCond::Field | RCond::Bool(_) => {}
                }
            }
        }
        out
    };
    // Headers tested at or after each node (reachability, per node).
    let live: Vec<HashSet<usize>> = (0..m)
        .map(|i| {
            let mut seen = HashSet::from([i]);
            let mut stack = vec![i];
            let mut out = HashSet::new();
            while let Some(j) = stack.pop() {
                out.extend(tested_at(j));
                for s in flow.nodes[j].successors().into_iter().flatten() {
                    if seen.insert(s.index()) {
                        stack.push(s.index());
                    }
                }
            }
            out
        })
        .collect();
    type Mark = (usize, Vec<Option<bool>>);
    let mut classes: HashMap<Vec<Mark>, f64> = HashMap::new();
    // Explicit DFS: (node, validity, marks so far, weight so far).
    let mut stack = vec![(Some(0usize), valid, Vec::<Mark>::new(), 0.0)];
    while let Some((at, v, marks, w)) = stack.pop() {
        let Some(i) = at else {
            classes.insert(marks, w);
            continue;
        };
        let node = &flow.nodes[i];
        let raw: Vec<Option<usize>> = node
            .successors()
            .into_iter()
            .map(|s| s.map(|n| n.index()))
            .collect();
        let (next, mark): (Vec<Option<usize>>, bool) = match (&control[i], &node.kind) {
            (
                RNode::Cond(c, ..),
                NodeKind::Condition {
                    then_next,
                    else_next,
                    ..
                },
            ) => {
                let t = then_next.map(|n| n.index());
                let e = else_next.map(|n| n.index());
                match ref_eval(c, &v) {
                    Some(true) => (vec![t], false),
                    Some(false) => (vec![e], false),
                    None if t == e => (vec![t], false),
                    None => (vec![t, e], true),
                }
            }
            (RNode::Table(..), _) => (raw, true),
            (RNode::Exit, _) => (raw, true),
            _ => (raw, false),
        };
        let mut marks = marks;
        if mark {
            let mut l: Vec<usize> = live[i].iter().copied().collect();
            l.sort();
            marks.push((i, l.iter().map(|h| v[HDRS[*h]]).collect()));
        }
        let mut v2 = v.clone();
        match &control[i] {
            RNode::SetValid(h, _) => {
                v2.insert(HDRS[*h], None);
            }
            RNode::SetKnown(h, v, _) => {
                v2.insert(HDRS[*h], Some(*v));
            }
            _ => {}
        }
        let w2 = match &node.kind {
            NodeKind::Table { table, .. } => w + tw[table.index()],
            _ => w,
        };
        if next.is_empty() {
            classes.insert(marks.clone(), w2);
        }
        let mut dedup: Vec<Option<usize>> = Vec::new();
        for n in next {
            if !dedup.contains(&n) {
                dedup.push(n);
                stack.push((n, v2.clone(), marks.clone(), w2));
            }
        }
    }
    classes.into_values().collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn dp_matches_brute_force(states in rparser(), control in rcontrol(),
                              sw in prop::collection::vec(0..5u8, 6),
                              tw in prop::collection::vec(0..7u8, 3)) {
        let p = build_random(&states, &control);
        let pg = graph(&p);
        let pw: Vec<f64> = (0..pg.len() as u32)
            .map(|n| {
                let name = pg.visit(n).name;
                let i: usize = name[1..].parse().unwrap();
                sw[i] as f64
            })
            .collect();
        let tw: Vec<f64> = tw.iter().map(|&x| x as f64).collect();
        let s = packet_classes(&p, ControlId(0), &pg, &pw, &tw, &ClassBudget::default()).unwrap();
        let mut count = 0u128;
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        // (parse weight, control weight) -> classes, by brute force.
        let mut dist: std::collections::BTreeMap<([u64; 1], i64), u128> = Default::default();
        for path in pg.list(usize::MAX) {
            let pweight: f64 = path.iter().map(|&n| pw[n as usize]).sum();
            let extracted: HashSet<String> =
                pg.path(&path).extracts().map(|e| e.header.clone()).collect();
            let valid: HashMap<&'static str, Option<bool>> = HDRS
                .iter()
                .map(|h| (*h, Some(extracted.contains(*h))))
                .collect();
            let ctl = ref_control_paths(&p, &control, valid, &tw);
            count += ctl.len() as u128;
            for w in &ctl {
                lo = lo.min(pweight + w);
                hi = hi.max(pweight + w);
                *dist.entry(([pweight as u64], *w as i64)).or_default() += 1;
            }
            // The listing agrees with the count of its parse path.
            let l = list_classes(&p, ControlId(0), &pg, &path, 1000, &ClassBudget::default())
                .unwrap();
            prop_assert_eq!(l.total.value, ctl.len() as u128);
            prop_assert_eq!(l.classes.len(), ctl.len());
            prop_assert!(!l.truncated);
            // The path's lightest and heaviest class: the brute-force
            // extremes, described as the listing describes them at their
            // index.
            if !ctl.is_empty() {
                let cc = ControlClasses::new(&p, ControlId(0), &tw, 100_000).unwrap();
                let mut lister =
                    ClassLister::with_classes(&p, ControlId(0), cc, &ClassBudget::default())
                        .unwrap();
                for max in [false, true] {
                    let (w, c) = lister.extreme(&pg, &path, max).unwrap();
                    let want = ctl
                        .iter()
                        .copied()
                        .reduce(if max { f64::max } else { f64::min })
                        .unwrap();
                    prop_assert_eq!(w, want);
                    let tables: f64 = c.control_path.tables.iter().map(|t| tw[t.index()]).sum();
                    prop_assert_eq!(tables, want);
                    prop_assert_eq!(Some(&c), l.classes.get(c.index as usize));
                    // Both at once: the same listing and the same extreme.
                    let (both, (w2, c2)) = lister
                        .list_and_extreme(&pg, &path, (1000, &|_| true), max)
                        .unwrap();
                    prop_assert_eq!(&both.classes, &l.classes);
                    prop_assert_eq!((both.total, both.truncated), (l.total, l.truncated));
                    prop_assert_eq!((w2, &c2), (w, &c));
                }
            }
        }
        prop_assert_eq!(s.classes.value, count);
        prop_assert_eq!(s.parse_paths, pg.total());
        // The distribution over classes, by the two dynamic programs.
        let prod = crate::Product::build(&pg, &Everything, 10_000).unwrap();
        let pv: Vec<[u64; 1]> = prod.nodes.iter().map(|n| [pw[n.node as usize] as u64]).collect();
        let tq: Vec<i64> = tw.iter().map(|&x| x as i64).collect();
        let cc = ControlClasses::new(&p, ControlId(0), &tw, 100_000).unwrap();
        let d = super::dist::class_distribution(&cc, &pg, &prod, &pv, &tq, 100_000)
            .unwrap()
            .unwrap();
        // Every class's value, by brute force, in order: the factored
        // distribution's order statistics must be these, at every rank.
        let mut values: Vec<f64> = dist
            .iter()
            .flat_map(|((v, w), c)| std::iter::repeat_n(v[0] as f64 + *w as f64, *c as usize))
            .collect();
        values.sort_by(f64::total_cmp);
        for (k, want) in values.iter().enumerate() {
            let got = d.kth_smallest(k as u128, |v| v[0] as f64, |w| w as f64);
            prop_assert_eq!(got, Some(*want), "rank {}", k);
        }
        prop_assert_eq!(d.kth_smallest(values.len() as u128, |v| v[0] as f64, |w| w as f64), None);
        // The histogram: each bin's count is the classes whose value falls
        // in it, counted from the brute-force values with the same edges.
        if let Some(h) = d.histogram(7, |v| v[0] as f64, |w| w as f64) {
            prop_assert_eq!(Some(&h.lo), values.first());
            prop_assert_eq!(Some(&h.hi), values.last());
            let width = (h.hi - h.lo) / 7.0;
            let mut want = vec![0u128; 7];
            for v in &values {
                let bin = (1..=7)
                    .find(|&i| *v <= if i == 7 { h.hi } else { h.lo + width * i as f64 })
                    .unwrap();
                want[bin - 1] += 1;
            }
            prop_assert_eq!(h.counts, want);
        } else {
            prop_assert!(values.is_empty());
        }
        let d: std::collections::BTreeMap<([u64; 1], i64), u128> =
            d.joint().into_iter().map(|(k, c)| (k, c.value)).filter(|(_, c)| *c > 0).collect();
        prop_assert_eq!(d, dist);
        if count > 0 {
            let (min, max) = (s.min.unwrap(), s.max.unwrap());
            prop_assert_eq!(min.value, lo);
            prop_assert_eq!(max.value, hi);
            // Witnesses weigh what they claim.
            let wp = |x: &ClassExtreme| -> f64 {
                x.parse_path.iter().map(|&n| pw[n as usize]).sum::<f64>()
                    + x.control_path.tables.iter().map(|t| tw[t.index()]).sum::<f64>()
            };
            prop_assert_eq!(wp(&min), lo);
            prop_assert_eq!(wp(&max), hi);
            // The rank is where the listing puts the witness's control path.
            for x in [&min, &max] {
                let l = list_classes(&p, ControlId(0), &pg, &x.parse_path, 1000, &ClassBudget::default())
                    .unwrap();
                let at = l.classes.get(x.rank.value as usize).map(|c| c.control_path.tables.clone());
                prop_assert_eq!(at, Some(x.control_path.tables.clone()));
            }
        } else {
            prop_assert!(s.min.is_none());
        }
    }
}

/// A `bool` set to constants in the control decides the conditions that
/// test it: `dropped` is false until acl hits, so fwd runs exactly on a
/// miss (2 classes, not 4); `return` in a sub-control and p4c's
/// `hasReturned` flag for it are the same pattern.
#[test]
fn flags_set_to_constants_decide_later_tests() {
    let src = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> x; }
struct headers_t { h_t a; }
struct meta_t { bit<1> punted; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t md, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.a); transition accept; }
}
control Ig(inout headers_t hdr, inout meta_t md, inout standard_metadata_t sm) {
    action nop() { }
    action punt() { md.punted = 1; }
    table acl { key = { hdr.a.x : exact; } actions = { nop; } }
    table fwd { key = { hdr.a.x : exact; } actions = { nop; } }
    table cpu { key = { hdr.a.x : exact; } actions = { punt; } default_action = punt(); }
    table log { key = { hdr.a.x : exact; } actions = { nop; } }
    apply {
        bool dropped = false;
        md.punted = 0;
        if (acl.apply().hit) { dropped = true; }
        if (!dropped) { fwd.apply(); }
        cpu.apply();
        if (md.punted == 1) { log.apply(); }
    }
}
control VC(inout headers_t hdr, inout meta_t md) { apply { } }
control CC(inout headers_t hdr, inout meta_t md) { apply { } }
control Eg(inout headers_t hdr, inout meta_t md, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), Ig(), Eg(), CC(), D()) main;
"#;
    let p = lower_source(src);
    let ig = p.ingress_control().unwrap();
    let pg = ingress_graph(&p);
    let pw = vec![0.0; pg.len()];
    let tw = vec![1.0; p.tables.len()];
    let s = packet_classes(&p, ig, &pg, &pw, &tw, &ClassBudget::default()).unwrap();
    // acl hit -> dropped: no fwd; miss -> fwd. cpu's only action sets
    // punted to 1, so log always runs.
    assert_eq!(s.classes.value, 2);
    assert_eq!(s.flags, vec!["dropped", "md.punted"]);
    let path = pg.list(1).remove(0);
    let l = list_classes(&p, ig, &pg, &path, 10, &ClassBudget::default()).unwrap();
    let tables: Vec<Vec<String>> = l
        .classes
        .iter()
        .map(|c| table_names(&p, &c.control_path.tables))
        .collect();
    assert_eq!(
        tables,
        vec![
            vec!["Ig.acl", "Ig.cpu", "Ig.log"],
            vec!["Ig.acl", "Ig.fwd", "Ig.cpu", "Ig.log"],
        ]
    );
    let why: Vec<&str> = l.classes[0].skipped.iter().map(|s| &*s.reason).collect();
    assert_eq!(why, vec!["`dropped` is 1 on this path"]);
}

/// A `bool` parameter of a sub-control bound to an expression holds the
/// value at the call (copied in): `sub.apply(hdr.a.isValid())` decides the
/// sub-control's `if (!has_a) return;` on each parse path, so each path is
/// one class (4 if the parameter were an unknown).
#[test]
fn bool_arguments_are_copied_in_and_decide_the_sub_controls_tests() {
    let src = r#"
#include <core.p4>
#include <v1model.p4>
header e_t { bit<8> t; }
header a_t { bit<8> x; }
struct headers_t { e_t e; a_t a; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t md, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.e); transition select(hdr.e.t) { 1: parse_a; default: accept; } }
    state parse_a { pkt.extract(hdr.a); transition accept; }
}
control Sub(inout headers_t hdr, in bool has_a, in bool on) {
    action nop() { }
    table t1 { key = { hdr.a.x : exact; } actions = { nop; } }
    table t3 { key = { hdr.e.t : exact; } actions = { nop; } }
    apply { if (!has_a) { return; } t1.apply(); if (!on) { t3.apply(); } }
}
control Ig(inout headers_t hdr, inout meta_t md, inout standard_metadata_t sm) {
    action nop() { }
    table t2 { key = { hdr.e.t : exact; } actions = { nop; } }
    Sub() sub;
    apply { sub.apply(hdr, hdr.a.isValid(), true); t2.apply(); }
}
control VC(inout headers_t hdr, inout meta_t md) { apply { } }
control CC(inout headers_t hdr, inout meta_t md) { apply { } }
control Eg(inout headers_t hdr, inout meta_t md, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), Ig(), Eg(), CC(), D()) main;
"#;
    let p = lower_source(src);
    let ig = p.ingress_control().unwrap();
    let pg = ingress_graph(&p);
    let pw = vec![0.0; pg.len()];
    let tw = vec![1.0; p.tables.len()];
    let s = packet_classes(&p, ig, &pg, &pw, &tw, &ClassBudget::default()).unwrap();
    assert_eq!(s.classes.value, 2);
    assert_eq!(s.flags, vec!["Ig.sub.has_a", "Ig.sub.on"]);
    let mut by_path: Vec<(String, Vec<String>)> = pg
        .list(10)
        .into_iter()
        .map(|path| {
            let l = list_classes(&p, ig, &pg, &path, 10, &ClassBudget::default()).unwrap();
            assert_eq!(l.classes.len(), 1);
            (
                pg.path(&path).header_chain(),
                table_names(&p, &l.classes[0].control_path.tables),
            )
        })
        .collect();
    by_path.sort();
    assert_eq!(
        by_path,
        vec![
            ("hdr.e".to_string(), vec!["Ig.t2".to_string()]),
            (
                "hdr.e -> hdr.a".to_string(),
                vec!["Ig.sub.t1".to_string(), "Ig.t2".to_string()]
            ),
        ]
    );
}

/// `meta.x == 1`, or `!(meta.x == 1)`: a test no parse path decides.
fn x_is_one(negated: bool) -> Cond {
    let mut c = Cond::default();
    let f = c.push(CondNode::Field {
        name: "meta.x".into(),
    });
    let one = c.push(CondNode::Int { value: "1".into() });
    let eq = c.push(CondNode::Cmp {
        cmp: CmpOp::Eq,
        lhs: f,
        rhs: one,
    });
    if negated {
        c.push(CondNode::Not { arg: eq });
    }
    c
}

/// `if (!(meta.x == 1)) t1 else t2; switch (sw.apply().action_run) { b: t3;
/// a: t4; }` as a source writes it, or (`compiled`) as p4c does: the
/// negation taken off by swapping the branches, the arms in the table's
/// action order, the nodes made in another order.
fn source_or_compiled(compiled: bool) -> Program {
    let mut b = B::new();
    b.state("start", &["hdr.eth"], accept());
    let a = b.action("ingress.a", &[]);
    let bb = b.action("ingress.b", &[]);
    let t1 = b.table("t1", &[a]);
    let t2 = b.table("t2", &[a]);
    let t3 = b.table("t3", &[a]);
    let t4 = b.table("t4", &[a]);
    let sw = b.table("sw", &[a, bb]);
    let (n3, n4) = if compiled {
        let n4 = b.node(apply(t4, None));
        (b.node(apply(t3, None)), n4)
    } else {
        (b.node(apply(t3, None)), b.node(apply(t4, None)))
    };
    let arms = if compiled {
        vec![(a, n4), (bb, n3)]
    } else {
        vec![(bb, n3), (a, n4)]
    };
    let s = b.node(NodeKind::Table {
        table: sw,
        next: TableNext::ByAction { arms, default: n4 },
    });
    let n1 = b.node(apply(t1, s));
    let n2 = b.node(apply(t2, s));
    let entry = if compiled {
        b.node(cond(x_is_one(false), n2, n1))
    } else {
        b.node(cond(x_is_one(true), n1, n2))
    };
    b.build(entry)
}

#[test]
fn a_source_and_its_compiled_form_number_their_classes_alike() {
    let listing = |p: &Program| -> (Vec<Vec<String>>, u128, u128) {
        let pg = graph(p);
        let l = list_classes(
            p,
            ControlId(0),
            &pg,
            &[pg.start()],
            10,
            &ClassBudget::default(),
        )
        .unwrap();
        let classes = l
            .classes
            .iter()
            .map(|c| table_names(p, &c.control_path.tables))
            .collect();
        // t1 and t4 weigh most, t2 and t3 least.
        let tw = [5.0, 1.0, 1.0, 3.0, 0.0];
        let cc = ControlClasses::new(p, ControlId(0), &tw, 1000).unwrap();
        let mut lister =
            ClassLister::with_classes(p, ControlId(0), cc, &ClassBudget::default()).unwrap();
        let max = lister.extreme(&pg, &[pg.start()], true).unwrap().1.index;
        let min = lister.extreme(&pg, &[pg.start()], false).unwrap().1.index;
        (classes, max, min)
    };
    let source = listing(&source_or_compiled(false));
    let compiled = listing(&source_or_compiled(true));
    assert_eq!(source, compiled);
    // The way on when `meta.x == 1` holds first (t2), arms by name (a: t4,
    // then b: t3).
    assert_eq!(
        source.0,
        vec![
            vec!["t2", "sw", "t4"],
            vec!["t2", "sw", "t3"],
            vec!["t1", "sw", "t4"],
            vec!["t1", "sw", "t3"],
        ]
    );
    assert_eq!((source.1, source.2), (2, 1));
}
