//! Exit codes a pre-commit hook can rely on, and the CLI's error type.

use std::fmt;

/// Process exit codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Exit {
    /// Success.
    Ok = 0,
    /// The command ran and found a failure (for `parse`: a file that does
    /// not parse).
    Failed = 1,
    /// Usage or input error: bad flag, unreadable or invalid input.
    Input = 2,
}

/// An error the CLI reports and exits on.
#[derive(Debug)]
pub struct CliError {
    /// The message, already `file:line:col: ...` when there is a location.
    pub message: String,
    /// The exit code.
    pub code: Exit,
    /// The engine's error it came from, when it did (for a snippet of
    /// the source line).
    pub engine: Option<p4cost_engine::Error>,
}

impl CliError {
    /// An input or usage error (exit 2).
    pub fn input(message: impl Into<String>) -> CliError {
        CliError {
            message: message.into(),
            code: Exit::Input,
            engine: None,
        }
    }

    /// A failure to write the report. A closed pipe (`p4cost predict ... |
    /// head`) is no error: the reader has what it wanted, so p4cost stops
    /// quietly with exit 0, as ripgrep and cargo do.
    pub fn output(e: std::io::Error) -> CliError {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            return CliError {
                message: String::new(),
                code: Exit::Ok,
                engine: None,
            };
        }
        CliError::input(format!("cannot write output: {e}"))
    }

    /// The exit code for this error.
    pub fn exit_code(&self) -> Exit {
        self.code
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<p4cost_engine::Error> for CliError {
    fn from(e: p4cost_engine::Error) -> CliError {
        // A program over its chip's stages is a finding, not an input error.
        let code = match e {
            p4cost_engine::Error::DoesNotFit { .. } => Exit::Failed,
            _ => Exit::Input,
        };
        CliError {
            message: e.message().to_string(),
            code,
            engine: e.site().is_some().then_some(e),
        }
    }
}
