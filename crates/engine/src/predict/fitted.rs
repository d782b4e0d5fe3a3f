//! `predict` with a model `p4cost fit` made that is not linear (`plp`,
//! `component`). Such a model prices a path by its packet size, counted
//! states and their bytes together, not state by state, so the linear
//! model's dynamic programs do not apply as they are. Over all paths the
//! graph is walked with an automaton that carries (first header seen,
//! counted states, counted bytes): each product node then knows the parser
//! term before and after it, and the difference is an additive weight whose
//! sum along a path is that path's parser term. Minimum, maximum, the k
//! slowest and the median are the linear model's dynamic programs on those
//! weights: counted, never enumerated. The training-range warnings over all
//! paths are the linear model's, on zero terms ([`Skeleton`]). Every path
//! pays every table of the ingress control (packet classes are priced by
//! the linear models only).

use p4cost_analysis::{PathAutomaton, PathState, Product};
use p4cost_model::baseline::{split_state, StateSplit};
use p4cost_model::fitted::{self, Skeleton};
use p4cost_model::{tofino_linear, ModelSpec};

use super::{insert_parse_warnings, path_fits, shown_paths, sort_by_latency, Common};
use crate::error::Error;
use crate::options::{PredictOptions, SortBy};
use crate::path_stats::{describe, pair_median, Costed, SummaryOut, PATH_CODES};
use crate::report::{self, CountOut, Report, WarningOut};

/// The automaton: (a program header went by, counted states, counted bytes).
struct Counting;

impl PathAutomaton for Counting {
    type S = (bool, u32, u64);
    fn initial(&self) -> Self::S {
        (false, 0, 0)
    }
    fn step(&self, (mut seen, n, b): Self::S, st: &PathState) -> Option<Self::S> {
        let sp = split_state(&mut seen, st);
        Some(if sp.counted {
            (
                seen,
                n.saturating_add(1),
                b.saturating_add(sp.counted_bytes),
            )
        } else {
            (seen, n, b)
        })
    }
    fn accepts(&self, _: Self::S) -> bool {
        true
    }
}

/// One prediction per listed path; the summary over all paths.
pub(super) fn run_fitted(
    a: &PredictOptions,
    model: &ModelSpec,
    packet_size: u32,
    mut common: Common<'_>,
) -> Result<Report, Error> {
    let parser = common.need_parser()?;
    let zero = Skeleton::ZERO;
    let lin0 = zero.terms(training(model)?);
    let opts = Common::path_options(a);
    let mut warns = std::mem::take(&mut common.warnings);
    let program = common.program();
    let (pg, graph_warnings) = common.parse_graph(parser, &opts)?;
    // The training-range warnings over all paths (zero terms).
    let costed = Costed::new(&pg, &lin0, packet_size, opts.max_analysis_states)
        .map_err(|e| common.budget(e))?;
    let prod = fitting_product(&pg, packet_size, opts.max_analysis_states)
        .map_err(|e| common.budget(e))?;
    let (weight, step) = node_weights(&pg, &prod, model, packet_size);
    if !a.listed_only {
        warns.extend(super::extrapolates::negative_state(
            program, &pg, &prod, &weight,
        ));
    }
    let tables = &common.tables;
    let inputs = |path: &p4cost_analysis::ParsePath| {
        fitted::predict(
            model,
            &tofino_linear::Inputs {
                program,
                path,
                tables,
                packet_size,
            },
        )
    };
    // Base + control: the prediction of a path with no state.
    let constant = inputs(&p4cost_analysis::ParsePath { states: Vec::new() });
    let constant_ns = constant.latency_ns;
    warns.extend(
        constant
            .warnings
            .iter()
            .filter(|w| !PATH_CODES.contains(&w.code.as_str()))
            .map(|w| WarningOut::of_model(program, w)),
    );
    // The matching paths' latency differs where their counted states or
    // counted bytes do.
    let (shown, path_match) = shown_paths(
        a,
        &common,
        &pg,
        packet_size,
        (&prod, &weight),
        &[&counted_state, &counted_bytes],
        &mut warns,
    )?;
    insert_parse_warnings(&mut warns, common.loaded.warnings.len(), &graph_warnings);

    let (mut path_outs, mut listed_codes) = listed(program, &pg, &shown, packet_size, &inputs);
    if a.sort == SortBy::Latency {
        sort_by_latency(&mut path_outs, &mut listed_codes);
    }

    let mut r = common.report(a, model, packet_size);
    r.set_path_count(pg.total());
    r.paths_listed = path_outs.len();
    r.path_match = path_match;
    r.left_out = costed.left_out.clone();
    r.summary = Some(summary(&pg, &prod, &weight, &step, constant_ns, |n, b| {
        constant_ns + fitted::parser_term(model, packet_size, n, b)
    }));
    r.path_warnings = costed.warnings(program, &lin0, packet_size, &listed_codes);
    r.control.path_sensitive = false;
    r.control.note = whole_table_set_note(model);
    r.paths = path_outs;
    r.warnings = warns;
    Ok(r)
}

/// The parse graph's paths that fit in the packet, each product node
/// with its (counted, counted states, counted bytes) and fit.
type FitProduct = Product<((bool, u32, u64), p4cost_analysis::Fit)>;

/// The training section of fitted model `model`.
fn training(model: &ModelSpec) -> Result<&p4cost_model::spec::Training, Error> {
    model
        .training
        .as_ref()
        .ok_or_else(|| Error::input(format!("model {} has no training section", model.name)))
}

/// The paths of `pg` whose headers fit in a packet of `packet_size`
/// bytes (as the linear model's), as a product automaton.
fn fitting_product(
    pg: &p4cost_analysis::PathGraph<'_>,
    packet_size: u32,
    max_states: usize,
) -> Result<FitProduct, p4cost_analysis::BudgetExceeded> {
    Product::build(
        pg,
        &p4cost_analysis::FitsPacket::fitting(pg, &Counting, packet_size),
        max_states,
    )
}

/// 1 for a state the model counts, else 0.
fn counted_state(sp: &StateSplit) -> f64 {
    if sp.counted {
        1.0
    } else {
        0.0
    }
}

/// The bytes a state extracts when the model counts it, else 0.
fn counted_bytes(sp: &StateSplit) -> f64 {
    if sp.counted {
        sp.counted_bytes as f64
    } else {
        0.0
    }
}

/// Why a fitted model's control cost is the same on every path.
fn whole_table_set_note(model: &ModelSpec) -> String {
    format!(
        "model kind {} prices the ingress control's table set as a whole: every table it applies counts on every path (packet classes are priced by the linear models)",
        model.kind.name()
    )
}

/// Each product node's additive parser term (the term after its state
/// less the term before it) and its step in (counted bytes, counted
/// states).
fn node_weights(
    pg: &p4cost_analysis::PathGraph<'_>,
    prod: &FitProduct,
    model: &ModelSpec,
    packet_size: u32,
) -> (Vec<f64>, Vec<[u64; 2]>) {
    let term = |(_, n, b): (bool, u32, u64)| fitted::parser_term(model, packet_size, n, b);
    let mut weight = Vec::with_capacity(prod.nodes.len());
    let mut step = Vec::with_capacity(prod.nodes.len());
    for node in &prod.nodes {
        let before = node.before.0;
        let after = Counting
            .step(before, &pg.visit(node.node))
            .unwrap_or(before);
        weight.push(term(after) - term(before));
        step.push([after.2 - before.2, u64::from(after.1 - before.1)]);
    }
    (weight, step)
}

/// The listed paths that fit in the packet, each predicted by `predict`,
/// with the per-path warning codes of each.
fn listed(
    program: &p4cost_ir::Program,
    pg: &p4cost_analysis::PathGraph<'_>,
    shown: &[(p4cost_analysis::PathCount, Vec<u32>)],
    packet_size: u32,
    predict: &dyn Fn(&p4cost_analysis::ParsePath) -> p4cost_model::Prediction,
) -> (Vec<report::PathOut>, Vec<Vec<String>>) {
    let mut path_outs = Vec::with_capacity(shown.len());
    let mut listed_codes = Vec::with_capacity(shown.len());
    for (index, nodes) in shown {
        let path = pg.path(nodes);
        if !path_fits(&path, packet_size) {
            continue;
        }
        let pred = predict(&path);
        listed_codes.push(
            pred.warnings
                .iter()
                .filter(|w| PATH_CODES.contains(&w.code.as_str()))
                .map(|w| w.code.clone())
                .collect::<Vec<_>>(),
        );
        path_outs.push(report::path_out(program, *index, &path, pred));
    }
    (path_outs, listed_codes)
}

/// Min, max and median over all paths.
fn summary(
    pg: &p4cost_analysis::PathGraph<'_>,
    prod: &FitProduct,
    weight: &[f64],
    step: &[[u64; 2]],
    constant_ns: f64,
    latency: impl Fn(u32, u64) -> f64,
) -> SummaryOut {
    let extreme = |max: bool| {
        prod.extreme(weight, max)
            .map(|e| describe(pg, prod, constant_ns + e.value, &e.path))
    };
    let (median_ns, median_note) = pair_median(prod, step, |bytes, states| {
        latency(u32::try_from(states).unwrap_or(u32::MAX), bytes)
    });
    SummaryOut {
        over: "path",
        paths: CountOut::of(prod.total()),
        classes: None,
        min: extreme(false),
        max: extreme(true),
        median_ns,
        median_note,
        histogram: None,
    }
}
