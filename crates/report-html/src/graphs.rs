//! The SVG pictures: the dependency graph and the parse graph (layered),
//! the latency histogram, and the colours of dependency kinds.

use maud::{html, Markup};
use p4cost_analysis::deps::DepKind;
use p4cost_engine::pipeline_view::{DepView, ParseView, SourceLines};
use p4cost_engine::report::Loc;

use crate::layout::{self, NODE_H, NODE_W, TOP};

/// The colour of a dependency kind (also the legend's).
pub fn kind_colour(k: DepKind) -> &'static str {
    match k {
        DepKind::Match => "#d62728",
        DepKind::Action => "#1f77b4",
        DepKind::Control => "#7f7f7f",
        DepKind::ReverseRead => "#2ca02c",
    }
}

/// A name cut to fit a node box (the full name is in its title).
pub fn short(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let head: String = s.chars().take(max.saturating_sub(1)).collect();
        format!("{head}…")
    }
}

/// `file:line` and the line's text.
pub fn site(loc: &Loc, lines: &SourceLines) -> String {
    match lines.line(loc) {
        Some(t) => format!("{}:{}: {}", loc.file, loc.line, t),
        None => format!("{}:{}", loc.file, loc.line),
    }
}

/// One gress's dependency graph: units in columns by stage (or depth),
/// edges coloured by kind, the chain outlined; every node and edge has a
/// `<title>` with its site and field.
pub fn dep_graph(d: &DepView, lines: &SourceLines) -> Markup {
    let layers: Vec<u32> = d.units.iter().map(|u| u.layer).collect();
    let l = layout::layered(&layers, 1);
    let on_chain = |i: usize| d.chain.contains(&i);
    let head = if d.layers_are_stages {
        "stage"
    } else {
        "level"
    };
    html! {
        svg.depgraph width=(l.size.0) height=(l.size.1)
            viewBox=(format!("0 0 {} {}", l.size.0, l.size.1)) {
            @for c in 0..l.columns {
                text.colhead x=(layout::column_x(c)) y=(TOP - 10) { (head) " " (c) }
            }
            @for e in &d.edges {
                @if let (Some(a), Some(b)) = (l.at.get(e.from), l.at.get(e.to)) {
                    @let (x1, y1) = (a.0 + NODE_W, a.1 + NODE_H / 2);
                    @let (x2, y2) = (b.0, b.1 + NODE_H / 2);
                    @let back = x2 <= x1;
                    @let path = if back {
                        format!("M{} {} C{} {} {} {} {} {}", a.0 + NODE_W / 2, a.1 + NODE_H, a.0 + NODE_W / 2, y2 + 40, b.0 + NODE_W / 2, y2 + 40, b.0 + NODE_W / 2, b.1 + NODE_H)
                    } else {
                        format!("M{x1} {y1} C{} {y1} {} {y2} {x2} {y2}", x1 + 30, x2.saturating_sub(30))
                    };
                    path class=(format!("edge {}", e.kind.name())) d=(path) stroke=(kind_colour(e.kind)) fill="none"
                        stroke-width=(if on_chain(e.from) && on_chain(e.to) { "2.5" } else { "1" }) {
                        title { (e.kind.name()) " dependency on " (e.field) ": " (d.units[e.from].name) " → " (d.units[e.to].name) "\n" (site(&d.units[e.to].loc, lines)) }
                    }
                }
            }
            @for (i, u) in d.units.iter().enumerate() {
                @let (x, y) = l.at[i];
                g class=(format!("unit {}{}", u.kind, if on_chain(i) { " chain" } else { "" })) {
                    title { (u.name) " (" (u.kind) @if let Some((a, b)) = u.stages { ", stage " (a) @if b > a { "-" (b) } } ")\n" (site(&u.loc, lines)) }
                    rect x=(x) y=(y) width=(NODE_W) height=(NODE_H) rx="4" {}
                    text x=(x + 6) y=(y + 16) { (short(&u.name, 28)) }
                }
            }
        }
    }
}

/// The parse graph: states in columns by depth with their bytes and term,
/// accept and reject after the deepest.
pub fn parse_graph(p: &ParseView, lines: &SourceLines) -> Markup {
    let mut layers: Vec<u32> = p.states.iter().map(|s| s.layer).collect();
    layers.push(p.end_layer);
    layers.push(p.end_layer);
    let l = layout::layered(&layers, 1);
    let n = p.states.len();
    html! {
        svg.parsegraph width=(l.size.0) height=(l.size.1)
            viewBox=(format!("0 0 {} {}", l.size.0, l.size.1)) {
            @for c in 0..l.columns {
                text.colhead x=(layout::column_x(c)) y=(TOP - 10) { "depth " (c) }
            }
            @for &(f, t) in &p.edges {
                @if let (Some(a), Some(b)) = (l.at.get(f), l.at.get(t)) {
                    @let (x1, y1, x2, y2) = (a.0 + NODE_W, a.1 + NODE_H / 2, b.0, b.1 + NODE_H / 2);
                    @let d = if x2 <= x1 {
                        format!("M{} {} C{} {} {} {} {} {}", a.0 + NODE_W / 2, a.1, a.0 + NODE_W / 2, y2.saturating_sub(40), b.0 + NODE_W / 2, y2.saturating_sub(40), b.0 + NODE_W / 2, b.1)
                    } else {
                        format!("M{x1} {y1} C{} {y1} {} {y2} {x2} {y2}", x1 + 30, x2.saturating_sub(30))
                    };
                    path.edge d=(d) stroke="#888" fill="none" {}
                }
            }
            @for (i, s) in p.states.iter().enumerate() {
                @let (x, y) = l.at[i];
                g.state {
                    title { (s.name) ": " (s.bytes) " B" @if let Some((lo, hi)) = s.term_ns { ", term " (ns(lo)) @if hi != lo { "–" (ns(hi)) } " ns" } "\n" (site(&s.loc, lines)) }
                    rect x=(x) y=(y) width=(NODE_W) height=(NODE_H) rx="10" {}
                    text x=(x + 6) y=(y + 16) { (short(&s.name, 18)) " " (s.bytes) "B" @if let Some((_, hi)) = s.term_ns { " " (ns(hi)) } }
                }
            }
            @for (k, name) in ["accept", "reject"].iter().enumerate() {
                @let (x, y) = l.at[n + k];
                g class=(format!("state end {name}")) {
                    rect x=(x) y=(y) width=(NODE_W) height=(NODE_H) rx="10" {}
                    text x=(x + 6) y=(y + 16) { (name) }
                }
            }
        }
    }
}

/// A figure in ns with three decimals.
pub fn ns(v: f64) -> String {
    format!("{v:.3}")
}

/// Bars of the classes per latency bin, min, median and max marked.
pub fn histogram(h: &p4cost_engine::path_stats::HistogramOut, median: Option<f64>) -> Markup {
    let (w, hgt, pad) = (720.0_f64, 160.0_f64, 30.0_f64);
    let counts: Vec<f64> = h
        .counts
        .iter()
        .map(|c| c.text.parse::<f64>().unwrap_or(0.0))
        .collect();
    let top = counts.iter().copied().fold(0.0, f64::max).max(1.0);
    let bw = w / counts.len().max(1) as f64;
    let span = (h.hi_ns - h.lo_ns).max(f64::MIN_POSITIVE);
    let x_of = |v: f64| pad + (v - h.lo_ns) / span * w;
    html! {
        svg.histogram width=(w + 2.0 * pad) height=(hgt + 50.0)
            viewBox=(format!("0 0 {} {}", w + 2.0 * pad, hgt + 50.0)) {
            @for (i, c) in counts.iter().enumerate() {
                @let bh = c / top * hgt;
                rect.bar x=(format!("{:.1}", pad + i as f64 * bw)) y=(format!("{:.1}", 10.0 + hgt - bh))
                    width=(format!("{:.1}", (bw - 1.0).max(1.0))) height=(format!("{bh:.1}")) {
                    title { (h.counts[i].text) " classes in ("
                        (ns(h.lo_ns + span * i as f64 / counts.len() as f64)) ", "
                        (ns(h.lo_ns + span * (i + 1) as f64 / counts.len() as f64)) "] ns" }
                }
            }
            @for (label, v) in [("min", Some(h.lo_ns)), ("median", median), ("max", Some(h.hi_ns))] {
                @if let Some(v) = v {
                    line.mark x1=(format!("{:.1}", x_of(v))) x2=(format!("{:.1}", x_of(v))) y1="5" y2=(hgt + 12.0) {}
                    text.mark x=(format!("{:.1}", x_of(v))) y=(hgt + 26.0 + if label == "median" { 14.0 } else { 0.0 })
                        text-anchor=(match label { "min" => "start", "max" => "end", _ => "middle" }) { (label) " " (ns(v)) }
                }
            }
        }
    }
}
