//! MAU latency per gress, as the Tofino compiler computes it.
//!
//! Latency of one gress = 4 cycles of fixed corner turn + the sum of the
//! gress's `cycles_contribute_to_latency` over its stages. This reproduces
//! the compiler's figures for every fixture (e.g. fabric sde9.2.0: ingress
//! 105, egress 195 cycles).
//!
//! Egress padding: on Tofino 1 the assembler makes egress stages match
//! dependent, lowest first, until its own egress sum (4 + stages 1 and up)
//! reaches 160 cycles. That padding is already visible in the context's
//! `match_dependent` flags and cycle figures (egress stages 1-8 match
//! dependent in the fixtures, egress 187 cycles for a near-empty egress),
//! so [`mau_latency`] adds no padding of its own: it reports what the
//! compiler wrote (or, for schema 1.8, what the flags imply).

use p4cost_ir::{Gress, Program};
use serde::Serialize;

/// Fixed cycles added once per gress (Tofino corner turn).
pub const CORNER_TURN_CYCLES: u32 = 4;

/// A default clock for converting cycles to time (SKUs range 1.0-1.5 GHz).
pub const DEFAULT_CLOCK_GHZ: f64 = 1.22;

/// One stage of one gress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StageRow {
    /// Stage number.
    pub stage: i32,
    /// Match tables placed in this stage for this gress (qualified names).
    pub tables: Vec<String>,
    /// True when the stage waits for the previous stage's match result.
    pub match_dependent: bool,
    /// Stage length in cycles.
    pub clock_cycles: u32,
    /// Cycles the stage adds to the gress latency.
    pub cycles: u32,
}

/// MAU latency of one gress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GressLatency {
    /// Ingress, egress (or ghost).
    pub gress: Gress,
    /// Total cycles, corner turn included.
    pub cycles: u32,
    /// The corner-turn part of [`GressLatency::cycles`].
    pub corner_turn: u32,
    /// The stages in order.
    pub stages: Vec<StageRow>,
    /// True when the stage figures were estimated by p4cost.
    pub estimated: bool,
}

/// The MAU latency of every gress with stage records, ingress first;
/// `None` when the program carries no stage characteristics.
pub fn mau_latency(program: &Program) -> Option<Vec<GressLatency>> {
    let mau = program.mau.as_ref()?;
    let mut gresses: Vec<Gress> = Vec::new();
    for g in [Gress::Ingress, Gress::Egress, Gress::Ghost, Gress::Unknown] {
        if mau.stages.iter().any(|s| s.gress == g) {
            gresses.push(g);
        }
    }
    let mut out = Vec::new();
    for gress in gresses {
        let mut recs: Vec<_> = mau.stages.iter().filter(|s| s.gress == gress).collect();
        recs.sort_by_key(|s| s.stage);
        let stages: Vec<StageRow> = recs
            .iter()
            .map(|s| StageRow {
                stage: s.stage,
                tables: program
                    .tables
                    .iter()
                    .filter(|t| t.stages.contains(&s.stage))
                    .filter(|t| {
                        t.control
                            .and_then(|c| program.controls.get(c.index()))
                            .is_some_and(|c| c.gress == gress)
                    })
                    .map(|t| t.name.clone())
                    .collect(),
                match_dependent: s.match_dependent,
                clock_cycles: s.clock_cycles,
                cycles: s.cycles_contribute_to_latency,
            })
            .collect();
        let sum = stages
            .iter()
            .fold(0u32, |acc, s| acc.saturating_add(s.cycles));
        out.push(GressLatency {
            gress,
            cycles: CORNER_TURN_CYCLES.saturating_add(sum),
            corner_turn: CORNER_TURN_CYCLES,
            stages,
            estimated: mau.estimated,
        });
    }
    Some(out)
}

/// Cycles to nanoseconds at a clock in GHz (0 for a non-positive clock).
pub fn cycles_to_ns(cycles: u32, clock_ghz: f64) -> f64 {
    if clock_ghz > 0.0 && clock_ghz.is_finite() {
        f64::from(cycles) / clock_ghz
    } else {
        0.0
    }
}

/// The total of one gress for JSON output.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GressTotal {
    /// Total cycles, corner turn included.
    pub cycles: u32,
    /// The same in nanoseconds at the report's clock.
    pub ns: f64,
    /// Corner-turn cycles included in `cycles`.
    pub corner_turn: u32,
    /// True when estimated by p4cost.
    pub estimated: bool,
}

/// One stage of one gress for JSON output.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StageReportRow {
    /// `ingress`, `egress` or `ghost`.
    pub gress: Gress,
    /// Stage number.
    pub stage: i32,
    /// Match tables placed there.
    pub tables: Vec<String>,
    /// Match dependent on the previous stage.
    pub match_dependent: bool,
    /// Stage length in cycles.
    pub clock_cycles: u32,
    /// Cycles added to the gress latency.
    pub cycles: u32,
    /// Those cycles in nanoseconds.
    pub ns: f64,
}

/// The whole stage-latency report, serialisable as JSON with
/// `ingress.cycles`, `egress.cycles`, `ingress.ns`, `egress.ns` and
/// `stages[]`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StagesReport {
    /// Clock used for the nanosecond figures.
    pub clock_ghz: f64,
    /// Ingress total, when present.
    pub ingress: Option<GressTotal>,
    /// Egress total, when present.
    pub egress: Option<GressTotal>,
    /// Ghost thread total (Tofino 2), when present.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ghost: Option<GressTotal>,
    /// True when any figure was estimated.
    pub estimated: bool,
    /// Every stage of every gress, ingress first.
    pub stages: Vec<StageReportRow>,
}

/// Builds the JSON report for the given latencies and clock.
pub fn stages_report(latencies: &[GressLatency], clock_ghz: f64) -> StagesReport {
    let total = |g: Gress| {
        latencies.iter().find(|l| l.gress == g).map(|l| GressTotal {
            cycles: l.cycles,
            ns: cycles_to_ns(l.cycles, clock_ghz),
            corner_turn: l.corner_turn,
            estimated: l.estimated,
        })
    };
    StagesReport {
        clock_ghz,
        ingress: total(Gress::Ingress),
        egress: total(Gress::Egress),
        ghost: total(Gress::Ghost),
        estimated: latencies.iter().any(|l| l.estimated),
        stages: latencies
            .iter()
            .flat_map(|l| {
                l.stages.iter().map(move |s| StageReportRow {
                    gress: l.gress,
                    stage: s.stage,
                    tables: s.tables.clone(),
                    match_dependent: s.match_dependent,
                    clock_cycles: s.clock_cycles,
                    cycles: s.cycles,
                    ns: cycles_to_ns(s.cycles, clock_ghz),
                })
            })
            .collect(),
    }
}

fn gress_name(g: Gress) -> &'static str {
    match g {
        Gress::Ingress => "ingress",
        Gress::Egress => "egress",
        Gress::Ghost => "ghost",
        Gress::Unknown => "unknown",
    }
}

/// A readable per-gress, per-stage table of the latencies.
pub fn render_human(latencies: &[GressLatency], clock_ghz: f64) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    if latencies.is_empty() {
        out.push_str("no MAU stage information\n");
        return out;
    }
    for l in latencies {
        let _ = writeln!(
            out,
            "{}: {} cycles = {:.1} ns at {} GHz (corner turn {} + stages {}){}",
            gress_name(l.gress),
            l.cycles,
            cycles_to_ns(l.cycles, clock_ghz),
            clock_ghz,
            l.corner_turn,
            l.cycles.saturating_sub(l.corner_turn),
            if l.estimated {
                "  [ESTIMATED: schema without cycle figures]"
            } else {
                ""
            }
        );
        let _ = writeln!(
            out,
            "  {:>5}  {:<8}  {:>6}  {:>4}  tables",
            "stage", "depends", "length", "adds"
        );
        for s in &l.stages {
            let dep = if s.match_dependent { "match" } else { "-" };
            let tables = if s.tables.is_empty() {
                "-".to_string()
            } else {
                s.tables.join(", ")
            };
            let _ = writeln!(
                out,
                "  {:>5}  {:<8}  {:>6}  {:>4}  {}",
                s.stage, dep, s.clock_cycles, s.cycles, tables
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use p4cost_ir::{InputKind, MauPlacement, MauStage};

    fn stage(gress: Gress, stage: i32, md: bool, len: u32, adds: u32) -> MauStage {
        MauStage {
            gress,
            stage,
            clock_cycles: len,
            predication_cycle: None,
            match_dependent: md,
            cycles_contribute_to_latency: adds,
        }
    }

    #[test]
    fn sums_per_gress_with_corner_turn() {
        let mut p = Program::new("p", InputKind::TofinoContext);
        p.mau = Some(MauPlacement {
            stages: vec![
                stage(Gress::Egress, 0, true, 20, 20),
                stage(Gress::Ingress, 1, false, 22, 2),
                stage(Gress::Ingress, 0, true, 22, 22),
            ],
            estimated: false,
            target: "tofino".into(),
        });
        let l = mau_latency(&p).unwrap();
        assert_eq!(l.len(), 2);
        assert_eq!(l[0].gress, Gress::Ingress);
        assert_eq!(l[0].cycles, 28);
        assert_eq!(l[0].stages[0].stage, 0);
        assert_eq!(l[1].cycles, 24);
        let r = stages_report(&l, 1.0);
        assert_eq!(r.ingress.as_ref().unwrap().ns, 28.0);
        assert_eq!(r.stages.len(), 3);
        let text = render_human(&l, 1.0);
        assert!(text.contains("ingress: 28 cycles = 28.0 ns"), "{text}");
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["egress"]["cycles"], 24);
        assert_eq!(v["stages"][0]["gress"], "ingress");
    }

    #[test]
    fn no_mau_no_latency() {
        let p = Program::new("p", InputKind::TofinoContext);
        assert!(mau_latency(&p).is_none());
        assert_eq!(cycles_to_ns(122, 1.22), 100.0);
        assert_eq!(cycles_to_ns(10, 0.0), 0.0);
    }
}
