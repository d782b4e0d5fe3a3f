//! The distribution of packet-class weights, for the median over classes
//! (issue 9), by dynamic programs on both sides, never by listing classes.
//!
//! A class's weight is its parse path's (an additive integer vector, such as
//! the linear model's counted bytes and counted states) plus its control
//! path's (the sum of its tables' integer weights). Given the parse path's
//! signature the two are independent, so the distribution over classes is
//! the sum over signatures of the product of the parse side's distribution
//! (paths with that signature) and the control side's (control paths
//! consistent with it).

use std::collections::{BTreeMap, HashMap};

use p4cost_ir::NodeKind;

use super::{times, ClassError, ControlClasses, EdgeSigs, Key, ONE};
use crate::{Next, PathCount, PathGraph, Product};

/// Class weight -> number of classes: (parse vector, control sum).
pub type ClassDistribution<const D: usize> = BTreeMap<([u64; D], i64), PathCount>;

/// The distribution over all packet classes of `pg` (through the product
/// `prod`) and the control `cc` walks of (the sum of `parse_w[i]` over the
/// path's product nodes, the sum of `table_w[t]` over the control path's
/// tables). `None` when a table of the parse side, the control side or the
/// result would pass `budget` entries (or the merges 16 x that), or the
/// control's states pass `cc`'s limit.
pub fn class_distribution<S: Copy + Eq + std::hash::Hash, const D: usize>(
    cc: &ControlClasses<'_>,
    pg: &PathGraph<'_>,
    prod: &Product<S>,
    parse_w: &[[u64; D]],
    table_w: &[i64],
    budget: usize,
) -> Result<Option<ClassDistribution<D>>, ClassError> {
    if parse_w.len() < prod.nodes.len() {
        return Err(ClassError::Weights {
            what: "product nodes",
            needed: prod.nodes.len(),
            given: parse_w.len(),
        });
    }
    if table_w.len() < cc.table_w.len() {
        return Err(ClassError::Weights {
            what: "tables",
            needed: cc.table_w.len(),
            given: table_w.len(),
        });
    }
    let h = &cc.h;
    // Parse side: per (signature of the rest, vector, state of the head).
    let edges = std::cell::RefCell::new(EdgeSigs::default());
    let own: Vec<u64> = prod.nodes.iter().map(|n| h.visit_sig(pg, n.node)).collect();
    let parse = prod.fold_tables(budget, |i, v: Option<(u64, [u64; D], u32)>| {
        let g = prod.nodes[i as usize].node;
        let w = parse_w[i as usize];
        let (sig, mut vec, to) = match v {
            None => (0, [0; D], Next::Accept),
            Some((sig, vec, head)) => (sig, vec, Next::Node(head)),
        };
        let edge = edges.borrow_mut().get(pg, h, g, to);
        for (o, x) in vec.iter_mut().zip(w) {
            *o = o.saturating_add(x);
        }
        (h.compose(h.compose(own[i as usize], edge), sig), vec, g)
    });
    let Some(parse) = parse else {
        return Ok(None);
    };
    let mut by_sig: BTreeMap<u64, Vec<([u64; D], PathCount)>> = BTreeMap::new();
    for ((sig, vec, _), c) in parse {
        by_sig.entry(sig).or_default().push((vec, c));
    }
    // Control side, memoised across signatures, then the products.
    let mut side = ControlSide {
        cc,
        table_w,
        memo: HashMap::new(),
        entries: 0,
        budget,
    };
    let mut out: ClassDistribution<D> = BTreeMap::new();
    for (sig, parse_side) in by_sig {
        let Some(control_side) = side.of(sig) else {
            return Ok(None);
        };
        for (vec, pc) in &parse_side {
            for (&w, &c) in &control_side {
                let e = out.entry((*vec, w)).or_default();
                *e = e.plus(times(*pc, c));
            }
            if out.len() > budget {
                return Ok(None);
            }
        }
    }
    Ok(Some(out))
}

struct ControlSide<'c, 'a> {
    cc: &'c ControlClasses<'a>,
    table_w: &'c [i64],
    memo: HashMap<Key, BTreeMap<i64, PathCount>>,
    entries: usize,
    budget: usize,
}

impl ControlSide<'_, '_> {
    /// Control weight -> control paths for signature `sig`.
    fn of(&mut self, sig: u64) -> Option<BTreeMap<i64, PathCount>> {
        let Some(root) = self.cc.root(sig) else {
            return Some(BTreeMap::from([(0i64, ONE)]));
        };
        let (cc, table_w, budget) = (self.cc, self.table_w, self.budget);
        let entries = &mut self.entries;
        let mut over = false;
        let within = cc.post_order(root, &mut self.memo, cc.limit, |key, succ, memo| {
            if over {
                return BTreeMap::new(); // past the budget: finish the walk cheaply
            }
            let w = match &cc.flow.nodes[key.0 as usize].kind {
                NodeKind::Table { table, .. } => table_w[table.index()],
                _ => 0,
            };
            let mut t: BTreeMap<i64, PathCount> = BTreeMap::new();
            let mut add = |v: i64, c: PathCount| {
                let e = t.entry(v.saturating_add(w)).or_default();
                *e = e.plus(c);
            };
            if succ.is_empty() {
                add(0, ONE); // exit
            }
            for s in succ {
                match s {
                    None => add(0, ONE),
                    Some(k) => {
                        for (&v, &c) in memo.get(k).into_iter().flatten() {
                            add(v, c);
                        }
                    }
                }
            }
            *entries += t.len();
            over |= *entries > budget;
            t
        });
        if !within || over {
            return None;
        }
        self.memo.get(&root).cloned()
    }
}
