//! What the per-class models (`cpu_tables`, and the pass models
//! `nfp_recirc` and `bmv2_coarse`) share around their pricing: the
//! ingress parser and control they need, the parse graph, the report's
//! head, the loop over the listed parse paths and the report's tail. Each
//! model keeps only its pricing function and its own warnings
//! ([`super::cpu`], [`super::passes`]).

use p4cost_analysis::{ClassFilter, PathCount, PathGraph};
use p4cost_ir::ControlId;
use p4cost_model::ModelSpec;

use super::{class_filter, insert_parse_warnings, Common};
use crate::error::Error;
use crate::options::PredictOptions;
use crate::path_classes::{class_tables, ClassContext, ClassSites, ClassTableOut};
use crate::report::{Report, WarningOut};

/// One per-class run's setting: everything a model needs before it
/// prices a class.
pub(super) struct ClassRun<'a> {
    /// The control packet classes walk (ingress joined to egress).
    pub control: ControlId,
    /// When `control` is ingress joined to egress, its nodes below this
    /// index are ingress ones.
    pub ingress_nodes: Option<usize>,
    /// The `--class` filter, parsed.
    pub filter: Option<ClassFilter>,
    /// The ingress parser's graph.
    pub pg: PathGraph<'a>,
    /// The loader's and the parse graph's warnings, in order; the model
    /// adds its own.
    pub warns: Vec<WarningOut>,
    /// A zero per program table: the per-class models price tables by
    /// their own rule, not by a latency per table.
    pub zeros: Vec<f64>,
    /// `table_index[t]`: table `t`'s index in the report's `tables`.
    pub table_index: Vec<Option<u32>>,
    /// The report's `tables` (taken by [`ClassRun::report`]).
    tables: Vec<ClassTableOut>,
}

impl<'a> ClassRun<'a> {
    /// The setting of `common`'s pipeline for `model`; `prices` says what
    /// the model does with a class's control path, for the error when the
    /// pipeline has no ingress control.
    pub fn begin(
        a: &PredictOptions,
        common: &mut Common<'a>,
        model: &ModelSpec,
        prices: &str,
    ) -> Result<ClassRun<'a>, Error> {
        let parser = common.need_parser()?;
        let control = common.class_control.ok_or_else(|| {
            Error::input(format!(
                "{}: no ingress control found: model {} {prices}",
                common.shown, model.name
            ))
        })?;
        let filter = class_filter(a, common)?;
        let mut warns = std::mem::take(&mut common.warnings);
        let (pg, graph_warnings) = common.parse_graph(parser, &Common::path_options(a))?;
        insert_parse_warnings(&mut warns, common.loaded.warnings.len(), &graph_warnings);
        let program = common.program();
        let ingress_nodes = common.egress.as_ref().map(|j| j.ingress_nodes);
        let zeros = vec![0.0; program.tables.len()];
        let (table_index, tables) = class_tables(program, control, ingress_nodes, &zeros);
        Ok(ClassRun {
            control,
            ingress_nodes,
            filter,
            pg,
            warns,
            zeros,
            table_index,
            tables,
        })
    }

    /// The report's head: `common`'s, with the parse-path count and the
    /// class tables.
    pub fn report(
        &mut self,
        a: &PredictOptions,
        common: &Common<'_>,
        model: &ModelSpec,
        packet_size: u32,
    ) -> Report {
        let mut r = common.report(a, model, packet_size);
        let total = self.pg.total();
        r.set_path_count(total);
        r.tables = std::mem::take(&mut self.tables);
        r
    }

    /// What the listing of one path needs.
    pub fn context<'s>(
        &'s self,
        a: &'s PredictOptions,
        common: &'s Common<'_>,
    ) -> ClassContext<'s, 's> {
        ClassContext {
            program: common.program(),
            control: self.control,
            ingress_nodes: self.ingress_nodes,
            table_ns: &self.zeros,
            table_index: &self.table_index,
            max: crate::path_classes::max_classes(a),
            filter: self.filter.as_ref().zip(a.class.as_deref()),
        }
    }
}

/// The report's tail: the listed count, the ways classes took and the
/// tables they skipped, and the control's note with the egress control
/// every class walks, charged.
pub(super) fn finish(r: &mut Report, sites: ClassSites, common: &Common<'_>, note: String) {
    r.paths_listed = r.paths.len();
    r.decisions = sites.decisions;
    r.skipped = sites.skipped;
    r.control.path_sensitive = true;
    r.control.note = note;
    if let Some(j) = &common.egress {
        let mut e = super::egress_out(common.program(), j);
        e.charged = true;
        r.control.egress = Some(e);
    }
}

/// The parse paths to list, by index with their graph nodes: the one of
/// `--path-index` or `--path`, else the first `--max-paths`.
pub(super) fn shown_nodes(
    a: &PredictOptions,
    common: &Common<'_>,
    pg: &PathGraph<'_>,
) -> Result<Vec<(PathCount, Vec<u32>)>, Error> {
    if let Some(i) = a.path_index {
        return Ok(vec![(PathCount::exact(i), common.nth_path(pg, i)?)]);
    }
    if let Some(want) = &a.path {
        let (_, nodes, _) = common.first_match(pg, want, a.max_analysis_states)?;
        return Ok(vec![(pg.index_of(&nodes), nodes)]);
    }
    let total = pg.total();
    let n = if total.saturated {
        a.max_paths as u128
    } else {
        total.value.min(a.max_paths as u128)
    };
    Ok((0..n)
        .filter_map(|i| pg.nth(i).map(|nodes| (PathCount::exact(i), nodes)))
        .collect())
}
