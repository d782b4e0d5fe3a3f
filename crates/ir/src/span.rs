//! Source locations: every IR item points back to the text it came from.

use serde::{Deserialize, Serialize};

use crate::FileId;

/// A source file (or compiler-output file) an item was read from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceFile {
    /// The path as the user or the include resolver named it (bundled
    /// architecture files are named `<bundled>/tna.p4` and so on).
    pub path: String,
}

/// A byte range in one original source file, with the 1-based line and
/// column of its first byte. Offsets are in the original file, not in the
/// preprocessed text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Span {
    /// The file, an index into [`crate::Program::files`].
    pub file: FileId,
    /// Byte offset of the first byte.
    pub lo: u32,
    /// Byte offset one past the last byte (`hi >= lo`).
    pub hi: u32,
    /// 1-based line of `lo`.
    pub line: u32,
    /// 1-based column (in bytes) of `lo`.
    pub col: u32,
}

impl Span {
    /// A span of zero length at the start of a file: used by readers whose
    /// input has no finer location (for example a JSON entry without
    /// `source_info`).
    pub fn file_start(file: FileId) -> Span {
        Span {
            file,
            lo: 0,
            hi: 0,
            line: 1,
            col: 1,
        }
    }
}
