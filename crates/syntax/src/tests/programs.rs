//! Whole programs: realistic TNA and v1model sources and a large generated one.

use super::ok;
use crate::ast::*;

#[test]
fn tna_program_parses() {
    let src = include_str!("../../testdata/tna_router.p4");
    let p = ok(src);
    let controls: Vec<&str> = p
        .decls
        .iter()
        .filter_map(|d| match d {
            Decl::Control(c) => Some(c.name.name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(controls, vec!["SwitchIngress", "SwitchIngressDeparser"]);
    let Some(Decl::Control(ig)) = p.decls.iter().find(|d| matches!(d, Decl::Control(_))) else {
        panic!()
    };
    let tables = ig
        .locals
        .iter()
        .filter(|l| matches!(l, LocalDecl::Table(_)))
        .count();
    assert_eq!(tables, 2);
    let Some(Decl::Parser(pr)) = p.decls.iter().find(|d| matches!(d, Decl::Parser(_))) else {
        panic!()
    };
    assert_eq!(pr.states.len(), 4);
    let Some(Decl::Instantiation(main)) = p.decls.last() else {
        panic!()
    };
    assert_eq!(main.name.name, "main");
}

#[test]
fn v1model_program_parses() {
    let src = include_str!("../../testdata/v1model_basic.p4");
    let p = ok(src);
    let Some(Decl::Instantiation(main)) = p.decls.last() else {
        panic!()
    };
    assert_eq!(main.args.len(), 6);
    let parsers = p
        .decls
        .iter()
        .filter(|d| matches!(d, Decl::Parser(_)))
        .count();
    assert_eq!(parsers, 1);
}

/// Builds a program of roughly `n` lines: many actions, one big apply block.
fn generated(n: usize) -> String {
    let mut s = String::from("header h_t { bit<32> a; bit<32> b; }\nstruct H { h_t h; }\n");
    s.push_str("control Big(inout H hdr) {\n");
    for i in 0..n / 4 {
        s.push_str(&format!(
            "    action a{i}(bit<32> v) {{ hdr.h.a = hdr.h.b + v * {i}; }}\n"
        ));
    }
    s.push_str("    apply {\n");
    for i in 0..n / 2 {
        s.push_str(&format!(
            "        if (hdr.h.a == {i}) {{ hdr.h.b = (bit<32>)(hdr.h.a >> 1) |+| 32w{i}; }}\n"
        ));
    }
    s.push_str("    }\n}\n");
    s
}

#[test]
fn ten_thousand_line_program_parses() {
    let src = generated(10_000);
    assert!(src.lines().count() >= 7_500);
    let p = ok(&src);
    let Some(Decl::Control(c)) = p.decls.get(2) else {
        panic!()
    };
    assert_eq!(c.locals.len(), 2_500);
    assert_eq!(c.apply.stmts.len(), 5_000);
}
