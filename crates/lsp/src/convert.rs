//! Byte offsets and `line:col` to LSP positions (UTF-16 code units, as the
//! protocol counts by default), and paths to URIs.

use lsp_types::{Position, Range, Url};

use p4cost_engine::report::Loc;

/// A document's text with its line index, for position conversion.
pub struct LineIndex<'a> {
    text: &'a str,
    ix: p4cost_engine::text::LineIndex,
}

impl<'a> LineIndex<'a> {
    /// Indexes `text` (linear in its length).
    pub fn new(text: &'a str) -> LineIndex<'a> {
        LineIndex {
            text,
            ix: p4cost_engine::text::LineIndex::new(text),
        }
    }

    /// The position of byte `offset` (clamped to the text, and back to a
    /// character boundary).
    pub fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.ix.line_of(offset);
        let start = self.ix.line_start(line).unwrap_or(0);
        let character = self.text[start..offset].encode_utf16().count();
        Position::new(line as u32, character as u32)
    }

    /// The end of the line holding byte `offset` (before its newline).
    pub fn line_end(&self, offset: usize) -> usize {
        self.ix.line_end(offset)
    }

    /// `loc` as a range cut to its first line, when its offset still falls
    /// on the line it names (else `None`: the text changed since).
    pub fn range(&self, loc: &Loc) -> Option<Range> {
        let r = self.ix.first_line_range(self.text, loc)?;
        Some(Range::new(self.position(r.start), self.position(r.end)))
    }

    /// The range of 1-based `line`, `col` (one character); the end of the
    /// text when it has no such line.
    pub fn at_line_col(&self, line: u32, col: u32) -> Range {
        let end = self.text.len();
        let r = self.ix.char_at(self.text, line, col).unwrap_or(end..end);
        Range::new(self.position(r.start), self.position(r.end))
    }
}

/// Whether a report's file name is the document at `path`.
pub fn same_file(shown: &str, path: &std::path::Path) -> bool {
    if std::path::Path::new(shown) == path {
        return true;
    }
    match (std::fs::canonicalize(shown), std::fs::canonicalize(path)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The URI of a file a report names, when it is a file.
pub fn uri_of(shown: &str) -> Option<Url> {
    if shown.starts_with('<') {
        return None;
    }
    let p = std::path::Path::new(shown);
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().ok()?.join(p)
    };
    Url::from_file_path(abs).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units() {
        let text = "ab\n// é𝄞x\nz";
        let ix = LineIndex::new(text);
        assert_eq!(ix.position(0), Position::new(0, 0));
        assert_eq!(ix.position(3), Position::new(1, 0));
        // `é` is one unit, the G clef two.
        let x = text.find('x').expect("x");
        assert_eq!(ix.position(x), Position::new(1, 6));
        assert_eq!(ix.position(text.len() + 5), Position::new(2, 1));
    }

    #[test]
    fn a_range_is_cut_to_its_line_and_refused_when_stale() {
        let text = "x\nstate s {\n}\n";
        let ix = LineIndex::new(text);
        let loc = |line| Loc {
            file: "a.p4".into(),
            line,
            col: 1,
            lo: 2,
            hi: 13,
        };
        assert_eq!(
            ix.range(&loc(2)),
            Some(Range::new(Position::new(1, 0), Position::new(1, 9)))
        );
        assert_eq!(ix.range(&loc(3)), None);
    }
}
