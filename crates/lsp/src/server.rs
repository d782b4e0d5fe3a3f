//! The server loop: buffers in, analyses coalesced, answers out.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument,
    Notification as _, PublishDiagnostics,
};
use lsp_types::request::{CodeLensRequest, HoverRequest, InlayHintRequest, Request as _};
use lsp_types::{
    CodeLensOptions, HoverProviderCapability, OneOf, PublishDiagnosticsParams, ServerCapabilities,
    TextDocumentSyncCapability, TextDocumentSyncKind, Url,
};

use p4cost_engine::ide::{self, EditorFacts};
use p4cost_engine::overlay::Overlay;
use p4cost_engine::Session;

use crate::{project, render, LspError};

/// What the server did, for tests and the log: analyses run and changes
/// coalesced into them.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    /// Analyses run.
    pub analyses: u64,
    /// Buffer versions never analysed because a newer one came first.
    pub coalesced: u64,
    /// Whether the client asked for `shutdown` before the session ended
    /// (by `exit` or by closing the connection). The protocol's rule: exit
    /// code 0 if so, 1 if not.
    pub shut_down: bool,
}

/// An open document.
struct Doc {
    path: PathBuf,
    text: Arc<str>,
    version: i32,
    /// The facts of `version`, once analysed.
    facts: Option<Arc<EditorFacts>>,
    /// Versions set since the last analysis.
    pending: u64,
}

struct State {
    docs: HashMap<Url, Doc>,
    overlay: Overlay,
    stats: Stats,
}

/// Serves one client on `connection` until `exit` (or the connection
/// closes); [`Stats::shut_down`] tells whether `shutdown` came first.
pub fn serve(connection: &Connection) -> Result<Stats, LspError> {
    let caps = ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        inlay_hint_provider: Some(OneOf::Left(true)),
        code_lens_provider: Some(CodeLensOptions {
            resolve_provider: Some(false),
        }),
        ..ServerCapabilities::default()
    };
    let caps = serde_json::to_value(caps).map_err(|e| LspError::Protocol(e.to_string()))?;
    connection
        .initialize(caps)
        .map_err(|e| LspError::Protocol(e.to_string()))?;
    let mut st = State {
        docs: HashMap::new(),
        overlay: Overlay::new(),
        stats: Stats::default(),
    };
    let mut shutting_down = false;
    while let Ok(first) = connection.receiver.recv() {
        // Take everything already queued before analysing: a burst of
        // keystrokes is analysed once, at its last version.
        let mut batch = vec![first];
        while let Ok(m) = connection.receiver.try_recv() {
            batch.push(m);
        }
        for msg in batch {
            match msg {
                Message::Request(req) if req.method == "shutdown" => {
                    shutting_down = true;
                    st.stats.shut_down = true;
                    let ok = Response::new_ok(req.id, serde_json::Value::Null);
                    send(connection, Message::Response(ok))?;
                }
                Message::Request(req) if shutting_down => {
                    let refused = Response::new_err(
                        req.id,
                        lsp_server::ErrorCode::InvalidRequest as i32,
                        "the server is shutting down".to_string(),
                    );
                    send(connection, Message::Response(refused))?;
                }
                Message::Request(req) => {
                    let resp = st.request(req);
                    send(connection, Message::Response(resp))?;
                }
                // `exit` ends the loop (it may come in the same batch as
                // `shutdown`: both are handled here, not by a second read).
                Message::Notification(n) if n.method == "exit" => return Ok(st.stats),
                Message::Notification(n) => st.notification(n),
                Message::Response(_) => {}
            }
        }
        if shutting_down {
            continue;
        }
        for (uri, facts) in st.analyse_pending() {
            let params = st.diagnostics(&uri, &facts);
            let n = Notification::new(PublishDiagnostics::METHOD.to_string(), params);
            send(connection, Message::Notification(n))?;
        }
    }
    Ok(st.stats)
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

fn send(connection: &Connection, m: Message) -> Result<(), LspError> {
    connection
        .sender
        .send(m)
        .map_err(|e| LspError::Protocol(format!("the client went away: {e}")))
}

impl State {
    fn notification(&mut self, n: Notification) {
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
                for d in self.docs.values_mut() {
                    d.facts = None;
                    d.pending += 1;
                }
            }
            DidCloseTextDocument::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(n.params)
                {
                    if let Some(d) = self.docs.remove(&p.text_document.uri) {
                        self.overlay.close(&d.path);
                    }
                }
            }
            _ => {}
        }
    }

    fn set(&mut self, uri: Url, version: i32, text: Arc<str>) {
        let Ok(path) = uri.to_file_path() else {
            return;
        };
        self.overlay.set(path.clone(), text.clone());
        let pending = self.docs.get(&uri).map_or(0, |d| d.pending);
        // Other open documents that read this file (or whose input did not
        // load, so may now) are analysed again; the others keep their facts.
        let reads = |f: &EditorFacts| {
            f.files
                .as_ref()
                .is_none_or(|files| files.iter().any(|x| same_file(x, &path)))
        };
        for d in self.docs.values_mut() {
            if d.facts.as_deref().is_some_and(reads) {
                d.facts = None;
                d.pending += 1;
            }
        }
        self.docs.insert(
            uri,
            Doc {
                path,
                text,
                version,
                facts: None,
                pending: pending + 1,
            },
        );
    }

    /// Analyses every document changed since its last analysis.
    fn analyse_pending(&mut self) -> Vec<(Url, Arc<EditorFacts>)> {
        let dirty: Vec<Url> = self
            .docs
            .iter()
            .filter(|(_, d)| d.facts.is_none())
            .map(|(u, _)| u.clone())
            .collect();
        dirty
            .into_iter()
            .filter_map(|u| self.facts(&u).map(|f| (u, f)))
            .collect()
    }

    /// The facts of the document's current version, analysed once.
    fn facts(&mut self, uri: &Url) -> Option<Arc<EditorFacts>> {
        let d = self.docs.get(uri)?;
        if let Some(f) = &d.facts {
            return Some(f.clone());
        }
        let (o, budgets, config_error) = project::target_for(&d.path);
        let mut session = Session::new();
        let loaded =
            p4cost_engine::input::load_text(&d.path, d.text.to_string(), &o.source, &self.overlay);
        session.preload(&o, loaded);
        let mut facts = ide::facts(&mut session, &o, &budgets);
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
        let facts = Arc::new(facts);
        self.stats.analyses += 1;
        let d = self.docs.get_mut(uri)?;
        self.stats.coalesced += d.pending.saturating_sub(1);
        d.pending = 0;
        d.facts = Some(facts.clone());
        Some(facts)
    }

    fn diagnostics(&self, uri: &Url, facts: &EditorFacts) -> PublishDiagnosticsParams {
        let d = &self.docs[uri];
        PublishDiagnosticsParams {
            uri: uri.clone(),
            diagnostics: render::diagnostics(&d.path, &d.text, facts),
            version: Some(d.version),
        }
    }

    fn request(&mut self, req: Request) -> Response {
        let id = req.id.clone();
        let result = match req.method.as_str() {
            InlayHintRequest::METHOD => self
                .with_doc::<lsp_types::InlayHintParams, _>(req, |p| {
                    (p.text_document.uri.clone(), p)
                })
                .map(|(doc, facts, p)| {
                    serde_json::to_value(render::inlay_hints(&doc.path, &doc.text, &facts, p.range))
                }),
            HoverRequest::METHOD => self
                .with_doc::<lsp_types::HoverParams, _>(req, |p| {
                    (p.text_document_position_params.text_document.uri.clone(), p)
                })
                .map(|(doc, facts, p)| {
                    serde_json::to_value(render::hover(
                        &doc.path,
                        &doc.text,
                        &facts,
                        p.text_document_position_params.position,
                    ))
                }),
            CodeLensRequest::METHOD => self
                .with_doc::<lsp_types::CodeLensParams, _>(req, |p| (p.text_document.uri.clone(), p))
                .map(|(doc, facts, _)| {
                    serde_json::to_value(render::code_lenses(&doc.path, &doc.text, &facts))
                }),
            _ => {
                return Response::new_err(
                    id,
                    lsp_server::ErrorCode::MethodNotFound as i32,
                    format!("p4cost lsp does not answer {}", req.method),
                )
            }
        };
        match result {
            Ok(Ok(v)) => Response::new_ok(id, v),
            Ok(Err(e)) => Response::new_err(
                id,
                lsp_server::ErrorCode::InternalError as i32,
                e.to_string(),
            ),
            Err(r) => *r,
        }
    }

    /// The request's params, its document and that document's facts; an
    /// error response for bad params, a null result for an unknown
    /// document.
    #[allow(clippy::type_complexity)]
    fn with_doc<P, F>(
        &mut self,
        req: Request,
        uri_of: F,
    ) -> Result<(DocView, Arc<EditorFacts>, P), Box<Response>>
    where
        P: serde::de::DeserializeOwned,
        F: FnOnce(P) -> (Url, P),
    {
        let id: RequestId = req.id.clone();
        let params: P = serde_json::from_value(req.params).map_err(|e| {
            Box::new(Response::new_err(
                id.clone(),
                lsp_server::ErrorCode::InvalidParams as i32,
                e.to_string(),
            ))
        })?;
        let (uri, params) = uri_of(params);
        let facts = self
            .facts(&uri)
            .ok_or_else(|| Box::new(Response::new_ok(id.clone(), serde_json::Value::Null)))?;
        let d = &self.docs[&uri];
        Ok((
            DocView {
                path: d.path.clone(),
                text: d.text.clone(),
            },
            facts,
            params,
        ))
    }
}

/// A document's path and text, for rendering an answer.
struct DocView {
    path: PathBuf,
    text: Arc<str>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_server::Connection;
    use serde_json::json;

    fn note(method: &str, params: serde_json::Value) -> Message {
        Message::Notification(Notification::new(method.to_string(), params))
    }

    fn req(id: i32, method: &str, params: serde_json::Value) -> Message {
        Message::Request(Request::new(id.into(), method.to_string(), params))
    }

    #[test]
    fn changes_queued_during_an_analysis_are_analysed_once() {
        let dir = std::env::temp_dir().join(format!("p4cost-lsp-coalesce-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let path = dir.join("p.p4");
        let uri = Url::from_file_path(&path).expect("uri");
        let text = |n: usize| {
            format!(
                "#include <core.p4>\n#include <v1model.p4>\nheader h_t {{ bit<{}> f; }}\n",
                8 * (n + 1)
            )
        };
        let (server, client) = Connection::memory();
        // Everything is queued before the server reads: open, four edits,
        // then a request, shutdown and exit.
        let mut msgs = vec![
            req(1, "initialize", json!({"capabilities": {}})),
            note("initialized", json!({})),
            note(
                "textDocument/didOpen",
                json!({"textDocument": {"uri": uri, "languageId": "p4", "version": 1, "text": text(0)}}),
            ),
        ];
        for v in 2..=5 {
            msgs.push(note(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri, "version": v},
                       "contentChanges": [{"text": text(v as usize)}]}),
            ));
        }
        msgs.push(req(
            2,
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        ));
        msgs.push(req(3, "shutdown", serde_json::Value::Null));
        msgs.push(note("exit", serde_json::Value::Null));
        for m in msgs {
            client.sender.send(m).expect("queued");
        }
        let stats = serve(&server).expect("served");
        assert_eq!(stats.analyses, 1, "{stats:?}");
        assert_eq!(stats.coalesced, 4, "{stats:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A change to one document analyses again the documents that read
    /// it, and only those: an unrelated open document keeps its facts.
    #[test]
    fn a_change_reanalyses_only_the_documents_that_read_the_file() {
        let dir = std::env::temp_dir().join(format!("p4cost-lsp-reads-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let sample = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../p4-samples/tofino/tc2_datacenter.p4"),
        )
        .expect("sample");
        let main_text = format!("#include \"inc.p4\"\n{sample}");
        let inc_text = |v: u32| format!("const bit<8> UNUSED_{v} = {v};\n");
        std::fs::write(dir.join("inc.p4"), inc_text(0)).expect("inc");
        let uri = |name: &str| Url::from_file_path(dir.join(name)).expect("uri");
        let (server, client) = Connection::memory();
        let running = std::thread::spawn(move || serve(&server));
        let send = |m: Message| client.sender.send(m).expect("sent");
        let open = |name: &str, text: &str| {
            note(
                "textDocument/didOpen",
                json!({"textDocument": {"uri": uri(name), "languageId": "p4",
                       "version": 1, "text": text}}),
            )
        };
        // Waits for the diagnostics of exactly these documents.
        let published = |want: &[&str]| {
            let mut want: Vec<Url> = want.iter().map(|n| uri(n)).collect();
            while !want.is_empty() {
                let m = client
                    .receiver
                    .recv_timeout(std::time::Duration::from_secs(60))
                    .expect("diagnostics");
                if let Message::Notification(n) = m {
                    let u: Url = serde_json::from_value(n.params["uri"].clone()).expect("uri");
                    assert!(want.contains(&u), "diagnostics of {u}, expected {want:?}");
                    want.retain(|w| *w != u);
                }
            }
        };
        send(req(1, "initialize", json!({"capabilities": {}})));
        let _ = client.receiver.recv().expect("initialized");
        send(note("initialized", json!({})));
        send(open("main.p4", &main_text));
        published(&["main.p4"]);
        send(open("other.p4", &sample));
        published(&["other.p4"]);
        send(note(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri("other.p4"), "version": 2},
                   "contentChanges": [{"text": format!("{sample}\n")}]}),
        ));
        published(&["other.p4"]);
        // The include opened with unsaved text: main reads it, other not.
        send(open("inc.p4", &inc_text(1)));
        published(&["main.p4", "inc.p4"]);
        send(req(2, "shutdown", serde_json::Value::Null));
        let _ = client.receiver.recv().expect("shutdown answered");
        send(note("exit", serde_json::Value::Null));
        let stats = running.join().expect("server thread").expect("served");
        // main, other, other again, then main and inc: five, not seven.
        assert_eq!(stats.analyses, 5, "{stats:?}");
        assert!(stats.shut_down);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
