//! The engine's facts as LSP answers: diagnostics, inlay hints, hover text
//! and code lenses, all placed in the document's own text.

use std::path::Path;

use lsp_types::{
    CodeLens, Command, Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Hover,
    HoverContents, InlayHint, InlayHintKind, InlayHintLabel, Location, MarkupContent, MarkupKind,
    NumberOrString, Position, Range,
};

use p4cost_engine::check::amount;
use p4cost_engine::ide::{EditorFacts, StateFact, TableFact};
use p4cost_engine::report::Loc;
// Extrapolation codes are warnings, every other code information.
use p4cost_engine::report::EXTRAPOLATION_CODES as EXTRAPOLATION;

use crate::convert::{same_file, uri_of, LineIndex};

const SOURCE: &str = "p4cost";

fn in_doc(loc: &Loc, path: &Path, ix: &LineIndex<'_>) -> Option<Range> {
    if same_file(&loc.file, path) {
        ix.range(loc)
    } else {
        None
    }
}

fn related(loc: &Loc, message: String) -> Option<DiagnosticRelatedInformation> {
    Some(DiagnosticRelatedInformation {
        location: Location {
            uri: uri_of(&loc.file)?,
            range: Range::new(
                Position::new(loc.line.saturating_sub(1), loc.col.saturating_sub(1)),
                Position::new(loc.line.saturating_sub(1), loc.col.saturating_sub(1)),
            ),
        },
        message,
    })
}

fn diagnostic(
    range: Range,
    severity: DiagnosticSeverity,
    code: &str,
    message: String,
) -> Diagnostic {
    Diagnostic {
        range,
        severity: Some(severity),
        code: Some(NumberOrString::String(code.to_string())),
        source: Some(SOURCE.to_string()),
        message,
        ..Diagnostic::default()
    }
}

/// Where findings about the whole program go: the first pipeline's parser,
/// else the top of the file.
fn program_range(path: &Path, ix: &LineIndex<'_>, facts: &EditorFacts) -> Range {
    facts
        .totals
        .iter()
        .filter_map(|t| t.at.as_ref())
        .find_map(|l| in_doc(l, path, ix))
        .unwrap_or_else(|| ix.at_line_col(1, 1))
}

/// Diagnostics: the input error; each exceeded budget at its largest term
/// in this file; each warning at its table or state (or the parser).
pub fn diagnostics(path: &Path, text: &str, facts: &EditorFacts) -> Vec<Diagnostic> {
    let ix = LineIndex::new(text);
    let mut out = Vec::new();
    if let Some(e) = &facts.error {
        let d = match e.site() {
            Some(s) if same_file(&s.file, path) => diagnostic(
                ix.at_line_col(s.line, s.col),
                DiagnosticSeverity::ERROR,
                "input",
                s.message.clone(),
            ),
            Some(s) => {
                let mut d = diagnostic(
                    ix.at_line_col(1, 1),
                    DiagnosticSeverity::ERROR,
                    "input",
                    format!("in {}:{}:{}: {}", s.file, s.line, s.col, s.message),
                );
                let at = Loc {
                    file: s.file.clone(),
                    line: s.line,
                    col: s.col,
                    lo: 0,
                    hi: 0,
                };
                d.related_information = related(&at, s.message.clone()).map(|r| vec![r]);
                d
            }
            None => diagnostic(
                ix.at_line_col(1, 1),
                DiagnosticSeverity::ERROR,
                "input",
                e.message().to_string(),
            ),
        };
        out.push(d);
    }
    let whole = program_range(path, &ix, facts);
    for v in &facts.over {
        let what = match &v.class {
            Some(c) => format!("packet class {c}"),
            None => v.budget.replace('_', " "),
        };
        let message = format!(
            "{what}: {} is over the {} budget ({}) by {}",
            amount(v.predicted, v.unit),
            amount(v.limit, v.unit),
            v.origin,
            amount(-v.margin, v.unit),
        );
        let here = v
            .contributors
            .iter()
            .find_map(|c| c.span.as_ref().and_then(|l| in_doc(l, path, &ix)));
        let mut d = diagnostic(
            here.unwrap_or(whole),
            DiagnosticSeverity::ERROR,
            v.budget,
            message,
        );
        d.related_information = Some(
            v.contributors
                .iter()
                .filter_map(|c| {
                    let l = c.span.as_ref()?;
                    related(
                        l,
                        format!(
                            "{}{} {} {}",
                            if c.value < 0.0 { "" } else { "+" },
                            amount(c.value, v.unit),
                            c.kind.replace('_', " "),
                            c.name
                        ),
                    )
                })
                .collect(),
        );
        out.push(d);
    }
    for n in &facts.notes {
        let severity = if n.denied {
            DiagnosticSeverity::ERROR
        } else if EXTRAPOLATION.contains(&n.code.as_str()) {
            DiagnosticSeverity::WARNING
        } else {
            DiagnosticSeverity::INFORMATION
        };
        let range = n
            .span
            .as_ref()
            .and_then(|l| in_doc(l, path, &ix))
            .unwrap_or(whole);
        out.push(diagnostic(range, severity, &n.code, n.message.clone()));
    }
    out
}

/// A term as the hint shows it, signed: `+4.654 ns`, and a fitted model's
/// term below zero `-6.200 ns` (never `+-6.200`).
fn ns_label(ns: f64) -> String {
    format!("{ns:+.3} ns")
}

fn hint(at: Position, label: String, tooltip: String) -> InlayHint {
    InlayHint {
        position: at,
        label: InlayHintLabel::String(label),
        kind: Some(InlayHintKind::TYPE),
        text_edits: None,
        tooltip: Some(lsp_types::InlayHintTooltip::String(tooltip)),
        padding_left: Some(true),
        padding_right: None,
        data: None,
    }
}

fn within(p: Position, r: Range) -> bool {
    (r.start.line, r.start.character) <= (p.line, p.character)
        && (p.line, p.character) <= (r.end.line, r.end.character)
}

/// A hint at the end of the first line of each parse state and table
/// declaration, and of each `t.apply()`, inside `range`.
pub fn inlay_hints(path: &Path, text: &str, facts: &EditorFacts, range: Range) -> Vec<InlayHint> {
    let ix = LineIndex::new(text);
    let mut out = Vec::new();
    let end_of = |l: &Loc| -> Option<Position> {
        ix.range(l)?;
        Some(ix.position(ix.line_end(l.lo as usize)))
    };
    for s in &facts.states {
        if !same_file(&s.span.file, path) {
            continue;
        }
        if let Some(at) = end_of(&s.span).filter(|p| within(*p, range)) {
            out.push(hint(at, ns_label(s.ns), s.formula.clone()));
        }
    }
    for t in &facts.tables {
        let sites = std::iter::once(&t.span).chain(t.applies.iter());
        for l in sites.filter(|l| same_file(&l.file, path)) {
            if let Some(at) = end_of(l).filter(|p| within(*p, range)) {
                out.push(hint(at, ns_label(t.ns), t.formula.clone()));
            }
        }
    }
    out.sort_by_key(|h| (h.position.line, h.position.character));
    out.dedup_by_key(|h| (h.position.line, h.position.character));
    out
}

fn state_markdown(s: &StateFact, model: &str) -> String {
    let why = s
        .why
        .as_ref()
        .map(|w| format!("\n\n{w}"))
        .unwrap_or_default();
    format!(
        "**parse state `{}`**: {} ({model})\n\n`{}`{why}",
        s.name,
        ns_label(s.ns),
        s.formula
    )
}

fn table_markdown(
    t: &TableFact,
    (stage, memory): (Option<&str>, Option<&str>),
    model: &str,
) -> String {
    let why = t
        .why
        .as_ref()
        .map(|w| format!("\n\n{w}"))
        .unwrap_or_default();
    let stage = stage.map(|s| format!("\n\n{s}")).unwrap_or_default();
    let memory = memory
        .map(|m| format!("\n\nmemory: {m}"))
        .unwrap_or_default();
    format!(
        "**table `{}`**: {} per packet that applies it ({model})\n\n`{}`{why}\n\napplied {} time(s){stage}{memory}",
        t.name,
        ns_label(t.ns),
        t.formula,
        t.applies.len()
    )
}

/// The breakdown of the state or table under `pos` (its declaration's
/// first line, or an apply), or the totals at a parser declaration.
pub fn hover(path: &Path, text: &str, facts: &EditorFacts, pos: Position) -> Option<Hover> {
    let ix = LineIndex::new(text);
    let hit = |l: &Loc| -> Option<Range> {
        let r = in_doc(l, path, &ix)?;
        within(pos, r).then_some(r)
    };
    for s in &facts.states {
        if let Some(r) = hit(&s.span) {
            return Some(markdown(state_markdown(s, &facts.model), r));
        }
    }
    for (i, t) in facts.tables.iter().enumerate() {
        if let Some(r) = std::iter::once(&t.span)
            .chain(t.applies.iter())
            .find_map(hit)
        {
            let placed = facts.table_placement(i);
            return Some(markdown(table_markdown(t, placed, &facts.model), r));
        }
    }
    for t in &facts.totals {
        if let Some(r) = t.at.as_ref().and_then(hit) {
            return Some(markdown(format!("**p4cost**: {}", t.text), r));
        }
    }
    None
}

fn markdown(value: String, range: Range) -> Hover {
    Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: Some(range),
    }
}

/// A lens over each pipeline's parser with its per-class totals.
pub fn code_lenses(path: &Path, text: &str, facts: &EditorFacts) -> Vec<CodeLens> {
    let ix = LineIndex::new(text);
    let whole = program_range(path, &ix, facts);
    facts
        .totals
        .iter()
        .map(|t| {
            let range =
                t.at.as_ref()
                    .and_then(|l| in_doc(l, path, &ix))
                    .unwrap_or(whole);
            let title = match &t.pipeline {
                Some(p) => format!("{p}: {}", t.text),
                None => t.text.clone(),
            };
            CodeLens {
                range,
                command: Some(Command {
                    title,
                    command: String::new(),
                    arguments: None,
                }),
                data: None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_term_is_labelled_with_its_own_sign() {
        assert_eq!(super::ns_label(4.654), "+4.654 ns");
        assert_eq!(super::ns_label(-6.2), "-6.200 ns");
    }

    use super::*;
    use p4cost_engine::ide::Note;

    #[test]
    fn a_denied_code_is_an_error_an_extrapolation_a_warning_the_rest_information() {
        let note = |code: &str, denied: bool| Note {
            code: code.to_string(),
            message: code.to_string(),
            span: None,
            denied,
        };
        let facts = EditorFacts {
            notes: vec![
                note("too_many_keys", true),
                note("too_many_keys", false),
                note("reader_note", false),
            ],
            ..EditorFacts::default()
        };
        let d = diagnostics(Path::new("p.p4"), "control c() { apply {} }\n", &facts);
        let levels: Vec<_> = d.iter().map(|d| d.severity).collect();
        assert_eq!(
            levels,
            vec![
                Some(DiagnosticSeverity::ERROR),
                Some(DiagnosticSeverity::WARNING),
                Some(DiagnosticSeverity::INFORMATION)
            ]
        );
    }
}
