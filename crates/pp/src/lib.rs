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
mod include_cache;
mod lexer;
mod lexings;
mod macros;
mod plain;
mod source_map;

use std::path::{Path, PathBuf};

pub use engine::Preprocessor;
pub use error::{ErrLoc, PpError, PpWarning};
pub use include_cache::IncludeCache;
pub use lexer::is_ident_char;
pub use source_map::{Cursor, Location, RangeShape, SourceMap};

/// Command-line style settings: `-D` definitions, `-I` directories and resource limits.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `-D NAME` (`None`, defines `NAME` as `1`) and `-D NAME=VALUE`. `NAME` may be `F(x)`.
    pub defines: Vec<(String, Option<String>)>,
    /// `-I` directories, searched in order.
    pub include_dirs: Vec<PathBuf>,
    /// Budgets for one translation unit.
    pub limits: Limits,
}

/// Budgets for one translation unit (the root file and everything it includes). Each is global,
/// not per line or per file, so that inputs that multiply work (an include or macro "bomb")
/// stop early with a [`PpError::Limit`] that names the budget and where it ran out.
///
/// The defaults are far above what real programs need: p4c's sample corpus, fabric-tna with
/// every profile and switch-sized programs use at most a few hundred include entries, a few
/// megabytes of text and a few hundred thousand macro tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest file that is read, in bytes ([`Limits::DEFAULT_FILE_BYTES`], 64 MiB).
    pub max_file_bytes: u64,
    /// Files entered by `#include` in the whole unit, each inclusion counted
    /// ([`Limits::DEFAULT_INCLUDES`]). Includes skipped by a guard or `#pragma once` cost
    /// nothing and are not counted.
    pub max_includes: usize,
    /// Nesting depth of `#include` ([`Limits::DEFAULT_INCLUDE_DEPTH`]).
    pub max_include_depth: usize,
    /// Tokens produced by macro expansion in the whole unit ([`Limits::DEFAULT_MACRO_TOKENS`]).
    pub max_macro_tokens: usize,
    /// Bytes of source entered (each inclusion counts its file's size again) and, separately,
    /// bytes of preprocessed output ([`Limits::DEFAULT_TOTAL_BYTES`], 256 MiB).
    pub max_total_bytes: u64,
}

impl Limits {
    /// Default of [`Limits::max_file_bytes`]: 64 MiB.
    pub const DEFAULT_FILE_BYTES: u64 = 64 << 20;
    /// Default of [`Limits::max_includes`].
    pub const DEFAULT_INCLUDES: usize = 10_000;
    /// Default of [`Limits::max_include_depth`].
    pub const DEFAULT_INCLUDE_DEPTH: usize = 200;
    /// Default of [`Limits::max_macro_tokens`].
    pub const DEFAULT_MACRO_TOKENS: usize = 4_000_000;
    /// Default of [`Limits::max_total_bytes`]: 256 MiB.
    pub const DEFAULT_TOTAL_BYTES: u64 = 256 << 20;
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_file_bytes: Self::DEFAULT_FILE_BYTES,
            max_includes: Self::DEFAULT_INCLUDES,
            max_include_depth: Self::DEFAULT_INCLUDE_DEPTH,
            max_macro_tokens: Self::DEFAULT_MACRO_TOKENS,
            max_total_bytes: Self::DEFAULT_TOTAL_BYTES,
        }
    }
}

/// Reads at most `max` bytes from `r`: the bytes, or `Err(None)` when there are more than
/// `max` (it never reads more than `max + 1`), or the I/O error.
pub fn read_limited(r: impl std::io::Read, max: u64) -> Result<Vec<u8>, Option<std::io::Error>> {
    use std::io::Read;
    let mut buf = Vec::new();
    r.take(max.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(Some)?;
    if buf.len() as u64 > max {
        return Err(None);
    }
    Ok(buf)
}

/// Why `path` is not read as an input file, naming its kind: `is a
/// directory`, `is a FIFO (named pipe), not a regular file`, a socket, a
/// character or block device (`/dev/zero` would never end). `None` for a
/// regular file, a path that does not exist (opening it says so), and a
/// descriptor this process already holds (`/dev/stdin`, `/dev/fd/N`,
/// `/proc/self/fd/N`: the pipe `<(cmd)` hands over, read once as stdin
/// is). Looks at the metadata only: never opens, so never blocks.
pub fn refusal(path: &Path) -> Option<&'static str> {
    let ft = std::fs::metadata(path).ok()?.file_type();
    if ft.is_file() {
        return None;
    }
    if ft.is_dir() {
        return Some("is a directory");
    }
    if path == Path::new("/dev/stdin")
        || path.starts_with("/dev/fd")
        || path.starts_with("/proc/self/fd")
    {
        return None;
    }
    special_kind(&ft)
}

#[cfg(unix)]
fn special_kind(ft: &std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    Some(if ft.is_fifo() {
        "is a FIFO (named pipe), not a regular file"
    } else if ft.is_socket() {
        "is a socket, not a regular file"
    } else if ft.is_char_device() {
        "is a character device, not a regular file"
    } else if ft.is_block_device() {
        "is a block device, not a regular file"
    } else {
        "is not a regular file"
    })
}

#[cfg(not(unix))]
fn special_kind(_: &std::fs::FileType) -> Option<&'static str> {
    Some("is not a regular file")
}

/// Where the preprocessor reads files: the disk ([`Disk`]), or a snapshot
/// such as a git revision, so that a program and its includes can be read as
/// they were in one commit without checking it out.
pub trait Files {
    /// Whether `path` names a regular file.
    fn is_file(&self, path: &Path) -> bool;
    /// The bytes of the file at `path`: at most `max`, `Err(None)` when it
    /// is larger (as [`read_limited`]), or the I/O error.
    fn read(&self, path: &Path, max: u64) -> Result<Vec<u8>, Option<std::io::Error>>;
    /// The file's identity, for include guards and cycles: two paths with
    /// the same key are the same file.
    fn key(&self, path: &Path) -> String;
    /// Why `path`, which exists but is not a regular file, is not read
    /// ([`refusal`]); `None` when it is readable or absent.
    fn refusal(&self, _path: &Path) -> Option<&'static str> {
        None
    }
}

/// The [`Files`] of the disk, read through the operating system.
#[derive(Clone, Copy, Debug, Default)]
pub struct Disk;

impl Files for Disk {
    fn is_file(&self, path: &Path) -> bool {
        path.is_file()
    }

    fn read(&self, path: &Path, max: u64) -> Result<Vec<u8>, Option<std::io::Error>> {
        if let Some(why) = refusal(path) {
            return Err(Some(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                why,
            )));
        }
        read_limited(std::fs::File::open(path).map_err(Some)?, max)
    }

    fn refusal(&self, path: &Path) -> Option<&'static str> {
        refusal(path)
    }

    fn key(&self, path: &Path) -> String {
        std::fs::canonicalize(path)
            .unwrap_or_else(|_| path.to_path_buf())
            .display()
            .to_string()
    }
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
