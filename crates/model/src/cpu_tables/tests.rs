//! The paper's derived tables (target-key-properties reading of Scholz et
//! al., ITC 32, 2020): every expected value below is typed from those
//! tables, not produced by this code.

use super::*;

fn spec() -> CpuSpec {
    let m = crate::model_by_name("t4p4s").expect("embedded t4p4s model");
    m.cpu.expect("cpu section")
}

fn at(cores: u32) -> Params {
    Params {
        clock_ghz: 2.0,
        cores,
        l3_bytes: 20e6,
    }
}

/// Within `tol` of the paper's rounded figure.
fn near(got: f64, want: f64, tol: f64, what: &str) {
    assert!((got - want).abs() <= tol, "{what}: got {got}, paper {want}");
}

#[test]
fn exact_derived_table_n_1_to_1e7() {
    let s = spec();
    // (n, cycles at c = 1, Mpps per core), the paper's k = 16 B, a = 64 B.
    let rows: [(u64, f64, f64); 10] = [
        (1, 299.3, 6.68),
        (10, 320.3, 6.24),
        (100, 341.3, 5.86),
        (1_000, 362.3, 5.52),
        (10_000, 383.4, 5.22),
        (100_000, 404.4, 4.95),
        (220_000, 411.6, 4.86),
        (300_000, 612.5, 3.27),
        (1_000_000, 695.4, 2.88),
        (10_000_000, 738.6, 2.71),
    ];
    for (n, cycles, mpps) in rows {
        let b = exact_footprint(&s.exact, n, 16, 64);
        let (v, regime, _) = exact_cycles(&s.exact, n, b, &at(1));
        near(v, cycles, 0.06, &format!("exact n={n}"));
        near(2e9 / v / 1e6, mpps, 0.006, &format!("exact Mpps n={n}"));
        let want = if n <= 220_000 {
            Regime::Cache
        } else {
            Regime::Dram
        };
        assert_eq!(regime, want, "n={n}");
    }
}

#[test]
fn exact_l3_threshold_is_eq4_at_88_bytes_an_entry() {
    let s = spec();
    // Paper: 128 B + n * (16 + 64 + 8) B against 20 MB: about 2.2e5
    // entries; (20e6 - 128) / 88 = 227,271.3 (derived).
    assert_eq!(exact_footprint(&s.exact, 227_271, 16, 64), 19_999_976);
    let b = |n| exact_footprint(&s.exact, n, 16, 64);
    assert_eq!(
        exact_cycles(&s.exact, 227_271, b(227_271), &at(1)).1,
        Regime::Cache
    );
    assert_eq!(
        exact_cycles(&s.exact, 227_272, b(227_272), &at(1)).1,
        Regime::Dram
    );
}

#[test]
fn lpm_derived_table_n_1_to_2_5e5() {
    let s = spec();
    let rows: [(u64, f64, f64); 6] = [
        (1, 220.5, 9.07),
        (100, 290.0, 6.9),
        (1_000, 324.7, 6.16),
        (10_000, 359.5, 5.56),
        (100_000, 394.3, 5.07),
        (250_000, 408.1, 4.90),
    ];
    for (n, cycles, mpps) in rows {
        let (v, _) = lpm_cycles(&s.lpm, n, &at(1));
        near(v, cycles, 0.06, &format!("lpm n={n}"));
        near(2e9 / v / 1e6, mpps, 0.006, &format!("lpm Mpps n={n}"));
    }
    // The paper: at c = 8 and n = 2.5e5, 72.0 cycles.
    near(lpm_cycles(&s.lpm, 250_000, &at(8)).0, 72.0, 0.06, "lpm c=8");
}

#[test]
fn table_applications_t_1_to_4() {
    let s = spec();
    let a = &s.applications;
    for (t, cycles) in [(1.0, 282.0), (2.0, 338.7), (3.0, 395.4), (4.0, 452.0)] {
        near(
            a.per_table_cycles * t + a.constant_cycles,
            cycles,
            0.06,
            "Eq. 8",
        );
    }
}

#[test]
fn ternary_uses_the_positive_exponent() {
    let s = spec();
    assert_eq!(s.ternary.printed_q, -0.00062);
    // The reading's values with q = +0.00062.
    for (n, cycles, tol) in [
        (0, 249.3, 0.06),
        (100, 510.0, 0.6),
        (200, 788.0, 0.6),
        (500, 1733.0, 0.6),
        (1000, 3755.0, 0.6),
    ] {
        near(
            ternary_cycles(&s.ternary, n, &at(1)).0,
            cycles,
            tol,
            &format!("ternary n={n}"),
        );
    }
}

#[test]
fn median_latency_eq3() {
    let s = spec();
    for (c, us) in [(1, 13.23), (2, 14.73), (4, 17.73), (8, 23.73)] {
        near(median_latency_us(&s, c), us, 1e-9, &format!("Eq. 3 c={c}"));
    }
}

fn cost(kind: CpuKind, alone: f64, one: f64) -> TableCost {
    TableCost {
        kind,
        entries: 1,
        key_bytes: 16,
        action_bytes: 64,
        footprint_bytes: None,
        regime: Regime::Cache,
        alone_cycles: alone,
        one_entry_cycles: one,
        formula: String::new(),
    }
}

#[test]
fn composition_rule() {
    let s = spec();
    let p = at(2);
    // No table: Eq. (2) over the cores.
    let none = class_cost(&s, &[], &p);
    assert_eq!((none.rule, none.cycles), ("baseline", 73.0));
    // One table: its own equation exactly.
    let a = cost(CpuKind::Exact, 180.0, 150.0);
    let one = class_cost(&s, &[&a], &p);
    assert_eq!((one.rule, one.cycles), ("one table", 180.0));
    // Two: (56.67 * 2 + 225.35) / 2 = 169.345, plus 30 and 5 of excess.
    let b = cost(CpuKind::Lpm, 100.0, 95.0);
    let two = class_cost(&s, &[&a, &b], &p);
    near(two.base_cycles, 169.345, 1e-9, "Eq. 8 at t=2, c=2");
    near(two.cycles, 204.345, 1e-9, "composed");
    near(two.packets_per_second, 2e9 / 204.345, 1e-3, "pps");
}
