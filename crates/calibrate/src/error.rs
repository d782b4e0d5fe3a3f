//! The calibration errors.

use std::path::PathBuf;

/// What can go wrong generating a suite, reading measurements or fitting.
#[derive(Debug, thiserror::Error)]
pub enum CalibrateError {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A measurement file is malformed at a line.
    #[error("{file}:{line}: {message}")]
    Data {
        /// The file as given.
        file: String,
        /// 1-based line (the header is line 1).
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// The options or the data cannot give what was asked.
    #[error("{0}")]
    Invalid(String),
    /// A generated program did not load or analyse as expected (a bug in
    /// the generator: the suite must be readable by p4cost itself).
    #[error("generated program {program}: {message}")]
    Generated {
        /// The program.
        program: String,
        /// What failed.
        message: String,
    },
}

impl CalibrateError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        CalibrateError::Io {
            path: path.into(),
            source,
        }
    }
}
