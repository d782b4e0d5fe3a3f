//! `p4cost deps`: the table dependency graph of every analysed pipeline's
//! ingress and egress controls (p4cost-analysis `deps`), rendered as a
//! readable list, JSON, or a graphviz DOT graph.

use std::fmt::Write as _;
use std::io::Write;

use p4cost_analysis::deps::{self, DepGraph, DepKind, UnitKind};
use p4cost_ir::{ControlId, Gress, Program};
use serde::Serialize;

use crate::args::{DepsArgs, DepsFormat};
use crate::exit::{CliError, Exit};
use p4cost_engine::input;

/// The dependency graph of one gress of one pipeline.
pub(crate) struct GressDeps {
    pub pipeline: String,
    pub gress: Gress,
    pub control: String,
    pub graph: DepGraph,
}

/// Dependency graphs of every analysed pipeline (or the one named), ingress
/// then egress; a control shared by several pipelines is analysed once.
pub(crate) fn graphs(
    program: &Program,
    pipe: Option<&str>,
    shown: &str,
    limits: &p4cost_analysis::DepLimits,
) -> Result<Vec<GressDeps>, CliError> {
    let pipelines = program.analysed_pipelines();
    let chosen: Vec<_> = match pipe {
        Some(name) => {
            let p: Vec<_> = pipelines.iter().filter(|p| p.name == name).collect();
            if p.is_empty() {
                return Err(p4cost_engine::predict::unknown_pipe(shown, name, program).into());
            }
            p
        }
        None => pipelines.iter().collect(),
    };
    let mut seen: Vec<ControlId> = Vec::new();
    let mut out = Vec::new();
    for p in chosen {
        for (gress, c) in p.gress_controls() {
            if seen.contains(&c) {
                continue;
            }
            seen.push(c);
            let graph = deps::dependency_graph(program, c, limits).map_err(|e| {
                CliError::input(format!(
                    "{shown}: control `{}`: {e}",
                    program.control(c).name
                ))
            })?;
            out.push(GressDeps {
                pipeline: p.name.clone(),
                gress,
                control: program.control(c).name.clone(),
                graph,
            });
        }
    }
    Ok(out)
}

pub fn run(a: &DepsArgs, out: &mut dyn Write) -> Result<Exit, CliError> {
    let shown = p4cost_engine::read::shown(&a.file);
    let loaded = input::load(&a.file, &a.source.options())?;
    let program = &loaded.program;
    let gs = graphs(
        program,
        a.pipe.as_deref(),
        &shown,
        &a.deps.options().limits(),
    )?;
    if gs.is_empty() {
        return Err(CliError::input(format!(
            "{shown}: no ingress or egress control found"
        )));
    }
    let text = match a.format {
        DepsFormat::Human => render_human(&shown, &gs),
        DepsFormat::Dot => render_dot(&shown, &gs),
        DepsFormat::Json => crate::json_out::to_pretty(&DepsReport::new(&shown, &gs))?,
    };
    out.write_all(text.as_bytes()).map_err(CliError::output)?;
    Ok(Exit::Ok)
}

fn kind_counts(g: &DepGraph) -> [usize; 4] {
    let mut c = [0; 4];
    for e in &g.edges {
        c[e.kind as usize] += 1;
    }
    c
}

fn unit_kind(k: &UnitKind) -> &'static str {
    match k {
        UnitKind::Table { .. } => "table",
        UnitKind::Gateway => "gateway",
        UnitKind::Statements => "statements",
    }
}

fn render_human(shown: &str, gs: &[GressDeps]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "program: {shown}");
    for g in gs {
        let graph = &g.graph;
        let count = |k: &str| {
            graph
                .units
                .iter()
                .filter(|u| unit_kind(&u.kind) == k)
                .count()
        };
        let [m, a, c, r] = kind_counts(graph);
        let _ = writeln!(
            s,
            "\n{} {} ({}): {} tables, {} gateways, {} statement runs; {} dependencies ({m} match, {a} action, {c} control, {r} reverse read)",
            g.pipeline,
            g.gress.name(),
            g.control,
            count("table"),
            count("gateway"),
            count("statements"),
            graph.edges.len(),
        );
        let chain: Vec<&str> = graph
            .longest_match_chain
            .iter()
            .filter_map(|&i| graph.units.get(i).map(|u| u.name.as_str()))
            .collect();
        let _ = writeln!(
            s,
            "longest chain of match dependencies: {} unit{}: {}",
            chain.len(),
            if chain.len() == 1 { "" } else { "s" },
            chain.join(" -> ")
        );
        if graph.edges.is_empty() {
            let _ = writeln!(s, "no dependencies");
            continue;
        }
        let name_w = graph
            .edges
            .iter()
            .map(|e| graph.units[e.from].name.chars().count())
            .max()
            .unwrap_or(0)
            .min(60);
        for e in &graph.edges {
            let _ = writeln!(
                s,
                "  {:<12} {:<name_w$} -> {}  ({})",
                e.kind.name(),
                graph.units[e.from].name,
                graph.units[e.to].name,
                e.field
            );
        }
    }
    s
}

/// DOT string literal.
fn dot_str(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn render_dot(shown: &str, gs: &[GressDeps]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "digraph {} {{", dot_str(&format!("p4cost deps {shown}")));
    let _ = writeln!(s, "  rankdir=LR;\n  node [fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];");
    for (gi, g) in gs.iter().enumerate() {
        let _ = writeln!(s, "  subgraph cluster_{gi} {{");
        let _ = writeln!(
            s,
            "    label={};",
            dot_str(&format!(
                "{} {} ({})",
                g.pipeline,
                g.gress.name(),
                g.control
            ))
        );
        for (i, u) in g.graph.units.iter().enumerate() {
            let shape = match u.kind {
                UnitKind::Table { .. } => "box",
                UnitKind::Gateway => "diamond",
                UnitKind::Statements => "ellipse",
            };
            let _ = writeln!(
                s,
                "    g{gi}_u{i} [label={}, shape={shape}];",
                dot_str(&u.name)
            );
        }
        for e in &g.graph.edges {
            let (color, style) = match e.kind {
                DepKind::Match => ("red", "solid"),
                DepKind::Action => ("blue", "solid"),
                DepKind::Control => ("gray40", "dashed"),
                DepKind::ReverseRead => ("darkgreen", "dotted"),
            };
            let _ = writeln!(
                s,
                "    g{gi}_u{} -> g{gi}_u{} [color={color}, style={style}, label={}];",
                e.from,
                e.to,
                dot_str(&format!("{}: {}", e.kind.name(), e.field))
            );
        }
        let _ = writeln!(s, "  }}");
    }
    let _ = writeln!(s, "}}");
    s
}

#[derive(Serialize, schemars::JsonSchema)]
pub struct DepsReport<'a> {
    schema_version: u32,
    p4cost_version: &'static str,
    program: &'a str,
    graphs: Vec<GressOut<'a>>,
}

#[derive(Serialize, schemars::JsonSchema)]
struct GressOut<'a> {
    pipeline: &'a str,
    gress: Gress,
    control: &'a str,
    units: Vec<UnitOut<'a>>,
    edges: Vec<EdgeOut<'a>>,
    longest_match_chain: Vec<&'a str>,
}

#[derive(Serialize, schemars::JsonSchema)]
struct UnitOut<'a> {
    name: &'a str,
    kind: &'static str,
    match_reads: &'a [String],
    action_reads: &'a [String],
    writes: &'a [String],
}

#[derive(Serialize, schemars::JsonSchema)]
struct EdgeOut<'a> {
    from: &'a str,
    to: &'a str,
    kind: DepKind,
    field: &'a str,
}

impl<'a> DepsReport<'a> {
    fn new(shown: &'a str, gs: &'a [GressDeps]) -> DepsReport<'a> {
        DepsReport {
            schema_version: p4cost_engine::report::SCHEMA_VERSION,
            p4cost_version: env!("CARGO_PKG_VERSION"),
            program: shown,
            graphs: gs
                .iter()
                .map(|g| {
                    let u = &g.graph.units;
                    GressOut {
                        pipeline: &g.pipeline,
                        gress: g.gress,
                        control: &g.control,
                        units: u
                            .iter()
                            .map(|x| UnitOut {
                                name: &x.name,
                                kind: unit_kind(&x.kind),
                                match_reads: &x.match_reads,
                                action_reads: &x.action_reads,
                                writes: &x.writes,
                            })
                            .collect(),
                        edges: g
                            .graph
                            .edges
                            .iter()
                            .map(|e| EdgeOut {
                                from: &u[e.from].name,
                                to: &u[e.to].name,
                                kind: e.kind,
                                field: &e.field,
                            })
                            .collect(),
                        longest_match_chain: g
                            .graph
                            .longest_match_chain
                            .iter()
                            .map(|&i| u[i].name.as_str())
                            .collect(),
                    }
                })
                .collect(),
        }
    }
}
