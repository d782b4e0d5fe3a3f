//! Which warnings a user wants (ruff/clippy style levels): every code is
//! shown as a warning unless allowed (dropped from every output: table,
//! JSON, SARIF, editor) or denied (kept, and a failure: `predict` and
//! `check` exit 1, an editor shows it as an error). Set by `--allow` /
//! `--deny` and p4cost.toml's `[warnings]`; applied to a report by the
//! engine, so every output agrees.

use std::borrow::Cow;
use std::collections::BTreeSet;

use crate::report::Report;

/// Every code a report's warnings carry, sorted.
pub const KNOWN_CODES: &[&str] = &[
    "action_call_tables_skipped",
    "actions_outside_training",
    "arch_differs",
    "classes_not_computed",
    "classes_not_listed",
    "clock_out_of_range",
    "compiler_tables_skipped",
    "cores_out_of_range",
    "entries_out_of_range",
    "entries_unknown",
    "estimated_placement",
    "fitted_model_extrapolates",
    "front_end",
    "header_size_out_of_range",
    "int_bytes_exceed_mtu",
    "key_layout_not_measured",
    "key_width_out_of_range",
    "key_width_unknown",
    "keyless_table",
    "l3_shared_not_modelled",
    "latency_not_modelled",
    "listing_capped",
    "match_kind_not_modelled",
    "model_for_input",
    "model_not_linear",
    "no_ingress_control",
    "nonlinear_region",
    "packet_size_ignored",
    "packet_size_not_measured",
    "packet_size_out_of_range",
    "packet_smaller_than_headers",
    "parse_graph",
    "passes_not_measured",
    "reader_note",
    "register_across_gresses",
    "register_too_wide",
    "register_window_too_small",
    "stage_out_of_range",
    "table_count_out_of_range",
    "table_names_differ",
    "target_mismatch",
    "target_not_modelled",
    "timestamp_units_mixed",
    "too_many_keys",
    "too_many_states",
];

/// `code` as the `'static` string of [`KNOWN_CODES`] it is (a report
/// lists a code on every path: shared, not copied), or owned.
pub fn known_code(code: &str) -> Cow<'static, str> {
    match KNOWN_CODES.binary_search(&code) {
        Ok(i) => Cow::Borrowed(KNOWN_CODES[i]),
        Err(_) => Cow::Owned(code.to_string()),
    }
}

/// What a warning of `code` means, in a few words (the heading of a
/// group of them).
pub fn meaning(code: &str) -> &'static str {
    match code {
        "action_call_tables_skipped" => "compiler-made action-call tables left out",
        "actions_outside_training" => {
            "tables whose actions do more than the trained ones (set the egress port)"
        }
        "arch_differs" => "the source and the compiler output name different architectures",
        "classes_not_computed" => "packet classes past their analysis budget",
        "classes_not_listed" => "classes of listed paths past their budget",
        "clock_out_of_range" => "a MAU clock outside the modelled range",
        "compiler_tables_skipped" => "compiler-internal tables left out",
        "cores_out_of_range" => "a core count outside the measured range (CPU models)",
        "entries_out_of_range" => "tables sized outside the trained entries",
        "entries_unknown" => "tables that declare no size",
        "estimated_placement" => "stage figures the compiler did not give (estimated)",
        "fitted_model_extrapolates" => {
            "a fitted model's term below zero or a figure outside its training latencies"
        }
        "front_end" => "notes of the P4 front end",
        "header_size_out_of_range" => "parse states extracting outside the trained sizes",
        "key_width_out_of_range" => "tables whose key widths are outside the trained 8-32 bits",
        "key_width_unknown" => "tables with a key of unknown width",
        "key_layout_not_measured" => {
            "tables whose key layout is not the measured one (CPU models: 4 x 4 B, lpm 1 x 4 B)"
        }
        "keyless_table" => "tables without a match key (not in training)",
        "l3_shared_not_modelled" => {
            "exact tables that fit the L3 alone but not together (CPU models)"
        }
        "latency_not_modelled" => "the model gives throughput, not latency (nfp4000)",
        "listing_capped" => "the path listing was cut",
        "match_kind_not_modelled" => "tables with a match kind not in training (exact, lpm)",
        "model_for_input" => "the model was chosen for the input",
        "model_not_linear" => "the model is not a linear one",
        "no_ingress_control" => "no ingress control",
        "nonlinear_region" => "paths where the paper saw non-linear latency",
        "packet_size_ignored" => "the packet size has no effect with this model",
        "packet_size_not_measured" => "a packet size outside the coarse model's measured ones",
        "passes_not_measured" => "classes of more pipeline passes than the paper measured",
        "packet_size_out_of_range" => "a packet size outside the trained range",
        "packet_smaller_than_headers" => "paths whose headers exceed the packet",
        "parse_graph" => "notes on the parse graph",
        "reader_note" => "notes of the input's reader",
        "stage_out_of_range" => "stages outside the modelled range",
        "table_count_out_of_range" => "more tables than in training",
        "table_names_differ" => "the source's and the compiler's tables differ",
        "target_mismatch" => "the model is for another target",
        "target_not_modelled" => "a target the model does not cover",
        "too_many_keys" => "tables with more match keys than in training (1-3)",
        "register_across_gresses" => {
            "registers used in both ingress and egress (separate on Tofino)"
        }
        "register_too_wide" => "register cells wider than a Tofino stateful ALU's 32 bits",
        "timestamp_units_mixed" => "comparisons of a microsecond with a nanosecond timestamp",
        "register_window_too_small" => {
            "ring arrays of per-packet slots smaller than the configured rate x window"
        }
        "int_bytes_exceed_mtu" => "headers added per hop (INT) that take a packet over the MTU",
        "too_many_states" => "paths with more parse states than in training",
        _ => "",
    }
}

/// The name of every code at once (`--deny all`); `warnings` is the same
/// (clippy's `-D warnings`).
pub const ALL: &str = "all";

/// What to do with a warning of some code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Not shown anywhere.
    Allow,
    /// Shown (the default).
    Warn,
    /// Shown, and a failure.
    Deny,
}

/// Allowed and denied codes. A named code beats `all`; where two
/// policies are layered ([`WarningPolicy::then`]), the later one's code
/// beats the earlier's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WarningPolicy {
    /// Codes dropped.
    pub allow: BTreeSet<String>,
    /// Codes that fail.
    pub deny: BTreeSet<String>,
}

/// A code that is not one of [`KNOWN_CODES`] (nor `all`), or a code both
/// allowed and denied at one level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PolicyError {
    /// Not a code.
    Unknown(String),
    /// Allowed and denied at once.
    Both(String),
}

impl std::fmt::Display for PolicyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PolicyError::Unknown(c) => write!(
                f,
                "unknown warning code `{c}`; known codes: all, {}",
                KNOWN_CODES.join(", ")
            ),
            PolicyError::Both(c) => write!(f, "warning code `{c}` is both allowed and denied"),
        }
    }
}

impl std::error::Error for PolicyError {}

/// `code` as a policy names it (`warnings` is `all`), or why not.
pub fn code(name: &str) -> Result<String, PolicyError> {
    let name = name.trim();
    if name == ALL || name == "warnings" {
        return Ok(ALL.to_string());
    }
    if KNOWN_CODES.contains(&name) {
        Ok(name.to_string())
    } else {
        Err(PolicyError::Unknown(name.to_string()))
    }
}

impl WarningPolicy {
    /// The policy of these lists (each a code or `all`), checked.
    pub fn new<'a>(
        allow: impl IntoIterator<Item = &'a str>,
        deny: impl IntoIterator<Item = &'a str>,
    ) -> Result<WarningPolicy, PolicyError> {
        let allow: BTreeSet<String> = allow.into_iter().map(code).collect::<Result<_, _>>()?;
        let deny: BTreeSet<String> = deny.into_iter().map(code).collect::<Result<_, _>>()?;
        if let Some(both) = deny.iter().find(|c| allow.contains(*c)) {
            return Err(PolicyError::Both(both.clone()));
        }
        Ok(WarningPolicy { allow, deny })
    }

    /// This policy with `later`'s choices over it (flags over a
    /// p4cost.toml).
    pub fn then(&self, later: &WarningPolicy) -> WarningPolicy {
        let mut p = self.clone();
        for c in &later.allow {
            p.deny.remove(c);
            p.allow.insert(c.clone());
        }
        for c in &later.deny {
            p.allow.remove(c);
            p.deny.insert(c.clone());
        }
        p
    }

    /// The level of `code`.
    pub fn level(&self, code: &str) -> Level {
        if self.allow.contains(code) {
            Level::Allow
        } else if self.deny.contains(code) {
            Level::Deny
        } else if self.allow.contains(ALL) {
            Level::Allow
        } else if self.deny.contains(ALL) {
            Level::Deny
        } else {
            Level::Warn
        }
    }

    /// True when nothing is allowed or denied.
    pub fn is_default(&self) -> bool {
        self.allow.is_empty() && self.deny.is_empty()
    }

    /// Drops `r`'s allowed warnings (listing their codes in
    /// `r.allowed`) and lists the codes of its denied ones in `r.denied`.
    pub fn apply(&self, r: &mut Report) {
        if self.is_default() {
            return;
        }
        let mut allowed = BTreeSet::new();
        let mut denied = BTreeSet::new();
        let mut keep = |code: &str| match self.level(code) {
            Level::Allow => {
                allowed.insert(code.to_string());
                false
            }
            Level::Deny => {
                denied.insert(code.to_string());
                true
            }
            Level::Warn => true,
        };
        r.warnings.retain(|w| keep(&w.code));
        r.path_warnings.retain(|w| keep(&w.code));
        for p in &mut r.paths {
            p.warnings.retain(|c| self.level(c) != Level::Allow);
        }
        r.allowed = allowed.into_iter().collect();
        r.denied = denied.into_iter().collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(allow: &[&str], deny: &[&str]) -> WarningPolicy {
        WarningPolicy::new(allow.iter().copied(), deny.iter().copied()).unwrap()
    }

    #[test]
    fn a_named_code_beats_all_and_later_layers_win() {
        let p = policy(&["keyless_table"], &["all"]);
        assert_eq!(p.level("keyless_table"), Level::Allow);
        assert_eq!(p.level("too_many_keys"), Level::Deny);
        let q = p.then(&policy(&[], &["keyless_table"]));
        assert_eq!(q.level("keyless_table"), Level::Deny);
        assert_eq!(policy(&[], &[]).level("too_many_keys"), Level::Warn);
        assert_eq!(
            policy(&["warnings"], &[]).level("parse_graph"),
            Level::Allow
        );
    }

    #[test]
    fn unknown_and_contradictory_codes_are_errors() {
        let e = WarningPolicy::new(["keyless"], []).unwrap_err();
        assert_eq!(e, PolicyError::Unknown("keyless".to_string()));
        assert!(e.to_string().contains("keyless_table"));
        let e = WarningPolicy::new(["too_many_keys"], ["too_many_keys"]).unwrap_err();
        assert_eq!(e, PolicyError::Both("too_many_keys".to_string()));
    }

    #[test]
    fn known_codes_are_sorted_and_unique() {
        assert!(KNOWN_CODES.windows(2).all(|w| w[0] < w[1]));
        for c in crate::report::EXTRAPOLATION_CODES {
            assert!(KNOWN_CODES.contains(c), "{c}");
        }
        for c in KNOWN_CODES {
            assert!(!meaning(c).is_empty(), "{c} has no meaning");
        }
    }
}
