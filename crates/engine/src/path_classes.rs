//! The packet classes of each listed parse path: its control paths through
//! the ingress control, each with its latency (only the tables it applies
//! charged), the tables with their sites, the ways it took at every branch
//! (conditions, hit/miss, `action_run`) and why every other table is
//! skipped. Optionally only the classes a `--class` filter selects.

use std::sync::Arc;

use serde::Serialize;

use p4cost_analysis::{
    ClassFilter, ClassLister, ClassRefs, ListedClass, Outcome, PathCount, PathGraph,
};
use p4cost_ir::{ControlId, NodeKind, Program, TableId};

use crate::report::{count_text, CountOut, Loc};

mod repeat;

/// Classes listed under each path unless `--max-classes` says otherwise.
pub const DEFAULT_MAX_CLASSES: usize = 8;
/// Classes listed for the one path of `--path` unless `--max-classes` says
/// otherwise.
pub const DEFAULT_MAX_CLASSES_ONE_PATH: usize = 32;

/// Classes listed under each path for `a`: `--max-classes`, else the
/// default for one `--path` or for the listing.
pub fn max_classes(a: &crate::PredictOptions) -> usize {
    a.max_classes.unwrap_or(if a.path.is_some() {
        DEFAULT_MAX_CLASSES_ONE_PATH
    } else {
        DEFAULT_MAX_CLASSES
    })
}

/// A table a class may apply: one entry of the report's `tables`, which
/// classes name by index (the name, term and site are written once, not
/// once per class).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ClassTableOut {
    /// Qualified name.
    pub name: String,
    /// What it adds to the latency (ns).
    pub latency_ns: f64,
    /// Where the table is declared.
    pub span: Loc,
    /// `ingress` or `egress`: the control it is applied in.
    pub gress: &'static str,
}

/// A way a class took where its control path branches: one entry of the
/// report's `decisions`, which classes name by index (each site's text
/// and span are written once, not once per class).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct DecisionOut {
    /// `if (...)` with the condition, or the table's name.
    pub at: String,
    /// `true` / `false` for a condition, `hit` / `miss`, or
    /// `action_run = a | b` (with `(default)` for actions without a case).
    pub outcome: String,
    /// True when the parse path decides it (header validity known on the
    /// path; in egress, known when egress starts): no class of this path
    /// goes the other way.
    pub forced: bool,
    /// Where the condition or the table application is written.
    pub span: Loc,
    /// `ingress` or `egress`: the control it is in.
    pub gress: &'static str,
}

/// A table of the control a class does not apply, and why: one entry of
/// the report's `skipped`, which classes name by index.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SkippedOut {
    pub table: String,
    pub reason: String,
}

/// One packet class of a listed path.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct PathClassOut {
    /// `P.C`: the path's number in the listing and the class's number
    /// among all the path's classes (control order), both 1-based: the
    /// same with or without `--class`.
    pub id: String,
    /// The path's latency with only this class's tables charged.
    pub latency_ns: f64,
    /// Tables applied, in order: indexes into the report's `tables`.
    pub tables: Vec<u32>,
    /// The way taken at each branch of the control path, in order:
    /// indexes into the report's `decisions`.
    pub decisions: Vec<u32>,
    /// Tables of the control not applied, with why: indexes into the
    /// report's `skipped`.
    pub skipped: Vec<u32>,
    /// A CPU model's cycles and rate for the class (`--model t4p4s`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu: Option<crate::cpu_out::ClassCpuOut>,
    /// A pass model's passes and figures for the class (`--model
    /// nfp4000`, `--model bmv2-coarse`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recirc: Option<crate::pass_out::ClassPassOut>,
}

/// The report's `decisions` and `skipped` lists as the classes of every
/// listed path are made: each distinct entry once, classes hold indexes.
#[derive(Debug, Default)]
pub struct ClassSites {
    /// Every way taken at a branch by some listed class.
    pub decisions: Vec<DecisionOut>,
    /// Every table skipped by some listed class, with why.
    pub skipped: Vec<SkippedOut>,
    /// By control node (its index), the ways taken there met so far:
    /// outcome, `forced`, index in `decisions` (outcomes whose texts are
    /// one share an index).
    decision_at: Vec<Vec<(Outcome, bool, u32)>>,
    /// By table (its index), its entries' reasons as the lister shares
    /// them and their indexes in `skipped`: a reason met again is found by
    /// its pointer, not by comparing its text (a reason whose text is
    /// already there under another pointer joins with the same index).
    skipped_at: Vec<Vec<(Arc<str>, u32)>>,
    /// The skipped tables of the class made last, each with its place in
    /// the control's order, its [`SkipKey`] and its index (`None`: not
    /// listed): the next class of a path mostly skips the same tables for
    /// the same reasons, so each entry is checked against the last class's
    /// entry at its place (found by merging the two lists in order) before
    /// it is looked up.
    last_skipped: Vec<(u32, SkipKey, Option<u32>)>,
    /// The list `last_skipped` was before, its room kept for the next.
    spare_skipped: Vec<(u32, SkipKey, Option<u32>)>,
    /// By a decision's id as a lister hands it over
    /// ([`ClassRefs::decision_ids`]; one lister fills one `ClassSites`),
    /// its index in `decisions` once looked up ([`NOT_LOOKED_UP`]: not
    /// yet; [`NOT_LISTED`]: none).
    decision_by_id: Vec<u32>,
    /// The classes of each path signature listed so far ([`path_classes`]:
    /// one lister and one [`ClassContext`] fill one `ClassSites`).
    listed: repeat::Listings,
}

/// [`ClassSites::decision_by_id`] of a decision not looked up yet.
const NOT_LOOKED_UP: u32 = u32::MAX;
/// [`ClassSites::decision_by_id`] of a decision with no entry.
const NOT_LISTED: u32 = u32::MAX - 1;

/// What tells a skipped table and its reason from the others, from one
/// class to the next, without reading the reason's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SkipKey {
    /// A class's own [`p4cost_analysis::SkippedTable`]: the table and its
    /// reason's address. Every address of a listed table's reason here
    /// belongs to a reason `skipped_at` holds, so none is freed and reused
    /// (a table not listed is not listed whatever its reason).
    Shared(TableId, usize),
    /// A table the lister hands over ([`p4cost_analysis::SkipRef::id`]):
    /// one lister fills one `ClassSites`.
    Listed(u64),
}

/// The skipped tables of a class as [`ClassSites::skips`] reads them:
/// each one's key alone first, the table and its reason only where the key
/// is new.
#[derive(Clone, Copy)]
enum SkipList<'r> {
    /// A class made whole ([`ListedClass::skipped`]).
    Own(&'r [p4cost_analysis::SkippedTable]),
    /// As a lister hands a class over.
    Listed(&'r ClassRefs<'r>),
}

impl<'r> SkipList<'r> {
    fn len(self) -> usize {
        match self {
            SkipList::Own(s) => s.len(),
            SkipList::Listed(r) => r.len(),
        }
    }

    /// The `j`th table's place in the control's order (ascending along a
    /// class; a class's own list by its place in the list, entry by entry
    /// against the last class's) and its key.
    fn key(self, j: usize) -> Option<(u32, SkipKey)> {
        match self {
            SkipList::Own(s) => s.get(j).map(|s| {
                (
                    j as u32,
                    SkipKey::Shared(s.table, s.reason.as_ptr() as usize),
                )
            }),
            SkipList::Listed(r) => r.key(j).map(|(place, id)| (place, SkipKey::Listed(id))),
        }
    }

    /// The `j`th table and why it is skipped.
    fn item(self, j: usize) -> Option<(TableId, &'r Arc<str>)> {
        match self {
            SkipList::Own(s) => s.get(j).map(|s| (s.table, &s.reason)),
            SkipList::Listed(r) => r.get(j).map(|s| (s.table, s.reason)),
        }
    }
}

/// `by[i]`, made (empty) if `by` is shorter: the lists are indexed by
/// node or table index, dense and bounded by the program, so a lookup is
/// an index, not a hash.
fn at_index<T>(by: &mut Vec<Vec<T>>, i: usize) -> &mut Vec<T> {
    if by.len() <= i {
        by.resize_with(i + 1, Vec::new);
    }
    &mut by[i]
}

impl ClassSites {
    /// The index of the way `d` takes, added to `decisions` if new. The
    /// outcome's text is made once per distinct outcome, not per class.
    fn decision(
        &mut self,
        cx: &ClassContext<'_, '_>,
        d: &p4cost_analysis::Decision,
    ) -> Option<u32> {
        let node = d.node.index();
        let known = at_index(&mut self.decision_at, node);
        if let Some(&(_, _, i)) = known
            .iter()
            .find(|(o, f, _)| *f == d.forced && *o == d.outcome)
        {
            return Some(i);
        }
        let text = outcome_text(cx.program, &d.outcome);
        let same_text = known.iter().find(|(_, f, i)| {
            *f == d.forced
                && self
                    .decisions
                    .get(*i as usize)
                    .is_some_and(|o| o.outcome == text)
        });
        let i = match same_text {
            Some(&(_, _, i)) => i,
            None => {
                let out = decision_out(cx, d, text)?;
                let i = u32::try_from(self.decisions.len()).ok()?;
                self.decisions.push(out);
                i
            }
        };
        known.push((d.outcome.clone(), d.forced, i));
        Some(i)
    }

    /// The indexes of the skipped tables `skipped` of a class (those with
    /// an entry in `table_index`), added to `skipped` where new.
    fn skips(
        &mut self,
        program: &Program,
        table_index: &[Option<u32>],
        skipped: SkipList<'_>,
    ) -> Vec<u32> {
        let n = skipped.len();
        let mut out = Vec::with_capacity(n);
        let last = std::mem::take(&mut self.last_skipped);
        let mut made = std::mem::take(&mut self.spare_skipped);
        made.clear();
        let mut at = 0;
        for j in 0..n {
            let Some((place, key)) = skipped.key(j) else {
                continue;
            };
            while last.get(at).is_some_and(|e| e.0 < place) {
                at += 1;
            }
            let i = match last.get(at) {
                Some(&(p, k, i)) if p == place && k == key => i,
                _ => skipped.item(j).and_then(|(table, reason)| {
                    // Compiler-made tables have no index ([`class_tables`]).
                    let listed = table_index.get(table.index()).is_some_and(Option::is_some);
                    listed.then(|| self.skip(program, table, reason)).flatten()
                }),
            };
            made.push((place, key, i));
            out.extend(i);
        }
        self.last_skipped = made;
        self.spare_skipped = last;
        out
    }

    /// The index of decision `d` whose id is `id` ([`Self::decision`],
    /// looked up once per id).
    fn decision_of(
        &mut self,
        cx: &ClassContext<'_, '_>,
        d: &p4cost_analysis::Decision,
        id: u32,
    ) -> Option<u32> {
        let at = id as usize;
        match self.decision_by_id.get(at).copied() {
            Some(NOT_LISTED) => return None,
            Some(i) if i != NOT_LOOKED_UP => return Some(i),
            _ => {}
        }
        let i = self.decision(cx, d);
        let kept = match i {
            None => NOT_LISTED,
            Some(i) if i < NOT_LISTED => i,
            Some(_) => return i, // past what the cache holds: not kept
        };
        if self.decision_by_id.len() <= at {
            self.decision_by_id.resize(at + 1, NOT_LOOKED_UP);
        }
        self.decision_by_id[at] = kept;
        i
    }

    /// The index of table `table` skipped for `reason`, added if new.
    fn skip(&mut self, program: &Program, table: TableId, reason: &Arc<str>) -> Option<u32> {
        let known = at_index(&mut self.skipped_at, table.index());
        if let Some(&(_, i)) = known.iter().find(|(r, _)| Arc::ptr_eq(r, reason)) {
            return Some(i);
        }
        let skipped = &mut self.skipped;
        let same_text = known.iter().find(|(_, i)| {
            skipped
                .get(*i as usize)
                .is_some_and(|s| *s.reason == **reason)
        });
        let i = match same_text {
            Some(&(_, i)) => i,
            None => {
                let i = u32::try_from(skipped.len()).ok()?;
                skipped.push(SkippedOut {
                    table: program.table(table).name.clone(),
                    reason: reason.to_string(),
                });
                i
            }
        };
        known.push((reason.clone(), i));
        Some(i)
    }
}

/// The classes of one listed path.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct PathClassesOut {
    /// All its classes, whatever the filter (exact, see `CountOut`).
    pub total: CountOut,
    /// The `--class` filter, when one selects the listed classes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    /// True when classes (matching the filter, if any) were left unlisted.
    pub truncated: bool,
    pub classes: Vec<PathClassOut>,
    /// The path's slowest class (all its classes, whatever the filter and
    /// the listing): the one its `latency_ns` is, which `explain` and
    /// `check` name. Also in `classes` when listed there.
    pub slowest: PathClassOut,
}

/// What the listing of one path needs.
pub struct ClassContext<'p, 'f> {
    pub program: &'p Program,
    pub control: ControlId,
    /// When `control` is ingress joined to egress, its nodes below this
    /// index are ingress ones.
    pub ingress_nodes: Option<usize>,
    /// `table_ns[t]`: what table `t` adds to a path's latency.
    pub table_ns: &'p [f64],
    /// `table_index[t]`: table `t`'s index in the report's `tables`
    /// ([`class_tables`]).
    pub table_index: &'p [Option<u32>],
    pub max: usize,
    pub filter: Option<(&'f ClassFilter, &'f str)>,
}

impl ClassContext<'_, '_> {
    /// `ingress` or `egress`: the control node `node` of `control` comes
    /// from.
    fn gress_of(&self, node: usize) -> &'static str {
        match self.ingress_nodes {
            Some(n) if node >= n => "egress",
            _ => "ingress",
        }
    }
}

/// Every match table of `control` a class may apply (compiler-internal
/// ones are not charged, so not listed), in the order of the control's
/// nodes, with its term (`table_ns`) and gress (nodes from
/// `ingress_nodes` on are egress ones); and each table's index in that
/// list, by table id. The report's `tables`, which classes refer to.
pub fn class_tables(
    program: &Program,
    control: ControlId,
    ingress_nodes: Option<usize>,
    table_ns: &[f64],
) -> (Vec<Option<u32>>, Vec<ClassTableOut>) {
    let mut index = vec![None; program.tables.len()];
    let mut list = Vec::new();
    for (at, node) in program.control(control).flow.nodes.iter().enumerate() {
        let NodeKind::Table { table, .. } = &node.kind else {
            continue;
        };
        let tab = program.table(*table);
        let Some(slot) = index.get_mut(table.index()) else {
            continue;
        };
        if slot.is_some() || tab.is_compiler_made() {
            continue;
        }
        *slot = u32::try_from(list.len()).ok();
        list.push(ClassTableOut {
            name: tab.name.clone(),
            latency_ns: table_ns.get(table.index()).copied().unwrap_or(0.0),
            span: Loc::new(program, tab.span),
            gress: match ingress_nodes {
                Some(n) if at >= n => "egress",
                _ => "ingress",
            },
        });
    }
    (index, list)
}

/// One listed path as [`path_classes`] lists it.
#[derive(Debug, Clone, Copy)]
pub struct PathIn<'n> {
    /// Its graph nodes (of the listing's `PathGraph`), start first.
    pub nodes: &'n [u32],
    /// Its signature ([`ClassLister::signature`]) when worked out already.
    pub sig: Option<u64>,
    /// Its number in the listing.
    pub number: PathCount,
    /// Its latency without any table (a class adds its own).
    pub parse_ns: f64,
}

/// The classes of the parse path `path` (graph nodes of `pg`). Their
/// decisions and skipped tables go into `sites`, the classes keep
/// indexes. A path whose signature an earlier path of `sites` had takes
/// that path's classes (the lister lists by signature), with its own ids
/// and latencies, the lister charged the work listing them again takes.
pub fn path_classes(
    lister: &mut ClassLister<'_>,
    cx: &ClassContext<'_, '_>,
    sites: &mut ClassSites,
    pg: &PathGraph<'_>,
    path: PathIn<'_>,
) -> Result<PathClassesOut, String> {
    let path_no = count_text(path.number);
    let sig = match path.sig {
        Some(sig) => sig,
        None => lister
            .signature(pg, path.nodes)
            .map_err(|e| e.to_string())?,
    };
    if let Some(listed) = sites.listed.get(sig) {
        lister.charge(listed.work()).map_err(|e| e.to_string())?;
        return Ok(listed.copy_for(&path_no, path.parse_ns));
    }
    let before = lister.work();
    let (out, control_ns) = list_path(lister, cx, sites, sig, &path_no, path.parse_ns)?;
    let work = lister.work().saturating_sub(before);
    sites.listed.keep(sig, work, (&out, &path_no), control_ns);
    Ok(out)
}

/// The classes of the path whose signature is `sig`, listed as path
/// `path_no` with parse terms `parse_ns`; and each class's control part of
/// its latency (the listed ones, then the slowest).
fn list_path(
    lister: &mut ClassLister<'_>,
    cx: &ClassContext<'_, '_>,
    sites: &mut ClassSites,
    sig: u64,
    path_no: &str,
    parse_ns: f64,
) -> Result<(PathClassesOut, Vec<f64>), String> {
    let program = cx.program;
    let keep = |c: &ListedClass| match cx.filter {
        Some((f, _)) => f.matches(program, cx.control, c),
        None => true,
    };
    // Each class made into the report's form as the lister hands it over
    // (its lists read in place, not copied), with its index and control
    // weight.
    let mut classes = Vec::new();
    let mut made = Vec::new();
    let l = lister
        .visit_list(sig, cx.max, &keep, &mut |c, r| {
            let (out, control) = class_out_with(cx, sites, c, Some(r), path_no, None, parse_ns);
            made.push((c.index, control));
            classes.push(out);
        })
        .map_err(|e| e.to_string())?;
    // The slowest class wherever the listing stops: what the path's
    // maximum stands for (its weight, not a sum made again, so the figures
    // are one).
    let mut slowest = None;
    let weight = lister
        .visit_extreme(sig, true, &mut |c, r| {
            let (out, _) = class_out_with(cx, sites, c, Some(r), path_no, None, parse_ns);
            slowest = Some((c.index, out));
        })
        .map_err(|e| e.to_string())?;
    let (index, mut slowest) = slowest.ok_or_else(|| "no slowest class made".to_string())?;
    slowest.latency_ns = parse_ns + weight;
    let mut control_ns = Vec::with_capacity(classes.len() + 1);
    for (c, &(i, control)) in classes.iter_mut().zip(&made) {
        if i == index {
            c.latency_ns = parse_ns + weight;
            control_ns.push(weight);
        } else {
            control_ns.push(control);
        }
    }
    control_ns.push(weight);
    let out = PathClassesOut {
        total: CountOut::of(l.total),
        filter: cx.filter.map(|(_, spec)| spec.to_string()),
        truncated: l.truncated,
        classes,
        slowest,
    };
    Ok((out, control_ns))
}

/// A class of path `path_no` as the report shows it; `control_ns` its
/// tables' weight when known, else summed from the table terms.
pub(crate) fn class_out(
    cx: &ClassContext<'_, '_>,
    sites: &mut ClassSites,
    c: &ListedClass,
    path_no: &str,
    control_ns: Option<f64>,
    parse_ns: f64,
) -> PathClassOut {
    class_out_with(cx, sites, c, None, path_no, control_ns, parse_ns).0
}

/// [`class_out`] of a class as a lister hands it over with `refs` (its
/// skipped tables and its decisions' ids), or made whole (`None`); and
/// its control part of the latency (`control_ns`, or the sum).
fn class_out_with(
    cx: &ClassContext<'_, '_>,
    sites: &mut ClassSites,
    c: &ListedClass,
    refs: Option<&ClassRefs<'_>>,
    path_no: &str,
    control_ns: Option<f64>,
    parse_ns: f64,
) -> (PathClassOut, f64) {
    let program = cx.program;
    let w = |t: TableId| cx.table_ns.get(t.index()).copied().unwrap_or(0.0);
    // Each list sized for all its entries at once, not grown entry by entry.
    let mut decisions = Vec::with_capacity(c.decisions.len());
    let skipped = match refs {
        Some(r) => {
            let ids = r.decision_ids();
            decisions.extend(
                c.decisions
                    .iter()
                    .zip(ids)
                    .filter_map(|(d, &id)| sites.decision_of(cx, d, id)),
            );
            SkipList::Listed(r)
        }
        None => {
            decisions.extend(c.decisions.iter().filter_map(|d| sites.decision(cx, d)));
            SkipList::Own(&c.skipped)
        }
    };
    let skipped = sites.skips(program, cx.table_index, skipped);
    // The tables applied, in the order of the path's nodes (the control
    // path's `tables`, one per table node), not its every node.
    let mut tables = Vec::with_capacity(c.control_path.tables.len());
    tables.extend(
        c.control_path
            .tables
            .iter()
            // A compiler-internal table (`$PORT_METADATA`) is not
            // charged: not listed either (it has no index); nor is a
            // compiler's table for a direct action call (`tbl_act`), the
            // source's action call, so a source and its compiler output
            // list alike ([`class_tables`] gives neither an index).
            .filter_map(|t| cx.table_index.get(t.index()).copied().flatten()),
    );
    let control_ns =
        control_ns.unwrap_or_else(|| c.control_path.tables.iter().map(|&t| w(t)).sum());
    let out = PathClassOut {
        id: format!("{path_no}.{}", c.index.saturating_add(1)),
        latency_ns: parse_ns + control_ns,
        tables,
        decisions,
        skipped,
        cpu: None,
        recirc: None,
    };
    (out, control_ns)
}

/// A way taken, at a condition or a table of the control.
/// `outcome` is its text ([`outcome_text`]).
fn decision_out(
    cx: &ClassContext<'_, '_>,
    d: &p4cost_analysis::Decision,
    outcome: String,
) -> Option<DecisionOut> {
    let program = cx.program;
    let flow = &program.control(cx.control).flow;
    let node = flow.nodes.get(d.node.index())?;
    let at = match &node.kind {
        NodeKind::Condition { cond, expr, .. } => {
            let text = p4cost_analysis::classes::condition_text(cond, expr);
            if parenthesized(&text) {
                format!("if {text}")
            } else {
                format!("if ({text})")
            }
        }
        NodeKind::Table { table, .. } => program.table(*table).name.clone(),
        _ => return None,
    };
    Some(DecisionOut {
        at,
        outcome,
        forced: d.forced,
        span: Loc::new(program, node.span),
        gress: cx.gress_of(d.node.index()),
    })
}

/// `true`, `hit`, `action_run = drop | (default)`.
fn outcome_text(program: &Program, o: &Outcome) -> String {
    match o {
        Outcome::Branch(b) => b.to_string(),
        Outcome::Hit(true) => "hit".to_string(),
        Outcome::Hit(false) => "miss".to_string(),
        arm @ Outcome::ActionRun { .. } => format!(
            "action_run = {}",
            arm.arm_text(program, "(default)").unwrap_or_default()
        ),
    }
}

/// True when `text` is one parenthesized whole: `(a && b)`, not
/// `(a) && (b)`.
fn parenthesized(text: &str) -> bool {
    let b = text.as_bytes();
    if b.first() != Some(&b'(') || b.last() != Some(&b')') {
        return false;
    }
    let mut depth = 0usize;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'(' => depth += 1,
            b')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 && i + 1 < b.len() {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0
}

/// A class in a few words: its tables, each with the way taken after it
/// where the control branches on it (`acl[miss]`), or `none`; then the
/// conditions it went through that other classes of the path may go the
/// other way on (`(meta.x == 1)`, `!(meta.x == 1)` for the else branch).
///
/// `tables` and `decisions` are the report's lists the class's indexes
/// point into.
pub fn class_brief(
    c: &PathClassOut,
    tables: &[ClassTableOut],
    decisions: &[DecisionOut],
) -> String {
    class_brief_within(c, tables, decisions, usize::MAX)
}

/// [`class_brief`] for a line cut to `max_bytes`: the whole brief when
/// it has at most `max_bytes` bytes, else a prefix of it longer than
/// that (one class lists thousands of characters of tables; a table
/// shows about 120).
pub fn class_brief_within(
    c: &PathClassOut,
    tables: &[ClassTableOut],
    decisions: &[DecisionOut],
    max_bytes: usize,
) -> String {
    // Written into one string: no string per condition (this runs for
    // every class rendered).
    let mut out = brief_tables(c, tables, decisions, max_bytes);
    for d in class_decisions_of(c, decisions).filter(|d| !d.forced && d.at.starts_with("if ")) {
        if out.len() > max_bytes {
            break;
        }
        out.push_str("; ");
        if d.outcome != "true" {
            out.push('!');
        }
        out.push_str(trim_prefixes(&d.at, "if "));
    }
    out
}

fn brief_tables(
    c: &PathClassOut,
    tables: &[ClassTableOut],
    decisions: &[DecisionOut],
    max_bytes: usize,
) -> String {
    if c.tables.is_empty() {
        return "none".to_string();
    }
    // The first way taken at each table, by its text, sorted for lookup:
    // a search per table, not a pass over the decisions per table. A
    // condition's site (`if ...`) names no table (unless a table's name
    // starts so, which no compiler writes), so conditions are left out.
    let if_named = class_tables_of(c, tables).any(|t| t.name.starts_with("if "));
    let mut outcome_at: Vec<(&str, &str)> = class_decisions_of(c, decisions)
        .filter(|d| if_named || !d.at.starts_with("if "))
        .map(|d| (d.at.as_str(), d.outcome.as_str()))
        .collect();
    // Stable: the first stays first.
    outcome_at.sort_by(|a, b| site_order(a.0).cmp(&site_order(b.0)));
    outcome_at.dedup_by_key(|&mut (at, _)| at);
    let mut out = String::with_capacity(brief_room(c, (tables, decisions), &outcome_at, max_bytes));
    for (i, t) in class_tables_of(c, tables).enumerate() {
        if out.len() > max_bytes {
            break;
        }
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(brief_name(t));
        let name = site_order(&t.name);
        if let Ok(i) = outcome_at.binary_search_by(|&(at, _)| site_order(at).cmp(&name)) {
            out.push('[');
            out.push_str(trim_prefixes(outcome_at[i].1, "action_run = "));
            out.push(']');
        }
    }
    out
}

/// A site's text as [`brief_tables`] sorts them for lookup: by length,
/// then by text (any order keeping equal texts together finds a table's
/// way; by length, most pairs are told apart without reading their text).
fn site_order(text: &str) -> (usize, &str) {
    (text.len(), text)
}

/// Room for a brief cut at `max_bytes` (`outcome_at`: the ways taken at
/// its tables): the whole brief (each table's name and separator, its way
/// where it has one, and the conditions [`class_brief_within`] adds), so
/// it is written without regrowth; for a short cut (a line's), `max_bytes`
/// and the item that goes past it (mostly; else it grows once), not read
/// from every table and decision a cut brief never shows.
fn brief_room(
    c: &PathClassOut,
    (tables, decisions): (&[ClassTableOut], &[DecisionOut]),
    outcome_at: &[(&str, &str)],
    max_bytes: usize,
) -> usize {
    /// A cut at most this long is a short one.
    const SHORT_CUT: usize = 1 << 12;
    /// What a cut brief holds past `max_bytes`, for most tables.
    const PAST_CUT: usize = 128;
    if max_bytes <= SHORT_CUT {
        return max_bytes + PAST_CUT;
    }
    let named: usize = class_tables_of(c, tables).map(|t| t.name.len() + 2).sum();
    let ways: usize = outcome_at.iter().map(|(_, o)| o.len() + 2).sum();
    let conds: usize = class_decisions_of(c, decisions)
        .filter(|d| !d.forced && d.at.starts_with("if "))
        .map(|d| d.at.len() + 3)
        .sum();
    named + ways + conds
}

/// `s` without every leading `prefix` (as `str::trim_start_matches`
/// strips them, without building a string searcher per call: this runs
/// for every decision of every class rendered).
fn trim_prefixes<'s>(mut s: &'s str, prefix: &str) -> &'s str {
    if prefix.is_empty() {
        return s;
    }
    while let Some(rest) = s.strip_prefix(prefix) {
        s = rest;
    }
    s
}

/// The report's entries of the tables `c` applies, in order (an index
/// outside `tables` is skipped: a class of another report).
pub fn class_tables_of<'a>(
    c: &'a PathClassOut,
    tables: &'a [ClassTableOut],
) -> impl Iterator<Item = &'a ClassTableOut> + 'a {
    c.tables.iter().filter_map(|&i| tables.get(i as usize))
}

/// The report's entries of the ways `c` took, in order (an index outside
/// `decisions` is skipped, as for [`class_tables_of`]).
pub fn class_decisions_of<'a>(
    c: &'a PathClassOut,
    decisions: &'a [DecisionOut],
) -> impl Iterator<Item = &'a DecisionOut> + 'a {
    c.decisions
        .iter()
        .filter_map(|&i| decisions.get(i as usize))
}

/// The report's entries of the tables `c` skips, with why, in order.
pub fn class_skipped_of<'a>(
    c: &'a PathClassOut,
    skipped: &'a [SkippedOut],
) -> impl Iterator<Item = &'a SkippedOut> + 'a {
    c.skipped.iter().filter_map(|&i| skipped.get(i as usize))
}

/// An ingress table without its control's name (every ingress table
/// shares it); an egress table in full, so it reads as egress.
fn brief_name(t: &ClassTableOut) -> &str {
    if t.gress == "egress" {
        &t.name
    } else {
        short(&t.name)
    }
}

/// A qualified name without its control prefix (`ingress.acl.acl` ->
/// `acl.acl`): the first component is the control every table shares.
fn short(name: &str) -> &str {
    // A byte search: `.` is one byte, and a char searcher per call costs
    // more than the names are long (this runs for every table shown).
    match name.bytes().position(|b| b == b'.') {
        Some(i) => name.get(i + 1..).unwrap_or(name),
        None => name,
    }
}

#[cfg(test)]
mod tests {
    use super::{
        class_brief, class_brief_within, trim_prefixes, ClassTableOut, DecisionOut, PathClassOut,
    };
    use crate::report::Loc;

    fn loc() -> Loc {
        Loc {
            file: "p.p4".into(),
            line: 1,
            col: 1,
            lo: 0,
            hi: 0,
        }
    }

    /// A class's brief: its tables with the way taken after each, then the
    /// unforced conditions, negated on their false way; a table's way is
    /// found by its name even when the name starts as a condition's site.
    #[test]
    fn briefs_name_tables_with_their_way_then_conditions() {
        let table = |name: &str| ClassTableOut {
            name: name.into(),
            latency_ns: 1.0,
            span: loc(),
            gress: "ingress",
        };
        let decision = |at: &str, outcome: &str, forced: bool| DecisionOut {
            at: at.into(),
            outcome: outcome.into(),
            forced,
            span: loc(),
            gress: "ingress",
        };
        let tables = vec![table("ig.acl"), table("ig.fwd"), table("if odd")];
        let decisions = vec![
            decision("if (x == 1)", "false", false),
            decision("ig.acl", "miss", false),
            decision("if y", "true", true),
            decision("ig.fwd", "action_run = drop", false),
            decision("if z", "true", false),
            decision("if odd", "hit", false),
        ];
        let class = |tables: Vec<u32>, decisions: Vec<u32>| PathClassOut {
            id: "1.1".into(),
            latency_ns: 0.0,
            tables,
            decisions,
            skipped: Vec::new(),
            cpu: None,
            recirc: None,
        };
        let c = class(vec![0, 1], vec![0, 1, 2, 3, 4]);
        assert_eq!(
            class_brief(&c, &tables, &decisions),
            "acl[miss], fwd[drop]; !(x == 1); z"
        );
        let odd = class(vec![2], vec![5]);
        assert_eq!(class_brief(&odd, &tables, &decisions), "if odd[hit]; !odd");
        assert_eq!(
            class_brief(&class(vec![], vec![4]), &tables, &decisions),
            "none; z"
        );
        // Cut short: the whole brief, or a prefix of it longer than asked.
        let whole = class_brief(&c, &tables, &decisions);
        for max in 0..whole.len() + 2 {
            let cut = class_brief_within(&c, &tables, &decisions, max);
            assert!(whole.starts_with(&cut), "{cut:?} at {max}");
            assert!(cut == whole || cut.len() > max, "{cut:?} at {max}");
        }
        assert_eq!(class_brief_within(&c, &tables, &decisions, 4), "acl[miss]");
        assert_eq!(
            class_brief_within(&c, &tables, &decisions, 20),
            "acl[miss], fwd[drop]; !(x == 1)"
        );
    }

    /// The same as `str::trim_start_matches` with a string pattern.
    #[test]
    fn trims_every_leading_prefix_as_trim_start_matches() {
        for s in ["if x", "if if x", "x", "", "if ", "action_run = a", "iff x"] {
            for p in ["if ", "action_run = ", "x", ""] {
                assert_eq!(trim_prefixes(s, p), s.trim_start_matches(p), "{s:?} {p:?}");
            }
        }
    }
}
