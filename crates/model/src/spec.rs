//! The schema of a model file (`models/*.json`).

use serde::{Deserialize, Serialize};

use crate::values;

/// Where a model's numbers come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Source {
    /// Full citation.
    pub citation: String,
    /// DOI, when the source has one.
    #[serde(default)]
    pub doi: Option<String>,
    /// Table or section of the source.
    #[serde(rename = "where")]
    pub location: String,
    /// Section of the repository's `docs/models.md` (`docs/models.md#anchor`).
    pub spec: String,
}

/// Which engine evaluates a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ModelKind {
    /// The Tofino 1 ingress linear model (docs/models.md, Tofino 1 ingress latency).
    TofinoIngressLinear,
    /// The Tofino compiler's MAU stage cycles turned into time
    /// (docs/models.md, Tofino MAU cycles): needs the compiler's stage placement.
    TofinoMauCycles,
    /// MAU stage placement estimated from the program, then the cycle rule.
    TofinoMauEstimate,
    /// A PCA-Lasso-polynomial model fitted by `p4cost fit --kind plp`
    /// (docs/models.md, PLP models).
    Plp,
    /// A component model fitted by `p4cost fit --kind component`
    /// (docs/models.md, Component models).
    Component,
    /// CPU cycles per packet of a software switch from its tables
    /// (docs/models.md, t4p4s DPDK CPU cost).
    CpuTables,
    /// Throughput of a NIC whose capacity is in pipeline passes, under
    /// recirculation (docs/models.md, NFP-4000 recirculation).
    NfpRecirc,
    /// A coarse per-pass latency range and packet rate of a software
    /// switch (docs/models.md, BMv2 simple_switch (coarse)).
    Bmv2Coarse,
}

impl ModelKind {
    /// The kind's name as written in model files.
    pub fn name(self) -> &'static str {
        match self {
            ModelKind::TofinoIngressLinear => "tofino_ingress_linear",
            ModelKind::TofinoMauCycles => "tofino_mau_cycles",
            ModelKind::TofinoMauEstimate => "tofino_mau_estimate",
            ModelKind::Plp => "plp",
            ModelKind::Component => "component",
            ModelKind::CpuTables => "cpu_tables",
            ModelKind::NfpRecirc => "nfp_recirc",
            ModelKind::Bmv2Coarse => "bmv2_coarse",
        }
    }

    /// What models of this kind predict, as `p4cost models` groups them:
    /// the group's id and its title.
    pub fn group(self) -> (&'static str, &'static str) {
        match self {
            ModelKind::TofinoIngressLinear
            | ModelKind::TofinoMauCycles
            | ModelKind::TofinoMauEstimate
            | ModelKind::Plp
            | ModelKind::Component => ("latency", "latency per packet class"),
            ModelKind::CpuTables => ("cpu_cost", "CPU cost per packet class"),
            ModelKind::NfpRecirc => ("recirculation", "throughput under recirculation"),
            ModelKind::Bmv2Coarse => ("coarse", "coarse per-pass latency and throughput"),
        }
    }

    /// The units of what models of this kind give.
    pub fn units(self) -> &'static str {
        match self {
            ModelKind::TofinoIngressLinear
            | ModelKind::TofinoMauCycles
            | ModelKind::TofinoMauEstimate
            | ModelKind::Plp
            | ModelKind::Component => "ns",
            ModelKind::CpuTables => "cycles per packet, Mpps, us",
            ModelKind::NfpRecirc => "passes, Gbit/s",
            ModelKind::Bmv2Coarse => "passes, us, kpps, Gbit/s",
        }
    }
}

/// `L_B(p) = per_packet_byte_ns * p + constant_ns`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Base {
    /// Slope per packet byte.
    pub per_packet_byte_ns: f64,
    /// Intercept.
    pub constant_ns: f64,
}

/// Per counted parse state: `per_header_byte_ns * bytes + per_state_ns`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ParserTerm {
    /// Slope per extracted byte.
    pub per_header_byte_ns: f64,
    /// Constant per counted state.
    pub per_state_ns: f64,
}

/// Per-table cost of one match class, by key class.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KeyClassCost {
    /// The k=8 class: two or more keys, or one key narrower than
    /// `wide_key_min_bits`.
    pub narrow_key_ns: f64,
    /// The k=16/32 class: one key of at least `wide_key_min_bits`.
    pub wide_key_ns: f64,
}

/// The control term `L_C`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ControlTerm {
    /// Exact-match tables.
    pub exact: KeyClassCost,
    /// LPM tables.
    pub lpm: KeyClassCost,
    /// Narrowest single key of the wide class, in bits.
    pub wide_key_min_bits: u32,
}

/// The ranges the model was trained on (inclusive bounds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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
    /// The measured latencies the model was fitted on, ns (models made by
    /// `p4cost fit`): a prediction outside them extrapolates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ns: Option<[f64; 2]>,
}

/// Where a model is known to turn non-linear.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Nonlinear {
    /// Packet sizes above this behaved non-linearly.
    pub packet_size_above_bytes: u32,
    /// Paths with more counted states than this behaved non-linearly.
    pub states_above: u32,
    /// The paper's explanation.
    pub why: String,
}

/// Extra stage-length cycles for what a stage holds (docs/models.md, Tofino MAU cycles).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StageLengthExtra {
    /// A stage using TCAM or a wide selector.
    pub tcam_or_wide_selector: u32,
    /// A selector.
    pub selector: u32,
    /// A stateful divide.
    pub stateful_divide: u32,
    /// A stateful ALU or an LPF/RED meter.
    pub stateful_alu_or_meter: u32,
}

/// What one stage adds to its gress's latency, by its dependence on the
/// stage before it (docs/models.md, Tofino MAU cycles).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StageContribution {
    /// A match-dependent stage (and stage 0) adds its full length; this
    /// is always true and recorded for completeness.
    pub match_dependent_adds_full_length: bool,
    /// Cycles an action-dependent stage adds.
    pub action_dependent_cycles: u32,
    /// Cycles a concurrent stage adds.
    pub concurrent_cycles: u32,
}

/// The `tofino_mau_cycles` section: the compiler's latency rule and the
/// facts it rests on. The engine sums the compiler's per-stage figures;
/// the stage facts are documented here and used for plausibility warnings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MauCycles {
    /// Fixed cycles added once per gress (the corner turn).
    pub corner_turn_cycles: u32,
    /// Clock used when the user gives none, GHz.
    pub default_clock_ghz: f64,
    /// Clock range of the chip's SKUs, GHz (inclusive).
    pub clock_ghz_range: [f64; 2],
    /// MAU stages per gress on the chip.
    pub stages: u32,
    /// Base stage length in cycles.
    pub stage_length_cycles: u32,
    /// Extra stage length for what a stage holds.
    pub stage_length_extra: StageLengthExtra,
    /// What a stage adds by its dependence.
    pub contribution: StageContribution,
    /// The compiler pads egress to at least this many cycles.
    pub egress_min_cycles: u32,
    /// The `target` the compiler writes into context.json for this chip.
    pub context_target: String,
}

/// Per-stage resources the placement may use (docs/models.md, Tofino
/// stage placement).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StageResources {
    /// Logical table IDs (tables and keyless statement tables).
    pub logical_tables: u32,
    /// Logical tables that match in TCAM (ternary, LPM, range, keyless).
    pub ternary_tables: u32,
    /// SRAM blocks.
    pub sram_blocks: u32,
    /// TCAM blocks.
    pub tcam_blocks: u32,
    /// Gateways (`if` conditions).
    pub gateways: u32,
    /// Meter ALUs, shared by stateful ALUs, meters, LPF/WRED and selectors.
    pub meter_alus: u32,
    /// Statistics ALUs (one per counter in a stage).
    pub stats_alus: u32,
    /// Map RAMs (one beside each SRAM block a counter, meter, register or
    /// selector uses).
    pub map_rams: u32,
    /// Hash bits of the input crossbar (hash groups times bits per group).
    pub hash_bits: u32,
}

/// How table entries take memory.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Memories {
    /// Words per SRAM block.
    pub sram_words: u64,
    /// Bits per SRAM word.
    pub sram_word_bits: u64,
    /// Overhead bits per exact-match entry (version/valid).
    pub exact_overhead_bits: u64,
    /// Most entries packed in one wide word.
    pub exact_max_entries_per_word: u64,
    /// Fewest RAM rows (hash ways) an exact table takes.
    pub exact_min_ways: u64,
    /// Entries per TCAM block.
    pub tcam_entries: u64,
    /// Bits per TCAM block entry.
    pub tcam_bits: u64,
    /// Action data up to this many bits rides in the match result
    /// (immediate); wider data takes action-data SRAM.
    pub immediate_bits: u64,
    /// Hash bits one way of an exact table takes to select a RAM line.
    pub hash_way_bits: u64,
    /// Bits of one counter cell (packets and bytes).
    pub counter_cell_bits: u64,
    /// Bits of one meter cell.
    pub meter_cell_bits: u64,
    /// SRAM blocks (each with its map RAM) a counter, meter or register
    /// takes beyond its cells: the spare bank of a two-port (synthetic
    /// read-modify-write) table.
    pub two_port_spare_blocks: u64,
    /// Members one selector RAM line holds (bf-p4c
    /// `StageUseEstimate::SINGLE_RAMLINE_POOL_SIZE`), and the default
    /// largest group of a selector that gives none.
    pub selector_line_members: u64,
    /// Groups of a selector that gives none (bf-p4c
    /// `COMPILER_DEFAULT_SELECTOR_POOLS`).
    pub selector_default_groups: u64,
}

/// The `placement` section of a `tofino_mau_estimate` model: how p4cost
/// places tables into stages from the source (docs/models.md, Tofino stage
/// placement).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Placement {
    /// Stages the hardware always makes match dependent (Tofino 1: 6).
    pub forced_match_stages: Vec<u32>,
    /// Entries of a table that declares no size.
    pub default_table_size: u64,
    /// Resources of one stage.
    pub resources: StageResources,
    /// Memory geometry.
    pub memories: Memories,
    /// A selector whose largest group holds more members than this is
    /// wide.
    pub wide_selector_members: u64,
    /// Whether a table with an indirect meter or register (stateful ALU)
    /// may be split over stages (Tofino 2: yes; Tofino 1: no, the table
    /// stays in one stage, bf-p4c `TablePlacement::can_split`). Absent:
    /// no.
    #[serde(default)]
    pub split_indirect_stateful: bool,
    /// Fields the compiler packs into one container: `[suffix, container]`
    /// (a field ending with the suffix belongs to the container).
    pub shared_containers: Vec<[String; 2]>,
}

/// The terms of a `tofino_ingress_linear` model, borrowed from its spec.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinearTerms<'a> {
    /// `L_B`.
    pub base: &'a Base,
    /// `L_PD` per counted state.
    pub parser: &'a ParserTerm,
    /// `L_C`, when the model has one.
    pub control: Option<&'a ControlTerm>,
    /// Training range.
    pub training: &'a Training,
    /// Known non-linear region.
    pub nonlinear: Option<&'a Nonlinear>,
}

/// One model file. Which optional sections must be present depends on
/// [`ModelSpec::kind`]: `base`, `parser` and `training` (and optionally
/// `control`, `nonlinear`, `port_gbps`) for `tofino_ingress_linear`;
/// `mau_cycles` for `tofino_mau_cycles`. [`crate::catalog::parse_model`]
/// checks this.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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
    /// The P4 architectures (`v1model`, `psa`, ...) of the programs the
    /// target runs; a program of another gets a `target_mismatch`
    /// warning. Empty: not stated (a Tofino model's `target` names its
    /// chip generation, which is checked instead).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(with = "Vec<String>")]
    pub architectures: Vec<p4cost_ir::Arch>,
    /// Port speed the model was measured on; `None` for models that do
    /// not depend on the port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port_gbps: Option<u32>,
    /// Provenance.
    pub source: Source,
    /// What the model predicts.
    pub predicts: String,
    /// `L_B` (linear models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<Base>,
    /// `L_PD` per counted state (linear models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parser: Option<ParserTerm>,
    /// `L_C`; `None` for variants without a control term.
    #[serde(default)]
    pub control: Option<ControlTerm>,
    /// Training range (linear models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub training: Option<Training>,
    /// Known non-linear region, if any.
    #[serde(default)]
    pub nonlinear: Option<Nonlinear>,
    /// The MAU cycle rule (`tofino_mau_cycles` and `tofino_mau_estimate`
    /// models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mau_cycles: Option<MauCycles>,
    /// How tables are placed into stages (`tofino_mau_estimate` models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<Placement>,
    /// The PLP pipeline's numbers (`plp` models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plp: Option<crate::plp::PlpSpec>,
    /// The fitted component curves (`component` models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub component: Option<crate::component::ComponentSpec>,
    /// How well a fitted model fits its own measurements (models made by
    /// `p4cost fit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fit: Option<FitSummary>,
    /// The CPU table equations (`cpu_tables` models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<crate::cpu_tables::CpuSpec>,
    /// The NIC's measured capacity (`nfp_recirc` models: the file under
    /// `models/nfp/`, whole).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nfp: Option<crate::nfp::Nfp>,
    /// The coarse figures (`bmv2_coarse` models: the file under
    /// `models/bmv2/`, whole).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bmv2_coarse: Option<crate::bmv2_coarse::Bmv2Coarse>,
    /// Free-form notes shown with the model.
    #[serde(default)]
    pub notes: Vec<String>,
    /// A file of several ports (what `p4cost fit` writes for data measured
    /// at several ports): one complete single-port model per port,
    /// ascending, each of this file's kind and name. The file itself then
    /// names no port and holds no terms; `--port` picks an entry
    /// ([`ModelSpec::for_port`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<ModelSpec>,
}

/// A model of a pass kind (`nfp_recirc`, `bmv2_coarse`) holding its file
/// whole: `(name, title, target, architectures)`, `(source, predicts,
/// notes)`, and the
/// section of its kind.
pub(crate) fn pass_model(
    kind: ModelKind,
    (name, title, target, architectures): (&str, &str, &str, &[p4cost_ir::Arch]),
    (source, predicts, notes): (&Source, &str, &[String]),
    (nfp, bmv2_coarse): (
        Option<crate::nfp::Nfp>,
        Option<crate::bmv2_coarse::Bmv2Coarse>,
    ),
) -> ModelSpec {
    ModelSpec {
        schema: 1,
        name: name.to_string(),
        title: title.to_string(),
        kind,
        target: target.to_string(),
        architectures: architectures.to_vec(),
        port_gbps: None,
        source: source.clone(),
        predicts: predicts.to_string(),
        base: None,
        parser: None,
        control: None,
        training: None,
        nonlinear: None,
        mau_cycles: None,
        placement: None,
        plp: None,
        component: None,
        fit: None,
        cpu: None,
        nfp,
        bmv2_coarse,
        notes: notes.to_vec(),
        ports: Vec::new(),
    }
}

/// The figures of a fit on its own training rows (docs/models.md,
/// "Fitting your own model").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FitSummary {
    /// The method (`lr`: ordinary least squares).
    pub method: String,
    /// The measurement file, as given to `fit`.
    pub data: String,
    /// Measured rows used.
    pub rows: usize,
    /// Coefficient of determination on the training rows.
    pub r2: f64,
    /// Root mean square residual, ns.
    pub rmse_ns: f64,
    /// Mean absolute residual, ns.
    pub mae_ns: f64,
    /// Largest absolute residual, ns.
    pub max_abs_residual_ns: f64,
    /// Symmetric mean absolute percentage error, percent.
    pub smape_percent: f64,
    /// The papers' accuracy: mean of 100 - |pred - meas| / meas * 100.
    pub accuracy_percent: f64,
    /// Each term's smallest and largest value over the training rows
    /// ([`crate::fitted::term_ranges`]): a term that goes below zero on
    /// the model's own measurements is nonsense.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub terms: Vec<TermRange>,
}

/// One term of a fitted model over its training rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TermRange {
    /// The term: `base`, `parser part`, `control part`, `state share`,
    /// `table share (KIND)`.
    pub term: String,
    /// Its smallest value, ns.
    pub min_ns: f64,
    /// Its largest value, ns.
    pub max_ns: f64,
}

impl ModelSpec {
    /// The linear coefficients in bounds: not below zero in a published
    /// model; a model `p4cost fit` made (it has a `fit` section) may have
    /// one, since fit refuses terms below zero on its own rows unless
    /// `--allow-negative` and predict warns about every such term.
    fn check_coefficients(&self, root: &str) -> Result<(), String> {
        let signed = self.fit.is_some();
        let mut all = Vec::new();
        if let Some(b) = &self.base {
            all.push(("base.per_packet_byte_ns", b.per_packet_byte_ns));
            all.push(("base.constant_ns", b.constant_ns));
        }
        if let Some(p) = &self.parser {
            all.push(("parser.per_header_byte_ns", p.per_header_byte_ns));
            all.push(("parser.per_state_ns", p.per_state_ns));
        }
        if let Some(c) = &self.control {
            all.push(("control.exact.narrow_key_ns", c.exact.narrow_key_ns));
            all.push(("control.exact.wide_key_ns", c.exact.wide_key_ns));
            all.push(("control.lpm.narrow_key_ns", c.lpm.narrow_key_ns));
            all.push(("control.lpm.wide_key_ns", c.lpm.wide_key_ns));
        }
        for (field, x) in all {
            values::coefficient(&format!("{root}.{field}"), x, signed)?;
        }
        Ok(())
    }

    /// The linear terms, when this is a complete `tofino_ingress_linear`
    /// model.
    pub fn linear(&self) -> Option<LinearTerms<'_>> {
        if self.kind != ModelKind::TofinoIngressLinear {
            return None;
        }
        Some(LinearTerms {
            base: self.base.as_ref()?,
            parser: self.parser.as_ref()?,
            control: self.control.as_ref(),
            training: self.training.as_ref()?,
            nonlinear: self.nonlinear.as_ref(),
        })
    }

    /// The MAU cycle rule, when this is a complete `tofino_mau_cycles`
    /// model.
    pub fn mau(&self) -> Option<&MauCycles> {
        if !matches!(
            self.kind,
            ModelKind::TofinoMauCycles | ModelKind::TofinoMauEstimate
        ) {
            return None;
        }
        self.mau_cycles.as_ref()
    }

    /// The CPU table equations, when this is a `cpu_tables` model.
    pub fn cpu(&self) -> Option<&crate::cpu_tables::CpuSpec> {
        if self.kind != ModelKind::CpuTables {
            return None;
        }
        self.cpu.as_ref()
    }

    /// The NIC's capacity, when this is an `nfp_recirc` model.
    pub fn nfp(&self) -> Option<&crate::nfp::Nfp> {
        if self.kind != ModelKind::NfpRecirc {
            return None;
        }
        self.nfp.as_ref()
    }

    /// The coarse figures, when this is a `bmv2_coarse` model.
    pub fn bmv2_coarse(&self) -> Option<&crate::bmv2_coarse::Bmv2Coarse> {
        if self.kind != ModelKind::Bmv2Coarse {
            return None;
        }
        self.bmv2_coarse.as_ref()
    }

    /// The packet size this model's figures were measured at, the default
    /// of `--packet-size` under it: the NFP-4000's recirculation sweep's
    /// small packet, the BMv2 latency range's packet; `None` for the
    /// other kinds (p4cost's general default applies).
    pub fn reference_packet_size(&self) -> Option<u32> {
        if let Some(n) = self.nfp() {
            return Some(n.measured.packet_size_bytes);
        }
        self.bmv2_coarse()
            .map(|c| c.latency_per_pass_us.packet_size_bytes)
    }

    /// A pass model (`nfp_recirc`, `bmv2_coarse`) holds its own section
    /// (checked when its file was read) and nothing else; no other kind
    /// holds either.
    fn check_passes(&self) -> Result<(), String> {
        let own = match self.kind {
            ModelKind::NfpRecirc => self.nfp.is_some() && self.bmv2_coarse.is_none(),
            ModelKind::Bmv2Coarse => self.bmv2_coarse.is_some() && self.nfp.is_none(),
            _ => return Ok(()),
        };
        let other = self.base.is_some()
            || self.parser.is_some()
            || self.control.is_some()
            || self.training.is_some()
            || self.mau_cycles.is_some()
            || self.placement.is_some()
            || self.plp.is_some()
            || self.component.is_some()
            || self.cpu.is_some()
            || self.port_gbps.is_some();
        if !own || other {
            return Err(format!(
                "kind {} takes only its own section ({})",
                self.kind.name(),
                if self.kind == ModelKind::NfpRecirc {
                    "nfp"
                } else {
                    "bmv2_coarse"
                }
            ));
        }
        // A model file (`--model-file`) holds the section as the embedded
        // file does: checked by the same rules.
        match (&self.nfp, &self.bmv2_coarse) {
            (Some(n), _) => n.check().map_err(|e| format!("$.nfp: {e}")),
            (_, Some(b)) => b.check().map_err(|e| format!("$.bmv2_coarse: {e}")),
            _ => Ok(()),
        }
    }

    /// A `cpu_tables` model holds its `cpu` section and no other kind's.
    fn check_cpu(&self, root: &str) -> Result<(), String> {
        let Some(cpu) = &self.cpu else {
            return Err(format!("kind {} needs cpu", self.kind.name()));
        };
        if self.base.is_some()
            || self.parser.is_some()
            || self.control.is_some()
            || self.training.is_some()
            || self.mau_cycles.is_some()
            || self.placement.is_some()
            || self.plp.is_some()
            || self.component.is_some()
            || self.port_gbps.is_some()
        {
            return Err(format!(
                "kind {} takes only its cpu section (no port_gbps, base, parser, control, training, mau_cycles, placement, plp or component)",
                self.kind.name()
            ));
        }
        cpu.check(&format!("{root}.cpu"))
    }

    /// The placement rules, when this is a `tofino_mau_estimate` model.
    pub fn placement(&self) -> Option<&Placement> {
        if self.kind != ModelKind::TofinoMauEstimate {
            return None;
        }
        self.placement.as_ref()
    }

    /// The ports this file has a fit for, ascending (one for a
    /// single-port file; none for a model that does not depend on the
    /// port).
    pub fn port_list(&self) -> Vec<u32> {
        if self.ports.is_empty() {
            self.port_gbps.into_iter().collect()
        } else {
            self.ports.iter().filter_map(|m| m.port_gbps).collect()
        }
    }

    /// The single-port model for `port`: this model when it holds one
    /// port (whether it is that port is the caller's to check); for a file
    /// of several ports the entry of `port`, or the first (slowest) port
    /// when `port` is `None`.
    pub fn for_port(&self, port: Option<u32>) -> Result<ModelSpec, String> {
        let Some(first) = self.ports.first() else {
            return Ok(self.clone());
        };
        let Some(p) = port else {
            return Ok(first.clone());
        };
        self.ports
            .iter()
            .find(|m| m.port_gbps == Some(p))
            .cloned()
            .ok_or_else(|| {
                let have: Vec<String> = self.port_list().iter().map(|g| format!("{g}G")).collect();
                format!(
                    "model {} has no fit for a {p}G port (it holds {})",
                    self.name,
                    have.join(", ")
                )
            })
    }

    /// What is wrong with a file of several ports: the file names no port
    /// and holds no terms; each entry is a complete single-port model of
    /// the file's kind and name, at a port no other entry has, ascending.
    fn check_ports(&self, root: &str) -> Result<(), String> {
        if self.port_gbps.is_some()
            || self.base.is_some()
            || self.parser.is_some()
            || self.control.is_some()
            || self.training.is_some()
            || self.nonlinear.is_some()
            || self.mau_cycles.is_some()
            || self.placement.is_some()
            || self.plp.is_some()
            || self.component.is_some()
            || self.fit.is_some()
            || self.cpu.is_some()
        {
            return Err("a model with `ports` holds its terms in the ports' entries: no port_gbps, terms, training or fit beside `ports`".into());
        }
        let mut last: Option<u32> = None;
        for (i, m) in self.ports.iter().enumerate() {
            let at = |e: String| format!("ports[{i}]: {e}");
            if !m.ports.is_empty() {
                return Err(at("an entry holds one port (no nested `ports`)".into()));
            }
            if m.kind != self.kind || m.name != self.name {
                return Err(at(format!(
                    "entry {} ({}) differs from the file's {} ({})",
                    m.name,
                    m.kind.name(),
                    self.name,
                    self.kind.name()
                )));
            }
            let Some(p) = m.port_gbps else {
                return Err(at("an entry names its port_gbps".into()));
            };
            if let Some(l) = last.filter(|&l| l >= p) {
                return Err(at(format!(
                    "ports must be distinct and ascending ({p}G after {l}G)"
                )));
            }
            last = Some(p);
            m.check_at(&format!("{root}.ports[{i}]")).map_err(|e| {
                if e.starts_with('$') {
                    e
                } else {
                    at(e)
                }
            })?;
        }
        Ok(())
    }

    /// What is missing, contradictory or out of bounds for the model's
    /// kind, if anything (values: [`crate::values`]).
    pub fn check(&self) -> Result<(), String> {
        self.check_at("$")
    }

    /// [`ModelSpec::check`] of the model at JSON path `root`.
    fn check_at(&self, root: &str) -> Result<(), String> {
        if !self.ports.is_empty() {
            return self.check_ports(root);
        }
        if let Some(p) = self.port_gbps {
            values::port(&format!("{root}.port_gbps"), p)?;
        }
        if !matches!(self.kind, ModelKind::NfpRecirc | ModelKind::Bmv2Coarse)
            && (self.nfp.is_some() || self.bmv2_coarse.is_some())
        {
            return Err(format!(
                "kind {} takes no nfp or bmv2_coarse section",
                self.kind.name()
            ));
        }
        match self.kind {
            ModelKind::NfpRecirc | ModelKind::Bmv2Coarse => self.check_passes(),
            ModelKind::TofinoIngressLinear => self.check_linear_sections(root),
            ModelKind::Plp | ModelKind::Component => self.check_fitted_sections(),
            ModelKind::CpuTables => self.check_cpu(root),
            ModelKind::TofinoMauCycles | ModelKind::TofinoMauEstimate => {
                self.check_mau_sections(root)
            }
        }
    }

    /// The sections a `tofino_ingress_linear` model needs and the ones it must not have.
    fn check_linear_sections(&self, root: &str) -> Result<(), String> {
        let mut missing = Vec::new();
        if self.base.is_none() {
            missing.push("base");
        }
        if self.parser.is_none() {
            missing.push("parser");
        }
        if self.training.is_none() {
            missing.push("training");
        }
        if self.port_gbps.is_none() {
            missing.push("port_gbps");
        }
        if !missing.is_empty() {
            return Err(format!(
                "kind {} needs {}",
                self.kind.name(),
                missing.join(", ")
            ));
        }
        if self.mau_cycles.is_some()
            || self.plp.is_some()
            || self.component.is_some()
            || self.cpu.is_some()
        {
            return Err(format!(
                "kind {} has no mau_cycles, plp or component section",
                self.kind.name()
            ));
        }
        self.check_coefficients(root)
    }

    /// The sections a fitted `plp` or `component` model needs and the ones it must not have.
    fn check_fitted_sections(&self) -> Result<(), String> {
        let mut missing = Vec::new();
        if self.training.is_none() {
            missing.push("training");
        }
        if self.port_gbps.is_none() {
            missing.push("port_gbps");
        }
        match (self.kind, &self.plp, &self.component) {
            (ModelKind::Plp, None, _) => missing.push("plp"),
            (ModelKind::Component, _, None) => missing.push("component"),
            _ => {}
        }
        if !missing.is_empty() {
            return Err(format!(
                "kind {} needs {}",
                self.kind.name(),
                missing.join(", ")
            ));
        }
        if self.base.is_some()
            || self.parser.is_some()
            || self.control.is_some()
            || self.mau_cycles.is_some()
            || self.placement.is_some()
            || self.cpu.is_some()
            || (self.plp.is_some() && self.component.is_some())
        {
            return Err(format!(
                "kind {} takes only its own section and training (no base, parser, control, mau_cycles, placement or the other fitted kind)",
                self.kind.name()
            ));
        }
        if let Some(p) = &self.plp {
            p.check()?;
        }
        if let Some(c) = &self.component {
            c.check()?;
        }
        Ok(())
    }

    /// The `mau_cycles` (and, for the estimate, `placement`) sections of a Tofino MAU model.
    fn check_mau_sections(&self, root: &str) -> Result<(), String> {
        if (self.kind == ModelKind::TofinoMauEstimate) != self.placement.is_some() {
            return Err(format!(
                "kind {} {} a placement section",
                self.kind.name(),
                if self.placement.is_some() {
                    "takes no"
                } else {
                    "needs"
                }
            ));
        }
        let Some(m) = &self.mau_cycles else {
            return Err(format!("kind {} needs mau_cycles", self.kind.name()));
        };
        if self.base.is_some()
            || self.parser.is_some()
            || self.control.is_some()
            || self.training.is_some()
            || self.plp.is_some()
            || self.component.is_some()
            || self.cpu.is_some()
        {
            return Err(format!(
                "kind {} takes no linear or fitted terms (base, parser, control, training, plp, component)",
                self.kind.name()
            ));
        }
        let [lo, hi] = m.clock_ghz_range;
        let at = format!("{root}.mau_cycles");
        values::clock(&format!("{at}.default_clock_ghz"), m.default_clock_ghz)?;
        values::clock(&format!("{at}.clock_ghz_range[0]"), lo)?;
        values::clock(&format!("{at}.clock_ghz_range[1]"), hi)?;
        if lo > hi {
            return Err(format!(
                "{at}.clock_ghz_range: {lo} GHz after {hi} GHz: the range must be ordered"
            ));
        }
        Ok(())
    }
}
