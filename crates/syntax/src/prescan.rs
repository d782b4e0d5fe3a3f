//! A linear scan of the raw text that bounds how deep pest can recurse
//! before pest runs, so that hostile nesting fails in microseconds instead
//! of after pest's backtracking over every level, and so that pest runs
//! without its own stack probes (see `lib.rs`): the grammar only recurses
//! through brackets, `?` ... `:`, type argument lists `<` ... `>` and the
//! statements of `if`, `else` and `for`, and each level consumes at least
//! one of those tokens.

use crate::builder::{too_deep_message, MAX_DEPTH, MAX_EXPR_DEPTH};
use crate::error::SyntaxError;

/// Deepest nesting of brackets, open `?`, open `<` and chained `if`,
/// `else` and `for` together that pest is asked to parse.  Above what the
/// builder accepts of each (so no program it accepts is refused), and far
/// below what the parse thread's stack holds ([`crate::PARSE_STACK_BYTES`],
/// tested with hostile input at this depth).
pub(crate) const MAX_RECURSION: u32 = 2 * (MAX_DEPTH + MAX_EXPR_DEPTH);

/// The openers of one bracket level that pest recurses into.
#[derive(Default)]
struct Level {
    /// `?` not yet closed by `:`.
    question: u32,
    /// `<` not yet closed by `>` in this statement.
    angle: u32,
    /// `if`, `else` and `for` whose statement has not ended.
    keyword: u32,
}

impl Level {
    fn total(&self) -> u32 {
        self.question
            .saturating_add(self.angle)
            .saturating_add(self.keyword)
    }
}

/// The scan's state: one [`Level`] per open bracket.
struct Scan {
    levels: Vec<Level>,
    /// Sum of the open brackets and every level's openers.
    total: u32,
    /// A statement ended (`;` or `}`) at the top level: its openers are
    /// dropped at the next token unless that token is `else`.
    ended: bool,
}

impl Scan {
    fn top(&mut self) -> &mut Level {
        if self.levels.is_empty() {
            self.levels.push(Level::default());
        }
        let last = self.levels.len() - 1;
        &mut self.levels[last]
    }

    /// Applies a pending end of statement before token `c` (`else` keeps
    /// the openers).
    fn next_token(&mut self, is_else: bool) {
        if std::mem::take(&mut self.ended) && !is_else {
            let t = std::mem::take(self.top()).total();
            self.total = self.total.saturating_sub(t);
        }
    }

    /// One more opener at offset `at`.
    fn open(&mut self, at: usize, f: impl FnOnce(&mut Level)) -> Result<(), SyntaxError> {
        f(self.top());
        self.total = self.total.saturating_add(1);
        if self.total > MAX_RECURSION {
            return Err(SyntaxError {
                offset: at,
                message: format!(
                    "program nested too deeply (limit {MAX_RECURSION} nested brackets, `?`, `<` and `if`/`else`/`for` statements)"
                ),
            });
        }
        Ok(())
    }

    /// Closes one opener counted in the field `f` chooses, if one is open.
    fn close(&mut self, f: impl FnOnce(&mut Level) -> &mut u32) {
        let n = f(self.top());
        if *n > 0 {
            *n -= 1;
            self.total = self.total.saturating_sub(1);
        }
    }

    /// A closing bracket: drops the level and its openers.
    fn pop(&mut self) {
        if self.levels.len() > 1 {
            if let Some(l) = self.levels.pop() {
                self.total = self.total.saturating_sub(l.total().saturating_add(1));
            }
        }
    }
}

/// Fails at the first `(`, `[` or `{` that opens more than [`MAX_DEPTH`]
/// levels, or the first opener beyond [`MAX_RECURSION`], skipping comments,
/// string literals and `#` lines as the grammar does.  Unbalanced closers
/// are left to the parser to report.
pub(crate) fn check_nesting(text: &str) -> Result<(), SyntaxError> {
    let b = text.as_bytes();
    let mut scan = Scan {
        levels: vec![Level::default()],
        total: 0,
        ended: false,
    };
    let mut i = 0;
    while i < b.len() {
        if !scan.ended {
            // Outside the token after a statement's end, only the bytes
            // `ACTIVE` holds can change anything: skip to the next one.
            match b[i..].iter().position(|&c| ACTIVE[usize::from(c)]) {
                Some(p) => i += p,
                None => break,
            }
            if CLASS[usize::from(b[i])] == WORD && !word_starts(b, i) {
                // Inside a word: its rest is no token of its own.
                i = word_end(b, i);
                continue;
            }
        } else {
            // Blanks and line breaks change nothing: to the next token.
            match b[i..]
                .iter()
                .position(|&c| !matches!(CLASS[usize::from(c)], BLANK | NEWLINE))
            {
                Some(p) => i += p,
                None => break,
            }
        }
        let c = b[i];
        match CLASS[usize::from(c)] {
            BLANK | NEWLINE => i += 1,
            WORD => {
                let end = word_end(b, i);
                // Any word but `if`, `else` and `for` changes nothing
                // unless it follows the end of a statement.
                if scan.ended || (end - i <= 4 && matches!(c, b'i' | b'e' | b'f')) {
                    word(b, i, end, &mut scan)?;
                }
                i = end;
            }
            DIGIT | PLAIN => {
                // No byte of the run opens or closes anything: only the
                // first may end a statement's openers.
                if scan.ended {
                    scan.next_token(false);
                }
                i += 1;
                while b
                    .get(i)
                    .is_some_and(|&c| matches!(CLASS[usize::from(c)], DIGIT | PLAIN))
                {
                    i += 1;
                }
            }
            _ => match c {
                b'#' if line_starts(b, i) => i = skip_line(b, i),
                b'/' if b.get(i + 1) == Some(&b'/') => i = skip_line(b, i),
                b'/' if b.get(i + 1) == Some(&b'*') => {
                    i = match find(b, i + 2, b"*/") {
                        Some(end) => end + 2,
                        None => b.len(),
                    };
                }
                _ => i = token(b, i, &mut scan)?,
            },
        }
    }
    Ok(())
}

/// The end of the run of word bytes and digits from `i` on.
fn word_end(b: &[u8], i: usize) -> usize {
    let rest = b.get(i..).unwrap_or_default();
    i + rest
        .iter()
        .position(|&c| !WORDISH[usize::from(c)])
        .unwrap_or(rest.len())
}

/// The bytes of [`CLASS`] [`WORD`] or [`DIGIT`].
const WORDISH: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = matches!(CLASS[c], WORD | DIGIT);
        c += 1;
    }
    t
};

/// True when the word byte at `i` starts a word as the scan reads them
/// (`word`): the byte before it ends no word. A word runs on over digits,
/// so digits before `i` belong to a word exactly when a word byte comes
/// before them (`x1if` is one word, `8if` is `8` then `if`).
fn word_starts(b: &[u8], i: usize) -> bool {
    let mut j = i;
    while j > 0 {
        match CLASS[usize::from(b[j - 1])] {
            DIGIT => j -= 1,
            WORD => return false,
            _ => return true,
        }
    }
    true
}

/// True when only blanks come between the start of `i`'s line and `i`
/// (so a `#` there starts a directive line, skipped whole).
fn line_starts(b: &[u8], i: usize) -> bool {
    let mut j = i;
    while j > 0 && CLASS[usize::from(b[j - 1])] == BLANK {
        j -= 1;
    }
    j == 0 || b[j - 1] == b'\n'
}

/// The bytes that may change the scan's state when no statement has just
/// ended: those [`CLASS`] gives 0 but line breaks (see [`line_starts`]),
/// and the first letters of `if`, `else` and `for`. Any other word, and
/// any other run of digits, operators and blanks, changes nothing.
const ACTIVE: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = CLASS[c] == 0;
        c += 1;
    }
    t[b'i' as usize] = true;
    t[b'e' as usize] = true;
    t[b'f' as usize] = true;
    t
};

/// [`CLASS`] of the blanks that neither end a line nor start a token.
const BLANK: u8 = 1;
/// [`CLASS`] of the line break, a blank that ends a line.
const NEWLINE: u8 = 5;
/// [`CLASS`] of the bytes that start a word (letters and `_`).
const WORD: u8 = 2;
/// [`CLASS`] of the digits: [`PLAIN`] where a token starts, part of a word
/// after its first byte.
const DIGIT: u8 = 3;
/// [`CLASS`] of the other bytes that are a token of no effect on nesting
/// (most operators, non-ASCII bytes). Any byte of class 0 is looked at
/// one by one.
const PLAIN: u8 = 4;

/// How the scan treats each byte: [`BLANK`], [`WORD`], [`DIGIT`],
/// [`PLAIN`], [`NEWLINE`], or 0.
const CLASS: [u8; 256] = {
    let mut t = [PLAIN; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        if b.is_ascii_alphabetic() || b == b'_' {
            t[c] = WORD;
        } else if b.is_ascii_digit() {
            t[c] = DIGIT;
        }
        c += 1;
    }
    let blanks = b" \t\r\x0b\x0c";
    let mut k = 0;
    while k < blanks.len() {
        t[blanks[k] as usize] = BLANK;
        k += 1;
    }
    t[b'\n' as usize] = NEWLINE;
    let special = b"#/\"([{)]};?:<>";
    k = 0;
    while k < special.len() {
        t[special[k] as usize] = 0;
        k += 1;
    }
    t
};

/// Scans the word (identifier or keyword) `i..end`.
fn word(b: &[u8], i: usize, end: usize, scan: &mut Scan) -> Result<(), SyntaxError> {
    let word = b.get(i..end).unwrap_or_default();
    let keyword = matches!(word, b"if" | b"else" | b"for");
    // Any other word changes nothing unless it follows the end of a
    // statement.
    if keyword || scan.ended {
        scan.next_token(word == b"else");
    }
    if keyword {
        scan.open(i, |l| l.keyword += 1)?;
    }
    Ok(())
}

/// Scans the token at `i` (not trivia, a word, digit or blank), returning
/// the offset after it.
fn token(b: &[u8], i: usize, scan: &mut Scan) -> Result<usize, SyntaxError> {
    let c = b[i];
    scan.next_token(false);
    match c {
        b'"' => {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            return Ok(j + 1);
        }
        b'(' | b'[' | b'{' => {
            if scan.levels.len() > MAX_DEPTH as usize {
                return Err(SyntaxError {
                    offset: i,
                    message: too_deep_message(),
                });
            }
            scan.open(i, |_| ())?;
            scan.levels.push(Level::default());
        }
        b')' | b']' => scan.pop(),
        b'}' => {
            scan.pop();
            scan.ended = true;
        }
        b';' => scan.ended = true,
        b'?' => scan.open(i, |l| l.question += 1)?,
        b':' => scan.close(|l| &mut l.question),
        b'<' => scan.open(i, |l| l.angle += 1)?,
        b'>' => scan.close(|l| &mut l.angle),
        _ => {}
    }
    Ok(i + 1)
}

/// The offset of the `\n` ending the line that contains `i` (or the end).
pub(crate) fn skip_line(b: &[u8], i: usize) -> usize {
    b[i..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |p| i + p)
}

/// The first offset at or after `from` where `pat` occurs.
pub(crate) fn find(b: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
    b.get(from..)?
        .windows(pat.len())
        .position(|w| w == pat)
        .map(|p| from + p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_brackets_outside_comments_and_strings() {
        let deep = "(".repeat(MAX_DEPTH as usize + 1);
        let e = check_nesting(&deep).expect_err("too deep");
        assert_eq!(e.offset, MAX_DEPTH as usize);
        assert!(e.message.contains("limit 1000"), "{}", e.message);
        assert!(check_nesting(&"(".repeat(MAX_DEPTH as usize)).is_ok());
        for wrapped in [
            format!("// {deep}\n"),
            format!("/* {deep} */"),
            format!("\"{deep}\""),
            format!("# 1 \"{deep}\"\n"),
        ] {
            assert!(check_nesting(&wrapped).is_ok(), "{wrapped}");
        }
        // Closers bring the depth back down.
        assert!(check_nesting(&"()".repeat(5000)).is_ok());
    }

    /// `prefix`, which opens `per` levels, is refused repeated just past
    /// the limit and accepted just below it.
    fn limit_at(prefix: &str, per: usize) {
        let n = MAX_RECURSION as usize / per;
        assert!(check_nesting(&prefix.repeat(n - 1)).is_ok(), "{prefix}");
        let e = check_nesting(&prefix.repeat(n + 1)).expect_err(prefix);
        assert!(e.offset >= (n - 1) * prefix.len(), "{prefix}: {}", e.offset);
        assert!(e.message.contains("nested too deeply"), "{}", e.message);
    }

    /// Chains that nest without brackets are bounded too, so that pest
    /// (built without stack probes) cannot recurse past the parse stack.
    #[test]
    fn counts_openers_that_nest_without_brackets() {
        limit_at("a ? ", 1);
        limit_at("tuple<", 1);
        limit_at("if (c) ", 1);
        limit_at("else if (c) x; ", 2);
        limit_at("for (x in y) ", 1);
    }

    /// What ends a statement or closes an opener brings the count down:
    /// the shapes of real programs are never refused however long.
    #[test]
    fn statements_in_a_row_do_not_add_up() {
        let n = 2 * MAX_RECURSION as usize;
        for one in [
            "if (c) { x = 1; } else { x = 2; }\n",
            "if (c) x = 1; else x = 2;\n",
            "x = a < b ? c : d;\n",
            "bit<8> x = (bit<8>)y;\n",
            "tuple<bit<8>, bit<16>> t;\n",
            "h.s[1:0] = a ? b : c;\n",
        ] {
            assert!(check_nesting(&one.repeat(n)).is_ok(), "{one}");
        }
    }

    /// A word only opens when it is `if`, `else` or `for` as a whole; a
    /// digit before a word ends a token (`8if` is `8` then `if`).
    #[test]
    fn only_whole_keywords_open() {
        let n = 2 * MAX_RECURSION as usize;
        for one in ["iff (c) ", "elsewhere ", "for_x ", "x1if ", "if_ "] {
            assert!(check_nesting(&one.repeat(n)).is_ok(), "{one}");
        }
        limit_at("8if ", 1);
    }
}
