//! What an editor shows for one program, as plain data: the costs of each
//! parse state and table (with their arithmetic), where each table is
//! applied, the per-class totals, the warnings and exceeded budgets with
//! their sites, or the input error. The language server renders this; it
//! computes nothing itself (rust-analyzer's `ide` layer is the model).

use std::collections::HashMap;

use p4cost_ir::{NodeKind, Program};

use crate::check::{self, Budget, Target, Verdict};
use crate::error::Error;
use crate::explain::{parse_formula, state_formula, table_formula};
use crate::options::PredictOptions;
use crate::report::{Loc, Report};
use crate::session::Session;

/// One parse state's cost.
#[derive(Debug, Clone, PartialEq)]
pub struct StateFact {
    /// The state's name.
    pub name: String,
    /// Its term, ns (the largest over the listed paths through it).
    pub ns: f64,
    /// The arithmetic (`0.221 ns/B (per_header_byte_ns) x 40 B + ...`).
    pub formula: String,
    /// Why, when there is more to say (the baseline).
    pub why: Option<String>,
    /// Its declaration.
    pub span: Loc,
}

/// One table's cost.
#[derive(Debug, Clone, PartialEq)]
pub struct TableFact {
    /// Qualified name.
    pub name: String,
    /// Its term, ns.
    pub ns: f64,
    /// The arithmetic (its coefficient).
    pub formula: String,
    /// Why this coefficient (match and key class).
    pub why: Option<String>,
    /// Its declaration.
    pub span: Loc,
    /// Each `t.apply()` of it.
    pub applies: Vec<Loc>,
}

/// A pipeline's totals over all its packet classes, placed at its parser.
#[derive(Debug, Clone, PartialEq)]
pub struct Totals {
    /// The pipeline, when the program has several.
    pub pipeline: Option<String>,
    /// The ingress parser's declaration.
    pub at: Option<Loc>,
    /// `18 parse paths, 18 packet classes: 273.764 .. 304.548 ns (median 289.986)`.
    pub text: String,
}

/// A warning with its site.
#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    /// Stable code.
    pub code: String,
    /// The sentence.
    pub message: String,
    /// The table or state it is about.
    pub span: Option<Loc>,
    /// Its code is denied (`[warnings] deny`): an error, not a warning.
    pub denied: bool,
}

/// `notes` with one per code and declaration (the first: a table every
/// pipeline warns about shows once), and one per code and sentence where
/// there is no declaration.
fn one_per_site(notes: Vec<Note>) -> Vec<Note> {
    let mut seen = std::collections::HashSet::new();
    notes
        .into_iter()
        .filter(|n| {
            let site = match &n.span {
                Some(l) => (n.code.clone(), l.file.clone(), l.lo, String::new()),
                None => (n.code.clone(), String::new(), 0, n.message.clone()),
            };
            seen.insert(site)
        })
        .collect()
}

/// Everything an editor shows for one program.
#[derive(Debug, Default)]
pub struct EditorFacts {
    /// Why there is nothing else (a syntax error, ...).
    pub error: Option<Error>,
    /// The model's name.
    pub model: String,
    /// Per parse state.
    pub states: Vec<StateFact>,
    /// Per table.
    pub tables: Vec<TableFact>,
    /// Per pipeline.
    pub totals: Vec<Totals>,
    /// Warnings (extrapolation and others).
    pub notes: Vec<Note>,
    /// Budgets (from the project's configuration) the program exceeds.
    pub over: Vec<Verdict>,
    /// The files the program was read from (the document and its
    /// includes; bundled architecture files left out): a change to any
    /// other file leaves these facts as they are. `None` when the input did
    /// not load, so that any change may matter.
    pub files: Option<Vec<std::path::PathBuf>>,
    /// Each table's stage and memory under the placement estimate,
    /// computed when first asked ([`EditorFacts::table_placement`]).
    pub placement: Placement,
}

impl EditorFacts {
    /// Table `i`'s stage in the estimated placement and why not earlier
    /// (`stages --explain`), and its memory (`p4cost resources`), one
    /// line each, for a Tofino program without the compiler's placement
    /// (`None` otherwise, or when the estimate fails: the hover then shows
    /// the costs alone). The placement runs at the first call (a hover),
    /// not at every keystroke.
    pub fn table_placement(&self, i: usize) -> (Option<&str>, Option<&str>) {
        match self.placement.lines().get(i) {
            Some((s, m)) => (s.as_deref(), m.as_deref()),
            None => (None, None),
        }
    }
}

/// What the placement estimate is computed from, kept by the facts.
struct PlacementInput {
    loaded: std::sync::Arc<crate::input::LoadedInput>,
    options: crate::stages::StagesOptions,
    shown: String,
    /// The facts' tables' names, in their order.
    tables: Vec<String>,
}

/// Per table of the facts, its stage and memory lines under the placement
/// estimate, computed once, when first asked (a Tofino program's
/// placement costs as much as the rest of a keystroke's analysis).
#[derive(Default)]
pub struct Placement {
    of: Option<PlacementInput>,
    lines: std::sync::OnceLock<Vec<(Option<String>, Option<String>)>>,
}

impl Placement {
    fn lines(&self) -> &[(Option<String>, Option<String>)] {
        self.lines.get_or_init(|| match &self.of {
            Some(p) => placement_lines(p),
            None => Vec::new(),
        })
    }
}

/// The lines, computed (so two facts compare by what they show).
impl std::fmt::Debug for Placement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.lines()).finish()
    }
}

/// The facts of `o`'s program (its input already preloaded into
/// `session` when it is an unsaved buffer), judged against `budgets`.
pub fn facts(session: &mut Session, o: &PredictOptions, budgets: &[Budget]) -> EditorFacts {
    facts_keeping(session, o, budgets).0
}

/// [`facts`] and the reports they were gathered from, for a caller that
/// frees the reports off its latency path (switch_p4_16: 7 M instructions
/// a keystroke).
pub fn facts_keeping(
    session: &mut Session,
    o: &PredictOptions,
    budgets: &[Budget],
) -> (EditorFacts, Vec<Report>) {
    let mut f = EditorFacts::default();
    // The editor shows per-state and per-table terms and the totals over
    // all classes, never a listed path's classes: not listing them halves
    // an analysis (switch_p4_16: 0.44 -> 0.24 s) and changes no figure.
    let mut shown = o.clone();
    shown.max_classes = Some(0);
    // Nor does it render a listed path's classes (`PathOut::classes`):
    // switch_p4_16's keystroke spent a tenth of its analysis on them.
    shown.path_classes = false;
    // Nor any listed path but one: of the listing it reads the table
    // terms alone, the same on every path of a linear model (switch_p4_16:
    // 14 M instructions a keystroke for the other 63).
    shown.full_listing = false;
    let reports = match session.reports(&shown) {
        Ok(r) => r,
        Err(e) => {
            // A program that loads but cannot be predicted (no parser, a
            // budget) still names its files.
            f.files = session.load(o).ok().map(|l| files_of(&l.program));
            f.error = Some(e);
            return (f, Vec::new());
        }
    };
    // The program is read where the session keeps it (a keystroke's
    // program is not copied again), until the budgets are judged.
    let loaded = match session.shared(o) {
        Ok(l) => l.clone(),
        Err(e) => {
            f.error = Some(e);
            return (f, reports);
        }
    };
    let program = &loaded.program;
    f.files = Some(files_of(program));
    let spec = crate::predict::settle(o).ok().map(|(m, _)| m);
    f.model = reports
        .first()
        .map(|r| r.model.name.clone())
        .unwrap_or_default();
    // The reports' model may be the input's own (a context.json alone is
    // predicted with the compiler's MAU cycles): its arithmetic only.
    let lin = spec
        .as_ref()
        .filter(|m| m.name == f.model)
        .and_then(|m| m.linear());
    gather(&mut f, &reports, program, lin.as_ref());
    f.placement = placement(&f, o, loaded);
    if !budgets.is_empty() {
        let t = Target {
            options: o.clone(),
            budgets: budgets.to_vec(),
        };
        match check::judge_reports(session, &t, &reports) {
            Ok(r) => f.over = r.into_iter().filter(|v| v.is_over()).collect(),
            Err(e) => f.error = Some(e),
        }
    }
    (f, reports)
}

/// What the facts' placement lines are computed from: nothing for a
/// program the compiler placed or not for Tofino.
fn placement(
    f: &EditorFacts,
    o: &PredictOptions,
    loaded: std::sync::Arc<crate::input::LoadedInput>,
) -> Placement {
    let program = &loaded.program;
    if program.mau.is_some() || program.arch.tofino_generation().is_none() {
        return Placement::default();
    }
    let options = crate::stages::StagesOptions {
        pipe: o.pipe.clone(),
        deps: o.deps,
        ..Default::default()
    };
    Placement {
        of: Some(PlacementInput {
            options,
            shown: crate::read::shown(&o.file),
            tables: f.tables.iter().map(|t| t.name.clone()).collect(),
            loaded,
        }),
        lines: std::sync::OnceLock::new(),
    }
}

/// Each table's estimated stage, why it is not earlier (`stages
/// --explain`) and its memory (`p4cost resources`), from one placement
/// (none when the estimate fails).
fn placement_lines(p: &PlacementInput) -> Vec<(Option<String>, Option<String>)> {
    let program = &p.loaded.program;
    let mut lines = vec![(None, None); p.tables.len()];
    let Ok((model, _, Some(plan))) = crate::stages::figures(&p.options, &p.shown, program) else {
        return lines;
    };
    let by_name: HashMap<&str, usize> = p
        .tables
        .iter()
        .enumerate()
        .map(|(i, t)| (t.as_str(), i))
        .collect();
    for u in plan.gresses.iter().flat_map(|g| &g.why) {
        if let Some(&i) = by_name.get(u.unit.as_str()) {
            let at = if u.last_stage > u.stage {
                format!("stages {}-{}", u.stage, u.last_stage)
            } else {
                format!("stage {}", u.stage)
            };
            let split = u
                .split
                .as_deref()
                .map_or(String::new(), |s| format!("; {s}"));
            lines[i]
                .0
                .get_or_insert_with(|| format!("{at} (estimated): {}{split}", u.why.sentence()));
        }
    }
    if let Ok(m) = crate::resources::of(&model, &p.shown, program, &plan) {
        for u in &m.units {
            if let Some(&i) = by_name.get(u.name.as_str()) {
                lines[i].1.get_or_insert_with(|| memory_line(u));
            }
        }
    }
    lines
}

/// `stages 0-1: 8 SRAM blocks, 0 TCAM blocks (estimate); Scholz 2020:
/// 0.500 % of the chip's SRAM`.
fn memory_line(u: &p4cost_model::mau_estimate::resources::UnitResources) -> String {
    let stages = if u.first_stage == u.last_stage {
        format!("stage {}", u.first_stage)
    } else {
        format!("stages {}-{}", u.first_stage, u.last_stage)
    };
    let sram: u32 = u.parts.iter().map(|x| x.sram_blocks).sum();
    let scholz = match (u.sram_percent, u.tcam_percent) {
        (Some(s), _) => format!("; Scholz 2020: {s:.3} % of the chip's SRAM"),
        (_, Some(c)) => format!("; Scholz 2020: {c:.3} % of the chip's TCAM"),
        _ => String::new(),
    };
    format!(
        "{stages}: {sram} SRAM blocks, {} TCAM blocks (estimate){scholz}",
        u.tcam_blocks
    )
}

/// The files `program` was read from, bundled ones left out.
fn files_of(program: &Program) -> Vec<std::path::PathBuf> {
    program
        .files
        .iter()
        .filter(|sf| !sf.path.starts_with('<'))
        .map(|sf| std::path::PathBuf::from(&sf.path))
        .collect()
}

fn gather(
    f: &mut EditorFacts,
    reports: &[Report],
    program: &Program,
    lin: Option<&p4cost_model::spec::LinearTerms<'_>>,
) {
    let mut states: HashMap<(String, u32), StateFact> = HashMap::new();
    let mut tables: HashMap<String, TableFact> = HashMap::new();
    for r in reports {
        // Every state on some path, from the analysis over all paths.
        for t in &r.state_terms {
            let (formula, why) = state_term_formula(t, lin);
            keep_largest(&mut states, &t.name, t.max_ns, formula, why, &t.span);
        }
        for p in &r.paths {
            // (Listed paths' states only where there is no analysis over
            // all paths: the MAU models.)
            for st in p.states.iter().filter(|_| r.state_terms.is_empty()) {
                let (formula, why) = match lin {
                    Some(l) => state_formula(l.parser, st),
                    None => (format!("{} ns", st.latency_ns), None),
                };
                keep_largest(&mut states, &st.name, st.latency_ns, formula, why, &st.span);
            }
            for t in &p.breakdown.tables {
                tables.entry(t.name.clone()).or_insert_with(|| {
                    let (formula, why) = match lin.and_then(|l| l.control) {
                        Some(ctl) => table_formula(t, ctl, t.latency_ns),
                        None => (format!("{} ns", t.latency_ns), None),
                    };
                    TableFact {
                        name: t.name.clone(),
                        ns: t.latency_ns,
                        formula,
                        why,
                        span: t.span.clone(),
                        applies: Vec::new(),
                    }
                });
            }
        }
        f.totals.push(totals(r, program));
        for w in &r.warnings {
            f.notes.push(Note {
                code: w.code.clone(),
                message: w.message.clone(),
                span: w.span.clone(),
                denied: r.denied.contains(&w.code),
            });
        }
        for w in &r.path_warnings {
            f.notes.push(Note {
                code: w.code.clone(),
                message: format!("{} [{} paths]", w.message, w.applies_to.text),
                span: w.span.clone(),
                denied: r.denied.contains(&w.code),
            });
        }
    }
    // Apply sites, from the controls' flow graphs.
    for c in &program.controls {
        for n in &c.flow.nodes {
            if let NodeKind::Table { table, .. } = &n.kind {
                let name = &program.table(*table).name;
                if let Some(t) = tables.get_mut(name) {
                    t.applies.push(Loc::new(program, n.span));
                }
            }
        }
    }
    f.notes = one_per_site(std::mem::take(&mut f.notes));
    f.states = states.into_values().collect();
    f.states
        .sort_by(|a, b| (&a.span.file, a.span.lo).cmp(&(&b.span.file, b.span.lo)));
    f.tables = tables.into_values().collect();
    f.tables
        .sort_by(|a, b| (&a.span.file, a.span.lo).cmp(&(&b.span.file, b.span.lo)));
}

/// Records a state's term, keeping the largest seen for its declaration.
fn keep_largest(
    states: &mut HashMap<(String, u32), StateFact>,
    name: &str,
    ns: f64,
    formula: String,
    why: Option<String>,
    span: &Loc,
) {
    let e = states
        .entry((span.file.clone(), span.lo))
        .or_insert_with(|| StateFact {
            name: name.to_string(),
            ns,
            formula: formula.clone(),
            why: why.clone(),
            span: span.clone(),
        });
    if ns > e.ns {
        e.ns = ns;
        e.formula = formula;
        e.why = why;
    }
}

/// A state's term over all paths as arithmetic (where it is largest).
fn state_term_formula(
    t: &crate::path_stats::StateTermOut,
    lin: Option<&p4cost_model::spec::LinearTerms<'_>>,
) -> (String, Option<String>) {
    let spread = (t.min_ns != t.max_ns).then(|| {
        format!(
            "{:.3} to {:.3} ns over the paths through it{}",
            t.min_ns,
            t.max_ns,
            if t.in_baseline_somewhere {
                " (0 where the baseline L_B covers its header)"
            } else {
                ""
            }
        )
    });
    if t.max_ns == 0.0 {
        let f = if t.in_baseline_somewhere {
            "0 (in L_B)"
        } else {
            "0 (extracts nothing)"
        };
        return (f.to_string(), spread);
    }
    let formula = lin
        .and_then(|l| parse_formula(l.parser, t.counted_bytes, t.max_ns))
        .unwrap_or_else(|| format!("{} ns", t.max_ns));
    (formula, spread)
}

fn totals(r: &Report, program: &Program) -> Totals {
    let at = program
        .parsers
        .iter()
        .find(|p| Some(p.name.as_str()) == r.parser_in_program())
        .map(|p| Loc::new(program, p.span));
    let text = match &r.summary {
        Some(s) => {
            let classes = s
                .classes
                .as_ref()
                .map(|c| format!(", {} packet classes", c.text))
                .unwrap_or_default();
            let range = match (&s.min, &s.max) {
                (Some(lo), Some(hi)) => format!(
                    ": {:.3} .. {:.3} ns (slowest: class {})",
                    lo.latency_ns,
                    hi.latency_ns,
                    hi.class.as_deref().unwrap_or("-")
                ),
                _ => String::new(),
            };
            let median = s
                .median_ns
                .map(|m| format!(", median {m:.3} ns"))
                .unwrap_or_default();
            format!(
                "{} parse paths{classes}{range}{median} ({})",
                s.paths.text, r.model.name
            )
        }
        None => match &r.mau {
            Some(m) => {
                let gress: Vec<String> = [&m.ingress, &m.egress]
                    .into_iter()
                    .flatten()
                    .map(|g| format!("{} {} cycles, {:.3} ns", g.gress.name(), g.cycles, g.ns))
                    .collect();
                format!("MAU {} ({})", gress.join("; "), r.model.name)
            }
            None => format!("{} parse paths ({})", r.path_count_text, r.model.name),
        },
    };
    Totals {
        pipeline: r
            .pipeline
            .as_ref()
            .filter(|p| p.all.len() > 1)
            .map(|p| p.name.clone()),
        at,
        text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(code: &str, message: &str, lo: Option<u32>) -> Note {
        Note {
            code: code.to_string(),
            message: message.to_string(),
            span: lo.map(|lo| Loc {
                file: "p.p4".to_string(),
                line: 1,
                col: 1,
                lo,
                hi: lo + 5,
            }),
            denied: false,
        }
    }

    #[test]
    fn one_note_per_code_and_declaration() {
        let notes = vec![
            note("too_many_keys", "table t: 4 keys (pipe a)", Some(10)),
            note("too_many_keys", "table t: 4 keys (pipe b)", Some(10)),
            note("keyless_table", "table t", Some(10)),
            note("too_many_keys", "table u: 5 keys", Some(40)),
            note("reader_note", "one", None),
            note("reader_note", "two", None),
            note("reader_note", "one", None),
        ];
        let kept: Vec<(String, String)> = one_per_site(notes)
            .into_iter()
            .map(|n| (n.code, n.message))
            .collect();
        let want = [
            ("too_many_keys", "table t: 4 keys (pipe a)"),
            ("keyless_table", "table t"),
            ("too_many_keys", "table u: 5 keys"),
            ("reader_note", "one"),
            ("reader_note", "two"),
        ];
        assert_eq!(
            kept,
            want.map(|(c, m)| (c.to_string(), m.to_string())).to_vec()
        );
    }

    /// The facts, which list no path's classes and one path only, are
    /// those gathered from a report that lists every path with its
    /// classes.
    #[test]
    fn the_facts_are_those_of_reports_with_the_paths_classes() {
        let mut several = false;
        for sample in [
            "p4-samples/tofino/classes/hit_miss_action_run.p4",
            "p4-samples/tofino/tc2_datacenter.p4",
            "tests/fixtures/programs/switch_p4_16.p4",
        ] {
            let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../..")
                .join(sample);
            let o = PredictOptions::new(&file);
            let mut session = Session::new();
            let f = facts(&mut session, &o, &[]);
            assert!(f.error.is_none(), "{sample}: {:?}", f.error);
            let mut with = o.clone();
            with.max_classes = Some(0);
            let reports = session.reports(&with).expect("reports");
            assert!(reports
                .iter()
                .any(|r| r.paths.iter().any(|p| p.classes.is_some())));
            several |= reports.iter().any(|r| r.paths.len() > 1);
            let program = &session.load(&o).expect("loaded").program.clone();
            let spec = crate::predict::settle(&o).ok().map(|(m, _)| m);
            let lin = spec.as_ref().and_then(|m| m.linear());
            let mut g = EditorFacts::default();
            gather(&mut g, &reports, program, lin.as_ref());
            let shown =
                |f: &EditorFacts| format!("{:?}", (&f.states, &f.tables, &f.totals, &f.notes));
            assert_eq!(shown(&f), shown(&g), "{sample}");
        }
        assert!(several, "some sample lists several paths");
    }

    /// A Tofino program's placement runs when a table's stage is first
    /// asked for, not with the facts, and then names each table's stage
    /// and memory.
    #[test]
    fn the_placement_waits_for_a_hover() {
        let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../p4-samples/tofino/tc2_datacenter.p4");
        let o = PredictOptions::new(&file);
        let mut session = Session::new();
        let f = facts(&mut session, &o, &[]);
        assert!(f.error.is_none(), "{:?}", f.error);
        assert!(!f.tables.is_empty());
        assert!(f.placement.of.is_some(), "a Tofino program has one to run");
        assert!(f.placement.lines.get().is_none(), "not run with the facts");
        let placed: Vec<_> = (0..f.tables.len()).map(|i| f.table_placement(i)).collect();
        assert!(
            placed
                .iter()
                .any(|(s, m)| s.is_some_and(|s| s.contains("(estimated)")) && m.is_some()),
            "{placed:?}"
        );
        assert_eq!(f.table_placement(f.tables.len()), (None, None));
    }
}
