//! Line splicing (backslash-newline removal) and splitting text into preprocessing tokens.

use std::rc::Rc;

use crate::macros::NameStarts;

/// The class of a preprocessing token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Identifier or keyword.
    Ident,
    /// A pp-number (`12`, `0xff`, `8w3`).
    Number,
    /// A string literal including its quotes.
    Str,
    /// An operator or punctuator.
    Punct,
    /// Any other single character (non-ASCII text).
    Other,
    /// End of a logical line.
    Newline,
    /// The empty result of an empty macro argument next to `##`; never reaches the output.
    Placemarker,
    /// A whole line, its newline included, that [`lex_lite`] did not split
    /// ([`simple_line_end`]): no directive, comment, string, splice or
    /// non-ASCII byte, so its tokens are its identifiers, numbers and
    /// punctuators. Only in a file's [`Lite`] tokens; the engine copies it
    /// as is, or lexes it token by token when a macro may apply to it
    /// ([`lex_fine_from`]).
    Lines,
}

/// The set of macro names a token may no longer expand ("painted blue").
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct HideSet(Option<Rc<Vec<Rc<str>>>>);

impl HideSet {
    /// Whether `name` is hidden.
    pub fn contains(&self, name: &str) -> bool {
        self.0
            .as_ref()
            .is_some_and(|v| v.iter().any(|n| &**n == name))
    }

    /// This set plus `name`.
    pub fn with(&self, name: &Rc<str>) -> HideSet {
        if self.contains(name) {
            return self.clone();
        }
        let mut v: Vec<Rc<str>> = self.0.as_deref().cloned().unwrap_or_default();
        v.push(name.clone());
        HideSet(Some(Rc::new(v)))
    }

    /// The union of both sets.
    pub fn union(&self, other: &HideSet) -> HideSet {
        match (&self.0, &other.0) {
            (None, _) => other.clone(),
            (_, None) => self.clone(),
            (Some(a), Some(b)) => {
                if Rc::ptr_eq(a, b) || b.iter().all(|n| self.contains(n)) {
                    return self.clone();
                }
                if a.iter().all(|n| other.contains(n)) {
                    return other.clone();
                }
                let mut out = self.clone();
                for n in b.iter() {
                    out = out.with(n);
                }
                out
            }
        }
    }

    /// The names present in both sets.
    pub fn intersect(&self, other: &HideSet) -> HideSet {
        match (&self.0, &other.0) {
            (Some(a), Some(_)) => {
                let v: Vec<Rc<str>> = a.iter().filter(|n| other.contains(n)).cloned().collect();
                if v.is_empty() {
                    HideSet(None)
                } else {
                    HideSet(Some(Rc::new(v)))
                }
            }
            _ => HideSet(None),
        }
    }
}

/// A preprocessing token with its origin.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Tok {
    pub kind: Kind,
    pub text: Rc<str>,
    /// Whitespace (or a comment) came before it.
    pub space: bool,
    /// First token on its line in the file (only file tokens).
    pub bol: bool,
    /// A file token whose leading whitespace is already in the output; emitted verbatim.
    pub direct: bool,
    /// Made by the preprocessor (macro body, paste, stringify): its text is not at `src`.
    pub synth: bool,
    /// File index of the origin.
    pub file: u32,
    /// Original byte offset of the origin.
    pub src: usize,
    /// Start in the spliced text of the file (file tokens only).
    pub start: usize,
    pub hs: HideSet,
}

impl Tok {
    /// Whether this is the punctuator `p`.
    pub fn is_punct(&self, p: &str) -> bool {
        self.kind == Kind::Punct && &*self.text == p
    }

    /// Whether this is the identifier `s`.
    pub fn is_ident(&self, s: &str) -> bool {
        self.kind == Kind::Ident && &*self.text == s
    }

    /// A token made by the preprocessor, located at `at`.
    pub fn synth(kind: Kind, text: &str, at: &Tok) -> Tok {
        Tok {
            kind,
            text: Rc::from(text),
            space: false,
            bol: false,
            direct: false,
            synth: true,
            file: at.file,
            src: at.src,
            start: at.start,
            hs: HideSet::default(),
        }
    }
}

/// A token of a file as [`crate::engine::Lexed`] keeps it: 12 bytes, where a [`Tok`] takes
/// about 100 (its own copy of the text, its origin and hide set). A file of one-byte tokens
/// (`;;;;`) would otherwise cost a hundred times its size while it is preprocessed; the
/// [`Tok`] is rebuilt from the file's text when the token is read ([`Lite::tok`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lite {
    /// Start in the spliced text of the file.
    pub start: u32,
    /// End in the spliced text of the file.
    pub end: u32,
    pub kind: Kind,
    /// Whitespace (or a comment) came before it.
    pub space: bool,
    /// First token on its line.
    pub bol: bool,
    /// A comment came before it (since the token before): its gap is not
    /// plain whitespace.
    pub comment: bool,
}

impl Lite {
    pub fn start(&self) -> usize {
        self.start as usize
    }

    pub fn end(&self) -> usize {
        self.end as usize
    }

    /// Its text in `clean`, the spliced text it was lexed from.
    pub fn text<'a>(&self, clean: &'a str) -> &'a str {
        clean.get(self.start()..self.end()).unwrap_or("")
    }

    /// Whether it ends a line: a newline token, or a line [`Kind::Lines`]
    /// holds whole.
    #[inline]
    pub fn ends_line(&self) -> bool {
        matches!(self.kind, Kind::Newline | Kind::Lines)
    }

    /// Whether this is the punctuator `p` of `clean`.
    pub fn is_punct(&self, clean: &str, p: &str) -> bool {
        self.kind == Kind::Punct && self.text(clean) == p
    }

    /// The full token, from file `file` spliced as `sp`.
    pub fn tok(&self, sp: &Spliced, file: u32) -> Tok {
        Tok {
            kind: self.kind,
            text: Rc::from(self.text(&sp.clean)),
            space: self.space,
            bol: self.bol,
            direct: false,
            synth: false,
            file,
            src: sp.orig(self.start()),
            start: self.start(),
            hs: HideSet::default(),
        }
    }
}

/// Largest spliced text [`lex_lite`] accepts: token offsets are `u32`.
pub(crate) const MAX_LEX_BYTES: usize = u32::MAX as usize;

/// Text with backslash-newlines removed plus the information to map offsets back.
pub(crate) struct Spliced {
    pub clean: String,
    /// `(clean offset, original offset)` at each point right after a removed splice.
    pub map: Vec<(usize, usize)>,
}

impl Spliced {
    /// Original offset of a spliced-text offset.
    pub fn orig(&self, c: usize) -> usize {
        let k = self.map.partition_point(|&(cl, _)| cl <= c);
        match k.checked_sub(1).and_then(|i| self.map.get(i)) {
            Some(&(cl, or)) => or + (c - cl),
            None => c,
        }
    }
}

/// False when `text` has no carriage return and no backslash (most
/// files): one pass, a word at a time, for what two searches would ask.
pub(crate) fn may_have_cr_or_backslash(text: &str) -> bool {
    let (cr, bs) = (ONES * u64::from(b'\r'), ONES * u64::from(b'\\'));
    let word_hits = |w: u64| zero_bytes(w ^ cr) | zero_bytes(w ^ bs);
    first_hit(text.as_bytes(), word_hits, |c| c == b'\r' || c == b'\\').is_some()
}

/// Length of the backslash-newline starting at `i`, or 0: a backslash, any spaces and tabs (as
/// GCC's and Clang's preprocessors allow, with a warning: an editing slip there still continues
/// the line), then LF or CR-LF.
fn splice_len(b: &[u8], i: usize) -> usize {
    if b.get(i) != Some(&b'\\') {
        return 0;
    }
    let mut j = i + 1;
    while matches!(b.get(j), Some(b' ' | b'\t' | b'\x0b' | b'\x0c')) {
        j += 1;
    }
    match (b.get(j), b.get(j + 1)) {
        (Some(b'\n'), _) => j + 1 - i,
        (Some(b'\r'), Some(b'\n')) => j + 2 - i,
        _ => 0,
    }
}

/// Removes every backslash-newline (also backslash-CR-LF, and with blanks before the newline).
pub(crate) fn splice(text: &str) -> Spliced {
    if !text.contains('\\') {
        return Spliced {
            clean: text.to_owned(),
            map: Vec::new(),
        };
    }
    let b = text.as_bytes();
    let mut clean = String::with_capacity(text.len());
    let mut map = Vec::new();
    let mut seg = 0;
    let mut i = 0;
    // From backslash to backslash (a memchr), not byte by byte.
    while let Some(k) = text.get(i..).and_then(|r| r.find('\\')) {
        i += k;
        let skip = splice_len(b, i);
        if skip > 0 {
            clean.push_str(&text[seg..i]);
            i += skip;
            seg = i;
            map.push((clean.len(), i));
            continue;
        }
        i += 1;
    }
    clean.push_str(&text[seg..]);
    Spliced { clean, map }
}

/// Length of the punctuator that starts with `c`, `d` and `e` the bytes
/// after it: `...`, `..`, `##`, `<<`, `>>`, `<=`, `>=`, `==`, `!=`, `&&`,
/// `||`, or any one byte.
#[inline]
fn punct_len(c: u8, d: Option<u8>, e: Option<u8>) -> usize {
    let Some(d) = d else { return 1 };
    match (c, d) {
        (b'.', b'.') if e == Some(b'.') => 3,
        (b'.', b'.') | (b'#', b'#') | (b'<', b'<') | (b'>', b'>') | (b'&', b'&') | (b'|', b'|') => {
            2
        }
        (b'<' | b'>' | b'=' | b'!', b'=') => 2,
        _ => 1,
    }
}

/// The blanks between tokens on a line (not the newline).
const fn is_blank(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | 0x0b | 0x0c)
}

/// The bytes of an identifier after its first (letters, digits, `_`).
const IDENT_CHAR: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || c == b'_';
        b += 1;
    }
    t
};

/// True for a byte an identifier continues with (letters, digits, `_`):
/// also every byte of a number. Shared with the front end's word scans.
#[inline]
pub fn is_ident_char(c: u8) -> bool {
    IDENT_CHAR[c as usize]
}

/// Splits spliced text into tokens (with `Newline` tokens); comments become whitespace.
/// Fails with the spliced offset of a `/*` that is never closed.
pub(crate) fn lex(sp: &Spliced, file: u32) -> Result<Vec<Tok>, usize> {
    Ok(lex_at(&sp.clean, |i| i as u32, false)?
        .iter()
        .map(|l| l.tok(sp, file))
        .collect())
}

/// [`lex`] into [`Lite`] tokens of `clean`, which must not be longer than
/// [`MAX_LEX_BYTES`] (the end of a longer text is one token): each line
/// [`simple_line_end`] accepts is one [`Kind::Lines`] token.
pub(crate) fn lex_lite(clean: &str) -> Result<Vec<Lite>, usize> {
    #[cfg(test)]
    if FINE_ONLY.get() {
        return lex_at(clean, |i| i as u32, false);
    }
    if clean.len() <= MAX_LEX_BYTES {
        lex_at(clean, |i| i as u32, true) // every offset fits
    } else {
        lex_at(clean, |i| u32::try_from(i).unwrap_or(u32::MAX), true)
    }
}

#[cfg(test)]
thread_local! {
    /// Tests: [`lex_lite`] makes no [`Kind::Lines`] token (as before
    /// there was one), to compare the runs with and without.
    pub(crate) static FINE_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The tokens of `clean` from offset `from`, a line's start, on, each its
/// own (no [`Kind::Lines`]): what [`lex_lite`] gives for those lines
/// with every [`Kind::Lines`] token split. `clean` must not be longer than
/// [`MAX_LEX_BYTES`]; `Err` is where an unterminated comment starts.
pub(crate) fn lex_fine_from(clean: &str, from: usize) -> Result<Vec<Lite>, usize> {
    let rest = clean.get(from..).unwrap_or_default();
    let at = |i: usize| u32::try_from(from + i).unwrap_or(u32::MAX);
    lex_at(rest, at, false).map_err(|i| from + i)
}

/// [`lex_lite`], offsets made `u32` by `at`; `lines`: [`Kind::Lines`]
/// tokens for the simple lines.
#[inline(always)]
fn lex_at(clean: &str, at: impl Fn(usize) -> u32, lines: bool) -> Result<Vec<Lite>, usize> {
    let b = clean.as_bytes();
    // About one token per 6 bytes in real programs: most files need no growth.
    let mut toks = Vec::with_capacity(clean.len() / if lines { 24 } else { 6 } + 16);
    let mut i = 0;
    let mut space = false;
    let mut comment = false;
    let mut bol = true;
    while let Some(&c) = b.get(i) {
        let start = i;
        // At a line's start (nothing read on it yet): a simple line is one token.
        if lines && bol && !space && !comment {
            if let Some(end) = simple_line_end(b, i) {
                i = end;
                toks.push(Lite {
                    start: at(start),
                    end: at(i),
                    kind: Kind::Lines,
                    space: false,
                    bol: true,
                    comment: false,
                });
                continue;
            }
        }
        let kind = match LEX_CLASS[usize::from(c)] {
            BLANK => {
                // The whole run of blanks (indentation) at once.
                i = run_end(b, i + 1, BLANK);
                space = true;
                continue;
            }
            NEWLINE => {
                i += 1;
                Kind::Newline
            }
            IDENT => {
                i = ident_end(b, i + 1);
                Kind::Ident
            }
            SLASH if matches!(b.get(i + 1), Some(b'/' | b'*')) => {
                i = comment_end(clean, i)?;
                space = true;
                comment = true;
                continue;
            }
            DIGIT => {
                i = number_end(b, i + 1);
                Kind::Number
            }
            DOT if b.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                i = number_end(b, i + 1);
                Kind::Number
            }
            QUOTE => {
                i = string_end(clean, i + 1);
                Kind::Str
            }
            OTHER => {
                i += clean[i..].chars().next().map_or(1, char::len_utf8);
                Kind::Other
            }
            _ => {
                i += punct_len(c, b.get(i + 1).copied(), b.get(i + 2).copied());
                Kind::Punct
            }
        };
        toks.push(Lite {
            start: at(start),
            end: at(i),
            kind,
            space,
            bol,
            comment,
        });
        bol = kind == Kind::Newline;
        space = false;
        comment = false;
    }
    Ok(toks)
}

/// Whether a byte may be on a line [`simple_line_end`] accepts: ASCII
/// but not a line feed, `#`, `/`, `"` or `\\`.
const SIMPLE: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 128 {
        t[c] = !matches!(c as u8, b'\n' | b'#' | b'/' | b'"' | b'\\');
        c += 1;
    }
    t
};

/// The end (past its newline) of the line starting at `i` when it is
/// simple: it has a byte that is no blank, and only [`SIMPLE`] bytes
/// before its newline; then no directive, comment, string, splice or
/// non-ASCII character is on it, and its tokens are its identifiers,
/// pp-numbers and punctuators, as a lexing of it alone splits them.
#[inline]
fn simple_line_end(b: &[u8], i: usize) -> Option<usize> {
    let rest = b.get(i..)?;
    let lead = rest.iter().position(|&c| !is_blank(c))?;
    if rest.get(lead) == Some(&b'\n') {
        return None;
    }
    let k = lead + first_not_simple(rest.get(lead..)?)?;
    (rest.get(k) == Some(&b'\n')).then_some(i + k + 1)
}

/// Eight bytes of ones: `ONES * c` is the word of 8 bytes `c`.
const ONES: u64 = u64::from_le_bytes([1; 8]);
/// The high bit of each byte of a word.
const HIGH: u64 = ONES << 7;

/// A word whose high bit is set in the first zero byte of `x`, and in no
/// byte before it (later ones may be, by the borrow).
#[inline]
fn zero_bytes(x: u64) -> u64 {
    x.wrapping_sub(ONES) & !x
}

/// The index of the first byte of `b` that `word_hits` marks (in the
/// high bit of that byte of a little-endian word of 8; exact for the first
/// marked byte) or, in the last bytes short of a word, for which `is_hit`
/// holds: a word of 8 bytes at a time.
#[inline]
fn first_hit(
    b: &[u8],
    word_hits: impl Fn(u64) -> u64,
    is_hit: impl Fn(u8) -> bool,
) -> Option<usize> {
    let mut chunks = b.chunks_exact(8);
    let mut base = 0;
    for chunk in chunks.by_ref() {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let hits = word_hits(u64::from_le_bytes(word)) & HIGH;
        if hits != 0 {
            return Some(base + (hits.trailing_zeros() / 8) as usize);
        }
        base += 8;
    }
    let rest = chunks.remainder();
    rest.iter().position(|&c| is_hit(c)).map(|k| base + k)
}

/// The index of the first byte of `b` that is not [`SIMPLE`], if any.
#[inline]
fn first_not_simple(b: &[u8]) -> Option<usize> {
    let [nl, hash, slash, quote, bs] =
        [b'\n', b'#', b'/', b'"', b'\\'].map(|c| ONES * u64::from(c));
    // A byte of the high bit set is not ASCII, so not simple.
    let word_hits = |w: u64| {
        w | zero_bytes(w ^ nl)
            | zero_bytes(w ^ hash)
            | zero_bytes(w ^ slash)
            | zero_bytes(w ^ quote)
            | zero_bytes(w ^ bs)
    };
    first_hit(b, word_hits, |c| !SIMPLE[usize::from(c)])
}

/// Whether a line [`simple_line_end`] accepted has an identifier for which
/// `is_macro` holds, `starts` holding for the first byte of every name
/// `is_macro` may accept. It asks about every identifier the lexer finds
/// on the line that starts with such a byte (a run of identifier bytes
/// after a byte that is none), and may ask about a few more (`e` of `1.e`,
/// a number's end): then `true` only costs a lexing of the line.
pub(crate) fn simple_line_names(
    line: &str,
    starts: &NameStarts,
    is_macro: impl Fn(&str) -> bool,
) -> bool {
    let b = line.as_bytes();
    let mut i = 0;
    while let Some(rest) = b.get(i..) {
        let found = match starts.few.as_slice() {
            [] => rest.iter().position(|&c| starts.table[usize::from(c)]),
            few => first_of(rest, few),
        };
        let Some(k) = found else {
            return false;
        };
        let at = i + k;
        if at > 0 && b.get(at - 1).is_some_and(|&c| is_ident_char(c)) {
            i = at + 1; // inside a word
            continue;
        }
        let end = ident_end(b, at + 1);
        if is_macro(line.get(at..end).unwrap_or_default()) {
            return true;
        }
        i = end;
    }
    false
}

/// The index of the first byte of `b` that is one of `few`.
fn first_of(b: &[u8], few: &[u8]) -> Option<usize> {
    let mut wanted = [0u64; NameStarts::FEW];
    for (w, &c) in wanted.iter_mut().zip(few) {
        *w = ONES * u64::from(c);
    }
    let n = few.len().min(NameStarts::FEW);
    let word_hits = |w: u64| wanted[..n].iter().fold(0, |h, &v| h | zero_bytes(w ^ v));
    first_hit(b, word_hits, |c| few.contains(&c))
}

/// [`LEX_CLASS`] of the blanks between tokens on a line.
const BLANK: u8 = 1;
/// [`LEX_CLASS`] of `\n`.
const NEWLINE: u8 = 2;
/// [`LEX_CLASS`] of the bytes that start an identifier (letters and `_`).
const IDENT: u8 = 3;
/// [`LEX_CLASS`] of the digits.
const DIGIT: u8 = 4;
/// [`LEX_CLASS`] of `.` (a number when a digit follows).
const DOT: u8 = 5;
/// [`LEX_CLASS`] of `/` (a comment when `/` or `*` follows).
const SLASH: u8 = 6;
/// [`LEX_CLASS`] of `"`.
const QUOTE: u8 = 7;
/// [`LEX_CLASS`] of the bytes of non-ASCII characters.
const OTHER: u8 = 8;

/// How [`lex_lite`] reads a token's first byte: one of the classes above,
/// or 0 for the other ASCII bytes (punctuators).
const LEX_CLASS: [u8; 256] = {
    let mut t = [0; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = if is_blank(b) {
            BLANK
        } else if b.is_ascii_alphabetic() || b == b'_' {
            IDENT
        } else if b.is_ascii_digit() {
            DIGIT
        } else if !b.is_ascii() {
            OTHER
        } else {
            match b {
                b'\n' => NEWLINE,
                b'.' => DOT,
                b'/' => SLASH,
                b'"' => QUOTE,
                _ => 0,
            }
        };
        c += 1;
    }
    t
};

/// The end of the run of bytes of class `class` from `i` on.
#[inline]
fn run_end(b: &[u8], i: usize, class: u8) -> usize {
    let rest = b.get(i..).unwrap_or_default();
    // An iterator's scan: no bounds check per byte.
    i + rest
        .iter()
        .position(|&c| LEX_CLASS[usize::from(c)] != class)
        .unwrap_or(rest.len())
}

/// The end of the identifier whose bytes continue at `i`.
#[inline]
fn ident_end(b: &[u8], i: usize) -> usize {
    let rest = b.get(i..).unwrap_or_default();
    i + rest
        .iter()
        .position(|&c| !is_ident_char(c))
        .unwrap_or(rest.len())
}

/// The end of the pp-number whose bytes continue at `i`: identifier bytes
/// and `.` not followed by another `.`.
fn number_end(b: &[u8], mut i: usize) -> usize {
    loop {
        match b.get(i) {
            Some(&ch) if is_ident_char(ch) => i += 1,
            Some(b'.') if b.get(i + 1) != Some(&b'.') => i += 1,
            _ => return i,
        }
    }
}

/// The end of the comment starting at `i` (`//` to the line's end, or
/// `/*` past its `*/`); `Err(i)` when a `/*` is never closed.
pub(crate) fn comment_end(clean: &str, i: usize) -> Result<usize, usize> {
    if clean.as_bytes().get(i + 1) == Some(&b'/') {
        return Ok(clean[i..].find('\n').map_or(clean.len(), |p| i + p));
    }
    match clean[i + 2..].find("*/") {
        Some(p) => Ok(i + 2 + p + 2),
        None => Err(i),
    }
}

/// The end of the string literal whose text continues at `i` (after its
/// opening quote): past its closing quote, or at the line's end or the
/// text's end when it is not closed there (a `\` escapes any character
/// but a line break).
fn string_end(clean: &str, mut i: usize) -> usize {
    let b = clean.as_bytes();
    loop {
        match b.get(i) {
            None | Some(b'\n') => return i,
            Some(b'"') => return i + 1,
            Some(b'\\') => {
                i += 1;
                if let Some(ch) = clean[i..].chars().next() {
                    if ch != '\n' {
                        i += ch.len_utf8();
                    }
                }
            }
            Some(_) => i += 1,
        }
    }
}

/// The offsets at which the lines of `clean` start (as
/// [`crate::source_map::line_starts`] gives them), read off its tokens
/// `toks`: after each newline token, and after each newline of a comment
/// (only gaps before a token marked [`Lite::comment`], and the gap after
/// the last token, can hold one).
pub(crate) fn line_starts_of(toks: &[Lite], clean: &str) -> Vec<usize> {
    let b = clean.as_bytes();
    let in_gap = |from: usize, to: usize| {
        let gap = b.get(from..to).unwrap_or_default().iter().enumerate();
        gap.filter(|p| *p.1 == b'\n').map(move |p| from + p.0 + 1)
    };
    let mut v = Vec::with_capacity(clean.len() / 30 + 2);
    v.push(0);
    let mut from = 0;
    for t in toks {
        if t.comment {
            v.extend(in_gap(from, t.start()));
        }
        if t.ends_line() {
            v.push(t.end());
        }
        from = t.end();
    }
    v.extend(in_gap(from, b.len()));
    v
}

/// Lexes a snippet (pasted text, command-line values) with no file origin; no newlines expected.
pub(crate) fn lex_snippet(text: &str, at: &Tok) -> Vec<Tok> {
    let sp = Spliced {
        clean: text.to_owned(),
        map: Vec::new(),
    };
    match lex(&sp, at.file) {
        Ok(toks) => toks
            .into_iter()
            .filter(|t| t.kind != Kind::Newline)
            .map(|t| {
                let mut s = Tok::synth(t.kind, &t.text, at);
                s.space = t.space;
                s
            })
            .collect(),
        Err(_) => vec![Tok::synth(Kind::Other, text, at)],
    }
}

/// Detects the include-guard idiom: the first directive is `#ifndef X` (or `#if !defined X`),
/// its matching `#endif` is the last thing in the file and there is no `#else`/`#elif` at the
/// outer level. Returns `X`.
/// `toks` are the tokens of `clean`.
pub(crate) fn detect_guard(toks: &[Lite], clean: &str) -> Option<Rc<str>> {
    let punct = |t: &Lite, p: &str| t.is_punct(clean, p);
    let ident = |t: &Lite, s: &str| t.kind == Kind::Ident && t.text(clean) == s;
    // Each line's tokens, its newline left out (a [`Kind::Lines`] token is
    // a line of its own, never a directive).
    let mut lines = toks
        .split_inclusive(Lite::ends_line)
        .map(|l| match l.split_last() {
            Some((t, rest)) if t.kind == Kind::Newline => rest,
            _ => l,
        })
        .filter(|l| !l.is_empty());
    let first = lines.next()?;
    let name = match first {
        [h, d, x] if punct(h, "#") && ident(d, "ifndef") && x.kind == Kind::Ident => x,
        [h, d, n, def, x]
            if punct(h, "#")
                && ident(d, "if")
                && punct(n, "!")
                && ident(def, "defined")
                && x.kind == Kind::Ident =>
        {
            x
        }
        [h, d, n, def, l, x, r]
            if punct(h, "#")
                && ident(d, "if")
                && punct(n, "!")
                && ident(def, "defined")
                && punct(l, "(")
                && x.kind == Kind::Ident
                && punct(r, ")") =>
        {
            x
        }
        _ => return None,
    };
    let mut depth = 1usize;
    for line in lines {
        if depth == 0 {
            return None; // something after the closing #endif
        }
        let (Some(h), Some(d)) = (line.first(), line.get(1)) else {
            continue;
        };
        if !(punct(h, "#") && h.bol) {
            continue;
        }
        match d.text(clean) {
            "if" | "ifdef" | "ifndef" => depth += 1,
            "endif" => depth -= 1,
            "else" | "elif" if depth == 1 => return None,
            _ => {}
        }
    }
    (depth == 0).then(|| Rc::from(name.text(clean)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-at-a-time search finds the first of a few bytes, at any
    /// alignment.
    #[test]
    fn first_of_matches_a_byte_scan() {
        let text = b"ab_cd V1 x__y Q_ zzzzzzzzzzzz_V end";
        for few in [&b"_"[..], b"V_", b"QVx_", b"#"] {
            for from in 0..text.len() {
                let b = &text[from..];
                let want = b.iter().position(|c| few.contains(c));
                assert_eq!(first_of(b, few), want, "{few:?} from {from}");
            }
        }
    }

    /// The word-at-a-time scan stops where a byte-by-byte one does, at any
    /// alignment and for every byte value.
    #[test]
    fn first_not_simple_matches_a_byte_scan() {
        let base: Vec<u8> = b"abc def(1, 2) + x_y;\t<<= 0x1F".to_vec();
        for c in 0..=255u8 {
            for at in 0..=base.len() {
                let mut b = base.clone();
                b.insert(at, c);
                let want = b.iter().position(|&x| !SIMPLE[usize::from(x)]);
                assert_eq!(first_not_simple(&b), want, "{c} at {at}");
            }
        }
    }

    fn texts(src: &str) -> Vec<String> {
        lex(&splice(src), 0)
            .unwrap_or_default()
            .iter()
            .map(|t| t.text.to_string())
            .collect()
    }

    /// The word-at-a-time test sees a carriage return or backslash at any
    /// position, and says no for text without one.
    #[test]
    fn may_have_cr_or_backslash_at_any_position() {
        let plain = "abcdefghij\tklmnopqrstuvwxyz\u{e9}\n0123";
        assert!(!may_have_cr_or_backslash(plain));
        for at in 0..=plain.len() {
            if !plain.is_char_boundary(at) {
                continue;
            }
            for c in ["\r", "\\"] {
                let t = format!("{}{c}{}", &plain[..at], &plain[at..]);
                assert!(may_have_cr_or_backslash(&t), "{t:?}");
            }
        }
    }

    /// Line starts read off the tokens are those of the text.
    #[test]
    fn line_starts_of_tokens_match_the_text() {
        for text in [
            "",
            "\n",
            "a b\n\n  c /* x\ny */ d // e\n\"s\\\"\n\" f\n",
            "x /* one\n two\n */\n/* tail\n*/",
            "#define A 1 // c\n  A\t;\r\n\u{e9}\n// last\n",
            "a\n/* only */",
        ] {
            let toks = lex_lite(text).unwrap_or_default();
            let want = crate::source_map::line_starts(text);
            assert_eq!(line_starts_of(&toks, text), want, "{text:?}");
        }
    }

    #[test]
    fn splices_and_maps_back() {
        let sp = splice("ab\\\ncd\\\r\nef");
        assert_eq!(sp.clean, "abcdef");
        assert_eq!(sp.orig(1), 1);
        assert_eq!(sp.orig(2), 4);
        assert_eq!(sp.orig(4), 9);
    }

    #[test]
    fn splices_over_blanks_before_the_newline() {
        // GCC and Clang continue the line (with a warning) when blanks follow the backslash.
        let sp = splice("ab\\  \t\ncd\\ \r\nef\\ x");
        assert_eq!(sp.clean, "abcdef\\ x");
        assert_eq!(sp.orig(2), 7);
        assert_eq!(sp.orig(4), 13);
    }

    #[test]
    fn tokens_and_comments() {
        assert_eq!(
            texts("a/*x*/b // c\n\"s\\\"t\" 0x1F 8w3 ... ## << &&& 1..2"),
            vec![
                "a",
                "b",
                "\n",
                "\"s\\\"t\"",
                "0x1F",
                "8w3",
                "...",
                "##",
                "<<",
                "&&",
                "&",
                "1",
                "..",
                "2"
            ]
        );
    }

    #[test]
    fn unterminated_comment_reports_start() {
        assert_eq!(lex(&splice("ab /* x\n y"), 0).err(), Some(3));
    }

    #[test]
    fn bol_and_space_flags() {
        let t = lex(&splice("  # define\nx y"), 0).unwrap_or_default();
        assert!(t[0].bol && t[0].space);
        assert!(!t[1].bol && t[1].space);
        assert!(t[3].bol && !t[3].space);
        assert!(!t[4].bol);
    }

    #[test]
    fn file_tokens_stay_compact() {
        // A file is kept as these while it is preprocessed: one per input
        // byte at worst (`;;;;`).
        assert!(std::mem::size_of::<Lite>() <= 12);
        let sp = splice("a  +\\\nb");
        let toks = lex_lite(&sp.clean).unwrap_or_default();
        let full: Vec<Tok> = toks.iter().map(|l| l.tok(&sp, 3)).collect();
        let texts: Vec<&str> = full.iter().map(|t| &*t.text).collect();
        assert_eq!(texts, ["a", "+", "b"]);
        assert!(full[1].space && !full[2].space);
        // `b` is after the backslash-newline: its origin is in the file.
        assert_eq!((full[2].file, full[2].start, full[2].src), (3, 4, 6));
    }

    #[test]
    fn guard_detection() {
        let g = |s: &str| detect_guard(&lex_lite(s).unwrap_or_default(), s);
        assert_eq!(
            g("// c\n#ifndef G\n#define G\nx\n#if 1\n#endif\n#endif\n\n").as_deref(),
            Some("G")
        );
        assert_eq!(g("#if !defined(G)\n#endif").as_deref(), Some("G"));
        assert_eq!(g("#ifndef G\n#else\n#endif\n"), None);
        assert_eq!(g("#ifndef G\n#endif\nx\n"), None);
        assert_eq!(g("x\n#ifndef G\n#endif\n"), None);
    }

    #[test]
    fn hide_sets() {
        let a: Rc<str> = Rc::from("A");
        let b: Rc<str> = Rc::from("B");
        let h1 = HideSet::default().with(&a);
        let h2 = HideSet::default().with(&b).with(&a);
        assert!(h1.contains("A") && !h1.contains("B"));
        let u = h1.union(&h2);
        assert!(u.contains("A") && u.contains("B"));
        let i = h1.intersect(&h2);
        assert!(i.contains("A") && !i.contains("B"));
        assert!(!HideSet::default().intersect(&h2).contains("A"));
    }
}
