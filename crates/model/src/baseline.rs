//! Which states of a path the Tofino model's baseline `L_B` covers.
//!
//! The paper's start state extracts the TNA intrinsic metadata, skips the
//! port metadata and extracts Ethernet; that state is part of `L_B` and
//! not of `L_PD` (MODELS.md section 1, [resolved]). p4cost generalises the
//! rule to programs laid out differently: the baseline covers everything up
//! to and including the first program header (Ethernet, in practice),
//! whether it sits in one state or several. After it, each state that
//! extracts at least one header counts once with the bytes it extracts; if
//! the state that extracts the first header extracts more headers after it,
//! those count as that state's contribution.

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
    // Still inside the baseline: metadata extracts and the first
    // program header are covered; program headers after the first
    // one in the same state are counted.
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
