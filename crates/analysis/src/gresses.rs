//! The control a packet class walks through a whole pipeline: the ingress
//! control, then the egress control (issue 9).
//!
//! A packet that leaves the ingress control, at its end or by `exit`, goes
//! on to egress (a drop decided at run time, `mark_to_drop` or
//! `drop_ctl`, is not known statically, so every packet is followed into
//! egress). [`join_egress`] builds one [`Control`] whose flow is the
//! ingress flow with every way out of it leading to the egress flow, so
//! the class analysis ([`crate::classes`]) walks both with one validity
//! state, counts (ingress path x egress path) per parse path, and lists and
//! filters classes by the tables of both.
//!
//! What the egress control sees of the headers:
//! - **No egress parser** (v1model): the headers as ingress left them.
//! - **An egress parser** (TNA, PSA): the egress parser parses what the
//!   ingress deparser emitted. A header the egress control tests is
//!   *invalid* at the start of egress when the egress parser never
//!   extracts it; *as ingress left it* when the egress parser extracts it
//!   and the ingress deparser emits it (the egress parser recovers what was
//!   emitted, as far as it parses); *unknown* when the egress parser
//!   extracts it and the ingress deparser does not emit it (the egress
//!   parser may find it in the payload). This is one node, the *egress
//!   parser node*, between the two flows. The egress parser's own selects
//!   are not evaluated: its path is not a dimension of a class.
//!
//! Depends on `p4cost-ir` only.

use std::collections::HashSet;

use std::borrow::Cow;

use p4cost_ir::{
    Control, ControlFlow, ControlId, ControlRole, Node, NodeId, NodeKind, Parser, ParserOp,
    Pipeline, Program, Span, ValiditySet,
};

/// What an ingress `exit` becomes in a joined control: a statement that
/// leads on to egress. The class walk keeps it as a step of its own (it is
/// never jumped over as a plain statement), so a branch to `exit` stays a
/// different way from falling through to egress.
pub const EXIT_TO_EGRESS: &str = "exit (ingress ends; the packet goes on to egress)";

/// What [`join_egress`] joined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EgressJoin {
    /// The egress control.
    pub control: ControlId,
    /// The egress parser's name, when the pipeline has one.
    pub parser: Option<String>,
    /// Headers the egress control tests that are invalid when egress starts
    /// (the egress parser never extracts them).
    pub invalid: Vec<String>,
    /// Headers the egress control tests whose validity is unknown when
    /// egress starts (the egress parser extracts them and the ingress
    /// deparser does not emit them).
    pub unknown: Vec<String>,
    /// Nodes of the joined flow that come from the ingress flow (ids below
    /// this); the egress parser node, if any, and the egress nodes follow.
    pub ingress_nodes: usize,
}

/// The ingress control of `pipeline` followed by its egress control, as one
/// control (named `<ingress>+<egress>`), or `None` when the pipeline lacks
/// either or the egress control applies nothing (an empty body adds no
/// class). Linear in the two flows.
pub fn join_egress(program: &Program, pipeline: &Pipeline) -> Option<(Control, EgressJoin)> {
    let ig_id = pipeline.ingress?;
    let eg_id = pipeline.egress?;
    let ig = program.controls.get(ig_id.index())?;
    let eg = program.controls.get(eg_id.index())?;
    let n_i = ig.flow.nodes.len();
    let n_e = eg.flow.nodes.len();
    let eg_entry_local = eg.flow.entry.filter(|e| e.index() < n_e)?;
    let egress_parser = pipeline
        .egress_parser
        .and_then(|p| program.parsers.get(p.index()));
    let has_parser_node = egress_parser.is_some();
    let eg_base = n_i + usize::from(has_parser_node);
    let shift = |id: NodeId| NodeId(id.0.saturating_add(eg_base as u32));
    let eg_entry = shift(eg_entry_local);
    // Where every way out of ingress leads.
    let join_to = if has_parser_node {
        NodeId(n_i as u32)
    } else {
        eg_entry
    };
    let out_of_ingress = |s: Option<NodeId>| match s {
        Some(id) if id.index() < n_i => Some(id),
        _ => Some(join_to),
    };
    let in_egress = |s: Option<NodeId>| s.filter(|id| id.index() < n_e).map(shift);

    let mut nodes: Vec<Node> = Vec::with_capacity(eg_base + n_e);
    for n in &ig.flow.nodes {
        nodes.push(match &n.kind {
            NodeKind::Exit => plain_statement(
                EXIT_TO_EGRESS.into(),
                Vec::new(),
                Vec::new(),
                join_to,
                n.span,
            ),
            _ => remap(n, &out_of_ingress),
        });
    }
    let mut join = EgressJoin {
        control: eg_id,
        parser: egress_parser.map(|p| p.name.clone()),
        invalid: Vec::new(),
        unknown: Vec::new(),
        ingress_nodes: n_i,
    };
    if let Some(parser) = egress_parser {
        (join.invalid, join.unknown) = egress_validity(program, pipeline, parser, &eg.flow);
        nodes.push(egress_parser_node(&join, parser, eg_entry));
    }
    for n in &eg.flow.nodes {
        nodes.push(remap(n, &in_egress));
    }
    let control = Control {
        name: format!("{}+{}", ig.name, eg.name),
        role: ControlRole::Other,
        gress: ig.gress,
        flow: ControlFlow {
            nodes,
            entry: ig.flow.entry.filter(|e| e.index() < n_i).or(Some(join_to)),
        },
        span: ig.span,
    };
    Some((control, join))
}

/// The node that stands for the egress `parser` between the two flows:
/// it leaves the headers `join` finds invalid invalid and writes the
/// validity of those it finds unknown, then leads to `eg_entry`.
fn egress_parser_node(join: &EgressJoin, parser: &Parser, eg_entry: NodeId) -> Node {
    let writes = join.unknown.iter().map(|h| format!("{h}.$valid")).collect();
    let validity = join
        .invalid
        .iter()
        .map(|h| ValiditySet {
            header: h.clone(),
            valid: false,
        })
        .collect();
    let what = format!("egress parser {}", parser.name).into();
    plain_statement(what, writes, validity, eg_entry, parser.span)
}

/// A statement node `what` that reads nothing and calls no extern,
/// writing `writes` and setting `validity`, followed by `next`.
fn plain_statement(
    what: Cow<'static, str>,
    writes: Vec<String>,
    validity: Vec<ValiditySet>,
    next: NodeId,
    span: Span,
) -> Node {
    Node {
        kind: NodeKind::Statement {
            what,
            reads: Box::new([]),
            writes: writes.into(),
            externs: Box::new([]),
            validity: validity.into(),
            flags: Default::default(),
            next: Some(next),
        },
        span,
    }
}

/// The headers the egress control (`flow`) tests for validity that are
/// invalid when egress starts (the egress `parser` does not extract them)
/// and those whose validity is unknown then (extracted, but the ingress
/// deparser does not emit them).
fn egress_validity(
    program: &Program,
    pipeline: &Pipeline,
    parser: &Parser,
    flow: &ControlFlow,
) -> (Vec<String>, Vec<String>) {
    let extracted = extracted_headers(parser);
    let emitted = pipeline
        .ingress_deparser
        .and_then(|d| program.controls.get(d.index()))
        .and_then(|d| program.deparsers.iter().find(|x| x.name == d.name))
        .map(|d| {
            d.order
                .iter()
                .map(|h| base_of(h).to_string())
                .collect::<HashSet<_>>()
        });
    let (mut invalid, mut unknown) = (Vec::new(), Vec::new());
    for h in crate::classes::validity_tests(flow) {
        let base = base_of(h);
        if !extracted.contains(base) {
            invalid.push(h.to_string());
        } else if emitted.as_ref().is_some_and(|e| !e.contains(base)) {
            unknown.push(h.to_string());
        }
    }
    (invalid, unknown)
}

/// `n` with every successor mapped by `f`.
fn remap(n: &Node, f: &dyn Fn(Option<NodeId>) -> Option<NodeId>) -> Node {
    Node {
        kind: n.kind.map_ids(&f, &|t| t, &|a| a),
        span: n.span,
    }
}

/// A header instance without its stack index (`hdr.mpls[2]` -> `hdr.mpls`).
fn base_of(h: &str) -> &str {
    match h.find('[') {
        Some(i) => &h[..i],
        None => h,
    }
}

/// The headers `parser` extracts anywhere (stacks by their name).
fn extracted_headers(parser: &p4cost_ir::Parser) -> HashSet<String> {
    let mut out = HashSet::new();
    for s in &parser.states {
        for op in &s.ops {
            if let ParserOp::Extract { header, .. } = op {
                out.insert(base_of(header).to_string());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
