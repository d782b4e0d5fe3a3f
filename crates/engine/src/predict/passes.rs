//! `predict` with a pass model (`--model nfp4000`, kind `nfp_recirc`;
//! `--model bmv2-coarse`, kind `bmv2_coarse`): each packet class's
//! pipeline passes (1 + the recirculate and resubmit calls on its control
//! path, ingress then egress) and register operations, counted as
//! `throughput` counts them ([`crate::recirc::PassCounter`]), priced by
//! the model's own function ([`p4cost_model::nfp::Nfp::throughput`],
//! [`p4cost_model::bmv2_coarse::Bmv2Coarse::price`]). A path's worst class
//! is its class of most passes (the lowest rate, the longest range).

use p4cost_analysis::{ClassBudget, ClassLister, ListedClass, PathCount, PathGraph};
use p4cost_model::bmv2_coarse::{Bmv2Coarse, RangeUs};
use p4cost_model::nfp::Nfp;
use p4cost_model::{Breakdown, ModelSpec, Prediction};

use super::per_class::{finish, shown_nodes, ClassRun};
use super::Common;
use crate::error::Error;
use crate::options::PredictOptions;
use crate::pass_out::{ClassPassOut, PassesOut};
use crate::path_classes::{class_out, ClassContext, ClassSites, PathClassesOut};
use crate::recirc::{Counted, PassCounter};
use crate::report::{self, CountOut, Report, WarningOut};

/// Most classes of one parse path listed to find its class of most
/// passes; past it, the most of those listed (with a warning).
pub const MAX_COUNTED_CLASSES: usize = 256;

/// The model's pricing function, by kind.
#[derive(Clone, Copy)]
enum Pricer<'m> {
    Nfp(&'m Nfp),
    Coarse(&'m Bmv2Coarse),
}

impl Pricer<'_> {
    fn of(model: &ModelSpec) -> Result<Pricer<'_>, Error> {
        match (model.nfp(), model.bmv2_coarse()) {
            (Some(n), _) => Ok(Pricer::Nfp(n)),
            (None, Some(b)) => Ok(Pricer::Coarse(b)),
            (None, None) => Err(Error::input(format!(
                "model {} has no nfp or bmv2_coarse section",
                model.name
            ))),
        }
    }

    /// A class's latency (ns; 0 for nfp4000, which gives none) and
    /// figures.
    fn class(&self, n: Counted, size: u32) -> (f64, ClassPassOut) {
        let mut out = ClassPassOut {
            passes: n.passes,
            sites: n.sites,
            register_ops: n.registers,
            throughput: None,
            coarse: None,
        };
        let latency_ns = match self {
            Pricer::Nfp(m) => {
                out.throughput = Some(m.throughput(n.passes, size));
                0.0
            }
            Pricer::Coarse(m) => {
                let c = m.price(n.passes, size);
                out.coarse = Some(c);
                c.latency_us.max * 1000.0
            }
        };
        (latency_ns, out)
    }

    /// The report's `recirc`.
    fn settings(&self, size: u32) -> PassesOut {
        match self {
            Pricer::Nfp(m) => PassesOut {
                precision: "measured".into(),
                packet_size_bytes: size,
                line_rate_bps: Some(m.line_rate_bps),
                latency_per_pass_us: None,
                register_logic_us: None,
                formula: format!(
                    "loss-free = min(line, {:.3} Mpps / p x 8 x {size} B); received past it = min(line, {:.3} Mpps / p x 8 x {size} B)",
                    m.onset_passes_pps() / 1e6,
                    m.saturated_passes_pps() / 1e6
                ),
            },
            Pricer::Coarse(m) => {
                let l = &m.latency_per_pass_us;
                PassesOut {
                    precision: "coarse".into(),
                    packet_size_bytes: size,
                    line_rate_bps: None,
                    latency_per_pass_us: Some(RangeUs {
                        min: l.min,
                        max: l.max,
                    }),
                    register_logic_us: Some(m.register_logic_us),
                    formula: format!(
                        "latency = p x [{}, {}] us; rate = {:.1} kpps at {size} B / p",
                        l.min,
                        l.max,
                        m.pass_rate_pps(size) / 1e3
                    ),
                }
            }
        }
    }

    /// Warnings the settings alone give.
    fn warnings(&self, model: &ModelSpec, size: u32) -> Vec<WarningOut> {
        match self {
            Pricer::Nfp(_) => vec![WarningOut::new(
                "latency_not_modelled",
                format!(
                    "model {} gives throughput, not latency: every class's latency_ns is 0; a class's figure is recirc.throughput.loss_free_bps (bit/s)",
                    model.name
                ),
            )],
            Pricer::Coarse(m) => crate::recirc::coarse::size_warning(m, size)
                .map(|w| match w.split_once(": ") {
                    Some((code, message)) => WarningOut::new(code, message),
                    None => WarningOut::new("packet_size_not_measured", w),
                })
                .into_iter()
                .collect(),
        }
    }

    /// The passes the model's paper measured.
    fn measured_passes(&self) -> u32 {
        match self {
            Pricer::Nfp(m) => m.measured.passes,
            Pricer::Coarse(_) => 1,
        }
    }
}

/// What the classes of every listed path are counted and priced with.
struct Counting<'p, 'm> {
    lister: ClassLister<'p>,
    counter: PassCounter<'p>,
    pricer: Pricer<'m>,
    size: u32,
    /// The most passes of a listed class.
    most: u32,
}

/// The report of a pass model.
pub(super) fn run_passes(
    a: &PredictOptions,
    model: &ModelSpec,
    packet_size: u32,
    mut common: Common<'_>,
) -> Result<Report, Error> {
    let pricer = Pricer::of(model)?;
    if a.top.is_some() {
        return Err(Error::input(format!(
            "--top ranks parse paths by their parse terms; model {} has none (a class's figures are its passes): use --sort latency",
            model.name
        )));
    }
    let mut run = ClassRun::begin(
        a,
        &mut common,
        model,
        "counts the passes of a packet class's control path",
    )?;
    let program = common.program();
    let mut warns = std::mem::take(&mut run.warns);
    warns.extend(pricer.warnings(model, packet_size));
    let lister = ClassLister::new(program, run.control, &ClassBudget::default())
        .map_err(|e| Error::input(format!("{}: {e}", common.shown)))?;
    let mut k = Counting {
        lister: match run.ingress_nodes {
            Some(n) => lister.with_egress_from(n),
            None => lister,
        },
        counter: PassCounter::new(program, run.control),
        pricer,
        size: packet_size,
        most: 1,
    };
    let mut r = run.report(a, &common, model, packet_size);
    let cx = run.context(a, &common);
    let mut sites = ClassSites::default();
    for (index, nodes) in &shown_nodes(a, &common, &run.pg)? {
        r.paths.push(listed_path(
            &mut k,
            &cx,
            &mut sites,
            (&run.pg, *index, nodes),
            &mut warns,
        ));
    }
    if a.sort == crate::options::SortBy::Latency {
        r.paths.sort_by_key(|p| std::cmp::Reverse(most_passes(p)));
    }
    let note = format!(
        "a packet class pays a pipeline pass, plus one per recirculate or resubmit call on its control path, ingress then egress (model {}): see each class's recirc",
        model.name
    );
    finish(&mut r, sites, &common, note);
    let unlisted = !crate::recirc::complete(&r);
    warns.extend(passes_warning(model, &k, unlisted));
    r.recirc = Some(pricer.settings(packet_size));
    r.warnings = warns;
    Ok(r)
}

/// The warning for a class of more passes than the paper measured: a
/// listed class's, or, when classes are left out of the listing, the most
/// any class of the control can take (every class, listed or not).
fn passes_warning(model: &ModelSpec, k: &Counting<'_, '_>, unlisted: bool) -> Option<WarningOut> {
    let measured = k.pricer.measured_passes();
    if k.most > measured {
        return Some(WarningOut::new(
            "passes_not_measured",
            format!(
                "a class takes {} passes; model {}'s paper measured {measured}: more passes share the same capacity, an extrapolation",
                k.most, model.name
            ),
        ));
    }
    if !unlisted {
        return None;
    }
    let bound = k.counter.most_on_any_way();
    (bound > measured).then(|| {
        WarningOut::new(
            "passes_not_measured",
            format!(
                "a class left out of the listing may take up to {bound} passes (the most recirculate and resubmit calls along any way through the control); model {}'s paper measured {measured}: more would be an extrapolation (list every class to know)",
                model.name
            ),
        )
    })
}

/// A listed path's worst class's passes (1 without classes).
fn most_passes(p: &report::PathOut) -> u32 {
    p.classes
        .as_ref()
        .and_then(|c| c.slowest.recirc.as_ref())
        .map_or(1, |r| r.passes)
}

/// One listed path with its classes counted and priced (a warning in
/// place of the classes when they are past the listing budget).
fn listed_path(
    k: &mut Counting<'_, '_>,
    cx: &ClassContext<'_, '_>,
    sites: &mut ClassSites,
    (pg, index, nodes): (&PathGraph<'_>, PathCount, &[u32]),
    warns: &mut Vec<WarningOut>,
) -> report::PathOut {
    let number = index.add_one();
    match path_classes(k, cx, sites, (pg, nodes, number), warns) {
        Ok(pc) => {
            let pred = prediction(pc.slowest.latency_ns);
            let mut out = report::path_out(cx.program, index, &pg.path(nodes), pred);
            out.min_latency_ns = pc
                .classes
                .iter()
                .map(|c| c.latency_ns)
                .fold(pc.slowest.latency_ns, f64::min);
            out.classes = Some(pc);
            out
        }
        Err(e) => {
            warns.push(WarningOut::new(
                "classes_not_listed",
                format!("classes of path {number} not listed: {e}"),
            ));
            report::path_out(cx.program, index, &pg.path(nodes), prediction(0.0))
        }
    }
}

/// A path's prediction without parse terms: the class's latency alone.
fn prediction(latency_ns: f64) -> Prediction {
    Prediction {
        latency_ns,
        breakdown: Breakdown {
            base_ns: latency_ns,
            parser_ns: 0.0,
            control_ns: 0.0,
            states: Vec::new(),
            tables: Vec::new(),
        },
        warnings: Vec::new(),
    }
}

/// The classes of one listed path, each with its passes and figures; its
/// class of most passes over its first [`MAX_COUNTED_CLASSES`] classes.
fn path_classes(
    k: &mut Counting<'_, '_>,
    cx: &ClassContext<'_, '_>,
    sites: &mut ClassSites,
    (pg, nodes, number): (&PathGraph<'_>, &[u32], PathCount),
    warns: &mut Vec<WarningOut>,
) -> Result<PathClassesOut, String> {
    let program = cx.program;
    let keep = |c: &ListedClass| match cx.filter {
        Some((f, _)) => f.matches(program, cx.control, c),
        None => true,
    };
    let l = k
        .lister
        .list(pg, nodes, cx.max, &keep)
        .map_err(|e| e.to_string())?;
    let all = k
        .lister
        .list(pg, nodes, MAX_COUNTED_CLASSES, &|_| true)
        .map_err(|e| e.to_string())?;
    let path_no = report::count_text(number);
    if all.truncated {
        warns.push(WarningOut::new(
            "classes_not_computed",
            format!(
                "path {path_no} has more than {MAX_COUNTED_CLASSES} classes: its worst class is the one of most passes among its first {MAX_COUNTED_CLASSES}"
            ),
        ));
    }
    let decided = k.counter.decided(pg, nodes);
    let worst = all
        .classes
        .iter()
        .map(|c| (k.counter.count(c, &decided).passes, c))
        .max_by_key(|(p, c)| (*p, std::cmp::Reverse(c.index)))
        .map(|(_, c)| c)
        .ok_or("a path without classes")?;
    let mut priced = |c: &ListedClass, sites: &mut ClassSites| {
        let mut out = class_out(cx, sites, c, &path_no, Some(0.0), 0.0);
        let (latency_ns, figures) = k.pricer.class(k.counter.count(c, &decided), k.size);
        k.most = k.most.max(figures.passes);
        out.latency_ns = latency_ns;
        out.recirc = Some(figures);
        out
    };
    let classes = l.classes.iter().map(|c| priced(c, sites)).collect();
    let slowest = priced(worst, sites);
    Ok(PathClassesOut {
        total: CountOut::of(l.total),
        filter: cx.filter.map(|(_, spec)| spec.to_string()),
        truncated: l.truncated,
        classes,
        slowest,
    })
}
