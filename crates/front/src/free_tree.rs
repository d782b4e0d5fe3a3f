//! Frees syntax trees on a thread of their own. Once a tree is lowered
//! its program is the answer, and freeing the tree one node at a time
//! (7 % of the front end's instructions on a generated 1 MB program) need
//! not come before it: the freeing thread does it while the caller goes
//! on (the analysis, or the next load). The work moves, it is not removed.
//!
//! One [`DropLater`] for the process, started with the first tree, with
//! the lowering thread's stack: dropping a tree recurses as deep as the
//! tree (bounded by the parser's nesting limits). It is never dropped, so
//! nothing waits for it; at most one tree waits while another is freed.

use std::sync::OnceLock;

use p4cost_syntax::ast;

use crate::drop_later::DropLater;

/// The process's freeing thread for trees.
static FREER: OnceLock<DropLater> = OnceLock::new();

/// Frees `tree` on the freeing thread (here, when there is none).
pub(crate) fn free_later(tree: ast::Program) {
    FREER
        .get_or_init(|| DropLater::with_stack("p4cost-free-tree", crate::LOWER_STACK_BYTES))
        .drop_later(tree);
}
