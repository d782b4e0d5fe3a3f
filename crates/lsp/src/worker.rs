//! The analysis worker: one thread that analyses the documents off the
//! message loop, the latest pending version of each (versions queued
//! while it was busy are never analysed), and stops an analysis whose
//! document changed again at the next stage boundary.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use lsp_types::Url;
use p4cost_engine::class_memo::ClassMemo;
use p4cost_engine::drop_later::DropLater;
use p4cost_engine::ide::{self, EditorFacts};
use p4cost_engine::input::{self, Reuse};
use p4cost_engine::overlay::Overlay;
use p4cost_engine::Session;

use crate::project;

/// A document version to analyse.
#[derive(Debug, Clone)]
pub struct Job {
    pub path: PathBuf,
    pub text: Arc<str>,
    /// The editor's version of `text`.
    pub version: i32,
    /// The document's generation (bumped at every change of it or of a
    /// file it reads): a result is current only while it is the same.
    pub generation: u64,
}

/// What the worker gives back: the facts, or `None` when the analysis
/// was stopped because a newer version came.
#[derive(Debug)]
pub struct Done {
    pub uri: Url,
    pub job: Job,
    pub facts: Option<Arc<EditorFacts>>,
}

/// What the worker keeps per open document between its analyses.
struct Kept {
    /// The last parse's declarations.
    parse: Reuse,
    /// The last analyses' class figures.
    classes: ClassMemo,
}

impl Default for Kept {
    fn default() -> Kept {
        Kept {
            parse: Reuse::default(),
            classes: ClassMemo::new(),
        }
    }
}

/// A change to the worker's overlay (the open buffers includes are read
/// from), applied before its next analysis.
enum Edit {
    Set(PathBuf, Arc<str>),
    Close(PathBuf),
}

#[derive(Default)]
struct Queue {
    /// The latest pending version per document, with its arrival order.
    jobs: HashMap<Url, (u64, Job)>,
    arrivals: u64,
    edits: Vec<Edit>,
    running: Option<(Url, Arc<AtomicBool>)>,
    stopped: bool,
}

/// The handle the message loop holds.
pub struct Worker {
    shared: Arc<(Mutex<Queue>, Condvar)>,
}

impl Worker {
    /// Starts the worker thread; each result goes to `done` (the thread
    /// ends when that fails or at [`Worker::stop`]).
    pub fn start(done: impl Fn(Done) -> bool + Send + 'static) -> std::io::Result<Worker> {
        let shared = Arc::new((Mutex::new(Queue::default()), Condvar::new()));
        let theirs = shared.clone();
        std::thread::Builder::new()
            .name("p4cost-lsp-analysis".to_string())
            .spawn(move || run(&theirs, done))?;
        Ok(Worker { shared })
    }

    fn queue(&self) -> MutexGuard<'_, Queue> {
        self.shared.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues `job` for `uri`, replacing its pending version (returned:
    /// whether one was replaced) and stopping its running analysis.
    pub fn submit(&self, uri: Url, job: Job) -> bool {
        let mut q = self.queue();
        q.arrivals += 1;
        let order = q.arrivals;
        cancel_if_running(&q, &uri);
        let replaced = q.jobs.insert(uri, (order, job)).is_some();
        self.shared.1.notify_one();
        replaced
    }

    /// Forgets `uri`'s pending version and stops its running analysis
    /// (the document closed).
    pub fn forget(&self, uri: &Url) -> bool {
        let mut q = self.queue();
        cancel_if_running(&q, uri);
        q.jobs.remove(uri).is_some()
    }

    /// Sets an open buffer's text in the overlay includes are read from.
    pub fn set_buffer(&self, path: PathBuf, text: Arc<str>) {
        self.queue().edits.push(Edit::Set(path, text));
    }

    /// Closes a buffer in the overlay: the disk's version counts again.
    pub fn close_buffer(&self, path: PathBuf) {
        self.queue().edits.push(Edit::Close(path));
    }

    /// Stops the running analysis and the thread.
    pub fn stop(&self) {
        let mut q = self.queue();
        q.stopped = true;
        q.jobs.clear();
        if let Some((_, flag)) = &q.running {
            flag.store(true, Ordering::Relaxed);
        }
        self.shared.1.notify_one();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.stop();
    }
}

fn cancel_if_running(q: &Queue, uri: &Url) {
    if let Some((running, flag)) = &q.running {
        if running == uri {
            flag.store(true, Ordering::Relaxed);
        }
    }
}

fn run(shared: &(Mutex<Queue>, Condvar), done: impl Fn(Done) -> bool) {
    let mut overlay = Overlay::new();
    // Per open document, its last parse (a keystroke parses again only the
    // declarations it changed or moved) and its last class figures (a
    // keystroke that changes no class input walks no class).
    let mut reuse: HashMap<PathBuf, Kept> = HashMap::new();
    // Each analysis's session (the program it lowered) is freed off this
    // thread, so the facts go back before it is.
    let drops = DropLater::new();
    loop {
        let Some((uri, job, flag)) = next_job(shared, &mut overlay, &mut reuse) else {
            return;
        };
        let kept = reuse.entry(job.path.clone()).or_default();
        let facts = analyse(&job, &overlay, &flag, kept, &drops);
        if let Ok(mut q) = shared.0.lock() {
            q.running = None;
        }
        if !done(Done { uri, job, facts }) {
            return;
        }
    }
}

/// Waits for the oldest pending document, applies the overlay's edits
/// and marks it running; `None` once stopped.
fn next_job(
    shared: &(Mutex<Queue>, Condvar),
    overlay: &mut Overlay,
    reuse: &mut HashMap<PathBuf, Kept>,
) -> Option<(Url, Job, Arc<AtomicBool>)> {
    let mut q = shared.0.lock().unwrap_or_else(|p| p.into_inner());
    loop {
        if q.stopped {
            return None;
        }
        let oldest = q
            .jobs
            .iter()
            .min_by_key(|(_, (order, _))| *order)
            .map(|(u, _)| u.clone());
        if let Some(uri) = oldest {
            let (_, job) = q.jobs.remove(&uri)?;
            for e in q.edits.drain(..) {
                match e {
                    Edit::Set(p, t) => overlay.set(p, t),
                    Edit::Close(p) => {
                        reuse.remove(&p);
                        overlay.close(&p)
                    }
                }
            }
            let flag = Arc::new(AtomicBool::new(false));
            q.running = Some((uri.clone(), flag.clone()));
            return Some((uri, job, flag));
        }
        q = shared.1.wait(q).unwrap_or_else(|p| p.into_inner());
    }
}

/// The facts of `job`, or `None` when `cancelled` was set: checked before
/// the front end (preprocess, parse, lower), by the engine between its
/// stages (each pipeline, the parse graph, the path costs, the packet
/// classes), and after the analysis.
fn analyse(
    job: &Job,
    overlay: &Overlay,
    cancelled: &Arc<AtomicBool>,
    kept: &mut Kept,
    drops: &DropLater,
) -> Option<Arc<EditorFacts>> {
    let stop = || cancelled.load(Ordering::Relaxed);
    if stop() {
        return None;
    }
    let (mut o, budgets, config_error) = project::target_for(&job.path);
    o.cancel = p4cost_engine::cancel::Cancel::new(cancelled.clone());
    o.class_memo = kept.classes.clone();
    let reuse = &mut kept.parse;
    let loaded =
        input::load_text_reusing(&job.path, job.text.to_string(), &o.source, overlay, reuse);
    if stop() {
        return None;
    }
    let mut session = Session::new();
    session.preload(&o, loaded);
    let (mut facts, reports) = ide::facts_keeping(&mut session, &o, &budgets);
    drops.drop_later((session, reports));
    if stop() {
        return None;
    }
    if let Some(e) = config_error {
        facts.notes.insert(
            0,
            ide::Note {
                code: "config".to_string(),
                message: e,
                span: None,
                denied: false,
            },
        );
    }
    Some(Arc::new(facts))
}
