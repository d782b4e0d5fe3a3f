//! p4cost-lsp: the language server (`p4cost lsp`).
//!
//! For each open `.p4` file (and BMv2 JSON or context.json) it publishes
//! diagnostics (input errors, budgets from the project's p4cost.toml the
//! program exceeds, the model's extrapolation warnings), inlay hints (the
//! latency term beside each parse state, table declaration and
//! `t.apply()`), hover text with the arithmetic, and code lenses with the
//! per-class totals of each pipeline. Everything shown comes from the
//! engine's `ide::facts`; this crate parses protocol messages and renders.
//!
//! Between keystrokes it reuses what did not change: the engine's
//! `Overlay` keeps every file read from the disk (includes) until it
//! changes there, the facts of a buffer are computed once per version, a
//! change to one file analyses again only the open documents that read it
//! (`EditorFacts::files`), and changes queued while an analysis ran are
//! coalesced into one analysis. Preprocessing is run again on each
//! analysis: it is about 2 % of one (switch_p4_16), so its output is not
//! kept.
//!
//! Dependencies: `engine`, `config`, `ir`, `model`, `lsp-server` (the
//! JSON-RPC transport rust-analyzer uses), `lsp-types`, `serde_json`.

mod convert;
mod project;
mod render;
mod server;

pub use server::{serve, Stats};

/// Why the server stopped with an error.
#[derive(Debug)]
pub enum LspError {
    /// The client broke the protocol (or the connection closed early).
    Protocol(String),
    /// Reading or writing stdio failed.
    Io(std::io::Error),
    /// The session ended (`exit`, or the client closed the connection)
    /// without a `shutdown` request: the protocol asks for exit code 1.
    NoShutdown,
}

impl std::fmt::Display for LspError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LspError::Protocol(m) => write!(f, "language server protocol error: {m}"),
            LspError::Io(e) => write!(f, "language server I/O error: {e}"),
            LspError::NoShutdown => {
                write!(f, "the client ended the session without a shutdown request")
            }
        }
    }
}

impl std::error::Error for LspError {}

/// Serves the language server protocol on stdin and stdout until the
/// client sends `exit` or closes stdin; [`LspError::NoShutdown`] when no
/// `shutdown` came before (the protocol's exit code 1).
pub fn run_stdio() -> Result<(), LspError> {
    let (connection, io_threads) = lsp_server::Connection::stdio();
    let stats = serve(&connection)?;
    drop(connection);
    io_threads.join().map_err(LspError::Io)?;
    if stats.shut_down {
        Ok(())
    } else {
        Err(LspError::NoShutdown)
    }
}
