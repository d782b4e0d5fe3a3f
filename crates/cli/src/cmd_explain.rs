//! `p4cost explain`: the arithmetic of one prediction, term by term (the
//! engine's `explain`), as a table or JSON.

use std::io::Write;

use p4cost_engine::explain::{explain, Explanation};
use p4cost_engine::Session;

use crate::args::{PredictArgs, ReportFormat};
use crate::exit::{CliError, Exit};

/// `explain --format json`: the explanation, or one per pipeline of a
/// program with several.
#[derive(serde::Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum ExplainOutput {
    /// One pipeline.
    One(Box<Explanation>),
    /// One per pipeline.
    PerPipeline(Vec<Explanation>),
}

/// Runs `explain`.
pub fn run(a: &PredictArgs, out: &mut dyn Write) -> Result<Exit, CliError> {
    if a.format == ReportFormat::Sarif {
        return Err(CliError::input(
            "explain --format sarif: explain prints a table or JSON (sarif is for predict and check)",
        ));
    }
    if !a.more.is_empty() || a.file.is_dir() {
        return Err(CliError::input(
            "explain takes one program (one FILE): it explains one prediction",
        ));
    }
    let o = crate::project::predict_options(a)?;
    let all = explain(&mut Session::new(), &o)?;
    let text = match a.format {
        ReportFormat::Json => {
            let mut all = all;
            let shown = if all.len() == 1 {
                ExplainOutput::One(Box::new(all.remove(0)))
            } else {
                ExplainOutput::PerPipeline(all)
            };
            crate::json_out::to_pretty(&shown)?
        }
        _ => all.iter().map(render).collect::<Vec<_>>().join("\n"),
    };
    out.write_all(text.as_bytes()).map_err(CliError::output)?;
    Ok(Exit::Ok)
}

fn render(e: &Explanation) -> String {
    let mut s = String::new();
    let port = e.port_gbps.map(|p| format!("{p}G, ")).unwrap_or_default();
    let pipe = e
        .pipeline
        .as_ref()
        .map(|p| format!(" pipeline {p}"))
        .unwrap_or_default();
    s.push_str(&format!(
        "p4cost explain {}{pipe} (model {}, {port}{} B packets)\n",
        e.program, e.model.name, e.packet_size
    ));
    if let Some(p) = &e.path {
        let headers = e
            .headers
            .iter()
            .map(|h| h.trim_start_matches("hdr."))
            .collect::<Vec<_>>()
            .join(" -> ");
        let class = e
            .class
            .as_ref()
            .map(|c| format!(", packet class {c}"))
            .unwrap_or_default();
        s.push_str(&format!("path {p}: {headers}{class}\n"));
    }
    s.push_str(&format!("{}\n\n", e.equation));
    if let Some(c) = &e.cpu {
        render_cpu(&mut s, e, c);
        render_source(&mut s, e);
        return s;
    }
    let item_w = e
        .terms
        .iter()
        .map(|t| t.item.len())
        .max()
        .unwrap_or(4)
        .clamp(4, 48);
    let part_w = e
        .terms
        .iter()
        .map(|t| t.part.len())
        .max()
        .unwrap_or(4)
        .max(5);
    s.push_str(&format!(
        "  {:<part_w$}  {:<item_w$}  {:>10}  arithmetic\n",
        "term", "for", "ns"
    ));
    for t in &e.terms {
        s.push_str(&format!(
            "  {:<part_w$}  {:<item_w$}  {:>10.3}  {}\n",
            t.part, t.item, t.ns, t.formula
        ));
        let pad = " ".repeat(part_w + item_w + 18);
        if let Some(w) = &t.why {
            s.push_str(&format!("{pad}{w}\n"));
        }
        if let Some(l) = &t.span {
            s.push_str(&format!("{pad}at {}:{}:{}\n", l.file, l.line, l.col));
        }
    }
    s.push_str(&format!(
        "  {:<part_w$}  {:<item_w$}  {:>10.3}  (predict gives {:.3} ns)\n\n",
        "total", "", e.total_ns, e.predicted_ns
    ));
    render_source(&mut s, e);
    s
}

/// The model, its file, its paper and doc, and the warnings.
fn render_source(s: &mut String, e: &Explanation) {
    let m = &e.model;
    s.push_str(&format!("model   {}: {}\n", m.name, m.title));
    match &m.file {
        Some(f) if m.embedded => s.push_str(&format!(
            "file    {f} (embedded in p4cost; `p4cost models --format json` prints it)\n"
        )),
        Some(f) => s.push_str(&format!("file    {f} (--model-file)\n")),
        None => {}
    }
    let doi = m
        .doi
        .as_ref()
        .map(|d| format!(" doi:{d}"))
        .unwrap_or_default();
    s.push_str(&format!(
        "source  {}{doi}\n        {}\n",
        m.citation, m.location
    ));
    s.push_str(&format!("doc     {}\n", m.doc));
    if !e.warnings.is_empty() {
        s.push_str("\nwarnings (the model extrapolates or approximates here)\n");
        for w in &e.warnings {
            s.push_str(&format!("  {w}\n"));
        }
    }
}

/// A CPU model's terms: cycles, then ns at the clock; the rate and the
/// median latency.
fn render_cpu(s: &mut String, e: &Explanation, c: &p4cost_engine::explain::ExplainCpu) {
    let part_w = e
        .terms
        .iter()
        .map(|t| t.part.len())
        .max()
        .unwrap_or(4)
        .max(5);
    let item_w = e
        .terms
        .iter()
        .map(|t| t.item.len())
        .max()
        .unwrap_or(4)
        .clamp(4, 48);
    s.push_str(&format!(
        "  {:<part_w$}  {:<item_w$}  {:>10}  {:>9}  arithmetic\n",
        "term", "for", "cycles", "ns"
    ));
    for t in &e.terms {
        s.push_str(&format!(
            "  {:<part_w$}  {:<item_w$}  {:>10.3}  {:>9.3}  {}\n",
            t.part,
            t.item,
            t.cycles.unwrap_or(0.0),
            t.ns,
            t.formula
        ));
        let pad = " ".repeat(part_w + item_w + 29);
        if let Some(w) = &t.why {
            s.push_str(&format!("{pad}{w}\n"));
        }
        if let Some(l) = &t.span {
            s.push_str(&format!("{pad}at {}:{}:{}\n", l.file, l.line, l.col));
        }
    }
    s.push_str(&format!(
        "  {:<part_w$}  {:<item_w$}  {:>10.3}  {:>9.3}  (predict gives {:.3} cycles per packet)\n\n",
        "total", "", c.total_cycles, e.total_ns, c.cycles_per_packet
    ));
    s.push_str(&format!(
        "rate    {} GHz / {:.3} cycles = {:.3} Mpps ({} core{})\n",
        c.clock_ghz,
        c.cycles_per_packet,
        c.packets_per_second / 1e6,
        c.cores,
        if c.cores == 1 { "" } else { "s" }
    ));
    s.push_str(&format!(
        "latency {:.2} us median (Eq. 3: {}), the same for every class\n\n",
        c.median_latency_us, c.median_latency_formula
    ));
}
