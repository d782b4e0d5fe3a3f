//! The fast path: a hand-written recursive-descent parser that builds the
//! [`crate::ast`] of one top-level declaration straight from the bytes.
//!
//! Contract (see `crate::parse_items_sharing_names`): [`item`] returns
//! `Some(end)` only when it pushed exactly the declarations that pest's
//! parse of `program_item` at `pos` and `builder::build_item` would give
//! (same nodes, spans, names and literal values), and `None` otherwise,
//! leaving `decls` as it was: on a syntax error, on anything it does not
//! handle, on a builder error (depth limits, bad literals) and whenever in
//! doubt. The slow path then parses the declaration and reports any error,
//! so messages and offsets never depend on this module.
//!
//! The parser mirrors the PEG of `src/p4.pest`: it backtracks exactly where
//! the grammar's ordered choices and repetitions can recover from a failed
//! attempt that it models (an infix operator whose operand fails ends the
//! expression, `<` that opens no type argument list is a comparison,
//! casts, `{` struct or list expressions, a declaration tried before an
//! expression statement); any other failure aborts the whole declaration.

mod container;
mod decl;
mod expr;
mod lexer;

pub(crate) use lexer::skip_ws;
mod stmt;
mod table;
mod types;

use crate::ast::{Annotation, AnnotationBody, Decl, Ident, KeyValue, Path, Span};
use crate::builder::MAX_DEPTH;

/// Parses the top-level declaration at `pos` of the blanked `text` into
/// `decls`; see the module documentation for the contract.
#[cfg(test)]
pub(crate) fn item(text: &str, pos: usize, decls: &mut Vec<Decl>) -> Option<usize> {
    item_noting_raw(text, pos, decls, &mut Scratch::default()).map(|(end, _)| end)
}

/// [`item`], also saying whether the declaration holds raw annotation
/// text (`@name(...)` or `@pragma`), which the parser skips over rather
/// than reading it token by token (see `prescan::Nesting`). `scratch`
/// is kept from one declaration to the next of a parse.
pub(crate) fn item_noting_raw<'t>(
    text: &'t str,
    pos: usize,
    decls: &mut Vec<Decl>,
    scratch: &'t mut Scratch,
) -> Option<(usize, bool)> {
    let mut p = P::new(text, pos, &mut scratch.0);
    p.budget = text.len().saturating_sub(pos) / TYPE_ATTEMPTS_PER_BYTE + MIN_TYPE_ATTEMPTS;
    p.names = crate::name::take_names();
    let built = p.declaration();
    crate::name::give_back_names(std::mem::take(&mut p.names));
    // After an abort a buffer may hold part of a list: emptied, its
    // capacity kept.
    p.bufs.clear();
    match built {
        Some(d) if !p.abort && p.last > pos => {
            decls.push(d);
            Some((p.last, p.raw))
        }
        _ => None,
    }
}

/// The buffers of the fast path (see [`Bufs`]), kept from one
/// declaration to the next: each declaration no longer allocates its own
/// and frees them at its end.
#[derive(Default)]
pub(crate) struct Scratch(Bufs);

/// Bytes of the text still to parse per type parse the fast path may
/// attempt (the unit of its backtracking: type argument lists, casts and
/// declarations are tried by parsing a type), on top of
/// [`MIN_TYPE_ATTEMPTS`]. Real programs attempt about one per 20 bytes;
/// input that makes the grammar backtrack quadratically or worse
/// (`a < a < ...`, nested `(a[(a[...])])`) runs out and is left to pest,
/// whose own budget (`PARSE_STEPS_PER_BYTE`, about 100 times larger per
/// type parse) then decides, so the fast path neither runs superlinearly
/// nor accepts what pest gives up on.
const TYPE_ATTEMPTS_PER_BYTE: usize = 4;

/// Type parses any declaration may attempt, however short.
const MIN_TYPE_ATTEMPTS: usize = 5_000;

/// Parser state: the text, a cursor and the depth budgets of the builder.
pub(super) struct P<'t> {
    text: &'t str,
    b: &'t [u8],
    /// Next byte to read: the next token, whitespace already skipped
    /// (every move of the cursor skips it once, where looking at the next
    /// token, which happens several times per token, skipped it each time).
    pos: usize,
    /// End of the last token read: where a node ending here ends.
    last: usize,
    /// Nesting as the builder counts it (blocks, statements, types,
    /// expressions), bounded by [`MAX_DEPTH`].
    depth: u32,
    /// Operators on the way from the outermost expression to the one being
    /// read, counted as read (a lower bound of the builder's count).
    ops: u32,
    /// Operators of the expression being read so far.
    own: u32,
    /// The largest operator depth required by the expressions nested in
    /// the one being read (what the builder's count adds to `own`).
    inner_req: u32,
    /// Set once the expression being read has ended at a failed operand.
    ended: bool,
    /// Set when the declaration is left to the slow path.
    abort: bool,
    /// Set once raw annotation text has been taken.
    raw: bool,
    /// Type parses attempted, and how many are allowed (see
    /// [`TYPE_ATTEMPTS_PER_BYTE`]).
    attempts: usize,
    budget: usize,
    /// The start of the last word looked at and its end (a token is often
    /// looked at several times before it is taken).
    word_lo: usize,
    word_hi: usize,
    /// The parse's names, taken from the thread for this declaration.
    names: crate::name::NameSet,
    /// Buffers of the commonest lists (see [`Bufs`]).
    bufs: &'t mut Bufs,
}

/// Buffers the commonest lists are built in, kept from one list to the
/// next, so that each list is allocated once at its exact size (a list
/// grown on its own and shrunk to fit was reallocated once or twice). A
/// list nested in one being built gets a buffer of its own.
#[derive(Default)]
struct Bufs {
    args: Vec<crate::ast::Argument>,
    params: Vec<crate::ast::Param>,
    stmts: Vec<crate::ast::Stmt>,
    exprs: Vec<crate::ast::Expr>,
    locals: Vec<crate::ast::LocalDecl>,
    states: Vec<crate::ast::ParserState>,
    cases: Vec<crate::ast::SelectCase>,
    fields: Vec<crate::ast::Field>,
    properties: Vec<crate::ast::TableProperty>,
    keys: Vec<crate::ast::KeyElement>,
    action_refs: Vec<crate::ast::ActionRef>,
}

impl Bufs {
    /// Empties every buffer, keeping its capacity.
    fn clear(&mut self) {
        self.args.clear();
        self.params.clear();
        self.stmts.clear();
        self.exprs.clear();
        self.locals.clear();
        self.states.clear();
        self.cases.clear();
        self.fields.clear();
        self.properties.clear();
        self.keys.clear();
        self.action_refs.clear();
    }
}

/// The list built in `buf` at its exact size, `buf` left empty (with its
/// capacity, for the next list). A list of more than
/// [`COPIED_LIST_MAX_BYTES`] is handed over itself, shrunk in place, and
/// `buf` starts again: a copy would hold the list twice at the peak, and
/// the buffer would keep that capacity to the end of the parse (a
/// generated block of two million empty statements peaked 61 MiB
/// higher), and copying it costs more than growing the buffer again.
fn exact<T>(buf: &mut Vec<T>) -> Vec<T> {
    if buf.len().saturating_mul(std::mem::size_of::<T>()) > COPIED_LIST_MAX_BYTES {
        let mut list = std::mem::take(buf);
        list.shrink_to_fit();
        return list;
    }
    let mut list = Vec::with_capacity(buf.len());
    list.append(buf);
    list
}

/// The largest list, in bytes, that [`exact`] copies out of its buffer.
const COPIED_LIST_MAX_BYTES: usize = 32 * 1024;

/// A saved cursor.
#[derive(Clone, Copy)]
pub(super) struct Mark {
    pos: usize,
    last: usize,
}

impl<'t> P<'t> {
    fn new(text: &'t str, pos: usize, bufs: &'t mut Bufs) -> Self {
        P {
            text,
            b: text.as_bytes(),
            pos: lexer::skip_ws(text.as_bytes(), pos),
            last: pos,
            depth: 0,
            ops: 0,
            own: 0,
            inner_req: 0,
            ended: false,
            abort: false,
            raw: false,
            attempts: 0,
            budget: MIN_TYPE_ATTEMPTS,
            word_lo: usize::MAX,
            word_hi: 0,
            names: crate::name::NameSet::default(),
            bufs,
        }
    }

    /// Gives the declaration up to the slow path.
    fn stop<T>(&mut self) -> Option<T> {
        self.abort = true;
        None
    }

    fn mark(&self) -> Mark {
        Mark {
            pos: self.pos,
            last: self.last,
        }
    }

    fn reset(&mut self, m: Mark) {
        self.pos = m.pos;
        self.last = m.last;
    }

    /// The offset of the next token.
    fn at(&self) -> usize {
        self.pos
    }

    /// The next byte after whitespace (0 at the end).
    fn peek(&mut self) -> u8 {
        let i = self.at();
        self.b.get(i).copied().unwrap_or(0)
    }

    fn byte(&self, i: usize) -> u8 {
        self.b.get(i).copied().unwrap_or(0)
    }

    /// Consumes the token `pos..end`.
    fn take_to(&mut self, end: usize) {
        self.pos = lexer::skip_ws(self.b, end);
        self.last = end;
    }

    /// Consumes the literal `s` if it comes next.
    fn eat(&mut self, s: &[u8]) -> bool {
        let i = self.at();
        if self.b.get(i..i + s.len()) == Some(s) {
            self.take_to(i + s.len());
            true
        } else {
            false
        }
    }

    /// The literal `s` must come next.
    fn expect(&mut self, s: &[u8]) -> Option<()> {
        self.eat(s).then_some(())
    }

    /// The word starting at the next token (empty when none).
    fn peek_word(&mut self) -> &'t [u8] {
        let i = self.at();
        let b: &'t [u8] = self.b;
        b.get(i..self.word_end_at(i)).unwrap_or(&[])
    }

    /// [`lexer::word_end`] at `i`, remembered for the last `i` asked.
    fn word_end_at(&mut self, i: usize) -> usize {
        if i != self.word_lo {
            self.word_lo = i;
            self.word_hi = lexer::word_end(self.b, i);
        }
        self.word_hi
    }

    /// The word after the next one (empty when none).
    fn word_after(&mut self) -> (&'t [u8], u8) {
        let i = self.at();
        let j = lexer::skip_ws(self.b, self.word_end_at(i));
        let b: &'t [u8] = self.b;
        let w = b.get(j..lexer::word_end(b, j)).unwrap_or(&[]);
        let k = lexer::skip_ws(b, j + w.len());
        (w, self.byte(k))
    }

    /// Consumes the keyword `kw` (a whole word) if it comes next.
    fn kw(&mut self, kw: &[u8]) -> bool {
        if self.peek_word() == kw {
            let end = self.pos + kw.len();
            self.take_to(end);
            true
        } else {
            false
        }
    }

    /// An identifier: a word that is not reserved and not `_`.
    fn ident(&mut self) -> Option<Ident> {
        let w = self.peek_word();
        if w.is_empty() || w == b"_" || lexer::is_reserved(w) {
            return None;
        }
        let lo = self.pos;
        self.take_to(lo + w.len());
        Some(self.ident_at(lo, lo + w.len()))
    }

    fn ident_at(&mut self, lo: usize, hi: usize) -> Ident {
        Ident {
            name: crate::name::intern_in(&mut self.names, self.text.get(lo..hi).unwrap_or("")),
            span: span(lo, hi),
        }
    }

    /// `dot_prefix? ~ ident`
    fn path(&mut self) -> Option<Path> {
        let m = self.mark();
        let lo = self.at();
        let absolute = self.eat(b".");
        match self.ident() {
            Some(name) => Some(Path {
                absolute,
                name,
                span: span(lo, self.last),
            }),
            None => {
                self.reset(m);
                None
            }
        }
    }

    /// `ident ~ ("," ~ ident)*` inside `<...>` (type parameters), if present.
    fn type_params(&mut self) -> Option<Vec<Ident>> {
        let mut out = Vec::new();
        if !self.eat(b"<") {
            return Some(out);
        }
        loop {
            out.push(self.ident()?);
            if !self.eat(b",") {
                break;
            }
        }
        self.expect(b">")?;
        Some(fit(out))
    }

    /// One nesting level deeper as the builder counts it, or an abort past
    /// its limit.
    fn enter(&mut self) -> Option<()> {
        if self.depth >= MAX_DEPTH {
            return self.stop();
        }
        self.depth += 1;
        Some(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    // -------------------------------------------------------------- annotations

    /// `annotation_list?`
    fn annotations(&mut self) -> Option<Vec<Annotation>> {
        let mut out = Vec::new();
        while self.peek() == b'@' {
            out.push(self.annotation()?);
        }
        Some(fit(out))
    }

    fn annotation(&mut self) -> Option<Annotation> {
        let lo = self.at();
        let name_lo = lo + 1;
        let name_hi = lexer::word_end(self.b, name_lo);
        if name_hi == name_lo {
            return self.stop();
        }
        if self.b.get(name_lo..name_hi) == Some(b"pragma")
            && matches!(self.byte(name_hi), b' ' | b'\t')
        {
            return self.pragma(lo, name_hi);
        }
        let name = self.ident_at(name_lo, name_hi);
        self.take_to(name_hi);
        let body = match self.peek() {
            b'(' => {
                let open = self.pos;
                let Some(close) = lexer::annot_raw_end(self.b, open + 1) else {
                    return self.stop();
                };
                self.take_to(close + 1);
                AnnotationBody::Unstructured(self.raw_body(open + 1, close))
            }
            b'[' => self.annot_brackets()?,
            _ => AnnotationBody::Empty,
        };
        Some(Annotation {
            name,
            body,
            span: span(lo, self.last),
        })
    }

    /// `@pragma name rest of line`, `name_end` past the word `pragma`.
    fn pragma(&mut self, lo: usize, name_end: usize) -> Option<Annotation> {
        let mut i = name_end;
        while matches!(self.byte(i), b' ' | b'\t') {
            i += 1;
        }
        let hi = lexer::word_end(self.b, i);
        if hi == i {
            return self.stop();
        }
        let name = self.ident_at(i, hi);
        let Some(end) = lexer::pragma_raw_end(self.b, hi) else {
            return self.stop();
        };
        let body = self.raw_body(hi, end);
        let whole = self.text.get(lo..end).unwrap_or("");
        let trimmed = crate::builder::trim_trivia_end(whole).len();
        self.pos = lexer::skip_ws(self.b, end);
        self.last = lo + trimmed;
        Some(Annotation {
            name,
            body: AnnotationBody::Pragma(body),
            span: span(lo, self.last),
        })
    }

    /// The raw annotation body `lo..hi`, as the builder reads it (with
    /// the thread's names, which the builder interns in: given back to it
    /// meanwhile).
    fn raw_body(&mut self, lo: usize, hi: usize) -> crate::ast::RawAnnotationBody {
        self.raw = true;
        crate::name::give_back_names(std::mem::take(&mut self.names));
        let body = crate::builder::raw_annotation_body(self.text, lo, hi);
        self.names = crate::name::take_names();
        body
    }

    /// `"[" ~ (kv_list | expr_list) ~ "]"`; a failure aborts.
    fn annot_brackets(&mut self) -> Option<AnnotationBody> {
        self.expect(b"[")?;
        let m = self.mark();
        let body = match self.kv_list() {
            Some(kvs) => AnnotationBody::KeyValues(kvs),
            None => {
                if self.abort {
                    return None;
                }
                self.reset(m);
                AnnotationBody::Expressions(self.expr_list()?)
            }
        };
        match self.eat(b"]") {
            true => Some(body),
            false => self.stop(),
        }
    }

    /// `kv_pair ~ ("," ~ kv_pair)* ~ ","?`
    fn kv_list(&mut self) -> Option<Vec<KeyValue>> {
        let mut out = vec![self.kv_pair()?];
        while self.eat(b",") {
            match self.kv_pair() {
                Some(kv) => out.push(kv),
                None if self.abort => return None,
                // The trailing `,` stays consumed (`","?`).
                None => break,
            }
        }
        Some(fit(out))
    }

    /// `expr_list = (expr ~ ("," ~ expr)*)?`
    fn expr_list(&mut self) -> Option<Vec<crate::ast::Expr>> {
        let mut out = std::mem::take(&mut self.bufs.exprs);
        if let Some(e) = self.expr() {
            out.push(e);
            while self.eat(b",") {
                out.push(self.expr()?);
            }
        }
        if self.abort {
            return None;
        }
        let list = exact(&mut out);
        self.bufs.exprs = out;
        Some(list)
    }

    /// `ident ~ "=" ~ expr`, failing without consuming when it is not one.
    fn kv_pair(&mut self) -> Option<KeyValue> {
        let m = self.mark();
        let lo = self.at();
        let r = (|| {
            let key = self.ident()?;
            self.expect(b"=")?;
            let value = self.expr()?;
            Some(KeyValue {
                key,
                value,
                span: span(lo, self.last),
            })
        })();
        if r.is_none() {
            self.reset(m);
        }
        r
    }
}

/// A span from byte offsets (the input is below 4 GiB, see `parse`).
fn span(lo: usize, hi: usize) -> Span {
    Span::new(lo as u32, hi as u32)
}

use crate::builder::fit;
