//! Node sizes: every statement of the input is one `Stmt`, so its size is
//! most of the AST's memory per input byte (1 MB of `;` is a million of
//! them), and expressions come boxed, several per statement. Rare, large
//! variants are boxed to keep both small.

use crate::ast::{Stmt, StmtKind};

#[test]
fn statements_stay_small() {
    // Was 384 bytes (local declarations and two whole expressions inline),
    // then 96 (annotations a whole vector, compound statements inline).
    assert!(
        std::mem::size_of::<StmtKind>() <= 16,
        "{}",
        std::mem::size_of::<StmtKind>()
    );
    assert!(
        std::mem::size_of::<Stmt>() <= 32,
        "{}",
        std::mem::size_of::<Stmt>()
    );
    // Was 112 (a cast's whole type inline), then 80 (an integer literal's
    // u128 made every node 16-byte aligned; a call's two vectors).
    assert!(
        std::mem::size_of::<crate::ast::Expr>() <= 56,
        "{}",
        std::mem::size_of::<crate::ast::Expr>()
    );
}

#[test]
fn a_long_program_parses_one_declaration_at_a_time() {
    // 2,000 declarations parse to 2,000 declarations in order, each with
    // spans into the whole text (the parser restarts after each one).
    let src: String = (0..2000)
        .map(|i| format!("const bit<8> C{i} = {};\n// c\n", i % 256))
        .collect();
    let p = crate::parse(&src).expect("parses");
    assert_eq!(p.decls.len(), 2000);
    let crate::ast::Decl::Const(last) = &p.decls[1999] else {
        panic!("not a constant")
    };
    assert_eq!(last.name.span.text(&src), "C1999");
    assert_eq!(p.span.lo, 0);
    // An error in the middle is reported where it is.
    let bad = src.replacen("C1000 =", "C1000 ==", 1);
    let e = crate::parse(&bad).expect_err("syntax error");
    // `C1000 ==`: the first `=` is the initialiser's, an expression is
    // missing at the second (column 21).
    assert_eq!(e.line_col(&bad), (2001, 21));
}
