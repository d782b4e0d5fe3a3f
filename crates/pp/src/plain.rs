//! The fast paths of the line loop for text no macro touches: runs of
//! whole lines copied at once, and single tokens passed through while a
//! line is expanded. Most of a program's lines and tokens are such.

use crate::engine::{Input, Lexed, Preprocessor};
use crate::error::PpError;
use crate::lexer::{Kind, Lite};

impl Preprocessor<'_> {
    /// Copies the next token of the file to the output when nothing is
    /// pending and it is no macro's name (a punctuator, a number, or an
    /// identifier no macro has): what [`Preprocessor::expand_next`] and
    /// [`Preprocessor::emit_tok`] do with it, without making the full
    /// token (its own text and hide set). Most of a program's tokens are
    /// such; `false` (nothing done) for any other, or at the line's end.
    pub(crate) fn pass_plain(&mut self, inp: &mut Input) -> Result<bool, PpError> {
        if !inp.stack.is_empty() {
            return Ok(false);
        }
        let Some(cur) = inp.cur.as_mut() else {
            return Ok(false);
        };
        let Some(&t) = cur.lx.toks.get(cur.pos) else {
            return Ok(false);
        };
        let text = t.text(&cur.lx.sp.clean);
        if t.ends_line() || (t.kind == Kind::Ident && self.is_macro(text)) {
            return Ok(false);
        }
        self.emit_gap(&cur.lx, cur.last_end, t.start(), false);
        cur.last_end = t.end();
        cur.pos += 1;
        let src = cur.lx.sp.orig(t.start());
        self.st.out.push(text, cur.lx.file, src, true);
        self.check_output(cur.lx.file as usize, src)?;
        Ok(true)
    }

    /// Copies the active lines from token `pos` on (the text from spliced
    /// offset `last_end`) to the output at once while the token-by-token
    /// loop would pass every token of them ([`Preprocessor::pass_plain`]):
    /// lines that are no directive, end in a newline token, name no macro,
    /// and hold no line splice after `last_end` (so their bytes map to
    /// the file byte for byte, one run). The output is what that loop
    /// writes: the text with comments blanked, in the same segments.
    /// Returns the token and spliced offset after the last line copied,
    /// or `None` (nothing written) when the first line is not such or
    /// would take the output past its budget (the line loop then reports
    /// it at the token where it does).
    pub(crate) fn copy_plain_lines(
        &mut self,
        lx: &Lexed,
        pos: usize,
        last_end: usize,
    ) -> Option<(usize, usize)> {
        let toks = lx.toks.get(pos..)?;
        let (taken, comments) = self.plain_lines(lx, toks, last_end);
        let room = self.opts.limits.max_total_bytes;
        let room = room.saturating_sub(self.st.out.text.len() as u64);
        let taken = fitting(toks, taken, last_end, room);
        let last = toks.get(taken.checked_sub(1)?)?;
        let (clean, end) = (&lx.sp.clean, last.end());
        let text = clean.get(last_end..end)?;
        let src = lx.sp.orig(last_end);
        if !comments {
            self.st.out.push(text, lx.file, src, true);
            return Some((pos + taken, end));
        }
        // Its segment made for the whole text, then the text again piece
        // by piece, each gap's comments blanked (the same length).
        let out = &mut self.st.out;
        let text0 = out.text.len();
        out.push(text, lx.file, src, true);
        out.text.truncate(text0);
        let mut from = last_end;
        for t in toks.get(..taken).unwrap_or_default() {
            let gap = clean.get(from..t.start()).unwrap_or("");
            crate::source_map::append_blanked(&mut out.text, gap);
            out.text.push_str(t.text(clean));
            from = t.end();
        }
        Some((pos + taken, end))
    }

    /// Whether a [`Kind::Lines`] token's line names a macro.
    fn simple_line_names_macro(&self, line: &str) -> bool {
        let starts = self.st.macro_filter.starts();
        crate::lexer::simple_line_names(line, starts, |name| self.is_macro(name))
    }

    /// How many of `toks` (a line's first on) make whole lines that
    /// [`Preprocessor::copy_plain_lines`] copies, the text from spliced
    /// offset `last_end` on, and whether a comment lies among them.
    fn plain_lines(&self, lx: &Lexed, toks: &[Lite], last_end: usize) -> (usize, bool) {
        let clean = &lx.sp.clean;
        // The first spliced offset that a splice moves, past `last_end`.
        let splice = lx.sp.map.partition_point(|&(c, _)| c <= last_end);
        let limit = lx.sp.map.get(splice).map_or(usize::MAX, |&(c, _)| c);
        let (mut taken, mut comments) = (0, false);
        let mut i = 0;
        // Tokens before it are in a run that names a macro: line by line.
        let mut by_line = 0;
        'lines: while let Some(first) = toks.get(i) {
            if first.bol && first.is_punct(clean, "#") {
                break;
            }
            loop {
                let Some(t) = toks.get(i) else {
                    break 'lines; // the last line, with no newline
                };
                i += 1;
                // (Also for a line not taken: then a slower copy, the same.)
                comments |= t.comment;
                if t.kind == Kind::Lines && i > by_line {
                    // The run of simple lines from here at once, when it
                    // holds no splice and names no macro.
                    let run = simple_run(toks.get(i - 1..).unwrap_or_default());
                    let end = toks.get(i + run - 2).map_or(t.end(), Lite::end);
                    let text = clean.get(t.start()..end).unwrap_or_default();
                    if end <= limit && !self.simple_line_names_macro(text) {
                        i += run - 1;
                        break;
                    }
                    by_line = i - 1 + run;
                }
                match t.kind {
                    Kind::Newline | Kind::Lines if t.end() > limit => break 'lines,
                    Kind::Newline => break,
                    Kind::Lines if self.simple_line_names_macro(t.text(clean)) => break 'lines,
                    Kind::Lines => break,
                    Kind::Ident if self.is_macro(t.text(clean)) => break 'lines,
                    _ => {}
                }
            }
            taken = i;
        }
        (taken, comments)
    }
}

/// How many tokens at the start of `toks` are [`Kind::Lines`] (one at
/// least when called): their lines follow each other, one text.
fn simple_run(toks: &[Lite]) -> usize {
    toks.iter()
        .position(|t| t.kind != Kind::Lines)
        .unwrap_or(toks.len())
        .max(1)
}

/// How many of `toks[..taken]`, whole lines whose text starts at spliced
/// offset `last_end`, make the whole lines that fit in `room` bytes.
fn fitting(toks: &[Lite], mut taken: usize, last_end: usize, room: u64) -> usize {
    let over = |t: &Lite| (t.end() - last_end) as u64 > room;
    while let Some(last) = taken.checked_sub(1).and_then(|i| toks.get(i)) {
        if !over(last) {
            break;
        }
        let line = toks.get(..taken - 1).unwrap_or_default();
        taken = line.iter().rposition(Lite::ends_line).map_or(0, |k| k + 1);
    }
    taken
}
