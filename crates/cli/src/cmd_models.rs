//! `p4cost models`: every embedded model of every kind, grouped by what it
//! predicts (latency per class, CPU cost, throughput under recirculation,
//! coarse per-pass latency) and the network-calculus devices of `p4cost
//! bound --device`, each with its target, units, paper and equations.

use std::io::Write;

use crate::args::{Format, ModelsArgs};
use crate::exit::{CliError, Exit};

/// The JSON of `p4cost models`.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct ModelsReport {
    schema_version: u32,
    p4cost_version: &'static str,
    /// The models by what they predict, in this order: `latency`,
    /// `cpu_cost`, `recirculation`, `coarse`, `nc_devices`.
    groups: Vec<GroupOut>,
    /// Every embedded model `predict --model` takes, as its file
    /// describes it (the pass models with their file whole under `nfp` or
    /// `bmv2_coarse`).
    models: Vec<p4cost_model::ModelSpec>,
    /// The network-calculus devices (`bound --device`), as their files
    /// describe them.
    devices: Vec<p4cost_model::nc::Device>,
}

/// One group of models.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct GroupOut {
    /// `latency`, `cpu_cost`, `recirculation`, `coarse` or `nc_devices`.
    id: &'static str,
    /// What its models predict.
    title: &'static str,
    /// The command that takes them.
    command: &'static str,
    /// Its models.
    members: Vec<MemberOut>,
}

/// One model or device of a group.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct MemberOut {
    name: String,
    title: String,
    /// The model file's kind (`device` for a network-calculus device).
    kind: String,
    target: String,
    /// The port speed it was measured on, Gbit/s (models that depend on
    /// it).
    #[serde(skip_serializing_if = "Option::is_none")]
    port_gbps: Option<u32>,
    /// The units of what it gives.
    units: String,
    /// What it predicts, with its equations.
    predicts: String,
    /// Its paper.
    citation: String,
    /// Where in the paper.
    location: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    doi: Option<String>,
    /// Section of docs/models.md.
    spec: String,
}

fn member(m: &p4cost_model::ModelSpec) -> MemberOut {
    MemberOut {
        name: m.name.clone(),
        title: m.title.clone(),
        kind: m.kind.name().to_string(),
        target: m.target.clone(),
        port_gbps: m.port_gbps,
        units: m.kind.units().to_string(),
        predicts: m.predicts.clone(),
        citation: m.source.citation.clone(),
        location: m.source.location.clone(),
        doi: m.source.doi.clone(),
        spec: m.source.spec.clone(),
    }
}

fn device(d: &p4cost_model::nc::Device) -> MemberOut {
    MemberOut {
        name: d.name.clone(),
        title: d.title.clone(),
        kind: "device".to_string(),
        target: d.target.clone(),
        port_gbps: None,
        units: "ns, bit/s, bytes".to_string(),
        predicts: d.predicts.clone(),
        citation: d.source.citation.clone(),
        location: d.source.location.clone(),
        doi: d.source.doi.clone(),
        spec: d.source.spec.clone(),
    }
}

/// The groups of `models` and `devices`, in the listing's order.
fn groups(
    models: &[p4cost_model::ModelSpec],
    devices: &[p4cost_model::nc::Device],
) -> Vec<GroupOut> {
    let mut out: Vec<GroupOut> = Vec::new();
    for m in models {
        let (id, title) = m.kind.group();
        match out.iter_mut().find(|g| g.id == id) {
            Some(g) => g.members.push(member(m)),
            None => out.push(GroupOut {
                id,
                title,
                command: if id == "recirculation" || id == "coarse" {
                    "predict --model NAME, throughput --model NAME"
                } else {
                    "predict --model NAME"
                },
                members: vec![member(m)],
            }),
        }
    }
    const ORDER: [&str; 4] = ["latency", "cpu_cost", "recirculation", "coarse"];
    out.sort_by_key(|g| ORDER.iter().position(|o| *o == g.id));
    out.push(GroupOut {
        id: "nc_devices",
        title: "network-calculus devices: a rate-latency service curve per class, delay and backlog bounds",
        command: "bound --device NAME",
        members: devices.iter().map(device).collect(),
    });
    out
}

pub fn run(a: &ModelsArgs, out: &mut dyn Write) -> Result<Exit, CliError> {
    let bad = |e: p4cost_model::ModelError| CliError::input(e.to_string());
    let models = p4cost_model::every_model().map_err(bad)?;
    let devices = p4cost_model::nc::all_devices().map_err(bad)?;
    let groups = groups(&models, &devices);
    let text = match a.format {
        Format::Json => crate::json_out::to_pretty(&ModelsReport {
            schema_version: p4cost_engine::report::SCHEMA_VERSION,
            p4cost_version: env!("CARGO_PKG_VERSION"),
            groups,
            models,
            devices,
        })?,
        Format::Human => human(&groups),
    };
    out.write_all(text.as_bytes()).map_err(CliError::output)?;
    Ok(Exit::Ok)
}

fn human(groups: &[GroupOut]) -> String {
    let mut s = String::new();
    for (i, g) in groups.iter().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        s.push_str(&format!("{} (p4cost {})\n", g.title, g.command));
        for m in &g.members {
            s.push_str(&format!("  {:<22} {}\n", m.name, m.title));
            let port = m
                .port_gbps
                .map(|g| format!(", {g}G port"))
                .unwrap_or_default();
            s.push_str(&format!(
                "  {:<22} target {}{port}; units {}\n",
                "", m.target, m.units
            ));
            s.push_str(&format!("  {:<22} predicts {}\n", "", m.predicts));
            s.push_str(&format!(
                "  {:<22} source: {} ({})",
                "", m.citation, m.location
            ));
            if let Some(doi) = &m.doi {
                s.push_str(&format!(", doi:{doi}"));
            }
            s.push_str(&format!("; {}\n", m.spec));
        }
    }
    s
}
