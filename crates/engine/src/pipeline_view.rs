//! What `p4cost report` draws, as plain data: the predict report (summary
//! with its histogram over classes, classes, warnings), the stage map (the
//! compiler's placement, the estimate, or why there is none), each gress's
//! dependency graph with every unit's stage or layer, the parse graph with
//! each state's layer, and the source line of every site. A renderer (the
//! HTML page) only lays these out; every figure is computed here.

use std::collections::HashMap;
use std::sync::Arc;

use p4cost_analysis::deps::{self, DepGraph, DepKind, UnitKind};
use p4cost_ir::{Gress, Program, Target, Transition};
use p4cost_model::mau_cycles::MauPrediction;
use p4cost_model::mau_estimate::PipelinePlan;

use crate::error::{Error, NoFit};
use crate::options::PredictOptions;
use crate::report::{Loc, Report};
use crate::session::Session;
use crate::stages::{self, StagesOptions};

/// Bins of the latency histogram the report asks for.
pub const HISTOGRAM_BINS: usize = 40;

/// The whole picture of one pipeline.
#[derive(Debug)]
pub struct PipelineView {
    /// The predict report (the first pipeline reported, or `--pipe`'s).
    pub report: Report,
    /// The MAU stage map.
    pub stages: StageMap,
    /// Dependency graph of each gress, laid out by stage.
    pub deps: Vec<DepView>,
    /// The ingress parse graph, laid out by depth.
    pub parse: Option<ParseView>,
    /// The source line of each site the view names.
    pub lines: SourceLines,
}

/// The stage map, or why there is none.
#[derive(Debug)]
pub enum StageMap {
    /// Per gress and stage.
    Placed(Box<Placed>),
    /// The estimate needs more stages than the chip has.
    DoesNotFit(Box<NoFit>),
    /// Not drawn, and why (not a Tofino program, ...).
    Absent(String),
}

/// A placement: the compiler's (exact) or the estimate's.
#[derive(Debug)]
pub struct Placed {
    /// The model that summed or estimated it.
    pub model: String,
    /// True for the compiler's own placement (context.json).
    pub exact: bool,
    /// Cycles per stage and gress.
    pub prediction: MauPrediction,
    /// The estimate's plan (dependencies per stage, chains).
    pub plan: Option<PipelinePlan>,
}

/// One gress's dependency graph with a layer per unit.
#[derive(Debug)]
pub struct DepView {
    /// The gress.
    pub gress: Gress,
    /// The control.
    pub control: String,
    /// True when `layer` is the unit's MAU stage; false when it is its
    /// depth in match and action dependencies (no placement).
    pub layers_are_stages: bool,
    /// The units (tables, gateways, statement runs).
    pub units: Vec<UnitView>,
    /// The dependencies.
    pub edges: Vec<EdgeView>,
    /// Units on the chain that sets the stage count (the estimate's chain,
    /// else the longest chain of match dependencies), first to last.
    pub chain: Vec<usize>,
}

/// One unit of a dependency graph.
#[derive(Debug)]
pub struct UnitView {
    /// Its name.
    pub name: String,
    /// `table`, `gateway` or `statements`.
    pub kind: &'static str,
    /// Where it is written.
    pub loc: Loc,
    /// Its column: stage (first stage it occupies) or depth.
    pub layer: u32,
    /// First and last stage it occupies, when placed.
    pub stages: Option<(u32, u32)>,
}

/// One dependency.
#[derive(Debug)]
pub struct EdgeView {
    /// Index of the earlier unit.
    pub from: usize,
    /// Index of the later unit.
    pub to: usize,
    /// Match, action, control or reverse read.
    pub kind: DepKind,
    /// The field that causes it.
    pub field: String,
}

/// The ingress parse graph.
#[derive(Debug)]
pub struct ParseView {
    /// The parser's name.
    pub parser: String,
    /// Its states.
    pub states: Vec<StateView>,
    /// Transitions; `to` is a state index, or `states.len()` for accept and
    /// `states.len() + 1` for reject.
    pub edges: Vec<(usize, usize)>,
    /// Layer of accept and reject (one past the deepest state).
    pub end_layer: u32,
}

/// One parse state.
#[derive(Debug)]
pub struct StateView {
    /// Its name.
    pub name: String,
    /// Bytes it extracts.
    pub bytes: u64,
    /// Its latency term over all paths (least, greatest), when the model
    /// has parse terms and some path reaches it.
    pub term_ns: Option<(f64, f64)>,
    /// Where it is written.
    pub loc: Loc,
    /// Its depth from `start` (fewest transitions).
    pub layer: u32,
}

/// Source lines by file and line.
#[derive(Debug, Default)]
pub struct SourceLines {
    lines: HashMap<(String, u32), String>,
}

impl SourceLines {
    /// The text of `loc`'s line, trimmed, when the file could be read.
    pub fn line(&self, loc: &Loc) -> Option<&str> {
        self.lines
            .get(&(loc.file.clone(), loc.line))
            .map(String::as_str)
    }
}

/// Predicts `o` (with a histogram over classes) and gathers everything
/// the report draws.
pub fn pipeline_view(session: &mut Session, o: &PredictOptions) -> Result<PipelineView, Error> {
    let o = PredictOptions {
        histogram_bins: o.histogram_bins.max(1),
        ..o.clone()
    };
    let report = session
        .reports(&o)?
        .into_iter()
        .next()
        .ok_or_else(|| Error::input("no pipeline to report"))?;
    let program = session.load(&o)?.program.clone();
    let shown = crate::read::shown(&o.file);
    let pipe = report.pipeline.as_ref().map(|p| p.name.clone());
    let stages = stage_map(&o, &shown, &program, pipe.clone());
    let deps = dep_views(&o, &shown, &program, pipe.as_deref(), &stages)?;
    let parse = parse_view(&program, &report);
    let lines = source_lines(&report, &deps, &parse, &o);
    Ok(PipelineView {
        report,
        stages,
        deps,
        parse,
        lines,
    })
}

/// The compiler's placement, the estimate, or why neither.
fn stage_map(o: &PredictOptions, shown: &str, program: &Program, pipe: Option<String>) -> StageMap {
    if program.mau.is_none() {
        if let Err(e) = stages::not_tofino(shown, program) {
            return StageMap::Absent(e.to_string());
        }
    }
    let so = StagesOptions {
        file: o.file.clone(),
        source: o.source.clone(),
        model: None,
        model_file: None,
        pipe,
        clock_ghz: o.clock_ghz,
        deps: o.deps,
    };
    match stages::figures(&so, shown, program) {
        Ok((model, prediction, plan)) => StageMap::Placed(Box::new(Placed {
            model: model.name,
            exact: plan.is_none() && !prediction.estimated,
            prediction,
            plan,
        })),
        Err(Error::DoesNotFit { fit, .. }) => StageMap::DoesNotFit(fit),
        Err(e) => StageMap::Absent(e.to_string()),
    }
}

/// The dependency graph of each gress: the estimate's own graphs, else
/// graphs made here with the compiler's stages of each table.
fn dep_views(
    o: &PredictOptions,
    shown: &str,
    program: &Program,
    pipe: Option<&str>,
    map: &StageMap,
) -> Result<Vec<DepView>, Error> {
    if let StageMap::Placed(p) = map {
        if let Some(plan) = &p.plan {
            return Ok(plan
                .gresses
                .iter()
                .filter_map(|g| {
                    let graph = g.graph.as_ref()?;
                    let st: Vec<Option<(u32, u32)>> =
                        g.unit_stages.iter().copied().map(Some).collect();
                    Some(view_of(program, g.gress, graph, &st, g.chain_units.clone()))
                })
                .collect());
        }
    }
    let pipelines = program.analysed_pipelines();
    let Some(p) = pipelines
        .iter()
        .find(|p| Some(p.name.as_str()) == pipe)
        .or(pipelines.first())
    else {
        return Ok(Vec::new());
    };
    let limits = o.deps.limits();
    let mut out = Vec::new();
    for (gress, c) in p.gress_controls() {
        let graph = deps::dependency_graph(program, c, &limits).map_err(|e| {
            Error::input(format!(
                "{shown}: control `{}`: {e}",
                program.control(c).name
            ))
        })?;
        let st: Vec<Option<(u32, u32)>> = graph
            .units
            .iter()
            .map(|u| placed_stages(program, &u.kind))
            .collect();
        let chain = match map {
            StageMap::DoesNotFit(f) if f.control == program.control(c).name => {
                chain_by_names(&graph, &f.chain)
            }
            _ => graph.longest_match_chain.clone(),
        };
        out.push(view_of(program, gress, &graph, &st, chain));
    }
    Ok(out)
}

/// The compiler's stages of a table unit (none for other units, or when
/// the input has no placement).
fn placed_stages(program: &Program, kind: &UnitKind) -> Option<(u32, u32)> {
    let UnitKind::Table { table } = kind else {
        return None;
    };
    let s = program.table(*table).stages.iter().copied();
    let lo = s.clone().filter(|s| *s >= 0).min()?;
    let hi = s.filter(|s| *s >= 0).max()?;
    Some((u32::try_from(lo).ok()?, u32::try_from(hi).ok()?))
}

/// Units of `graph` named in `chain`, in order (each name's first unit at
/// or after the previous one).
fn chain_by_names(graph: &DepGraph, chain: &[String]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut from = 0;
    for name in chain {
        if let Some(i) = (from..graph.units.len()).find(|&i| &graph.units[i].name == name) {
            out.push(i);
            from = i;
        }
    }
    out
}

/// A graph with a layer per unit: its first stage when placed, else one
/// past the deepest match or action dependency before it (the same layer
/// as a control or reverse-read one).
fn view_of(
    program: &Program,
    gress: Gress,
    graph: &DepGraph,
    stages: &[Option<(u32, u32)>],
    chain: Vec<usize>,
) -> DepView {
    let n = graph.units.len();
    let mut incoming: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, e) in graph.edges.iter().enumerate() {
        if e.from < e.to && e.to < n {
            incoming[e.to].push(i);
        }
    }
    let mut layer = vec![0u32; n];
    for u in 0..n {
        layer[u] = match stages.get(u).copied().flatten() {
            Some((first, _)) => first,
            None => incoming[u]
                .iter()
                .map(|&i| {
                    let e = &graph.edges[i];
                    let step = u32::from(matches!(e.kind, DepKind::Match | DepKind::Action));
                    layer[e.from].saturating_add(step)
                })
                .max()
                .unwrap_or(0),
        };
    }
    DepView {
        gress,
        control: program.control(graph.control).name.clone(),
        layers_are_stages: stages.iter().any(Option::is_some),
        units: graph
            .units
            .iter()
            .enumerate()
            .map(|(i, u)| UnitView {
                name: u.name.clone(),
                kind: match u.kind {
                    UnitKind::Table { .. } => "table",
                    UnitKind::Gateway => "gateway",
                    UnitKind::Statements => "statements",
                },
                loc: Loc::new(program, u.span),
                layer: layer[i],
                stages: stages.get(i).copied().flatten(),
            })
            .collect(),
        edges: graph
            .edges
            .iter()
            .map(|e| EdgeView {
                from: e.from,
                to: e.to,
                kind: e.kind,
                field: e.field.clone(),
            })
            .collect(),
        chain,
    }
}

/// The reported ingress parser's graph, each state at its depth from
/// `start` (breadth first, so loops end).
fn parse_view(program: &Program, report: &Report) -> Option<ParseView> {
    let name = report.parser_in_program()?;
    let parser = program.parsers.iter().find(|p| p.name == name)?;
    let n = parser.states.len();
    let target = |t: &Target| match t {
        Target::State(s) => s.index(),
        Target::Accept => n,
        Target::Reject => n + 1,
    };
    let mut edges = Vec::new();
    for (i, st) in parser.states.iter().enumerate() {
        let mut to: Vec<usize> = match &st.transition {
            Transition::Direct { target: t } => vec![target(t)],
            Transition::Select { cases, .. } => cases.iter().map(|c| target(&c.target)).collect(),
        };
        to.sort_unstable();
        to.dedup();
        edges.extend(to.into_iter().map(|t| (i, t)));
    }
    let mut layer = vec![u32::MAX; n];
    let mut queue = std::collections::VecDeque::new();
    if let Some(l) = layer.get_mut(parser.start.index()) {
        *l = 0;
        queue.push_back(parser.start.index());
    }
    while let Some(s) = queue.pop_front() {
        for &(_, t) in edges.iter().filter(|e| e.0 == s) {
            if t < n && layer[t] == u32::MAX {
                layer[t] = layer[s] + 1;
                queue.push_back(t);
            }
        }
    }
    let terms: HashMap<(&str, u32), (f64, f64)> = report
        .state_terms
        .iter()
        .map(|t| ((t.name.as_str(), t.span.lo), (t.min_ns, t.max_ns)))
        .collect();
    let states: Vec<StateView> = parser
        .states
        .iter()
        .enumerate()
        .filter(|(i, _)| layer[*i] != u32::MAX)
        .map(|(i, st)| StateView {
            name: st.name.clone(),
            bytes: st.extracted_bits() / 8,
            term_ns: terms.get(&(st.name.as_str(), st.span.lo)).copied(),
            loc: Loc::new(program, st.span),
            layer: layer[i],
        })
        .collect();
    // Unreachable states are left out: renumber the edges.
    let mut index = vec![usize::MAX; n + 2];
    let mut k = 0;
    for (i, l) in layer.iter().enumerate() {
        if *l != u32::MAX {
            index[i] = k;
            k += 1;
        }
    }
    index[n] = k;
    index[n + 1] = k + 1;
    let edges = edges
        .into_iter()
        .filter(|(f, t)| index[*f] != usize::MAX && index[*t] != usize::MAX)
        .map(|(f, t)| (index[f], index[t]))
        .collect();
    let end_layer = states.iter().map(|s| s.layer + 1).max().unwrap_or(1);
    Some(ParseView {
        parser: parser.name.clone(),
        states,
        edges,
        end_layer,
    })
}

/// Every site's line: tables, states, units, warnings; each file read once.
fn source_lines(
    report: &Report,
    deps: &[DepView],
    parse: &Option<ParseView>,
    o: &PredictOptions,
) -> SourceLines {
    let mut locs: Vec<&Loc> = Vec::new();
    locs.extend(report.tables.iter().map(|t| &t.span));
    locs.extend(report.state_terms.iter().map(|t| &t.span));
    locs.extend(report.warnings.iter().filter_map(|w| w.span.as_ref()));
    locs.extend(report.path_warnings.iter().filter_map(|w| w.span.as_ref()));
    locs.extend(deps.iter().flat_map(|d| d.units.iter().map(|u| &u.loc)));
    locs.extend(parse.iter().flat_map(|p| p.states.iter().map(|s| &s.loc)));
    let mut texts: HashMap<String, Option<(Arc<str>, crate::text::LineIndex)>> = HashMap::new();
    let mut out = SourceLines::default();
    for loc in locs {
        let key = (loc.file.clone(), loc.line);
        if loc.line == 0 || out.lines.contains_key(&key) {
            continue;
        }
        let entry = texts.entry(loc.file.clone()).or_insert_with(|| {
            let t = crate::input::source_text(
                &loc.file,
                &p4cost_front::Disk,
                o.source.max_input_bytes,
            )?;
            let idx = crate::text::LineIndex::new(&t);
            Some((t, idx))
        });
        let Some((text, idx)) = entry else { continue };
        let Some(start) = idx.line_start(loc.line as usize - 1) else {
            continue;
        };
        let end = idx.line_end(start);
        if let Some(line) = text.get(start..end) {
            out.lines.insert(key, line.trim().to_string());
        }
    }
    out
}
