//! The report's figures of a CPU model (`cpu_tables`, `--model t4p4s`):
//! the settings, each table priced alone, each class's cycles and rate,
//! and the slowest and fastest class over all classes.

use serde::Serialize;

use crate::report::{CountOut, Loc};

/// What a CPU model adds to a report (`Report::cpu`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CpuOut {
    /// CPU clock, GHz.
    pub clock_ghz: f64,
    /// True when `--clock-ghz` was not given (the model's default).
    pub clock_is_default: bool,
    /// Cores forwarding.
    pub cores: u32,
    /// L3 cache an exact table must fit in, MB (10^6 bytes).
    pub l3_mb: f64,
    /// Eq. (3): the median latency, microseconds (every class alike).
    pub median_latency_us: f64,
    /// Its arithmetic.
    pub median_latency_formula: String,
    /// Eq. (2): a class applying no table, cycles per packet (over the
    /// cores).
    pub baseline_cycles: f64,
    /// How a class's tables compose (docs/models.md).
    pub composition: String,
    /// Every table a class may apply, priced alone.
    pub tables: Vec<CpuTableOut>,
    /// The slowest and fastest class over all classes.
    pub summary: Option<CpuSummaryOut>,
}

/// One table priced alone.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CpuTableOut {
    pub name: String,
    /// `ingress` or `egress`.
    pub gress: &'static str,
    /// The equation it is priced by: `exact`, `ternary`, `lpm`, `keyless`.
    pub kind: String,
    pub entries: u64,
    /// Where `entries` comes from: `--entries`, `p4cost.toml:L:C`,
    /// `@p4cost_entries`, `size`, `const entries`, or `default`.
    pub entries_source: String,
    /// Key bytes (each field rounded up to bytes).
    pub key_bytes: u64,
    /// Action-data bytes of its largest action, padded to a cache line.
    pub action_bytes: u64,
    /// Bytes in memory (Eq. 4 for exact; DIR-24-8's tbl24 for lpm).
    pub footprint_bytes: Option<u64>,
    /// `cache`, `dram` or `not_modelled`.
    pub regime: String,
    /// The table alone, cycles per packet: its kind's equation.
    pub alone_cycles: f64,
    /// The same with one entry.
    pub one_entry_cycles: f64,
    /// `alone_cycles - one_entry_cycles`: what it adds beside others.
    pub excess_cycles: f64,
    /// The arithmetic of `alone_cycles`.
    pub formula: String,
    pub span: Loc,
}

/// A class's CPU figures (`classes[].cpu`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ClassCpuOut {
    pub cycles_per_packet: f64,
    pub packets_per_second: f64,
    /// Tables applied (t).
    pub tables: u32,
    /// `baseline`, `one table` or `Eq. (8) + excess`.
    pub rule: String,
    /// Eq. (2), the one table alone, or Eq. (8) at t, cycles.
    pub base_cycles: f64,
    /// The tables' excesses over their 1-entry values (t >= 2), cycles.
    pub excess_cycles: f64,
}

/// The slowest and fastest class (`cpu.summary`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CpuSummaryOut {
    /// Classes counted (parse paths times their control paths).
    pub classes: CountOut,
    /// True when every class was priced one by one; false when some parse
    /// path has more than 256 classes: its extremes are then the classes of
    /// the greatest and least additive part (Eq. 8's slope and the excess
    /// per table), priced by the rule: exact among classes of 2 or more
    /// tables, while a class of one table may lie outside.
    pub complete: bool,
    pub slowest: CpuClassRef,
    pub fastest: CpuClassRef,
}

/// A class named by its headers and tables.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CpuClassRef {
    /// The headers of a parse path it is a class of.
    pub headers: Vec<String>,
    /// The tables it applies, in order.
    pub tables: Vec<String>,
    pub cpu: ClassCpuOut,
}
