//! The CPU table model (kind `cpu_tables`, docs/models.md, t4p4s DPDK CPU
//! cost): a software switch's cycles per packet from the tables a packet
//! class applies, each priced by its match kind and entries, after Scholz
//! et al., ITC 32 (2020), Eqs. (1)-(8). Every number is in the model file's
//! `cpu` section; this module holds the equations and the composition rule.
//!
//! Composition (the paper gives none for mixed tables): a class applying no
//! table costs the baseline (Eq. 2); one table of kind K with n entries
//! costs K's equation exactly, `C_K(n, c)` (Eqs. 5-7, with their core
//! scaling); t >= 2 tables cost Eq. (8) for t applications, scaled by 1/c,
//! plus per table `C_K(n, c) - C_K(1, c)`, its excess over its own 1-entry
//! value.

use serde::{Deserialize, Serialize};

use p4cost_ir::{MatchKind, Program, Table};

use crate::prediction::Warning;

/// `p * ln(q * n) + r`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LogCurve {
    pub p: f64,
    pub q: f64,
    pub r: f64,
}

/// `p * exp(q * n) + r`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ExpCurve {
    pub p: f64,
    pub q: f64,
    pub r: f64,
}

/// `s / (t * n + u) + v`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Hyperbola {
    pub s: f64,
    pub t: f64,
    pub u: f64,
    pub v: f64,
}

/// `per_core * cores + constant` (Eq. 3).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LatencyLine {
    pub per_core: f64,
    pub constant: f64,
}

/// Eq. (8): `per_table_cycles * t + constant_cycles`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Applications {
    pub per_table_cycles: f64,
    pub constant_cycles: f64,
    /// Applications measured (inclusive).
    pub measured_tables: [u32; 2],
}

/// Exact tables: Eq. (5) with the Eq. (4) footprint deciding the branch.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ExactSpec {
    /// While the table fits in the L3.
    pub cache: LogCurve,
    /// Once it does not.
    pub dram: Hyperbola,
    /// Cores are scaled by `1 / (c + core_offset)`.
    pub core_offset: f64,
    /// Eq. (4)'s fixed bytes (two cache-line structs).
    pub table_bytes: u64,
    /// Eq. (4)'s bytes per entry beside key and action data.
    pub entry_bytes: u64,
    /// Action data is padded up to a multiple of this (a cache line).
    pub action_align_bytes: u64,
}

/// Ternary tables: Eq. (6).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TernarySpec {
    pub curve: ExpCurve,
    /// The exponent as the paper prints it (see the file's notes).
    pub printed_q: f64,
    pub core_offset: f64,
    /// Most entries fitted.
    pub max_entries: u64,
}

/// LPM tables: Eq. (7).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LpmSpec {
    pub curve: LogCurve,
    pub core_offset: f64,
    /// Most entries fitted.
    pub max_entries: u64,
    /// The key measured (IPv4, DIR-24-8).
    pub key_bits: u32,
    /// DIR-24-8's tbl24, per core.
    pub tbl24_bytes: u64,
}

/// The key layout exact and ternary tables were measured with.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MeasuredKey {
    pub fields: u32,
    pub field_bits: u32,
}

/// The `cpu` section of a `cpu_tables` model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CpuSpec {
    pub default_clock_ghz: f64,
    /// The clock the coefficients were fitted at.
    pub measured_clock_ghz: f64,
    pub default_cores: u32,
    /// Cores measured (inclusive).
    pub measured_cores: [u32; 2],
    pub default_l3_mb: f64,
    /// DPDK alone (no P4), cycles per packet.
    pub no_p4_cycles: f64,
    /// Eq. (2): the minimal P4 program, no table.
    pub baseline_cycles: f64,
    /// Eq. (3), microseconds.
    pub median_latency_us: LatencyLine,
    pub applications: Applications,
    pub exact: ExactSpec,
    pub ternary: TernarySpec,
    pub lpm: LpmSpec,
    pub measured_key: MeasuredKey,
    /// Entries of a table that declares no size.
    pub default_table_entries: u64,
}

impl CpuSpec {
    /// What is out of bounds, at JSON path `at`.
    pub fn check(&self, at: &str) -> Result<(), String> {
        let positive = [
            ("default_clock_ghz", self.default_clock_ghz),
            ("measured_clock_ghz", self.measured_clock_ghz),
            ("default_l3_mb", self.default_l3_mb),
            ("baseline_cycles", self.baseline_cycles),
            ("exact.cache.q", self.exact.cache.q),
            ("lpm.curve.q", self.lpm.curve.q),
        ];
        for (k, v) in positive {
            if v.is_nan() || v <= 0.0 {
                return Err(format!("{at}.{k}: {v} must be above zero"));
            }
        }
        if self.default_cores == 0 || self.measured_cores[0] == 0 {
            return Err(format!("{at}: cores start at 1"));
        }
        if self.measured_cores[0] > self.measured_cores[1] {
            return Err(format!("{at}.measured_cores: the range must be ordered"));
        }
        if self.exact.core_offset < 0.0
            || self.ternary.core_offset < 0.0
            || self.lpm.core_offset < 0.0
        {
            return Err(format!("{at}: a core_offset is not below zero"));
        }
        if self.exact.action_align_bytes == 0 || self.default_table_entries == 0 {
            return Err(format!(
                "{at}: exact.action_align_bytes and default_table_entries are at least 1"
            ));
        }
        Ok(())
    }
}

/// What a prediction is for: clock, cores and L3 size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    pub clock_ghz: f64,
    pub cores: u32,
    pub l3_bytes: f64,
}

/// The coefficient set a table is priced by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CpuKind {
    Exact,
    Ternary,
    Lpm,
    /// No key: an application (Eq. 8) with nothing to look up.
    Keyless,
}

impl CpuKind {
    /// The kind's name.
    pub fn name(self) -> &'static str {
        match self {
            CpuKind::Exact => "exact",
            CpuKind::Ternary => "ternary",
            CpuKind::Lpm => "lpm",
            CpuKind::Keyless => "keyless",
        }
    }

    /// A table's kind: any ternary, range or optional key makes a linear
    /// scan (t4p4s's ternary table); else any lpm key DIR-24-8; else exact.
    pub fn of(t: &Table) -> CpuKind {
        let has = |f: &dyn Fn(&MatchKind) -> bool| t.keys.iter().any(|k| f(&k.match_kind));
        if t.keys.is_empty() {
            CpuKind::Keyless
        } else if has(&|m| {
            matches!(
                m,
                MatchKind::Ternary | MatchKind::Range | MatchKind::Optional
            )
        }) {
            CpuKind::Ternary
        } else if has(&|m| matches!(m, MatchKind::Lpm)) {
            CpuKind::Lpm
        } else {
            CpuKind::Exact
        }
    }
}

/// Where the memory of an exact table is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Regime {
    /// Within the L3: Eq. (5)'s first branch.
    Cache,
    /// Past the L3: Eq. (5)'s second branch (an lpm table's tbl24 always).
    Dram,
    /// Not decided by a footprint (ternary: memory effects invisible below
    /// 1,000 entries; keyless).
    NotModelled,
}

/// One table priced alone.
#[derive(Debug, Clone, PartialEq)]
pub struct TableCost {
    pub kind: CpuKind,
    pub entries: u64,
    /// Key bytes (each field rounded up to bytes).
    pub key_bytes: u64,
    /// Action-data bytes of the largest action, padded as the file says.
    pub action_bytes: u64,
    /// Eq. (4) for exact tables; tbl24 times the cores for lpm.
    pub footprint_bytes: Option<u64>,
    pub regime: Regime,
    /// `C_K(n, c)`: the table alone.
    pub alone_cycles: f64,
    /// `C_K(1, c)`.
    pub one_entry_cycles: f64,
    /// The arithmetic of `alone_cycles`.
    pub formula: String,
}

impl TableCost {
    /// What the table adds over its own 1-entry value.
    pub fn excess_cycles(&self) -> f64 {
        self.alone_cycles - self.one_entry_cycles
    }
}

/// A class priced: which rule, its terms and its figures.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassCost {
    /// Table applications.
    pub tables: u32,
    /// `baseline`, `one table` or `Eq. (8) + excess`.
    pub rule: &'static str,
    /// The baseline, the one table alone, or Eq. (8) scaled.
    pub base_cycles: f64,
    /// The tables' excesses (t >= 2), else 0.
    pub excess_cycles: f64,
    pub cycles: f64,
    pub packets_per_second: f64,
}

fn ln_curve(c: &LogCurve, n: f64) -> f64 {
    c.p * (c.q * n).ln() + c.r
}

/// A coefficient as the model file writes it (shortest exact form).
fn num(x: f64) -> String {
    format!("{x}")
}

/// `+ r` or `- |r|`.
fn plus(x: f64) -> String {
    if x < 0.0 {
        format!("- {}", num(-x))
    } else {
        format!("+ {}", num(x))
    }
}

/// The scaling divisor `c + offset` and its text.
fn divisor(cores: u32, offset: f64) -> (f64, String) {
    let d = f64::from(cores) + offset;
    let text = if offset == 0.0 {
        format!("{cores}")
    } else {
        format!("({cores} + {})", num(offset))
    };
    (d, text)
}

/// Eq. (4): the bytes an exact table of `n` entries takes.
pub fn exact_footprint(e: &ExactSpec, n: u64, key_bytes: u64, action_bytes: u64) -> u64 {
    let per = key_bytes
        .saturating_add(action_bytes)
        .saturating_add(e.entry_bytes);
    e.table_bytes.saturating_add(n.saturating_mul(per))
}

/// Eq. (5) at `n` entries with footprint `bytes`.
pub fn exact_cycles(e: &ExactSpec, n: u64, bytes: u64, p: &Params) -> (f64, Regime, String) {
    let (d, dt) = divisor(p.cores, e.core_offset);
    let x = n as f64;
    if (bytes as f64) < p.l3_bytes {
        let c = &e.cache;
        let v = ln_curve(c, x) / d;
        let f = format!(
            "({} * ln({} * {n}) {}) / {dt}",
            num(c.p),
            num(c.q),
            plus(c.r)
        );
        (v, Regime::Cache, f)
    } else {
        let h = &e.dram;
        let v = (h.s / (h.t * x + h.u) + h.v) / d;
        let f = format!(
            "({} / ({} * {n} {}) {}) / {dt}",
            num(h.s),
            num(h.t),
            plus(h.u),
            plus(h.v)
        );
        (v, Regime::Dram, f)
    }
}

/// Eq. (6) at `n` entries.
pub fn ternary_cycles(t: &TernarySpec, n: u64, p: &Params) -> (f64, String) {
    let (d, dt) = divisor(p.cores, t.core_offset);
    let c = &t.curve;
    let v = (c.p * (c.q * n as f64).exp() + c.r) / d;
    let f = format!(
        "({} * exp({} * {n}) {}) / {dt}",
        num(c.p),
        num(c.q),
        plus(c.r)
    );
    (v, f)
}

/// Eq. (7) at `n` entries.
pub fn lpm_cycles(l: &LpmSpec, n: u64, p: &Params) -> (f64, String) {
    let (d, dt) = divisor(p.cores, l.core_offset);
    let c = &l.curve;
    let v = ln_curve(c, n as f64) / d;
    let f = format!(
        "({} * ln({} * {n}) {}) / {dt}",
        num(c.p),
        num(c.q),
        plus(c.r)
    );
    (v, f)
}

/// A table's key bytes (each field rounded up to whole bytes; a field of
/// unknown width counts 4 B, the measured field) and its largest action's
/// data bytes padded to `align`.
pub fn table_bytes(program: &Program, t: &Table, align: u64) -> (u64, u64) {
    let key: u64 = t
        .keys
        .iter()
        .map(|k| u64::from(k.width_bits.unwrap_or(32)).div_ceil(8))
        .sum();
    let action: u64 = t
        .actions
        .iter()
        .map(|a| {
            program
                .action(*a)
                .params
                .iter()
                .map(|p| u64::from(p.width_bits.unwrap_or(0)))
                .sum::<u64>()
                .div_ceil(8)
        })
        .max()
        .unwrap_or(0);
    (key, action.div_ceil(align).max(1) * align)
}

/// One table of `kind` with `n` entries priced alone.
pub fn table_cost(spec: &CpuSpec, program: &Program, t: &Table, n: u64, p: &Params) -> TableCost {
    let kind = CpuKind::of(t);
    let (key_bytes, action_bytes) = table_bytes(program, t, spec.exact.action_align_bytes);
    let one = |n: u64| -> (f64, Option<u64>, Regime, String) {
        match kind {
            CpuKind::Exact => {
                let b = exact_footprint(&spec.exact, n, key_bytes, action_bytes);
                let (v, r, f) = exact_cycles(&spec.exact, n, b, p);
                (v, Some(b), r, f)
            }
            CpuKind::Ternary => {
                let (v, f) = ternary_cycles(&spec.ternary, n, p);
                (v, None, Regime::NotModelled, f)
            }
            CpuKind::Lpm => {
                let (v, f) = lpm_cycles(&spec.lpm, n, p);
                let b = spec.lpm.tbl24_bytes.saturating_mul(u64::from(p.cores));
                let r = if (b as f64) < p.l3_bytes {
                    Regime::Cache
                } else {
                    Regime::Dram
                };
                (v, Some(b), r, f)
            }
            CpuKind::Keyless => {
                let a = &spec.applications;
                let v = (a.per_table_cycles + a.constant_cycles) / f64::from(p.cores);
                let f = format!(
                    "({} * 1 + {}) / {} (Eq. 8, one application)",
                    num(a.per_table_cycles),
                    num(a.constant_cycles),
                    p.cores
                );
                (v, None, Regime::NotModelled, f)
            }
        }
    };
    let (alone, footprint, regime, formula) = one(n);
    let (one_entry, ..) = one(1);
    TableCost {
        kind,
        entries: n,
        key_bytes,
        action_bytes,
        footprint_bytes: footprint,
        regime,
        alone_cycles: alone,
        one_entry_cycles: one_entry,
        formula,
    }
}

/// A class applying `tables` (each priced alone), by the composition rule.
pub fn class_cost(spec: &CpuSpec, tables: &[&TableCost], p: &Params) -> ClassCost {
    let c = f64::from(p.cores);
    let t = u32::try_from(tables.len()).unwrap_or(u32::MAX);
    let (rule, base, excess) = match tables {
        [] => ("baseline", spec.baseline_cycles / c, 0.0),
        [one] => ("one table", one.alone_cycles, 0.0),
        _ => {
            let a = &spec.applications;
            let eq8 = (a.per_table_cycles * f64::from(t) + a.constant_cycles) / c;
            let ex: f64 = tables.iter().map(|x| x.excess_cycles()).sum();
            ("Eq. (8) + excess", eq8, ex)
        }
    };
    let cycles = base + excess;
    ClassCost {
        tables: t,
        rule,
        base_cycles: base,
        excess_cycles: excess,
        cycles,
        packets_per_second: p.clock_ghz * 1e9 / cycles,
    }
}

/// Eq. (3): the median latency in microseconds at `cores`.
pub fn median_latency_us(spec: &CpuSpec, cores: u32) -> f64 {
    let l = &spec.median_latency_us;
    l.per_core * f64::from(cores) + l.constant
}

/// The training-range warnings of one table priced alone.
pub fn table_warnings(spec: &CpuSpec, t: &Table, cost: &TableCost) -> Vec<Warning> {
    let mut out = Vec::new();
    let n = cost.entries;
    let over = |max: u64, what: &str| {
        Warning::new(
            "entries_out_of_range",
            format!(
                "table {}: {n} entries, above the {max} the {what} equation was fitted on: extrapolated",
                t.name
            ),
        )
        .at(t.span)
    };
    match cost.kind {
        CpuKind::Ternary if n > spec.ternary.max_entries => {
            out.push(over(spec.ternary.max_entries, "ternary"))
        }
        CpuKind::Lpm if n > spec.lpm.max_entries => out.push(over(spec.lpm.max_entries, "lpm")),
        _ => {}
    }
    if let Some(w) = key_layout(spec, t, cost.kind) {
        out.push(w);
    }
    if cost.kind == CpuKind::Keyless {
        out.push(
            Warning::new(
                "keyless_table",
                format!(
                    "table {} has no key: priced as one table application (Eq. 8) with no lookup",
                    t.name
                ),
            )
            .at(t.span),
        );
    }
    let odd: Vec<String> = t
        .keys
        .iter()
        .filter(|k| {
            !matches!(
                k.match_kind,
                MatchKind::Exact | MatchKind::Ternary | MatchKind::Lpm
            )
        })
        .map(|k| k.match_kind.name().to_string())
        .collect();
    if !odd.is_empty() {
        out.push(
            Warning::new(
                "match_kind_not_modelled",
                format!(
                    "table {}: match kind {} was not measured: priced as {}",
                    t.name,
                    odd.join(", "),
                    cost.kind.name()
                ),
            )
            .at(t.span),
        );
    }
    out
}

/// The key-layout warning: exact and ternary were measured with 4 x 4 B
/// fields, lpm with one 32-bit field.
fn key_layout(spec: &CpuSpec, t: &Table, kind: CpuKind) -> Option<Warning> {
    let widths: Vec<Option<u32>> = t.keys.iter().map(|k| k.width_bits).collect();
    let m = &spec.measured_key;
    let (ok, measured) = match kind {
        CpuKind::Exact | CpuKind::Ternary => (
            widths.len() == m.fields as usize && widths.iter().all(|w| *w == Some(m.field_bits)),
            format!("{} x {} B", m.fields, m.field_bits / 8),
        ),
        CpuKind::Lpm => (
            widths == [Some(spec.lpm.key_bits)],
            format!("1 x {} B (IPv4, DIR-24-8)", spec.lpm.key_bits / 8),
        ),
        CpuKind::Keyless => return None,
    };
    if ok {
        return None;
    }
    let has: Vec<String> = widths
        .iter()
        .map(|w| w.map_or("?".to_string(), |b| format!("{b}b")))
        .collect();
    Some(
        Warning::new(
            "key_layout_not_measured",
            format!(
                "table {}: key of {} field(s) ({}), not the {measured} layout the {} equation was measured with: extrapolated",
                t.name,
                t.keys.len(),
                has.join(" + "),
                kind.name()
            ),
        )
        .at(t.span),
    )
}

#[cfg(test)]
mod tests;
