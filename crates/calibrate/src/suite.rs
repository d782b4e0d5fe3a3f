//! The profiling suite `p4cost gen` writes: programs in sweeps like the
//! papers' (docs/models.md, "Fitting your own model"), their table entries
//! and the manifest to fill with measurements.
//!
//! Sweeps: `baseline` (no state after Ethernet, no table) at every
//! packet size of the packet-size sweep; `parser` (1..=N states of H bytes
//! for each H); `control` (1..=T tables for each match kind, key count and
//! key width, with a fixed number of entries); `entries` (one table of
//! each match kind at each entry count). Every program but the baseline is
//! measured at the sweep packet sizes on every port. The manifest's
//! feature columns come from p4cost's own analysis of each program, so
//! they are what `predict` will see.

use std::path::PathBuf;

use p4cost_analysis::{control_tables, parse_paths, PathOptions};
use p4cost_model::{Features, TableMatch};

use crate::data::Row;
use crate::entries;
use crate::programs::{program_text, Arch, ProgramSpec, TableSet};
use crate::CalibrateError;

/// What to generate.
#[derive(Debug, Clone, PartialEq)]
pub struct SuiteOptions {
    /// The architecture.
    pub arch: Arch,
    /// Most parse states after Ethernet in the parser sweep.
    pub max_states: u32,
    /// Header sizes (bytes per state) of the parser sweep.
    pub header_bytes: Vec<u32>,
    /// Most tables in the control sweep.
    pub max_tables: u32,
    /// Key field widths of the control sweep, bits.
    pub key_bits: Vec<u32>,
    /// Most key fields per table in the control sweep.
    pub max_keys: u32,
    /// Match kinds of the control and entries sweeps.
    pub matches: Vec<TableMatch>,
    /// Entries per table in the control sweep.
    pub control_entries: u64,
    /// Entry counts of the entries sweep.
    pub entries: Vec<u64>,
    /// Packet sizes every program is measured at.
    pub packet_sizes: Vec<u32>,
    /// Packet sizes of the baseline program (the packet-size sweep).
    pub baseline_sizes: Vec<u32>,
    /// Port speeds, Gbit/s.
    pub ports: Vec<u32>,
}

impl SuiteOptions {
    /// The papers' design (Tofino study, section 5): 0-10 states of 2, 5,
    /// 10 and 20 B; 1-10 tables with 1-3 keys of 8, 16 and 32 bits; exact,
    /// LPM and ternary; 1 to 100K entries; 100-1400 B packets; 10G and
    /// 100G ports.
    pub fn papers(arch: Arch) -> SuiteOptions {
        SuiteOptions {
            arch,
            max_states: 10,
            header_bytes: vec![2, 5, 10, 20],
            max_tables: 10,
            key_bits: vec![8, 16, 32],
            max_keys: 3,
            matches: vec![TableMatch::Exact, TableMatch::Lpm, TableMatch::Ternary],
            control_entries: 100,
            entries: vec![1, 10, 100, 1000, 10000, 100000],
            packet_sizes: vec![100, 400, 700, 1000, 1400],
            baseline_sizes: (1..=14).map(|i| i * 100).collect(),
            ports: vec![10, 100],
        }
    }

    /// Refuses options that give no program or invalid ones.
    pub fn check(&self) -> Result<(), CalibrateError> {
        let bad = |m: String| Err(CalibrateError::Invalid(m));
        if self.ports.is_empty() || self.ports.contains(&0) {
            return bad("--ports: give at least one positive port speed (Gbit/s)".into());
        }
        if self.packet_sizes.is_empty() || self.baseline_sizes.is_empty() {
            return bad("--packet-sizes: give at least one size".into());
        }
        if let Some(s) = self
            .packet_sizes
            .iter()
            .chain(&self.baseline_sizes)
            .find(|&&s| !(64..=9216).contains(&s))
        {
            return bad(format!("packet size {s} B: Ethernet frames are 64-9216 B"));
        }
        if let Some(h) = self.header_bytes.iter().find(|&&h| !(1..=512).contains(&h)) {
            return bad(format!("header size {h} B: give 1-512 B per state"));
        }
        if self.max_states > 64 {
            return bad(format!("{} states: at most 64", self.max_states));
        }
        if self.max_tables > 64 || self.max_keys > 8 {
            return bad("at most 64 tables of at most 8 keys".into());
        }
        if let Some(k) = self
            .key_bits
            .iter()
            .find(|&&k| !matches!(k, 8 | 16 | 32 | 64))
        {
            return bad(format!("key width {k} bits: give 8, 16, 32 or 64"));
        }
        if let Some(e) = self
            .entries
            .iter()
            .chain(std::iter::once(&self.control_entries))
            .find(|&&e| !(1..=1_000_000).contains(&e))
        {
            return bad(format!("{e} entries: give 1 to 1000000"));
        }
        if self.matches.contains(&TableMatch::Keyless) {
            return bad(
                "keyless tables have no entries to sweep: give exact, lpm or ternary".into(),
            );
        }
        Ok(())
    }
}

/// The programs of the suite, in manifest order.
pub fn specs(o: &SuiteOptions) -> Vec<ProgramSpec> {
    let mut v = vec![ProgramSpec {
        name: "baseline".into(),
        sweep: "baseline",
        states: Vec::new(),
        tables: None,
    }];
    for &h in &o.header_bytes {
        for n in 1..=o.max_states {
            v.push(ProgramSpec {
                name: format!("parser_s{n}_h{h}"),
                sweep: "parser",
                states: vec![h; n as usize],
                tables: None,
            });
        }
    }
    for &kind in &o.matches {
        for keys in 1..=o.max_keys {
            for &bits in &o.key_bits {
                for count in 1..=o.max_tables {
                    let t = TableSet {
                        count,
                        kind,
                        keys,
                        key_bits: bits,
                        entries: o.control_entries,
                    };
                    // More entries than distinct keys cannot be installed.
                    if u128::from(t.entries) > entries::key_space(&t) {
                        continue;
                    }
                    v.push(ProgramSpec {
                        name: format!("control_{}_k{keys}x{bits}_t{count}", kind.name()),
                        sweep: "control",
                        states: Vec::new(),
                        tables: Some(t),
                    });
                }
            }
        }
    }
    for &kind in &o.matches {
        for &e in &o.entries {
            v.push(ProgramSpec {
                name: format!("entries_{}_e{e}", kind.name()),
                sweep: "entries",
                states: Vec::new(),
                tables: Some(TableSet {
                    count: 1,
                    kind,
                    keys: 1,
                    key_bits: 32,
                    entries: e,
                }),
            });
        }
    }
    v
}

/// The files of a suite, for the caller to write (it decides what may be
/// replaced), and what they hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suite {
    /// Each file's path relative to the suite directory (`programs/X.p4`,
    /// `entries/X...`, `README.md`, `manifest.csv`) and its text, the
    /// manifest last (written last, it marks a whole suite).
    pub files: Vec<(PathBuf, String)>,
    /// Programs written.
    pub programs: usize,
    /// Manifest rows.
    pub rows: usize,
    /// Entries files written.
    pub entries_files: usize,
}

/// The manifest's file name: a directory holding one is a previous suite.
pub const MANIFEST: &str = "manifest.csv";

/// The features p4cost's analysis finds in a generated program: the
/// longest parse path (the benchmark frame's) and the ingress tables.
pub fn analysed_features(name: &str, text: &str) -> Result<Features, CalibrateError> {
    let gen_err = |message: String| CalibrateError::Generated {
        program: name.to_string(),
        message,
    };
    let loaded = p4cost_front::load_source(&format!("{name}.p4"), text, &Default::default())
        .map_err(|e| gen_err(e.to_string()))?;
    let program = &loaded.program;
    let parser = program
        .ingress_parser()
        .ok_or_else(|| gen_err("no ingress parser".into()))?;
    let paths = parse_paths(program, parser, &PathOptions::default())
        .map_err(|e| gen_err(e.to_string()))?;
    let path = paths
        .paths
        .iter()
        .max_by_key(|p| p.states.len())
        .ok_or_else(|| gen_err("no parse path".into()))?;
    let tables = program
        .ingress_control()
        .map(|c| control_tables(program, c))
        .unwrap_or_default();
    Ok(Features::of(program, path, &tables, 0))
}

/// The suite's files: `programs/`, `entries/`, `manifest.csv` and
/// `README.md`, each program checked to analyse as generated.
pub fn files(o: &SuiteOptions) -> Result<Suite, CalibrateError> {
    o.check()?;
    let mut files = Vec::new();
    let mut rows = Vec::new();
    let specs = specs(o);
    let mut entries_files = 0;
    for spec in &specs {
        let text = program_text(spec, o.arch);
        let features = analysed_features(&spec.name, &text)?;
        check_features(spec, &features)?;
        files.push((PathBuf::from(format!("programs/{}.p4", spec.name)), text));
        let entries_file = match &spec.tables {
            Some(t) => {
                let f = entries::file_name(&spec.name, o.arch);
                let text = entries::text(&spec.name, t, o.arch);
                files.push((PathBuf::from(format!("entries/{f}")), text));
                entries_files += 1;
                format!("entries/{f}")
            }
            None => String::new(),
        };
        let sizes = if spec.sweep == "baseline" {
            &o.baseline_sizes
        } else {
            &o.packet_sizes
        };
        let headers = 14 + features.header_bytes();
        for &port in &o.ports {
            for &size in sizes {
                if u64::from(size) < headers {
                    continue;
                }
                rows.push(Row {
                    program: format!("programs/{}.p4", spec.name),
                    sweep: spec.sweep.to_string(),
                    port_gbps: port,
                    packet_size: size,
                    n_states: Some(features.states() as u32),
                    header_bytes: Some(features.header_bytes()),
                    n_tables: Some(features.tables.len() as u32),
                    state_bytes: features.state_bytes_text(),
                    tables: features.tables_text(),
                    entries_file: entries_file.clone(),
                    latency_ns: None,
                });
            }
        }
    }
    let readme = readme(o, specs.len(), rows.len());
    files.push((PathBuf::from("README.md"), readme));
    files.push((PathBuf::from(MANIFEST), crate::data::to_csv(&rows)?));
    Ok(Suite {
        files,
        programs: specs.len(),
        rows: rows.len(),
        entries_files,
    })
}

/// The analysis must see what the generator meant: the states after
/// Ethernet (plus the key header when there are tables) and the tables.
fn check_features(spec: &ProgramSpec, f: &Features) -> Result<(), CalibrateError> {
    let mut want: Vec<u64> = spec.states.iter().map(|&b| u64::from(b)).collect();
    if let Some(t) = &spec.tables {
        want.push(u64::from(t.keys * t.key_bits / 8));
    }
    let tables = spec.tables.as_ref().map_or(0, |t| t.count as usize);
    if f.state_bytes != want || f.tables.len() != tables {
        return Err(CalibrateError::Generated {
            program: spec.name.clone(),
            message: format!(
                "analysis found states {:?} and {} tables; generated {want:?} and {tables}",
                f.state_bytes,
                f.tables.len()
            ),
        });
    }
    Ok(())
}

fn readme(o: &SuiteOptions, programs: usize, rows: usize) -> String {
    format!(
        "# p4cost profiling suite ({arch})\n\n\
Generated by `p4cost gen`: {programs} programs, {rows} measurements to make.\n\n\
1. Compile each program in `programs/` for your target and load it.\n\
2. Install its entries: {entries}. They send to port {port}; edit `EGRESS_PORT`\n   (or the `=> 1` of each command) for your cabling.\n\
3. Send benchmark frames of `packet_size` bytes on a port of `port_gbps`: Ethernet with\n   EtherType 0x{eth:04x}, then zero bytes (every generated header is all zeros, so\n   table entry 0 matches). Measure the mean ingress latency (parser to the end of the\n   ingress deparser) in ns and write it into the row's `latency_ns` column.\n\
4. Fit and check a model of your own:\n\n       p4cost fit manifest.csv --kind lr --port 100 -o my-100g.json\n       p4cost validate my-100g.json manifest.csv --plot my-100g.svg\n\n\
The `state_bytes` and `tables` columns are the features p4cost's analysis sees in each\n\
program (bytes of each parse state after Ethernet; match kind, key widths and entries of\n\
each table); `fit` reads them, not the programs.\n",
        arch = o.arch.name(),
        entries = match o.arch {
            Arch::Tna => "`bfshell -b entries/NAME.bfrt.py` (bfrt_python)",
            Arch::V1model => "`simple_switch_CLI < entries/NAME.commands.txt`",
        },
        port = entries::EGRESS_PORT,
        eth = crate::programs::ETHERTYPE_BENCH,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_generated_program_reads_as_generated() {
        for arch in [Arch::Tna, Arch::V1model] {
            let mut o = SuiteOptions::papers(arch);
            o.max_states = 3;
            o.max_tables = 2;
            for spec in specs(&o) {
                let text = program_text(&spec, arch);
                let f =
                    analysed_features(&spec.name, &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
                check_features(&spec, &f).unwrap_or_else(|e| panic!("{e}\n{text}"));
            }
        }
    }

    #[test]
    fn infeasible_entry_counts_are_left_out() {
        let mut o = SuiteOptions::papers(Arch::Tna);
        o.control_entries = 1000;
        let s = specs(&o);
        assert!(
            s.iter().all(|p| p.name != "control_exact_k1x8_t1"),
            "256 keys < 1000 entries"
        );
        assert!(s.iter().any(|p| p.name == "control_exact_k2x8_t1"));
    }

    #[test]
    fn bad_options_are_refused() {
        let mut o = SuiteOptions::papers(Arch::Tna);
        o.key_bits = vec![12];
        assert!(o.check().unwrap_err().to_string().contains("key width 12"));
        let mut o = SuiteOptions::papers(Arch::Tna);
        o.ports = vec![];
        assert!(o.check().is_err());
    }
}
