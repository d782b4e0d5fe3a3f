//! The reader's error type: every error says what was expected and where,
//! as a JSON path such as `pipelines[0].tables[3].key[1].match_type`.

use thiserror::Error;

/// Why a BMv2 JSON file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Bmv2Error {
    /// The text is not valid JSON.
    #[error("invalid JSON at line {line}, column {column}: {message}")]
    Json {
        /// 1-based line of the problem.
        line: usize,
        /// 1-based column of the problem.
        column: usize,
        /// serde_json's description.
        message: String,
    },
    /// The JSON is valid but is not a BMv2 program description.
    #[error("not a BMv2 JSON file: {reason}")]
    NotBmv2 {
        /// What is missing.
        reason: String,
    },
    /// A value has the wrong JSON type.
    #[error("{path}: expected {expected}, found {found}")]
    WrongType {
        /// JSON path of the value.
        path: String,
        /// What the reader wanted (`a string`, `an array`, ...).
        expected: String,
        /// The JSON type it found (`number`, `null`, ...).
        found: &'static str,
    },
    /// A required key is absent.
    #[error("{path}: missing key `{key}`")]
    Missing {
        /// JSON path of the object.
        path: String,
        /// The absent key.
        key: String,
    },
    /// A value has the right type but a wrong content (unknown reference,
    /// bad hex string, duplicate name, ...).
    #[error("{path}: {message}")]
    Invalid {
        /// JSON path of the value.
        path: String,
        /// What is wrong.
        message: String,
    },
}

impl From<serde_json::Error> for Bmv2Error {
    fn from(e: serde_json::Error) -> Self {
        Bmv2Error::Json {
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        }
    }
}

/// Result with [`Bmv2Error`].
pub type Result<T> = std::result::Result<T, Bmv2Error>;
