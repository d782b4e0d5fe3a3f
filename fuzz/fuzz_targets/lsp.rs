//! The language server's message loop: the input is the byte stream a
//! client writes to the server's stdin (Content-Length framing, JSON-RPC
//! bodies), framed by the server's transport and served until it ends.
//! Like a client waiting for its diagnostics, the harness holds the next
//! message after a `didOpen`/`didChange` (once `initialize` was sent) until
//! diagnostics are published or 2 s passed, so requests after it are
//! answered from a finished analysis (hints, hover, lenses rendered).
#![no_main]

mod shared;

use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use lsp_server::Message;
use p4cost_lsp::Incoming;

/// Longest wait for diagnostics after a change.
const WAIT: Duration = Duration::from_secs(2);

fuzz_target!(|data: &[u8]| {
    // Document URIs and includes name files on the disk.
    if shared::names_device(&String::from_utf8_lossy(data)) {
        return;
    }
    let mut messages = Vec::new();
    p4cost_lsp::read_messages(data, |i| {
        messages.push(i);
        true
    });
    let (to_server, incoming) = mpsc::channel();
    let (out, replies) = mpsc::channel();
    let server = std::thread::spawn(move || p4cost_lsp::serve(incoming, out));
    let mut initialized = false;
    for m in messages {
        let method = match &m {
            Incoming::Message(Message::Request(r)) => r.method.clone(),
            Incoming::Message(Message::Notification(n)) => n.method.clone(),
            _ => String::new(),
        };
        if to_server.send(m).is_err() {
            break;
        }
        initialized |= method == "initialize";
        let changed = method == "textDocument/didOpen" || method == "textDocument/didChange";
        if initialized && changed {
            wait_for_diagnostics(&replies);
        }
    }
    drop(to_server);
    let _ = server.join();
    for _ in replies.try_iter() {}
});

/// Drains `replies` until one publishes diagnostics or [`WAIT`] passed.
fn wait_for_diagnostics(replies: &Receiver<String>) {
    let end = Instant::now() + WAIT;
    while let Some(left) = end.checked_duration_since(Instant::now()) {
        match replies.recv_timeout(left) {
            Ok(r) if r.contains("textDocument/publishDiagnostics") => return,
            Ok(_) => {}
            Err(_) => return,
        }
    }
}
