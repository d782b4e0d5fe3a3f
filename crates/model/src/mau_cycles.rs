//! The Tofino MAU cycle model (docs/models.md, Tofino MAU cycles): the compiler's own
//! per-stage latency figures, summed per gress and turned into time.
//!
//! Latency of one gress = the model's corner-turn cycles + the sum of the
//! gress's per-stage `cycles_contribute_to_latency` (as the compiler wrote
//! them, or as p4cost estimated them for schema 1.8 contexts), divided by
//! the clock. The figure needs the compiler's stage placement
//! ([`Program::mau`]) and no parse graph: it is the same on every parse
//! path. This is the one MAU latency computation: `p4cost predict --model
//! tofino1-mau-cycles` and `p4cost stages` both render its result.

use serde::Serialize;

use p4cost_ir::{Gress, MatchKind, Program, TableId};

use crate::spec::{MauCycles, ModelSpec};
use crate::{Breakdown, ModelError, Prediction, TableTerm, Warning};

/// One MAU stage of one gress.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct StageCycles {
    /// Stage number.
    pub stage: i32,
    /// Match tables of this gress placed in the stage (qualified names).
    pub tables: Vec<String>,
    /// True when the stage waits for the previous stage's match result.
    pub match_dependent: bool,
    /// Stage length in cycles.
    pub clock_cycles: u32,
    /// Cycles the stage adds to the gress latency.
    pub cycles: u32,
    /// Those cycles in ns at the prediction's clock.
    pub ns: f64,
}

/// The MAU latency of one gress.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct GressCycles {
    /// Ingress, egress (or ghost).
    pub gress: Gress,
    /// Total cycles, corner turn included.
    pub cycles: u32,
    /// The corner-turn part of `cycles`.
    pub corner_turn_cycles: u32,
    /// Total in ns at the prediction's clock.
    pub ns: f64,
    /// The stages in stage order.
    pub stages: Vec<StageCycles>,
}

/// What the MAU model predicts for a program.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct MauPrediction {
    /// Clock used, GHz.
    pub clock_ghz: f64,
    /// True when the clock is the model's default (no `clock_ghz` given).
    pub clock_is_default: bool,
    /// True when the stage figures were estimated by p4cost.
    pub estimated: bool,
    /// Every gress with stage records, ingress first.
    pub gresses: Vec<GressCycles>,
    /// Caveats (`estimated_placement`, `clock_out_of_range`, ...).
    pub warnings: Vec<Warning>,
}

impl MauPrediction {
    /// The figures of one gress, when the placement has it.
    pub fn gress(&self, gress: Gress) -> Option<&GressCycles> {
        self.gresses.iter().find(|g| g.gress == gress)
    }

    /// The ingress figure as a path-independent [`Prediction`]: `base_ns`
    /// is the corner turn, `control_ns` the stages, `parser_ns` 0 and no
    /// states. `tables` are listed with their stages and the match kinds
    /// of their keys as `match_class`; their `ns` is 0 and `key_class`
    /// empty because this model costs stages, not tables.
    pub fn ingress_prediction(&self, program: &Program, tables: &[TableId]) -> Prediction {
        let (corner, total) = self
            .gress(Gress::Ingress)
            .map(|g| (cycles_to_ns(g.corner_turn_cycles, self.clock_ghz), g.ns))
            .unwrap_or((0.0, 0.0));
        let tables = tables
            .iter()
            .filter_map(|t| program.tables.get(t.index()))
            .map(|t| {
                let mut kinds: Vec<&str> = Vec::new();
                for k in t
                    .keys
                    .iter()
                    .filter(|k| k.match_kind != MatchKind::Selector)
                {
                    if !kinds.contains(&k.match_kind.name()) {
                        kinds.push(k.match_kind.name());
                    }
                }
                TableTerm {
                    name: t.name.clone(),
                    match_kind: kinds.join("+"),
                    match_class: kinds.join("+"),
                    class_reason: "the MAU-cycle model costs stages, not tables".to_string(),
                    key_class: String::new(),
                    keys: t.keys.len(),
                    key_bits: t.key_bits(),
                    ns: 0.0,
                    stages: t.stages.clone(),
                    span: t.span,
                }
            })
            .collect();
        Prediction {
            latency_ns: total,
            breakdown: Breakdown {
                base_ns: corner,
                parser_ns: 0.0,
                control_ns: total - corner,
                states: Vec::new(),
                tables,
            },
            warnings: self.warnings.clone(),
        }
    }
}

/// Cycles to ns at a clock in GHz.
fn cycles_to_ns(cycles: u32, clock_ghz: f64) -> f64 {
    f64::from(cycles) / clock_ghz
}

/// Predicts the MAU latency of every gress of `program` with `model` at
/// `clock_ghz` (the model's default when `None`).
///
/// Errors: the model is not a `tofino_mau_cycles` model, the clock is not a
/// positive number, or the program has no stage placement or no ingress
/// stages.
pub fn predict(
    model: &ModelSpec,
    program: &Program,
    clock_ghz: Option<f64>,
) -> Result<MauPrediction, ModelError> {
    let mau = program
        .mau
        .as_ref()
        .ok_or_else(|| ModelError::NotApplicable {
            model: model.name.clone(),
            message: "the program carries no MAU stage placement: give the Tofino compiler's \
                      context.json (as the input, or with --context next to the P4 source), \
                      or estimate one from the source with model tofino1-mau-estimate"
                .to_string(),
        })?;
    predict_with(model, program, mau, clock_ghz)
}

/// [`predict`] for a given stage placement (the compiler's, or one
/// [`crate::mau_estimate`] made).
pub fn predict_with(
    model: &ModelSpec,
    program: &Program,
    mau: &p4cost_ir::MauPlacement,
    clock_ghz: Option<f64>,
) -> Result<MauPrediction, ModelError> {
    let m = model.mau().ok_or_else(|| ModelError::NotApplicable {
        model: model.name.clone(),
        message: format!("it is of kind {}, not tofino_mau_cycles", model.kind.name()),
    })?;
    let clock = clock_ghz.unwrap_or(m.default_clock_ghz);
    if !(clock.is_finite() && clock > 0.0) {
        return Err(ModelError::BadParameter {
            model: model.name.clone(),
            message: format!("the clock must be a positive number of GHz, not {clock}"),
        });
    }

    let mut gresses = Vec::new();
    for gress in [Gress::Ingress, Gress::Egress, Gress::Ghost, Gress::Unknown] {
        let mut recs: Vec<_> = mau.stages.iter().filter(|s| s.gress == gress).collect();
        if recs.is_empty() {
            continue;
        }
        recs.sort_by_key(|s| s.stage);
        let stages: Vec<StageCycles> = recs
            .iter()
            .map(|s| StageCycles {
                stage: s.stage,
                tables: tables_in_stage(program, gress, s.stage),
                match_dependent: s.match_dependent,
                clock_cycles: s.clock_cycles,
                cycles: s.cycles_contribute_to_latency,
                ns: cycles_to_ns(s.cycles_contribute_to_latency, clock),
            })
            .collect();
        let cycles = stages
            .iter()
            .fold(m.corner_turn_cycles, |acc, s| acc.saturating_add(s.cycles));
        gresses.push(GressCycles {
            gress,
            cycles,
            corner_turn_cycles: m.corner_turn_cycles,
            ns: cycles_to_ns(cycles, clock),
            stages,
        });
    }
    if !gresses.iter().any(|g| g.gress == Gress::Ingress) {
        return Err(ModelError::NotApplicable {
            model: model.name.clone(),
            message: "the stage placement has no ingress stage records".to_string(),
        });
    }

    let mut warnings = warnings(m, &mau.target, mau.estimated, clock, &gresses);
    if model.kind == crate::ModelKind::TofinoMauEstimate {
        // Not a context's figures: say what they are instead.
        warnings.retain(|w| w.code != "estimated_placement" && w.code != "target_not_modelled");
        warnings.insert(
            0,
            Warning::new(
                "estimated_placement",
                format!(
                    "the stage placement is p4cost's estimate from the program (model {}: dependencies, \
                     per-stage resources and the compiler's latency rules), not the compiler's; \
                     compile for the exact figures",
                    model.name
                ),
            ),
        );
    }
    Ok(MauPrediction {
        clock_ghz: clock,
        clock_is_default: clock_ghz.is_none(),
        estimated: mau.estimated,
        gresses,
        warnings,
    })
}

/// Match tables of `gress` the compiler placed in `stage`.
fn tables_in_stage(program: &Program, gress: Gress, stage: i32) -> Vec<String> {
    program
        .tables
        .iter()
        .filter(|t| t.stages.contains(&stage))
        .filter(|t| {
            t.control
                .and_then(|c| program.controls.get(c.index()))
                .is_some_and(|c| c.gress == gress)
        })
        .map(|t| t.name.clone())
        .collect()
}

/// Everything about the inputs the model's facts do not cover.
fn warnings(
    m: &MauCycles,
    target: &str,
    estimated: bool,
    clock: f64,
    gresses: &[GressCycles],
) -> Vec<Warning> {
    let mut out = Vec::new();
    if estimated {
        out.push(Warning::new(
            "estimated_placement",
            "the context's schema carries no stage cycle figures: p4cost estimated them from \
             the match-dependence flags and the tables in each stage; the compiler's own \
             figures may differ",
        ));
    }
    if target != m.context_target {
        out.push(Warning::new(
            "target_not_modelled",
            format!(
                "the context was compiled for `{target}`, this model describes `{}`: the \
                 cycles are the compiler's, but the clock range and stage facts may not apply",
                m.context_target
            ),
        ));
    }
    let [lo, hi] = m.clock_ghz_range;
    if clock < lo || clock > hi {
        out.push(Warning::new(
            "clock_out_of_range",
            format!("clock {clock} GHz is outside the chip's {lo}-{hi} GHz SKUs"),
        ));
    }
    let beyond: Vec<String> = gresses
        .iter()
        .flat_map(|g| g.stages.iter())
        .filter(|s| s.stage < 0 || s.stage as i64 >= i64::from(m.stages))
        .map(|s| s.stage.to_string())
        .collect();
    if !beyond.is_empty() {
        out.push(Warning::new(
            "stage_out_of_range",
            format!(
                "stage records outside the chip's stages 0-{}: {}",
                m.stages.saturating_sub(1),
                beyond.join(", ")
            ),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model_by_name;
    use p4cost_ir::{
        Control, ControlFlow, ControlId, ControlRole, FileId, InputKind, MauPlacement, MauStage,
        Span, Table,
    };

    fn sp() -> Span {
        Span::file_start(FileId(0))
    }

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

    /// The ingress stage figures of the tna_exact_match fixture
    /// (open-p4studio, bf-p4c 9.9.0), as `p4cost stages` lists them:
    /// 20 + 2 + 22 + 2 + 1 + 1 + 20 + 1*5 = 73 cycles over stages 0-11.
    fn exact_match_ingress() -> Vec<MauStage> {
        let figures: [(bool, u32, u32); 12] = [
            (true, 20, 20),
            (false, 20, 2),
            (true, 22, 22),
            (false, 22, 2),
            (false, 22, 1),
            (false, 22, 1),
            (true, 20, 20),
            (false, 20, 1),
            (false, 20, 1),
            (false, 20, 1),
            (false, 20, 1),
            (false, 20, 1),
        ];
        figures
            .iter()
            .enumerate()
            .map(|(i, (md, len, adds))| stage(Gress::Ingress, i as i32, *md, *len, *adds))
            .collect()
    }

    fn program(stages: Vec<MauStage>, estimated: bool, target: &str) -> Program {
        let mut p = Program::new("p", InputKind::TofinoContext);
        p.controls.push(Control {
            name: "SwitchIngress".into(),
            role: ControlRole::Ingress,
            gress: Gress::Ingress,
            flow: ControlFlow::default(),
            span: sp(),
        });
        p.tables.push(Table {
            control: Some(ControlId(0)),
            stages: vec![0],
            ..Table::new("SwitchIngress.forward", sp())
        });
        p.mau = Some(MauPlacement {
            stages,
            estimated,
            target: target.into(),
        });
        p
    }

    fn model() -> ModelSpec {
        model_by_name("tofino1-mau-cycles").expect("model")
    }

    /// tna_exact_match ingress: 4 + 73 = 77 cycles; 77 / 1.22 = 63.1148 ns.
    #[test]
    fn tna_exact_match_ingress_by_hand() {
        let p = program(exact_match_ingress(), false, "tofino");
        let r = predict(&model(), &p, None).expect("predicts");
        let ing = r.gress(Gress::Ingress).expect("ingress");
        assert_eq!(ing.cycles, 77);
        assert_eq!(ing.corner_turn_cycles, 4);
        assert!((ing.ns - 63.1148).abs() < 1e-4, "{}", ing.ns);
        assert_eq!(r.clock_ghz, 1.22);
        assert!(r.clock_is_default);
        assert_eq!(ing.stages.len(), 12);
        assert_eq!(ing.stages[2].cycles, 22);
        assert!((ing.stages[2].ns - 22.0 / 1.22).abs() < 1e-12);
        assert_eq!(
            ing.stages[0].tables,
            vec!["SwitchIngress.forward".to_string()]
        );
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);

        let pred = r.ingress_prediction(&p, &[TableId(0)]);
        assert_eq!(pred.latency_ns, ing.ns);
        assert!((pred.breakdown.base_ns - 4.0 / 1.22).abs() < 1e-12);
        assert!((pred.breakdown.control_ns - 73.0 / 1.22).abs() < 1e-9);
        assert_eq!(pred.breakdown.tables[0].stages, vec![0]);
        assert!(pred.breakdown.states.is_empty());
    }

    /// At 1.0 GHz the ns equal the cycles; egress is summed on its own.
    #[test]
    fn clock_and_gresses() {
        let mut stages = exact_match_ingress();
        stages.push(stage(Gress::Egress, 0, true, 20, 20));
        stages.push(stage(Gress::Egress, 1, false, 20, 1));
        let p = program(stages, false, "tofino");
        let r = predict(&model(), &p, Some(1.0)).expect("predicts");
        assert!(!r.clock_is_default);
        assert_eq!(r.gress(Gress::Ingress).map(|g| g.ns), Some(77.0));
        let eg = r.gress(Gress::Egress).expect("egress");
        assert_eq!((eg.cycles, eg.ns), (25, 25.0));
        assert_eq!(r.gresses[0].gress, Gress::Ingress);
    }

    #[test]
    fn caveats_are_coded() {
        let mut stages = exact_match_ingress();
        stages.push(stage(Gress::Ingress, 12, false, 20, 1));
        let p = program(stages, true, "tofino2");
        let r = predict(&model(), &p, Some(2.0)).expect("predicts");
        let codes: Vec<&str> = r.warnings.iter().map(|w| w.code.as_str()).collect();
        assert_eq!(
            codes,
            vec![
                "estimated_placement",
                "target_not_modelled",
                "clock_out_of_range",
                "stage_out_of_range"
            ]
        );
        assert!(r.estimated);
        assert_eq!(r.gress(Gress::Ingress).map(|g| g.cycles), Some(78));
    }

    #[test]
    fn inputs_it_cannot_use_are_errors() {
        let m = model();
        let none = Program::new("p", InputKind::P4Source);
        let e = predict(&m, &none, None).unwrap_err().to_string();
        assert!(e.contains("no MAU stage placement"), "{e}");
        let p = program(exact_match_ingress(), false, "tofino");
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(predict(&m, &p, Some(bad)).is_err(), "{bad}");
        }
        let egress_only = program(vec![stage(Gress::Egress, 0, true, 20, 20)], false, "tofino");
        let e = predict(&m, &egress_only, None).unwrap_err().to_string();
        assert!(e.contains("no ingress"), "{e}");
        let linear = model_by_name("tofino1-10g").expect("model");
        assert!(predict(&linear, &p, None).is_err());
    }
}
