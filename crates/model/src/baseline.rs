//! Which states of a path the Tofino model's baseline `L_B` covers.
//!
//! The paper's start state extracts the TNA intrinsic metadata, skips the
//! port metadata and extracts Ethernet; that state is part of `L_B` and
//! not of `L_PD` (docs/models.md, "The baseline rule"). p4cost generalises
//! the rule to programs laid out differently: the baseline covers
//! everything up to and including the first packet header (Ethernet, in
//! practice), whether it sits in one state or several. What comes before
//! the first packet header is metadata and belongs to the baseline too:
//! intrinsic metadata ([`Origin::Architecture`]) and whatever takes the
//! place of the port metadata, recognised by where it lands: a header
//! extracted into the parser's metadata parameter rather than its headers
//! parameter ([`Origin::Metadata`]: Tofino resubmit data, mirror or bridged
//! metadata extracted into the metadata struct). After the first packet
//! header, each state that extracts at least one header counts once with
//! the bytes it extracts; if the state that extracts the first header
//! extracts more headers after it, those count as that state's
//! contribution.

use p4cost_analysis::{ParsePath, PathAutomaton, PathState};
use p4cost_ir::Origin;

/// How one state of a path is split between baseline and counted bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateSplit {
    /// Bytes extracted by the state.
    pub bytes: u64,
    /// Bytes counted by the parser term.
    pub counted_bytes: u64,
    /// True while the baseline covers (part of) the state.
    pub in_baseline: bool,
    /// True when the state counts once in the parser term.
    pub counted: bool,
}

/// Bytes of packet headers the path extracts: program headers only, not
/// the intrinsic metadata nor the metadata extracted before the packet
/// (rounded up to whole bytes; varbit fields at their fixed part). A
/// packet smaller than this cannot take the path.
pub fn packet_header_bytes(path: &ParsePath) -> u64 {
    path.extracts()
        .filter(|e| e.origin == Origin::Program)
        .map(|e| e.bits)
        .sum::<u64>()
        .div_ceil(8)
}

/// Splits every state of `path`.
pub fn split(path: &ParsePath) -> Vec<StateSplit> {
    let mut seen_first = false;
    path.states
        .iter()
        .map(|st| split_state(&mut seen_first, st))
        .collect()
}

/// Splits one state; `seen_first` tells whether the path extracted a
/// program header before it, and is updated. The split depends on nothing
/// else, so dynamic programs over the parse graph carry just this flag.
pub fn split_state(seen_first: &mut bool, st: &PathState) -> StateSplit {
    let bytes = st.extracted_bytes();
    if *seen_first {
        return StateSplit {
            bytes,
            counted_bytes: bytes,
            in_baseline: false,
            counted: bytes > 0,
        };
    }
    // Still inside the baseline: metadata extracts (architecture or
    // program metadata) and the first packet header are covered; packet
    // headers after the first one in the same state are counted.
    let mut counted_bits = 0;
    for e in &st.extracts {
        if *seen_first {
            counted_bits += e.bits;
        } else if e.origin == Origin::Program {
            *seen_first = true;
        }
    }
    let counted_bytes = counted_bits.div_ceil(8);
    StateSplit {
        bytes,
        counted_bytes,
        in_baseline: true,
        counted: counted_bytes > 0,
    }
}

/// The baseline rule as a path automaton: its state is "a program header
/// went by", every path is accepted.
pub struct FirstHeaderSeen;

impl PathAutomaton for FirstHeaderSeen {
    type S = bool;
    fn initial(&self) -> bool {
        false
    }
    fn step(&self, mut seen: bool, st: &PathState) -> Option<bool> {
        split_state(&mut seen, st);
        Some(seen)
    }
    fn accepts(&self, _: bool) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use p4cost_analysis::{PathExtract, PathState};
    use p4cost_ir::{FileId, Span, StateId};

    fn state(name: &str, extracts: &[(&str, u64, Origin)]) -> PathState {
        let extracts: Vec<PathExtract> = extracts
            .iter()
            .map(|(h, bytes, origin)| PathExtract {
                header: (*h).into(),
                index: None,
                bits: bytes * 8,
                varbit_max_bits: 0,
                origin: *origin,
            })
            .collect();
        PathState {
            state: StateId(0),
            name: name.into(),
            extracted_bits: extracts.iter().map(|e| e.bits).sum(),
            extracts,
            advanced_bits: Some(0),
            span: Span::file_start(FileId(0)),
        }
    }

    /// A resubmitted packet: intrinsic metadata, then 8 B of resubmit data
    /// extracted into the metadata struct in its own state, then Ethernet
    /// in its own state, then IPv4. The resubmit state and Ethernet are
    /// baseline; only IPv4 counts, exactly as on the first pass where the
    /// port metadata is skipped instead.
    #[test]
    fn resubmit_data_in_metadata_is_baseline() {
        let path = ParsePath {
            states: vec![
                state("start", &[("ig_intr_md", 8, Origin::Architecture)]),
                state("parse_resub", &[("md.resub", 8, Origin::Metadata)]),
                state("parse_ethernet", &[("hdr.ethernet", 14, Origin::Program)]),
                state("parse_ipv4", &[("hdr.ipv4", 20, Origin::Program)]),
            ],
        };
        assert_eq!(packet_header_bytes(&path), 34);
        let s = split(&path);
        let counted: Vec<bool> = s.iter().map(|x| x.counted).collect();
        assert_eq!(counted, vec![false, false, false, true]);
        let base: Vec<bool> = s.iter().map(|x| x.in_baseline).collect();
        assert_eq!(base, vec![true, true, true, false]);
        assert_eq!(s[3].counted_bytes, 20);
    }

    /// Metadata and the first header in one state, a second header after
    /// them: only the second header's bytes count.
    #[test]
    fn headers_after_the_first_in_its_state_count() {
        let path = ParsePath {
            states: vec![state(
                "start",
                &[
                    ("ig_intr_md", 8, Origin::Architecture),
                    ("md.bridged", 4, Origin::Metadata),
                    ("hdr.ethernet", 14, Origin::Program),
                    ("hdr.vlan", 4, Origin::Program),
                ],
            )],
        };
        let s = split(&path);
        assert!(s[0].in_baseline && s[0].counted);
        assert_eq!(s[0].counted_bytes, 4);
    }
}
