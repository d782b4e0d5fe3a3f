//! The files snippets are cut from, each with one line index: the
//! engine's [`LineIndex`] serves both the checks of [`super::Snippets`]
//! and codespan's lookups (its `SimpleFiles` built a second index of
//! every file: 1.3 M instructions for switch_p4_16.p4's 239 KB).

use std::ops::Range;
use std::sync::Arc;

use codespan_reporting::files::{Error, Files};

use p4cost_engine::text::LineIndex;

/// A file's text as read, shared (not copied: an `Arc<str>` made of the
/// `String` read would copy it, 240 K instructions for switch_p4_16.p4).
pub type Text = Arc<String>;

/// One file: its name, text and line starts.
pub struct Source {
    name: String,
    text: Text,
    lines: LineIndex,
}

impl Source {
    /// The file's name as reports give it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The file's text.
    pub fn text(&self) -> &Text {
        &self.text
    }

    /// The file's line index.
    pub fn lines(&self) -> &LineIndex {
        &self.lines
    }

    /// Where 0-based line `index` starts, the text's length just past the
    /// last line (codespan's `line_start`).
    fn line_start(&self, index: usize) -> Result<usize, Error> {
        if let Some(start) = self.lines.line_start(index) {
            return Ok(start);
        }
        let last = self.lines.line_of(self.text.len());
        if index == last + 1 {
            Ok(self.text.len())
        } else {
            Err(Error::LineTooLarge {
                given: index,
                max: last,
            })
        }
    }
}

/// The files read for snippets, by id (the order they were added).
#[derive(Default)]
pub struct Sources {
    files: Vec<Source>,
}

impl Sources {
    /// Adds `text` as file `name`, indexing its lines once; its id.
    pub fn add(&mut self, name: String, text: Text) -> usize {
        let lines = LineIndex::new(&text);
        self.files.push(Source { name, text, lines });
        self.files.len() - 1
    }

    /// How many files were added.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// The file of `id`.
    pub fn get(&self, id: usize) -> Result<&Source, Error> {
        self.files.get(id).ok_or(Error::FileMissing)
    }
}

impl<'a> Files<'a> for Sources {
    type FileId = usize;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: usize) -> Result<&'a str, Error> {
        Ok(&self.get(id)?.name)
    }

    fn source(&'a self, id: usize) -> Result<&'a str, Error> {
        Ok(self.get(id)?.text.as_str())
    }

    fn line_index(&'a self, id: usize, byte: usize) -> Result<usize, Error> {
        Ok(self.get(id)?.lines.line_of(byte))
    }

    /// The line's bytes with its line break, as codespan's files give it.
    fn line_range(&'a self, id: usize, index: usize) -> Result<Range<usize>, Error> {
        let f = self.get(id)?;
        Ok(f.line_start(index)?..f.line_start(index + 1)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use codespan_reporting::files::SimpleFiles;

    /// Every lookup answers as codespan's own `SimpleFiles` does.
    #[test]
    fn lookups_agree_with_codespans_files() {
        for text in ["", "a", "a\n", "foo\nbar\r\n\nbaz", "x\n\n\né\n"] {
            let mut ours = Sources::default();
            let mut theirs = SimpleFiles::new();
            let id = ours.add("f".to_string(), Arc::new(text.to_string()));
            let their_id = theirs.add("f".to_string(), text);
            for b in 0..text.len() + 3 {
                assert_eq!(
                    ours.line_index(id, b).ok(),
                    theirs.line_index(their_id, b).ok(),
                    "{text:?} byte {b}"
                );
            }
            for line in 0..text.lines().count() + 3 {
                assert_eq!(
                    ours.line_range(id, line).ok(),
                    theirs.line_range(their_id, line).ok(),
                    "{text:?} line {line}"
                );
            }
            assert!(ours.source(id + 1).is_err());
        }
    }
}
