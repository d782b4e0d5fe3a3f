//! `p4cost stages`: the compiler's MAU latency per gress, computed by the
//! `tofino1-mau-cycles` model of p4cost-model (the one computation of the
//! corner turn and the stage sums) and rendered here as a per-stage table
//! or JSON.

use std::fmt::Write as _;
use std::io::Write;

use p4cost_ir::Gress;
use p4cost_model::mau_cycles::{self, GressCycles, MauPrediction};
use serde::Serialize;

use crate::args::{Format, StagesArgs};
use crate::exit::{CliError, Exit};
use crate::input;

/// The embedded model `p4cost stages` computes with.
const STAGES_MODEL: &str = "tofino1-mau-cycles";

pub fn run(a: &StagesArgs, out: &mut dyn Write) -> Result<Exit, CliError> {
    if let Some(clock) = a.clock_ghz {
        if !(clock.is_finite() && clock > 0.0) {
            return Err(CliError::input("--clock-ghz must be a positive number"));
        }
    }
    let shown = a.file.display().to_string();
    let loaded = input::load(
        &a.file,
        &crate::args::SourceArgs {
            defines: vec![],
            include_dirs: vec![],
            max_inlined: p4cost_front::DEFAULT_MAX_INLINED,
        },
    )?;
    if loaded.program.mau.is_none() {
        return Err(CliError::input(format!(
            "{shown}: no MAU stage characteristics: `p4cost stages` needs the Tofino compiler's context.json"
        )));
    }
    let model =
        p4cost_model::model_by_name(STAGES_MODEL).map_err(|e| CliError::input(e.to_string()))?;
    let mp = mau_cycles::predict(&model, &loaded.program, a.clock_ghz)
        .map_err(|e| CliError::input(format!("{shown}: {e}")))?;
    let text = match a.format {
        Format::Human => render_human(&mp),
        Format::Json => {
            let report = StagesReport::new(&mp, &shown, &loaded.program.notes);
            serde_json::to_string_pretty(&report).map_err(|e| CliError::input(e.to_string()))?
                + "\n"
        }
    };
    out.write_all(text.as_bytes())
        .map_err(|e| CliError::input(format!("cannot write output: {e}")))?;
    Ok(Exit::Ok)
}

/// The total of one gress in the JSON report.
#[derive(Debug, Serialize)]
struct GressTotal {
    cycles: u32,
    ns: f64,
    corner_turn: u32,
    estimated: bool,
}

/// One stage of one gress in the JSON report.
#[derive(Debug, Serialize)]
struct StageRow<'a> {
    gress: Gress,
    stage: i32,
    tables: &'a [String],
    match_dependent: bool,
    clock_cycles: u32,
    cycles: u32,
    ns: f64,
}

/// One caveat of the model in the JSON report.
#[derive(Debug, Serialize)]
struct WarningRow<'a> {
    code: &'a str,
    message: &'a str,
}

/// The JSON report of `p4cost stages`.
#[derive(Debug, Serialize)]
struct StagesReport<'a> {
    schema_version: u32,
    program: &'a str,
    model: &'static str,
    clock_ghz: f64,
    clock_is_default: bool,
    ingress: Option<GressTotal>,
    egress: Option<GressTotal>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ghost: Option<GressTotal>,
    estimated: bool,
    stages: Vec<StageRow<'a>>,
    warnings: Vec<WarningRow<'a>>,
    notes: &'a [String],
}

impl<'a> StagesReport<'a> {
    fn new(mp: &'a MauPrediction, program: &'a str, notes: &'a [String]) -> StagesReport<'a> {
        let total = |g: Gress| {
            mp.gress(g).map(|c| GressTotal {
                cycles: c.cycles,
                ns: c.ns,
                corner_turn: c.corner_turn_cycles,
                estimated: mp.estimated,
            })
        };
        StagesReport {
            schema_version: crate::report::SCHEMA_VERSION,
            program,
            model: STAGES_MODEL,
            clock_ghz: mp.clock_ghz,
            clock_is_default: mp.clock_is_default,
            ingress: total(Gress::Ingress),
            egress: total(Gress::Egress),
            ghost: total(Gress::Ghost),
            estimated: mp.estimated,
            stages: mp
                .gresses
                .iter()
                .flat_map(|g| {
                    g.stages.iter().map(move |s| StageRow {
                        gress: g.gress,
                        stage: s.stage,
                        tables: &s.tables,
                        match_dependent: s.match_dependent,
                        clock_cycles: s.clock_cycles,
                        cycles: s.cycles,
                        ns: s.ns,
                    })
                })
                .collect(),
            warnings: mp
                .warnings
                .iter()
                .map(|w| WarningRow {
                    code: &w.code,
                    message: &w.message,
                })
                .collect(),
            notes,
        }
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

/// A per-gress, per-stage table of the model's figures, then its caveats.
fn render_human(mp: &MauPrediction) -> String {
    let mut out = String::new();
    for g in &mp.gresses {
        render_gress(&mut out, g, mp.clock_ghz, mp.estimated);
    }
    if !mp.warnings.is_empty() {
        out.push_str("warnings\n");
        for w in &mp.warnings {
            let _ = writeln!(out, "  {}: {}", w.code, w.message);
        }
    }
    out
}

fn render_gress(out: &mut String, g: &GressCycles, clock_ghz: f64, estimated: bool) {
    let _ = writeln!(
        out,
        "{}: {} cycles = {:.1} ns at {} GHz (corner turn {} + stages {}){}",
        gress_name(g.gress),
        g.cycles,
        g.ns,
        clock_ghz,
        g.corner_turn_cycles,
        g.cycles.saturating_sub(g.corner_turn_cycles),
        if estimated {
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
    for s in &g.stages {
        let tables = if s.tables.is_empty() {
            "-".to_string()
        } else {
            s.tables.join(", ")
        };
        let _ = writeln!(
            out,
            "  {:>5}  {:<8}  {:>6}  {:>4}  {}",
            s.stage,
            if s.match_dependent { "match" } else { "-" },
            s.clock_cycles,
            s.cycles,
            tables
        );
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
        let model = p4cost_model::model_by_name(STAGES_MODEL).expect("embedded model");
        mau_cycles::predict(&model, &p, clock).expect("predicts")
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
        let text = render_human(&mp);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "ingress: 28 cycles = 28.0 ns at 1 GHz (corner turn 4 + stages 24)"
        );
        assert_eq!(lines[2], "      0  match         22    22  -");
        assert_eq!(lines[3], "      1  -             22     2  -");
        assert_eq!(
            lines[4],
            "egress: 24 cycles = 24.0 ns at 1 GHz (corner turn 4 + stages 20)"
        );
        assert!(!text.contains("warnings"), "{text}");

        let v = serde_json::to_value(StagesReport::new(&mp, "c.json", &[])).expect("json");
        assert_eq!(v["ingress"]["cycles"], 28);
        assert_eq!(v["ingress"]["ns"], 28.0);
        assert_eq!(v["ingress"]["corner_turn"], 4);
        assert_eq!(v["egress"]["cycles"], 24);
        assert_eq!(v["clock_ghz"], 1.0);
        assert_eq!(v["clock_is_default"], false);
        assert_eq!(v["estimated"], false);
        assert_eq!(v["stages"].as_array().map(Vec::len), Some(3));
        assert_eq!(v["stages"][0]["gress"], "ingress");
        assert_eq!(v["stages"][2]["gress"], "egress");
        assert!(v.get("ghost").is_none());
    }

    /// Estimated figures are flagged in the header and as a caveat; the
    /// clock defaults to the model file's.
    #[test]
    fn estimated_and_default_clock() {
        let mp = predict(vec![stage(Gress::Ingress, 0, true, 20, 20)], true, None);
        assert!(mp.clock_is_default);
        let text = render_human(&mp);
        assert!(text.contains("[ESTIMATED"), "{text}");
        assert!(text.contains("  estimated_placement: "), "{text}");
        let v = serde_json::to_value(StagesReport::new(&mp, "c.json", &[])).expect("json");
        assert_eq!(v["ingress"]["estimated"], true);
        assert_eq!(v["warnings"][0]["code"], "estimated_placement");
        assert_eq!(v["clock_ghz"], mp.clock_ghz);
    }
}
