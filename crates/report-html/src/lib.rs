//! `p4cost report`: the engine's [`PipelineView`] rendered as one
//! self-contained HTML page (maud templates, inline SVG, CSS and a little
//! JS; nothing fetched when it is opened, readable without JS). Every
//! figure shown is the engine's; this crate only lays them out.
//! Depends on `engine`, `analysis`, `model`, `ir` (their plain types) and
//! `maud`.

mod graphs;
pub mod layout;
mod stagemap;

use maud::{html, Markup, PreEscaped, DOCTYPE};
use p4cost_engine::pipeline_view::PipelineView;
use p4cost_engine::report::{Loc, Report};

use graphs::{ns, site};

/// Most packet classes the page lists (all are counted).
pub const MAX_CLASS_ROWS: usize = 2000;

const CSS: &str = include_str!("report.css");
const JS: &str = include_str!("report.js");

/// The whole page.
pub fn render(v: &PipelineView) -> String {
    let r = &v.report;
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                title { "p4cost report: " (r.program) }
                style { (PreEscaped(CSS)) }
            }
            body {
                h1 { "p4cost pipeline report" }
                nav { a href="#summary" { "Summary" } a href="#stages" { "Stage map" } a href="#deps" { "Dependencies" }
                      a href="#parse" { "Parse graph" } a href="#classes" { "Classes" } a href="#warnings" { "Warnings" } }
                section #summary { h2 { "Summary" } (summary(r)) }
                section #stages { h2 { "Stage map" } (stagemap::stage_map(&v.stages, &v.deps)) (legend()) }
                section #deps { h2 { "Dependency graph" } (deps(v)) }
                section #parse { h2 { "Parse graph" } (parse(v)) }
                section #classes { h2 { "Packet classes" } (classes(v)) }
                section #warnings { h2 { "Warnings" } (warnings(v)) }
                footer { "p4cost " (r.p4cost_version) ", report schema " (r.schema_version) }
                script { (PreEscaped(JS)) }
            }
        }
    };
    page.into_string()
}

fn summary(r: &Report) -> Markup {
    html! {
        table.facts {
            tr { th { "program" } td { (r.program) " (" (r.input) ")" } }
            @if let Some(c) = &r.context { tr { th { "context" } td { (c) } } }
            tr { th { "arch" } td { (r.arch) } }
            tr { th { "model" } td { code { (r.model.name) } ": " (r.model.title) } }
            tr { th { "packet" } td { (r.packet_size) " B" @if r.packet_size_is_default { " (default)" }
                @if let Some(p) = r.port_gbps { ", " (p) "G port" } } }
            @if let Some(p) = r.parser_in_program() { tr { th { "parser" } td { (p) ": " (r.path_count_text) " paths" } } }
            @if let Some(c) = &r.classes { tr { th { "classes" } td { (c.count.text) " packet classes" } } }
            @if let Some(m) = &r.mau { @for g in [&m.ingress, &m.egress].into_iter().flatten() {
                tr { th { (g.gress.name()) } td { (g.cycles) " cycles = " (format!("{:.1}", g.ns)) " ns" } } } }
        }
        @if let Some(s) = &r.summary {
            p { "Latency over all " (s.classes.as_ref().unwrap_or(&s.paths).text) " " (s.over) "es: "
                @if let Some(m) = &s.min { "min " strong { (ns(m.latency_ns)) } " ns" }
                @if let Some(m) = s.median_ns { ", median " strong { (ns(m)) } " ns" }
                @if let Some(m) = &s.max { ", max " strong { (ns(m.latency_ns)) } " ns" } }
            @if let Some(h) = &s.histogram { (graphs::histogram(h, s.median_ns)) }
            @else { p.note { "histogram: not computed" @if !s.median_note.is_empty() { " (" (s.median_note) ")" } } }
            @for (label, e) in [("fastest", &s.min), ("slowest", &s.max)] {
                @if let Some(e) = e {
                    p { (label) " " @if let Some(c) = &e.class { "class " (c) } @else { "path " (e.number.to_string()) }
                        " (" (ns(e.latency_ns)) " ns): " (e.headers.join(" → "))
                        @if let Some(t) = &e.tables { br; @if t.is_empty() { "applies no table" } @else { "applies " (t.len()) @if t.len() == 1 { " table: " } @else { " tables: " } (t.join(", ")) } } }
                }
            }
        } @else {
            p.note { "No latency summary over classes for this model and input." }
        }
    }
}

fn legend() -> Markup {
    use p4cost_analysis::deps::DepKind;
    html! {
        p.legend { "Dependencies: "
            @for k in [DepKind::Match, DepKind::Action, DepKind::Control, DepKind::ReverseRead] {
                span style=(format!("color:{}", graphs::kind_colour(k))) { "■ " (k.name()) } " "
            }
            span.chaintext { "▭ chain that sets the stage count" }
        }
    }
}

fn deps(v: &PipelineView) -> Markup {
    html! {
        @if v.deps.is_empty() { p.note { "No ingress or egress control." } }
        @for d in &v.deps {
            h3 { (d.gress.name()) " " code { (d.control) } ": " (d.units.len()) " units, " (d.edges.len()) " dependencies"
                @if !d.layers_are_stages { " (columns: depth in match/action dependencies, no placement)" } }
            div.scroll { (graphs::dep_graph(d, &v.lines)) }
        }
    }
}

fn parse(v: &PipelineView) -> Markup {
    html! {
        @match &v.parse {
            None => p.note { "No parse graph in this input." },
            Some(p) => {
                p { "Parser " code { (p.parser) } ": " (p.states.len()) " states, " (v.report.path_count_text) " paths from start to accept." }
                div.scroll { (graphs::parse_graph(p, &v.lines)) }
                (state_table(v))
            }
        }
    }
}

/// A `file:line` link and the line's text.
fn src(loc: &Loc, v: &PipelineView) -> Markup {
    let href = if loc.file.starts_with('/') {
        Some(format!("file://{}", loc.file))
    } else if loc.file.starts_with('<') {
        None
    } else {
        Some(loc.file.clone())
    };
    html! {
        @match href {
            Some(h) => a.src href=(h) { (loc.file) ":" (loc.line) },
            None => span.src { (loc.file) ":" (loc.line) },
        }
        @if let Some(t) = v.lines.line(loc) { " " code.line { (t) } }
    }
}

fn state_table(v: &PipelineView) -> Markup {
    html! {
        @if !v.report.state_terms.is_empty() {
            table.sortable { thead { tr { th { "state" } th { "counted bytes" } th { "term ns (min–max over paths)" } th { "source" } } }
                tbody { @for t in &v.report.state_terms { tr {
                    td { (t.name) } td.num { (t.counted_bytes) } td.num { (ns(t.min_ns)) "–" (ns(t.max_ns)) } td { (src(&t.span, v)) } } } } }
        }
    }
}

fn classes(v: &PipelineView) -> Markup {
    let r = &v.report;
    let rows = r.paths.iter().flat_map(|p| {
        p.classes
            .iter()
            .flat_map(move |c| c.classes.iter().map(move |k| (p, k)))
    });
    let listed = rows.clone().count().min(MAX_CLASS_ROWS);
    html! {
        @if r.classes.is_none() { p.note { "No packet classes for this model and input (they need a parse graph and a model that prices classes)." } }
        @if let Some(c) = &r.classes { p { (c.count.text) " packet classes in all; " (listed) " listed (the first "
            (r.paths_listed) " of " (r.path_count_text) " parse paths, up to " (r.paths.first().and_then(|p| p.classes.as_ref()).map_or(0, |c| c.classes.len())) " classes each)." } }
        @if !r.tables.is_empty() {
            h3 { "Tables" }
            table.sortable { thead { tr { th { "table" } th { "gress" } th { "term ns" } th { "source" } } }
                tbody { @for t in &r.tables { tr { td { (t.name) } td { (t.gress) } td.num { (ns(t.latency_ns)) } td { (src(&t.span, v)) } } } } }
        }
        @if listed > 0 {
            h3 { "Classes" }
            p { label { "Filter: " input #classfilter type="search" placeholder="header or table name"; } }
            table.sortable #classtable { thead { tr { th { "class" } th { "headers" } th { "tables applied" } th { "latency ns" } } }
                tbody { @for (p, k) in rows.take(MAX_CLASS_ROWS) { tr {
                    td { (k.id) } td { (p.headers.join(" → ")) }
                    td { @for (i, t) in k.tables.iter().enumerate() { @if i > 0 { ", " }
                        (r.tables.get(*t as usize).map_or("?", |t| t.name.as_str())) } }
                    td.num { (ns(k.latency_ns)) } } } } }
        }
    }
}

fn warnings(v: &PipelineView) -> Markup {
    let r = &v.report;
    let mut codes: Vec<&str> = r.warnings.iter().map(|w| w.code.as_str()).collect();
    codes.extend(r.path_warnings.iter().map(|w| w.code.as_str()));
    codes.sort_unstable();
    codes.dedup();
    html! {
        @if codes.is_empty() { p { "No warnings." } }
        @for code in codes {
            details.warngroup open {
                summary { code { (code) } }
                ul {
                    @for w in r.warnings.iter().filter(|w| w.code == code) {
                        li { (w.message) @if let Some(l) = &w.span { " — " (src(l, v)) } }
                    }
                    @for w in r.path_warnings.iter().filter(|w| w.code == code) {
                        li { (w.message) " (" (w.applies_to.text) " paths)" @if let Some(l) = &w.span { " — " (site(l, &v.lines)) } }
                    }
                }
            }
        }
    }
}
