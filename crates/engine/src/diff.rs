//! What a change cost: two analyses of a program (two files, or one file
//! at a git revision and now) compared class by class.
//!
//! A packet class is named by what stays the same between versions: its
//! parse path's header sequence (and parser metadata) and its control path
//! in a few words ([`crate::path_classes::class_brief`]: the tables with
//! the way taken, and the conditions). A class whose name is on both sides
//! is *changed* or *unchanged*; one on one side only is *added* or
//! *removed* (a class that now also applies `acl` is a new class). The
//! slowest and fastest class over all paths come from the exact summary,
//! whatever is listed, and so do the counts and each table's and parse
//! state's term ([`terms`]): that is what is compared by default, in time
//! linear in the program. Parse paths and classes one by one are compared
//! only when asked ([`DiffOptions::listings`]), from the listing, which is
//! bounded ([`DiffOptions::max_paths`], [`DiffOptions::max_classes`]):
//! beyond it nothing is called added or removed, and the report says so.
//! Both sides' entries are matched by key in hash maps (linear in the
//! listing).

mod terms;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use p4cost_model::GressCycles;

use crate::error::Error;
use crate::options::{PredictOptions, SortBy};
use crate::report::Report;
use crate::session::Session;

/// Paths listed on each side to compare classes (with
/// [`DiffOptions::listings`]) unless told otherwise.
pub const DEFAULT_MAX_PATHS: usize = 4096;
/// Classes listed under each path by default.
pub const DEFAULT_MAX_CLASSES: usize = 64;
/// Entries each list of the report (added, removed, changed) holds at most
/// by default; the counts are always complete.
pub const DEFAULT_MAX_LISTED: usize = 1000;

/// What to compare.
#[derive(Debug, Clone)]
pub struct DiffOptions {
    /// The old program (its `source.revision` set to read it from git).
    pub old: PredictOptions,
    /// The new program.
    pub new: PredictOptions,
    /// Compare parse paths and classes one by one from each side's
    /// listing (`diff --paths`); else only the summaries (counts, slowest
    /// and fastest class, table and state terms).
    pub listings: bool,
    /// Most parse paths listed on each side to compare classes.
    pub max_paths: usize,
    /// Most classes listed under each path.
    pub max_classes: usize,
    /// Most entries in each list of the report.
    pub max_listed: usize,
    /// Fail when a class, or the slowest class, got slower by more than
    /// this (ns).
    pub fail_above_ns: Option<f64>,
}

impl DiffOptions {
    /// Compares `old` with `new` with the default bounds.
    pub fn new(old: PredictOptions, new: PredictOptions) -> DiffOptions {
        DiffOptions {
            old,
            new,
            listings: false,
            max_paths: DEFAULT_MAX_PATHS,
            max_classes: DEFAULT_MAX_CLASSES,
            max_listed: DEFAULT_MAX_LISTED,
            fail_above_ns: None,
        }
    }
}

/// One side of the comparison.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SideOut {
    /// The program as given.
    pub program: String,
    /// The git revision it was read at (`null`: the working tree).
    pub revision: Option<String>,
    /// The latency model.
    pub model: String,
    /// The port the model is for, when it depends on one.
    pub port_gbps: Option<u32>,
    /// Packet size of the prediction (B).
    pub packet_size: u32,
}

/// A figure before and after.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Delta {
    /// Before.
    pub old: f64,
    /// After.
    pub new: f64,
    /// `new - old`.
    pub delta: f64,
}

impl Delta {
    fn of(old: f64, new: f64) -> Delta {
        Delta {
            old,
            new,
            delta: new - old,
        }
    }
}

/// A count before and after, exact (decimal text: counts may exceed what a
/// JSON number holds).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CountDelta {
    /// Before (`null` when that side has no such count).
    pub old: Option<String>,
    /// After.
    pub new: Option<String>,
}

/// A class on one side only.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ClassOut {
    /// Headers its parse path extracts.
    pub headers: Vec<String>,
    /// Parser metadata headers (resubmit, mirror, bridged), when any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub metadata: Vec<String>,
    /// Its control path in a few words (`none` without tables).
    pub class: String,
    /// Its latency (ns).
    pub latency_ns: f64,
}

/// A class on both sides.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ClassDelta {
    /// Headers its parse path extracts.
    pub headers: Vec<String>,
    /// Parser metadata headers, when any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub metadata: Vec<String>,
    /// Its control path in a few words.
    pub class: String,
    /// Latency before (ns).
    pub old_ns: f64,
    /// Latency after (ns).
    pub new_ns: f64,
    /// `new_ns - old_ns`.
    pub delta_ns: f64,
}

/// A parse path (by its headers) before and after: its slowest and fastest
/// class, exact over all its classes whatever is listed.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct PathDelta {
    /// Headers it extracts.
    pub headers: Vec<String>,
    /// Parser metadata headers, when any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub metadata: Vec<String>,
    /// Its slowest class.
    pub max: Delta,
    /// Its fastest class.
    pub min: Delta,
}

/// A parse path on one side only.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct PathOnly {
    /// Headers it extracts.
    pub headers: Vec<String>,
    /// Parser metadata headers, when any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub metadata: Vec<String>,
    /// Its slowest class (ns).
    pub max_ns: f64,
    /// Its fastest class (ns).
    pub min_ns: f64,
}

/// MAU cycles of one gress before and after.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct GressDelta {
    /// `ingress`, `egress` or `ghost`.
    pub gress: String,
    /// Cycles before (`null`: the gress applies nothing).
    pub old: Option<u32>,
    /// Cycles after.
    pub new: Option<u32>,
    /// `new - old` (a missing side counts 0).
    pub delta: i64,
    /// The same in ns at the model's clock.
    pub delta_ns: f64,
}

/// How much of the class comparison is complete.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CompletenessOut {
    /// True when every class of both sides was compared: then `added` and
    /// `removed` are every class added and removed.
    pub complete: bool,
    /// Why not, in sentences.
    pub notes: Vec<String>,
}

pub use terms::TermDelta;

/// One pipeline compared.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct PipelineDiff {
    /// The pipeline (`null` for a program with one pipeline).
    pub pipeline: Option<String>,
    /// False when only the new program has it.
    pub in_old: bool,
    /// False when only the old program has it.
    pub in_new: bool,
    /// The slowest packet class over all paths.
    pub max_latency: Option<Delta>,
    /// The fastest.
    pub min_latency: Option<Delta>,
    /// Parse paths.
    pub paths: CountDelta,
    /// Packet classes.
    pub classes: CountDelta,
    /// Match tables applied (ingress and egress) the old program did not.
    pub tables_added: Vec<String>,
    /// Match tables the new program no longer applies.
    pub tables_removed: Vec<String>,
    /// The MAU model of the cycle figures.
    pub mau_model: Option<String>,
    /// MAU cycles per gress.
    pub mau: Vec<GressDelta>,
    /// Why the MAU cycles are not compared, when they are not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mau_note: Option<String>,
    /// Tables (by name) whose term changed, or that one side only
    /// applies, largest change first.
    pub table_terms_changed: Vec<TermDelta>,
    /// Tables on both sides with the same term.
    pub table_terms_unchanged: usize,
    /// Parse states (by name) whose largest term over all paths changed,
    /// or that one side only has, largest change first.
    pub state_terms_changed: Vec<TermDelta>,
    /// Parse states on both sides with the same largest term.
    pub state_terms_unchanged: usize,
    /// True when parse paths and classes were compared one by one
    /// (`--paths`); else the `paths_*` and class lists below are empty.
    pub listings_compared: bool,
    /// Parse paths (by header sequence) on both sides whose slowest or
    /// fastest class changed, largest change of the slowest first.
    pub paths_changed: Vec<PathDelta>,
    /// All of them.
    pub paths_changed_count: usize,
    /// Parse paths on both sides with the same slowest and fastest class.
    pub paths_unchanged: usize,
    /// Parse paths only in the new program (when every path of both sides
    /// is listed), slowest first.
    pub paths_added: Vec<PathOnly>,
    /// All of them.
    pub paths_added_count: usize,
    /// Parse paths only in the old program, slowest first.
    pub paths_removed: Vec<PathOnly>,
    /// All of them.
    pub paths_removed_count: usize,
    /// Classes only in the new program, slowest first.
    pub added: Vec<ClassOut>,
    /// All of them (`added` may list fewer).
    pub added_count: usize,
    /// Classes only in the old program, slowest first.
    pub removed: Vec<ClassOut>,
    /// All of them.
    pub removed_count: usize,
    /// Classes on both sides whose latency changed, largest change
    /// (absolute) first.
    pub changed: Vec<ClassDelta>,
    /// All of them.
    pub changed_count: usize,
    /// Classes on both sides with the same latency.
    pub unchanged: usize,
    /// Whether the class lists are complete.
    pub compared: CompletenessOut,
    /// The largest increase (ns) of the slowest class, of the slowest
    /// class of a parse path on both sides, or of a class on both sides,
    /// listed or not; 0 when nothing got slower.
    pub worst_increase_ns: f64,
}

/// The comparison.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct DiffReport {
    /// [`crate::report::SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The p4cost that compared.
    pub p4cost_version: String,
    /// Before.
    pub old: SideOut,
    /// After.
    pub new: SideOut,
    /// Each pipeline, paired by name (a program with one pipeline pairs
    /// with the other's one).
    pub pipelines: Vec<PipelineDiff>,
    /// The largest increase (ns) of any pipeline's
    /// [`PipelineDiff::worst_increase_ns`]; 0 when nothing got slower.
    pub worst_increase_ns: f64,
    /// The `--fail-above` threshold.
    pub fail_above_ns: Option<f64>,
    /// True when `worst_increase_ns` exceeds `fail_above_ns`.
    pub failed: bool,
}

/// Compares the two programs of `d`.
pub fn diff(session: &mut Session, d: &DiffOptions) -> Result<DiffReport, Error> {
    let mut d = d.clone();
    // A context.json alone has no parse graph, so no latency per class:
    // with no model asked for, both sides are compared on MAU cycles.
    let no_graph = |session: &mut Session, o: &PredictOptions| -> Result<bool, Error> {
        Ok(session.load(o)?.program.parsers.is_empty())
    };
    if d.old.target.model.is_none()
        && d.new.target.model.is_none()
        && (no_graph(session, &d.old)? || no_graph(session, &d.new)?)
    {
        for o in [&mut d.old, &mut d.new] {
            o.target = crate::check::mau_target(session, o)?;
        }
    }
    let d = &d;
    let old = side_reports(session, &d.old, d)?;
    let new = side_reports(session, &d.new, d)?;
    // A program the MAU model cannot place (it needs more stages than the
    // chip has) still has its latency compared: the reason is reported.
    // MAU cycles are a Tofino figure: for programs of other targets they
    // are compared only when a MAU model is asked for.
    let (mau_old, mau_new) = match not_compared_on_mau(session, d)? {
        Some(why) => (Err(why.clone()), Err(why)),
        None => (
            crate::check::mau_reports(session, &d.old).map_err(|e| format!("old program: {e}")),
            crate::check::mau_reports(session, &d.new).map_err(|e| format!("new program: {e}")),
        ),
    };
    let pairs = pair(&old, &new);
    let mut pipelines = Vec::with_capacity(pairs.len());
    for (o, n) in pairs {
        let mut p = compare(o.map(|i| &old[i]), n.map(|i| &new[i]), d);
        compare_mau(&mut p, o, n, &mau_old, &mau_new);
        pipelines.push(p);
    }
    let worst = pipelines
        .iter()
        .map(|p| p.worst_increase_ns)
        .fold(0.0_f64, f64::max);
    let first = |rs: &[Report], o: &PredictOptions| -> SideOut {
        let r = rs.first();
        SideOut {
            program: o.file.display().to_string(),
            revision: o.source.revision.clone(),
            model: r.map(|r| r.model.name.clone()).unwrap_or_default(),
            port_gbps: r.and_then(|r| r.port_gbps),
            packet_size: r.map_or(0, |r| r.packet_size),
        }
    };
    Ok(DiffReport {
        schema_version: crate::report::SCHEMA_VERSION,
        p4cost_version: env!("CARGO_PKG_VERSION").to_string(),
        old: first(&old, &d.old),
        new: first(&new, &d.new),
        pipelines,
        worst_increase_ns: worst,
        fail_above_ns: d.fail_above_ns,
        failed: d.fail_above_ns.is_some_and(|f| worst > f),
    })
}

/// One side's reports, listing up to the bounds in graph order.
fn side_reports(
    session: &mut Session,
    o: &PredictOptions,
    d: &DiffOptions,
) -> Result<Vec<Report>, Error> {
    let mut o = o.clone();
    // Without listings, one path (its breakdown holds every table's term)
    // with one class.
    (o.max_paths, o.max_classes) = match d.listings {
        true => (d.max_paths, Some(d.max_classes)),
        false => (1, Some(1)),
    };
    o.top = None;
    o.path = None;
    o.class = None;
    o.sort = SortBy::Order;
    let rev = o.source.revision.clone();
    session.reports(&o).map_err(|e| match rev {
        Some(r) => e.context(&format!("at revision {r}")),
        None => e,
    })
}

/// Pairs the pipelines: by name, or the only one of each side with the
/// other's only one.
fn pair(old: &[Report], new: &[Report]) -> Vec<(Option<usize>, Option<usize>)> {
    if old.len() == 1 && new.len() == 1 {
        return vec![(Some(0), Some(0))];
    }
    let name = |r: &Report| r.pipeline.as_ref().map(|p| p.name.clone());
    let mut out: Vec<(Option<usize>, Option<usize>)> = Vec::new();
    let by_name: BTreeMap<Option<String>, usize> =
        new.iter().enumerate().map(|(i, r)| (name(r), i)).collect();
    let mut used = vec![false; new.len()];
    for (i, r) in old.iter().enumerate() {
        match by_name.get(&name(r)) {
            Some(&j) => {
                used[j] = true;
                out.push((Some(i), Some(j)));
            }
            None => out.push((Some(i), None)),
        }
    }
    out.extend(
        used.iter()
            .enumerate()
            .filter(|(_, u)| !**u)
            .map(|(j, _)| (None, Some(j))),
    );
    out
}

/// A class's name on one side.
type ClassKey = (Vec<String>, Vec<String>, String);

/// A parse path's name: its headers and metadata headers.
type PathKey = (Vec<String>, Vec<String>);

/// The classes listed in `r` by name (duplicate names numbered), the
/// number of paths whose classes were not all listed, and whether every
/// path was listed.
struct Listed {
    /// Slowest and fastest class of each header sequence (the paths with
    /// the same headers taken together).
    paths: HashMap<PathKey, (f64, f64)>,
    classes: HashMap<ClassKey, f64>,
    paths_with_unlisted_classes: usize,
    all_paths: bool,
}

fn listed(r: &Report) -> Listed {
    let mut classes: HashMap<ClassKey, f64> = HashMap::new();
    // The last number given to a duplicate of each name, so numbering
    // stays linear however many classes share a name.
    let mut seen: HashMap<ClassKey, usize> = HashMap::new();
    let mut paths: HashMap<PathKey, (f64, f64)> = HashMap::new();
    let mut partial = 0;
    for p in &r.paths {
        paths
            .entry((p.headers.clone(), p.metadata.clone()))
            .and_modify(|(hi, lo)| {
                *hi = hi.max(p.latency_ns);
                *lo = lo.min(p.min_latency_ns);
            })
            .or_insert((p.latency_ns, p.min_latency_ns));
        let mut put = |brief: String, ns: f64| {
            let base = (p.headers.clone(), p.metadata.clone(), brief);
            let key = if classes.contains_key(&base) {
                // `base #n` from the last n taken for this name (a literal
                // name `x #2` may already stand for itself: skipped).
                let n = seen.entry(base.clone()).or_insert(1);
                loop {
                    *n += 1;
                    let k = (base.0.clone(), base.1.clone(), format!("{} #{n}", base.2));
                    if !classes.contains_key(&k) {
                        break k;
                    }
                }
            } else {
                base
            };
            classes.insert(key, ns);
        };
        match &p.classes {
            Some(c) => {
                if c.truncated {
                    partial += 1;
                }
                for class in &c.classes {
                    put(
                        crate::path_classes::class_brief(class, &r.tables, &r.decisions),
                        class.latency_ns,
                    );
                }
            }
            None => put("every table".to_string(), p.latency_ns),
        }
    }
    let all_paths = !r.path_count_saturated && r.paths.len() as u128 == r.path_count;
    Listed {
        paths,
        classes,
        paths_with_unlisted_classes: partial,
        all_paths,
    }
}

fn tables(r: &Report) -> BTreeSet<String> {
    let mut t: BTreeSet<String> = r.control.tables.iter().cloned().collect();
    if let Some(e) = &r.control.egress {
        t.extend(e.tables.iter().cloned());
    }
    t
}

fn class_count(r: &Report) -> Option<String> {
    r.summary
        .as_ref()
        .and_then(|s| s.classes.as_ref())
        .map(|c| c.text.clone())
}

/// Compares one pipeline: its summaries, and with `--paths` its listings.
fn compare(old: Option<&Report>, new: Option<&Report>, d: &DiffOptions) -> PipelineDiff {
    let mut p = pipeline_diff(old, new);
    p.worst_increase_ns = p.max_latency.as_ref().map_or(0.0, |m| m.delta.max(0.0));
    let (Some(old), Some(new)) = (old, new) else {
        p.compared.notes.push(if p.in_old {
            "the pipeline is only in the old program".to_string()
        } else {
            "the pipeline is only in the new program".to_string()
        });
        return p;
    };
    if old.summary.is_none() || new.summary.is_none() {
        p.compared.complete = false;
        p.compared.notes.push(format!(
            "model {} gives no latency per packet class: only the MAU cycles are compared",
            new.model.name
        ));
        return p;
    }
    terms::compare(&mut p, old, new);
    if !d.listings {
        p.compared.complete = false;
        p.compared.notes.push(
            "only the summaries are compared (counts, slowest and fastest class, each \
             table's and parse state's term); --paths compares parse paths and classes one \
             by one too (up to --max-paths paths of each side)"
                .to_string(),
        );
        return p;
    }
    compare_listings(&mut p, old, new, d);
    p
}

/// The summaries of a pipeline in `old` and `new` (either may lack it):
/// counts, extremes and tables by name; nothing listed yet.
fn pipeline_diff(old: Option<&Report>, new: Option<&Report>) -> PipelineDiff {
    let pipeline = new
        .or(old)
        .and_then(|r| r.pipeline.as_ref())
        .filter(|p| p.all.len() > 1)
        .map(|p| p.name.clone());
    let extreme = |r: Option<&Report>, max: bool| {
        r.and_then(|r| r.summary.as_ref())
            .and_then(|s| if max { s.max.as_ref() } else { s.min.as_ref() })
            .map(|e| e.latency_ns)
    };
    let both = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) => Some(Delta::of(a, b)),
        _ => None,
    };
    let (to, tn) = (
        old.map(tables).unwrap_or_default(),
        new.map(tables).unwrap_or_default(),
    );
    PipelineDiff {
        pipeline,
        in_old: old.is_some(),
        in_new: new.is_some(),
        max_latency: both(extreme(old, true), extreme(new, true)),
        min_latency: both(extreme(old, false), extreme(new, false)),
        paths: CountDelta {
            old: old.map(|r| r.path_count_text.clone()),
            new: new.map(|r| r.path_count_text.clone()),
        },
        classes: CountDelta {
            old: old.and_then(class_count),
            new: new.and_then(class_count),
        },
        tables_added: tn.difference(&to).cloned().collect(),
        tables_removed: to.difference(&tn).cloned().collect(),
        mau_model: None,
        mau: Vec::new(),
        mau_note: None,
        table_terms_changed: Vec::new(),
        table_terms_unchanged: 0,
        state_terms_changed: Vec::new(),
        state_terms_unchanged: 0,
        listings_compared: false,
        paths_changed: Vec::new(),
        paths_changed_count: 0,
        paths_unchanged: 0,
        paths_added: Vec::new(),
        paths_added_count: 0,
        paths_removed: Vec::new(),
        paths_removed_count: 0,
        added: Vec::new(),
        added_count: 0,
        removed: Vec::new(),
        removed_count: 0,
        changed: Vec::new(),
        changed_count: 0,
        unchanged: 0,
        compared: CompletenessOut {
            complete: true,
            notes: Vec::new(),
        },
        worst_increase_ns: 0.0,
    }
}

/// Compares the listed parse paths and classes of both sides (`--paths`),
/// saying what the listings leave out.
fn compare_listings(p: &mut PipelineDiff, old: &Report, new: &Report, d: &DiffOptions) {
    p.listings_compared = true;
    let (lo, ln) = (listed(old), listed(new));
    let mut notes = Vec::new();
    for (side, l, r) in [("old", &lo, old), ("new", &ln, new)] {
        if !l.all_paths {
            notes.push(format!(
                "the {side} program has {} parse paths, {} listed (--max-paths {}): classes on paths not listed are not compared, and none is called added or removed",
                r.path_count_text,
                r.paths.len(),
                d.max_paths
            ));
        }
        if l.paths_with_unlisted_classes > 0 {
            notes.push(format!(
                "{} path(s) of the {side} program have more than {} classes (--max-classes): only the listed ones are compared",
                l.paths_with_unlisted_classes, d.max_classes
            ));
        }
    }
    let all_paths = lo.all_paths && ln.all_paths;
    compare_paths(p, &lo, &ln, all_paths, d.max_listed);
    let complete = notes.is_empty();
    p.compared = CompletenessOut { complete, notes };
    compare_classes(p, &lo, &ln, complete, d.max_listed);
}

/// Compares the listed classes by name: changed (largest change first),
/// added and removed (slowest first), the lists cut at `max_listed`.
fn compare_classes(
    p: &mut PipelineDiff,
    lo: &Listed,
    ln: &Listed,
    complete: bool,
    max_listed: usize,
) {
    let sp = split(&lo.classes, &ln.classes, complete, |o, n| same(*o, *n));
    p.unchanged = sp.unchanged;
    let mut changed: Vec<ClassDelta> = sp
        .changed
        .into_iter()
        .map(|(k, &o, &n)| ClassDelta {
            headers: k.0.clone(),
            metadata: k.1.clone(),
            class: k.2.clone(),
            old_ns: o,
            new_ns: n,
            delta_ns: n - o,
        })
        .collect();
    let mut added: Vec<ClassOut> = sp
        .added
        .into_iter()
        .map(|(k, &n)| class_out(k, n))
        .collect();
    let mut removed: Vec<ClassOut> = sp
        .removed
        .into_iter()
        .map(|(k, &o)| class_out(k, o))
        .collect();
    changed.sort_by(|a, b| b.delta_ns.abs().total_cmp(&a.delta_ns.abs()));
    added.sort_by(|a, b| b.latency_ns.total_cmp(&a.latency_ns));
    removed.sort_by(|a, b| b.latency_ns.total_cmp(&a.latency_ns));
    (p.changed_count, p.added_count, p.removed_count) = (changed.len(), added.len(), removed.len());
    // Over every changed class, listed or not.
    p.worst_increase_ns = changed
        .iter()
        .map(|c| c.delta_ns)
        .fold(p.worst_increase_ns, f64::max);
    changed.truncate(max_listed);
    added.truncate(max_listed);
    removed.truncate(max_listed);
    p.changed = changed;
    p.added = added;
    p.removed = removed;
}

/// Compares the parse paths by header sequence: their slowest and fastest
/// class are exact (the summary's dynamic program over all their
/// classes), so a path is compared even when its classes are too many to
/// list; a path is added or removed only when every path is listed.
fn compare_paths(p: &mut PipelineDiff, lo: &Listed, ln: &Listed, all: bool, max_listed: usize) {
    let only = |(k, &(max_ns, min_ns)): (&PathKey, &(f64, f64))| PathOnly {
        headers: k.0.clone(),
        metadata: k.1.clone(),
        max_ns,
        min_ns,
    };
    let sp = split(&lo.paths, &ln.paths, all, |o, n| {
        same(o.0, n.0) && same(o.1, n.1)
    });
    p.paths_unchanged = sp.unchanged;
    let mut changed: Vec<PathDelta> = sp
        .changed
        .into_iter()
        .map(|(k, o, n)| PathDelta {
            headers: k.0.clone(),
            metadata: k.1.clone(),
            max: Delta::of(o.0, n.0),
            min: Delta::of(o.1, n.1),
        })
        .collect();
    let mut added: Vec<PathOnly> = sp.added.into_iter().map(only).collect();
    let mut removed: Vec<PathOnly> = sp.removed.into_iter().map(only).collect();
    changed.sort_by(|a, b| {
        b.max
            .delta
            .abs()
            .total_cmp(&a.max.delta.abs())
            .then(b.min.delta.abs().total_cmp(&a.min.delta.abs()))
    });
    added.sort_by(|a, b| b.max_ns.total_cmp(&a.max_ns));
    removed.sort_by(|a, b| b.max_ns.total_cmp(&a.max_ns));
    p.worst_increase_ns = changed
        .iter()
        .map(|c| c.max.delta)
        .fold(p.worst_increase_ns, f64::max);
    p.paths_changed_count = changed.len();
    p.paths_added_count = added.len();
    p.paths_removed_count = removed.len();
    changed.truncate(max_listed);
    added.truncate(max_listed);
    removed.truncate(max_listed);
    p.paths_changed = changed;
    p.paths_added = added;
    p.paths_removed = removed;
}

/// The entries of two sides by key.
struct Split<'a, K, V> {
    /// On both sides, not the same: (key, old, new).
    changed: Vec<(&'a K, &'a V, &'a V)>,
    /// Only new (empty unless complete).
    added: Vec<(&'a K, &'a V)>,
    /// Only old (empty unless complete).
    removed: Vec<(&'a K, &'a V)>,
    /// On both sides, the same.
    unchanged: usize,
}

/// Splits `old` and `new` by key; an entry on one side only is added or
/// removed only when both sides are `complete` (else it may just be
/// unlisted on the other). Each list is in key order, so ties of the
/// callers' stable sorts come out the same on every run.
fn split<'a, K: Ord + std::hash::Hash, V>(
    old: &'a HashMap<K, V>,
    new: &'a HashMap<K, V>,
    complete: bool,
    same: impl Fn(&V, &V) -> bool,
) -> Split<'a, K, V> {
    let mut sp = Split {
        changed: Vec::new(),
        added: Vec::new(),
        removed: Vec::new(),
        unchanged: 0,
    };
    for (k, n) in new {
        match old.get(k) {
            Some(o) if same(o, n) => sp.unchanged += 1,
            Some(o) => sp.changed.push((k, o, n)),
            None if complete => sp.added.push((k, n)),
            None => {}
        }
    }
    if complete {
        sp.removed = old.iter().filter(|(k, _)| !new.contains_key(*k)).collect();
    }
    sp.changed.sort_unstable_by(|a, b| a.0.cmp(b.0));
    sp.added.sort_unstable_by(|a, b| a.0.cmp(b.0));
    sp.removed.sort_unstable_by(|a, b| a.0.cmp(b.0));
    sp
}

/// Equal up to the binary noise of summing terms in another order.
fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

fn class_out(k: &ClassKey, ns: f64) -> ClassOut {
    ClassOut {
        headers: k.0.clone(),
        metadata: k.1.clone(),
        class: k.2.clone(),
        latency_ns: ns,
    }
}

/// Why the MAU cycles of `d` are not compared: a side's program is
/// written for another target than Tofino and no MAU model was asked for.
fn not_compared_on_mau(session: &mut Session, d: &DiffOptions) -> Result<Option<String>, Error> {
    let asked = [&d.old, &d.new].into_iter().any(|o| {
        o.target
            .model
            .as_deref()
            .and_then(|m| p4cost_model::model_by_name(m).ok())
            .is_some_and(|m| m.mau().is_some())
    });
    if asked {
        return Ok(None);
    }
    for o in [&d.old, &d.new] {
        let arch = session.load(o)?.program.arch;
        if arch.tofino_generation().is_none() && arch != p4cost_ir::Arch::Unknown {
            return Ok(Some(format!(
                "{} is written for {}, not Tofino: MAU cycles are a Tofino placement estimate \
                 (--model tofino1-mau-estimate compares them)",
                o.file.display(),
                arch.name()
            )));
        }
    }
    Ok(None)
}

fn compare_mau(
    p: &mut PipelineDiff,
    o: Option<usize>,
    n: Option<usize>,
    old: &Result<Vec<Report>, String>,
    new: &Result<Vec<Report>, String>,
) {
    let (old, new) = match (old, new) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            p.mau_note = Some(e.clone());
            return;
        }
    };
    let ro = o.and_then(|i| old.get(i));
    let rn = n.and_then(|i| new.get(i));
    p.mau_model = rn.or(ro).map(|r| r.model.name.clone());
    let gress = |r: Option<&Report>, g: &str| -> Option<GressCycles> {
        let m = r?.mau.as_ref()?;
        match g {
            "ingress" => m.ingress.clone(),
            "egress" => m.egress.clone(),
            _ => m.ghost.clone(),
        }
    };
    for g in ["ingress", "egress", "ghost"] {
        let (a, b) = (gress(ro, g), gress(rn, g));
        if a.is_none() && b.is_none() {
            continue;
        }
        let cycles = |x: &Option<GressCycles>| x.as_ref().map(|x| x.cycles);
        let ns = |x: &Option<GressCycles>| x.as_ref().map_or(0.0, |x| x.ns);
        p.mau.push(GressDelta {
            gress: g.to_string(),
            old: cycles(&a),
            new: cycles(&b),
            delta: i64::from(cycles(&b).unwrap_or(0)) - i64::from(cycles(&a).unwrap_or(0)),
            delta_ns: ns(&b) - ns(&a),
        });
    }
    // The tables the compiler placed (or the estimate placed), egress
    // included, join those the controls apply; compiler-made ones are
    // costed in the cycles above, not compared by name.
    let placed = |r: Option<&Report>| -> BTreeSet<String> {
        let mut t = BTreeSet::new();
        if let Some(m) = r.and_then(|r| r.mau.as_ref()) {
            for g in [&m.ingress, &m.egress, &m.ghost].into_iter().flatten() {
                for st in &g.stages {
                    t.extend(st.tables.iter().filter(|x| !compiler_made(x)).cloned());
                }
            }
        }
        t
    };
    let (po, pn) = (placed(ro), placed(rn));
    let mut added: BTreeSet<String> = p.tables_added.iter().cloned().collect();
    let mut removed: BTreeSet<String> = p.tables_removed.iter().cloned().collect();
    if o.is_some() && n.is_some() {
        added.extend(pn.difference(&po).cloned());
        removed.extend(po.difference(&pn).cloned());
    }
    p.tables_added = added.into_iter().collect();
    p.tables_removed = removed.into_iter().collect();
    // Without a latency per class, the MAU figure is the latency.
    if p.max_latency.is_none() && o.is_some() && n.is_some() {
        p.worst_increase_ns = p
            .mau
            .iter()
            .map(|g| g.delta_ns)
            .fold(p.worst_increase_ns, f64::max);
    }
}

/// True for a placed table the compiler (or the estimate, naming as the
/// compiler does) made, not the programmer: `tbl_*` for a run of apply-block
/// statements or a direct action call, and `$`-named internal tables. Their
/// names differ between a source and its compiler output (the estimate's
/// `tbl_assign` is p4c's `tbl_<file>l<line>`), so they are never "added" or
/// "removed"; what they cost is in the MAU cycles. Any name component may
/// start the `tbl_` (the estimate's `tbl_call_reg.write` quotes a method
/// call). Match tables named `tbl_*` are in the controls' tables, which are
/// compared whole.
fn compiler_made(name: &str) -> bool {
    name.split('.').any(|c| c.starts_with("tbl_")) || name.contains('$')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiler_made_tables_are_told_by_name() {
        for t in [
            "tbl_assign",
            "ingress.tbl_act",
            "tbl_call_reg.write",
            "$PORT_METADATA",
        ] {
            assert!(compiler_made(t), "{t}");
        }
        for t in ["ingress.ipv4_fib", "Ig.acl", "tblx"] {
            assert!(!compiler_made(t), "{t}");
        }
    }

    #[test]
    fn equal_sums_in_another_order_are_the_same() {
        assert!(same(0.1 + 0.2 + 0.3, 0.3 + 0.2 + 0.1));
        assert!(!same(312.5, 312.6));
    }
}
