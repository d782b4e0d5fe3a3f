//! The `register_window_too_small` portability lint: a register array used
//! as a ring of per-packet slots has fewer cells than packets arrive in
//! the time a slot must live.
//!
//! The service-chaining paper keeps each latency-controlled packet's
//! arrival time in a cyclic array `t1[offset1]`, `offset1` advancing by
//! one per packet; the packet leaving the last VNF reads its slot back.
//! A slot is overwritten after as many packets as the array has cells, so
//! the array needs at least rate x the longest time a packet is away
//! (its section 4.3: 10 Gbit/s of 500 B packets for 20 ms is 50,000
//! slots). The lint needs both numbers from the user (`--rate`,
//! `--window` or p4cost.toml's `rate`, `window`) and is silent without
//! them.
//!
//! A ring array is recognised from the program: a register written with
//! an index that reads a value read from another register that the same
//! control also writes (the slot counter). A register indexed by a hash,
//! a header field or action data holds one cell per flow or per entry,
//! not per packet, and is not judged. With several flows sharing one
//! array (`(flow << k) + offset`) the rate is the packets of all of them:
//! the check is on the whole array, a necessary condition only.

use std::collections::BTreeMap;

use p4cost_ir::{ActionId, ControlId, ExternCall, NodeKind, Pipeline, Program, Span};

use crate::lint_units::{rate_text, window_text};
use crate::options::LintOptions;
use crate::portability::register_of;
use crate::report::{Loc, WarningOut};

/// A ring array's slot write: the counter register feeding its index and
/// the call's site.
struct SlotWrite<'p> {
    counter: &'p str,
    span: Span,
}

/// The `register_window_too_small` warnings of the controls of `pipeline`
/// (every control without one), given a rate and a window in `o`.
pub fn lints(program: &Program, pipeline: Option<&Pipeline>, o: &LintOptions) -> Vec<WarningOut> {
    let (Some(rate), Some(window_ns)) = (o.rate_pps, o.window_ns) else {
        return Vec::new();
    };
    let needed = (rate * window_ns / 1e9).ceil();
    let controls: Vec<ControlId> = match pipeline {
        Some(p) => [p.ingress, p.egress].into_iter().flatten().collect(),
        None => (0..program.controls.len() as u32).map(ControlId).collect(),
    };
    let mut rings: BTreeMap<&str, SlotWrite> = BTreeMap::new();
    for c in controls {
        for (r, w) in slot_writes(program, c) {
            rings.entry(r).or_insert(w);
        }
    }
    rings
        .into_iter()
        .filter_map(|(name, w)| {
            let decl = program.externs.iter().find(|x| x.name == name)?;
            let cells = decl.size?;
            ((cells as f64) < needed).then(|| WarningOut {
                span: Some(Loc::new(program, decl.span)),
                ..WarningOut::new(
                    "register_window_too_small",
                    message(program, name, cells, needed, rate, window_ns, &w),
                )
            })
        })
        .collect()
}

fn message(
    program: &Program,
    name: &str,
    cells: u64,
    needed: f64,
    rate: f64,
    window_ns: f64,
    w: &SlotWrite,
) -> String {
    let at = |s: Span| format!("{}:{}:{}", program.file_path(s.file), s.line, s.col);
    let decl = program
        .externs
        .iter()
        .find(|x| x.name == name)
        .map_or_else(String::new, |x| format!(" (declared at {})", at(x.span)));
    format!(
        "register `{name}`{decl} has {cells} cells, but it is a ring of per-packet slots (written at {} with an index read from register `{}`) and {} over {} needs {needed} cells: a slot is overwritten before the window ends (size it at rate x window)",
        at(w.span),
        w.counter,
        rate_text(rate),
        window_text(window_ns),
    )
}

/// The registers control `c` writes at an index fed by another register's
/// value (a slot counter the control also writes), each with its first
/// such write. A value is followed within one action (its locals), and
/// across actions and statements by the place only when one register
/// fills it.
fn slot_writes(program: &Program, c: ControlId) -> Vec<(&str, SlotWrite<'_>)> {
    let groups = call_groups(program, c);
    let all = || groups.iter().flatten().copied();
    let writes = |call: &ExternCall| matches!(call.method.as_str(), "write" | "execute");
    let written: Vec<&str> = all()
        .filter(|x| writes(x))
        .filter_map(|x| register_of(program, x))
        .collect();
    let everywhere = fed_by(program, &written, all());
    let mut out = Vec::new();
    for g in &groups {
        let here = fed_by(program, &written, g.iter().copied());
        for x in g.iter().filter(|x| writes(x)) {
            let Some(r) = register_of(program, x) else {
                continue;
            };
            let counter = x.index_reads.iter().find_map(|i| {
                only(&here, i)
                    .or_else(|| only(&everywhere, i))
                    .filter(|c| *c != r)
            });
            if let Some(counter) = counter {
                out.push((
                    r,
                    SlotWrite {
                        counter,
                        span: x.span,
                    },
                ));
            }
        }
    }
    out
}

/// Place -> the registers of `written` (advancing) whose value a read
/// among `calls` left in it.
fn fed_by<'p>(
    program: &'p Program,
    written: &[&'p str],
    calls: impl Iterator<Item = &'p ExternCall>,
) -> BTreeMap<&'p str, Vec<&'p str>> {
    let mut fed: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for x in calls {
        if let (Some(r), Some(place)) = (register_of(program, x), x.result.as_deref()) {
            if written.contains(&r) {
                let v = fed.entry(place).or_default();
                if !v.contains(&r) {
                    v.push(r);
                }
            }
        }
    }
    fed
}

/// The one register `fed` says place `i` holds, if exactly one.
fn only<'p>(fed: &BTreeMap<&'p str, Vec<&'p str>>, i: &str) -> Option<&'p str> {
    match fed.get(i).map(Vec::as_slice) {
        Some([one]) => Some(*one),
        _ => None,
    }
}

/// The extern calls of control `c` in groups that share locals: each
/// action it runs (once), and its apply block's statements together.
fn call_groups(program: &Program, c: ControlId) -> Vec<Vec<&ExternCall>> {
    let mut seen = Vec::new();
    let mut groups = Vec::new();
    let mut statements = Vec::new();
    for n in &program.control(c).flow.nodes {
        let actions: Vec<ActionId> = match &n.kind {
            NodeKind::Table { table, .. } => program.table(*table).actions.clone(),
            NodeKind::Action { action, .. } => vec![*action],
            NodeKind::Statement { externs, .. } => {
                statements.extend(externs.iter());
                continue;
            }
            _ => continue,
        };
        for a in actions {
            if !seen.contains(&a) {
                seen.push(a);
                groups.push(program.action(a).externs.iter().collect());
            }
        }
    }
    groups.push(statements);
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    const RING: &str = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct H { h_t h; }
struct M { bit<32> x; }
register<bit<32>>(1000) slots;
register<bit<32>>(1) head;
register<bit<32>>(64) per_flow;
parser P(packet_in p, out H hdr, inout M m, inout standard_metadata_t s) {
    state start { p.extract(hdr.h); transition accept; }
}
control V(inout H hdr, inout M m) { apply { } }
control I(inout H hdr, inout M m, inout standard_metadata_t s) {
    action rec() {
        bit<32> i;
        head.read(i, 0);
        slots.write(i, (bit<32>) s.ingress_global_timestamp);
        head.write(0, i + 1);
    }
    action flow(bit<32> f) {
        per_flow.write(f, (bit<32>) s.ingress_global_timestamp);
    }
    table t { key = { hdr.h.a: exact; } actions = { rec; flow; } }
    apply { t.apply(); }
}
control E(inout H hdr, inout M m, inout standard_metadata_t s) { apply { } }
control C(inout H hdr, inout M m) { apply { } }
control D(packet_out p, in H hdr) { apply { p.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

    fn warnings(text: &str, rate: Option<f64>, window_ns: Option<f64>) -> Vec<WarningOut> {
        let p = crate::input::program_of_text(text);
        let o = LintOptions {
            rate_pps: rate,
            window_ns,
            ..LintOptions::default()
        };
        lints(&p, p.pipelines.first(), &o)
    }

    #[test]
    fn a_ring_smaller_than_rate_times_window_is_flagged_at_its_declaration() {
        // 1 Mpps for 1.001 ms: 1001 slots needed, 1000 there.
        let w = warnings(RING, Some(1e6), Some(1.001e6));
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].code, "register_window_too_small");
        let m = &w[0].message;
        assert!(m.contains("`slots`") && m.contains("1000 cells"), "{m}");
        assert!(
            m.contains("needs 1001 cells") && m.contains("register `head`"),
            "{m}"
        );
        assert_eq!(w[0].span.as_ref().map(|s| s.line), Some(7), "{w:?}");
    }

    #[test]
    fn a_ring_as_large_as_rate_times_window_is_clean() {
        assert!(warnings(RING, Some(1e6), Some(1e6)).is_empty());
    }

    #[test]
    fn without_a_rate_and_a_window_the_lint_is_silent() {
        assert!(warnings(RING, Some(1e9), None).is_empty());
        assert!(warnings(RING, None, Some(1e9)).is_empty());
    }

    /// The index must come from a register the control advances: a
    /// `head` only read (set by the control plane) is a base, not a
    /// counter, and action data (`per_flow`) is one cell per flow.
    #[test]
    fn an_index_from_a_register_never_written_or_from_action_data_is_not_a_ring() {
        let text = RING.replace("head.write(0, i + 1);", "");
        assert!(warnings(&text, Some(1e9), Some(1e9)).is_empty());
    }

    /// An index copied through locals is followed; a chain of copies
    /// keeps at most `MAX_INDEX_READS` names (not the square of its length).
    #[test]
    fn copies_are_followed_and_a_long_chain_of_them_is_bounded() {
        let chain = |n: usize| {
            let mut body = String::from("bit<32> c0 = i;\n");
            for k in 1..n {
                body.push_str(&format!("        bit<32> c{k} = c{};\n", k - 1));
            }
            RING.replace(
                "slots.write(i,",
                &format!("{body}        slots.write(c{},", n - 1),
            )
        };
        let w = warnings(&chain(3), Some(1e6), Some(1.001e6));
        assert_eq!(w.len(), 1, "{w:?}");
        let p = crate::input::program_of_text(&chain(400));
        let call = p
            .actions
            .iter()
            .flat_map(|a| a.externs.iter())
            .find(|c| c.instance == "slots")
            .expect("slots.write");
        assert!(
            !call.index_reads.is_empty() && call.index_reads.len() <= p4cost_ir::MAX_INDEX_READS,
            "{}",
            call.index_reads.len()
        );
    }

    /// PSA's `Register.read(i)` returns the value: the place it is
    /// assigned to (a local's initialiser, or an assignment) holds it.
    #[test]
    fn a_psa_ring_fed_through_a_returned_value_is_flagged() {
        let sample = include_str!("../../../p4-samples/psa/named_pipelines.p4");
        let ring = |body: &str| {
            let text = sample
                .replacen(
                    "    action drop() { ingress_drop(ostd); }",
                    &format!(
                        "    action drop() {{ ingress_drop(ostd); }}\n    Register<bit<32>, bit<32>>(32w512) slots;\n    Register<bit<32>, bit<32>>(32w1) head;\n    action rec() {{\n{body}\n        slots.write(i, 1);\n        head.write(0, i + 1);\n    }}"
                    ),
                    1,
                )
                .replacen("actions = { send; drop; }", "actions = { send; drop; rec; }", 1);
            assert_ne!(text, sample);
            warnings(&text, Some(1e6), Some(1e6))
        };
        for body in [
            "        bit<32> i = head.read(0);",
            "        bit<32> i;\n        i = head.read(0);",
        ] {
            let w = ring(body);
            assert_eq!(w.len(), 1, "{body}: {w:?}");
            assert!(
                w[0].message.contains("512 cells") && w[0].message.contains("`head`"),
                "{w:?}"
            );
        }
    }

    /// Two actions with a local of the same name: each write is tied to
    /// the counter of its own action.
    #[test]
    fn locals_of_the_same_name_in_two_actions_keep_their_own_counters() {
        let text = RING
            .replace(
                "register<bit<32>>(1) head;",
                "register<bit<32>>(1) head;\nregister<bit<32>>(1) head2;\nregister<bit<32>>(10) slots2;",
            )
            .replace(
                "    action flow(",
                "    action rec2() {\n        bit<32> i;\n        head2.read(i, 0);\n        slots2.write(i, 1);\n        head2.write(0, i + 1);\n    }\n    action flow(",
            )
            .replace("actions = { rec; flow; }", "actions = { rec; rec2; flow; }");
        let w = warnings(&text, Some(1e6), Some(1.001e6));
        let m: Vec<&str> = w.iter().map(|w| w.message.as_str()).collect();
        assert_eq!(m.len(), 2, "{m:?}");
        assert!(
            m.iter()
                .any(|m| m.contains("`slots2`") && m.contains("register `head2`")),
            "{m:?}"
        );
        assert!(
            m.iter()
                .any(|m| m.contains("`slots`") && m.contains("register `head`")),
            "{m:?}"
        );
    }
}
