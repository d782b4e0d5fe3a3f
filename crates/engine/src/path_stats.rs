//! Facts over ALL parse paths, found by dynamic programs over the unrolled
//! parse graph (never by listing it): the latency summary (count, min,
//! median, max and the paths that reach them), the
//! `--path` match, and the linear model's extrapolation warnings
//! aggregated per code with the number of paths they apply to.
//!
//! The linear model is affine per path in (counted bytes, counted states):
//! `L = L_B + L_C + sum over counted states (a * bytes + c)`, and whether a
//! state is counted depends only on the state and on whether a program
//! header went by before it (`baseline::split_state`). So the product of
//! the graph with that one flag carries every per-path quantity.

use serde::Serialize;

use p4cost_analysis::{BudgetExceeded, Fit, FitsPacket, PathCount, PathGraph, Product};
use p4cost_model::baseline::{self, FirstHeaderSeen};
use p4cost_model::spec::{LinearTerms, Training};

use crate::report::Loc;
use crate::report::{count_text, CountOut};

/// Entries the median's distribution over (counted bytes, counted states)
/// may hold across all graph nodes before it is given up.
pub const MEDIAN_BUDGET: usize = 2_000_000;

/// Most bins a latency histogram has (each bin is one merge of the
/// distribution's sides).
pub const MAX_HISTOGRAM_BINS: usize = 200;

/// Table terms are summed as integers of 1e-9 ns for the class median, so
/// equal sums are equal whatever order the tables come in.
const TABLE_UNITS: f64 = 1e9;

/// One extreme path of the summary.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ExtremeOut {
    /// Predicted latency in ns.
    pub latency_ns: f64,
    /// Zero-based index in the full listing (what `predict` lists).
    pub index: CountOut,
    /// One-based number: `index` + 1, the path number the table prints
    /// and `class` starts with.
    #[serde(serialize_with = "crate::report::count_out")]
    #[schemars(with = "CountOut")]
    pub number: PathCount,
    /// Program headers on the path.
    pub headers: Vec<String>,
    /// With packet classes: the class, as `P.C` (path number, class number
    /// among the path's classes in listing order).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// With packet classes: the tables the class's control path applies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tables: Option<Vec<String>>,
}

/// Latency over all packet classes (or all paths, when classes are not
/// computed).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SummaryOut {
    /// What min, median and max range over: `class` (each packet class
    /// pays the tables its control path applies) or `path` (no ingress
    /// control, or classes not computed: every path pays every table).
    pub over: &'static str,
    /// Parse paths (all of them).
    pub paths: CountOut,
    /// Packet classes (all of them), with `over: class`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub classes: Option<CountOut>,
    pub min: Option<ExtremeOut>,
    pub max: Option<ExtremeOut>,
    /// The lower median, when computed.
    pub median_ns: Option<f64>,
    /// Why the median is missing (empty when it is there).
    pub median_note: String,
    /// Classes counted per bin of latency, exactly (over classes, when
    /// asked for: `PredictOptions::histogram_bins`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub histogram: Option<HistogramOut>,
}

/// The latency histogram over packet classes: equal bins from the fastest
/// class's latency to the slowest's; bin `i` holds the classes in
/// `(lo + i w, lo + (i+1) w]`, the first bin its lower edge too, so the
/// counts add up to every class.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct HistogramOut {
    /// The first bin's lower edge (the fastest class), ns.
    pub lo_ns: f64,
    /// The last bin's upper edge (the slowest class), ns.
    pub hi_ns: f64,
    /// Classes per bin.
    pub counts: Vec<CountOut>,
}

/// Parse paths that end in reject.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct RejectsOut {
    /// Rejected paths: (path prefix, state that may reject), exact.
    pub count: CountOut,
    /// Per reason (`transition`, `no_match`, `verify`, `stack_overflow`),
    /// the rejected paths whose last state may reject for it.
    pub by_reason: std::collections::BTreeMap<&'static str, CountOut>,
    /// The cheapest up to the reject.
    pub min: Option<RejectOut>,
    /// The dearest up to the reject.
    pub max: Option<RejectOut>,
    /// What the figures cover.
    pub note: String,
}

/// One extreme rejected path.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct RejectOut {
    /// The base term plus the parse states up to and including the one
    /// that rejects.
    pub latency_ns: f64,
    /// Its states, the rejecting one last.
    pub states: Vec<String>,
    /// Why the last state rejects.
    pub reason: &'static str,
}

/// Report text of a reason key.
pub fn reject_text(key: &str) -> &'static str {
    [
        p4cost_analysis::RejectWhy::Transition,
        p4cost_analysis::RejectWhy::NoMatch,
        p4cost_analysis::RejectWhy::Verify,
        p4cost_analysis::RejectWhy::StackOverflow,
    ]
    .into_iter()
    .find(|r| r.key() == key)
    .map_or("rejected", |r| r.text())
}

/// The rejected paths of `pg` under the linear model: each costs the base
/// term and its parse states up to the reject, counted as the model
/// counts them (the baseline rule included).
pub fn rejects(pg: &PathGraph<'_>, lin: &LinearTerms<'_>, base_ns: f64) -> RejectsOut {
    let w = |st: &p4cost_analysis::PathState, before: bool| {
        let mut seen = before;
        let sp = baseline::split_state(&mut seen, st);
        if sp.counted {
            lin.parser.per_header_byte_ns * sp.counted_bytes as f64 + lin.parser.per_state_ns
        } else {
            0.0
        }
    };
    let r = pg.rejects(&FirstHeaderSeen, &w);
    let out = |e: &p4cost_analysis::RejectExtreme| RejectOut {
        latency_ns: base_ns + e.value,
        states: e.path.iter().map(|&n| pg.visit(n).name).collect(),
        reason: e.why.key(),
    };
    RejectsOut {
        count: CountOut::of(r.count),
        by_reason: r
            .by_reason
            .iter()
            .map(|(k, c)| (k.key(), CountOut::of(*c)))
            .collect(),
        min: r.min.as_ref().map(out),
        max: r.max.as_ref().map(out),
        note: "a rejected path costs the base term and its parse states up to the reject; what the target then does with the packet (drop it, or hand it on with the parser error set) is not modelled".to_string(),
    }
}

/// One parse state's term over all paths through it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct StateTermOut {
    /// The state.
    pub name: String,
    /// Its declaration.
    pub span: Loc,
    /// Its smallest term on a path through it, ns.
    pub min_ns: f64,
    /// Its largest, ns.
    pub max_ns: f64,
    /// Bytes counted where the term is largest.
    pub counted_bytes: u64,
    /// On some path the baseline covers it (its term is 0 there).
    pub in_baseline_somewhere: bool,
}

/// An extrapolation warning aggregated over all paths.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct PathWarningOut {
    pub code: String,
    /// One sentence: the extreme value and a path that reaches it.
    pub message: String,
    /// Paths (of all) the warning applies to.
    pub applies_to: CountOut,
    /// Positions in `paths` (the listed paths) it applies to.
    pub paths: Vec<usize>,
    /// The parse state the message names, when one.
    pub span: Option<Loc>,
}

/// Packet classes (parse path x control path) over all paths.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ClassesOut {
    /// Classes, exact (see `CountOut`).
    pub count: CountOut,
    /// The headers whose validity the control tests, deciding its branches.
    pub tested_headers: Vec<String>,
    /// The comparisons of header fields with constants that the control
    /// tests and a parser selects on (`hdr.ethernet.ether_type == 0x800`):
    /// the parse path decides them where it took a select case on the field.
    pub tested_fields: Vec<String>,
    /// Fields the control tests as booleans (or against 0 / 1) and sets to
    /// 0 or 1 (`hasReturned`, a `bool drop`): known after such a set.
    pub tested_flags: Vec<String>,
    /// Why some validity tests cannot be decided, when any cannot.
    pub note: String,
}

/// Parse paths whose packet headers need more bytes than the packet:
/// no such packet exists, so they are out of every figure.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct LeftOutOut {
    /// The packet size, B.
    pub packet_size: u32,
    /// How many paths are left out (exact, as [`CountOut`]).
    pub paths: CountOut,
    /// True when no path fits: nothing is predicted.
    pub all: bool,
    /// The left-out path needing the fewest bytes.
    pub fewest: LeftPathOut,
    /// The one needing the most.
    pub most: LeftPathOut,
}

/// One parse path left out.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct LeftPathOut {
    /// Bytes of packet headers it extracts.
    pub bytes: u64,
    /// Zero-based index in the full listing.
    pub index: CountOut,
    /// One-based number, as the table prints it.
    #[serde(skip)]
    pub number: PathCount,
    /// Its program headers.
    pub headers: Vec<String>,
}

impl LeftOutOut {
    /// The one sentence that says it: `3 parse paths need more than 64 B
    /// ...`.
    pub fn message(&self) -> String {
        let what = if self.all {
            format!(
                "no parse path fits in a {} B packet: every one of the {} needs more",
                self.packet_size, self.paths.text
            )
        } else {
            format!(
                "{} parse paths need more than the {} B packet and are left out of every figure",
                self.paths.text, self.packet_size
            )
        };
        format!(
            "{what} (from {} B, path {}, to {} B, path {}); {}",
            self.fewest.bytes,
            count_text(self.fewest.number),
            self.most.bytes,
            count_text(self.most.number),
            self.remedy()
        )
    }

    /// What would count the paths left out: a larger `--packet-size`, as
    /// far as one is accepted; headers past the largest packet are in no
    /// packet at all.
    fn remedy(&self) -> String {
        let max = u64::from(crate::predict::MAX_PACKET_SIZE);
        if self.most.bytes <= max {
            format!(
                "give --packet-size {} or more to count them",
                self.most.bytes
            )
        } else if self.fewest.bytes <= max {
            format!(
                "give --packet-size {} or more to count some; those above {max} B (the largest --packet-size) fit in no packet",
                self.fewest.bytes
            )
        } else {
            format!("they fit in no packet: {max} B is the largest --packet-size")
        }
    }
}

/// The graph with the baseline flag, restricted to the paths whose packet
/// headers fit in the packet ([`FitsPacket`]: exact, and the graph's own
/// size unless the packet size cuts through the paths), and per product
/// node what the linear model needs.
pub struct Costed<'g, 'p> {
    pub pg: &'g PathGraph<'p>,
    pub prod: Product<(bool, Fit)>,
    /// The paths left out, when any are.
    pub left_out: Option<LeftOutOut>,
    /// ns each product node adds (`a * counted bytes + c` when counted).
    pub ns: Vec<f64>,
    counted_bytes: Vec<u64>,
    counted: Vec<bool>,
}

impl<'g, 'p> Costed<'g, 'p> {
    pub fn new(
        pg: &'g PathGraph<'p>,
        lin: &LinearTerms<'_>,
        packet_size: u32,
        budget: usize,
    ) -> Result<Self, BudgetExceeded> {
        let prod = Product::build(
            pg,
            &FitsPacket::fitting(pg, &FirstHeaderSeen, packet_size),
            budget,
        )?;
        let left_out = left_out(pg, packet_size, prod.total(), budget)?;
        let n = prod.nodes.len();
        let (mut ns, mut counted_bytes, mut counted) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        for node in &prod.nodes {
            let st = pg.visit(node.node);
            let mut seen = node.before.0;
            let sp = baseline::split_state(&mut seen, &st);
            counted.push(sp.counted);
            counted_bytes.push(if sp.counted { sp.counted_bytes } else { 0 });
            ns.push(if sp.counted {
                lin.parser.per_header_byte_ns * sp.counted_bytes as f64 + lin.parser.per_state_ns
            } else {
                0.0
            });
        }
        Ok(Costed {
            pg,
            prod,
            left_out,
            ns,
            counted_bytes,
            counted,
        })
    }

    /// Every parse state on some complete path, with its term over all
    /// paths through it (it differs between paths only where the baseline
    /// covers its first header on some of them). Linear in the graph.
    pub fn state_terms(&self, program: &p4cost_ir::Program) -> Vec<StateTermOut> {
        let mut by_state: std::collections::BTreeMap<u32, StateTermOut> =
            std::collections::BTreeMap::new();
        for (i, node) in self.prod.nodes.iter().enumerate() {
            if self.prod.count(i as u32).value == 0 && !self.prod.count(i as u32).saturated {
                continue;
            }
            let st = self.pg.visit(node.node);
            let ns = self.ns[i];
            let e = by_state
                .entry(st.state.index() as u32)
                .or_insert_with(|| StateTermOut {
                    name: st.name.clone(),
                    span: Loc::new(program, st.span),
                    min_ns: ns,
                    max_ns: ns,
                    counted_bytes: self.counted_bytes[i],
                    in_baseline_somewhere: false,
                });
            e.min_ns = e.min_ns.min(ns);
            if ns > e.max_ns {
                e.max_ns = ns;
                e.counted_bytes = self.counted_bytes[i];
            }
            e.in_baseline_somewhere |= !self.counted[i];
        }
        by_state.into_values().collect()
    }

    fn extreme_out(&self, constant_ns: f64, max: bool) -> Option<ExtremeOut> {
        let e = self.prod.extreme(&self.ns, max)?;
        Some(self.describe(constant_ns + e.value, &e.path))
    }

    /// A product path as an [`ExtremeOut`].
    pub fn describe(&self, latency_ns: f64, path: &[u32]) -> ExtremeOut {
        describe(self.pg, &self.prod, latency_ns, path)
    }

    /// Packet classes of this parse graph with `control`: counted exactly,
    /// fastest, slowest and median found by dynamic programs. A class costs
    /// `base_ns` (`L_B`), its parse path's states, and `table_ns[t]` for
    /// each table `t` its control path applies. Gives the classes' facts and
    /// the latency summary over classes.
    /// `cc` walks the control with `table_ns` as its table weights; its
    /// memo stays filled for the caller.
    pub fn classes(
        &self,
        program: &p4cost_ir::Program,
        cc: &mut p4cost_analysis::ControlClasses<'_>,
        lin: &LinearTerms<'_>,
        table_ns: &[f64],
        base_ns: f64,
        bins: usize,
    ) -> Result<(ClassesOut, SummaryOut), String> {
        let sum = p4cost_analysis::packet_classes_over_product(
            cc,
            self.pg,
            &self.prod,
            &self.ns,
            &p4cost_analysis::ClassBudget::default(),
        )
        .map_err(|e| e.to_string())?;
        let out = |e: &p4cost_analysis::ClassExtreme| {
            let mut d = self.describe(base_ns + e.value, &e.parse_path);
            d.class = Some(format!("{}.{}", d.number, count_text(e.rank.add_one())));
            d.tables = Some(
                e.control_path
                    .tables
                    .iter()
                    .map(|t| program.table(*t))
                    // `$PORT_METADATA` and its kind: not charged, not listed.
                    .filter(|t| !t.is_compiler_internal())
                    .map(|t| t.name.clone())
                    .collect(),
            );
            d
        };
        let (median_ns, median_note, histogram) =
            self.class_median(cc, lin, table_ns, base_ns, sum.classes, bins)?;
        Ok((
            ClassesOut {
                count: CountOut::of(sum.classes),
                tested_headers: sum.tested.clone(),
                tested_fields: sum.fields.clone(),
                tested_flags: sum.flags.clone(),
                note: sum.note.clone().unwrap_or_default(),
            },
            SummaryOut {
                over: "class",
                paths: CountOut::of(self.prod.total()),
                classes: Some(CountOut::of(sum.classes)),
                min: sum.min.as_ref().map(out),
                max: sum.max.as_ref().map(out),
                median_ns,
                median_note,
                histogram,
            },
        ))
    }

    /// The lower median over all `total` classes: the distribution of
    /// (counted bytes, counted states, tables' sum in 1e-9 ns) over classes,
    /// kept factored per signature and ranked without expanding it.
    fn class_median(
        &self,
        cc: &p4cost_analysis::ControlClasses<'_>,
        lin: &LinearTerms<'_>,
        table_ns: &[f64],
        base_ns: f64,
        total: PathCount,
        bins: usize,
    ) -> Result<(Option<f64>, String, Option<HistogramOut>), String> {
        if total.saturated {
            return Ok((
                None,
                "not computed: the class count overflows 128 bits".to_string(),
                None,
            ));
        }
        if total.value == 0 {
            return Ok((None, "no class".to_string(), None));
        }
        let pv: Vec<[u64; 2]> = self
            .counted_bytes
            .iter()
            .zip(&self.counted)
            .map(|(b, c)| [*b, u64::from(*c)])
            .collect();
        let tq: Vec<i64> = table_ns
            .iter()
            .map(|w| (w * TABLE_UNITS).round() as i64)
            .collect();
        let d =
            p4cost_analysis::class_distribution(cc, self.pg, &self.prod, &pv, &tq, MEDIAN_BUDGET)
                .map_err(|e| e.to_string())?;
        let Some(d) = d else {
            return Ok((
                None,
                format!(
                    "not computed: tabulating the parse side (counted bytes, counted states) and the control side (tables) per signature needs more than {MEDIAN_BUDGET} table entries"
                ),
                None,
            ));
        };
        // Summed in the order of the equation: base, parse terms, tables.
        let parse = |v: &[u64; 2]| {
            base_ns
                + lin.parser.per_header_byte_ns * v[0] as f64
                + lin.parser.per_state_ns * v[1] as f64
        };
        let control = |q: i64| q as f64 / TABLE_UNITS;
        let median = d.kth_smallest((total.value - 1) / 2, parse, control);
        let histogram = (bins > 0)
            .then(|| d.histogram(bins.min(MAX_HISTOGRAM_BINS), parse, control))
            .flatten()
            .map(|h| HistogramOut {
                lo_ns: h.lo,
                hi_ns: h.hi,
                counts: h
                    .counts
                    .into_iter()
                    .map(|value| CountOut::of(PathCount::exact(value)))
                    .collect(),
            });
        Ok(match median {
            Some(ns) => (Some(ns), String::new(), histogram),
            None => (
                None,
                "not computed: the distribution holds fewer classes than counted".to_string(),
                histogram,
            ),
        })
    }

    /// The summary; `constant_ns` is `L_B + L_C` (the same on every path).
    pub fn summary(&self, lin: &LinearTerms<'_>, constant_ns: f64) -> SummaryOut {
        let w: Vec<[u64; 2]> = self
            .counted_bytes
            .iter()
            .zip(&self.counted)
            .map(|(b, c)| [*b, u64::from(*c)])
            .collect();
        let (median_ns, median_note) = pair_median(&self.prod, &w, |bytes, states| {
            constant_ns
                + lin.parser.per_header_byte_ns * bytes as f64
                + lin.parser.per_state_ns * states as f64
        });
        SummaryOut {
            over: "path",
            paths: CountOut::of(self.prod.total()),
            classes: None,
            min: self.extreme_out(constant_ns, false),
            max: self.extreme_out(constant_ns, true),
            median_ns,
            median_note,
            histogram: None,
        }
    }

    /// The extrapolation warnings that depend on the path, over all paths.
    /// `listed` holds, per listed path, the codes its own prediction raised.
    pub fn warnings(
        &self,
        program: &p4cost_ir::Program,
        lin: &LinearTerms<'_>,
        packet_size: u32,
        listed: &[Vec<String>],
    ) -> Vec<PathWarningOut> {
        let mut out = Vec::new();
        out.extend(self.header_size_warning(program, lin.training, listed));
        self.state_count_warnings(lin, packet_size, listed, &mut out);
        // Headers longer than the packet: left out of every figure, said
        // once.
        if let Some(l) = &self.left_out {
            out.push(PathWarningOut {
                code: "packet_smaller_than_headers".to_string(),
                message: l.message(),
                applies_to: l.paths.clone(),
                paths: on_listed(listed, "packet_smaller_than_headers"),
                span: None,
            });
        }
        out
    }

    /// "path N", N the 1-based index of `path` among all parse paths.
    fn path_no(&self, path: &[u32]) -> String {
        let idx = self.pg.index_of(&self.prod.graph_nodes(path));
        format!("path {}", count_text(idx.add_one()))
    }

    /// The warning for counted states extracting a number of bytes outside
    /// the training range, naming the largest and smallest such state.
    fn header_size_warning(
        &self,
        program: &p4cost_ir::Program,
        tr: &Training,
        listed: &[Vec<String>],
    ) -> Option<PathWarningOut> {
        let [lo, hi] = tr.header_bytes_per_state;
        let odd: Vec<bool> = (0..self.prod.nodes.len())
            .map(|i| self.counted[i] && (self.counted_bytes[i] < lo || self.counted_bytes[i] > hi))
            .collect();
        let (n, _) = self.prod.through(&odd);
        if n.value == 0 && !n.saturated {
            return None;
        }
        let live: Vec<usize> = (0..odd.len())
            .filter(|&i| odd[i] && self.prod.count(i as u32).value > 0)
            .collect();
        let big = live
            .iter()
            .copied()
            .filter(|&i| self.counted_bytes[i] > hi)
            .max_by_key(|&i| (self.counted_bytes[i], std::cmp::Reverse(i)));
        let small = live
            .iter()
            .copied()
            .filter(|&i| self.counted_bytes[i] < lo)
            .min_by_key(|&i| (self.counted_bytes[i], i));
        let mut parts = Vec::new();
        parts.extend(big.and_then(|i| self.extreme_state(i, "largest")));
        parts.extend(small.and_then(|i| self.extreme_state(i, "smallest")));
        let span = big
            .or(small)
            .map(|i| Loc::new(program, self.pg.visit(self.prod.nodes[i].node).span));
        Some(PathWarningOut {
            code: "header_size_out_of_range".to_string(),
            message: format!(
                "states extracting outside the trained {lo}-{hi} B per state: {}",
                parts.join("; ")
            ),
            applies_to: CountOut::of(n),
            paths: on_listed(listed, "header_size_out_of_range"),
            span,
        })
    }

    /// "`what` `state` N B (path K)", K a path through product node `i`.
    fn extreme_state(&self, i: usize, what: &str) -> Option<String> {
        let mut only = vec![false; self.prod.nodes.len()];
        only[i] = true;
        let (_, p) = self.prod.through(&only);
        p.map(|p| {
            format!(
                "{what} `{}` {} B ({})",
                self.pg.visit(self.prod.nodes[i].node).name,
                self.counted_bytes[i],
                self.path_no(&p)
            )
        })
    }

    /// The warnings on the number of counted parse states per path: more
    /// than the training saw, and the model's nonlinear region.
    fn state_count_warnings(
        &self,
        lin: &LinearTerms<'_>,
        packet_size: u32,
        listed: &[Vec<String>],
        out: &mut Vec<PathWarningOut>,
    ) {
        let ones: Vec<f64> = self
            .counted
            .iter()
            .map(|c| if *c { 1.0 } else { 0.0 })
            .collect();
        let ones_int: Vec<u64> = self.counted.iter().map(|c| u64::from(*c)).collect();
        let Some(m) = self.prod.extreme(&ones, true) else {
            return;
        };
        let states_above = |t: u32| -> Option<PathCount> {
            self.prod
                .count_sum_above(&ones_int, u64::from(t), MEDIAN_BUDGET)
        };
        let [slo, shi] = lin.training.states_after_ethernet;
        if m.value > f64::from(shi) {
            out.push(PathWarningOut {
                code: "too_many_states".to_string(),
                message: format!(
                    "up to {} parse states after Ethernet ({}); the model was trained on {slo}-{shi}",
                    m.value,
                    self.path_no(&m.path)
                ),
                applies_to: states_above(shi).map_or_else(CountOut::unknown, CountOut::of),
                paths: on_listed(listed, "too_many_states"),
                span: None,
            });
        }
        let Some(nl) = lin.nonlinear else {
            return;
        };
        let (applies, why) = if packet_size > nl.packet_size_above_bytes {
            (
                CountOut::of(self.prod.total()),
                format!("packet size {packet_size} B"),
            )
        } else if m.value > f64::from(nl.states_above) {
            (
                states_above(nl.states_above).map_or_else(CountOut::unknown, CountOut::of),
                format!("up to {} parse states ({})", m.value, self.path_no(&m.path)),
            )
        } else {
            return;
        };
        out.push(PathWarningOut {
            code: "nonlinear_region".to_string(),
            message: format!(
                "beyond {} B or {} parse states ({why}): {}",
                nl.packet_size_above_bytes, nl.states_above, nl.why
            ),
            applies_to: applies,
            paths: on_listed(listed, "nonlinear_region"),
            span: None,
        });
    }
}

/// The indices of the listed paths (each a list of warning codes) that
/// carry warning `code`.
fn on_listed(listed: &[Vec<String>], code: &str) -> Vec<usize> {
    listed
        .iter()
        .enumerate()
        .filter(|(_, codes)| codes.iter().any(|c| c == code))
        .map(|(i, _)| i)
        .collect()
}

/// The paths of `pg` whose packet headers exceed `packet_size` (`fit`
/// of them fit), with the fewest and the most bytes among them: a product
/// of its own ([`FitsPacket::exceeding`]), built only when the counts say
/// some path does not fit.
fn left_out(
    pg: &PathGraph<'_>,
    packet_size: u32,
    fit: PathCount,
    budget: usize,
) -> Result<Option<LeftOutOut>, BudgetExceeded> {
    let all = pg.total();
    if !all.saturated && !fit.saturated && all.value == fit.value {
        return Ok(None); // every path fits: the usual case costs nothing
    }
    let x = Product::build(
        pg,
        &FitsPacket::exceeding(pg, &FirstHeaderSeen, packet_size),
        budget,
    )?;
    let n = x.total();
    if n.value == 0 && !n.saturated {
        return Ok(None);
    }
    let bits: Vec<f64> = x
        .nodes
        .iter()
        .map(|node| p4cost_analysis::packet_bits(&pg.visit(node.node)) as f64)
        .collect();
    let side = |max: bool| {
        x.extreme(&bits, max).map(|e| {
            let nodes = x.graph_nodes(&e.path);
            let idx = pg.index_of(&nodes);
            LeftPathOut {
                bytes: (e.value as u64).div_ceil(8),
                index: CountOut::of(idx),
                number: idx.add_one(),
                headers: pg.path(&nodes).header_names(),
            }
        })
    };
    let (Some(fewest), Some(most)) = (side(false), side(true)) else {
        return Ok(None);
    };
    Ok(Some(LeftOutOut {
        packet_size,
        paths: CountOut::of(n),
        all: fit.value == 0 && !fit.saturated,
        fewest,
        most,
    }))
}

/// A path of a product of `pg` as an [`ExtremeOut`].
pub fn describe<S: Copy + Eq + std::hash::Hash>(
    pg: &PathGraph<'_>,
    prod: &Product<S>,
    latency_ns: f64,
    path: &[u32],
) -> ExtremeOut {
    let nodes = prod.graph_nodes(path);
    let idx = pg.index_of(&nodes);
    ExtremeOut {
        latency_ns,
        index: CountOut::of(idx),
        number: idx.add_one(),
        headers: pg.path(&nodes).header_names(),
        class: None,
        tables: None,
    }
}

/// The lower median over all accepted paths of a latency that depends on
/// a path only through its (counted bytes, counted states), which `step`
/// gives per product node; with the note the summary shows when it is
/// not computed (no path, too many paths to count, or a distribution past
/// [`MEDIAN_BUDGET`]).
pub fn pair_median<S: Copy + Eq + std::hash::Hash>(
    prod: &Product<S>,
    step: &[[u64; 2]],
    latency: impl Fn(u64, u64) -> f64,
) -> (Option<f64>, String) {
    let total = prod.total();
    if total.saturated {
        return (
            None,
            "not computed: the path count overflows 128 bits".to_string(),
        );
    }
    if total.value == 0 {
        return (None, "no path".to_string());
    }
    let Some(d) = prod.distribution(step, MEDIAN_BUDGET) else {
        return (
            None,
            format!(
                "not computed: tabulating the paths' (counted bytes, counted states) pairs needs more than {MEDIAN_BUDGET} table entries at once, or more than 16 x that in merges"
            ),
        );
    };
    let mut by_ns: Vec<(f64, u128)> = d
        .iter()
        .map(|(v, c)| (latency(v[0], v[1]), c.value))
        .collect();
    by_ns.sort_by(|a, b| a.0.total_cmp(&b.0));
    let want = (total.value - 1) / 2;
    let mut seen = 0u128;
    for (ns, c) in by_ns {
        seen += c;
        if seen > want {
            return (Some(ns), String::new());
        }
    }
    (None, String::new())
}

/// Codes [`Costed::warnings`] computes over all paths (the per-path
/// predictions' own warnings with these codes are not repeated).
pub const PATH_CODES: [&str; 4] = [
    "header_size_out_of_range",
    "too_many_states",
    "nonlinear_region",
    "packet_smaller_than_headers",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_out_keeps_numbers_exact() {
        let small = CountOut::of(PathCount::exact(1 << 53));
        assert_eq!(small.value, Some(1 << 53));
        let big = CountOut::of(PathCount::exact((1 << 53) + 1));
        assert_eq!(big.value, None);
        assert_eq!(big.text, "9007199254740993");
    }
}
