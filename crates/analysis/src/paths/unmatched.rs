//! Why `--path H1,H2,..` selects no parse path: which of the listed names
//! the parser extracts at all (with close names for the others), and the
//! path that extracts the listed headers in their order with the fewest
//! other headers between them.

use std::collections::BTreeSet;

use p4cost_ir::Origin;

use super::graph::{BudgetExceeded, PathAutomaton, PathGraph, Product};
use super::{ParsePath, PathState};

/// What the parser offers for a `--path` that matched nothing.
#[derive(Debug, Clone, PartialEq)]
pub struct Unmatched {
    /// The listed names that name a program header the parser extracts.
    pub known: Vec<String>,
    /// The other listed names, each with the extracted headers whose names
    /// are close to it (empty when none is).
    pub unknown: Vec<(String, Vec<String>)>,
    /// When every name is known: a path extracting them in the listed
    /// order with the fewest other program headers, and whether it ends
    /// at the last listed header (else more headers follow on every such
    /// path). `None` when no path extracts them in that order.
    pub nearest: Option<(ParsePath, bool)>,
}

/// Explains why no path of `pg` extracts exactly `want`.
pub fn explain_unmatched(
    pg: &PathGraph<'_>,
    want: &[String],
    limit: usize,
) -> Result<Unmatched, BudgetExceeded> {
    let names = extracted_names(pg);
    let (mut known, mut unknown) = (Vec::new(), Vec::new());
    for w in want {
        if names.iter().any(|(full, short)| w == full || w == short) {
            known.push(w.clone());
        } else {
            unknown.push((w.clone(), close_names(w, &names)));
        }
    }
    let mut nearest = None;
    if unknown.is_empty() {
        for ends_there in [true, false] {
            if let Some(p) = fewest_others(pg, want, ends_there, limit)? {
                nearest = Some((p, ends_there));
                break;
            }
        }
    }
    Ok(Unmatched {
        known,
        unknown,
        nearest,
    })
}

/// Each program header the parser extracts: full name (stack index
/// dropped) and last name component.
fn extracted_names(pg: &PathGraph<'_>) -> BTreeSet<(String, String)> {
    let mut names = BTreeSet::new();
    for n in 0..pg.len() as u32 {
        for e in pg.visit(n).extracts {
            if e.origin == Origin::Program {
                let short = e.header.rsplit('.').next().unwrap_or(&e.header).to_string();
                names.insert((e.header, short));
            }
        }
    }
    names
}

/// The short names close to `want`: one contains the other, or they are
/// a few edits apart.
fn close_names(want: &str, names: &BTreeSet<(String, String)>) -> Vec<String> {
    let want = want.rsplit('.').next().unwrap_or(want).to_ascii_lowercase();
    let short: BTreeSet<&str> = names.iter().map(|(_, s)| s.as_str()).collect();
    let near = |s: &str| {
        let s = s.to_ascii_lowercase();
        let bound = (want.len().max(s.len()) / 3).max(1);
        s.contains(&want) || (s.len() >= 3 && want.contains(&s)) || edits(&want, &s) <= bound
    };
    short
        .into_iter()
        .filter(|s| near(s))
        .map(str::to_string)
        .collect()
}

/// Levenshtein distance (two rows; names are short).
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut row = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            row.push(sub.min(prev[j + 1] + 1).min(row[j] + 1));
        }
        prev = row;
    }
    prev[b.len()]
}

/// Accepts the paths whose program headers contain `want` in order
/// (others anywhere between), and with `ends_there`, none after it.
struct Subsequence<'w> {
    want: &'w [String],
    ends_there: bool,
}

/// Wanted headers matched, and whether the last program header was one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct SubPos {
    pos: usize,
    last_matched: bool,
}

impl PathAutomaton for Subsequence<'_> {
    type S = SubPos;
    fn initial(&self) -> SubPos {
        SubPos {
            pos: 0,
            last_matched: false,
        }
    }
    fn step(&self, mut s: SubPos, st: &PathState) -> Option<SubPos> {
        for e in st.extracts.iter().filter(|e| e.origin == Origin::Program) {
            s.last_matched = s.pos < self.want.len() && e.is_named(&self.want[s.pos]);
            if s.last_matched {
                s.pos += 1;
            } else if self.ends_there && s.pos == self.want.len() {
                return None;
            }
        }
        Some(s)
    }
    fn accepts(&self, s: SubPos) -> bool {
        s.pos == self.want.len() && (s.last_matched || !self.ends_there)
    }
}

/// The accepted path with the fewest program headers.
fn fewest_others(
    pg: &PathGraph<'_>,
    want: &[String],
    ends_there: bool,
    limit: usize,
) -> Result<Option<ParsePath>, BudgetExceeded> {
    let a = Subsequence { want, ends_there };
    let p = Product::build(pg, &a, limit)?;
    let headers = |n: u32| {
        let v = pg.visit(n);
        v.extracts
            .iter()
            .filter(|e| e.origin == Origin::Program)
            .count() as f64
    };
    let w: Vec<f64> = p.nodes.iter().map(|n| headers(n.node)).collect();
    Ok(p.extreme(&w, false)
        .map(|best| pg.path(&p.graph_nodes(&best.path))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_names_are_contained_or_a_few_edits_away() {
        let names: BTreeSet<(String, String)> = ["ethernet", "eth_type", "ipv4", "inner_ipv4"]
            .iter()
            .map(|s| (format!("hdr.{s}"), s.to_string()))
            .collect();
        assert_eq!(close_names("ipv6", &names), ["ipv4"]);
        assert_eq!(close_names("ethernt", &names), ["ethernet"]);
        assert_eq!(close_names("eth", &names), ["eth_type", "ethernet"]);
        assert!(close_names("gtpu", &names).is_empty());
        assert_eq!(edits("kitten", "sitting"), 3);
    }
}
