//! `explain --model nfp4000 | bmv2-coarse`: a class's passes, one term
//! per pass (the pipeline, then each recirculate or resubmit site), and
//! the model's figures for that many passes with their arithmetic.

use serde::Serialize;

use super::{round3, Explanation, Term};
use crate::error::Error;
use crate::pass_out::ClassPassOut;
use crate::report::Report;

/// One figure of a pass model with its arithmetic.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct PassFigure {
    /// What it is (`loss-free throughput`).
    pub name: String,
    /// Its value, in `unit`.
    pub value: f64,
    /// `bit/s`, `us`, `packets/s`.
    pub unit: String,
    /// The arithmetic.
    pub formula: String,
}

/// A pass model's figures of the class explained.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ExplainPasses {
    /// The class's passes (`terms` has one per pass).
    pub passes: u32,
    /// The model's figures for them.
    pub figures: Vec<PassFigure>,
}

/// The class explained: with `--class`, the listed class of most passes
/// it selects; else the worst class of the first listed path (with
/// `--sort latency`, the path of most passes).
fn chosen(r: &Report) -> Option<(Vec<String>, String, &ClassPassOut, f64)> {
    let mut best: Option<(Vec<String>, String, &ClassPassOut, f64)> = None;
    for p in &r.paths {
        let Some(pc) = &p.classes else { continue };
        let list: Vec<&crate::path_classes::PathClassOut> = if pc.filter.is_some() {
            pc.classes.iter().collect()
        } else {
            vec![&pc.slowest]
        };
        for c in list {
            let Some(k) = &c.recirc else { continue };
            if best.as_ref().is_none_or(|b| k.passes > b.2.passes) {
                best = Some((p.headers.clone(), c.id.clone(), k, c.latency_ns));
            }
        }
    }
    best
}

fn figure(name: &str, value: f64, unit: &str, formula: String) -> PassFigure {
    PassFigure {
        name: name.to_string(),
        value,
        unit: unit.to_string(),
        formula,
    }
}

/// Fills `e` with the pass model's terms for the class explained.
pub(super) fn pass_terms(
    e: &mut Explanation,
    r: &Report,
    m: &p4cost_model::ModelSpec,
) -> Result<(), Error> {
    let Some((headers, class, k, latency_ns)) = chosen(r) else {
        return Err(Error::input(format!(
            "{}: no packet class to explain",
            r.program
        )));
    };
    e.headers = headers;
    e.path = class.split('.').next().map(str::to_string);
    e.class = Some(class);
    let size = r.packet_size;
    let p = f64::from(k.passes.max(1));
    // Per pass: the high end of the coarse range (bmv2-coarse), or no
    // latency (nfp4000).
    let (pass_ns, pass_formula) = match m.bmv2_coarse() {
        Some(b) => {
            let l = &b.latency_per_pass_us;
            (
                l.max * 1000.0,
                format!("[{}, {}] us (latency_per_pass_us), high end", l.min, l.max),
            )
        }
        None => (
            0.0,
            "one pass of the pipeline (no latency modelled)".to_string(),
        ),
    };
    let items = std::iter::once("pipeline".to_string()).chain(k.sites.iter().cloned());
    for (i, item) in items.enumerate() {
        e.terms.push(Term {
            part: format!("pass {}", i + 1),
            item,
            formula: pass_formula.clone(),
            why: None,
            ns: round3(pass_ns),
            cycles: None,
            span: None,
        });
    }
    let mut figures = Vec::new();
    if let (Some(n), Some(t)) = (m.nfp(), &k.throughput) {
        e.equation = nfp_equation(n);
        figures = nfp_figures(n, t, p, size);
    }
    if let (Some(b), Some(c)) = (m.bmv2_coarse(), &k.coarse) {
        e.equation = "COARSE: latency = p x latency_per_pass_us; rate = (packet rate at the size, linear in the size between the measured points, held outside) / p (docs/models.md#bmv2-simple_switch-coarse)".to_string();
        figures = coarse_figures(b, c, &k.register_ops, p, size);
    }
    e.total_ns = round3(e.terms.iter().map(|t| t.ns).sum());
    e.predicted_ns = round3(latency_ns);
    e.passes = Some(ExplainPasses {
        passes: k.passes,
        figures,
    });
    Ok(())
}

/// The NFP recirculation equation, with the paper's measured point.
fn nfp_equation(n: &p4cost_model::nfp::Nfp) -> String {
    let me = &n.measured;
    let on = n.onset_passes_pps();
    let sat = n.saturated_passes_pps();
    format!(
        "p = 1 + recirculate and resubmit calls; capacities in passes per second from the paper's {} B point at {} passes: onset {} x {} bit/s / (8 x {} B) = {:.3} Mpps, settled {} x {} bit/s / (8 x {} B) = {:.3} Mpps (docs/models.md#nfp-4000-recirculation)",
        me.packet_size_bytes, me.passes, me.passes, me.onset_bps, me.packet_size_bytes, on / 1e6,
        me.passes, me.saturated_bps, me.packet_size_bytes, sat / 1e6
    )
}

/// The NFP figures of one class: its loss-free throughput, what is received
/// past it and the smallest frame lossless at line rate.
fn nfp_figures(
    n: &p4cost_model::nfp::Nfp,
    t: &p4cost_model::nfp::Throughput,
    p: f64,
    size: u32,
) -> Vec<PassFigure> {
    let mut figures = Vec::new();
    let line = n.line_rate_bps;
    let on = n.onset_passes_pps();
    let sat = n.saturated_passes_pps();
    figures.push(figure(
        "loss-free throughput",
        t.loss_free_bps,
        "bit/s",
        format!(
            "min({line} bit/s, {:.3} Mpps / {p} x 8 x {size} B)",
            on / 1e6
        ),
    ));
    figures.push(figure(
        "received past it",
        t.received_past_bps,
        "bit/s",
        format!(
            "min(loss-free, {line} bit/s, {:.3} Mpps / {p} x 8 x {size} B)",
            sat / 1e6
        ),
    ));
    figures.push(figure(
        "smallest frame lossless at line rate",
        t.smallest_lossless_size_bytes,
        "B",
        format!("{p} x {line} bit/s / (8 x {:.3} Mpps)", sat / 1e6),
    ));
    figures
}

/// The BMv2 coarse figures of one class: its latency range, packet rate,
/// throughput and register calls.
fn coarse_figures(
    b: &p4cost_model::bmv2_coarse::Bmv2Coarse,
    c: &p4cost_model::bmv2_coarse::Coarse,
    g: &crate::recirc::RegisterOps,
    p: f64,
    size: u32,
) -> Vec<PassFigure> {
    let mut figures = Vec::new();
    let l = &b.latency_per_pass_us;
    let pps = b.pass_rate_pps(size);
    figures.push(figure(
        "latency, low end",
        c.latency_us.min,
        "us",
        format!("{p} x {} us", l.min),
    ));
    figures.push(figure(
        "latency, high end",
        c.latency_us.max,
        "us",
        format!("{p} x {} us", l.max),
    ));
    figures.push(figure(
        "packet rate",
        c.packets_per_second,
        "packets/s",
        format!("{:.1} pps at {size} B / {p}", pps),
    ));
    figures.push(figure(
        "throughput",
        c.throughput_bps,
        "bit/s",
        format!("{:.1} pps x 8 x {size} B", c.packets_per_second),
    ));
    figures.push(figure("register calls", f64::from(g.reads + g.writes + g.other), "calls", format!(
        "{} read(s) + {} write(s) + {} other; the paper's register logic added {}-{} us (not added)",
        g.reads, g.writes, g.other, b.register_logic_us.min, b.register_logic_us.max
    )));
    figures
}
