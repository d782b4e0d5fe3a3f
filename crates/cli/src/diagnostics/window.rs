//! Long source lines in snippets: a line longer than [`MAX_CHARS`]
//! characters (a 50,000-character line, minified JSON) is shown as a
//! window of that many characters around its first label, with `...`
//! where it was cut. The window is a view of the files a diagnostic
//! names (only its labelled lines, and the line codespan prints between
//! two labelled lines one apart) that keeps the original line numbers and
//! columns, so `file:line:col` and the gutter are those of the file.

use std::collections::HashMap;
use std::ops::Range;

use codespan_reporting::diagnostic::Diagnostic;
use codespan_reporting::files::{Error, Files};

use super::Sources;

/// Characters of a source line shown at most.
pub const MAX_CHARS: usize = 120;
/// Characters shown before the first label on a cut line.
const BEFORE: usize = 40;
/// The mark where a line was cut.
const CUT: &str = "...";

/// One shown line of a file: where it is in the file and in the view.
struct Line {
    /// Its 0-based line index in the file.
    index: usize,
    /// Its first byte in the file.
    start: usize,
    /// The shown bytes of the file.
    window: Range<usize>,
    /// Its first byte in the view.
    at: usize,
    /// Bytes of the leading cut mark (0 or 3).
    pre: usize,
    /// Its length in the view, without the newline.
    len: usize,
}

/// The shown lines of one file.
struct FileView {
    name: String,
    source: super::sources::Text,
    text: String,
    /// By line index.
    lines: Vec<Line>,
}

/// The files of one diagnostic with its long lines cut to windows.
pub struct Windowed {
    files: HashMap<usize, FileView>,
}

impl Windowed {
    /// The view of `diag`'s lines and `diag` with its labels moved into
    /// it; `None` when no labelled line is long (render as it is) or a
    /// label spans lines.
    pub fn of(files: &Sources, diag: &Diagnostic<usize>) -> Option<(Windowed, Diagnostic<usize>)> {
        let mut wanted: HashMap<usize, Vec<(usize, usize)>> = HashMap::new();
        let mut long = false;
        for l in &diag.labels {
            let li = files.line_index(l.file_id, l.range.start).ok()?;
            if files.line_index(l.file_id, l.range.end).ok()? != li {
                return None;
            }
            let r = line_bounds(files, l.file_id, li)?;
            let source = files.get(l.file_id).ok()?.text();
            long |= source[r].chars().nth(MAX_CHARS).is_some();
            wanted
                .entry(l.file_id)
                .or_default()
                .push((li, l.range.start));
        }
        if !long {
            return None;
        }
        let mut view = Windowed {
            files: HashMap::new(),
        };
        for (id, marks) in wanted {
            view.files.insert(id, FileView::new(files, id, marks)?);
        }
        let mut d = diag.clone();
        for l in &mut d.labels {
            let f = view.files.get(&l.file_id)?;
            l.range = f.to_view(l.range.start)..f.to_view(l.range.end);
        }
        Some((view, d))
    }

    fn file(&self, id: usize) -> Result<&FileView, Error> {
        self.files.get(&id).ok_or(Error::FileMissing)
    }
}

impl FileView {
    /// The lines of `marks` (line index, first label byte) and the line
    /// between two of them one apart, each cut around its first label.
    fn new(files: &Sources, id: usize, mut marks: Vec<(usize, usize)>) -> Option<FileView> {
        let file = files.get(id).ok()?;
        marks.sort_unstable();
        marks.dedup_by_key(|m| m.0);
        let between: Vec<(usize, usize)> = marks
            .windows(2)
            .filter(|w| w[1].0 == w[0].0 + 2)
            .filter_map(|w| Some((w[0].0 + 1, line_bounds(files, id, w[0].0 + 1)?.start)))
            .collect();
        marks.extend(between);
        marks.sort_unstable();
        let mut v = FileView {
            name: file.name().to_string(),
            source: file.text().clone(),
            text: String::new(),
            lines: Vec::new(),
        };
        for (index, mark) in marks {
            let r = line_bounds(files, id, index)?;
            v.push(index, r, mark);
        }
        Some(v)
    }

    fn push(&mut self, index: usize, line: Range<usize>, mark: usize) {
        let window = window(&self.source[line.clone()], mark - line.start);
        let window = line.start + window.start..line.start + window.end;
        let at = self.text.len();
        let pre = if window.start > line.start {
            CUT.len()
        } else {
            0
        };
        if pre > 0 {
            self.text.push_str(CUT);
        }
        self.text.push_str(&self.source[window.clone()]);
        if window.end < line.end {
            self.text.push_str(CUT);
        }
        let len = self.text.len() - at;
        self.text.push('\n');
        self.lines.push(Line {
            index,
            start: line.start,
            window,
            at,
            pre,
            len,
        });
    }

    /// The view byte of file byte `b` (clamped to its line's window).
    fn to_view(&self, b: usize) -> usize {
        let i = self
            .lines
            .partition_point(|l| l.start <= b)
            .saturating_sub(1);
        let l = &self.lines[i];
        l.at + l.pre + (b.clamp(l.window.start, l.window.end) - l.window.start)
    }

    /// The shown line holding view byte `b`.
    fn line_at(&self, b: usize) -> Result<&Line, Error> {
        let i = self.lines.partition_point(|l| l.at <= b);
        self.lines
            .get(i.wrapping_sub(1))
            .ok_or(Error::IndexTooLarge {
                given: b,
                max: self.text.len(),
            })
    }

    fn line(&self, index: usize) -> Result<&Line, Error> {
        self.lines
            .binary_search_by_key(&index, |l| l.index)
            .map(|i| &self.lines[i])
            .map_err(|_| Error::LineTooLarge {
                given: index,
                max: self.lines.last().map_or(0, |l| l.index),
            })
    }
}

impl<'a> Files<'a> for Windowed {
    type FileId = usize;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: usize) -> Result<&'a str, Error> {
        Ok(&self.file(id)?.name)
    }

    fn source(&'a self, id: usize) -> Result<&'a str, Error> {
        Ok(&self.file(id)?.text)
    }

    fn line_index(&'a self, id: usize, b: usize) -> Result<usize, Error> {
        Ok(self.file(id)?.line_at(b)?.index)
    }

    /// The column in the file, not in the view.
    fn column_number(&'a self, id: usize, index: usize, b: usize) -> Result<usize, Error> {
        let f = self.file(id)?;
        let l = f.line(index)?;
        let in_window = b.saturating_sub(l.at + l.pre);
        let file_byte = (l.window.start + in_window).min(l.window.end);
        Ok(f.source[l.start..file_byte].chars().count() + 1)
    }

    fn line_range(&'a self, id: usize, index: usize) -> Result<Range<usize>, Error> {
        let l = self.file(id)?.line(index)?;
        Ok(l.at..l.at + l.len)
    }
}

/// Line `index` of file `id` without its line break.
fn line_bounds(files: &Sources, id: usize, index: usize) -> Option<Range<usize>> {
    let r = files.line_range(id, index).ok()?;
    let text = &files.get(id).ok()?.text()[r.clone()];
    let body = text.trim_end_matches(['\n', '\r']);
    Some(r.start..r.start + body.len())
}

/// The bytes of `line` shown: all of it when short, else [`MAX_CHARS`]
/// characters starting [`BEFORE`] characters before byte `mark` (moved
/// back when the line ends sooner). Linear in the line, constant memory.
pub fn window(line: &str, mark: usize) -> Range<usize> {
    if line.chars().nth(MAX_CHARS).is_none() {
        return 0..line.len();
    }
    let byte_of = |k: usize| line.char_indices().nth(k).map_or(line.len(), |(i, _)| i);
    let mark = (0..=mark.min(line.len()))
        .rev()
        .find(|&i| line.is_char_boundary(i))
        .unwrap_or(0);
    let total = line.chars().count();
    let first = line[..mark]
        .chars()
        .count()
        .saturating_sub(BEFORE)
        .min(total - MAX_CHARS);
    let start = byte_of(first);
    let end = start
        + line[start..]
            .char_indices()
            .nth(MAX_CHARS)
            .map_or(line.len() - start, |(i, _)| i);
    start..end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_is_cut_around_the_mark_on_character_boundaries() {
        assert_eq!(window("short", 2), 0..5);
        let line = "é".repeat(1000);
        let w = window(&line, 2 * 500);
        assert_eq!(w, 2 * 460..2 * 580);
        assert_eq!(
            window(&line, 2 * 999),
            2 * 880..2000,
            "moved back at the end"
        );
        assert_eq!(window(&line, 0), 0..2 * 120);
    }
}
