//! The schema of a model file (`models/*.json`).

use serde::{Deserialize, Serialize};

/// Where a model's numbers come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Source {
    /// Full citation.
    pub citation: String,
    /// DOI, when the source has one.
    #[serde(default)]
    pub doi: Option<String>,
    /// Table or section of the source.
    #[serde(rename = "where")]
    pub location: String,
    /// Section of `shared/spec/MODELS.md`.
    pub spec: String,
}

/// Which engine evaluates a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelKind {
    /// The Tofino 1 ingress linear model (MODELS.md section 1).
    TofinoIngressLinear,
}

/// `L_B(p) = per_packet_byte_ns * p + constant_ns`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Base {
    /// Slope per packet byte.
    pub per_packet_byte_ns: f64,
    /// Intercept.
    pub constant_ns: f64,
}

/// Per counted parse state: `per_header_byte_ns * bytes + per_state_ns`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ParserTerm {
    /// Slope per extracted byte.
    pub per_header_byte_ns: f64,
    /// Constant per counted state.
    pub per_state_ns: f64,
}

/// Per-table cost of one match class, by key class.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct KeyClassCost {
    /// The k=8 class: two or more keys, or one key narrower than
    /// `wide_key_min_bits`.
    pub narrow_key_ns: f64,
    /// The k=16/32 class: one key of at least `wide_key_min_bits`.
    pub wide_key_ns: f64,
}

/// The control term `L_C`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ControlTerm {
    /// Exact-match tables.
    pub exact: KeyClassCost,
    /// LPM tables.
    pub lpm: KeyClassCost,
    /// Narrowest single key of the wide class, in bits.
    pub wide_key_min_bits: u32,
}

/// The ranges the model was trained on (inclusive bounds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Training {
    /// Packet sizes, bytes.
    pub packet_size_bytes: [u32; 2],
    /// Counted parse states after the baseline.
    pub states_after_ethernet: [u32; 2],
    /// Bytes extracted by one counted state.
    pub header_bytes_per_state: [u64; 2],
    /// The header sizes actually measured.
    pub measured_header_bytes: Vec<u64>,
    /// Tables in the control.
    pub tables: [u32; 2],
    /// Width of one key field, bits.
    pub key_bits: [u32; 2],
    /// The key widths actually measured.
    pub measured_key_bits: Vec<u32>,
    /// Key fields per table.
    pub keys_per_table: [u32; 2],
    /// Match kinds measured.
    pub match_kinds: Vec<String>,
    /// Installed entries (table size).
    pub entries: [u64; 2],
}

/// Where a model is known to turn non-linear.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Nonlinear {
    /// Packet sizes above this behaved non-linearly.
    pub packet_size_above_bytes: u32,
    /// Paths with more counted states than this behaved non-linearly.
    pub states_above: u32,
    /// The paper's explanation.
    pub why: String,
}

/// One model file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelSpec {
    /// Schema version of the file format (1).
    pub schema: u32,
    /// Unique model name (`tofino1-10g`).
    pub name: String,
    /// One-line title.
    pub title: String,
    /// The engine.
    pub kind: ModelKind,
    /// Target chip.
    pub target: String,
    /// Port speed the model was measured on.
    pub port_gbps: u32,
    /// Provenance.
    pub source: Source,
    /// What the model predicts.
    pub predicts: String,
    /// `L_B`.
    pub base: Base,
    /// `L_PD` per counted state.
    pub parser: ParserTerm,
    /// `L_C`; `None` for variants without a control term.
    pub control: Option<ControlTerm>,
    /// Training range.
    pub training: Training,
    /// Known non-linear region, if any.
    #[serde(default)]
    pub nonlinear: Option<Nonlinear>,
    /// Free-form notes shown with the model.
    #[serde(default)]
    pub notes: Vec<String>,
}
