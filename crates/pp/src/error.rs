//! Errors and warnings reported by the preprocessor, each tied to a source position.

use std::fmt;

/// A reported source position: file path (after `#line` renaming), 1-based line and 1-based
/// byte column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrLoc {
    /// Path of the file as resolved (bundled files as `<bundled>/name`), or the name set by `#line`.
    pub path: String,
    /// 1-based line number (after `#line` adjustment).
    pub line: u32,
    /// 1-based byte column.
    pub col: u32,
}

impl fmt::Display for ErrLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.path, self.line, self.col)
    }
}

/// A fatal preprocessing error. `Display` is exactly `path:line:col: message`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PpError {
    /// A file could not be read (missing root file, unreadable include, invalid UTF-8).
    #[error("{loc}: cannot read '{path}': {message}")]
    Io {
        /// Where the read was requested (the `#include`, or the file itself for the root).
        loc: ErrLoc,
        /// The path that failed.
        path: String,
        /// The operating system's reason.
        message: String,
    },
    /// An `#include` names a file found neither on disk nor among the bundled files.
    #[error("{loc}: include file '{name}' not found (searched: {searched})")]
    IncludeNotFound {
        /// The `#include` directive.
        loc: ErrLoc,
        /// The name as written between the quotes or angle brackets.
        name: String,
        /// Where it was looked for, in order: the includer's directory
        /// (quoted includes), each `-I` directory, the bundled includes.
        searched: String,
    },
    /// A file includes itself, directly or through others, without a guard stopping it.
    #[error("{loc}: include cycle: {chain}")]
    IncludeCycle {
        /// The `#include` directive closing the cycle.
        loc: ErrLoc,
        /// The files of the cycle, `a.p4 -> b.p4 -> a.p4`.
        chain: String,
    },
    /// An active `#error` directive.
    #[error("{loc}: #error {message}")]
    ErrorDirective {
        /// The directive.
        loc: ErrLoc,
        /// The text after `#error`.
        message: String,
    },
    /// A `/*` comment that never ends.
    #[error("{loc}: unterminated comment")]
    UnterminatedComment {
        /// Where the comment opened.
        loc: ErrLoc,
    },
    /// Unbalanced or misordered `#if`/`#elif`/`#else`/`#endif`.
    #[error("{loc}: {message}")]
    Conditional {
        /// The offending directive (or the unterminated `#if`).
        loc: ErrLoc,
        /// What is wrong.
        message: String,
    },
    /// A malformed or unknown directive.
    #[error("{loc}: {message}")]
    Directive {
        /// The directive.
        loc: ErrLoc,
        /// What is wrong.
        message: String,
    },
    /// A `#if`/`#elif` expression that cannot be evaluated.
    #[error("{loc}: {message}")]
    Expression {
        /// The offending token or directive.
        loc: ErrLoc,
        /// What is wrong.
        message: String,
    },
    /// A macro invocation that cannot be expanded (bad argument count, unterminated arguments).
    #[error("{loc}: {message}")]
    Macro {
        /// The macro invocation.
        loc: ErrLoc,
        /// What is wrong.
        message: String,
    },
    /// A resource limit (include depth, expansion depth or size) was exceeded.
    #[error("{loc}: {message}")]
    Limit {
        /// Where the limit was hit.
        loc: ErrLoc,
        /// Which limit.
        message: String,
    },
}

impl PpError {
    /// The position the error is reported at.
    pub fn location(&self) -> &ErrLoc {
        match self {
            PpError::Io { loc, .. }
            | PpError::IncludeNotFound { loc, .. }
            | PpError::IncludeCycle { loc, .. }
            | PpError::ErrorDirective { loc, .. }
            | PpError::UnterminatedComment { loc }
            | PpError::Conditional { loc, .. }
            | PpError::Directive { loc, .. }
            | PpError::Expression { loc, .. }
            | PpError::Macro { loc, .. }
            | PpError::Limit { loc, .. } => loc,
        }
    }
}

/// A non-fatal diagnostic (`#warning`, macro redefinition). `Display` is
/// `path:line:col: warning: message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PpWarning {
    /// Where the warning arose.
    pub loc: ErrLoc,
    /// The message (for `#warning`, the text after the directive name).
    pub message: String,
}

impl fmt::Display for PpWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: warning: {}", self.loc, self.message)
    }
}
