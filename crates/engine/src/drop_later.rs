//! Frees a value on a thread of its own, so an editor's last analysis
//! (its program, its session) is not freed on the path from keystroke to
//! published diagnostics. The work moves, it is not removed: the
//! freeing thread does it while the next keystroke waits or is analysed.

use std::sync::mpsc::{sync_channel, SyncSender};
use std::thread::JoinHandle;

/// Drops `value`, or, when `to_exit` (the process ends after this
/// command), leaves it to the exit: the kernel takes the whole heap back
/// at once, where dropping frees it one allocation at a time (the reports
/// and program of `predict switch_p4_16.p4`: 15 M instructions, 5 % of
/// the command). A library caller passes `false` and frees as usual.
pub fn leave<T>(to_exit: bool, value: T) {
    if to_exit {
        std::mem::forget(value);
    } else {
        drop(value);
    }
}

/// What the freeing thread is handed.
type Parcel = Box<dyn Send>;

/// A thread that drops what it is given. At most one value waits while
/// another is dropped (a sender blocks past that), so what waits to be
/// freed stays bounded. Without the thread (it could not be started),
/// values are dropped where they are given.
pub struct DropLater {
    tx: Option<SyncSender<Parcel>>,
    thread: Option<JoinHandle<()>>,
}

impl DropLater {
    /// Starts the freeing thread.
    pub fn new() -> DropLater {
        let (tx, rx) = sync_channel::<Parcel>(1);
        let thread = std::thread::Builder::new()
            .name("p4cost-drop".to_string())
            .spawn(move || rx.into_iter().for_each(drop));
        match thread {
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
        let d = DropLater::new();
        let here = std::thread::current().id();
        for _ in 0..5 {
            d.drop_later(Counted(n.clone(), here));
        }
        drop(d);
        assert_eq!(n.load(Ordering::SeqCst), 5);
    }
}
