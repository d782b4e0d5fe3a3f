//! Errors of the context.json and bfrt.json readers.

use thiserror::Error;

/// Why a Tofino compiler output could not be read.
///
/// Every variant names the file; the structural variants also name the
/// place in the document as a JSON path such as
/// `tables[12].match_attributes.stage_tables[0].stage_number`.
#[derive(Debug, Error)]
pub enum TofinoError {
    /// The text is not JSON at all (serde_json's message carries the line
    /// and column).
    #[error("{file}: invalid JSON: {source}")]
    Json {
        /// File name as given by the caller.
        file: String,
        /// The parser's error, with line and column.
        #[source]
        source: serde_json::Error,
    },
    /// A value has the wrong JSON type.
    #[error("{file}: {path}: expected {expected}, found {found}")]
    Type {
        /// File name as given by the caller.
        file: String,
        /// JSON path of the value.
        path: String,
        /// What the reader needs there.
        expected: String,
        /// What the file has there.
        found: String,
    },
    /// A required member is absent.
    #[error("{file}: {path}: required field is missing")]
    Missing {
        /// File name as given by the caller.
        file: String,
        /// JSON path of the missing member.
        path: String,
    },
    /// A value has the right type but a meaning the reader cannot accept.
    #[error("{file}: {path}: {message}")]
    Invalid {
        /// File name as given by the caller.
        file: String,
        /// JSON path of the value.
        path: String,
        /// What is wrong with it.
        message: String,
    },
    /// Valid JSON, but not a Tofino context.json.
    #[error("{file}: not a Tofino context.json: {reason}")]
    NotContext {
        /// File name as given by the caller.
        file: String,
        /// What was looked for.
        reason: String,
    },
    /// Valid JSON, but not a BF-RT JSON file.
    #[error("{file}: not a BF-RT JSON file: {reason}")]
    NotBfrt {
        /// File name as given by the caller.
        file: String,
        /// What was looked for.
        reason: String,
    },
}

/// A structural fault found while walking a document, before the file name
/// is attached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fault {
    /// Wrong JSON type.
    Type {
        path: String,
        expected: &'static str,
        found: String,
    },
    /// Required member absent.
    Missing { path: String },
    /// Unacceptable value.
    Invalid { path: String, message: String },
}

impl Fault {
    /// The error for this fault in the named file.
    pub(crate) fn in_file(self, file: &str) -> TofinoError {
        let file = file.to_string();
        match self {
            Fault::Type {
                path,
                expected,
                found,
            } => TofinoError::Type {
                file,
                path,
                expected: expected.to_string(),
                found,
            },
            Fault::Missing { path } => TofinoError::Missing { file, path },
            Fault::Invalid { path, message } => TofinoError::Invalid {
                file,
                path,
                message,
            },
        }
    }
}
