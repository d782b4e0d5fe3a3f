//! Control-plane files that install a program's table entries: a
//! bfrt_python script (Tofino, `bfshell -b FILE`) or simple_switch_CLI
//! commands (BMv2, `simple_switch_CLI < FILE`).
//!
//! Entry `i` of a table sets its key fields to the digits of `i` in base
//! `2^key_bits` (field 0 least significant), so the entries are distinct
//! and entry 0, every field zero, is what a benchmark frame (all-zero
//! headers) matches. LPM fields match the full width; ternary fields have
//! a full mask.

use std::fmt::Write;

use p4cost_model::TableMatch;

use crate::programs::{Arch, TableSet};

/// The egress port the entries send to (edit the file for your cabling).
pub const EGRESS_PORT: u32 = 1;

/// The file name of a program's entries for `arch`.
pub fn file_name(program: &str, arch: Arch) -> String {
    match arch {
        Arch::Tna => format!("{program}.bfrt.py"),
        Arch::V1model => format!("{program}.commands.txt"),
    }
}

/// Largest number of distinct entries a table of `t`'s key can hold.
pub fn key_space(t: &TableSet) -> u128 {
    let bits = t.keys.saturating_mul(t.key_bits);
    if bits >= 127 {
        u128::MAX
    } else {
        1u128 << bits
    }
}

/// All ones in the low `bits` bits: a key field's full mask.
fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

fn field_value(i: u64, field: u32, bits: u32) -> u64 {
    let shift = u64::from(field) * u64::from(bits);
    if shift >= 64 {
        return 0;
    }
    (i >> shift) & mask(bits)
}

/// The entries file of program `name` with tables `t`.
pub fn text(name: &str, t: &TableSet, arch: Arch) -> String {
    match arch {
        Arch::Tna => bfrt_python(name, t),
        Arch::V1model => simple_switch_cli(t),
    }
}

fn bfrt_python(name: &str, t: &TableSet) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# Entries for {name} (p4cost gen): {} table(s) x {} entries.\n# Run: bfshell -b {}\n# Entry 0 (every key field 0) matches the benchmark frame.",
        t.count,
        t.entries,
        file_name(name, Arch::Tna)
    );
    let _ = writeln!(
        s,
        "EGRESS_PORT = {EGRESS_PORT}  # the port your tester listens on"
    );
    let _ = writeln!(s, "ingress = bfrt.{name}.pipe.Ingress");
    let mask = mask(t.key_bits);
    let _ = writeln!(s, "BITS = {}\nMASK = 0x{mask:x}", t.key_bits);
    let _ = writeln!(s, "for n in range({}):", t.count);
    s.push_str("    table = getattr(ingress, 't%d' % n)\n    table.clear()\n");
    let _ = writeln!(s, "    for i in range({}):", t.entries);
    s.push_str("        table.add_with_set_port(");
    for f in 0..t.keys {
        let _ = write!(s, "hdr_keys_f{f}=(i >> ({f} * BITS)) & MASK, ");
        match (t.kind, f) {
            (TableMatch::Lpm, 0) => {
                let _ = write!(s, "hdr_keys_f{f}_p_length=BITS, ");
            }
            (TableMatch::Ternary, _) => {
                let _ = write!(s, "hdr_keys_f{f}_mask=MASK, ");
            }
            _ => {}
        }
    }
    if t.kind == TableMatch::Ternary {
        s.push_str("MATCH_PRIORITY=1, ");
    }
    s.push_str("port=EGRESS_PORT)\n");
    s
}

fn simple_switch_cli(t: &TableSet) -> String {
    let mut s = String::new();
    let mask = mask(t.key_bits);
    for n in 0..t.count {
        let _ = writeln!(s, "table_clear Ingress.t{n}");
        for i in 0..t.entries {
            let _ = write!(s, "table_add Ingress.t{n} Ingress.set_port");
            for f in 0..t.keys {
                let v = field_value(i, f, t.key_bits);
                match (t.kind, f) {
                    (TableMatch::Lpm, 0) => {
                        let _ = write!(s, " {v}/{}", t.key_bits);
                    }
                    (TableMatch::Ternary, _) => {
                        let _ = write!(s, " {v}&&&0x{mask:x}");
                    }
                    _ => {
                        let _ = write!(s, " {v}");
                    }
                }
            }
            let _ = write!(s, " => {EGRESS_PORT}");
            if t.kind == TableMatch::Ternary {
                s.push_str(" 1");
            }
            s.push('\n');
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(kind: TableMatch, keys: u32, key_bits: u32, entries: u64) -> TableSet {
        TableSet {
            count: 2,
            kind,
            keys,
            key_bits,
            entries,
        }
    }

    #[test]
    fn cli_entries_are_distinct_and_entry_zero_is_all_zero() {
        let s = simple_switch_cli(&set(TableMatch::Exact, 2, 8, 300));
        let lines: Vec<&str> = s
            .lines()
            .filter(|l| l.starts_with("table_add Ingress.t0 "))
            .collect();
        assert_eq!(lines.len(), 300);
        assert_eq!(lines[0], "table_add Ingress.t0 Ingress.set_port 0 0 => 1");
        assert_eq!(lines[257], "table_add Ingress.t0 Ingress.set_port 1 1 => 1");
        let unique: std::collections::HashSet<_> = lines.iter().collect();
        assert_eq!(unique.len(), 300);
    }

    #[test]
    fn cli_lpm_and_ternary_syntax() {
        let s = simple_switch_cli(&set(TableMatch::Lpm, 2, 16, 1));
        assert!(
            s.contains("table_add Ingress.t1 Ingress.set_port 0/16 0 => 1\n"),
            "{s}"
        );
        let s = simple_switch_cli(&set(TableMatch::Ternary, 1, 8, 1));
        assert!(
            s.contains("table_add Ingress.t0 Ingress.set_port 0&&&0xff => 1 1\n"),
            "{s}"
        );
    }

    #[test]
    fn bfrt_script_names_keys_as_bfrt_python_does() {
        let s = bfrt_python("p", &set(TableMatch::Lpm, 2, 32, 10));
        assert!(s.contains("ingress = bfrt.p.pipe.Ingress"), "{s}");
        assert!(s.contains("hdr_keys_f0_p_length=BITS"), "{s}");
        assert!(s.contains("hdr_keys_f1=(i >> (1 * BITS)) & MASK"), "{s}");
        assert!(s.contains("for i in range(10):"), "{s}");
    }

    #[test]
    fn key_space_caps() {
        assert_eq!(key_space(&set(TableMatch::Exact, 1, 8, 1)), 256);
        assert_eq!(key_space(&set(TableMatch::Exact, 3, 64, 1)), u128::MAX);
    }
}
