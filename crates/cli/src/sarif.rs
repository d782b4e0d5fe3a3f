//! SARIF 2.1.0 (the OASIS Static Analysis Results Interchange Format) for
//! code-scanning UIs: `check --format sarif` (each exceeded budget, at the
//! source site that contributes most) and `predict --format sarif` (the
//! report's warnings). Only the parts of the format p4cost fills are
//! modelled; a test validates the output against the official schema.

use std::collections::BTreeMap;

use serde::Serialize;

use p4cost_engine::check::{CheckReport, Verdict};
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

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    tool: Tool,
    results: Vec<SarifResult>,
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
    rules: Vec<Rule>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    id: String,
    name: String,
    short_description: Text,
    default_configuration: Configuration,
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
struct ArtifactLocation {
    uri: String,
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

/// What each rule is about, by id.
const RULES: &[(&str, &str, &str)] = &[
    (
        "max_latency",
        "error",
        "The slowest packet class of a pipeline exceeds its latency budget",
    ),
    (
        "class_latency",
        "error",
        "The packet class of a header sequence exceeds its latency budget",
    ),
    (
        "ingress_cycles",
        "error",
        "Ingress MAU cycles exceed their budget",
    ),
    (
        "egress_cycles",
        "error",
        "Egress MAU cycles exceed their budget",
    ),
    (
        "ghost_cycles",
        "error",
        "Ghost MAU cycles exceed their budget",
    ),
    (
        "table_count",
        "error",
        "The pipeline applies more match tables than its budget",
    ),
    (
        "chain_drop_threshold",
        "error",
        "A packet crosses a chain segment slower than its drop threshold (DL)",
    ),
    (
        "chain_priority_threshold",
        "warning",
        "A packet crosses a chain segment slower than its priority threshold (PL): it is prioritised",
    ),
    (
        "chain_latency",
        "error",
        "A packet crosses a chain slower than its end-to-end budget",
    ),
];

/// Collects results and the rules they use.
struct Builder {
    rules: Vec<Rule>,
    index: BTreeMap<String, usize>,
    results: Vec<SarifResult>,
}

impl Builder {
    fn new() -> Builder {
        Builder {
            rules: Vec::new(),
            index: BTreeMap::new(),
            results: Vec::new(),
        }
    }

    fn rule(&mut self, id: &str, level: &'static str, what: &str) -> usize {
        if let Some(&i) = self.index.get(id) {
            return i;
        }
        self.rules.push(Rule {
            id: id.to_string(),
            name: id.to_string(),
            short_description: Text {
                text: what.to_string(),
            },
            default_configuration: Configuration { level },
        });
        self.index.insert(id.to_string(), self.rules.len() - 1);
        self.rules.len() - 1
    }

    fn known_rule(&mut self, id: &str) -> (usize, &'static str) {
        let (level, what) = RULES
            .iter()
            .find(|r| r.0 == id)
            .map_or(("error", "A budget is exceeded"), |r| (r.1, r.2));
        (self.rule(id, level, what), level)
    }

    fn finish(self) -> Log {
        Log {
            schema: SCHEMA,
            version: "2.1.0",
            runs: vec![Run {
                tool: Tool {
                    driver: Driver {
                        name: "p4cost",
                        version: env!("CARGO_PKG_VERSION"),
                        semantic_version: env!("CARGO_PKG_VERSION"),
                        rules: self.rules,
                    },
                },
                results: self.results,
                column_kind: "unicodeCodePoints",
            }],
        }
    }
}

/// A path as a relative URI (`/` separators, spaces escaped); `None` for
/// what is no file (`<bundled>/tna.p4`, `<stdin>`).
fn uri(path: &str) -> Option<String> {
    if path.is_empty() || path.starts_with('<') {
        return None;
    }
    let p = path.replace('\\', "/");
    let p = p.strip_prefix("./").unwrap_or(&p);
    let mut out = String::with_capacity(p.len());
    for c in p.chars() {
        match c {
            ' ' => out.push_str("%20"),
            '%' => out.push_str("%25"),
            '#' => out.push_str("%23"),
            '?' => out.push_str("%3F"),
            c => out.push(c),
        }
    }
    Some(out)
}

fn at_loc(l: &Loc, message: Option<String>) -> Option<Location> {
    Some(Location {
        id: None,
        physical_location: PhysicalLocation {
            artifact_location: ArtifactLocation { uri: uri(&l.file)? },
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
fn at_text(s: &str, message: Option<String>) -> Option<Location> {
    let (file, line, col) = crate::diagnostics::split_file_line_col(s)?;
    Some(Location {
        id: None,
        physical_location: PhysicalLocation {
            artifact_location: ArtifactLocation { uri: uri(file)? },
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
fn at_file(file: &str) -> Option<Location> {
    at_text(&format!("{file}:1:1"), None)
}

fn verdict_text(v: &Verdict) -> String {
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
    let mut b = Builder::new();
    for v in r.results.iter().filter(|v| v.is_over()) {
        let (rule_index, level) = b.known_rule(v.budget);
        let mut sites = v
            .contributors
            .iter()
            .filter_map(|c| {
                c.span.as_ref().and_then(|l| {
                    at_loc(
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
            at_file(&v.program)
        } else {
            Some(sites.remove(0))
        };
        let mut related = sites;
        related.extend(at_text(&v.origin, Some("the budget".to_string())));
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
    for c in &r.chains {
        for p in &c.packets {
            for s in &p.segments {
                let id = match s.status {
                    "over" => "chain_drop_threshold",
                    "priority" => "chain_priority_threshold",
                    _ => continue,
                };
                let (rule_index, level) = b.known_rule(id);
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
                    locations: at_text(&s.origin, None).into_iter().collect(),
                    related_locations: Vec::new(),
                    properties: BTreeMap::new(),
                });
            }
            if let (Some(m), Some(max)) = (p.margin_ns, c.max_latency_ns) {
                if m < 0.0 {
                    let (rule_index, level) = b.known_rule("chain_latency");
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
                        locations: Vec::new(),
                        related_locations: Vec::new(),
                        properties: BTreeMap::new(),
                    });
                }
            }
        }
    }
    b.finish()
}

/// The SARIF log of predictions: each warning of each report (those that
/// say a model extrapolates are `warning`, the rest `note`), at the site
/// its message names, else the program.
pub fn predict_log(reports: &[Report]) -> Log {
    let mut b = Builder::new();
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
            let rule_index = b.rule(code, level, &format!("p4cost: {}", code.replace('_', " ")));
            // `file:line:col: message` names its own site.
            let site = message
                .split(": ")
                .next()
                .and_then(|prefix| at_text(prefix, None));
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
                locations: site.or_else(|| at_file(&r.program)).into_iter().collect(),
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
        let l = at_text("p4cost.toml:12:18", None).expect("a location");
        assert_eq!(l.physical_location.artifact_location.uri, "p4cost.toml");
        assert_eq!(l.physical_location.region.start_line, 12);
        assert_eq!(l.physical_location.region.start_column, 18);
        assert!(at_text("--max-latency", None).is_none());
        assert!(at_text("<bundled>/tna.p4:3:1", None).is_none());
        assert_eq!(uri("./a b/c#1.p4").as_deref(), Some("a%20b/c%231.p4"));
    }

    #[test]
    fn figures_read_as_written() {
        assert_eq!(num(304.548), "304.548");
        assert_eq!(num(300.0), "300");
        assert_eq!(num(4.5480000001), "4.548");
    }
}
