//! Small constructors for the hand-made programs of this crate's tests.

use p4cost_ir::{
    FileId, Keyset, Origin, ParserOp, SelectCase, Span, StackAccess, StateId, Target, Transition,
};

use crate::{path_graph, PathAutomaton, PathGraph, PathOptions, PathState};

/// The site every hand-made node has.
pub fn sp() -> Span {
    Span::file_start(FileId(0))
}

/// `transition <state t>;`
pub fn go(t: u32) -> Transition {
    Transition::Direct {
        target: Target::State(StateId(t)),
    }
}

/// `transition accept;`
pub fn accept() -> Transition {
    Transition::Direct {
        target: Target::Accept,
    }
}

/// A select with one case per target (values 0, 1, ...).
pub fn sel(targets: &[Target]) -> Transition {
    Transition::Select {
        keys: vec![],
        cases: targets
            .iter()
            .enumerate()
            .map(|(i, t)| SelectCase {
                keysets: vec![Keyset::Value {
                    value: i.to_string(),
                }],
                target: *t,
                span: sp(),
            })
            .collect(),
    }
}

/// `pkt.extract(header)` of `bits` bits (`header.next` with `next`).
pub fn extract(header: &str, bits: u64, next: bool) -> ParserOp {
    ParserOp::Extract {
        header: header.to_string(),
        instance: None,
        stack: next.then_some(StackAccess::Next),
        bits,
        varbit_max_bits: 0,
        origin: Origin::Program,
        span: sp(),
    }
}

/// Accepts every path: a product that is the graph itself.
pub struct Everything;

impl PathAutomaton for Everything {
    type S = ();
    fn initial(&self) {}
    fn step(&self, _: (), _: &PathState) -> Option<()> {
        Some(())
    }
    fn accepts(&self, _: ()) -> bool {
        true
    }
}

/// `src` through the real front end (a P4 program in memory).
pub fn lower_source(src: &str) -> p4cost_ir::Program {
    p4cost_front::load_source("t.p4", src, &p4cost_front::Options::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .program
}

/// The parse graph of `p`'s ingress parser.
pub fn ingress_graph(p: &p4cost_ir::Program) -> PathGraph<'_> {
    let parser = p.parser(p.ingress_parser().expect("an ingress parser"));
    let mut w = Vec::new();
    path_graph(p, parser, &PathOptions::default(), &mut w).expect("a parse graph")
}
