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
//!
//! A lowering worker that answered through a channel frees the rest of
//! what it built itself, after its answer: [`behind`] keeps it until the
//! next answer, so that freeing never piles up behind a caller.

use std::sync::{Mutex, OnceLock};
use std::thread::JoinHandle;

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

/// The lowering worker of the last answered load, which may still be
/// freeing what it built.
static BEHIND: Behind = Behind::new();

/// Keeps `worker`, which has answered and frees what it built, and waits
/// for the one kept before it (see [`Behind::keep`]).
pub(crate) fn behind(worker: JoinHandle<()>) {
    BEHIND.keep(worker);
}

/// Waits for the worker kept behind the last load, if any, to end, and
/// for the trees handed to the freeing thread to be freed.
pub(crate) fn finish() {
    BEHIND.finish();
    if let Some(freer) = FREER.get() {
        freer.flush();
    }
}

/// The one worker kept freeing behind its caller.
struct Behind(Mutex<Option<JoinHandle<()>>>);

impl Behind {
    const fn new() -> Behind {
        Behind(Mutex::new(None))
    }

    /// Keeps `worker` and waits for the worker kept before it to end
    /// (done long since, as a rule: it had the whole of the load that
    /// `worker` answered to finish).
    fn keep(&self, worker: JoinHandle<()>) {
        join(self.swap(Some(worker)));
    }

    /// Waits for the worker kept, if any, to end.
    fn finish(&self) {
        join(self.swap(None));
    }

    /// Puts `worker` in the place of the one kept, which it returns.
    fn swap(&self, worker: Option<JoinHandle<()>>) -> Option<JoinHandle<()>> {
        let mut kept = match self.0.lock() {
            Ok(kept) => kept,
            Err(poisoned) => poisoned.into_inner(),
        };
        std::mem::replace(&mut *kept, worker)
    }
}

/// Waits for `worker`, if any, to end. A panic while freeing has nothing
/// left to report to anyone.
fn join(worker: Option<JoinHandle<()>>) {
    if let Some(worker) = worker {
        let _ = worker.join();
    }
}

#[cfg(test)]
mod tests {
    use super::Behind;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{mpsc, Arc};

    /// Keeping a worker does not wait for it; keeping the next one waits
    /// for it to end, so no more than one frees behind a caller.
    #[test]
    fn the_next_worker_kept_waits_for_the_one_before() {
        let behind = Behind::new();
        let done = Arc::new(AtomicBool::new(false));
        let (release, wait) = mpsc::channel::<()>();
        let first = std::thread::spawn({
            let done = Arc::clone(&done);
            move || {
                let _ = wait.recv();
                done.store(true, Ordering::SeqCst);
            }
        });
        // Returns at once: the first worker is still blocked.
        behind.keep(first);
        assert!(!done.load(Ordering::SeqCst));
        let releaser = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            let _ = release.send(());
        });
        behind.keep(std::thread::spawn(|| {}));
        assert!(done.load(Ordering::SeqCst), "the first worker had ended");
        let _ = releaser.join();
    }

    /// Finishing waits for the worker kept.
    #[test]
    fn finishing_waits_for_the_worker_kept() {
        let behind = Behind::new();
        let done = Arc::new(AtomicBool::new(false));
        behind.keep(std::thread::spawn({
            let done = Arc::clone(&done);
            move || {
                std::thread::sleep(std::time::Duration::from_millis(50));
                done.store(true, Ordering::SeqCst);
            }
        }));
        behind.finish();
        assert!(done.load(Ordering::SeqCst));
        // Nothing kept: returns at once.
        behind.finish();
    }

    /// Loads in a row each answer with their program while the worker of
    /// the one before frees behind them.
    #[test]
    fn loads_in_a_row_each_answer() {
        let src = "header h_t { bit<8> a; }\nstruct s_t { h_t h; }\n\
                   control C(inout s_t s) { action a() { s.h.a = 1; } table t { actions = { a; } } apply { t.apply(); } }\n";
        let opts = crate::Options::default();
        for _ in 0..20 {
            let loaded = crate::load_source("p.p4", src, &opts).expect("the program lowers");
            assert_eq!(loaded.program.tables.len(), 1);
        }
    }
}
