//! `predict` with a CPU model (kind `cpu_tables`, `--model t4p4s`): each
//! packet class pays the tables its control path applies (ingress, then
//! egress: a software switch runs both on the CPU), composed by the
//! model's rule ([`p4cost_model::cpu_tables`]); its figures are cycles per
//! packet and packets per second. The median latency (Eq. 3) depends on
//! the cores only. A class's cycles are not a sum of table weights (one
//! table is priced by its own equation, several by Eq. (8) plus
//! excesses), so the extremes over all classes are found by listing each
//! distinct parse signature's classes, within a bound.

use std::collections::HashMap;

use p4cost_analysis::{ClassBudget, ClassLister, ListedClass, ParseSignatures, PathCount};
use p4cost_ir::{Program, TableId};
use p4cost_model::cpu_tables::{self, CpuSpec, Params, TableCost};
use p4cost_model::{ModelSpec, Prediction};

use super::per_class::{finish, shown_nodes, ClassRun};
use super::Common;
use crate::cpu_out::{ClassCpuOut, CpuClassRef, CpuOut, CpuSummaryOut, CpuTableOut};
use crate::error::Error;
use crate::options::PredictOptions;
use crate::path_classes::{class_out, ClassContext, ClassSites, PathClassesOut};
use crate::report::{self, CountOut, Loc, Report, WarningOut};

/// Most classes of one parse signature listed and priced one by one for
/// the extremes; past it, the extremes of the additive part.
pub const MAX_PRICED_CLASSES: usize = 256;

/// The clock, cores and L3 of `a` (else the model's), checked.
pub(super) fn params(a: &PredictOptions, spec: &CpuSpec) -> Result<Params, Error> {
    let cores = a.cores.unwrap_or(spec.default_cores);
    if cores == 0 {
        return Err(Error::input("--cores: give 1 or more cores"));
    }
    let l3 = a.l3_mb.unwrap_or(spec.default_l3_mb);
    if !(l3.is_finite() && l3 > 0.0) {
        return Err(Error::input("--l3-mb must be a positive number of MB"));
    }
    Ok(Params {
        clock_ghz: a.clock_ghz.unwrap_or(spec.default_clock_ghz),
        cores,
        l3_bytes: l3 * 1e6,
    })
}

/// A table's entries and where they come from: the last `--entries` or
/// p4cost.toml entry naming it, else `@p4cost_entries`, its `size`, its
/// `const entries`, or the model's default. Zero is an error naming the
/// source.
fn entries_of(
    a: &PredictOptions,
    spec: &CpuSpec,
    t: &p4cost_ir::Table,
) -> Result<(u64, String), Error> {
    let named = a.entries.iter().rev().find(|e| {
        let suffix = format!(".{}", e.table);
        t.name == e.table || t.name.ends_with(&suffix)
    });
    let annotated = t
        .annotations
        .iter()
        .find(|x| x.name == "p4cost_entries")
        .and_then(|x| x.body.trim().parse::<u64>().ok());
    let (n, source) = match (named, annotated, t.size) {
        (Some(e), _, _) => (
            e.entries,
            e.origin.clone().unwrap_or_else(|| "--entries".to_string()),
        ),
        (None, Some(n), _) => (n, "@p4cost_entries".to_string()),
        (None, None, Some(n)) => (n, "size".to_string()),
        (None, None, None) if t.const_entries > 0 => (t.const_entries, "const entries".to_string()),
        (None, None, None) => (spec.default_table_entries, "default".to_string()),
    };
    if n == 0 {
        let short = t.name.rsplit('.').next().unwrap_or(&t.name);
        return Err(Error::input(format!(
            "{source}: table {} has 0 entries; the CPU model prices tables of 1 entry or more (give --entries {short}=N)",
            t.name
        )));
    }
    Ok((n, source))
}

/// Each table of the class control priced alone (indexed by table id),
/// the report's rows, and the tables' warnings.
struct Priced {
    cost: Vec<Option<TableCost>>,
    rows: Vec<CpuTableOut>,
    warnings: Vec<WarningOut>,
}

fn price_tables(
    a: &PredictOptions,
    spec: &CpuSpec,
    program: &Program,
    (index, list): (&[Option<u32>], &[crate::path_classes::ClassTableOut]),
    p: &Params,
) -> Result<Priced, Error> {
    let mut out = Priced {
        cost: vec![None; program.tables.len()],
        rows: Vec::new(),
        warnings: Vec::new(),
    };
    // By table id: a name may stand for several ids (a global `@name` on
    // a table of a control instantiated twice).
    let mut ids: Vec<(u32, usize)> = index
        .iter()
        .enumerate()
        .filter_map(|(id, i)| i.map(|i| (i, id)))
        .collect();
    ids.sort_unstable();
    for (i, id) in ids {
        let (Some(row), Some(t)) = (list.get(i as usize), program.tables.get(id)) else {
            continue;
        };
        let (n, source) = entries_of(a, spec, t)?;
        let cost = cpu_tables::table_cost(spec, program, t, n, p);
        for w in cpu_tables::table_warnings(spec, t, &cost) {
            out.warnings.push(WarningOut::of_model(program, &w));
        }
        out.rows.push(CpuTableOut {
            name: t.name.clone(),
            gress: row.gress,
            kind: cost.kind.name().to_string(),
            entries: n,
            entries_source: source,
            key_bytes: cost.key_bytes,
            action_bytes: cost.action_bytes,
            footprint_bytes: cost.footprint_bytes,
            regime: regime_name(cost.regime).to_string(),
            alone_cycles: cost.alone_cycles,
            one_entry_cycles: cost.one_entry_cycles,
            excess_cycles: cost.excess_cycles(),
            formula: cost.formula.clone(),
            span: Loc::new(program, t.span),
        });
        out.cost[id] = Some(cost);
    }
    Ok(out)
}

fn regime_name(r: cpu_tables::Regime) -> &'static str {
    match r {
        cpu_tables::Regime::Cache => "cache",
        cpu_tables::Regime::Dram => "dram",
        cpu_tables::Regime::NotModelled => "not_modelled",
    }
}

/// What prices a class: the model, the settings and the tables.
struct Pricer<'x> {
    spec: &'x CpuSpec,
    params: Params,
    cost: &'x [Option<TableCost>],
}

impl Pricer<'_> {
    /// Each table's additive part (Eq. 8's slope over the cores plus its
    /// excess), by table id: a class of 2 or more tables costs Eq. (8)'s
    /// intercept over the cores plus the sum of its tables' parts.
    fn weights(&self) -> Vec<f64> {
        let slope = self.spec.applications.per_table_cycles / f64::from(self.params.cores);
        self.cost
            .iter()
            .map(|c| c.as_ref().map_or(0.0, |c| slope + c.excess_cycles()))
            .collect()
    }

    /// The class applying `tables` (compiler-made ones are not priced).
    fn class(&self, tables: &[TableId]) -> ClassCpuOut {
        let priced: Vec<&TableCost> = tables
            .iter()
            .filter_map(|t| self.cost.get(t.index()).and_then(Option::as_ref))
            .collect();
        let c = cpu_tables::class_cost(self.spec, &priced, &self.params);
        ClassCpuOut {
            cycles_per_packet: c.cycles,
            packets_per_second: c.packets_per_second,
            tables: c.tables,
            rule: c.rule.to_string(),
            base_cycles: c.base_cycles,
            excess_cycles: c.excess_cycles,
        }
    }
}

/// A signature's classes priced: the slowest and fastest, how many, and
/// whether all were.
struct SigClasses {
    total: PathCount,
    complete: bool,
    slowest: Option<(ClassCpuOut, ListedClass)>,
    fastest: Option<(ClassCpuOut, ListedClass)>,
}

/// The listers a class listing and the extremes use: `show` lists the
/// classes shown, `all` lists a signature's classes to price each,
/// `dp` finds the classes of the greatest and least additive part.
struct Listers<'p> {
    show: ClassLister<'p>,
    all: ClassLister<'p>,
    dp: ClassLister<'p>,
}

/// The slowest and fastest class of the parse path `nodes`: every class
/// priced when it has at most [`MAX_PRICED_CLASSES`] (and the listing
/// budget allows), else the classes of the greatest and least additive
/// part (exact among classes of 2 or more tables), priced.
fn price_signature(
    l: &mut Listers<'_>,
    pg: &p4cost_analysis::PathGraph<'_>,
    nodes: &[u32],
    pricer: &Pricer<'_>,
) -> Result<SigClasses, String> {
    let sig = p4cost_analysis::path_signature(pg, l.dp.control_classes().tested(), nodes);
    let total =
        l.dp.control_classes()
            .eval(sig)
            .map_err(|e| e.to_string())?
            .count;
    let small = !total.saturated && total.value <= MAX_PRICED_CLASSES as u128;
    let listed = if small {
        l.all.list(pg, nodes, MAX_PRICED_CLASSES, &|_| true).ok()
    } else {
        None
    };
    let (classes, complete) = match listed {
        Some(x) if !x.truncated => (x.classes, true),
        _ => {
            let (_, hi) = l.dp.extreme(pg, nodes, true).map_err(|e| e.to_string())?;
            let (_, lo) = l.dp.extreme(pg, nodes, false).map_err(|e| e.to_string())?;
            (vec![hi, lo], false)
        }
    };
    let mut s = SigClasses {
        total,
        complete,
        slowest: None,
        fastest: None,
    };
    for c in classes {
        let cpu = pricer.class(&c.control_path.tables);
        let y = cpu.cycles_per_packet;
        if s.slowest
            .as_ref()
            .is_none_or(|(m, _)| y > m.cycles_per_packet)
        {
            s.slowest = Some((cpu.clone(), c.clone()));
        }
        if s.fastest
            .as_ref()
            .is_none_or(|(m, _)| y < m.cycles_per_packet)
        {
            s.fastest = Some((cpu, c));
        }
    }
    Ok(s)
}

fn times(a: PathCount, b: PathCount) -> PathCount {
    match a.value.checked_mul(b.value) {
        Some(v) => PathCount {
            value: v,
            saturated: a.saturated || b.saturated,
        },
        None => PathCount {
            value: u128::MAX,
            saturated: true,
        },
    }
}

/// The three listers of `control` (egress from `ingress_nodes` on),
/// the extremes' walk weighted by `weights`.
fn listers<'p>(
    program: &'p Program,
    control: p4cost_ir::ControlId,
    ingress_nodes: Option<usize>,
    weights: &'p [f64],
) -> Result<Listers<'p>, p4cost_analysis::ClassError> {
    let budget = ClassBudget::default();
    let egress = |l: ClassLister<'p>| match ingress_nodes {
        Some(n) => l.with_egress_from(n),
        None => l,
    };
    let cc =
        p4cost_analysis::ControlClasses::new(program, control, weights, budget.max_control_states)?;
    Ok(Listers {
        show: egress(ClassLister::new(program, control, &budget)?),
        all: egress(ClassLister::new(program, control, &budget)?),
        dp: egress(ClassLister::with_classes(program, control, cc, &budget)?),
    })
}

/// The model's `cpu` section and the settings; `--top` refused.
fn settle<'m>(a: &PredictOptions, model: &'m ModelSpec) -> Result<(&'m CpuSpec, Params), Error> {
    let spec = model
        .cpu()
        .ok_or_else(|| Error::input(format!("model {} has no cpu section", model.name)))?;
    if a.top.is_some() {
        return Err(Error::input(format!(
            "--top ranks parse paths by their parse terms; model {} has none (a class's cost is its tables): use --sort latency",
            model.name
        )));
    }
    Ok((spec, params(a, spec)?))
}

/// The CPU model's report.
pub(super) fn run_cpu(
    a: &PredictOptions,
    model: &ModelSpec,
    packet_size: u32,
    mut common: Common<'_>,
) -> Result<Report, Error> {
    let (spec, params) = settle(a, model)?;
    let mut run = ClassRun::begin(
        a,
        &mut common,
        model,
        "prices the tables a packet class applies",
    )?;
    let program = common.program();
    let mut warns = std::mem::take(&mut run.warns);
    warns.extend(settings_warnings(spec, &params));
    if a.target.packet_size.is_some() {
        warns.push(WarningOut::new(
            "packet_size_ignored",
            format!(
                "model {} does not depend on the packet size: --packet-size has no effect",
                model.name
            ),
        ));
    }
    let mut r = run.report(a, &common, model, packet_size);
    let priced = price_tables(a, spec, program, (&run.table_index, &r.tables), &params)?;
    warns.extend(priced.warnings.iter().cloned());
    warns.extend(shared_l3(&priced.rows, &params));
    let pricer = Pricer {
        spec,
        params,
        cost: &priced.cost,
    };
    let weights = pricer.weights();
    let mut listers = listers(program, run.control, run.ingress_nodes, &weights)
        .map_err(|e| Error::input(format!("{}: {e}", common.shown)))?;
    let mut cache: HashMap<u64, SigClasses> = HashMap::new();
    let summary = if a.listed_only {
        None
    } else {
        summarize(
            program,
            &mut listers,
            &run.pg,
            &pricer,
            &mut cache,
            &mut warns,
        )
    };
    let cx = run.context(a, &common);
    let mut sites = ClassSites::default();
    for (index, nodes) in &shown_nodes(a, &common, &run.pg)? {
        let out = listed_path(
            (&mut listers, &mut cache, &mut sites),
            &cx,
            (&run.pg, *index, nodes),
            &pricer,
            &mut warns,
        );
        r.paths.push(out);
    }
    if a.sort == crate::options::SortBy::Latency {
        r.paths
            .sort_by(|x, y| slowest_cycles(y).total_cmp(&slowest_cycles(x)));
    }
    let note = format!(
        "a packet class pays the tables its control path applies, ingress then egress (model {} runs both on the CPU): see each class's cycles per packet",
        model.name
    );
    finish(&mut r, sites, &common, note);
    r.cpu = Some(cpu_out(
        spec,
        &params,
        a.clock_ghz.is_none(),
        priced.rows,
        summary,
    ));
    r.warnings = warns;
    Ok(r)
}

/// One listed path with its classes priced (a warning instead of the
/// classes when they are past the listing budget).
fn listed_path(
    (listers, cache, sites): (
        &mut Listers<'_>,
        &mut HashMap<u64, SigClasses>,
        &mut ClassSites,
    ),
    cx: &ClassContext<'_, '_>,
    (pg, index, nodes): (&p4cost_analysis::PathGraph<'_>, PathCount, &[u32]),
    pricer: &Pricer<'_>,
    warns: &mut Vec<WarningOut>,
) -> report::PathOut {
    let latency_ns = pricer.latency_ns();
    let pred = Prediction {
        latency_ns,
        breakdown: p4cost_model::Breakdown {
            base_ns: latency_ns,
            parser_ns: 0.0,
            control_ns: 0.0,
            states: Vec::new(),
            tables: Vec::new(),
        },
        warnings: Vec::new(),
    };
    let mut out = report::path_out(cx.program, index, &pg.path(nodes), pred);
    match path_classes(listers, cx, sites, (pg, nodes, out.number), pricer, cache) {
        Ok(pc) => out.classes = Some(pc),
        Err(e) => warns.push(WarningOut::new(
            "classes_not_listed",
            format!("classes of path {} not listed: {e}", out.number),
        )),
    }
    out
}

/// A listed path's slowest class's cycles (0 without classes).
fn slowest_cycles(p: &report::PathOut) -> f64 {
    p.classes
        .as_ref()
        .and_then(|c| c.slowest.cpu.as_ref())
        .map_or(0.0, |c| c.cycles_per_packet)
}

/// A warning when the exact tables that each fit the L3 alone do not fit
/// it together: the paper measured one table, and the model judges each
/// alone.
fn shared_l3(rows: &[CpuTableOut], p: &Params) -> Option<WarningOut> {
    let inside: Vec<&CpuTableOut> = rows
        .iter()
        .filter(|t| t.kind == "exact" && t.regime == "cache")
        .collect();
    let bytes: u64 = inside
        .iter()
        .filter_map(|t| t.footprint_bytes)
        .fold(0, u64::saturating_add);
    if inside.len() < 2 || (bytes as f64) < p.l3_bytes {
        return None;
    }
    let names: Vec<&str> = inside.iter().map(|t| t.name.as_str()).collect();
    Some(WarningOut::new(
        "l3_shared_not_modelled",
        format!(
            "the exact tables {} take {:.3} MB together, more than the {} MB L3, though each fits alone: the model prices each table against the whole L3 (the paper measured one table), so their cycles are likely too low",
            names.join(", "),
            bytes as f64 / 1e6,
            p.l3_bytes / 1e6
        ),
    ))
}

/// Warnings about the settings: cores or a clock the paper did not
/// measure.
fn settings_warnings(spec: &CpuSpec, p: &Params) -> Vec<WarningOut> {
    let mut out = Vec::new();
    let [lo, hi] = spec.measured_cores;
    if p.cores < lo || p.cores > hi {
        out.push(WarningOut::new(
            "cores_out_of_range",
            format!(
                "{} cores: the model was measured on {lo}-{hi} cores: extrapolated",
                p.cores
            ),
        ));
    }
    if (p.clock_ghz - spec.measured_clock_ghz).abs() > 1e-9 {
        out.push(WarningOut::new(
            "clock_out_of_range",
            format!(
                "{} GHz: the table equations were fitted at {} GHz; other clocks scale the rate linearly (the paper measured that for the baseline only)",
                p.clock_ghz, spec.measured_clock_ghz
            ),
        ));
    }
    out
}

fn cpu_out(
    spec: &CpuSpec,
    p: &Params,
    clock_is_default: bool,
    tables: Vec<CpuTableOut>,
    summary: Option<CpuSummaryOut>,
) -> CpuOut {
    let l = &spec.median_latency_us;
    CpuOut {
        clock_ghz: p.clock_ghz,
        clock_is_default,
        cores: p.cores,
        l3_mb: p.l3_bytes / 1e6,
        median_latency_us: cpu_tables::median_latency_us(spec, p.cores),
        median_latency_formula: format!("{} us * {} + {} us", l.per_core, p.cores, l.constant),
        baseline_cycles: spec.baseline_cycles / f64::from(p.cores),
        composition: COMPOSITION.to_string(),
        tables,
        summary,
    }
}

/// The composition rule, as the report states it.
pub const COMPOSITION: &str = "no table: the baseline, Eq. (2) / c; one table: its kind's equation (Eqs. 5-7, with their core scaling); t >= 2 tables: Eq. (8) at t, / c, plus each table's excess over its own 1-entry value";

/// The classes of one listed path, each with its cycles; the slowest over
/// all its classes (within [`MAX_PRICED_CLASSES`]).
fn path_classes(
    listers: &mut Listers<'_>,
    cx: &ClassContext<'_, '_>,
    sites: &mut ClassSites,
    (pg, nodes, number): (&p4cost_analysis::PathGraph<'_>, &[u32], PathCount),
    pricer: &Pricer<'_>,
    cache: &mut HashMap<u64, SigClasses>,
) -> Result<PathClassesOut, String> {
    let program = cx.program;
    let keep = |c: &ListedClass| match cx.filter {
        Some((f, _)) => f.matches(program, cx.control, c),
        None => true,
    };
    let l = listers
        .show
        .list(pg, nodes, cx.max, &keep)
        .map_err(|e| e.to_string())?;
    let sig = l.signature;
    if let std::collections::hash_map::Entry::Vacant(v) = cache.entry(sig) {
        v.insert(price_signature(listers, pg, nodes, pricer)?);
    }
    let path_no = report::count_text(number);
    let mut classes = Vec::with_capacity(l.classes.len());
    for c in &l.classes {
        let mut out = class_out(cx, sites, c, &path_no, Some(0.0), 0.0);
        out.latency_ns = pricer.latency_ns();
        out.cpu = Some(pricer.class(&c.control_path.tables));
        classes.push(out);
    }
    let s = cache.get(&sig).ok_or("no classes")?;
    let (cpu, c) = s.slowest.as_ref().ok_or("a path without classes")?;
    let mut slowest = class_out(cx, sites, c, &path_no, Some(0.0), 0.0);
    slowest.latency_ns = pricer.latency_ns();
    slowest.cpu = Some(cpu.clone());
    Ok(PathClassesOut {
        total: CountOut::of(l.total),
        filter: cx.filter.map(|(_, spec)| spec.to_string()),
        truncated: l.truncated,
        classes,
        slowest,
    })
}

impl Pricer<'_> {
    /// Eq. (3) in ns: every class's latency.
    fn latency_ns(&self) -> f64 {
        cpu_tables::median_latency_us(self.spec, self.params.cores) * 1000.0
    }
}

/// The slowest and fastest class over all classes: each distinct parse
/// signature's classes priced once (a witness path stands for it).
fn summarize(
    program: &Program,
    listers: &mut Listers<'_>,
    pg: &p4cost_analysis::PathGraph<'_>,
    pricer: &Pricer<'_>,
    cache: &mut HashMap<u64, SigClasses>,
    warns: &mut Vec<WarningOut>,
) -> Option<CpuSummaryOut> {
    let budget = ClassBudget::default();
    let zeros = vec![0.0; pg.len()];
    let tested = listers.dp.control_classes().tested().clone();
    let ps = match ParseSignatures::build(pg, &tested, &zeros, budget.max_signature_entries) {
        Ok(ps) => ps,
        Err(e) => {
            warns.push(WarningOut::new(
                "classes_not_computed",
                format!("the slowest and fastest class not computed: {e}"),
            ));
            return None;
        }
    };
    let mut count = PathCount::default();
    let mut complete = true;
    let mut best: [Option<(ClassCpuOut, ListedClass, Vec<u32>)>; 2] = [None, None];
    let sigs: Vec<(u64, PathCount)> = ps.at_start().iter().map(|(s, e)| (*s, e.count)).collect();
    for (sig, paths) in sigs {
        let Some(nodes) = ps.witness(sig, false) else {
            continue;
        };
        if let std::collections::hash_map::Entry::Vacant(v) = cache.entry(sig) {
            match price_signature(listers, pg, &nodes, pricer) {
                Ok(s) => {
                    v.insert(s);
                }
                Err(e) => {
                    warns.push(WarningOut::new(
                        "classes_not_computed",
                        format!("the slowest and fastest class not computed: {e}"),
                    ));
                    return None;
                }
            }
        }
        let Some(s) = cache.get(&sig) else { continue };
        count = count.plus(times(paths, s.total));
        complete &= s.complete;
        for (k, cand) in [&s.slowest, &s.fastest].into_iter().enumerate() {
            let Some((cpu, c)) = cand else { continue };
            let better = best[k].as_ref().is_none_or(|(m, _, _)| {
                if k == 0 {
                    cpu.cycles_per_packet > m.cycles_per_packet
                } else {
                    cpu.cycles_per_packet < m.cycles_per_packet
                }
            });
            if better {
                best[k] = Some((cpu.clone(), c.clone(), nodes.clone()));
            }
        }
    }
    if !complete {
        warns.push(WarningOut::new(
            "classes_not_computed",
            format!(
                "some parse paths have more than {MAX_PRICED_CLASSES} classes: their slowest and fastest are the classes of the greatest and least Eq. (8) + excess, priced by the rule (exact among classes of 2 or more tables; a class of one table is priced by its own equation and may lie outside)"
            ),
        ));
    }
    let [Some(slow), Some(fast)] = best else {
        return None;
    };
    let named = |(cpu, c, nodes): (ClassCpuOut, ListedClass, Vec<u32>)| CpuClassRef {
        headers: pg.path(&nodes).header_names(),
        tables: c
            .control_path
            .tables
            .iter()
            .map(|t| program.table(*t))
            .filter(|t| !t.is_compiler_made())
            .map(|t| t.name.clone())
            .collect(),
        cpu,
    };
    Some(CpuSummaryOut {
        classes: CountOut::of(count),
        complete,
        slowest: named(slow),
        fastest: named(fast),
    })
}
