//! Macro expansion by the hide-set algorithm: reading tokens from pending expansions and the
//! file, collecting arguments, substituting bodies (`#`, `##`, `__VA_ARGS__`).

use crate::engine::{Input, Preprocessor, MAX_EXPANSION_DEPTH};
use crate::error::PpError;
use crate::lexer::{HideSet, Kind, Tok};
use crate::macros::{paste, stringify, Macro, MacroKind};

impl Preprocessor<'_> {
    // ----- macro expansion -----

    /// Next token from the input: pending tokens, else the file. In text mode (`collecting`
    /// false) the file stops at the end of the line; while collecting macro arguments it runs
    /// on across newlines (emitting them) up to the next directive line. A [`Kind::Lines`]
    /// token met is split first ([`Preprocessor::lex_rest`]).
    pub(crate) fn pull(
        &mut self,
        inp: &mut Input,
        collecting: bool,
    ) -> Result<Option<Tok>, PpError> {
        if let Some(t) = inp.stack.pop() {
            return Ok(Some(t));
        }
        let Some(cur) = inp.cur.as_mut() else {
            return Ok(None);
        };
        let mut saw_newline = false;
        loop {
            let Some(&t) = cur.lx.toks.get(cur.pos) else {
                return Ok(None);
            };
            let lx = cur.lx.clone();
            if t.kind == Kind::Lines {
                // Its tokens one by one, from here to the file's end.
                cur.lx = self.lex_rest(&lx, cur.pos)?;
                continue;
            }
            if t.kind == Kind::Newline {
                if !collecting || lx.is_punct(cur.pos + 1, "#") {
                    return Ok(None);
                }
                self.emit_gap(&lx, cur.last_end, t.start(), true);
                self.st.out.push("\n", lx.file, lx.sp.orig(t.start()), true);
                cur.last_end = t.end();
                cur.pos += 1;
                saw_newline = true;
                continue;
            }
            self.emit_gap(&lx, cur.last_end, t.start(), collecting);
            cur.last_end = t.end();
            cur.pos += 1;
            let mut tok = t.tok(&lx.sp, lx.file);
            tok.direct = true;
            tok.space |= saw_newline;
            return Ok(Some(tok));
        }
    }

    /// Whether the next token (possibly on a following line) is `(`; consumes nothing.
    pub(crate) fn peek_lparen(inp: &Input) -> bool {
        if let Some(t) = inp.stack.last() {
            return t.is_punct("(");
        }
        let Some(cur) = &inp.cur else {
            return false;
        };
        let clean = &cur.lx.sp.clean;
        let mut p = cur.pos;
        while let Some(t) = cur.lx.toks.get(p) {
            if t.kind == Kind::Lines {
                // Its first token is its first byte that is no blank.
                let first = t.text(clean).bytes().find(|c| !c.is_ascii_whitespace());
                return first == Some(b'(');
            }
            if t.kind != Kind::Newline {
                return t.is_punct(clean, "(");
            }
            if cur.lx.is_punct(p + 1, "#") {
                return false;
            }
            p += 1;
        }
        false
    }

    /// The next fully macro-expanded token, or `None` at the end of the input (line).
    pub(crate) fn expand_next(&mut self, inp: &mut Input) -> Result<Option<Tok>, PpError> {
        loop {
            let Some(tok) = self.pull(inp, false)? else {
                return Ok(None);
            };
            if tok.kind != Kind::Ident || tok.hs.contains(&tok.text) {
                return Ok(Some(tok));
            }
            let Some(m) = self.macro_named(&tok.text).cloned() else {
                return Ok(Some(tok));
            };
            let body = match &m.kind {
                MacroKind::Line | MacroKind::File => return Ok(Some(self.builtin(&m, &tok))),
                MacroKind::Object => {
                    let hs = tok.hs.with(&m.name);
                    self.subst(&m, &tok, &[], &hs)?
                }
                MacroKind::Function { .. } => {
                    if !Self::peek_lparen(inp) {
                        return Ok(Some(tok));
                    }
                    let (args, rparen) = self.collect_args(inp, &m, &tok)?;
                    let hs = tok.hs.intersect(&rparen.hs).with(&m.name);
                    self.subst(&m, &tok, &args, &hs)?
                }
            };
            self.st.budget = self.st.budget.saturating_sub(body.len() + 1);
            if self.st.budget == 0 {
                return Err(self.macro_budget_error(&tok));
            }
            inp.push_front(body);
        }
    }

    /// The error for an exhausted macro-expansion budget, at the invocation `at`.
    pub(crate) fn macro_budget_error(&self, at: &Tok) -> PpError {
        PpError::Limit {
            loc: self.loc_tok(at),
            message: format!(
                "macro expansion produced more than {} tokens in this program \
                 (limit: max-macro-output)",
                self.opts.limits.max_macro_tokens
            ),
        }
    }

    pub(crate) fn builtin(&self, m: &Macro, at: &Tok) -> Tok {
        let mut t = if matches!(m.kind, MacroKind::Line) {
            let line = self.loc_tok(at).line;
            Tok::synth(Kind::Number, &line.to_string(), at)
        } else {
            let path = self.loc_tok(at).path;
            let mut s = String::from("\"");
            for c in path.chars() {
                if c == '"' || c == '\\' {
                    s.push('\\');
                }
                s.push(c);
            }
            s.push('"');
            Tok::synth(Kind::Str, &s, at)
        };
        t.space = at.space && !at.direct;
        t
    }

    /// Reads `( args )` after a function-like macro name. Returns the arguments (commas at
    /// parenthesis depth 0 separate them, except inside the variadic part) and the `)`.
    pub(crate) fn collect_args(
        &mut self,
        inp: &mut Input,
        m: &Macro,
        name: &Tok,
    ) -> Result<(Vec<Vec<Tok>>, Tok), PpError> {
        let (nparams, variadic) = match &m.kind {
            MacroKind::Function { params, variadic } => (params.len(), *variadic),
            _ => (0, false),
        };
        let unterminated = |s: &Self| PpError::Macro {
            loc: s.loc_tok(name),
            message: format!("unterminated argument list invoking macro '{}'", m.name),
        };
        let _lparen = self.pull(inp, true)?;
        let mut args: Vec<Vec<Tok>> = vec![Vec::new()];
        let mut depth = 0usize;
        let rparen = loop {
            let Some(mut t) = self.pull(inp, true)? else {
                return Err(unterminated(self));
            };
            t.direct = false;
            if t.is_punct("(") {
                depth += 1;
            } else if t.is_punct(")") {
                if depth == 0 {
                    break t;
                }
                depth -= 1;
            } else if t.is_punct(",") && depth == 0 && !(variadic && args.len() >= nparams) {
                args.push(Vec::new());
                continue;
            }
            if let Some(a) = args.last_mut() {
                a.push(t);
            }
        };
        if nparams == 0 && args.len() == 1 && args.iter().all(Vec::is_empty) {
            args.clear();
        }
        if variadic && args.len() + 1 == nparams {
            args.push(Vec::new());
        }
        if args.len() != nparams {
            return Err(PpError::Macro {
                loc: self.loc_tok(name),
                message: format!(
                    "macro '{}' expects {} argument{}, got {}",
                    m.name,
                    nparams,
                    if nparams == 1 { "" } else { "s" },
                    args.len()
                ),
            });
        }
        Ok((args, rparen))
    }

    /// Fully expands a token list in isolation (macro arguments, `#if`/`#line`/`#include`
    /// operands).
    pub(crate) fn expand_all(&mut self, toks: Vec<Tok>, at: &Tok) -> Result<Vec<Tok>, PpError> {
        if self.st.depth >= MAX_EXPANSION_DEPTH {
            return Err(PpError::Limit {
                loc: self.loc_tok(at),
                message: "macro expansion nested too deeply".into(),
            });
        }
        self.st.depth += 1;
        let mut inp = Input {
            stack: Vec::new(),
            cur: None,
        };
        inp.push_front(toks);
        let mut out = Vec::new();
        let r = loop {
            match self.expand_next(&mut inp) {
                Ok(Some(t)) => out.push(t),
                Ok(None) => break Ok(out),
                Err(e) => break Err(e),
            }
        };
        self.st.depth -= 1;
        r
    }

    /// Substitutes arguments into a macro body (`#`, `##`, pre-expanded parameters) and adds the
    /// hide set `hs` to every resulting token.
    pub(crate) fn subst(
        &mut self,
        m: &Macro,
        name: &Tok,
        args: &[Vec<Tok>],
        hs: &HideSet,
    ) -> Result<Vec<Tok>, PpError> {
        let body = &m.body;
        let is_func = matches!(m.kind, MacroKind::Function { .. });
        let mut expanded: Vec<Option<Vec<Tok>>> = vec![None; args.len()];
        let mut out: Vec<Tok> = Vec::with_capacity(body.len());
        let mut i = 0;
        while let Some(t) = body.get(i) {
            // one substitution may multiply a long argument: stop it before it is built
            if out.len() >= self.st.budget {
                return Err(self.macro_budget_error(name));
            }
            let next = body.get(i + 1);
            if is_func && t.is_punct("#") {
                if let Some(p) = next.and_then(|n| m.param_index(n)) {
                    let s = stringify(args.get(p).map_or(&[][..], Vec::as_slice));
                    let mut st = Tok::synth(Kind::Str, &s, name);
                    st.space = t.space;
                    out.push(st);
                    i += 2;
                    continue;
                }
            }
            if t.is_punct("##") {
                let Some(r) = next else {
                    break;
                };
                i += 2;
                paste_onto(m, name, args, r, &mut out);
                continue;
            }
            if let Some(p) = m.param_index(t) {
                if next.is_some_and(|n| n.is_punct("##")) {
                    let a = raw_arg(args, p, t.space);
                    if a.is_empty() {
                        out.push(Tok::synth(Kind::Placemarker, "", name));
                    } else {
                        out.extend(a);
                    }
                } else {
                    let mut e = self.expanded_arg(&mut expanded, args, p, name)?;
                    if let Some(f) = e.first_mut() {
                        f.space = t.space;
                    }
                    out.extend(e);
                }
                i += 1;
                continue;
            }
            out.push(body_tok(t, name));
            i += 1;
        }
        out.retain(|t| t.kind != Kind::Placemarker);
        for t in &mut out {
            t.hs = t.hs.union(hs);
            t.direct = false;
            t.bol = false;
        }
        if let Some(f) = out.first_mut() {
            f.space = name.space && !name.direct;
        }
        Ok(out)
    }

    /// Argument `p` fully macro-expanded, expanded once per substitution
    /// however often the body uses it (kept in `expanded`).
    fn expanded_arg(
        &mut self,
        expanded: &mut [Option<Vec<Tok>>],
        args: &[Vec<Tok>],
        p: usize,
        name: &Tok,
    ) -> Result<Vec<Tok>, PpError> {
        if let Some(e) = expanded.get(p).cloned().flatten() {
            return Ok(e);
        }
        let e = self.expand_all(raw_arg(args, p, false), name)?;
        if let Some(slot) = expanded.get_mut(p) {
            *slot = Some(e.clone());
        }
        Ok(e)
    }
}

/// A token of macro `name`'s body as it appears in an expansion.
fn body_tok(t: &Tok, name: &Tok) -> Tok {
    Tok {
        kind: t.kind,
        text: t.text.clone(),
        space: t.space,
        bol: false,
        direct: false,
        synth: true,
        file: name.file,
        src: name.src,
        start: name.start,
        hs: HideSet::default(),
    }
}

/// Argument `p` as written (not expanded), its first token's leading
/// space set to `space`.
fn raw_arg(args: &[Vec<Tok>], p: usize, space: bool) -> Vec<Tok> {
    let mut a: Vec<Tok> = args.get(p).cloned().unwrap_or_default();
    if let Some(f) = a.first_mut() {
        f.space = space;
    }
    a
}

/// `... ## r` in the body of macro `m`: pastes the last token of `out`
/// to `r` (or to the first token of the argument `r` names). GNU
/// `, ## __VA_ARGS__` drops the comma when there are no extras.
fn paste_onto(m: &Macro, name: &Tok, args: &[Vec<Tok>], r: &Tok, out: &mut Vec<Tok>) {
    let variadic = matches!(m.kind, MacroKind::Function { variadic: true, .. });
    let rhs: Vec<Tok> = match m.param_index(r) {
        Some(p) => {
            let a = raw_arg(args, p, r.space);
            let is_va = variadic && p + 1 == args.len();
            let comma_before = out.last().is_some_and(|l| l.is_punct(",") && l.synth);
            if is_va && comma_before {
                if a.is_empty() {
                    out.pop();
                } else {
                    out.extend(a);
                }
                return;
            }
            a
        }
        None => vec![body_tok(r, name)],
    };
    let lhs = out
        .pop()
        .unwrap_or_else(|| Tok::synth(Kind::Placemarker, "", name));
    let mut rest = rhs.into_iter();
    match rest.next() {
        None => out.push(lhs),
        Some(first) => out.extend(paste(&lhs, &first, name)),
    }
    out.extend(rest);
}
