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
    c.open(&uri, &text);
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

    // Hover on the table: its estimated stage and why not earlier (the
    // only ingress table, keyed on parsed fields: nothing holds it back).
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 221, "character": 12}}),
        &mut seen,
    );
    let value = hover["contents"]["value"].as_str().expect("markdown");
    assert!(value.contains("vxlan_tunnel_steer"), "{value}");
    assert!(
        value.contains("stage 0 (estimated): first stage"),
        "{value}"
    );

    // Hover on a table's apply: its memory under the placement estimate
    // (`p4cost resources`), with the Scholz et al. share.
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 238, "character": 12}}),
        &mut seen,
    );
    let value = hover["contents"]["value"].as_str().expect("markdown");
    assert!(
        value.contains("memory: stage 0: 5 SRAM blocks, 0 TCAM blocks (estimate); Scholz 2020: 0.481 % of the chip's SRAM"),
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
    c.shut_down(&mut seen);
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

fn framed(body: &[u8]) -> Vec<u8> {
    let mut m = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    m.extend_from_slice(body);
    m
}

/// The messages until the one `stop` accepts (included).
fn until(c: &mut Client, stop: impl Fn(&Value) -> bool) -> Vec<Value> {
    let mut got = Vec::new();
    loop {
        let m = c.incoming.recv_timeout(WAIT).expect("a message in time");
        let done = stop(&m);
        got.push(m);
        if done {
            return got;
        }
    }
}

fn published_versions(msgs: &[Value]) -> Vec<i64> {
    msgs.iter()
        .filter(|m| m["method"] == "textDocument/publishDiagnostics")
        .map(|m| m["params"]["version"].as_i64().expect("version"))
        .collect()
}

/// Ten edits written at once: one publishDiagnostics follows, for the
/// last version (the others are never analysed, or stopped), and nothing
/// stale comes after it.
#[test]
fn ten_quick_edits_publish_the_last_version_once() {
    let dir = scratch("lsp-burst");
    let text = std::fs::read_to_string(root().join("p4-samples/tofino/tc2_datacenter.p4"))
        .expect("sample");
    let uri = format!("file://{}", dir.join("dc.p4").display());
    let mut c = Client::start(&dir);
    let mut seen = Vec::new();
    c.initialize(&mut seen);
    c.open(&uri, &text);
    c.diagnostics(1, &mut seen);
    let mut burst = Vec::new();
    for v in 2..=11 {
        let edit = json!({"jsonrpc": "2.0", "method": "textDocument/didChange",
            "params": {"textDocument": {"uri": uri, "version": v},
                       "contentChanges": [{"text": format!("{text}// edit {v}\n")}]}});
        burst.extend(framed(edit.to_string().as_bytes()));
    }
    c.send_raw(&burst);
    let got = until(&mut c, |m| m["params"]["version"] == 11);
    // A request after it: whatever was still to come is before its answer.
    let after = c.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
        &mut seen,
    );
    assert!(after.is_array(), "{after}");
    assert_eq!(published_versions(&got), vec![11], "{got:?}");
    assert_eq!(published_versions(&seen), Vec::<i64>::new(), "{seen:?}");
    c.shut_down(&mut seen);
}

/// A hover is answered from the last finished analysis while the
/// document's new version (a large program) is still being analysed.
#[test]
fn hover_is_answered_while_an_analysis_runs() {
    let dir = scratch("lsp-busy");
    let sample = std::fs::read_to_string(root().join("p4-samples/tofino/tc2_datacenter.p4"))
        .expect("sample");
    // The sample, then 40,000 constants: seconds of front end in a debug
    // build, the parse state on line 167 unmoved.
    let mut big = sample.clone();
    for i in 0..40_000 {
        big.push_str(&format!("const bit<32> PAD_{i} = {i};\n"));
    }
    let uri = format!("file://{}", dir.join("dc.p4").display());
    let mut c = Client::start(&dir);
    let mut seen = Vec::new();
    c.initialize(&mut seen);
    c.open(&uri, &sample);
    c.diagnostics(1, &mut seen);
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": big}]}),
    );
    let started = std::time::Instant::now();
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 167, "character": 10}}),
        &mut seen,
    );
    let answered = started.elapsed();
    assert!(
        hover["contents"]["value"]
            .as_str()
            .is_some_and(|v| v.contains("parse state `parse_ipv6`")),
        "{hover}"
    );
    assert_eq!(
        published_versions(&seen),
        Vec::<i64>::new(),
        "the hover came before version 2's diagnostics"
    );
    let got = until(&mut c, |m| m["params"]["version"] == 2);
    let analysed = started.elapsed();
    assert!(
        answered < analysed,
        "hover {answered:?}, analysis {analysed:?}"
    );
    c.request("shutdown", Value::Null, &mut seen);
    c.notify("exit", Value::Null);
    assert!(c.child.wait().expect("exit").success(), "{got:?}");
}

/// Each malformed message gets its JSON-RPC error (-32700 unreadable,
/// -32600 not a request LSP allows) and the session goes on.
#[test]
fn malformed_messages_get_errors_and_the_session_goes_on() {
    let dir = scratch("lsp-malformed");
    let mut c = Client::start(&dir);
    let mut seen = Vec::new();
    c.initialize(&mut seen);
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let mut bad_utf8 = br#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///x.p4","languageId":"p4","version":1,"text":""#.to_vec();
    bad_utf8.extend(b"\xff\xfe\xfd\"}}}");
    let cases: Vec<(&str, Vec<u8>, i64)> = vec![
        (
            "invalid JSON",
            framed(b"{\"jsonrpc\": \"2.0\", \"id\": 1,"),
            -32700,
        ),
        ("invalid UTF-8 in a didOpen text", framed(&bad_utf8), -32700),
        ("JSON nested 100k deep", framed(deep.as_bytes()), -32700),
        (
            "a batch array",
            framed(br#"[{"jsonrpc":"2.0","id":5,"method":"shutdown"}]"#),
            -32600,
        ),
        (
            "a negative Content-Length",
            b"Content-Length: -20\r\n\r\n{\"jsonrpc\":\"2.0\"}".to_vec(),
            -32700,
        ),
        (
            "a bad Content-Length",
            b"Content-Length: lots\r\n\r\n{\"jsonrpc\":\"2.0\"}".to_vec(),
            -32700,
        ),
        (
            "no Content-Length",
            b"Content-Type: application/json\r\n\r\n{}".to_vec(),
            -32700,
        ),
    ];
    for (what, bytes, code) in cases {
        c.send_raw(&bytes);
        let m = c.incoming.recv_timeout(WAIT).expect("an answer");
        assert_eq!(m["error"]["code"], code, "{what}: {m}");
        assert!(m["id"].is_null(), "{what}: {m}");
        let r = c.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": "file:///nowhere.p4"},
                   "position": {"line": 0, "character": 0}}),
            &mut seen,
        );
        assert!(r.is_null(), "{what}: the session goes on");
    }
    // An id beyond LSP's integers: refused, with that id.
    c.send_raw(&framed(
        br#"{"jsonrpc":"2.0","id":1180591620717411303424,"method":"textDocument/hover","params":{}}"#,
    ));
    let m = c.incoming.recv_timeout(WAIT).expect("an answer");
    assert_eq!(m["error"]["code"], -32600, "{m}");
    assert_eq!(m["id"].as_f64(), Some(2f64.powi(70)), "{m}");
    c.shut_down(&mut seen);
}

/// The server's resident memory, from /proc.
fn resident_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    let kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .expect("VmRSS");
    kb * 1024
}

/// A message over 64 MiB is refused before its body is read and skipped
/// without being held; one declared 100 GB long is refused at once.
#[test]
fn an_over_limit_message_is_refused_without_allocating_it() {
    let dir = scratch("lsp-over-limit");
    let mut c = Client::start(&dir);
    let mut seen = Vec::new();
    c.initialize(&mut seen);
    let limit: usize = 64 << 20; // The README's limit.
    let mut over = format!("Content-Length: {}\r\n\r\n", limit + 1).into_bytes();
    over.resize(over.len() + limit + 1, b' ');
    c.send_raw(&over);
    drop(over);
    let m = c.incoming.recv_timeout(WAIT).expect("an answer");
    assert_eq!(m["error"]["code"], -32600, "{m}");
    let r = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": "file:///nowhere.p4"},
               "position": {"line": 0, "character": 0}}),
        &mut seen,
    );
    assert!(r.is_null(), "the session goes on after the skipped body");
    let before = resident_bytes(c.child.id());
    assert!(
        before < 48 << 20,
        "the 64 MiB body was not held: {before} B"
    );
    c.request("shutdown", Value::Null, &mut seen);
    c.send_raw(b"Content-Length: 100000000000\r\n\r\n");
    let m = c.incoming.recv_timeout(WAIT).expect("an answer");
    assert_eq!(m["error"]["code"], -32600, "{m}");
    assert!(
        m["error"]["message"]
            .as_str()
            .is_some_and(|s| s.contains("100000000000 bytes is over the limit")),
        "{m}"
    );
    let after = resident_bytes(c.child.id());
    assert!(after < before + (16 << 20), "{before} -> {after} B");
    let mut child = c.hang_up();
    assert_eq!(
        child.wait().expect("exit").code(),
        Some(0),
        "shutdown came first"
    );
}

/// p4cost.toml's `[warnings]` reaches the editor: an allowed code is not
/// shown, a denied one is an error, and each (code, table) shows once.
#[test]
fn the_warnings_table_of_p4cost_toml_sets_what_the_editor_shows() {
    let (c, mut seen, diags) = open_with_config(
        "lsp-warnings",
        "tc6_big_union.p4",
        "[warnings]\nallow = [\"key_width_out_of_range\"]\ndeny = [\"actions_outside_training\"]\n",
    );
    assert!(
        !diags.iter().any(|d| d["code"] == "key_width_out_of_range"),
        "{diags:?}"
    );
    let denied: Vec<&Value> = diags
        .iter()
        .filter(|d| d["code"] == "actions_outside_training")
        .collect();
    assert_eq!(denied.len(), 3, "one per table: {diags:?}");
    assert!(denied.iter().all(|d| d["severity"] == 1), "{denied:?}");
    let mut sites: Vec<(String, String)> = diags
        .iter()
        .map(|d| (d["code"].to_string(), d["range"].to_string()))
        .collect();
    let n = sites.len();
    sites.sort();
    sites.dedup();
    assert_eq!(sites.len(), n, "a code twice at one place: {diags:?}");
    c.shut_down(&mut seen);
}

/// A server started in a scratch directory holding `sample` (of
/// p4-samples/tofino) and `config` as p4cost.toml, the sample opened: the
/// client, what it saw, and the first diagnostics.
fn open_with_config(
    scratch_name: &str,
    sample: &str,
    config: &str,
) -> (Client, Vec<Value>, Vec<Value>) {
    let dir = scratch(scratch_name);
    let text =
        std::fs::read_to_string(root().join("p4-samples/tofino").join(sample)).expect("sample");
    let file = dir.join(sample);
    std::fs::write(&file, &text).expect("write");
    std::fs::write(dir.join("p4cost.toml"), config).expect("config");
    let uri = format!("file://{}", file.display());
    let mut c = Client::start(&dir);
    let mut seen = Vec::new();
    c.initialize(&mut seen);
    c.open(&uri, &text);
    let diags = c.diagnostics(1, &mut seen);
    (c, seen, diags)
}

/// A count budget reads as counts in the editor: `3 tables is over the 2
/// tables budget`, never `3.000 tables` (issue 24, item 10).
#[test]
fn a_table_count_budget_is_worded_in_whole_tables() {
    let (c, mut seen, diags) = open_with_config(
        "lsp-table-count",
        "tc1_enterprise.p4",
        "[[program]]\npath = \"tc1_enterprise.p4\"\n\n[program.budget]\ntable-count = 2\n",
    );
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
    c.shut_down(&mut seen);
}
