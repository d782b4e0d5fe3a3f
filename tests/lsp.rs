//! `p4cost lsp` driven over stdio with real JSON-RPC messages: initialize,
//! didOpen, the published diagnostics, inlayHint, hover, codeLens,
//! didChange (an error, then a fix that changes a cost), shutdown, exit.

mod common;

use serde_json::{json, Value};

use common::lsp::{Client, WAIT};
use common::{root, scratch};

fn whole(text: &str) -> Value {
    json!({"start": {"line": 0, "character": 0},
           "end": {"line": text.lines().count() + 1, "character": 0}})
}

#[test]
fn a_session_over_stdio() {
    let dir = scratch("lsp-session");
    let text = std::fs::read_to_string(root().join("p4-samples/tofino/tc2_datacenter.p4"))
        .expect("sample");
    let file = dir.join("dc.p4");
    std::fs::write(&file, &text).expect("write");
    std::fs::write(
        dir.join("p4cost.toml"),
        "[[program]]\npath = \"dc.p4\"\n\n[program.budget]\nmax-latency = 300\n",
    )
    .expect("config");
    let uri = format!("file://{}", file.display());
    let mut c = Client::start(&dir);
    let mut seen = Vec::new();

    let init = c.initialize(&mut seen);
    let caps = &init["capabilities"];
    assert_eq!(caps["inlayHintProvider"], true, "{init}");
    assert_eq!(caps["hoverProvider"], true, "{init}");
    assert!(caps["codeLensProvider"].is_object(), "{init}");

    // didOpen: the slowest class (304.548 ns) is over the 300 ns budget;
    // the model's extrapolations are warnings at their tables.
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "p4", "version": 1, "text": text}}),
    );
    let diags = c.diagnostics(1, &mut seen);
    let budget = diags
        .iter()
        .find(|d| d["code"] == "max_latency")
        .unwrap_or_else(|| panic!("a budget diagnostic: {diags:?}"));
    assert_eq!(budget["severity"], 1);
    assert_eq!(
        budget["range"]["start"]["line"], 167,
        "parse_ipv6, the largest term"
    );
    assert!(
        budget["message"]
            .as_str()
            .expect("message")
            .contains("304.548 ns is over the 300.000 ns budget"),
        "{budget}"
    );
    let too_many_keys = diags
        .iter()
        .find(|d| d["code"] == "too_many_keys")
        .expect("an extrapolation warning");
    assert_eq!(too_many_keys["severity"], 2);

    // Inlay hints: each counted parse state and the table, at its
    // declaration and its apply.
    let hints = c.request(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": uri}, "range": whole(&text)}),
        &mut seen,
    );
    let hints = hints.as_array().expect("hints");
    let at = |line: i64| -> Vec<String> {
        hints
            .iter()
            .filter(|h| h["position"]["line"] == line)
            .map(|h| h["label"].as_str().unwrap_or("").to_string())
            .collect()
    };
    assert_eq!(at(167), vec!["+11.726 ns"], "{hints:?}");
    assert_eq!(at(189), vec!["+4.654 ns"], "parse_vxlan: {hints:?}");
    assert!(!at(238).is_empty(), "vxlan_tunnel_steer.apply(): {hints:?}");
    assert_eq!(
        hints[0]["position"]["character"],
        text.lines()
            .nth(hints[0]["position"]["line"].as_u64().expect("line") as usize)
            .expect("line")
            .len(),
        "a hint sits at the end of its line"
    );

    // Hover on parse_ipv6: the arithmetic from the model file.
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 167, "character": 10}}),
        &mut seen,
    );
    let value = hover["contents"]["value"].as_str().expect("markdown");
    assert!(value.contains("parse state `parse_ipv6`"), "{value}");
    assert!(
        value.contains("0.221 ns/B (per_header_byte_ns) x 40 B + 2.886 ns (per_state_ns)"),
        "{value}"
    );

    // Code lens: the per-class totals over the parser.
    let lenses = c.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
        &mut seen,
    );
    let title = lenses[0]["command"]["title"].as_str().expect("title");
    assert!(
        title.contains("18 parse paths, 18 packet classes"),
        "{title}"
    );
    assert!(title.contains("304.548 ns"), "{title}");

    // didChange to a syntax error: an error at its place, nothing else.
    let broken = text.replacen("bit<24> reserved;", "bit<24> reserved", 1);
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"text": broken}]}),
    );
    let diags = c.diagnostics(2, &mut seen);
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0]["severity"], 1);
    assert_eq!(diags[0]["range"]["start"]["line"], 98, "{diags:?}");

    // didChange to a wider VXLAN header (unsaved): its state costs more,
    // and the budget is now exceeded by more.
    let wider = text.replacen(
        "bit<8>  reserved2;",
        "bit<8>  reserved2;\n    bit<32> pad;",
        1,
    );
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 3},
               "contentChanges": [{"text": wider}]}),
    );
    let diags = c.diagnostics(3, &mut seen);
    assert!(
        diags.iter().any(|d| d["code"] == "max_latency"),
        "{diags:?}"
    );
    let hints = c.request(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": uri}, "range": whole(&wider)}),
        &mut seen,
    );
    let vxlan: Vec<&Value> = hints
        .as_array()
        .expect("hints")
        .iter()
        .filter(|h| h["position"]["line"] == 190)
        .collect();
    assert_eq!(vxlan.len(), 1, "{hints}");
    assert_eq!(vxlan[0]["label"], "+5.538 ns", "0.221 x 12 B + 2.886");

    let r = c.request("shutdown", Value::Null, &mut seen);
    assert!(r.is_null());
    c.notify("exit", Value::Null);
    let status = c.child.wait().expect("exit");
    assert!(status.success(), "{status:?}");
}

#[test]
fn unknown_requests_get_an_error_and_bad_input_no_crash() {
    let dir = scratch("lsp-unknown");
    let mut c = Client::start(&dir);
    let mut seen = Vec::new();
    c.initialize(&mut seen);
    // A request p4cost does not answer.
    c.send(json!({"jsonrpc": "2.0", "id": 99, "method": "textDocument/rename", "params": {}}));
    let m = c.incoming.recv_timeout(WAIT).expect("answer");
    assert_eq!(m["id"], 99);
    assert_eq!(m["error"]["code"], -32601, "{m}");
    // A hover on a document never opened: no result.
    let r = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": "file:///nowhere.p4"},
               "position": {"line": 0, "character": 0}}),
        &mut seen,
    );
    assert!(r.is_null());
    // A JSON file that is not P4 output: an error diagnostic, no crash.
    let file = dir.join("x.json");
    let uri = format!("file://{}", file.display());
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "json", "version": 7,
               "text": "{\"a\": 1}"}}),
    );
    let diags = c.diagnostics(7, &mut seen);
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert!(
        diags[0]["message"]
            .as_str()
            .expect("message")
            .contains("neither p4c BMv2 JSON"),
        "{diags:?}"
    );
    c.request("shutdown", Value::Null, &mut seen);
    c.notify("exit", Value::Null);
    assert!(c.child.wait().expect("exit").success());
}

/// The hints' per-state terms come from the analysis over all paths, not
/// the listed ones: with one path listed, every state of every path is
/// there with its largest term (checked against a full listing).
#[test]
fn state_terms_cover_the_states_of_every_path() {
    let f = "tests/fixtures/bmv2/onos__fabric.json";
    let one = common::json(&[
        "predict",
        f,
        "--max-paths",
        "1",
        "--format",
        "json",
        "--no-config",
    ]);
    let all = common::json(&[
        "predict",
        f,
        "--max-paths",
        "400",
        "--format",
        "json",
        "--no-config",
    ]);
    assert_eq!(all["paths"].as_array().expect("paths").len(), 175);
    let mut want: std::collections::BTreeMap<String, f64> = Default::default();
    for p in all["paths"].as_array().expect("paths") {
        for s in p["states"].as_array().expect("states") {
            let e = want
                .entry(s["name"].as_str().expect("name").to_string())
                .or_insert(0.0);
            *e = e.max(s["latency_ns"].as_f64().expect("ns"));
        }
    }
    let got: std::collections::BTreeMap<String, f64> = one["state_terms"]
        .as_array()
        .expect("state_terms")
        .iter()
        .map(|t| {
            (
                t["name"].as_str().expect("name").to_string(),
                t["max_ns"].as_f64().expect("ns"),
            )
        })
        .collect();
    assert_eq!(got, want);
}

/// The protocol's exit codes: 0 when `shutdown` came before `exit`, 1 when
/// the client sent `exit` without it or went away (closed stdin).
#[test]
fn exit_without_shutdown_is_exit_code_1() {
    let dir = scratch("lsp-exit-codes");
    let start = || {
        let mut c = Client::start(&dir);
        c.initialize(&mut Vec::new());
        c
    };
    let mut c = start();
    c.notify("exit", Value::Null);
    let status = c.child.wait().expect("exit");
    assert_eq!(status.code(), Some(1), "exit without shutdown");

    let mut c = start();
    let mut seen = Vec::new();
    c.request("shutdown", Value::Null, &mut seen);
    let mut child = c.hang_up();
    assert_eq!(
        child.wait().expect("exit").code(),
        Some(0),
        "shutdown, then stdin closed"
    );

    let mut child = start().hang_up();
    assert_eq!(
        child.wait().expect("exit").code(),
        Some(1),
        "stdin closed without shutdown"
    );
}

/// A count budget reads as counts in the editor: `3 tables is over the 2
/// tables budget`, never `3.000 tables` (issue 24, item 10).
#[test]
fn a_table_count_budget_is_worded_in_whole_tables() {
    let dir = scratch("lsp-table-count");
    let text = std::fs::read_to_string(root().join("p4-samples/tofino/tc1_enterprise.p4"))
        .expect("sample");
    let file = dir.join("dc.p4");
    std::fs::write(&file, &text).expect("write");
    std::fs::write(
        dir.join("p4cost.toml"),
        "[[program]]\npath = \"dc.p4\"\n\n[program.budget]\ntable-count = 2\n",
    )
    .expect("config");
    let uri = format!("file://{}", file.display());
    let mut c = Client::start(&dir);
    let mut seen = Vec::new();
    c.initialize(&mut seen);
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "p4", "version": 1, "text": text}}),
    );
    let diags = c.diagnostics(1, &mut seen);
    let budget = diags
        .iter()
        .find(|d| d["code"] == "table_count")
        .unwrap_or_else(|| panic!("a table-count diagnostic: {diags:?}"));
    let message = budget["message"].as_str().expect("message");
    assert!(
        message.contains(": 3 tables is over the 2 tables budget (")
            && message.ends_with(" by 1 table"),
        "{message}"
    );
    c.request("shutdown", Value::Null, &mut seen);
    c.notify("exit", Value::Null);
    assert!(c.child.wait().expect("exit").success());
}
