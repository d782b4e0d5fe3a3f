//! Small constructors for the hand-made programs of this crate's tests.

use p4cost_ir::{FileId, Keyset, SelectCase, Span, StateId, Target, Transition};

/// The site every hand-made node has.
pub fn sp() -> Span {
    Span::file_start(FileId(0))
}

/// `transition <state t>;`
pub fn go(t: u32) -> Transition {
    Transition::Direct {
        target: Target::State(StateId(t)),
    }
}

/// `transition accept;`
pub fn accept() -> Transition {
    Transition::Direct {
        target: Target::Accept,
    }
}

/// A select with one case per target (values 0, 1, ...).
pub fn sel(targets: &[Target]) -> Transition {
    Transition::Select {
        keys: vec![],
        cases: targets
            .iter()
            .enumerate()
            .map(|(i, t)| SelectCase {
                keysets: vec![Keyset::Value {
                    value: i.to_string(),
                }],
                target: *t,
                span: sp(),
            })
            .collect(),
    }
}
