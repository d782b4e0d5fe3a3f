//! Parser and control declarations: locals, states, transitions, tables.

use super::{control_locals, ok, sx, ty};
use crate::ast::*;

fn parser(src: &str) -> ParserDecl {
    match ok(src).decls.into_iter().next() {
        Some(Decl::Parser(p)) => p,
        other => panic!("expected a parser, got {other:?}"),
    }
}

fn ks(k: &Keyset) -> String {
    match &k.kind {
        KeysetKind::Expr(e) => sx(e),
        KeysetKind::Mask { value, mask } => format!("{} &&& {}", sx(value), sx(mask)),
        KeysetKind::Range { lo, hi } => format!("{} .. {}", sx(lo), sx(hi)),
        KeysetKind::Default => "default".into(),
        KeysetKind::DontCare => "_".into(),
        KeysetKind::Tuple(v) => format!("({})", v.iter().map(ks).collect::<Vec<_>>().join(", ")),
    }
}

#[test]
fn parser_header_locals_and_states() {
    let p = parser(
        "parser P<T>(packet_in pkt, out T hdr, inout meta_t m)(bit<8> k) {
            Checksum() ck;
            value_set<bit<16>>(4) pvs;
            bit<8> tmp = 0;
            const bit<8> K = 3;
            state start { transition accept; }
         }",
    );
    assert_eq!(p.type_params[0].name, "T");
    assert_eq!(p.params.len(), 3);
    assert_eq!(p.params[1].direction, Direction::Out);
    assert_eq!(p.ctor_params.len(), 1);
    assert_eq!(p.locals.len(), 4);
    assert!(matches!(&p.locals[0], LocalDecl::Instantiation(i) if i.name.name == "ck"));
    let LocalDecl::ValueSet(vs) = &p.locals[1] else {
        panic!()
    };
    assert_eq!(ty(&vs.elem), "bit<16>");
    assert_eq!(sx(&vs.size), "4");
    assert_eq!(vs.name.name, "pvs");
    assert!(matches!(&p.locals[2], LocalDecl::Var(v) if v.init.is_some()));
    assert!(matches!(&p.locals[3], LocalDecl::Const(_)));
    assert_eq!(p.states.len(), 1);
}

#[test]
fn state_statements() {
    let p = parser(
        "parser P(packet_in pkt, out H hdr) {
            state start {
                pkt.extract(hdr.eth);
                pkt.extract<ipv4_h>(hdr.ipv4);
                pkt.extract(hdr.opts, (bit<32>)(hdr.ipv4.ihl - 5) * 32);
                pkt.advance(32);
                bit<8> v = pkt.lookahead<bit<8>>();
                hdr.m.x = v;
                verify(v != 0, error.BadValue);
                if (v == 1) { hdr.m.y = 1; } else hdr.m.y = 2;
                { bit<4> inner; }
                ;
                transition next;
            }
            state next { }
         }",
    );
    let s = &p.states[0];
    assert_eq!(s.stmts.len(), 10);
    let calls: Vec<String> = s
        .stmts
        .iter()
        .filter_map(|st| match &st.kind {
            StmtKind::Call(e) => Some(sx(e)),
            _ => None,
        })
        .collect();
    assert_eq!(
        calls,
        vec![
            "pkt.extract(hdr.eth)",
            "pkt.extract<ipv4_h>(hdr.ipv4)",
            "pkt.extract(hdr.opts, (* (cast bit<32> (- hdr.ipv4.ihl 5)) 32))",
            "pkt.advance(32)",
            "verify((!= v 0), error.BadValue)",
        ]
    );
    let StmtKind::Var(v) = &s.stmts[4].kind else {
        panic!()
    };
    assert_eq!(
        v.init.as_ref().map(sx).as_deref(),
        Some("pkt.lookahead<bit<8>>()")
    );
    assert!(matches!(&s.stmts[5].kind, StmtKind::Assign(_)));
    let StmtKind::If(i) = &s.stmts[7].kind else {
        panic!()
    };
    assert!(i.els.is_some());
    assert!(matches!(&s.stmts[8].kind, StmtKind::Block(b) if b.stmts.len() == 1));
    assert!(matches!(&s.stmts[9].kind, StmtKind::Empty));
    assert!(
        matches!(&s.transition, Some(Transition { kind: TransitionKind::Direct(n), .. }) if n.name == "next")
    );
    assert!(p.states[1].transition.is_none());
}

#[test]
fn select_transitions() {
    let p = parser(
        "parser P(packet_in pkt, out H hdr) {
            state start {
                transition select(a, b) {
                    (0x1, _): s1;
                    (2 &&& 3, 4 .. 5): s1b;
                    0x800 &&& 0xF00: s2;
                    1 .. 5: s3;
                    pvs: s4;
                    (a): s5;
                    _ : s6;
                    default: accept;
                }
            }
         }",
    );
    let Some(Transition {
        kind: TransitionKind::Select { exprs, cases },
        ..
    }) = &p.states[0].transition
    else {
        panic!()
    };
    assert_eq!(exprs.len(), 2);
    let got: Vec<(String, String)> = cases
        .iter()
        .map(|c| (ks(&c.keyset), c.next.name.to_string()))
        .collect();
    let want = [
        ("(1, _)", "s1"),
        ("(2 &&& 3, 4 .. 5)", "s1b"),
        ("2048 &&& 3840", "s2"),
        ("1 .. 5", "s3"),
        ("pvs", "s4"),
        ("a", "s5"),
        ("_", "s6"),
        ("default", "accept"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn control_with_actions_and_table_properties() {
    let locals = control_locals(
        "action a(bit<8> x) { m.v = x; }
         action b() { }
         @name(\"ctl.t\") table t {
            key = {
                hdr.ipv4.dst : lpm @name(\"dst\");
                m.v : exact;
            }
            actions = { a; b(); @defaultonly NoAction; .c; }
            size = 1024;
            const default_action = a(1);
            implementation = action_profile(32w128);
            counters = ctr;
            @my_note support_timeout = true;
         }",
    );
    assert_eq!(locals.len(), 3);
    let LocalDecl::Action(a) = &locals[0] else {
        panic!()
    };
    assert_eq!(a.params[0].direction, Direction::None);
    let LocalDecl::Table(t) = &locals[2] else {
        panic!()
    };
    assert_eq!(t.annotations[0].name.name, "name");
    let key = t.key().expect("key");
    assert_eq!(key.len(), 2);
    assert_eq!(sx(&key[0].expr), "hdr.ipv4.dst");
    assert_eq!(key[0].match_kind.name, "lpm");
    assert_eq!(key[0].annotations[0].name.name, "name");
    let acts = t.actions().expect("actions");
    let names: Vec<String> = acts.iter().map(|a| a.name.name.name.to_string()).collect();
    assert_eq!(names, vec!["a", "b", "NoAction", "c"]);
    assert!(acts[0].args.is_none());
    assert_eq!(acts[1].args.as_ref().map(Vec::len), Some(0));
    assert_eq!(acts[2].annotations[0].name.name, "defaultonly");
    assert!(acts[3].name.absolute);
    let size = t.custom("size").expect("size");
    assert!(matches!(&size.kind, TablePropertyKind::Custom { value, .. } if sx(value) == "1024"));
    let da = t.custom("default_action").expect("default_action");
    assert!(da.is_const);
    assert!(matches!(&da.kind, TablePropertyKind::Custom { value, .. } if sx(value) == "a(1)"));
    assert!(t.custom("implementation").is_some());
    assert!(t.custom("counters").is_some());
    let st = t.custom("support_timeout").expect("support_timeout");
    assert_eq!(st.annotations[0].name.name, "my_note");
}

#[test]
fn table_entries() {
    let locals = control_locals(
        "table t {
            key = { a : exact; b : ternary; }
            actions = { x; y; }
            const entries = {
                (1, 0x0A000000 &&& 0xFF000000) : x(1);
                (2, _) : y() @name(\"e\");
                priority = 10 : (3, 4) : x(2);
                (default, 7 .. 9) : y;
            }
         }
         table u { entries = { const 5 : x(); } default_action = x; }",
    );
    let LocalDecl::Table(t) = &locals[0] else {
        panic!()
    };
    let prop = t
        .properties
        .iter()
        .find(|p| matches!(p.kind, TablePropertyKind::Entries(_)))
        .expect("entries");
    assert!(prop.is_const);
    let entries = t.entries().expect("entries");
    assert_eq!(entries.len(), 4);
    assert_eq!(ks(&entries[0].keyset), "(1, 167772160 &&& 4278190080)");
    assert_eq!(entries[0].action.name.name.name, "x");
    assert_eq!(
        entries[0]
            .action
            .args
            .as_ref()
            .map(|a| sx(&a[0].value))
            .as_deref(),
        Some("1")
    );
    assert_eq!(entries[1].annotations[0].name.name, "name");
    assert_eq!(entries[2].priority.as_ref().map(sx).as_deref(), Some("10"));
    assert_eq!(ks(&entries[3].keyset), "(default, 7 .. 9)");
    assert!(entries[3].action.args.is_none());
    let LocalDecl::Table(u) = &locals[1] else {
        panic!()
    };
    let ue = u.entries().expect("entries");
    assert!(ue[0].is_const);
    assert_eq!(ks(&ue[0].keyset), "5");
}

#[test]
fn control_locals_instances_and_variables() {
    let locals = control_locals(
        "Counter<bit<32>, bit<16>>(1024, CounterType_t.PACKETS) c;
         bit<16> idx = 0;
         h_t[2] stack;
         const bit<8> K = 1;",
    );
    let LocalDecl::Instantiation(c) = &locals[0] else {
        panic!()
    };
    assert_eq!(ty(&c.ty), "Counter<bit<32>, bit<16>>");
    assert_eq!(sx(&c.args[1].value), "CounterType_t.PACKETS");
    assert!(matches!(&locals[1], LocalDecl::Var(v) if ty(&v.ty) == "bit<16>"));
    assert!(matches!(&locals[2], LocalDecl::Var(v) if ty(&v.ty) == "h_t[2]"));
    assert!(matches!(&locals[3], LocalDecl::Const(_)));
}

#[test]
fn control_constructor_parameters() {
    let Some(Decl::Control(c)) = ok("control C(inout H h)(bit<32> size, bool flag) { apply { } }")
        .decls
        .into_iter()
        .next()
    else {
        panic!()
    };
    assert_eq!(c.ctor_params.len(), 2);
    assert!(c.apply.stmts.is_empty());
}

#[test]
fn contextual_keywords_are_usable_as_names() {
    let p = ok("control C(inout H key) { bit<8> state = 0; bit<8> type = 1; apply { key.entries = state + type; } }");
    let Some(Decl::Control(c)) = p.decls.first() else {
        panic!()
    };
    assert_eq!(c.params[0].name.name, "key");
    assert_eq!(c.locals.len(), 2);
}
