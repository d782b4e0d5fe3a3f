//! Budgets: does each program keep to what its owner allows? A budget is
//! a limit on one figure of [`crate::predict::reports`] (the numbers
//! `predict` prints), so `check` and `predict` always agree.
//!
//! - [`Limit::MaxLatency`]: the slowest packet class of each pipeline;
//! - [`Limit::ClassLatency`]: the slowest class whose parse path extracts
//!   a given header sequence (as `predict --path` selects it);
//! - [`Limit::GressCycles`]: the MAU cycles of ingress or egress (the
//!   compiler's cycle rules: `tofino*-mau-cycles` on a context.json,
//!   `tofino*-mau-estimate` on source or BMv2 JSON);
//! - [`Limit::TableCount`]: the match tables a pipeline applies;
//! - [`Limit::MaxStages`], [`Limit::MaxSramPercent`],
//!   [`Limit::MaxTcamPercent`]: the stages and the pipe's memory the
//!   placement estimate uses (`p4cost resources`; judged in
//!   [`crate::check_resources`], with its `chip_memory` finding).
//!
//! A program a placement estimate cannot fit into its chip's stages
//! fails too, whatever the budgets: a [`CHIP_STAGES`] verdict.

use serde::Serialize;

use p4cost_ir::{Gress, InputKind};

use crate::error::Error;
use crate::options::{PredictOptions, TargetOptions};
use crate::report::{Loc, Report};
use crate::session::Session;

/// The budget key of a program that needs more MAU stages than its chip
/// has (the limit is the chip's, not set by anyone).
pub const CHIP_STAGES: &str = "chip_stages";

/// Most contributors named for a violation.
pub const MAX_CONTRIBUTORS: usize = 5;

/// The status of a latency budget when no parse path fits in the packet.
pub const NO_PACKET: &str = "no_packet";

/// What a budget limits.
#[derive(Debug, Clone, PartialEq)]
pub enum Limit {
    /// Latency in ns of every packet class.
    MaxLatency,
    /// Latency in ns of the classes whose parse path extracts exactly
    /// these headers (a leading Ethernet header may be left out).
    ClassLatency {
        /// The header sequence.
        headers: Vec<String>,
    },
    /// MAU cycles of one gress.
    GressCycles(Gress),
    /// Match tables the pipeline applies (ingress and egress).
    TableCount,
    /// MAU stages the estimated placement uses (the last used stage + 1).
    MaxStages,
    /// Percent of the pipe's SRAM the estimated placement uses.
    MaxSramPercent,
    /// Percent of the pipe's TCAM the estimated placement uses.
    MaxTcamPercent,
}

impl Limit {
    /// The unit of the figure.
    pub fn unit(&self) -> &'static str {
        match self {
            Limit::MaxLatency | Limit::ClassLatency { .. } => "ns",
            Limit::GressCycles(_) => "cycles",
            Limit::TableCount => "tables",
            Limit::MaxStages => "stages",
            Limit::MaxSramPercent | Limit::MaxTcamPercent => "%",
        }
    }

    /// A stable key: `max_latency`, `class_latency`, `ingress_cycles`,
    /// `egress_cycles`, `table_count`.
    pub fn key(&self) -> &'static str {
        match self {
            Limit::MaxLatency => "max_latency",
            Limit::ClassLatency { .. } => "class_latency",
            Limit::GressCycles(Gress::Egress) => "egress_cycles",
            Limit::GressCycles(Gress::Ghost) => "ghost_cycles",
            Limit::GressCycles(_) => "ingress_cycles",
            Limit::TableCount => "table_count",
            Limit::MaxStages => "max_stages",
            Limit::MaxSramPercent => "max_sram_percent",
            Limit::MaxTcamPercent => "max_tcam_percent",
        }
    }
}

/// A figure in its unit as every report words it: `ns` with three
/// decimals, counts (`cycles`, `tables`) as the whole numbers they are
/// (`2 tables`, `1 table`, never `2.000 tables`).
pub fn amount(v: f64, unit: &str) -> String {
    match unit {
        "ns" => format!("{v:.3} ns"),
        "%" => format!("{v:.1} %"),
        "tables" if v == 1.0 => "1 table".to_string(),
        _ => format!("{v} {unit}"),
    }
}

/// One budget: a limit, its value and where it was set.
#[derive(Debug, Clone, PartialEq)]
pub struct Budget {
    /// What is limited.
    pub limit: Limit,
    /// The most allowed, in the limit's unit.
    pub value: f64,
    /// Where it was set: `--max-latency`, or `p4cost.toml:12:18`.
    pub origin: String,
}

/// A program and its budgets.
#[derive(Debug, Clone)]
pub struct Target {
    /// How to predict it.
    pub options: PredictOptions,
    /// Its budgets.
    pub budgets: Vec<Budget>,
}

/// One term of a figure and where it comes from.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Contributor {
    /// `parse_state`, `table`, `stage`, or `chain` (a unit of the
    /// dependency chain that overflows the chip, first to last).
    pub kind: &'static str,
    /// Its name.
    pub name: String,
    /// Its share of the figure, in the budget's unit.
    pub value: f64,
    /// Its site in the program.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<Loc>,
}

/// One budget of one pipeline of one program.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Verdict {
    /// The program as given.
    pub program: String,
    /// The pipeline, when the program has several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pipeline: Option<String>,
    /// The model the figure comes from.
    pub model: String,
    /// [`Limit::key`], or [`CHIP_STAGES`] for a program over its chip's
    /// stages.
    pub budget: &'static str,
    /// The selected header sequence, for `class_latency`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<Vec<String>>,
    /// `ns`, `cycles` or `tables`.
    pub unit: &'static str,
    /// `ok`, `over`, or `no_packet` (no parse path fits in the packet, or
    /// every parse path ends in reject: no packet is parsed, a finding like
    /// `over`).
    pub status: &'static str,
    /// The figure.
    pub predicted: f64,
    /// The budget.
    pub limit: f64,
    /// `limit - predicted`: negative when over.
    pub margin: f64,
    /// Where the budget was set (for [`CHIP_STAGES`]: the chip's model
    /// and the control that overflows).
    pub origin: String,
    /// For latency budgets: the slowest class (`P.C`) and its headers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// Headers of that class's parse path.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<String>,
    /// The largest terms of the figure, when over.
    pub contributors: Vec<Contributor>,
    /// Why there is no figure, with `no_packet`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Verdict {
    /// True when the figure exceeds the budget.
    /// (`no_packet` fails too: the program parses no packet of the size.)
    pub fn is_over(&self) -> bool {
        self.status == "over" || self.status == NO_PACKET
    }
}

/// Every verdict.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CheckReport {
    /// [`crate::report::SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The p4cost that judged.
    pub p4cost_version: String,
    /// Verdicts over budget.
    pub over: usize,
    /// One per budget and pipeline, in program and budget order.
    pub results: Vec<Verdict>,
    /// The chains, when a configuration declares them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub chains: Vec<crate::chain::ChainVerdict>,
    /// Warnings whose code is denied (`--deny`, p4cost.toml's
    /// `[warnings] deny`): each a failure, as a budget exceeded; absent
    /// when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub denied: Vec<DeniedWarning>,
}

/// A warning of a checked program whose code is denied.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct DeniedWarning {
    /// The program, as the verdicts name it.
    pub program: String,
    /// Its pipeline, when the program has several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pipeline: Option<String>,
    pub code: String,
    pub message: String,
    /// The table or parse state it is about, when one.
    pub span: Option<Loc>,
}

impl CheckReport {
    /// True when a budget is exceeded or a denied warning occurred.
    pub fn failed(&self) -> bool {
        self.over > 0 || !self.denied.is_empty()
    }
}

/// Judges every budget of every target, then every chain.
pub fn check(
    session: &mut Session,
    targets: &[Target],
    chains: &[crate::chain::Chain],
) -> Result<CheckReport, Error> {
    let mut results = Vec::new();
    let mut denied = Vec::new();
    for t in targets {
        judge(session, t, &mut results, &mut denied)?;
    }
    let chains = chains
        .iter()
        .map(|c| crate::chain::judge(session, c))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(CheckReport {
        schema_version: crate::report::SCHEMA_VERSION,
        p4cost_version: env!("CARGO_PKG_VERSION").to_string(),
        over: results.iter().filter(|v| v.is_over()).count()
            + chains.iter().map(|c| c.over).sum::<usize>(),
        results,
        chains,
        denied,
    })
}

/// The reports of `o` that `check` reads: counts and the summary, no
/// listing.
fn summary_reports(session: &mut Session, o: &PredictOptions) -> Result<Vec<Report>, Error> {
    let mut o = o.clone();
    o.max_paths = 0;
    session.reports(&o)
}

fn judge(
    session: &mut Session,
    t: &Target,
    out: &mut Vec<Verdict>,
    denied: &mut Vec<DeniedWarning>,
) -> Result<(), Error> {
    let needs_summary = t
        .budgets
        .iter()
        .any(|b| matches!(b.limit, Limit::MaxLatency | Limit::TableCount))
        || !t.options.warnings.deny.is_empty();
    let main = if needs_summary {
        match summary_reports(session, &t.options) {
            Ok(rs) => rs,
            // Under a placement estimate that does not fit: the finding,
            // then the budgets that need no placement.
            Err(Error::DoesNotFit { fit, .. }) => {
                push_no_fit(out, &fit);
                Vec::new()
            }
            Err(e) => return Err(e),
        }
    } else {
        Vec::new()
    };
    denied.extend(denied_warnings(&main));
    judge_on(session, t, &main, out)
}

/// The verdict of a program over its chip's stages, once per program
/// and model: the stages needed against the chip's, the chain of
/// dependencies that overflows as its terms.
fn push_no_fit(out: &mut Vec<Verdict>, fit: &crate::error::NoFit) {
    if out
        .iter()
        .any(|v| v.budget == CHIP_STAGES && v.program == fit.program && v.model == fit.model)
    {
        return;
    }
    let (needed, stages) = (f64::from(fit.needed), f64::from(fit.stages));
    out.push(Verdict {
        program: fit.program.clone(),
        pipeline: None,
        model: fit.model.clone(),
        budget: CHIP_STAGES,
        selector: None,
        unit: "stages",
        status: "over",
        predicted: needed,
        limit: stages,
        margin: stages - needed,
        origin: format!("the chip of model {} (control {})", fit.model, fit.control),
        class: None,
        headers: Vec::new(),
        note: fit
            .unit_too_large()
            .map(|(unit, what)| format!("`{unit}` {what}: no stage can hold it"))
            .or_else(|| fit.stages_full()),
        contributors: no_fit_terms(fit),
    });
}

/// The terms of a [`CHIP_STAGES`] verdict: the chain that overflows, or
/// when stages filled up the tables that take the resource, with their
/// share.
fn no_fit_terms(fit: &crate::error::NoFit) -> Vec<Contributor> {
    if let Some(f) = &fit.full {
        return f
            .tables
            .iter()
            .map(|(name, amount)| Contributor {
                kind: "table",
                name: name.clone(),
                value: f64::from(*amount),
                span: None,
            })
            .collect();
    }
    chain_terms(&fit.chain)
}

/// A dependency chain's units as verdict terms, one each.
pub(crate) fn chain_terms(chain: &[String]) -> Vec<Contributor> {
    chain
        .iter()
        .map(|u| Contributor {
            kind: "chain",
            name: u.clone(),
            value: 1.0,
            span: None,
        })
        .collect()
}

/// The MAU reports of `t` for gress budget `b`: refused, unasked, for a
/// program of another target than Tofino (the cycles would be a
/// Tofino's); `None` when the placement does not fit (the finding is in
/// `out`).
fn gress_reports(
    session: &mut Session,
    t: &Target,
    b: &Budget,
    out: &mut Vec<Verdict>,
) -> Result<Option<Vec<Report>>, Error> {
    if !mau_asked(&t.options) && t.options.context.is_none() {
        let shown = crate::read::shown(&t.options.file);
        let loaded = session.load(&t.options)?;
        crate::stages::not_tofino(&shown, &loaded.program)
            .map_err(|e| e.context(&format!("{} ({})", b.origin, b.limit.key())))?;
    }
    match mau_reports(session, &t.options) {
        Ok(rs) => Ok(Some(rs)),
        Err(Error::DoesNotFit { fit, .. }) => {
            push_no_fit(out, &fit);
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// True when `o` asks for a MAU model by name.
fn mau_asked(o: &PredictOptions) -> bool {
    o.target
        .model
        .as_deref()
        .and_then(|m| p4cost_model::model_by_name(m).ok())
        .is_some_and(|m| m.mau().is_some())
}

/// The warnings of `reports` whose code is denied.
pub fn denied_warnings(reports: &[Report]) -> Vec<DeniedWarning> {
    let several = reports.len() > 1;
    let mut out = Vec::new();
    for r in reports {
        let pipeline = r
            .pipeline
            .as_ref()
            .filter(|_| several)
            .map(|p| p.name.clone());
        let all = r
            .warnings
            .iter()
            .map(|w| (&w.code, &w.message, &w.span))
            .chain(
                r.path_warnings
                    .iter()
                    .map(|w| (&w.code, &w.message, &w.span)),
            );
        for (code, message, span) in all.filter(|(c, ..)| r.denied.contains(c)) {
            out.push(DeniedWarning {
                program: r.program.clone(),
                pipeline: pipeline.clone(),
                code: code.clone(),
                message: message.clone(),
                span: span.clone(),
            });
        }
    }
    out
}

/// The verdicts of `t` where its program's reports are at hand already
/// (an editor's, listing included: only their summaries and tables are
/// read), so the analysis over all paths is not run again.
pub fn judge_reports(
    session: &mut Session,
    t: &Target,
    reports: &[Report],
) -> Result<Vec<Verdict>, Error> {
    let mut out = Vec::new();
    judge_on(session, t, reports, &mut out)?;
    Ok(out)
}

/// [`judge`] on `main`, the reports of `t.options` (summary and tables).
fn judge_on(
    session: &mut Session,
    t: &Target,
    main: &[Report],
    out: &mut Vec<Verdict>,
) -> Result<(), Error> {
    let several = main.len() > 1;
    // The MAU model's reports, computed once for all gress budgets.
    let mut mau: Option<Vec<Report>> = None;
    // The memory report, computed once for all resource budgets.
    let mut res: Option<Option<crate::resources::ResourceReport>> = None;
    for b in &t.budgets {
        match &b.limit {
            Limit::MaxStages | Limit::MaxSramPercent | Limit::MaxTcamPercent => {
                let r = match &mut res {
                    Some(r) => r,
                    None => {
                        let r = crate::check_resources::report(t, b, &mut |f| push_no_fit(out, f))?;
                        if let Some(r) = &r {
                            out.extend(crate::check_resources::chip_memory(r));
                        }
                        res.insert(r)
                    }
                };
                if let Some(r) = r {
                    out.push(crate::check_resources::judge(b, r));
                }
            }
            Limit::MaxLatency => {
                for r in main {
                    out.push(max_latency(session, t, b, r, several)?);
                }
            }
            Limit::TableCount => {
                for r in main {
                    out.push(table_count(r, b, several));
                }
            }
            Limit::ClassLatency { headers } => {
                out.extend(class_latency(session, t, b, headers)?);
            }
            Limit::GressCycles(g) => {
                let rs = match &mut mau {
                    Some(rs) => rs,
                    // No placement: nothing to judge the cycles on.
                    None => mau.insert(gress_reports(session, t, b, out)?.unwrap_or_default()),
                };
                let several = rs.len() > 1;
                for r in rs.iter() {
                    out.push(gress_cycles(r, b, *g, several));
                }
            }
        }
    }
    Ok(())
}

/// Report `r`'s verdict on a `table-count` budget: its ingress and egress
/// tables, named when over.
fn table_count(r: &Report, b: &Budget, several: bool) -> Verdict {
    let mut tables = r.control.tables.clone();
    if let Some(e) = &r.control.egress {
        tables.extend(e.tables.iter().cloned());
    }
    let n = tables.len() as f64;
    let contributors = if n > b.value {
        tables
            .iter()
            .map(|name| Contributor {
                kind: "table",
                name: name.clone(),
                value: 1.0,
                span: None,
            })
            .collect()
    } else {
        Vec::new()
    };
    verdict(r, b, several, n, None, Vec::new(), contributors)
}

/// The verdicts on a class budget: per pipeline, the slowest class of
/// the parse path extracting exactly `headers`, with its largest terms
/// when over.
fn class_latency(
    session: &mut Session,
    t: &Target,
    b: &Budget,
    headers: &[String],
) -> Result<Vec<Verdict>, Error> {
    let mut o = t.options.clone();
    o.path = Some(headers.to_vec());
    o.max_paths = 1;
    let rs = session
        .reports(&o)
        .map_err(|e| Error::input(format!("{}: {e}", b.origin)))?;
    let several = rs.len() > 1;
    let mut out = Vec::new();
    for r in &rs {
        let Some(p) = r.paths.first() else {
            continue;
        };
        let id = p.classes.as_ref().map(|c| c.slowest.id.clone());
        let predicted = p.latency_ns;
        let contributors = if predicted > b.value {
            let pipe = r.pipeline.as_ref().map(|p| p.name.as_str());
            latency_terms(
                session,
                t,
                pipe.filter(|_| several),
                Where::Headers(&p.headers),
            )?
        } else {
            Vec::new()
        };
        let mut v = verdict(
            r,
            b,
            several,
            predicted,
            id,
            p.headers.clone(),
            contributors,
        );
        v.selector = Some(headers.to_vec());
        out.push(v);
    }
    Ok(out)
}

/// MAU report `r`'s verdict on a gress-cycles budget: the gress's
/// cycles, with its stages largest first when over.
fn gress_cycles(r: &Report, b: &Budget, g: Gress, several: bool) -> Verdict {
    let gc = r.mau.as_ref().and_then(|m| match g {
        Gress::Egress => m.egress.as_ref(),
        Gress::Ghost => m.ghost.as_ref(),
        _ => m.ingress.as_ref(),
    });
    let cycles = gc.map_or(0.0, |g| f64::from(g.cycles));
    let contributors = match gc {
        Some(gc) if cycles > b.value => stage_contributors(gc, |s| f64::from(s.cycles)),
        _ => Vec::new(),
    };
    verdict(r, b, several, cycles, None, Vec::new(), contributors)
}

/// The stages of a gress that add to its latency, largest first (at most
/// [`MAX_CONTRIBUTORS`]), each valued by `value` (cycles or ns).
fn stage_contributors(
    gc: &p4cost_model::GressCycles,
    value: impl Fn(&p4cost_model::mau_cycles::StageCycles) -> f64,
) -> Vec<Contributor> {
    let mut st: Vec<Contributor> = gc
        .stages
        .iter()
        .filter(|s| s.cycles > 0)
        .map(|s| Contributor {
            kind: "stage",
            name: if s.tables.is_empty() {
                s.stage.to_string()
            } else {
                format!("{} ({})", s.stage, s.tables.join(", "))
            },
            value: value(s),
            span: None,
        })
        .collect();
    st.sort_by(|x, y| y.value.total_cmp(&x.value));
    st.truncate(MAX_CONTRIBUTORS);
    st
}

/// The reports of the MAU model for `o`'s program ([`mau_target`]):
/// the cycles per gress and stage, no path listing.
pub(crate) fn mau_reports(session: &mut Session, o: &PredictOptions) -> Result<Vec<Report>, Error> {
    let mut o = o.clone();
    o.target = mau_target(session, &o)?;
    o.max_paths = 0;
    o.path = None;
    o.class = None;
    o.top = None;
    session.reports(&o)
}

/// The target of `o`'s MAU figures: [`mau_model`], no port, no packet
/// size (the MAU models depend on neither).
pub(crate) fn mau_target(
    session: &mut Session,
    o: &PredictOptions,
) -> Result<TargetOptions, Error> {
    Ok(TargetOptions {
        model: Some(mau_model(session, o)?),
        port_gbps: None,
        packet_size: None,
        model_file: None,
    })
}

/// The MAU model for the cycles of `o`'s program: the target's when it
/// is one, else the compiler's cycle rules on a context.json and the
/// placement estimate on anything else, for the program's Tofino
/// generation.
fn mau_model(session: &mut Session, o: &PredictOptions) -> Result<String, Error> {
    if let Some(m) = &o.target.model {
        let spec = p4cost_model::model_by_name(m).map_err(|e| Error::input(e.to_string()))?;
        if spec.mau().is_some() {
            return Ok(spec.name.clone());
        }
    }
    if o.context.is_some() {
        return Ok(crate::stages::PLACED_MODEL.to_string());
    }
    let loaded = session.load(o)?;
    Ok(match loaded.program.input {
        InputKind::TofinoContext => crate::stages::PLACED_MODEL,
        _ => crate::stages::estimate_model(&loaded.program),
    }
    .to_string())
}

fn verdict(
    r: &Report,
    b: &Budget,
    several: bool,
    predicted: f64,
    class: Option<String>,
    headers: Vec<String>,
    contributors: Vec<Contributor>,
) -> Verdict {
    Verdict {
        program: r.program.clone(),
        pipeline: r
            .pipeline
            .as_ref()
            .map(|p| p.name.clone())
            .filter(|_| several),
        model: r.model.name.clone(),
        budget: b.limit.key(),
        selector: None,
        unit: b.limit.unit(),
        status: if predicted > b.value { "over" } else { "ok" },
        predicted,
        limit: b.value,
        margin: b.value - predicted,
        origin: b.origin.clone(),
        class,
        headers,
        contributors,
        note: None,
    }
}

/// When a per-class model found no parse path that reaches accept (every
/// one rejects), the sentence that says so.
fn no_accepted_path(r: &Report) -> Option<String> {
    let s = r.summary.as_ref()?;
    if s.max.is_some() || s.paths.value != Some(0) {
        return None;
    }
    let rejected = r.rejects.as_ref().map_or("no", |j| j.count.text.as_str());
    Some(format!(
        "no parse path reaches accept: {rejected} parse paths end in reject, so no packet class is predicted"
    ))
}

fn max_latency(
    session: &mut Session,
    t: &Target,
    b: &Budget,
    r: &Report,
    several: bool,
) -> Result<Verdict, Error> {
    // A MAU-cycle model costs every packet the same: its ingress MAU
    // latency (a context.json alone has nothing else), the stages its
    // largest terms.
    if let (None, Some(m), Some(p)) = (&r.summary, &r.mau, r.paths.first()) {
        let predicted = p.latency_ns;
        let contributors = match &m.ingress {
            Some(gc) if predicted > b.value => stage_contributors(gc, |s| s.ns),
            _ => Vec::new(),
        };
        return Ok(verdict(
            r,
            b,
            several,
            predicted,
            None,
            Vec::new(),
            contributors,
        ));
    }
    if let Some(l) = r.left_out.as_ref().filter(|l| l.all) {
        // No packet of this size is parsed: a finding, not an input error.
        let mut v = verdict(r, b, several, 0.0, None, Vec::new(), Vec::new());
        v.status = NO_PACKET;
        v.margin = b.value;
        v.note = Some(l.message());
        return Ok(v);
    }
    if let Some(note) = no_accepted_path(r) {
        // Every parse path ends in reject: no packet reaches the controls.
        let mut v = verdict(r, b, several, 0.0, None, Vec::new(), Vec::new());
        v.status = NO_PACKET;
        v.margin = b.value;
        v.note = Some(note);
        return Ok(v);
    }
    let Some(max) = r.summary.as_ref().and_then(|s| s.max.as_ref()) else {
        return Err(Error::input(format!(
            "{}: model {} gives no latency per packet class to hold to a budget ({}); \
             use a linear model (tofino1-10g, tofino1-100g)",
            r.program, r.model.name, b.origin
        )));
    };
    let predicted = max.latency_ns;
    let contributors = if predicted > b.value {
        let pipe = r.pipeline.as_ref().map(|p| p.name.as_str());
        let at = match max.number {
            n if !n.saturated && n.value > 0 => Where::Index(n.value - 1),
            _ => Where::Headers(&max.headers),
        };
        latency_terms(session, t, pipe.filter(|_| several), at)?
    } else {
        Vec::new()
    };
    Ok(verdict(
        r,
        b,
        several,
        predicted,
        max.class.clone(),
        max.headers.clone(),
        contributors,
    ))
}

/// Which path [`latency_terms`] reads.
enum Where<'h> {
    /// The path at this index of the full listing (a summary's extreme).
    Index(u128),
    /// The first path with these headers (as `--path` selects it).
    Headers(&'h [String]),
}

/// The largest terms of the slowest class of the path `at`: its parse
/// states and its tables.
fn latency_terms(
    session: &mut Session,
    t: &Target,
    pipeline: Option<&str>,
    at: Where<'_>,
) -> Result<Vec<Contributor>, Error> {
    let mut o = t.options.clone();
    match at {
        Where::Index(i) => o.path_index = Some(i),
        Where::Headers(h) => o.path = Some(h.to_vec()),
    }
    o.top = None;
    o.max_paths = 1;
    o.max_classes = Some(0);
    if let Some(p) = pipeline {
        o.pipe = Some(p.to_string());
    }
    let rs = session.reports(&o)?;
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
            value: s.latency_ns,
            span: Some(s.span.clone()),
        })
        .collect();
    if let Some(class) = path.classes.as_ref().map(|c| &c.slowest) {
        let tables = rs.first().map_or(&[][..], |r| &r.tables[..]);
        let applied = crate::path_classes::class_tables_of(class, tables);
        out.extend(applied.map(|t| Contributor {
            kind: "table",
            name: t.name.clone(),
            value: t.latency_ns,
            span: Some(t.span.clone()),
        }));
    }
    // A state a loop visits again (an MPLS stack) is one site: summed.
    let mut merged: Vec<(Contributor, usize)> = Vec::new();
    for c in out.into_iter().filter(|c| c.value > 0.0) {
        match merged
            .iter_mut()
            .find(|(m, _)| m.kind == c.kind && m.name == c.name && m.span == c.span)
        {
            Some((m, n)) => {
                m.value += c.value;
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
    out.sort_by(|x, y| y.value.total_cmp(&x.value));
    out.truncate(MAX_CONTRIBUTORS);
    Ok(out)
}
