//! Checking a model against measurements: each measured row's features
//! through the model, compared with its `latency_ns`, per port and over
//! all rows.

use p4cost_model::ModelSpec;
use serde::Serialize;

use crate::data::Measurements;
use crate::metrics::Accuracy;
use crate::CalibrateError;

/// One compared row.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Point {
    /// Line in the measurement file.
    pub line: u64,
    /// The program column.
    pub program: String,
    /// Port speed, Gbit/s.
    pub port_gbps: u32,
    /// Packet size, bytes.
    pub packet_size: u32,
    /// Measured latency, ns.
    pub measured_ns: f64,
    /// The model's latency, ns.
    pub predicted_ns: f64,
}

/// The figures of one port.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct PortAccuracy {
    /// Port speed, Gbit/s.
    pub port_gbps: u32,
    /// The model that predicted it.
    pub model: String,
    /// Its figures.
    #[serde(flatten)]
    pub accuracy: Accuracy,
}

/// A validation: figures per port and overall, and every compared row.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Validation {
    /// The measurement file, as given.
    pub data: String,
    /// The models, by name.
    pub models: Vec<String>,
    /// Figures over every compared row.
    #[serde(flatten)]
    pub overall: Accuracy,
    /// Figures per port, ascending.
    pub ports: Vec<PortAccuracy>,
    /// Measured rows at ports no given model covers (not compared).
    pub rows_without_model: usize,
    /// Rows whose latency_ns is empty.
    pub rows_unmeasured: usize,
    /// The compared rows, in file order.
    pub points: Vec<Point>,
}

/// `models` by port, ascending; errs unless each predicts from features
/// and covers a port no other covers.
pub fn by_port(models: &[ModelSpec]) -> Result<Vec<(u32, &ModelSpec)>, CalibrateError> {
    let mut by_port: Vec<(u32, &ModelSpec)> = Vec::new();
    for model in models {
        let empty = p4cost_model::Features::default();
        if p4cost_model::fitted::terms(model, &empty).is_none() {
            return Err(CalibrateError::Invalid(format!(
                "model {} is of kind {}: it costs the compiler's stage placement, not a row's features; validate takes the models that price features (yours from `p4cost fit`, or tofino1-10g, tofino1-100g)",
                model.name,
                model.kind.name()
            )));
        }
        let Some(port) = model.port_gbps else {
            return Err(CalibrateError::Invalid(format!(
                "model {} names no port",
                model.name
            )));
        };
        if let Some((_, other)) = by_port.iter().find(|(p, _)| *p == port) {
            return Err(CalibrateError::Invalid(format!(
                "models {} and {} are both for {port} Gbit/s: give one model per port",
                other.name, model.name
            )));
        }
        by_port.push((port, model));
    }
    by_port.sort_by_key(|(p, _)| *p);
    Ok(by_port)
}

/// Compares `models` (at most one per port) with the measured rows.
pub fn validate(
    models: &[ModelSpec],
    m: &Measurements,
    data: &str,
) -> Result<Validation, CalibrateError> {
    let by_port = by_port(models)?;
    let mut points = Vec::new();
    let mut without = 0;
    for r in &m.rows {
        let Some((_, model)) = by_port.iter().find(|(p, _)| *p == r.port_gbps) else {
            without += 1;
            continue;
        };
        // by_port admitted models that price features only.
        let Some(pred) = p4cost_model::fitted::latency_of_features(model, &r.features) else {
            continue;
        };
        points.push(Point {
            line: r.line,
            program: r.program.clone(),
            port_gbps: r.port_gbps,
            packet_size: r.features.packet_size,
            measured_ns: r.latency_ns,
            predicted_ns: pred,
        });
    }
    let pairs = |port: Option<u32>| -> Vec<(f64, f64)> {
        points
            .iter()
            .filter(|p| port.is_none_or(|q| p.port_gbps == q))
            .map(|p| (p.predicted_ns, p.measured_ns))
            .collect()
    };
    let overall = Accuracy::of(&pairs(None)).ok_or_else(|| {
        CalibrateError::Invalid(format!(
            "no measured row at the models' ports ({} Gbit/s): the data has {} measured rows at {} Gbit/s and {} unmeasured",
            by_port.iter().map(|(p, _)| p.to_string()).collect::<Vec<_>>().join(", "),
            m.rows.len(),
            m.ports().iter().map(u32::to_string).collect::<Vec<_>>().join(", "),
            m.unmeasured
        ))
    })?;
    let ports = by_port
        .iter()
        .filter_map(|(port, model)| {
            Accuracy::of(&pairs(Some(*port))).map(|accuracy| PortAccuracy {
                port_gbps: *port,
                model: model.name.clone(),
                accuracy,
            })
        })
        .collect();
    Ok(Validation {
        data: data.to_string(),
        models: {
            // The ports of one file share its name.
            let mut names: Vec<String> = models.iter().map(|m| m.name.clone()).collect();
            names.dedup();
            names
        },
        overall,
        ports,
        rows_without_model: without,
        rows_unmeasured: m.unmeasured,
        points,
    })
}
