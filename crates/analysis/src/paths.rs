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

use std::collections::{HashMap, HashSet};

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
}

impl Default for PathOptions {
    fn default() -> Self {
        PathOptions {
            max_paths: 64,
            unknown_stack_limit: 16,
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
    /// The saturating sum of two counts.
    pub(crate) fn add(self, other: PathCount) -> PathCount {
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
struct Graph<'p> {
    parser: &'p Parser,
    /// Stack name -> slot in the fill vector.
    slots: HashMap<String, usize>,
    /// Capacity per slot.
    capacity: Vec<u32>,
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
    fn visit(&self, key: &Key) -> PathState {
        let st = self.parser.state(key.0);
        let mut fill = key.1.clone();
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
            state: key.0,
            name: st.name.clone(),
            extracts,
            extracted_bits,
            advanced_bits: advanced,
            span: st.span,
        }
    }
}

/// Counts accept paths from every reachable node (iterative post-order).
/// Edges that close a loop on the current path are cut and reported.
fn count_paths(g: &Graph<'_>, warnings: &mut Vec<String>) -> HashMap<Key, PathCount> {
    let mut memo: HashMap<Key, PathCount> = HashMap::new();
    let mut on_stack: HashSet<Key> = HashSet::new();
    let mut cut_loops: Vec<String> = Vec::new();
    struct Frame {
        key: Key,
        succ: Vec<Option<Key>>,
        next: usize,
        acc: PathCount,
    }
    let start = g.start();
    on_stack.insert(start.clone());
    let mut stack = vec![Frame {
        succ: g.successors(&start),
        key: start,
        next: 0,
        acc: PathCount::default(),
    }];
    while let Some(top) = stack.last_mut() {
        if top.next < top.succ.len() {
            let s = top.succ[top.next].clone();
            top.next += 1;
            match s {
                None => {
                    top.acc = top.acc.add(PathCount {
                        value: 1,
                        saturated: false,
                    })
                }
                Some(k) => {
                    if let Some(c) = memo.get(&k) {
                        top.acc = top.acc.add(*c);
                    } else if on_stack.contains(&k) {
                        let name = g.parser.state(k.0).name.clone();
                        if !cut_loops.contains(&name) {
                            cut_loops.push(name);
                        }
                    } else {
                        on_stack.insert(k.clone());
                        let succ = g.successors(&k);
                        stack.push(Frame {
                            key: k,
                            succ,
                            next: 0,
                            acc: PathCount::default(),
                        });
                    }
                }
            }
        } else if let Some(done) = stack.pop() {
            on_stack.remove(&done.key);
            if let Some(parent) = stack.last_mut() {
                parent.acc = parent.acc.add(done.acc);
            }
            memo.insert(done.key, done.acc);
        }
    }
    for name in cut_loops {
        warnings.push(format!(
            "state `{name}` is re-entered by a loop that no header stack bounds; paths around that loop are not counted"
        ));
    }
    memo
}

/// Every path through `parser`: counted exactly, the first
/// `opts.max_paths` listed.
pub fn parse_paths(program: &Program, parser: ParserId, opts: &PathOptions) -> ParsePaths {
    let mut warnings = Vec::new();
    let p = program.parser(parser);
    let g = Graph::new(program, p, opts, &mut warnings);
    let memo = count_paths(&g, &mut warnings);
    let start = g.start();
    let count = memo.get(&start).copied().unwrap_or_default();

    let mut paths = Vec::new();
    if opts.max_paths > 0 && count.value > 0 {
        // Depth-first listing that only enters nodes with a non-zero count.
        let mut trail: Vec<Key> = vec![start.clone()];
        let mut on_trail: HashSet<Key> = HashSet::from([start.clone()]);
        let mut iters: Vec<(Vec<Option<Key>>, usize)> = vec![(g.successors(&start), 0)];
        'walk: while let Some((succ, next)) = iters.last_mut() {
            if *next < succ.len() {
                let s = succ[*next].clone();
                *next += 1;
                match s {
                    None => {
                        paths.push(ParsePath {
                            states: trail.iter().map(|k| g.visit(k)).collect(),
                        });
                        if paths.len() >= opts.max_paths {
                            break 'walk;
                        }
                    }
                    Some(k) => {
                        let viable = memo.get(&k).is_some_and(|c| c.value > 0);
                        if viable && !on_trail.contains(&k) {
                            let succ = g.successors(&k);
                            on_trail.insert(k.clone());
                            trail.push(k);
                            iters.push((succ, 0));
                        }
                    }
                }
            } else {
                iters.pop();
                if let Some(k) = trail.pop() {
                    on_trail.remove(&k);
                }
            }
        }
    }
    let truncated = (paths.len() as u128) < count.value || count.saturated;
    ParsePaths {
        parser,
        count,
        paths,
        truncated,
        warnings,
    }
}

/// The first path whose program-header extracts (architecture metadata
/// excluded) are exactly `want`, either from the first program header or
/// from the second one (so the leading Ethernet header may be left out).
/// Names match as in [`PathExtract::is_named`].
pub fn find_path(
    program: &Program,
    parser: ParserId,
    want: &[String],
    opts: &PathOptions,
) -> Option<ParsePath> {
    let mut warnings = Vec::new();
    let p = program.parser(parser);
    let g = Graph::new(program, p, opts, &mut warnings);

    // Alignment state: position in `want` when the path is matched from its
    // first program header (`full`) or from its second (`skip`, with
    // `seen_first` telling whether the skipped header went by).
    #[derive(Clone, Copy, PartialEq, Eq, Hash)]
    struct Align {
        full: Option<usize>,
        skip: Option<usize>,
        seen_first: bool,
    }
    let advance = |mut a: Align, ps: &PathState| -> Align {
        for e in ps.extracts.iter().filter(|e| e.origin == Origin::Program) {
            a.full = a
                .full
                .and_then(|i| (i < want.len() && e.is_named(&want[i])).then_some(i + 1));
            if !a.seen_first {
                a.seen_first = true;
            } else {
                a.skip = a
                    .skip
                    .and_then(|i| (i < want.len() && e.is_named(&want[i])).then_some(i + 1));
            }
        }
        a
    };
    let done =
        |a: Align| a.full == Some(want.len()) || (a.seen_first && a.skip == Some(want.len()));

    let start = g.start();
    let a0 = advance(
        Align {
            full: Some(0),
            skip: Some(0),
            seen_first: false,
        },
        &g.visit(&start),
    );
    if a0.full.is_none() && a0.skip.is_none() {
        return None;
    }
    let mut failed: HashSet<(Key, Align)> = HashSet::new();
    let mut trail: Vec<(Key, Align)> = vec![(start.clone(), a0)];
    let mut on_trail: HashSet<Key> = HashSet::from([start.clone()]);
    let mut iters: Vec<(Vec<Option<Key>>, usize)> = vec![(g.successors(&start), 0)];
    while let Some((succ, next)) = iters.last_mut() {
        if *next < succ.len() {
            let s = succ[*next].clone();
            *next += 1;
            let Some(&(_, align)) = trail.last() else {
                break;
            };
            match s {
                None => {
                    if done(align) {
                        return Some(ParsePath {
                            states: trail.iter().map(|(k, _)| g.visit(k)).collect(),
                        });
                    }
                }
                Some(k) => {
                    let a = advance(align, &g.visit(&k));
                    let alive = a.full.is_some() || a.skip.is_some();
                    let node = (k.clone(), a);
                    if alive && !failed.contains(&node) && !on_trail.contains(&k) {
                        let succ = g.successors(&k);
                        on_trail.insert(k);
                        trail.push(node);
                        iters.push((succ, 0));
                    }
                }
            }
        } else {
            iters.pop();
            if let Some(node) = trail.pop() {
                on_trail.remove(&node.0);
                failed.insert(node);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests;
