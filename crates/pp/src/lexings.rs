//! Files lexed by an earlier run of the same document, taken back by their
//! text: an editor's keystroke lexes again only the files whose text
//! changed (the root file it typed in), not each include the root names
//! (`register` runs before the include cache is asked, and an include the
//! cache misses is entered afresh).
//!
//! A file's lexing (its spliced text, tokens and include guard, its line
//! starts) is a function of its text, its index in the run's files and the
//! directory its quoted includes are searched in: an entry is taken back
//! only when all three are equal (the text compared byte for byte, not by
//! a hash), so it is the lexing a fresh run makes.
//!
//! A file whose text changed (the root, typed in) is lexed again only
//! between the unchanged start and end of its text ([`relex`]): the tokens
//! before the last line break of the unchanged start and after the first
//! line break of the unchanged end are the last lexing's (those after
//! moved by the change of length). A line break ends every token but a
//! block comment and the lexer reads no byte past it to make the tokens
//! before it, and after a line-break token it starts as on the file's
//! first byte, so a lexing is the same on either side of one.

use std::path::PathBuf;
use std::rc::Rc;

use crate::engine::Lexed;
use crate::lexer::{lex_lite, Kind, Lite};

/// Files kept per cache: a program's files and a few variants'.
const KEEP: usize = 64;

/// One file's lexing, with what it is a function of.
struct Kept {
    text: String,
    file: u32,
    dir: Option<PathBuf>,
    starts: Vec<usize>,
    lexed: Rc<Lexed>,
}

/// The lexings of the last runs' files, the most recently used last.
#[derive(Default)]
pub(crate) struct Lexings {
    kept: Vec<Kept>,
    hits: usize,
}

impl Lexings {
    /// The line starts and lexing of `text` as file `file` searching
    /// `dir`, when a run lexed it; counted as a hit.
    pub(crate) fn take(
        &mut self,
        text: &str,
        file: u32,
        dir: &Option<PathBuf>,
    ) -> Option<(Vec<usize>, Rc<Lexed>)> {
        let at = self.kept.iter().rposition(|k| {
            k.file == file && k.text.len() == text.len() && k.dir == *dir && k.text == text
        })?;
        let k = self.kept.remove(at);
        let out = (k.starts.clone(), Rc::clone(&k.lexed));
        self.kept.push(k);
        self.hits += 1;
        Some(out)
    }

    /// Keeps a lexing made afresh, the least recently used dropped past
    /// [`KEEP`].
    pub(crate) fn keep(&mut self, text: &str, starts: &[usize], lexed: &Rc<Lexed>) {
        if self.kept.len() >= KEEP {
            self.kept.remove(0);
        }
        self.kept.push(Kept {
            text: text.to_owned(),
            file: lexed.file,
            dir: lexed.dir.clone(),
            starts: starts.to_vec(),
            lexed: Rc::clone(lexed),
        });
    }

    /// The most recent lexing of file `file` searching `dir`, whatever
    /// its text: the base of [`relex`] when the text changed.
    pub(crate) fn last(&self, file: u32, dir: &Option<PathBuf>) -> Option<Rc<Lexed>> {
        let k = self
            .kept
            .iter()
            .rev()
            .find(|k| k.file == file && k.dir == *dir)?;
        Some(Rc::clone(&k.lexed))
    }

    /// How many lexings were taken back.
    pub(crate) fn hits(&self) -> usize {
        self.hits
    }

    /// How many are kept.
    pub(crate) fn len(&self) -> usize {
        self.kept.len()
    }
}

/// The tokens [`lex_lite`] gives for `new`, made from `old_toks`, the
/// tokens of `old`: only the bytes between the last line-break token in
/// their common start and the first in their common end are lexed (see
/// the module doc). `None` when that stretch does not end on a line break
/// token (a block comment runs past it, or it is unterminated): then lex
/// the whole text.
pub(crate) fn relex(old: &str, old_toks: &[Lite], new: &str) -> Option<Vec<Lite>> {
    let (o, n) = (old.as_bytes(), new.as_bytes());
    let (ol, nl) = (o.len(), n.len());
    let prefix = common(ol.min(nl), |a, b| o[a..b] == n[a..b]);
    let suffix = common(ol.min(nl), |a, b| o[ol - b..ol - a] == n[nl - b..nl - a]);
    let is_nl = |t: &Lite| t.kind == Kind::Newline;
    // Tokens kept from the start: up to the last line break before the
    // first changed byte.
    let head = old_toks
        .iter()
        .rposition(|t| is_nl(t) && t.start() < prefix)
        .map_or(0, |k| k + 1);
    let from = old_toks
        .get(..head)
        .and_then(|t| t.last())
        .map_or(0, Lite::end);
    // Tokens kept from the end: after the first line break whose next byte
    // starts the common end.
    let tail_from = old.len().checked_sub(suffix)?;
    let tail = old_toks
        .iter()
        .position(|t| is_nl(t) && t.start() >= tail_from)
        .map(|k| k + 1);
    let delta = new.len() as i64 - old.len() as i64;
    let to = match tail {
        Some(k) => (old_toks.get(k - 1)?.end() as i64 + delta) as usize,
        None => new.len(),
    };
    let mid = lex_lite(new.get(from..to)?).ok()?;
    if tail.is_some() && !mid.last().is_some_and(|t| is_nl(t) && t.end() == to - from) {
        return None;
    }
    let shift = |x: u32, by: i64| u32::try_from(x as i64 + by).ok();
    let mut toks = Vec::with_capacity(old_toks.len());
    toks.extend_from_slice(&old_toks[..head]);
    for t in mid {
        toks.push(Lite {
            start: shift(t.start, from as i64)?,
            end: shift(t.end, from as i64)?,
            ..t
        });
    }
    for t in tail.map_or(&[][..], |k| &old_toks[k..]) {
        toks.push(Lite {
            start: shift(t.start, delta)?,
            end: shift(t.end, delta)?,
            ..*t
        });
    }
    Some(toks)
}

/// The length of the common run of two byte sequences of at least `len`
/// bytes, `same(i, j)` saying whether their bytes `i..j` agree: compared
/// a block at a time, then byte by byte.
fn common(len: usize, same: impl Fn(usize, usize) -> bool) -> usize {
    const BLOCK: usize = 64;
    let mut k = 0;
    while k + BLOCK <= len && same(k, k + BLOCK) {
        k += BLOCK;
    }
    while k < len && same(k, k + 1) {
        k += 1;
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(t: &[Lite]) -> Vec<(u32, u32, Kind, bool, bool, bool)> {
        t.iter()
            .map(|l| (l.start, l.end, l.kind, l.space, l.bol, l.comment))
            .collect()
    }

    /// Random edits of a text with block comments, strings, line comments
    /// and punctuators: the relexing equals a full lexing (or declines).
    #[test]
    fn relexing_an_edited_text_equals_lexing_it_whole() {
        let pieces = [
            "a",
            "bc",
            " ",
            "\n",
            "/*",
            "*/",
            "//",
            "\"",
            "x = 1;",
            "<<=",
            ".",
            "1.5",
            "\t",
            "#define M 2\n",
            "\\",
            "é",
            "..",
        ];
        let mut seed = 12345u64;
        let mut next = |m: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as usize) % m
        };
        let mut text = String::from("control c() {\n  apply { t.apply(); }\n}\n/* x */\n");
        let (mut relexed, mut declined) = (0, 0);
        for _ in 0..4000 {
            let old = text.clone();
            let Ok(old_toks) = lex_lite(&old) else {
                text = "x\n".into();
                continue;
            };
            let mut at = next(text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            if next(3) == 0 && at < text.len() {
                let mut end = (at + 1 + next(4)).min(text.len());
                while !text.is_char_boundary(end) {
                    end += 1;
                }
                text.replace_range(at..end, "");
            } else {
                text.insert_str(at, pieces[next(pieces.len())]);
            }
            let full = lex_lite(&text);
            match relex(&old, &old_toks, &text) {
                Some(r) => {
                    relexed += 1;
                    let full = full
                        .unwrap_or_else(|e| panic!("relexed an unlexable text ({e}): {text:?}"));
                    assert_eq!(fields(&r), fields(&full), "{old:?} -> {text:?}");
                }
                None => declined += 1,
            }
        }
        assert!(relexed > 2000, "relexed {relexed}, declined {declined}");
    }
}
