//! The resource budgets of `check` (`max-stages`, `max-sram-percent`,
//! `max-tcam-percent` in p4cost.toml) and the [`CHIP_MEMORY`] finding: a
//! program whose estimated memory exceeds what its pipe's stages hold.
//! All judged on `p4cost resources`' figures.

use crate::check::{Budget, Contributor, Limit, Target, Verdict, MAX_CONTRIBUTORS};
use crate::error::Error;
use crate::resources::ResourceReport;
use crate::stages::StagesOptions;

/// The verdict key of a program whose memory exceeds its pipe's (the
/// limit is the chip's, not set by anyone).
pub const CHIP_MEMORY: &str = "chip_memory";

/// The memory report of `t`'s program under its placement estimate;
/// `None` when it does not fit its chip's stages (the finding is pushed
/// to `out` by `no_fit`).
pub fn report(
    t: &Target,
    b: &Budget,
    no_fit: &mut dyn FnMut(&crate::error::NoFit),
) -> Result<Option<ResourceReport>, Error> {
    let o = &t.options;
    let model = o
        .target
        .model
        .clone()
        .filter(|m| p4cost_model::model_by_name(m).is_ok_and(|m| m.placement().is_some()));
    let so = StagesOptions {
        file: o.file.clone(),
        source: o.source.clone(),
        model,
        model_file: None,
        pipe: o.pipe.clone(),
        clock_ghz: o.clock_ghz,
        deps: o.deps,
    };
    match crate::resources::resources(&so) {
        Ok(r) => Ok(Some(r)),
        Err(Error::DoesNotFit { fit, .. }) => {
            no_fit(&fit);
            Ok(None)
        }
        Err(e) => Err(e.context(&format!("{} ({})", b.origin, b.limit.key()))),
    }
}

/// The verdict of budget `b` on `r`.
pub fn judge(b: &Budget, r: &ResourceReport) -> Verdict {
    let res = &r.resources;
    let p = &res.pipe;
    let (predicted, capacity) = match b.limit {
        Limit::MaxStages => (f64::from(p.stages_used), 0),
        Limit::MaxTcamPercent => (p.tcam_percent, p.tcam_capacity),
        _ => (p.sram_percent, p.sram_capacity),
    };
    let over = predicted > b.value;
    let contributors = match b.limit {
        _ if !over => Vec::new(),
        Limit::MaxStages => longest_chain(r),
        Limit::MaxTcamPercent => tables(r, capacity, |u| u.tcam_blocks),
        _ => tables(r, capacity, |u| u.parts.iter().map(|x| x.sram_blocks).sum()),
    };
    Verdict {
        program: r.stages.shown.clone(),
        pipeline: None,
        model: r.stages.model.name.clone(),
        budget: b.limit.key(),
        selector: None,
        unit: b.limit.unit(),
        status: if over { "over" } else { "ok" },
        predicted,
        limit: b.value,
        margin: b.value - predicted,
        origin: b.origin.clone(),
        class: None,
        headers: Vec::new(),
        contributors,
        note: None,
    }
}

/// The units taking most of a memory of `capacity` blocks, each as its
/// percent of it.
fn tables(
    r: &ResourceReport,
    capacity: u32,
    blocks: impl Fn(&p4cost_model::mau_estimate::resources::UnitResources) -> u32,
) -> Vec<Contributor> {
    let mut v: Vec<(u32, &str)> = r
        .resources
        .units
        .iter()
        .map(|u| (blocks(u), u.name.as_str()))
        .filter(|x| x.0 > 0)
        .collect();
    v.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    v.into_iter()
        .take(MAX_CONTRIBUTORS)
        .map(|(n, name)| Contributor {
            kind: "table",
            name: name.to_string(),
            value: f64::from(n) * 100.0 / f64::from(capacity.max(1)),
            span: None,
        })
        .collect()
}

/// The dependency chain of the gress that uses the most stages.
fn longest_chain(r: &ResourceReport) -> Vec<Contributor> {
    let Some(plan) = &r.stages.plan else {
        return Vec::new();
    };
    let last = |g: &p4cost_model::mau_estimate::GressPlan| {
        g.unit_stages.iter().map(|s| s.1).max().unwrap_or(0)
    };
    plan.gresses
        .iter()
        .max_by_key(|g| last(g))
        .map(|g| crate::check::chain_terms(&g.chain))
        .unwrap_or_default()
}

/// The [`CHIP_MEMORY`] verdicts of `r`: one per memory (SRAM, TCAM) the
/// pipe overflows, its tables largest first.
pub fn chip_memory(r: &ResourceReport) -> Vec<Verdict> {
    r.resources
        .overflows
        .iter()
        .map(|o| Verdict {
            program: r.stages.shown.clone(),
            pipeline: None,
            model: r.stages.model.name.clone(),
            budget: CHIP_MEMORY,
            selector: None,
            unit: if o.resource == "tcam_blocks" {
                "TCAM blocks"
            } else {
                "SRAM blocks"
            },
            status: "over",
            predicted: f64::from(o.needed),
            limit: f64::from(o.available),
            margin: f64::from(o.available) - f64::from(o.needed),
            origin: format!(
                "the pipe of model {} ({} stages)",
                r.stages.model.name, r.resources.limits.stages
            ),
            class: None,
            headers: Vec::new(),
            contributors: o
                .tables
                .iter()
                .map(|s| Contributor {
                    kind: "table",
                    name: s.name.clone(),
                    value: f64::from(s.amount),
                    span: None,
                })
                .collect(),
            note: None,
        })
        .collect()
}
