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
use crate::spec::{
    Base, ControlTerm, KeyClassCost, LinearTerms, ModelKind, ModelSpec, ParserTerm, Training,
};
use crate::tofino_linear::{self, Inputs};
use crate::{Prediction, TableFeature};

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
        ModelKind::TofinoMauCycles | ModelKind::TofinoMauEstimate => None,
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
    pred
}
