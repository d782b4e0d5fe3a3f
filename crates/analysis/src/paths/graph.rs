//! The unrolled parse graph as an explicit DAG, and dynamic programs over it.
//!
//! [`PathGraph`] holds one node per reachable (state, header-stack fill)
//! pair, numbered in post-order so every successor of a node has a smaller
//! id: one ascending sweep is a complete dynamic program. Successors keep
//! the order the listing visits them in, so the position of a path in the
//! full listing is a sum of path counts ([`PathGraph::index_of`]).
//!
//! [`Product`] pairs the graph with a small deterministic automaton over
//! the visited states (the "first program header seen" flag of a baseline
//! rule, the position in a header sequence to match): every base path
//! maps to at most one product path, so counts, extremes and distributions
//! over the product are exact over the base paths it accepts.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::Hash;

use super::{Graph, Key, ParsePath, PathCount, PathState};

mod additive;

/// A successor in the DAG.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// The parser accepts.
    Accept,
    /// Another node.
    Node(u32),
}

#[derive(Debug, Clone, Copy)]
struct NodeData {
    state: p4cost_ir::StateId,
    succ_lo: u32,
    succ_hi: u32,
}

/// The analysis ran past its budget of (state, stack fill) nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BudgetExceeded {
    /// The parser.
    pub parser: String,
    /// The budget.
    pub limit: usize,
}

impl std::fmt::Display for BudgetExceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "parser `{}` unrolls into more than {} analysis states (parse state x header-stack fill); raise --max-analysis-states to analyse it",
            self.parser, self.limit
        )
    }
}

impl std::error::Error for BudgetExceeded {}

/// The unrolled parse graph.
pub struct PathGraph<'p> {
    g: Graph<'p>,
    nodes: Vec<NodeData>,
    /// Stack fill of node `i` at `fills[i*k..(i+1)*k]`, `k` tracked stacks.
    fills: Vec<u32>,
    succ: Vec<Next>,
    counts: Vec<PathCount>,
    start: u32,
}

const ONE: PathCount = PathCount::exact(1);

impl<'p> PathGraph<'p> {
    /// Unrolls the graph, cutting loop-closing edges (their state names go
    /// to `cut`). Fails past `limit` nodes.
    pub(crate) fn build(
        g: Graph<'p>,
        limit: usize,
        cut: &mut Vec<String>,
    ) -> Result<PathGraph<'p>, BudgetExceeded> {
        struct Frame {
            key: Key,
            succ: Vec<Option<Key>>,
            next: usize,
        }
        let k = g.capacity.len();
        let mut ids: HashMap<Key, u32> = HashMap::new();
        let mut on_stack: HashSet<Key> = HashSet::new();
        let mut pg = PathGraph {
            nodes: Vec::new(),
            fills: Vec::new(),
            succ: Vec::new(),
            counts: Vec::new(),
            start: 0,
            g,
        };
        let over = |pg: &PathGraph<'_>| BudgetExceeded {
            parser: pg.g.parser.name.clone(),
            limit,
        };
        let start = pg.g.start();
        on_stack.insert(start.clone());
        let mut stack = vec![Frame {
            succ: pg.g.successors(&start),
            key: start,
            next: 0,
        }];
        while let Some(top) = stack.last_mut() {
            if top.next < top.succ.len() {
                let s = top.succ[top.next].clone();
                top.next += 1;
                if let Some(key) = s {
                    if ids.contains_key(&key) {
                        continue;
                    }
                    if on_stack.contains(&key) {
                        let name = &pg.g.parser.state(key.0).name;
                        if !cut.contains(name) {
                            cut.push(name.clone());
                        }
                        continue;
                    }
                    if ids.len() + on_stack.len() >= limit {
                        return Err(over(&pg));
                    }
                    on_stack.insert(key.clone());
                    let succ = pg.g.successors(&key);
                    stack.push(Frame { key, succ, next: 0 });
                }
            } else if let Some(done) = stack.pop() {
                on_stack.remove(&done.key);
                let lo = pg.succ.len() as u32;
                let mut count = PathCount::default();
                for s in &done.succ {
                    // A successor without an id is an ancestor: a cut loop.
                    let n = match s {
                        None => Next::Accept,
                        Some(key) => match ids.get(key) {
                            Some(&id) => Next::Node(id),
                            None => continue,
                        },
                    };
                    count = count.plus(pg.count_next(n));
                    pg.succ.push(n);
                }
                let id = pg.nodes.len() as u32;
                pg.nodes.push(NodeData {
                    state: done.key.0,
                    succ_lo: lo,
                    succ_hi: pg.succ.len() as u32,
                });
                debug_assert_eq!(done.key.1.len(), k);
                pg.fills.extend_from_slice(&done.key.1);
                pg.counts.push(count);
                pg.start = id;
                ids.insert(done.key, id);
            }
        }
        Ok(pg)
    }

    /// The parser the graph unrolls.
    pub fn parser(&self) -> &'p p4cost_ir::Parser {
        self.g.parser
    }

    /// The parse state node `n` visits.
    pub fn state_id(&self, n: u32) -> p4cost_ir::StateId {
        self.nodes[n as usize].state
    }

    /// True when node `n`'s extracts overflow a header stack (its visit
    /// rejects the packet).
    pub(crate) fn overflows(&self, n: u32) -> bool {
        let k = self.g.capacity.len();
        let i = n as usize;
        self.g
            .step(self.nodes[i].state, &self.fills[i * k..(i + 1) * k])
            .is_none()
    }

    /// The parser's name.
    pub fn parser_name(&self) -> &str {
        &self.g.parser.name
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when the graph has no node (never: `start` is a node).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The start node.
    pub fn start(&self) -> u32 {
        self.start
    }

    /// Successors of `n` in listing order.
    pub fn successors(&self, n: u32) -> &[Next] {
        let d = self.nodes[n as usize];
        &self.succ[d.succ_lo as usize..d.succ_hi as usize]
    }

    /// Paths from `n` to accept.
    pub fn count(&self, n: u32) -> PathCount {
        self.counts[n as usize]
    }

    /// Paths from a successor to accept (1 for accept).
    pub fn count_next(&self, n: Next) -> PathCount {
        match n {
            Next::Accept => ONE,
            Next::Node(i) => self.counts[i as usize],
        }
    }

    /// Every path from start to accept.
    pub fn total(&self) -> PathCount {
        self.count(self.start)
    }

    /// The visit of node `n`.
    pub fn visit(&self, n: u32) -> PathState {
        let k = self.g.capacity.len();
        let i = n as usize;
        self.g
            .visit_fill(self.nodes[i].state, &self.fills[i * k..(i + 1) * k])
    }

    /// The path through `nodes` (start first).
    pub fn path(&self, nodes: &[u32]) -> ParsePath {
        ParsePath {
            states: nodes.iter().map(|&n| self.visit(n)).collect(),
        }
    }

    /// The first `max` paths in listing order, as node sequences.
    pub fn list(&self, max: usize) -> Vec<Vec<u32>> {
        self.list_within(max, usize::MAX)
    }

    /// The first `max` paths in listing order, stopping before the listed
    /// paths would hold more than `max_states` states in all (the first
    /// path is always listed).
    pub fn list_within(&self, max: usize, max_states: usize) -> Vec<Vec<u32>> {
        let mut out = Vec::new();
        let mut states = 0usize;
        if max == 0 || self.total().value == 0 {
            return out;
        }
        let mut trail = vec![self.start];
        let mut next = vec![0usize];
        while let (Some(&n), Some(pos)) = (trail.last(), next.last_mut()) {
            let succ = self.successors(n);
            if *pos < succ.len() {
                let s = succ[*pos];
                *pos += 1;
                match s {
                    Next::Accept => {
                        states = states.saturating_add(trail.len());
                        if states > max_states && !out.is_empty() {
                            break;
                        }
                        out.push(trail.clone());
                        if out.len() >= max {
                            break;
                        }
                    }
                    Next::Node(m) => {
                        if self.count(m).value > 0 {
                            trail.push(m);
                            next.push(0);
                        }
                    }
                }
            } else {
                trail.pop();
                next.pop();
            }
        }
        out
    }

    /// The path at zero-based `index` of the full listing (start first):
    /// the inverse of [`Self::index_of`]. `None` past the last path or
    /// when the count saturates on the way.
    pub fn nth(&self, index: u128) -> Option<Vec<u32>> {
        let total = self.total();
        if total.saturated || index >= total.value {
            return None;
        }
        let mut rest = index;
        let mut out = vec![self.start];
        // Each step goes one node deeper in a DAG of `len` nodes.
        while out.len() <= self.len() {
            let n = *out.last()?;
            let mut next = None;
            for &s in self.successors(n) {
                let c = self.count_next(s);
                if c.saturated {
                    return None;
                }
                if rest < c.value {
                    next = Some(s);
                    break;
                }
                rest -= c.value;
            }
            match next? {
                Next::Accept => return Some(out),
                Next::Node(m) => out.push(m),
            }
        }
        None
    }

    /// Zero-based index in the full listing of the path that goes through
    /// `nodes` (start first) and then accepts. Saturates like counts.
    pub fn index_of(&self, nodes: &[u32]) -> PathCount {
        let mut idx = PathCount::default();
        for (i, &n) in nodes.iter().enumerate() {
            let chosen = nodes.get(i + 1).map_or(Next::Accept, |&m| Next::Node(m));
            for &s in self.successors(n) {
                if s == chosen {
                    break;
                }
                idx = idx.plus(self.count_next(s));
            }
        }
        idx
    }
}

/// A deterministic automaton run along a path: it sees every visited
/// state and may reject the path.
pub trait PathAutomaton {
    /// Its state.
    type S: Copy + Eq + Hash;
    /// State before the first parse state.
    fn initial(&self) -> Self::S;
    /// State after visiting `st`; `None` rejects the path.
    fn step(&self, s: Self::S, st: &PathState) -> Option<Self::S>;
    /// True when a path ending in `s` is accepted.
    fn accepts(&self, s: Self::S) -> bool;
    /// [`Self::step`] at graph node `node`, for automata that need to know
    /// where they are (what the paths from there can still do).
    fn step_at(&self, s: Self::S, node: u32, st: &PathState) -> Option<Self::S> {
        let _ = node;
        self.step(s, st)
    }
}

/// A product node: a graph node and the automaton state on entering it.
#[derive(Debug, Clone, Copy)]
pub struct ProductNode<S> {
    /// The graph node.
    pub node: u32,
    /// The automaton state before visiting it.
    pub before: S,
}

/// The graph paths an automaton accepts, as a DAG of product nodes
/// (post-order, successors first).
pub struct Product<S> {
    /// Nodes, successors first.
    pub nodes: Vec<ProductNode<S>>,
    succ: Vec<Vec<Next>>,
    counts: Vec<PathCount>,
    start: Option<u32>,
}

/// Extremes of an additive weight over the accepted paths.
#[derive(Debug, Clone, PartialEq)]
pub struct Extreme {
    /// The weight summed along the path.
    pub value: f64,
    /// The first path in listing order that reaches it (product nodes).
    pub path: Vec<u32>,
}

impl<S: Copy + Eq + Hash> Product<S> {
    /// Builds the product of `pg` with `a`. Fails past `limit` nodes.
    pub fn build<A: PathAutomaton<S = S>>(
        pg: &PathGraph<'_>,
        a: &A,
        limit: usize,
    ) -> Result<Product<S>, BudgetExceeded> {
        let mut p = Product {
            nodes: Vec::new(),
            succ: Vec::new(),
            counts: Vec::new(),
            start: None,
        };
        let mut ids: HashMap<(u32, S), u32> = HashMap::new();
        struct Frame<S> {
            node: u32,
            before: S,
            after: Option<S>,
            next: usize,
        }
        let s0 = a.initial();
        let root = pg.start();
        let mut stack = vec![Frame {
            node: root,
            before: s0,
            after: a.step_at(s0, root, &pg.visit(root)),
            next: 0,
        }];
        while let Some(top) = stack.last_mut() {
            let succ = pg.successors(top.node);
            let Some(after) = top.after else {
                stack.pop();
                continue;
            };
            if top.next < succ.len() {
                let s = succ[top.next];
                top.next += 1;
                if let Next::Node(m) = s {
                    if pg.count(m).value > 0 && !ids.contains_key(&(m, after)) {
                        if ids.len() + stack.len() >= limit {
                            return Err(BudgetExceeded {
                                parser: pg.g.parser.name.clone(),
                                limit,
                            });
                        }
                        let next_after = a.step_at(after, m, &pg.visit(m));
                        stack.push(Frame {
                            node: m,
                            before: after,
                            after: next_after,
                            next: 0,
                        });
                    }
                }
            } else if let Some(done) = stack.pop() {
                let mut out = Vec::new();
                let mut count = PathCount::default();
                for &s in succ {
                    match s {
                        Next::Accept if a.accepts(after) => {
                            out.push(Next::Accept);
                            count = count.plus(ONE);
                        }
                        Next::Accept => out.push(Next::Node(u32::MAX)),
                        Next::Node(m) => match ids.get(&(m, after)) {
                            Some(&id) => {
                                out.push(Next::Node(id));
                                count = count.plus(p.counts[id as usize]);
                            }
                            None => out.push(Next::Node(u32::MAX)),
                        },
                    }
                }
                let id = p.nodes.len() as u32;
                p.nodes.push(ProductNode {
                    node: done.node,
                    before: done.before,
                });
                p.succ.push(out);
                p.counts.push(count);
                ids.insert((done.node, done.before), id);
                if stack.is_empty() {
                    p.start = Some(id);
                }
            }
        }
        Ok(p)
    }

    /// The successors of product node `i`, aligned with the graph node's
    /// (`Next::Node` are product nodes; `Next::Node(u32::MAX)` marks a
    /// successor the automaton rejects or no path leaves).
    pub fn successors(&self, i: u32) -> &[Next] {
        self.succ.get(i as usize).map_or(&[], |v| v.as_slice())
    }

    /// The start product node, `None` when no path is accepted.
    pub fn start_node(&self) -> Option<u32> {
        self.start
    }

    /// Every accepted path (from the start node).
    pub fn total(&self) -> PathCount {
        self.start
            .map(|s| self.counts[s as usize])
            .unwrap_or_default()
    }

    /// Accepted paths from product node `i`.
    pub fn count(&self, i: u32) -> PathCount {
        self.counts[i as usize]
    }

    /// Accepted paths whose summed weight (`w[i]` per product node) is
    /// above `t`. `None` past `budget` (see [`Product::fold_tables`]; the
    /// values are capped at `t+1`, so a table holds at most `t+2` entries).
    pub fn count_sum_above(&self, w: &[u64], t: u64, budget: usize) -> Option<PathCount> {
        let cap = t.saturating_add(1);
        let table = self.fold_tables(budget, |i, v: Option<u64>| {
            v.unwrap_or(0).saturating_add(w[i as usize]).min(cap)
        })?;
        Some(table.get(&cap).copied().unwrap_or_default())
    }

    /// Per accepted path, a value folded from its accept end back to its
    /// start (`f(i, None)` at the last node, `f(i, Some(v))` before a
    /// successor's value `v`), as value -> number of paths. One table per
    /// product node, built successors first; a table is dropped as soon as
    /// its last predecessor has read it, so a long chain holds few at once.
    /// `None` when the live tables would hold more than `budget` entries
    /// together, or the merges would pass 16 x `budget` in all.
    pub(crate) fn fold_tables<K: Ord + Copy>(
        &self,
        budget: usize,
        f: impl Fn(u32, Option<K>) -> K,
    ) -> Option<BTreeMap<K, PathCount>> {
        let start = self.start?;
        // Live edges into each node: when they are all read, it is dropped.
        let mut readers = vec![0u32; self.nodes.len()];
        for i in 0..self.nodes.len() as u32 {
            for (_, s) in self.live(i) {
                if let Next::Node(m) = s {
                    readers[m as usize] += 1;
                }
            }
        }
        let work_budget = budget.saturating_mul(16);
        let (mut live, mut work) = (0usize, 0usize);
        let mut tables: Vec<BTreeMap<K, PathCount>> = Vec::with_capacity(self.nodes.len());
        for i in 0..self.nodes.len() as u32 {
            let mut t: BTreeMap<K, PathCount> = BTreeMap::new();
            for (_, s) in self.live(i) {
                match s {
                    Next::Accept => {
                        let e = t.entry(f(i, None)).or_default();
                        *e = e.plus(ONE);
                    }
                    Next::Node(m) => {
                        let m = m as usize;
                        work += tables[m].len();
                        if work > work_budget {
                            return None;
                        }
                        for (v, c) in &tables[m] {
                            let e = t.entry(f(i, Some(*v))).or_default();
                            *e = e.plus(*c);
                        }
                        readers[m] -= 1;
                        if readers[m] == 0 && m != start as usize {
                            live -= tables[m].len();
                            tables[m] = BTreeMap::new();
                        }
                    }
                }
            }
            live += t.len();
            if live > budget {
                return None;
            }
            tables.push(t);
        }
        tables.into_iter().nth(start as usize)
    }

    /// True when product node `m` exists and leads to an accepted path.
    fn is_live(&self, m: u32) -> bool {
        m != u32::MAX && self.counts[m as usize].value > 0
    }

    /// Product successors of `i` (dead ones skipped) with their position in
    /// the graph's successor list.
    fn live(&self, i: u32) -> impl Iterator<Item = (usize, Next)> + '_ {
        self.succ[i as usize]
            .iter()
            .copied()
            .enumerate()
            .filter(move |(_, s)| match s {
                Next::Accept => true,
                Next::Node(m) => self.is_live(*m),
            })
    }

    /// The graph nodes of a product path.
    pub fn graph_nodes(&self, path: &[u32]) -> Vec<u32> {
        path.iter().map(|&i| self.nodes[i as usize].node).collect()
    }

    /// The first accepted path in listing order.
    pub fn first(&self) -> Option<Vec<u32>> {
        let mut at = self.start.filter(|s| self.counts[*s as usize].value > 0)?;
        let mut path = vec![at];
        loop {
            match self.live(at).next()?.1 {
                Next::Accept => return Some(path),
                Next::Node(m) => {
                    path.push(m);
                    at = m;
                }
            }
        }
    }

    /// The first `max` accepted paths in listing order (product nodes),
    /// stopping before the listed paths would hold more than `max_states`
    /// states in all (the first path is always listed). Every live
    /// successor leads to an accepted path, so no step is spent on a path
    /// the automaton rejects: the work is that of the paths listed.
    pub fn list_within(&self, max: usize, max_states: usize) -> Vec<Vec<u32>> {
        let mut out = Vec::new();
        let mut states = 0usize;
        let Some(start) = self.start.filter(|s| self.counts[*s as usize].value > 0) else {
            return out;
        };
        if max == 0 {
            return out;
        }
        let mut trail = vec![start];
        let mut next = vec![0usize];
        while let (Some(&n), Some(pos)) = (trail.last(), next.last_mut()) {
            match self.succ[n as usize].get(*pos).copied() {
                Some(s) => {
                    *pos += 1;
                    match s {
                        Next::Accept => {
                            states = states.saturating_add(trail.len());
                            if states > max_states && !out.is_empty() {
                                break;
                            }
                            out.push(trail.clone());
                            if out.len() >= max {
                                break;
                            }
                        }
                        Next::Node(m) if self.is_live(m) => {
                            trail.push(m);
                            next.push(0);
                        }
                        Next::Node(_) => {}
                    }
                }
                None => {
                    trail.pop();
                    next.pop();
                }
            }
        }
        out
    }

    /// The extreme (`max` or min) of the weight summed along accepted
    /// paths, `w[i]` for product node `i`; ties go to the first path in
    /// listing order.
    pub fn extreme(&self, w: &[f64], max: bool) -> Option<Extreme> {
        let start = self.start.filter(|s| self.counts[*s as usize].value > 0)?;
        let better = |a: f64, b: f64| if max { a > b } else { a < b };
        let mut best: Vec<(f64, Next)> = Vec::with_capacity(self.nodes.len());
        for i in 0..self.nodes.len() as u32 {
            let mut pick: Option<(f64, Next)> = None;
            for (_, s) in self.live(i) {
                let v = match s {
                    Next::Accept => 0.0,
                    Next::Node(m) => best[m as usize].0,
                };
                if pick.is_none_or(|(b, _)| better(v, b)) {
                    pick = Some((v, s));
                }
            }
            let (v, s) = pick.unwrap_or((0.0, Next::Accept));
            best.push((v + w[i as usize], s));
        }
        let mut path = vec![start];
        let mut at = start;
        while let Next::Node(m) = best[at as usize].1 {
            path.push(m);
            at = m;
        }
        Some(Extreme {
            value: best[start as usize].0,
            path,
        })
    }

    /// Accepted paths that visit at least one node with `mark[i]`, and the
    /// first of them in listing order.
    pub fn through(&self, mark: &[bool]) -> (PathCount, Option<Vec<u32>>) {
        let Some(start) = self.start else {
            return (PathCount::default(), None);
        };
        // avoid[i]: accepted paths from i that visit no marked node.
        let mut avoid: Vec<PathCount> = Vec::with_capacity(self.nodes.len());
        for i in 0..self.nodes.len() as u32 {
            let mut c = PathCount::default();
            if !mark[i as usize] {
                for (_, s) in self.live(i) {
                    c = c.plus(match s {
                        Next::Accept => ONE,
                        Next::Node(m) => avoid[m as usize],
                    });
                }
            }
            avoid.push(c);
        }
        let total = self.counts[start as usize];
        let hit = total.minus(avoid[start as usize]);
        if hit.value == 0 && !hit.saturated {
            return (hit, None);
        }
        // Walk: before a mark, take the first successor with a marked path;
        // after it, the first live successor.
        let mut path = vec![start];
        let mut at = start;
        let mut marked = mark[start as usize];
        loop {
            let mut chosen = None;
            for (_, s) in self.live(at) {
                let ok = marked
                    || match s {
                        Next::Accept => false,
                        Next::Node(m) => {
                            let m = m as usize;
                            self.counts[m].value > avoid[m].value || self.counts[m].saturated
                        }
                    };
                if ok {
                    chosen = Some(s);
                    break;
                }
            }
            match chosen {
                Some(Next::Node(m)) => {
                    path.push(m);
                    marked |= mark[m as usize];
                    at = m;
                }
                _ => break,
            }
        }
        (hit, Some(path))
    }

    /// The distribution over accepted paths of an additive integer vector
    /// weight (`w[i]` for product node `i`): value -> number of paths.
    /// `None` past `budget` (see [`Product::fold_tables`]; a table handed
    /// down a chain to its only reader is not counted as merged, so a chain
    /// costs linear time). Components saturate at `u64::MAX`.
    pub fn distribution<const D: usize>(
        &self,
        w: &[[u64; D]],
        budget: usize,
    ) -> Option<BTreeMap<[u64; D], PathCount>> {
        let start = self.start?;
        if self.sums_fit_u64(w) {
            let d = self.grouped_sums(start, w, budget, |_, _: Option<()>| ())?;
            return Some(d.into_iter().map(|(((), v), c)| (v, c)).collect());
        }
        self.fold_tables(budget, |i, v: Option<[u64; D]>| {
            let mut out = v.unwrap_or([0; D]);
            for (o, x) in out.iter_mut().zip(w[i as usize]) {
                *o = o.saturating_add(x);
            }
            out
        })
    }

    /// Zero-based index in the full listing of the graph path under the
    /// product path `path`.
    pub fn index_of(&self, pg: &PathGraph<'_>, path: &[u32]) -> PathCount {
        pg.index_of(&self.graph_nodes(path))
    }

    /// The first `k` accepted paths by decreasing weight (`w[i]` per
    /// product node), ties in listing order: best-first search guided by
    /// the exact best completion of each node ([`Self::best_rest`]). Stops
    /// early once the paths found hold more than `max_states` states in
    /// all (the first path is always returned), so the work is bounded by
    /// what is listed.
    ///
    /// Every partial path on the heap has a completion of exactly its
    /// bound, and among equal bounds the heap pops the partial first in
    /// listing order ([`TopSearch`]), so each pop goes one node deeper
    /// along a path that will be listed next: `k` paths of depth `d` cost
    /// at most `k * d` pops and `k * d * b` pushes (`b` successors a node),
    /// however many paths tie.
    pub fn top(&self, w: &[f64], k: usize, max_states: usize) -> Vec<(f64, Vec<u32>)> {
        let mut states = 0usize;
        let mut out = Vec::new();
        let Some(start) = self.start.filter(|s| self.counts[*s as usize].value > 0) else {
            return out;
        };
        if k == 0 {
            return out;
        }
        let keys: Vec<i128> = w.iter().map(|&v| ordered(v)).collect();
        let best = self.best_rest(&keys);
        let mut search = TopSearch::new(start, best[start as usize]);
        while let Some(at) = search.pop() {
            let p = search.arena[at];
            if p.done {
                let nodes = search.nodes(at);
                states = states.saturating_add(nodes.len());
                if states > max_states && !out.is_empty() {
                    break;
                }
                out.push((p.prefix, nodes));
                if out.len() >= k {
                    break;
                }
                continue;
            }
            let prefix = p.prefix + w[p.node as usize];
            let prefix_key = p.prefix_key.saturating_add(keys[p.node as usize]);
            // Listing index of the first path through each successor.
            let mut index = p.index;
            for (slot, s) in self.live(p.node) {
                let (rest, node, done, paths) = match s {
                    Next::Accept => (0, p.node, true, ONE),
                    Next::Node(m) => (best[m as usize], m, false, self.counts[m as usize]),
                };
                search.push(Partial {
                    node,
                    parent: Some(at),
                    prefix,
                    prefix_key,
                    done,
                    bound: prefix_key.saturating_add(rest),
                    index,
                    depth: p.depth + 1,
                    slot: slot as u32,
                });
                index = index.plus(paths);
            }
        }
        out
    }

    /// Per product node, the greatest weight summed from it (itself
    /// included) to accept: one sweep, successors first. In integer keys
    /// ([`ordered`]), so a bound and its best child's are equal exactly,
    /// however the sums associate.
    fn best_rest(&self, w: &[i128]) -> Vec<i128> {
        let mut best: Vec<i128> = Vec::with_capacity(self.nodes.len());
        for i in 0..self.nodes.len() as u32 {
            let b = self
                .live(i)
                .map(|(_, s)| match s {
                    Next::Accept => 0,
                    Next::Node(m) => best[m as usize],
                })
                .max()
                .unwrap_or(0);
            best.push(b.saturating_add(w[i as usize]));
        }
        best
    }
}

/// A partial path of [`Product::top`]'s search, by parent pointer.
#[derive(Debug, Clone, Copy)]
struct Partial {
    /// The product node it ends at (for a `done` one: its last node).
    node: u32,
    parent: Option<usize>,
    /// Weight of the nodes before `node` (of the whole path, for a `done`
    /// one).
    prefix: f64,
    /// The same in integer keys ([`ordered`]), summed node by node.
    prefix_key: i128,
    /// True once it chose `accept`.
    done: bool,
    /// Its best completion's weight, in integer keys ([`ordered`]).
    bound: i128,
    /// Listing index of its first completion: the accepted paths it leads
    /// to are `index..index + count`, so partials on the heap (none a
    /// prefix of another) compare in listing order by it while it does
    /// not saturate.
    index: PathCount,
    /// Nodes from the start (for the comparison that does not saturate).
    depth: u32,
    /// Successor position at the parent (ditto).
    slot: u32,
}

/// The heap of [`Product::top`]: partials by greatest bound, then first
/// in listing order. A binary heap of arena indices with its own
/// comparison, since listing order needs the arena when indexes saturate.
struct TopSearch {
    arena: Vec<Partial>,
    heap: Vec<usize>,
}

impl TopSearch {
    fn new(start: u32, bound: i128) -> TopSearch {
        let root = Partial {
            node: start,
            parent: None,
            prefix: 0.0,
            prefix_key: 0,
            done: false,
            bound,
            index: PathCount::default(),
            depth: 0,
            slot: 0,
        };
        TopSearch {
            arena: vec![root],
            heap: vec![0],
        }
    }

    fn push(&mut self, p: Partial) {
        self.arena.push(p);
        self.heap.push(self.arena.len() - 1);
        let mut i = self.heap.len() - 1;
        while i > 0 {
            let up = (i - 1) / 2;
            if !self.before(self.heap[i], self.heap[up]) {
                break;
            }
            self.heap.swap(i, up);
            i = up;
        }
    }

    fn pop(&mut self) -> Option<usize> {
        let n = self.heap.len();
        if n == 0 {
            return None;
        }
        self.heap.swap(0, n - 1);
        let top = self.heap.pop();
        let mut i = 0;
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut m = i;
            for c in [l, r] {
                if c < self.heap.len() && self.before(self.heap[c], self.heap[m]) {
                    m = c;
                }
            }
            if m == i {
                return top;
            }
            self.heap.swap(i, m);
            i = m;
        }
    }

    /// True when partial `a` comes out before `b`.
    fn before(&self, a: usize, b: usize) -> bool {
        let (pa, pb) = (&self.arena[a], &self.arena[b]);
        if pa.bound != pb.bound {
            return pa.bound > pb.bound;
        }
        if !pa.index.saturated && !pb.index.saturated {
            return pa.index.value < pb.index.value;
        }
        self.listed_first(a, b)
    }

    /// Listing order of two partials neither of which is a prefix of the
    /// other, by their successor choices where their paths part: up to
    /// the depth of the paths, for when indexes saturate.
    fn listed_first(&self, mut a: usize, mut b: usize) -> bool {
        while self.arena[a].depth > self.arena[b].depth {
            a = self.arena[a].parent.unwrap_or(a);
        }
        while self.arena[b].depth > self.arena[a].depth {
            b = self.arena[b].parent.unwrap_or(b);
        }
        while a != b && self.arena[a].parent != self.arena[b].parent {
            match (self.arena[a].parent, self.arena[b].parent) {
                (Some(x), Some(y)) => (a, b) = (x, y),
                _ => break,
            }
        }
        self.arena[a].slot < self.arena[b].slot
    }

    /// The product nodes of the complete partial `at`, start first.
    fn nodes(&self, at: usize) -> Vec<u32> {
        let mut nodes = Vec::with_capacity(self.arena[at].depth as usize);
        let mut cur = self.arena[at].parent;
        while let Some(c) = cur {
            nodes.push(self.arena[c].node);
            cur = self.arena[c].parent;
        }
        nodes.reverse();
        nodes
    }
}

/// A total order key for finite weights.
fn ordered(v: f64) -> i128 {
    // Weights are sums of model coefficients; 1e-9 ns resolution is ample.
    (v * 1e9).round() as i128
}
