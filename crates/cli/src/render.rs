//! The readable table of a predict report (the JSON is the report itself,
//! serialized).

use std::fmt::Write as _;

use p4cost_engine::report::*;
use p4cost_engine::{path_classes, path_stats};

use crate::diagnostics::{self, Snippets};

/// `put!(s, "...", args)`: the arguments formatted onto the string `s`
/// (`push_str` of a `format!` without the string it would allocate).
macro_rules! put {
    ($s:expr, $($arg:tt)*) => {{
        // Writing to a String cannot fail.
        let _ = $s.write_fmt(format_args!($($arg)*));
    }};
}

fn gress_name(g: p4cost_ir::Gress) -> &'static str {
    match g {
        p4cost_ir::Gress::Ingress => "ingress",
        p4cost_ir::Gress::Egress => "egress",
        p4cost_ir::Gress::Ghost => "ghost",
        p4cost_ir::Gress::Unknown => "unknown",
    }
}

/// The per-gress totals and the ingress stages of the MAU model.
fn render_mau(s: &mut String, m: &MauOut) {
    put!(
        s,
        "{:<8}  {:>6}  {:>10}  {:>11}  {:>6}\n",
        "gress",
        "cycles",
        "latency ns",
        "corner turn",
        "stages"
    );
    for g in [&m.ingress, &m.egress, &m.ghost].into_iter().flatten() {
        put!(
            s,
            "{:<8}  {:>6}  {:>10.3}  {:>11}  {:>6}\n",
            gress_name(g.gress),
            g.cycles,
            g.ns,
            g.corner_turn_cycles,
            g.cycles.saturating_sub(g.corner_turn_cycles)
        );
    }
    if let Some(ing) = &m.ingress {
        s.push_str("\ningress stages\n");
        put!(
            s,
            "  {:>5}  {:<7}  {:>6}  {:>4}  {:>7}  tables\n",
            "stage",
            "depends",
            "length",
            "adds",
            "ns"
        );
        for st in &ing.stages {
            put!(
                s,
                "  {:>5}  {:<7}  {:>6}  {:>4}  {:>7.3}  {}\n",
                st.stage,
                if st.match_dependent { "match" } else { "-" },
                st.clock_cycles,
                st.cycles,
                st.ns,
                if st.tables.is_empty() {
                    "-".to_string()
                } else {
                    st.tables.join(", ")
                }
            );
        }
    }
}

/// How much of the warnings the table shows (`-q`, default, `-v`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Detail {
    /// No warning, only a line counting them (and the denied ones).
    Quiet,
    /// Per code: one line, or with several sites a heading, the first
    /// [`SITES_SHOWN`] sites and how many more.
    #[default]
    Normal,
    /// Every site of every code.
    Verbose,
}

/// Sites listed under a code's heading without `-v`.
pub const SITES_SHOWN: usize = 3;

/// What p4cost did not check in a P4 source, said once in the header of
/// `predict` and `parse`.
pub const NOT_TYPE_CHECKED: &str =
    "parsed and lowered, not type-checked (p4cost has no type checker: p4c reports type errors)";

/// Renders the report as a readable table; warnings about a table or
/// parse state show its source line (from `snippets`), grouped by code
/// as `detail` says.
pub fn render_human(r: &Report, snippets: &mut Snippets, detail: Detail) -> String {
    let mut s = String::with_capacity(size_hint(r));
    render_human_onto(&mut s, r, snippets, detail);
    s
}

/// About the bytes of `r`'s table (a line of 128 bytes for each path,
/// class, table and warning): its string grown once or twice, not a
/// dozen times (each a copy).
fn size_hint(r: &Report) -> usize {
    let classes: usize = r
        .paths
        .iter()
        .filter_map(|p| p.classes.as_ref())
        .map(|c| c.classes.len() + 1)
        .sum();
    let tables = r.paths.first().map_or(0, |p| p.breakdown.tables.len());
    let lines = 64 + r.paths.len() + classes + tables + 8 * r.warnings.len();
    lines.saturating_mul(128)
}

/// [`render_human`] written onto `s`: the overview lines, the model's
/// table, the tables of the first path, then the warnings.
fn render_human_onto(s: &mut String, r: &Report, snippets: &mut Snippets, detail: Detail) {
    render_overview(s, r);
    s.push('\n');
    match (&r.mau, &r.cpu, &r.recirc) {
        (Some(m), _, _) => render_mau(s, m),
        (None, Some(c), _) => crate::render_cpu::render(s, r, c),
        (None, None, Some(p)) => crate::render_passes::render(s, r, p),
        (None, None, None) => render_paths(s, r),
    }
    render_tables(s, r);
    render_warning_sections(s, r, snippets, detail);
}

/// The lines above the first table: program, parser, control, classes,
/// latency summary, what is left out and the rejects.
fn render_overview(s: &mut String, r: &Report) {
    render_head(s, r);
    if r.mau.is_some() {
        render_mau_parser(s, r);
    } else {
        render_parser(s, r);
    }
    render_control(s, r);
    if let Some(c) = &r.classes {
        render_classes(s, c, r.summary.as_ref());
    }
    if let Some(sum) = &r.summary {
        render_summary(s, sum);
    }
    // Paths longer than the packet are out of every figure: said here once.
    if let Some(l) = &r.left_out {
        put!(s, "left out  {}\n", l.message());
    }
    if let Some(rj) = r.rejects.as_ref().filter(|rj| rj.count.text != "0") {
        render_rejects(s, rj);
    }
}

/// The warnings as `detail` says (with `-q` only their count), then the
/// denied codes.
fn render_warning_sections(s: &mut String, r: &Report, snippets: &mut Snippets, detail: Detail) {
    if detail == Detail::Quiet {
        render_warning_count(s, r);
    } else {
        render_warnings(s, r, snippets, detail);
        render_path_warnings(s, r, snippets);
        render_denied(s, r);
    }
}

/// The program, context and model lines, then the target and pipeline lines.
fn render_head(s: &mut String, r: &Report) {
    put!(
        s,
        "p4cost {}: {} ({}, {})\n",
        r.p4cost_version,
        r.program,
        r.arch,
        r.input
    );
    if !r.type_checked {
        put!(s, "checks    {NOT_TYPE_CHECKED}\n");
    }
    if let Some(ctx) = &r.context {
        put!(
            s,
            "context   {ctx}{}\n",
            r.bfrt
                .as_deref()
                .map(|b| format!(" with {b}"))
                .unwrap_or_default()
        );
    }
    put!(s, "model     {}: {}\n", r.model.name, r.model.title);
    render_target_line(s, r);
    render_pipeline_line(s, r);
}

/// The line under the model: passes, CPU, the MAU clock or the packet.
fn render_target_line(s: &mut String, r: &Report) {
    match &r.mau {
        None if r.recirc.is_some() => {
            if let Some(p) = &r.recirc {
                s.push_str(&crate::render_passes::head_line(r, p));
            }
        }
        None if r.cpu.is_some() => {
            if let Some(c) = &r.cpu {
                s.push_str(&crate::render_cpu::head_line(c));
            }
        }
        Some(m) => put!(
            s,
            "clock     {} GHz{}\n",
            m.clock_ghz,
            if m.clock_is_default {
                " (default; set --clock-ghz)"
            } else {
                ""
            }
        ),
        None => put!(
            s,
            "packet    {} B{}{}\n",
            r.packet_size,
            if r.packet_size_is_default {
                " (default; set --packet-size)"
            } else {
                ""
            },
            r.port_gbps
                .map(|g| format!(", {g}G port"))
                .unwrap_or_default()
        ),
    }
}

/// The `pipeline` line of a program with several pipelines.
fn render_pipeline_line(s: &mut String, r: &Report) {
    if let Some(p) = r.pipeline.as_ref().filter(|p| p.all.len() > 1) {
        let same = if p.identical.is_empty() {
            String::new()
        } else {
            format!(
                " (identical ingress parser and control: {})",
                p.identical.join(", ")
            )
        };
        put!(
            s,
            "pipeline  {}{same}; the program has {} pipelines: {} (--pipe NAME for one)\n",
            p.name,
            p.all.len(),
            p.all.join(", ")
        );
    }
}

/// The parser as the human table names it: its declared name with the
/// package slot (the name the JSON compares by) beside it when they differ.
fn parser_shown(r: &Report) -> Option<String> {
    let slot = r.parser.as_deref()?;
    Some(match &r.parser_declared {
        Some(d) => format!("{d} (slot {slot})"),
        None => slot.to_string(),
    })
}

/// The parser line of a MAU model's report.
fn render_mau_parser(s: &mut String, r: &Report) {
    let count = &r.path_count_text;
    match parser_shown(r) {
        Some(parser) => put!(s,
            "parser    {parser}: {count} paths; the MAU latency is the same on every path\n"
        ),
        None => s.push_str(
            "parser    (none): the input has no parse graph; the MAU latency is the same on every path\n",
        ),
    }
}

/// The parser line of a path model's report: which paths are listed.
fn render_parser(s: &mut String, r: &Report) {
    let count = r.path_count_text.clone();
    let parser = parser_shown(r).unwrap_or_else(|| "(none)".to_string());
    let parser = parser.as_str();
    match (&r.path_selector, &r.path_match) {
        (Some(sel), Some(m)) => render_path_match(s, r, parser, sel, m),
        (Some(sel), None) => put!(s,
            "parser    {}: {} paths; showing the path {}\n",
            parser,
            count,
            sel.join(",")
        ),
        (None, _) if r.listing == "top" => put!(s,
            "parser    {parser}: {count} paths; listing the {} with the heaviest parse terms (--top)\n",
            r.paths_listed
        ),
        (None, _) if r.left_out.is_some() => render_fitting(s, r, parser),
        (None, _) if (r.paths_listed as u128) < r.path_count || r.path_count_saturated => s
            .push_str(&format!(
                "parser    {}: {} paths; listing the first {} (--max-paths {})\n",
                parser, count, r.paths_listed, r.max_paths
            )),
        (None, _) => put!(s, "parser    {}: {} paths\n", parser, count),
    }
}

/// The parser line when some paths do not fit the packet: the listing
/// holds the first of those that do.
fn render_fitting(s: &mut String, r: &Report, parser: &str) {
    let count = &r.path_count_text;
    let fit = r
        .left_out
        .as_ref()
        .and_then(|l| l.paths.value)
        .filter(|_| !r.path_count_saturated)
        .map(|left| r.path_count.saturating_sub(u128::from(left)));
    match fit {
        Some(0) => put!(s,
            "parser    {parser}: {count} paths; none fits the packet\n"
        ),
        Some(fit) if r.paths_listed as u128 >= fit => put!(s,
            "parser    {parser}: {count} paths; listing the {fit} that fit the packet\n"
        ),
        Some(fit) => put!(s,
            "parser    {parser}: {count} paths; listing the first {} of the {fit} that fit the packet (--max-paths {})\n",
            r.paths_listed, r.max_paths
        ),
        None => put!(s,
            "parser    {parser}: {count} paths; listing the first {} that fit the packet (--max-paths {})\n",
            r.paths_listed, r.max_paths
        ),
    }
}

/// The parser line with `--path`: which path of those matching is shown.
fn render_path_match(s: &mut String, r: &Report, parser: &str, sel: &[String], m: &PathMatchOut) {
    let count = &r.path_count_text;
    let n = r
        .paths
        .first()
        .map(|p| p.number.to_string())
        .unwrap_or_default();
    put!(
        s,
        "parser    {parser}: {count} paths; showing path {n}, {}\n",
        if m.matching.value == Some(1) {
            format!("the only one with headers {}", sel.join(","))
        } else {
            format!(
                "the first in graph order of {} with headers {} ({})",
                m.matching.text,
                sel.join(","),
                match (m.latency_differs, m.bytes_differ) {
                    (false, false) => "same latency and bytes: they differ only in other states",
                    (false, true) => "same latency, different bytes",
                    (true, _) => "their latencies differ",
                }
            )
        }
    );
    if m.skipped_ethernet {
        s.push_str("          no path has exactly these headers: matched after a leading Ethernet header\n");
    }
}

/// The control line and its egress.
fn render_control(s: &mut String, r: &Report) {
    put!(
        s,
        "control   {}: {} table{} ({})\n",
        r.control.name.as_deref().unwrap_or("(none)"),
        r.control.tables.len(),
        if r.control.tables.len() == 1 { "" } else { "s" },
        r.control.note
    );
    if let Some(e) = &r.control.egress {
        render_egress(s, e);
    }
}

/// The listed paths, their classes, and the states of a single path.
fn render_paths(s: &mut String, r: &Report) {
    put!(
        s,
        "{:>4}  {:>10}  {:>10}  {:>8}  {:>8}  {:>8}  {}\n",
        "path",
        "min ns",
        "max ns",
        "base",
        "parser",
        "control",
        "headers"
    );
    let one = r.paths.len() == 1 && r.path_selector.is_some();
    let mut cell = String::new();
    let width = line_width();
    for p in &r.paths {
        // `{:>4}  {:>10.3}  {:>10.3}  {:>8.3}  {:>8.3}  {:>8.3}  {}`,
        // each column padded here (see render_classes_brief).
        put!(cell, "{}", p.number);
        push_right(s, &cell, 4);
        let b = &p.breakdown;
        for (ns, width) in [
            (p.min_latency_ns, 10),
            (p.latency_ns, 10),
            (b.base_ns, 8),
            (b.parser_ns, 8),
            (b.control_ns, 8),
        ] {
            s.push_str("  ");
            cell.clear();
            crate::fixed::push_fixed3(&mut cell, ns, false);
            push_right(s, &cell, width);
        }
        s.push_str("  ");
        push_headers(s, p);
        s.push('\n');
        cell.clear();
        if let (Some(pc), false) = (&p.classes, one) {
            render_classes_brief(s, pc, r, width);
        }
    }
    if let (Some(pc), true) = (r.paths.first().and_then(|p| p.classes.as_ref()), one) {
        render_path_classes(s, pc, r);
    }
    if let [p] = r.paths.as_slice() {
        render_path_states(s, p);
    }
}

/// The parse states of the one listed path with their terms.
fn render_path_states(s: &mut String, p: &PathOut) {
    s.push_str("\nparse states on the path\n");
    for st in &p.states {
        let what = if st.extracts.is_empty() {
            "-".to_string()
        } else {
            st.extracts.join(", ")
        };
        let contrib = if st.in_baseline && st.counted_bytes == 0 {
            "in base".to_string()
        } else if st.latency_ns == 0.0 {
            "-".to_string()
        } else {
            format!("{:+.3} ns", st.latency_ns)
        };
        put!(
            s,
            "  {:<24} {:>4} B  {:>12}  {}  ({}:{})\n",
            st.name,
            st.bytes,
            contrib,
            what,
            st.span.file,
            st.span.line
        );
    }
}

/// The tables of the first path's breakdown, each distinct reason for a
/// coefficient class numbered once.
fn render_tables(s: &mut String, r: &Report) {
    let Some(first) = r.paths.first() else {
        return;
    };
    if first.breakdown.tables.is_empty() {
        return;
    }
    s.push_str("\ntables\n");
    let mut reasons: Vec<&str> = Vec::new();
    for t in &first.breakdown.tables {
        let stage = stage_text(&t.stages);
        if r.mau.is_some() {
            put!(
                s,
                "  {:<32} {:<12} {}  ({}:{})\n",
                t.name,
                stage,
                if t.match_class.is_empty() {
                    "keyless".to_string()
                } else {
                    format!("{} keys ({})", t.keys, t.match_class)
                },
                t.span.file,
                t.span.line
            );
            continue;
        }
        let n = match reasons.iter().position(|r| *r == t.class_reason) {
            Some(i) => i + 1,
            None => {
                reasons.push(&t.class_reason);
                reasons.len()
            }
        };
        push_table_line(s, t, n, &stage);
    }
    for (i, r) in reasons.iter().enumerate() {
        put!(s, "  [{}] {r}\n", i + 1);
    }
}

/// A table's line of a path model: `  {:<32} {:<7} {:>2} keys, {:>3}
/// bits  as {:<5} {:<6} [{n}]  {:+.3} ns  {stage  }({file}:{line})`, its
/// columns padded here (see render_classes_brief).
fn push_table_line(s: &mut String, t: &TableOut, n: usize, stage: &str) {
    let mut cell = String::new();
    s.push_str("  ");
    push_left(s, &t.name, 32);
    s.push(' ');
    push_left(s, &t.match_kind, 7);
    s.push(' ');
    crate::fixed::push_u64(&mut cell, t.keys as u64);
    push_right(s, &cell, 2);
    s.push_str(" keys, ");
    cell.clear();
    crate::fixed::push_u64(&mut cell, t.key_bits);
    push_right(s, &cell, 3);
    s.push_str(" bits  as ");
    push_left(s, &t.match_class, 5);
    s.push(' ');
    push_left(s, &t.key_class, 6);
    s.push_str(" [");
    crate::fixed::push_u64(s, n as u64);
    s.push_str("]  ");
    crate::fixed::push_fixed3(s, t.latency_ns, true);
    s.push_str(" ns  ");
    if !stage.is_empty() {
        s.push_str(stage);
        s.push_str("  ");
    }
    s.push('(');
    s.push_str(&t.span.file);
    s.push(':');
    crate::fixed::push_u64(s, u64::from(t.span.line));
    s.push_str(")\n");
}

/// `-q`: one line counting the warnings (none when there are none), and
/// the denied codes.
fn render_warning_count(s: &mut String, r: &Report) {
    let n = r.warnings.len() + r.path_warnings.len();
    if n == 0 {
        return;
    }
    let mut codes: Vec<&str> = r
        .warnings
        .iter()
        .map(|w| w.code.as_str())
        .chain(r.path_warnings.iter().map(|w| w.code.as_str()))
        .collect();
    codes.sort_unstable();
    codes.dedup();
    put!(
        s,
        "\n{n} warning{} of {} code{} (not shown: -q)\n",
        if n == 1 { "" } else { "s" },
        codes.len(),
        if codes.len() == 1 { "" } else { "s" }
    );
    render_denied(s, r);
}

/// The program's warnings grouped by code, in the order each code first
/// occurs: a code with one warning is its line; a code with several is a
/// heading (count and meaning), its sites (the first [`SITES_SHOWN`]
/// unless `Verbose`) and how many more.
fn render_warnings(s: &mut String, r: &Report, snippets: &mut Snippets, detail: Detail) {
    if r.warnings.is_empty() {
        return;
    }
    s.push_str("\nwarnings\n");
    let mut codes: Vec<&str> = Vec::new();
    for w in &r.warnings {
        if !codes.contains(&w.code.as_str()) {
            codes.push(&w.code);
        }
    }
    for code in codes {
        let group: Vec<&WarningOut> = r.warnings.iter().filter(|w| w.code == code).collect();
        if let [w] = group.as_slice() {
            let line = format!("{code}: {}{}", w.message, on_paths(r, w));
            push_warning(s, "  ", &line, code, w.span.as_ref(), snippets);
            continue;
        }
        put!(
            s,
            "  {code}: {} warnings{}: {}\n",
            group.len(),
            if r.denied.iter().any(|d| d == code) {
                " (denied)"
            } else {
                ""
            },
            p4cost_engine::warnings::meaning(code)
        );
        let shown = match detail {
            Detail::Verbose => group.len(),
            _ => SITES_SHOWN.min(group.len()),
        };
        for w in &group[..shown] {
            let line = format!("{}{}", w.message, on_paths(r, w));
            push_warning(s, "    ", &line, code, w.span.as_ref(), snippets);
        }
        if shown < group.len() {
            put!(
                s,
                "    ... and {} more (-v to list all)\n",
                group.len() - shown
            );
        }
    }
}

/// ` [paths 1,3]` when a warning holds on some listed paths only.
fn on_paths(r: &Report, w: &WarningOut) -> String {
    if w.paths.is_empty() || w.paths.len() == r.paths.len() {
        return String::new();
    }
    format!(
        " [paths {}]",
        w.paths
            .iter()
            .map(|i| (i + 1).to_string())
            .collect::<Vec<_>>()
            .join(",")
    )
}

/// The warnings over all paths (one per code already).
fn render_path_warnings(s: &mut String, r: &Report, snippets: &mut Snippets) {
    // (The paths left out are said once, on their own line above.)
    let path_warnings: Vec<_> = r
        .path_warnings
        .iter()
        .filter(|w| r.left_out.is_none() || w.code != "packet_smaller_than_headers")
        .collect();
    if path_warnings.is_empty() {
        return;
    }
    put!(s, "\nwarnings over all {} paths\n", r.path_count_text);
    for w in path_warnings {
        // Which listed paths it applies to: at most 8 numbers, so the
        // line does not grow with --max-paths.
        let mut listed: Vec<String> = w
            .paths
            .iter()
            .take(8)
            .filter_map(|&i| r.paths.get(i).map(|p| p.number.to_string()))
            .collect();
        if w.paths.len() > 8 {
            listed.push(format!("and {} more", w.paths.len() - 8));
        }
        let listed = if listed.is_empty() {
            String::new()
        } else {
            format!("; listed: {}", listed.join(","))
        };
        let line = format!(
            "{}: {} [{} of {} paths{listed}]",
            w.code, w.message, w.applies_to.text, r.path_count_text
        );
        push_warning(s, "  ", &line, &w.code, w.span.as_ref(), snippets);
    }
}

/// The denied codes that occurred: why the exit status is 1.
fn render_denied(s: &mut String, r: &Report) {
    if r.denied.is_empty() {
        return;
    }
    put!(
        s,
        "\nerror: denied warning code{} occurred: {} (--deny or p4cost.toml [warnings] deny)\n",
        if r.denied.len() == 1 { "" } else { "s" },
        r.denied.join(", ")
    );
}

/// `latency` lines: min, median, max over all classes (or all paths
/// without classes), with the fastest and the slowest.
fn render_summary(s: &mut String, sum: &path_stats::SummaryOut) {
    let (Some(min), Some(max)) = (&sum.min, &sum.max) else {
        return;
    };
    let id = |e: &path_stats::ExtremeOut| match &e.class {
        Some(c) => format!("class {c}"),
        None => format!("path {}", e.number),
    };
    let median = match sum.median_ns {
        Some(m) => format!("{m:.3} ns"),
        None => format!("- ({})", sum.median_note),
    };
    let count = match &sum.classes {
        Some(c) if sum.over == "class" => format!("{} classes", c.text),
        _ => format!("{} paths", sum.paths.text),
    };
    put!(
        s,
        "latency   over all {count}: min {:.3} ns ({}), median {}, max {:.3} ns ({})\n",
        min.latency_ns,
        id(min),
        median,
        max.latency_ns,
        id(max)
    );
    for (what, e) in [("fastest", min), ("slowest", max)] {
        let headers = if e.headers.is_empty() {
            "(no header)".to_string()
        } else {
            e.headers.join(" -> ")
        };
        put!(
            s,
            "          {}\n",
            fit(&format!("{what} {}: {headers}", id(e)), line_width() - 10)
        );
        let tables = match &e.tables {
            None => continue,
            Some(t) if t.is_empty() => "none".to_string(),
            Some(t) => format!("({}) {}", t.len(), short_list(t, 4)),
        };
        put!(
            s,
            "                {}\n",
            fit(&format!("tables {tables}"), line_width() - 16)
        );
    }
}

/// The `rejects` lines: how many parse paths end in reject and why, and
/// the cheapest and dearest up to the reject.
fn render_rejects(s: &mut String, rj: &path_stats::RejectsOut) {
    let why: Vec<String> = rj
        .by_reason
        .iter()
        .map(|(k, c)| format!("{} {}", path_stats::reject_text(k), c.text))
        .collect();
    put!(
        s,
        "rejects   {} parse paths end in reject ({}), counted apart from the classes\n",
        rj.count.text,
        why.join(", ")
    );
    for (what, e) in [("cheapest", &rj.min), ("dearest", &rj.max)] {
        let Some(e) = e else { continue };
        put!(
            s,
            "          {}\n",
            fit(
                &format!(
                    "{what} {:.3} ns up to the reject ({}): {}",
                    e.latency_ns,
                    path_stats::reject_text(e.reason),
                    runs(&e.states)
                ),
                line_width() - 10
            )
        );
    }
    put!(s, "          note: {}\n", rj.note);
}

/// Names joined by ` -> `, a run of one name written once with its count
/// (`parse_mpls x8`).
fn runs(names: &[String]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < names.len() {
        let n = names[i..].iter().take_while(|x| **x == names[i]).count();
        out.push(if n > 1 {
            format!("{} x{n}", names[i])
        } else {
            names[i].clone()
        });
        i += n;
    }
    out.join(" -> ")
}

/// The first `keep` names, then how many more.
fn short_list(names: &[String], keep: usize) -> String {
    if names.len() <= keep {
        names.join(", ")
    } else {
        format!(
            "{}, and {} more",
            names[..keep].join(", "),
            names.len() - keep
        )
    }
}

/// Width the per-class lines under a path are cut to (the JSON has them
/// whole): `COLUMNS` when set, else 120.
fn line_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&w| w >= 40)
        .unwrap_or(120)
}

/// `head` and then `items` joined by `, `, wrapped to `width` characters
/// with each further line indented under the first item (an item longer
/// than a line gets a line of its own), ending in a newline.
fn wrapped(head: &str, items: &[&str], width: usize) -> String {
    let indent = head.chars().count();
    let mut out = head.to_string();
    let mut col = indent;
    for (i, item) in items.iter().enumerate() {
        let last = i + 1 == items.len();
        let piece = if last {
            item.to_string()
        } else {
            format!("{item},")
        };
        let len = piece.chars().count();
        if col > indent && col + 1 + len > width {
            out.push('\n');
            out.push_str(&" ".repeat(indent));
            col = indent;
        } else if col > indent {
            out.push(' ');
            col += 1;
        }
        out.push_str(&piece);
        col += len;
    }
    out.push('\n');
    out
}

/// `line` cut to `width` characters, the cut marked with `...`.
fn fit(line: &str, width: usize) -> String {
    let mut s = String::with_capacity(line.len().min(width * 4));
    push_fit(&mut s, line, width);
    s
}

/// [`fit`] written onto `s`: without a copy of the whole line, and
/// without counting the characters of a line that cannot be too long
/// (a class's line lists all its tables; about 120 characters are shown).
fn push_fit(s: &mut String, line: &str, width: usize) {
    match fit_cut(line, width) {
        None => s.push_str(line),
        Some(kept) => {
            s.push_str(&line[..kept]);
            s.push_str("...");
        }
    }
}

/// Cuts the line that starts at byte `at` of `s` (and runs to its end)
/// to `width` characters as [`fit`] does, in place.
fn cut_fit(s: &mut String, at: usize, width: usize) {
    if let Some(kept) = fit_cut(&s[at..], width) {
        s.truncate(at + kept);
        s.push_str("...");
    }
}

/// Where [`fit`] cuts `line` (the bytes it keeps before `...`); `None`
/// when the line fits in `width` characters.
fn fit_cut(line: &str, width: usize) -> Option<usize> {
    // No more bytes than `width`: no more characters either.
    if line.len() <= width {
        return None;
    }
    // The first `width + 1` bytes ASCII: as many characters, so the line
    // is too long and the cut is a byte count (the usual line: names and
    // figures), found without decoding a character.
    if line.as_bytes()[..=width].is_ascii() {
        return Some(width.saturating_sub(3));
    }
    line.char_indices().nth(width)?;
    Some(
        line.char_indices()
            .nth(width.saturating_sub(3))
            .map_or(line.len(), |(i, _)| i),
    )
}

/// The count of classes of a path and one line for each listed: its id,
/// latency and tables (with hit/miss or action where the control branches
/// on them), cut to `width` ([`line_width`], read once for all paths).
fn render_classes_brief(
    s: &mut String,
    pc: &path_classes::PathClassesOut,
    r: &Report,
    width: usize,
) {
    // A path with one class: that class's line says it all.
    if !(pc.total.text == "1" && pc.classes.len() == 1 && pc.filter.is_none()) {
        let at = s.len();
        push_classes_heading(s, pc);
        cut_fit(s, at, width);
        s.push('\n');
    }
    // Each class's line written onto `s` and cut there: no copy of it;
    // its columns padded here (`format!`'s padding writes one space at a
    // time through the formatter: 1 K instructions a row).
    let mut ns = String::new();
    for c in &pc.classes {
        let at = s.len();
        ns.clear();
        crate::fixed::push_fixed3(&mut ns, c.latency_ns, false);
        s.push_str("  ");
        push_right(s, &c.id, 8);
        s.push_str("  ");
        push_right(s, &ns, 10);
        s.push_str("  ");
        // More than 4 bytes a column are more characters than the line
        // shows: the brief need not be longer (cut_fit cuts the same).
        s.push_str(&path_classes::class_brief_within(
            c,
            &r.tables,
            &r.decisions,
            4 * width,
        ));
        cut_fit(s, at, width);
        s.push('\n');
    }
}

/// `text` right-aligned in `width` characters (`{:>width}`).
fn push_right(s: &mut String, text: &str, width: usize) {
    push_spaces(s, width.saturating_sub(chars(text)));
    s.push_str(text);
}

/// `text` left-aligned in `width` characters (`{:<width}`).
fn push_left(s: &mut String, text: &str, width: usize) {
    s.push_str(text);
    push_spaces(s, width.saturating_sub(chars(text)));
}

/// The characters of `text` (its bytes when ASCII, as names and figures
/// are: no decoding).
fn chars(text: &str) -> usize {
    if text.is_ascii() {
        text.len()
    } else {
        text.chars().count()
    }
}

/// `n` spaces onto `s` (a slice of them at a time, not a char each).
fn push_spaces(s: &mut String, mut n: usize) {
    const SPACES: &str = "                                ";
    while n > 0 {
        let k = n.min(SPACES.len());
        s.push_str(&SPACES[..k]);
        n -= k;
    }
}

/// `        4 classes (first 2 listed; --class acl:miss)` onto `s`.
fn push_classes_heading(s: &mut String, pc: &path_classes::PathClassesOut) {
    s.push_str("            ");
    s.push_str(&pc.total.text);
    s.push_str(if pc.total.text == "1" {
        " class"
    } else {
        " classes"
    });
    if let Some(f) = &pc.filter {
        put!(s, " ({} matching --class {f}", pc.classes.len());
        if pc.truncated {
            s.push_str("; more may match");
        }
        s.push(')');
    } else if pc.truncated {
        put!(s, " (first {} listed)", pc.classes.len());
    }
}

/// The classes of the `--path` path: each with its latency, its tables,
/// the way it took at every branch, and the other tables with why they
/// are skipped.
fn render_path_classes(s: &mut String, pc: &path_classes::PathClassesOut, r: &Report) {
    put!(
        s,
        "\nclasses of this path: {}{}\n",
        pc.total.text,
        match (&pc.filter, pc.truncated) {
            (Some(f), t) => format!(
                " ({} matching --class {f}{})",
                pc.classes.len(),
                if t { "; more may match" } else { "" }
            ),
            (None, true) => format!(" (first {} listed)", pc.classes.len()),
            (None, false) => String::new(),
        }
    );
    for c in &pc.classes {
        let head = format!("  {:>6}  {:>10.3} ns  tables: ", c.id, c.latency_ns);
        let names: Vec<&str> = path_classes::class_tables_of(c, &r.tables)
            .map(|t| t.name.as_str())
            .collect();
        if names.is_empty() {
            put!(s, "{head}none\n");
        } else {
            s.push_str(&wrapped(&head, &names, line_width()));
        }
        for d in path_classes::class_decisions_of(c, &r.decisions) {
            put!(
                s,
                "                     {} -> {}{}  ({}:{})\n",
                d.at,
                d.outcome,
                match (d.forced, d.gress) {
                    (false, _) => "",
                    (true, "egress") => ", decided by the headers egress starts with",
                    (true, _) => ", decided by the parse path",
                },
                d.span.file,
                d.span.line
            );
        }
        for k in path_classes::class_skipped_of(c, &r.skipped) {
            put!(s, "                     not {}: {}\n", k.table, k.reason);
        }
    }
}

/// `egress` lines: the egress control classes walk after ingress, and
/// what its parser leaves of the headers it tests.
fn render_egress(s: &mut String, e: &EgressOut) {
    put!(
        s,
        "egress    {}: {} table{}, walked by every class after ingress ({})\n",
        e.name,
        e.tables.len(),
        if e.tables.len() == 1 { "" } else { "s" },
        if e.charged {
            "charged"
        } else {
            "listed, not charged: the model measures ingress"
        }
    );
    if let Some(p) = e.parser_declared.as_ref().or(e.parser.as_ref()) {
        let mut parts: Vec<String> = Vec::new();
        if !e.invalid_at_start.is_empty() {
            parts.push(format!("{} invalid", e.invalid_at_start.join(", ")));
        }
        if !e.unknown_at_start.is_empty() {
            parts.push(format!("{} unknown", e.unknown_at_start.join(", ")));
        }
        put!(
            s,
            "          egress parser {p}: {}\n",
            if parts.is_empty() {
                "re-parses the headers ingress emitted".to_string()
            } else {
                format!(
                    "{} when egress starts; other headers as ingress left them",
                    parts.join("; ")
                )
            }
        );
    }
}

/// `classes` lines: the count of packet classes and the fastest and
/// slowest, with the tables each applies.
fn render_classes(
    s: &mut String,
    c: &path_stats::ClassesOut,
    sum: Option<&path_stats::SummaryOut>,
) {
    // Long lists are cut to a few names (the JSON has them all).
    let some = |names: &[String], keep: usize| -> String {
        if names.len() <= keep {
            names.join(", ")
        } else {
            format!(
                "{}, ... ({} more)",
                names[..keep].join(", "),
                names.len() - keep
            )
        }
    };
    let over = sum.map_or(String::new(), |sum| {
        format!(" over {} parse paths", sum.paths.text)
    });
    put!(
        s,
        "classes   {} packet classes{over} (parse path x control path{})\n",
        c.count.text,
        match (c.tested_headers.is_empty(), c.tested_fields.is_empty()) {
            (true, true) => String::new(),
            (false, true) => format!(
                "; branches on the validity of {}",
                some(&c.tested_headers, 6)
            ),
            (true, false) => format!(
                "; branches on the parsed fields {}",
                some(&c.tested_fields, 4)
            ),
            (false, false) => format!(
                "; branches on the validity of {} and on the parsed fields {}",
                some(&c.tested_headers, 6),
                some(&c.tested_fields, 4)
            ),
        }
    );
    if !c.tested_flags.is_empty() {
        put!(
            s,
            "          flags set to constants and tested: {}\n",
            some(&c.tested_flags, 6)
        );
    }
    if !c.note.is_empty() {
        put!(s, "          note: {}\n", c.note);
    }
}

/// The headers column: packet headers in order, after the metadata
/// extracted before the packet in brackets (`[md.resubmit] hdr.ethernet`).
fn push_headers(s: &mut String, p: &PathOut) {
    if !p.metadata.is_empty() {
        s.push('[');
        push_joined(s, &p.metadata, ", ");
        s.push_str("] ");
    }
    if p.headers.is_empty() {
        s.push_str("(none)");
    } else {
        push_joined(s, &p.headers, " -> ");
    }
}

/// `items` joined by `sep`, written onto `s` (`join` without its string).
fn push_joined(s: &mut String, items: &[String], sep: &str) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            s.push_str(sep);
        }
        s.push_str(item);
    }
}

/// One warning: its line (after `indent`), and below it (indented) the
/// source line of the table or state it names, when that file can be
/// shown.
fn push_warning(
    s: &mut String,
    indent: &str,
    line: &str,
    code: &str,
    span: Option<&Loc>,
    snippets: &mut Snippets,
) {
    put!(s, "{indent}{line}\n");
    let Some(at) = span.and_then(|l| snippets.range(l)) else {
        return;
    };
    let what = code.replace('_', " ");
    let shown = diagnostics::labelled(
        codespan_reporting::diagnostic::Severity::Warning,
        Some(code),
        &what,
        vec![diagnostics::primary(at, what.clone())],
        Vec::new(),
    )
    .and_then(|d| snippets.render(&d));
    if let Some(text) = shown {
        // The warning's sentence is on the line above: keep the snippet.
        let pad = format!("{indent}  ");
        s.push_str(&diagnostics::indented(&text, 1, &pad));
    }
}

/// Renders several pipeline reports: one section per pipeline.
pub fn render_human_multi(reports: &[Report], snippets: &mut Snippets, detail: Detail) -> String {
    let mut s = String::new();
    for (i, r) in reports.iter().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        let name = r.pipeline.as_ref().map_or("(unnamed)", |p| p.name.as_str());
        put!(
            s,
            "=== pipeline {name} ({} of {}) ===\n",
            i + 1,
            reports.len()
        );
        render_human_onto(&mut s, r, snippets, detail);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The old `fit`: count every character, copy the kept ones.
    fn fit_by_counting(line: &str, width: usize) -> String {
        if line.chars().count() <= width {
            line.to_string()
        } else {
            let kept: String = line.chars().take(width.saturating_sub(3)).collect();
            format!("{kept}...")
        }
    }

    #[test]
    fn right_alignment_is_formats() {
        for text in ["", "1", "12.345", "1.2.3.4.5.6", "é1", "123456789012"] {
            let mut s = String::from("x");
            push_right(&mut s, text, 8);
            assert_eq!(s, format!("x{text:>8}"));
        }
    }

    #[test]
    fn a_line_is_cut_at_characters_not_bytes() {
        let lines = [
            "",
            "short",
            "exactly ten",
            "été à l'école, naïve façade",
            "ééééééééééééééééééééé",
            "abcdefghijklmnopqrstuvwxyz",
        ];
        for line in lines {
            for width in 0..30 {
                assert_eq!(
                    fit(line, width),
                    fit_by_counting(line, width),
                    "{line:?} at {width}"
                );
            }
        }
        // Cut in place, after what the string already holds.
        for line in lines
            .iter()
            .chain(&["abcdefghijklmnopqrstuvwxyzé", "abc ééé def"])
        {
            for width in 0..30 {
                let mut s = String::from("head: ");
                s.push_str(line);
                cut_fit(&mut s, 6, width);
                assert_eq!(
                    s,
                    format!("head: {}", fit_by_counting(line, width)),
                    "{line:?} at {width}"
                );
            }
        }
        // 10 two-byte characters are 20 bytes: they fit in 10 columns.
        assert_eq!(fit("éééééééééé", 10), "éééééééééé");
        assert_eq!(fit("ééééééééééé", 10), "ééééééé...");
    }
}
