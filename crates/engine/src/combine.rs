//! `predict FILE --context CONTEXT.json`: one program from two inputs.
//!
//! The parse graph (files, header types, headers, parsers) comes from the
//! source program; the tables, actions, controls and MAU stage placement
//! from the compiler's context.json. The context's items are taken whole,
//! so their table, action, control and node ids stay valid; only their
//! spans move, because the context's files are appended after the
//! source's.

use std::collections::BTreeSet;

use p4cost_ir::{FileId, Gress, Pipeline, Program, Span};

use crate::input::LoadWarning;

/// The combined program and what the combination noticed.
pub struct Combined {
    /// Parse graph from the source, control and placement from the context.
    pub program: Program,
    /// `table_names_differ`, `arch_differs`, ...
    pub warnings: Vec<LoadWarning>,
}

/// Moves a span's file by `shift` files.
fn shift_span(s: &mut Span, shift: u32) {
    s.file = FileId(s.file.0.saturating_add(shift));
}

/// Shifts every span of the context's tables, actions and controls.
fn shift_context_spans(ctx: &mut Program, shift: u32) {
    for t in &mut ctx.tables {
        shift_span(&mut t.span, shift);
        for k in &mut t.keys {
            shift_span(&mut k.span, shift);
        }
        for a in &mut t.annotations {
            shift_span(&mut a.span, shift);
        }
    }
    for a in ctx.actions.iter_mut().map(std::sync::Arc::make_mut) {
        shift_span(&mut a.span, shift);
        for p in &mut a.primitives {
            shift_span(&mut p.span, shift);
        }
        for an in &mut a.annotations {
            shift_span(&mut an.span, shift);
        }
    }
    for c in &mut ctx.controls {
        shift_span(&mut c.span, shift);
        for n in &mut c.flow.nodes {
            shift_span(&mut n.span, shift);
        }
    }
}

/// The last component of a qualified name (`forward` of
/// `SwitchIngress.forward`).
fn last_component(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// Names of the tables the source's ingress control applies.
fn source_ingress_tables(source: &Program) -> Option<BTreeSet<String>> {
    control_table_names(source, source.ingress_control()?)
}

/// Last name components of the tables control `c` applies.
fn control_table_names(source: &Program, c: p4cost_ir::ControlId) -> Option<BTreeSet<String>> {
    Some(
        p4cost_analysis::control_tables(source, c)
            .into_iter()
            .filter_map(|t| source.tables.get(t.index()))
            .map(|t| last_component(&t.name).to_string())
            .collect(),
    )
}

/// Names of the context's ingress match tables the programmer wrote:
/// compiler-made tables (`tbl_*` for actions called outside a table,
/// `$`-named parser tables, `@hidden` ones) are left out.
fn context_ingress_tables(ctx: &Program) -> BTreeSet<String> {
    ctx.tables
        .iter()
        .filter(|t| {
            t.control
                .and_then(|c| ctx.controls.get(c.index()))
                .is_some_and(|c| c.gress == Gress::Ingress)
        })
        .filter(|t| !t.annotations.iter().any(|a| a.name == "hidden") && !t.is_compiler_internal())
        .map(|t| last_component(&t.name))
        .filter(|n| !n.starts_with("tbl_"))
        .map(str::to_string)
        .collect()
}

/// Compares the two ingress table lists; a warning when they disagree.
fn compare_tables(
    source: &Program,
    ctx: &Program,
    source_name: &str,
    ctx_name: &str,
) -> Option<LoadWarning> {
    let src = source_ingress_tables(source)?;
    let cx = context_ingress_tables(ctx);
    let only_src: Vec<&str> = src.difference(&cx).map(String::as_str).collect();
    let only_cx: Vec<&str> = cx.difference(&src).map(String::as_str).collect();
    if only_src.is_empty() && only_cx.is_empty() {
        return None;
    }
    let list = |v: &[&str]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(", ")
        }
    };
    Some(LoadWarning::new(
        "table_names_differ",
        format!(
            "ingress table names of {source_name} and {ctx_name} disagree (compared on the last \
             name component; compiler-made tables left out): only in the source: {}; only in \
             the context: {}. Was the context compiled from this source?",
            list(&only_src),
            list(&only_cx)
        ),
    ))
}

/// With several source pipelines, the one whose ingress tables are the
/// context's goes first (a context.json holds one pipe). Returns the note
/// saying which pipeline is used.
fn pick_source_pipeline(source: &mut Program, ctx: &Program, source_name: &str) -> Option<String> {
    if source.pipelines.len() < 2 {
        return None;
    }
    let names = source
        .pipelines
        .iter()
        .map(|p| p.name.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let want = context_ingress_tables(ctx);
    let matching: Vec<usize> = source
        .pipelines
        .iter()
        .enumerate()
        .filter(|(_, p)| {
            p.ingress
                .and_then(|c| control_table_names(source, c))
                .is_some_and(|t| t == want)
        })
        .map(|(i, _)| i)
        .collect();
    let why = match matching.as_slice() {
        [i] => {
            let p = source.pipelines.remove(*i);
            source.pipelines.insert(0, p);
            "its ingress tables are the context's"
        }
        _ => "the first one; no single pipeline's ingress tables are the context's",
    };
    Some(format!(
        "{source_name} binds {} pipelines ({names}): `{}` is used with the context ({why}; \
         choose another with --pipe NAME)",
        source.pipelines.len(),
        source.pipelines[0].name
    ))
}

/// Builds the program `predict FILE --context CONTEXT.json` analyses.
pub fn combine(
    mut source: Program,
    source_name: &str,
    mut ctx: Program,
    ctx_name: &str,
    bfrt_name: Option<&str>,
) -> Combined {
    let picked = pick_source_pipeline(&mut source, &ctx, source_name);
    let mut warnings = Vec::new();
    warnings.extend(compare_tables(&source, &ctx, source_name, ctx_name));
    if source.arch != ctx.arch
        && source.arch != p4cost_ir::Arch::Unknown
        && ctx.arch != p4cost_ir::Arch::Unknown
    {
        warnings.push(LoadWarning::new(
            "arch_differs",
            format!(
                "{source_name} is written for {:?}, {ctx_name} was compiled for {:?}",
                source.arch, ctx.arch
            ),
        ));
    }

    let shift = u32::try_from(source.files.len()).unwrap_or(u32::MAX);
    shift_context_spans(&mut ctx, shift);

    let ctx_pipe = ctx.pipelines.first().cloned().unwrap_or_default();
    let pipeline = Pipeline {
        name: source
            .pipelines
            .first()
            .map(|p| p.name.clone())
            .unwrap_or_else(|| ctx_pipe.name.clone()),
        ingress_parser: source.ingress_parser(),
        egress_parser: source.pipelines.first().and_then(|p| p.egress_parser),
        ingress: ctx_pipe.ingress,
        egress: ctx_pipe.egress,
        // The source's deparsers are controls of the source, which the
        // combined program does not keep.
        ingress_deparser: None,
        egress_deparser: None,
    };

    let mut notes = vec![format!(
        "parse graph (parsers, header types, headers) from {source_name}; tables, actions, \
         controls and MAU stage placement from {ctx_name}{}",
        bfrt_name
            .map(|b| format!(" (key widths and sizes completed from {b})"))
            .unwrap_or_default()
    )];
    notes.extend(picked);
    notes.extend(source.notes);
    notes.extend(ctx.notes);

    let mut files = source.files;
    files.extend(ctx.files);
    let program = Program {
        name: source.name,
        input: source.input,
        arch: source.arch,
        files,
        header_types: source.header_types,
        headers: source.headers,
        parsers: source.parsers,
        controls: ctx.controls,
        tables: ctx.tables,
        actions: ctx.actions,
        pipelines: vec![pipeline],
        main_package: source.main_package,
        deparsers: source.deparsers,
        externs: ctx.externs,
        mau: ctx.mau,
        notes,
    };
    Combined { program, warnings }
}

#[cfg(test)]
mod tests {
    use super::*;
    use p4cost_ir::{
        Control, ControlFlow, ControlId, ControlRole, InputKind, Node, NodeId, NodeKind, Parser,
        ParserId, StateId, Table, TableId, TableNext, Target, Transition,
    };

    fn table(name: &str, control: u32, file: u32) -> Table {
        Table {
            control: Some(ControlId(control)),
            stages: vec![1],
            ..Table::new(name, Span::file_start(FileId(file)))
        }
    }

    fn control(name: &str, gress: Gress, tables: &[u32], file: u32) -> Control {
        let n = tables.len();
        Control {
            name: name.into(),
            role: if gress == Gress::Ingress {
                ControlRole::Ingress
            } else {
                ControlRole::Egress
            },
            gress,
            flow: ControlFlow {
                entry: (n > 0).then_some(NodeId(0)),
                nodes: tables
                    .iter()
                    .enumerate()
                    .map(|(k, t)| Node {
                        kind: NodeKind::Table {
                            table: TableId(*t),
                            next: TableNext::Always {
                                next: (k + 1 < n).then(|| NodeId(k as u32 + 1)),
                            },
                        },
                        span: Span::file_start(FileId(file)),
                    })
                    .collect(),
            },
            span: Span::file_start(FileId(file)),
        }
    }

    fn source() -> Program {
        let mut p = Program::new("prog", InputKind::P4Source);
        p.add_file("prog.p4");
        p.add_file("<bundled>/tna.p4");
        p.parsers.push(Parser {
            name: "IgParser".into(),
            gress: Gress::Ingress,
            states: vec![p4cost_ir::ParseState {
                name: "start".into(),
                ops: vec![],
                transition: Transition::Direct {
                    target: Target::Accept,
                },
                annotations: vec![],
                span: Span::file_start(FileId(0)),
            }],
            start: StateId(0),
            span: Span::file_start(FileId(0)),
        });
        p.tables.push(table("forward", 0, 0));
        p.tables.push(table("acl", 0, 0));
        p.controls.push(control("Ig", Gress::Ingress, &[0, 1], 0));
        p.pipelines.push(Pipeline {
            name: "pipe".into(),
            ingress_parser: Some(ParserId(0)),
            ingress: Some(ControlId(0)),
            ..Pipeline::default()
        });
        p
    }

    fn context() -> Program {
        let mut p = Program::new("ctx", InputKind::TofinoContext);
        p.add_file("ctx.json");
        p.tables.push(table("Eg.count", 1, 0));
        p.tables.push(table("Ig.forward", 0, 0));
        p.tables.push(table("tbl_prog12", 0, 0));
        p.tables.push(table("Ig.route", 0, 0));
        p.controls
            .push(control("Ig", Gress::Ingress, &[1, 2, 3], 0));
        p.controls.push(control("Eg", Gress::Egress, &[0], 0));
        p.pipelines.push(Pipeline {
            name: "pipe".into(),
            ingress: Some(ControlId(0)),
            egress: Some(ControlId(1)),
            ..Pipeline::default()
        });
        p.notes.push("from the context".into());
        p
    }

    #[test]
    fn parse_graph_from_source_control_from_context() {
        let c = combine(source(), "prog.p4", context(), "ctx.json", None);
        let p = &c.program;
        assert_eq!(p.files.len(), 3);
        assert_eq!(p.file_path(FileId(2)), "ctx.json");
        assert_eq!(p.parsers[0].name, "IgParser");
        assert_eq!(p.ingress_parser(), Some(ParserId(0)));
        let ig = p.ingress_control().expect("ingress");
        assert_eq!(p.control(ig).name, "Ig");
        let names: Vec<&str> = p4cost_analysis::control_tables(p, ig)
            .into_iter()
            .map(|t| p.table(t).name.as_str())
            .collect();
        assert_eq!(names, vec!["Ig.forward", "tbl_prog12", "Ig.route"]);
        // Every context span now names the context's file.
        assert!(p.tables.iter().all(|t| t.span.file == FileId(2)));
        assert!(p.controls[0]
            .flow
            .nodes
            .iter()
            .all(|n| n.span.file == FileId(2)));
        assert!(p.notes[0].contains("parse graph (parsers, header types, headers) from prog.p4"));
        assert!(p.notes[0].contains("from ctx.json"));
        assert!(p.notes.iter().any(|n| n == "from the context"));
    }

    #[test]
    fn disagreeing_table_names_are_reported_once() {
        let c = combine(
            source(),
            "prog.p4",
            context(),
            "ctx.json",
            Some("bfrt.json"),
        );
        assert_eq!(c.warnings.len(), 1);
        let w = &c.warnings[0];
        assert_eq!(w.code, "table_names_differ");
        assert!(
            w.message.contains("only in the source: acl;"),
            "{}",
            w.message
        );
        assert!(
            w.message.contains("only in the context: route."),
            "{}",
            w.message
        );
        assert!(c.program.notes[0].contains("completed from bfrt.json"));
    }

    #[test]
    fn the_source_pipeline_matching_the_context_is_used() {
        let mut s = source();
        // A second pipeline whose ingress applies forward and route: the
        // context's tables (tbl_* left out).
        s.parsers.push(s.parsers[0].clone());
        s.parsers[1].name = "IgParser2".into();
        s.tables.push(table("route", 1, 0));
        s.tables.push(table("forward", 1, 0));
        s.controls.push(control("Ig2", Gress::Ingress, &[2, 3], 0));
        s.pipelines.push(Pipeline {
            name: "pipe_b".into(),
            ingress_parser: Some(ParserId(1)),
            ingress: Some(ControlId(1)),
            ..Pipeline::default()
        });
        let c = combine(s, "prog.p4", context(), "ctx.json", None);
        assert!(c.warnings.is_empty(), "tables agree with pipe_b");
        let p = &c.program;
        assert_eq!(p.pipelines.len(), 1);
        assert_eq!(p.pipelines[0].name, "pipe_b");
        assert_eq!(
            p.parser(p.ingress_parser().expect("parser")).name,
            "IgParser2"
        );
        assert!(p
            .notes
            .iter()
            .any(|n| n.contains("`pipe_b` is used with the context (its ingress tables")));

        // No pipeline matches: the first, said so.
        let mut s = source();
        s.pipelines.push(Pipeline {
            name: "pipe_b".into(),
            ..s.pipelines[0].clone()
        });
        let c = combine(s, "prog.p4", context(), "ctx.json", None);
        assert_eq!(c.program.pipelines[0].name, "pipe");
        assert!(c
            .program
            .notes
            .iter()
            .any(|n| n.contains("the first one; no single")));
    }

    #[test]
    fn matching_names_give_no_warning() {
        let mut s = source();
        s.tables[1].name = "route".into();
        let c = combine(s, "prog.p4", context(), "ctx.json", None);
        assert!(c.warnings.is_empty());
    }
}
