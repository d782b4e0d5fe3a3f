//! `p4cost check`: do the programs keep to their latency budget? Exit 0
//! when every budget holds, 1 when one is exceeded, 2 on usage or input
//! errors: what a pre-commit hook or CI job needs.
//!
//! The figures are `predict`'s, computed by the same code
//! (`cmd_predict::reports`): a budget on every packet class holds when the
//! slowest class of each pipeline is within it.

use std::io::Write;

use clap::Parser as _;
use serde::Serialize;

use crate::args::{CheckArgs, Cli, Command, Format};
use crate::exit::{CliError, Exit};
use p4cost_engine::report::{Loc, Report};

/// Most contributors named for a violation.
const MAX_CONTRIBUTORS: usize = 5;

/// Largest class number for which the slowest class is listed again to
/// name its tables' sites (the listing of one path is bounded too).
const MAX_CLASS_RELIST: u64 = 1000;

/// One pipeline of one program against the budget.
#[derive(Debug, Serialize)]
struct Verdict {
    program: String,
    /// The pipeline, when the program has several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pipeline: Option<String>,
    /// `ok` or `over`.
    status: &'static str,
    /// The slowest packet class's latency.
    predicted_ns: f64,
    budget_ns: f64,
    /// `budget - predicted`: negative when over.
    margin_ns: f64,
    /// The slowest class (`P.C`) and its parse path's headers.
    class: Option<String>,
    headers: Vec<String>,
    /// The largest terms of the slowest class after the base: parse
    /// states and tables, with their sites.
    contributors: Vec<Contributor>,
}

/// One term of a prediction and where it comes from.
#[derive(Debug, Serialize)]
struct Contributor {
    /// `parse_state` or `table`.
    kind: &'static str,
    name: String,
    ns: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    span: Option<Loc>,
}

#[derive(Debug, Serialize)]
struct CheckReport<'a> {
    schema_version: u32,
    p4cost_version: &'static str,
    budget_ns: f64,
    model: &'a str,
    /// Pipelines over budget.
    over: usize,
    results: &'a [Verdict],
}

/// `predict`'s arguments for `file`, with `extra` flags (built through the
/// parser, so `predict` and `check` read the same flags the same way).
fn predict_args(a: &CheckArgs, file: &str, extra: &[String]) -> Result<Cli, CliError> {
    let mut argv: Vec<String> = vec!["p4cost".into(), "predict".into(), file.into()];
    let mut push = |k: &str, v: String| {
        argv.push(k.into());
        argv.push(v);
    };
    if let Some(m) = &a.target.model {
        push("--model", m.clone());
    }
    if let Some(p) = a.target.port {
        push("--port", format!("{}g", p.gbps()));
    }
    if let Some(s) = a.target.packet_size {
        push("--packet-size", s.to_string());
    }
    for d in &a.source.defines {
        push("-D", d.clone());
    }
    for i in &a.source.include_dirs {
        push("-I", i.display().to_string());
    }
    push("--max-includes", a.source.max_includes.to_string());
    push("--max-macro-output", a.source.max_macro_output.to_string());
    push("--max-inlined", a.source.max_inlined.to_string());
    push(
        "--max-input-bytes",
        a.source.input.max_input_bytes.to_string(),
    );
    argv.extend(extra.iter().cloned());
    Cli::try_parse_from(argv).map_err(|e| CliError::input(e.to_string()))
}

/// The reports `predict` gives for `file` with `extra` flags.
fn reports(a: &CheckArgs, file: &str, extra: &[String]) -> Result<Vec<Report>, CliError> {
    match predict_args(a, file, extra)?.command {
        Command::Predict(p) => Ok(p4cost_engine::predict::reports(&p.options())?),
        _ => Err(CliError::input("internal: not a predict command")),
    }
}

/// The largest terms of class `id` on the path with `headers`: its parse
/// states and, when it can be listed again, its tables.
fn contributors(
    a: &CheckArgs,
    file: &str,
    pipeline: Option<&str>,
    id: Option<&str>,
    headers: &[String],
) -> Result<Vec<Contributor>, CliError> {
    let class_no: Option<u64> = id
        .and_then(|i| i.split('.').nth(1))
        .and_then(|c| c.parse().ok());
    let mut extra: Vec<String> = vec![
        "--path".into(),
        headers.join(","),
        "--max-classes".into(),
        class_no
            .filter(|&c| c <= MAX_CLASS_RELIST)
            .unwrap_or(1)
            .to_string(),
    ];
    if let Some(p) = pipeline {
        extra.extend(["--pipe".to_string(), p.to_string()]);
    }
    let rs = reports(a, file, &extra)?;
    let Some(path) = rs.first().and_then(|r| r.paths.first()) else {
        return Ok(Vec::new());
    };
    let mut out: Vec<Contributor> = path
        .states
        .iter()
        .filter(|s| !s.in_baseline && s.latency_ns > 0.0)
        .map(|s| Contributor {
            kind: "parse_state",
            name: s.name.clone(),
            ns: s.latency_ns,
            span: Some(s.span.clone()),
        })
        .collect();
    let class = path
        .classes
        .as_ref()
        .and_then(|c| c.classes.iter().find(|c| Some(c.id.as_str()) == id));
    if let Some(class) = class {
        out.extend(class.tables.iter().map(|t| Contributor {
            kind: "table",
            name: t.name.clone(),
            ns: t.latency_ns,
            span: Some(t.span.clone()),
        }));
    }
    // A state a loop visits again (an MPLS stack) is one site: summed.
    let mut merged: Vec<(Contributor, usize)> = Vec::new();
    for c in out.into_iter().filter(|c| c.ns > 0.0) {
        match merged
            .iter_mut()
            .find(|(m, _)| m.kind == c.kind && m.name == c.name && m.span == c.span)
        {
            Some((m, n)) => {
                m.ns += c.ns;
                *n += 1;
            }
            None => merged.push((c, 1)),
        }
    }
    let mut out: Vec<Contributor> = merged
        .into_iter()
        .map(|(mut c, n)| {
            if n > 1 {
                c.name = format!("{} (x{n})", c.name);
            }
            c
        })
        .collect();
    out.sort_by(|x, y| y.ns.total_cmp(&x.ns));
    out.truncate(MAX_CONTRIBUTORS);
    Ok(out)
}

pub fn run(a: &CheckArgs, out: &mut dyn Write) -> Result<Exit, CliError> {
    if !(a.max_latency.is_finite() && a.max_latency > 0.0) {
        return Err(CliError::input(format!(
            "--max-latency {}: a budget is a positive number of nanoseconds",
            a.max_latency
        )));
    }
    let mut files = Vec::new();
    for p in &a.paths {
        p4cost_engine::programs::collect(p, &mut files)?;
    }
    let fragments = p4cost_engine::programs::included(&files, &a.source.include_dirs);
    let mut verdicts: Vec<Verdict> = Vec::new();
    let mut model = String::new();
    for f in files
        .iter()
        .filter(|f| !p4cost_engine::programs::is_fragment(f, &fragments))
    {
        let file = f.path.display().to_string();
        let extra = ["--max-paths".to_string(), "0".to_string()];
        let rs = reports(a, &file, &extra)?;
        let several = rs.len() > 1;
        for r in &rs {
            model.clone_from(&r.model.name);
            let Some(max) = r.summary.as_ref().and_then(|s| s.max.as_ref()) else {
                return Err(CliError::input(format!(
                    "{file}: model {} gives no latency per packet class to hold to a budget; \
                     use a linear model (tofino1-10g, tofino1-100g)",
                    r.model.name
                )));
            };
            let pipeline = r.pipeline.as_ref().map(|p| p.name.clone());
            let predicted = max.latency_ns;
            let over = predicted > a.max_latency;
            let contributors = if over {
                contributors(
                    a,
                    &file,
                    pipeline.as_deref().filter(|_| several),
                    max.class.as_deref(),
                    &max.headers,
                )?
            } else {
                Vec::new()
            };
            verdicts.push(Verdict {
                program: r.program.clone(),
                pipeline: pipeline.filter(|_| several),
                status: if over { "over" } else { "ok" },
                predicted_ns: predicted,
                budget_ns: a.max_latency,
                margin_ns: a.max_latency - predicted,
                class: max.class.clone(),
                headers: max.headers.clone(),
                contributors,
            });
        }
    }
    let over = verdicts.iter().filter(|v| v.status == "over").count();
    let text = match a.format {
        Format::Json => crate::json_out::to_pretty(&CheckReport {
            schema_version: p4cost_engine::report::SCHEMA_VERSION,
            p4cost_version: env!("CARGO_PKG_VERSION"),
            budget_ns: a.max_latency,
            model: &model,
            over,
            results: &verdicts,
        })?,
        Format::Human => render_human(&verdicts, over),
    };
    out.write_all(text.as_bytes()).map_err(CliError::output)?;
    Ok(if over == 0 { Exit::Ok } else { Exit::Failed })
}

/// `FAIL`/`ok` per pipeline, the violations' largest terms, a total.
fn render_human(verdicts: &[Verdict], over: usize) -> String {
    let mut s = String::new();
    for v in verdicts {
        let name = match &v.pipeline {
            Some(p) => format!("{} ({p})", v.program),
            None => v.program.clone(),
        };
        let class = v
            .class
            .as_ref()
            .map(|c| format!("class {c} "))
            .unwrap_or_default();
        let headers = v
            .headers
            .iter()
            .map(|h| h.trim_start_matches("hdr."))
            .collect::<Vec<_>>()
            .join(" -> ");
        if v.status == "over" {
            s.push_str(&format!(
                "FAIL {name}: slowest packet {class}({headers}) {:.3} ns, over the {:.3} ns budget by {:.3} ns\n",
                v.predicted_ns, v.budget_ns, -v.margin_ns
            ));
            for c in &v.contributors {
                let at = c
                    .span
                    .as_ref()
                    .map(|l| format!("  ({}:{}:{})", l.file, l.line, l.col))
                    .unwrap_or_default();
                s.push_str(&format!(
                    "       +{:.3} ns  {} {}{at}\n",
                    c.ns,
                    c.kind.replace('_', " "),
                    c.name
                ));
            }
        } else {
            s.push_str(&format!(
                "ok   {name}: slowest packet {class}{:.3} ns, {:.3} ns under the {:.3} ns budget\n",
                v.predicted_ns, v.margin_ns, v.budget_ns
            ));
        }
    }
    s.push_str(&format!(
        "{over} of {} pipeline(s) over budget\n",
        verdicts.len()
    ));
    s
}
