//! The NFP-4000 recirculation model (ANCS 2021; docs/models.md, NFP-4000
//! recirculation): a packet that recirculates or resubmits passes the
//! pipeline again, and the NIC's capacity is in passes per second, so a
//! class of p passes gets 1/p of it. The capacities come from the paper's
//! measured rates at one recirculation (`models/nfp/nfp4000.json`); no
//! number lives in code.

use serde::{Deserialize, Serialize};

use crate::spec::Source;
use crate::ModelError;

/// The embedded file.
pub const NFP4000: (&str, &str) = (
    "nfp4000.json",
    include_str!("../../../models/nfp/nfp4000.json"),
);

/// What the paper measured.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Measured {
    /// Frame size, bytes.
    pub packet_size_bytes: u32,
    /// Pipeline passes per packet (1 + recirculations).
    pub passes: u32,
    /// Send rate up to which nothing was lost, bit/s.
    pub onset_bps: f64,
    /// Received rate the overload settled at, bit/s.
    pub saturated_bps: f64,
    /// The smallest size without loss at line rate, bytes.
    pub smallest_lossless_size_bytes: u32,
}

/// The model file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Nfp {
    /// File format version (1).
    pub schema: u32,
    /// Its name (`nfp4000`).
    pub name: String,
    /// One-line title.
    pub title: String,
    /// The device.
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
    /// Port line rate, bit/s.
    pub line_rate_bps: f64,
    /// The measurement the capacities come from.
    pub measured: Measured,
    /// Notes.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// A class's throughput.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Throughput {
    /// Pipeline passes.
    pub passes: u32,
    /// The highest send rate without loss, bit/s.
    pub loss_free_bps: f64,
    /// The received rate once the send rate is past it, bit/s (equal to
    /// the loss-free rate when that is the line rate: nothing is lost).
    pub received_past_bps: f64,
    /// Whether line rate is received without loss, by the capacity the
    /// overload settles at (what puts the paper's smallest lossless size
    /// at 275 B).
    pub line_rate_lossless: bool,
    /// The smallest frame received at line rate without loss with these
    /// passes, bytes.
    pub smallest_lossless_size_bytes: f64,
}

impl Nfp {
    /// This file as a model of kind `nfp_recirc` (what `predict --model`
    /// and `p4cost models` take).
    pub fn to_spec(&self) -> crate::ModelSpec {
        crate::spec::pass_model(
            crate::ModelKind::NfpRecirc,
            (&self.name, &self.title, &self.target, &self.architectures),
            (&self.source, &self.predicts, &self.notes),
            (Some(self.clone()), None),
        )
    }

    /// Passes per second the pipeline takes before the first loss.
    pub fn onset_passes_pps(&self) -> f64 {
        let m = &self.measured;
        f64::from(m.passes) * m.onset_bps / (8.0 * f64::from(m.packet_size_bytes))
    }

    /// Passes per second it settles at under overload.
    pub fn saturated_passes_pps(&self) -> f64 {
        let m = &self.measured;
        f64::from(m.passes) * m.saturated_bps / (8.0 * f64::from(m.packet_size_bytes))
    }

    /// The throughput of packets of `size` bytes taking `passes` passes.
    pub fn throughput(&self, passes: u32, size: u32) -> Throughput {
        let p = f64::from(passes.max(1));
        let bits = 8.0 * f64::from(size);
        let onset = (self.onset_passes_pps() / p * bits).min(self.line_rate_bps);
        let sat = (self.saturated_passes_pps() / p * bits).min(self.line_rate_bps);
        Throughput {
            passes,
            loss_free_bps: onset,
            received_past_bps: sat.min(onset),
            line_rate_lossless: sat >= self.line_rate_bps,
            smallest_lossless_size_bytes: self.smallest_lossless_size(passes),
        }
    }

    /// The smallest packet size received at line rate without loss with
    /// `passes` passes, bytes.
    pub fn smallest_lossless_size(&self, passes: u32) -> f64 {
        f64::from(passes.max(1)) * self.line_rate_bps / (8.0 * self.saturated_passes_pps())
    }

    pub(crate) fn check(&self) -> Result<(), String> {
        let m = &self.measured;
        if self.schema != 1 {
            return Err(format!("unsupported schema {}", self.schema));
        }
        if m.packet_size_bytes == 0 || m.passes == 0 {
            return Err("measured: packet size and passes are above zero".into());
        }
        if !(m.saturated_bps > 0.0
            && m.saturated_bps <= m.onset_bps
            && m.onset_bps <= self.line_rate_bps)
        {
            return Err("measured: 0 < saturated_bps <= onset_bps <= line_rate_bps".into());
        }
        Ok(())
    }
}

/// The embedded model.
pub fn nfp4000() -> Result<Nfp, ModelError> {
    parse_nfp(NFP4000.0, NFP4000.1)
}

/// Parses a file of this kind.
pub fn parse_nfp(file: &str, text: &str) -> Result<Nfp, ModelError> {
    crate::values::parse_file(file, text, Nfp::check)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The paper's figures, typed from it: 134 B with one recirculation
    /// loses above 5.7 Gbit/s and settles at about 4.9; 275 B has no loss
    /// at 10 Gbit/s; 1500 B none either.
    #[test]
    fn one_recirculation_reproduces_the_papers_figures() {
        let m = nfp4000().expect("model parses");
        let t = m.throughput(2, 134);
        assert!((t.loss_free_bps - 5.7e9).abs() < 1.0, "{t:?}");
        assert!((t.received_past_bps - 4.9e9).abs() < 1.0, "{t:?}");
        assert!(!t.line_rate_lossless);
        let t = m.throughput(2, 275);
        assert_eq!(t.loss_free_bps, 10e9, "{t:?}");
        assert_eq!(t.received_past_bps, 10e9, "{t:?}");
        assert!(t.line_rate_lossless);
        assert!(m.throughput(2, 1500).line_rate_lossless);
        // The smallest lossless size the capacity gives is the paper's
        // 275 B within its sweep's step (273.4 B).
        let s = m.smallest_lossless_size(2);
        assert!(s <= 275.0 && s > 270.0, "{s}");
        assert!(!m.throughput(2, 270).line_rate_lossless);
    }

    #[test]
    fn one_pass_takes_twice_the_rate_and_more_passes_less() {
        let m = nfp4000().unwrap();
        let one = m.throughput(1, 134);
        assert!((one.received_past_bps - 9.8e9).abs() < 1.0, "{one:?}");
        let three = m.throughput(3, 134);
        assert!((three.loss_free_bps - 3.8e9).abs() < 1.0, "{three:?}");
    }

    #[test]
    fn a_bad_file_is_refused() {
        let bad = NFP4000.1.replace(
            "\"saturated_bps\": 4900000000",
            "\"saturated_bps\": 6900000000",
        );
        let e = parse_nfp("x.json", &bad).unwrap_err().to_string();
        assert!(e.contains("saturated_bps"), "{e}");
    }
}
