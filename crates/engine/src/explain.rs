//! `explain`: the whole arithmetic of one prediction, term by term, each
//! with its inputs, its coefficient, the model file it comes from and the
//! paper behind it. Built from the same report `predict` gives (so the
//! two never disagree), laid against the model's coefficients.

use serde::Serialize;

use p4cost_model::ModelSpec;

use crate::error::Error;
use crate::options::{PredictOptions, SortBy};
use crate::report::{Loc, PathOut, Report, SCHEMA_VERSION};
use crate::session::Session;

mod cpu;
mod passes;
pub use cpu::ExplainCpu;
pub use passes::{ExplainPasses, PassFigure};

/// One prediction explained.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Explanation {
    /// Version of the JSON shape (shared with `predict`).
    pub schema_version: u32,
    /// p4cost's version.
    pub p4cost_version: String,
    /// The program as given.
    pub program: String,
    /// The pipeline, when the program has several.
    pub pipeline: Option<String>,
    /// The model used.
    pub model: ModelSource,
    /// Port speed of the model, Gb/s.
    pub port_gbps: Option<u32>,
    /// Packet size in bytes.
    pub packet_size: u32,
    /// The equation the terms add up to.
    pub equation: String,
    /// The parse path (header sequence) explained, when the model has
    /// parse terms.
    pub headers: Vec<String>,
    /// The path's number in `predict`'s listing.
    pub path: Option<String>,
    /// The packet class (control path) explained, when the path has
    /// several.
    pub class: Option<String>,
    /// Every term, in the order of the equation.
    pub terms: Vec<Term>,
    /// Their sum: the prediction, in ns.
    pub total_ns: f64,
    /// What `predict` reports for the same packet (equal to `total_ns`).
    pub predicted_ns: f64,
    /// The model's warnings for this prediction (`code: message`).
    pub warnings: Vec<String>,
    /// A CPU model's figures (`--model t4p4s`): the terms are in cycles
    /// (`terms[].cycles`), their `ns` the cycles over the clock.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu: Option<ExplainCpu>,
    /// A pass model's figures (`--model nfp4000`, `--model
    /// bmv2-coarse`): `terms` has one per pipeline pass.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub passes: Option<ExplainPasses>,
}

/// Where a model's numbers come from.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ModelSource {
    /// The model's name (`--model`).
    pub name: String,
    /// Its title.
    pub title: String,
    /// The model file: `models/<file>` in the repository for an embedded
    /// model, else the `--model-file` given.
    pub file: Option<String>,
    /// Whether the model is one built into p4cost (else a `--model-file`).
    pub embedded: bool,
    /// The paper or source.
    pub citation: String,
    /// Its DOI, when it has one.
    pub doi: Option<String>,
    /// The table or section of the source the numbers are from.
    pub location: String,
    /// The section of p4cost's docs/models.md that describes the model.
    pub doc: String,
}

/// One term of the sum.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Term {
    /// The part of the equation (`L_B`, `L_PD`, `L_C`, `MAU ingress`, ...).
    pub part: String,
    /// What it is for (`packet of 512 B`, `parse state parse_ipv4`, ...).
    pub item: String,
    /// The arithmetic, with the coefficients' values and names:
    /// `0.0048 ns/B (per_packet_byte_ns) x 512 B + 268.3 ns (constant_ns)`.
    pub formula: String,
    /// Why this coefficient (a table's class), when there is a choice.
    pub why: Option<String>,
    /// The value, ns.
    pub ns: f64,
    /// The value in CPU cycles (CPU models).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycles: Option<f64>,
    /// The source item, when one.
    pub span: Option<Loc>,
}

/// Explains the prediction `o` selects: the path of `o.path` (else the
/// slowest path), the class of `o.class` (else the path's slowest class);
/// one explanation per pipeline reported.
pub fn explain(session: &mut Session, o: &PredictOptions) -> Result<Vec<Explanation>, Error> {
    // The path explained is listed whatever an output budget says.
    let o = &PredictOptions {
        max_listing_bytes: None,
        ..o.clone()
    };
    let (model, _) = crate::predict::settle(o)?;
    let reports = match (&o.path, o.path_index) {
        (None, None) => slowest_reports(session, o)?,
        _ => session.reports(o)?,
    };
    let mut all = reports
        .iter()
        .map(|r| explain_report(r, &model))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(f) = &o.target.model_file {
        for e in &mut all {
            e.model.file = Some(crate::read::shown(f));
            e.model.embedded = false;
        }
    }
    Ok(all)
}

/// Each pipeline's report listing the path of its slowest class (the
/// summary's maximum, exact over all classes); without a summary (a MAU
/// model), the path with the heaviest parse terms.
fn slowest_reports(session: &mut Session, o: &PredictOptions) -> Result<Vec<Report>, Error> {
    let mut q = o.clone();
    q.max_paths = 0;
    let summaries = session.reports(&q)?;
    let mut out = Vec::with_capacity(summaries.len());
    for s in &summaries {
        let mut q = o.clone();
        if let Some(p) = &s.pipeline {
            q.pipe = Some(p.name.clone());
        }
        match s.summary.as_ref().and_then(|m| m.max.as_ref()) {
            Some(max) if !max.number.saturated && max.number.value > 0 => {
                q.path_index = Some(max.number.value - 1);
            }
            // A CPU model explains its summary's slowest class (or the
            // slowest listed one a filter selects): no parse terms to rank.
            _ if s.cpu.is_some() || s.recirc.is_some() => q.sort = SortBy::Latency,
            _ => {
                q.sort = SortBy::Latency;
                q.top = Some(1);
            }
        }
        out.extend(session.reports(&q)?.into_iter().take(1));
    }
    Ok(out)
}

fn model_source(m: &ModelSpec) -> ModelSource {
    ModelSource {
        name: m.name.clone(),
        title: m.title.clone(),
        file: p4cost_model::catalog::model_file(&m.name).map(|f| format!("models/{f}")),
        embedded: true,
        citation: m.source.citation.clone(),
        doi: m.source.doi.clone(),
        location: m.source.location.clone(),
        doc: m.source.spec.clone(),
    }
}

fn explain_report(r: &Report, m: &ModelSpec) -> Result<Explanation, Error> {
    let mut e = Explanation {
        schema_version: SCHEMA_VERSION,
        p4cost_version: env!("CARGO_PKG_VERSION").to_string(),
        program: r.program.clone(),
        pipeline: r
            .pipeline
            .as_ref()
            .filter(|p| p.all.len() > 1)
            .map(|p| p.name.clone()),
        model: model_source(m),
        port_gbps: r.port_gbps,
        packet_size: r.packet_size,
        equation: String::new(),
        headers: Vec::new(),
        path: None,
        class: None,
        terms: Vec::new(),
        total_ns: 0.0,
        predicted_ns: 0.0,
        warnings: r
            .warnings
            .iter()
            .map(|w| format!("{}: {}", w.code, w.message))
            .collect(),
        cpu: None,
        passes: None,
    };
    if m.cpu().is_some() {
        cpu::cpu_terms(&mut e, r, m)?;
        return Ok(e);
    }
    if m.nfp().is_some() || m.bmv2_coarse().is_some() {
        passes::pass_terms(&mut e, r, m)?;
        return Ok(e);
    }
    let lin = m.linear();
    let fitted = p4cost_model::fitted::is_fitted(m.kind);
    match lin {
        _ if lin.is_some() || fitted => {
            let Some(p) = r.paths.first() else {
                if let Some(l) = r.left_out.as_ref().filter(|l| l.all) {
                    return Err(Error::input(format!(
                        "{}: no parse path to explain: {}",
                        r.program,
                        l.message()
                    )));
                }
                return Err(Error::input(format!(
                    "{}: no parse path to explain (none listed: see `p4cost predict {}`)",
                    r.program, r.program
                )));
            };
            match &lin {
                Some(lin) => linear_terms(&mut e, p, &r.tables, lin),
                None => fitted_terms(&mut e, p, m),
            }
            e.total_ns = round3(e.terms.iter().map(|t| t.ns).sum());
            // Only the warnings about what is explained: the program's
            // own, those naming a term's table or state, and this path's.
            e.warnings = r
                .warnings
                .iter()
                .filter(|w| {
                    w.span
                        .as_ref()
                        .is_none_or(|s| e.terms.iter().any(|t| t.span.as_ref() == Some(s)))
                })
                .map(|w| format!("{}: {}", w.code, w.message))
                .chain(
                    r.path_warnings
                        .iter()
                        .filter(|w| p.warnings.iter().any(|c| *c == w.code))
                        .map(|w| format!("{}: {}", w.code, w.message)),
                )
                .collect();
        }
        _ => mau_terms(&mut e, r, m)?,
    }
    Ok(e)
}

/// The terms of a `plp` or `component` model: the base, each counted
/// state's and each table's share (what it adds to the ones before it:
/// neither model is a sum over states or tables).
fn fitted_terms(e: &mut Explanation, p: &PathOut, m: &ModelSpec) {
    let (base_how, parser_how, control_how) = match (&m.plp, &m.component) {
        (Some(plp), _) => {
            let part = |x: &p4cost_model::plp::PlpPart| {
                format!(
                    "PLP of {} (degree-2 polynomial features, standardised, {} principal components, Lasso alpha {})",
                    x.inputs.join(", "),
                    x.components.len(),
                    num(x.alpha)
                )
            };
            e.equation = "L = parser(packet size, counted states, header bytes) + control(tables by match kind, keys, key bits, entries), each a PLP part (docs/models.md#plp-models)".to_string();
            (
                format!("{} with no counted state", part(&plp.parser)),
                part(&plp.parser),
                plp.control
                    .as_ref()
                    .map_or("no control part".to_string(), part),
            )
        }
        (_, Some(c)) => {
            e.equation = "L = base(packet size) + states(count, bytes per state) + tables(count per match kind, key bits) + entries, each a fitted curve (docs/models.md#component-models)".to_string();
            (
                format!("base curve {}", c.base.describe()),
                "the states curves, interpolated at the path's bytes per state".to_string(),
                "the table curves of each match kind at its tables' mean key bits, and the entries curves".to_string(),
            )
        }
        _ => Default::default(),
    };
    e.headers = p.headers.clone();
    e.path = Some(p.number.to_string());
    e.predicted_ns = p.latency_ns;
    e.terms.push(Term {
        part: "base".to_string(),
        item: format!("packet of {} B", e.packet_size),
        formula: base_how,
        why: None,
        ns: round3(p.breakdown.base_ns),
        cycles: None,
        span: None,
    });
    for st in p.states.iter().filter(|s| s.counted_bytes > 0) {
        e.terms.push(Term {
            part: "parser".to_string(),
            item: format!("parse state {} ({} B)", st.name, st.counted_bytes),
            formula: format!("{parser_how}: what this state adds to the states before it"),
            why: None,
            ns: st.latency_ns,
            cycles: None,
            span: Some(st.span.clone()),
        });
    }
    for t in &p.breakdown.tables {
        e.terms.push(Term {
            part: "control".to_string(),
            item: format!("table {}", t.name),
            formula: format!("{control_how}: what this table adds to the tables before it"),
            why: None,
            ns: t.latency_ns,
            cycles: None,
            span: Some(t.span.clone()),
        });
    }
}

/// `L = L_B(p) + L_PD + L_C` of one packet class; `tables` is its
/// report's table list, which classes index.
fn linear_terms(
    e: &mut Explanation,
    p: &PathOut,
    tables: &[crate::path_classes::ClassTableOut],
    lin: &p4cost_model::spec::LinearTerms<'_>,
) {
    e.equation = "L = L_B(p) + L_PD + L_C: a base term by packet size, one term per counted \
                  parse state, one per table the packet's control path applies"
        .to_string();
    e.headers = p.headers.clone();
    e.path = Some(p.number.to_string());
    let b = lin.base;
    let size = f64::from(e.packet_size);
    e.terms.push(Term {
        part: "L_B".to_string(),
        item: format!("packet of {} B", e.packet_size),
        formula: format!(
            "{} ns/B (per_packet_byte_ns) x {} B + {} ns (constant_ns)",
            num(b.per_packet_byte_ns),
            e.packet_size,
            num(b.constant_ns)
        ),
        why: None,
        ns: round3(b.per_packet_byte_ns * size + b.constant_ns),
        cycles: None,
        span: None,
    });
    let pt = lin.parser;
    for st in &p.states {
        let (formula, why) = state_formula(pt, st);
        e.terms.push(Term {
            part: "L_PD".to_string(),
            item: format!("parse state {}", st.name),
            formula,
            why,
            ns: st.latency_ns,
            cycles: None,
            span: Some(st.span.clone()),
        });
    }
    // The tables of the class explained: the path's slowest class (with
    // `--class`, the slowest listed one it selects); a path without
    // classes applies them all.
    let class = p.classes.as_ref().and_then(|pc| match pc.filter {
        None => Some(&pc.slowest),
        Some(_) => pc
            .classes
            .iter()
            .max_by(|a, b| a.latency_ns.total_cmp(&b.latency_ns)),
    });
    e.predicted_ns = class.map_or(p.latency_ns, |c| c.latency_ns);
    let tables: Vec<(String, f64, Option<Loc>)> = match class {
        Some(c) => {
            e.class = Some(c.id.clone());
            crate::path_classes::class_tables_of(c, tables)
                .map(|t| (t.name.clone(), t.latency_ns, Some(t.span.clone())))
                .collect()
        }
        None => p
            .breakdown
            .tables
            .iter()
            .map(|t| (t.name.clone(), t.latency_ns, Some(t.span.clone())))
            .collect(),
    };
    for (name, ns, span) in tables {
        let t = p.breakdown.tables.iter().find(|t| t.name == name);
        let (formula, why) = match (t, lin.control) {
            (Some(t), Some(ctl)) => table_formula(t, ctl, ns),
            _ => (format!("{} ns", num(ns)), None),
        };
        e.terms.push(Term {
            part: "L_C".to_string(),
            item: format!("table {name}"),
            formula,
            why,
            ns,
            cycles: None,
            span,
        });
    }
}

/// MAU latency per gress: each stage's cycles, the corner turn, over the
/// clock.
fn mau_terms(e: &mut Explanation, r: &Report, m: &ModelSpec) -> Result<(), Error> {
    let Some(mau) = &r.mau else {
        return Err(Error::input(format!(
            "{}: model {} gave no MAU figures to explain",
            r.program, m.name
        )));
    };
    e.equation = format!(
        "MAU latency = sum over the stages of the cycles each adds (its full length when it \
         waits for the previous stage's match, else a few cycles) + the corner turn, divided by \
         the clock ({} GHz{})",
        num(mau.clock_ghz),
        if mau.clock_is_default {
            ", the model's default"
        } else {
            ""
        }
    );
    let gresses = [&mau.ingress, &mau.egress, &mau.ghost];
    let mut cycles = 0u32;
    for g in gresses.into_iter().flatten() {
        let part = format!("MAU {}", g.gress.name());
        for st in &g.stages {
            let kind = if st.match_dependent {
                format!(
                    "match-dependent: the stage's full {} cycles",
                    st.clock_cycles
                )
            } else {
                format!(
                    "action-dependent or concurrent: {} of its {} cycles",
                    st.cycles, st.clock_cycles
                )
            };
            let kind = if st.tables.is_empty() {
                kind
            } else {
                format!("{kind}; tables {}", st.tables.join(", "))
            };
            e.terms.push(Term {
                part: part.clone(),
                item: format!("stage {}", st.stage),
                formula: format!("{} cycles / {} GHz", st.cycles, num(mau.clock_ghz)),
                why: Some(kind),
                ns: st.ns,
                cycles: None,
                span: None,
            });
        }
        if g.corner_turn_cycles > 0 {
            e.terms.push(Term {
                part,
                item: "corner turn".to_string(),
                formula: format!(
                    "{} cycles / {} GHz",
                    g.corner_turn_cycles,
                    num(mau.clock_ghz)
                ),
                why: None,
                ns: round3(f64::from(g.corner_turn_cycles) / mau.clock_ghz),
                cycles: None,
                span: None,
            });
        }
        e.predicted_ns += g.ns;
        cycles += g.cycles;
    }
    e.predicted_ns = round3(e.predicted_ns);
    // The sum in cycles, then one division: what the model computes (the
    // rounded terms may differ from it in the last digit).
    e.total_ns = round3(f64::from(cycles) / mau.clock_ghz);
    Ok(())
}

/// A parse state's term as arithmetic over the model's coefficients, and
/// why it is what it is; the figure alone when the coefficients do not
/// reproduce it.
pub(crate) fn state_formula(
    pt: &p4cost_model::spec::ParserTerm,
    st: &crate::report::StateOut,
) -> (String, Option<String>) {
    if st.in_baseline {
        (
            "0 (in L_B)".to_string(),
            Some(
                "the baseline program's own parse (Ethernet) is part of L_B, not counted again"
                    .to_string(),
            ),
        )
    } else if st.latency_ns == 0.0 {
        ("0 (extracts nothing)".to_string(), None)
    } else {
        match parse_formula(pt, st.counted_bytes, st.latency_ns) {
            Some(f) => (
                f,
                (st.counted_bytes != st.bytes).then(|| {
                    format!(
                        "{} of its {} B counted: the rest is in the baseline",
                        st.counted_bytes, st.bytes
                    )
                }),
            ),
            None => (format!("{} ns", num(st.latency_ns)), None),
        }
    }
}

/// The linear model's parse term for `counted_bytes` as arithmetic, when
/// it reproduces `ns` (else `None`: show the figure alone).
pub(crate) fn parse_formula(
    pt: &p4cost_model::spec::ParserTerm,
    counted_bytes: u64,
    ns: f64,
) -> Option<String> {
    same(
        pt.per_header_byte_ns * counted_bytes as f64 + pt.per_state_ns,
        ns,
    )
    .then(|| {
        format!(
            "{} ns/B (per_header_byte_ns) x {counted_bytes} B + {} ns (per_state_ns)",
            num(pt.per_header_byte_ns),
            num(pt.per_state_ns)
        )
    })
}

/// A table's term as its coefficient (name and value) and the reason for
/// that class; the figure alone when the coefficient does not reproduce
/// `ns`.
pub(crate) fn table_formula(
    t: &crate::report::TableOut,
    ctl: &p4cost_model::spec::ControlTerm,
    ns: f64,
) -> (String, Option<String>) {
    let (c, kind, field) = coefficient(t, ctl);
    if !same(c, ns) {
        return (format!("{} ns", num(ns)), None);
    }
    (
        format!(
            "{} ns ({kind}.{field}): {} keys, {} bits",
            num(c),
            t.keys,
            t.key_bits
        ),
        Some(t.class_reason.clone()),
    )
}

/// The coefficient the model gives table `t` (by its match and key
/// class), with its place in the model file (`lpm`, `wide_key_ns`).
fn coefficient(
    t: &crate::report::TableOut,
    ctl: &p4cost_model::spec::ControlTerm,
) -> (f64, &'static str, &'static str) {
    let (cost, kind) = if t.match_class == "lpm" {
        (&ctl.lpm, "lpm")
    } else {
        (&ctl.exact, "exact")
    };
    if t.key_class == "wide" {
        (cost.wide_key_ns, kind, "wide_key_ns")
    } else {
        (cost.narrow_key_ns, kind, "narrow_key_ns")
    }
}

/// Equal as reported (to the 3 decimals of the report).
fn same(a: f64, b: f64) -> bool {
    (round3(a) - round3(b)).abs() < 5e-4
}

/// A coefficient as written in the model file (shortest exact form).
fn num(x: f64) -> String {
    format!("{x}")
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
