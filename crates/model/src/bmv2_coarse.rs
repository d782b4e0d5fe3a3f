//! The coarse BMv2 `simple_switch` model (docs/models.md, BMv2
//! simple_switch (coarse)): from the service-chaining paper's Fig. 9, a
//! latency range per pipeline pass and the sustainable throughput at a
//! packet size. The packet rate is interpolated linearly in the size
//! between the measured sizes and held outside them; a class of p passes
//! gets p times the range and 1/p of the packet rate. Every figure is in
//! `models/bmv2/bmv2-coarse.json`.

use serde::{Deserialize, Serialize};

use crate::spec::Source;
use crate::ModelError;

/// The embedded file.
pub const BMV2_COARSE: (&str, &str) = (
    "bmv2-coarse.json",
    include_str!("../../../models/bmv2/bmv2-coarse.json"),
);

/// A latency range, microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RangeUs {
    /// The low end, us.
    pub min: f64,
    /// The high end, us.
    pub max: f64,
}

/// The latency range one pass took, and the size it was measured at.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PassLatency {
    /// The low end, us.
    pub min: f64,
    /// The high end, us.
    pub max: f64,
    /// Packet size of the measurement, bytes.
    pub packet_size_bytes: u32,
}

/// One measured throughput.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MeasuredRate {
    /// Packet size, bytes.
    pub packet_size_bytes: u32,
    /// The highest sustainable rate, bit/s.
    pub bps: f64,
}

/// The model file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Bmv2Coarse {
    /// File format version (1).
    pub schema: u32,
    /// Its name (`bmv2-coarse`).
    pub name: String,
    /// One-line title.
    pub title: String,
    /// The target.
    pub target: String,
    /// The P4 architectures of the programs it runs
    /// ([`crate::ModelSpec::architectures`]).
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub architectures: Vec<p4cost_ir::Arch>,
    /// Provenance.
    pub source: Source,
    /// What it gives.
    pub predicts: String,
    /// Latency of one pass.
    pub latency_per_pass_us: PassLatency,
    /// What the register logic added, us (reported, not added).
    pub register_logic_us: RangeUs,
    /// Throughputs measured, by increasing size.
    pub measured_throughput: Vec<MeasuredRate>,
    /// Notes.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// A class's coarse figures.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Coarse {
    /// Pipeline passes.
    pub passes: u32,
    /// The class's latency range, us (passes x the per-pass range).
    pub latency_us: RangeUs,
    /// Sustainable packets per second.
    pub packets_per_second: f64,
    /// Sustainable throughput at the packet size, bit/s.
    pub throughput_bps: f64,
}

impl Bmv2Coarse {
    /// This file as a model of kind `bmv2_coarse` (what `predict --model`
    /// and `p4cost models` take).
    pub fn to_spec(&self) -> crate::ModelSpec {
        crate::spec::pass_model(
            crate::ModelKind::Bmv2Coarse,
            (&self.name, &self.title, &self.target, &self.architectures),
            (&self.source, &self.predicts, &self.notes),
            (None, Some(self.clone())),
        )
    }

    /// Packets per second one pass sustains at `size` bytes: linear in
    /// the size between measured points, the nearest point's outside.
    pub fn pass_rate_pps(&self, size: u32) -> f64 {
        let pps = |m: &MeasuredRate| m.bps / (8.0 * f64::from(m.packet_size_bytes));
        let pts = &self.measured_throughput;
        let s = f64::from(size);
        let (Some(first), Some(last)) = (pts.first(), pts.last()) else {
            return 0.0;
        };
        if size <= first.packet_size_bytes {
            return pps(first);
        }
        for w in pts.windows(2) {
            let (a, b) = (&w[0], &w[1]);
            if size <= b.packet_size_bytes {
                let (sa, sb) = (
                    f64::from(a.packet_size_bytes),
                    f64::from(b.packet_size_bytes),
                );
                return pps(a) + (pps(b) - pps(a)) * (s - sa) / (sb - sa);
            }
        }
        pps(last)
    }

    /// True when `size` lies within the measured sizes.
    pub fn size_measured(&self, size: u32) -> bool {
        let pts = &self.measured_throughput;
        pts.first().is_some_and(|f| size >= f.packet_size_bytes)
            && pts.last().is_some_and(|l| size <= l.packet_size_bytes)
    }

    /// The figures of a class of `passes` passes at `size` bytes.
    pub fn price(&self, passes: u32, size: u32) -> Coarse {
        let p = f64::from(passes.max(1));
        let pps = self.pass_rate_pps(size) / p;
        let l = &self.latency_per_pass_us;
        Coarse {
            passes,
            latency_us: RangeUs {
                min: p * l.min,
                max: p * l.max,
            },
            packets_per_second: pps,
            throughput_bps: pps * 8.0 * f64::from(size),
        }
    }

    pub(crate) fn check(&self) -> Result<(), String> {
        if self.schema != 1 {
            return Err(format!("unsupported schema {}", self.schema));
        }
        let l = &self.latency_per_pass_us;
        if !(l.min > 0.0 && l.min <= l.max) {
            return Err("latency_per_pass_us: 0 < min <= max".into());
        }
        let pts = &self.measured_throughput;
        if pts.is_empty() || pts.iter().any(|m| m.packet_size_bytes == 0 || m.bps <= 0.0) {
            return Err("measured_throughput: at least one point, sizes and bps above zero".into());
        }
        if pts
            .windows(2)
            .any(|w| w[0].packet_size_bytes >= w[1].packet_size_bytes)
        {
            return Err("measured_throughput: sizes strictly increasing".into());
        }
        Ok(())
    }
}

/// The embedded model.
pub fn bmv2_coarse() -> Result<Bmv2Coarse, ModelError> {
    parse_bmv2_coarse(BMV2_COARSE.0, BMV2_COARSE.1)
}

/// Parses a file of this kind.
pub fn parse_bmv2_coarse(file: &str, text: &str) -> Result<Bmv2Coarse, ModelError> {
    crate::values::parse_file(file, text, Bmv2Coarse::check)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-6 * b.abs().max(1.0)
    }

    /// Fig. 9, typed from the paper: 1.4 Gbit/s at 1500 B with 80-120 us,
    /// about 300 Mbit/s at 256 B.
    #[test]
    fn one_pass_reproduces_fig_9() {
        let m = bmv2_coarse().expect("model parses");
        let c = m.price(1, 1500);
        assert!(close(c.throughput_bps, 1.4e9), "{c:?}");
        assert!(close(c.latency_us.min, 80.0) && close(c.latency_us.max, 120.0));
        assert!(close(m.price(1, 256).throughput_bps, 300e6));
        // 1.4e9 / 12000 = 116,666.7 pps (the paper reading's 116.7 kpps).
        assert!((c.packets_per_second - 116_666.7).abs() < 0.1, "{c:?}");
        assert!(m.size_measured(256) && m.size_measured(1500));
    }

    #[test]
    fn sizes_between_interpolate_the_packet_rate_and_outside_hold_it() {
        let m = bmv2_coarse().unwrap();
        // Halfway (878 B): (146,484.4 + 116,666.7) / 2 = 131,575.5 pps.
        let mid = m.price(1, 878);
        assert!((mid.packets_per_second - 131_575.5).abs() < 0.1, "{mid:?}");
        // 9000 B keeps 1500 B's packet rate: 116,666.7 x 72,000 = 8.4 Gbit/s.
        let jumbo = m.price(1, 9000);
        assert!(close(jumbo.throughput_bps, 8.4e9), "{jumbo:?}");
        assert!(!m.size_measured(9000) && !m.size_measured(64));
    }

    #[test]
    fn two_passes_double_the_latency_and_halve_the_rate() {
        let m = bmv2_coarse().unwrap();
        let c = m.price(2, 1500);
        assert!(close(c.latency_us.min, 160.0) && close(c.latency_us.max, 240.0));
        assert!(close(c.throughput_bps, 0.7e9), "{c:?}");
    }

    #[test]
    fn a_bad_file_is_refused() {
        let bad = BMV2_COARSE.1.replace("\"min\": 80.0", "\"min\": 180.0");
        let e = parse_bmv2_coarse("x.json", &bad).unwrap_err().to_string();
        assert!(e.contains("latency_per_pass_us"), "{e}");
        let bad = BMV2_COARSE
            .1
            .replace("\"packet_size_bytes\": 256", "\"packet_size_bytes\": 2560");
        let e = parse_bmv2_coarse("x.json", &bad).unwrap_err().to_string();
        assert!(e.contains("increasing"), "{e}");
    }
}
