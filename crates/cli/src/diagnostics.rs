//! Diagnostics with source snippets and carets (codespan-reporting): input
//! errors (syntax, preprocessor, invalid JSON), exceeded budgets and the
//! warnings that name a table or parse state.
//!
//! Colours only when asked: `--color always`, or `auto` (the default) on a
//! terminal with `NO_COLOR` unset or empty and `TERM` not `dumb`. Where a
//! file cannot be read again, or no longer matches the span the report
//! names (edited since), the caller falls back to its plain line.

use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use codespan_reporting::diagnostic::{Diagnostic, Label, Severity};
use codespan_reporting::term;

use p4cost_engine::report::Loc;

use crate::args::ColorChoice;

mod sources;
mod window;

use sources::{Sources, Text};

/// Largest source file re-read to show a snippet.
const MAX_SNIPPET_FILE_BYTES: u64 = 64 << 20;

/// Whether output to a stream is coloured.
pub fn use_color(choice: ColorChoice, is_terminal: bool) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            is_terminal
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
        }
    }
}

/// Source texts by file name, read once, for snippets.
pub struct Snippets {
    /// The files a snippet was asked of, by id, each with its line index.
    files: Sources,
    /// Every file looked up: `None` when it cannot be read.
    ids: HashMap<String, Option<Known>>,
    color: bool,
}

/// A file read for snippets: its text alone until a snippet needs its
/// lines (a large JSON file whose spans all point at its start is read
/// but never indexed), then its id in `files`.
enum Known {
    Text(Text),
    Id(usize),
}

impl Snippets {
    /// An empty cache; `color` says whether rendered text is coloured.
    pub fn new(color: bool) -> Snippets {
        Snippets {
            files: Sources::default(),
            ids: HashMap::new(),
            color,
        }
    }

    /// The file's id, reading it (or the bundled architecture file) the
    /// first time; `None` when it cannot be read.
    fn id(&mut self, file: &str) -> Option<usize> {
        let text = match self.known(file)? {
            Known::Id(id) => return Some(*id),
            Known::Text(t) => t.clone(),
        };
        let id = self.add(file, text);
        self.ids.insert(file.to_string(), Some(Known::Id(id)));
        Some(id)
    }

    /// True when the file's text starts (after white space) with `{`: a
    /// JSON document; `None` when it cannot be read.
    fn opens_object(&mut self, file: &str) -> Option<bool> {
        let opens = |t: &str| t.trim_start().starts_with('{');
        let id = match self.known(file)? {
            Known::Text(t) => return Some(opens(t.as_str())),
            Known::Id(id) => *id,
        };
        Some(opens(self.text(id)?))
    }

    /// The file as read, reading it the first time.
    fn known(&mut self, file: &str) -> Option<&Known> {
        if !self.ids.contains_key(file) {
            let text = Self::read(file).map(Known::Text);
            self.ids.insert(file.to_string(), text);
        }
        self.ids.get(file)?.as_ref()
    }

    /// The text of `file` (or of the bundled architecture file).
    fn read(file: &str) -> Option<Text> {
        let text: Option<Text> = if let Some(name) = file.strip_prefix("<bundled>/") {
            p4cost_front::bundled_text(name).map(|t| Arc::new(t.to_string()))
        } else if file.starts_with('<') || file.is_empty() {
            None
        } else {
            // Only regular files are read again: a FIFO or device would
            // block or give other bytes than the first read.
            let len = std::fs::metadata(file).ok().filter(|m| m.is_file())?.len();
            std::fs::File::open(Path::new(file))
                .ok()
                .and_then(|f| read_sized(f, len))
                .and_then(|b| String::from_utf8(b).ok())
                .map(Arc::new)
        };
        text
    }

    /// Registers `text` as the content of `file` (what the engine read:
    /// stdin, a git revision), ahead of any read from the disk.
    pub fn add_text(&mut self, file: &str, text: Arc<str>) -> usize {
        let id = self.add(file, Arc::new(text.to_string()));
        self.ids.insert(file.to_string(), Some(Known::Id(id)));
        id
    }

    fn add(&mut self, file: &str, text: Text) -> usize {
        self.files.add(file.to_string(), text)
    }

    fn text(&self, id: usize) -> Option<&str> {
        self.files.get(id).ok().map(|f| f.text().as_str())
    }

    /// The byte range of `loc` in its file, cut to its first line; `None`
    /// when the file is unreadable or its text no longer has `loc` where
    /// the report says (the line of `lo` must be `loc.line`).
    pub fn range(&mut self, loc: &Loc) -> Option<(usize, Range<usize>)> {
        // The JSON readers place what has no source location at the start
        // of the document: its first line (`{`) would show nothing.
        if loc.lo == 0 && loc.hi == 0 && self.opens_object(&loc.file)? {
            return None;
        }
        let id = self.id(&loc.file)?;
        let f = self.files.get(id).ok()?;
        let (text, ix) = (f.text().as_str(), f.lines());
        let r = ix.first_line_range(text, loc)?;
        // An empty span still gets a caret: the character it starts at.
        let hi = if r.is_empty() {
            next_char(text, r.start).min(ix.line_end(r.start))
        } else {
            r.end
        };
        Some((id, r.start..hi))
    }

    /// The range at 1-based `line` and `col` of `file` (one character, or
    /// the end of the line), for messages that have no byte offsets.
    pub fn at_line_col(
        &mut self,
        file: &str,
        line: u32,
        col: u32,
    ) -> Option<(usize, Range<usize>)> {
        let id = self.id(file)?;
        let f = self.files.get(id).ok()?;
        Some((id, f.lines().char_at(f.text(), line, col)?))
    }

    /// `diag` rendered (rich form, with the source lines, a long line as
    /// a window around its label: [`window`]), ending in a newline; `None`
    /// when rendering fails.
    pub fn render(&self, diag: &Diagnostic<usize>) -> Option<String> {
        let config = term::Config::default();
        let mut buf = if self.color {
            termcolor::Buffer::ansi()
        } else {
            termcolor::Buffer::no_color()
        };
        match window::Windowed::of(&self.files, diag) {
            Some((view, cut)) => term::emit_to_write_style(&mut buf, &config, &view, &cut),
            None => term::emit_to_write_style(&mut buf, &config, &self.files, diag),
        }
        .ok()?;
        String::from_utf8(buf.into_inner()).ok()
    }

    /// `error: file:line:col: message` with the line and a caret, for an
    /// engine error with a site; `None` for other errors.
    pub fn error(&mut self, e: &p4cost_engine::Error) -> Option<String> {
        let site = e.site()?;
        if let Some(t) = &site.text {
            if !self.ids.contains_key(&site.file) {
                self.add_text(&site.file, t.clone());
            }
        }
        let (id, range) = self.at_line_col(&site.file, site.line, site.col)?;
        let diag = Diagnostic::error()
            .with_message(e.message())
            .with_labels(vec![
                Label::primary(id, range).with_message(first_line(&site.message))
            ]);
        self.render(&diag)
    }
}

/// A diagnostic of `severity` with `message` and the given labels (the
/// first primary), `None` when no label could be placed.
pub fn labelled(
    severity: Severity,
    code: Option<&str>,
    message: &str,
    labels: Vec<Label<usize>>,
    notes: Vec<String>,
) -> Option<Diagnostic<usize>> {
    if labels.is_empty() {
        return None;
    }
    let mut d = Diagnostic::new(severity)
        .with_message(message)
        .with_labels(labels)
        .with_notes(notes);
    if let Some(c) = code {
        d = d.with_code(c);
    }
    Some(d)
}

/// A primary label.
pub fn primary(at: (usize, Range<usize>), message: impl std::fmt::Display) -> Label<usize> {
    Label::primary(at.0, at.1).with_message(message)
}

/// A secondary label.
pub fn secondary(at: (usize, Range<usize>), message: impl std::fmt::Display) -> Label<usize> {
    Label::secondary(at.0, at.1).with_message(message)
}

/// A rendered diagnostic set inside a report: each non-blank line after
/// the first `skip` (the header, when the report already says it),
/// indented by `by`.
pub fn indented(rendered: &str, skip: usize, by: &str) -> String {
    let mut out = String::with_capacity(rendered.len() + 8 * by.len());
    for l in rendered.lines().skip(skip).filter(|l| !l.trim().is_empty()) {
        out.push_str(by);
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// The bytes of `f`, of `len` bytes when its size was read (the buffer
/// sized once, not grown as it is read), at most
/// [`MAX_SNIPPET_FILE_BYTES`].
fn read_sized(f: std::fs::File, len: u64) -> Option<Vec<u8>> {
    use std::io::Read as _;
    if len > MAX_SNIPPET_FILE_BYTES {
        return None;
    }
    // One byte more: the read that says the file ends.
    let mut buf = Vec::with_capacity(len as usize + 1);
    f.take(MAX_SNIPPET_FILE_BYTES + 1)
        .read_to_end(&mut buf)
        .ok()?;
    Some(buf).filter(|b| b.len() as u64 <= MAX_SNIPPET_FILE_BYTES)
}

/// `file:line:col` (a budget's origin in p4cost.toml) split in its parts.
pub fn split_file_line_col(s: &str) -> Option<(&str, u32, u32)> {
    let mut parts = s.rsplitn(3, ':');
    let col = parts.next()?.trim().parse().ok()?;
    let line = parts.next()?.trim().parse().ok()?;
    Some((parts.next()?, line, col))
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

fn next_char(text: &str, at: usize) -> usize {
    text[at..].chars().next().map_or(at, |c| at + c.len_utf8())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(file: &str, line: u32, col: u32, lo: u32, hi: u32) -> Loc {
        Loc {
            file: file.to_string(),
            line,
            col,
            lo,
            hi,
        }
    }

    #[test]
    fn a_span_is_cut_to_its_first_line_and_checked_against_its_line() {
        let mut s = Snippets::new(false);
        s.add_text("a.p4", Arc::from("x\nstate s {\n  y\n}\n"));
        let (_, r) = s.range(&loc("a.p4", 2, 1, 2, 16)).expect("range");
        assert_eq!(r, 2..11);
        // The same offsets said to be on line 3: the file changed.
        assert!(s.range(&loc("a.p4", 3, 1, 2, 16)).is_none());
        assert!(s.range(&loc("a.p4", 1, 1, 400, 401)).is_none());
        assert!(s.range(&loc("<stdin>", 1, 1, 0, 1)).is_none());
    }

    /// What a JSON reader could not place sits at the document's start:
    /// no snippet of its `{`; an empty span at the start of P4 text keeps
    /// its caret.
    #[test]
    fn the_start_of_a_json_document_is_no_place_to_show() {
        let mut s = Snippets::new(false);
        s.add_text("p.json", Arc::from("{\n  \"parsers\": []\n}\n"));
        assert!(s.range(&loc("p.json", 1, 1, 0, 0)).is_none());
        assert!(s.range(&loc("p.json", 2, 3, 4, 13)).is_some());
        s.add_text("a.p4", Arc::from("header h_t { bit<8> f; }\n"));
        assert_eq!(s.range(&loc("a.p4", 1, 1, 0, 0)).map(|x| x.1), Some(0..1));
    }

    #[test]
    fn a_json_file_is_indexed_only_when_a_snippet_needs_its_lines() {
        // issue 26: a 1.5 MB BMv2 JSON whose spans all sit at its start
        // was read and line-indexed twice over for no snippet.
        let dir = std::env::temp_dir().join(format!("p4cost-snippets-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("p.json");
        std::fs::write(&file, "{\n  \"parsers\": []\n}\n").unwrap();
        let name = file.to_str().unwrap();
        let mut s = Snippets::new(false);
        assert!(s.range(&loc(name, 1, 1, 0, 0)).is_none());
        assert_eq!(s.files.len(), 0, "read, not indexed");
        assert_eq!(s.range(&loc(name, 2, 3, 4, 13)).map(|x| x.1), Some(4..13));
        assert_eq!(s.files.len(), 1);
        assert!(s.range(&loc(name, 1, 1, 0, 0)).is_none());
        assert_eq!(s.files.len(), 1, "indexed once");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn line_and_column_find_one_character() {
        let mut s = Snippets::new(false);
        s.add_text("a.p4", Arc::from("ab\ncdé\n"));
        assert_eq!(s.at_line_col("a.p4", 2, 3).map(|x| x.1), Some(5..7));
        assert_eq!(s.at_line_col("a.p4", 2, 99).map(|x| x.1), Some(7..7));
        assert!(s.at_line_col("a.p4", 9, 1).is_none());
    }

    #[test]
    fn an_error_shows_its_line_with_a_caret_and_no_colour_unless_asked() {
        let mut s = Snippets::new(false);
        let e = p4cost_engine::Error::at(p4cost_engine::error::Site {
            file: "x.p4".to_string(),
            line: 2,
            col: 5,
            message: "expected ';'".to_string(),
            text: Some(Arc::from("header h_t {\n    bit<8> f\n}\n")),
        });
        let text = s.error(&e).expect("rendered");
        assert!(
            text.starts_with("error: x.p4:2:5: expected ';'\n"),
            "{text}"
        );
        assert!(text.contains("2 │     bit<8> f\n"), "{text}");
        assert!(text.contains("^ expected ';'"), "{text}");
        assert!(!text.contains('\u{1b}'), "{text}");
        let mut c = Snippets::new(true);
        assert!(c.error(&e).expect("rendered").contains('\u{1b}'));
    }

    #[test]
    fn colour_follows_the_choice_and_the_terminal() {
        assert!(use_color(ColorChoice::Always, false));
        assert!(!use_color(ColorChoice::Never, true));
        assert!(!use_color(ColorChoice::Auto, false));
    }

    #[test]
    fn origins_split_from_the_right() {
        assert_eq!(
            split_file_line_col("C:/p/p4cost.toml:12:3"),
            Some(("C:/p/p4cost.toml", 12, 3))
        );
        assert_eq!(split_file_line_col("--max-latency"), None);
    }
}
