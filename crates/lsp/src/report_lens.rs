//! The "open pipeline report" code lens (issue 29): a lens beside the
//! others whose command, run by the editor through
//! `workspace/executeCommand`, writes `p4cost report`'s page of the file
//! (the engine's `pipeline_view` rendered by `p4cost-report-html`, as the
//! CLI does) into a temporary file, answers its `file://` URI and asks the
//! editor to open it (`window/showDocument`, external).

use std::path::{Path, PathBuf};

use lsp_server::{ErrorCode, Request, RequestId, Response};
use lsp_types::{CodeLens, Command, ExecuteCommandParams, Url};
use serde_json::Value;

/// The command the lens runs.
pub const COMMAND: &str = "p4cost.openPipelineReport";

/// Appends the report lens for `path`, on the range of the first lens
/// (the pipeline's), else at the file's start.
pub fn add(lenses: &mut Vec<CodeLens>, path: &Path) {
    let Ok(uri) = Url::from_file_path(path) else {
        return;
    };
    let range = lenses.first().map(|l| l.range).unwrap_or_default();
    lenses.push(CodeLens {
        range,
        command: Some(Command {
            title: "open pipeline report".to_string(),
            command: COMMAND.to_string(),
            arguments: Some(vec![Value::String(uri.to_string())]),
        }),
        data: None,
    });
}

/// Runs the command: the response (`{"uri": ...}` or an error) and, when
/// the page was written, the `window/showDocument` request to send.
pub fn execute(id: RequestId, params: Value) -> (Response, Option<Request>) {
    match run(params) {
        Ok(uri) => {
            let show = Request::new(
                RequestId::from(format!("p4cost-report-{uri}")),
                "window/showDocument".to_string(),
                serde_json::json!({ "uri": uri, "external": true }),
            );
            let ok = Response::new_ok(id, serde_json::json!({ "uri": uri }));
            (ok, Some(show))
        }
        Err((code, message)) => (Response::new_err(id, code as i32, message), None),
    }
}

type Failure = (ErrorCode, String);

/// Writes the page of the file the arguments name; its URI.
fn run(params: Value) -> Result<String, Failure> {
    let bad = |m: String| (ErrorCode::InvalidParams, m);
    let p: ExecuteCommandParams = serde_json::from_value(params).map_err(|e| bad(e.to_string()))?;
    if p.command != COMMAND {
        return Err(bad(format!("unknown command {}", p.command)));
    }
    let uri = p
        .arguments
        .first()
        .and_then(Value::as_str)
        .and_then(|s| Url::parse(s).ok())
        .ok_or_else(|| bad(format!("{COMMAND} takes the document's URI")))?;
    let file = uri
        .to_file_path()
        .map_err(|()| bad(format!("not a file URI: {uri}")))?;
    let out = page_path(&file);
    write_page(&file, &out).map_err(|m| (ErrorCode::RequestFailed, m))?;
    Url::from_file_path(&out)
        .map(|u| u.to_string())
        .map_err(|()| (ErrorCode::InternalError, "temporary path".to_string()))
}

/// Where the page of `file` goes: one file per source in a directory of
/// this server's own.
fn page_path(file: &Path) -> PathBuf {
    let stem = file
        .file_stem()
        .map_or_else(|| "program".into(), |s| s.to_string_lossy());
    std::env::temp_dir()
        .join(format!("p4cost-lsp-{}", std::process::id()))
        .join(format!("{stem}-report.html"))
}

/// The report of `file` as saved on disk, written to `out`.
fn write_page(file: &Path, out: &Path) -> Result<(), String> {
    let mut o = p4cost_engine::PredictOptions::new(file);
    o.histogram_bins = p4cost_engine::pipeline_view::HISTOGRAM_BINS;
    let view = p4cost_engine::pipeline_view::pipeline_view(&mut p4cost_engine::Session::new(), &o)
        .map_err(|e| e.to_string())?;
    let page = p4cost_report_html::render(&view);
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(out, page).map_err(|e| format!("{}: {e}", out.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../p4-samples/tofino/tc2_datacenter.p4")
    }

    /// The lens sits with the pipeline's lens and names the document.
    #[test]
    fn the_lens_names_the_document() {
        let mut lenses = Vec::new();
        add(&mut lenses, &sample());
        let c = lenses[0].command.as_ref().expect("command");
        assert_eq!(
            (c.title.as_str(), c.command.as_str()),
            ("open pipeline report", COMMAND)
        );
        let arg = c.arguments.as_ref().expect("arguments")[0]
            .as_str()
            .expect("uri");
        assert!(
            arg.starts_with("file://") && arg.ends_with("tc2_datacenter.p4"),
            "{arg}"
        );
    }

    /// Running it writes the page the CLI writes and asks the editor to
    /// open it; a missing file is an error answer, no page.
    #[test]
    fn running_it_writes_the_page_and_asks_to_show_it() {
        let uri = Url::from_file_path(sample()).expect("uri").to_string();
        let params = serde_json::json!({"command": COMMAND, "arguments": [uri]});
        let (r, show) = execute(RequestId::from(7), params);
        assert!(r.error.is_none(), "{:?}", r.error);
        let page_uri = r
            .result
            .as_ref()
            .and_then(|v| v["uri"].as_str())
            .expect("uri");
        let page = Url::parse(page_uri)
            .expect("url")
            .to_file_path()
            .expect("path");
        let html = std::fs::read_to_string(&page).expect("page written");
        assert!(html.contains("id=\"stages\"") && html.contains("<svg class=\"depgraph\""));
        let show = show.expect("showDocument");
        assert_eq!(show.method, "window/showDocument");
        assert_eq!(show.params["uri"], page_uri);
        let _ = std::fs::remove_file(&page);

        let missing = Url::from_file_path("/nonexistent/p.p4")
            .expect("uri")
            .to_string();
        let (r, show) = execute(
            RequestId::from(8),
            serde_json::json!({"command": COMMAND, "arguments": [missing]}),
        );
        assert!(r.error.is_some() && show.is_none());
        let (r, _) = execute(RequestId::from(9), serde_json::json!({"command": "x"}));
        assert_eq!(
            r.error.map(|e| e.code),
            Some(ErrorCode::InvalidParams as i32)
        );
    }
}
