//! The stage map: per gress, its stages as columns with the units placed
//! in each, the stage's dependency by colour and its cycles; the chain that
//! sets the stage count outlined; "does not fit" as the overflow.

use maud::{html, Markup};
use p4cost_engine::error::NoFit;
use p4cost_engine::pipeline_view::{DepView, Placed, StageMap};
use p4cost_model::mau_cycles::GressCycles;
use p4cost_model::mau_estimate::{GressPlan, StageDep, StageMemory};

const COL_W: u32 = 150;
const ROW_H: u32 = 18;
const HEAD: u32 = 58;

/// The stage map section's body.
pub fn stage_map(map: &StageMap, deps: &[DepView]) -> Markup {
    match map {
        StageMap::Absent(why) => html! { p.note { "No stage map: " (why) } },
        StageMap::DoesNotFit(fit) => does_not_fit(fit),
        StageMap::Placed(p) => placed(p, deps),
    }
}

fn placed(p: &Placed, deps: &[DepView]) -> Markup {
    html! {
        p {
            @if p.exact { "The compiler's placement (context.json), exact; cycles summed by " }
            @else { "Placement ESTIMATED from the program by " }
            code { (p.model) } " at " (format!("{:.3}", p.prediction.clock_ghz)) " GHz. "
            @match p.plan.as_ref().and_then(|x| x.gresses.first()) {
                Some(g) => span.note { "Bars under each table: its SRAM (blue) and TCAM (green) blocks in that stage as the estimate places them, against the stage's " (g.stage_capacity.sram) " SRAM and " (g.stage_capacity.tcam) " TCAM blocks (an estimate, not the compiler's allocation)." },
                None => span.note { "memory per table: not read from the compiler's outputs" },
            }
        }
        @for g in &p.prediction.gresses {
            @let gp = p.plan.as_ref().and_then(|x| x.gresses.iter().find(|y| y.gress == g.gress));
            @let chain: Vec<&str> = chain_names(g, gp, deps);
            // The estimate's units by index (names repeat: `tbl_assign`).
            @let dv = deps.iter().find(|d| gp.is_some() && d.gress == g.gress && d.layers_are_stages);
            (gress(g, gp, dv, &chain))
        }
        @for w in &p.prediction.warnings {
            p.warn { code { (w.code) } ": " (w.message) }
        }
    }
}

/// The names on the chain that sets the gress's stage count.
fn chain_names<'a>(
    g: &GressCycles,
    gp: Option<&'a GressPlan>,
    deps: &'a [DepView],
) -> Vec<&'a str> {
    if let Some(gp) = gp {
        return gp.chain.iter().map(String::as_str).collect();
    }
    deps.iter()
        .find(|d| d.gress == g.gress)
        .map(|d| d.chain.iter().map(|&i| d.units[i].name.as_str()).collect())
        .unwrap_or_default()
}

fn dep_of(g: &GressCycles, gp: Option<&GressPlan>, i: usize) -> (&'static str, String) {
    let s = &g.stages[i];
    let sp = gp.and_then(|p| {
        p.stages
            .iter()
            .find(|x| i64::from(x.stage) == i64::from(s.stage))
    });
    match sp.map(|x| (x.dependency, x.reason.clone())) {
        Some((StageDep::Match, r)) => ("match", r),
        Some((StageDep::Action, r)) => ("action", r),
        Some((StageDep::Concurrent, r)) => ("concurrent", r),
        None if s.match_dependent => ("match", String::new()),
        None => ("concurrent", String::new()),
    }
}

/// One unit drawn in a stage column.
struct Drawn {
    name: String,
    on_chain: bool,
    /// The estimate's unit index, when the estimate placed it.
    unit: Option<usize>,
}

/// The units drawn in stage column `i` with whether each is on the chain:
/// the estimate's units that occupy the stage (by index), else the stage
/// record's tables (by name).
fn units_in(g: &GressCycles, dv: Option<&DepView>, chain: &[&str], i: usize) -> Vec<Drawn> {
    let s = &g.stages[i];
    let here = |a: u32, b: u32| (i64::from(a)..=i64::from(b)).contains(&i64::from(s.stage));
    match dv {
        Some(d) => d
            .units
            .iter()
            .enumerate()
            .filter(|(_, u)| u.stages.is_some_and(|(a, b)| here(a, b)))
            .map(|(k, u)| Drawn {
                name: u.name.clone(),
                on_chain: d.chain.contains(&k),
                unit: Some(k),
            })
            .collect(),
        None => s
            .tables
            .iter()
            .map(|t| Drawn {
                name: t.clone(),
                on_chain: chain.contains(&t.as_str()),
                unit: None,
            })
            .collect(),
    }
}

fn gress(g: &GressCycles, gp: Option<&GressPlan>, dv: Option<&DepView>, chain: &[&str]) -> Markup {
    let units = |i: usize| units_in(g, dv, chain, i);
    let rows = (0..g.stages.len())
        .map(|i| units(i).len())
        .max()
        .unwrap_or(0) as u32;
    let width = COL_W * g.stages.len().max(1) as u32 + 10;
    let height = HEAD + rows.max(1) * ROW_H + 10;
    html! {
        h3 { (g.gress.name()) ": " (g.cycles) " cycles = " (format!("{:.1}", g.ns)) " ns (corner turn " (g.corner_turn_cycles) " + stages " (g.cycles.saturating_sub(g.corner_turn_cycles)) ")" }
        div.scroll {
            svg.stagemap data-gress=(g.gress.name()) width=(width) height=(height) viewBox=(format!("0 0 {width} {height}")) {
                @for (i, s) in g.stages.iter().enumerate() {
                    @let x = 5 + COL_W * i as u32;
                    @let (dep, why) = dep_of(g, gp, i);
                    g.stage data-stage=(s.stage) {
                        title { "stage " (s.stage) ": " (dep) " dependent, " (s.clock_cycles) " cycles long, adds " (s.cycles) @if !why.is_empty() { "\n" (why) } @if let Some((m, c)) = stage_memory(gp, s.stage) { "\nmemory (estimate): " (m.sram) " of " (c.sram) " SRAM, " (m.tcam) " of " (c.tcam) " TCAM blocks" } }
                        rect class=(format!("stagehead {dep}")) x=(x) y="2" width=(COL_W - 6) height="44" rx="3" {}
                        text x=(x + 4) y="18" { "stage " (s.stage) " · " (dep) }
                        text x=(x + 4) y="36" { (s.clock_cycles) " cyc, +" (s.cycles) }
                        rect.stagecol x=(x) y="48" width=(COL_W - 6) height=(height - 52) {}
                    }
                    @for (r, d) in units(i).iter().enumerate() {
                        @let y = HEAD + r as u32 * ROW_H;
                        @let mem = memory_at(gp, d.unit, s.stage);
                        g class=(if d.on_chain { "placed chain" } else { "placed" }) {
                            title { (d.name) @if let Some(m) = mem { "\nmemory in stage " (m.stage) ": " (m.sram) " SRAM, " (m.tcam) " TCAM blocks (estimate)" } }
                            rect x=(x + 2) y=(y) width=(COL_W - 10) height=(ROW_H - 3) rx="2" {}
                            text x=(x + 5) y=(y + 11) { (crate::graphs::short(&d.name, 22)) }
                            @if let (Some(m), Some(gp)) = (mem, gp) {
                                @let w = COL_W - 14;
                                rect.mem.sram x=(x + 4) y=(y + ROW_H - 6) width=(bar(w, m.sram, gp.stage_capacity.sram)) height="2" {}
                                rect.mem.tcam x=(x + 4) y=(y + ROW_H - 4) width=(bar(w, m.tcam, gp.stage_capacity.tcam)) height="2" {}
                            }
                        }
                    }
                }
            }
        }
        @if !chain.is_empty() {
            p { "Chain that sets the stage count: " span.chaintext { (chain.join(" → ")) } }
        }
        @if let Some(gp) = gp {
            @for l in &gp.limits_hit { p.note { "resource limit: " (l) } }
        }
    }
}

/// The chip's stages, then the stages the chain needs past them in red.
fn does_not_fit(f: &NoFit) -> Markup {
    let n = f.needed.max(f.stages);
    let width = 40 * n + 10;
    html! {
        @if let Some((unit, what)) = f.unit_too_large() {
            p.warn { "Does not fit: " code { (unit) } " in control " code { (f.control) }
                " " (what) " (model " code { (f.model) } ")." }
        } @else {
            p.warn { "Does not fit: control " code { (f.control) } " needs at least " (f.needed)
                " stages, the chip has " (f.stages) " (model " code { (f.model) } ")." }
        }
        svg.stagemap.overflow width=(width) height="60" viewBox=(format!("0 0 {width} 60")) {
            @for s in 0..n {
                rect class=(if s < f.stages { "fits" } else { "over" }) x=(5 + 40 * s) y="5" width="36" height="30" {
                    title { "stage " (s) @if s >= f.stages { ": past the chip's last stage" } }
                }
                text x=(9 + 40 * s) y="52" { (s) }
            }
        }
        @if let Some(full) = &f.full {
            p { "The stages filled up: " (full.sentence()) "." }
        } @else {
            p { "The chain that overflows: " span.chaintext { (f.chain.join(" → ")) } }
        }
    }
}

/// The blocks the estimate gave unit `unit` in `stage`, if any.
fn memory_at(gp: Option<&GressPlan>, unit: Option<usize>, stage: i32) -> Option<StageMemory> {
    let m = gp?.unit_memory.get(unit?)?;
    m.iter()
        .find(|x| i64::from(x.stage) == i64::from(stage))
        .copied()
        .filter(|x| x.sram > 0 || x.tcam > 0)
}

/// A stage's blocks in use and its capacity, from the estimate.
fn stage_memory(gp: Option<&GressPlan>, stage: i32) -> Option<(StageMemory, StageMemory)> {
    let gp = gp?;
    let m = gp
        .stage_memory
        .iter()
        .find(|x| i64::from(x.stage) == i64::from(stage))?;
    Some((*m, gp.stage_capacity))
}

/// A bar's width in pixels: `used` of `capacity` over `width`, at least 1
/// when anything is used.
fn bar(width: u32, used: u32, capacity: u32) -> u32 {
    if used == 0 || capacity == 0 {
        return 0;
    }
    let w = u64::from(width) * u64::from(used.min(capacity)) / u64::from(capacity);
    (w as u32).max(1)
}
