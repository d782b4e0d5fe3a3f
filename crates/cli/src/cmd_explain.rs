//! `p4cost explain`: the arithmetic of one prediction, term by term (the
//! engine's `explain`), as a table or JSON.

use std::io::Write;

use p4cost_engine::explain::{explain, ExplainPasses, Explanation, Term};
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
    } else if let Some(p) = &e.passes {
        render_passes(&mut s, e, p);
    } else {
        let note = format!("(predict gives {:.3} ns)", e.predicted_ns);
        render_terms(&mut s, e, &[NS], &[e.total_ns], &note);
    }
    render_source(&mut s, e);
    s
}

/// A figure column of the terms table: its head, width and each term's
/// cell.
struct Col {
    head: &'static str,
    width: usize,
    cell: fn(&Term) -> f64,
}

const NS: Col = Col {
    head: "ns",
    width: 10,
    cell: |t| t.ns,
};

/// The terms table every model prints: part, item, the `cols` figures and
/// the arithmetic, each term's why and site under it, then the `totals`
/// and `note`.
fn render_terms(s: &mut String, e: &Explanation, cols: &[Col], totals: &[f64], note: &str) {
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
    let heads: String = cols
        .iter()
        .map(|c| format!("  {:>w$}", c.head, w = c.width))
        .collect();
    s.push_str(&format!(
        "  {:<part_w$}  {:<item_w$}{heads}  arithmetic\n",
        "term", "for"
    ));
    let pad = " ".repeat(part_w + item_w + 6 + cols.iter().map(|c| c.width + 2).sum::<usize>());
    for t in &e.terms {
        let cells: String = cols
            .iter()
            .map(|c| format!("  {:>w$.3}", (c.cell)(t), w = c.width))
            .collect();
        s.push_str(&format!(
            "  {:<part_w$}  {:<item_w$}{cells}  {}\n",
            t.part, t.item, t.formula
        ));
        if let Some(w) = &t.why {
            s.push_str(&format!("{pad}{w}\n"));
        }
        if let Some(l) = &t.span {
            s.push_str(&format!("{pad}at {}:{}:{}\n", l.file, l.line, l.col));
        }
    }
    let cells: String = cols
        .iter()
        .zip(totals)
        .map(|(c, v)| format!("  {:>w$.3}", v, w = c.width))
        .collect();
    s.push_str(&format!(
        "  {:<part_w$}  {:<item_w$}{cells}  {note}\n\n",
        "total", ""
    ));
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
    let cycles = Col {
        head: "cycles",
        width: 10,
        cell: |t| t.cycles.unwrap_or(0.0),
    };
    let ns = Col { width: 9, ..NS };
    let note = format!(
        "(predict gives {:.3} cycles per packet)",
        c.cycles_per_packet
    );
    render_terms(s, e, &[cycles, ns], &[c.total_cycles, e.total_ns], &note);
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

/// A pass model's terms (one per pass; the coarse range's high end in us,
/// or no figure for a model without latency), then its figures.
fn render_passes(s: &mut String, e: &Explanation, p: &ExplainPasses) {
    let us = Col {
        head: "us",
        width: 10,
        cell: |t| t.ns / 1000.0,
    };
    let n = format!("{} pass{}", p.passes, if p.passes == 1 { "" } else { "es" });
    if e.predicted_ns > 0.0 {
        let note = format!("({n}; predict gives {:.3} us)", e.predicted_ns / 1000.0);
        render_terms(s, e, &[us], &[e.total_ns / 1000.0], &note);
    } else {
        render_terms(s, e, &[], &[], &format!("({n})"));
    }
    s.push_str(&format!("figures for {n} at {} B\n", e.packet_size));
    let w = p.figures.iter().map(|f| f.name.len()).max().unwrap_or(4);
    for f in &p.figures {
        let value = match f.unit.as_str() {
            "bit/s" => p4cost_engine::bound::rate_text(f.value),
            unit => format!("{:.3} {unit}", f.value),
        };
        s.push_str(&format!("  {:<w$}  {value:>18} = {}\n", f.name, f.formula));
    }
    s.push('\n');
}
