use super::*;
use serde_json::json;
use std::time::Duration;

fn note(method: &str, params: Value) -> Incoming {
    Incoming::Message(Message::Notification(Notification::new(
        method.to_string(),
        params,
    )))
}

fn req(id: i32, method: &str, params: Value) -> Incoming {
    Incoming::Message(Message::Request(Request::new(
        id.into(),
        method.to_string(),
        params,
    )))
}

/// A server on channels: what to send it, what it wrote, its result.
struct Running {
    to: Sender<Incoming>,
    from: Receiver<String>,
    server: std::thread::JoinHandle<Result<Stats, LspError>>,
}

fn start() -> Running {
    let (to, incoming) = mpsc::channel();
    let (out, from) = mpsc::channel();
    let server = std::thread::spawn(move || serve(incoming, out));
    Running { to, from, server }
}

impl Running {
    fn send(&self, i: Incoming) {
        self.to.send(i).expect("sent");
    }

    fn next(&self) -> Value {
        let m = self
            .from
            .recv_timeout(Duration::from_secs(120))
            .expect("a message in time");
        serde_json::from_str(&m).expect("JSON")
    }

    /// Messages until the answer to request `id` (returned last).
    fn until_answer(&self, id: i32) -> Vec<Value> {
        let mut got = Vec::new();
        loop {
            let m = self.next();
            let done = m["id"] == id;
            got.push(m);
            if done {
                return got;
            }
        }
    }

    fn finish(self, id: i32) -> Stats {
        self.send(req(id, "shutdown", Value::Null));
        self.until_answer(id);
        self.send(note("exit", Value::Null));
        self.server.join().expect("server thread").expect("served")
    }
}

fn published(msgs: &[Value]) -> Vec<(String, i64)> {
    msgs.iter()
        .filter(|m| m["method"] == "textDocument/publishDiagnostics")
        .map(|m| {
            (
                m["params"]["uri"].as_str().unwrap_or("").to_string(),
                m["params"]["version"].as_i64().unwrap_or(-1),
            )
        })
        .collect()
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("p4cost-lsp-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    dir
}

/// Edits queued together are analysed once, at their last version: one
/// analysis finishes and is published, every other version was replaced
/// in the queue or stopped; a request that came before any analysis
/// finished is answered from that one.
#[test]
fn changes_queued_together_are_analysed_once() {
    let dir = scratch("coalesce");
    let uri = Url::from_file_path(dir.join("p.p4")).expect("uri");
    let text = |n: i32| {
        format!(
            "#include <core.p4>\n#include <v1model.p4>\nheader h_t {{ bit<{}> f; }}\n",
            8 * (n + 1)
        )
    };
    let s = start();
    s.send(req(1, "initialize", json!({"capabilities": {}})));
    s.send(note("initialized", json!({})));
    s.send(note(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "p4", "version": 1, "text": text(1)}}),
    ));
    for v in 2..=5 {
        s.send(note(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": v},
                   "contentChanges": [{"text": text(v)}]}),
        ));
    }
    s.send(req(
        2,
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    ));
    let got = s.until_answer(2);
    assert_eq!(got[0]["id"], 1, "initialize answered first");
    assert_eq!(published(&got), vec![(uri.to_string(), 5)], "{got:?}");
    assert!(
        got.last().is_some_and(|m| m["result"].is_array()),
        "{got:?}"
    );
    let stats = s.finish(3);
    assert_eq!(stats.analyses, 1, "{stats:?}");
    assert_eq!(stats.coalesced + stats.cancelled, 4, "{stats:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A change to one document analyses again the documents that read it,
/// and only those: an unrelated open document keeps its facts.
#[test]
fn a_change_reanalyses_only_the_documents_that_read_the_file() {
    let dir = scratch("reads");
    let sample = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../p4-samples/tofino/tc2_datacenter.p4"),
    )
    .expect("sample");
    let main_text = format!("#include \"inc.p4\"\n{sample}");
    let inc_text = |v: u32| format!("const bit<8> UNUSED_{v} = {v};\n");
    std::fs::write(dir.join("inc.p4"), inc_text(0)).expect("inc");
    let uri = |name: &str| Url::from_file_path(dir.join(name)).expect("uri");
    let s = start();
    let open = |name: &str, text: &str| {
        note(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri(name), "languageId": "p4",
                   "version": 1, "text": text}}),
        )
    };
    // Waits for the diagnostics of exactly these documents.
    let expect = |want: &[&str]| {
        let mut want: Vec<String> = want.iter().map(|n| uri(n).to_string()).collect();
        while !want.is_empty() {
            let m = s.next();
            if let Some(u) = m["params"]["uri"].as_str() {
                assert!(
                    want.iter().any(|w| w == u),
                    "diagnostics of {u}, expected {want:?}"
                );
                want.retain(|w| w != u);
            }
        }
    };
    s.send(req(1, "initialize", json!({"capabilities": {}})));
    s.until_answer(1);
    s.send(note("initialized", json!({})));
    s.send(open("main.p4", &main_text));
    expect(&["main.p4"]);
    s.send(open("other.p4", &sample));
    expect(&["other.p4"]);
    s.send(note(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri("other.p4"), "version": 2},
               "contentChanges": [{"text": format!("{sample}\n")}]}),
    ));
    expect(&["other.p4"]);
    // The include opened with unsaved text: main reads it, other not.
    s.send(open("inc.p4", &inc_text(1)));
    expect(&["main.p4", "inc.p4"]);
    let stats = s.finish(2);
    // main, other, other again, then main and inc: five, not seven.
    assert_eq!(stats.analyses, 5, "{stats:?}");
    assert!(stats.shut_down);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Requests before `initialize` are refused; a request waiting for a
/// document's first analysis is answered RequestCancelled when the client
/// cancels it.
#[test]
fn requests_before_initialize_and_cancelled_requests() {
    let dir = scratch("cancel");
    let uri = Url::from_file_path(dir.join("c.p4")).expect("uri");
    let s = start();
    s.send(req(1, "textDocument/hover", json!({})));
    assert_eq!(s.next()["error"]["code"], -32002);
    s.send(req(2, "initialize", json!({"capabilities": {}})));
    s.until_answer(2);
    // A 10k-state parser: its analysis takes long enough for the cancel
    // to come while the lens request waits.
    let mut text = String::from("#include <core.p4>\n#include <v1model.p4>\n");
    for i in 0..10_000 {
        text.push_str(&format!("const bit<32> K{i} = {i};\n"));
    }
    s.send(note(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "p4", "version": 1, "text": text}}),
    ));
    s.send(req(
        3,
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    ));
    s.send(note("$/cancelRequest", json!({"id": 3})));
    let got = s.until_answer(3);
    let answer = got.last().expect("answer");
    assert_eq!(answer["error"]["code"], -32800, "{got:?}");
    s.finish(4);
    let _ = std::fs::remove_dir_all(&dir);
}
