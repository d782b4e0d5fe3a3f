//! Predictions: the report of each pipeline of one program, what
//! `predict` prints and `check` judges.

use p4cost_analysis::{
    control_path_count, control_tables, match_headers, path_graph, BudgetExceeded, ParsePath,
    PathCount, PathOptions,
};
use p4cost_ir::{ControlId, Gress, ParserId, Pipeline, Program, TableId};
use p4cost_model::{mau_cycles, tofino_linear, ModelKind, ModelSpec, Prediction};

use crate::error::Error;

mod cpu;
pub use cpu::COMPOSITION as CPU_COMPOSITION;
mod extrapolates;
mod fitted;
mod listing_bytes;
mod no_parser;
mod passes;
mod per_class;
use crate::input::{self, LoadedInput};
use crate::options::{PredictOptions, SortBy};
use crate::path_stats::{Costed, PATH_CODES};
use crate::report::{
    self, ControlOut, MauOut, ModelRef, PathMatchOut, PipelineOut, Report, WarningOut,
};
use listing_bytes::ListingBytes;

/// Packet size used when `--packet-size` is not given: inside the training
/// range of the Tofino models, below the 10G non-linear region.
pub const DEFAULT_PACKET_SIZE: u32 = 512;

/// The smallest packet that exists: Ethernet's minimum frame (64 B,
/// FCS included; shorter frames are runts that a port drops).
pub const MIN_PACKET_SIZE: u32 = 64;

/// The largest packet p4cost accepts: 16 KiB, above the jumbo frames switch
/// ports carry (commonly 9216 B, at most about 10 KB on Tofino-class
/// ASICs). A larger value is a mistake, not a packet.
pub const MAX_PACKET_SIZE: u32 = 16384;

/// Refuses a packet size no packet can have (the training range is only
/// warned about, by the model).
fn check_packet_size(size: u32) -> Result<(), Error> {
    if size < MIN_PACKET_SIZE {
        return Err(Error::input(format!(
            "--packet-size {size}: no Ethernet packet is smaller than {MIN_PACKET_SIZE} B (the minimum frame); give {MIN_PACKET_SIZE}-{MAX_PACKET_SIZE}"
        )));
    }
    if size > MAX_PACKET_SIZE {
        return Err(Error::input(format!(
            "--packet-size {size}: above {MAX_PACKET_SIZE} B, larger than any jumbo frame a switch port carries; give {MIN_PACKET_SIZE}-{MAX_PACKET_SIZE}"
        )));
    }
    Ok(())
}

/// A path that extracts more header bytes than the packet holds cannot
/// happen at that packet size.
fn path_fits(path: &ParsePath, packet_size: u32) -> bool {
    p4cost_model::baseline::packet_header_bytes(path) <= u64::from(packet_size)
}

/// A user's model file, read within the input budget and checked as the
/// embedded ones are.
pub fn model_from_file(f: &std::path::Path, max: u64) -> Result<ModelSpec, Error> {
    let shown = crate::read::shown(f);
    let bytes = crate::read::read_input(f, max)?.bytes;
    let text = String::from_utf8(bytes)
        .map_err(|e| Error::input(format!("{shown}: not UTF-8 text: {e}")))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    p4cost_model::catalog::parse_model(&shown, text).map_err(|e| Error::input(e.to_string()))
}

/// Picks the model from `--model` (or `--model-file`) and `--port`, and
/// checks the flags that only some models take.
fn resolve_model(a: &PredictOptions) -> Result<ModelSpec, Error> {
    let name = match (&a.target.model, a.target.port_gbps) {
        (Some(m), _) => m.clone(),
        (None, Some(p)) => format!("tofino1-{p}g"),
        (None, None) => "tofino1-10g".to_string(),
    };
    let m = match &a.target.model_file {
        Some(f) => model_from_file(f, a.source.max_input_bytes)
            .map_err(|e| e.context("--model-file"))?
            // A file of several ports: --port picks its fit.
            .for_port(a.target.port_gbps)
            .map_err(|e| Error::input(format!("--model-file {}: {e}", crate::read::shown(f))))?,
        None => p4cost_model::model_by_name(&name).map_err(|e| Error::input(e.to_string()))?,
    };
    if let Some(p) = a.target.port_gbps {
        match m.port_gbps {
            Some(g) if g != p => {
                return Err(Error::input(format!(
                    "--port {}g contradicts --model {} (a {g}G model)",
                    p, m.name
                )))
            }
            Some(_) => {}
            None => {
                return Err(Error::input(format!(
                "--port does not apply to --model {}: its prediction does not depend on the port",
                m.name
            )))
            }
        }
    }
    if m.cpu().is_none() && (a.cores.is_some() || a.l3_mb.is_some()) {
        return Err(Error::input(format!(
            "--cores and --l3-mb apply only to CPU models (t4p4s); model {} does not run on a CPU",
            m.name
        )));
    }
    if let Some(f) = a.clock_ghz {
        if m.mau().is_none() && m.cpu().is_none() {
            return Err(Error::input(format!(
                "--clock-ghz applies only to MAU-cycle models (tofino1-mau-cycles, tofino1-mau-estimate, tofino2-mau-estimate) and CPU models (t4p4s); model {} predicts in ns directly",
                m.name
            )));
        }
        if !(f.is_finite() && f > 0.0) {
            return Err(Error::input("--clock-ghz must be a positive number"));
        }
    }
    Ok(m)
}

/// The paths of a graph that extract a given header sequence.
type MatchedPaths = p4cost_analysis::Product<p4cost_analysis::SeqPos>;

/// What both engines share for one pipeline: the loaded program and its
/// program-level warnings, the pipeline, its ingress parser, control and
/// tables.
struct Common<'a> {
    loaded: &'a LoadedInput,
    shown: String,
    warnings: Vec<WarningOut>,
    pipeline: Option<PipelineOut>,
    parser: Option<ParserId>,
    control: Option<ControlId>,
    /// The control packet classes walk: the ingress control joined to the
    /// egress control ([`p4cost_analysis::join_egress`]), or the ingress
    /// control alone when there is no egress to join.
    class_control: Option<ControlId>,
    /// What was joined, when egress was.
    egress: Option<p4cost_analysis::EgressJoin>,
    /// The pipeline's ingress and egress controls (the MAU estimate
    /// places both).
    gress_controls: Vec<(p4cost_ir::Gress, ControlId)>,
    tables: Vec<TableId>,
}

/// The error for a `--pipe` name the program does not bind.
pub fn unknown_pipe(shown: &str, name: &str, program: &Program) -> Error {
    let names: Vec<String> = program
        .analysed_pipelines()
        .into_iter()
        .map(|p| p.name)
        .collect();
    Error::input(format!(
        "{shown}: no pipeline named `{name}`; the program's pipelines: {}",
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    ))
}

/// Most distinct pipelines `predict` reports without `--pipe` (each report
/// lists every pipeline name, so output grows with the square).
pub const MAX_REPORTED_PIPELINES: usize = 16;

/// The pipeline groups to report: the one holding `--pipe NAME`, else
/// every group (pipelines with the same ingress parser and control share
/// one). A program that binds nothing gives one empty group.
pub(crate) fn selected_groups(
    a: &PredictOptions,
    program: &Program,
) -> Result<Vec<Vec<Pipeline>>, Error> {
    let groups = program.ingress_pipeline_groups();
    let Some(name) = &a.pipe else {
        if groups.len() > MAX_REPORTED_PIPELINES {
            return Err(Error::input(format!(
                "{}: the program binds {} distinct pipelines, more than the {MAX_REPORTED_PIPELINES} \
                 predict reports at once (a Tofino has at most 4 pipes): choose one with --pipe NAME",
                a.file.display(),
                groups.len()
            )));
        }
        return Ok(if groups.is_empty() {
            vec![Vec::new()]
        } else {
            groups
        });
    };
    groups
        .into_iter()
        .find_map(|g| {
            let i = g.iter().position(|p| &p.name == name)?;
            let mut g = g;
            // The asked-for name leads its group.
            let p = g.remove(i);
            g.insert(0, p);
            Some(vec![g])
        })
        .ok_or_else(|| unknown_pipe(&a.file.display().to_string(), name, program))
}

impl<'a> Common<'a> {
    fn new(
        a: &PredictOptions,
        loaded: &'a LoadedInput,
        group: &[Pipeline],
        joined: Option<(ControlId, p4cost_analysis::EgressJoin)>,
    ) -> Result<Common<'a>, Error> {
        let program = &loaded.program;
        let mut warnings: Vec<WarningOut> = loaded
            .warnings
            .iter()
            .map(|w| WarningOut::new(w.code.clone(), w.message.clone()))
            .collect();
        for n in &program.notes {
            warnings.push(WarningOut::new("reader_note", n.clone()));
        }
        let control = group.first().and_then(|p| p.ingress);
        let gress_controls = group
            .first()
            .map(|p| p.gress_controls())
            .unwrap_or_default();
        let parser = group.first().and_then(|p| p.ingress_parser);
        let pipeline = group.first().map(|p| PipelineOut {
            name: p.name.clone(),
            identical: group[1..].iter().map(|q| q.name.clone()).collect(),
            all: program
                .analysed_pipelines()
                .into_iter()
                .map(|q| q.name)
                .collect(),
        });
        let all_tables = control
            .map(|c| control_tables(program, c))
            .unwrap_or_default();
        // Tables the compiler made for itself (bf-p4c's parser table
        // `$PORT_METADATA`) are not the program's: leave them out.
        let all_tables = skip_tables(
            program,
            all_tables,
            |t| t.is_compiler_internal(),
            "compiler_tables_skipped",
            "compiler-internal table(s) (a `$` in the name, which no P4 program can declare)",
            &mut warnings,
        );
        // The compilers turn each direct action call of an apply block into
        // a keyless one-action table (`tbl_*`). The source has no such
        // table, and the model's tables are match tables: leave them out,
        // so a program costs the same from source and from compiler output.
        let tables = skip_tables(
            program,
            all_tables,
            |t| t.is_action_call(),
            "action_call_tables_skipped",
            "compiler-made action-call table(s)",
            &mut warnings,
        );
        if control.is_none() {
            warnings.push(WarningOut::new(
                "no_ingress_control",
                "no ingress control found: the control term is zero",
            ));
        }
        Ok(Common {
            shown: crate::read::shown(&a.file),
            loaded,
            warnings,
            pipeline,
            parser,
            control,
            class_control: joined.as_ref().map(|(c, _)| *c).or(control),
            egress: joined.map(|(_, j)| j),
            gress_controls,
            tables,
        })
    }

    fn program(&self) -> &Program {
        &self.loaded.program
    }

    /// Parse-graph warnings go first, after the loader's own.
    fn add_parse_warnings(&mut self, all: &[String]) {
        insert_parse_warnings(&mut self.warnings, self.loaded.warnings.len(), all);
    }

    /// The error for a `--path` no path matches, with what the parser
    /// has instead ([`unmatched_detail`]).
    fn no_path(&self, pg: &p4cost_analysis::PathGraph<'_>, want: &[String], limit: usize) -> Error {
        let pipe = match &self.pipeline {
            Some(p) if p.all.len() > 1 => format!(
                " (pipeline `{}`; choose a pipeline with --pipe NAME)",
                p.name
            ),
            _ => String::new(),
        };
        let detail = match p4cost_analysis::explain_unmatched(pg, want, limit) {
            Ok(u) => unmatched_detail(&u, want),
            Err(_) => String::new(),
        };
        Error::NoPath(format!(
            "{}: no parse path of `{}`{pipe} extracts exactly {} (program headers in order; a leading Ethernet header may be left out){detail}",
            self.shown,
            pg.parser_name(),
            want.join(",")
        ))
    }

    /// The graph nodes of path `i` (from 0), or the error naming how many
    /// paths there are.
    fn nth_path(&self, pg: &p4cost_analysis::PathGraph<'_>, i: u128) -> Result<Vec<u32>, Error> {
        pg.nth(i).ok_or_else(|| {
            Error::input(format!(
                "{}: no parse path at index {i} of {} paths",
                self.shown,
                report::count_text(pg.total())
            ))
        })
    }

    /// The paths extracting exactly `want` (the product of the graph with
    /// the header sequence), the graph nodes of the first, and whether a
    /// leading Ethernet header was left out to match; the error of
    /// [`Common::no_path`] when none does.
    fn first_match(
        &self,
        pg: &p4cost_analysis::PathGraph<'_>,
        want: &[String],
        max_states: usize,
    ) -> Result<(MatchedPaths, Vec<u32>, bool), Error> {
        let (mp, skipped_ethernet) = match_headers(pg, want, max_states)
            .map_err(|e| self.budget(e))?
            .ok_or_else(|| self.no_path(pg, want, max_states))?;
        let first = mp
            .first()
            .ok_or_else(|| self.no_path(pg, want, max_states))?;
        let nodes = mp.graph_nodes(&first);
        Ok((mp, nodes, skipped_ethernet))
    }

    /// The error for a parser past the analysis budget.
    /// The ingress parser: per-path models need the parse graph.
    fn need_parser(&self) -> Result<ParserId, Error> {
        self.parser.ok_or_else(|| {
        let pipe = self
            .pipeline
            .as_ref()
            .filter(|p| p.all.len() > 1)
            .map(|p| p.name.as_str());
        Error::input(format!(
            "{}: no ingress parser found: p4cost predicts per parse path and needs the parse graph ({})",
            self.shown,
            no_parser::reason(self.program(), pipe)
        ))
    })
    }

    fn budget(&self, e: BudgetExceeded) -> Error {
        Error::input(format!("{}: {e}", self.shown))
    }

    /// The path options of `a`'s budgets.
    fn path_options(a: &PredictOptions) -> PathOptions {
        PathOptions {
            max_paths: a.max_paths,
            max_analysis_states: a.max_analysis_states,
            ..PathOptions::default()
        }
    }

    /// The parse graph of `parser` under `opts`, with the warnings made
    /// while building it.
    fn parse_graph(
        &self,
        parser: ParserId,
        opts: &PathOptions,
    ) -> Result<(p4cost_analysis::PathGraph<'a>, Vec<String>), Error> {
        let program: &'a Program = &self.loaded.program;
        let mut warnings = Vec::new();
        let pg = path_graph(program, program.parser(parser), opts, &mut warnings)
            .map_err(|e| self.budget(e))?;
        Ok((pg, warnings))
    }

    fn report(&self, a: &PredictOptions, model: &ModelSpec, packet_size: u32) -> Report {
        let program = self.program();
        let enum_name = |v: serde_json::Result<serde_json::Value>| {
            v.ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default()
        };
        Report {
            schema_version: report::SCHEMA_VERSION,
            p4cost_version: env!("CARGO_PKG_VERSION").to_string(),
            program: self.shown.clone(),
            context: a.context.as_ref().map(|c| c.display().to_string()),
            bfrt: a.bfrt.as_ref().map(|b| b.display().to_string()),
            input: enum_name(serde_json::to_value(program.input)),
            type_checked: program.input != p4cost_ir::InputKind::P4Source,
            arch: enum_name(serde_json::to_value(program.arch)),
            model: ModelRef {
                name: model.name.clone(),
                title: model.title.clone(),
                citation: model.source.citation.clone(),
                spec: model.source.spec.clone(),
            },
            port_gbps: model.port_gbps,
            packet_size,
            packet_size_is_default: a.target.packet_size.is_none(),
            pipeline: self.pipeline.clone(),
            parser: self
                .parser
                .map(|_| program.arch.parser_slot(Gress::Ingress).to_string()),
            parser_declared: self
                .parser
                .map(|p| program.parser(p).name.clone())
                .filter(|n| n != program.arch.parser_slot(Gress::Ingress)),
            path_count: 0,
            path_count_text: "0".to_string(),
            path_count_saturated: false,
            paths_listed: 0,
            max_paths: a.max_paths,
            path_selector: a.path.clone(),
            path_match: None,
            listing: if a.path.is_some() {
                "selected"
            } else if a.top.is_some() {
                "top"
            } else {
                "first"
            }
            .to_string(),
            sort: match a.sort {
                SortBy::Order => "order",
                SortBy::Latency => "latency",
            }
            .to_string(),
            summary: None,
            left_out: None,
            classes: None,
            rejects: None,
            control: ControlOut {
                name: self.control.map(|c| program.control(c).name.clone()),
                tables: self
                    .tables
                    .iter()
                    .map(|t| program.table(*t).name.clone())
                    .collect(),
                control_paths: self
                    .control
                    .map(|c| report::CountOut::of(control_path_count(program, c))),
                path_sensitive: false,
                note: String::new(),
                egress: None,
            },
            tables: Vec::new(),
            decisions: Vec::new(),
            skipped: Vec::new(),
            paths: Vec::new(),
            output_cut: None,
            mau: None,
            cpu: None,
            recirc: None,
            figure: crate::pass_out::FigureOut::of(model),
            warnings: Vec::new(),
            path_warnings: Vec::new(),
            allowed: Vec::new(),
            denied: Vec::new(),
            state_terms: Vec::new(),
        }
    }
}

/// `tables` without those `skip` picks; a warning `code` names them
/// (`what`, then their names) when there are any.
fn skip_tables(
    program: &Program,
    tables: Vec<TableId>,
    skip: impl Fn(&p4cost_ir::Table) -> bool,
    code: &str,
    what: &str,
    warnings: &mut Vec<WarningOut>,
) -> Vec<TableId> {
    let (skipped, kept): (Vec<TableId>, Vec<TableId>) =
        tables.into_iter().partition(|t| skip(program.table(*t)));
    if !skipped.is_empty() {
        let names: Vec<&str> = skipped
            .iter()
            .map(|t| program.table(*t).name.as_str())
            .collect();
        warnings.push(WarningOut::new(
            code,
            format!(
                "{} {what} not counted as match tables: {}",
                skipped.len(),
                names.join(", ")
            ),
        ));
    }
    kept
}

/// Parse-graph warnings go first, right after the loader's own
/// `loader_warnings` ones.
fn insert_parse_warnings(warns: &mut Vec<WarningOut>, loader_warnings: usize, all: &[String]) {
    let at = loader_warnings.min(warns.len());
    for (k, w) in all.iter().enumerate() {
        warns.insert(at + k, WarningOut::new("parse_graph", w.clone()));
    }
}

/// The report of each selected pipeline of `a.file`: what `predict`
/// prints and `check` judges (one computation for both).
pub fn reports(a: &PredictOptions) -> Result<Vec<Report>, Error> {
    reports_and_input(a).map(|(reports, _)| reports)
}

/// [`reports`] and the input they were computed from, handed to the
/// caller to drop when it wants: a process about to exit leaves it to the
/// exit (freeing the program of switch_p4_16 one allocation at a time
/// took 5 M instructions, 2 % of `predict`).
pub fn reports_and_input(a: &PredictOptions) -> Result<(Vec<Report>, LoadedInput), Error> {
    let (model, packet_size) = settle(a)?;
    let mut loaded = input::load_for_predict(a)?;
    set_entries(&mut loaded.program, &a.entries)?;
    let reports = reports_in(a, model, packet_size, &mut loaded)?;
    Ok((reports, loaded))
}

/// The model and packet size of `a`, checked against each other and the
/// other options before anything is read.
pub fn settle(a: &PredictOptions) -> Result<(ModelSpec, u32), Error> {
    let model = resolve_model(a)?;
    let packet_size = a
        .target
        .packet_size
        .or_else(|| model.reference_packet_size())
        .unwrap_or(DEFAULT_PACKET_SIZE);
    check_packet_size(packet_size)?;
    if a.class.is_some()
        && !matches!(
            model.kind,
            ModelKind::TofinoIngressLinear
                | ModelKind::CpuTables
                | ModelKind::NfpRecirc
                | ModelKind::Bmv2Coarse
        )
    {
        return Err(Error::input(format!(
            "--class: model {} charges every packet the whole pipeline (every stage), so its figure is the same for every class; use a linear model (tofino1-10g, tofino1-100g)",
            model.name
        )));
    }
    Ok((model, packet_size))
}

/// [`reports`] of an input already loaded with `a`'s load options, with
/// what [`settle`] gave (a [`crate::session::Session`] keeps the input
/// between calls).
pub fn reports_of(
    a: &PredictOptions,
    model: ModelSpec,
    packet_size: u32,
    mut loaded: LoadedInput,
) -> Result<Vec<Report>, Error> {
    set_entries(&mut loaded.program, &a.entries)?;
    reports_in(a, model, packet_size, &mut loaded)
}

/// [`reports_of`] of an input borrowed (a [`crate::session::Session`]'s,
/// not copied for each question), its `--entries` already set or none
/// asked for. The controls the analysis adds (each ingress joined to its
/// egress) are taken off again, so `loaded` is left as it was.
pub(crate) fn reports_in(
    a: &PredictOptions,
    model: ModelSpec,
    packet_size: u32,
    loaded: &mut LoadedInput,
) -> Result<Vec<Report>, Error> {
    let controls = loaded.program.controls.len();
    let reports = reports_joined(a, model, packet_size, loaded);
    loaded.program.controls.truncate(controls);
    reports
}

/// The body of [`reports_in`]: it adds the joined controls to `loaded`.
fn reports_joined(
    a: &PredictOptions,
    model: ModelSpec,
    packet_size: u32,
    loaded: &mut LoadedInput,
) -> Result<Vec<Report>, Error> {
    let (model, chosen) = model_for_input(a, model, &loaded.program)?;
    let groups = selected_groups(a, &loaded.program)?;
    // Each group's ingress control joined to its egress control: the
    // control its packet classes walk, added to the program so the class
    // analysis can name it like any other.
    let mut joined = Vec::with_capacity(groups.len());
    for group in &groups {
        // Only the linear models walk classes; the MAU models cost the
        // whole pipeline.
        let j = group
            .first()
            .filter(|_| {
                matches!(
                    model.kind,
                    ModelKind::TofinoIngressLinear
                        | ModelKind::CpuTables
                        | ModelKind::NfpRecirc
                        | ModelKind::Bmv2Coarse
                )
            })
            .and_then(|p| p4cost_analysis::join_egress(&loaded.program, p));
        joined.push(j.map(|(control, join)| {
            loaded.program.controls.push(control);
            (ControlId((loaded.program.controls.len() - 1) as u32), join)
        }));
    }
    let mut reports = Vec::new();
    for (group, joined) in groups.iter().zip(joined) {
        a.cancel.check()?;
        let mut common = Common::new(a, loaded, group, joined)?;
        if let Some(w) = target_mismatch(&model, common.program().arch) {
            common.warnings.insert(0, w);
        }
        if let Some(w) = &chosen {
            common.warnings.insert(0, w.clone());
        }
        let mut r = match model.kind {
            ModelKind::TofinoIngressLinear => run_linear(a, &model, packet_size, common)?,
            ModelKind::TofinoMauCycles | ModelKind::TofinoMauEstimate => {
                run_mau(a, &model, packet_size, common)?
            }
            ModelKind::Plp | ModelKind::Component => {
                fitted::run_fitted(a, &model, packet_size, common)?
            }
            ModelKind::CpuTables => cpu::run_cpu(a, &model, packet_size, common)?,
            ModelKind::NfpRecirc | ModelKind::Bmv2Coarse => {
                passes::run_passes(a, &model, packet_size, common)?
            }
        };
        extrapolates::check(&mut r, &model);
        r.warnings.extend(crate::portability::lints(
            &loaded.program,
            group.first(),
            &a.lints,
            packet_size,
        ));
        reports.push(r);
    }
    for r in &mut reports {
        a.warnings.apply(r);
    }
    Ok(reports)
}

/// The model for the loaded input when none was asked for (no model,
/// model file or port): a context.json alone has no parse graph, only the
/// compiler's stage placement, so its figure is the compiler's MAU cycles
/// (`tofino1-mau-cycles`), said in a `model_for_input` note; anything else
/// keeps `model`.
fn model_for_input(
    a: &PredictOptions,
    model: ModelSpec,
    program: &Program,
) -> Result<(ModelSpec, Option<WarningOut>), Error> {
    // `--class` asks for per-class figures: the linear model's, whose
    // error then says what the input lacks.
    let asked = a.target.model.is_some()
        || a.target.model_file.is_some()
        || a.target.port_gbps.is_some()
        || a.class.is_some();
    if asked || !program.parsers.is_empty() || program.mau.is_none() {
        return Ok((model, None));
    }
    let mau = p4cost_model::model_by_name(crate::stages::PLACED_MODEL)
        .map_err(|e| Error::input(e.to_string()))?;
    let note = WarningOut::new(
        "model_for_input",
        format!(
            "the input has no parse graph, only the compiler's stage placement: predicted with \
             {} (the MAU latency of every packet) in place of {}; give the P4 source with \
             --context for a figure per parse path and packet class",
            mau.name, model.name
        ),
    );
    Ok((mau, Some(note)))
}

/// Sets the expected entries of the tables `entries` names (each name must
/// name at least one table: a misspelt name is an error, not a no-op).
fn set_entries(program: &mut Program, entries: &[crate::options::Entries]) -> Result<(), Error> {
    for e in entries {
        let (name, n) = (&e.table, &e.entries);
        let suffix = format!(".{name}");
        let mut found = false;
        for t in &mut program.tables {
            if t.name == *name || t.name.ends_with(&suffix) {
                found = true;
                t.annotations.retain(|a| a.name != "p4cost_entries");
                t.annotations.push(p4cost_ir::Annotation {
                    name: "p4cost_entries".to_string(),
                    body: n.to_string(),
                    span: t.span,
                });
                t.size = Some(*n);
            }
        }
        if !found {
            let at = e
                .origin
                .as_ref()
                .map_or_else(|| format!("--entries {name}={n}: "), |o| format!("{o}: "));
            return Err(Error::input(format!(
                "{at}entries: {} has no table named `{name}` (give a qualified name or its last components)",
                program.name
            )));
        }
    }
    Ok(())
}

/// A warning when a model is applied to a program written for another
/// target: another architecture (v1model for BMv2, PSA, PNA, eBPF, uBPF,
/// XDP) or another Tofino generation (a `t2na` program under a Tofino 1
/// model). The numbers then describe how the program's structure would cost
/// on the model's target, not on the program's. An `unknown` architecture
/// is warned about too: nothing says the program runs on the model's target.
pub fn target_mismatch(model: &ModelSpec, arch: p4cost_ir::Arch) -> Option<WarningOut> {
    let why = match model_generation(model) {
        Some(model_gen) => generation_mismatch(model_gen, arch)?,
        None if model.architectures.is_empty() || model.architectures.contains(&arch) => {
            return None
        }
        None => {
            let runs: Vec<&str> = model.architectures.iter().map(|a| a.name()).collect();
            format!(
                "{}; {} runs {}",
                written_for(arch),
                model.target,
                runs.join(", ")
            )
        }
    };
    Some(WarningOut::new("target_mismatch", format!(
            "model {} is for {} but {why}: the prediction is what its parse graph and tables would cost on {}",
            model.name, model.target, model.target
        )))
}

/// A Tofino model's chip generation: its target is named
/// `tofino<generation>`.
fn model_generation(model: &ModelSpec) -> Option<u8> {
    model
        .target
        .strip_prefix("tofino")
        .and_then(|g| g.parse().ok())
}

/// Why a program of `arch` does not suit a model of Tofino `model_gen`
/// (`None`: it does).
fn generation_mismatch(model_gen: u8, arch: p4cost_ir::Arch) -> Option<String> {
    match arch.tofino_generation() {
        Some(g) if g == model_gen => None,
        Some(g) => Some(format!(
            "the program is written for {} (Tofino {g}); the model was measured on Tofino {model_gen}, whose parser and MAU timings differ",
            arch.name()
        )),
        None => Some(written_for(arch)),
    }
}

/// "the program is written for ARCH", or that its architecture was not
/// recognised.
fn written_for(arch: p4cost_ir::Arch) -> String {
    if arch == p4cost_ir::Arch::Unknown {
        "the program's architecture was not recognised (no known architecture include)".to_string()
    } else {
        format!("the program is written for {}", arch.name())
    }
}

/// The linear model: one prediction per parse path.
fn run_linear(
    a: &PredictOptions,
    model: &ModelSpec,
    packet_size: u32,
    mut common: Common<'_>,
) -> Result<Report, Error> {
    let parser = common.need_parser()?;
    let lin = model.linear().ok_or_else(|| {
        Error::input(format!(
            "model {} is not a complete linear model",
            model.name
        ))
    })?;
    let filter = class_filter(a, &common)?;
    let opts = Common::path_options(a);
    let mut warns = std::mem::take(&mut common.warnings);
    let program = common.program();
    let (pg, graph_warnings) = common.parse_graph(parser, &opts)?;
    a.cancel.check()?;
    let costed = Costed::new(&pg, &lin, packet_size, opts.max_analysis_states)
        .map_err(|e| common.budget(e))?;
    a.cancel.check()?;

    // The paths to show, each with its index in the full listing. The
    // matching paths' latency differs where their parse terms do.
    let state_ns = |sp: &p4cost_model::baseline::StateSplit| {
        if sp.counted {
            lin.parser.per_header_byte_ns * sp.counted_bytes as f64 + lin.parser.per_state_ns
        } else {
            0.0
        }
    };
    let (shown, path_match) = shown_paths(
        a,
        &common,
        &pg,
        packet_size,
        (&costed.prod, &costed.ns),
        &[&state_ns],
        &mut warns,
    )?;

    // Per listed path: its prediction. Path-independent warnings go to the
    // program's list once; path-dependent ones are aggregated over all
    // paths below.
    insert_parse_warnings(&mut warns, common.loaded.warnings.len(), &graph_warnings);
    let pricer = LinearPricer::new(model, program, &common.tables, packet_size);
    // L_B + L_C: the prediction of a path with no state.
    let constant = pricer.predict(&ParsePath { states: Vec::new() });
    for w in &constant.warnings {
        if !PATH_CODES.contains(&w.code.as_str()) {
            warns.push(WarningOut::of_model(program, w));
        }
    }
    // In graph order, the paths past the output budget (their bytes
    // without classes already over it) are not built at all.
    let byte_budget = match a.sort {
        SortBy::Order => a.max_listing_bytes,
        SortBy::Latency => None,
    };
    let each = a.full_listing;
    let (mut listed, fitting, bare) =
        list_paths(&pg, &shown, packet_size, (byte_budget, each), &pricer);

    let mut r = common.report(a, model, packet_size);
    if let Some(keep) = bare.kept() {
        r.output_cut = Some(bare.cut_note(keep, fitting));
        listed.truncate(keep);
    }
    linear_head(&mut r, (a, program), (&pg, &costed, &lin), &constant);
    r.paths_listed = listed.outs.len();
    r.path_match = path_match;
    a.cancel.check()?;
    let stage = LinearClasses {
        a,
        model,
        common: &common,
        filter: filter.as_ref(),
        byte_budget,
        packet_size,
    };
    let report = stage.finish((&costed, &lin, &constant), listed, r, warns);
    // The class lister, the path costs and the pricer of switch_p4_16.p4:
    // 0.8 M instructions to free.
    crate::drop_later::leave(a.leave_to_exit, (costed, pricer, constant));
    Ok(report)
}

/// What the classes and the end of a linear report need besides the
/// listing: the options, the model, the program and the output bounds.
struct LinearClasses<'x, 'p> {
    a: &'x PredictOptions,
    model: &'x ModelSpec,
    common: &'x Common<'p>,
    filter: Option<&'x p4cost_analysis::ClassFilter>,
    byte_budget: Option<u64>,
    packet_size: u32,
}

impl LinearClasses<'_, '_> {
    /// Prices the listed paths' classes (when the program has a control
    /// classes walk), then sorts the paths, gives the warnings over all
    /// paths and the control's note, and puts the listing in the report.
    fn finish(
        &self,
        (costed, lin, constant): (
            &Costed<'_, '_>,
            &p4cost_model::spec::LinearTerms<'_>,
            &Prediction,
        ),
        mut listed: Listed<'_>,
        mut r: Report,
        mut warns: Vec<WarningOut>,
    ) -> Report {
        let (a, common, packet_size) = (self.a, self.common, self.packet_size);
        let program = common.program();
        // Packet classes: a class pays only the tables its control path
        // applies (the table terms of the prediction, by table; the egress
        // tables it walks through weigh nothing, as the model measures
        // ingress).
        let per_class = match common.class_control {
            Some(control) => {
                let table_ns = table_weights(program, &common.tables, constant);
                let stage = ClassStage {
                    a,
                    common,
                    control,
                    table_ns: &table_ns,
                    filter: self.filter,
                    byte_budget: self.byte_budget,
                    packet_size,
                };
                stage.price(
                    costed,
                    lin,
                    constant.breakdown.base_ns,
                    &mut listed,
                    &mut r,
                    &mut warns,
                )
            }
            None => false,
        };
        // The summary over paths only where none over classes took its
        // place (made here, not before the classes: it is seldom shown).
        if !a.listed_only && r.summary.is_none() {
            // L_B + L_C: the prediction of a path with no state, its
            // parser term left out.
            let constant_ns = constant.latency_ns - constant.breakdown.parser_ns;
            r.summary = Some(costed.summary(lin, constant_ns));
        }
        if a.sort == SortBy::Latency {
            sort_by_latency(&mut listed.outs, &mut listed.codes);
        }
        if !a.listed_only {
            r.path_warnings = costed.warnings(program, lin, packet_size, &listed.codes);
        }
        if let (true, Some(j)) = (per_class, &common.egress) {
            r.control.egress = Some(egress_out(program, j));
        }
        r.control.path_sensitive = per_class;
        r.control.note = control_note(self.model, per_class);
        r.paths = listed.outs;
        r.warnings = warns;
        r
    }
}

/// The linear model's prediction of a parse path, the tables' terms
/// made once (they do not depend on the path).
struct LinearPricer<'a> {
    model: &'a ModelSpec,
    program: &'a Program,
    tables: &'a [TableId],
    packet_size: u32,
    control: Option<tofino_linear::ControlTerms>,
    /// The control's table terms as the report shows them, made once:
    /// every listed path shares them.
    shared_tables: Option<report::SharedTables>,
    /// The control's warning codes as paths list them, made once: a known
    /// code is a `'static` string, not a copy per path (172 codes a path
    /// of switch_p4_16).
    control_codes: Vec<std::borrow::Cow<'static, str>>,
    /// The path-dependent codes ([`PATH_CODES`]) among the control's
    /// warnings, found once.
    control_path_codes: Vec<String>,
}

impl<'a> LinearPricer<'a> {
    fn new(
        model: &'a ModelSpec,
        program: &'a Program,
        tables: &'a [TableId],
        packet_size: u32,
    ) -> Self {
        let empty = ParsePath { states: Vec::new() };
        let control = tofino_linear::control_terms_of(
            model,
            &tofino_linear::Inputs {
                program,
                path: &empty,
                tables,
                packet_size,
            },
        );
        let shared_tables = control
            .as_ref()
            .map(|c| report::table_outs(program, c.tables.clone()));
        let control_codes = control.as_ref().map_or_else(Vec::new, |c| {
            c.warnings
                .iter()
                .map(|w| crate::warnings::known_code(&w.code))
                .collect()
        });
        let control_path_codes = control
            .as_ref()
            .map_or_else(Vec::new, |c| path_codes(c.warnings.iter().map(|w| &w.code)));
        LinearPricer {
            model,
            program,
            tables,
            packet_size,
            control,
            shared_tables,
            control_codes,
            control_path_codes,
        }
    }

    fn predict(&self, path: &ParsePath) -> Prediction {
        let inp = tofino_linear::Inputs {
            program: self.program,
            path,
            tables: self.tables,
            packet_size: self.packet_size,
        };
        match &self.control {
            Some(ctl) => tofino_linear::predict_with_control(self.model, &inp, ctl),
            None => tofino_linear::predict(self.model, &inp),
        }
    }

    /// Path `path` as the listing shows it (`index`: its place in the full
    /// listing), with its path-dependent warning codes. The same as
    /// [`report::path_out`] of [`Self::predict`], but the control term's
    /// warnings, the same on every path, are not copied per path (only
    /// their codes are), and its table terms are shared, not copied.
    fn path_out(&self, index: PathCount, path: &ParsePath) -> (report::PathOut, Vec<String>) {
        let Some(ctl) = &self.control else {
            let pred = self.predict(path);
            let codes = path_codes(pred.warnings.iter().map(|w| &w.code));
            return (report::path_out(self.program, index, path, pred), codes);
        };
        let inp = tofino_linear::Inputs {
            program: self.program,
            path,
            tables: self.tables,
            packet_size: self.packet_size,
        };
        let (pred, at) = tofino_linear::predict_sharing_control(self.model, &inp, ctl);
        let Some((at, tables)) = at.zip(self.shared_tables.clone()) else {
            // Not linear after all: the prediction has its own tables and
            // none of the control's warnings.
            let codes = path_codes(pred.warnings.iter().map(|w| &w.code));
            return (report::path_out(self.program, index, path, pred), codes);
        };
        let at = at.min(pred.warnings.len());
        let mut codes = path_codes(pred.warnings[..at].iter().map(|w| &w.code));
        codes.extend(self.control_path_codes.iter().cloned());
        codes.extend(path_codes(pred.warnings[at..].iter().map(|w| &w.code)));
        let mut out = report::path_out_sharing(self.program, index, path, pred, tables);
        // The control's codes where they stand, the list sized once.
        let own = std::mem::take(&mut out.warnings);
        let mut all = Vec::with_capacity(own.len() + self.control_codes.len());
        let mut own = own.into_iter();
        all.extend(own.by_ref().take(at));
        all.extend(self.control_codes.iter().cloned());
        all.extend(own);
        out.warnings = all;
        (out, codes)
    }
}

/// The path-dependent codes ([`PATH_CODES`]) among `codes`, in order.
fn path_codes<'c>(codes: impl Iterator<Item = &'c String>) -> Vec<String> {
    codes
        .filter(|c| PATH_CODES.contains(&c.as_str()))
        .cloned()
        .collect()
}

/// The linear report's figures over all paths: the path count, the paths
/// left out, and unless only the listed paths are asked for, the state
/// terms and the rejects (the summary is [`LinearClasses::finish`]'s).
fn linear_head(
    r: &mut Report,
    (a, program): (&PredictOptions, &Program),
    (pg, costed, lin): (
        &p4cost_analysis::PathGraph<'_>,
        &Costed<'_, '_>,
        &p4cost_model::spec::LinearTerms<'_>,
    ),
    constant: &Prediction,
) {
    let total = pg.total();
    r.set_path_count(total);
    r.left_out = costed.left_out.clone();
    if !a.listed_only {
        r.state_terms = costed.state_terms(program);
        r.rejects = Some(crate::path_stats::rejects(
            pg,
            lin,
            constant.breakdown.base_ns,
        ));
    }
}

/// The listed paths with their product nodes and path-dependent warning
/// codes, index for index.
struct Listed<'g> {
    outs: Vec<report::PathOut>,
    nodes: Vec<&'g [u32]>,
    codes: Vec<Vec<String>>,
}

impl Listed<'_> {
    /// Keeps the first `keep` paths.
    fn truncate(&mut self, keep: usize) {
        self.outs.truncate(keep);
        self.nodes.truncate(keep);
        self.codes.truncate(keep);
    }
}

/// Predicts each shown path that fits the packet (the others are no
/// packet at this size: the graph-wide `packet_smaller_than_headers`
/// warning counts them all), until the paths' bytes without classes go
/// over `byte_budget` (or, unless `each`, after the first). Also returns
/// how many fit and the budget's count.
fn list_paths<'g>(
    pg: &p4cost_analysis::PathGraph<'_>,
    shown: &'g [ListedPath],
    packet_size: u32,
    (byte_budget, each): (Option<u64>, bool),
    pricer: &LinearPricer<'_>,
) -> (Listed<'g>, usize, ListingBytes) {
    let mut listed = Listed {
        outs: Vec::with_capacity(shown.len()),
        nodes: Vec::with_capacity(shown.len()),
        codes: Vec::with_capacity(shown.len()),
    };
    let mut bare = ListingBytes::new(byte_budget);
    let mut fitting = 0;
    for (index, nodes) in shown {
        let path = pg.path(nodes);
        if !path_fits(&path, packet_size) {
            continue;
        }
        fitting += 1;
        if bare.full() || (!each && !listed.outs.is_empty()) {
            continue;
        }
        let (mut out, codes) = pricer.path_out(*index, &path);
        listed.codes.push(codes);
        bare.add(&mut out);
        listed.outs.push(out);
        listed.nodes.push(nodes);
    }
    (listed, fitting, bare)
}

/// Each table's term in the prediction, by table id (0 for a table the
/// model does not price).
fn table_weights(program: &Program, tables: &[TableId], constant: &Prediction) -> Vec<f64> {
    let mut table_ns = vec![0.0; program.tables.len()];
    for (t, term) in tables.iter().zip(&constant.breakdown.tables) {
        if let Some(w) = table_ns.get_mut(t.index()) {
            *w = term.ns;
        }
    }
    table_ns
}

/// The packet-class stage of a linear prediction: one control, its table
/// terms as weights.
struct ClassStage<'x, 'p> {
    a: &'x PredictOptions,
    common: &'x Common<'p>,
    control: ControlId,
    table_ns: &'x [f64],
    filter: Option<&'x p4cost_analysis::ClassFilter>,
    byte_budget: Option<u64>,
    /// The packet size the parse terms were made for (part of the memo key).
    packet_size: u32,
}

impl ClassStage<'_, '_> {
    /// Prices the classes: the summary over all of them (unless only the
    /// listing is wanted), each listed path's fastest and slowest class,
    /// and its classes listed. True when the listed paths' figures are
    /// per class.
    fn price(
        &self,
        costed: &Costed<'_, '_>,
        lin: &p4cost_model::spec::LinearTerms<'_>,
        base_ns: f64,
        listed: &mut Listed<'_>,
        r: &mut Report,
        warns: &mut Vec<WarningOut>,
    ) -> bool {
        // Each listed path's parse terms: its prediction without its
        // control term.
        let parse_ns: Vec<f64> = listed
            .outs
            .iter()
            .map(|p| p.latency_ns - p.breakdown.control_ns)
            .collect();
        let key = self.memo_key(costed, lin, base_ns, listed);
        if let Some(e) = key.as_deref().and_then(|k| self.a.class_memo.get(k)) {
            r.classes = Some(e.classes);
            r.summary = Some(e.summary);
            set_extremes(listed, &parse_ns, &e.extremes);
            if self.a.path_classes {
                let lister = self.lister(self.walk());
                self.list_or_warn(lister, (costed.pg, &parse_ns, &[]), listed, r, warns);
            }
            return true;
        }
        // One walk of the control, with the table terms as weights: the
        // summary over classes fills its memo, each listed path reads it.
        // The listing walks the same control with the same weights: its
        // extremes are the summary's, its slowest class the one a path's
        // maximum stands for. (A walk a failed summary stopped in is made
        // afresh.)
        let (cc, classes_known) = self.summarize(costed, lin, base_ns, r, warns);
        let cc = if classes_known { cc } else { self.walk() };
        let mut lister = self.lister(cc);
        let mut per_class = false;
        // The listed paths' signatures, when their extremes worked them out.
        let mut sigs = Vec::new();
        if let (true, Ok(lister)) = (classes_known, &mut lister) {
            if let Some(e) = path_extremes(lister, costed.pg, listed, &parse_ns, warns) {
                per_class = true;
                sigs = e.sigs;
                self.remember(key, e.extremes, r);
            }
        }
        self.list_or_warn(lister, (costed.pg, &parse_ns, &sigs), listed, r, warns);
        per_class
    }

    /// The control walked with the table terms as weights.
    fn walk(&self) -> Result<p4cost_analysis::ControlClasses<'_>, p4cost_analysis::ClassError> {
        p4cost_analysis::ControlClasses::new(
            self.common.program(),
            self.control,
            self.table_ns,
            p4cost_analysis::ClassBudget::default().max_control_states,
        )
    }

    /// The lister of the classes of walk `cc` (egress nodes told apart
    /// when the control joins both gresses).
    fn lister<'w>(
        &'w self,
        cc: Result<p4cost_analysis::ControlClasses<'w>, p4cost_analysis::ClassError>,
    ) -> Result<p4cost_analysis::ClassLister<'w>, p4cost_analysis::ClassError> {
        let budget = p4cost_analysis::ClassBudget::default();
        cc.and_then(|cc| {
            p4cost_analysis::ClassLister::with_classes(
                self.common.program(),
                self.control,
                cc,
                &budget,
            )
        })
        .map(|l| match &self.common.egress {
            Some(j) => l.with_egress_from(j.ingress_nodes),
            None => l,
        })
    }

    /// Walks the control and, unless only the listing is wanted, sets the
    /// report's classes and summary over them. Gives the walk and whether
    /// the classes are known (false, with a warning, when the summary
    /// failed).
    fn summarize(
        &self,
        costed: &Costed<'_, '_>,
        lin: &p4cost_model::spec::LinearTerms<'_>,
        base_ns: f64,
        r: &mut Report,
        warns: &mut Vec<WarningOut>,
    ) -> (
        Result<p4cost_analysis::ControlClasses<'_>, p4cost_analysis::ClassError>,
        bool,
    ) {
        let mut cc = self.walk();
        let summary = cc.as_mut().map_err(|e| e.to_string()).and_then(|cc| {
            if self.a.listed_only {
                return Ok(None);
            }
            let (program, bins) = (self.common.program(), self.a.histogram_bins);
            costed
                .classes(program, cc, lin, self.table_ns, base_ns, bins)
                .map(Some)
        });
        let known = match summary {
            Ok(Some((c, sum))) => {
                r.classes = Some(c);
                r.summary = Some(sum);
                true
            }
            Ok(None) => true,
            Err(e) => {
                warns.push(WarningOut::new(
                    "classes_not_computed",
                    format!("packet classes not computed: {e}"),
                ));
                false
            }
        };
        (cc, known)
    }

    /// Keeps the report's classes and summary and the listed paths'
    /// `extremes` in the class memo under `key` (when there is one).
    fn remember(&self, key: Option<Vec<u8>>, extremes: Vec<(f64, f64)>, r: &Report) {
        if let (Some(k), Some(classes), Some(summary)) = (key, &r.classes, &r.summary) {
            let entry = crate::class_memo::Entry {
                classes: classes.clone(),
                summary: summary.clone(),
                extremes,
            };
            self.a.class_memo.put(k, entry);
        }
    }

    /// Lists every listed path's classes (with --class, those it selects)
    /// when they are asked for, or warns that `lister` could not be made.
    fn list_or_warn(
        &self,
        lister: Result<p4cost_analysis::ClassLister<'_>, p4cost_analysis::ClassError>,
        paths: (&p4cost_analysis::PathGraph<'_>, &[f64], &[u64]),
        listed: &mut Listed<'_>,
        r: &mut Report,
        warns: &mut Vec<WarningOut>,
    ) {
        match lister {
            Ok(_) if !self.a.path_classes => {}
            Ok(mut lister) => {
                self.list_classes(&mut lister, paths, listed, r, warns);
                crate::drop_later::leave(self.a.leave_to_exit, lister);
            }
            Err(e) => warns.push(WarningOut::new(
                "classes_not_listed",
                format!("classes of the listed paths not listed: {e}"),
            )),
        }
    }

    /// The key of this stage's results in the options' class memo: every
    /// input of the summary and of the listed paths' extremes as bytes,
    /// the program's spans left out; `None` when the memo is off or only
    /// the listing is wanted.
    fn memo_key(
        &self,
        costed: &Costed<'_, '_>,
        lin: &p4cost_model::spec::LinearTerms<'_>,
        base_ns: f64,
        listed: &Listed<'_>,
    ) -> Option<Vec<u8>> {
        let a = self.a;
        if !a.class_memo.is_on() || a.listed_only {
            return None;
        }
        let mut h = crate::class_memo::shape::Shape::with_capacity(a.class_memo.key_len());
        h.add(self.common.program());
        h.add(&self.control.0);
        h.add(self.table_ns);
        h.add(&base_ns);
        h.add(&self.packet_size);
        h.add(&costed.ns);
        h.add(&listed.nodes);
        h.add(&format!("{lin:?}"));
        // The options, but for the memo and the cancel flag (neither
        // changes an answer).
        let o = PredictOptions {
            cancel: Default::default(),
            class_memo: Default::default(),
            ..a.clone()
        };
        h.add(&format!("{o:?}"));
        Some(h.finish())
    }

    /// Lists each listed path's classes (`parse_ns`: each one's parse
    /// terms; `sigs`: each one's signature, when worked out already); in
    /// graph order the listing stops at the output budget (sorted by
    /// latency, every path is needed to sort).
    fn list_classes(
        &self,
        lister: &mut p4cost_analysis::ClassLister<'_>,
        (pg, parse_ns, sigs): (&p4cost_analysis::PathGraph<'_>, &[f64], &[u64]),
        listed: &mut Listed<'_>,
        r: &mut Report,
        warns: &mut Vec<WarningOut>,
    ) {
        let a = self.a;
        let program = self.common.program();
        let mut listing = ListingBytes::new(self.byte_budget);
        let ingress_nodes = self.common.egress.as_ref().map(|j| j.ingress_nodes);
        let (table_index, class_tables) =
            crate::path_classes::class_tables(program, self.control, ingress_nodes, self.table_ns);
        r.tables = class_tables;
        let cx = crate::path_classes::ClassContext {
            program,
            control: self.control,
            ingress_nodes,
            table_ns: self.table_ns,
            table_index: &table_index,
            max: crate::path_classes::max_classes(a),
            filter: self.filter.zip(a.class.as_deref()),
        };
        let mut sites = crate::path_classes::ClassSites::default();
        let count = listed.nodes.len();
        for (i, ((p, nodes), parse)) in listed
            .outs
            .iter_mut()
            .zip(&listed.nodes)
            .zip(parse_ns)
            .enumerate()
        {
            if listing.full() {
                break;
            }
            let (decisions_from, skipped_from) = (sites.decisions.len(), sites.skipped.len());
            let path = crate::path_classes::PathIn {
                nodes,
                sig: sigs.get(i).copied(),
                number: p.number,
                parse_ns: *parse,
            };
            match crate::path_classes::path_classes(lister, &cx, &mut sites, pg, path) {
                Ok(pc) => {
                    p.classes = Some(pc);
                    // The report-level entries it added count with it.
                    listing.add_entries(sites.decisions.get(decisions_from..));
                    listing.add_entries(sites.skipped.get(skipped_from..));
                    listing.add(p);
                }
                Err(e) => {
                    warns.push(WarningOut::new(
                        "classes_not_listed",
                        format!("classes listed for {i} of the {count} listed paths: {e}"),
                    ));
                    break;
                }
            }
        }
        r.decisions = sites.decisions;
        r.skipped = sites.skipped;
        if let Some(keep) = listing.kept() {
            let before = r
                .output_cut
                .as_ref()
                .map_or(listed.outs.len(), |c| c.paths_before);
            r.output_cut = Some(listing.cut_note(keep, before));
            listed.truncate(keep);
            r.paths_listed = keep;
        }
    }
}

/// The listed paths' control extremes (least and greatest summed table
/// weight) and signatures, path by path.
struct PathExtremes {
    extremes: Vec<(f64, f64)>,
    sigs: Vec<u64>,
}

/// Sets each listed path's min and max to its fastest and slowest class
/// (its parse terms plus the control's extremes for its signature), and
/// gives those extremes and the paths' signatures. `None`, with a
/// warning, when the control walk is over its budget.
fn path_extremes(
    lister: &mut p4cost_analysis::ClassLister<'_>,
    pg: &p4cost_analysis::PathGraph<'_>,
    listed: &mut Listed<'_>,
    parse_ns: &[f64],
    warns: &mut Vec<WarningOut>,
) -> Option<PathExtremes> {
    let cc = lister.control_classes();
    let sigs = p4cost_analysis::path_signatures(pg, cc.tested(), listed.nodes.iter().copied());
    let per_path = sigs
        .iter()
        .map(|&sig| cc.eval(sig).map(|e| (e.min, e.max)))
        .collect::<Result<Vec<_>, _>>();
    match per_path {
        Ok(extremes) => {
            set_extremes(listed, parse_ns, &extremes);
            Some(PathExtremes { extremes, sigs })
        }
        Err(e) => {
            warns.push(WarningOut::new(
                "classes_not_computed",
                format!("the listed paths' classes not computed: {e}"),
            ));
            None
        }
    }
}

/// Each listed path's figures from its parse terms and its control's
/// fastest and slowest class weight.
fn set_extremes(listed: &mut Listed<'_>, parse_ns: &[f64], extremes: &[(f64, f64)]) {
    for ((p, parse), (lo, hi)) in listed.outs.iter_mut().zip(parse_ns).zip(extremes) {
        p.latency_ns = parse + hi;
        p.min_latency_ns = parse + lo;
        p.breakdown.control_ns = *hi;
    }
}

/// The egress control a class walks after ingress (not charged).
fn egress_out(program: &Program, j: &p4cost_analysis::EgressJoin) -> report::EgressOut {
    let control = program.control(j.control);
    report::EgressOut {
        name: control.name.clone(),
        // Match tables, as for ingress: compiler-made ones left out.
        tables: control
            .flow
            .tables()
            .iter()
            .map(|t| program.table(*t))
            .filter(|t| !t.is_compiler_made())
            .map(|t| t.name.clone())
            .collect(),
        control_paths: report::CountOut::of(control_path_count(program, j.control)),
        parser: j
            .parser
            .as_ref()
            .map(|_| program.arch.parser_slot(Gress::Egress).to_string()),
        parser_declared: j
            .parser
            .clone()
            .filter(|n| n != program.arch.parser_slot(Gress::Egress)),
        invalid_at_start: j.invalid.clone(),
        unknown_at_start: j.unknown.clone(),
        charged: false,
    }
}

/// What the control figures mean with this model.
fn control_note(model: &ModelSpec, per_class: bool) -> String {
    match (model.control.is_some(), per_class) {
        (false, _) => format!("model {} has no control term", model.name),
        (true, true) => "a packet class pays the tables its control path applies; a path's min and max are its fastest and slowest class".to_string(),
        (true, false) => "every table the ingress control applies counts on every path: packet classes were not computed".to_string(),
    }
}

/// A listed path: its index in the full listing and its graph nodes.
type ListedPath = (PathCount, Vec<u32>);

/// The paths `predict` lists, each with its index in the full listing,
/// and with `--path` what matched: the first matching path (an error when
/// its headers exceed the packet); with `--top k` the k slowest by `top`'s
/// additive weights over its product; else the first paths of that
/// product (those that fit the packet) in listing order. The matching
/// paths' latency differs when any of `differs` (each a weight of a parse
/// state as the baseline rule splits it) has different extremes over them.
/// A `listing_capped` warning joins `warns` when the state budget cut the
/// listing short.
#[allow(clippy::too_many_arguments)]
fn shown_paths<S: Copy + Eq + std::hash::Hash>(
    a: &PredictOptions,
    common: &Common<'_>,
    pg: &p4cost_analysis::PathGraph<'_>,
    packet_size: u32,
    top: (&p4cost_analysis::Product<S>, &[f64]),
    differs: &[&dyn Fn(&p4cost_model::baseline::StateSplit) -> f64],
    warns: &mut Vec<WarningOut>,
) -> Result<(Vec<ListedPath>, Option<PathMatchOut>), Error> {
    let mut path_match = None;
    if let Some(i) = a.path_index {
        let nodes = common.nth_path(pg, i)?;
        let at = PathCount::exact(i);
        return Ok((vec![(at, nodes)], None));
    }
    let shown: Vec<ListedPath> = match (&a.path, a.top) {
        (Some(want), _) => {
            let (listed, m) = matched_path(a, common, pg, want, packet_size, differs)?;
            path_match = Some(m);
            vec![listed]
        }
        (None, Some(k)) => top
            .0
            .top(top.1, k, a.max_listed_states)
            .into_iter()
            .map(|(_, p)| {
                let nodes = top.0.graph_nodes(&p);
                (pg.index_of(&nodes), nodes)
            })
            .collect(),
        // The first paths that fit the packet: those that do not are no
        // packet at this size and spend none of the listing's budget.
        (None, None) => top
            .0
            .list_within(a.max_paths, a.max_listed_states)
            .into_iter()
            .map(|p| {
                let nodes = top.0.graph_nodes(&p);
                (pg.index_of(&nodes), nodes)
            })
            .collect(),
    };
    let reachable = match &a.path {
        Some(_) => pg.total(),
        None => top.0.total(),
    };
    warn_if_capped(a, reachable, shown.len(), warns);
    Ok((shown, path_match))
}

/// The first path `want` matches (an error when its headers exceed the
/// packet), and what matched: how many paths, and whether their latency
/// (any of `differs`, see [`shown_paths`]) or header bytes differ.
fn matched_path(
    a: &PredictOptions,
    common: &Common<'_>,
    pg: &p4cost_analysis::PathGraph<'_>,
    want: &[String],
    packet_size: u32,
    differs: &[&dyn Fn(&p4cost_model::baseline::StateSplit) -> f64],
) -> Result<(ListedPath, PathMatchOut), Error> {
    let (mp, nodes, skipped_ethernet) = common.first_match(pg, want, a.max_analysis_states)?;
    let p = pg.path(&nodes);
    if !path_fits(&p, packet_size) {
        let need = p4cost_model::baseline::packet_header_bytes(&p);
        let remedy = if need <= u64::from(MAX_PACKET_SIZE) {
            format!("give --packet-size {need} or more")
        } else {
            format!("it fits in no packet: {MAX_PACKET_SIZE} B is the largest --packet-size")
        };
        return Err(Error::input(format!(
            "{}: the path {} extracts {need} B of headers, more than the {packet_size} B packet: no such packet exists; {remedy}",
            common.shown,
            p.header_chain(),
        )));
    }
    // Do the matching paths differ? Compare their extremes.
    let mut weights = vec![Vec::with_capacity(mp.nodes.len()); differs.len()];
    let mut bits = Vec::with_capacity(mp.nodes.len());
    for n in &mp.nodes {
        let st = pg.visit(n.node);
        let mut seen = n.before.seen_first;
        let sp = p4cost_model::baseline::split_state(&mut seen, &st);
        for (w, f) in weights.iter_mut().zip(differs) {
            w.push(f(&sp));
        }
        bits.push(st.extracted_bits as f64);
    }
    let differ = |w: &[f64]| match (mp.extreme(w, false), mp.extreme(w, true)) {
        (Some(lo), Some(hi)) => (hi.value - lo.value).abs() > 1e-9,
        _ => false,
    };
    let m = PathMatchOut {
        matching: report::CountOut::of(mp.total()),
        skipped_ethernet,
        latency_differs: weights.iter().any(|w| differ(w)),
        bytes_differ: differ(&bits),
    };
    Ok(((pg.index_of(&nodes), nodes), m))
}

/// A `listing_capped` warning when `shown` paths are fewer than asked
/// for (`--path` 1, `--top k`, else `--max-paths`, at most the
/// `reachable` ones): the state budget cut the listing short.
fn warn_if_capped(
    a: &PredictOptions,
    reachable: PathCount,
    shown: usize,
    warns: &mut Vec<WarningOut>,
) {
    let asked = match (&a.path, a.top) {
        (Some(_), _) => 1,
        (None, Some(k)) => k,
        (None, None) => a.max_paths,
    };
    let wanted = if reachable.saturated {
        asked
    } else {
        asked.min(usize::try_from(reachable.value).unwrap_or(usize::MAX))
    };
    if shown < wanted {
        warns.push(WarningOut::new("listing_capped", format!(
                "listed {shown} of the {wanted} paths asked for: the listed paths reached --max-listed-states {} parse states in all",
                a.max_listed_states
            )));
    }
}

/// Sorts listed paths (and their warning codes alike) by decreasing
/// latency; stable, so equal latencies keep graph order.
fn sort_by_latency(path_outs: &mut Vec<report::PathOut>, codes: &mut Vec<Vec<String>>) {
    let mut order: Vec<usize> = (0..path_outs.len()).collect();
    order.sort_by(|&x, &y| path_outs[y].latency_ns.total_cmp(&path_outs[x].latency_ns));
    let mut outs: Vec<Option<report::PathOut>> =
        std::mem::take(path_outs).into_iter().map(Some).collect();
    *path_outs = order.iter().filter_map(|&i| outs[i].take()).collect();
    *codes = order
        .iter()
        .map(|&i| std::mem::take(&mut codes[i]))
        .collect();
}

/// The `--class` filter, checked against the tables of the control classes
/// walk (ingress, then egress).
fn class_filter(
    a: &PredictOptions,
    common: &Common<'_>,
) -> Result<Option<p4cost_analysis::ClassFilter>, Error> {
    let Some(spec) = &a.class else {
        return Ok(None);
    };
    let f = p4cost_analysis::ClassFilter::parse(spec).map_err(Error::input)?;
    let program = common.program();
    let Some(control) = common.class_control else {
        return Err(Error::input(format!(
            "{}: --class selects classes by their control path, and no ingress control was found",
            common.shown
        )));
    };
    let unknown = f.unknown_tables(program, control);
    if !unknown.is_empty() {
        let applied: Vec<String> = program
            .control(control)
            .flow
            .tables()
            .iter()
            .map(|t| program.table(*t).name.clone())
            .collect();
        return Err(Error::input(format!(
            "--class: {} names no table that {} applies; its tables: {}",
            unknown
                .iter()
                .map(|u| format!("`{u}`"))
                .collect::<Vec<_>>()
                .join(", "),
            program.control(control).name,
            if applied.is_empty() {
                "none".to_string()
            } else {
                applied.join(", ")
            }
        )));
    }
    Ok(Some(f))
}

/// The MAU-cycle model: one path-independent figure per gress. `paths`
/// holds one entry with no states (its `headers` are those of `--path`
/// when given, else empty); `path_count` counts the parse paths of the
/// source when there is one, else 0.
fn run_mau(
    a: &PredictOptions,
    model: &ModelSpec,
    packet_size: u32,
    mut common: Common<'_>,
) -> Result<Report, Error> {
    let (count, shown_index, shown_path) = mau_path(a, &mut common)?;
    let mut warns = std::mem::take(&mut common.warnings);
    let program = common.program();
    let mp = mau_prediction(a, model, &common)?;
    let pred = mp.ingress_prediction(program, &common.tables);
    let path_out = report::path_out(program, shown_index, &shown_path, pred);

    if a.target.packet_size.is_some() {
        warns.push(WarningOut::new(
            "packet_size_ignored",
            format!(
                "model {} does not depend on the packet size: --packet-size has no effect",
                model.name
            ),
        ));
    }
    for w in &mp.warnings {
        warns.push(WarningOut::of_model(program, w));
    }

    let gress = |g| mp.gress(g).cloned();
    let mut r = common.report(a, model, packet_size);
    r.set_path_count(count);
    r.paths_listed = 1;
    r.control.note = format!(
        "placed by the compiler; model {} costs MAU stages, not tables: see the stages",
        model.name
    );
    r.paths = vec![path_out];
    r.mau = Some(MauOut {
        clock_ghz: mp.clock_ghz,
        clock_is_default: mp.clock_is_default,
        estimated: mp.estimated,
        ingress: gress(p4cost_ir::Gress::Ingress),
        egress: gress(Gress::Egress),
        ghost: gress(p4cost_ir::Gress::Ghost),
    });
    r.warnings = warns;
    Ok(r)
}

/// The MAU latency is path-independent: the parse paths counted, none
/// listed; with `--path` the first matching path and its index (an
/// error without a parse graph). Parse warnings join `common`'s.
fn mau_path(
    a: &PredictOptions,
    common: &mut Common<'_>,
) -> Result<(PathCount, PathCount, ParsePath), Error> {
    let opts = PathOptions {
        max_paths: 0,
        max_analysis_states: a.max_analysis_states,
        ..PathOptions::default()
    };
    let mut count = PathCount::default();
    let mut shown_path = ParsePath { states: Vec::new() };
    let mut shown_index = PathCount::default();
    match (common.parser, &a.path) {
        (Some(p), want) => {
            let program = common.program();
            let mut pw = Vec::new();
            let pg = path_graph(program, program.parser(p), &opts, &mut pw)
                .map_err(|e| common.budget(e))?;
            count = pg.total();
            if let Some(want) = want {
                let states = opts.max_analysis_states;
                let (mp, _) = match_headers(&pg, want, states)
                    .map_err(|e| common.budget(e))?
                    .ok_or_else(|| common.no_path(&pg, want, states))?;
                let first = mp.first().ok_or_else(|| common.no_path(&pg, want, states))?;
                let nodes = mp.graph_nodes(&first);
                shown_index = pg.index_of(&nodes);
                shown_path = pg.path(&nodes);
            }
            drop(pg);
            common.add_parse_warnings(&pw);
        }
        (None, Some(_)) => {
            return Err(Error::input(format!(
                "{}: --path needs a parse graph and this input has none (give the P4 source with --context)",
                common.shown
            )))
        }
        (None, None) => {}
    }
    Ok((count, shown_index, shown_path))
}

/// The MAU model's prediction: estimated from the program's
/// dependencies and resources, or the compiler's placement priced.
fn mau_prediction(
    a: &PredictOptions,
    model: &ModelSpec,
    common: &Common<'_>,
) -> Result<mau_cycles::MauPrediction, Error> {
    let program = common.program();
    if model.kind == ModelKind::TofinoMauEstimate {
        let limits = a.deps.limits();
        let (_, mp) = p4cost_model::mau_estimate::predict(
            model,
            program,
            &common.gress_controls,
            &limits,
            a.clock_ghz,
        )
        .map_err(|e| Error::of_model(&common.shown, e))?;
        return Ok(mp);
    }
    mau_cycles::predict(model, program, a.clock_ghz).map_err(|e| {
        let shown = a
            .context
            .as_ref()
            .map_or(common.shown.clone(), |c| c.display().to_string());
        Error::input(format!("{shown}: {e}"))
    })
}

#[cfg(test)]
mod target_tests {
    use super::target_mismatch;
    use p4cost_ir::Arch;

    /// Every architecture but the model's own Tofino generation is warned
    /// about, `unknown` included.
    #[test]
    fn every_mismatch_is_warned() {
        let t1 = p4cost_model::model_by_name("tofino1-10g").expect("model");
        for arch in [
            Arch::T2na,
            Arch::V1model,
            Arch::Psa,
            Arch::Pna,
            Arch::Ebpf,
            Arch::Ubpf,
            Arch::Xdp,
            Arch::Unknown,
        ] {
            let w = target_mismatch(&t1, arch).unwrap_or_else(|| panic!("{arch:?} not warned"));
            assert_eq!(w.code, "target_mismatch");
            assert!(w.message.contains(arch.name()) || arch == Arch::Unknown);
        }
        assert!(target_mismatch(&t1, Arch::Tna).is_none());
        let mau = p4cost_model::model_by_name("tofino1-mau-cycles").expect("model");
        assert!(target_mismatch(&mau, Arch::Tna).is_none());
        assert!(target_mismatch(&mau, Arch::T2na).is_some());
    }

    /// A model of another target warns about the architectures its file
    /// does not list: t4p4s runs v1model and PSA programs, the pass
    /// models v1model ones.
    #[test]
    fn other_targets_warn_by_their_architectures() {
        let t4p4s = p4cost_model::model_by_name("t4p4s").expect("model");
        assert!(target_mismatch(&t4p4s, Arch::V1model).is_none());
        assert!(target_mismatch(&t4p4s, Arch::Psa).is_none());
        let w = target_mismatch(&t4p4s, Arch::Tna).expect("tna warned");
        assert!(w.message.contains("written for tna"), "{}", w.message);
        assert!(w.message.contains("runs v1model, psa"), "{}", w.message);
        assert!(target_mismatch(&t4p4s, Arch::Unknown).is_some());
        for name in ["nfp4000", "bmv2-coarse"] {
            let m = p4cost_model::model_by_name(name).expect("model");
            assert!(target_mismatch(&m, Arch::V1model).is_none(), "{name}");
            assert!(target_mismatch(&m, Arch::Tna).is_some(), "{name}");
            assert!(target_mismatch(&m, Arch::Psa).is_some(), "{name}");
        }
    }
}

#[cfg(test)]
mod listed_only_tests {
    use crate::options::PredictOptions;

    /// `listed_only` computes the listed paths' figures exactly as the full
    /// report does, and none of the figures over all paths.
    #[test]
    fn listed_paths_are_the_same_without_the_figures_over_all_paths() {
        let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../p4-samples/tofino/classes/hit_miss_action_run.p4");
        let mut o = PredictOptions::new(&file);
        o.max_classes = Some(0);
        let full = super::reports(&o).expect("full report");
        o.listed_only = true;
        let lean = super::reports(&o).expect("listed-only report");
        assert_eq!(full.len(), lean.len());
        for (f, l) in full.iter().zip(&lean) {
            assert!(f.summary.is_some() && f.classes.is_some());
            assert!(l.summary.is_none() && l.classes.is_none() && l.rejects.is_none());
            assert!(l.control.path_sensitive, "classes still decide each path");
            assert_eq!(f.paths.len(), l.paths.len());
            assert!(f.paths.len() > 1);
            assert!(
                f.paths.iter().any(|p| p.min_latency_ns < p.latency_ns),
                "a path with classes apart, so classes are tested"
            );
            for (a, b) in f.paths.iter().zip(&l.paths) {
                assert_eq!(a.headers, b.headers);
                assert_eq!(a.latency_ns, b.latency_ns);
                assert_eq!(a.min_latency_ns, b.min_latency_ns);
            }
        }
    }
}

#[cfg(test)]
mod path_classes_tests {
    use crate::options::PredictOptions;

    /// Without `path_classes`, no listed path has its classes and the
    /// report has no class tables, decisions or skipped tables; every
    /// other figure is the full report's, whether the class figures were
    /// computed or taken from the memo.
    #[test]
    fn only_the_listed_paths_classes_are_left_out() {
        let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../p4-samples/tofino/classes/hit_miss_action_run.p4");
        let mut o = PredictOptions::new(&file);
        o.max_classes = Some(0);
        let mut full = super::reports(&o).expect("full report");
        for f in &mut full {
            assert!(f.paths.iter().all(|p| p.classes.is_some()));
            assert!(!f.tables.is_empty(), "the full report has class tables");
            f.tables.clear();
            f.decisions.clear();
            f.skipped.clear();
            f.paths.iter_mut().for_each(|p| p.classes = None);
        }
        o.path_classes = false;
        o.class_memo = crate::class_memo::ClassMemo::new();
        let computed = super::reports(&o).expect("report without path classes");
        let memo = super::reports(&o).expect("the same, from the memo");
        assert_eq!(o.class_memo.hits(), 1, "the second took the classes back");
        let json = |r: &crate::report::Report| serde_json::to_string(r).expect("json");
        for lean in [computed, memo] {
            assert_eq!(full.len(), lean.len());
            for (f, l) in full.iter().zip(&lean) {
                assert!(l.tables.is_empty() && l.decisions.is_empty() && l.skipped.is_empty());
                assert_eq!(json(f), json(l));
            }
        }
    }
}

/// The lines after a `--path` error: which listed names the parser
/// extracts and which not (with close names), and the path that extracts
/// the listed headers in order with the fewest others, as a `--path` to
/// give.
fn unmatched_detail(u: &p4cost_analysis::Unmatched, want: &[String]) -> String {
    let mut s = String::new();
    if !u.unknown.is_empty() && !u.known.is_empty() {
        s.push_str(&format!(
            "\n  of these, the parser extracts {}",
            u.known.join(", ")
        ));
    }
    for (name, close) in &u.unknown {
        s.push_str(&format!("\n  `{name}` is no header the parser extracts"));
        if !close.is_empty() {
            s.push_str(&format!(" (close: {})", close.join(", ")));
        }
    }
    if !u.unknown.is_empty() {
        return s;
    }
    match &u.nearest {
        Some((p, ends_there)) => {
            let names: Vec<String> = p
                .extracts()
                .filter(|e| e.origin == p4cost_ir::Origin::Program)
                .map(|e| e.header.rsplit('.').next().unwrap_or(&e.header).to_string())
                .collect();
            s.push_str(&format!(
                "\n  {} are all headers the parser extracts; the path with the fewest others among them: --path {}",
                want.join(", "),
                names.join(","),
            ));
            if !ends_there {
                s.push_str(&format!(
                    "\n  (every path that extracts them in this order extracts more after {})",
                    want.last().map_or("them", String::as_str)
                ));
            }
        }
        None => s.push_str(&format!(
            "\n  {} are headers the parser extracts, but no path extracts them in this order",
            want.join(", ")
        )),
    }
    s
}
