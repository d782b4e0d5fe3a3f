//! The predict report: one structure rendered as JSON (the versioned
//! schema editors and scripts read) or as a readable table.

use std::borrow::Cow;

use serde::Serialize;

use p4cost_ir::{Program, Span};
use p4cost_model::{GressCycles, Prediction};

/// Version of the JSON report schema. Bump on any incompatible change.
pub const SCHEMA_VERSION: u32 = 15;

/// Warning codes that say a model is used outside what it was trained or
/// validated on (an extrapolation, an estimate, a target it does not
/// model): editors and code-scanning UIs show these as warnings, every
/// other code as a note.
pub const EXTRAPOLATION_CODES: &[&str] = &[
    "packet_size_out_of_range",
    "header_size_out_of_range",
    "too_many_states",
    "nonlinear_region",
    "packet_smaller_than_headers",
    "table_count_out_of_range",
    "key_width_out_of_range",
    "key_width_unknown",
    "too_many_keys",
    "match_kind_not_modelled",
    "keyless_table",
    "actions_outside_training",
    "entries_out_of_range",
    "stage_out_of_range",
    "clock_out_of_range",
    "estimated_placement",
    "target_mismatch",
    "target_not_modelled",
    "parse_graph",
    "fitted_model_extrapolates",
    "key_layout_not_measured",
    "cores_out_of_range",
    "l3_shared_not_modelled",
    "passes_not_measured",
    "packet_size_not_measured",
];

/// Largest integer every JSON reader holds exactly (IEEE doubles: 2^53).
pub const JSON_EXACT_MAX: u128 = 1 << 53;

/// A count or path index that may exceed 2^53: `text` (decimal) always,
/// `value` (a number) only when it is at most 2^53.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CountOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<u64>,
    pub text: String,
}

impl CountOut {
    /// The exact form of `c`.
    pub fn of(c: p4cost_analysis::PathCount) -> CountOut {
        CountOut {
            value: (!c.saturated && c.value <= JSON_EXACT_MAX).then_some(c.value as u64),
            text: count_text(c),
        }
    }

    /// A count the analysis budget did not allow computing.
    pub fn unknown() -> CountOut {
        CountOut {
            value: None,
            text: "unknown".to_string(),
        }
    }
}

/// Serializes a count as its [`CountOut`].
pub fn count_out<S: serde::Serializer>(
    c: &p4cost_analysis::PathCount,
    s: S,
) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&CountOut::of(*c), s)
}

/// Decimal text of a count (`more than 2^128-1` when saturated).
pub fn count_text(c: p4cost_analysis::PathCount) -> String {
    c.to_string()
}

/// True for a count a JSON number would not hold exactly.
pub fn not_json_exact(v: &u128) -> bool {
    *v > JSON_EXACT_MAX
}

/// A span as `file`, `line`, `col` (1-based) plus byte offsets.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Loc {
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub lo: u32,
    pub hi: u32,
}

impl Loc {
    pub fn new(p: &Program, s: Span) -> Loc {
        Loc {
            file: p.file_path(s.file).to_string(),
            line: s.line,
            col: s.col,
            lo: s.lo,
            hi: s.hi,
        }
    }
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ModelRef {
    pub name: String,
    pub title: String,
    pub citation: String,
    pub spec: String,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct StateOut {
    pub name: String,
    pub extracts: Vec<String>,
    pub bytes: u64,
    pub counted_bytes: u64,
    pub in_baseline: bool,
    pub latency_ns: f64,
    pub span: Loc,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct TableOut {
    pub name: String,
    /// The table's real match kinds (`ternary`, `exact+lpm`, `keyless`).
    pub match_kind: String,
    /// The coefficient class the model used (`exact` or `lpm`).
    pub match_class: String,
    /// Why that coefficient class and key class.
    pub class_reason: String,
    pub key_class: String,
    pub keys: usize,
    pub key_bits: u64,
    pub latency_ns: f64,
    /// MAU stages the compiler placed the table in (empty when unknown).
    pub stages: Vec<i32>,
    pub span: Loc,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct BreakdownOut {
    pub base_ns: f64,
    pub parser_ns: f64,
    pub control_ns: f64,
    #[schemars(with = "Vec<TableOut>")]
    pub tables: SharedTables,
}

/// A breakdown's table terms, which the paths of one prediction share
/// (they do not depend on the path): made once, each path holds a
/// pointer, not a copy. Reads as a slice; written as a JSON array.
#[derive(Debug, Clone)]
pub struct SharedTables(std::sync::Arc<[TableOut]>);

impl std::ops::Deref for SharedTables {
    type Target = [TableOut];
    fn deref(&self) -> &[TableOut] {
        &self.0
    }
}

impl<'a> IntoIterator for &'a SharedTables {
    type Item = &'a TableOut;
    type IntoIter = std::slice::Iter<'a, TableOut>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl From<Vec<TableOut>> for SharedTables {
    fn from(v: Vec<TableOut>) -> SharedTables {
        SharedTables(v.into())
    }
}

impl Serialize for SharedTables {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct PathOut {
    /// Zero-based index in the full listing (graph order), whichever
    /// paths are shown.
    pub index: CountOut,
    /// One-based number: `index` + 1, the path number the table prints
    /// and class ids (`P.C`) start with.
    #[serde(serialize_with = "count_out")]
    #[schemars(with = "CountOut")]
    pub number: p4cost_analysis::PathCount,
    pub headers: Vec<String>,
    /// Headers extracted into the parser's metadata before the packet
    /// (resubmit, mirror or bridged data): not packet headers, but what
    /// tells such paths apart.
    pub metadata: Vec<String>,
    pub states: Vec<StateOut>,
    /// The path's slowest packet class: its parse terms plus the heaviest
    /// control path consistent with it (without packet classes: every
    /// table of the control).
    pub latency_ns: f64,
    /// The path's fastest packet class (`latency_ns` without classes).
    pub min_latency_ns: f64,
    /// Terms of `latency_ns`: `control_ns` is the slowest class's tables;
    /// `tables` lists every table of the control with its term.
    pub breakdown: BreakdownOut,
    /// The codes of the warnings that concern this path.
    // A known code is shared, not copied per path (`warnings::known_code`).
    #[schemars(with = "Vec<String>")]
    pub warnings: Vec<Cow<'static, str>>,
    /// Its packet classes through the ingress control (linear models with
    /// an ingress control).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub classes: Option<crate::path_classes::PathClassesOut>,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct WarningOut {
    pub code: String,
    pub message: String,
    /// Indexes of the paths the warning applies to (empty: the program).
    pub paths: Vec<usize>,
    /// The table or parse state it is about, when one.
    pub span: Option<Loc>,
}

impl WarningOut {
    /// A warning about the whole program (no path, no site).
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> WarningOut {
        WarningOut {
            code: code.into(),
            message: message.into(),
            paths: Vec::new(),
            span: None,
        }
    }

    /// A model's warning, at its table or state of `program`.
    pub fn of_model(program: &Program, w: &p4cost_model::Warning) -> WarningOut {
        WarningOut {
            span: w.span.map(|s| Loc::new(program, s)),
            ..WarningOut::new(w.code.clone(), w.message.clone())
        }
    }
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ControlOut {
    pub name: Option<String>,
    pub tables: Vec<String>,
    /// Paths through the ingress control (exact, as [`CountOut`]).
    pub control_paths: Option<CountOut>,
    pub path_sensitive: bool,
    pub note: String,
    /// The egress control every packet class walks after this one (null
    /// when the pipeline has none, or its egress applies nothing, or the
    /// model has no classes).
    pub egress: Option<EgressOut>,
}

/// The egress control of the pipeline, as packet classes walk it.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct EgressOut {
    pub name: String,
    /// Match tables it applies (qualified names); compiler-made ones
    /// (`tbl_*` action calls, `$` tables) are left out, as for ingress.
    pub tables: Vec<String>,
    /// Paths through it alone (exact, as [`CountOut`]).
    pub control_paths: CountOut,
    /// The egress parser between ingress and egress, when there is one,
    /// named by its package slot (see [`Report::parser`]).
    pub parser: Option<String>,
    /// The egress parser's own name, when the input declares one that is
    /// not its slot's name.
    pub parser_declared: Option<String>,
    /// Headers egress tests that are invalid when it starts: its parser
    /// never extracts them.
    pub invalid_at_start: Vec<String>,
    /// Headers egress tests whose validity is unknown when it starts: its
    /// parser extracts them and the ingress deparser does not emit them.
    pub unknown_at_start: Vec<String>,
    /// Whether its tables add to a class's latency (false for the linear
    /// models, which measure ingress).
    pub charged: bool,
}

/// The MAU model's figures: the clock and every gress with its stages.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct MauOut {
    pub clock_ghz: f64,
    pub clock_is_default: bool,
    /// True when p4cost estimated the stage figures (schema 1.8 contexts).
    pub estimated: bool,
    pub ingress: Option<GressCycles>,
    pub egress: Option<GressCycles>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ghost: Option<GressCycles>,
}

/// Which pipeline a report is for.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct PipelineOut {
    /// The pipeline's name (`Pipeline` instance of `main`, `main` for
    /// single-pipeline architectures, `pipe` for a context.json).
    pub name: String,
    /// Other pipelines with the same ingress parser and control: the same
    /// prediction, reported once under `name`.
    pub identical: Vec<String>,
    /// Every pipeline name of the program, in binding order.
    pub all: Vec<String>,
}

/// What `predict --format json` prints: one report, or one per pipeline
/// under `pipelines` (for the JSON Schema; `predict` writes the variant
/// itself).
#[derive(Debug, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum PredictOutput {
    /// One pipeline (or several with identical figures).
    One(Box<Report>),
    /// Several pipelines.
    Several(MultiReport),
    /// Several programs (a directory, or more than one FILE).
    Programs(crate::batch::BatchReport),
}

/// The JSON of `predict` when it reports several pipelines: one full
/// report per distinct pipeline.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct MultiReport {
    pub schema_version: u32,
    pub p4cost_version: String,
    pub program: String,
    pub pipelines: Vec<Report>,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Report {
    pub schema_version: u32,
    pub p4cost_version: String,
    pub program: String,
    /// The `--context` file, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// The `--bfrt` file, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bfrt: Option<String>,
    pub input: String,
    /// False for a P4 source: p4cost parses and lowers it but has no type
    /// checker, so a program the compiler rejects may still be predicted.
    /// True for compiler outputs (BMv2 JSON, context.json): the compiler
    /// checked the program.
    pub type_checked: bool,
    pub arch: String,
    pub model: ModelRef,
    /// `None` for models that do not depend on the port.
    pub port_gbps: Option<u32>,
    pub packet_size: u32,
    pub packet_size_is_default: bool,
    /// The pipeline reported; `None` when the input binds none.
    pub pipeline: Option<PipelineOut>,
    /// The ingress parser, named by the package slot it fills (`parser`
    /// for v1model, `ingress_parser` for PSA and TNA, `main_parser` for
    /// PNA: as p4c's BMv2 JSON names it), so that the report of a source
    /// and of the JSON compiled from it agree; `None` when the input has no
    /// parse graph.
    pub parser: Option<String>,
    /// The parser's own name when the input declares one that is not its
    /// slot's name (a source's `ParserImpl`; BMv2 JSON keeps none).
    pub parser_declared: Option<String>,
    /// Omitted above 2^53: read `path_count_text`.
    #[serde(skip_serializing_if = "not_json_exact")]
    pub path_count: u128,
    pub path_count_text: String,
    pub path_count_saturated: bool,
    pub paths_listed: usize,
    pub max_paths: usize,
    pub path_selector: Option<Vec<String>>,
    /// How `--path` matched (with `--path` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path_match: Option<PathMatchOut>,
    /// Which paths are listed: `first` (graph order), `top` (`--top`),
    /// `selected` (`--path`); and their order.
    pub listing: String,
    pub sort: String,
    /// Latency over all paths (linear models).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<crate::path_stats::SummaryOut>,
    /// Parse paths whose packet headers need more than the packet: out of
    /// every figure (listing, summary, classes, state terms, warnings).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left_out: Option<crate::path_stats::LeftOutOut>,
    /// Packet classes (linear models with an ingress control).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub classes: Option<crate::path_stats::ClassesOut>,
    /// Parse paths that end in reject, apart from the accepted ones
    /// (linear models).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rejects: Option<crate::path_stats::RejectsOut>,
    pub control: ControlOut,
    /// Every table a packet class may apply (ingress, then the egress
    /// classes walk), each once with its term, site and gress: a class's
    /// `tables` are indexes into this list (empty without classes).
    pub tables: Vec<crate::path_classes::ClassTableOut>,
    /// Every way a listed class took at a branch of its control path
    /// (the site, the outcome, whether the parse path forces it), each
    /// once: a class's `decisions` are indexes into this list.
    pub decisions: Vec<crate::path_classes::DecisionOut>,
    /// Every table a listed class does not apply, with why, each once: a
    /// class's `skipped` are indexes into this list.
    pub skipped: Vec<crate::path_classes::SkippedOut>,
    pub paths: Vec<PathOut>,
    /// Set when paths listed were left out of the output to keep it
    /// within its byte budget (`--max-output-bytes`); `paths_listed` is
    /// then what `paths` holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_cut: Option<OutputCutOut>,
    /// The MAU model's per-gress, per-stage figures (that model only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mau: Option<MauOut>,
    /// A CPU model's settings, tables and class extremes (`--model
    /// t4p4s`); each listed class's cycles are under its `cpu`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu: Option<crate::cpu_out::CpuOut>,
    /// A pass model's settings (`--model nfp4000`, `--model
    /// bmv2-coarse`); each listed class's passes and figures are under its
    /// `recirc`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recirc: Option<crate::pass_out::PassesOut>,
    /// Which figure of a class is its value, and its unit.
    pub figure: crate::pass_out::FigureOut,
    pub warnings: Vec<WarningOut>,
    /// Extrapolation warnings that depend on the path, over all paths.
    pub path_warnings: Vec<crate::path_stats::PathWarningOut>,
    /// Codes of the warnings left out because they are allowed
    /// (`--allow`, p4cost.toml's `[warnings] allow`); absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed: Vec<String>,
    /// Codes of the warnings above that are denied (`--deny`,
    /// `[warnings] deny`): each is a failure (exit 1); absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub denied: Vec<String>,
    /// Every parse state on some path with its term over all paths (the
    /// linear model; empty for models without parse terms).
    pub state_terms: Vec<crate::path_stats::StateTermOut>,
}

impl Report {
    /// The ingress parser's name in the program the report was made of: the
    /// declared name when the input has one, else the slot's.
    pub fn parser_in_program(&self) -> Option<&str> {
        self.parser_declared.as_deref().or(self.parser.as_deref())
    }

    /// Sets the number of parse paths, as a number, as text, and whether
    /// it saturated.
    pub fn set_path_count(&mut self, total: p4cost_analysis::PathCount) {
        self.path_count = total.value;
        self.path_count_text = count_text(total);
        self.path_count_saturated = total.saturated;
    }
}

/// Why `paths` holds fewer paths than were listed.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct OutputCutOut {
    /// The budget on the output's bytes.
    pub max_output_bytes: u64,
    /// Paths listed before the cut.
    pub paths_before: usize,
    /// One sentence saying so.
    pub note: String,
}

/// How `--path` matched.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct PathMatchOut {
    /// Paths with exactly the asked headers (or, with
    /// `skipped_ethernet`, a leading Ethernet header and then them).
    pub matching: CountOut,
    /// True when no path has exactly the asked headers and the match left
    /// out a leading Ethernet header.
    pub skipped_ethernet: bool,
    /// True when the matching paths do not all have the same latency.
    pub latency_differs: bool,
    /// True when they do not all extract the same bytes.
    pub bytes_differ: bool,
}

/// `stage 3`, `stages 6-7`, `stages 1,4`; empty when unknown; `no stage`
/// for the compiler's -1.
pub fn stage_text(stages: &[i32]) -> String {
    let mut s: Vec<i32> = stages.iter().copied().filter(|s| *s >= 0).collect();
    s.sort_unstable();
    s.dedup();
    match s.as_slice() {
        [] if stages.is_empty() => String::new(),
        [] => "no stage".to_string(),
        [one] => format!("stage {one}"),
        [first, .., last] if i64::from(*last) - i64::from(*first) + 1 == s.len() as i64 => {
            format!("stages {first}-{last}")
        }
        _ => format!(
            "stages {}",
            s.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(",")
        ),
    }
}

/// Builds the per-path output from a prediction.
pub fn path_out(
    program: &Program,
    index: p4cost_analysis::PathCount,
    path: &p4cost_analysis::ParsePath,
    mut pred: Prediction,
) -> PathOut {
    let tables = table_outs(program, std::mem::take(&mut pred.breakdown.tables));
    path_out_sharing(program, index, path, pred, tables)
}

/// The report's entries of a prediction's table terms (their strings
/// moved, none copied).
pub fn table_outs(program: &Program, terms: Vec<p4cost_model::TableTerm>) -> SharedTables {
    terms
        .into_iter()
        .map(|t| TableOut {
            span: Loc::new(program, t.span),
            name: t.name,
            match_kind: t.match_kind,
            match_class: t.match_class,
            class_reason: t.class_reason,
            key_class: t.key_class,
            keys: t.keys,
            key_bits: t.key_bits,
            latency_ns: t.ns,
            stages: t.stages,
        })
        .collect::<Vec<_>>()
        .into()
}

/// [`path_out`] of a prediction whose table terms are `tables`, shared
/// with other paths (the prediction's own are not read).
pub fn path_out_sharing(
    program: &Program,
    index: p4cost_analysis::PathCount,
    path: &p4cost_analysis::ParsePath,
    pred: Prediction,
    tables: SharedTables,
) -> PathOut {
    let Prediction {
        latency_ns,
        breakdown,
        warnings,
    } = pred;
    let states = path
        .states
        .iter()
        .zip(&breakdown.states)
        .map(|(st, term)| StateOut {
            name: st.name.clone(),
            extracts: st.extracts.iter().map(|e| e.display_name()).collect(),
            bytes: term.bytes,
            counted_bytes: term.counted_bytes,
            in_baseline: term.in_baseline,
            latency_ns: term.ns,
            span: Loc::new(program, term.span),
        })
        .collect();
    PathOut {
        index: CountOut::of(index),
        number: index.add_one(),
        headers: path.header_names(),
        metadata: path.metadata_names(),
        states,
        latency_ns,
        min_latency_ns: latency_ns,
        breakdown: BreakdownOut {
            base_ns: breakdown.base_ns,
            parser_ns: breakdown.parser_ns,
            control_ns: breakdown.control_ns,
            tables,
        },
        warnings: warnings.into_iter().map(|w| Cow::Owned(w.code)).collect(),
        classes: None,
    }
}

#[cfg(test)]
mod tests {
    use super::stage_text;

    #[test]
    fn stage_text_forms() {
        assert_eq!(stage_text(&[]), "");
        assert_eq!(stage_text(&[3]), "stage 3");
        assert_eq!(stage_text(&[7, 6]), "stages 6-7");
        assert_eq!(stage_text(&[1, 4]), "stages 1,4");
        assert_eq!(stage_text(&[2, 2]), "stage 2");
        assert_eq!(stage_text(&[-1]), "no stage");
    }
}
