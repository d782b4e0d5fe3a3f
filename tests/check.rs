//! `p4cost check --max-latency` (issue 10): exit codes a hook relies on
//! and what a violation names. Figures derived by hand from
//! parser_set_metadata.p4 (its header derives the classes) with the
//! printed 10G model at 512 B (docs/models.md): the slowest class is 2.1,
//! ethernet -> ipv4 -> udp: base 273.764 + parse_ipv4 (20 B) 7.306 +
//! parse_udp (4 B) 3.770 + udp_acl 0.601 + classify 0.601 + l4_stats
//! (2-bit key, the narrow class) 0.492 = 286.534 ns.

mod common;
use common::p4cost;

const PROG: &str = "p4-samples/tofino/classes/parser_set_metadata.p4";

fn check(args: &[&str]) -> common::Run {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    p4cost(&all)
}

#[test]
fn a_budget_that_holds_exits_0_and_one_exceeded_exits_1() {
    let r = check(&[PROG, "--max-latency", "286.6"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("ok   p4-samples/tofino/classes/parser_set_metadata.p4: slowest packet class 2.2 (ethernet -> ipv4 -> udp) 286.534 ns, 0.066 ns under"),
        "{}",
        r.stdout
    );
    let r = check(&[PROG, "--max-latency", "286.5"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("FAIL p4-samples/tofino/classes/parser_set_metadata.p4: slowest packet class 2.2 (ethernet -> ipv4 -> udp) 286.534 ns, over the 286.500 ns budget by 0.034 ns"),
        "{}",
        r.stdout
    );
    // The largest term after the base, at its site: the source line with
    // a caret (primary label), the others underlined.
    for shown in [
        "┌─ p4-samples/tofino/classes/parser_set_metadata.p4:80:5",
        " 80 │     state parse_ipv4 {",
        "│     ^^^^^^^^^^^^^^^^^^ +7.306 ns  parse state parse_ipv4",
        "│     --------------- +0.601 ns  table Ingress.udp_acl",
    ] {
        assert!(r.stdout.contains(shown), "{shown}\n{}", r.stdout);
    }
    assert!(!r.stdout.contains('\u{1b}'), "no colour into a pipe");
    assert!(r.stdout.ends_with("1 of 1 budget(s) exceeded\n"));
}

#[test]
fn the_json_verdict_names_class_margin_and_contributors() {
    let r = check(&[PROG, "--max-latency", "280", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("JSON");
    assert_eq!(v["over"], 1);
    let res = &v["results"][0];
    assert_eq!(res["status"], "over");
    assert_eq!(res["class"], "2.2");
    assert_eq!(res["budget"], "max_latency");
    assert_eq!(res["unit"], "ns");
    assert_eq!(res["predicted"], 286.534);
    assert_eq!(res["limit"], 280.0);
    assert_eq!(res["margin"], -6.534);
    assert_eq!(res["origin"], "--max-latency");
    let names: Vec<&str> = res["contributors"]
        .as_array()
        .expect("contributors")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    // Sorted by size; ties in the order the class applies its tables.
    assert_eq!(
        names,
        [
            "parse_ipv4",
            "parse_udp",
            "Ingress.udp_acl",
            "Ingress.classify",
            "Ingress.l4_stats"
        ]
    );
    assert_eq!(res["contributors"][2]["span"]["line"], 115);
}

#[test]
fn a_directory_is_checked_program_by_program() {
    // egress.p4's slowest class: 286.978 ns (tests/classes.rs); the other
    // samples of the directory are all over 280 but set_validity.p4.
    let r = check(&["p4-samples/tofino/classes", "--max-latency", "280"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.contains("FAIL p4-samples/tofino/classes/egress.p4: slowest packet class 2.1 (ethernet -> ipv6) 286.978 ns"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("ok   p4-samples/tofino/classes/set_validity.p4"),
        "{}",
        r.stdout
    );
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &[PROG, "--max-latency", "-3"][..],
        &[PROG, "--max-latency", "0"],
        &[PROG, "--no-config"],
        &["no-such-file.p4", "--max-latency", "300"],
    ] {
        let r = check(args);
        assert_eq!(r.code, 2, "{args:?}: {}{}", r.stdout, r.stderr);
        assert!(r.stdout.is_empty(), "{args:?}");
    }
}

/// A MAU-cycle model costs every packet the same, its ingress MAU latency:
/// that is what --max-latency holds it to (as on a context.json alone).
#[test]
fn a_mau_model_holds_every_packet_to_its_ingress_latency() {
    let r = check(&[
        PROG,
        "--max-latency",
        "300",
        "--model",
        "tofino1-mau-estimate",
    ]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("every packet (ingress MAU, tofino1-mau-estimate)"),
        "{}",
        r.stdout
    );
    let r = check(&[
        PROG,
        "--max-latency",
        "1",
        "--model",
        "tofino1-mau-estimate",
    ]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("stage 0"), "{}", r.stdout);
}

/// An MAU-cycle budget on a program of another target than Tofino is a
/// configuration error at the budget's line unless a MAU model is asked
/// for (issue 24): the cycles would be a Tofino estimate.
#[test]
fn a_cycle_budget_on_a_v1model_program_needs_a_mau_model() {
    let d = common::scratch("check-v1model-cycles");
    std::fs::copy(
        common::root().join("p4-samples/v1model/empty_egress.p4"),
        d.join("p.p4"),
    )
    .expect("copy");
    std::fs::write(
        d.join("p4cost.toml"),
        "[[program]]\npath = \"p.p4\"\n[program.budget]\negress-cycles = 100\n",
    )
    .expect("toml");
    let r = common::p4cost_in(&d, &["check"]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(
        r.stderr.contains("p4cost.toml:4:17")
            && r.stderr.contains("not Tofino")
            && r.stderr.contains("--model tofino1-mau-estimate"),
        "{}",
        r.stderr
    );
    // Asked for: the Tofino estimate of the empty egress, the compiler's
    // 187 cycles (its minimum egress latency), over the budget.
    let r = common::p4cost_in(&d, &["check", "--model", "tofino1-mau-estimate"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.contains("egress MAU 187 cycles"), "{}", r.stdout);
}
