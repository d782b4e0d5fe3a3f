//! The `int_bytes_exceed_mtu` portability lint: the headers a pipeline
//! adds to a packet (in-band telemetry, INT) grow it at every hop, past
//! the MTU after enough of them.
//!
//! In the service-chaining paper's multi-switch segment the INT source
//! pushes a 4 B shim, an 8 B INT header and one 4 B word per metadata
//! instruction per hop (switch id, hop latency, timestamp): 24 B for one
//! hop, the packet 996 -> 1020 B in its capture (Fig. 21; section 3.2),
//! and 12 B more per further hop. A packet already near the MTU no longer
//! fits.
//!
//! Bytes added per pass: the headers the pipeline's ingress or egress
//! control makes valid for certain (an action's or a statement's
//! `setValid` / `add_header`) that no parser of the program extracts and
//! that the deparser emits, at their header type's fixed width (one
//! element of a stack). The packet after `hops` passes is
//! `packet size + hops x added`; over the MTU is a warning, silent when
//! the program adds no bytes. It charges every packet all the headers
//! the pipeline adds (the largest growth of any class).

use std::collections::HashSet;

use p4cost_ir::{ControlId, HeaderKind, NodeKind, ParserOp, Pipeline, Program, Span, ValiditySet};

use crate::options::{LintOptions, DEFAULT_INT_HOPS, DEFAULT_MTU_BYTES};
use crate::report::{Loc, WarningOut};

/// One added header: its bytes and where it is made valid.
struct Added {
    bytes: u64,
    site: Site,
}

/// Where a header is made valid: the site and what is there (an action of
/// a table, an action called directly, a statement).
#[derive(Clone)]
struct Site {
    span: Span,
    what: String,
}

/// The `int_bytes_exceed_mtu` warning of `pipeline`, for packets of
/// `packet_size` bytes.
pub fn lints(
    program: &Program,
    pipeline: Option<&Pipeline>,
    o: &LintOptions,
    packet_size: u32,
) -> Vec<WarningOut> {
    let Some(p) = pipeline else {
        return Vec::new();
    };
    let added = added_headers(program, p);
    let per_pass: u64 = added.iter().map(|(_, a)| a.bytes).sum();
    let Some(first) = added
        .iter()
        .map(|(_, a)| a.site.span)
        .min_by_key(|s| (s.file, s.lo))
    else {
        return Vec::new();
    };
    let hops = o.hops.unwrap_or(DEFAULT_INT_HOPS);
    let mtu = o.mtu_bytes.unwrap_or(DEFAULT_MTU_BYTES);
    let grown = u64::from(packet_size) + u64::from(hops) * per_pass;
    if per_pass == 0 || grown <= u64::from(mtu) {
        return Vec::new();
    }
    let at = |s: Span| format!("{}:{}:{}", program.file_path(s.file), s.line, s.col);
    let list: Vec<String> = added
        .iter()
        .map(|(h, a)| format!("`{h}` {} B", a.bytes))
        .collect();
    let mut sites: Vec<String> = Vec::new();
    for (_, a) in &added {
        let s = format!("{} at {}", a.site.what, at(a.site.span));
        if !sites.contains(&s) {
            sites.push(s);
        }
    }
    vec![WarningOut {
        span: Some(Loc::new(program, first)),
        ..WarningOut::new(
            "int_bytes_exceed_mtu",
            format!(
                "pipeline `{}` adds headers the parser does not extract, {per_pass} B a hop: {} (made valid by {}); a {packet_size} B packet after {hops} hop{} is {grown} B, {} B over the {mtu} B MTU (--packet-size, --hops, --mtu)",
                p.name,
                list.join(", "),
                sites.join(", "),
                if hops == 1 { "" } else { "s" },
                grown - u64::from(mtu),
            ),
        )
    }]
}

/// Headers the ingress or egress control of `p` makes valid for certain,
/// that no parser extracts and the deparser emits, in the order found.
fn added_headers(program: &Program, p: &Pipeline) -> Vec<(String, Added)> {
    let extracted: HashSet<&str> = program
        .parsers
        .iter()
        .flat_map(|x| x.states.iter().flat_map(|s| s.ops.iter()))
        .filter_map(|op| match op {
            ParserOp::Extract { header, .. } => Some(base_of(header)),
            _ => None,
        })
        .collect();
    let emitted: Option<HashSet<&str>> = [p.ingress_deparser, p.egress_deparser]
        .into_iter()
        .flatten()
        .filter_map(|d| program.controls.get(d.index()))
        .filter_map(|d| program.deparsers.iter().find(|x| x.name == d.name))
        .map(|d| d.order.iter().map(|h| base_of(h)).collect::<HashSet<_>>())
        .reduce(|a, b| a.union(&b).copied().collect());
    let mut out: Vec<(String, Added)> = Vec::new();
    for c in [p.ingress, p.egress].into_iter().flatten() {
        for (set, site) in made_valid(program, c) {
            let base = base_of(&set.header);
            if extracted.contains(base) || emitted.as_ref().is_some_and(|e| !e.contains(base)) {
                continue;
            }
            if out.iter().any(|(h, _)| h == base) {
                continue;
            }
            if let Some(bytes) = header_bytes(program, base) {
                out.push((base.to_string(), Added { bytes, site }));
            }
        }
    }
    out
}

/// The validity sets to `true` in control `c`, with their sites (an
/// applied table's actions', a called action's, a statement's).
fn made_valid(program: &Program, c: ControlId) -> Vec<(&ValiditySet, Site)> {
    let mut out = Vec::new();
    for node in &program.control(c).flow.nodes {
        let action = |a: p4cost_ir::ActionId, table: Option<&str>| {
            let a = program.action(a);
            let last = a.name.rsplit('.').next().unwrap_or(&a.name);
            let what = match table {
                Some(t) => format!("action `{last}` of table `{t}`"),
                None => format!("action `{last}`"),
            };
            a.validity.iter().map(move |v| {
                let site = Site {
                    span: a.span,
                    what: what.clone(),
                };
                (v, site)
            })
        };
        match &node.kind {
            NodeKind::Table { table, .. } => {
                let t = program.table(*table);
                for a in &t.actions {
                    out.extend(action(*a, Some(&t.name)));
                }
            }
            NodeKind::Action { action: a, .. } => out.extend(action(*a, None)),
            NodeKind::Statement { validity, .. } => {
                out.extend(validity.iter().map(|v| {
                    let site = Site {
                        span: node.span,
                        what: "a statement".to_string(),
                    };
                    (v, site)
                }));
            }
            _ => {}
        }
    }
    out.retain(|(v, _)| v.valid);
    out
}

/// Bytes of one instance of header `name` (one element of a stack); `None`
/// for metadata or a name the program does not declare. A header no
/// parser extracts has no instance in a source's program: its width is
/// then its field's in the headers struct (every struct field of that
/// name agreeing), a stack's element not known that way.
fn header_bytes(program: &Program, name: &str) -> Option<u64> {
    if let Some(h) = program.headers.iter().find(|h| h.name == name) {
        let bits = program.header_type(h.ty).fixed_bits();
        return (!h.metadata).then_some(bits.div_ceil(8));
    }
    let last = name.rsplit('.').next()?;
    let mut widths = program
        .header_types
        .iter()
        .filter(|t| t.kind == HeaderKind::Struct)
        .flat_map(|t| t.fields.iter().filter(|f| f.name == last && !f.varbit));
    let w = widths.next()?.width_bits;
    widths
        .all(|f| f.width_bits == w)
        .then_some(u64::from(w).div_ceil(8))
}

fn base_of(h: &str) -> &str {
    h.find('[').map_or(h, |i| &h[..i])
}

#[cfg(test)]
mod tests {
    use super::*;

    const ADDS: &str = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
header tele_t { bit<32> hop; bit<64> ts; }
struct H { h_t h; tele_t tele; }
struct M { }
parser P(packet_in p, out H hdr, inout M m, inout standard_metadata_t s) {
    state start { p.extract(hdr.h); transition accept; }
}
control V(inout H hdr, inout M m) { apply { } }
control I(inout H hdr, inout M m, inout standard_metadata_t s) {
    action add() { hdr.tele.setValid(); hdr.tele.hop = 1; }
    table t { key = { hdr.h.a: exact; } actions = { add; NoAction; } }
    apply { t.apply(); }
}
control E(inout H hdr, inout M m, inout standard_metadata_t s) { apply { } }
control C(inout H hdr, inout M m) { apply { } }
control D(packet_out p, in H hdr) { apply { p.emit(hdr.h); p.emit(hdr.tele); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

    fn warnings(text: &str, size: u32, mtu: Option<u32>, hops: Option<u32>) -> Vec<WarningOut> {
        let p = crate::input::program_of_text(text);
        let o = LintOptions {
            mtu_bytes: mtu,
            hops,
            ..LintOptions::default()
        };
        lints(&p, p.pipelines.first(), &o, size)
    }

    #[test]
    fn added_bytes_past_the_mtu_are_flagged_with_the_header_and_its_bytes() {
        // 12 B a hop: 1489 + 12 = 1501 > 1500 (the default MTU, one hop).
        let w = warnings(ADDS, 1489, None, None);
        assert_eq!(w.len(), 1, "{w:?}");
        let m = &w[0].message;
        assert!(
            m.contains("`hdr.tele` 12 B") && m.contains("1501 B, 1 B over the 1500 B MTU"),
            "{m}"
        );
        assert!(m.contains("action `add` of table `I.t`"), "{m}");
        assert!(warnings(ADDS, 1488, None, None).is_empty());
    }

    #[test]
    fn hops_multiply_and_the_mtu_is_the_users() {
        // 1000 + 3 x 12 = 1036.
        assert_eq!(warnings(ADDS, 1000, Some(1035), Some(3)).len(), 1);
        assert!(warnings(ADDS, 1000, Some(1036), Some(3)).is_empty());
    }

    #[test]
    fn a_header_the_parser_extracts_or_the_deparser_drops_adds_nothing() {
        let parsed = ADDS.replace(
            "p.extract(hdr.h); transition accept;",
            "p.extract(hdr.h); p.extract(hdr.tele); transition accept;",
        );
        assert!(warnings(&parsed, 16000, Some(64), Some(100)).is_empty());
        let dropped = ADDS.replace(" p.emit(hdr.tele);", "");
        assert!(warnings(&dropped, 16000, Some(64), Some(100)).is_empty());
    }
}
