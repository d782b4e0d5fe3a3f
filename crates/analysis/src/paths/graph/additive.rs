//! The distribution of an additive weight (per group of paths), with
//! tables handed down chains.
//!
//! Adding a node's weight to every value of the table it reads is a shift,
//! so a table keeps its keys relative to a lazy offset: a node whose only
//! reader is `i` hands its table to `i` in O(groups), and `i` merges its
//! other successors' tables into it, the smaller into the larger where two
//! land in one group. A chain of N nodes costs O(N x groups) instead of the
//! N^2/2 entries a copy per node makes.

use std::collections::BTreeMap;
use std::hash::Hash;

use super::{Next, Product, ONE};
use crate::paths::PathCount;

/// (group, sum) -> paths, ascending, each (group, sum) once.
pub(crate) type GroupedSums<G, const D: usize> = Vec<((G, [u64; D]), PathCount)>;

/// A node's table: per group key, the path sums in that group.
type Groups<G, const D: usize> = BTreeMap<G, Shifted<D>>;

/// Entry counts of one fold against its budgets.
struct Run {
    /// Entries in the live tables.
    live: usize,
    /// Entries merged (or moved) so far.
    work: usize,
    /// The most `work` may reach.
    work_budget: usize,
}

/// Puts `sh` under key `k` of `t`; when `k` is taken, merges the smaller
/// of the two tables into the larger, counting its entries as merged and
/// the duplicates as no longer live.
fn merge_into<G: Ord, const D: usize>(t: &mut Groups<G, D>, k: G, sh: Shifted<D>, run: &mut Run) {
    let Some(have) = t.get_mut(&k) else {
        t.insert(k, sh);
        return;
    };
    let (mut big, small) = if have.rows.len() >= sh.rows.len() {
        (std::mem::replace(have, Shifted::new()), sh)
    } else {
        (sh, std::mem::replace(have, Shifted::new()))
    };
    let before = big.rows.len() + small.rows.len();
    run.work += small.rows.len();
    big.absorb(&small);
    run.live -= before - big.rows.len();
    *have = big;
}

/// Path values stored as keys relative to `off`: an entry's value is its
/// key plus `off`, component-wise. `i128` holds any sum of `u64` weights
/// over at most `u32::MAX` nodes, and its negative keys, exactly.
struct Shifted<const D: usize> {
    off: [i128; D],
    /// (key, paths), strictly ascending by key.
    rows: Vec<([i128; D], PathCount)>,
}

/// A table at most this many times as long as the one merged into it
/// takes its entries one by one (a binary search and an insertion each)
/// rather than in one pass over both.
const FEW: usize = 16;

impl<const D: usize> Shifted<D> {
    fn new() -> Self {
        Shifted {
            off: [0; D],
            rows: Vec::new(),
        }
    }

    /// The key of value `v`.
    fn key(&self, mut v: [i128; D]) -> [i128; D] {
        for (k, o) in v.iter_mut().zip(self.off) {
            *k -= o;
        }
        v
    }

    /// Adds `c` paths of value `v`.
    fn add(&mut self, v: [i128; D], c: PathCount) {
        let k = self.key(v);
        match self.rows.binary_search_by(|e| e.0.cmp(&k)) {
            Ok(at) => self.rows[at].1 = self.rows[at].1.plus(c),
            Err(at) => self.rows.insert(at, (k, c)),
        }
    }

    /// Adds every entry of `other` (as [`Self::add`] of each, in order):
    /// one by one when `other` is short, else in one merge of the two
    /// ascending tables (a shift keeps the order), `other`'s keys moved to
    /// this table's offset.
    fn absorb(&mut self, other: &Shifted<D>) {
        if other.rows.len().saturating_mul(FEW) <= self.rows.len() {
            for (v, c) in other.values() {
                self.add(v, c);
            }
            return;
        }
        let delta: [i128; D] = std::array::from_fn(|d| other.off[d] - self.off[d]);
        let moved = |k: &[i128; D]| -> [i128; D] { std::array::from_fn(|d| k[d] + delta[d]) };
        let (a, b) = (&self.rows[..], &other.rows[..]);
        let mut out = Vec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        while let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
            let ky = moved(&y.0);
            match x.0.cmp(&ky) {
                std::cmp::Ordering::Less => {
                    out.push(*x);
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    out.push((ky, y.1));
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    out.push((x.0, x.1.plus(y.1)));
                    i += 1;
                    j += 1;
                }
            }
        }
        out.extend_from_slice(&a[i..]);
        out.extend(b[j..].iter().map(|(k, c)| (moved(k), *c)));
        self.rows = out;
    }

    /// The (value, paths) entries, ascending (a shift keeps the order).
    fn values(&self) -> impl Iterator<Item = ([i128; D], PathCount)> + '_ {
        self.rows.iter().map(|(k, c)| {
            let mut v = *k;
            for (x, o) in v.iter_mut().zip(self.off) {
                *x += o;
            }
            (v, *c)
        })
    }
}

impl<S: Copy + Eq + Hash> Product<S> {
    /// True when every path sum of `w` fits `u64` in every component, so
    /// the exact sums equal the saturating ones.
    pub(crate) fn sums_fit_u64<const D: usize>(&self, w: &[[u64; D]]) -> bool {
        let mut most: Vec<[i128; D]> = Vec::with_capacity(self.nodes.len());
        for i in 0..self.nodes.len() as u32 {
            let mut m = [0i128; D];
            for (_, s) in self.live(i) {
                if let Next::Node(s) = s {
                    for (m, x) in m.iter_mut().zip(most[s as usize]) {
                        *m = (*m).max(x);
                    }
                }
            }
            for (m, x) in m.iter_mut().zip(w[i as usize]) {
                *m += i128::from(x);
            }
            if m.iter().any(|&x| x > i128::from(u64::MAX)) {
                return false;
            }
            most.push(m);
        }
        true
    }

    /// Per accepted path from `start`, a group key folded like
    /// [`Product::fold_tables`] folds (`g(i, None)` at the last node,
    /// `g(i, Some(k))` before a successor's key `k`) and the sum of `w`
    /// along it, as (group, sum) -> number of paths, ascending by (group,
    /// sum), each once; for sums that fit `u64` ([`Product::sums_fit_u64`]). Same budgets as
    /// [`Product::fold_tables`] (live entries at most `budget`, merged
    /// entries at most 16 x `budget`), where a group's table handed down to
    /// a node's only reader is not counted as merged.
    pub(crate) fn grouped_sums<G: Ord + Copy, const D: usize>(
        &self,
        start: u32,
        w: &[[u64; D]],
        budget: usize,
        g: impl Fn(u32, Option<G>) -> G,
    ) -> Option<GroupedSums<G, D>> {
        let mut readers = vec![0u32; self.nodes.len()];
        for i in 0..self.nodes.len() as u32 {
            for (_, s) in self.live(i) {
                if let Next::Node(m) = s {
                    readers[m as usize] += 1;
                }
            }
        }
        let mut run = Run {
            live: 0,
            work: 0,
            work_budget: budget.saturating_mul(16),
        };
        let mut tables: Vec<Option<Groups<G, D>>> = Vec::with_capacity(self.nodes.len());
        for i in 0..self.nodes.len() as u32 {
            let own = self.handed_down(i, start, &readers, &tables);
            let mut t: Groups<G, D> = BTreeMap::new();
            if let Some(src) = own.and_then(|m| tables[m].take()) {
                for (k, sh) in src {
                    run.work += 1;
                    merge_into(&mut t, g(i, Some(k)), sh, &mut run);
                }
            }
            for (_, s) in self.live(i) {
                let m = match s {
                    Next::Accept => {
                        let mut sh = Shifted::new();
                        sh.add([0; D], ONE);
                        run.live += 1;
                        merge_into(&mut t, g(i, None), sh, &mut run);
                        continue;
                    }
                    Next::Node(m) => m as usize,
                };
                readers[m] -= 1;
                if Some(m) == own {
                    continue;
                }
                let Some(src) = tables[m].as_ref() else {
                    continue;
                };
                let n: usize = src.values().map(|sh| sh.rows.len()).sum();
                run.work += n;
                run.live += n;
                if run.work > run.work_budget {
                    return None;
                }
                for (k, sh) in src {
                    let copy = Shifted {
                        off: sh.off,
                        rows: sh.rows.clone(),
                    };
                    merge_into(&mut t, g(i, Some(*k)), copy, &mut run);
                }
                if readers[m] == 0 && m != start as usize {
                    run.live -= n;
                    tables[m] = None;
                }
            }
            if run.work > run.work_budget || run.live > budget {
                return None;
            }
            for sh in t.values_mut() {
                for (o, x) in sh.off.iter_mut().zip(w[i as usize]) {
                    *o += i128::from(x);
                }
            }
            tables.push(Some(t));
        }
        let t = tables.get_mut(start as usize).and_then(Option::take);
        let fit = |v: [i128; D]| v.map(|x| u64::try_from(x).unwrap_or(u64::MAX));
        let mut out = Vec::new();
        for (k, sh) in t.unwrap_or_default() {
            out.extend(sh.values().map(|(v, c)| ((k, fit(v)), c)));
        }
        Some(out)
    }

    /// The successor of `i` whose table `i` takes over: the largest one
    /// that `i` reads last, through a single edge (not the start's).
    fn handed_down<G, const D: usize>(
        &self,
        i: u32,
        start: u32,
        readers: &[u32],
        tables: &[Option<Groups<G, D>>],
    ) -> Option<usize> {
        self.live(i)
            .filter_map(|(_, s)| match s {
                Next::Node(m) if readers[m as usize] == 1 && m != start => Some(m as usize),
                _ => None,
            })
            .max_by_key(|&m| {
                let t = tables[m].as_ref();
                t.map_or(0, |t| t.values().map(|sh| sh.rows.len()).sum::<usize>())
            })
    }
}
