//! Top-level declarations: types, constants, externs, functions, packages,
//! instantiations.

use super::{ok, sx, ty};
use crate::ast::*;

fn one(src: &str) -> Decl {
    let mut p = ok(src);
    assert_eq!(p.decls.len(), 1, "expected one declaration in {src}");
    p.decls.remove(0)
}

#[test]
fn header_with_stack_and_annotations() {
    let Decl::Struct(h) =
        one("@name(\"h\") header h_t { bit<8> a; @sat int<4> b; varbit<32> opts; }")
    else {
        panic!("not a header");
    };
    assert_eq!(h.kind, StructKind::Header);
    assert_eq!(h.name.name, "h_t");
    assert_eq!(h.annotations.len(), 1);
    let fields: Vec<(String, String)> = h
        .fields
        .iter()
        .map(|f| (ty(&f.ty), f.name.name.to_string()))
        .collect();
    assert_eq!(
        fields,
        vec![
            ("bit<8>".to_string(), "a".to_string()),
            ("int<4>".to_string(), "b".to_string()),
            ("varbit<32>".to_string(), "opts".to_string()),
        ]
    );
    assert_eq!(h.fields[1].annotations[0].name.name, "sat");
}

#[test]
fn struct_union_and_stack_fields() {
    let p = ok(
        "struct s { h_t[4] stack; bool b; error e; string s; bit flag; int i; }
                header_union u { a_t a; b_t b; }",
    );
    let Decl::Struct(s) = &p.decls[0] else {
        panic!()
    };
    assert_eq!(s.kind, StructKind::Struct);
    let tys: Vec<String> = s.fields.iter().map(|f| ty(&f.ty)).collect();
    assert_eq!(tys, vec!["h_t[4]", "bool", "error", "string", "bit", "int"]);
    let Decl::Struct(u) = &p.decls[1] else {
        panic!()
    };
    assert_eq!(u.kind, StructKind::HeaderUnion);
    assert_eq!(u.fields.len(), 2);
}

#[test]
fn width_expressions_in_types() {
    let Decl::Typedef(t) = one("typedef bit<(W + 1)> wide_t;") else {
        panic!()
    };
    assert!(!t.newtype);
    assert_eq!(ty(&t.ty), "bit<(+ W 1)>");
    let Decl::Typedef(t) = one("type bit<32> FlowId_t;") else {
        panic!()
    };
    assert!(t.newtype);
    assert_eq!(t.name.name, "FlowId_t");
}

#[test]
fn generic_struct_and_tuple_list_types() {
    let Decl::Struct(s) =
        one("struct pair<T> { T a; tuple<bit<8>, bool> t; list<bit<4>> l; S<bit<8>> x; }")
    else {
        panic!()
    };
    assert_eq!(s.type_params[0].name, "T");
    let tys: Vec<String> = s.fields.iter().map(|f| ty(&f.ty)).collect();
    assert_eq!(
        tys,
        vec!["T", "tuple<bit<8>, bool>", "list<bit<4>>", "S<bit<8>>"]
    );
}

#[test]
fn enums_plain_and_serializable() {
    let Decl::Enum(e) = one("enum Color { Red, Green, Blue }") else {
        panic!()
    };
    assert!(e.underlying.is_none());
    let names: Vec<&str> = e.members.iter().map(|m| m.name.name.as_str()).collect();
    assert_eq!(names, vec!["Red", "Green", "Blue"]);
    let Decl::Enum(e) = one("enum bit<8> E { A = 1, B = 0x2, }") else {
        panic!()
    };
    assert_eq!(e.underlying.as_ref().map(ty).as_deref(), Some("bit<8>"));
    let vals: Vec<String> = e
        .members
        .iter()
        .map(|m| m.value.as_ref().map(sx).unwrap_or_default())
        .collect();
    assert_eq!(vals, vec!["1", "2"]);
    let Decl::Enum(e) = one("enum MyT E { A = 1 }") else {
        panic!()
    };
    assert_eq!(e.underlying.as_ref().map(ty).as_deref(), Some("MyT"));
}

#[test]
fn const_error_match_kind() {
    let p = ok("const bit<16> ETH = 16w0x0800; error { NoError, Bad } match_kind { exact, lpm }");
    let Decl::Const(c) = &p.decls[0] else {
        panic!()
    };
    assert_eq!(ty(&c.ty), "bit<16>");
    assert_eq!(sx(&c.value), "16w2048");
    let Decl::Error(e) = &p.decls[1] else {
        panic!()
    };
    assert_eq!(e.members.len(), 2);
    let Decl::MatchKind(m) = &p.decls[2] else {
        panic!()
    };
    assert_eq!(m.members[1].name, "lpm");
}

#[test]
fn extern_object_with_constructors_and_methods() {
    let Decl::Extern(x) = one("extern Register<T, I> {
            Register(bit<32> size);
            Register(bit<32> size, T initial);
            T read(in I index);
            void write<U>(in I index, in U value);
            @synchronous(execute) abstract void apply(inout T value, @optional out T rv);
        }")
    else {
        panic!()
    };
    assert_eq!(x.name.name, "Register");
    assert_eq!(x.type_params.len(), 2);
    assert!(!x.forward);
    assert_eq!(x.methods.len(), 5);
    assert!(matches!(&x.methods[0], Method::Constructor { params, .. } if params.len() == 1));
    let Method::Method(read) = &x.methods[2] else {
        panic!()
    };
    assert_eq!(ty(&read.ret), "T");
    assert_eq!(read.params[0].direction, Direction::In);
    let Method::Method(write) = &x.methods[3] else {
        panic!()
    };
    assert_eq!(write.ret.kind, TypeKind::Void);
    assert_eq!(write.type_params[0].name, "U");
    let Method::Method(apply) = &x.methods[4] else {
        panic!()
    };
    assert!(apply.is_abstract);
    assert_eq!(apply.annotations[0].name.name, "synchronous");
    assert_eq!(apply.params[0].direction, Direction::InOut);
    assert_eq!(apply.params[1].direction, Direction::Out);
    assert_eq!(apply.params[1].annotations[0].name.name, "optional");
}

#[test]
fn extern_functions_and_forward_declarations() {
    let p =
        ok("extern void mark_to_drop<M>(inout M m); extern bit<16> csum(in bit<8> x); extern Foo;");
    let Decl::ExternFunction(f) = &p.decls[0] else {
        panic!()
    };
    assert_eq!(f.name.name, "mark_to_drop");
    assert_eq!(f.type_params.len(), 1);
    let Decl::ExternFunction(f) = &p.decls[1] else {
        panic!()
    };
    assert_eq!(ty(&f.ret), "bit<16>");
    let Decl::Extern(x) = &p.decls[2] else {
        panic!()
    };
    assert!(x.forward);
}

#[test]
fn function_declaration() {
    let Decl::Function(f) = one("bit<8> max(in bit<8> a, in bit<8> b) { return a > b ? a : b; }")
    else {
        panic!()
    };
    assert_eq!(f.proto.name.name, "max");
    assert_eq!(f.proto.params.len(), 2);
    assert!(matches!(&f.body.stmts[0].kind, StmtKind::Return(Some(_))));
}

#[test]
fn instantiations_with_type_args_and_initializers() {
    let p = ok("Register<bit<32>, _>(1024) r;
                RegisterAction<bit<32>, bit<16>, bit<32>>(r) ra = {
                    void apply(inout bit<32> v, out bit<32> rv) { rv = v; v = v + 1; }
                };");
    let Decl::Instantiation(r) = &p.decls[0] else {
        panic!()
    };
    assert_eq!(ty(&r.ty), "Register<bit<32>, _>");
    assert_eq!(sx(&r.args[0].value), "1024");
    assert_eq!(r.name.name, "r");
    assert!(r.initializer.is_none());
    let Decl::Instantiation(ra) = &p.decls[1] else {
        panic!()
    };
    let init = ra.initializer.as_ref().expect("initializer");
    let ObjDecl::Function(apply) = &init[0] else {
        panic!()
    };
    assert_eq!(apply.proto.name.name, "apply");
    assert_eq!(apply.body.stmts.len(), 2);
}

#[test]
fn packages_and_main() {
    let p = ok(
        "package Pipeline<IH, IM>(IngressParserT<IH, IM> ip, IngressT<IH, IM> ig);
                Pipeline(IgParser(), Ig()) pipe;
                Switch(pipe) main;
                V1Switch(P(), V(), I(), E(), C(), D()) main2;",
    );
    let Decl::Package(pk) = &p.decls[0] else {
        panic!()
    };
    assert_eq!(pk.type_params.len(), 2);
    assert_eq!(ty(&pk.params[0].ty), "IngressParserT<IH, IM>");
    let Decl::Instantiation(pipe) = &p.decls[1] else {
        panic!()
    };
    assert_eq!(ty(&pipe.ty), "Pipeline");
    let args: Vec<String> = pipe.args.iter().map(|a| sx(&a.value)).collect();
    assert_eq!(args, vec!["IgParser()", "Ig()"]);
    let Decl::Instantiation(main) = &p.decls[2] else {
        panic!()
    };
    assert_eq!(main.name.name, "main");
    let Decl::Instantiation(m2) = &p.decls[3] else {
        panic!()
    };
    assert_eq!(m2.args.len(), 6);
}

#[test]
fn parser_and_control_type_declarations() {
    let p = ok("parser P<H>(packet_in b, out H h); control C<H, M>(inout H h, inout M m);");
    assert!(
        matches!(&p.decls[0], Decl::ParserType(t) if t.type_params.len() == 1 && t.params.len() == 2)
    );
    assert!(matches!(&p.decls[1], Decl::ControlType(t) if t.type_params.len() == 2));
}

#[test]
fn comments_pragma_lines_and_empty_declarations_are_trivia() {
    let p =
        ok("#pragma once\n# 1 \"x.p4\"\n// c\n/* block\n comment */ ;; const int A = 1; // end");
    assert_eq!(p.decls.len(), 1);
}

#[test]
fn parameter_defaults_and_directions() {
    let Decl::ControlType(c) =
        one("control C(in bit<8> a, out bit<8> b, inout bit<8> c, bit<8> d = 3, inout_t e);")
    else {
        panic!()
    };
    let dirs: Vec<Direction> = c.params.iter().map(|p| p.direction).collect();
    assert_eq!(
        dirs,
        vec![
            Direction::In,
            Direction::Out,
            Direction::InOut,
            Direction::None,
            Direction::None
        ]
    );
    assert_eq!(c.params[3].default.as_ref().map(sx).as_deref(), Some("3"));
    assert_eq!(ty(&c.params[4].ty), "inout_t");
}
