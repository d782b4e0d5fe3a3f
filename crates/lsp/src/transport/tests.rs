use super::*;

fn frame(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

/// Everything read from `input`, as JSON (messages and error replies).
fn read_all(input: impl Read) -> Vec<Value> {
    let mut got = Vec::new();
    read_messages(io::BufReader::new(input), |i| {
        got.push(match i {
            Incoming::Message(m) => serde_json::to_value(m).expect("json"),
            Incoming::Refused(r) => serde_json::from_str(&r).expect("error reply is JSON"),
        });
        true
    });
    got
}

fn ok_request(id: i32) -> Vec<u8> {
    frame(&format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"textDocument/hover","params":{{}}}}"#
    ))
}

#[test]
fn well_formed_messages_pass() {
    let mut input = ok_request(1);
    input.extend(frame(
        r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
    ));
    input.extend(frame(r#"{"jsonrpc":"2.0","id":"x","result":null}"#));
    let got = read_all(input.as_slice());
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0]["id"], 1);
    assert_eq!(got[1]["method"], "initialized");
}

/// Each bad body gets its JSON-RPC error, and the message after it is
/// read.
#[test]
fn bad_bodies_get_errors_and_the_stream_goes_on() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let cases: Vec<(Vec<u8>, i64, Value)> = vec![
        (b"{not json".to_vec(), -32700, Value::Null),
        (
            b"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"text\":\"\xff\xfe\"}}".to_vec(),
            -32700,
            Value::Null,
        ),
        (deep.into_bytes(), -32700, Value::Null),
        (
            br#"[{"jsonrpc":"2.0","id":1,"method":"shutdown"}]"#.to_vec(),
            -32600,
            Value::Null,
        ),
        (br#"{"jsonrpc":"2.0","id":7}"#.to_vec(), -32600, 7.into()),
        (
            br#"{"jsonrpc":"2.0","id":1.5,"method":"m"}"#.to_vec(),
            -32600,
            1.5.into(),
        ),
        (
            br#"{"jsonrpc":"2.0","id":3,"method":4}"#.to_vec(),
            -32600,
            3.into(),
        ),
        (b"17".to_vec(), -32600, Value::Null),
    ];
    for (body, code, id) in cases {
        let mut input = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        input.extend(&body);
        input.extend(ok_request(2));
        let got = read_all(input.as_slice());
        let shown = String::from_utf8_lossy(&body[..body.len().min(60)]).to_string();
        assert_eq!(got.len(), 2, "{shown}: {got:?}");
        assert_eq!(got[0]["error"]["code"], code, "{shown}: {got:?}");
        assert_eq!(got[0]["id"], id, "{shown}: {got:?}");
        assert_eq!(got[1]["id"], 2, "{shown}: the next message is read");
    }
}

/// An id no Rust integer holds is echoed as written.
#[test]
fn a_huge_id_is_answered_with_that_id() {
    let body = r#"{"jsonrpc":"2.0","id":1180591620717411303424,"method":"textDocument/hover"}"#;
    let mut got = Vec::new();
    read_messages(io::BufReader::new(frame(body).as_slice()), |i| {
        got.push(i);
        true
    });
    match &got[..] {
        [Incoming::Refused(r)] => assert!(
            r.contains(r#""id":1180591620717411303424,"#) && r.contains("-32600"),
            "{r}"
        ),
        other => panic!("{other:?}"),
    }
}

/// A header with no usable length is refused and the next
/// `Content-Length:` found; an over-limit body is skipped, not held.
#[test]
fn bad_headers_resync_and_large_bodies_are_skipped() {
    for header in [
        "Content-Length: -5\r\n\r\n",
        "Content-Length: abc\r\n\r\n",
        "Content-Length: 99999999999999999999999\r\n\r\n",
        "Content-Type: x\r\n\r\n",
        "no colon here\r\n\r\n",
    ] {
        let mut input = header.as_bytes().to_vec();
        input.extend(br#"{"jsonrpc":"2.0","id":1,"method":"m"}"#);
        input.extend(ok_request(2));
        let got = read_all(input.as_slice());
        assert_eq!(got.len(), 2, "{header:?}: {got:?}");
        assert_eq!(got[0]["error"]["code"], -32700, "{header:?}");
        assert_eq!(got[1]["id"], 2, "{header:?}");
    }
    let long = format!("X-Long: {}\r\n\r\n{{}}", "y".repeat(10_000));
    let mut input = long.into_bytes();
    input.extend(ok_request(3));
    let got = read_all(input.as_slice());
    assert_eq!(got[0]["error"]["code"], -32700);
    assert_eq!(got[1]["id"], 3);

    let over = MAX_MESSAGE_BYTES + 1;
    let input = io::Cursor::new(format!("Content-Length: {over}\r\n\r\n"))
        .chain(io::repeat(b' ').take(over))
        .chain(io::Cursor::new(ok_request(4)));
    let got = read_all(input);
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0]["error"]["code"], -32600);
    assert!(got[0]["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("over the limit")));
    assert_eq!(got[1]["id"], 4);
}

/// The refusal of an over-limit body comes before the body is read: a
/// client that declares 100 GB and sends nothing more still gets it.
#[test]
fn an_over_limit_length_is_refused_before_its_body() {
    let input = b"Content-Length: 100000000000\r\n\r\n".as_slice();
    let got = read_all(input);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0]["error"]["code"], -32600);
}
