//! p4cost-pp: a C-style preprocessor for P4-16 sources.
//!
//! It handles `#include` (quoted and angled, with bundled architecture files as a fallback),
//! object-like and function-like macros (stringify, pasting, variadic arguments, the hide-set
//! rule against recursion), conditional compilation with full integer expressions, `#line`,
//! `#error`, `#warning` and `#pragma` (passed through), and it records a [`SourceMap`] so that
//! every byte of the output maps back to an original file, line and column.
//!
//! Dependencies: `thiserror` only (no other p4cost crate).
//!
//! Conventions: columns are 1-based byte columns; tokens made by a macro expansion map to the
//! invocation's location, while tokens that came from a macro argument keep their own location.

#![warn(missing_docs)]

mod directives;
mod engine;
mod error;
mod expand;
mod expr;
mod lexer;
mod macros;
mod source_map;

use std::path::PathBuf;

pub use engine::Preprocessor;
pub use error::{ErrLoc, PpError, PpWarning};
pub use source_map::{Location, SourceMap};

/// Command-line style settings: `-D` definitions and `-I` directories.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `-D NAME` (`None`, defines `NAME` as `1`) and `-D NAME=VALUE`. `NAME` may be `F(x)`.
    pub defines: Vec<(String, Option<String>)>,
    /// `-I` directories, searched in order.
    pub include_dirs: Vec<PathBuf>,
}

/// Resolves `<x>`/`"x"` names that are not found on disk to bundled text (architecture includes).
pub trait Bundled {
    /// The bundled text for an include name as written (e.g. `tna.p4`), if any.
    fn lookup(&self, name: &str) -> Option<&'static str>;
}

/// A [`Bundled`] that has nothing; for callers without bundled files.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoBundled;

impl Bundled for NoBundled {
    fn lookup(&self, _name: &str) -> Option<&'static str> {
        None
    }
}

/// The result of preprocessing.
#[derive(Clone, Debug)]
pub struct Output {
    /// The preprocessed text.
    pub text: String,
    /// Every file read, in the order first read; index 0 is the root file.
    pub files: Vec<SourceFile>,
    /// Output offset -> original location.
    pub map: SourceMap,
    /// `#warning`s and other non-fatal diagnostics, in order.
    pub warnings: Vec<PpWarning>,
}

impl Output {
    /// The path to report for a location: the `#line` name if one applies, else the file's path.
    pub fn display_path(&self, loc: &Location) -> &str {
        if let Some(n) = loc
            .presumed_name
            .and_then(|n| self.map.presumed_names().get(n))
        {
            return n;
        }
        self.files.get(loc.file).map_or("", |f| f.path.as_str())
    }
}

/// One input file as read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    /// The path as resolved (bundled files as `<bundled>/tna.p4`; `-D` values as `<command-line>`).
    pub path: String,
    /// The full original text.
    pub text: String,
    /// Whether the text came from the bundled set rather than the disk.
    pub bundled: bool,
}

#[cfg(test)]
mod tests;
