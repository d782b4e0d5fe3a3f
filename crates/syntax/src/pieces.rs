//! Parses a parser or control declaration one element at a time.
//!
//! One giant parser (40,000 states) or control (a million statements in its
//! apply block) is a single top-level declaration, and pest keeps the whole
//! parse tree of what it parses in its token queue (80 bytes per node,
//! several nodes per input byte) until the builder is done with it.  Here
//! the declaration is parsed with the grammar's `*_item` entry rules
//! instead: its head up to the opening brace, then each local declaration,
//! state or apply-block statement on its own (blocks and `if`s in the apply
//! block opened and closed around their own statements, see [`block`]),
//! each built into the AST and its parse tree dropped before the next one
//! is parsed.
//!
//! The pieces are the steps of `parser_decl` / `control_decl`: each of
//! their repetitions is greedy and never backtracks into an element it has
//! matched, so the pieces accept exactly the declarations the whole rule
//! accepts, and build the same AST.  Errors are the whole rule's business:
//! when any piece fails (syntax or builder error) this returns `None` and
//! the caller parses the declaration in one go as before, which finds the
//! same error with the same message (pest reports the furthest failure of
//! the whole rule, and a syntax error later in the declaration wins over a
//! builder error earlier in it).

use pest::Parser;

use crate::ast::{
    Annotation, Annotations, Block, ControlDecl, Decl, Expr, IfStmt, ParserDecl, Span, Stmt,
    StmtKind,
};
use crate::builder::{build_piece, fit, Piece, MAX_DEPTH};
use crate::grammar::{P4Parser, Rule};

/// The parser or control declaration with a body that starts at byte `pos`
/// of `text` (after optional trivia), and the offset just past its closing
/// brace; `None` if there is none there or it does not parse (the caller
/// then parses the item as a whole).  `text` has its comments blanked
/// (see `trivia`), as everything the grammar parses.
pub(crate) fn container(text: &str, pos: usize) -> Option<(Decl, usize)> {
    let (Piece::Head(head), mut pos) = piece(text, pos, Rule::container_head_item, 0)? else {
        return None;
    };
    let mut locals = Vec::new();
    if head.is_parser {
        let mut states = Vec::new();
        let hi = loop {
            // Locals come before the first state.
            let rule = if states.is_empty() {
                Rule::parser_local_item
            } else {
                Rule::parser_state_item
            };
            let (p, end) = piece(text, pos, rule, 0)?;
            pos = end;
            match p {
                Piece::Local(l) => locals.push(l),
                Piece::State(s) => states.push(s),
                Piece::End(hi) => break hi,
                _ => return None,
            }
        };
        let proto = head.proto;
        let decl = Decl::Parser(ParserDecl {
            annotations: proto.annotations,
            name: proto.name,
            type_params: proto.type_params,
            params: proto.params,
            ctor_params: head.ctor_params,
            locals: fit(locals),
            states: fit(states),
            span: Span::new(head.lo, hi),
        });
        return Some((decl, pos));
    }
    let (apply_annotations, apply_lo) = loop {
        let (p, end) = piece(text, pos, Rule::control_local_item, 0)?;
        pos = end;
        match p {
            Piece::Local(l) => locals.push(l),
            Piece::ApplyHead { annotations, lo } => break (annotations, lo),
            _ => return None,
        }
    };
    let (apply, pos) = block(text, pos, apply_annotations, apply_lo)?;
    let (Piece::End(hi), end) = piece(text, pos, Rule::body_end_item, 0)? else {
        return None;
    };
    let proto = head.proto;
    let decl = Decl::Control(ControlDecl {
        annotations: proto.annotations,
        name: proto.name,
        type_params: proto.type_params,
        params: proto.params,
        ctor_params: head.ctor_params,
        locals: fit(locals),
        apply,
        span: Span::new(head.lo, hi),
    });
    Some((decl, end))
}

/// A statement of the apply block still open while its parts are parsed.
enum Open {
    /// A block: the apply block itself (at the bottom) or a block
    /// statement, open until its `}`.
    Block {
        /// For a block statement, the statement's annotations and first byte.
        stmt: Option<(Vec<Annotation>, u32)>,
        annotations: Vec<Annotation>,
        lo: u32,
        stmts: Vec<Stmt>,
        /// Nesting depth its statements are built at.
        depth: u32,
    },
    /// An `if`, open until its then branch (and else branch, if any) is
    /// complete.
    If {
        annotations: Vec<Annotation>,
        lo: u32,
        cond: Expr,
        then: Option<Stmt>,
        /// `else` was read: the next statement is the else branch.
        has_else: bool,
        /// Nesting depth its branches are built at.
        depth: u32,
    },
}

/// The apply block whose `{` ends just before byte `pos` (its annotations
/// and first byte given), and the offset just past its `}`.  Its statements
/// are parsed one at a time, and so are the statements of the blocks and
/// `if` branches nested in it (`apply { if (valid) { ... } }` is the usual
/// shape of a large control): an explicit stack of [`Open`] statements
/// tracks the nesting, so this does not recurse.  The nesting depth each
/// piece is built at is the one `Builder::block` / `Builder::stmt` would
/// count (statement one level, block another), so depth limits apply
/// alike.
fn block(
    text: &str,
    mut pos: usize,
    annotations: Vec<Annotation>,
    lo: u32,
) -> Option<(Block, usize)> {
    let mut open = vec![Open::Block {
        stmt: None,
        annotations,
        lo,
        stmts: Vec::new(),
        depth: 1,
    }];
    loop {
        let (rule, depth) = match open.last()? {
            Open::Block { depth, .. } => (Rule::stmt_item, *depth),
            Open::If {
                then: Some(_),
                has_else: false,
                depth,
                ..
            } => (Rule::else_item, *depth),
            Open::If { depth, .. } => (Rule::branch_item, *depth),
        };
        let Some((p, end)) = piece(text, pos, rule, depth) else {
            if rule != Rule::else_item {
                return None;
            }
            // No `else`: the `if` is complete.
            let done = close_if(open.pop()?)?;
            deliver(&mut open, done)?;
            continue;
        };
        pos = end;
        match p {
            Piece::Stmt(s) => deliver(&mut open, s)?,
            Piece::OpenBlock {
                annotations,
                lo,
                block_annotations,
                block_lo,
            } => open.push(Open::Block {
                stmt: Some((annotations, lo)),
                annotations: block_annotations,
                lo: block_lo,
                stmts: Vec::new(),
                depth: depth + 2,
            }),
            Piece::OpenIf {
                annotations,
                lo,
                cond,
            } => open.push(Open::If {
                annotations,
                lo,
                cond,
                then: None,
                has_else: false,
                depth: depth + 1,
            }),
            Piece::Else => match open.last_mut()? {
                Open::If { has_else, .. } => *has_else = true,
                Open::Block { .. } => return None,
            },
            Piece::End(hi) => {
                let Open::Block {
                    stmt,
                    annotations,
                    lo,
                    stmts,
                    ..
                } = open.pop()?
                else {
                    return None;
                };
                let block = Block {
                    annotations,
                    stmts: fit(stmts),
                    span: Span::new(lo, hi),
                };
                let Some((stmt_annotations, stmt_lo)) = stmt else {
                    // The apply block itself.
                    return Some((block, pos));
                };
                let s = Stmt {
                    annotations: stmt_annotations.into(),
                    kind: StmtKind::Block(Box::new(block)),
                    span: Span::new(stmt_lo, hi),
                };
                deliver(&mut open, s)?;
            }
            _ => return None,
        }
    }
}

/// The statement a complete open `if` makes.
fn close_if(done: Open) -> Option<Stmt> {
    let Open::If {
        annotations,
        lo,
        cond,
        then: Some(then),
        ..
    } = done
    else {
        return None;
    };
    let hi = then.span.hi;
    Some(Stmt {
        annotations: annotations.into(),
        kind: StmtKind::If(Box::new(IfStmt {
            cond,
            then,
            els: None,
        })),
        span: Span::new(lo, hi),
    })
}

/// Hands the complete statement `s` to the innermost open statement: a
/// block adds it, an `if` takes it as a branch (an else branch completes
/// the `if`, which goes on down the stack).
fn deliver(open: &mut Vec<Open>, mut s: Stmt) -> Option<()> {
    loop {
        match open.last_mut()? {
            Open::Block { stmts, .. } => {
                push_big(stmts, s);
                return Some(());
            }
            Open::If {
                then: then @ None, ..
            } => {
                *then = Some(s);
                return Some(());
            }
            Open::If { has_else: true, .. } => {
                let Some(Open::If {
                    annotations,
                    lo,
                    cond,
                    then: Some(then),
                    ..
                }) = open.pop()
                else {
                    return None;
                };
                let hi = s.span.hi;
                s = Stmt {
                    annotations: annotations.into(),
                    kind: StmtKind::If(Box::new(IfStmt {
                        cond,
                        then,
                        els: Some(s),
                    })),
                    span: Span::new(lo, hi),
                };
            }
            Open::If { .. } => return None,
        }
    }
}

/// Capacity, in bytes, from which [`push_big`] moves a vector to its own
/// mapping.
const BIG_VEC_BYTES: usize = 2 << 20;

/// Address space reserved by [`push_big`]: glibc's largest threshold for
/// serving an allocation from its own mapping (`DEFAULT_MMAP_THRESHOLD_MAX`
/// on 64-bit targets).
const MAPPED_VEC_BYTES: usize = 32 << 20;

/// Pushes onto a vector that may grow to millions of elements (the
/// statements of one block).  Once it holds
/// [`BIG_VEC_BYTES`], its capacity jumps to [`MAPPED_VEC_BYTES`] of address
/// space, which the allocator serves from a mapping of its own: further
/// growth moves the mapping (mremap) instead of copying, and only the pages
/// written are resident.  Doubling an ordinary heap buffer instead copies it
/// each time and leaves the old buffers behind (16 MB for 1 MB of `;`).
fn push_big<T>(v: &mut Vec<T>, x: T) {
    let size = std::mem::size_of::<T>().max(1);
    if v.len() == v.capacity() {
        let bytes = v.capacity().saturating_mul(size);
        if (BIG_VEC_BYTES..MAPPED_VEC_BYTES).contains(&bytes) {
            v.reserve_exact(MAPPED_VEC_BYTES / size - v.len());
        }
    }
    v.push(x);
}

/// Parses one element with the entry rule `rule` at byte `pos` and builds
/// it; returns it with the offset just past it.  The parse tree is dropped
/// on return.
fn piece(text: &str, pos: usize, rule: Rule, depth: u32) -> Option<(Piece, usize)> {
    if let Some(empty) = empty_stmt(text, pos, rule, depth) {
        return Some(empty);
    }
    let rest = text.get(pos..)?;
    let parsed = {
        let _budget = crate::ParseGuard::enter(rest, false);
        P4Parser::parse(rule, rest)
    };
    let item = parsed.ok()?.next()?;
    let end = pos + item.as_span().end();
    if end <= pos {
        return None;
    }
    let built = build_piece(text, pos, depth, item).ok()?;
    Some((built, end))
}

/// The empty statement `;` at `pos` (after whitespace) where `rule` reads
/// a statement, built without pest: a pest parse of a statement item
/// costs microseconds, so an apply block of a million `;` took seconds.
/// The same node the builder makes (no annotations, the `;` as span), at
/// a depth the builder accepts.
fn empty_stmt(text: &str, pos: usize, rule: Rule, depth: u32) -> Option<(Piece, usize)> {
    if !matches!(rule, Rule::stmt_item | Rule::branch_item) || depth >= MAX_DEPTH {
        return None;
    }
    let at = crate::skip_whitespace(text, pos);
    if text.as_bytes().get(at) != Some(&b';') {
        return None;
    }
    let lo = u32::try_from(at).ok()?;
    let stmt = Stmt {
        annotations: Annotations::new(),
        kind: StmtKind::Empty,
        span: Span::new(lo, lo + 1),
    };
    Some((Piece::Stmt(stmt), at + 1))
}

#[cfg(test)]
mod tests {
    use super::container;
    use crate::trivia::blank;

    /// Parser and control declarations with a body are parsed in pieces;
    /// anything else (another declaration, a prototype such as v1model's
    /// `parser Parser<H>(...);`, a broken head) is left to the whole-item
    /// parse, without a pest error being built for it.
    #[test]
    fn only_containers_with_a_body_are_parsed_in_pieces() {
        for yes in [
            "parser P(packet_in p) { state start { transition accept; } }",
            "  // c\n @name(\"x\") @pragma stage 1\n control C() { apply { } }",
            "/* a */ control C() { apply { } }",
        ] {
            assert!(container(&blank(yes), 0).is_some(), "{yes}");
        }
        for no in [
            "header h_t { bit<8> f; }",
            "const bit<8> X = 1;",
            "parserx P;",
            "parser Parser<H>(packet_in b, out H h);",
            "control Ingress<H, M>(inout H h, inout M m);",
            "control C( { apply { } }",
            "@name(\"y\") action a() { }",
            "",
        ] {
            assert!(container(no, 0).is_none(), "{no}");
        }
        let two = "const bit<8> X = 1;\ncontrol C() { apply { } }";
        assert!(container(two, two.find("control").unwrap_or(0)).is_some());
    }
}
