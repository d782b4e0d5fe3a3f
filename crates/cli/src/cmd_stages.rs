//! `p4cost stages`: the compiler's MAU latency per gress, computed by the
//! engine (`p4cost_engine::stages`: the compiler's placement summed by the
//! `tofino1-mau-cycles` model, or a placement estimated from the source)
//! and rendered here as a per-stage table or JSON.

use std::fmt::Write as _;
use std::io::Write;

use p4cost_ir::Gress;
use p4cost_model::mau_cycles::{GressCycles, MauPrediction};
use p4cost_model::mau_estimate::resources::{Limits, PipeTotals, Resources, UnitResources};
use p4cost_model::mau_estimate::{GressPlan, PipelinePlan, StageDep};
use p4cost_model::placement_why::UnitPlace;
use serde::Serialize;

use crate::args::{Format, StagesArgs};
use crate::exit::{CliError, Exit};
use p4cost_engine::stages;

/// `result`, or for a program its chip cannot hold, the finding: with
/// `--format human` its sentence on `out` and `Err(Exit::Failed)` (with
/// JSON, there is no report: the error goes to stderr, exit 1). `stages`
/// and `resources` answer a program that does not fit alike.
pub(crate) fn fits<T>(
    result: Result<T, p4cost_engine::Error>,
    format: Format,
    out: &mut dyn Write,
) -> Result<Result<T, Exit>, CliError> {
    match result {
        Ok(t) => Ok(Ok(t)),
        Err(p4cost_engine::Error::DoesNotFit { message, .. }) if format == Format::Human => {
            writeln!(out, "{message}").map_err(CliError::output)?;
            Ok(Err(Exit::Failed))
        }
        Err(e) => Err(e.into()),
    }
}

/// The per-stage table (or JSON); a program over its chip's stages is a
/// finding, exit 1: the sentence with the chain that overflows, on stdout
/// for a person, on stderr with `--format json` (there is no report).
pub fn run(a: &StagesArgs, out: &mut dyn Write) -> Result<Exit, CliError> {
    let st = match fits(stages::stages(&a.options()), a.format, out)? {
        Ok(st) => st,
        Err(exit) => return Ok(exit),
    };
    let plan = st.plan.as_ref();
    let memory = p4cost_engine::resources::of_plan(&st)?;
    let text = match a.format {
        Format::Human => {
            let mut text = render_human(&st.prediction, plan);
            if let Some(m) = &memory {
                text.push_str(&memory_line(m));
            }
            if a.explain {
                render_explain(&mut text, plan);
            }
            text
        }
        Format::Json => {
            let mut report = StagesReport::new(
                &st.prediction,
                &st.shown,
                &st.model,
                plan,
                &st.program.notes,
            );
            report.memory = memory.as_ref().map(|m| MemoryRow {
                limits: &m.limits,
                pipe: &m.pipe,
                units: &m.units,
            });
            if a.explain {
                report.with_explain(plan);
            }
            crate::json_out::to_pretty(&report)?
        }
    };
    out.write_all(text.as_bytes()).map_err(CliError::output)?;
    Ok(Exit::Ok)
}

/// One stage of one gress in the JSON report: the fields of the model's
/// stage record (as `predict --model tofino1-mau-cycles` prints them),
/// plus the estimate's dependency and reason.
#[derive(Debug, Serialize, schemars::JsonSchema)]
struct StageRow<'a> {
    stage: i32,
    tables: &'a [String],
    match_dependent: bool,
    clock_cycles: u32,
    cycles: u32,
    ns: f64,
    /// `match`, `action` or `concurrent` (estimates only).
    #[serde(skip_serializing_if = "Option::is_none")]
    dependency: Option<StageDep>,
    /// Why the stage depends on the previous one (estimates only).
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
    /// Every unit the estimate placed in the stage: `tables` and the
    /// gateways (`if (...)`) the compiler merges into them (estimates only).
    #[serde(skip_serializing_if = "Option::is_none")]
    units: Option<&'a [String]>,
}

/// One gress: the same fields as `predict`'s `mau.ingress`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
struct GressRow<'a> {
    gress: Gress,
    cycles: u32,
    corner_turn_cycles: u32,
    ns: f64,
    stages: Vec<StageRow<'a>>,
}

/// The MAU figures: the same fields as `predict`'s `mau`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
struct MauRow<'a> {
    clock_ghz: f64,
    clock_is_default: bool,
    estimated: bool,
    ingress: Option<GressRow<'a>>,
    egress: Option<GressRow<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ghost: Option<GressRow<'a>>,
}

/// What an estimate rests on, per gress.
#[derive(Debug, Serialize, schemars::JsonSchema)]
struct Basis<'a> {
    gress: Gress,
    control: &'a str,
    /// The dependency chain that reaches the last used stage.
    chain: &'a [String],
    /// Resource limits that moved a unit to a later stage.
    limits_hit: &'a [String],
    /// With `--explain`: each unit's stages and why it is not earlier.
    #[serde(skip_serializing_if = "Option::is_none")]
    explain: Option<&'a [UnitPlace]>,
}

/// The memory of an estimated placement (`p4cost resources` has the
/// stage totals and what overflows).
#[derive(Debug, Serialize, schemars::JsonSchema)]
struct MemoryRow<'a> {
    limits: &'a Limits,
    pipe: &'a PipeTotals,
    /// Per table, gateway and statement table: its blocks per stage and
    /// the Scholz et al. 2020 share (`sram_percent`, `tcam_percent`).
    units: &'a [UnitResources],
}

/// One caveat of the model in the JSON report.
#[derive(Debug, Serialize, schemars::JsonSchema)]
struct WarningRow<'a> {
    code: &'a str,
    message: &'a str,
}

/// The JSON report of `p4cost stages`: `model` and `mau` have the shape
/// of `predict`'s, so the two compare field by field.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct StagesReport<'a> {
    schema_version: u32,
    p4cost_version: &'static str,
    program: &'a str,
    model: p4cost_engine::report::ModelRef,
    /// `context` (the compiler's placement) or `estimate` (p4cost's).
    placement: &'static str,
    mau: MauRow<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    basis: Vec<Basis<'a>>,
    warnings: Vec<WarningRow<'a>>,
    notes: &'a [String],
    /// The memory of the estimated placement (estimates only).
    #[serde(skip_serializing_if = "Option::is_none")]
    memory: Option<MemoryRow<'a>>,
}

impl<'a> StagesReport<'a> {
    fn new(
        mp: &'a MauPrediction,
        program: &'a str,
        model: &p4cost_model::ModelSpec,
        plan: Option<&'a PipelinePlan>,
        notes: &'a [String],
    ) -> StagesReport<'a> {
        let stage_plan = |g: Gress, s: i32| {
            plan.and_then(|p| p.gresses.iter().find(|x| x.gress == g))
                .and_then(|gp| {
                    gp.stages
                        .iter()
                        .find(|x| i64::from(x.stage) == i64::from(s))
                })
        };
        let gress = |g: Gress| {
            mp.gress(g).map(|c| GressRow {
                gress: g,
                cycles: c.cycles,
                corner_turn_cycles: c.corner_turn_cycles,
                ns: c.ns,
                stages: c
                    .stages
                    .iter()
                    .map(|s| StageRow {
                        stage: s.stage,
                        tables: &s.tables,
                        match_dependent: s.match_dependent,
                        clock_cycles: s.clock_cycles,
                        cycles: s.cycles,
                        ns: s.ns,
                        dependency: stage_plan(g, s.stage).map(|x| x.dependency),
                        reason: stage_plan(g, s.stage)
                            .map(|x| x.reason.as_str())
                            .filter(|r| !r.is_empty()),
                        units: stage_plan(g, s.stage).map(|x| x.units.as_slice()),
                    })
                    .collect(),
            })
        };
        StagesReport {
            schema_version: p4cost_engine::report::SCHEMA_VERSION,
            p4cost_version: env!("CARGO_PKG_VERSION"),
            program,
            model: p4cost_engine::report::ModelRef {
                name: model.name.clone(),
                title: model.title.clone(),
                citation: model.source.citation.clone(),
                spec: model.source.spec.clone(),
            },
            placement: if plan.is_some() {
                "estimate"
            } else {
                "context"
            },
            mau: MauRow {
                clock_ghz: mp.clock_ghz,
                clock_is_default: mp.clock_is_default,
                estimated: mp.estimated,
                ingress: gress(Gress::Ingress),
                egress: gress(Gress::Egress),
                ghost: gress(Gress::Ghost),
            },
            basis: plan
                .map(|p| {
                    p.gresses
                        .iter()
                        .map(|g| Basis {
                            gress: g.gress,
                            control: &g.control,
                            chain: &g.chain,
                            limits_hit: &g.limits_hit,
                            explain: None,
                        })
                        .collect()
                })
                .unwrap_or_default(),
            warnings: mp
                .warnings
                .iter()
                .map(|w| WarningRow {
                    code: &w.code,
                    message: &w.message,
                })
                .collect(),
            notes,
            memory: None,
        }
    }
}

impl<'a> StagesReport<'a> {
    /// Adds each unit's stage and reason to the basis of each gress.
    fn with_explain(&mut self, plan: Option<&'a PipelinePlan>) {
        for b in &mut self.basis {
            b.explain = plan
                .and_then(|p| p.gresses.iter().find(|g| g.gress == b.gress))
                .map(|g| g.why.as_slice());
        }
    }
}

/// `--explain`: per gress, each unit's stage(s) and why it is not earlier;
/// the compiler's placement carries no reasons.
fn render_explain(out: &mut String, plan: Option<&PipelinePlan>) {
    let Some(plan) = plan else {
        out.push_str(
            "explain: the compiler's placement records no reasons; run `stages` on the P4 source \
             for the estimate's\n",
        );
        return;
    };
    for g in &plan.gresses {
        let _ = writeln!(
            out,
            "{} ({}): why each unit is in its stage  [ESTIMATED]",
            gress_name(g.gress),
            g.control
        );
        if g.why.is_empty() {
            out.push_str("  (no tables)\n");
        }
        for u in &g.why {
            let at = if u.last_stage > u.stage {
                format!("{}-{}", u.stage, u.last_stage)
            } else {
                u.stage.to_string()
            };
            let split = u
                .split
                .as_deref()
                .map_or(String::new(), |s| format!("; {s}"));
            let _ = writeln!(out, "  {at:>5}  {}: {}{split}", u.unit, u.why.sentence());
        }
    }
}

/// `memory (estimate): pipe 4 of 960 SRAM blocks (0.4 %), ...`.
fn memory_line(m: &Resources) -> String {
    let p = &m.pipe;
    format!(
        "memory (estimate): pipe {} of {} SRAM blocks ({:.1} %), {} of {} TCAM blocks ({:.1} %); per table: p4cost resources\n",
        p.sram_blocks, p.sram_capacity, p.sram_percent, p.tcam_blocks, p.tcam_capacity, p.tcam_percent
    )
}

fn gress_name(g: Gress) -> &'static str {
    match g {
        Gress::Ingress => "ingress",
        Gress::Egress => "egress",
        Gress::Ghost => "ghost",
        Gress::Unknown => "unknown",
    }
}

/// A per-gress, per-stage table of the model's figures, then its caveats.
fn render_human(mp: &MauPrediction, plan: Option<&PipelinePlan>) -> String {
    let mut out = String::new();
    for g in &mp.gresses {
        let gp = plan.and_then(|p| p.gresses.iter().find(|x| x.gress == g.gress));
        render_gress(&mut out, g, mp.clock_ghz, mp.estimated, gp);
    }
    if !mp.warnings.is_empty() {
        out.push_str("warnings\n");
        for w in &mp.warnings {
            let _ = writeln!(out, "  {}: {}", w.code, w.message);
        }
    }
    out
}

fn render_gress(
    out: &mut String,
    g: &GressCycles,
    clock_ghz: f64,
    estimated: bool,
    plan: Option<&GressPlan>,
) {
    let tag = match (plan, estimated) {
        (Some(_), _) => "  [ESTIMATED from the program]",
        (None, true) => "  [ESTIMATED: schema without cycle figures]",
        (None, false) => "",
    };
    let _ = writeln!(
        out,
        "{}: {} cycles = {:.1} ns at {} GHz (corner turn {} + stages {}){tag}",
        gress_name(g.gress),
        g.cycles,
        g.ns,
        clock_ghz,
        g.corner_turn_cycles,
        g.cycles.saturating_sub(g.corner_turn_cycles),
    );
    let _ = writeln!(
        out,
        "  {:>5}  {:<10}  {:>6}  {:>4}  tables",
        "stage", "depends", "length", "adds"
    );
    for s in &g.stages {
        let sp = plan.and_then(|p| {
            p.stages
                .iter()
                .find(|x| i64::from(x.stage) == i64::from(s.stage))
        });
        // An estimate shows every unit it placed, gateways included.
        let units = sp.map_or(&s.tables, |x| &x.units);
        let tables = if units.is_empty() {
            "-".to_string()
        } else {
            units.join(", ")
        };
        let depends = match sp.map(|x| x.dependency) {
            Some(StageDep::Match) | None if s.match_dependent => "match",
            Some(StageDep::Action) => "action",
            Some(StageDep::Concurrent) => "concurrent",
            _ => "-",
        };
        let why = match sp {
            Some(x) if !x.reason.is_empty() => format!("  ({})", x.reason),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "  {:>5}  {:<10}  {:>6}  {:>4}  {}{why}",
            s.stage, depends, s.clock_cycles, s.cycles, tables
        );
    }
    if let Some(p) = plan {
        if p.chain.len() > 1 {
            let _ = writeln!(
                out,
                "  chain to the last used stage: {}",
                p.chain.join(" -> ")
            );
        }
        for l in &p.limits_hit {
            let _ = writeln!(out, "  resource limit: {l}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use p4cost_ir::{InputKind, MauPlacement, MauStage, Program};

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

    fn predict(stages: Vec<MauStage>, estimated: bool, clock: Option<f64>) -> MauPrediction {
        let mut p = Program::new("p", InputKind::TofinoContext);
        p.mau = Some(MauPlacement {
            stages,
            estimated,
            target: "tofino".into(),
        });
        let model = p4cost_model::model_by_name(stages::PLACED_MODEL).expect("embedded model");
        p4cost_model::mau_cycles::predict(&model, &p, clock).expect("predicts")
    }

    /// Ingress 4 + 22 + 2 = 28 and egress 4 + 20 = 24 cycles; at 1 GHz the
    /// ns equal the cycles.
    #[test]
    fn renders_the_model_figures() {
        let mp = predict(
            vec![
                stage(Gress::Egress, 0, true, 20, 20),
                stage(Gress::Ingress, 1, false, 22, 2),
                stage(Gress::Ingress, 0, true, 22, 22),
            ],
            false,
            Some(1.0),
        );
        let text = render_human(&mp, None);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "ingress: 28 cycles = 28.0 ns at 1 GHz (corner turn 4 + stages 24)"
        );
        assert_eq!(lines[2], "      0  match           22    22  -");
        assert_eq!(lines[3], "      1  -               22     2  -");
        assert_eq!(
            lines[4],
            "egress: 24 cycles = 24.0 ns at 1 GHz (corner turn 4 + stages 20)"
        );
        assert!(!text.contains("warnings"), "{text}");

        let model = p4cost_model::model_by_name(stages::PLACED_MODEL).expect("model");
        let v = serde_json::to_value(StagesReport::new(&mp, "c.json", &model, None, &[]))
            .expect("json");
        assert_eq!(v["model"]["name"], stages::PLACED_MODEL);
        let m = &v["mau"];
        assert_eq!(m["ingress"]["cycles"], 28);
        assert_eq!(m["ingress"]["ns"], 28.0);
        assert_eq!(m["ingress"]["corner_turn_cycles"], 4);
        assert_eq!(m["egress"]["cycles"], 24);
        assert_eq!(m["clock_ghz"], 1.0);
        assert_eq!(m["clock_is_default"], false);
        assert_eq!(m["estimated"], false);
        assert_eq!(m["ingress"]["stages"].as_array().map(Vec::len), Some(2));
        assert_eq!(m["egress"]["stages"].as_array().map(Vec::len), Some(1));
        assert_eq!(m["ingress"]["gress"], "ingress");
        assert!(m.get("ghost").is_none());
    }

    /// Estimated figures are flagged in the header and as a caveat; the
    /// clock defaults to the model file's.
    #[test]
    fn estimated_and_default_clock() {
        let mp = predict(vec![stage(Gress::Ingress, 0, true, 20, 20)], true, None);
        assert!(mp.clock_is_default);
        let text = render_human(&mp, None);
        assert!(text.contains("[ESTIMATED"), "{text}");
        assert!(text.contains("  estimated_placement: "), "{text}");
        let model = p4cost_model::model_by_name(stages::PLACED_MODEL).expect("model");
        let v = serde_json::to_value(StagesReport::new(&mp, "c.json", &model, None, &[]))
            .expect("json");
        assert_eq!(v["mau"]["estimated"], true);
        assert_eq!(v["warnings"][0]["code"], "estimated_placement");
        assert_eq!(v["mau"]["clock_ghz"], mp.clock_ghz);
    }
}
