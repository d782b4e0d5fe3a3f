//! `resources`: the memory of a program's estimated stage placement per
//! table and stage against the chip's limits, with the Scholz et al.
//! 2020 share of the chip's SRAM or TCAM per table, as plain data the CLI
//! renders.

use p4cost_model::mau_estimate::resources::{self as res, Resources};
use p4cost_model::scholz::Scholz;

use crate::error::Error;
use crate::stages::{self, Stages, StagesOptions};

/// A program's stages and the memory of their placement.
#[derive(Debug)]
pub struct ResourceReport {
    /// The placement it rests on.
    pub stages: Stages,
    /// Per unit and stage.
    pub resources: Resources,
    /// The published model the per-table percentages come from.
    pub scholz: Scholz,
}

/// Loads `o.file`, estimates its placement and reports its memory. A
/// context.json (the compiler's placement) is refused: its memories are in
/// the compiler's resources.json.
pub fn resources(o: &StagesOptions) -> Result<ResourceReport, Error> {
    let st = stages::stages(o)?;
    of_stages(st)
}

/// The memory report of stages already computed.
pub fn of_stages(st: Stages) -> Result<ResourceReport, Error> {
    let Some(plan) = &st.plan else {
        return Err(Error::input(format!(
            "{}: the input carries the compiler's placement; its memories are in the compiler's \
             resources.json (resources estimates from a P4 source or BMv2 JSON)",
            st.shown
        )));
    };
    let scholz = Scholz::embedded().map_err(|e| Error::input(e.to_string()))?;
    let resources = res::resources(&st.model, &st.program, plan, &scholz)
        .map_err(|e| Error::of_model(&st.shown, e))?;
    Ok(ResourceReport {
        stages: st,
        resources,
        scholz,
    })
}

/// The memory report of an estimate's stages (`None` for the compiler's
/// placement): what `stages` adds to its output.
pub fn of_plan(st: &Stages) -> Result<Option<Resources>, Error> {
    match &st.plan {
        Some(plan) => of(&st.model, &st.shown, &st.program, plan).map(Some),
        None => Ok(None),
    }
}

/// The memory report of `plan`, estimated by `model` for `program`.
pub fn of(
    model: &p4cost_model::ModelSpec,
    shown: &str,
    program: &p4cost_ir::Program,
    plan: &p4cost_model::mau_estimate::PipelinePlan,
) -> Result<Resources, Error> {
    let scholz = Scholz::embedded().map_err(|e| Error::input(e.to_string()))?;
    res::resources(model, program, plan, &scholz).map_err(|e| Error::of_model(shown, e))
}
