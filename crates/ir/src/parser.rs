//! The parse graph: parsers, their states, what each state extracts, and
//! where it goes next.

use serde::{Deserialize, Serialize};

use crate::{Annotation, HeaderId, Origin, Span, StateId};

/// Which half of the pipeline a block belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Gress {
    /// Ingress.
    Ingress,
    /// Egress.
    Egress,
    /// Tofino 2 ghost thread.
    Ghost,
    /// Not known (for example a parser not bound to a package).
    Unknown,
}

impl Gress {
    /// Lower-case name (`ingress`, `egress`, `ghost`, `unknown`).
    pub fn name(self) -> &'static str {
        match self {
            Gress::Ingress => "ingress",
            Gress::Egress => "egress",
            Gress::Ghost => "ghost",
            Gress::Unknown => "unknown",
        }
    }
}

/// A parser: a graph of states starting at [`Parser::start`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Parser {
    /// Name as declared (type name for source programs, `parser` name in
    /// BMv2 JSON).
    pub name: String,
    /// Ingress or egress, when the package binding says so.
    pub gress: Gress,
    /// States, indexed by [`StateId`]. `accept` and `reject` are not
    /// states; they are [`Target::Accept`] and [`Target::Reject`].
    pub states: Vec<ParseState>,
    /// The `start` state.
    pub start: StateId,
    /// Declaration site.
    pub span: Span,
}

impl Parser {
    /// The state with this id.
    pub fn state(&self, id: StateId) -> &ParseState {
        &self.states[id.index()]
    }

    /// The state with this name, if any.
    pub fn state_by_name(&self, name: &str) -> Option<StateId> {
        self.states
            .iter()
            .position(|s| s.name == name)
            .map(|i| StateId(i as u32))
    }
}

/// One parse state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParseState {
    /// State name as declared.
    pub name: String,
    /// Operations in order.
    pub ops: Vec<ParserOp>,
    /// Where the state goes when its operations are done.
    pub transition: Transition,
    /// Annotations on the state.
    pub annotations: Vec<Annotation>,
    /// Declaration site.
    pub span: Span,
}

impl ParseState {
    /// Fixed bits extracted into headers by this state (varbit parts at 0).
    pub fn extracted_bits(&self) -> u64 {
        self.ops
            .iter()
            .map(|op| match op {
                ParserOp::Extract { bits, .. } => *bits,
                _ => 0,
            })
            .sum()
    }
}

/// How an extract addresses a header stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StackAccess {
    /// `stack.next`: the next free element.
    Next,
    /// `stack[i]` with a constant index.
    Index(u32),
}

/// One operation of a parse state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum ParserOp {
    /// `pkt.extract(h)`: copies a header out of the packet.
    Extract {
        /// The header instance as written, without the stack accessor
        /// (`hdr.mpls` for `hdr.mpls.next`).
        header: String,
        /// The instance, when known.
        instance: Option<HeaderId>,
        /// Stack access, for header stacks.
        stack: Option<StackAccess>,
        /// Fixed bits extracted (varbit fields excluded).
        bits: u64,
        /// Maximum extra bits of a varbit field extracted with a length.
        varbit_max_bits: u64,
        /// Architecture (intrinsic metadata) or program header.
        origin: Origin,
        /// Site of the call.
        span: Span,
    },
    /// `pkt.advance(n)` (or an architecture call that skips bits, like
    /// TNA's `port_metadata_unpack`): bits consumed but not extracted.
    Advance {
        /// Bits skipped; `None` when not a compile-time constant.
        bits: Option<u64>,
        /// Site of the call.
        span: Span,
    },
    /// `pkt.lookahead<T>()`: bits inspected, not consumed.
    Lookahead {
        /// Bits inspected, when known.
        bits: Option<u64>,
        /// Site of the call.
        span: Span,
    },
    /// Any other statement (assignment, extern call, verify, sub-parser
    /// call), kept with what it reads and writes.
    Statement {
        /// Short description (`assign`, `verify`, `call checksum.add`, ...).
        what: std::borrow::Cow<'static, str>,
        /// Fields or variables read.
        reads: Vec<String>,
        /// Fields or variables written.
        writes: Vec<String>,
        /// The constant an assignment writes into its one written field
        /// (`meta.l4 = 6`), when it is a compile-time constant: later
        /// conditions on the field are decided along the path.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            with = "constant_text"
        )]
        constant: Option<u128>,
        /// Site of the statement.
        span: Span,
    },
}

/// A statement's constant as JSON text (`"6"`): JSON numbers and serde's
/// buffering of tagged enums stop at 64 bits.
mod constant_text {
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &Option<u128>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(v) => s.serialize_str(&v.to_string()),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u128>, D::Error> {
        match Option::<String>::deserialize(d)? {
            Some(t) => t.parse().map(Some).map_err(D::Error::custom),
            None => Ok(None),
        }
    }
}

impl ParserOp {
    /// The site of the operation.
    pub fn span(&self) -> Span {
        match self {
            ParserOp::Extract { span, .. }
            | ParserOp::Advance { span, .. }
            | ParserOp::Lookahead { span, .. }
            | ParserOp::Statement { span, .. } => *span,
        }
    }
}

/// Where a transition leads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// Another state of the same parser.
    State(StateId),
    /// `accept`.
    Accept,
    /// `reject`.
    Reject,
}

/// One expression of a `select` (or BMv2 `transition_key`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelectKey {
    /// The expression as text (`hdr.ethernet.ether_type`).
    pub expr: String,
    /// Width in bits when known.
    pub width_bits: Option<u32>,
    /// The canonical name of the field when the key is a plain field
    /// (`hdr.ethernet.ether_type`, named as conditions name it); `None` for
    /// slices, `lookahead`, expressions and run-time stack indexes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// Site of the expression.
    pub span: Span,
}

/// One keyset component of a select case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Keyset {
    /// `default` or `_`.
    Default,
    /// A value: a number (decimal or `0x` hex) when the readers could
    /// evaluate it, else the expression as written.
    Value {
        /// The value text.
        value: String,
    },
    /// `value &&& mask`.
    Mask {
        /// The value text.
        value: String,
        /// The mask text.
        mask: String,
    },
    /// `lo .. hi`.
    Range {
        /// Lower bound text.
        lo: String,
        /// Upper bound text.
        hi: String,
    },
    /// A parser value set.
    ValueSet {
        /// The value set's name.
        name: String,
    },
}

/// One case of a select: a tuple of keysets (one per key) and a target.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelectCase {
    /// One keyset per select key; a single [`Keyset::Default`] matches all.
    pub keysets: Vec<Keyset>,
    /// Where the case leads.
    pub target: Target,
    /// Site of the case.
    pub span: Span,
}

impl SelectCase {
    /// True when every keyset is [`Keyset::Default`]: the case matches any
    /// packet.
    pub fn matches_all(&self) -> bool {
        self.keysets.iter().all(|k| *k == Keyset::Default)
    }
}

/// A state's transition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Transition {
    /// `transition target;`
    Direct {
        /// The target.
        target: Target,
    },
    /// `transition select(...) { ... }`
    Select {
        /// The select expressions.
        keys: Vec<SelectKey>,
        /// The cases in order. When no case matches, P4 rejects the packet.
        cases: Vec<SelectCase>,
    },
}

impl Transition {
    /// Every distinct reachable target, in first-seen order. Cases after
    /// the first one that matches everything (all keysets `default` or
    /// `_`) can never be taken and are left out, as the compilers do.
    pub fn targets(&self) -> Vec<Target> {
        match self {
            Transition::Direct { target } => vec![*target],
            Transition::Select { cases, .. } => {
                // A set beside the list keeps this linear in the number of
                // cases (a BMv2 state may have 100k of them).
                let mut out: Vec<Target> = Vec::new();
                let mut seen: std::collections::HashSet<Target> = std::collections::HashSet::new();
                for c in cases {
                    if seen.insert(c.target) {
                        out.push(c.target);
                    }
                    if c.matches_all() {
                        break;
                    }
                }
                out
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FileId;

    fn case(keysets: Vec<Keyset>, t: u32) -> SelectCase {
        SelectCase {
            keysets,
            target: Target::State(StateId(t)),
            span: Span::file_start(FileId(0)),
        }
    }

    #[test]
    fn cases_after_a_catch_all_are_unreachable() {
        let v = |s: &str| Keyset::Value { value: s.into() };
        let t = Transition::Select {
            keys: vec![],
            cases: vec![
                case(vec![v("1"), Keyset::Default], 1),
                case(vec![v("2"), v("3")], 2),
                case(vec![Keyset::Default, Keyset::Default], 3),
                case(vec![v("4"), v("5")], 4),
                case(vec![Keyset::Default], 5),
            ],
        };
        assert_eq!(
            t.targets(),
            vec![
                Target::State(StateId(1)),
                Target::State(StateId(2)),
                Target::State(StateId(3))
            ]
        );
    }
    #[test]
    fn targets_of_a_huge_select_are_distinct_and_in_order() {
        // 100k cases over 50k distinct targets, each target twice: a
        // quadratic duplicate check took seconds here.
        let v = |s: &str| Keyset::Value { value: s.into() };
        let n = 100_000u32;
        let t = Transition::Select {
            keys: vec![],
            cases: (0..n).map(|i| case(vec![v("1")], i % (n / 2))).collect(),
        };
        let got = t.targets();
        assert_eq!(got.len(), (n / 2) as usize);
        assert_eq!(got[0], Target::State(StateId(0)));
        assert_eq!(got[12_345], Target::State(StateId(12_345)));
        assert_eq!(got.last(), Some(&Target::State(StateId(n / 2 - 1))));
    }
}
