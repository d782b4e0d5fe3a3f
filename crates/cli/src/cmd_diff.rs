//! `p4cost diff`: what a change cost. The engine compares
//! (`p4cost_engine::diff`); this module turns flags into the two sides'
//! options and renders the comparison.

use std::fmt::Write as _;
use std::io::Write;

use p4cost_engine::diff::{self, ClassDelta, ClassOut, DiffOptions, DiffReport, PipelineDiff};
use p4cost_engine::{PredictOptions, Session};

use crate::args::{DiffArgs, Format};
use crate::exit::{CliError, Exit};
use crate::project;

/// Runs `diff`.
pub fn run(a: &DiffArgs, out: &mut dyn Write) -> Result<Exit, CliError> {
    if let Some(f) = a.fail_above {
        if !(f.is_finite() && f >= 0.0) {
            return Err(CliError::input(format!(
                "--fail-above {f}: give the largest increase allowed, in ns (0 or more)"
            )));
        }
    }
    let new_file =
        match (&a.new, &a.base) {
            (Some(n), _) => n.clone(),
            (None, Some(_)) => a.old.clone(),
            (None, None) => return Err(CliError::input(
                "diff needs two programs (OLD NEW), or one file and --base REV to compare it with \
                 a git revision",
            )),
        };
    let side = |file: &std::path::Path,
                files: &dyn p4cost_engine::Files,
                rev: Option<&str>,
                new: bool|
     -> Result<PredictOptions, CliError> {
        let mut o = PredictOptions::new(file);
        o.target = a.target.options();
        o.source = a.sides.apply(a.source.options(), new);
        o.pipe.clone_from(&a.pipe);
        let cfg = project::config_in(&a.config, Some(file), files, rev)?;
        Ok(project::with_config(o, cfg.as_ref()))
    };
    let new = side(&new_file, &p4cost_engine::Disk, None, true)?;
    // At a revision, the old side is the project as it was then: the
    // program, its includes and its p4cost.toml (defines, include
    // directories, model) all from that commit.
    let old = match &a.base {
        Some(rev) => {
            let tree = p4cost_engine::git::GitTree::open(&a.old, rev)?;
            let mut o = side(&a.old, &tree, Some(rev), false)?;
            o.source.revision = Some(rev.clone());
            o
        }
        None => side(&a.old, &p4cost_engine::Disk, None, false)?,
    };
    let mut d = DiffOptions::new(old, new);
    d.listings = a.paths;
    d.max_paths = a.max_paths;
    d.max_classes = a.max_classes.max(1);
    d.fail_above_ns = a.fail_above;
    let report = diff::diff(&mut Session::new(), &d)?;
    let text = match a.format {
        Format::Json => crate::json_out::to_pretty(&report)?,
        Format::Human => render(&report, a.rows),
    };
    out.write_all(text.as_bytes()).map_err(CliError::output)?;
    out.flush().map_err(CliError::output)?;
    Ok(if report.failed {
        Exit::Failed
    } else {
        Exit::Ok
    })
}

fn side_name(s: &diff::SideOut) -> String {
    match &s.revision {
        Some(r) => format!("{} at {r}", s.program),
        None => s.program.clone(),
    }
}

/// The comparison as a readable report.
fn render(r: &DiffReport, rows: usize) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "p4cost {}: {} -> {}",
        r.p4cost_version,
        side_name(&r.old),
        side_name(&r.new)
    );
    let port = r
        .new
        .port_gbps
        .map(|p| format!(", {p}G port"))
        .unwrap_or_default();
    let _ = writeln!(
        s,
        "model   {}{port}, {} B packets",
        r.new.model, r.new.packet_size
    );
    if r.old.model != r.new.model {
        let _ = writeln!(s, "        (old side: model {})", r.old.model);
    }
    for p in &r.pipelines {
        render_pipeline(&mut s, p, rows);
    }
    let _ = writeln!(s);
    match r.fail_above_ns {
        Some(f) => {
            let verdict = if r.failed { "FAIL" } else { "ok" };
            let _ = writeln!(
                s,
                "{verdict}: worst increase {} (--fail-above {f} ns)",
                signed_ns(r.worst_increase_ns)
            );
        }
        None => {
            let _ = writeln!(s, "worst increase {}", signed_ns(r.worst_increase_ns));
        }
    }
    s
}

fn render_pipeline(s: &mut String, p: &PipelineDiff, rows: usize) {
    let _ = writeln!(s);
    if let Some(name) = &p.pipeline {
        let _ = writeln!(s, "pipeline {name}");
    }
    if !(p.in_old && p.in_new) {
        let _ = writeln!(
            s,
            "  only in the {} program",
            if p.in_old { "old" } else { "new" }
        );
    }
    render_figures(s, p);
    render_mau(s, p);
    render_tables(s, p, rows);
    if p.in_old && p.in_new && p.max_latency.is_some() {
        render_terms(s, p, rows);
        if p.listings_compared {
            render_paths(s, p, rows);
            render_classes(s, p, rows);
        }
    }
    for n in &p.compared.notes {
        let _ = writeln!(s, "  note: {n}");
    }
}

/// The slowest and fastest class, paths and classes counted.
fn render_figures(s: &mut String, p: &PipelineDiff) {
    let _ = writeln!(
        s,
        "  {:<18} {:>14} {:>14} {:>14}",
        "", "old", "new", "delta"
    );
    for (what, d) in [
        ("slowest class", &p.max_latency),
        ("fastest class", &p.min_latency),
    ] {
        if let Some(d) = d {
            let _ = writeln!(
                s,
                "  {:<18} {:>14} {:>14} {:>14}",
                what,
                format!("{:.3} ns", d.old),
                format!("{:.3} ns", d.new),
                signed_ns(d.delta)
            );
        }
    }
    for (what, c) in [("parse paths", &p.paths), ("packet classes", &p.classes)] {
        let zero = |x: &Option<String>| x.as_deref().is_none_or(|x| x == "0");
        if zero(&c.old) && zero(&c.new) && p.max_latency.is_none() {
            continue;
        }
        let dash = || "-".to_string();
        let delta = match (
            c.old.as_deref().and_then(|x| x.parse::<i128>().ok()),
            c.new.as_deref().and_then(|x| x.parse::<i128>().ok()),
        ) {
            (Some(a), Some(b)) => format!("{:+}", b - a),
            _ => String::new(),
        };
        let _ = writeln!(
            s,
            "  {:<18} {:>14} {:>14} {:>14}",
            what,
            c.old.clone().unwrap_or_else(dash),
            c.new.clone().unwrap_or_else(dash),
            delta
        );
    }
}

/// MAU cycles per gress, or why they are not compared.
fn render_mau(s: &mut String, p: &PipelineDiff) {
    if let Some(m) = &p.mau_model {
        let _ = writeln!(s, "  MAU cycles ({m})");
        for g in &p.mau {
            let opt = |x: Option<u32>| x.map_or("-".to_string(), |x| x.to_string());
            let _ = writeln!(
                s,
                "    {:<16} {:>14} {:>14} {:>14}  ({})",
                g.gress,
                opt(g.old),
                opt(g.new),
                format!("{:+}", g.delta),
                signed_ns(g.delta_ns)
            );
        }
    }
    if let Some(n) = &p.mau_note {
        let _ = writeln!(s, "  MAU cycles not compared: {n}");
    }
}

/// Tables added and removed.
fn render_tables(s: &mut String, p: &PipelineDiff, rows: usize) {
    for (what, names) in [("added", &p.tables_added), ("removed", &p.tables_removed)] {
        if names.is_empty() {
            let _ = writeln!(s, "  tables {what}: none");
            continue;
        }
        let _ = writeln!(s, "  tables {what} ({}):", names.len());
        for n in names.iter().take(rows) {
            let _ = writeln!(s, "    {n}");
        }
        more(s, names.len(), rows);
    }
}

/// Table and parse state terms that changed.
fn render_terms(s: &mut String, p: &PipelineDiff, rows: usize) {
    for (what, list, unchanged) in [
        (
            "table terms",
            &p.table_terms_changed,
            p.table_terms_unchanged,
        ),
        (
            "state terms",
            &p.state_terms_changed,
            p.state_terms_unchanged,
        ),
    ] {
        let _ = writeln!(
            s,
            "  {what} changed: {}, unchanged: {unchanged}",
            list.len()
        );
        let ns = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.3}"));
        for t in list.iter().take(rows) {
            let _ = writeln!(
                s,
                "    {:>12}  {:>9} -> {:>9} ns  {}",
                signed_ns(t.delta_ns),
                ns(t.old_ns),
                ns(t.new_ns),
                t.name
            );
        }
        more(s, list.len(), rows);
    }
}

/// Parse paths changed, added and removed (with `--paths`).
fn render_paths(s: &mut String, p: &PipelineDiff, rows: usize) {
    let _ = writeln!(
        s,
        "  parse paths changed: {}, unchanged: {}, added: {}, removed: {}",
        p.paths_changed_count, p.paths_unchanged, p.paths_added_count, p.paths_removed_count
    );
    if !p.paths_changed.is_empty() {
        let _ = writeln!(
            s,
            "  paths changed (slowest class; fastest), largest first:"
        );
        for c in p.paths_changed.iter().take(rows) {
            let _ = writeln!(
                s,
                "    {:>12}  {:>9.3} -> {:>9.3} ns  (fastest {})  {}",
                signed_ns(c.max.delta),
                c.max.old,
                c.max.new,
                signed_ns(c.min.delta),
                headers(&c.headers, &c.metadata)
            );
        }
        more(s, p.paths_changed_count, rows);
    }
    for (what, list, count) in [
        ("added", &p.paths_added, p.paths_added_count),
        ("removed", &p.paths_removed, p.paths_removed_count),
    ] {
        if list.is_empty() {
            continue;
        }
        let _ = writeln!(s, "  paths {what} (slowest class; fastest), slowest first:");
        for c in list.iter().take(rows) {
            let _ = writeln!(
                s,
                "    {:>12}  (fastest {:.3} ns)  {}",
                format!("{:.3} ns", c.max_ns),
                c.min_ns,
                headers(&c.headers, &c.metadata)
            );
        }
        more(s, count, rows);
    }
}

/// Classes changed, added and removed (with `--paths`).
fn render_classes(s: &mut String, p: &PipelineDiff, rows: usize) {
    let _ = writeln!(
        s,
        "  classes changed: {}, unchanged: {}, added: {}, removed: {}",
        p.changed_count, p.unchanged, p.added_count, p.removed_count
    );
    if !p.changed.is_empty() {
        let _ = writeln!(s, "  classes changed, largest first:");
        for c in p.changed.iter().take(rows) {
            let _ = writeln!(s, "{}", changed_row(c));
        }
        more(s, p.changed_count, rows);
    }
    for (what, list, count) in [
        ("added", &p.added, p.added_count),
        ("removed", &p.removed, p.removed_count),
    ] {
        if !list.is_empty() {
            let _ = writeln!(s, "  classes {what}, slowest first:");
            for c in list.iter().take(rows) {
                let _ = writeln!(s, "{}", class_row(c));
            }
            more(s, count, rows);
        }
    }
}

fn more(s: &mut String, count: usize, rows: usize) {
    if count > rows {
        let _ = writeln!(
            s,
            "    ... {} more (--rows N, or --format json)",
            count - rows
        );
    }
}

fn headers(h: &[String], meta: &[String]) -> String {
    let mut t = if h.is_empty() {
        "(no header)".to_string()
    } else {
        h.join(" -> ")
    };
    if !meta.is_empty() {
        let _ = write!(t, " [metadata {}]", meta.join(", "));
    }
    t
}

fn changed_row(c: &ClassDelta) -> String {
    format!(
        "    {:>12}  {:>9.3} -> {:>9.3} ns  {}  |  {}",
        signed_ns(c.delta_ns),
        c.old_ns,
        c.new_ns,
        headers(&c.headers, &c.metadata),
        c.class
    )
}

fn class_row(c: &ClassOut) -> String {
    format!(
        "    {:>12}  {}  |  {}",
        format!("{:.3} ns", c.latency_ns),
        headers(&c.headers, &c.metadata),
        c.class
    )
}

/// `+5.655 ns`, `-0.492 ns`, `0 ns`.
fn signed_ns(x: f64) -> String {
    if x.abs() < 5e-4 {
        "0 ns".to_string()
    } else {
        format!("{x:+.3} ns")
    }
}
