//! Network-calculus building blocks of a device (Helm et al., ITC 2021;
//! docs/models.md, Network-calculus building blocks): the device files
//! under `models/nc/`, the block a table's match and action fall into, and
//! the closed forms of a rate-latency service curve against a token
//! bucket.
//!
//! A device file holds, per level (min, median, max), the baseline latency
//! f0 and the delta of each match group (single field, five-tuple, many
//! fields) and action group (L2 rewrite, VLAN, L3-L4 rewrite), and the
//! device's rate. No number lives in code.

use serde::{Deserialize, Serialize};

use crate::spec::Source;
use crate::ModelError;

/// Every device file under `models/nc/`, as `(file name, text)`.
pub const DEVICES: &[(&str, &str)] = &[
    (
        "zodiac-fx.json",
        include_str!("../../../models/nc/zodiac-fx.json"),
    ),
    (
        "netfpga-sume.json",
        include_str!("../../../models/nc/netfpga-sume.json"),
    ),
];

/// The level of the measured delays a curve is built from (the paper's
/// Eq. 4: extrema, or the median).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// The smallest delay observed.
    Min,
    /// The median delay.
    Median,
    /// The largest delay observed (the paper's "worst case").
    Max,
}

impl Level {
    /// The level's name.
    pub fn name(self) -> &'static str {
        match self {
            Level::Min => "min",
            Level::Median => "median",
            Level::Max => "max",
        }
    }
}

/// The match groups of the paper's Table I.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MatchGroup {
    /// The baseline's match on the ingress port (in f0), or no key.
    Baseline,
    /// One header field (tp-dst, dl-dst, masked-nw-dst).
    SingleField,
    /// Two to `five_tuple_max_fields` fields (five-tuple).
    FiveTuple,
    /// More fields than that (the paper's `all`, nine fields).
    ManyFields,
}

/// The action groups of the paper's Table I.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ActionGroup {
    /// Output to a port, drop, metadata only (in f0).
    Output,
    /// Ethernet header rewrite (set-dl-src).
    L2Rewrite,
    /// VLAN header push, strip or rewrite.
    Vlan,
    /// Network or transport header rewrite (set-nw-src, set-tp-src).
    L3L4Rewrite,
}

/// Match deltas of one level, ns.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MatchDeltas {
    /// One field.
    pub single_field: f64,
    /// Five-tuple.
    pub five_tuple: f64,
    /// Many fields.
    pub many_fields: f64,
}

/// Action deltas of one level, ns.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ActionDeltas {
    /// Ethernet rewrite.
    pub l2_rewrite: f64,
    /// VLAN.
    pub vlan: f64,
    /// Network or transport rewrite.
    pub l3_l4_rewrite: f64,
}

/// The blocks of one level.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LevelBlocks {
    /// f0: match on the ingress port, output to a port.
    pub baseline_ns: f64,
    /// Each match group's delta over f0.
    pub match_ns: MatchDeltas,
    /// Each action group's delta over f0.
    pub action_ns: ActionDeltas,
}

impl LevelBlocks {
    /// The delta of a match group.
    pub fn match_delta(&self, g: MatchGroup) -> f64 {
        match g {
            MatchGroup::Baseline => 0.0,
            MatchGroup::SingleField => self.match_ns.single_field,
            MatchGroup::FiveTuple => self.match_ns.five_tuple,
            MatchGroup::ManyFields => self.match_ns.many_fields,
        }
    }

    /// The delta of an action group.
    pub fn action_delta(&self, g: ActionGroup) -> f64 {
        match g {
            ActionGroup::Output => 0.0,
            ActionGroup::L2Rewrite => self.action_ns.l2_rewrite,
            ActionGroup::Vlan => self.action_ns.vlan,
            ActionGroup::L3L4Rewrite => self.action_ns.l3_l4_rewrite,
        }
    }
}

/// The three levels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Levels {
    /// Smallest delays.
    pub min: LevelBlocks,
    /// Median delays.
    pub median: LevelBlocks,
    /// Largest delays.
    pub max: LevelBlocks,
}

/// How a program's tables and actions are sorted into blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BlockRules {
    /// A one-field key on metadata whose last component is one of these
    /// is the baseline's ingress-port match.
    pub baseline_match_fields: Vec<String>,
    /// Keys of two fields up to this many are the five-tuple group.
    pub five_tuple_max_fields: usize,
    /// A header whose name or type name holds one of these is a VLAN tag.
    pub vlan_headers: Vec<String>,
    /// ... an Ethernet header.
    pub l2_headers: Vec<String>,
    /// ... a network or transport header.
    pub l3_l4_headers: Vec<String>,
}

/// One device file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Device {
    /// File format version (1).
    pub schema: u32,
    /// `--device` name.
    pub name: String,
    /// One-line title.
    pub title: String,
    /// The device.
    pub target: String,
    /// Provenance.
    pub source: Source,
    /// What the blocks give.
    pub predicts: String,
    /// The rate R of every block: the device's lossless (worst-case)
    /// throughput, bit/s.
    pub rate_bps: f64,
    /// The ports' line rate, bit/s (the rate of the maximum curve).
    pub line_rate_bps: f64,
    /// Packet size of the calibration, bytes.
    pub packet_size_bytes: u32,
    /// Blocks per level.
    pub levels: Levels,
    /// How tables and actions are sorted into blocks.
    pub blocks: BlockRules,
    /// Notes shown with the device.
    #[serde(default)]
    pub notes: Vec<String>,
}

impl Device {
    /// The blocks of `level`.
    pub fn level(&self, level: Level) -> &LevelBlocks {
        match level {
            Level::Min => &self.levels.min,
            Level::Median => &self.levels.median,
            Level::Max => &self.levels.max,
        }
    }

    /// What is out of bounds, if anything: rates positive, deltas not
    /// below zero, min <= median <= max baselines.
    fn check(&self) -> Result<(), String> {
        if self.schema != 1 {
            return Err(format!("unsupported schema {}", self.schema));
        }
        if !(self.rate_bps > 0.0 && self.line_rate_bps >= self.rate_bps) {
            return Err("rate_bps must be above zero and at most line_rate_bps".into());
        }
        let all = [
            ("min", &self.levels.min),
            ("median", &self.levels.median),
            ("max", &self.levels.max),
        ];
        for (name, l) in all {
            let m = l.match_ns;
            let a = l.action_ns;
            let v = [
                l.baseline_ns,
                m.single_field,
                m.five_tuple,
                m.many_fields,
                a.l2_rewrite,
                a.vlan,
                a.l3_l4_rewrite,
            ];
            if v.iter().any(|x| !(x.is_finite() && *x >= 0.0)) {
                return Err(format!("levels.{name}: every latency is finite and >= 0"));
            }
        }
        let b = |l: &LevelBlocks| l.baseline_ns;
        if b(&self.levels.min) > b(&self.levels.median)
            || b(&self.levels.median) > b(&self.levels.max)
        {
            return Err("levels: baselines must be ordered min <= median <= max".into());
        }
        if self.blocks.five_tuple_max_fields < 2 {
            return Err("blocks.five_tuple_max_fields must be at least 2".into());
        }
        Ok(())
    }

    /// The match group of a table keyed on `fields` (canonical names).
    pub fn match_group(&self, fields: &[&str]) -> MatchGroup {
        match fields {
            [] => MatchGroup::Baseline,
            [f] if !f.starts_with("hdr.")
                && self
                    .blocks
                    .baseline_match_fields
                    .iter()
                    .any(|b| f.rsplit('.').next() == Some(b.as_str())) =>
            {
                MatchGroup::Baseline
            }
            [_] => MatchGroup::SingleField,
            f if f.len() <= self.blocks.five_tuple_max_fields => MatchGroup::FiveTuple,
            _ => MatchGroup::ManyFields,
        }
    }

    /// The action group of a header an action writes, by its instance
    /// name and type name (lower-cased substrings; VLAN first, then L2,
    /// then L3-L4); `None` for a header of none of them.
    pub fn header_group(&self, instance: &str, type_name: &str) -> Option<ActionGroup> {
        let names = [instance.to_lowercase(), type_name.to_lowercase()];
        let has = |words: &[String]| {
            words
                .iter()
                .any(|w| names.iter().any(|n| n.contains(&w.to_lowercase())))
        };
        if has(&self.blocks.vlan_headers) {
            Some(ActionGroup::Vlan)
        } else if has(&self.blocks.l2_headers) {
            Some(ActionGroup::L2Rewrite)
        } else if has(&self.blocks.l3_l4_headers) {
            Some(ActionGroup::L3L4Rewrite)
        } else {
            None
        }
    }
}

/// Parses one device file.
pub fn parse_device(file: &str, text: &str) -> Result<Device, ModelError> {
    crate::values::parse_file(file, text, Device::check)
}

/// All embedded devices.
pub fn all_devices() -> Result<Vec<Device>, ModelError> {
    DEVICES.iter().map(|(f, t)| parse_device(f, t)).collect()
}

/// The embedded device `name`, or an error listing the known ones.
pub fn device_by_name(name: &str) -> Result<Device, String> {
    let all = all_devices().map_err(|e| e.to_string())?;
    let known: Vec<String> = all.iter().map(|d| d.name.clone()).collect();
    all.into_iter().find(|d| d.name == name).ok_or_else(|| {
        format!(
            "--device: unknown device `{name}` (known: {})",
            known.join(", ")
        )
    })
}

/// A rate-latency service curve beta(t) = R (t - T)+.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RateLatency {
    /// R, bit/s.
    pub rate_bps: f64,
    /// T, ns.
    pub latency_ns: f64,
}

impl RateLatency {
    /// The concatenation of two servers (min-plus convolution): the
    /// smaller rate, the summed latency.
    pub fn then(self, next: RateLatency) -> RateLatency {
        RateLatency {
            rate_bps: self.rate_bps.min(next.rate_bps),
            latency_ns: self.latency_ns + next.latency_ns,
        }
    }
}

/// A token-bucket arrival curve gamma(t) = b + r t.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TokenBucket {
    /// b, bits.
    pub burst_bits: f64,
    /// r, bit/s.
    pub rate_bps: f64,
}

/// The bounds of a token bucket through a rate-latency server.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Bounds {
    /// Delay bound T + b/R, ns (the horizontal deviation).
    pub delay_bound_ns: f64,
    /// Backlog bound b + r T, bytes (the vertical deviation).
    pub backlog_bound_bytes: f64,
    /// Burst of the output arrival curve, b + r T, bytes.
    pub output_burst_bytes: f64,
}

/// The flow's rate exceeds the server's: no finite bound.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Unstable {
    /// r, bit/s.
    pub arrival_bps: f64,
    /// R, bit/s.
    pub service_bps: f64,
}

/// The closed forms for `flow` through `server` (textbook network
/// calculus, Le Boudec and Thiran): delay T + b/R, backlog b + r T, output
/// burst b + r T; `Unstable` when r > R.
pub fn bounds(flow: TokenBucket, server: RateLatency) -> Result<Bounds, Unstable> {
    if flow.rate_bps > server.rate_bps {
        return Err(Unstable {
            arrival_bps: flow.rate_bps,
            service_bps: server.rate_bps,
        });
    }
    let backlog_bits = flow.burst_bits + flow.rate_bps * server.latency_ns * 1e-9;
    Ok(Bounds {
        delay_bound_ns: server.latency_ns + flow.burst_bits / server.rate_bps * 1e9,
        backlog_bound_bytes: backlog_bits / 8.0,
        output_burst_bytes: backlog_bits / 8.0,
    })
}

#[cfg(test)]
mod tests;
