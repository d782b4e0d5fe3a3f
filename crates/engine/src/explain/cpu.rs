//! `explain --model t4p4s`: a class's cycles per packet as the CPU model
//! composes them (baseline, the one table's equation, or Eq. (8) plus
//! each table's excess), each term in cycles and in ns at the clock, then
//! the packet rate and the median latency of Eq. (3).

use serde::Serialize;

use super::{Explanation, Term};
use crate::cpu_out::{ClassCpuOut, CpuOut, CpuTableOut};
use crate::error::Error;
use crate::report::Report;

/// A CPU model's figures of the class explained.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ExplainCpu {
    pub clock_ghz: f64,
    pub cores: u32,
    /// The class's cycles per packet (what `predict` gives).
    pub cycles_per_packet: f64,
    /// The terms' cycles summed.
    pub total_cycles: f64,
    pub packets_per_second: f64,
    /// Eq. (3), microseconds.
    pub median_latency_us: f64,
    pub median_latency_formula: String,
}

/// A class chosen: its path's headers, its id (`P.C`) when listed, its
/// tables and figures.
type Chosen = (Vec<String>, Option<String>, Vec<String>, ClassCpuOut);

/// The class explained: with `--path` or `--class`, the slowest listed
/// class (of those `--class` selects); else the slowest of all.
fn chosen(r: &Report, cpu: &CpuOut) -> Option<Chosen> {
    let filtered = r.path_selector.is_some()
        || r.paths
            .iter()
            .any(|p| p.classes.as_ref().is_some_and(|c| c.filter.is_some()));
    if !filtered {
        if let Some(s) = &cpu.summary {
            let s = &s.slowest;
            return Some((s.headers.clone(), None, s.tables.clone(), s.cpu.clone()));
        }
    }
    let mut best: Option<Chosen> = None;
    for p in &r.paths {
        let Some(pc) = &p.classes else { continue };
        let list: Vec<&crate::path_classes::PathClassOut> = if pc.filter.is_some() {
            pc.classes.iter().collect()
        } else {
            vec![&pc.slowest]
        };
        for c in list {
            let Some(k) = &c.cpu else { continue };
            if best
                .as_ref()
                .is_none_or(|b| k.cycles_per_packet > b.3.cycles_per_packet)
            {
                let names = crate::path_classes::class_tables_of(c, &r.tables)
                    .map(|t| t.name.clone())
                    .collect();
                best = Some((p.headers.clone(), Some(c.id.clone()), names, k.clone()));
            }
        }
    }
    best
}

fn row<'a>(cpu: &'a CpuOut, name: &str) -> Option<&'a CpuTableOut> {
    cpu.tables.iter().find(|t| t.name == name)
}

fn why(t: &CpuTableOut) -> String {
    let foot = t
        .footprint_bytes
        .map(|b| format!(", footprint {b} B"))
        .unwrap_or_default();
    format!(
        "{} table, {} entries ({}), key {} B, action data {} B{foot}, memory: {}",
        t.kind, t.entries, t.entries_source, t.key_bytes, t.action_bytes, t.regime
    )
}

fn term(
    part: &str,
    item: String,
    formula: String,
    why: Option<String>,
    cycles: f64,
    ghz: f64,
    t: Option<&CpuTableOut>,
) -> Term {
    Term {
        part: part.to_string(),
        item,
        formula,
        why,
        ns: round3(cycles / ghz),
        cycles: Some(round3(cycles)),
        span: t.map(|t| t.span.clone()),
    }
}

/// Fills `e` with the CPU model's terms for the class explained.
pub(super) fn cpu_terms(
    e: &mut Explanation,
    r: &Report,
    m: &p4cost_model::ModelSpec,
) -> Result<(), Error> {
    let (Some(cpu), Some(spec)) = (&r.cpu, m.cpu()) else {
        return Err(Error::input(format!(
            "{}: model {} gave no CPU figures to explain",
            r.program, m.name
        )));
    };
    let Some((headers, class, tables, k)) = chosen(r, cpu) else {
        return Err(Error::input(format!(
            "{}: no packet class to explain",
            r.program
        )));
    };
    e.headers = headers;
    e.class = class;
    let ghz = cpu.clock_ghz;
    e.equation = format!(
        "cycles per packet = {} (docs/models.md#t4p4s-dpdk-cpu-cost); ns = cycles / {ghz} GHz; packets per second = clock / cycles",
        crate::predict::CPU_COMPOSITION
    );
    let c = cpu.cores;
    let rows: Vec<&CpuTableOut> = tables.iter().filter_map(|n| row(cpu, n)).collect();
    e.terms
        .extend(table_terms(&rows, spec, c, k.base_cycles, ghz));
    let total: f64 = e.terms.iter().filter_map(|t| t.cycles).sum();
    e.total_ns = round3(total / ghz);
    e.predicted_ns = round3(k.cycles_per_packet / ghz);
    e.cpu = Some(ExplainCpu {
        clock_ghz: ghz,
        cores: c,
        cycles_per_packet: k.cycles_per_packet,
        total_cycles: round3(total),
        packets_per_second: k.packets_per_second,
        median_latency_us: cpu.median_latency_us,
        median_latency_formula: cpu.median_latency_formula.clone(),
    });
    e.warnings = class_warnings(r, &tables);
    Ok(())
}

/// The terms of the class's tables `rows` (`c` cores, `base_cycles` of
/// the class at one entry per table, a clock of `ghz`): the baseline
/// alone with no table, one table's own formula, or Eq. (8) over the
/// applications with each table's excess over one entry.
fn table_terms(
    rows: &[&CpuTableOut],
    spec: &p4cost_model::cpu_tables::CpuSpec,
    c: u32,
    base_cycles: f64,
    ghz: f64,
) -> Vec<Term> {
    match rows {
        [] => vec![term(
            "Eq. (2)",
            "no table".into(),
            format!("{} cycles (baseline_cycles) / {c}", spec.baseline_cycles),
            None,
            base_cycles,
            ghz,
            None,
        )],
        [t] => vec![term(
            &eq_of(&t.kind),
            format!("table {} alone", t.name),
            t.formula.clone(),
            Some(why(t)),
            t.alone_cycles,
            ghz,
            Some(t),
        )],
        _ => {
            let a = &spec.applications;
            let applications = term(
                "Eq. (8)",
                format!("t = {} table applications", rows.len()),
                format!(
                    "({} * {} + {}) / {c}",
                    a.per_table_cycles,
                    rows.len(),
                    a.constant_cycles
                ),
                None,
                base_cycles,
                ghz,
                None,
            );
            let excess = rows.iter().map(|t| {
                term(
                    "excess",
                    format!("table {}", t.name),
                    format!("[{}] - {:.3} at 1 entry", t.formula, t.one_entry_cycles),
                    Some(why(t)),
                    t.excess_cycles,
                    ghz,
                    Some(t),
                )
            });
            std::iter::once(applications).chain(excess).collect()
        }
    }
}

/// The report's warnings about the class: those without a place, and
/// those naming one of its `tables`.
fn class_warnings(r: &Report, tables: &[String]) -> Vec<String> {
    r.warnings
        .iter()
        .filter(|w| {
            w.span.is_none()
                || tables
                    .iter()
                    .any(|n| w.message.contains(&format!("table {n}")))
        })
        .map(|w| format!("{}: {}", w.code, w.message))
        .collect()
}

fn eq_of(kind: &str) -> String {
    match kind {
        "exact" => "Eq. (5)",
        "ternary" => "Eq. (6)",
        "lpm" => "Eq. (7)",
        _ => "Eq. (8)",
    }
    .to_string()
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
