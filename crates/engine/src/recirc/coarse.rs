//! `p4cost throughput --model bmv2-coarse`: per packet class, its passes
//! and register operations (as [`super::listed`] counts them) priced by
//! the coarse BMv2 `simple_switch` model
//! ([`p4cost_model::bmv2_coarse::Bmv2Coarse::price`]; docs/models.md,
//! BMv2 simple_switch (coarse)).

use p4cost_model::bmv2_coarse::{Bmv2Coarse, Coarse, RangeUs};
use serde::Serialize;

use super::RegisterOps;
use crate::error::Error;
use crate::options::PredictOptions;

/// One class.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CoarseClass {
    /// Its id (`P.C`, as `predict` numbers it).
    pub class: String,
    /// Headers of its parse path.
    pub headers: Vec<String>,
    /// Where it recirculates or resubmits.
    pub sites: Vec<String>,
    /// Passes, latency range and throughput.
    #[serde(flatten)]
    pub coarse: Coarse,
    /// Register calls on its control path.
    pub register_ops: RegisterOps,
}

/// One pipeline.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CoarsePipeline {
    /// Its name, when the program names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pipeline: Option<String>,
    /// The listed classes.
    pub classes: Vec<CoarseClass>,
    /// True when every class of every parse path is listed.
    pub complete: bool,
}

/// What `throughput --model bmv2-coarse` reports.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CoarseReport {
    /// Version of this JSON shape.
    pub schema_version: u32,
    /// The program.
    pub program: String,
    /// The model's name (`bmv2-coarse`).
    pub model: String,
    /// Always `coarse`: figures from one testbed, an order of magnitude.
    pub precision: String,
    /// Its title.
    pub title: String,
    /// Its paper.
    pub citation: String,
    /// Section of docs/models.md.
    pub spec: String,
    /// Packet size, bytes.
    pub packet_size_bytes: u32,
    /// The latency range of one pass, us.
    pub latency_per_pass_us: RangeUs,
    /// What the paper's register logic added, us (not added to the range).
    pub register_logic_us: RangeUs,
    /// Per pipeline.
    pub pipelines: Vec<CoarsePipeline>,
    /// Warnings (a packet size outside the measured ones).
    pub warnings: Vec<String>,
    /// The model's notes.
    pub notes: Vec<String>,
}

/// The coarse BMv2 report for `o` at `packet_size` bytes: predict's
/// reports with `--model bmv2-coarse` ([`super::pass_reports`]), each
/// class's figures as `predict` gives them.
pub fn throughput(o: &PredictOptions, packet_size: Option<u32>) -> Result<CoarseReport, Error> {
    let model =
        p4cost_model::bmv2_coarse::bmv2_coarse().map_err(|e| Error::input(e.to_string()))?;
    let packet_size = packet_size.unwrap_or(model.latency_per_pass_us.packet_size_bytes);
    let reports = super::pass_reports(o, &model.name, packet_size)?;
    let pipelines = reports.iter().map(pipeline).collect();
    let l = &model.latency_per_pass_us;
    Ok(CoarseReport {
        schema_version: 1,
        program: crate::read::shown(&o.file),
        model: model.name.clone(),
        precision: "coarse".into(),
        title: model.title.clone(),
        citation: model.source.citation.clone(),
        spec: model.source.spec.clone(),
        packet_size_bytes: packet_size,
        latency_per_pass_us: RangeUs {
            min: l.min,
            max: l.max,
        },
        register_logic_us: model.register_logic_us,
        pipelines,
        warnings: size_warning(&model, packet_size).into_iter().collect(),
        notes: model.notes.clone(),
    })
}

fn pipeline(r: &crate::report::Report) -> CoarsePipeline {
    CoarsePipeline {
        pipeline: r.pipeline.as_ref().map(|p| p.name.clone()),
        classes: super::pass_classes(r)
            .filter_map(|(c, headers, k)| {
                Some(CoarseClass {
                    class: c.id.clone(),
                    headers: headers.to_vec(),
                    sites: k.sites.clone(),
                    coarse: k.coarse?,
                    register_ops: k.register_ops,
                })
            })
            .collect(),
        complete: super::complete(r),
    }
}

/// The warning for a size outside the measured ones.
pub(crate) fn size_warning(model: &Bmv2Coarse, size: u32) -> Option<String> {
    if model.size_measured(size) {
        return None;
    }
    let sizes: Vec<String> = model
        .measured_throughput
        .iter()
        .map(|m| format!("{} B", m.packet_size_bytes))
        .collect();
    Some(format!(
        "packet_size_not_measured: --packet-size {size}: the paper measured {} only; \
         the packet rate of the nearest size is kept (an extrapolation)",
        sizes.join(" and ")
    ))
}
