//! The message loop: requests answered at once from each document's last
//! good analysis, analyses run on the worker (the latest version of each
//! document, stopped when a newer one comes), diagnostics published for
//! the latest version only.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;

use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    Cancel, DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument,
    Notification as _, PublishDiagnostics,
};
use lsp_types::request::{CodeLensRequest, HoverRequest, InlayHintRequest, Request as _};
use lsp_types::{
    CodeLensOptions, HoverProviderCapability, OneOf, PublishDiagnosticsParams, ServerCapabilities,
    TextDocumentSyncCapability, TextDocumentSyncKind, Url,
};
use serde_json::Value;

use p4cost_engine::drop_later::DropLater;
use p4cost_engine::ide::EditorFacts;

use crate::transport::{message_json, Incoming};
use crate::worker::{Done, Job, Worker};
use crate::{render, LspError};

/// What the server did, for tests and the log.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    /// Analyses finished for a document's latest version (each published).
    pub analyses: u64,
    /// Analyses started and then stopped, or finished and not published,
    /// because a newer version came.
    pub cancelled: u64,
    /// Versions never analysed: a newer one replaced them in the queue.
    pub coalesced: u64,
    /// Whether the client asked for `shutdown` before the session ended
    /// (by `exit` or by closing the connection). The protocol's rule: exit
    /// code 0 if so, 1 if not.
    pub shut_down: bool,
}

/// What the loop waits for.
enum Event {
    Incoming(Incoming),
    /// The client closed the connection.
    Closed,
    Done(Done),
}

/// A finished analysis and the text it is of.
struct Analysis {
    text: Arc<str>,
    generation: u64,
    facts: Arc<EditorFacts>,
}

/// An open document.
struct Doc {
    path: PathBuf,
    text: Arc<str>,
    version: i32,
    /// Bumped at each change of the document or of a file it reads.
    generation: u64,
    /// The newest analysis finished (of this version or an older one).
    last: Option<Analysis>,
    /// Requests that came before any analysis finished.
    waiting: Vec<(RequestId, Ask)>,
}

/// A request about a document.
enum Ask {
    Hints(lsp_types::InlayHintParams),
    Hover(lsp_types::HoverParams),
    Lenses,
}

struct State {
    docs: HashMap<Url, Doc>,
    worker: Worker,
    out: Sender<String>,
    stats: Stats,
    generations: u64,
    initialized: bool,
    shutting_down: bool,
    /// Frees replaced analyses off the message loop.
    drops: DropLater,
}

/// Serves one client: messages from `incoming` (until `exit`, or until it
/// closes), replies and notifications as JSON to `out`.
/// [`Stats::shut_down`] tells whether `shutdown` came first.
pub fn serve(incoming: Receiver<Incoming>, out: Sender<String>) -> Result<Stats, LspError> {
    let (tx, events) = mpsc::channel();
    let forward = tx.clone();
    std::thread::Builder::new()
        .name("p4cost-lsp-inbox".to_string())
        .spawn(move || {
            for i in incoming {
                if forward.send(Event::Incoming(i)).is_err() {
                    return;
                }
            }
            let _ = forward.send(Event::Closed);
        })
        .map_err(LspError::Io)?;
    let worker = Worker::start(move |d| tx.send(Event::Done(d)).is_ok()).map_err(LspError::Io)?;
    let mut st = State {
        docs: HashMap::new(),
        worker,
        out,
        stats: Stats::default(),
        generations: 0,
        initialized: false,
        shutting_down: false,
        drops: DropLater::new(),
    };
    while let Ok(event) = events.recv() {
        match event {
            Event::Closed => break,
            Event::Incoming(Incoming::Refused(reply)) => st.send(reply)?,
            Event::Incoming(Incoming::Message(m)) => {
                if st.message(m)? {
                    break;
                }
            }
            Event::Done(d) => st.done(d)?,
        }
    }
    st.worker.stop();
    Ok(st.stats)
}

/// The capabilities `initialize` answers with.
fn capabilities() -> Value {
    let caps = ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        inlay_hint_provider: Some(OneOf::Left(true)),
        code_lens_provider: Some(CodeLensOptions {
            resolve_provider: Some(false),
        }),
        execute_command_provider: Some(lsp_types::ExecuteCommandOptions {
            commands: vec![crate::report_lens::COMMAND.to_string()],
            ..Default::default()
        }),
        ..ServerCapabilities::default()
    };
    serde_json::json!({ "capabilities": caps })
}

/// Whether two paths name one file: equal as written, or once resolved
/// (an include reached through `..` or a symbolic link).
fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    a == b
        || matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
}

/// Whether an analysis read `path` (or read nothing: its input did not
/// load, so may now).
fn reads(facts: &EditorFacts, path: &std::path::Path) -> bool {
    facts
        .files
        .as_ref()
        .is_none_or(|files| files.iter().any(|x| same_file(x, path)))
}

fn error(id: RequestId, code: ErrorCode, message: impl Into<String>) -> Response {
    Response::new_err(id, code as i32, message.into())
}

impl State {
    fn send(&self, json: String) -> Result<(), LspError> {
        self.out
            .send(json)
            .map_err(|_| LspError::Protocol("the client went away".to_string()))
    }

    fn reply(&self, r: Response) -> Result<(), LspError> {
        self.send(message_json(&Message::Response(r)))
    }

    /// Handles one message; true at `exit`.
    fn message(&mut self, m: Message) -> Result<bool, LspError> {
        match m {
            Message::Request(req) => self.request(req)?,
            Message::Notification(n) if n.method == "exit" => return Ok(true),
            Message::Notification(n) if self.shutting_down => drop(n),
            Message::Notification(n) => self.notification(n)?,
            Message::Response(_) => {}
        }
        Ok(false)
    }

    fn request(&mut self, req: Request) -> Result<(), LspError> {
        let r = match req.method.as_str() {
            "initialize" if self.initialized => error(
                req.id,
                ErrorCode::InvalidRequest,
                "initialize came a second time",
            ),
            "initialize" => {
                self.initialized = true;
                Response::new_ok(req.id, capabilities())
            }
            _ if !self.initialized => error(
                req.id,
                ErrorCode::ServerNotInitialized,
                format!("{} before initialize", req.method),
            ),
            "shutdown" => {
                self.shutting_down = true;
                self.stats.shut_down = true;
                self.worker.stop();
                self.refuse_waiting()?;
                Response::new_ok(req.id, Value::Null)
            }
            _ if self.shutting_down => error(
                req.id,
                ErrorCode::InvalidRequest,
                "the server is shutting down",
            ),
            "workspace/executeCommand" => {
                let (r, show) = crate::report_lens::execute(req.id, req.params);
                self.reply(r)?;
                return match show {
                    Some(s) => self.send(message_json(&Message::Request(s))),
                    None => Ok(()),
                };
            }
            _ => return self.ask(req),
        };
        self.reply(r)
    }

    /// Answers a request about a document from its last analysis, or
    /// keeps it until the first one finishes.
    fn ask(&mut self, req: Request) -> Result<(), LspError> {
        let id = req.id.clone();
        let parsed = match req.method.as_str() {
            InlayHintRequest::METHOD => serde_json::from_value(req.params)
                .map(|p: lsp_types::InlayHintParams| (p.text_document.uri.clone(), Ask::Hints(p))),
            HoverRequest::METHOD => {
                serde_json::from_value(req.params).map(|p: lsp_types::HoverParams| {
                    let uri = p.text_document_position_params.text_document.uri.clone();
                    (uri, Ask::Hover(p))
                })
            }
            CodeLensRequest::METHOD => serde_json::from_value(req.params)
                .map(|p: lsp_types::CodeLensParams| (p.text_document.uri, Ask::Lenses)),
            _ => {
                let why = format!("p4cost lsp does not answer {}", req.method);
                return self.reply(error(id, ErrorCode::MethodNotFound, why));
            }
        };
        let (uri, ask) = match parsed {
            Ok(x) => x,
            Err(e) => return self.reply(error(id, ErrorCode::InvalidParams, e.to_string())),
        };
        let Some(doc) = self.docs.get_mut(&uri) else {
            return self.reply(Response::new_ok(id, Value::Null));
        };
        if doc.last.is_none() {
            doc.waiting.push((id, ask));
            return Ok(());
        }
        let r = answer(doc, id, &ask);
        self.reply(r)
    }

    /// Refuses every request still waiting for a first analysis (the
    /// server is shutting down).
    fn refuse_waiting(&mut self) -> Result<(), LspError> {
        let waiting: Vec<RequestId> = self
            .docs
            .values_mut()
            .flat_map(|d| d.waiting.drain(..).map(|(id, _)| id))
            .collect();
        for id in waiting {
            let why = "the server shut down before the document was analysed";
            self.reply(error(id, ErrorCode::RequestCanceled, why))?;
        }
        Ok(())
    }

    fn notification(&mut self, n: Notification) -> Result<(), LspError> {
        match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(n.params)
                {
                    let d = p.text_document;
                    self.set(d.uri, d.version, Arc::from(d.text));
                }
            }
            DidChangeTextDocument::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(n.params)
                {
                    // Full sync: the last change holds the whole text.
                    if let Some(c) = p.content_changes.into_iter().last() {
                        let d = p.text_document;
                        self.set(d.uri, d.version, Arc::from(c.text));
                    }
                }
            }
            DidSaveTextDocument::METHOD => {
                // Another file saved may be an include of an open one: the
                // open documents are analysed again (the overlay sees the
                // new disk version).
                let all: Vec<Url> = self.docs.keys().cloned().collect();
                all.into_iter().for_each(|u| self.submit(u));
            }
            DidCloseTextDocument::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(n.params)
                {
                    return self.close(&p.text_document.uri);
                }
            }
            Cancel::METHOD => {
                if let Ok(p) = serde_json::from_value::<lsp_types::CancelParams>(n.params) {
                    return self.cancel(p.id);
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn close(&mut self, uri: &Url) -> Result<(), LspError> {
        let Some(d) = self.docs.remove(uri) else {
            return Ok(());
        };
        if self.worker.forget(uri) {
            self.stats.coalesced += 1;
        }
        self.worker.close_buffer(d.path);
        for (id, _) in d.waiting {
            self.reply(Response::new_ok(id, Value::Null))?;
        }
        Ok(())
    }

    /// `$/cancelRequest`: a request still waiting is answered
    /// RequestCancelled (the others were answered already).
    fn cancel(&mut self, id: lsp_types::NumberOrString) -> Result<(), LspError> {
        let id = match id {
            lsp_types::NumberOrString::Number(n) => RequestId::from(n),
            lsp_types::NumberOrString::String(s) => RequestId::from(s),
        };
        let mut found = false;
        for d in self.docs.values_mut() {
            let before = d.waiting.len();
            d.waiting.retain(|(w, _)| *w != id);
            found |= d.waiting.len() != before;
        }
        if found {
            return self.reply(error(id, ErrorCode::RequestCanceled, "cancelled"));
        }
        Ok(())
    }

    /// A new text for `uri`: it is analysed again, and so are the other
    /// open documents whose last analysis read it.
    fn set(&mut self, uri: Url, version: i32, text: Arc<str>) {
        let Ok(path) = uri.to_file_path() else {
            return;
        };
        self.worker.set_buffer(path.clone(), text.clone());
        let readers: Vec<Url> = self
            .docs
            .iter()
            .filter(|(u, d)| **u != uri && d.last.as_ref().is_some_and(|a| reads(&a.facts, &path)))
            .map(|(u, _)| u.clone())
            .collect();
        let doc = self.docs.entry(uri.clone()).or_insert_with(|| Doc {
            path,
            text: text.clone(),
            version,
            generation: 0,
            last: None,
            waiting: Vec::new(),
        });
        doc.text = text;
        doc.version = version;
        self.submit(uri);
        readers.into_iter().for_each(|u| self.submit(u));
    }

    /// Queues the current text of `uri` for analysis.
    fn submit(&mut self, uri: Url) {
        self.generations += 1;
        let generation = self.generations;
        let Some(doc) = self.docs.get_mut(&uri) else {
            return;
        };
        doc.generation = generation;
        let job = Job {
            path: doc.path.clone(),
            text: doc.text.clone(),
            version: doc.version,
            generation,
        };
        if self.worker.submit(uri, job) {
            self.stats.coalesced += 1;
        }
    }

    /// An analysis finished or stopped: kept if it is the document's
    /// newest, published if it is of its latest version, and the requests
    /// that waited for it answered.
    fn done(&mut self, d: Done) -> Result<(), LspError> {
        let Some(doc) = self.docs.get_mut(&d.uri).filter(|_| !self.shutting_down) else {
            return Ok(());
        };
        let Some(facts) = d.facts else {
            self.stats.cancelled += 1;
            return Ok(());
        };
        let current = d.job.generation == doc.generation;
        // The analysis replaced is freed off this thread, after publishing
        // (with a Tofino placement it holds the whole last program).
        let mut replaced = None;
        if doc
            .last
            .as_ref()
            .is_none_or(|a| a.generation < d.job.generation)
        {
            replaced = doc.last.replace(Analysis {
                text: d.job.text.clone(),
                generation: d.job.generation,
                facts: facts.clone(),
            });
        }
        let answers: Vec<Response> = std::mem::take(&mut doc.waiting)
            .into_iter()
            .map(|(id, ask)| answer(doc, id, &ask))
            .collect();
        let publish = current.then(|| PublishDiagnosticsParams {
            uri: d.uri.clone(),
            diagnostics: render::diagnostics(&doc.path, &d.job.text, &facts),
            version: Some(d.job.version),
        });
        if let Some(params) = publish {
            self.stats.analyses += 1;
            let n = Notification::new(PublishDiagnostics::METHOD.to_string(), params);
            self.send(message_json(&Message::Notification(n)))?;
        } else {
            self.stats.cancelled += 1;
        }
        let answered = answers.into_iter().try_for_each(|r| self.reply(r));
        self.drops.drop_later((replaced, facts));
        answered
    }
}

/// The answer to `ask` from the document's last analysis (positions are
/// those of the text analysed).
fn answer(doc: &Doc, id: RequestId, ask: &Ask) -> Response {
    let Some(a) = &doc.last else {
        return Response::new_ok(id, Value::Null);
    };
    let (path, text, facts) = (&doc.path, &a.text, &a.facts);
    let v = match ask {
        Ask::Hints(p) => serde_json::to_value(render::inlay_hints(path, text, facts, p.range)),
        Ask::Hover(p) => serde_json::to_value(render::hover(
            path,
            text,
            facts,
            p.text_document_position_params.position,
        )),
        Ask::Lenses => {
            let mut lenses = render::code_lenses(path, text, facts);
            crate::report_lens::add(&mut lenses, path);
            serde_json::to_value(lenses)
        }
    };
    match v {
        Ok(v) => Response::new_ok(id, v),
        Err(e) => error(id, ErrorCode::InternalError, e.to_string()),
    }
}

#[cfg(test)]
mod tests;
