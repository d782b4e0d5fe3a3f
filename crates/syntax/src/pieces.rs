//! Parses a parser or control declaration one element at a time.
//!
//! One giant parser (40,000 states) or control (a million statements in its
//! apply block) is a single top-level declaration, and pest keeps the whole
//! parse tree of what it parses in its token queue (80 bytes per node,
//! several nodes per input byte) until the builder is done with it.  Here
//! the declaration is parsed with the grammar's `*_item` entry rules
//! instead: its head up to the opening brace, then each local declaration,
//! state or apply-block statement on its own, each built into the AST and
//! its parse tree dropped before the next one is parsed.
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

use crate::ast::{ControlDecl, Decl, ParserDecl, Span};
use crate::builder::{build_piece, fit, Piece};
use crate::grammar::{P4Parser, Rule};

/// The parser or control declaration with a body that starts at byte `pos`
/// of `text` (after optional trivia), and the offset just past its closing
/// brace; `None` if there is none there or it does not parse (the caller
/// then parses the item as a whole).
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
    let mut stmts = Vec::new();
    let apply_hi = loop {
        // Inside the apply block: one level deep, as `Builder::block`
        // counts it.
        let (p, end) = piece(text, pos, Rule::stmt_item, 1)?;
        pos = end;
        match p {
            Piece::Stmt(s) => push_big(&mut stmts, s),
            Piece::End(hi) => break hi,
            _ => return None,
        }
    };
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
        apply: crate::ast::Block {
            annotations: apply_annotations,
            stmts: fit(stmts),
            span: Span::new(apply_lo, apply_hi),
        },
        span: Span::new(head.lo, hi),
    });
    Some((decl, end))
}

/// Capacity, in bytes, from which [`push_big`] moves a vector to its own
/// mapping.
const BIG_VEC_BYTES: usize = 2 << 20;

/// Address space reserved by [`push_big`]: glibc's largest threshold for
/// serving an allocation from its own mapping (`DEFAULT_MMAP_THRESHOLD_MAX`
/// on 64-bit targets).
const MAPPED_VEC_BYTES: usize = 32 << 20;

/// Pushes onto a vector that may grow to millions of elements (the
/// statements of one apply block).  Once it holds
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
    let rest = text.get(pos..)?;
    crate::set_step_budget(rest);
    let item = P4Parser::parse(rule, rest).ok()?.next()?;
    let end = pos + item.as_span().end();
    if end <= pos {
        return None;
    }
    let built = build_piece(text, pos, depth, item).ok()?;
    Some((built, end))
}
