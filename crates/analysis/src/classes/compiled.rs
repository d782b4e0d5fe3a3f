//! A control's conditions compiled against its tracked items, once per
//! control: [`TestedHeaders::eval`] looks every leaf up by name (a hash of
//! a string, and a parse of each constant) each time a state is walked;
//! a compiled condition reads the state's bits.

use p4cost_ir::{CmpOp, Cond, CondNode};

use super::{atoms, TestedHeaders};

/// Index of an operand that is not an earlier node: unknown.
const NONE: u32 = u32::MAX;

/// One node of a compiled condition, in the condition's post order.
#[derive(Debug, Clone, Copy)]
enum Op {
    /// A value no state changes (`None`: never known).
    Const(Option<bool>),
    /// A tracked item: first an atom or header bit (known when its unknown
    /// bit is clear: its valid bit, flipped when negated), else a flag bit
    /// mapped through `[value when 0, value when 1]`.
    Leaf {
        atom: Option<(u8, bool)>,
        flag: Option<(u8, [bool; 2])>,
    },
    Not(u32),
    And(u32, u32),
    Or(u32, u32),
}

/// A condition compiled against a [`TestedHeaders`]: evaluates as
/// [`TestedHeaders::eval`] does.
#[derive(Debug, Clone, Default)]
pub(crate) struct Compiled(Box<[Op]>);

impl Compiled {
    /// `cond` compiled against `h`.
    pub(crate) fn new(h: &TestedHeaders, cond: &Cond) -> Compiled {
        let earlier = |j: u32, i: usize| if (j as usize) < i { j } else { NONE };
        let ops = cond
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| match n {
                CondNode::Bool { value } => Op::Const(Some(*value)),
                CondNode::IsValid { header } => match h.bit(header) {
                    Some(b) => leaf(Some((b, false)), None),
                    None => Op::Const(None),
                },
                CondNode::Not { arg } => Op::Not(earlier(*arg, i)),
                CondNode::And { lhs, rhs } => Op::And(earlier(*lhs, i), earlier(*rhs, i)),
                CondNode::Or { lhs, rhs } => Op::Or(earlier(*lhs, i), earlier(*rhs, i)),
                CondNode::Cmp { .. } => match atoms::constant_cmp(cond, i) {
                    Some(v) => Op::Const(Some(v)),
                    None => leaf(h.atom_item(cond, i), flag_of(h, cond, i)),
                },
                CondNode::Field { .. } => leaf(None, flag_of(h, cond, i)),
                _ => Op::Const(None),
            })
            .collect();
        Compiled(ops)
    }

    /// Kleene value when the items in `valid` are true / valid, those in
    /// `unknown` unknown and the others false / invalid.
    pub(crate) fn eval(&self, valid: u64, unknown: u64) -> Option<bool> {
        let n = self.0.len();
        let mut small = [None; 64];
        let mut big: Vec<Option<bool>>;
        let vals: &mut [Option<bool>] = if n <= small.len() {
            &mut small[..n]
        } else {
            big = vec![None; n];
            &mut big
        };
        let known = |b: u8| unknown >> b & 1 == 0;
        let bit = |b: u8| valid >> b & 1 == 1;
        for i in 0..n {
            let get = |j: u32| if j == NONE { None } else { vals[j as usize] };
            vals[i] = match self.0[i] {
                Op::Const(v) => v,
                Op::Leaf { atom, flag } => match (atom, flag) {
                    (Some((b, neg)), _) if known(b) => Some(bit(b) != neg),
                    (_, Some((b, map))) if known(b) => Some(map[usize::from(bit(b))]),
                    _ => None,
                },
                Op::Not(a) => get(a).map(|x| !x),
                Op::And(l, r) => match (get(l), get(r)) {
                    (Some(false), _) | (_, Some(false)) => Some(false),
                    (Some(true), Some(true)) => Some(true),
                    _ => None,
                },
                Op::Or(l, r) => match (get(l), get(r)) {
                    (Some(true), _) | (_, Some(true)) => Some(true),
                    (Some(false), Some(false)) => Some(false),
                    _ => None,
                },
            };
        }
        vals.last().copied().flatten()
    }
}

/// A leaf of the given parts (unknown when it has none that fits a bit).
fn leaf(atom: Option<(u32, bool)>, flag: Option<(u32, [bool; 2])>) -> Op {
    let atom = atom.and_then(|(b, neg)| Some((u8::try_from(b).ok().filter(|&b| b < 64)?, neg)));
    let flag = flag.and_then(|(b, m)| Some((u8::try_from(b).ok().filter(|&b| b < 64)?, m)));
    match (atom, flag) {
        (None, None) => Op::Const(None),
        (atom, flag) => Op::Leaf { atom, flag },
    }
}

/// Node `i` of `cond` as a flag test ([`TestedHeaders::flag_test`]): the
/// flag's bit and the node's value when the flag is 0 and when it is 1.
fn flag_of(h: &TestedHeaders, cond: &Cond, i: usize) -> Option<(u32, [bool; 2])> {
    let flag_bit = |name: &str| -> Option<u32> {
        let b = h.bit(name)?;
        ((b as usize) >= h.names.len() && (b as usize) < h.items()).then_some(b)
    };
    match cond.nodes.get(i)? {
        CondNode::Field { name } => Some((flag_bit(name)?, [false, true])),
        CondNode::Cmp { cmp, lhs, rhs } => {
            let node = |j: u32| cond.nodes.get(j as usize).filter(|_| (j as usize) < i);
            let constant = |n: &CondNode| match n {
                CondNode::Int { value } => atoms::parse_int(value),
                CondNode::Bool { value } => Some(u128::from(*value)),
                _ => None,
            };
            let (name, c) = match (node(*lhs)?, node(*rhs)?) {
                (CondNode::Field { name }, other) | (other, CondNode::Field { name }) => {
                    (name, constant(other)?)
                }
                _ => return None,
            };
            let b = flag_bit(name)?;
            match cmp {
                CmpOp::Eq => Some((b, [c == 0, c == 1])),
                CmpOp::Ne => Some((b, [c != 0, c != 1])),
                _ => None,
            }
        }
        _ => None,
    }
}
