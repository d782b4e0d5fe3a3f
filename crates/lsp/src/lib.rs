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
//! (`EditorFacts::files`). Preprocessing is run again on each analysis: it
//! is about 2 % of one (switch_p4_16), so its output is not kept.
//!
//! Threads: a reader frames the messages from stdin with bounds
//! (`transport`), the message loop answers requests at once from each
//! document's last finished analysis (`server`), and one analysis worker
//! (`worker`) analyses the latest version of each changed document: the
//! versions that arrive while it is busy replace each other in its queue,
//! and a running analysis whose document changed again stops at its next
//! stage boundary; diagnostics are published for the latest version only.
//!
//! Dependencies: `engine`, `config`, `ir`, `model`, `lsp-server` (its
//! message types), `lsp-types`, `serde_json`.

mod convert;
mod project;
mod render;
mod report_lens;
mod server;
mod transport;
mod worker;

pub use server::{serve, Stats};
pub use transport::{read_messages, Incoming, MAX_MESSAGE_BYTES};

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
    let (to_server, incoming) = std::sync::mpsc::channel();
    // The reader is not joined: after `exit` it may be blocked on stdin,
    // and the process ends anyway.
    std::thread::Builder::new()
        .name("p4cost-lsp-reader".to_string())
        .spawn(move || {
            transport::read_messages(std::io::stdin().lock(), |i| to_server.send(i).is_ok())
        })
        .map_err(LspError::Io)?;
    let (out, outgoing) = std::sync::mpsc::channel::<String>();
    let writer = std::thread::Builder::new()
        .name("p4cost-lsp-writer".to_string())
        .spawn(move || -> std::io::Result<()> {
            let mut w = std::io::stdout().lock();
            outgoing
                .iter()
                .try_for_each(|body| transport::write_message(&mut w, &body))
        })
        .map_err(LspError::Io)?;
    let stats = serve(incoming, out);
    // Everything answered is written before the process ends.
    let written = writer
        .join()
        .map_err(|_| LspError::Protocol("the writer thread panicked".to_string()))?;
    let stats = stats?;
    written.map_err(LspError::Io)?;
    if stats.shut_down {
        Ok(())
    } else {
        Err(LspError::NoShutdown)
    }
}
