//! p4cost-syntax: parses preprocessed P4-16 source text into a typed AST.
//!
//! The grammar (`src/p4.pest`) is a PEG of our own covering P4-16 v1.2.x as
//! accepted by p4c; [`parse`] runs it and builds the [`ast`] tree, whose every
//! node carries a [`ast::Span`] of byte offsets into the input.  Binary
//! operator precedence follows p4c (bitwise `&`, `^`, `|` bind tighter than
//! the comparisons).  Leftover `#` lines (`#pragma`, line markers) are skipped
//! like comments.
//!
//! Two paths build the same tree.  Each top-level declaration is first read
//! by the hand-written fast path (`fast`: a byte-level recursive-descent
//! parser, no parse tree), which builds it only when it is sure to build
//! exactly what the slow path would (same nodes, spans, names and literal
//! values) and otherwise declines without side effects.  The slow path,
//! pest with the grammar and the builder (`builder`), parses whatever the
//! fast path declines and produces every error message, so errors do not
//! depend on the fast path.  The grammar stays the reference: tests parse
//! with the fast path on and off and compare the trees.
//!
//! Dependencies: pest / pest_derive (parsing) and thiserror only; this crate
//! knows nothing about the IR or any other p4cost crate.

// pest is built without its `std` feature, which would probe the native
// stack at every combinator (see `prescan`); the parser it derives then
// names `::alloc`.
extern crate alloc;

pub mod ast;
mod builder;
mod error;
mod fast;
mod grammar;
mod name;
mod pieces;
mod prescan;
mod printer;
mod reuse;
mod shift;
mod split;
mod trivia;

#[cfg(test)]
mod tests;

use pest::Parser;

pub use error::SyntaxError;
pub use name::Name;
pub use printer::{dump, expr as print_expr, ty as print_type};
pub use reuse::Reuse;
#[doc(hidden)]
pub use split::{Split, MIN_BYTES as SPLIT_MIN_BYTES};

use grammar::{P4Parser, Rule};

/// Stack size of the worker thread that runs the (recursive) parser, so that
/// parsing does not depend on the caller's stack.  Only touched pages are
/// actually allocated.  A caller whose thread has a stack at least this
/// large may call [`parse_on_current_thread`] instead of [`parse`].
pub const PARSE_STACK_BYTES: usize = 256 << 20;

/// Parses a whole preprocessed P4-16 program.
///
/// Returns the AST, or the first syntax error with its byte offset and a
/// readable message such as "expected `;`, found `}`".  Parsing runs on a
/// scoped worker thread with a large stack; input nested more than 1000
/// levels (blocks, statements, brackets) or with expressions more than 4096
/// operators deep fails with a "nested too deeply (limit N ...)" error
/// instead of overflowing the stack.
pub fn parse(text: &str) -> Result<ast::Program, SyntaxError> {
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("p4cost-syntax".to_string())
            .stack_size(PARSE_STACK_BYTES)
            .spawn_scoped(scope, || parse_on_this_thread(text));
        match worker {
            Ok(handle) => handle.join().unwrap_or_else(|_| {
                Err(SyntaxError {
                    offset: 0,
                    message: "internal parser error: the parser thread panicked".to_string(),
                })
            }),
            Err(_) => parse_on_this_thread(text),
        }
    })
}

fn parse_on_this_thread(text: &str) -> Result<ast::Program, SyntaxError> {
    parse_items(text, true, true)
}

/// What [`parse_for_test`] returns: the parse, and how many top-level
/// declarations the fast path built of how many the program has.
#[doc(hidden)]
pub type TestParse = (Result<ast::Program, SyntaxError>, usize, usize);

/// [`parse`] with the hand-written fast path on or off (`fast` false parses
/// every declaration with pest), for tests that compare the two trees and
/// count what the fast path takes.
#[doc(hidden)]
pub fn parse_for_test(text: &str, fast: bool) -> TestParse {
    let (r, _, taken, items) = parse_on_thread_for_test(text, fast, split::MIN_BYTES);
    (r, taken, items)
}

/// [`parse`] with the declarations of blanked texts of at least `min`
/// bytes parsed on two threads (see `split`; `usize::MAX` never splits),
/// and how the split went, for tests that compare the trees.
#[doc(hidden)]
pub fn parse_split_for_test(text: &str, min: usize) -> (Result<ast::Program, SyntaxError>, Split) {
    let (r, how, _, _) = parse_on_thread_for_test(text, true, min);
    (r, how)
}

/// The parse of the test entries on a thread of its own, the split used
/// and the declarations the fast path took of those parsed.
fn parse_on_thread_for_test(
    text: &str,
    fast: bool,
    min: usize,
) -> (Result<ast::Program, SyntaxError>, Split, usize, usize) {
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .stack_size(PARSE_STACK_BYTES)
            .spawn_scoped(scope, || {
                let mut counts = Counts::default();
                name::forget_names();
                let (r, how) = parse_items_split_from(text, true, fast, None, &mut counts, min);
                name::forget_names();
                (r, how, counts.fast, counts.items)
            });
        match worker.map(|h| h.join()) {
            Ok(Ok(r)) => r,
            _ => (
                Err(SyntaxError {
                    offset: 0,
                    message: "internal parser error: the parser thread failed".to_string(),
                }),
                Split::None,
                0,
                0,
            ),
        }
    })
}

/// Top-level declarations parsed, and those the fast path built.
#[derive(Default)]
pub(crate) struct Counts {
    pub(crate) items: usize,
    pub(crate) fast: usize,
}

impl Counts {
    /// Adds the counts of `other`, a part of the same parse.
    pub(crate) fn add(&mut self, other: &Counts) {
        self.items += other.items;
        self.fast += other.fast;
    }
}

/// [`parse`] on the calling thread, whose stack must be at least
/// [`PARSE_STACK_BYTES`] (or the nesting limits may overflow it).  A caller
/// that builds more from the tree on its own big-stack thread uses this:
/// the tree is then allocated from that thread's allocator arena, where the
/// memory freed as the tree is consumed serves what is built from it.
pub fn parse_on_current_thread(text: &str) -> Result<ast::Program, SyntaxError> {
    parse_items(text, true, true)
}

/// [`parse_on_current_thread`] taking back from `reuse` the top-level
/// declarations of its last successful parse that `text` still has at the
/// same offset (an editor's keystroke parses only what it changed), and
/// leaving in it those of this parse. The tree is the one a fresh parse
/// gives, and so is the error.
pub fn parse_reusing_on_current_thread(
    text: &str,
    reuse: &mut Reuse,
) -> Result<ast::Program, SyntaxError> {
    reuse.start();
    name::forget_names();
    let r = parse_items_sharing_names(text, true, true, Some(reuse), &mut Counts::default());
    name::forget_names();
    match &r {
        Ok(_) => reuse.commit(text),
        Err(_) => reuse.abandon(),
    }
    r
}

/// [`parse`] on the calling thread; `in_pieces` false parses every
/// declaration pest reads as a whole, and `fast` false leaves every one to
/// pest (the tests compare the ways).
fn parse_items(text: &str, in_pieces: bool, fast: bool) -> Result<ast::Program, SyntaxError> {
    // Names are shared within this parse only.
    name::forget_names();
    let r = parse_items_sharing_names(text, in_pieces, fast, None, &mut Counts::default());
    name::forget_names();
    r
}

fn parse_items_sharing_names(
    text: &str,
    in_pieces: bool,
    fast: bool,
    reuse: Option<&mut Reuse>,
    counts: &mut Counts,
) -> Result<ast::Program, SyntaxError> {
    parse_items_split_from(text, in_pieces, fast, reuse, counts, split::MIN_BYTES).0
}

/// [`parse_items_sharing_names`], the declarations of a blanked text of
/// at least `split_min` bytes parsed on two threads when there is no
/// `reuse` (see `split`).
fn parse_items_split_from(
    text: &str,
    in_pieces: bool,
    fast: bool,
    reuse: Option<&mut Reuse>,
    counts: &mut Counts,
    split_min: usize,
) -> (Result<ast::Program, SyntaxError>, Split) {
    let mut how = Split::None;
    if u32::try_from(text.len()).is_err() {
        let e = SyntaxError {
            offset: 0,
            message: "input is larger than 4 GiB".to_string(),
        };
        return (Err(e), how);
    }
    // Comments and `#` lines as blanks, every byte at its offset: the
    // grammar then only skips whitespace (see `trivia`).
    let blanked = trivia::blank(text);
    let text: &str = &blanked;
    let split = reuse.is_none() && text.len() >= split_min;
    // Real programs have about one distinct name per 100 bytes.
    name::reserve_names(text.len() / if split { 192 } else { 96 });
    let mut items = Items::new(text, in_pieces, fast, reuse);
    let r = if split {
        split::parse_halves(&mut items, &mut how)
    } else {
        items.run(usize::MAX, None, None).map(drop)
    };
    counts.add(&items.counts);
    let program = r.map(|()| ast::Program {
        decls: items.decls,
        span: builder::program_span(text),
    });
    (program, how)
}

/// How [`Items::run`] stopped.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Ran {
    /// At the end of the program.
    End,
    /// At the start of a declaration exactly at the offset it was to stop
    /// at.
    Landed,
    /// Past that offset: a declaration runs over it.
    Passed,
    /// At a declaration's start after it was asked to stop.
    Cancelled,
}

/// The loop over the top-level declarations of a blanked text and its
/// state: where it is, what it built, the nesting check and the fast
/// path's buffers. [`Items::run`] parses on from where it stopped.
pub(crate) struct Items<'t, 'r> {
    text: &'t str,
    in_pieces: bool,
    fast: bool,
    reuse: Option<&'r mut Reuse>,
    pos: usize,
    pub(crate) decls: Vec<ast::Decl>,
    pub(crate) counts: Counts,
    // The nesting check, declaration by declaration: the fast path's
    // declarations are mostly too short to need it.
    nesting: prescan::Nesting,
    scratch: fast::Scratch,
}

impl<'t, 'r> Items<'t, 'r> {
    /// The loop at the start of `text` (blanked: see `trivia`).
    pub(crate) fn new(
        text: &'t str,
        in_pieces: bool,
        fast: bool,
        reuse: Option<&'r mut Reuse>,
    ) -> Self {
        Items {
            text,
            in_pieces,
            fast,
            reuse,
            pos: 0,
            decls: Vec::new(),
            counts: Counts::default(),
            nesting: prescan::Nesting::default(),
            scratch: fast::Scratch::default(),
        }
    }

    /// The loop starting at offset `pos` (a declaration's start, see
    /// `split`), with none of `reuse`.
    pub(crate) fn at(text: &'t str, pos: usize, in_pieces: bool, fast: bool) -> Self {
        Items {
            pos,
            ..Items::new(text, in_pieces, fast, None)
        }
    }

    /// Parses declarations until the end of the program or the first
    /// declaration start at or after `stop`, or once `cancel` is set.
    /// Every parse other than the fast path's holds `pest_turn` (see
    /// `split`).
    pub(crate) fn run(
        &mut self,
        stop: usize,
        pest_turn: Option<&std::sync::Mutex<()>>,
        cancel: Option<&std::sync::atomic::AtomicBool>,
    ) -> Result<Ran, SyntaxError> {
        loop {
            self.pos = skip_empty_decls(self.text, self.pos);
            if self.pos >= stop {
                return Ok(if self.pos == stop {
                    Ran::Landed
                } else {
                    Ran::Passed
                });
            }
            if cancel.is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed)) {
                return Ok(Ran::Cancelled);
            }
            if !self.next(pest_turn)? {
                return Ok(Ran::End);
            }
        }
    }

    /// Parses the declaration at `self.pos` (after blanks and empty
    /// declarations); false at the end of the program.
    fn next(&mut self, pest_turn: Option<&std::sync::Mutex<()>>) -> Result<bool, SyntaxError> {
        let (text, pos) = (self.text, self.pos);
        if self.reuse.is_some() {
            self.nesting.rest(text, pos)?;
        }
        if let Some(end) = self
            .reuse
            .as_mut()
            .and_then(|r| r.take(text, pos, &mut self.decls))
        {
            self.pos = end;
            return Ok(true);
        }
        let built = self.decls.len();
        self.counts.items += usize::from(pos < text.len());
        // The hand-written parser first (see `fast`): it declines, without
        // touching `decls`, whatever it does not build exactly as below.
        if self.fast {
            if let Some((end, raw)) =
                fast::item_noting_raw(text, pos, &mut self.decls, &mut self.scratch)
            {
                self.nesting.built(text, pos, end, raw)?;
                self.counts.fast += 1;
                return Ok(self.done(built, end));
            }
        }
        self.nesting.rest(text, pos)?;
        let _turn = pest_turn.map(|m| m.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
        // Parser and control declarations with a body go one state, local
        // or apply-block statement at a time (`pieces`); when that fails,
        // the declaration is parsed whole below, which reports the error.
        if self.in_pieces {
            if let Some((decl, end)) = pieces::container(text, pos).filter(|(_, e)| *e > pos) {
                self.decls.push(decl);
                return Ok(self.done(built, end));
            }
        }
        // One top-level declaration at a time: pest's token queue (80
        // bytes per parse-tree node) then only ever holds one
        // declaration, not the whole program next to its AST.
        let rest = text.get(pos..).unwrap_or("");
        let parsed = {
            let _budget = ParseGuard::enter(rest, false);
            P4Parser::parse(Rule::program_item, rest)
        };
        let mut pairs = parsed.map_err(|_| detailed_error(rest, pos))?;
        let Some(item) = pairs.next() else {
            return Err(SyntaxError {
                offset: pos,
                message: "internal parser error: no program item".to_string(),
            });
        };
        match builder::build_item(text, pos, item, &mut self.decls)? {
            Some(end) if end > pos => Ok(self.done(built, end)),
            Some(_) => Err(SyntaxError {
                offset: pos,
                message: "internal parser error: empty program item".to_string(),
            }),
            None => Ok(false),
        }
    }

    /// The declarations from `built` on end at `end`: noted for reuse,
    /// and the loop moves on there.
    fn done(&mut self, built: usize, end: usize) -> bool {
        if let Some(r) = self.reuse.as_mut() {
            r.record(self.text, self.pos, end, &self.decls[built..]);
        }
        self.pos = end;
        true
    }
}

/// The first byte from `pos` on that is not whitespace or an empty
/// declaration `;` (which makes no node). Each pest parse of a program
/// item first tries every kind of declaration, a few microseconds, so a
/// megabyte of `;` took seconds; skipped here it costs a byte compare.
fn skip_empty_decls(text: &str, mut pos: usize) -> usize {
    loop {
        pos = skip_whitespace(text, pos);
        if text.as_bytes().get(pos) != Some(&b';') {
            return pos;
        }
        pos += 1;
    }
}

/// The first byte from `pos` on that is not the grammar's `WHITESPACE`
/// (`' '` and `'\t'..'\r'`).
pub(crate) fn skip_whitespace(text: &str, pos: usize) -> usize {
    fast::skip_ws(text.as_bytes(), pos)
}

/// Parsing steps (pest rule, sequence, repetition and lookahead entries)
/// allowed per byte of the text still to parse, on top of
/// [`MIN_PARSE_STEPS`].  p4c's samples parse unchanged with 100 per byte; input
/// that makes the grammar backtrack quadratically (thousands of `a < b <
/// ...` that might open type arguments) runs out instead of running for
/// minutes.
pub const PARSE_STEPS_PER_BYTE: usize = 400;

/// Parsing steps allowed for any declaration (or piece of a parser or
/// control body), however short the input.
pub const MIN_PARSE_STEPS: usize = 1_000_000;

/// What the parses running now need of pest's settings, which are
/// process-wide statics read when a parse starts (its call limit and
/// whether it collects error details).
struct PestSettings {
    /// The call budget of each parse running.
    budgets: Vec<usize>,
    /// Parses running that collect error details.
    detailed: usize,
}

static PEST_SETTINGS: std::sync::Mutex<PestSettings> = std::sync::Mutex::new(PestSettings {
    budgets: Vec::new(),
    detailed: 0,
});

/// One parse's claim on pest's settings, from before it starts until it
/// ends: while any parse runs, the call limit is the largest budget of the
/// parses running (so a parse on another thread never cuts this one's
/// budget short) and error details are collected while any parse asks for
/// them (so another thread never turns them off under a detailed parse).
/// Parses on several threads (tests, batch runs) then never see each
/// other's settings take them below their own.
pub(crate) struct ParseGuard {
    budget: usize,
    detailed: bool,
}

impl ParseGuard {
    /// Claims the budget for parsing one item of `rest` (a declaration, or
    /// one element of a parser or control body, see `pieces`): it grows
    /// with the text still to parse, so it never depends on how the
    /// program is split into declarations. `detailed` asks for pest's
    /// error details.
    pub(crate) fn enter(rest: &str, detailed: bool) -> ParseGuard {
        let budget = rest
            .len()
            .saturating_mul(PARSE_STEPS_PER_BYTE)
            .saturating_add(MIN_PARSE_STEPS);
        let mut g = PEST_SETTINGS
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        g.budgets.push(budget);
        let max = g.budgets.iter().copied().max().unwrap_or(budget);
        pest::set_call_limit(std::num::NonZeroUsize::new(max));
        if detailed {
            g.detailed += 1;
            pest::set_error_detail(true);
        }
        ParseGuard { budget, detailed }
    }
}

impl Drop for ParseGuard {
    fn drop(&mut self) {
        let mut g = PEST_SETTINGS
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(i) = g.budgets.iter().position(|b| *b == self.budget) {
            g.budgets.swap_remove(i);
        }
        if let Some(max) = g.budgets.iter().copied().max() {
            pest::set_call_limit(std::num::NonZeroUsize::new(max));
        }
        if self.detailed {
            g.detailed = g.detailed.saturating_sub(1);
            if g.detailed == 0 {
                pest::set_error_detail(false);
            }
        }
    }
}

/// The syntax error of `rest` (the input from byte `base` on), found by
/// parsing it again with pest's detailed error tracking (off by default
/// because it slows successful parses) to learn which tokens were expected.
fn detailed_error(rest: &str, base: usize) -> SyntaxError {
    let detailed = {
        let _settings = ParseGuard::enter(rest, true);
        P4Parser::parse(Rule::program_item, rest)
    };
    let mut e = match detailed {
        Err(e) => error::from_pest(&e, rest),
        Ok(_) => SyntaxError {
            offset: 0,
            message: "internal parser error: inconsistent parse".to_string(),
        },
    };
    e.offset += base;
    e
}

#[cfg(test)]
mod pest_settings_tests {
    use super::{error, P4Parser, ParseGuard, Rule};
    use pest::Parser;

    /// Where pest puts the error of `src` with the settings now in force.
    fn offset(src: &str) -> usize {
        match P4Parser::parse(Rule::program_item, src) {
            Ok(_) => usize::MAX,
            Err(e) => error::from_pest(&e, src).offset,
        }
    }

    /// pest's error-detail switch is process-wide and read when a parse
    /// starts. A detailed parse ending on one thread must not turn details
    /// off while another still needs them: without details pest places
    /// this error at 26, with them at 28 (where `{` is). Seen as a flaky
    /// syntax-error test under `cargo test`.
    #[test]
    fn details_stay_on_while_any_parse_asks_for_them() {
        let bad = "control C() { apply { if (x { } } }";
        let a = ParseGuard::enter(bad, true);
        drop(ParseGuard::enter(bad, true));
        assert_eq!(offset(bad), 28);
        drop(a);
    }
}
