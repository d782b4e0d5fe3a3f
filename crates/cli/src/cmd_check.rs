//! `p4cost check`: do the programs keep to their budgets? Exit 0 when
//! every budget holds, 1 when one is exceeded, 2 on usage or input
//! errors: what a pre-commit hook or CI job needs.
//!
//! The budgets come from `--max-latency` and the project's p4cost.toml;
//! the engine judges them (`p4cost_engine::check`) on `predict`'s figures,
//! so the two always agree. This module picks the programs and renders.

use std::io::Write;

use p4cost_engine::chain::ChainVerdict;
use p4cost_engine::check::{
    Budget, CheckReport, DeniedWarning, Limit, Target, Verdict, CHIP_STAGES,
};
use p4cost_engine::check_resources::CHIP_MEMORY;
use p4cost_engine::programs;
use p4cost_engine::warnings::WarningPolicy;

use p4cost_config::Config;

use codespan_reporting::diagnostic::Severity;

use crate::args::{CheckArgs, ReportFormat};
use crate::diagnostics::{self, Snippets};
use crate::exit::{CliError, Exit};
use crate::progress::Progress;
use crate::project;
use crate::render::Detail;
use crate::Ui;

/// Most packets of a chain the table names (all are in the JSON).
const MAX_CHAIN_ROWS: usize = 10;

/// Runs `check`.
pub fn run(a: &CheckArgs, out: &mut dyn Write, ui: &Ui) -> Result<Exit, CliError> {
    if let Some(m) = a.max_latency {
        if !(m.is_finite() && m > 0.0) {
            return Err(CliError::input(format!(
                "--max-latency {m}: a budget is a positive number of nanoseconds"
            )));
        }
    }
    let cfg = project::config(&a.config, a.paths.first().map(|p| p.as_path()))?;
    let policy = a.warnings.policy()?;
    let (targets, chains) = if a.paths.is_empty() {
        let Some(cfg) = &cfg else {
            return Err(CliError::input(
                "nothing to check: give PATH.. (with --max-latency NS), or run where a p4cost.toml \
                 lists the programs (see `p4cost check --help`)",
            ));
        };
        (configured_targets(a, &policy, cfg), cfg.chains.clone())
    } else {
        (path_targets(a, &policy, cfg.as_ref())?, Vec::new())
    };
    let denies = targets.iter().any(|t| !t.options.warnings.deny.is_empty());
    if targets.iter().all(|t| t.budgets.is_empty()) && chains.is_empty() && !denies {
        return Err(CliError::input(
            "no budget to check: give --max-latency NS or --deny CODE, or budgets in p4cost.toml \
             ([program.budget] or [defaults.budget])",
        ));
    }
    let jobs = crate::progress::jobs(a.jobs)?;
    let bar = Progress::new(
        targets.len(),
        ui.err_is_terminal && a.format == ReportFormat::Human,
    );
    let report = p4cost_engine::batch::check_many(&targets, &chains, jobs, &|name| bar.tick(name));
    bar.finish();
    let report = report?;
    let text = match a.format {
        ReportFormat::Json => crate::json_out::to_pretty(&report)?,
        ReportFormat::Sarif => crate::json_out::to_pretty(&crate::sarif::check_log(&report))?,
        ReportFormat::Human => render_human(
            &report,
            &mut Snippets::new(ui.color_out),
            a.warnings.detail(),
        ),
    };
    out.write_all(text.as_bytes()).map_err(CliError::output)?;
    Ok(if report.failed() {
        Exit::Failed
    } else {
        Exit::Ok
    })
}

/// The programs p4cost.toml lists, each with its budgets.
fn configured_targets(a: &CheckArgs, policy: &WarningPolicy, cfg: &Config) -> Vec<Target> {
    cfg.programs
        .iter()
        .map(|p| target(a, policy, cfg.predict_options(p), p.budgets.clone()))
        .collect()
}

/// The programs under the PATHs given (the files another one includes
/// left out), each with the budgets p4cost.toml gives it, if any.
fn path_targets(
    a: &CheckArgs,
    policy: &WarningPolicy,
    cfg: Option<&Config>,
) -> Result<Vec<Target>, CliError> {
    let mut files = Vec::new();
    for p in &a.paths {
        programs::collect(p, &mut files)?;
    }
    let mut include_dirs = a.source.include_dirs.clone();
    if let Some(c) = cfg {
        include_dirs.extend(c.defaults.include_dirs.iter().cloned());
    }
    let fragments = programs::included(&files, &include_dirs);
    Ok(files
        .iter()
        .filter(|f| !programs::is_fragment(f, &fragments))
        .map(|f| {
            let (o, budgets) = match cfg {
                Some(c) => c.target_for(&f.path),
                None => (p4cost_engine::PredictOptions::new(&f.path), Vec::new()),
            };
            target(a, policy, o, budgets)
        })
        .collect())
}

/// One program to check: its options `o` with the command's flags over
/// them, and its `budgets` with `--max-latency` in place of theirs.
fn target(
    a: &CheckArgs,
    policy: &WarningPolicy,
    mut o: p4cost_engine::PredictOptions,
    mut budgets: Vec<Budget>,
) -> Target {
    project::overlay(&a.target, &a.source, &mut o);
    o.lints = a.lints.options().over(&o.lints);
    o.warnings = o.warnings.then(policy);
    if let Some(m) = a.max_latency {
        budgets.retain(|x| x.limit != Limit::MaxLatency);
        budgets.push(Budget {
            limit: Limit::MaxLatency,
            value: m,
            origin: "--max-latency".to_string(),
        });
    }
    Target {
        options: o,
        budgets,
    }
}

fn number(v: f64, unit: &str) -> String {
    p4cost_engine::check::amount(v, unit)
}

/// What a verdict measured, in words.
fn what(v: &Verdict) -> String {
    let headers = v
        .headers
        .iter()
        .map(|h| h.trim_start_matches("hdr."))
        .collect::<Vec<_>>()
        .join(" -> ");
    let class = v
        .class
        .as_ref()
        .map(|c| format!("class {c} "))
        .unwrap_or_default();
    match v.budget {
        // A MAU-cycle model's figure is every packet's: no class, no path.
        "max_latency" if v.class.is_none() && v.headers.is_empty() => {
            format!("every packet (ingress MAU, {})", v.model)
        }
        "max_latency" => format!("slowest packet {class}({headers})"),
        "class_latency" => format!("packets ({headers}), slowest {class}")
            .trim_end()
            .to_string(),
        "ingress_cycles" => "ingress MAU".to_string(),
        "egress_cycles" => "egress MAU".to_string(),
        "table_count" => "match tables applied:".to_string(),
        "max_stages" => "MAU stages used (estimate):".to_string(),
        "max_sram_percent" => "pipe SRAM used (estimate):".to_string(),
        "max_tcam_percent" => "pipe TCAM used (estimate):".to_string(),
        other => other.to_string(),
    }
}

/// `name 147, other 31`: the tables of a [`CHIP_MEMORY`] verdict with
/// their blocks.
pub fn memory_shares(v: &Verdict) -> String {
    v.contributors
        .iter()
        .map(|c| format!("{} {}", c.name, c.value))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `FAIL`/`ok` per budget and pipeline, the violations' largest terms,
/// the chains, a total.
fn render_human(r: &CheckReport, snippets: &mut Snippets, detail: Detail) -> String {
    let mut s = String::new();
    for v in &r.results {
        let name = match &v.pipeline {
            Some(p) => format!("{} ({p})", v.program),
            None => v.program.clone(),
        };
        let origin = if v.origin.starts_with("--") {
            String::new()
        } else {
            format!("  [{}]", v.origin)
        };
        if let (true, Some(note)) = (v.budget == CHIP_STAGES, &v.note) {
            s.push_str(&format!(
                "FAIL {name}: does not fit: {note} ({})\n",
                v.origin
            ));
        } else if v.budget == CHIP_STAGES {
            let chain: Vec<&str> = v.contributors.iter().map(|c| c.name.as_str()).collect();
            s.push_str(&format!(
                "FAIL {name}: does not fit: needs {} stages, {} has {}\n       the chain that overflows: {}\n",
                v.predicted,
                v.origin,
                v.limit,
                chain.join(" -> ")
            ));
        } else if v.budget == CHIP_MEMORY {
            s.push_str(&format!(
                "FAIL {name}: does not fit: needs {} {}, {} has {}\n       the tables that take it: {}\n",
                v.predicted,
                v.unit,
                v.origin,
                v.limit,
                memory_shares(v)
            ));
        } else if let (p4cost_engine::check::NO_PACKET, Some(note)) = (v.status, &v.note) {
            s.push_str(&format!("FAIL {name}: {note}{origin}\n"));
        } else if v.is_over() {
            s.push_str(&format!(
                "FAIL {name}: {} {}, over the {} budget by {}{origin}\n",
                what(v),
                number(v.predicted, v.unit),
                number(v.limit, v.unit),
                number(-v.margin, v.unit)
            ));
            render_contributors(&mut s, v, snippets);
        } else {
            s.push_str(&format!(
                "ok   {name}: {} {}, {} under the {} budget{origin}\n",
                what(v),
                number(v.predicted, v.unit),
                number(v.margin, v.unit),
                number(v.limit, v.unit)
            ));
        }
    }
    for c in &r.chains {
        render_chain(&mut s, c);
    }
    render_denied(&mut s, &r.denied, detail);
    let budgets = r.results.len() + r.chains.len();
    s.push_str(&format!(
        "{} of {budgets} budget(s) exceeded",
        over_budgets(r)
    ));
    if !r.denied.is_empty() {
        s.push_str(&format!("; {} denied warning(s)", r.denied.len()));
    }
    s.push('\n');
    s
}

/// `FAIL` per program and denied code, with its first sites (every site
/// with `-v`, none with `-q`).
fn render_denied(s: &mut String, denied: &[DeniedWarning], detail: Detail) {
    let mut groups: Vec<(&str, Option<&str>, &str)> = Vec::new();
    for d in denied {
        let key = (d.program.as_str(), d.pipeline.as_deref(), d.code.as_str());
        if !groups.contains(&key) {
            groups.push(key);
        }
    }
    for (program, pipeline, code) in groups {
        let sites: Vec<&DeniedWarning> = denied
            .iter()
            .filter(|d| {
                (d.program.as_str(), d.pipeline.as_deref(), d.code.as_str())
                    == (program, pipeline, code)
            })
            .collect();
        let name = match pipeline {
            Some(p) => format!("{program} ({p})"),
            None => program.to_string(),
        };
        s.push_str(&format!(
            "FAIL {name}: {} warning(s) of denied code {code}: {}\n",
            sites.len(),
            p4cost_engine::warnings::meaning(code)
        ));
        let shown = match detail {
            Detail::Quiet => 0,
            Detail::Normal => crate::render::SITES_SHOWN.min(sites.len()),
            Detail::Verbose => sites.len(),
        };
        for d in &sites[..shown] {
            let at = d
                .span
                .as_ref()
                .map(|l| format!("  ({}:{}:{})", l.file, l.line, l.col))
                .unwrap_or_default();
            s.push_str(&format!("       {}{at}\n", d.message));
        }
        if shown < sites.len() && detail != Detail::Quiet {
            s.push_str(&format!(
                "       ... and {} more (-v to list all)\n",
                sites.len() - shown
            ));
        }
    }
}

/// The largest terms of an exceeded budget: their source lines with a
/// caret under each (the largest is the primary label), and the budget's
/// line in p4cost.toml; a plain line for each term whose file cannot be
/// shown.
fn render_contributors(s: &mut String, v: &Verdict, snippets: &mut Snippets) {
    let mut labels = Vec::new();
    let mut plain = Vec::new();
    for c in &v.contributors {
        let share = if v.unit == "ns" {
            format!("{:+.3} ns", c.value)
        } else if v.unit == "tables" {
            String::new()
        } else {
            format!("+{} {}", c.value, v.unit)
        };
        let what = format!("{share}  {} {}", c.kind.replace('_', " "), c.name);
        let what = what.trim_start().to_string();
        match c.span.as_ref().and_then(|l| snippets.range(l)) {
            Some(at) if labels.is_empty() => labels.push(diagnostics::primary(at, what)),
            Some(at) => labels.push(diagnostics::secondary(at, what)),
            None => {
                let at = c
                    .span
                    .as_ref()
                    .map(|l| format!("  ({}:{}:{})", l.file, l.line, l.col))
                    .unwrap_or_default();
                plain.push(format!("       {what}{at}\n"));
            }
        }
    }
    let origin = diagnostics::split_file_line_col(&v.origin)
        .and_then(|(f, l, c)| snippets.at_line_col(f, l, c));
    if let (Some(at), false) = (origin, labels.is_empty()) {
        labels.push(diagnostics::secondary(
            at,
            format!("budget {}", number(v.limit, v.unit)),
        ));
    }
    let message = if v.contributors.len() > 1 {
        format!("the largest terms of {}", number(v.predicted, v.unit))
    } else {
        format!("the largest term of {}", number(v.predicted, v.unit))
    };
    let rich = diagnostics::labelled(Severity::Note, None, &message, labels, Vec::new())
        .and_then(|d| snippets.render(&d));
    if let Some(text) = rich {
        s.push_str(&diagnostics::indented(&text, 0, "     "));
    }
    for p in plain {
        s.push_str(&p);
    }
}

/// Verdicts over, a chain with any late packet counted once.
fn over_budgets(r: &CheckReport) -> usize {
    r.results.iter().filter(|v| v.is_over()).count()
        + r.chains.iter().filter(|c| c.over > 0).count()
}

fn render_chain(s: &mut String, c: &ChainVerdict) {
    let tag = if c.over > 0 { "FAIL" } else { "ok  " };
    let judged = match &c.paths_total {
        Some(total) => format!(
            "{} packet(s) judged (of {total} parse paths)",
            c.packets.len()
        ),
        None => format!("{} packet(s) judged", c.packets.len()),
    };
    s.push_str(&format!(
        "{tag} chain {}: {judged}; {} late, {} prioritised",
        c.name, c.over, c.prioritised
    ));
    if !c.not_crossing.is_empty() {
        s.push_str(&format!(", {} not crossing", c.not_crossing.len()));
    }
    s.push('\n');
    let shown: Vec<_> = c
        .packets
        .iter()
        .filter(|p| p.status != "ok")
        .chain(c.packets.iter().filter(|p| p.status == "ok").take(1))
        .take(MAX_CHAIN_ROWS)
        .collect();
    for p in shown {
        let headers = p
            .headers
            .iter()
            .map(|h| h.trim_start_matches("hdr."))
            .collect::<Vec<_>>()
            .join(" -> ");
        let hops = p
            .hops
            .iter()
            .map(|h| format!("{} {:.3}", h.hop, h.ns))
            .collect::<Vec<_>>()
            .join(" + ");
        let end = match (p.margin_ns, c.max_latency_ns) {
            (Some(m), Some(b)) => format!(" (budget {b:.3}, margin {m:.3})"),
            _ => String::new(),
        };
        s.push_str(&format!(
            "       {:<8} ({headers}) {:.3} ns = {hops}{end}\n",
            p.status, p.total_ns
        ));
        if let Some(b) = &p.bound {
            let text = match (b.delay_bound_ns, &b.unbounded) {
                (Some(d), _) => format!(
                    "delay bound {d:.3} ns, backlog bound {:.3} B (R {}, T {:.3} ns; judged against the budgets)",
                    b.backlog_bound_bytes.unwrap_or_default(),
                    b.rate_bps
                        .map(p4cost_engine::bound::rate_text)
                        .unwrap_or_else(|| "unlimited".into()),
                    b.latency_ns
                ),
                (None, Some(why)) => why.clone(),
                (None, None) => String::new(),
            };
            s.push_str(&format!("         bound: {text}\n"));
        }
        for g in &p.segments {
            let pl = g
                .priority_ns
                .map(|x| format!("PL {x:.3}, "))
                .unwrap_or_default();
            let bound = g
                .delay_bound_ns
                .map(|d| format!(", delay bound {d:.3} ns"))
                .unwrap_or_default();
            s.push_str(&format!(
                "         segment {}: {:.3} ns{bound} ({pl}DL {:.3}, margin {:.3}) {}\n",
                g.segment, g.ns, g.drop_ns, g.margin_ns, g.status
            ));
        }
    }
}
