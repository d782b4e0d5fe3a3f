//! Portability lints from the service-chaining paper (latency control on
//! BMv2, ported to Tofino; docs/sarif.md): constructs that run on BMv2 but
//! not as written on Tofino.
//!
//! - `register_across_gresses`: one register used in the ingress and the
//!   egress control. Tofino's ingress and egress pipes have separate
//!   register files, so the queue delay egress writes cannot be read by
//!   ingress (the paper's `T_queue`); it needs recirculation, mirroring or
//!   a queue-depth feed.
//! - `register_too_wide`: a register cell wider than 32 bits, more than a
//!   Tofino stateful ALU's word.
//! - `timestamp_units_mixed` (`timestamp_units.rs`): one comparison between
//!   a microsecond and a nanosecond timestamp.
//! - `register_window_too_small` (`register_window.rs`): a ring array of
//!   per-packet slots smaller than the configured rate x window.
//! - `int_bytes_exceed_mtu` (`int_mtu.rs`): the headers the pipeline adds
//!   per hop take a packet past the MTU.

use std::collections::BTreeMap;

use p4cost_ir::{ExternCall, ExternKind, NodeKind, Pipeline, Program, Span};

use crate::options::LintOptions;
use crate::report::{Loc, WarningOut};

/// The widest register cell a Tofino stateful ALU updates, bits.
pub const TOFINO_REGISTER_BITS: u32 = 32;

/// The portability warnings of one pipeline of `program`, the traffic
/// dependent ones judged with `o` for packets of `packet_size` bytes.
pub fn lints(
    program: &Program,
    pipeline: Option<&Pipeline>,
    o: &LintOptions,
    packet_size: u32,
) -> Vec<WarningOut> {
    let mut out = wide_registers(program);
    if let Some(p) = pipeline {
        out.extend(across_gresses(program, p));
    }
    out.extend(crate::timestamp_units::lints(program));
    out.extend(crate::register_window::lints(program, pipeline, o));
    out.extend(crate::int_mtu::lints(program, pipeline, o, packet_size));
    out
}

/// Registers with cells over [`TOFINO_REGISTER_BITS`].
fn wide_registers(program: &Program) -> Vec<WarningOut> {
    program
        .externs
        .iter()
        .filter(|e| e.kind == ExternKind::Register)
        .filter_map(|e| {
            let w = e.width_bits.filter(|w| *w > TOFINO_REGISTER_BITS)?;
            Some(WarningOut {
                span: Some(Loc::new(program, e.span)),
                ..WarningOut::new(
                    "register_too_wide",
                    format!(
                        "register `{}` has {w}-bit cells: a Tofino stateful ALU updates at most {TOFINO_REGISTER_BITS} bits per cell (split it, or keep a narrower value)",
                        e.name
                    ),
                )
            })
        })
        .collect()
}

/// Registers the ingress and the egress control of `p` both use.
fn across_gresses(program: &Program, p: &Pipeline) -> Vec<WarningOut> {
    let mut seen: BTreeMap<&str, [Option<Span>; 2]> = BTreeMap::new();
    for (g, control) in [(0, p.ingress), (1, p.egress)] {
        let Some(c) = control else { continue };
        for node in &program.control(c).flow.nodes {
            for call in calls(program, &node.kind) {
                if let Some(r) = register_of(program, call) {
                    seen.entry(r).or_default()[g].get_or_insert(call.span);
                }
            }
        }
    }
    seen.into_iter()
        .filter_map(|(name, [i, e])| {
            let (i, e) = (i?, e?);
            let decl = program
                .externs
                .iter()
                .find(|x| x.name == name)
                .map(|x| x.span)
                .unwrap_or(i);
            let at = |s: Span| format!("{}:{}", program.file_path(s.file), s.line);
            Some(WarningOut {
                span: Some(Loc::new(program, decl)),
                ..WarningOut::new(
                    "register_across_gresses",
                    format!(
                        "register `{name}` is used in ingress ({}) and in egress ({}): on Tofino ingress and egress have separate registers, so one cannot read what the other wrote (recirculate, mirror, or use a queue-depth feed)",
                        at(i),
                        at(e)
                    ),
                )
            })
        })
        .collect()
}

/// The extern calls a control-flow node makes (a table: all its actions').
pub(crate) fn calls<'p>(program: &'p Program, kind: &'p NodeKind) -> Vec<&'p ExternCall> {
    let of = |a: p4cost_ir::ActionId| program.action(a).externs.iter();
    match kind {
        NodeKind::Table { table, .. } => program
            .table(*table)
            .actions
            .iter()
            .flat_map(|a| of(*a))
            .collect(),
        NodeKind::Action { action, .. } => of(*action).collect(),
        NodeKind::Statement { externs, .. } => externs.iter().collect(),
        _ => Vec::new(),
    }
}

/// The register a call reads or writes, by its instance name (equal, or
/// one a qualified form of the other).
pub(crate) fn register_of<'p>(program: &'p Program, call: &ExternCall) -> Option<&'p str> {
    let i = call.instance.as_str();
    program
        .externs
        .iter()
        .filter(|e| e.kind == ExternKind::Register)
        .find(|e| {
            e.name == i
                || e.name.ends_with(&format!(".{i}"))
                || i.ends_with(&format!(".{}", e.name))
        })
        .map(|e| e.name.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(text: &str) -> Program {
        crate::input::program_of_text(text)
    }

    const V1: &str = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct H { h_t h; }
struct M { bit<64> t; }
parser P(packet_in p, out H hdr, inout M m, inout standard_metadata_t s) {
    state start { p.extract(hdr.h); transition accept; }
}
control V(inout H hdr, inout M m) { apply { } }
control I(inout H hdr, inout M m, inout standard_metadata_t s) {
    register<bit<64>>(16) queue_delay;
    apply { queue_delay.read(m.t, 0); }
}
control E(inout H hdr, inout M m, inout standard_metadata_t s) {
    apply { }
}
control C(inout H hdr, inout M m) { apply { } }
control D(packet_out p, in H hdr) { apply { p.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

    #[test]
    fn a_wide_register_is_flagged_and_a_narrow_one_not() {
        let p = program(V1);
        let w = lints(&p, p.pipelines.first(), &LintOptions::default(), 512);
        assert!(w.iter().any(|w| w.code == "register_too_wide"), "{w:?}");
        let narrow = program(&V1.replace("register<bit<64>>", "register<bit<32>>"));
        let w = lints(
            &narrow,
            narrow.pipelines.first(),
            &LintOptions::default(),
            512,
        );
        assert!(w.is_empty(), "{w:?}");
    }

    /// The paper's `T_queue`: written in egress, read in ingress.
    #[test]
    fn a_register_of_both_gresses_is_flagged() {
        let text = V1
            .replace("register<bit<64>>(16) queue_delay;", "")
            .replace(
                "control V(",
                "register<bit<32>>(16) queue_delay;\ncontrol V(",
            )
            .replace("struct M { bit<64> t; }", "struct M { bit<32> t; }")
            .replace(
                "control E(inout H hdr, inout M m, inout standard_metadata_t s) {\n    apply { }",
                "control E(inout H hdr, inout M m, inout standard_metadata_t s) {\n    apply { queue_delay.write(0, m.t); }",
            );
        let p = program(&text);
        let w = lints(&p, p.pipelines.first(), &LintOptions::default(), 512);
        let codes: Vec<&str> = w.iter().map(|w| w.code.as_str()).collect();
        assert_eq!(codes, ["register_across_gresses"], "{w:?}");
        assert!(w[0].message.contains("queue_delay"), "{w:?}");
    }
}
