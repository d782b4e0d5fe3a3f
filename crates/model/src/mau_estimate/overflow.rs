//! Why a placement runs past the chip's last stage: a chain of
//! dependencies longer than the chip has stages (the chain is the answer),
//! or stages that filled up while the dependencies alone fit (the resource
//! that ran out, the stages it filled and the tables that take it), as
//! bf-p4c's table placement fails either way (`TablePlacement`: a table
//! whose dependencies allow no stage, or "could not fit in stage ... ran
//! out of" a memory).

use p4cost_analysis::deps::{DepGraph, DepKind};
use serde::Serialize;

use super::memory::{part_of, Full, Needs, Used};
use super::{StageMemory, UnitNeed};
use crate::spec::{ModelSpec, Placement};
use crate::ModelError;

/// Tables named in [`FullStages::sentence`] (the figures list them all).
const NAMED: usize = 8;

/// Stages that filled up: the program's dependencies fit the chip, its
/// tables' memories (or logical tables, ALUs...) do not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct FullStages {
    /// The resource that ran out most often (`sram_blocks`,
    /// `tcam_blocks`, `map_rams`, `hash_bits`, `logical_tables`,
    /// `ternary_tables`, `gateways`, `meter_alus`, `stats_alus`).
    pub resource: &'static str,
    /// Its name in a sentence (`SRAM blocks`).
    pub what: &'static str,
    /// The stages of the chip where it ran out.
    pub stages: Vec<u32>,
    /// The tables that take it in those stages, with what they take,
    /// largest first.
    pub tables: Vec<(String, u32)>,
    /// The stages the dependencies alone need (every table in one stage,
    /// an ALPM table in two).
    pub dependency_stages: u32,
}

impl FullStages {
    /// `SRAM blocks fill stages 0-11: a 262, b 262 (its dependencies
    /// alone need 1 stage)`.
    pub fn sentence(&self) -> String {
        let mut tables: Vec<String> = self
            .tables
            .iter()
            .take(NAMED)
            .map(|(n, a)| format!("{n} {a}"))
            .collect();
        if self.tables.len() > NAMED {
            tables.push(format!("{} more", self.tables.len() - NAMED));
        }
        let plural = |n: u32| if n == 1 { "" } else { "s" };
        format!(
            "{} fill {}: {} (its dependencies alone need {} stage{})",
            self.what,
            stage_ranges(&self.stages),
            tables.join(", "),
            self.dependency_stages,
            plural(self.dependency_stages)
        )
    }
}

/// `stage 3`, `stages 0-11`, `stages 0-3, 5, 7-11`.
pub fn stage_ranges(stages: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < stages.len() {
        let mut j = i;
        while j + 1 < stages.len() && stages[j + 1] == stages[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            stages[i].to_string()
        } else {
            format!("{}-{}", stages[i], stages[j])
        });
        i = j + 1;
    }
    let word = if stages.len() == 1 { "stage" } else { "stages" };
    format!("{word} {}", parts.join(", "))
}

/// Per unit, its first and last stage were every stage's resources
/// unlimited: one stage after each match or action predecessor's last,
/// not before each control or reverse-read predecessor's first; an ALPM
/// table takes two (its ATCAM matches on the pre-classifier's result).
pub(super) fn dependency_stages(
    graph: &DepGraph,
    incoming: &[Vec<usize>],
    needs: &[UnitNeed],
) -> Vec<(u32, u32)> {
    let mut at: Vec<(u32, u32)> = vec![(0, 0); graph.units.len()];
    for u in 0..at.len() {
        let edges = || incoming[u].iter().map(|&i| &graph.edges[i]);
        let first = edges()
            .map(|e| match e.kind {
                DepKind::Match | DepKind::Action => at[e.from].1 + 1,
                DepKind::Control | DepKind::ReverseRead => at[e.from].0,
            })
            .max()
            .unwrap_or(0);
        at[u] = if matches!(needs.get(u), Some(UnitNeed::Alpm(_))) {
            // The pre-classifier waits for match and control
            // dependencies only; the ATCAM for all, a stage after it.
            let pre = edges()
                .filter_map(|e| match e.kind {
                    DepKind::Match => Some(at[e.from].1 + 1),
                    DepKind::Control => Some(at[e.from].0),
                    DepKind::Action | DepKind::ReverseRead => None,
                })
                .max()
                .unwrap_or(0);
            (pre, first.max(pre + 1))
        } else {
            (first, first)
        };
    }
    at
}

/// Tells a placement past the chip caused by dependencies from one caused
/// by full stages.
#[derive(Default)]
pub(super) struct Watch {
    /// [`dependency_stages`], made when first asked.
    deps: Option<Vec<(u32, u32)>>,
}

impl Watch {
    /// True when unit `u`'s dependencies alone take it past the chip's
    /// `n_stages`: the chain is why the program does not fit.
    pub(super) fn by_chain(
        &mut self,
        graph: &DepGraph,
        incoming: &[Vec<usize>],
        needs: &[UnitNeed],
        u: usize,
        n_stages: u32,
    ) -> bool {
        let deps = self
            .deps
            .get_or_insert_with(|| dependency_stages(graph, incoming, needs));
        deps.get(u).is_some_and(|s| s.1 >= n_stages)
    }

    /// The stages the dependencies alone need (0 before [`Watch::by_chain`]).
    pub(super) fn dependency_needed(&self) -> u32 {
        self.deps
            .as_deref()
            .and_then(|d| d.iter().map(|s| s.1 + 1).max())
            .unwrap_or(0)
    }
}

/// What a placement that ran past the chip used, to name what filled it.
pub(super) struct Placed<'a> {
    pub(super) p: &'a Placement,
    pub(super) graph: &'a DepGraph,
    pub(super) needs: &'a [UnitNeed],
    pub(super) memory: &'a [Vec<StageMemory>],
    pub(super) used: &'a [Used],
    pub(super) n_stages: u32,
}

impl Placed<'_> {
    /// The "does not fit" error of control `control` whose placement
    /// reached `needed` stages because its stages filled up; `others`,
    /// the other gresses placed in the same stages, whose tables take
    /// their share too.
    pub(super) fn error(
        &self,
        model: &ModelSpec,
        control: &str,
        watch: &Watch,
        needed: u32,
        others: &[Placed<'_>],
    ) -> ModelError {
        ModelError::StagesFull {
            model: model.name.clone(),
            control: control.to_string(),
            stages: self.n_stages,
            needed,
            full: Box::new(self.full_stages(watch.dependency_needed(), others)),
        }
    }

    /// The resource that ran out in the most of the chip's stages, those
    /// stages, and each unit's share of it there (this gress's and
    /// `others`').
    pub(super) fn full_stages(&self, dependency_stages: u32, others: &[Placed<'_>]) -> FullStages {
        let chip = &self.used[..(self.n_stages as usize).min(self.used.len())];
        let stages_of = |k: Full| -> Vec<u32> {
            (0..chip.len() as u32)
                .filter(|&s| chip[s as usize].ran_out[k.index()] > 0)
                .collect()
        };
        let what = Full::ALL
            .iter()
            .copied()
            .max_by_key(|&k| (stages_of(k).len(), usize::MAX - k.index()))
            .unwrap_or(Full::Sram);
        let stages = stages_of(what);
        let mut tables = self.tables_in(what, &stages);
        for o in others {
            tables.extend(o.tables_in(what, &stages));
        }
        tables.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        FullStages {
            resource: what.key(),
            what: what.name(),
            stages,
            tables,
            dependency_stages,
        }
    }

    /// Each unit taking some of `what` in `stages`, and how much.
    fn tables_in(&self, what: Full, stages: &[u32]) -> Vec<(String, u32)> {
        let mut tables = Vec::new();
        for (u, parts) in self.memory.iter().enumerate() {
            let amount = self.share(u, parts, what, stages);
            if amount > 0 {
                tables.push((self.graph.units[u].name.clone(), amount));
            }
        }
        tables
    }

    /// What unit `u`'s `parts` take of `what` in `stages`.
    fn share(&self, u: usize, parts: &[StageMemory], what: Full, stages: &[u32]) -> u32 {
        let mut seen_pre = false;
        let mut seen_main = false;
        let mut sum = 0u32;
        for m in parts {
            // An ALPM table's pre-classifier parts are its TCAM ones.
            let (need, seen): (&Needs, &mut bool) = match self.needs.get(u) {
                Some(UnitNeed::Alpm(s)) if m.tcam > 0 => (&s.pre, &mut seen_pre),
                Some(UnitNeed::Alpm(s)) => (&s.atcam, &mut seen_main),
                Some(UnitNeed::One(n)) => (n, &mut seen_main),
                None => continue,
            };
            let first = !*seen;
            *seen = true;
            if stages.contains(&m.stage) {
                let t = part_of(self.p, need, m.entries, first);
                sum = sum.saturating_add(what.amount(need, &t));
            }
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_of_stages() {
        assert_eq!(stage_ranges(&[3]), "stage 3");
        assert_eq!(stage_ranges(&(0..12).collect::<Vec<_>>()), "stages 0-11");
        assert_eq!(stage_ranges(&[0, 1, 2, 3, 5, 7, 8]), "stages 0-3, 5, 7-8");
    }

    /// Nine tables name eight and count the ninth.
    #[test]
    fn a_sentence_names_eight_tables() {
        let f = FullStages {
            resource: "logical_tables",
            what: "logical tables",
            stages: vec![0],
            tables: (0..9).map(|i| (format!("t{i}"), 1)).collect(),
            dependency_stages: 1,
        };
        assert_eq!(
            f.sentence(),
            "logical tables fill stage 0: t0 1, t1 1, t2 1, t3 1, t4 1, t5 1, t6 1, t7 1, 1 more \
             (its dependencies alone need 1 stage)"
        );
    }
}
