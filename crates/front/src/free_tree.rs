//! Frees syntax trees on a thread of their own. Once a tree is lowered
//! its program is the answer, and freeing the tree one node at a time
//! (7 % of the front end's instructions on a generated 1 MB program) need
//! not come before it: the freeing thread does it while the caller goes
//! on (the analysis, or the next load). The work moves, it is not removed.
//!
//! One thread for the process, started with the first tree. At most one
//! tree waits while another is freed: a sender blocks past that, so what
//! waits to be freed stays bounded whatever the callers do. Where the
//! thread cannot be started, trees are freed where they are given.

use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::{Mutex, OnceLock};

use p4cost_syntax::ast;

/// The freeing thread's end of the channel; `None` when it could not be
/// started.
static FREER: OnceLock<Option<Mutex<SyncSender<ast::Program>>>> = OnceLock::new();

/// Frees `tree` on the freeing thread (here, when there is none).
pub(crate) fn free_later(tree: ast::Program) {
    let freer = FREER.get_or_init(start);
    let unsent = match freer.as_ref().map(|tx| tx.lock()) {
        Some(Ok(tx)) => tx.send(tree).err().map(|e| e.0),
        _ => Some(tree),
    };
    drop(unsent);
}

/// Starts the freeing thread, with the stack the lowering thread has:
/// dropping a tree recurses as deep as the tree (bounded by the parser's
/// nesting limits).
fn start() -> Option<Mutex<SyncSender<ast::Program>>> {
    let (tx, rx) = sync_channel::<ast::Program>(1);
    std::thread::Builder::new()
        .name("p4cost-free-tree".to_string())
        .stack_size(crate::LOWER_STACK_BYTES)
        .spawn(move || rx.into_iter().for_each(drop))
        .ok()
        .map(|_| Mutex::new(tx))
}
