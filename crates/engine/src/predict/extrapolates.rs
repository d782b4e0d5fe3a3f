//! `fitted_model_extrapolates` over all paths: a parse state whose share
//! is below zero on some path, and a latency outside the measured
//! latencies the model was fitted on (the per-table and base terms are
//! the model's own warnings, [`p4cost_model::fitted::negative_terms`]).

use p4cost_analysis::{PathGraph, Product};
use p4cost_model::fitted::{EXTRAPOLATES, NEGATIVE_NS};
use p4cost_model::ModelSpec;

use crate::report::{count_text, Loc, Report, WarningOut};

/// The warning for the counted state of most negative share over all
/// paths (a product node's `weight` is the state's share on the paths
/// through it), naming how many states have one.
pub(super) fn negative_state<S: Copy + Eq + std::hash::Hash>(
    program: &p4cost_ir::Program,
    pg: &PathGraph<'_>,
    prod: &Product<S>,
    weight: &[f64],
) -> Option<WarningOut> {
    let live = |i: usize| {
        let c = prod.count(i as u32);
        c.value > 0 || c.saturated
    };
    let negative: Vec<usize> = (0..weight.len())
        .filter(|&i| weight[i] < NEGATIVE_NS && live(i))
        .collect();
    let worst = *negative
        .iter()
        .min_by(|&&a, &&b| weight[a].total_cmp(&weight[b]))?;
    let mut states: Vec<u32> = negative
        .iter()
        .map(|&i| pg.visit(prod.nodes[i].node).state.index() as u32)
        .collect();
    states.sort_unstable();
    states.dedup();
    let st = pg.visit(prod.nodes[worst].node);
    let mut only = vec![false; weight.len()];
    only[worst] = true;
    let on = match prod.through(&only) {
        (_, Some(p)) => format!(
            " on path {}",
            count_text(pg.index_of(&prod.graph_nodes(&p)).add_one())
        ),
        _ => String::new(),
    };
    let more = if states.len() > 1 {
        format!(
            " ({} parse states have a share below zero on some path)",
            states.len()
        )
    } else {
        String::new()
    };
    Some(WarningOut {
        span: Some(Loc::new(program, st.span)),
        ..WarningOut::new(
            EXTRAPOLATES,
            format!(
                "parse state `{}` adds {:.3} ns{on}, below zero: the model extrapolates (no pipeline gets faster for a parse state){more}",
                st.name, weight[worst]
            ),
        )
    })
}

/// The warnings of a finished report: a parse state whose term is below
/// zero on some path (`state_terms`, linear models) and a fastest or
/// slowest path outside the training latencies.
pub(super) fn check(r: &mut Report, model: &ModelSpec) {
    for t in r.state_terms.iter().filter(|t| t.min_ns < NEGATIVE_NS) {
        r.warnings.push(WarningOut {
            span: Some(t.span.clone()),
            ..WarningOut::new(
                EXTRAPOLATES,
                format!(
                    "parse state `{}` adds {:.3} ns on some path, below zero: the model extrapolates (no pipeline gets faster for a parse state)",
                    t.name, t.min_ns
                ),
            )
        });
    }
    let Some([lo, hi]) = model.training.as_ref().and_then(|t| t.latency_ns) else {
        return;
    };
    let Some(s) = &r.summary else {
        return;
    };
    let over = s.over;
    let mut outside = Vec::new();
    if let Some(min) = s.min.as_ref().filter(|m| m.latency_ns < lo) {
        outside.push(format!(
            "the fastest {over} is {:.3} ns, below the fastest measured ({lo:.3} ns)",
            min.latency_ns
        ));
    }
    if let Some(max) = s.max.as_ref().filter(|m| m.latency_ns > hi) {
        outside.push(format!(
            "the slowest {over} is {:.3} ns, above the slowest measured ({hi:.3} ns)",
            max.latency_ns
        ));
    }
    if !outside.is_empty() {
        r.warnings.push(WarningOut::new(
            EXTRAPOLATES,
            format!(
                "{}: model {} was fitted on latencies of {lo:.3}-{hi:.3} ns and extrapolates",
                outside.join("; "),
                model.name
            ),
        ));
    }
}
