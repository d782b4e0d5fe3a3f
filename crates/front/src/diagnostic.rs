//! Errors and warnings with a location in the original source.

use std::fmt;

/// A message tied to `file:line:col`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    /// File path as shown to the user.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.col, self.message
        )
    }
}

/// Why a source program could not be read.
#[derive(Debug, thiserror::Error)]
pub enum FrontError {
    /// The file could not be read.
    #[error("{path}: cannot read: {message}")]
    Io {
        /// The path.
        path: String,
        /// The OS error.
        message: String,
    },
    /// A preprocessor error (`#error`, missing include, include cycle,
    /// unterminated comment, bad directive).
    #[error("{0}")]
    Preprocess(Diagnostic),
    /// A syntax error.
    #[error("{0}")]
    Syntax(Diagnostic),
    /// A semantic error found while lowering (undefined type or width,
    /// unknown state, ...).
    #[error("{0}")]
    Lower(Diagnostic),
}

impl FrontError {
    /// The diagnostic, when the error has a location.
    pub fn diagnostic(&self) -> Option<&Diagnostic> {
        match self {
            FrontError::Io { .. } => None,
            FrontError::Preprocess(d) | FrontError::Syntax(d) | FrontError::Lower(d) => Some(d),
        }
    }
}
