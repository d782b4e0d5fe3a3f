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
use std::sync::OnceLock;

use p4cost_syntax::ast;

/// The channel to the freeing thread; `None` when the thread could not be
/// started.
static FREER: OnceLock<Option<SyncSender<ast::Program>>> = OnceLock::new();

/// Frees `tree` on the freeing thread (here, when there is none).
pub(crate) fn free_later(tree: ast::Program) {
    match FREER.get_or_init(start) {
        // A send fails only once the thread is gone: the tree comes back
        // and is dropped here.
        Some(tx) => drop(tx.send(tree)),
        None => drop(tree),
    }
}

/// Starts the freeing thread, with the stack the lowering thread has:
/// dropping a tree recurses as deep as the tree (bounded by the parser's
/// nesting limits).
fn start() -> Option<SyncSender<ast::Program>> {
    let (tx, rx) = sync_channel::<ast::Program>(1);
    std::thread::Builder::new()
        .name("p4cost-free-tree".to_string())
        .stack_size(crate::LOWER_STACK_BYTES)
        .spawn(move || rx.into_iter().for_each(drop))
        .ok()
        .map(|_| tx)
}
