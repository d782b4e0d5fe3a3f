//! The engine's error: an input or option the engine cannot answer for.

use std::fmt;

/// Why the engine gave no report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// An input that cannot be read or lowered, or options that contradict
    /// each other or the input. The message is already
    /// `file:line:col: ...` (or a JSON path) where there is a location.
    Input(String),
    /// No parse path extracts the header sequence asked for: the packet
    /// does not exist in that program (a chain's hop it does not cross).
    NoPath(String),
}

impl Error {
    /// An input or option error.
    pub fn input(message: impl Into<String>) -> Error {
        Error::Input(message.into())
    }

    /// The message.
    pub fn message(&self) -> &str {
        match self {
            Error::Input(m) | Error::NoPath(m) => m,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for Error {}
