//! `p4cost throughput --model nfp4000`: per packet class, its pipeline
//! passes (1 + the recirculate and resubmit calls on its control path,
//! ingress and egress) and the NFP-4000's loss-free throughput and the
//! received rate past it for that many passes
//! ([`p4cost_model::nfp::Nfp::throughput`]; docs/models.md, NFP-4000
//! recirculation).
//!
//! Recirculate and resubmit calls are the IR's extern calls of use
//! [`ExternUse::Resubmit`] (v1model's `recirculate*` and `resubmit*`,
//! BMv2's `recirculate` and `resubmit` primitives, the `Resubmit` extern),
//! in a statement, a directly called action, or an action of an applied
//! table (its dearest action: the class does not say which runs).
//!
//! One computation, two renderings: `throughput` renders the reports
//! `predict --model nfp4000` (or `bmv2-coarse`) makes
//! ([`pass_reports`]); the passes and register operations of a class are
//! counted by [`PassCounter`] in the predict path
//! (`predict/passes.rs`).

pub mod coarse;
mod registers;
mod route;

use std::collections::HashMap;

use p4cost_analysis::{path_signature, TestedHeaders};
use p4cost_ir::{ActionId, ControlFlow, ControlId, ExternUse, NodeId, NodeKind, Program};
use p4cost_model::nfp::Throughput;
use serde::Serialize;

use crate::error::Error;
use crate::options::PredictOptions;

/// One class.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct RecircClass {
    /// Its id (`P.C`, as `predict` numbers it).
    pub class: String,
    /// Headers of its parse path.
    pub headers: Vec<String>,
    /// Where it recirculates or resubmits (`action A`, `table T: action
    /// A`, `statement at file:line`).
    pub sites: Vec<String>,
    /// Passes and throughput.
    #[serde(flatten)]
    pub throughput: Throughput,
}

/// One pipeline.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct RecircPipeline {
    /// Its name, when the program names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pipeline: Option<String>,
    /// The listed classes (`--max-paths` paths, `--max-classes` each).
    pub classes: Vec<RecircClass>,
    /// True when every class of every parse path is listed.
    pub complete: bool,
    /// The listed class with the most passes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub most_passes: Option<RecircClass>,
}

/// What `throughput` reports.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct RecircReport {
    /// Version of this JSON shape.
    pub schema_version: u32,
    /// The program.
    pub program: String,
    /// The model's name.
    pub model: String,
    /// Its title.
    pub title: String,
    /// Its paper.
    pub citation: String,
    /// Section of docs/models.md.
    pub spec: String,
    /// Frame size, bytes.
    pub packet_size_bytes: u32,
    /// Line rate, bit/s.
    pub line_rate_bps: f64,
    /// Per pipeline.
    pub pipelines: Vec<RecircPipeline>,
    /// The model's notes.
    pub notes: Vec<String>,
}

/// What `throughput` reports, by model: `nfp4000` or `bmv2-coarse`
/// (its `precision` is `coarse`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum ThroughputReport {
    /// The NFP-4000's rates.
    Nfp(RecircReport),
    /// The coarse BMv2 figures.
    Bmv2Coarse(coarse::CoarseReport),
}

/// The model's report for `o` at `packet_size` bytes (`None`: the size
/// the model was measured at, as `predict` defaults it): predict's reports
/// with `--model nfp4000` ([`pass_reports`]), each class's figures as
/// `predict` gives them.
pub fn throughput(o: &PredictOptions, packet_size: Option<u32>) -> Result<RecircReport, Error> {
    let model = p4cost_model::nfp::nfp4000().map_err(|e| Error::input(e.to_string()))?;
    let packet_size = packet_size.unwrap_or(model.measured.packet_size_bytes);
    let reports = pass_reports(o, &model.name, packet_size)?;
    let pipelines = reports
        .iter()
        .map(|r| {
            let classes: Vec<RecircClass> = pass_classes(r)
                .filter_map(|(c, headers, k)| {
                    Some(RecircClass {
                        class: c.id.clone(),
                        headers: headers.to_vec(),
                        sites: k.sites.clone(),
                        throughput: k.throughput?,
                    })
                })
                .collect();
            let most_passes = classes.iter().max_by_key(|c| c.throughput.passes).cloned();
            RecircPipeline {
                pipeline: r.pipeline.as_ref().map(|p| p.name.clone()),
                classes,
                complete: complete(r),
                most_passes,
            }
        })
        .collect();
    Ok(RecircReport {
        schema_version: 1,
        program: crate::read::shown(&o.file),
        model: model.name.clone(),
        title: model.title.clone(),
        citation: model.source.citation.clone(),
        spec: model.source.spec.clone(),
        packet_size_bytes: packet_size,
        line_rate_bps: model.line_rate_bps,
        pipelines,
        notes: model.notes.clone(),
    })
}

/// `predict`'s reports of `o` with the pass model `model` at `size`
/// bytes: the one computation `throughput` renders.
pub(crate) fn pass_reports(
    o: &PredictOptions,
    model: &str,
    size: u32,
) -> Result<Vec<crate::report::Report>, Error> {
    check_size(size)?;
    let mut q = o.clone();
    q.target.model = Some(model.to_string());
    q.target.packet_size = Some(size);
    crate::predict::reports(&q)
}

/// Every listed class of a report with its path's headers and its pass
/// figures, in listing order.
pub(crate) fn pass_classes(
    r: &crate::report::Report,
) -> impl Iterator<
    Item = (
        &crate::path_classes::PathClassOut,
        &[String],
        &crate::pass_out::ClassPassOut,
    ),
> {
    r.paths.iter().flat_map(|p| {
        p.classes
            .iter()
            .flat_map(|pc| pc.classes.iter())
            .filter_map(|c| Some((c, p.headers.as_slice(), c.recirc.as_ref()?)))
    })
}

/// True when every class of every parse path of `r` is listed.
pub(crate) fn complete(r: &crate::report::Report) -> bool {
    !r.path_count_saturated
        && r.paths_listed as u128 == r.path_count
        && r.paths
            .iter()
            .all(|p| p.classes.as_ref().is_some_and(|c| !c.truncated))
}

/// Refuses a packet size below the smallest Ethernet frame.
pub(crate) fn check_size(packet_size: u32) -> Result<(), Error> {
    if packet_size < 64 {
        return Err(Error::input(format!(
            "--packet-size {packet_size}: an Ethernet frame is at least 64 B"
        )));
    }
    Ok(())
}

/// Register extern calls on a class's control path (the route with the
/// most of them between its branch points; a table: its dearest action's).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct RegisterOps {
    /// `read` calls.
    pub reads: u32,
    /// `write` calls.
    pub writes: u32,
    /// Other stateful calls (`execute` of a `RegisterAction`: a read and a
    /// write in one).
    pub other: u32,
}

/// A class's passes, where they come from and its register operations.
pub(crate) struct Counted {
    /// Where it recirculates or resubmits, one entry per call.
    pub sites: Vec<String>,
    /// 1 + the recirculate and resubmit calls.
    pub passes: u32,
    /// Register operations on its control path.
    pub registers: RegisterOps,
}

/// What counts the passes and register operations of the classes of one
/// control (`throughput` and `predict` count with it alike).
pub(crate) struct PassCounter<'p> {
    program: &'p Program,
    flow: &'p ControlFlow,
    weights: route::Weights,
    reg_weights: route::Weights,
    tested: TestedHeaders,
    written: u64,
}

impl<'p> PassCounter<'p> {
    /// The counter of `control` of `program`.
    pub fn new(program: &'p Program, control: ControlId) -> PassCounter<'p> {
        let flow = &program.control(control).flow;
        let weights = flow
            .nodes
            .iter()
            .map(|n| node_calls(program, &n.kind).0)
            .collect();
        let reg_weights = flow
            .nodes
            .iter()
            .map(|n| registers::node_ops(program, &n.kind).total())
            .collect();
        let tested = TestedHeaders::of_program(program, flow);
        let written = flow
            .nodes
            .iter()
            .flat_map(|n| writes(program, &n.kind))
            .fold(0u64, |m, f| m | tested.mask_of_write(f));
        PassCounter {
            program,
            flow,
            weights,
            reg_weights,
            tested,
            written,
        }
    }

    /// The conditions the parse path `path` of `pg` decides.
    pub fn decided(
        &self,
        pg: &p4cost_analysis::PathGraph<'_>,
        path: &[u32],
    ) -> HashMap<NodeId, bool> {
        let sig = path_signature(pg, &self.tested, path);
        decided_here(&self.tested, self.written, self.flow, sig)
    }

    /// The most passes any class of the control can take: 1 + the calls
    /// along the way of most calls through the whole control, no
    /// decision fixed (a bound for the classes a listing leaves out).
    pub fn most_on_any_way(&self) -> u32 {
        let calls = route::sites(self.flow, &self.weights, &[], &[], &HashMap::new()).len();
        1 + u32::try_from(calls).unwrap_or(u32::MAX - 1)
    }

    /// The passes and register operations of class `c` of a parse path
    /// deciding `decided`.
    pub fn count(
        &self,
        c: &p4cost_analysis::ListedClass,
        decided: &HashMap<NodeId, bool>,
    ) -> Counted {
        let (flow, nodes) = (self.flow, &c.control_path.nodes);
        let sites: Vec<String> = route::sites(flow, &self.weights, nodes, &c.decisions, decided)
            .into_iter()
            .map(|n| site_name(self.program, &flow.node(n).kind, flow.node(n).span))
            .collect();
        let passes = 1 + u32::try_from(sites.len()).unwrap_or(u32::MAX - 1);
        let reg_nodes = route::sites(flow, &self.reg_weights, nodes, &c.decisions, decided);
        Counted {
            sites,
            passes,
            registers: registers::along(self.program, flow, &reg_nodes),
        }
    }
}

/// The recirculate and resubmit calls a node makes, and the action that
/// makes them (a table: its dearest action).
fn node_calls(program: &Program, kind: &NodeKind) -> (usize, Option<ActionId>) {
    match kind {
        NodeKind::Table { table, .. } => program
            .table(*table)
            .actions
            .iter()
            .map(|a| (calls(program, *a), Some(*a)))
            .max_by_key(|(n, _)| *n)
            .unwrap_or((0, None)),
        NodeKind::Action { action, .. } => (calls(program, *action), Some(*action)),
        NodeKind::Statement { externs, .. } => (
            externs
                .iter()
                .filter(|e| e.uses == ExternUse::Resubmit)
                .count(),
            None,
        ),
        _ => (0, None),
    }
}

/// How a report names a node that recirculates or resubmits.
fn site_name(program: &Program, kind: &NodeKind, span: p4cost_ir::Span) -> String {
    let at = format!("{}:{}", program.file_path(span.file), span.line);
    match (kind, node_calls(program, kind).1) {
        (NodeKind::Table { table, .. }, Some(a)) => format!(
            "table {}: action {} ({at})",
            program.table(*table).name,
            program.action(a).name
        ),
        (_, Some(a)) => format!("action {} ({at})", program.action(a).name),
        _ => format!("statement ({at})"),
    }
}

/// The fields a node may write (a table: every action's).
fn writes<'p>(program: &'p Program, kind: &'p NodeKind) -> Vec<&'p str> {
    let of = |a: ActionId| program.action(a).writes.iter().map(String::as_str);
    match kind {
        NodeKind::Table { table, .. } => program
            .table(*table)
            .actions
            .iter()
            .flat_map(|a| of(*a))
            .collect(),
        NodeKind::Action { action, .. } => of(*action).collect(),
        NodeKind::Statement { writes, .. } => writes.iter().map(String::as_str).collect(),
        _ => Vec::new(),
    }
}

/// The conditions a parse path of signature `sig` decides, holding only
/// items (`written`) nothing in the control may change.
fn decided_here(
    tested: &TestedHeaders,
    written: u64,
    flow: &ControlFlow,
    sig: u64,
) -> HashMap<NodeId, bool> {
    let (valid, unknown) = tested.initial(sig);
    let (valid, unknown) = (valid & !written, unknown | written);
    flow.nodes
        .iter()
        .enumerate()
        .filter_map(|(i, n)| match &n.kind {
            NodeKind::Condition { cond, .. } => tested
                .eval(cond, valid, unknown)
                .map(|b| (NodeId(i as u32), b)),
            _ => None,
        })
        .collect()
}

/// Recirculate and resubmit calls in action `a`.
fn calls(program: &Program, a: ActionId) -> usize {
    program
        .action(a)
        .externs
        .iter()
        .filter(|e| e.uses == ExternUse::Resubmit)
        .count()
}
