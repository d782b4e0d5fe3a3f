//! `stages`: the MAU latency per gress and stage, from the compiler's
//! placement (context.json) or from an estimate made from the source, as
//! plain data the CLI renders.

use std::path::PathBuf;

use p4cost_ir::Program;
use p4cost_model::mau_cycles::{self, MauPrediction};
use p4cost_model::mau_estimate::{self, PipelinePlan};
use p4cost_model::{ModelKind, ModelSpec};

use crate::error::Error;
use crate::input;
use crate::options::{DepOptions, SourceOptions};

/// The embedded model that sums the compiler's own placement.
pub const PLACED_MODEL: &str = "tofino1-mau-cycles";

/// The embedded model that estimates a placement for `program`'s Tofino
/// generation (Tofino 1 unless it is a Tofino 2 program).
pub fn estimate_model(program: &Program) -> &'static str {
    if program.arch.tofino_generation() == Some(2) {
        "tofino2-mau-estimate"
    } else {
        "tofino1-mau-estimate"
    }
}

/// Refuses to estimate a Tofino stage placement, unasked, for a program
/// written for another target (v1model, PSA, ...): the figures would be a
/// Tofino's, not its target's. `--model tofino1-mau-estimate` asks for
/// them (with a `target_mismatch` warning). An architecture not
/// recognised passes, with that warning: nothing says it is not Tofino.
pub fn not_tofino(shown: &str, program: &Program) -> Result<(), Error> {
    if program.arch.tofino_generation().is_some() || program.arch == p4cost_ir::Arch::Unknown {
        return Ok(());
    }
    Err(Error::input(format!(
        "{shown}: the program is written for {}, not Tofino: MAU stages and cycles are a Tofino \
         placement estimate; ask for one with --model tofino1-mau-estimate (or \
         tofino2-mau-estimate)",
        program.arch.name()
    )))
}

/// What `stages` computes from.
#[derive(Debug, Clone, Default)]
pub struct StagesOptions {
    /// The input: context.json (placed by the compiler), or P4 source or
    /// BMv2 JSON (placement estimated).
    pub file: PathBuf,
    /// How to read it.
    pub source: SourceOptions,
    /// An embedded placement model (`tofino1-mau-estimate`, ...); by default
    /// the one for the program's Tofino generation.
    pub model: Option<String>,
    /// A placement model from a file, in place of `model`.
    pub model_file: Option<PathBuf>,
    /// The pipeline to place (the first by default).
    pub pipe: Option<String>,
    /// The clock, GHz (the model's default otherwise).
    pub clock_ghz: Option<f64>,
    /// Dependency-graph budgets of the estimate.
    pub deps: DepOptions,
}

/// The MAU figures of one program.
#[derive(Debug)]
pub struct Stages {
    /// The input as reports name it.
    pub shown: String,
    /// The model that computed the figures.
    pub model: ModelSpec,
    /// Per gress and stage, with the model's warnings.
    pub prediction: MauPrediction,
    /// The estimate's plan (dependencies, reasons, chains); `None` for the
    /// compiler's placement.
    pub plan: Option<PipelinePlan>,
    /// The program (its reader notes are part of the report).
    pub program: Program,
}

/// Loads `o.file` and computes its MAU figures: the compiler's placement
/// summed by [`PLACED_MODEL`], or a placement estimated by a
/// `tofino_mau_estimate` model, each stage listing what it holds.
pub fn stages(o: &StagesOptions) -> Result<Stages, Error> {
    if let Some(clock) = o.clock_ghz {
        if !(clock.is_finite() && clock > 0.0) {
            return Err(Error::input("--clock-ghz must be a positive number"));
        }
    }
    let shown = crate::read::shown(&o.file);
    let program = input::load(&o.file, &o.source)?.program;
    let (model, prediction, plan) = figures(o, &shown, &program)?;
    Ok(Stages {
        shown,
        model,
        prediction,
        plan,
        program,
    })
}

/// The model, its figures and the estimate's plan (`None`: the compiler's
/// placement).
pub type Figures = (ModelSpec, MauPrediction, Option<PipelinePlan>);

/// The MAU figures of a loaded `program` (`o.file` is not read): the
/// compiler's placement when it carries one, else the estimate.
pub fn figures(o: &StagesOptions, shown: &str, program: &Program) -> Result<Figures, Error> {
    if program.mau.is_some() {
        placed(o, shown, program)
    } else {
        estimated(o, shown, program)
    }
}

/// The compiler's placement, summed.
fn placed(o: &StagesOptions, shown: &str, program: &Program) -> Result<Figures, Error> {
    if let Some(m) = &o.model {
        return Err(Error::input(format!(
            "{shown}: the input carries the compiler's stage placement; --model {m} applies to P4 sources and BMv2 JSON"
        )));
    }
    if let Some(f) = &o.model_file {
        return Err(Error::input(format!(
            "{shown}: the input carries the compiler's stage placement; --model-file {} applies to P4 sources and BMv2 JSON",
            f.display()
        )));
    }
    let model =
        p4cost_model::model_by_name(PLACED_MODEL).map_err(|e| Error::input(e.to_string()))?;
    let mp = mau_cycles::predict(&model, program, o.clock_ghz)
        .map_err(|e| Error::input(format!("{shown}: {e}")))?;
    Ok((model, mp, None))
}

/// A placement estimated from the program's controls.
fn estimated(o: &StagesOptions, shown: &str, program: &Program) -> Result<Figures, Error> {
    let model = match &o.model_file {
        Some(f) => crate::predict::model_from_file(f, p4cost_front::Limits::DEFAULT_FILE_BYTES)
            .map_err(|e| e.context("--model-file"))?,
        None => {
            if o.model.is_none() {
                not_tofino(shown, program)?;
            }
            let name = o.model.as_deref().unwrap_or(estimate_model(program));
            p4cost_model::model_by_name(name).map_err(|e| Error::input(e.to_string()))?
        }
    };
    if model.kind != ModelKind::TofinoMauEstimate {
        return Err(Error::input(format!(
            "model {} does not estimate a placement (kind {}): use tofino1-mau-estimate or tofino2-mau-estimate",
            model.name,
            model.kind.name()
        )));
    }
    let pipelines = program.analysed_pipelines();
    let pipe = match &o.pipe {
        Some(n) => pipelines
            .iter()
            .find(|p| &p.name == n)
            .ok_or_else(|| crate::predict::unknown_pipe(shown, n, program))?,
        None => pipelines
            .first()
            .ok_or_else(|| Error::input(format!("{shown}: no ingress or egress control found")))?,
    };
    let controls = pipe.gress_controls();
    if controls.is_empty() {
        return Err(Error::input(format!(
            "{shown}: no ingress or egress control found: nothing to place into stages"
        )));
    }
    let (plan, mut mp) =
        mau_estimate::predict(&model, program, &controls, &o.deps.limits(), o.clock_ghz)
            .map_err(|e| Error::of_model(shown, e))?;
    if let Some(w) = crate::predict::target_mismatch(&model, program.arch) {
        mp.warnings
            .insert(0, p4cost_model::Warning::new(&w.code, w.message));
    }
    Ok((model, mp, Some(plan)))
}
