//! The recirculate and resubmit calls along a class's control path. A
//! listed class names only its branch points and tables (the class
//! analysis settles over runs of plain statements, decided tests and
//! action calls); between two of them the calls are those of the way with
//! the most calls (the code between branch points the class decided:
//! usually one way), found by a longest-path pass over the control's
//! graph, which has no cycle. At a node where the class decided (its
//! `decisions`, those the parse path forced included), only the way it
//! took is followed, and at a condition the parse path decides (validity
//! and field facts at the control's start, of items nothing in the
//! control writes) only its branch.

use std::collections::HashMap;

use p4cost_analysis::{Decision, Outcome};
use p4cost_ir::{ControlFlow, NodeId, NodeKind, TableNext};

/// Per node of the longest-path pass: unvisited (`None`), no way to the
/// target (`Some(None)`), or the most calls to it and the way on.
type Best = Option<Option<(usize, Option<NodeId>)>>;

/// Per node, its calls (a table: its dearest action's).
pub type Weights = Vec<usize>;

/// The nodes with calls along the class whose branch points are `keys`,
/// from the control's entry to its end, each once per call.
pub fn sites(
    flow: &ControlFlow,
    w: &Weights,
    keys: &[NodeId],
    decisions: &[Decision],
    decided: &HashMap<NodeId, bool>,
) -> Vec<NodeId> {
    let taken: HashMap<NodeId, &Outcome> = decisions.iter().map(|d| (d.node, &d.outcome)).collect();
    let g = Graph {
        flow,
        w,
        taken,
        decided,
    };
    let mut out = Vec::new();
    let mut from: Vec<Option<NodeId>> = vec![flow.entry];
    for (i, k) in keys.iter().enumerate() {
        // Before the first key: from the entry itself; later: from the
        // previous key's successors.
        let _ = i;
        out.extend(g.longest(&from, Some(*k)));
        out.extend(std::iter::repeat_n(*k, w[k.index()]));
        from = g.ways(*k);
    }
    out.extend(g.longest(&from, None));
    out
}

/// The control's graph with a class's decisions.
struct Graph<'a> {
    flow: &'a ControlFlow,
    w: &'a Weights,
    taken: HashMap<NodeId, &'a Outcome>,
    /// Conditions the parse path decides whatever the control writes.
    decided: &'a HashMap<NodeId, bool>,
}

impl Graph<'_> {
    /// The nodes with calls on the way from one of `starts` (included) to
    /// `target` (excluded; `None`: the end of the control) with the most calls.
    fn longest(&self, starts: &[Option<NodeId>], target: Option<NodeId>) -> Vec<NodeId> {
        let (flow, w) = (self.flow, self.w);
        let n = flow.nodes.len();
        // best[i]: Some((calls to target, next)) once known; None unreachable.
        let mut best: Vec<Best> = vec![None; n];
        let value = |best: &[Best], s: Option<NodeId>| -> Option<usize> {
            match s {
                s if s == target => Some(0),
                None => None,
                Some(s) => best[s.index()].flatten().map(|(v, _)| v),
            }
        };
        for start in starts.iter().flatten() {
            // Iterative post-order from `start`.
            let mut stack = vec![(*start, false)];
            while let Some((id, expanded)) = stack.pop() {
                if id.index() >= n || best[id.index()].is_some() || Some(id) == target {
                    continue;
                }
                let succ = self.ways(id);
                if !expanded {
                    stack.push((id, true));
                    for s in succ.iter().flatten() {
                        if s.index() < n && best[s.index()].is_none() && Some(*s) != target {
                            stack.push((*s, false));
                        }
                    }
                    continue;
                }
                let pick = succ
                    .iter()
                    .filter_map(|s| value(&best, *s).map(|v| (v, *s)))
                    .max_by_key(|(v, _)| *v);
                best[id.index()] = Some(pick.map(|(v, s)| (v + w[id.index()], s)));
            }
        }
        let start = starts
            .iter()
            .filter_map(|s| value(&best, *s).map(|v| (v, *s)))
            .max_by_key(|(v, _)| *v)
            .and_then(|(_, s)| s);
        let mut out = Vec::new();
        let mut at = start.filter(|s| Some(*s) != target);
        let mut steps = 0;
        while let Some(id) = at {
            steps += 1;
            if steps > n {
                break;
            }
            out.extend(std::iter::repeat_n(id, w[id.index()]));
            at = best[id.index()]
                .flatten()
                .and_then(|(_, s)| s)
                .filter(|s| Some(*s) != target);
        }
        out
    }

    /// A node's ways on: the one the class took where it decided, else all;
    /// `exit` leads to the end.
    fn ways(&self, id: NodeId) -> Vec<Option<NodeId>> {
        let kind = &self.flow.node(id).kind;
        match (kind, self.taken.get(&id)) {
            (NodeKind::Exit, _) => vec![None],
            (
                NodeKind::Condition {
                    then_next,
                    else_next,
                    ..
                },
                Some(Outcome::Branch(b)),
            ) => vec![if *b { *then_next } else { *else_next }],
            (
                NodeKind::Table {
                    next: TableNext::HitMiss { hit, miss },
                    ..
                },
                Some(Outcome::Hit(b)),
            ) => vec![if *b { *hit } else { *miss }],
            (
                NodeKind::Table {
                    next: TableNext::ByAction { arms, default },
                    ..
                },
                Some(Outcome::ActionRun {
                    actions,
                    default: d,
                }),
            ) => {
                let mut out: Vec<Option<NodeId>> = arms
                    .iter()
                    .filter(|(a, _)| actions.contains(a))
                    .map(|(_, n)| *n)
                    .collect();
                if *d {
                    out.push(*default);
                }
                out
            }
            (
                NodeKind::Condition {
                    then_next,
                    else_next,
                    ..
                },
                None,
            ) if self.decided.contains_key(&id) => {
                vec![if self.decided[&id] {
                    *then_next
                } else {
                    *else_next
                }]
            }
            _ => self.flow.node(id).successors(),
        }
    }
}
