//! The report's figures of a pass model (`--model nfp4000`, kind
//! `nfp_recirc`; `--model bmv2-coarse`, kind `bmv2_coarse`): the settings
//! and per class its pipeline passes, where they come from, its register
//! operations and the model's figures for that many passes; and, for every
//! model, which figure is a class's value and its unit (`Report::figure`).

use p4cost_model::bmv2_coarse::{Coarse, RangeUs};
use p4cost_model::nfp::Throughput;
use p4cost_model::{ModelKind, ModelSpec};
use serde::Serialize;

use crate::recirc::RegisterOps;

/// What a pass model adds to a report (`Report::recirc`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct PassesOut {
    /// `measured` (nfp4000: the paper's rates) or `coarse` (bmv2-coarse:
    /// one testbed, an order of magnitude).
    pub precision: String,
    /// Frame size the rates are for, bytes.
    pub packet_size_bytes: u32,
    /// The port's line rate, bit/s (nfp4000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_rate_bps: Option<f64>,
    /// The latency range of one pass, us (bmv2-coarse).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_per_pass_us: Option<RangeUs>,
    /// What the paper's register logic added, us, reported beside the
    /// range and not added to it (bmv2-coarse).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub register_logic_us: Option<RangeUs>,
    /// How a class's figures follow from its passes p.
    pub formula: String,
}

/// A class's passes and the model's figures (`classes[].recirc`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ClassPassOut {
    /// Pipeline passes: 1 + the recirculate and resubmit calls on its
    /// control path.
    pub passes: u32,
    /// Where each extra pass comes from (`table T: action A (file:line)`,
    /// `action A (...)`, `statement (...)`): the per-pass breakdown.
    pub sites: Vec<String>,
    /// Register calls on its control path (the latency-control logic's
    /// cost on BMv2).
    pub register_ops: RegisterOps,
    /// nfp4000: the loss-free throughput and the received rate past it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub throughput: Option<Throughput>,
    /// bmv2-coarse: the latency range and the sustainable rate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coarse: Option<Coarse>,
}

/// Which figure of a class is its value, and its unit (`Report::figure`):
/// what a user comparing targets reads first.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct FigureOut {
    /// What it is (`mean ingress latency`, `cycles per packet`, ...).
    pub name: String,
    /// Where it is in a class (a JSON path under `classes[]`).
    pub field: String,
    /// Its unit (`ns`, `cycles`, `bit/s`).
    pub unit: String,
    /// True when a higher value is better (a rate), false for a cost.
    pub higher_is_better: bool,
    /// True when a class's `latency_ns` is a figure of the model; false
    /// when the model gives none (nfp4000: `latency_ns` is then 0).
    pub latency_modelled: bool,
}

impl FigureOut {
    /// The figure of models of `model`'s kind.
    pub fn of(model: &ModelSpec) -> FigureOut {
        let f = |name: &str, field: &str, unit: &str, higher: bool, latency: bool| FigureOut {
            name: name.to_string(),
            field: field.to_string(),
            unit: unit.to_string(),
            higher_is_better: higher,
            latency_modelled: latency,
        };
        match model.kind {
            ModelKind::TofinoIngressLinear | ModelKind::Plp | ModelKind::Component => {
                f("mean ingress latency", "latency_ns", "ns", false, true)
            }
            ModelKind::TofinoMauCycles | ModelKind::TofinoMauEstimate => {
                f("MAU latency", "latency_ns", "ns", false, true)
            }
            ModelKind::CpuTables => f(
                "CPU cycles per packet",
                "cpu.cycles_per_packet",
                "cycles",
                false,
                true,
            ),
            ModelKind::NfpRecirc => f(
                "loss-free throughput",
                "recirc.throughput.loss_free_bps",
                "bit/s",
                true,
                false,
            ),
            ModelKind::Bmv2Coarse => f(
                "latency, high end of the coarse range",
                "latency_ns",
                "ns",
                false,
                true,
            ),
        }
    }
}
