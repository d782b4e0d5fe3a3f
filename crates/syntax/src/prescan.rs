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

#[cfg(test)]
/// Fails at the first `(`, `[` or `{` that opens more than [`MAX_DEPTH`]
/// levels, or the first opener beyond [`MAX_RECURSION`], skipping comments,
/// string literals and `#` lines as the grammar does.  Unbalanced closers
/// are left to the parser to report.
pub(crate) fn check_nesting(text: &str) -> Result<(), SyntaxError> {
    scan(text.as_bytes(), 0, &mut Scan::new())
}

impl Scan {
    fn new() -> Self {
        Scan {
            levels: vec![Level::default()],
            total: 0,
            ended: false,
        }
    }
}

/// [`check_nesting`] run lazily, declaration by declaration: a parse asks
/// it about each declaration the fast path built ([`Nesting::built`]) and
/// about the rest of the text before it parses anything another way
/// ([`Nesting::rest`]). It fails exactly where the scan of the whole text
/// would, before anything at or after that offset is parsed, and scans
/// only what can fail.
///
/// A declaration the fast path built is balanced, starts with no `else`
/// and ends with `;` or `}`: the scan leaves it at the top level with the
/// statement ended, so its first token resets the counts of what came
/// before (the scan from there is the scan of the whole text from there),
/// and a declaration of at most [`MAX_DEPTH`] bytes, each opener at least
/// one byte, cannot reach either limit. Raw annotation text (`@name(...)`,
/// `@pragma`), which the parser does not read token by token, and longer
/// declarations are scanned.
#[derive(Default)]
pub(crate) struct Nesting {
    /// The whole rest of the text has been scanned.
    done: bool,
}

impl Nesting {
    /// The fast path built the declaration `lo..hi`; `raw` when it holds
    /// raw annotation text.
    pub(crate) fn built(
        &mut self,
        text: &str,
        lo: usize,
        hi: usize,
        raw: bool,
    ) -> Result<(), SyntaxError> {
        let b = text.as_bytes();
        let ends = hi > lo && matches!(b.get(hi - 1), Some(b';' | b'}'));
        if self.done || (ends && !raw && hi - lo <= MAX_DEPTH as usize && !is_else(b, lo)) {
            return Ok(());
        }
        if !ends || is_else(b, lo) {
            return self.rest(text, lo);
        }
        let mut s = Scan::new();
        scan(b.get(..hi).unwrap_or(b), lo, &mut s)?;
        if s.levels.len() != 1 || !s.ended {
            return self.rest(text, lo);
        }
        Ok(())
    }

    /// The text from `lo` on (the start of a declaration, after those
    /// [`Nesting::built`] saw) is about to be parsed another way.
    pub(crate) fn rest(&mut self, text: &str, lo: usize) -> Result<(), SyntaxError> {
        if self.done {
            return Ok(());
        }
        self.done = true;
        // A leading `else` would keep the counts of what came before.
        let from = if is_else(text.as_bytes(), lo) { 0 } else { lo };
        scan(text.as_bytes(), from, &mut Scan::new())
    }
}

/// True when the word `else` starts at `i`.
fn is_else(b: &[u8], i: usize) -> bool {
    b.get(i..word_end(b, i)) == Some(b"else")
}

/// The scan of `b` from `i` on (a token start) with the state `scan`.
fn scan(b: &[u8], mut i: usize, scan: &mut Scan) -> Result<(), SyntaxError> {
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
                    word(b, i, end, scan)?;
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
                _ => i = token(b, i, scan)?,
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

/// The lazy check ([`Nesting`], as `parse` runs it) fails exactly where
/// the scan of the whole text does.
#[cfg(test)]
mod lazy_tests {
    use super::check_nesting;

    /// `src` parses to the error the whole-text scan gives, at its offset.
    fn same_as_whole_scan(src: &str) {
        let whole = check_nesting(&crate::trivia::blank(src)).expect_err("too deep");
        let parsed = crate::parse(src).expect_err("too deep");
        assert_eq!(
            (parsed.offset, parsed.message),
            (whole.offset, whole.message)
        );
    }

    /// `a<b == a<b ...` chained at three precedence levels: 22^3 open `<`
    /// in one statement but an expression tree 66 operators deep, which
    /// the builder accepts.
    fn many_open_angles() -> String {
        let eq = vec!["a < b"; 22].join(" == ");
        let and = vec![eq.as_str(); 22].join(" && ");
        vec![and.as_str(); 22].join(" || ")
    }

    #[test]
    fn long_declarations_are_scanned() {
        let short = "const bit<8> c = 1;\n".repeat(50);
        // A long declaration the fast path builds, scanned, then one
        // too deep.
        let long = format!("const bit<8> s = {};\n", vec!["(1)"; 500].join(" + "));
        assert_eq!(crate::parse_for_test(&long, true).1, 1);
        let deep = format!("{}1{}", "(".repeat(1001), ")".repeat(1001));
        same_as_whole_scan(&format!("{short}{long}const bit<8> z = {deep};\n"));
        same_as_whole_scan(&format!(
            "{short}const bool x = {};\n{short}",
            many_open_angles()
        ));
    }

    #[test]
    fn what_a_pragma_leaves_open_counts_for_what_follows() {
        // 1000 levels, one too many after the `[` the pragma leaves open.
        let deep = format!("{}1{}", "(".repeat(1000), ")".repeat(1000));
        let head = "@pragma p [\nconst bit<8> x = 1;\nconst bit<8> y = 2;\n";
        // The fast path builds all three (the pragma is `x`'s annotation).
        let (built, fast, items) = crate::parse_for_test(head, true);
        assert!(
            built.is_ok() && fast == 2 && items == 2,
            "{fast} of {items}"
        );
        same_as_whole_scan(&format!("{head}const bit<8> z = {deep};\n"));
    }

    #[test]
    fn short_declarations_then_a_deep_one() {
        let short = "header h_t { bit<8> f; }\n".repeat(100);
        let deep = format!("{}1{}", "(".repeat(1001), ")".repeat(1001));
        same_as_whole_scan(&format!("{short}const bit<8> z = {deep};\n{short}"));
    }
}
