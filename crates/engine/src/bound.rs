//! `p4cost bound`: network-calculus delay and backlog bounds per packet
//! class (docs/models.md, Network-calculus building blocks).
//!
//! Each class gets a rate-latency service curve (R, T): from a device's
//! building blocks (`--device`: T = f0 plus each applied table's match
//! block and its dearest action's block, R = the device's rate) or from any latency
//! model (T = the class's predicted latency, R = the port's rate). A
//! token-bucket flow (b, r) then has delay bound T + b/R, backlog bound
//! b + r T and output burst b + r T ([`p4cost_model::nc::bounds`]). The
//! worst class (the largest T, found over every class without listing
//! them) carries the report's `delay_bound_ns` and `backlog_bound_bytes`.

mod arrival;
mod blocks;
pub mod saihu;

use std::collections::HashMap;

use p4cost_model::nc::{self, Device, Level, RateLatency, TokenBucket};
use serde::Serialize;

pub(crate) use arrival::quantity;
pub use arrival::{parse_arrival, parse_named};
pub use blocks::TableBlocks;

use crate::error::Error;
use crate::options::PredictOptions;
use crate::report::{Report, WarningOut};

/// What `bound` is asked.
#[derive(Debug, Clone)]
pub struct BoundOptions {
    /// The program and how it is read; its target's model prices the
    /// classes when no device is given.
    pub predict: PredictOptions,
    /// A device of `models/nc/` (`--device`), in place of a model.
    pub device: Option<String>,
    /// The level of the device's blocks; `None`: max.
    pub level: Option<Level>,
    /// The flow.
    pub arrival: TokenBucket,
}

/// Where the service curves come from.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ServiceOut {
    /// `device` (building blocks) or `model` (a latency model).
    pub kind: &'static str,
    /// The device's or model's name.
    pub name: String,
    /// Its title.
    pub title: String,
    /// The paper.
    pub citation: String,
    /// Section of docs/models.md.
    pub spec: String,
    /// The level of the blocks (devices only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<Level>,
}

/// One table's blocks in a class (devices only).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct BlockOut {
    /// The table.
    pub table: String,
    /// Its match group.
    pub match_group: nc::MatchGroup,
    /// The action groups of its dearest action.
    pub action_groups: Vec<nc::ActionGroup>,
    /// What it adds to T, ns.
    pub latency_ns: f64,
}

/// One packet class's curve and bounds.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ClassBound {
    /// The class id (`P.C`, as `predict` numbers it), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// Headers of its parse path.
    pub headers: Vec<String>,
    /// Tables it applies.
    pub tables: Vec<String>,
    /// Each table's blocks (devices only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<BlockOut>,
    /// Its service curve.
    pub service: RateLatency,
    /// Its bounds.
    #[serde(flatten)]
    pub bounds: nc::Bounds,
}

/// One pipeline's classes.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct PipelineBound {
    /// The pipeline, when the program names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pipeline: Option<String>,
    /// All its packet classes, counted.
    pub classes_total: String,
    /// The class with the largest T of all (not only of those listed).
    pub worst: ClassBound,
    /// The listed classes (`predict`'s listing: --max-paths, --max-classes).
    pub classes: Vec<ClassBound>,
}

/// What `bound` reports.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct BoundReport {
    /// Version of this JSON shape.
    pub schema_version: u32,
    /// The program as given.
    pub program: String,
    /// The worst class's delay bound, ns.
    pub delay_bound_ns: f64,
    /// The worst class's backlog bound, bytes.
    pub backlog_bound_bytes: f64,
    /// The flow.
    pub arrival: TokenBucket,
    /// Where the curves come from.
    pub service: ServiceOut,
    /// The ports' line rate, bit/s (a link's capacity).
    pub line_rate_bps: f64,
    /// The packet size the figures are for, bytes (a device's calibration
    /// size).
    pub packet_size_bytes: u32,
    /// What the numbers are and are not.
    pub caveat: String,
    /// Per pipeline.
    pub pipelines: Vec<PipelineBound>,
    /// Warnings (calibration context, unsorted headers, the model's).
    pub warnings: Vec<WarningOut>,
}

/// The JSON shape's version.
pub const BOUND_SCHEMA_VERSION: u32 = 1;

/// The flow is faster than a class's service: no finite bound (a finding,
/// exit 1).
#[derive(Debug, Clone, PartialEq)]
pub struct Unbounded {
    /// The sentence naming both rates.
    pub message: String,
}

/// The sentence a device's or model's figures come with.
pub const CAVEAT: &str = "T is measured or predicted latency, not a proof: the paper's \"worst case\" is the largest delay it observed (Eq. 6), and its composed predictions were within about 1 % either side; the bounds are exact network calculus only for these curves";

/// The bounds of `o`, or `Unbounded` when the flow's rate exceeds a
/// class's service rate.
pub fn bound(o: &BoundOptions) -> Result<Result<BoundReport, Unbounded>, Error> {
    if o.device.is_none() && o.level.is_some() {
        return Err(Error::input(
            "--level: picks a level of a device's building blocks (--device); a model's prediction has one level",
        ));
    }
    let (model, packet_size) = crate::predict::settle(&o.predict)?;
    let loaded = crate::input::load_for_predict(&o.predict)?;
    let program = loaded.program.clone();
    let reports = crate::predict::reports_of(&o.predict, model.clone(), packet_size, loaded)?;
    let (service, pipelines, warnings, link) = match &o.device {
        Some(name) => {
            let device = nc::device_by_name(name).map_err(Error::input)?;
            let level = o.level.unwrap_or(Level::Max);
            let priced = blocks::by_device(&o.predict, &program, &reports, &device, level)?;
            let link = (device.line_rate_bps, device.packet_size_bytes);
            (device_out(&device, level), priced.0, priced.1, link)
        }
        None => {
            // The model that priced the reports (a context.json alone is
            // priced by the MAU cycles, which name no port).
            let used = reports
                .first()
                .map_or(model.name.as_str(), |r| r.model.name.as_str());
            let rate = port_rate(&o.predict, &reports, used)?;
            let p = reports.iter().map(|r| by_model(r, rate)).collect();
            let w = reports.iter().flat_map(|r| r.warnings.clone()).collect();
            (model_out(&model), p, w, (rate, packet_size))
        }
    };
    let mut r = match finish(o, service, pipelines, warnings)? {
        Ok(r) => r,
        Err(u) => return Ok(Err(u)),
    };
    (r.line_rate_bps, r.packet_size_bytes) = link;
    Ok(Ok(r))
}

/// Bounds every class's curve and picks the worst pipeline.
fn finish(
    o: &BoundOptions,
    service: ServiceOut,
    curves: Vec<Pipeline>,
    warnings: Vec<WarningOut>,
) -> Result<Result<BoundReport, Unbounded>, Error> {
    let mut pipelines = Vec::new();
    for p in curves {
        let worst = match with_bounds(o.arrival, p.worst) {
            Ok(c) => c,
            Err(u) => return Ok(Err(u)),
        };
        let mut classes = Vec::new();
        for c in p.classes {
            match with_bounds(o.arrival, c) {
                Ok(c) => classes.push(c),
                Err(u) => return Ok(Err(u)),
            }
        }
        pipelines.push(PipelineBound {
            pipeline: p.name,
            classes_total: p.total,
            worst,
            classes,
        });
    }
    let top = pipelines
        .iter()
        .map(|p| &p.worst.bounds)
        .max_by(|a, b| a.delay_bound_ns.total_cmp(&b.delay_bound_ns))
        .copied()
        .ok_or_else(|| Error::input("bound: the program has no pipeline to bound"))?;
    Ok(Ok(BoundReport {
        schema_version: BOUND_SCHEMA_VERSION,
        program: crate::read::shown(&o.predict.file),
        delay_bound_ns: top.delay_bound_ns,
        backlog_bound_bytes: top.backlog_bound_bytes,
        arrival: o.arrival,
        service,
        line_rate_bps: 0.0,
        packet_size_bytes: 0,
        caveat: CAVEAT.to_string(),
        pipelines,
        warnings,
    }))
}

/// A class before its bounds: its curve.
#[derive(Debug, Clone)]
pub(crate) struct Curve {
    pub class: Option<String>,
    pub headers: Vec<String>,
    pub tables: Vec<String>,
    pub blocks: Vec<BlockOut>,
    pub service: RateLatency,
}

/// A pipeline's curves.
#[derive(Debug, Clone)]
pub(crate) struct Pipeline {
    pub name: Option<String>,
    pub total: String,
    pub worst: Curve,
    pub classes: Vec<Curve>,
}

/// `c` with the flow's bounds, or why there are none.
fn with_bounds(flow: TokenBucket, c: Curve) -> Result<ClassBound, Unbounded> {
    let b = nc::bounds(flow, c.service).map_err(|u| Unbounded {
        message: format!(
            "no bound: the flow's rate r = {} exceeds the service rate R = {}; a token bucket is bounded only when its rate is at most the server's",
            rate_text(u.arrival_bps),
            rate_text(u.service_bps),
        ),
    })?;
    Ok(ClassBound {
        class: c.class,
        headers: c.headers,
        tables: c.tables,
        blocks: c.blocks,
        service: c.service,
        bounds: b,
    })
}

/// A rate as people write it (`50 Mbit/s`).
pub fn rate_text(bps: f64) -> String {
    let (v, unit) = if bps >= 1e9 {
        (bps / 1e9, "Gbit/s")
    } else if bps >= 1e6 {
        (bps / 1e6, "Mbit/s")
    } else if bps >= 1e3 {
        (bps / 1e3, "Kbit/s")
    } else {
        (bps, "bit/s")
    };
    format!("{} {unit}", trim(v))
}

/// A number without trailing zeros (at most 6 decimals).
fn trim(v: f64) -> String {
    let s = format!("{v:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn device_out(d: &Device, level: Level) -> ServiceOut {
    ServiceOut {
        kind: "device",
        name: d.name.clone(),
        title: d.title.clone(),
        citation: d.source.citation.clone(),
        spec: d.source.spec.clone(),
        level: Some(level),
    }
}

fn model_out(m: &p4cost_model::ModelSpec) -> ServiceOut {
    ServiceOut {
        kind: "model",
        name: m.name.clone(),
        title: m.title.clone(),
        citation: m.source.citation.clone(),
        spec: m.source.spec.clone(),
        level: None,
    }
}

/// The port's rate, bit/s: the model's port, else `--port`.
fn port_rate(o: &PredictOptions, reports: &[Report], model: &str) -> Result<f64, Error> {
    reports
        .iter()
        .find_map(|r| r.port_gbps)
        .or(o.target.port_gbps)
        .map(|g| f64::from(g) * 1e9)
        .ok_or_else(|| {
            Error::input(format!(
                "bound: model {model} names no port (its figure does not depend on one), so the service curve has no rate R: use a model of a port (tofino1-10g, tofino1-100g, a fitted --model-file) on the P4 source (with --context for a context.json), or --device"
            ))
        })
}

/// A report's classes priced by its model: T = each class's prediction.
fn by_model(r: &Report, rate_bps: f64) -> Pipeline {
    let curve = |class: Option<String>, headers: Vec<String>, tables: Vec<String>, t: f64| Curve {
        class,
        headers,
        tables,
        blocks: Vec::new(),
        service: RateLatency {
            rate_bps,
            latency_ns: t,
        },
    };
    let mut classes = Vec::new();
    for p in &r.paths {
        match &p.classes {
            Some(cs) => {
                for c in &cs.classes {
                    let tables = c
                        .tables
                        .iter()
                        .filter_map(|&i| r.tables.get(i as usize).map(|t| t.name.clone()))
                        .collect();
                    classes.push(curve(
                        Some(c.id.clone()),
                        p.headers.clone(),
                        tables,
                        c.latency_ns,
                    ));
                }
            }
            None => classes.push(curve(None, p.headers.clone(), Vec::new(), p.latency_ns)),
        }
    }
    let worst = match r.summary.as_ref().and_then(|s| s.max.as_ref()) {
        Some(m) => curve(
            m.class.clone(),
            m.headers.clone(),
            m.tables.clone().unwrap_or_default(),
            m.latency_ns,
        ),
        None => classes
            .iter()
            .max_by(|a, b| a.service.latency_ns.total_cmp(&b.service.latency_ns))
            .cloned()
            .unwrap_or_else(|| curve(None, Vec::new(), Vec::new(), 0.0)),
    };
    Pipeline {
        name: r.pipeline.as_ref().map(|p| p.name.clone()),
        total: total_text(r),
        worst,
        classes,
    }
}

/// All the report's classes, counted (its paths when classes are not).
fn total_text(r: &Report) -> String {
    r.summary
        .as_ref()
        .and_then(|s| s.classes.as_ref().map(|c| c.text.clone()))
        .unwrap_or_else(|| r.path_count_text.clone())
}

/// Table name to id, for the listed classes' names.
fn table_ids(program: &p4cost_ir::Program) -> HashMap<&str, usize> {
    program
        .tables
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name.as_str(), i))
        .collect()
}
