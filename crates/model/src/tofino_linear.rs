//! The Tofino 1 ingress linear model (docs/models.md, Tofino 1 ingress latency):
//! `L = L_B(p) + L_PD + L_C`.

use p4cost_analysis::ParsePath;
use p4cost_ir::{MatchKind, Program, Table, TableId};

use crate::baseline;
use crate::spec::{ControlTerm, LinearTerms, ModelSpec, Training};
use crate::{Breakdown, Prediction, StateTerm, TableFeature, TableTerm, Warning};

/// What one prediction needs.
#[derive(Debug, Clone, Copy)]
pub struct Inputs<'a> {
    /// The program (for table and action facts).
    pub program: &'a Program,
    /// The parse path.
    pub path: &'a ParsePath,
    /// Tables counted on the path.
    pub tables: &'a [TableId],
    /// Packet size in bytes.
    pub packet_size: u32,
}

/// Predicts the ingress latency of one path.
///
/// Callers pick the engine by [`ModelSpec::kind`]; given a model that is
/// not a complete linear model, this returns a zero prediction carrying a
/// `model_not_linear` warning rather than panicking.
pub fn predict(model: &ModelSpec, inp: &Inputs<'_>) -> Prediction {
    match model.linear() {
        Some(lin) => {
            let mut pred = predict_with(&lin, inp);
            let negative = crate::fitted::negative_terms(&pred);
            pred.warnings.extend(negative);
            pred
        }
        None => Prediction {
            latency_ns: 0.0,
            breakdown: Breakdown {
                base_ns: 0.0,
                parser_ns: 0.0,
                control_ns: 0.0,
                states: Vec::new(),
                tables: Vec::new(),
            },
            warnings: vec![Warning::new(
                "model_not_linear",
                format!(
                    "model {} is of kind {}, not a linear model: nothing predicted",
                    model.name,
                    model.kind.name()
                ),
            )],
        },
    }
}

/// [`predict`] with the terms already taken from a model (the fitted
/// kinds lay out their breakdown and warnings with zero terms).
pub fn predict_with(lin: &LinearTerms<'_>, inp: &Inputs<'_>) -> Prediction {
    predict_with_parts(lin, inp, None)
}

/// [`predict_with`], the control term taken from `ctl` when given.
fn predict_with_parts(
    lin: &LinearTerms<'_>,
    inp: &Inputs<'_>,
    ctl: Option<&ControlTerms>,
) -> Prediction {
    let made;
    let ctl = match ctl {
        Some(c) => c,
        None => {
            made = control_terms(lin, inp);
            &made
        }
    };
    let mut pred = path_prediction(lin, inp, ctl, true);
    pred.warnings.extend(ctl.warnings.iter().cloned());
    pred
}

/// The prediction of `inp` with the control term `ctl`, its warnings
/// those of the packet and the path only (not `ctl`'s); its table terms
/// `ctl`'s when `with_tables`, else none (the caller shares `ctl`'s).
fn path_prediction(
    lin: &LinearTerms<'_>,
    inp: &Inputs<'_>,
    ctl: &ControlTerms,
    with_tables: bool,
) -> Prediction {
    let mut warnings = Vec::new();
    // L_B.
    let base_ns = base_term(lin, inp, &mut warnings);
    // L_PD.
    let (parser_ns, states) = parse_terms(lin, inp, &mut warnings);
    Prediction {
        latency_ns: base_ns + parser_ns + ctl.control_ns,
        breakdown: Breakdown {
            base_ns,
            parser_ns,
            control_ns: ctl.control_ns,
            states,
            tables: if with_tables {
                ctl.tables.clone()
            } else {
                Vec::new()
            },
        },
        warnings,
    }
}

/// The base term `L_B`, with warnings for a packet outside the training
/// or smaller than the path's headers.
fn base_term(lin: &LinearTerms<'_>, inp: &Inputs<'_>, warnings: &mut Vec<Warning>) -> f64 {
    let tr = lin.training;
    let p = inp.packet_size;
    let base_ns = lin.base.per_packet_byte_ns * f64::from(p) + lin.base.constant_ns;
    if p < tr.packet_size_bytes[0] || p > tr.packet_size_bytes[1] {
        warnings.push(Warning::new(
            "packet_size_out_of_range",
            format!(
                "packet size {p} B is outside the training range {}-{} B: the model extrapolates",
                tr.packet_size_bytes[0], tr.packet_size_bytes[1]
            ),
        ));
    }
    let path_bytes = baseline::packet_header_bytes(inp.path);
    if u64::from(p) < path_bytes {
        warnings.push(Warning::new(
            "packet_smaller_than_headers",
            format!("packet size {p} B is smaller than the {path_bytes} B of headers this path extracts"),
        ));
    }
    base_ns
}

/// The parse term `L_PD` and each state's share, with warnings for
/// states, state counts and packets outside the training.
fn parse_terms(
    lin: &LinearTerms<'_>,
    inp: &Inputs<'_>,
    warnings: &mut Vec<Warning>,
) -> (f64, Vec<StateTerm>) {
    let tr = lin.training;
    let splits = baseline::split(inp.path);
    let mut states = Vec::with_capacity(splits.len());
    let mut parser_ns = 0.0;
    let mut counted_states = 0u32;
    let mut odd_sizes = Vec::new();
    let mut odd_span = None;
    for (st, sp) in inp.path.states.iter().zip(&splits) {
        let ns = if sp.counted {
            counted_states += 1;
            let b = sp.counted_bytes;
            if b < tr.header_bytes_per_state[0] || b > tr.header_bytes_per_state[1] {
                odd_sizes.push(format!("{} ({b} B)", st.name));
                odd_span = odd_span.or(Some(st.span));
            }
            lin.parser.per_header_byte_ns * b as f64 + lin.parser.per_state_ns
        } else {
            0.0
        };
        parser_ns += ns;
        states.push(StateTerm {
            name: st.name.clone(),
            bytes: sp.bytes,
            counted_bytes: if sp.counted { sp.counted_bytes } else { 0 },
            in_baseline: sp.in_baseline,
            ns,
            span: st.span,
        });
    }
    if !odd_sizes.is_empty() {
        warnings.push(
            Warning::new(
                "header_size_out_of_range",
                format!(
                    "states extracting outside the trained {}-{} B per state: {}",
                    tr.header_bytes_per_state[0],
                    tr.header_bytes_per_state[1],
                    odd_sizes.join(", ")
                ),
            )
            .at_some(odd_span),
        );
    }
    state_count_warnings(lin, inp.packet_size, counted_states, warnings);
    (parser_ns, states)
}

/// Warnings for more counted parse states than the training had, and for
/// the region where the model is not linear.
fn state_count_warnings(
    lin: &LinearTerms<'_>,
    p: u32,
    counted_states: u32,
    warnings: &mut Vec<Warning>,
) {
    let tr = lin.training;
    if counted_states > tr.states_after_ethernet[1] {
        warnings.push(Warning::new(
            "too_many_states",
            format!(
                "{counted_states} parse states after Ethernet; the model was trained on {}-{}",
                tr.states_after_ethernet[0], tr.states_after_ethernet[1]
            ),
        ));
    }
    if let Some(nl) = lin.nonlinear {
        if p > nl.packet_size_above_bytes || counted_states > nl.states_above {
            warnings.push(Warning::new(
                "nonlinear_region",
                format!(
                    "beyond {} B or {} parse states: {}",
                    nl.packet_size_above_bytes, nl.states_above, nl.why
                ),
            ));
        }
    }
}

/// The control term `L_C` of a prediction: its tables' terms, their sum
/// and their warnings. It does not depend on the parse path: a caller
/// predicting many paths makes it once ([`predict_with_control`]).
#[derive(Debug, Clone)]
pub struct ControlTerms {
    /// Each table's term, in the order of [`Inputs::tables`].
    pub tables: Vec<TableTerm>,
    /// Their sum.
    pub control_ns: f64,
    /// Warnings about the tables (count and each table's features).
    pub warnings: Vec<Warning>,
}

/// [`predict`] with the control term made already (by [`control_terms`]
/// for the same model, program and tables): the same prediction.
pub fn predict_with_control(model: &ModelSpec, inp: &Inputs<'_>, ctl: &ControlTerms) -> Prediction {
    let Some(lin) = model.linear() else {
        return predict(model, inp);
    };
    let mut pred = predict_with_parts(&lin, inp, Some(ctl));
    let negative = crate::fitted::negative_terms(&pred);
    pred.warnings.extend(negative);
    pred
}

/// [`predict_with_control`] of one of many paths that share `ctl`: the
/// same prediction but for `ctl`'s warnings and table terms (the same on
/// every path, for the caller to keep once), which it leaves out (its
/// `breakdown.tables` is empty), with the place in its warnings where
/// `ctl`'s warnings stand (`None`: a model that is not linear, whose
/// prediction has none of them and its own table terms).
pub fn predict_sharing_control(
    model: &ModelSpec,
    inp: &Inputs<'_>,
    ctl: &ControlTerms,
) -> (Prediction, Option<usize>) {
    let Some(lin) = model.linear() else {
        return (predict(model, inp), None);
    };
    let mut pred = path_prediction(&lin, inp, ctl, false);
    let at = pred.warnings.len();
    let negative = crate::fitted::negative_terms_with(&pred, &ctl.tables);
    pred.warnings.extend(negative);
    (pred, Some(at))
}

/// The control term of `inp` under `model` (none when it is not linear).
pub fn control_terms_of(model: &ModelSpec, inp: &Inputs<'_>) -> Option<ControlTerms> {
    model.linear().map(|lin| control_terms(&lin, inp))
}

/// The control term of `inp` under the linear terms `lin`.
pub fn control_terms(lin: &LinearTerms<'_>, inp: &Inputs<'_>) -> ControlTerms {
    let tr = lin.training;
    let mut warnings = Vec::new();
    let mut tables = Vec::new();
    let mut control_ns = 0.0;
    if let Some(ctl) = lin.control {
        if !inp.tables.is_empty() {
            let n = inp.tables.len() as u32;
            if n < tr.tables[0] || n > tr.tables[1] {
                warnings.push(Warning::new(
                    "table_count_out_of_range",
                    format!(
                        "{n} tables; the model was trained on {}-{}",
                        tr.tables[0], tr.tables[1]
                    ),
                ));
            }
        }
        for &tid in inp.tables {
            let t = inp.program.table(tid);
            let term = table_term(ctl, tr, inp.program, t, &mut warnings);
            control_ns += term.ns;
            tables.push(term);
        }
    }
    ControlTerms {
        tables,
        control_ns,
        warnings,
    }
}

/// Cost of one table, with warnings for whatever the training did not
/// cover.
fn table_term(
    ctl: &ControlTerm,
    tr: &Training,
    program: &Program,
    t: &Table,
    warnings: &mut Vec<Warning>,
) -> TableTerm {
    // Selector inputs feed a hash, not the match.
    let keys: Vec<_> = t
        .keys
        .iter()
        .filter(|k| k.match_kind != MatchKind::Selector)
        .collect();
    // The match class and key width as a measurement row describes the
    // table (features.rs): one rule for predicting, fitting and validating.
    let feature = TableFeature::of(t);
    let key_bits = feature.total_key_bits();
    let tcam = feature.kind.tcam();
    let untrained_kinds = untrained_kinds(t, &keys, tr, tcam, warnings);
    let match_reason = match_class_reason(&keys, tcam, &untrained_kinds);
    let (key_class, ns) = key_class(ctl, t, &keys, tcam, warnings);
    let key_reason = key_class_reason(&keys, ctl.wide_key_min_bits);
    range_warnings(tr, t, &keys, warnings);
    action_warnings(program, t, warnings);

    TableTerm {
        name: t.name.clone(),
        match_kind: match_kind_text(t),
        match_class: if tcam { "lpm" } else { "exact" }.to_string(),
        class_reason: format!("{match_reason}; {key_reason}"),
        key_class: key_class.to_string(),
        keys: keys.len(),
        key_bits,
        ns,
        stages: t.stages.clone(),
        span: t.span,
    }
}

/// The match kinds of `keys` the model was not trained on, each once,
/// with a warning when there is one.
fn untrained_kinds<'k>(
    t: &Table,
    keys: &[&'k p4cost_ir::TableKey],
    tr: &Training,
    tcam: bool,
    warnings: &mut Vec<Warning>,
) -> Vec<&'k str> {
    let mut untrained: Vec<&'k str> = Vec::new();
    for n in keys.iter().map(|k| k.match_kind.name()) {
        if !tr.match_kinds.iter().any(|m| m == n) && !untrained.contains(&n) {
            untrained.push(n);
        }
    }
    if !untrained.is_empty() {
        warnings.push(
            Warning::new(
                "match_kind_not_modelled",
                format!(
                    "table `{}` matches with {} (trained on {} only); {} coefficients are used",
                    t.name,
                    untrained.join(", "),
                    tr.match_kinds.join(" and "),
                    if tcam { "the LPM (TCAM)" } else { "the exact" }
                ),
            )
            .at(t.span),
        );
    }
    untrained
}

/// The key class (`narrow`, `wide`) of a table with `keys` and its cost
/// under the exact or LPM coefficients, with a warning for a table
/// without keys or of one key of unknown width.
fn key_class(
    ctl: &ControlTerm,
    t: &Table,
    keys: &[&p4cost_ir::TableKey],
    tcam: bool,
    warnings: &mut Vec<Warning>,
) -> (&'static str, f64) {
    let cost = if tcam { &ctl.lpm } else { &ctl.exact };
    match keys {
        [] => {
            warnings.push(
                Warning::new(
                    "keyless_table",
                    format!(
                        "table `{}` has no match key (not in training); the k=8 class is used",
                        t.name
                    ),
                )
                .at(t.span),
            );
            ("narrow", cost.narrow_key_ns)
        }
        [one] => match one.width_bits {
            Some(w) if w < ctl.wide_key_min_bits => ("narrow", cost.narrow_key_ns),
            Some(_) => ("wide", cost.wide_key_ns),
            None => {
                warnings.push(
                    Warning::new(
                        "key_width_unknown",
                        format!(
                            "table `{}`: width of key `{}` unknown; the k=16/32 class is used",
                            t.name, one.field
                        ),
                    )
                    .at(t.span),
                );
                ("wide", cost.wide_key_ns)
            }
        },
        _ => ("narrow", cost.narrow_key_ns),
    }
}

/// Warnings for a key count, key widths and a size outside the training.
fn range_warnings(
    tr: &Training,
    t: &Table,
    keys: &[&p4cost_ir::TableKey],
    warnings: &mut Vec<Warning>,
) {
    if keys.len() as u32 > tr.keys_per_table[1] {
        warnings.push(
            Warning::new(
                "too_many_keys",
                format!(
                    "table `{}` has {} keys; the model was trained on {}-{}",
                    t.name,
                    keys.len(),
                    tr.keys_per_table[0],
                    tr.keys_per_table[1]
                ),
            )
            .at(t.span),
        );
    }
    let odd: Vec<String> = keys
        .iter()
        .filter_map(|k| k.width_bits.map(|w| (k, w)))
        .filter(|(_, w)| *w < tr.key_bits[0] || *w > tr.key_bits[1])
        .map(|(k, w)| format!("{} ({w} bits)", k.field))
        .collect();
    if !odd.is_empty() {
        warnings.push(
            Warning::new(
                "key_width_out_of_range",
                format!(
                    "table `{}`: key widths outside the trained {}-{} bits: {}",
                    t.name,
                    tr.key_bits[0],
                    tr.key_bits[1],
                    odd.join(", ")
                ),
            )
            .at(t.span),
        );
    }
    if let Some(size) = t.size {
        if size < tr.entries[0] || size > tr.entries[1] {
            warnings.push(
                Warning::new(
                    "entries_out_of_range",
                    format!(
                        "table `{}` has size {size}; the model was trained on {}-{} entries",
                        t.name, tr.entries[0], tr.entries[1]
                    ),
                )
                .at(t.span),
            );
        }
    }
}

/// The table's real match kinds: one name when every key has the same
/// kind (`ternary`), else the distinct kinds in key order joined by `+`
/// (`exact+ternary`); `keyless` for a table without keys. Selector inputs
/// are listed: they are part of what the program declares.
fn match_kind_text(t: &Table) -> String {
    let mut kinds: Vec<&str> = Vec::new();
    for k in &t.keys {
        let n = k.match_kind.name();
        if !kinds.contains(&n) {
            kinds.push(n);
        }
    }
    if kinds.is_empty() {
        "keyless".to_string()
    } else {
        kinds.join("+")
    }
}

/// Why the table is costed with the exact or the LPM coefficients.
fn match_class_reason(keys: &[&p4cost_ir::TableKey], tcam: bool, untrained: &[&str]) -> String {
    if keys.is_empty() {
        return "no match key: exact coefficients".to_string();
    }
    if !tcam {
        return "exact-match keys only (SRAM): exact coefficients".to_string();
    }
    if untrained.is_empty() {
        "an LPM key (TCAM): LPM coefficients".to_string()
    } else {
        format!(
            "{} keys were not measured; like LPM they match in TCAM: LPM coefficients",
            untrained.join("/")
        )
    }
}

/// Why the table is in the narrow (k=8) or wide (k=16/32) key class: the
/// paper's rule (docs/models.md, "Key classes").
fn key_class_reason(keys: &[&p4cost_ir::TableKey], wide_min: u32) -> String {
    match keys {
        [] => "no key: the narrow (k=8) class".to_string(),
        [one] => match one.width_bits {
            Some(w) if w < wide_min => {
                format!("one {w}-bit key, below {wide_min} bits: the narrow (k=8) class")
            }
            Some(w) => format!("one {w}-bit key, {wide_min} bits or more: the wide (k=16/32) class"),
            None => "one key of unknown width: the wide (k=16/32) class".to_string(),
        },
        many => format!(
            "{} keys: the paper's key-class rule puts every table with 2 or more keys in the narrow (k=8) class, whatever their widths",
            many.len()
        ),
    }
}

/// The training used one action type: set the egress port. Anything else
/// an action does (field writes, arithmetic, stateful externs) is outside.
fn action_warnings(program: &Program, t: &Table, warnings: &mut Vec<Warning>) {
    let mut extra: Vec<String> = Vec::new();
    for &aid in &t.actions {
        let a = program.action(aid);
        for w in &a.writes {
            if !is_egress_port(w) && !extra.contains(w) {
                extra.push(w.clone());
            }
        }
        for prim in &a.primitives {
            let op = prim.op.as_str();
            let lower = op.to_ascii_lowercase();
            let stateful = ["register", "execute", "count", "meter", "lpf", "wred"]
                .iter()
                .any(|k| lower.contains(k));
            let arith = matches!(op, "add" | "sub" | "mul" | "shl" | "shr" | "arith");
            if (stateful || arith) && !extra.iter().any(|e| e == op) {
                extra.push(op.to_string());
            }
        }
    }
    if !extra.is_empty() {
        warnings.push(Warning::new(
            "actions_outside_training",
            format!(
                "table `{}`: its actions do more than set the egress port ({}); field modifications, arithmetic and register use were not in the training set",
                t.name,
                extra.join(", ")
            ),
        )
.at(t.span));
    }
}

fn is_egress_port(field: &str) -> bool {
    let last = field.rsplit('.').next().unwrap_or(field);
    matches!(last, "ucast_egress_port" | "egress_spec" | "egress_port")
}

#[cfg(test)]
mod tests;

/// The latency the model gives a class described only by its features
/// (a row of a measurement file): the same equation as [`predict`],
/// `L_B(p) + sum(c * bytes + d) + sum(table cost)`, without the
/// per-element breakdown. `None` when `model` is not a complete linear
/// model.
pub fn latency_of_features(model: &ModelSpec, f: &crate::features::Features) -> Option<f64> {
    let lin = model.linear()?;
    let base = lin.base.per_packet_byte_ns * f64::from(f.packet_size) + lin.base.constant_ns;
    let parser: f64 = f
        .state_bytes
        .iter()
        .map(|&b| lin.parser.per_header_byte_ns * b as f64 + lin.parser.per_state_ns)
        .sum();
    let control: f64 = match lin.control {
        Some(ctl) => f
            .tables
            .iter()
            .map(|t| {
                let cost = if t.kind.tcam() { &ctl.lpm } else { &ctl.exact };
                if t.wide(ctl.wide_key_min_bits) {
                    cost.wide_key_ns
                } else {
                    cost.narrow_key_ns
                }
            })
            .sum(),
        None => 0.0,
    };
    Some(base + parser + control)
}
