//! The preprocessor's driver: run state, file loading and lexing, locations, output emission
//! with source-map segments, and the per-file line loop (directives are in `directives`,
//! macro expansion in `expand`).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use crate::error::{ErrLoc, PpError, PpWarning};
use crate::lexer::{
    detect_guard, lex_fine_from, lex_lite, line_starts_of, may_have_cr_or_backslash, splice, Kind,
    Lite, Spliced, Tok, MAX_LEX_BYTES,
};
use crate::macros::{Macro, MacroFilter, MacroKind};
use crate::source_map::{adjust_line, line_col, line_starts, OutBuf, SourceMap};
use crate::{Bundled, Options, Output, SourceFile};

/// Nesting of macro-argument pre-expansion (each level is a native stack frame).
pub(crate) const MAX_EXPANSION_DEPTH: usize = 200;

/// A file after splicing and lexing.
pub(crate) struct Lexed {
    pub(crate) sp: Rc<Spliced>,
    /// Its tokens, compact; [`Lexed::tok`] gives the full token. A simple
    /// line may be one [`Kind::Lines`] token, split by
    /// [`Preprocessor::lex_rest`] before a macro is expanded on it.
    pub(crate) toks: Vec<Lite>,
    /// Its index in the run's files.
    pub(crate) file: u32,
    pub(crate) guard: Option<Rc<str>>,
    /// Directory searched first for `#include "x"` (None for bundled files).
    pub(crate) dir: Option<PathBuf>,
}

impl Lexed {
    /// Token `i` of the file.
    pub(crate) fn tok(&self, i: usize) -> Option<Tok> {
        self.toks.get(i).map(|l| l.tok(&self.sp, self.file))
    }

    /// Tokens `from..to` of the file.
    pub(crate) fn toks_in(&self, from: usize, to: usize) -> Vec<Tok> {
        self.toks
            .get(from..to)
            .unwrap_or(&[])
            .iter()
            .map(|l| l.tok(&self.sp, self.file))
            .collect()
    }

    /// Whether token `i` is the punctuator `p`.
    pub(crate) fn is_punct(&self, i: usize, p: &str) -> bool {
        self.toks
            .get(i)
            .is_some_and(|l| l.is_punct(&self.sp.clean, p))
    }

    /// Original offset of token `i`'s first byte.
    pub(crate) fn src(&self, i: usize) -> Option<usize> {
        self.toks.get(i).map(|l| self.sp.orig(l.start()))
    }
}

/// One level of `#if` nesting.
pub(crate) struct Cond {
    /// The current group is being output.
    pub(crate) active: bool,
    /// Some group of this chain was (or, when the parent is inactive, must be treated as) taken.
    pub(crate) taken: bool,
    pub(crate) seen_else: bool,
    /// The `#if` token, for the "unterminated" error.
    pub(crate) at: Tok,
}

/// Where the expander reads file tokens from in text mode.
pub(crate) struct Cursor {
    pub(crate) lx: Rc<Lexed>,
    pub(crate) pos: usize,
    /// Spliced offset up to which the file's text is accounted for in the output.
    pub(crate) last_end: usize,
}

/// The token stream macro expansion reads: pushed-back tokens first, then (optionally) a file.
pub(crate) struct Input {
    /// Pending tokens; the next one is at the end.
    pub(crate) stack: Vec<Tok>,
    pub(crate) cur: Option<Cursor>,
}

impl Input {
    pub(crate) fn push_front(&mut self, toks: Vec<Tok>) {
        self.stack.extend(toks.into_iter().rev());
    }
}

/// The hasher of the run's maps (deterministic; their keys are the
/// program's own names and paths).
pub(crate) type FastHash = foldhash::fast::FixedState;

/// All state of one run.
#[derive(Default)]
pub(crate) struct State {
    pub(crate) files: Vec<SourceFile>,
    pub(crate) lexed: Vec<Rc<Lexed>>,
    pub(crate) starts: Vec<Vec<usize>>,
    pub(crate) by_key: HashMap<String, usize, FastHash>,
    /// Looked up for every identifier token: foldhash, not SipHash.
    pub(crate) macros: HashMap<Rc<str>, Rc<Macro>, FastHash>,
    /// Every name in `macros` passes it (see [`MacroFilter`]).
    pub(crate) macro_filter: MacroFilter,
    pub(crate) out: OutBuf,
    pub(crate) warnings: Vec<PpWarning>,
    pub(crate) stack: Vec<usize>,
    pub(crate) once: HashSet<usize, FastHash>,
    pub(crate) names: Vec<String>,
    pub(crate) cur_file: usize,
    pub(crate) depth: usize,
    /// Macro-expansion tokens left for the whole unit.
    pub(crate) budget: usize,
    /// Files entered by `#include` so far.
    pub(crate) includes: usize,
    /// Bytes of source entered so far (each inclusion counted).
    pub(crate) entered_bytes: u64,
    /// The questions to the files while an include is recorded for the
    /// cache (see [`crate::include_cache`]).
    pub(crate) probes: Option<Vec<crate::include_cache::Probe>>,
    /// An include resolved to the root file while one was recorded.
    pub(crate) used_root: bool,
}

/// A C-style preprocessor for P4 sources. Each `run_*` call starts from a clean state (only the
/// options' definitions and the builtins `__LINE__`/`__FILE__`).
pub struct Preprocessor<'a> {
    pub(crate) opts: &'a Options,
    pub(crate) bundled: &'a dyn Bundled,
    pub(crate) files: &'a dyn crate::Files,
    pub(crate) st: State,
    /// Includes of the root file kept from earlier runs.
    pub(crate) cache: Option<&'a mut crate::IncludeCache>,
}

impl<'a> Preprocessor<'a> {
    /// A preprocessor using `opts` for `-D`/`-I` and `bundled` as the last include fallback.
    pub fn new(opts: &'a Options, bundled: &'a dyn Bundled) -> Self {
        Preprocessor {
            opts,
            bundled,
            files: &crate::Disk,
            st: State::default(),
            cache: None,
        }
    }

    /// Takes back from `cache` the includes of the root file that an
    /// earlier run through it preprocessed from the same state, and keeps
    /// this run's there (see [`crate::IncludeCache`]): the output is a
    /// fresh run's.
    pub fn with_include_cache(mut self, cache: &'a mut crate::IncludeCache) -> Self {
        self.cache = Some(cache);
        self
    }

    /// Reads files (the root of [`Self::run_file`] and every include) from
    /// `files` instead of the disk.
    pub fn with_files(mut self, files: &'a dyn crate::Files) -> Self {
        self.files = files;
        self
    }

    /// Preprocesses the file at `path` (read with the [`crate::Limits::max_file_bytes`] limit).
    pub fn run_file(&mut self, path: &Path) -> Result<Output, PpError> {
        let shown = path.display().to_string();
        let loc = ErrLoc {
            path: shown.clone(),
            line: 1,
            col: 1,
        };
        let text = read_file(
            self.files,
            path,
            &shown,
            self.opts.limits.max_file_bytes,
            loc,
        )?;
        self.run_file_text(path, text)
    }

    /// Preprocesses `text`, already read from the file at `path` (quoted includes are searched
    /// relative to its directory; the file keeps its identity for include cycles and guards).
    pub fn run_file_text(&mut self, path: &Path, text: String) -> Result<Output, PpError> {
        let shown = path.display().to_string();
        let dir = Some(dir_of(path));
        self.run(shown, self.files.key(path), text, dir)
    }

    /// Preprocesses `text` as if it were a file called `name` (quoted includes are searched
    /// first relative to `name`'s directory, or the current directory).
    pub fn run_source(&mut self, name: &str, text: &str) -> Result<Output, PpError> {
        let dir = Some(dir_of(Path::new(name)));
        self.run(
            name.to_owned(),
            format!("<source>/{name}"),
            text.to_owned(),
            dir,
        )
    }

    pub(crate) fn run(
        &mut self,
        path: String,
        key: String,
        text: String,
        dir: Option<PathBuf>,
    ) -> Result<Output, PpError> {
        self.st = State {
            budget: self.opts.limits.max_macro_tokens,
            ..State::default()
        };
        let root = self.register(key, path, text, false, dir)?;
        self.builtins();
        self.command_line_defines()?;
        self.enter(root)?;
        let st = std::mem::take(&mut self.st);
        let map = SourceMap {
            segs: st.out.segs,
            file_lens: st.files.iter().map(|f| f.text.len()).collect(),
            line_starts: st.starts,
            names: st.names,
        };
        Ok(Output {
            text: st.out.text,
            files: st.files,
            map,
            warnings: st.warnings,
        })
    }

    pub(crate) fn builtins(&mut self) {
        for (name, kind) in [("__LINE__", MacroKind::Line), ("__FILE__", MacroKind::File)] {
            let name: Rc<str> = Rc::from(name);
            self.st.macro_filter.add(&name);
            self.st.macros.insert(
                name.clone(),
                Rc::new(Macro {
                    name,
                    kind,
                    body: Vec::new(),
                }),
            );
        }
    }

    /// `-D` definitions are lexed as a pseudo file `<command-line>`, one `NAME VALUE` per line.
    pub(crate) fn command_line_defines(&mut self) -> Result<(), PpError> {
        if self.opts.defines.is_empty() {
            return Ok(());
        }
        let mut text = String::new();
        for (name, value) in &self.opts.defines {
            text.push_str(name);
            text.push(' ');
            text.push_str(value.as_deref().unwrap_or("1"));
            text.push('\n');
        }
        let f = self.register(
            "<command-line>".into(),
            "<command-line>".into(),
            text,
            false,
            None,
        )?;
        let lx = self.lexed_file(f)?;
        let toks = crate::lexer::lex(&lx.sp, lx.file).unwrap_or_default();
        for line in toks.split(|t| t.kind == Kind::Newline) {
            if let Some(first) = line.first() {
                self.define(line, first)?;
            }
        }
        Ok(())
    }

    /// The macro named `name`, if one is defined: most identifiers are
    /// answered by the filter, without hashing them.
    #[inline]
    pub(crate) fn macro_named(&self, name: &str) -> Option<&Rc<Macro>> {
        if !self.st.macro_filter.may_have(name) {
            return None;
        }
        self.st.macros.get(name)
    }

    /// Whether a macro named `name` is defined.
    #[inline]
    pub(crate) fn is_macro(&self, name: &str) -> bool {
        self.macro_named(name).is_some()
    }

    // ----- files -----

    /// Adds a file (or returns the index of the one with the same key) and lexes it.
    pub(crate) fn register(
        &mut self,
        key: String,
        path: String,
        text: String,
        bundled: bool,
        dir: Option<PathBuf>,
    ) -> Result<usize, PpError> {
        if let Some(&i) = self.st.by_key.get(&key) {
            return Ok(i);
        }
        let idx = self.st.files.len();
        let file = u32::try_from(idx).map_err(|_| PpError::Limit {
            loc: ErrLoc {
                path: path.clone(),
                line: 1,
                col: 1,
            },
            message: "too many files".into(),
        })?;
        // One pass tells whether any carriage return or splice is to be
        // dealt with (most files have neither).
        let special = may_have_cr_or_backslash(&text);
        let text = normalized(text, special);
        let kept = self
            .cache
            .as_mut()
            .and_then(|c| c.lexings.take(&text, file, &dir));
        if let Some((starts, lexed)) = kept {
            self.push_file(key, path, text, bundled, starts);
            self.st.lexed.push(lexed);
            return Ok(idx);
        }
        let sp = if special {
            splice(&text)
        } else {
            Spliced {
                clean: text.clone(),
                map: Vec::new(),
            }
        };
        if sp.clean.len() > MAX_LEX_BYTES {
            return Err(PpError::Limit {
                loc: ErrLoc {
                    path: path.clone(),
                    line: 1,
                    col: 1,
                },
                message: format!("'{path}' is larger than {MAX_LEX_BYTES} bytes"),
            });
        }
        let toks = self.lex_new(file, &sp.clean, &dir);
        let starts = match &toks {
            // The text is `clean` (nothing spliced): its tokens tell.
            Ok(t) if sp.map.is_empty() => line_starts_of(t, &sp.clean),
            _ => line_starts(&text),
        };
        self.push_file(key, path, text, bundled, starts);
        let toks = toks.map_err(|at| PpError::UnterminatedComment {
            loc: self.loc_raw(idx, sp.orig(at)),
        })?;
        let lexed = Rc::new(Lexed {
            guard: detect_guard(&toks, &sp.clean),
            sp: Rc::new(sp),
            toks,
            file,
            dir,
        });
        if let (Some(c), Some(f), Some(starts)) = (
            self.cache.as_mut(),
            self.st.files.last(),
            self.st.starts.last(),
        ) {
            c.lexings.keep(&f.text, starts, &lexed);
        }
        self.st.lexed.push(lexed);
        Ok(idx)
    }

    /// Records file `idx`'s text, name and line starts (its lexing is
    /// pushed by the caller).
    fn push_file(
        &mut self,
        key: String,
        path: String,
        text: String,
        bundled: bool,
        starts: Vec<usize>,
    ) {
        let idx = self.st.files.len();
        self.st.starts.push(starts);
        self.st.files.push(SourceFile {
            path,
            text,
            bundled,
        });
        self.st.by_key.insert(key, idx);
    }

    /// The tokens of file `file`, spliced as `clean`: lexed again only
    /// where it changed when the include cache holds the last lexing of
    /// this file, its text since changed; whole otherwise. `Err` is where
    /// an unterminated comment starts.
    fn lex_new(&self, file: u32, clean: &str, dir: &Option<PathBuf>) -> Result<Vec<Lite>, usize> {
        let base = self.cache.as_ref().and_then(|c| c.lexings.last(file, dir));
        let relexed = base.and_then(|b| crate::lexings::relex(&b.sp.clean, &b.toks, clean));
        relexed.map_or_else(|| lex_lite(clean), Ok)
    }

    /// `lx`, a lexing of file `lx.file`, with every token from `pos` (a
    /// line's first) on its own: the lines from there lexed again token by
    /// token, no [`Kind::Lines`] among them. It is the file's lexing from
    /// then on (the same text, finer split). Done once per file and run at
    /// most: it lexes the rest of the file, not one line, so a file that
    /// uses macros on many lines is not copied for each.
    pub(crate) fn lex_rest(&mut self, lx: &Lexed, pos: usize) -> Result<Rc<Lexed>, PpError> {
        let from = lx.toks.get(pos).map_or(lx.sp.clean.len(), Lite::start);
        let rest =
            lex_fine_from(&lx.sp.clean, from).map_err(|at| PpError::UnterminatedComment {
                loc: self.loc_raw(lx.file as usize, lx.sp.orig(at)),
            })?;
        let mut toks = Vec::with_capacity(pos + rest.len());
        toks.extend_from_slice(lx.toks.get(..pos).unwrap_or_default());
        toks.extend(rest);
        let fine = Rc::new(Lexed {
            sp: Rc::clone(&lx.sp),
            toks,
            file: lx.file,
            guard: lx.guard.clone(),
            dir: lx.dir.clone(),
        });
        if let Some(slot) = self.st.lexed.get_mut(lx.file as usize) {
            *slot = Rc::clone(&fine);
        }
        Ok(fine)
    }

    pub(crate) fn lexed_file(&self, f: usize) -> Result<Rc<Lexed>, PpError> {
        self.st.lexed.get(f).cloned().ok_or_else(|| PpError::Limit {
            loc: self.loc_raw(f, 0),
            message: "internal error: file not lexed".into(),
        })
    }

    /// Processes file `f` as the current file, restoring the includer's `#line` state after.
    pub(crate) fn enter(&mut self, f: usize) -> Result<(), PpError> {
        let len = self.st.files.get(f).map_or(0, |x| x.text.len() as u64);
        self.st.entered_bytes = self.st.entered_bytes.saturating_add(len);
        let max = self.opts.limits.max_total_bytes;
        if self.st.entered_bytes > max {
            return Err(PpError::Limit {
                loc: self.loc_raw(f, 0),
                message: format!(
                    "the files entered so far (each #include counted) total more than {max} \
                     bytes (limit: max-total-bytes)"
                ),
            });
        }
        self.st.stack.push(f);
        let saved = (self.st.cur_file, self.st.out.delta, self.st.out.name);
        self.st.cur_file = f;
        self.st.out.delta = 0;
        self.st.out.name = None;
        let r = self.process_file(f);
        (self.st.cur_file, self.st.out.delta, self.st.out.name) = saved;
        self.st.stack.pop();
        r
    }

    // ----- locations -----

    /// Location of an original offset, ignoring `#line`.
    pub(crate) fn loc_raw(&self, f: usize, src: usize) -> ErrLoc {
        let (line, col) = self.st.starts.get(f).map_or((1, 1), |s| line_col(s, src));
        ErrLoc {
            path: self
                .st
                .files
                .get(f)
                .map_or_else(String::new, |x| x.path.clone()),
            line,
            col,
        }
    }

    /// Location of an original offset, with `#line` applied when `f` is the current file.
    pub(crate) fn loc(&self, f: usize, src: usize) -> ErrLoc {
        let mut l = self.loc_raw(f, src);
        if f == self.st.cur_file {
            l.line = adjust_line(l.line, self.st.out.delta);
            if let Some(n) = self.st.out.name.and_then(|n| self.st.names.get(n as usize)) {
                l.path = n.clone();
            }
        }
        l
    }

    pub(crate) fn loc_tok(&self, t: &Tok) -> ErrLoc {
        self.loc(t.file as usize, t.src)
    }

    // ----- output -----

    /// Emits the whitespace/comments between two spliced offsets: comments become spaces
    /// (byte for byte) and newlines are kept. With `newlines_only`, only the newlines.
    pub(crate) fn emit_gap(&mut self, lx: &Lexed, from: usize, to: usize, newlines_only: bool) {
        let Some(gap) = lx.sp.clean.get(from..to) else {
            return;
        };
        if gap.is_empty() {
            return;
        }
        let file = self.st.cur_file as u32;
        if newlines_only {
            let n = gap.bytes().filter(|&b| b == b'\n').count();
            self.st.out.push_newlines(n, file, lx.sp.orig(to));
            return;
        }
        self.st.out.push_blanked(gap, file, lx.sp.orig(from));
    }

    /// Emits as many newlines as the original text has between two spliced offsets.
    pub(crate) fn emit_newlines_in(&mut self, lx: &Lexed, from: usize, to: usize) {
        let f = self.st.cur_file;
        let (a, b) = (lx.sp.orig(from), lx.sp.orig(to));
        let n = self
            .st
            .files
            .get(f)
            .and_then(|x| x.text.get(a..b))
            .map_or(0, |s| s.bytes().filter(|&c| c == b'\n').count());
        self.st.out.push_newlines(n, f as u32, b.saturating_sub(1));
    }

    pub(crate) fn emit_tok(&mut self, t: &Tok) {
        if t.kind == Kind::Placemarker {
            return;
        }
        if t.direct {
            self.st.out.push(&t.text, t.file, t.src, true);
            return;
        }
        let last = self.st.out.last_byte();
        let first = t.text.as_bytes().first().copied();
        let glue = match (last, first) {
            (Some(a), Some(b)) => {
                (is_word(a) && is_word(b)) || (a == b'/' && (b == b'/' || b == b'*'))
            }
            _ => false,
        };
        let at_space = last.is_none_or_ws();
        if (t.space || glue) && !at_space {
            self.st.out.push(" ", t.file, t.src, false);
        }
        self.st.out.push(&t.text, t.file, t.src, !t.synth);
    }

    /// Fails once the preprocessed text is larger than [`crate::Limits::max_total_bytes`].
    pub(crate) fn check_output(&self, f: usize, src: usize) -> Result<(), PpError> {
        let max = self.opts.limits.max_total_bytes;
        if self.st.out.text.len() as u64 > max {
            return Err(PpError::Limit {
                loc: self.loc(f, src),
                message: format!(
                    "the preprocessed text is larger than {max} bytes (limit: max-total-bytes)"
                ),
            });
        }
        Ok(())
    }

    // ----- the main loop -----

    /// Expands the active line at token `pos` (its text from spliced
    /// offset `last_end`) token by token, macro invocations that run on
    /// past its end included; returns the file's lexing the positions are
    /// in (split further when an invocation ran into a [`Kind::Lines`]
    /// token), the token and offset after the newline that ends it.
    fn expand_line(
        &mut self,
        lx: &Rc<Lexed>,
        pos: usize,
        last_end: usize,
    ) -> Result<(Rc<Lexed>, usize, usize), PpError> {
        let mut inp = Input {
            stack: Vec::new(),
            cur: Some(Cursor {
                lx: lx.clone(),
                pos,
                last_end,
            }),
        };
        loop {
            if self.pass_plain(&mut inp)? {
                continue;
            }
            let Some(t) = self.expand_next(&mut inp)? else {
                break;
            };
            self.emit_tok(&t);
            self.check_output(t.file as usize, t.src)?;
        }
        let (lx, mut pos, mut last_end) = inp
            .cur
            .map_or((lx.clone(), pos, last_end), |c| (c.lx, c.pos, c.last_end));
        if let Some(&nl) = lx.toks.get(pos) {
            self.emit_gap(&lx, last_end, nl.start(), false);
            let src = lx.sp.orig(nl.start());
            self.st.out.push("\n", lx.file, src, true);
            last_end = nl.end();
            pos += 1;
        }
        Ok((lx, pos, last_end))
    }

    pub(crate) fn process_file(&mut self, f: usize) -> Result<(), PpError> {
        let mut lx = self.lexed_file(f)?;
        let mut pos = 0;
        let mut last_end = 0;
        let mut conds: Vec<Cond> = Vec::new();
        while let Some(&tok) = lx.toks.get(pos) {
            let active = conds.last().is_none_or(|c| c.active);
            self.check_output(f, lx.sp.orig(tok.start()))?;
            let directive = tok.bol && tok.is_punct(&lx.sp.clean, "#");
            if active && !directive {
                if let Some(next) = self.copy_plain_lines(&lx, pos, last_end) {
                    (pos, last_end) = next;
                    continue;
                }
                if tok.kind == Kind::Lines {
                    lx = self.lex_rest(&lx, pos)?;
                    continue;
                }
            }
            let eol = lx.toks[pos..]
                .iter()
                .position(Lite::ends_line)
                .map_or(lx.toks.len(), |k| pos + k);
            let line_end = lx.toks.get(eol).map_or(lx.sp.clean.len(), Lite::end);
            if directive {
                self.emit_newlines_in(&lx, last_end, tok.start());
                self.directive(&lx, pos, eol, &mut conds)?;
                self.emit_newlines_in(&lx, tok.start(), line_end);
                last_end = line_end;
                pos = eol + 1;
            } else if !active {
                self.emit_newlines_in(&lx, last_end, line_end);
                last_end = line_end;
                pos = eol + 1;
            } else {
                (lx, pos, last_end) = self.expand_line(&lx, pos, last_end)?;
            }
        }
        self.emit_gap(&lx, last_end, lx.sp.clean.len(), false);
        if let Some(c) = conds.last() {
            return Err(PpError::Conditional {
                loc: self.loc_tok(&c.at),
                message: format!("unterminated #{}", c_name(&lx, &c.at)),
            });
        }
        Ok(())
    }
}

/// Name of the conditional directive a `#` token starts (for messages).
fn c_name<'l>(lx: &'l Lexed, hash_tok: &Tok) -> &'l str {
    let k = lx.toks.partition_point(|t| t.start() <= hash_tok.start);
    lx.toks.get(k).map_or("if", |t| t.text(&lx.sp.clean))
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

trait WsExt {
    fn is_none_or_ws(&self) -> bool;
}

impl WsExt for Option<u8> {
    fn is_none_or_ws(&self) -> bool {
        self.is_none_or(|b| b.is_ascii_whitespace())
    }
}

/// Directory used for quoted includes of a file at `p` (`.` when it has none).
pub(crate) fn dir_of(p: &Path) -> PathBuf {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Reads a file as UTF-8 text, refusing more than `max` bytes without reading them.
pub(crate) fn read_file(
    files: &dyn crate::Files,
    path: &Path,
    shown: &str,
    max: u64,
    loc: ErrLoc,
) -> Result<String, PpError> {
    let io = |loc: ErrLoc, message: String| PpError::Io {
        loc,
        path: shown.to_owned(),
        message,
    };
    let bytes = match files.read(path, max) {
        Ok(b) => b,
        Err(Some(e)) => return Err(io(loc, e.to_string())),
        Err(None) => {
            return Err(PpError::Limit {
                loc,
                message: format!("'{shown}' is larger than {max} bytes (limit: max-input-bytes)"),
            })
        }
    };
    String::from_utf8(bytes).map_err(|e| io(loc, format!("not UTF-8 text: {e}")))
}

/// `text` with each carriage return not followed by a line feed (old Mac
/// line endings) made a line feed: it ends a line, `//` comment and
/// directive as LF does, and every offset stays the file's own.
fn lone_cr_to_lf(text: String) -> String {
    if !text.contains('\r') {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    let mut it = text.chars().peekable();
    while let Some(c) = it.next() {
        out.push(if c == '\r' && it.peek() != Some(&'\n') {
            '\n'
        } else {
            c
        });
    }
    out
}

/// A file's text as the lexer reads it: a UTF-8 byte-order mark (editors
/// on Windows write one) blanked, so every offset after it stays the
/// file's own, and lone carriage returns made line feeds.
/// `special`: the text may have a carriage return or a backslash
/// ([`crate::lexer::may_have_cr_or_backslash`]); when not, only the mark
/// is looked for.
fn normalized(text: String, special: bool) -> String {
    let text = match text.strip_prefix('\u{feff}') {
        Some(rest) => format!("   {rest}"),
        None => text,
    };
    if special {
        lone_cr_to_lf(text)
    } else {
        text
    }
}
