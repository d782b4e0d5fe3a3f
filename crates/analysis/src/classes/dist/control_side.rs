//! The control side of the class distribution: per control state, the
//! ascending table of summed table weights -> control paths from it to the
//! end, made successors first.
//!
//! A state with one successor adds its weight to the successor's table.
//! Tables carry that addition as a pending offset, so a run of tables
//! applied one after another costs one addition per table, not a pass over
//! the table per table: a table is rewritten only where ways meet (a merge,
//! which writes a new table anyway) or where an addition could saturate
//! (then it is applied entry by entry as before, equal sums merged).

use std::rc::Rc;

use p4cost_ir::NodeKind;

use super::super::{ControlClasses, Key, KeyMap, ONE};
use crate::PathCount;

/// The walk of the control states reachable from some roots: states in the
/// order the walk finishes them (successors first), each with its weight
/// and the successors whose tables it reads (an edge back to a state still
/// being walked is cut, as [`ControlClasses::post_order`] cuts it).
struct Walk {
    /// Per state, its table weight.
    weight: Vec<i64>,
    /// `succ[at[i]..at[i + 1]]`: state `i`'s successors read ([`END`]: the
    /// end of the control).
    at: Vec<u32>,
    succ: Vec<u32>,
}

/// A successor that is the end of the control (a path of weight 0).
const END: u32 = u32::MAX;

/// An ascending table of (weight, paths) whose weights are each `off`
/// more than stored. Invariant: `v + off` does not overflow for any stored
/// `v` (so reading an entry with its offset is exact).
///
/// The entries are shared: a state with one successor whose table others
/// read too holds the same entries with its own offset, not a copy.
#[derive(Debug, Clone, Default, PartialEq)]
struct Table {
    t: Rc<Vec<(i64, PathCount)>>,
    off: i64,
}

impl Table {
    /// Adds `w` to every weight, as [`shift`] does entry by entry: by the
    /// offset when neither end of the table can saturate (the weights
    /// ascend, so then none can), else applied in place.
    fn shift(&mut self, w: i64) {
        if w == 0 {
            return;
        }
        let fits = |e: Option<&(i64, PathCount)>| {
            e.is_none_or(|&(v, _)| {
                self.off
                    .checked_add(w)
                    .and_then(|off| v.checked_add(off))
                    .is_some()
            })
        };
        if fits(self.t.first()) && fits(self.t.last()) {
            self.off += w;
            return;
        }
        let mut t = self.take();
        shift(&mut t, w);
        self.t = Rc::new(t);
    }

    /// The entries with the offset applied (copied when another table
    /// shares them).
    fn take(&mut self) -> Vec<(i64, PathCount)> {
        let off = std::mem::take(&mut self.off);
        let t = std::mem::take(&mut self.t);
        let mut t = Rc::try_unwrap(t).unwrap_or_else(|shared| (*shared).clone());
        if off != 0 {
            for e in &mut t {
                e.0 += off;
            }
        }
        t
    }

    fn len(&self) -> usize {
        self.t.len()
    }
}

/// Per root (`None`: no control to walk), the ascending table control
/// weight -> control paths from it; the first occurrence of a root has
/// its table, repeats an empty one. `None` past the budget (tables' entries,
/// or `cc`'s state limit).
///
/// Two passes, so memory holds only the tables still to be read: the walk
/// first (states and edges), then each state's table, made from its
/// successors' tables shifted by its weight and merged (sorted vectors,
/// each entry made once), a table dropped once its last reader is made.
pub(super) fn control_sides(
    cc: &ControlClasses<'_>,
    table_w: &[i64],
    budget: usize,
    roots: &[Option<Key>],
) -> Option<Vec<Vec<(i64, PathCount)>>> {
    let mut ids: KeyMap<u32> = KeyMap::default();
    let walk = walk(cc, table_w, roots, &mut ids)?;
    let n = walk.weight.len();
    // Readers still to come, per state (a root is read at the end).
    let mut readers = vec![0u32; n];
    for &s in walk.succ.iter().filter(|&&s| s != END) {
        readers[s as usize] += 1;
    }
    let root_ids: Vec<Option<u32>> = roots
        .iter()
        .map(|r| r.and_then(|k| ids.get(&k).copied()))
        .collect();
    drop(ids);
    for &r in root_ids.iter().flatten() {
        readers[r as usize] += 1;
    }
    let mut tables: Vec<Table> = vec![Table::default(); n];
    let mut entries = 0usize;
    let end = Table {
        t: Rc::new(vec![(0, ONE)]),
        off: 0,
    };
    let mut scratch = Vec::new();
    for i in 0..n {
        let succ = &walk.succ[walk.at[i] as usize..walk.at[i + 1] as usize];
        let w = walk.weight[i];
        let out = state_table(&mut tables, &readers, succ, w, &end, &mut scratch);
        entries += out.len();
        if entries > budget {
            return None;
        }
        for &s in succ.iter().filter(|&&s| s != END) {
            readers[s as usize] -= 1;
            if readers[s as usize] == 0 {
                tables[s as usize] = Table::default();
            }
        }
        if readers[i] > 0 {
            tables[i] = out;
        }
    }
    let mut seen = vec![false; n];
    Some(
        root_ids
            .iter()
            .map(|r| match r {
                None => vec![(0, ONE)],
                Some(r) if !std::mem::replace(&mut seen[*r as usize], true) => {
                    tables[*r as usize].take()
                }
                Some(_) => Vec::new(),
            })
            .collect(),
    )
}

/// The walk from every root ([`Walk`]); `ids` numbers the states. `None`
/// past `cc`'s state limit.
fn walk(
    cc: &ControlClasses<'_>,
    table_w: &[i64],
    roots: &[Option<Key>],
    ids: &mut KeyMap<u32>,
) -> Option<Walk> {
    let mut walk = Walk {
        weight: Vec::new(),
        at: vec![0],
        succ: Vec::new(),
    };
    for root in roots.iter().flatten() {
        let within = cc.post_order(*root, ids, cc.limit, |key, succ, ids| {
            walk.weight.push(match &cc.flow.nodes[key.0 as usize].kind {
                NodeKind::Table { table, .. } => table_w[table.index()],
                _ => 0,
            });
            if succ.is_empty() {
                walk.succ.push(END); // exit
            }
            for s in succ {
                match s {
                    None => walk.succ.push(END),
                    Some(k) => walk.succ.extend(ids.get(k).copied()),
                }
            }
            walk.at.push(walk.succ.len() as u32);
            (walk.weight.len() - 1) as u32
        });
        if !within {
            return None;
        }
    }
    Some(walk)
}

/// The table of a state of weight `w` whose successors are `succ` (`end`:
/// the end of the control's table). The last reader of its one
/// successor's table takes it over, another copies it, in both cases
/// shifted by the offset; several successors' tables are merged, `w`
/// added by the last merge: one pass per successor after the first.
fn state_table(
    tables: &mut [Table],
    readers: &[u32],
    succ: &[u32],
    w: i64,
    end: &Table,
    scratch: &mut Vec<(i64, PathCount)>,
) -> Table {
    let (first, rest) = match succ {
        [] => return Table::default(),
        [s] => {
            // The last reader takes the table over, another shares it.
            let mut out = if *s == END {
                end.clone()
            } else if readers[*s as usize] == 1 {
                std::mem::take(&mut tables[*s as usize])
            } else {
                tables[*s as usize].clone()
            };
            out.shift(w);
            return out;
        }
        [first, rest @ ..] => (*first, rest),
    };
    let at = |s: u32| if s == END { end } else { &tables[s as usize] };
    let mut acc = Table::default();
    for (i, &s) in rest.iter().enumerate() {
        let last = i + 1 == rest.len();
        let mut out = std::mem::take(scratch);
        let a = if i == 0 { at(first) } else { &acc };
        merge_into(&mut out, a, at(s), if last { w } else { 0 });
        if i > 0 {
            *scratch = std::mem::take(&mut acc).take();
        }
        acc = Table {
            t: Rc::new(out),
            off: 0,
        };
    }
    // Kept until its readers are made: exactly as long as it is (a merge
    // reserves room for both sides, which equal sums may not fill). The
    // allocator shrinks the buffer where it is, without copying it; the
    // next merge takes a fresh scratch.
    let mut t = acc.take();
    t.shrink_to_fit();
    Table {
        t: Rc::new(t),
        off: 0,
    }
}

/// Adds `w` to every weight of the ascending table `t` in place (entries
/// that saturation makes equal merged).
fn shift(t: &mut Vec<(i64, PathCount)>, w: i64) {
    if w == 0 {
        return;
    }
    let mut kept = 0usize;
    for i in 0..t.len() {
        let (v, c) = t[i];
        let v = v.saturating_add(w);
        match kept.checked_sub(1).map(|k| &mut t[k]) {
            Some((last, n)) if *last == v => *n = n.plus(c),
            _ => {
                t[kept] = (v, c);
                kept += 1;
            }
        }
    }
    t.truncate(kept);
}

/// Appends `(v, c)` to the ascending table `out`, adding `c` to its last
/// entry when that has weight `v`.
fn push_sum(out: &mut Vec<(i64, PathCount)>, v: i64, c: PathCount) {
    match out.last_mut() {
        Some((last, n)) if *last == v => *n = n.plus(c),
        _ => out.push((v, c)),
    }
}

/// `out` := the ascending merge of the tables `a` and `b` (their offsets
/// applied), `w` added to every weight (saturating, as [`shift`] adds it;
/// counts of equal weights added).
fn merge_into(out: &mut Vec<(i64, PathCount)>, a: &Table, b: &Table, w: i64) {
    out.clear();
    out.reserve(a.len() + b.len());
    // Each side's entries with its offset, read straight from the slices.
    let (ta, oa, tb, ob) = (&a.t[..], a.off, &b.t[..], b.off);
    let (mut i, mut j) = (0, 0);
    while let (Some(&(va, ca)), Some(&(vb, cb))) = (ta.get(i), tb.get(j)) {
        let (va, vb) = (va + oa, vb + ob);
        let (v, c) = if va <= vb {
            i += 1;
            (va, ca)
        } else {
            j += 1;
            (vb, cb)
        };
        push_sum(out, v.saturating_add(w), c);
    }
    for &(v, c) in &ta[i..] {
        push_sum(out, (v + oa).saturating_add(w), c);
    }
    for &(v, c) in &tb[j..] {
        push_sum(out, (v + ob).saturating_add(w), c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(v: u128) -> PathCount {
        PathCount::exact(v)
    }

    /// Shifting by offsets gives the table shifting entry by entry gives,
    /// saturation included (where equal sums merge).
    #[test]
    fn offsets_give_what_shifting_in_place_gives() {
        let start = vec![(i64::MIN + 5, n(1)), (-3, n(2)), (0, n(3)), (7, n(4))];
        let steps: [&[i64]; 5] = [
            &[1, 2, 3],
            &[i64::MAX, -1, -1],
            &[-10, i64::MIN, 4],
            &[i64::MAX / 2, i64::MAX / 2, i64::MAX / 2, -5],
            &[0, 0, -2],
        ];
        for ws in steps {
            let mut eager = start.clone();
            let mut lazy = Table {
                t: Rc::new(start.clone()),
                off: 0,
            };
            for &w in ws {
                shift(&mut eager, w);
                lazy.shift(w);
                let mut seen = lazy.clone();
                assert_eq!(seen.take(), eager, "after {w} of {ws:?}");
            }
        }
    }

    #[test]
    fn merges_apply_the_offset() {
        let a = Table {
            t: Rc::new(vec![(10, n(2)), (12, n(1))]),
            off: 0,
        };
        let b = Table {
            t: Rc::new(vec![(0, n(1)), (5, n(1))]),
            off: 10,
        };
        let mut out = Vec::new();
        merge_into(&mut out, &a, &b, 0);
        assert_eq!(out, vec![(10, n(3)), (12, n(1)), (15, n(1))]);
        merge_into(&mut out, &a, &b, i64::MAX - 12);
        let top = (i64::MAX, n(2));
        assert_eq!(out, vec![(i64::MAX - 2, n(3)), top]);
    }

    /// Two states reading one table share its entries, each with its own
    /// offset, a saturating shift of one leaving the other as it was.
    #[test]
    fn shared_tables_keep_their_own_offsets() {
        let base = vec![(-4, n(1)), (3, n(2)), (i64::MAX - 1, n(3))];
        let mut tables = vec![Table {
            t: Rc::new(base.clone()),
            off: 0,
        }];
        let end = Table::default();
        let mut scratch = Vec::new();
        let mut one = state_table(&mut tables, &[2], &[0], -6, &end, &mut scratch);
        let mut two = state_table(&mut tables, &[2], &[0], 5, &end, &mut scratch);
        assert!(Rc::ptr_eq(&one.t, &tables[0].t), "shared, not copied");
        let mut eager_one = base.clone();
        shift(&mut eager_one, -6);
        let mut eager_two = base.clone();
        shift(&mut eager_two, 5);
        assert_eq!(two.take(), eager_two);
        assert_eq!(one.take(), eager_one);
        assert_eq!(tables[0].take(), base);
    }
}
