//! Lowering of constructs found in p4c's sample programs: fields named
//! `next`, extracts into `_`, stack extracts at run-time indices, table
//! sizes from constructor parameters, width slices, array declarators,
//! compound assignments and width expressions.

use p4cost_front::{load_source, Loaded, Options};
use p4cost_ir::*;

fn load(src: &str) -> Loaded {
    match load_source("t.p4", src, &Options::default()) {
        Ok(l) => l,
        Err(e) => panic!("{e}"),
    }
}

fn load_err(src: &str) -> String {
    match load_source("t.p4", src, &Options::default()) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

fn ops(l: &Loaded, state: &str) -> Vec<ParserOp> {
    l.program
        .parsers
        .iter()
        .flat_map(|p| p.states.iter())
        .find(|s| s.name == state)
        .map(|s| s.ops.clone())
        .unwrap_or_else(|| panic!("no state {state}"))
}

#[test]
fn a_struct_field_named_next_is_not_a_stack_operation() {
    let l = load(
        "#include <core.p4>
        header a_h { bit<8> v; }
        header b_h { bit<16> v; }
        struct hs { a_h first; b_h next; }
        parser P(packet_in p, out hs h) {
            state start { p.extract(h.first); p.extract(h.next); transition accept; }
        }",
    );
    let o = ops(&l, "start");
    match &o[1] {
        ParserOp::Extract {
            header,
            stack,
            bits,
            instance,
            ..
        } => {
            assert_eq!(header, "hdr.next");
            assert_eq!(*stack, None);
            assert_eq!(*bits, 16);
            assert!(instance.is_some());
        }
        other => panic!("expected an extract, got {other:?}"),
    }
}

#[test]
fn next_on_a_stack_is_still_the_stack_operation() {
    let l = load(
        "#include <core.p4>
        header m_h { bit<32> v; }
        struct hs { m_h[4] mpls; }
        parser P(packet_in p, out hs h) {
            state start { p.extract(h.mpls.next); transition accept; }
        }",
    );
    match &ops(&l, "start")[0] {
        ParserOp::Extract {
            header,
            stack,
            bits,
            ..
        } => {
            assert_eq!(header, "hdr.mpls");
            assert_eq!(*stack, Some(StackAccess::Next));
            assert_eq!(*bits, 32);
        }
        other => panic!("expected an extract, got {other:?}"),
    }
}

#[test]
fn a_union_member_of_a_stack_element_fills_the_stack() {
    // issue561's TCP options: a stack of header unions, extracted one
    // member at a time (`vec.next.nop`, `vec[1].sack`).
    let l = load(
        "#include <core.p4>
        header nop_h { bit<8> kind; }
        header sack_h { bit<8> kind; bit<8> len; varbit<256> blocks; }
        header_union opt_u { nop_h nop; sack_h sack; }
        struct hs { opt_u[4] vec; }
        parser P(packet_in p, out hs h) {
            state start {
                p.extract(h.vec.next.nop);
                p.extract(h.vec[1].sack, 64);
                transition accept;
            }
        }",
    );
    let o = ops(&l, "start");
    let ParserOp::Extract {
        header,
        stack,
        bits,
        varbit_max_bits,
        instance,
        ..
    } = &o[0]
    else {
        panic!("{o:?}")
    };
    assert_eq!(header, "hdr.vec");
    assert_eq!(*stack, Some(StackAccess::Next));
    // The nop member is 8 bits, not the union's widest member.
    assert_eq!((*bits, *varbit_max_bits), (8, 0));
    let inst = instance.expect("instance");
    assert_eq!(l.program.header(inst).stack_size, Some(4));
    let ParserOp::Extract {
        header,
        stack,
        bits,
        varbit_max_bits,
        instance: second,
        ..
    } = &o[1]
    else {
        panic!("{o:?}")
    };
    assert_eq!(header, "hdr.vec");
    assert_eq!(*stack, Some(StackAccess::Index(1)));
    assert_eq!((*bits, *varbit_max_bits), (16, 256));
    assert_eq!(*second, Some(inst));
}

#[test]
fn extract_into_dont_care_advances_by_the_type_width() {
    let l = load(
        "#include <core.p4>
        header H { bit<32> a; bit<8> b; }
        struct hs { H h; }
        parser P(packet_in p, out hs h) {
            state start { p.extract<H>(_); p.extract(h.h); transition accept; }
        }",
    );
    let o = ops(&l, "start");
    assert!(
        matches!(o[0], ParserOp::Advance { bits: Some(40), .. }),
        "{:?}",
        o[0]
    );
    assert!(matches!(o[1], ParserOp::Extract { bits: 40, .. }));
}

#[test]
fn extract_into_a_stack_at_a_run_time_index_is_kept_with_a_warning() {
    let l = load(
        "#include <core.p4>
        header H { bit<16> a; }
        struct hs { H[3] s; }
        parser P(packet_in p, out hs h) {
            bit<2> i = 1;
            state start { p.extract(h.s[i]); transition accept; }
        }",
    );
    match &ops(&l, "start")[0] {
        ParserOp::Extract {
            header,
            stack,
            bits,
            instance,
            ..
        } => {
            assert_eq!(header, "hdr.s");
            assert_eq!(*stack, None);
            assert_eq!(*bits, 16);
            let id = instance.expect("the stack instance");
            assert_eq!(l.program.header(id).stack_size, Some(3));
        }
        other => panic!("expected an extract, got {other:?}"),
    }
    assert!(
        l.warnings
            .iter()
            .any(|w| w.message.contains("not a compile-time constant")
                && w.message.contains("not tracked")),
        "{:?}",
        l.warnings
    );
}

#[test]
fn table_size_from_a_constructor_parameter_is_unknown_with_a_warning() {
    let l = load(
        "#include <core.p4>
        control C(in bit<48> a, inout bit<4> v)(int Size) {
            action A() { v = 1; }
            table t { key = { a : exact; } actions = { A; } size = Size; }
            apply { t.apply(); }
        }",
    );
    let t = &l.program.tables[0];
    assert_eq!(t.size, None);
    assert_eq!(t.keys[0].width_bits, Some(48));
    assert!(l.warnings.iter().any(|w| w
        .message
        .contains("size `Size` depends on a constructor parameter")));
}

#[test]
fn undeclared_table_size_names_the_missing_constant() {
    let e = load_err(
        "#include <core.p4>
        control C(in bit<48> a) {
            action A() { }
            table t { key = { a : exact; } actions = { A; } size = T_SIZE; }
            apply { t.apply(); }
        }",
    );
    assert!(
        e.contains(
            "size `T_SIZE` is not a compile-time constant: `T_SIZE` is not a declared constant"
        ),
        "{e}"
    );
}

#[test]
fn extract_through_an_undeclared_type_names_the_type() {
    let e = load_err(
        "#include <core.p4>
        parser P(packet_in p, out missing_t hdr) {
            state start { p.extract(hdr.x); transition accept; }
        }",
    );
    assert!(
        e.contains("`hdr` has type `missing_t`, which is not declared"),
        "{e}"
    );
}

#[test]
fn width_slice_keys_compound_assignments_and_width_expressions() {
    let l = load(
        "#include <core.p4>
        const bit<8> W = 8;
        typedef bit<W + 8> w16_t;
        header H { bit<64> d; w16_t f; bit<8> arr[4]; }
        struct hs { H h; }
        control C(inout hs h) {
            action inc() { h.h.f += 1; }
            table t { key = { h.h.d[h.h.f +: 16] : exact; h.h.f : exact; } actions = { inc; } }
            apply { t.apply(); }
        }",
    );
    let hdr = l
        .program
        .header_types
        .iter()
        .find(|t| t.name == "H")
        .expect("H");
    let widths: Vec<u32> = hdr.fields.iter().map(|f| f.width_bits).collect();
    assert_eq!(widths, vec![64, 16, 32]);
    let t = &l.program.tables[0];
    let kw: Vec<Option<u32>> = t.keys.iter().map(|k| k.width_bits).collect();
    assert_eq!(kw, vec![Some(16), Some(16)]);
    let a = l
        .program
        .actions
        .iter()
        .find(|a| a.name == "inc")
        .expect("inc");
    assert_eq!(a.writes, vec!["h.h.f".to_string()]);
    assert!(a.reads.contains(&"h.h.f".to_string()));
    assert_eq!(a.primitives[0].op, "arith");
}

#[test]
fn width_using_a_slice_of_a_constant() {
    let l = load(
        "#include <core.p4>
        const bit<16> V = 0x0318;
        header H { bit<V[7:0] - 16> a; }
        struct hs { H h; }
        parser P(packet_in p, out hs h) {
            state start { p.extract(h.h); transition accept; }
        }",
    );
    // 0x18 - 16 = 8
    assert!(matches!(
        ops(&l, "start")[0],
        ParserOp::Extract { bits: 8, .. }
    ));
}

#[test]
fn a_control_taking_packet_out_binds_as_deparser_whatever_its_slot_name() {
    // Like XDP's `xdp(prs(), sw(), deprs())`: the third slot is `d` of type
    // `xdp_deparse<H>`, which names no "deparser".
    let l = load(
        "#include <core.p4>
        header h_t { bit<8> a; }
        struct hs { h_t h; }
        parser xp<H>(packet_in packet, out H headers);
        control xs<H>(inout H headers);
        control xd<H>(in H headers, packet_out packet);
        package pkg<H>(xp<H> p, xs<H> s, xd<H> d);
        parser prs(packet_in packet, out hs headers) {
            state start { packet.extract(headers.h); transition accept; }
        }
        control sw(inout hs headers) {
            action a() { }
            table t { key = { headers.h.a : exact; } actions = { a; } }
            apply { t.apply(); }
        }
        control deprs(in hs headers, packet_out packet) { apply { packet.emit(headers.h); } }
        pkg(prs(), sw(), deprs()) main;",
    );
    let p = &l.program;
    let pipe = &p.pipelines[0];
    let ingress = pipe.ingress.expect("an ingress control");
    assert_eq!(p.controls[ingress.index()].name, "sw");
    let dep = pipe.ingress_deparser.expect("a deparser");
    assert_eq!(p.controls[dep.index()].name, "deprs");
    assert_eq!(p.controls[dep.index()].role, ControlRole::Deparser);
}

#[test]
fn key_widths_of_literals_conditions_and_generic_functions() {
    let l = load(
        "#include <core.p4>
        extern T pick<T>(in bool d, in T a, in T b);
        header h_t { bit<32> a; bit<32> b; bit<8> c; }
        struct hs { h_t h; }
        control C(inout hs h) {
            action x() { }
            table t0 { key = { h.h.c : exact; } actions = { x; } }
            table t1 {
                key = {
                    48w1 : exact;
                    pick(true, h.h.a, h.h.b) : exact;
                    (t0.apply().hit ? 8w1 : 8w2) : exact;
                    !h.h.isValid() : exact;
                }
                actions = { x; }
            }
            apply { t1.apply(); }
        }",
    );
    let t = l
        .program
        .tables
        .iter()
        .find(|t| t.name.rsplit('.').next() == Some("t1"))
        .expect("t1");
    let kw: Vec<Option<u32>> = t.keys.iter().map(|k| k.width_bits).collect();
    assert_eq!(kw, vec![Some(48), Some(32), Some(8), Some(1)]);
}
