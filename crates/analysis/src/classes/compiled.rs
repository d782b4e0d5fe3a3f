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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_ir::lower_source;
    use p4cost_ir::NodeKind;

    /// Every condition of a control with header, flag and field tests
    /// (negated, combined, compared both ways round, against constants
    /// other than 0 and 1) evaluates compiled as by name, in every state
    /// of its items.
    #[test]
    fn compiled_conditions_evaluate_as_the_named_ones() {
        let src = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> x; bit<16> t; }
struct headers_t { h_t a; h_t b; }
struct meta_t { bit<1> punted; bit<8> l4; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t md, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.a); transition select(hdr.a.t) { 0x800: b; default: accept; } }
    state b { pkt.extract(hdr.b); md.l4 = 6; transition accept; }
}
control Ig(inout headers_t hdr, inout meta_t md, inout standard_metadata_t sm) {
    action punt() { md.punted = 1; }
    table t1 { key = { hdr.a.x : exact; } actions = { punt; } }
    table t2 { key = { hdr.a.x : exact; } actions = { punt; } }
    apply {
        bool dropped = false;
        md.punted = 0;
        if (t1.apply().hit) { dropped = true; }
        if (!dropped && hdr.b.isValid()) { t2.apply(); }
        if (md.punted == 1 || !(hdr.a.t != 0x800)) { t2.apply(); }
        if (0x800 == hdr.a.t && md.l4 == 6) { t1.apply(); }
        if (md.punted != 2 && (dropped == true || !hdr.a.isValid())) { t1.apply(); }
        if (md.punted == 0 || 1 == 1) { t2.apply(); }
    }
}
control VC(inout headers_t hdr, inout meta_t md) { apply { } }
control CC(inout headers_t hdr, inout meta_t md) { apply { } }
control Eg(inout headers_t hdr, inout meta_t md, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), Ig(), Eg(), CC(), D()) main;
"#;
        let p = lower_source(src);
        let flow = &p.control(p.ingress_control().expect("ingress")).flow;
        let h = TestedHeaders::of_program(&p, flow);
        assert!(!h.names.is_empty() && !h.flags.is_empty() && !h.atoms.is_empty());
        let items = h.items() + h.atoms.len();
        let mut conds = 0;
        for node in &flow.nodes {
            let NodeKind::Condition { cond, .. } = &node.kind else {
                continue;
            };
            conds += 1;
            let c = Compiled::new(&h, cond);
            for state in 0..3u64.pow(items as u32) {
                // Each item valid, invalid or unknown.
                let (mut valid, mut unknown, mut x) = (0u64, 0u64, state);
                for b in 0..items {
                    match x % 3 {
                        0 => valid |= 1 << b,
                        1 => unknown |= 1 << b,
                        _ => {}
                    }
                    x /= 3;
                }
                assert_eq!(
                    c.eval(valid, unknown),
                    h.eval(cond, valid, unknown),
                    "{} with valid {valid:b}, unknown {unknown:b}",
                    cond.text()
                );
            }
        }
        assert!(conds >= 5, "{conds} conditions");
    }
}
