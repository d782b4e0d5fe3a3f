//! SARIF 2.1.0 (the OASIS Static Analysis Results Interchange Format) for
//! code-scanning UIs: `check --format sarif` (each exceeded budget, at the
//! source site that contributes most) and `predict --format sarif` (the
//! report's warnings). Only the parts of the format p4cost fills are
//! modelled; a test validates the output against the official schema and
//! the rules GitHub code scanning and Microsoft's SARIF validator apply
//! (every rule described, with help; artifact URIs relative to
//! `%SRCROOT%`, see [`uri`]).

mod rules;
mod uri;

use std::collections::BTreeMap;

use serde::Serialize;

use p4cost_engine::chain::{ChainVerdict, PacketVerdict};
use p4cost_engine::check::{CheckReport, Verdict, CHIP_STAGES};
// Extrapolation codes are `warning`s, every other code a `note`.
use p4cost_engine::report::EXTRAPOLATION_CODES as EXTRAPOLATION;
use p4cost_engine::report::{Loc, Report};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// A SARIF log: one run of p4cost.
#[derive(Serialize)]
pub struct Log {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: Vec<Run>,
}

/// Where a `uriBaseId` points.
#[derive(Serialize)]
struct BaseLocation {
    #[serde(skip_serializing_if = "Option::is_none")]
    uri: Option<String>,
    description: Text,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    tool: Tool,
    results: Vec<SarifResult>,
    /// `%SRCROOT%`: the directory relative artifact URIs are relative to.
    original_uri_base_ids: BTreeMap<&'static str, BaseLocation>,
    /// Our columns count bytes; for ASCII source (P4 is) that is the
    /// code point count.
    column_kind: &'static str,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: &'static str,
    semantic_version: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    information_uri: Option<String>,
    rules: Vec<Rule>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    id: String,
    name: String,
    short_description: Text,
    full_description: Text,
    help: Help,
    #[serde(skip_serializing_if = "Option::is_none")]
    help_uri: Option<String>,
    default_configuration: Configuration,
}

#[derive(Serialize)]
struct Help {
    text: String,
    markdown: String,
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Serialize)]
struct Text {
    text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult {
    rule_id: String,
    rule_index: usize,
    level: &'static str,
    message: Text,
    locations: Vec<Location>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<Location>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    properties: BTreeMap<&'static str, serde_json::Value>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<usize>,
    physical_location: PhysicalLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Text>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    region: Region,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: u32,
    start_column: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    byte_offset: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    byte_length: Option<u32>,
}

/// Collects results and the rules they use.
struct Builder {
    base: Option<uri::Base>,
    rules: Vec<Rule>,
    index: BTreeMap<String, usize>,
    results: Vec<SarifResult>,
}

impl Builder {
    fn new(base: Option<uri::Base>) -> Builder {
        Builder {
            base,
            rules: Vec::new(),
            index: BTreeMap::new(),
            results: Vec::new(),
        }
    }

    /// The index of rule `id`, described from [`rules`] (an id of no
    /// rule there, a warning code added since, gets a generic text).
    fn rule(&mut self, id: &str, level: &'static str) -> usize {
        if let Some(&i) = self.index.get(id) {
            return i;
        }
        let words = id.replace('_', " ");
        let (short, full, help) = match rules::find(id) {
            Some(r) => (
                r.short.to_string(),
                rules::plain(r.full),
                r.help.to_string(),
            ),
            None => (
                format!("p4cost: {words}"),
                format!("p4cost reports {words} (code `{id}`)."),
                "Read the result's message.".to_string(),
            ),
        };
        self.rules.push(Rule {
            id: id.to_string(),
            name: rules::pascal(id),
            short_description: Text { text: short },
            full_description: Text { text: full },
            help: Help {
                text: rules::plain(&help),
                markdown: help,
            },
            help_uri: docs_uri().map(|d| format!("{d}#{id}")),
            default_configuration: Configuration { level },
        });
        self.index.insert(id.to_string(), self.rules.len() - 1);
        self.rules.len() - 1
    }

    /// A budget's rule: an `error`, but a prioritised chain packet's.
    fn budget_rule(&mut self, id: &str) -> (usize, &'static str) {
        let level = if id == "chain_priority_threshold" {
            "warning"
        } else {
            "error"
        };
        (self.rule(id, level), level)
    }

    /// `path` as an artifact location (`None` for what is no file:
    /// `<bundled>/tna.p4`, `<stdin>`).
    fn artifact(&self, path: &str) -> Option<ArtifactLocation> {
        if path.is_empty() || path.starts_with('<') {
            return None;
        }
        let (uri, uri_base_id) = match &self.base {
            Some(b) => b.locate(path),
            None => (path.replace('\\', "/"), None),
        };
        Some(ArtifactLocation { uri, uri_base_id })
    }

    fn finish(self) -> Log {
        let original_uri_base_ids = self
            .base
            .iter()
            .map(|b| {
                (
                    uri::SRCROOT,
                    BaseLocation {
                        uri: Some(b.root_uri()),
                        description: Text {
                            text: b.root_description().to_string(),
                        },
                    },
                )
            })
            .collect();
        Log {
            schema: SCHEMA,
            version: "2.1.0",
            runs: vec![Run {
                tool: Tool {
                    driver: Driver {
                        name: "p4cost",
                        version: env!("CARGO_PKG_VERSION"),
                        semantic_version: env!("CARGO_PKG_VERSION"),
                        information_uri: home_uri(),
                        rules: self.rules,
                    },
                },
                results: self.results,
                original_uri_base_ids,
                column_kind: "unicodeCodePoints",
            }],
        }
    }
}

/// The project's home page (Cargo.toml's `repository`), when set.
fn home_uri() -> Option<String> {
    let repo = env!("CARGO_PKG_REPOSITORY").trim_end_matches('/');
    (!repo.is_empty()).then(|| repo.to_string())
}

/// The rule reference (docs/sarif.md in the repository), when the
/// repository is known.
fn docs_uri() -> Option<String> {
    home_uri().map(|h| format!("{h}/blob/HEAD/docs/sarif.md"))
}

impl Builder {
    fn at_loc(&self, l: &Loc, message: Option<String>) -> Option<Location> {
        Some(Location {
            id: None,
            physical_location: PhysicalLocation {
                artifact_location: self.artifact(&l.file)?,
                region: Region {
                    start_line: l.line.max(1),
                    start_column: l.col.max(1),
                    byte_offset: Some(l.lo),
                    byte_length: Some(l.hi.saturating_sub(l.lo)),
                },
            },
            message: message.map(|text| Text { text }),
        })
    }

    /// `file:line:col` (a budget's origin, a message's prefix) as a location.
    fn at_text(&self, s: &str, message: Option<String>) -> Option<Location> {
        let (file, line, col) = crate::diagnostics::split_file_line_col(s)?;
        Some(Location {
            id: None,
            physical_location: PhysicalLocation {
                artifact_location: self.artifact(file)?,
                region: Region {
                    start_line: line.max(1),
                    start_column: col.max(1),
                    byte_offset: None,
                    byte_length: None,
                },
            },
            message: message.map(|text| Text { text }),
        })
    }

    /// The start of a file: where a finding about the whole program points.
    fn at_file(&self, file: &str) -> Option<Location> {
        self.at_text(&format!("{file}:1:1"), None)
    }
}

fn verdict_text(v: &Verdict) -> String {
    if let (true, Some(note)) = (v.budget == CHIP_STAGES, &v.note) {
        return format!("{}: does not fit: {note} ({})", v.program, v.origin);
    }
    if v.budget == CHIP_STAGES {
        let chain: Vec<&str> = v.contributors.iter().map(|c| c.name.as_str()).collect();
        return format!(
            "{}: does not fit: needs {} stages, {} has {}; the chain that overflows: {}",
            v.program,
            num(v.predicted),
            v.origin,
            num(v.limit),
            chain.join(" -> ")
        );
    }
    if v.budget == p4cost_engine::check_resources::CHIP_MEMORY {
        return format!(
            "{}: does not fit: needs {} {}, {} has {}; the tables that take it: {}",
            v.program,
            num(v.predicted),
            v.unit,
            v.origin,
            num(v.limit),
            crate::cmd_check::memory_shares(v)
        );
    }
    if let Some(note) = v.note.as_ref().filter(|_| v.status == "no_packet") {
        return note.clone();
    }
    let what = match v.budget {
        // A MAU-cycle model's figure is every packet's: no class, no path.
        "max_latency" if v.class.is_none() && v.headers.is_empty() => {
            "ingress MAU latency of every packet".to_string()
        }
        "max_latency" => "slowest packet class".to_string(),
        "class_latency" => format!(
            "packet class of {}",
            v.selector.as_deref().unwrap_or(&v.headers).join(", ")
        ),
        "table_count" => "match tables".to_string(),
        "max_stages" => "MAU stages used (estimate)".to_string(),
        "max_sram_percent" => "pipe SRAM used (estimate)".to_string(),
        "max_tcam_percent" => "pipe TCAM used (estimate)".to_string(),
        k => k.replace('_', " "),
    };
    let pipe = v
        .pipeline
        .as_ref()
        .map(|p| format!(" (pipeline {p})"))
        .unwrap_or_default();
    let class = match (&v.class, v.headers.is_empty()) {
        (Some(c), false) => format!(" {c} [{}]", v.headers.join(" -> ")),
        (Some(c), true) => format!(" {c}"),
        _ => String::new(),
    };
    let mut s = format!(
        "{}{pipe}: {what}{class} is {} {unit}, over the budget of {} {unit} ({}) by {} {unit} (model {})",
        v.program,
        num(v.predicted),
        num(v.limit),
        v.origin,
        num(-v.margin),
        v.model,
        unit = v.unit
    );
    if !v.contributors.is_empty() {
        let terms: Vec<String> = v
            .contributors
            .iter()
            .map(|c| {
                format!(
                    "{} {} {} {}",
                    c.kind.replace('_', " "),
                    c.name,
                    num(c.value),
                    v.unit
                )
            })
            .collect();
        s.push_str(&format!("; largest terms: {}", terms.join(", ")));
    }
    s
}

/// A figure with at most 3 decimals, without trailing zeros.
fn num(x: f64) -> String {
    let s = format!("{x:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// The SARIF log of a check: one result per exceeded budget and per
/// chain packet over a threshold.
pub fn check_log(r: &CheckReport) -> Log {
    let mut b = Builder::new(uri::Base::current());
    for v in r.results.iter().filter(|v| v.is_over()) {
        budget_result(&mut b, v);
    }
    for c in &r.chains {
        for p in &c.packets {
            chain_segment_results(&mut b, c, p);
            chain_latency_result(&mut b, c, p);
        }
    }
    b.finish()
}

/// The result of one exceeded budget: at its first contributor with a
/// location (the others and the budget's line as related locations).
fn budget_result(b: &mut Builder, v: &Verdict) {
    let (rule_index, level) = b.budget_rule(v.budget);
    let mut sites = v
        .contributors
        .iter()
        .filter_map(|c| {
            c.span.as_ref().and_then(|l| {
                b.at_loc(
                    l,
                    Some(format!(
                        "{} {}: {} {}",
                        c.kind.replace('_', " "),
                        c.name,
                        num(c.value),
                        v.unit
                    )),
                )
            })
        })
        .collect::<Vec<_>>();
    let primary = if sites.is_empty() {
        b.at_file(&v.program)
    } else {
        Some(sites.remove(0))
    };
    let mut related = sites;
    related.extend(b.at_text(&v.origin, Some("the budget".to_string())));
    for (i, l) in related.iter_mut().enumerate() {
        l.id = Some(i);
    }
    let mut properties = BTreeMap::new();
    properties.insert("predicted", serde_json::json!(v.predicted));
    properties.insert("limit", serde_json::json!(v.limit));
    properties.insert("margin", serde_json::json!(v.margin));
    properties.insert("unit", serde_json::json!(v.unit));
    b.results.push(SarifResult {
        rule_id: v.budget.to_string(),
        rule_index,
        level,
        message: Text {
            text: verdict_text(v),
        },
        locations: primary.into_iter().collect(),
        related_locations: related,
        properties,
    });
}

/// One result per segment of a chain packet over its drop or priority
/// threshold.
fn chain_segment_results(b: &mut Builder, c: &ChainVerdict, p: &PacketVerdict) {
    for s in &p.segments {
        let id = match s.status {
            "over" => "chain_drop_threshold",
            "priority" => "chain_priority_threshold",
            _ => continue,
        };
        let (rule_index, level) = b.budget_rule(id);
        let threshold = if s.status == "over" {
            format!("drop threshold {} ns", num(s.drop_ns))
        } else {
            format!(
                "priority threshold {} ns",
                num(s.priority_ns.unwrap_or(s.drop_ns))
            )
        };
        b.results.push(SarifResult {
            rule_id: id.to_string(),
            rule_index,
            level,
            message: Text {
                text: format!(
                    "chain {}, segment {}: packet [{}] takes {} ns, above its {threshold} (margin to DL {} ns)",
                    c.name,
                    s.segment,
                    p.headers.join(" -> "),
                    num(s.ns),
                    num(s.margin_ns)
                ),
            },
            locations: b.at_text(&s.origin, None).into_iter().collect(),
            related_locations: Vec::new(),
            properties: BTreeMap::new(),
        });
    }
}

/// The result of a chain packet over the chain's end-to-end budget, at
/// the budget's line (GitHub takes no result without a location).
fn chain_latency_result(b: &mut Builder, c: &ChainVerdict, p: &PacketVerdict) {
    let (Some(m), Some(max)) = (p.margin_ns, c.max_latency_ns) else {
        return;
    };
    // `m < 0.0` written out: a NaN margin is not over the budget.
    if m.partial_cmp(&0.0) != Some(std::cmp::Ordering::Less) {
        return;
    }
    let (rule_index, level) = b.budget_rule("chain_latency");
    let site = c
        .max_latency_origin
        .as_deref()
        .and_then(|o| b.at_text(o, None));
    b.results.push(SarifResult {
        rule_id: "chain_latency".to_string(),
        rule_index,
        level,
        message: Text {
            text: format!(
                "chain {}: packet [{}] takes {} ns end to end, over the budget of {} ns by {} ns",
                c.name,
                p.headers.join(" -> "),
                num(p.total_ns),
                num(max),
                num(-m)
            ),
        },
        locations: site.into_iter().collect(),
        related_locations: Vec::new(),
        properties: BTreeMap::new(),
    });
}

/// The SARIF log of predictions: each warning of each report (those that
/// say a model extrapolates are `warning`, the rest `note`, a denied code
/// `error`; allowed codes are not in the reports), at the site its
/// message names, else the program.
pub fn predict_log(reports: &[Report]) -> Log {
    let mut b = Builder::new(uri::Base::current());
    for r in reports {
        let all = r
            .warnings
            .iter()
            .map(|w| (&w.code, &w.message))
            .chain(r.path_warnings.iter().map(|w| (&w.code, &w.message)));
        for (code, message) in all {
            let level = if EXTRAPOLATION.contains(&code.as_str()) {
                "warning"
            } else {
                "note"
            };
            let rule_index = b.rule(code, level);
            let level = if r.denied.contains(code) {
                "error"
            } else {
                level
            };
            // `file:line:col: message` names its own site.
            let site = message
                .split(": ")
                .next()
                .and_then(|prefix| b.at_text(prefix, None));
            let pipe = r
                .pipeline
                .as_ref()
                .filter(|p| p.all.len() > 1)
                .map(|p| format!(" (pipeline {})", p.name))
                .unwrap_or_default();
            b.results.push(SarifResult {
                rule_id: code.clone(),
                rule_index,
                level,
                message: Text {
                    text: format!("{}{pipe} ({}): {message}", r.program, r.model.name),
                },
                locations: site.or_else(|| b.at_file(&r.program)).into_iter().collect(),
                related_locations: Vec::new(),
                properties: BTreeMap::new(),
            });
        }
    }
    b.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_come_from_file_line_col_text() {
        let b = Builder::new(Some(uri::Base::at(std::path::Path::new("/nowhere/repo"))));
        let l = b.at_text("p4cost.toml:12:18", None).expect("a location");
        let a = &l.physical_location.artifact_location;
        assert_eq!(
            (a.uri.as_str(), a.uri_base_id),
            ("p4cost.toml", Some(uri::SRCROOT))
        );
        assert_eq!(l.physical_location.region.start_line, 12);
        assert_eq!(l.physical_location.region.start_column, 18);
        assert!(b.at_text("--max-latency", None).is_none());
        assert!(b.at_text("<bundled>/tna.p4:3:1", None).is_none());
    }

    #[test]
    fn figures_read_as_written() {
        assert_eq!(num(304.548), "304.548");
        assert_eq!(num(300.0), "300");
        assert_eq!(num(4.5480000001), "4.548");
    }
}
