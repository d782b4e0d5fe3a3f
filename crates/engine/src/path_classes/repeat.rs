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

#[cfg(test)]
mod tests {
    use super::{Listings, PathClassOut, PathClassesOut};
    use crate::report::CountOut;

    fn class(id: &str, latency_ns: f64, tables: Vec<u32>) -> PathClassOut {
        PathClassOut {
            id: id.into(),
            latency_ns,
            tables,
            decisions: vec![7],
            skipped: vec![1, 2],
            cpu: None,
            recirc: None,
        }
    }

    /// A copy has the path's own ids and latencies (its parse terms plus
    /// each class's control part), the listing's lists and counts.
    #[test]
    fn a_copy_takes_the_paths_ids_and_latencies() {
        let out = PathClassesOut {
            total: CountOut {
                value: Some(40),
                text: "40".into(),
            },
            filter: Some("acl".into()),
            truncated: true,
            classes: vec![class("12.1", 5.5, vec![0]), class("12.31", 7.0, vec![0, 3])],
            slowest: class("12.40", 9.0, vec![0, 3, 4]),
        };
        let mut listings = Listings::default();
        listings.keep(9, 17, (&out, "12"), vec![1.5, 3.0, 5.0]);
        assert!(listings.get(8).is_none());
        let listed = listings.get(9).expect("kept");
        assert_eq!(listed.work(), 17);
        let copy = listed.copy_for("3", 10.0);
        let ids: Vec<&str> = copy.classes.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["3.1", "3.31"]);
        assert_eq!(copy.slowest.id, "3.40");
        let ns: Vec<f64> = copy.classes.iter().map(|c| c.latency_ns).collect();
        assert_eq!(ns, [11.5, 13.0]);
        assert_eq!(copy.slowest.latency_ns, 15.0);
        assert_eq!(copy.slowest.tables, [0, 3, 4]);
        assert_eq!(copy.classes[1].skipped, [1, 2]);
        assert_eq!((copy.total.text.as_str(), copy.truncated), ("40", true));
        assert_eq!(copy.filter.as_deref(), Some("acl"));
    }
}
