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

use std::collections::HashMap;
use std::rc::{Rc, Weak};

use foldhash::fast::FixedState;

use p4cost_ir::NodeKind;

use super::super::{memo_get, ControlClasses, Key, END_ID};
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

/// One (weight, paths) entry; counts saturate at `u128::MAX`, as
/// [`PathCount::plus`] saturates them.
type Row = (i64, u128);

/// Strictly ascending rows, shared by the tables that read them, with an
/// id no other rows of the same run carry (the key of [`Tables::memo`]).
#[derive(Debug, PartialEq)]
struct Rows {
    id: u64,
    rows: Vec<Row>,
}

/// An ascending table of (weight, paths) whose weights are each `off`
/// more than stored. Invariant: `v + off` does not overflow for any stored
/// `v` (so reading an entry with its offset is exact).
///
/// The entries are shared: a state with one successor whose table others
/// read too holds the same entries with its own offset, not a copy.
#[derive(Debug, Clone, PartialEq)]
struct Table {
    t: Rc<Rows>,
    off: i64,
}

impl Table {
    fn len(&self) -> usize {
        self.t.rows.len()
    }

    fn rows(&self) -> &[Row] {
        &self.t.rows
    }
}

/// A merge's inputs: (rows id, offset relative to the first input) per
/// input, sorted.
type MergeKey = Vec<(u64, i64)>;

/// The most entries [`Tables::memo`] keeps alive by itself (8 MiB).
const HELD: usize = 1 << 18;

/// A merge kept by [`Tables::memo`]: alive while its entries fit
/// [`HELD`] (states with equal successors often come long after the
/// first one's readers are made), past that only while a table holds it.
enum Held {
    Kept(Rc<Rows>),
    Weak(Weak<Rows>),
}

impl Held {
    fn get(&self) -> Option<Rc<Rows>> {
        match self {
            Held::Kept(t) => Some(t.clone()),
            Held::Weak(t) => t.upgrade(),
        }
    }
}

/// The tables of one run: fresh ids, the rows made so far by content (so
/// equal rows made twice share one id), the merges made so far by their
/// inputs, and scratch room for merging.
struct Tables {
    next_id: u64,
    /// Content hash -> rows with that hash, while some table holds them.
    by_content: HashMap<u64, Vec<Weak<Rows>>, FixedState>,
    /// Inputs -> their merge, as rows whose first weight is 0 and the
    /// offset from the first input to it.
    memo: HashMap<MergeKey, (Held, i64), FixedState>,
    /// Entries of the merges [`Self::memo`] keeps alive.
    held: usize,
    scratch: [Vec<Row>; 2],
}

impl Tables {
    fn new() -> Tables {
        Tables {
            next_id: 0,
            by_content: HashMap::default(),
            memo: HashMap::default(),
            held: 0,
            scratch: [Vec::new(), Vec::new()],
        }
    }

    /// A table holding `rows` (strictly ascending), offset 0.
    fn table(&mut self, rows: Vec<Row>) -> Table {
        self.next_id += 1;
        Table {
            t: Rc::new(Rows {
                id: self.next_id,
                rows,
            }),
            off: 0,
        }
    }

    /// The rows `rows` as shared rows: those made before with the same
    /// content while some table still holds them, else new ones.
    fn interned(&mut self, rows: Vec<Row>) -> Rc<Rows> {
        let hash = sampled_hash(&rows);
        let same = self.by_content.entry(hash).or_default();
        same.retain(|w| w.strong_count() > 0);
        if let Some(t) = same
            .iter()
            .filter_map(Weak::upgrade)
            .find(|t| t.rows == rows)
        {
            return t;
        }
        self.next_id += 1;
        let t = Rc::new(Rows {
            id: self.next_id,
            rows,
        });
        same.push(Rc::downgrade(&t));
        t
    }

    /// Adds `w` to every weight, as [`shift`] does entry by entry: by the
    /// offset when neither end of the table can saturate (the weights
    /// ascend, so then none can), else applied in place.
    fn shift(&mut self, table: &mut Table, w: i64) {
        if w == 0 {
            return;
        }
        let fits = |e: Option<&Row>| {
            e.is_none_or(|&(v, _)| {
                table
                    .off
                    .checked_add(w)
                    .and_then(|off| v.checked_add(off))
                    .is_some()
            })
        };
        if fits(table.rows().first()) && fits(table.rows().last()) {
            table.off += w;
            return;
        }
        let mut t = take(std::mem::replace(table, self.table(Vec::new())));
        shift(&mut t, w);
        *table = self.table(t);
    }

    /// The merge of `inputs` (each with its offset), `w` added. Rows are
    /// kept relative to their least weight, so a merge of the same rows
    /// at the same distances as one made before (while that one is still
    /// held) is that one at another offset, not merged again.
    fn merged(&mut self, inputs: &[&Table], w: i64) -> Table {
        let mut order: Vec<(u64, i64, usize)> = inputs
            .iter()
            .enumerate()
            .map(|(i, t)| (t.t.id, t.off, i))
            .collect();
        order.sort_unstable();
        let base = order[0].1;
        let key: Option<MergeKey> = order
            .iter()
            .map(|&(id, off, _)| Some((id, off.checked_sub(base)?)))
            .collect();
        let mut out = match key.and_then(|key| self.relative(inputs, &order, key)) {
            Some((t, least)) => Table {
                t,
                off: base + least,
            },
            None => {
                let order: Vec<(&[Row], i64)> = inputs.iter().map(|t| (t.rows(), t.off)).collect();
                let rows = self.merge_all(&order);
                self.table(rows)
            }
        };
        self.shift(&mut out, w);
        out
    }

    /// The merge of `inputs` (in `order`, at the distances `key` gives)
    /// as rows whose first weight is 0 and the offset from the first
    /// input to them; `None` when a weight read so would not fit i64.
    fn relative(
        &mut self,
        inputs: &[&Table],
        order: &[(u64, i64, usize)],
        key: MergeKey,
    ) -> Option<(Rc<Rows>, i64)> {
        if let Some((t, least)) = self.memo.get(&key).and_then(|(t, l)| Some((t.get()?, *l))) {
            return Some((t, least));
        }
        let mut least: Option<i64> = None;
        for (&(_, _, i), &(_, rel)) in order.iter().zip(&key) {
            if let Some(first) = inputs[i].rows().first() {
                let v = first.0.checked_add(rel)?;
                least = Some(least.map_or(v, |l| l.min(v)));
            }
        }
        let least = least?;
        let mut sides: Vec<(&[Row], i64)> = Vec::with_capacity(order.len());
        for (&(_, _, i), &(_, rel)) in order.iter().zip(&key) {
            let rows = inputs[i].rows();
            let at = rel.checked_sub(least)?;
            // Ascending: the ends bound every weight read.
            for e in [rows.first(), rows.last()].into_iter().flatten() {
                e.0.checked_add(at)?;
            }
            sides.push((rows, at));
        }
        let rows = self.merge_all(&sides);
        let t = self.interned(rows);
        let held = if self.held + t.rows.len() <= HELD {
            self.held += t.rows.len();
            Held::Kept(t.clone())
        } else {
            Held::Weak(Rc::downgrade(&t))
        };
        self.memo.insert(key, (held, least));
        Some((t, least))
    }

    /// The ascending merge of `inputs` (rows, offset; every weight read
    /// with its offset fits i64), counts of equal weights added: one pass
    /// per input after the first, the result exactly as long as it is.
    fn merge_all(&mut self, inputs: &[(&[Row], i64)]) -> Vec<Row> {
        let mut out = match inputs {
            [] => Vec::new(),
            [(a, oa)] => a.iter().map(|&(v, c)| (v + oa, c)).collect(),
            [(a, oa), (b, ob)] => {
                let mut out = Vec::new();
                merge_into(&mut out, (a, *oa), (b, *ob));
                out
            }
            [(a, oa), rest @ ..] => {
                let [mut x, mut y] = std::mem::take(&mut self.scratch);
                x.clear();
                x.extend(a.iter().map(|&(v, c)| (v + oa, c)));
                for &(b, ob) in rest {
                    merge_into(&mut y, (&x, 0), (b, ob));
                    std::mem::swap(&mut x, &mut y);
                }
                let out = x.as_slice().to_vec();
                self.scratch = [x, y];
                out
            }
        };
        // A merge reserves room for both sides, which equal sums may not
        // fill; the allocator shrinks the buffer where it is.
        out.shrink_to_fit();
        out
    }
}

/// A hash of `rows` read at no more than 16 places (and its length): equal
/// rows hash alike, and [`Tables::interned`] compares the rows it finds, so
/// reading every entry would only cost time.
fn sampled_hash(rows: &[Row]) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = FixedState::default().build_hasher();
    h.write_usize(rows.len());
    let step = rows.len().div_ceil(16).max(1);
    for r in rows.iter().step_by(step) {
        h.write_i64(r.0);
        h.write_u128(r.1);
    }
    h.finish()
}

/// The rows with the offset applied (copied when another table shares
/// them).
fn take(table: Table) -> Vec<Row> {
    let mut t = match Rc::try_unwrap(table.t) {
        Ok(rows) => rows.rows,
        Err(shared) => shared.rows.clone(),
    };
    if table.off != 0 {
        for e in &mut t {
            e.0 += table.off;
        }
    }
    t
}

/// The control sides of [`control_sides`]: each distinct table once, and
/// per root which it is.
pub(super) struct ControlSides {
    /// Ascending tables control weight -> control paths, each once.
    pub tables: Vec<Vec<(i64, PathCount)>>,
    /// Per root, the index of its table in `tables`.
    pub of_root: Vec<usize>,
}

/// Per root (`None`: no control to walk), the ascending table control
/// weight -> control paths from it, roots with equal tables sharing one.
/// `None` past the budget (tables' entries, or `cc`'s state limit).
///
/// Two passes, so memory holds only the tables still to be read: the walk
/// first (states and edges), then each state's table, made from its
/// successors' tables shifted by its weight and merged (sorted vectors,
/// each entry made once), a table dropped once its last reader is made.
/// States whose successors hold the same rows at the same distances share
/// one merge of them.
pub(super) fn control_sides(
    cc: &ControlClasses<'_>,
    table_w: &[i64],
    budget: usize,
    roots: &[Option<Key>],
) -> Option<ControlSides> {
    let roots: Vec<Option<u32>> = roots
        .iter()
        .map(|r| match r {
            Some(k) => cc.id(*k).map(Some),
            None => Some(None), // no control to walk
        })
        .collect::<Option<_>>()?;
    let mut ids: Vec<Option<u32>> = Vec::new();
    let walk = walk(cc, table_w, &roots, &mut ids)?;
    let root_ids: Vec<Option<u32>> = roots
        .iter()
        .map(|r| r.and_then(|id| ids.get(id as usize).copied().flatten()))
        .collect();
    drop(ids);
    let mut run = Tables::new();
    let end = run.table(vec![(0, 1)]);
    let tables = state_tables(&walk, &root_ids, &mut run, &end, budget)?;
    let root_table = |r: &Option<u32>| match r {
        None => Some(&end),
        Some(r) => tables[*r as usize].as_ref(),
    };
    let mut sides = ControlSides {
        tables: Vec::new(),
        of_root: Vec::with_capacity(roots.len()),
    };
    // Tables holding the same rows at the same offset are equal.
    let mut seen: HashMap<(u64, i64), usize, FixedState> = HashMap::default();
    for r in &root_ids {
        let Some(t) = root_table(r) else {
            // Not made (never the case: a root is read at the end).
            sides.of_root.push(sides.tables.len());
            sides.tables.push(Vec::new());
            continue;
        };
        let i = *seen.entry((t.t.id, t.off)).or_insert_with(|| {
            let rows = t.rows().iter().map(|&(v, c)| (v + t.off, count(c)));
            sides.tables.push(rows.collect());
            sides.tables.len() - 1
        });
        sides.of_root.push(i);
    }
    Some(sides)
}

/// Every state's table in the order of `walk`, each dropped once its last
/// reader is made, the roots' kept (`end`: the end of the control's).
/// `None` past `budget` entries made.
fn state_tables(
    walk: &Walk,
    root_ids: &[Option<u32>],
    run: &mut Tables,
    end: &Table,
    budget: usize,
) -> Option<Vec<Option<Table>>> {
    let n = walk.weight.len();
    // Readers still to come, per state (a root is read at the end).
    let mut readers = vec![0u32; n];
    for &s in walk.succ.iter().filter(|&&s| s != END) {
        readers[s as usize] += 1;
    }
    for &r in root_ids.iter().flatten() {
        readers[r as usize] += 1;
    }
    let mut tables: Vec<Option<Table>> = vec![None; n];
    let mut entries = 0usize;
    let empty = run.table(Vec::new());
    for i in 0..n {
        let succ = &walk.succ[walk.at[i] as usize..walk.at[i + 1] as usize];
        let w = walk.weight[i];
        let out = state_table(run, &mut tables, &readers, succ, w, [&empty, end]);
        entries += out.len();
        if entries > budget {
            return None;
        }
        for &s in succ.iter().filter(|&&s| s != END) {
            readers[s as usize] -= 1;
            if readers[s as usize] == 0 {
                tables[s as usize] = None;
            }
        }
        if readers[i] > 0 {
            tables[i] = Some(out);
        }
    }
    Some(tables)
}

/// A saturating count as a [`PathCount`] (`u128::MAX`: saturated).
fn count(c: u128) -> PathCount {
    PathCount {
        value: c,
        saturated: c == u128::MAX,
    }
}
/// The walk from every root (state ids, [`Walk`]); `ids` numbers the
/// states walked, by state id. `None` past `cc`'s state limit.
fn walk(
    cc: &ControlClasses<'_>,
    table_w: &[i64],
    roots: &[Option<u32>],
    ids: &mut Vec<Option<u32>>,
) -> Option<Walk> {
    let mut walk = Walk {
        weight: Vec::new(),
        at: vec![0],
        succ: Vec::new(),
    };
    let mut walked = 0usize;
    for root in roots.iter().flatten() {
        let memo = (&mut *ids, &mut walked);
        let within = cc.post_order(*root, memo, cc.limit, |_, key, succ, ids| {
            walk.weight.push(match &cc.flow.nodes[key.0 as usize].kind {
                NodeKind::Table { table, .. } => table_w[table.index()],
                _ => 0,
            });
            if succ.is_empty() {
                walk.succ.push(END); // exit
            }
            for &s in succ {
                match s {
                    END_ID => walk.succ.push(END),
                    s => walk.succ.extend(memo_get(ids, s).copied()),
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

/// The table of a state of weight `w` whose successors are `succ` (`ends`:
/// the table of no path and the end of the control's). The last reader of
/// its one successor's table takes it over, another shares it, in both
/// cases shifted by the offset; several successors' tables are merged
/// ([`Tables::merged`]).
fn state_table(
    run: &mut Tables,
    tables: &mut [Option<Table>],
    readers: &[u32],
    succ: &[u32],
    w: i64,
    ends: [&Table; 2],
) -> Table {
    let [empty, end] = ends;
    let mut out = match succ {
        [] => return empty.clone(),
        [s] if *s == END => end.clone(),
        // The last reader takes the table over, another shares it.
        [s] if readers[*s as usize] == 1 => tables[*s as usize].take().unwrap_or(empty.clone()),
        [s] => tables[*s as usize].clone().unwrap_or(empty.clone()),
        _ => {
            let inputs: Vec<&Table> = succ
                .iter()
                .map(|&s| match s {
                    END => end,
                    s => tables[s as usize].as_ref().unwrap_or(empty),
                })
                .collect();
            return run.merged(&inputs, w);
        }
    };
    run.shift(&mut out, w);
    out
}

/// Adds `w` to every weight of the ascending table `t` in place (entries
/// that saturation makes equal merged).
fn shift(t: &mut Vec<Row>, w: i64) {
    if w == 0 {
        return;
    }
    let mut kept = 0usize;
    for i in 0..t.len() {
        let (v, c) = t[i];
        let v = v.saturating_add(w);
        match kept.checked_sub(1).map(|k| &mut t[k]) {
            Some((last, n)) if *last == v => *n = n.saturating_add(c),
            _ => {
                t[kept] = (v, c);
                kept += 1;
            }
        }
    }
    t.truncate(kept);
}

/// `out` := the ascending merge of the strictly ascending `a` and `b`,
/// each with its offset added (which keeps its weights within i64),
/// counts of equal weights added.
fn merge_into(out: &mut Vec<Row>, (a, oa): (&[Row], i64), (b, ob): (&[Row], i64)) {
    out.clear();
    out.reserve(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while let (Some(&(va, ca)), Some(&(vb, cb))) = (a.get(i), b.get(j)) {
        let (va, vb) = (va + oa, vb + ob);
        let row = match va.cmp(&vb) {
            std::cmp::Ordering::Less => {
                i += 1;
                (va, ca)
            }
            std::cmp::Ordering::Greater => {
                j += 1;
                (vb, cb)
            }
            std::cmp::Ordering::Equal => {
                i += 1;
                j += 1;
                (va, ca.saturating_add(cb))
            }
        };
        out.push(row);
    }
    out.extend(a[i..].iter().map(|&(v, c)| (v + oa, c)));
    out.extend(b[j..].iter().map(|&(v, c)| (v + ob, c)));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(t: &Table) -> Vec<Row> {
        take(t.clone())
    }

    /// Shifting by offsets gives the table shifting entry by entry gives,
    /// saturation included (where equal sums merge).
    #[test]
    fn offsets_give_what_shifting_in_place_gives() {
        let start = vec![(i64::MIN + 5, 1), (-3, 2), (0, 3), (7, 4)];
        let steps: [&[i64]; 5] = [
            &[1, 2, 3],
            &[i64::MAX, -1, -1],
            &[-10, i64::MIN, 4],
            &[i64::MAX / 2, i64::MAX / 2, i64::MAX / 2, -5],
            &[0, 0, -2],
        ];
        for ws in steps {
            let mut run = Tables::new();
            let mut eager = start.clone();
            let mut lazy = run.table(start.clone());
            for &w in ws {
                shift(&mut eager, w);
                run.shift(&mut lazy, w);
                assert_eq!(rows(&lazy), eager, "after {w} of {ws:?}");
            }
        }
    }

    #[test]
    fn merges_apply_the_offset() {
        let mut out = Vec::new();
        merge_into(&mut out, (&[(10, 2), (12, 1)], 0), (&[(0, 1), (5, 1)], 10));
        assert_eq!(out, vec![(10, 3), (12, 1), (15, 1)]);
        let mut run = Tables::new();
        let a = run.table(vec![(10, 2), (12, 1)]);
        let mut b = run.table(vec![(0, 1), (5, 1)]);
        b.off = 10;
        let top = (i64::MAX, 2);
        let m = run.merged(&[&a, &b], i64::MAX - 12);
        assert_eq!(rows(&m), vec![(i64::MAX - 2, 3), top]);
        // Counts saturate as PathCount::plus saturates them.
        let c = run.table(vec![(1, u128::MAX - 1)]);
        let d = run.table(vec![(1, 5)]);
        assert_eq!(rows(&run.merged(&[&c, &d], 0)), vec![(1, u128::MAX)]);
        assert!(count(u128::MAX).saturated && !count(7).saturated);
    }

    /// States reading the same rows at the same distances share one merge
    /// (offsets and their own weights kept apart), and the merge is the
    /// one made entry by entry; rows at other distances are merged anew,
    /// and equal rows made apart end up shared.
    #[test]
    fn equal_merges_are_made_once() {
        let mut run = Tables::new();
        let t = run.table(vec![(-4, 1), (3, 2), (9, 3)]);
        let u = run.table(vec![(0, 5), (6, 1)]);
        let at = |t: &Table, off: i64| Table {
            t: t.t.clone(),
            off,
        };
        let one = run.merged(&[&at(&t, 1), &at(&u, 4)], 7);
        let two = run.merged(&[&at(&u, 14), &at(&t, 11)], -2);
        assert!(Rc::ptr_eq(&one.t, &two.t), "shared, not merged again");
        let three = run.merged(&[&at(&t, 0), &at(&u, 4)], 0);
        assert!(!Rc::ptr_eq(&one.t, &three.t));
        let by_hand = |a: i64, b: i64, w: i64| {
            let mut all: Vec<Row> = rows(&at(&t, a));
            all.extend(rows(&at(&u, b)));
            all.sort();
            let mut out: Vec<Row> = Vec::new();
            for (v, c) in all {
                match out.last_mut() {
                    Some(last) if last.0 == v + w => last.1 += c,
                    _ => out.push((v + w, c)),
                }
            }
            out
        };
        assert_eq!(rows(&one), by_hand(1, 4, 7));
        assert_eq!(rows(&two), by_hand(11, 14, -2));
        assert_eq!(rows(&three), by_hand(0, 4, 0));
        // Rows made apart with the same content merge to the same rows.
        let t2 = run.table(t.rows().to_vec());
        let four = run.merged(&[&at(&t2, 1), &at(&u, 4)], 0);
        assert!(Rc::ptr_eq(&one.t, &four.t), "equal rows, one merge");
        assert_eq!(rows(&four), by_hand(1, 4, 0));
        // The same rows twice (a table read at two distances).
        let twice = run.merged(&[&at(&t, 0), &at(&t, 6)], 0);
        assert_eq!(rows(&twice), vec![(-4, 1), (2, 1), (3, 2), (9, 5), (15, 3)]);
    }

    /// Two states reading one table share its entries, each with its own
    /// offset, a saturating shift of one leaving the other as it was.
    #[test]
    fn shared_tables_keep_their_own_offsets() {
        let base = vec![(-4, 1), (3, 2), (i64::MAX - 1, 3)];
        let mut run = Tables::new();
        let mut tables = vec![Some(run.table(base.clone()))];
        let (empty, end) = (run.table(Vec::new()), run.table(vec![(0, 1)]));
        let ends = [&empty, &end];
        let one = state_table(&mut run, &mut tables, &[2], &[0], -6, ends);
        let two = state_table(&mut run, &mut tables, &[2], &[0], 5, ends);
        let kept = tables[0].as_ref().expect("still read");
        assert!(Rc::ptr_eq(&one.t, &kept.t), "shared, not copied");
        let mut eager_one = base.clone();
        shift(&mut eager_one, -6);
        let mut eager_two = base.clone();
        shift(&mut eager_two, 5);
        assert_eq!(rows(&two), eager_two);
        assert_eq!(rows(&one), eager_one);
        assert_eq!(rows(kept), base);
    }
}
