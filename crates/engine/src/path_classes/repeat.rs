//! The classes of the path signatures listed so far. A lister lists a
//! path's classes by its signature alone, so paths with one signature
//! (the listing's paths mostly differ in headers no control tests) have
//! one listing: the first such path's is kept and copied for the others,
//! each with its own ids and latencies.

use std::collections::HashMap;

use super::{PathClassOut, PathClassesOut};

/// The listings made so far, by path signature.
#[derive(Debug, Default)]
pub(super) struct Listings(HashMap<u64, Listing>);

/// One signature's listing as made for the first path that had it.
#[derive(Debug)]
pub(super) struct Listing {
    /// The lister's steps listing it took (charged again for each copy, so
    /// the lister's budget stops where listing again would).
    work: usize,
    /// The classes as listed for that path.
    out: PathClassesOut,
    /// The length of that path's number, which its classes' ids start with.
    prefix: usize,
    /// Each class's latency without the path's parse terms: the listed
    /// ones in order, then the slowest.
    control_ns: Vec<f64>,
}

impl Listings {
    /// The listing of signature `sig`, if made.
    pub(super) fn get(&self, sig: u64) -> Option<&Listing> {
        self.0.get(&sig)
    }

    /// Keeps `out`, the classes of path number `path_no` whose signature
    /// is `sig` (`control_ns`: as [`Listing::control_ns`]), which took the
    /// lister `work` steps.
    pub(super) fn keep(
        &mut self,
        sig: u64,
        work: usize,
        (out, path_no): (&PathClassesOut, &str),
        control_ns: Vec<f64>,
    ) {
        let out = PathClassesOut {
            total: out.total.clone(),
            filter: out.filter.clone(),
            truncated: out.truncated,
            classes: out
                .classes
                .iter()
                .map(|c| copy(c, 0, "", c.latency_ns))
                .collect(),
            slowest: copy(&out.slowest, 0, "", out.slowest.latency_ns),
        };
        let listing = Listing {
            work,
            out,
            prefix: path_no.len(),
            control_ns,
        };
        self.0.insert(sig, listing);
    }
}

impl Listing {
    /// The lister's steps making it took.
    pub(super) fn work(&self) -> usize {
        self.work
    }

    /// The listing as path number `path_no` with parse terms `parse_ns`
    /// has it: its ids start with `path_no`, its latencies add `parse_ns`
    /// to each class's control part (the sum a listing makes).
    pub(super) fn copy_for(&self, path_no: &str, parse_ns: f64) -> PathClassesOut {
        let out = &self.out;
        let control = |i: usize| self.control_ns.get(i).copied().unwrap_or(0.0);
        let classes = out
            .classes
            .iter()
            .enumerate()
            .map(|(i, c)| copy(c, self.prefix, path_no, parse_ns + control(i)))
            .collect();
        let slowest = parse_ns + control(out.classes.len());
        PathClassesOut {
            total: out.total.clone(),
            filter: out.filter.clone(),
            truncated: out.truncated,
            classes,
            slowest: copy(&out.slowest, self.prefix, path_no, slowest),
        }
    }
}

/// Class `c` with `latency_ns`, its id's first `prefix` bytes (its path's
/// number) made `path_no`. A listed class has no per-model figures.
fn copy(c: &PathClassOut, prefix: usize, path_no: &str, latency_ns: f64) -> PathClassOut {
    let rest = c.id.get(prefix..).unwrap_or_default();
    let mut id = String::with_capacity(path_no.len() + rest.len());
    id.push_str(path_no);
    id.push_str(rest);
    PathClassOut {
        id,
        latency_ns,
        tables: c.tables.clone(),
        decisions: c.decisions.clone(),
        skipped: c.skipped.clone(),
        cpu: None,
        recirc: None,
    }
}
