//! `p4cost resources`: the memory of the estimated stage placement per
//! table and stage against the chip's limits (engine:
//! `p4cost_engine::resources`), rendered as tables or JSON. A program
//! whose memory does not fit is a finding, exit 1.

use std::fmt::Write as _;
use std::io::Write;

use p4cost_model::mau_estimate::resources::{Overflow, Resources, StageTotals, UnitResources};
use p4cost_model::scholz::Scholz;
use serde::Serialize;

use crate::args::{Format, StagesArgs};
use crate::exit::{CliError, Exit};
use p4cost_engine::resources::ResourceReport;

/// The tables (or JSON); exit 1 when a stage or the pipe overflows, or
/// the placement needs more stages than the chip has (that sentence on
/// stdout for a person, on stderr with `--format json`).
pub fn run(a: &StagesArgs, out: &mut dyn Write) -> Result<Exit, CliError> {
    let r = match crate::cmd_stages::fits(
        p4cost_engine::resources::resources(&a.options()),
        a.format,
        out,
    )? {
        Ok(r) => r,
        Err(exit) => return Ok(exit),
    };
    let text = match a.format {
        Format::Human => render_human(&r),
        Format::Json => crate::json_out::to_pretty(&ResourcesReport::new(&r))?,
    };
    out.write_all(text.as_bytes()).map_err(CliError::output)?;
    Ok(if r.resources.overflows.is_empty() {
        Exit::Ok
    } else {
        Exit::Failed
    })
}

/// The published model the per-table percentages come from.
#[derive(Debug, Serialize, schemars::JsonSchema)]
struct ScholzRef<'a> {
    name: &'a str,
    citation: &'a str,
    location: &'a str,
    /// Key bits measured (smallest, largest).
    measured_key_bits: [u64; 2],
    /// Entries measured (fewest, most).
    measured_entries: [u64; 2],
}

/// The JSON report of `p4cost resources`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ResourcesReport<'a> {
    schema_version: u32,
    p4cost_version: &'static str,
    program: &'a str,
    model: p4cost_engine::report::ModelRef,
    /// Always true: the placement is p4cost's estimate.
    estimated: bool,
    #[serde(flatten)]
    resources: &'a Resources,
    /// Where `sram_percent` and `tcam_percent` come from.
    scholz: ScholzRef<'a>,
    /// The estimate's caveats (`estimated_placement`, ...) and
    /// `scholz_extrapolated` when a table lies outside the range Scholz
    /// et al. measured.
    warnings: Vec<WarningRow>,
    notes: &'a [String],
}

/// One caveat.
#[derive(Debug, Serialize, schemars::JsonSchema)]
struct WarningRow {
    code: String,
    message: String,
}

/// The model's warnings, then `scholz_extrapolated` naming the tables
/// outside the measured range.
fn warnings(r: &ResourceReport) -> Vec<WarningRow> {
    let mut out: Vec<WarningRow> = r
        .stages
        .prediction
        .warnings
        .iter()
        .map(|w| WarningRow {
            code: w.code.clone(),
            message: w.message.clone(),
        })
        .collect();
    let outside: Vec<&str> = r
        .resources
        .units
        .iter()
        .filter(|u| u.scholz_extrapolated)
        .map(|u| u.name.as_str())
        .collect();
    if !outside.is_empty() {
        let m = &r.scholz.measured;
        out.push(WarningRow {
            code: "scholz_extrapolated".into(),
            message: format!(
                "the Scholz et al. 2020 share of {} is an extrapolation: outside the measured {}-{} key bits, {}-{} entries",
                outside.join(", "),
                m.key_bits[0],
                m.key_bits[1],
                m.entries[0],
                m.entries[1]
            ),
        });
    }
    out
}

impl<'a> ResourcesReport<'a> {
    fn new(r: &'a ResourceReport) -> ResourcesReport<'a> {
        let m = &r.stages.model;
        let s = &r.scholz;
        ResourcesReport {
            schema_version: p4cost_engine::report::SCHEMA_VERSION,
            p4cost_version: env!("CARGO_PKG_VERSION"),
            program: &r.stages.shown,
            model: p4cost_engine::report::ModelRef {
                name: m.name.clone(),
                title: m.title.clone(),
                citation: m.source.citation.clone(),
                spec: m.source.spec.clone(),
            },
            estimated: true,
            resources: &r.resources,
            scholz: ScholzRef {
                name: &s.name,
                citation: &s.source.citation,
                location: &s.source.location,
                measured_key_bits: s.measured.key_bits,
                measured_entries: s.measured.entries,
            },
            warnings: warnings(r),
            notes: &r.stages.program.notes,
        }
    }
}

/// Tables, stages, the pipe, the model's source, then what overflows.
fn render_human(r: &ResourceReport) -> String {
    let res = &r.resources;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: memory of the estimated placement ({})  [ESTIMATED from the program]",
        r.stages.shown, r.stages.model.name
    );
    render_units(&mut out, &res.units);
    render_stages(&mut out, res);
    let p = &res.pipe;
    let _ = writeln!(
        out,
        "pipe: {} of {} SRAM blocks ({:.1} %), {} of {} TCAM blocks ({:.1} %), {} of {} stages used",
        p.sram_blocks,
        p.sram_capacity,
        p.sram_percent,
        p.tcam_blocks,
        p.tcam_capacity,
        p.tcam_percent,
        p.stages_used,
        res.limits.stages
    );
    render_scholz_source(&mut out, &r.scholz);
    for o in &res.stage_over {
        let _ = writeln!(
            out,
            "caveat: {} (as the estimate placed them: it leaves direct counters, meters and registers' SRAM and hash bits out of a stage's fullness; the compiler would move tables to later stages)",
            overflow_text(o)
        );
    }
    let ws = warnings(r);
    if !ws.is_empty() {
        out.push_str("warnings\n");
        for w in ws {
            let _ = writeln!(out, "  {}: {}", w.code, w.message);
        }
    }
    for o in &res.overflows {
        let _ = writeln!(out, "does not fit: {}", overflow_text(o));
    }
    out
}

fn render_units(out: &mut String, units: &[UnitResources]) {
    // The name and kind columns as wide as their longest entry, so that
    // the figures stay aligned whatever the tables are called.
    let w = units
        .iter()
        .map(|u| u.name.chars().count())
        .fold("table".len(), usize::max);
    let kw = units
        .iter()
        .map(|u| u.kind.chars().count())
        .fold("kind".len(), usize::max);
    let _ = writeln!(
        out,
        "  {:<7}  {:<w$}  {:<kw$}  {:>6}  {:>8}  {:>4}  {:>14}  {:>13}  {:>11}  {:>7}  {:>9}  {:>8}  {:>9}  {:>9}  Scholz 2020",
        "gress", "table", "kind", "stages", "entries", "key", "SRAM blocks", "(match+ad+st)", "TCAM blocks", "map RAM", "hash bits", "gateways", "meter ALU", "stats ALU"
    );
    for u in units {
        let stages = if u.first_stage == u.last_stage {
            u.first_stage.to_string()
        } else {
            format!("{}-{}", u.first_stage, u.last_stage)
        };
        let sram: u32 = u.parts.iter().map(|x| x.sram_blocks).sum();
        let scholz = match (u.sram_percent, u.tcam_percent) {
            (Some(s), _) => format!("{s:.3} % SRAM"),
            (_, Some(t)) => format!("{t:.3} % TCAM"),
            _ => "-".to_string(),
        };
        let star = if u.scholz_extrapolated { " *" } else { "" };
        let _ = writeln!(
            out,
            "  {:<7}  {:<w$}  {:<kw$}  {:>6}  {:>8}  {:>4}  {:>14}  {:>13}  {:>11}  {:>7}  {:>9}  {:>8}  {:>9}  {:>9}  {scholz}{star}",
            gress(u.gress),
            u.name,
            u.kind,
            stages,
            u.entries,
            u.key_bits,
            sram,
            format!(
                "{}+{}+{}",
                u.match_sram_blocks, u.action_sram_blocks, u.stateful_sram_blocks
            ),
            u.tcam_blocks,
            u.map_rams,
            u.hash_bits,
            u.gateways,
            u.meter_alus,
            u.stats_alus
        );
    }
}

fn render_stages(out: &mut String, res: &Resources) {
    let l = &res.limits;
    let _ = writeln!(
        out,
        "stages (every gress; used/limit per stage)\n  {:>5}  {:>11}  {:>11}  {:>9}  {:>9}  {:>8}  {:>14}  {:>10}  {:>10}",
        "stage", "SRAM blocks", "TCAM blocks", "map RAMs", "hash bits", "gateways", "logical tables", "meter ALUs", "stats ALUs"
    );
    let used = |s: &&StageTotals| !s.units.is_empty();
    for s in res.stages.iter().filter(used) {
        let u = &s.used;
        let _ = writeln!(
            out,
            "  {:>5}  {:>11}  {:>11}  {:>9}  {:>9}  {:>8}  {:>14}  {:>10}  {:>10}",
            u.stage,
            format!("{}/{}", u.sram_blocks, l.sram_blocks),
            format!("{}/{}", u.tcam_blocks, l.tcam_blocks),
            format!("{}/{}", u.map_rams, l.map_rams),
            format!("{}/{}", u.hash_bits, l.hash_bits),
            format!("{}/{}", u.gateways, l.gateways),
            format!("{}/{}", u.logical_tables, l.logical_tables),
            format!("{}/{}", u.meter_alus, l.meter_alus),
            format!("{}/{}", u.stats_alus, l.stats_alus),
        );
    }
}

fn render_scholz_source(out: &mut String, s: &Scholz) {
    let _ = writeln!(
        out,
        "Scholz 2020: percent of the chip's SRAM (exact) or TCAM (ternary, LPM) per table, n * (p * k + q), from {}; * = outside the measured {}-{} key bits, {}-{} entries (extrapolated)",
        s.source.citation,
        s.measured.key_bits[0],
        s.measured.key_bits[1],
        s.measured.entries[0],
        s.measured.entries[1]
    );
}

/// `stage 3 needs 131 SRAM blocks, a stage has 80: big 131`.
pub fn overflow_text(o: &Overflow) -> String {
    let what = match o.resource {
        "sram_blocks" => "SRAM blocks",
        "tcam_blocks" => "TCAM blocks",
        "map_rams" => "map RAMs",
        "hash_bits" => "hash bits",
        "logical_tables" => "logical tables",
        "meter_alus" => "meter/stateful ALUs",
        "stats_alus" => "statistics ALUs",
        other => other,
    };
    let tables = o
        .tables
        .iter()
        .map(|s| format!("{} {}", s.name, s.amount))
        .collect::<Vec<_>>()
        .join(", ");
    match o.stage {
        Some(s) => format!(
            "stage {s} needs {} {what}, a stage has {}: {tables}",
            o.needed, o.available
        ),
        None => format!(
            "the pipe needs {} {what}, its stages have {}: {tables}",
            o.needed, o.available
        ),
    }
}

fn gress(g: p4cost_ir::Gress) -> &'static str {
    match g {
        p4cost_ir::Gress::Ingress => "ingress",
        p4cost_ir::Gress::Egress => "egress",
        p4cost_ir::Gress::Ghost => "ghost",
        p4cost_ir::Gress::Unknown => "unknown",
    }
}
