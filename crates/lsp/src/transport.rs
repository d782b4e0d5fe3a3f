//! JSON-RPC over stdio: the `Content-Length` framing, read with bounds, and
//! each body sorted into a message or the error reply JSON-RPC asks for.
//!
//! Whatever arrives, the session goes on: a body over
//! [`MAX_MESSAGE_BYTES`] is refused before it is read and then skipped in
//! chunks (never held); a header without a valid `Content-Length` is
//! refused and the stream is searched for the next `Content-Length:`; a
//! body that is not JSON (or not UTF-8, or nested deeper than serde_json's
//! 128 levels) gets -32700, one that is no JSON-RPC message (a batch array,
//! an id LSP does not allow) -32600.

use std::io::{self, BufRead, Read, Write};

use lsp_server::{Message, Notification, Request, RequestId};
use serde_json::Value;

/// The largest message body read: 64 MiB. A larger one is refused
/// without being allocated.
pub const MAX_MESSAGE_BYTES: u64 = 64 << 20;
/// The longest header line kept (longer ones are a bad header).
const MAX_HEADER_LINE: usize = 1024;
/// The most header lines in one message's header.
const MAX_HEADER_LINES: usize = 32;

const PARSE_ERROR: i32 = -32700;
const INVALID_REQUEST: i32 = -32600;

/// What the reader passes on.
#[derive(Debug)]
pub enum Incoming {
    /// A well-formed request, notification or response.
    Message(Message),
    /// The JSON of the error reply to send for a message refused.
    Refused(String),
}

/// Reads framed messages from `r` and hands each to `deliver` until the
/// input ends, it fails, or `deliver` returns false.
pub fn read_messages(mut r: impl BufRead, mut deliver: impl FnMut(Incoming) -> bool) {
    let mut resync = false;
    loop {
        if resync && !matches!(skip_to_content_length(&mut r), Ok(true)) {
            return;
        }
        let header = match read_header(&mut r, resync) {
            Ok(Some(h)) => h,
            Ok(None) | Err(_) => return,
        };
        resync = false;
        let incoming = match header {
            Err(why) => {
                resync = true;
                Incoming::Refused(error_reply("null", PARSE_ERROR, &why))
            }
            Ok(len) if len > MAX_MESSAGE_BYTES => {
                let why = format!(
                    "a message of {len} bytes is over the limit of {MAX_MESSAGE_BYTES} bytes \
                     (64 MiB); it is skipped"
                );
                if !deliver(Incoming::Refused(error_reply(
                    "null",
                    INVALID_REQUEST,
                    &why,
                ))) {
                    return;
                }
                // Skipped in the reader's chunks, never held whole.
                match io::copy(&mut (&mut r).take(len), &mut io::sink()) {
                    Ok(n) if n == len => continue,
                    _ => return,
                }
            }
            Ok(len) => {
                let mut body = vec![0; len as usize];
                if r.read_exact(&mut body).is_err() {
                    return;
                }
                match classify(&body) {
                    Some(i) => i,
                    None => continue,
                }
            }
        };
        if !deliver(incoming) {
            return;
        }
    }
}

/// Writes `body` framed.
pub fn write_message(w: &mut impl Write, body: &str) -> io::Result<()> {
    write!(w, "Content-Length: {}\r\n\r\n{body}", body.len())?;
    w.flush()
}

/// The body length a header gives, or why the header is bad; `None` at
/// the end of the input. `resumed`: the stream was searched to just after
/// a `Content-Length:`, which starts this header.
fn read_header(r: &mut impl BufRead, resumed: bool) -> io::Result<Option<Result<u64, String>>> {
    let mut len: Option<Result<u64, String>> = None;
    let mut lines = 0;
    let mut first = resumed;
    loop {
        let Some(line) = read_line(r)? else {
            return Ok(None);
        };
        let line = match (line, first) {
            (Some(l), true) => Some(format!("Content-Length:{l}")),
            (l, _) => l,
        };
        first = false;
        let Some(line) = line else {
            lines += 1;
            len = Some(Err(format!(
                "a header line longer than {MAX_HEADER_LINE} bytes"
            )));
            continue;
        };
        if line.is_empty() {
            if lines == 0 {
                continue; // Blank lines between messages.
            }
            break;
        }
        lines += 1;
        if lines > MAX_HEADER_LINES {
            len = Some(Err(format!("more than {MAX_HEADER_LINES} header lines")));
        }
        let Some((name, value)) = line.split_once(':') else {
            len = Some(Err(format!("a header line without a colon: {line:?}")));
            continue;
        };
        if name.trim().eq_ignore_ascii_case("content-length") && !matches!(len, Some(Err(_))) {
            let value = value.trim();
            len = Some(
                value
                    .parse::<u64>()
                    .ok()
                    .filter(|_| value.bytes().all(|b| b.is_ascii_digit()))
                    .ok_or_else(|| format!("Content-Length {value:?} is not a number of bytes")),
            );
        }
    }
    Ok(Some(len.unwrap_or_else(|| {
        Err("a message header without Content-Length".to_string())
    })))
}

/// One header line without its line end: `Some(None)` when it is longer
/// than [`MAX_HEADER_LINE`] (the rest is skipped), `None` at the end of
/// the input.
fn read_line(r: &mut impl BufRead) -> io::Result<Option<Option<String>>> {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return Ok(None);
        }
        let (take, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        if !too_long {
            line.extend_from_slice(&buf[..take]);
            too_long = line.len() > MAX_HEADER_LINE + 2;
        }
        r.consume(take);
        if done {
            break;
        }
    }
    if too_long {
        line.clear();
        return Ok(Some(None));
    }
    let text = String::from_utf8_lossy(&line);
    Ok(Some(Some(text.trim_end_matches(['\r', '\n']).to_string())))
}

/// Skips input up to and through the next `Content-Length:` (any case):
/// after a bad header, where the next message starts. False at the end of
/// the input.
fn skip_to_content_length(r: &mut impl BufRead) -> io::Result<bool> {
    const KEY: &[u8] = b"content-length:";
    let mut matched = 0;
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return Ok(false);
        }
        let mut used = 0;
        for &b in buf {
            used += 1;
            let b = b.to_ascii_lowercase();
            matched = if b == KEY[matched] {
                matched + 1
            } else if b == KEY[0] {
                1
            } else {
                0
            };
            if matched == KEY.len() {
                r.consume(used);
                return Ok(true);
            }
        }
        r.consume(used);
    }
}

/// The message `body` holds, or the error reply for it; `None` for what
/// needs no answer (a response, which this server never asked for).
fn classify(body: &[u8]) -> Option<Incoming> {
    let v: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            return Some(Incoming::Refused(error_reply(
                "null",
                PARSE_ERROR,
                &format!("the message is not JSON: {e}"),
            )))
        }
    };
    let refuse =
        |id: &str, why: &str| Some(Incoming::Refused(error_reply(id, INVALID_REQUEST, why)));
    let mut obj = match v {
        Value::Object(o) => o,
        Value::Array(_) => {
            return refuse(
                "null",
                "a batch (a JSON array): the language server protocol sends each message alone",
            )
        }
        _ => return refuse("null", "a message is a JSON object"),
    };
    let params = obj.remove("params").unwrap_or(Value::Null);
    let id = obj.remove("id");
    let method = match obj.remove("method") {
        Some(Value::String(m)) => Some(m),
        Some(_) => return refuse(&raw_id(body), "the method is not a string"),
        None => None,
    };
    match (method, id) {
        (Some(method), None) => Some(Incoming::Message(Message::Notification(Notification {
            method,
            params,
        }))),
        (Some(method), Some(id)) => match request_id(&id) {
            Some(id) => Some(Incoming::Message(Message::Request(Request {
                id,
                method,
                params,
            }))),
            None => refuse(
                &raw_id(body),
                "the id is neither a string nor an integer from -2^31 to 2^31-1 (LSP's integer)",
            ),
        },
        (None, Some(_)) if obj.contains_key("result") || obj.contains_key("error") => None,
        (None, _) => refuse(
            &raw_id(body),
            "neither a request, a notification nor a response (no method)",
        ),
    }
}

/// An id as LSP allows it: a string or a 32-bit integer.
fn request_id(id: &Value) -> Option<RequestId> {
    match id {
        Value::String(s) => Some(RequestId::from(s.clone())),
        Value::Number(n) => n
            .as_i64()
            .and_then(|i| i32::try_from(i).ok())
            .map(RequestId::from),
        _ => None,
    }
}

/// The id of the message `body` exactly as written (an integer too large
/// for any Rust integer is echoed as sent), or `null`.
fn raw_id(body: &[u8]) -> String {
    #[derive(serde::Deserialize)]
    struct Id {
        id: Option<Box<serde_json::value::RawValue>>,
    }
    serde_json::from_slice::<Id>(body)
        .ok()
        .and_then(|i| i.id)
        .map_or_else(|| "null".to_string(), |r| r.get().to_string())
}

/// A JSON-RPC error response with `id` (JSON text).
fn error_reply(id: &str, code: i32, message: &str) -> String {
    let message = Value::String(message.to_string());
    format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":{message}}}}}"#)
}

/// A message as JSON text.
pub fn message_json(m: &Message) -> String {
    serde_json::to_string(m).unwrap_or_else(|e| {
        error_reply(
            "null",
            -32603,
            &format!("the reply could not be written: {e}"),
        )
    })
}

#[cfg(test)]
mod tests;
