//! Directive handling: conditionals, `#define`/`#undef`, `#include` resolution, `#line`,
//! `#error`/`#warning` and `#pragma`.

use std::path::{Path, PathBuf};
use std::rc::Rc;

use crate::engine::{dir_of, read_file, Cond, Lexed, Preprocessor};
use crate::error::{ErrLoc, PpError, PpWarning};
use crate::expr;
use crate::include_cache::Probe;
use crate::lexer::{Kind, Tok};
use crate::macros::parse_define;
use crate::source_map::line_col;

/// How the warning about an ignored unknown directive starts.
const UNKNOWN_DIRECTIVE: &str = "unknown directive ";

impl Preprocessor<'_> {
    // ----- directives -----

    pub(crate) fn directive(
        &mut self,
        lx: &Rc<Lexed>,
        hash: usize,
        eol: usize,
        conds: &mut Vec<Cond>,
    ) -> Result<(), PpError> {
        let toks = &lx.toks_in(hash + 1, eol)[..];
        let Some(hash_tok) = &lx.tok(hash) else {
            return Ok(());
        };
        let active = conds.last().is_none_or(|c| c.active);
        let Some(name_tok) = toks.first() else {
            return Ok(()); // null directive
        };
        let rest = toks.get(1..).unwrap_or(&[]);
        if self.conditional(name_tok, rest, hash_tok, conds, active)? || !active {
            return Ok(());
        }
        let line_end = lx.toks.get(eol).map_or(lx.sp.clean.len(), |t| t.start());
        let raw_rest = rest
            .first()
            .and_then(|t| lx.sp.clean.get(t.start..line_end))
            .unwrap_or("")
            .trim()
            .to_owned();
        match &*name_tok.text {
            "define" => self.define(rest, hash_tok)?,
            "undef" => {
                let name = self.macro_name_operand(rest, hash_tok, "undef")?;
                self.st.macros.remove(&*name);
            }
            "include" => self.include(lx, hash_tok, rest, &raw_rest)?,
            "error" => {
                return Err(PpError::ErrorDirective {
                    loc: self.loc_tok(hash_tok),
                    message: raw_rest,
                })
            }
            "warning" => {
                let loc = self.loc_tok(hash_tok);
                self.st.warnings.push(PpWarning {
                    loc,
                    message: raw_rest,
                });
            }
            "line" => self.line_directive(lx, rest, hash_tok, eol)?,
            "pragma" => self.pragma(lx, rest, hash_tok, line_end),
            _ if name_tok.kind == Kind::Number => {
                // GNU line marker `# 12 "file"`
                self.line_directive(lx, toks, hash_tok, eol)?;
            }
            other => self.unknown_directive(hash_tok, other),
        }
        Ok(())
    }

    /// `#if`, `#ifdef`, `#ifndef`, `#elif`, `#else` and `#endif` (`name_tok`,
    /// its operands `rest`), which open, switch and close the conditional
    /// groups `conds` whether or not the text around them is `active`:
    /// false for any other directive, which is left to the caller.
    fn conditional(
        &mut self,
        name_tok: &Tok,
        rest: &[Tok],
        hash_tok: &Tok,
        conds: &mut Vec<Cond>,
        active: bool,
    ) -> Result<bool, PpError> {
        let err = |s: &Self, message: &str| cond_err(s.loc_tok(hash_tok), message);
        match &*name_tok.text {
            "if" | "ifdef" | "ifndef" => {
                let v = active && self.opens_true(name_tok, rest, hash_tok)?;
                conds.push(Cond {
                    active: v,
                    taken: v || !active,
                    seen_else: false,
                    at: hash_tok.clone(),
                });
            }
            "elif" => {
                let Some(c) = conds.last() else {
                    return Err(err(self, "#elif without #if"));
                };
                if c.seen_else {
                    return Err(err(self, "#elif after #else"));
                }
                let v = !c.taken && self.eval_if(rest, hash_tok)?;
                if let Some(c) = conds.last_mut() {
                    c.active = v;
                    c.taken |= v;
                }
            }
            "else" => {
                let Some(c) = conds.last_mut() else {
                    return Err(err(self, "#else without #if"));
                };
                if c.seen_else {
                    return Err(err(self, "#else after #else"));
                }
                c.seen_else = true;
                c.active = !c.taken;
                c.taken = true;
            }
            "endif" => {
                if conds.pop().is_none() {
                    return Err(err(self, "#endif without #if"));
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Whether the group an active `#if`, `#ifdef` or `#ifndef` opens is
    /// taken.
    fn opens_true(
        &mut self,
        name_tok: &Tok,
        rest: &[Tok],
        hash_tok: &Tok,
    ) -> Result<bool, PpError> {
        if name_tok.is_ident("if") {
            return self.eval_if(rest, hash_tok);
        }
        let name = self.macro_name_operand(rest, hash_tok, &name_tok.text)?;
        Ok(self.st.macros.contains_key(&*name) == name_tok.is_ident("ifdef"))
    }

    /// `#pragma once` marks the file; any other pragma goes to the output
    /// as written (the P4 front end reads `#pragma`s).
    fn pragma(&mut self, lx: &Rc<Lexed>, rest: &[Tok], hash_tok: &Tok, line_end: usize) {
        if rest.first().is_some_and(|t| t.is_ident("once")) {
            self.st.once.insert(self.st.cur_file);
        } else if let Some(text) = lx.sp.clean.get(hash_tok.start..line_end) {
            let file = self.st.cur_file as u32;
            self.st.out.push(text, file, hash_tok.src, true);
        }
    }

    /// An unknown directive `#other`: p4c runs `cpp -x assembler-with-cpp`,
    /// which passes it through, and its lexer skips every line that starts
    /// with `#`: the line is dropped, with a warning (a misspelt directive
    /// would otherwise go unseen), one for a run of them in a file (a
    /// `#`-comment banner).
    fn unknown_directive(&mut self, hash_tok: &Tok, other: &str) {
        let loc = self.loc_tok(hash_tok);
        let repeated =
            self.st.warnings.last().is_some_and(|w| {
                w.loc.path == loc.path && w.message.starts_with(UNKNOWN_DIRECTIVE)
            });
        if !repeated {
            self.st.warnings.push(PpWarning {
                loc,
                message: format!(
                    "{UNKNOWN_DIRECTIVE}#{other} ignored, and any after it in this file \
                     (p4c ignores lines that start with an unknown directive)"
                ),
            });
        }
    }

    /// The identifier operand of `#ifdef`/`#ifndef`/`#undef`.
    pub(crate) fn macro_name_operand(
        &self,
        rest: &[Tok],
        hash_tok: &Tok,
        what: &str,
    ) -> Result<Rc<str>, PpError> {
        match rest.first() {
            Some(t) if t.kind == Kind::Ident => Ok(t.text.clone()),
            _ => Err(PpError::Directive {
                loc: self.loc_tok(hash_tok),
                message: format!("#{what} requires a macro name"),
            }),
        }
    }

    pub(crate) fn define(&mut self, toks: &[Tok], at: &Tok) -> Result<(), PpError> {
        let m = parse_define(toks).map_err(|(i, message)| PpError::Directive {
            loc: self.loc_tok(toks.get(i).unwrap_or(at)),
            message,
        })?;
        if let Some(old) = self.st.macros.get(&m.name) {
            if !old.same_as(&m) {
                let loc = self.loc_tok(toks.first().unwrap_or(at));
                self.st.warnings.push(PpWarning {
                    loc,
                    message: format!("'{}' redefined", m.name),
                });
            }
        }
        self.st.macro_filter.add(&m.name);
        self.st.macros.insert(m.name.clone(), Rc::new(m));
        Ok(())
    }

    pub(crate) fn eval_if(&mut self, rest: &[Tok], hash_tok: &Tok) -> Result<bool, PpError> {
        let mut v: Vec<Tok> = Vec::with_capacity(rest.len());
        let mut i = 0;
        while let Some(t) = rest.get(i) {
            if t.is_ident("defined") {
                let (name, used) = match (rest.get(i + 1), rest.get(i + 2), rest.get(i + 3)) {
                    (Some(n), _, _) if n.kind == Kind::Ident => (n, 2),
                    (Some(l), Some(n), Some(r))
                        if l.is_punct("(") && n.kind == Kind::Ident && r.is_punct(")") =>
                    {
                        (n, 4)
                    }
                    _ => {
                        return Err(PpError::Expression {
                            loc: self.loc_tok(t),
                            message: "'defined' requires an identifier".into(),
                        })
                    }
                };
                let d = self.st.macros.contains_key(&*name.text);
                let mut n = Tok::synth(Kind::Number, if d { "1" } else { "0" }, t);
                n.space = t.space;
                v.push(n);
                i += used;
            } else {
                let mut c = t.clone();
                c.direct = false;
                v.push(c);
                i += 1;
            }
        }
        let expanded = self.expand_all(v, hash_tok)?;
        match expr::eval(&expanded) {
            Ok(x) => Ok(x != 0),
            Err(e) => {
                let at = e.at.and_then(|k| expanded.get(k)).unwrap_or(hash_tok);
                Err(PpError::Expression {
                    loc: self.loc_tok(at),
                    message: e.message,
                })
            }
        }
    }

    pub(crate) fn line_directive(
        &mut self,
        lx: &Lexed,
        operands: &[Tok],
        hash_tok: &Tok,
        eol: usize,
    ) -> Result<(), PpError> {
        let v: Vec<Tok> = operands.to_vec();
        let expanded = self.expand_all(v, hash_tok)?;
        let bad = |s: &Self| PpError::Directive {
            loc: s.loc_tok(hash_tok),
            message: "#line requires a positive line number and an optional \"file\"".into(),
        };
        let n: i64 = match expanded.first() {
            Some(t) if t.kind == Kind::Number && t.text.bytes().all(|b| b.is_ascii_digit()) => {
                t.text.parse().map_err(|_| bad(self))?
            }
            _ => return Err(bad(self)),
        };
        let name = match expanded.get(1) {
            None => None,
            Some(t) if t.kind == Kind::Str && unquote(&t.text).is_some() => {
                unquote(&t.text).map(str::to_owned)
            }
            Some(_) => return Err(bad(self)),
        };
        // The line after the directive's newline gets number `n`.
        let nl_src = lx.src(eol).unwrap_or(hash_tok.src);
        let (phys, _) = self
            .st
            .starts
            .get(self.st.cur_file)
            .map_or((1, 1), |s| line_col(s, nl_src));
        self.st.out.delta = n - (i64::from(phys) + 1);
        if let Some(name) = name {
            let idx = u32::try_from(self.st.names.len()).map_err(|_| bad(self))?;
            self.st.names.push(name);
            self.st.out.name = Some(idx);
        }
        Ok(())
    }

    // ----- includes -----

    pub(crate) fn include(
        &mut self,
        lx: &Lexed,
        hash_tok: &Tok,
        rest: &[Tok],
        raw: &str,
    ) -> Result<(), PpError> {
        let (name, angled) = self.include_operand(hash_tok, rest, raw)?;
        let idx = self.resolve(lx, &name, angled, hash_tok)?;
        if self.st.once.contains(&idx) {
            return Ok(());
        }
        let child = self.lexed_file(idx)?;
        if let Some(g) = &child.guard {
            if self.st.macros.contains_key(g) {
                return Ok(()); // the guard would skip the whole file
            }
        }
        self.check_entry(idx, hash_tok)?;
        self.st.includes += 1;
        let limits = self.opts.limits;
        if self.st.includes > limits.max_includes {
            return Err(PpError::Limit {
                loc: self.loc_tok(hash_tok),
                message: format!(
                    "more than {} files entered by #include in this program, each inclusion \
                     counted (limit: max-includes)",
                    limits.max_includes
                ),
            });
        }
        if self.st.stack.len() == 1 && self.st.cur_file == 0 && hash_tok.file == 0 {
            return self.enter_cached(idx, hash_tok.src);
        }
        self.enter(idx)
    }

    /// The file an `#include` names and whether in `<...>`: written
    /// `"name"` or `<name>` (`raw`, the directive's text after its name),
    /// or computed: its tokens `rest` macro-expanded to one of those.
    fn include_operand(
        &mut self,
        hash_tok: &Tok,
        rest: &[Tok],
        raw: &str,
    ) -> Result<(String, bool), PpError> {
        let (name, angled) = if let Some(r) = raw.strip_prefix('"') {
            (r.split('"').next().filter(|_| r.contains('"')), false)
        } else if let Some(r) = raw.strip_prefix('<') {
            (r.split('>').next().filter(|_| r.contains('>')), true)
        } else {
            (None, false)
        };
        let operand = match name {
            Some(n) => Some((n.to_owned(), angled)),
            None if !raw.starts_with(['"', '<']) => self.computed_include(hash_tok, rest)?,
            None => None,
        };
        match operand {
            Some((name, angled)) if !name.is_empty() => Ok((name, angled)),
            _ => Err(PpError::Directive {
                loc: self.loc_tok(hash_tok),
                message: "#include expects \"FILENAME\" or <FILENAME>".into(),
            }),
        }
    }

    /// A computed include's operand: `rest` macro-expanded, then read as
    /// `"name"` or `<name>` (its tokens' text, spaced as expanded); `None`
    /// when it is neither.
    fn computed_include(
        &mut self,
        hash_tok: &Tok,
        rest: &[Tok],
    ) -> Result<Option<(String, bool)>, PpError> {
        let e = self.expand_all(rest.to_vec(), hash_tok)?;
        Ok(match e.first() {
            Some(t) if t.kind == Kind::Str => unquote(&t.text).map(|s| (s.to_owned(), false)),
            Some(t) if t.is_punct("<") => {
                let mut s = String::new();
                for (k, x) in e.iter().enumerate().skip(1) {
                    if x.is_punct(">") {
                        return Ok(Some((s, true)));
                    }
                    if k > 1 && x.space {
                        s.push(' ');
                    }
                    s.push_str(&x.text);
                }
                None
            }
            _ => None,
        })
    }

    /// Refuses to enter file `idx` a third time while it is open (a
    /// cycle: a file may be re-entered once, which a guard not in the
    /// idiomatic shape then stops) or deeper than the include-depth limit.
    fn check_entry(&self, idx: usize, hash_tok: &Tok) -> Result<(), PpError> {
        let open = self.st.stack.iter().filter(|&&s| s == idx).count();
        if let Some(k) = self
            .st
            .stack
            .iter()
            .rposition(|&s| s == idx)
            .filter(|_| open >= 2)
        {
            let mut chain: Vec<&str> = self.st.stack[k..]
                .iter()
                .filter_map(|&s| self.st.files.get(s).map(|f| f.path.as_str()))
                .collect();
            chain.push(self.st.files.get(idx).map_or("", |f| f.path.as_str()));
            return Err(PpError::IncludeCycle {
                loc: self.loc_tok(hash_tok),
                chain: chain.join(" -> "),
            });
        }
        let depth = self.opts.limits.max_include_depth;
        if self.st.stack.len() >= depth {
            return Err(PpError::Limit {
                loc: self.loc_tok(hash_tok),
                message: format!("#include nested more than {depth} deep (limit: include depth)"),
            });
        }
        Ok(())
    }

    /// Finds and registers an include: includer's directory (quoted only), `-I` dirs, bundled.
    pub(crate) fn resolve(
        &mut self,
        lx: &Lexed,
        name: &str,
        angled: bool,
        hash_tok: &Tok,
    ) -> Result<usize, PpError> {
        let mut dirs: Vec<PathBuf> = Vec::new();
        if !angled {
            if let Some(d) = &lx.dir {
                dirs.push(d.clone());
            }
        }
        dirs.extend(self.opts.include_dirs.iter().cloned());
        let candidates: Vec<PathBuf> = if Path::new(name).is_absolute() {
            vec![PathBuf::from(name)]
        } else {
            dirs.iter().map(|d| d.join(name)).collect()
        };
        for p in candidates {
            let found = self.files.is_file(&p);
            self.probe(|| Probe::IsFile(p.clone(), found));
            if found {
                let key = self.files.key(&p);
                self.probe(|| Probe::Key(p.clone(), key.clone()));
                if let Some(&i) = self.st.by_key.get(&key) {
                    self.st.used_root |= i == 0;
                    return Ok(i);
                }
                let shown = p.display().to_string();
                let max = self.opts.limits.max_file_bytes;
                let text = read_file(self.files, &p, &shown, max, self.loc_tok(hash_tok))?;
                self.probe(|| Probe::Read(p.clone(), text.clone()));
                return self.register(key, shown, text, false, Some(dir_of(&p)));
            }
            let refused = self.files.refusal(&p);
            self.probe(|| Probe::Refusal(p.clone(), refused));
            if let Some(why) = refused {
                return Err(PpError::Io {
                    loc: self.loc_tok(hash_tok),
                    path: p.display().to_string(),
                    message: why.to_string(),
                });
            }
        }
        if let Some(text) = self.bundled.lookup(name) {
            let path = format!("<bundled>/{name}");
            return self.register(path.clone(), path, text.to_owned(), true, None);
        }
        let mut searched: Vec<String> = if Path::new(name).is_absolute() {
            vec!["the absolute path".to_string()]
        } else {
            dirs.iter().map(|d| d.display().to_string()).collect()
        };
        searched.push("the bundled includes (core.p4, v1model.p4, tna.p4, ...)".to_string());
        Err(PpError::IncludeNotFound {
            loc: self.loc_tok(hash_tok),
            name: name.to_owned(),
            searched: searched.join(", "),
        })
    }
}

/// The inside of a complete string literal.
fn unquote(s: &str) -> Option<&str> {
    s.strip_prefix('"')?.strip_suffix('"')
}

fn cond_err(loc: ErrLoc, message: &str) -> PpError {
    PpError::Conditional {
        loc,
        message: message.into(),
    }
}
