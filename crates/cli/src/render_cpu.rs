//! The table of a CPU model's report (`--model t4p4s`): the settings, each
//! table priced alone, the slowest and fastest class, and each listed
//! path's classes in cycles per packet and Mpps. Units are named on every
//! figure: cycles, Mpps, us.

use p4cost_engine::cpu_out::{ClassCpuOut, CpuClassRef, CpuOut};
use p4cost_engine::path_classes;
use p4cost_engine::report::Report;

/// `2.0 GHz (default; set --clock-ghz), 1 core, L3 20 MB`.
pub fn head_line(c: &CpuOut) -> String {
    format!(
        "cpu       {} GHz{}, {} core{} (--cores), L3 {} MB (--l3-mb); median latency {:.2} us (Eq. 3: {})\n",
        c.clock_ghz,
        if c.clock_is_default {
            " (default; set --clock-ghz)"
        } else {
            ""
        },
        c.cores,
        if c.cores == 1 { "" } else { "s" },
        c.l3_mb,
        c.median_latency_us,
        c.median_latency_formula
    )
}

fn mpps(pps: f64) -> String {
    format!("{:.3} Mpps", pps / 1e6)
}

/// `412.300 cycles  4.851 Mpps  (Eq. (8) + excess, 3 tables)`.
fn figures(c: &ClassCpuOut) -> String {
    format!(
        "{:>9.3} cycles  {:>12}  ({}, {} table{})",
        c.cycles_per_packet,
        mpps(c.packets_per_second),
        c.rule,
        c.tables,
        if c.tables == 1 { "" } else { "s" }
    )
}

fn class_ref(s: &mut String, what: &str, c: &CpuClassRef) {
    let headers: Vec<&str> = c
        .headers
        .iter()
        .map(|h| h.trim_start_matches("hdr."))
        .collect();
    s.push_str(&format!(
        "{what:<9} {}\n          headers {}; tables {}\n",
        figures(&c.cpu),
        if headers.is_empty() {
            "none".to_string()
        } else {
            headers.join(" -> ")
        },
        if c.tables.is_empty() {
            "none".to_string()
        } else {
            c.tables.join(", ")
        }
    ));
}

/// The CPU part of the table: summary, paths with their classes, tables.
pub fn render(s: &mut String, r: &Report, c: &CpuOut) {
    s.push_str(&format!(
        "baseline  {:.3} cycles per packet with no table (Eq. 2 / cores)\ncompose   {}\n",
        c.baseline_cycles, c.composition
    ));
    if let Some(sum) = &c.summary {
        s.push_str(&format!(
            "classes   {}{}\n",
            sum.classes.text,
            if sum.complete {
                ""
            } else {
                " (extremes over the classes listed per parse path)"
            }
        ));
        class_ref(s, "slowest", &sum.slowest);
        class_ref(s, "fastest", &sum.fastest);
    }
    listing_head(s);
    for p in &r.paths {
        path_line(s, p);
        let Some(pc) = &p.classes else { continue };
        if pc.total.text != "1" || pc.truncated {
            s.push_str(&format!(
                "{:>8}  {} class{}{}\n",
                "",
                pc.total.text,
                if pc.total.text == "1" { "" } else { "es" },
                if pc.truncated {
                    format!(" (first {} listed)", pc.classes.len())
                } else {
                    String::new()
                }
            ));
        }
        for k in &pc.classes {
            let Some(cpu) = &k.cpu else { continue };
            s.push_str(&format!(
                "{:>8}  {}  {}\n",
                k.id,
                figures(cpu),
                path_classes::class_brief(k, &r.tables, &r.decisions)
            ));
        }
    }
    render_tables(s, c);
}

fn render_tables(s: &mut String, c: &CpuOut) {
    if c.tables.is_empty() {
        return;
    }
    s.push_str("\ntables (each priced alone; entries from where it says)\n");
    for t in &c.tables {
        let foot = match (t.footprint_bytes, t.regime.as_str()) {
            (Some(b), r) => format!("{:.3} MB in {r}", b as f64 / 1e6),
            (None, _) => "memory not modelled".to_string(),
        };
        s.push_str(&format!(
            "  {:<32} {:<7} {:>9} entries ({})  {}  {:>9.3} cycles alone, {:+.3} cycles beside others\n      = {}  ({}:{})\n",
            t.name,
            t.kind,
            t.entries,
            t.entries_source,
            foot,
            t.alone_cycles,
            t.excess_cycles,
            t.formula,
            t.span.file,
            t.span.line
        ));
    }
}

/// The head of a class listing: `    path  headers, then its classes`
/// (the CPU and pass models' tables).
pub(crate) fn listing_head(s: &mut String) {
    s.push_str(&format!(
        "\n{:>8}  {}\n",
        "path", "headers, then its classes"
    ));
}

/// A listed path's line: its number and headers (`hdr.` left out).
pub(crate) fn path_line(s: &mut String, p: &p4cost_engine::report::PathOut) {
    let headers: Vec<&str> = p
        .headers
        .iter()
        .map(|h| h.trim_start_matches("hdr."))
        .collect();
    s.push_str(&format!(
        "{:>8}  {}\n",
        p.number.to_string(),
        if headers.is_empty() {
            "(no header)".to_string()
        } else {
            headers.join(" -> ")
        }
    ));
}
