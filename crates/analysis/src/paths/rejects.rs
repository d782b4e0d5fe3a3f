//! Parse paths that end in reject (issue 9): counted apart from the accepted
//! ones, with the cheapest and the dearest cost up to the reject, by one
//! forward dynamic program over the unrolled graph (never by listing).
//!
//! A visit of a parse state may reject the packet when its transition names
//! `reject`, when its `select` has no case that matches everything (a value
//! no case lists rejects, as P4 says), when it runs `verify`, or when an
//! extract overflows a header stack. Each such (path prefix, state) is one
//! rejected path: the prefix up to and including the state.

use std::collections::HashMap;

use p4cost_ir::{ParserOp, Target, Transition};

use super::graph::{Next, PathAutomaton, PathGraph};
use super::{PathCount, PathState};

/// Why a state may reject.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RejectWhy {
    /// `transition reject` or a select case leading to `reject`.
    Transition,
    /// A `select` without a `default` case: a value no case lists.
    NoMatch,
    /// A `verify(...)` statement.
    Verify,
    /// An extract into a full header stack.
    StackOverflow,
}

impl RejectWhy {
    /// Short text for reports.
    pub fn text(self) -> &'static str {
        match self {
            RejectWhy::Transition => "transition to reject",
            RejectWhy::NoMatch => "no select case matches",
            RejectWhy::Verify => "verify fails",
            RejectWhy::StackOverflow => "header stack overflow",
        }
    }

    /// The JSON key.
    pub fn key(self) -> &'static str {
        match self {
            RejectWhy::Transition => "transition",
            RejectWhy::NoMatch => "no_match",
            RejectWhy::Verify => "verify",
            RejectWhy::StackOverflow => "stack_overflow",
        }
    }
}

/// The cheapest or dearest rejected path.
#[derive(Debug, Clone, PartialEq)]
pub struct RejectExtreme {
    /// Its summed weight, the rejecting state included.
    pub value: f64,
    /// Graph nodes from the start to the rejecting state.
    pub path: Vec<u32>,
    /// Why its last state rejects (the first reason).
    pub why: RejectWhy,
}

/// The rejected paths of a parser.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Rejects {
    /// Rejected paths (path prefix, rejecting state), saturating.
    pub count: PathCount,
    /// Per reason, the rejected paths whose last state may reject for it
    /// (a state with two reasons counts under both).
    pub by_reason: Vec<(RejectWhy, PathCount)>,
    /// The cheapest.
    pub min: Option<RejectExtreme>,
    /// The dearest.
    pub max: Option<RejectExtreme>,
}

/// True when a one-key select of at most 16 bits lists every value of
/// its key (`select(bos) { 0: ..; 1: ..; }`): no packet finds no case.
fn covers_every_value(tr: &Transition) -> bool {
    use crate::classes::atoms::parse_int;
    let Transition::Select { keys, cases } = tr else {
        return true;
    };
    let [key] = keys.as_slice() else {
        return false;
    };
    let Some(w) = key.width_bits.filter(|w| (1..=16).contains(w)) else {
        return false;
    };
    let size = 1usize << w;
    let full = (size - 1) as u128;
    let mut seen = vec![false; size];
    for c in cases {
        let Some(k) = c.keysets.first() else {
            continue;
        };
        let (lo, hi) = match k {
            p4cost_ir::Keyset::Value { value } => match parse_int(value) {
                Some(v) => (v, v),
                None => continue,
            },
            p4cost_ir::Keyset::Mask { value, mask } => match (parse_int(value), parse_int(mask)) {
                (Some(v), Some(m)) if m & full == full => (v, v),
                _ => continue,
            },
            p4cost_ir::Keyset::Range { lo, hi } => match (parse_int(lo), parse_int(hi)) {
                (Some(l), Some(h)) => (l, h),
                _ => continue,
            },
            _ => continue,
        };
        let hi = hi.min(full);
        let mut v = lo;
        while v <= hi {
            seen[v as usize] = true;
            v += 1;
        }
    }
    seen.iter().all(|&x| x)
}

/// The paths into one (node, automaton state): how many, their lightest
/// and heaviest weight, and the row (node, index) each extreme came from.
#[derive(Clone, Copy)]
struct Entry {
    count: PathCount,
    min: f64,
    max: f64,
    min_pred: Option<(u32, usize)>,
    max_pred: Option<(u32, usize)>,
}

impl Entry {
    /// `e` carried on from row `from` into `row`'s entry (made when new).
    fn merge<S: PartialEq>(row: &mut Vec<(S, Entry)>, after: S, e: &Entry, from: (u32, usize)) {
        match row.iter_mut().find(|(x, _)| *x == after) {
            Some((_, f)) => {
                f.count = f.count.plus(e.count);
                if e.min < f.min {
                    f.min = e.min;
                    f.min_pred = Some(from);
                }
                if e.max > f.max {
                    f.max = e.max;
                    f.max_pred = Some(from);
                }
            }
            None => row.push((
                after,
                Entry {
                    count: e.count,
                    min: e.min,
                    max: e.max,
                    min_pred: Some(from),
                    max_pred: Some(from),
                },
            )),
        }
    }
}

/// The cheapest (`[0]`) and dearest (`[1]`) rejecting row so far:
/// (weight, node, index in the node's rows, first reason).
type Best = [Option<(f64, u32, usize, RejectWhy)>; 2];

impl PathGraph<'_> {
    /// Why node `n`'s visit may reject, in [`RejectWhy`] order.
    pub fn reject_reasons(&self, n: u32) -> Vec<RejectWhy> {
        let st = self.parser().state(self.state_id(n));
        let mut out = Vec::new();
        if let Transition::Select { cases, .. } = &st.transition {
            if cases
                .iter()
                .take_while(|c| !c.matches_all())
                .any(|c| c.target == Target::Reject)
                || cases
                    .iter()
                    .find(|c| c.matches_all())
                    .is_some_and(|c| c.target == Target::Reject)
            {
                out.push(RejectWhy::Transition);
            }
            if !cases.iter().any(|c| c.matches_all()) && !covers_every_value(&st.transition) {
                out.push(RejectWhy::NoMatch);
            }
        } else if st.transition.targets().contains(&Target::Reject) {
            out.push(RejectWhy::Transition);
        }
        if st.ops.iter().any(|op| {
            matches!(op, ParserOp::Statement { what, .. } if what == "verify" || what == "call verify")
        }) {
            out.push(RejectWhy::Verify);
        }
        if self.overflows(n) {
            out.push(RejectWhy::StackOverflow);
        }
        out
    }

    /// Counts the rejected paths and finds the cheapest and dearest, the
    /// weight of a visit given by `w(visit, automaton state before it)`;
    /// the automaton `a` (its state carried along, never rejecting here)
    /// lets the weight depend on what came before, as the linear model's
    /// baseline flag does.
    pub fn rejects<A: PathAutomaton>(&self, a: &A, w: &dyn Fn(&PathState, A::S) -> f64) -> Rejects {
        let mut out = Rejects::default();
        if self.is_empty() {
            return out;
        }
        // Per node, (automaton state, entry); nodes are post-ordered, so a
        // descending sweep sees every predecessor of a node before it.
        let mut tables: Vec<Vec<(A::S, Entry)>> = vec![Vec::new(); self.len()];
        let start = self.start();
        tables[start as usize].push((
            a.initial(),
            Entry {
                count: PathCount::exact(1),
                min: 0.0,
                max: 0.0,
                min_pred: None,
                max_pred: None,
            },
        ));
        let mut reasons: HashMap<RejectWhy, PathCount> = HashMap::new();
        let mut best: Best = [None, None];
        for n in (0..=start).rev() {
            if tables[n as usize].is_empty() {
                continue;
            }
            let visit = self.visit(n);
            let why = self.reject_reasons(n);
            let rows = std::mem::take(&mut tables[n as usize]);
            let mut done: Vec<(A::S, Entry)> = Vec::with_capacity(rows.len());
            for (s, mut e) in rows {
                let wn = w(&visit, s);
                e.min += wn;
                e.max += wn;
                let at = done.len();
                if let Some(&first) = why.first() {
                    out.count = out.count.plus(e.count);
                    for r in &why {
                        let c = reasons.entry(*r).or_default();
                        *c = c.plus(e.count);
                    }
                    if best[0].is_none_or(|(b, ..)| e.min < b) {
                        best[0] = Some((e.min, n, at, first));
                    }
                    if best[1].is_none_or(|(b, ..)| e.max > b) {
                        best[1] = Some((e.max, n, at, first));
                    }
                }
                done.push((s, e));
                let Some(after) = a.step(s, &visit) else {
                    continue;
                };
                for &next in self.successors(n) {
                    if let Next::Node(m) = next {
                        Entry::merge(&mut tables[m as usize], after, &e, (n, at));
                    }
                }
            }
            tables[n as usize] = done;
        }
        let mut by_reason: Vec<(RejectWhy, PathCount)> = reasons.into_iter().collect();
        by_reason.sort_by_key(|(r, _)| *r);
        out.by_reason = by_reason;
        out.min = self.witness(&tables, best[0], false);
        out.max = self.witness(&tables, best[1], true);
        out
    }

    /// The path to `best` (its node, row and reason), followed back
    /// through each row's lightest (`max` false) or heaviest predecessor.
    fn witness<S>(
        &self,
        tables: &[Vec<(S, Entry)>],
        best: Option<(f64, u32, usize, RejectWhy)>,
        max: bool,
    ) -> Option<RejectExtreme> {
        let (value, n, at, why) = best?;
        let mut path = vec![n];
        let mut cur = (n, at);
        while let Some((_, e)) = tables.get(cur.0 as usize).and_then(|t| t.get(cur.1)) {
            match if max { e.max_pred } else { e.min_pred } {
                Some(p) if path.len() <= self.len() => {
                    path.push(p.0);
                    cur = p;
                }
                _ => break,
            }
        }
        path.reverse();
        Some(RejectExtreme { value, path, why })
    }
}
