//! The `timestamp_units_mixed` portability lint: one comparison between a
//! timestamp in microseconds and one in nanoseconds.
//!
//! BMv2 simple_switch's v1model timestamps count microseconds
//! (`standard_metadata.ingress_global_timestamp`, `egress_global_timestamp`,
//! `enq_timestamp`, `deq_timedelta`); TNA's count nanoseconds
//! (`ig_intr_md.ingress_mac_tstamp`, the parsers' `global_tstamp`,
//! `eg_intr_md.enq_tstamp`, `deq_timedelta`). A metadata field is known by
//! its name, `deq_timedelta` by the program's architecture too; fields of
//! packet headers are not classified (the service-chaining paper, 3.8).
//!
//! What is traced: the fields an `if` condition's comparison reads, directly
//! or through `+`, `-`, bitwise operators, slices and casts, on either side.
//! A multiplication, division or shift converts a unit, so what passes
//! through one counts as unit-less; so does a value copied into other
//! metadata first (assignments are not followed).

use p4cost_ir::{Arch, CondNode, NodeKind, Program};

use crate::report::{Loc, WarningOut};

/// The unit a timestamp field counts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Micro,
    Nano,
}

/// Timestamp fields of the architectures' metadata, by field name.
/// `deq_timedelta` is both v1model's and TNA's: its unit is the program's
/// architecture's.
const FIELDS: &[(&str, Unit)] = &[
    ("ingress_global_timestamp", Unit::Micro),
    ("egress_global_timestamp", Unit::Micro),
    ("enq_timestamp", Unit::Micro),
    ("ingress_mac_tstamp", Unit::Nano),
    ("global_tstamp", Unit::Nano),
    ("enq_tstamp", Unit::Nano),
];

/// Bit of a unit in a set of units.
fn bit(u: Unit) -> u8 {
    match u {
        Unit::Micro => 1,
        Unit::Nano => 2,
    }
}

/// The unit of field `name` (`sm.ingress_global_timestamp`): by its last
/// component, unless it is a field of a packet header (a header the
/// program extracts or emits carries whatever its sender wrote).
fn unit_of(program: &Program, name: &str) -> Option<Unit> {
    let (inst, field) = name.rsplit_once('.')?;
    if program
        .headers
        .iter()
        .any(|h| h.name == inst && !h.metadata)
    {
        return None;
    }
    if field == "deq_timedelta" {
        return match program.arch {
            Arch::V1model => Some(Unit::Micro),
            Arch::Tna | Arch::T2na => Some(Unit::Nano),
            _ => None,
        };
    }
    FIELDS.iter().find(|(f, _)| *f == field).map(|(_, u)| *u)
}

/// Every comparison of every `if` in the program mixing the two units.
pub fn lints(program: &Program) -> Vec<WarningOut> {
    let mut out = Vec::new();
    for control in &program.controls {
        for node in &control.flow.nodes {
            let NodeKind::Condition { expr, cond, .. } = &node.kind else {
                continue;
            };
            if !cond.is_well_formed() {
                continue;
            }
            for (us, ns) in mixed(program, &cond.nodes) {
                out.push(WarningOut {
                    span: Some(Loc::new(program, node.span)),
                    ..WarningOut::new(
                        "timestamp_units_mixed",
                        format!(
                            "`{}` compares `{us}` (microseconds on BMv2) with `{ns}` (nanoseconds on Tofino): convert one side first (x 1000, or >> 10 for about 1 us)",
                            expr
                        ),
                    )
                });
            }
        }
    }
    out
}

/// For each comparison in `nodes` (post order, well formed) whose operands
/// read both units: a microsecond field and a nanosecond field it reads.
fn mixed(program: &Program, nodes: &[CondNode]) -> Vec<(String, String)> {
    // Per node: the units it carries, and the first field of each unit.
    let mut sets: Vec<(u8, [Option<&str>; 2])> = Vec::with_capacity(nodes.len());
    let mut out = Vec::new();
    for n in nodes {
        let get = |i: u32| sets.get(i as usize).copied().unwrap_or_default();
        let union = |args: &[u32]| {
            args.iter().fold((0u8, [None, None]), |(m, f), a| {
                let (am, af) = get(*a);
                (m | am, [f[0].or(af[0]), f[1].or(af[1])])
            })
        };
        let here = match n {
            CondNode::Field { name } => match unit_of(program, name) {
                Some(u) => {
                    let mut f = [None, None];
                    f[usize::from(bit(u) - 1)] = Some(name.as_str());
                    (bit(u), f)
                }
                None => (0, [None, None]),
            },
            CondNode::Slice { base, .. } => get(*base),
            CondNode::Other { text, args } if !converts(text) => union(args),
            CondNode::Cmp { lhs, rhs, .. } => {
                if let (3, [Some(us), Some(ns)]) = union(&[*lhs, *rhs]) {
                    out.push((us.to_string(), ns.to_string()));
                }
                (0, [None, None])
            }
            _ => (0, [None, None]),
        };
        sets.push(here);
    }
    out
}

/// True for an operator that scales a value (and so may convert a unit).
fn converts(text: &str) -> bool {
    matches!(text, "mul" | "div" | "shl" | "shr" | "mod")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(text: &str) -> Program {
        crate::input::program_of_text(text)
    }

    /// A v1model program keeping TNA's parser metadata in a struct of its
    /// own (as a port half done does), comparing `COND`.
    const V1: &str = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<48> global_tstamp; }
struct ingress_intrinsic_metadata_from_parser_t { bit<48> global_tstamp; }
struct H { h_t h; }
struct M { ingress_intrinsic_metadata_from_parser_t prsr; bit<48> t; }
parser P(packet_in p, out H hdr, inout M m, inout standard_metadata_t s) {
    state start { p.extract(hdr.h); transition accept; }
}
control V(inout H hdr, inout M m) { apply { } }
control I(inout H hdr, inout M m, inout standard_metadata_t s) {
    apply { if (COND) { mark_to_drop(s); } }
}
control E(inout H hdr, inout M m, inout standard_metadata_t s) { apply { } }
control C(inout H hdr, inout M m) { apply { } }
control D(packet_out p, in H hdr) { apply { p.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

    fn codes(cond: &str) -> Vec<WarningOut> {
        lints(&program(&V1.replace("COND", cond)))
    }

    #[test]
    fn us_against_ns_is_flagged_directly_and_through_arithmetic() {
        let w = codes("s.ingress_global_timestamp > m.prsr.global_tstamp");
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].code, "timestamp_units_mixed");
        assert!(w[0].message.contains("ingress_global_timestamp"), "{w:?}");
        assert!(w[0].message.contains("global_tstamp"), "{w:?}");
        assert!(w[0].span.is_some());
        let w = codes("m.prsr.global_tstamp - s.ingress_global_timestamp > 48w100");
        assert_eq!(w.len(), 1, "{w:?}");
    }

    #[test]
    fn one_unit_or_a_converted_side_is_not_flagged() {
        for cond in [
            "s.ingress_global_timestamp - m.t > 48w100",
            "s.egress_global_timestamp > s.ingress_global_timestamp",
            "s.ingress_global_timestamp * 1000 > m.prsr.global_tstamp",
            "s.ingress_global_timestamp > m.prsr.global_tstamp >> 10",
            // A packet header's timestamp has its sender's unit.
            "s.ingress_global_timestamp > hdr.h.global_tstamp",
        ] {
            assert!(codes(cond).is_empty(), "{cond}: {:?}", codes(cond));
        }
    }
}
