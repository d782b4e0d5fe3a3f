//! [`DropLater`]: a thread that frees what it is handed, so a caller has
//! its answer without waiting for what it is done with to be freed one
//! allocation at a time. The work moves, it is not removed: the freeing
//! thread does it while the caller goes on.
//!
//! The front end frees its syntax trees this way (`free_tree`), and the
//! language server its last analysis; it lives here, in the lowest crate
//! that uses it, so both share one mechanism.

use std::sync::mpsc::{sync_channel, SyncSender};
use std::thread::JoinHandle;

/// What the freeing thread is handed.
type Parcel = Box<dyn Send>;

/// A thread that drops what it is given. At most one value waits while
/// another is dropped (a sender blocks past that), so what waits to be
/// freed stays bounded whatever the callers do. Without the thread (it
/// could not be started), values are dropped where they are given.
/// Dropping a `DropLater` waits until what it was handed is freed.
pub struct DropLater {
    tx: Option<SyncSender<Parcel>>,
    thread: Option<JoinHandle<()>>,
}

impl DropLater {
    /// Starts the freeing thread with the platform's default stack.
    pub fn new() -> DropLater {
        DropLater::start(std::thread::Builder::new().name("p4cost-drop".to_string()))
    }

    /// Starts the freeing thread, named `name`, with a stack of
    /// `stack_bytes`: what it frees may recurse that deep when dropped (a
    /// syntax tree, as deep as the parser's nesting limits allow).
    pub fn with_stack(name: &str, stack_bytes: usize) -> DropLater {
        DropLater::start(
            std::thread::Builder::new()
                .name(name.to_string())
                .stack_size(stack_bytes),
        )
    }

    fn start(builder: std::thread::Builder) -> DropLater {
        let (tx, rx) = sync_channel::<Parcel>(1);
        match builder.spawn(move || rx.into_iter().for_each(drop)) {
            Ok(t) => DropLater {
                tx: Some(tx),
                thread: Some(t),
            },
            Err(_) => DropLater {
                tx: None,
                thread: None,
            },
        }
    }

    /// Drops `value` on the freeing thread (here, when it has stopped).
    pub fn drop_later<T: Send + 'static>(&self, value: T) {
        match &self.tx {
            // A send fails only once the thread is gone: the value comes
            // back and is dropped here.
            Some(tx) => drop(tx.send(Box::new(value))),
            None => drop(value),
        }
    }
}

impl DropLater {
    /// Waits until everything handed over before this call is freed:
    /// the freeing thread drops in order, so a marker handed over last
    /// signals it when it is dropped.
    pub fn flush(&self) {
        struct Marker(SyncSender<()>);
        impl Drop for Marker {
            fn drop(&mut self) {
                let _ = self.0.send(());
            }
        }
        let (tx, rx) = sync_channel(1);
        self.drop_later(Marker(tx));
        let _ = rx.recv();
    }
}

impl Default for DropLater {
    fn default() -> DropLater {
        DropLater::new()
    }
}

impl Drop for DropLater {
    /// Closes the channel and waits for what was handed over to be freed.
    fn drop(&mut self) {
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl std::fmt::Debug for DropLater {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DropLater")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    struct Counted(Arc<AtomicUsize>, std::thread::ThreadId);

    impl Drop for Counted {
        fn drop(&mut self) {
            assert_ne!(std::thread::current().id(), self.1, "freed elsewhere");
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn every_value_is_dropped_on_the_other_thread_by_the_end() {
        let n = Arc::new(AtomicUsize::new(0));
        let d = DropLater::with_stack("test-drop", 1 << 20);
        let here = std::thread::current().id();
        for _ in 0..5 {
            d.drop_later(Counted(n.clone(), here));
        }
        drop(d);
        assert_eq!(n.load(Ordering::SeqCst), 5);
    }

    struct Slow(Arc<AtomicUsize>);

    impl Drop for Slow {
        fn drop(&mut self) {
            std::thread::sleep(std::time::Duration::from_millis(20));
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn flush_waits_for_what_was_handed_over_before() {
        let n = Arc::new(AtomicUsize::new(0));
        let d = DropLater::with_stack("test-flush", 1 << 20);
        for _ in 0..3 {
            d.drop_later(Slow(n.clone()));
        }
        d.flush();
        assert_eq!(n.load(Ordering::SeqCst), 3);
        // Nothing waiting: returns at once.
        d.flush();
    }
}
