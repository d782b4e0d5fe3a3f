//! Placement fidelity (issue 28, item 1): the stage-placement estimate
//! `p4cost stages SOURCE` against the compiler's placement `p4cost stages
//! context.json`, on every compiled Tofino output in tests/fixtures/tofino
//! whose source is copied beside it (tests/fixtures/SOURCES.md). The same
//! comparison as `scripts/placement-fidelity`, on the repository's copies.
//!
//! A gress agrees when the estimate is within 10 % of the compiler's cycles
//! and has its exact count of match-dependent stages. Every gress agrees
//! today except those in [`KNOWN_MISSES`]; one that stops agreeing fails
//! the test (a miss that starts agreeing does not: move it out of the list).

mod common;

/// (program, gress): estimated placements that do not agree yet, with why.
const KNOWN_MISSES: &[(&str, &str, &str)] = &[
    (
        "switch_tofino_x1",
        "ingress",
        "292 cycles / 12 match stages by the compiler, 272 / 11 estimated (within 10 %, one match \
         stage short): the compiler's stages 5-7 hold ipv4_host, then ipv4_lpm's pre-classifier \
         and ATCAM, each match dependent; ours put them closer",
    ),
    (
        "switch_tofino_x1",
        "egress",
        "258 / 12 by the compiler, 199 / 9 estimated: the compiler's egress reaches stage 11, \
         all match dependent; ours ends earlier with action-dependent stages (a TCAM table split \
         over two stages where ingress's TCAM tables fill the first, the compiler puts it whole \
         in the next; egress_system_acl one stage after meter_action, the compiler two)",
    ),
    (
        "fabric-int",
        "ingress",
        "124 / 5 by the compiler, 106 / 4 estimated: stage 1 is match dependent through a PHV \
         container two tables share",
    ),
    (
        "fabric-int",
        "egress",
        "182 / 8 by the compiler, 199 / 9 estimated: the compiler packs INT's egress tables \
         tighter",
    ),
];

const TESTGEN: &[&str] = &[
    "parser_reject",
    "switch_tofino_x1",
    "tna_action_profile_1",
    "tna_hash_3",
    "tna_hash_9",
    "tna_pvs_fixed",
    "tna_random_extern",
    "tna_register_action_1",
    "tna_register_action_2",
    "tna_simple_switch",
    "tna_table_control_exact",
    "tna_table_control_lpm",
    "tna_table_control_ternary",
    "tna_table_entries_range",
    "tna_tainted_table_key",
    "tna_varbit_extract",
];

const OPEN_P4STUDIO: &[&str] = &[
    "tna_exact_match",
    "tna_action_profile",
    "tna_action_selector",
];

/// One program: its name, the estimate's arguments, the context.json.
struct Program {
    name: String,
    estimate: Vec<String>,
    context: String,
}

fn programs() -> Vec<Program> {
    let f = "tests/fixtures/tofino";
    let mut out: Vec<Program> = TESTGEN
        .iter()
        .map(|n| Program {
            name: n.to_string(),
            estimate: vec![
                "-D__TARGET_TOFINO__=1".into(),
                "-I".into(),
                format!("{f}/compiled"),
                format!("{f}/compiled/{n}/{n}.p4"),
            ],
            context: format!("{f}/compiled/{n}/context.json"),
        })
        .collect();
    out.extend(OPEN_P4STUDIO.iter().map(|n| Program {
        name: n.to_string(),
        estimate: vec![
            "-I".into(),
            format!("{f}/open-p4studio"),
            format!("{f}/open-p4studio/{n}/{n}.p4"),
        ],
        context: format!("{f}/open-p4studio__{n}__context.json"),
    }));
    for (profile, extra) in [("fabric", None), ("fabric-int", Some("-DWITH_INT"))] {
        let mut estimate = vec![
            "-I".to_string(),
            format!("{f}/fabric-tna-29030f4/p4src"),
            "-DCPU_PORT=192".into(),
        ];
        estimate.extend(extra.map(String::from));
        estimate.push(format!("{f}/fabric-tna-29030f4/p4src/fabric_tna.p4"));
        out.push(Program {
            name: profile.into(),
            estimate,
            context: format!("{f}/fabric-tna__{profile}__sde9.2.0__context.json"),
        });
    }
    out
}

/// (cycles, match-dependent stages) of `gress` in `p4cost stages ARGS`.
fn figures(args: &[String], gress: &str) -> (u64, usize) {
    let mut a: Vec<&str> = vec!["stages", "--format", "json"];
    a.extend(args.iter().map(String::as_str));
    let v = common::json(&a);
    let g = &v["mau"][gress];
    let cycles = g["cycles"].as_u64().expect("cycles");
    let stages = g["stages"].as_array().expect("stages");
    let matched = stages
        .iter()
        .filter(|s| s["match_dependent"] == true)
        .count();
    (cycles, matched)
}

#[test]
fn estimates_agree_with_the_compiler() {
    let mut failures = Vec::new();
    let mut agreeing = 0;
    for p in programs() {
        for gress in ["ingress", "egress"] {
            let (cc, cs) = figures(std::slice::from_ref(&p.context), gress);
            let (oc, os) = figures(&p.estimate, gress);
            let within = (oc as f64 - cc as f64).abs() <= 0.10 * cc as f64;
            let agrees = within && cs == os;
            let known = KNOWN_MISSES
                .iter()
                .any(|(n, g, _)| *n == p.name && *g == gress);
            if agrees {
                agreeing += 1;
            } else if !known {
                failures.push(format!(
                    "{} {gress}: compiler {cc} cycles / {cs} match stages, estimate {oc} / {os}",
                    p.name
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "stopped agreeing:\n{}",
        failures.join("\n")
    );
    assert_eq!(
        agreeing,
        2 * (TESTGEN.len() + OPEN_P4STUDIO.len() + 2) - KNOWN_MISSES.len(),
        "every gress not in KNOWN_MISSES agrees"
    );
}
