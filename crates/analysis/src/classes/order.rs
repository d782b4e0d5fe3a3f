//! The canonical order of a control node's ways on, so a class's id (its
//! control path's place among the control paths of its parse path) is the
//! same whichever reader built the control (issue 24).
//!
//! Readers agree on what a fork tests and on the names of its ways, not on
//! the order they list them in: p4c turns `if (!c) A else B` into
//! `if (c) B else A`, and lists a `switch` on `action_run`'s arms in the
//! table's action order where a source gives its cases' order. So the ways
//! are ordered by what both keep:
//!
//! - an `if`: the way taken when the condition *without* its leading
//!   negations holds comes first (`!c`, `a != b`, `a >= b` and `a > b`
//!   count as negations of `c`, `a == b`, `a < b` and `a <= b`; `c ==
//!   false` and `c != true`, which p4c writes `!c`, as negations of `c`);
//! - a table with hit and miss successors: hit, then miss (as given);
//! - an `action_run` switch: its arms by their actions' names (the last
//!   component, as [`super::Outcome::arm_text`] names them), case-blind
//!   first, the way for actions without a case last.

use std::collections::HashMap;

use p4cost_ir::{CmpOp, Cond, CondNode, ControlFlow, NodeId, NodeKind, Program, TableNext};

/// Per node, its successors in canonical order, or `None` when that is the
/// order [`p4cost_ir::Node::successors`] gives (most nodes: no allocation).
pub(crate) type Orders = Vec<Option<Box<[Option<NodeId>]>>>;

/// The canonical successor order of every node of `flow`. Linear in the
/// size of the flow and its `action_run` arms.
pub(crate) fn canonical_orders(program: &Program, flow: &ControlFlow) -> Orders {
    flow.nodes
        .iter()
        .map(|node| match &node.kind {
            NodeKind::Condition {
                cond,
                then_next,
                else_next,
                ..
            } if negated(cond) => Some(vec![*else_next, *then_next].into_boxed_slice()),
            NodeKind::Table {
                next: TableNext::ByAction { arms, default },
                ..
            } => by_arm_names(program, arms, *default),
            _ => None,
        })
        .collect()
}

/// True when `cond`, with its leading negations taken off, is the negation
/// of what it tests: an odd number of `!` (a `!=`, `>=` or `>` comparison
/// at the bottom counting as one more; one with a boolean constant as one
/// when it is `== false` or `!= true`).
pub(crate) fn negated(cond: &Cond) -> bool {
    let mut flip = false;
    let mut at = cond.root();
    // Each step goes to an earlier node: at most `nodes.len()` steps.
    while let Some(i) = at {
        match cond.nodes.get(i as usize) {
            Some(CondNode::Not { arg }) if *arg < i => {
                flip = !flip;
                at = Some(*arg);
            }
            Some(CondNode::Cmp { cmp, lhs, rhs }) => {
                let constant = |at: u32| match cond.nodes.get(at as usize) {
                    Some(CondNode::Bool { value }) => Some(*value),
                    _ => None,
                };
                let negative = match constant(*lhs).or(constant(*rhs)) {
                    // `x == false` is `!x`, `x != true` too.
                    Some(value) => (*cmp == CmpOp::Ne) == value,
                    None => matches!(cmp, CmpOp::Ne | CmpOp::Ge | CmpOp::Gt),
                };
                return flip != negative;
            }
            _ => return flip,
        }
    }
    flip
}

/// An arm's sort key: its action's name folded to lower case, then as is.
type ArmKey<'a> = (String, &'a str);

/// The distinct successors of an `action_run` switch, ordered by the least
/// name of an action whose arm leads there (the default way after every
/// named one); `None` when that is the order given already.
fn by_arm_names(
    program: &Program,
    arms: &[(p4cost_ir::ActionId, Option<NodeId>)],
    default: Option<NodeId>,
) -> Option<Box<[Option<NodeId>]>> {
    // (successor, its least arm name; `None` for the default only).
    let mut ways: Vec<(Option<NodeId>, Option<ArmKey<'_>>)> = Vec::new();
    let mut at: HashMap<Option<NodeId>, usize> = HashMap::new();
    for (action, to) in arms {
        let name = program
            .actions
            .get(action.index())
            .map_or("", |a| a.name.rsplit('.').next().unwrap_or(a.name.as_str()));
        let key = (name.to_ascii_lowercase(), name);
        match at.get(to) {
            Some(&i) => {
                let k = &mut ways[i].1;
                if k.as_ref().is_none_or(|k| key < *k) {
                    *k = Some(key);
                }
            }
            None => {
                at.insert(*to, ways.len());
                ways.push((*to, Some(key)));
            }
        }
    }
    if !at.contains_key(&default) {
        ways.push((default, None));
    }
    let given: Vec<Option<NodeId>> = ways.iter().map(|(n, _)| *n).collect();
    // `None` (the default) sorts first as an `Option`: put it last.
    ways.sort_by(|a, b| match (&a.1, &b.1) {
        (Some(x), Some(y)) => x.cmp(y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    let sorted: Vec<Option<NodeId>> = ways.into_iter().map(|(n, _)| n).collect();
    (sorted != given).then(|| sorted.into_boxed_slice())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `f <op> rhs`, under `nots` negations.
    fn cmp(op: CmpOp, rhs: CondNode, nots: usize) -> Cond {
        let mut c = Cond::default();
        let f = c.push(CondNode::Field { name: "m.f".into() });
        let r = c.push(rhs);
        let mut at = c.push(CondNode::Cmp {
            cmp: op,
            lhs: f,
            rhs: r,
        });
        for _ in 0..nots {
            at = c.push(CondNode::Not { arg: at });
        }
        c
    }

    #[test]
    fn negations_and_their_comparison_forms_count_alike() {
        let int = || CondNode::Int { value: "1".into() };
        let b = |value| CondNode::Bool { value };
        // p4c writes each left one as the right one with the branches
        // swapped: both must be negated, or neither.
        assert!(negated(&cmp(CmpOp::Eq, int(), 1)));
        assert!(negated(&cmp(CmpOp::Ne, int(), 0)));
        assert!(!negated(&cmp(CmpOp::Ne, int(), 1)));
        assert!(negated(&cmp(CmpOp::Eq, b(false), 0)));
        assert!(negated(&cmp(CmpOp::Ne, b(true), 0)));
        assert!(!negated(&cmp(CmpOp::Eq, b(true), 0)));
        assert!(!negated(&cmp(CmpOp::Ne, b(false), 0)));
        assert!(!negated(&cmp(CmpOp::Eq, b(false), 1)));
        assert!(negated(&cmp(CmpOp::Ge, int(), 0)));
        assert!(!negated(&cmp(CmpOp::Lt, int(), 0)));
        assert!(!negated(&Cond::default()));
    }
}
