//! What a prediction says: the total, where it comes from, and what to
//! distrust.

use serde::Serialize;

use p4cost_ir::Span;

/// One parse state's part of a prediction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StateTerm {
    /// State name.
    pub name: String,
    /// Bytes this state extracts into headers.
    pub bytes: u64,
    /// Bytes the model counts for this state (0 when the baseline covers
    /// the state's headers).
    pub counted_bytes: u64,
    /// True when the state is part of the baseline `L_B`.
    pub in_baseline: bool,
    /// The state's contribution in ns (0 for baseline states and states
    /// that extract nothing).
    pub ns: f64,
    /// The state's declaration.
    pub span: Span,
}

/// One table's part of a prediction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TableTerm {
    /// Table name.
    pub name: String,
    /// The table's real match kinds (`exact`, `lpm`, `ternary`, `range`,
    /// `exact+ternary`, `keyless`, ...).
    pub match_kind: String,
    /// Coefficient class used: `exact` or `lpm` (the only two measured).
    pub match_class: String,
    /// Why this coefficient class and this key class were used.
    pub class_reason: String,
    /// Key class used: `narrow` (k=8) or `wide` (k=16/32).
    pub key_class: String,
    /// Number of match keys.
    pub keys: usize,
    /// Summed key width in bits.
    pub key_bits: u64,
    /// Contribution in ns.
    pub ns: f64,
    /// Tofino MAU stages the compiler placed the table in (empty when not
    /// known).
    pub stages: Vec<i32>,
    /// The table's declaration.
    pub span: Span,
}

/// How a prediction splits.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Breakdown {
    /// `L_B`: fixed cost plus packet-size term (covers intrinsic metadata
    /// and the first Ethernet header).
    pub base_ns: f64,
    /// `L_PD`: sum of the counted parse states.
    pub parser_ns: f64,
    /// `L_C`: sum of the tables.
    pub control_ns: f64,
    /// Every state on the path.
    pub states: Vec<StateTerm>,
    /// Every table counted.
    pub tables: Vec<TableTerm>,
}

/// A warning about one prediction.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
pub struct Warning {
    /// Stable machine-readable code (`packet_size_out_of_range`, ...).
    pub code: String,
    /// Human sentence.
    pub message: String,
    /// The source item it is about (a table or parse state), when one.
    #[serde(skip)]
    #[schemars(skip)]
    pub span: Option<p4cost_ir::Span>,
}

impl Warning {
    /// A new warning.
    pub fn new(code: &str, message: impl Into<String>) -> Warning {
        Warning {
            code: code.to_string(),
            message: message.into(),
            span: None,
        }
    }

    /// The same warning, about the source item at `span` when there is one.
    pub fn at_some(mut self, span: Option<p4cost_ir::Span>) -> Warning {
        self.span = span.or(self.span);
        self
    }

    /// The same warning, about the source item at `span`.
    pub fn at(mut self, span: p4cost_ir::Span) -> Warning {
        self.span = Some(span);
        self
    }
}

/// A model's prediction for one path.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prediction {
    /// Total predicted latency in ns.
    pub latency_ns: f64,
    /// The parts.
    pub breakdown: Breakdown,
    /// Inputs outside the training range and other caveats.
    pub warnings: Vec<Warning>,
}
