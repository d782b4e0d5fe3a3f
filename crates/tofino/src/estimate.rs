//! Estimating stage lengths and latency contributions when the context
//! only says which stages are match dependent (schema 1.8).
//!
//! The rules are those of the Tofino assembler (facts from p4c's
//! `backends/tofino/bf-asm`, recorded in docs/models.md, MAU cycle rules):
//! - stage length = base (20 cycles on Tofino 1, 23 on Tofino 2), plus 2
//!   when the stage's group uses a TCAM or a wide selector, plus 8 for a
//!   selector, else 6 for a stateful divide, else 4 for a stateful ALU or
//!   an LPF/RED meter;
//! - a "group" is a match-dependent stage with the non-match-dependent
//!   stages that follow it: all stages of a group share their features;
//! - stage 0 and match-dependent stages add their full length, an
//!   action-dependent stage adds 2, a concurrent stage 1 (Tofino 2 has no
//!   concurrent stages: 2);
//! - a stage is action dependent when its actions use a field that the
//!   actions of the earlier stages of its group write.
//!
//! The context does not say whether a stateful ALU divides, so that +6 is
//! never applied. Action read/write sets are compared by field name, where
//! the assembler compares PHV containers; a field sharing a container with
//! another may be missed.

use std::collections::{BTreeSet, HashMap};

use p4cost_ir::{Gress, MauStage};

use crate::context::StageUse;

/// Timing constants of one chip.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Chip {
    /// Base stage length.
    pub base: u32,
    /// Base predication cycle.
    pub base_predication: u32,
    /// Whether concurrent stages exist (and cost 1).
    pub concurrent: bool,
}

impl Chip {
    /// The constants for a context `target` string.
    pub(crate) fn for_target(target: &str) -> Chip {
        if target == "tofino" {
            Chip {
                base: 20,
                base_predication: 11,
                concurrent: true,
            }
        } else {
            Chip {
                base: 23,
                base_predication: 13,
                concurrent: false,
            }
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Features {
    tcam: bool,
    selector: bool,
    wide_selector: bool,
    stateful: bool,
    meter_lpf_red: bool,
}

impl Features {
    fn of(u: Option<&StageUse>) -> Features {
        match u {
            Some(u) => Features {
                tcam: u.tcam,
                selector: u.selector,
                wide_selector: u.wide_selector,
                stateful: u.stateful,
                meter_lpf_red: u.meter_lpf_red,
            },
            None => Features::default(),
        }
    }

    fn union(self, o: Features) -> Features {
        Features {
            tcam: self.tcam || o.tcam,
            selector: self.selector || o.selector,
            wide_selector: self.wide_selector || o.wide_selector,
            stateful: self.stateful || o.stateful,
            meter_lpf_red: self.meter_lpf_red || o.meter_lpf_red,
        }
    }

    fn tcam_delay(self) -> u32 {
        if self.tcam || self.wide_selector {
            2
        } else {
            0
        }
    }

    fn address_delay(self) -> u32 {
        if self.selector {
            8
        } else if self.stateful || self.meter_lpf_red {
            4
        } else {
            0
        }
    }
}

/// Estimates the stage records of every gress from the match-dependence
/// flags and the features of the tables placed in each stage.
pub(crate) fn estimate(
    chip: Chip,
    deps: &[(Gress, i32, bool)],
    usage: &HashMap<(Gress, i32), StageUse>,
) -> Vec<MauStage> {
    let mut gresses: Vec<Gress> = Vec::new();
    for (g, _, _) in deps {
        if !gresses.contains(g) {
            gresses.push(*g);
        }
    }
    let mut out = Vec::new();
    for gress in gresses {
        let mut rows: Vec<(i32, bool)> = deps
            .iter()
            .filter(|(g, _, _)| *g == gress)
            .map(|(_, s, md)| (*s, *md))
            .collect();
        rows.sort_by_key(|(s, _)| *s);
        rows.dedup_by_key(|(s, _)| *s);

        // Share features within each group, forwards then backwards.
        let mut group: Vec<Features> = rows
            .iter()
            .map(|(s, _)| Features::of(usage.get(&(gress, *s))))
            .collect();
        for i in 1..group.len() {
            if let (Some(prev), Some((_, false))) = (group.get(i - 1).copied(), rows.get(i)) {
                if let Some(g) = group.get_mut(i) {
                    *g = g.union(prev);
                }
            }
        }
        for i in (1..group.len()).rev() {
            if let (Some(next), Some((_, false))) = (group.get(i).copied(), rows.get(i)) {
                if let Some(g) = group.get_mut(i - 1) {
                    *g = g.union(next);
                }
            }
        }

        let empty = BTreeSet::new();
        let sets = |s: i32| -> (&BTreeSet<String>, &BTreeSet<String>) {
            match usage.get(&(gress, s)) {
                Some(u) => (&u.action_set, &u.action_use),
                None => (&empty, &empty),
            }
        };
        let mut set_regs: BTreeSet<String> = BTreeSet::new();
        for (i, ((stage, md), feat)) in rows.iter().zip(group.iter()).enumerate() {
            let length = chip.base + feat.tcam_delay() + feat.address_delay();
            let (action_set, action_use) = sets(*stage);
            let contribution = if i == 0 || *stage == 0 || *md {
                length
            } else if !chip.concurrent || !action_use.is_disjoint(&set_regs) {
                2
            } else {
                1
            };
            if i == 0 || *md {
                set_regs = action_set.clone();
            } else {
                set_regs.extend(action_set.iter().cloned());
            }
            out.push(MauStage {
                gress,
                stage: *stage,
                clock_cycles: length,
                predication_cycle: Some(chip.base_predication + feat.tcam_delay()),
                match_dependent: *md,
                cycles_contribute_to_latency: contribution,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn use_with(f: impl FnOnce(&mut StageUse)) -> StageUse {
        let mut u = StageUse::default();
        f(&mut u);
        u
    }

    #[test]
    fn group_features_and_contributions() {
        let tofino = Chip::for_target("tofino");
        let deps = vec![
            (Gress::Ingress, 0, true),
            (Gress::Ingress, 1, false),
            (Gress::Ingress, 2, false),
            (Gress::Ingress, 3, true),
        ];
        let mut usage = HashMap::new();
        usage.insert(
            (Gress::Ingress, 0),
            use_with(|u| {
                u.action_set.insert("md.a".into());
            }),
        );
        // Stage 1 uses a TCAM and reads md.a: action dependent on stage 0.
        usage.insert(
            (Gress::Ingress, 1),
            use_with(|u| {
                u.tcam = true;
                u.action_use.insert("md.a".into());
            }),
        );
        usage.insert((Gress::Ingress, 3), use_with(|u| u.selector = true));
        let s = estimate(tofino, &deps, &usage);
        let lens: Vec<u32> = s.iter().map(|r| r.clock_cycles).collect();
        // Stages 0-2 form one group sharing the TCAM delay; stage 3 has a
        // selector.
        assert_eq!(lens, vec![22, 22, 22, 28]);
        let adds: Vec<u32> = s.iter().map(|r| r.cycles_contribute_to_latency).collect();
        assert_eq!(adds, vec![22, 2, 1, 28]);
        assert_eq!(s[0].predication_cycle, Some(13));
    }

    #[test]
    fn tofino2_has_no_concurrent_stages() {
        let chip = Chip::for_target("tofino2");
        let deps = vec![(Gress::Egress, 0, true), (Gress::Egress, 1, false)];
        let s = estimate(chip, &deps, &HashMap::new());
        assert_eq!(s[0].cycles_contribute_to_latency, 23);
        assert_eq!(s[1].cycles_contribute_to_latency, 2);
    }
}
