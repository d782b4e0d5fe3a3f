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

use std::path::PathBuf;
use std::rc::Rc;

use crate::engine::Lexed;

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

    /// How many lexings were taken back.
    pub(crate) fn hits(&self) -> usize {
        self.hits
    }

    /// How many are kept.
    pub(crate) fn len(&self) -> usize {
        self.kept.len()
    }
}
