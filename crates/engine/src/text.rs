//! Byte ranges in a source text for the places reports name: what a
//! snippet renderer or an editor needs to put a caret or a hint on a
//! report's `Loc`, checked against the text it is shown in.

use std::ops::Range;

use crate::report::Loc;

/// A text's line starts: each lookup is a binary search.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    /// Indexes `text` (linear in its length; the newlines found by
    /// `memchr`'s vector search: `match_indices` took 1.1 M instructions
    /// for switch_p4_16.p4's 239 KB, this half that).
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        LineIndex {
            starts,
            len: text.len(),
        }
    }

    /// The 0-based line holding byte `offset` (clamped to the text).
    pub fn line_of(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&s| s <= offset.min(self.len))
            .saturating_sub(1)
    }

    /// Where 0-based `line` starts, `None` past the last line.
    pub fn line_start(&self, line: usize) -> Option<usize> {
        self.starts.get(line).copied()
    }

    /// The end of the line holding byte `offset` (before its newline).
    pub fn line_end(&self, offset: usize) -> usize {
        let line = self.line_of(offset);
        self.starts.get(line + 1).map_or(self.len, |&s| s - 1)
    }

    /// `loc`'s range in `text` (the text indexed), cut to its first line;
    /// `None` when its offset is outside the text or no longer on the line
    /// the report names (the text changed since). May be empty.
    pub fn first_line_range(&self, text: &str, loc: &Loc) -> Option<Range<usize>> {
        let lo = loc.lo as usize;
        if lo > text.len()
            || !text.is_char_boundary(lo)
            || self.line_of(lo) + 1 != loc.line as usize
        {
            return None;
        }
        let hi = (loc.hi as usize).clamp(lo, self.line_end(lo));
        let hi = (lo..=hi)
            .rev()
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(lo);
        Some(lo..hi)
    }

    /// The character at 1-based `line` and `col` (empty at the end of its
    /// line; a column past the end is the end); `None` past the last line.
    pub fn char_at(&self, text: &str, line: u32, col: u32) -> Option<Range<usize>> {
        let start = self.line_start(line.saturating_sub(1) as usize)?;
        let end = self.line_end(start);
        let lo = (start + col.saturating_sub(1) as usize).min(end);
        if !text.is_char_boundary(lo) {
            return None;
        }
        let hi = text[lo..end]
            .chars()
            .next()
            .map_or(lo, |c| lo + c.len_utf8());
        Some(lo..hi)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(line: u32, lo: u32, hi: u32) -> Loc {
        Loc {
            file: "a.p4".to_string(),
            line,
            col: 1,
            lo,
            hi,
        }
    }

    #[test]
    fn a_span_is_cut_to_its_first_line_and_refused_when_stale() {
        let text = "x\nstate s {\n  y\n}\n";
        let ix = LineIndex::new(text);
        assert_eq!(ix.first_line_range(text, &loc(2, 2, 16)), Some(2..11));
        assert_eq!(ix.first_line_range(text, &loc(3, 2, 16)), None);
        assert_eq!(ix.first_line_range(text, &loc(1, 400, 401)), None);
        assert_eq!(ix.line_end(text.len()), text.len());
    }

    #[test]
    fn line_and_column_find_one_character() {
        let text = "ab\ncdé\n";
        let ix = LineIndex::new(text);
        assert_eq!(ix.char_at(text, 2, 3), Some(5..7));
        assert_eq!(ix.char_at(text, 2, 99), Some(7..7));
        assert_eq!(ix.char_at(text, 1, 1), Some(0..1));
        assert_eq!(ix.char_at(text, 9, 1), None);
    }
}
