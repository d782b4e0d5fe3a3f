//! Parse paths: counted exactly, listed up to a cap, searched with pruning.
//!
//! A node of the search is a parse state together with the fill level of
//! every header stack the parser extracts into with `.next`. Extracting
//! past a stack's size rejects the packet, so stack loops unroll exactly as
//! far as the stack allows. A loop that makes no progress through any stack
//! (it would revisit the same node on one path) cannot be bounded
//! statically: the edge that closes it is cut and a warning says so.
//!
//! Everything here is iterative (no recursion over the graph), so a parser
//! with a chain of ten thousand states does not exhaust the call stack.

use std::collections::HashMap;

mod fit;
mod graph;
mod rejects;
mod unmatched;

pub use fit::{packet_bits, Fit, FitsPacket};
pub use graph::{BudgetExceeded, Extreme, Next, PathAutomaton, PathGraph, Product, ProductNode};
pub use rejects::{RejectExtreme, RejectWhy, Rejects};
pub use unmatched::{explain_unmatched, Unmatched};

use serde::Serialize;

use p4cost_ir::{Origin, Parser, ParserId, ParserOp, Program, Span, StackAccess, StateId, Target};

/// Limits for path listing.
#[derive(Debug, Clone, Copy)]
pub struct PathOptions {
    /// List at most this many paths (counting is never capped).
    pub max_paths: usize,
    /// Unroll `.next` loops over a stack whose size is unknown this many
    /// times.
    pub unknown_stack_limit: u32,
    /// Give up past this many analysis nodes (parse state x header-stack
    /// fill, and their products with a header sequence or baseline flag).
    pub max_analysis_states: usize,
}

/// Default of [`PathOptions::max_analysis_states`]: about 100 MB at worst.
pub const DEFAULT_MAX_ANALYSIS_STATES: usize = 1_000_000;

impl Default for PathOptions {
    fn default() -> Self {
        PathOptions {
            max_paths: 64,
            unknown_stack_limit: 16,
            max_analysis_states: DEFAULT_MAX_ANALYSIS_STATES,
        }
    }
}

/// An exact path count, saturating at `u128::MAX`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct PathCount {
    /// The count (exact unless `saturated`).
    pub value: u128,
    /// True when the count overflowed 128 bits.
    pub saturated: bool,
}

impl PathCount {
    /// An exact count of `value` paths.
    pub const fn exact(value: u128) -> PathCount {
        PathCount {
            value,
            saturated: false,
        }
    }

    /// The saturating sum of two counts.
    pub fn plus(self, other: PathCount) -> PathCount {
        match self.value.checked_add(other.value) {
            Some(v) => PathCount {
                value: v,
                saturated: self.saturated || other.saturated,
            },
            None => PathCount {
                value: u128::MAX,
                saturated: true,
            },
        }
    }
}

impl PathCount {
    /// The difference of two counts (`self >= other`); saturated stays
    /// saturated.
    pub fn minus(self, other: PathCount) -> PathCount {
        PathCount {
            value: self.value.saturating_sub(other.value),
            saturated: self.saturated,
        }
    }
}

impl PathCount {
    /// `self + 1` (a zero-based index as a one-based number).
    pub fn add_one(self) -> PathCount {
        self.plus(PathCount::exact(1))
    }
}

impl std::fmt::Display for PathCount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.saturated {
            write!(f, "more than {}", u128::MAX)
        } else {
            write!(f, "{}", self.value)
        }
    }
}

/// One header extracted on a path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PathExtract {
    /// The instance as written, without stack index (`hdr.mpls`).
    pub header: String,
    /// The stack element, for header stacks.
    pub index: Option<u32>,
    /// Fixed bits extracted.
    pub bits: u64,
    /// Maximum varbit bits on top of `bits`.
    pub varbit_max_bits: u64,
    /// Architecture metadata or a program header.
    pub origin: Origin,
}

impl PathExtract {
    /// Display name: `hdr.mpls[2]` for a stack element, else the name.
    pub fn display_name(&self) -> String {
        match self.index {
            Some(i) => format!("{}[{}]", self.header, i),
            None => self.header.clone(),
        }
    }

    /// True when `want` names this extract: the full name, the last name
    /// component, either with or without the stack index.
    pub fn is_named(&self, want: &str) -> bool {
        let short = self.header.rsplit('.').next().unwrap_or(&self.header);
        if want == self.header || want == short {
            return true;
        }
        match self.index {
            Some(i) => want == format!("{}[{}]", self.header, i) || want == format!("{short}[{i}]"),
            None => false,
        }
    }
}

/// One visit of a parse state on a path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PathState {
    /// The state.
    pub state: StateId,
    /// Its name.
    pub name: String,
    /// Headers extracted, in order.
    pub extracts: Vec<PathExtract>,
    /// Bits extracted into headers (fixed part).
    pub extracted_bits: u64,
    /// Bits skipped with `advance` (consumed, not extracted); `None` when
    /// an advance amount is not constant.
    pub advanced_bits: Option<u64>,
    /// The state's declaration site.
    pub span: Span,
}

impl PathState {
    /// Bytes extracted, rounded up.
    pub fn extracted_bytes(&self) -> u64 {
        self.extracted_bits.div_ceil(8)
    }
}

/// One path from `start` to `accept`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ParsePath {
    /// The states visited, in order.
    pub states: Vec<PathState>,
}

impl ParsePath {
    /// Every header extracted on the path, in order.
    pub fn extracts(&self) -> impl Iterator<Item = &PathExtract> {
        self.states.iter().flat_map(|s| s.extracts.iter())
    }

    /// Program headers (not architecture metadata) extracted, as display
    /// names joined by `" -> "`.
    pub fn header_chain(&self) -> String {
        self.extracts()
            .filter(|e| e.origin == Origin::Program)
            .map(|e| e.display_name())
            .collect::<Vec<_>>()
            .join(" -> ")
    }

    /// Program headers extracted, as display names.
    pub fn header_names(&self) -> Vec<String> {
        self.names_of(Origin::Program)
    }

    /// Headers extracted into the parser's metadata (resubmit, mirror or
    /// bridged data in place of the port metadata), as display names:
    /// not packet headers, but what tells such paths apart.
    pub fn metadata_names(&self) -> Vec<String> {
        self.names_of(Origin::Metadata)
    }

    fn names_of(&self, origin: Origin) -> Vec<String> {
        self.extracts()
            .filter(|e| e.origin == origin)
            .map(|e| e.display_name())
            .collect()
    }

    /// Total bytes extracted on the path.
    pub fn extracted_bytes(&self) -> u64 {
        self.states
            .iter()
            .map(|s| s.extracted_bits)
            .sum::<u64>()
            .div_ceil(8)
    }
}

/// The paths of one parser.
#[derive(Debug, Clone, Serialize)]
pub struct ParsePaths {
    /// The parser.
    pub parser: ParserId,
    /// Exact number of start-to-accept paths.
    pub count: PathCount,
    /// The first paths in depth-first order, at most `max_paths`.
    pub paths: Vec<ParsePath>,
    /// True when `paths` holds fewer paths than `count`.
    pub truncated: bool,
    /// Things the analysis could not bound.
    pub warnings: Vec<String>,
}

/// A search node: a state plus the fill level of every tracked stack.
type Key = (StateId, Vec<u32>);

/// Precomputed facts about a parser's stacks.
pub(crate) struct Graph<'p> {
    pub(crate) parser: &'p Parser,
    /// Stack name -> slot in the fill vector.
    slots: HashMap<String, usize>,
    /// Capacity per slot.
    pub(crate) capacity: Vec<u32>,
}

impl<'p> Graph<'p> {
    fn new(
        program: &Program,
        parser: &'p Parser,
        opts: &PathOptions,
        warnings: &mut Vec<String>,
    ) -> Self {
        let mut slots = HashMap::new();
        let mut capacity = Vec::new();
        for st in &parser.states {
            for op in &st.ops {
                if let ParserOp::Extract {
                    header,
                    instance,
                    stack: Some(StackAccess::Next),
                    ..
                } = op
                {
                    if slots.contains_key(header) {
                        continue;
                    }
                    let size = instance
                        .and_then(|id| program.headers.get(id.index()))
                        .or_else(|| program.header_by_name(header).map(|id| program.header(id)))
                        .and_then(|h| h.stack_size);
                    let cap = match size {
                        Some(n) => n,
                        None => {
                            warnings.push(format!(
                                "the size of header stack `{header}` is unknown; its loop is unrolled {} times",
                                opts.unknown_stack_limit
                            ));
                            opts.unknown_stack_limit
                        }
                    };
                    slots.insert(header.clone(), capacity.len());
                    capacity.push(cap);
                }
            }
        }
        Graph {
            parser,
            slots,
            capacity,
        }
    }

    /// Applies a state's extracts to a fill vector. `None` when an extract
    /// overflows a stack (the packet is rejected).
    fn step(&self, state: StateId, fill: &[u32]) -> Option<Vec<u32>> {
        let mut fill = fill.to_vec();
        for op in &self.parser.state(state).ops {
            if let ParserOp::Extract {
                header,
                stack: Some(StackAccess::Next),
                ..
            } = op
            {
                if let Some(&slot) = self.slots.get(header) {
                    if fill[slot] >= self.capacity[slot] {
                        return None;
                    }
                    fill[slot] += 1;
                }
            }
        }
        Some(fill)
    }

    /// Successors of a node: `None` stands for `accept`.
    fn successors(&self, key: &Key) -> Vec<Option<Key>> {
        let Some(fill) = self.step(key.0, &key.1) else {
            return Vec::new();
        };
        self.parser
            .state(key.0)
            .transition
            .targets()
            .into_iter()
            .filter_map(|t| match t {
                Target::Accept => Some(None),
                Target::Reject => None,
                Target::State(s) => Some(Some((s, fill.clone()))),
            })
            .collect()
    }

    fn start(&self) -> Key {
        (self.parser.start, vec![0; self.capacity.len()])
    }

    /// The visit of `key` as a [`PathState`].
    fn visit_fill(&self, state: StateId, fill: &[u32]) -> PathState {
        let st = self.parser.state(state);
        let mut fill = fill.to_vec();
        let mut extracts = Vec::new();
        let mut extracted_bits = 0;
        let mut advanced = Some(0u64);
        for op in &st.ops {
            match op {
                ParserOp::Extract {
                    header,
                    stack,
                    bits,
                    varbit_max_bits,
                    origin,
                    ..
                } => {
                    let index = match stack {
                        Some(StackAccess::Index(i)) => Some(*i),
                        Some(StackAccess::Next) => self.slots.get(header).map(|&slot| {
                            let i = fill[slot];
                            fill[slot] += 1;
                            i
                        }),
                        None => None,
                    };
                    extracted_bits += bits;
                    extracts.push(PathExtract {
                        header: header.clone(),
                        index,
                        bits: *bits,
                        varbit_max_bits: *varbit_max_bits,
                        origin: *origin,
                    });
                }
                ParserOp::Advance { bits, .. } => {
                    advanced = match (advanced, bits) {
                        (Some(a), Some(b)) => Some(a + b),
                        _ => None,
                    }
                }
                _ => {}
            }
        }
        PathState {
            state,
            name: st.name.clone(),
            extracts,
            extracted_bits,
            advanced_bits: advanced,
            span: st.span,
        }
    }
}

/// Unrolls `parser` into its [`PathGraph`]; loops no stack bounds are cut
/// and reported in `warnings`.
pub fn path_graph<'p>(
    program: &Program,
    parser: &'p Parser,
    opts: &PathOptions,
    warnings: &mut Vec<String>,
) -> Result<PathGraph<'p>, BudgetExceeded> {
    let g = Graph::new(program, parser, opts, warnings);
    let mut cut = Vec::new();
    let pg = PathGraph::build(g, opts.max_analysis_states, &mut cut)?;
    for name in cut {
        warnings.push(format!(
            "state `{name}` is re-entered by a loop that no header stack bounds; paths around that loop are not counted"
        ));
    }
    Ok(pg)
}

/// Every path through `parser`: counted exactly, the first
/// `opts.max_paths` listed.
pub fn parse_paths(
    program: &Program,
    parser: ParserId,
    opts: &PathOptions,
) -> Result<ParsePaths, BudgetExceeded> {
    let mut warnings = Vec::new();
    let pg = path_graph(program, program.parser(parser), opts, &mut warnings)?;
    let count = pg.total();
    let paths: Vec<ParsePath> = pg
        .list(opts.max_paths)
        .iter()
        .map(|nodes| pg.path(nodes))
        .collect();
    let truncated = (paths.len() as u128) < count.value || count.saturated;
    Ok(ParsePaths {
        parser,
        count,
        paths,
        truncated,
        warnings,
    })
}

/// True when `e` is an Ethernet header by its instance name (`ethernet`,
/// `eth`, `ether`, `ethernet_outer`, with any prefix such as `hdr.`).
pub fn is_ethernet(e: &PathExtract) -> bool {
    let short = e.header.rsplit('.').next().unwrap_or(&e.header);
    let short = short.to_ascii_lowercase();
    matches!(
        short.as_str(),
        "ethernet" | "eth" | "ether" | "ethernet_outer" | "outer_ethernet"
    )
}

/// Position in a wanted header sequence, and whether a program header
/// went by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SeqPos {
    /// Wanted headers matched so far.
    pub pos: usize,
    /// True once the path extracted a program header.
    pub seen_first: bool,
}

/// Accepts the paths whose program-header extracts (architecture metadata
/// excluded) are exactly `want`, or, with `skip_ethernet`, an Ethernet
/// header ([`is_ethernet`]) followed by exactly `want`. Names match as in
/// [`PathExtract::is_named`].
pub struct HeaderSeq<'w> {
    /// The wanted headers.
    pub want: &'w [String],
    /// Allow one leading Ethernet header that `want` leaves out.
    pub skip_ethernet: bool,
}

impl PathAutomaton for HeaderSeq<'_> {
    type S = SeqPos;
    fn initial(&self) -> SeqPos {
        SeqPos {
            pos: 0,
            seen_first: false,
        }
    }
    fn step(&self, mut s: SeqPos, st: &PathState) -> Option<SeqPos> {
        for e in st.extracts.iter().filter(|e| e.origin == Origin::Program) {
            let first = !s.seen_first;
            s.seen_first = true;
            if first && self.skip_ethernet {
                if !is_ethernet(e) {
                    return None;
                }
                continue;
            }
            if s.pos < self.want.len() && e.is_named(&self.want[s.pos]) {
                s.pos += 1;
            } else {
                return None;
            }
        }
        Some(s)
    }
    fn accepts(&self, s: SeqPos) -> bool {
        s.pos == self.want.len() && (s.seen_first || self.want.is_empty())
    }
}

/// The paths `--path want` selects: those whose program headers are
/// exactly `want` when there are any, else those with one leading Ethernet
/// header and then exactly `want` (the returned flag says so). `None` when
/// neither exists.
pub fn match_headers(
    pg: &PathGraph<'_>,
    want: &[String],
    limit: usize,
) -> Result<Option<(Product<SeqPos>, bool)>, BudgetExceeded> {
    for skip_ethernet in [false, true] {
        let a = HeaderSeq {
            want,
            skip_ethernet,
        };
        let p = Product::build(pg, &a, limit)?;
        let t = p.total();
        if t.value > 0 || t.saturated {
            return Ok(Some((p, skip_ethernet)));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests;
