//! Evaluating the models `p4cost fit` makes that are not linear: `plp`
//! ([`crate::plp`]) and `component` ([`crate::component`]). Both price a
//! packet class from its [`Features`] as base + parser + control, where
//! the parser part depends on the path only through its packet size,
//! counted states and their bytes ([`parser_term`]); neither is a sum over
//! states or tables, so a state's or a table's share in a breakdown is
//! what it adds to the ones before it on that path.
//!
//! The training-range warnings are the linear model's (same codes, same
//! rules, from the model's `training` section): a fitted model is as
//! untrustworthy outside its measurements as the published one.

use crate::features::Features;
use crate::spec::TermRange;
use crate::spec::{
    Base, ControlTerm, KeyClassCost, LinearTerms, ModelKind, ModelSpec, ParserTerm, Training,
};
use crate::tofino_linear::{self, Inputs};
use crate::{Prediction, TableFeature, TableTerm, Warning};

/// The warning of a term below zero, or a latency outside the measured
/// latencies a model was fitted on.
pub const EXTRAPOLATES: &str = "fitted_model_extrapolates";

/// Below this a term is negative (not rounding around zero), ns.
pub const NEGATIVE_NS: f64 = -1e-6;

/// A warning for each term of `pred` below zero: the base, the control
/// part, a table's or a counted state's share. No pipeline gets faster
/// for a table or a parse state, so such a term is the model extrapolating
/// past what it was fitted on.
pub fn negative_terms(pred: &Prediction) -> Vec<Warning> {
    negative_terms_with(pred, &pred.breakdown.tables)
}

/// [`negative_terms`] of `pred` with `tables` as its tables' terms (a
/// prediction that leaves out the table terms many paths share).
pub fn negative_terms_with(pred: &Prediction, tables: &[TableTerm]) -> Vec<Warning> {
    let b = &pred.breakdown;
    let mut out = Vec::new();
    let why = "below zero: the model extrapolates (no pipeline gets faster for it); trust the figure less, or refit with measurements like this program";
    if b.base_ns < NEGATIVE_NS {
        out.push(Warning::new(
            EXTRAPOLATES,
            format!("the base term is {:.3} ns, {why}", b.base_ns),
        ));
    }
    for st in b.states.iter().filter(|s| s.ns < NEGATIVE_NS) {
        out.push(
            Warning::new(
                EXTRAPOLATES,
                format!("parse state `{}` adds {:.3} ns, {why}", st.name, st.ns),
            )
            .at_some(Some(st.span)),
        );
    }
    for t in tables.iter().filter(|t| t.ns < NEGATIVE_NS) {
        out.push(
            Warning::new(
                EXTRAPOLATES,
                format!("table `{}` adds {:.3} ns, {why}", t.name, t.ns),
            )
            .at_some(Some(t.span)),
        );
    }
    if b.control_ns < NEGATIVE_NS {
        out.push(Warning::new(
            EXTRAPOLATES,
            format!(
                "the control part ({} tables) is {:.3} ns, {why}",
                tables.len(),
                b.control_ns
            ),
        ));
    }
    out
}

/// Each term of `model` over the classes `rows` (its training rows): the
/// base, the parser and control parts, each counted state's share (what it
/// adds to the states before it) and each table's share by match kind
/// (what it adds to the tables before it), as a predict breakdown shows
/// them. Terms no row has are left out.
pub fn term_ranges<'a>(
    model: &ModelSpec,
    rows: impl Iterator<Item = &'a Features>,
) -> Vec<TermRange> {
    let mut out: Vec<TermRange> = Vec::new();
    let mut add = |term: &str, ns: f64| match out.iter_mut().find(|t| t.term == term) {
        Some(t) => {
            t.min_ns = t.min_ns.min(ns);
            t.max_ns = t.max_ns.max(ns);
        }
        None => out.push(TermRange {
            term: term.to_string(),
            min_ns: ns,
            max_ns: ns,
        }),
    };
    for f in rows {
        let Some((base, parser, control)) = terms(model, f) else {
            continue;
        };
        add("base", base);
        if !f.state_bytes.is_empty() {
            add("parser part", parser);
        }
        if !f.tables.is_empty() {
            add("control part", control);
        }
        let (mut before, mut bytes) = (0.0, 0u64);
        for (n, b) in f.state_bytes.iter().enumerate() {
            bytes += b;
            let now = parser_term(model, f.packet_size, n as u32 + 1, bytes);
            add("state share", now - before);
            before = now;
        }
        let mut so_far = Features {
            packet_size: f.packet_size,
            state_bytes: Vec::new(),
            tables: Vec::with_capacity(f.tables.len()),
        };
        let mut before = 0.0;
        for t in &f.tables {
            so_far.tables.push(t.clone());
            let now = terms(model, &so_far).map_or(0.0, |(_, _, c)| c);
            add(&format!("table share ({})", t.kind.name()), now - before);
            before = now;
        }
    }
    out
}

/// True for the kinds this module evaluates.
pub fn is_fitted(kind: ModelKind) -> bool {
    matches!(kind, ModelKind::Plp | ModelKind::Component)
}

/// (base, parser, control) ns of a class, for a `plp`, `component` or
/// linear model; `None` for other kinds or incomplete models.
pub fn terms(model: &ModelSpec, f: &Features) -> Option<(f64, f64, f64)> {
    match model.kind {
        ModelKind::Plp => model.plp.as_ref().map(|p| p.terms(f)),
        ModelKind::Component => model.component.as_ref().map(|c| c.terms(f)),
        ModelKind::TofinoIngressLinear => {
            let lin = model.linear()?;
            let all = tofino_linear::latency_of_features(model, f)?;
            let base =
                lin.base.per_packet_byte_ns * f64::from(f.packet_size) + lin.base.constant_ns;
            let parser: f64 = f
                .state_bytes
                .iter()
                .map(|&b| lin.parser.per_header_byte_ns * b as f64 + lin.parser.per_state_ns)
                .sum();
            Some((base, parser, all - base - parser))
        }
        ModelKind::TofinoMauCycles
        | ModelKind::TofinoMauEstimate
        | ModelKind::CpuTables
        | ModelKind::NfpRecirc
        | ModelKind::Bmv2Coarse => None,
    }
}

/// The latency of a class described by its features (a measurement row,
/// or a packet class) under any model that prices classes.
pub fn latency_of_features(model: &ModelSpec, f: &Features) -> Option<f64> {
    terms(model, f).map(|(b, p, c)| b + p + c)
}

/// The parser part of a fitted model for `states` counted states that
/// extract `bytes` in all, at `packet_size`: what the path adds to the
/// base. Each state of the features gets the mean bytes (both kinds see
/// only the count and the total).
pub fn parser_term(model: &ModelSpec, packet_size: u32, states: u32, bytes: u64) -> f64 {
    if states == 0 {
        return 0.0;
    }
    let per = bytes / u64::from(states);
    let mut state_bytes = vec![per; states as usize];
    // Keep the total exact.
    if let Some(first) = state_bytes.first_mut() {
        *first += bytes - per * u64::from(states);
    }
    let f = Features {
        packet_size,
        state_bytes,
        tables: Vec::new(),
    };
    terms(model, &f).map_or(0.0, |(_, p, _)| p)
}

/// Zero linear terms: with a fitted model's training range they give the
/// linear model's breakdown layout and training-range warnings (per path,
/// and over all paths in the engine) with no cost of their own.
#[derive(Debug, Clone, Copy)]
pub struct Skeleton {
    base: Base,
    parser: ParserTerm,
    control: ControlTerm,
}

impl Skeleton {
    /// All zeros.
    pub const ZERO: Skeleton = {
        let zero = KeyClassCost {
            narrow_key_ns: 0.0,
            wide_key_ns: 0.0,
        };
        Skeleton {
            base: Base {
                per_packet_byte_ns: 0.0,
                constant_ns: 0.0,
            },
            parser: ParserTerm {
                per_header_byte_ns: 0.0,
                per_state_ns: 0.0,
            },
            control: ControlTerm {
                exact: zero,
                lpm: zero,
                wide_key_min_bits: 16,
            },
        }
    };

    /// The zero terms over `training`.
    pub fn terms<'a>(&'a self, training: &'a Training) -> LinearTerms<'a> {
        LinearTerms {
            base: &self.base,
            parser: &self.parser,
            control: Some(&self.control),
            training,
            nonlinear: None,
        }
    }
}

/// The prediction of one path of a program with a `plp` or `component`
/// model: the totals from the model, the breakdown's states and tables
/// as increments, the training-range warnings of the linear model.
pub fn predict(model: &ModelSpec, inp: &Inputs<'_>) -> Prediction {
    let Some(training) = model.training.as_ref() else {
        return tofino_linear::predict(model, inp);
    };
    // The linear model with zero coefficients lays out the breakdown
    // (states, tables, baseline split) and raises its warnings.
    let zero = Skeleton::ZERO;
    let skeleton = zero.terms(training);
    let mut pred = tofino_linear::predict_with(&skeleton, inp);
    let f = Features::of(inp.program, inp.path, inp.tables, inp.packet_size);
    let Some((base, parser, control)) = terms(model, &f) else {
        return pred;
    };
    // States: each counted state's increment of the parser part.
    let (mut n, mut bytes, mut before) = (0u32, 0u64, 0.0);
    for st in &mut pred.breakdown.states {
        // Counted states are those with counted bytes (baseline::split).
        if st.counted_bytes == 0 {
            continue;
        }
        n += 1;
        bytes += st.counted_bytes;
        let now = parser_term(model, inp.packet_size, n, bytes);
        st.ns = now - before;
        before = now;
    }
    // Tables: each table's increment of the control part.
    let mut so_far = Features {
        packet_size: inp.packet_size,
        state_bytes: Vec::new(),
        tables: Vec::new(),
    };
    let mut before = 0.0;
    for (term, &tid) in pred.breakdown.tables.iter_mut().zip(inp.tables) {
        let tf = TableFeature::of(inp.program.table(tid));
        term.match_class = match tf.kind {
            crate::TableMatch::Keyless => "exact".to_string(),
            k => k.name().to_string(),
        };
        term.key_class = "any".to_string();
        term.class_reason = format!(
            "model kind {}: the control part is a function of the whole table set; this table's share is what it adds to the tables before it",
            model.kind.name()
        );
        so_far.tables.push(tf);
        let now = terms(model, &so_far).map_or(0.0, |(_, _, c)| c);
        term.ns = now - before;
        before = now;
    }
    if f.tables.iter().any(|t| t.entries.is_none()) && model.kind == ModelKind::Plp {
        pred.warnings.push(crate::Warning::new(
            "entries_unknown",
            "a table declares no size: its entries count 0 in the PLP control part (give --entries TABLE=N or the table a size)",
        ));
    }
    pred.breakdown.base_ns = base;
    pred.breakdown.parser_ns = parser;
    pred.breakdown.control_ns = control;
    pred.latency_ns = base + parser + control;
    let negative = negative_terms(&pred);
    pred.warnings.extend(negative);
    pred
}
