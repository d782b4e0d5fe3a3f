//! `p4cost resources` (issue 28 items 2 and 3): the memory of the
//! estimated placement per table and stage, the Scholz et al. 2020 share
//! per table, and a program whose memory exceeds its pipe's as a finding
//! of `resources` and `check`.

mod common;
use common::p4cost;
use serde_json::Value;

const OVERFLOW: &str = "p4-samples/tofino/resources/pipe_sram_overflow.p4";
const L3: &str = "p4-samples/tofino/realistic/l3_router.p4";

/// The human report of a program whose action data fills its stages'
/// SRAM: exit 1, the resource, the stages and the four tables named. By
/// hand (Tofino 1: 80 blocks a stage; a 32-bit key and 4 overhead bits,
/// three entries per 128-bit word, 3,072 per block, at least 4 blocks
/// (4 ways); 128 bits of action data, one 128-bit word each, 1,024 per
/// block): a stage holds 61,440 entries (20 + 60 blocks). `by_src` takes
/// stages 0-2 and 15,680 entries in stage 3 (6 + 16 = 22 blocks: 262);
/// `by_dst` 44,032 in stage 3's 58 (15 + 43), stages 4-5, 33,088 in stage
/// 6 (11 + 33: 262); `by_id` 27,648 in stage 6's 36 (9 + 27), stages 7-8,
/// 49,472 in stage 9 (17 + 49: 262); `by_mac` 10,240 in stage 9's 14
/// (4 + 10), stages 10-11 (174 in the chip's stages), then 61,440 in stage
/// 12 and 5,440 in stage 13: 14 stages. Without the action data the four
/// tables' 66 match blocks each would fit in four stages.
#[test]
fn overflow_human() {
    let r = p4cost(&["resources", OVERFLOW]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let want = "does not fit: control `Ig` needs at least 14 stages, the chip has 12 \
                (model `tofino1-mau-estimate`): SRAM blocks fill stages 0-11: Ig.by_dst 262, \
                Ig.by_id 262, Ig.by_src 262, Ig.by_mac 174 (its dependencies alone need 1 stage)";
    assert!(r.stdout.contains(want), "{}", r.stdout);
    insta::assert_snapshot!(r.stdout);
}

/// Per table the blocks the estimate gives and Table III's percent,
/// recomputed here from the paper's coefficients; the pipe's totals are
/// the sums of the stages'.
#[test]
fn json_figures() {
    let v = common::json(&["resources", L3, "--format", "json"]);
    assert_eq!(v["estimated"], true);
    assert_eq!(v["limits"]["sram_blocks"], 80);
    assert_eq!(v["limits"]["tcam_blocks"], 24);
    assert_eq!(v["limits"]["stages"], 12);
    let units = v["units"].as_array().expect("units");
    let mut seen = 0;
    for u in units {
        let n = u["entries"].as_f64().expect("entries");
        let k = u["key_bits"].as_f64().expect("key bits");
        let want = match u["kind"].as_str() {
            Some("exact") => Some(("sram_percent", n * (1.00e-6 * k - 2.09e-6))),
            Some("ternary" | "lpm") => Some(("tcam_percent", n * (1.44e-5 * k + 4.81e-4))),
            _ => None,
        };
        if let Some((key, pct)) = want {
            let got = u[key].as_f64().expect("the Scholz share");
            assert!(
                (got - pct.max(0.0)).abs() < 1e-9,
                "{}: {got} {pct}",
                u["name"]
            );
            seen += 1;
        }
    }
    assert!(seen >= 3, "tables with a Scholz share: {seen}");
    let stages = v["stages"].as_array().expect("stages");
    let sum = |k: &str| {
        stages
            .iter()
            .map(|s| s[k].as_u64().unwrap_or(0))
            .sum::<u64>()
    };
    assert_eq!(v["pipe"]["sram_blocks"].as_u64(), Some(sum("sram_blocks")));
    assert_eq!(v["pipe"]["tcam_blocks"].as_u64(), Some(sum("tcam_blocks")));
    let pct = v["pipe"]["sram_percent"].as_f64().expect("percent");
    assert!((pct - sum("sram_blocks") as f64 * 100.0 / 960.0).abs() < 1e-9);
    assert_eq!(v["overflows"].as_array().map(Vec::len), Some(0));
}

/// The same program in JSON: no report (the placement stops past the
/// chip), the finding on stderr, exit 1.
#[test]
fn overflow_json() {
    let r = p4cost(&["resources", OVERFLOW, "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert!(
        r.stderr.contains("SRAM blocks fill stages 0-11"),
        "{}",
        r.stderr
    );
}

/// On Tofino 2 the same program fits: 20 stages of 80 SRAM blocks hold
/// 1,600 (the model file's figures). Placed as in [`overflow_human`]:
/// 3 x 262 blocks, and `by_mac` 14 + 3 x 80 + 10 (its last 5,440 entries
/// take 2 match blocks, raised to the 4 of four ways, and 6 of action
/// data) = 264: 1,050 in stages 0-13.
#[test]
fn tofino2_has_twenty_stages() {
    let v = common::json(&[
        "resources",
        OVERFLOW,
        "--model",
        "tofino2-mau-estimate",
        "--format",
        "json",
    ]);
    assert_eq!(v["limits"]["stages"], 20);
    assert_eq!(v["pipe"]["sram_capacity"], 1600);
    assert_eq!(v["pipe"]["sram_blocks"], 1050);
    assert_eq!(v["pipe"]["stages_used"], 14);
    assert_eq!(v["overflows"].as_array().map(Vec::len), Some(0));
    assert_eq!(v["stage_over"].as_array().map(Vec::len), Some(0));
}

/// A context.json carries the compiler's placement: its memories are the
/// compiler's resources.json, not an estimate (exit 2).
#[test]
fn context_json_is_refused() {
    let r = p4cost(&[
        "resources",
        "tests/fixtures/tofino/compiled/tna_table_control_exact/context.json",
    ]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(r.stderr.contains("resources.json"), "{}", r.stderr);
}

fn config(name: &str, program: &str, budget: &str) -> std::path::PathBuf {
    let d = common::scratch(name);
    std::fs::copy(common::root().join(program), d.join("prog.p4")).expect("copy");
    std::fs::write(
        d.join("p4cost.toml"),
        format!("[[program]]\npath = \"prog.p4\"\n[program.budget]\n{budget}\n"),
    )
    .expect("toml");
    d
}

/// `check` on the overflowing program: the `chip_stages` finding naming
/// the resource and its tables with their blocks in the chip's stages
/// (figures of [`overflow_human`]); exit 1, in JSON, text and SARIF.
#[test]
fn check_finds_the_overflow() {
    let d = config("res-check-over", OVERFLOW, "max-sram-percent = 50");
    let r = common::p4cost_in(&d, &["check", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).expect("json");
    let results = v["results"].as_array().expect("results");
    let fit = results
        .iter()
        .find(|x| x["budget"] == "chip_stages")
        .expect("a chip_stages verdict");
    assert_eq!(fit["status"], "over");
    assert_eq!(
        (fit["predicted"].as_f64(), fit["limit"].as_f64()),
        (Some(14.0), Some(12.0))
    );
    let terms: Vec<(&str, &str, f64)> = fit["contributors"]
        .as_array()
        .expect("contributors")
        .iter()
        .map(|c| {
            (
                c["kind"].as_str().unwrap_or(""),
                c["name"].as_str().unwrap_or(""),
                c["value"].as_f64().unwrap_or(0.0),
            )
        })
        .collect();
    assert_eq!(
        terms,
        [
            ("table", "Ig.by_dst", 262.0),
            ("table", "Ig.by_id", 262.0),
            ("table", "Ig.by_src", 262.0),
            ("table", "Ig.by_mac", 174.0)
        ]
    );
    let human = common::p4cost_in(&d, &["check"]);
    assert_eq!(human.code, 1);
    assert!(
        human.stdout.contains(
            "does not fit: control `Ig` needs 14 stages, the chip has 12: SRAM blocks fill \
             stages 0-11: Ig.by_dst 262"
        ),
        "{}",
        human.stdout
    );
    let sarif = common::p4cost_in(&d, &["check", "--format", "sarif"]);
    assert_eq!(sarif.code, 1);
    let v: Value = serde_json::from_str(&sarif.stdout).expect("sarif");
    let texts: Vec<&str> = v["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|r| r["ruleId"] == "chip_stages")
        .filter_map(|r| r["message"]["text"].as_str())
        .collect();
    assert_eq!(texts.len(), 1, "{texts:?}");
    assert!(
        texts[0].contains("SRAM blocks fill stages 0-11"),
        "{texts:?}"
    );
}

/// A budget alone: l3_router fits its pipe but not a 0.1 % SRAM budget, nor a
/// one-stage budget; a generous budget holds (exit 0).
#[test]
fn check_resource_budgets() {
    let d = config(
        "res-check-budget",
        L3,
        "max-sram-percent = 0.1\nmax-stages = 1\nmax-tcam-percent = 99",
    );
    let r = common::p4cost_in(&d, &["check", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).expect("json");
    let status = |k: &str| {
        v["results"]
            .as_array()
            .and_then(|a| a.iter().find(|x| x["budget"] == k))
            .map(|x| x["status"].clone())
    };
    assert_eq!(status("max_sram_percent"), Some("over".into()));
    assert_eq!(status("max_stages"), Some("over".into()));
    assert_eq!(status("max_tcam_percent"), Some("ok".into()));
    assert_eq!(status("chip_memory"), None);
    let ok = config("res-check-ok", L3, "max-sram-percent = 90\nmax-stages = 12");
    let r = common::p4cost_in(&ok, &["check"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
}

const ALU: &str = "p4-samples/tofino/resources/alu_overflow.p4";

/// A table whose action runs five stateful ALUs, where a Tofino 1 stage
/// has four: no stage can hold it, whatever the stages left. `stages`,
/// `resources` and `check` say so as a finding (exit 1) naming the table
/// and both counts, not as an input error (exit 2).
#[test]
fn a_table_larger_than_any_stage_does_not_fit() {
    let want =
        "`Ig.count_all` in control `Ig` needs 5 meter/stateful ALUs in one stage, a stage has 4";
    for cmd in ["stages", "resources"] {
        let r = p4cost(&[cmd, ALU]);
        assert_eq!(r.code, 1, "{cmd}: {}{}", r.stdout, r.stderr);
        assert!(
            r.stdout.contains(want) || r.stderr.contains(want),
            "{cmd}: {}{}",
            r.stdout,
            r.stderr
        );
    }
    let args = [
        "check",
        ALU,
        "--no-config",
        "--max-latency",
        "1000",
        "--model",
        "tofino1-mau-estimate",
    ];
    let r = p4cost(&args);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("`Ig.count_all` needs 5 meter/stateful ALUs in one stage, a stage has 4: no stage can hold it"),
        "{}",
        r.stdout
    );
    let mut json = args.to_vec();
    json.extend(["--format", "json"]);
    let r = p4cost(&json);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).expect("json");
    let fit = v["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|x| x["budget"] == "chip_stages")
        .expect("the finding");
    assert_eq!(fit["status"], "over");
    assert_eq!(fit["contributors"][0]["name"], "Ig.count_all");
    assert!(fit["note"]
        .as_str()
        .is_some_and(|n| n.contains("no stage can hold it")));
}

const ALPM_SPLIT: &str = "p4-samples/tofino/resources/alpm_and_split.p4";

/// Tables larger than a stage and an ALPM table, placed by hand with the
/// compiler's figures (Tofino 1: a stage has 80 SRAM and 24 TCAM blocks;
/// a RAM is 1,024 words of 128 bits, a TCAM block 512 entries of 44 bits)
/// in control-flow order, each table from stage 0 (no dependencies):
///
/// - `big_exact`, 300,000 entries of a 32-bit key: 32 + 4 overhead bits,
///   floor(128 / 36) = 3 entries per word, 3,072 per RAM; stage 0's 80
///   RAMs hold 245,760, the 54,240 left take ceil(54240 / 3072) = 18 RAMs
///   of stage 1.
/// - `routes`, LPM in TCAM, 30,720 entries of 32 bits (one block wide):
///   60 blocks, 24 + 24 + 12 in stages 0, 1, 2 (12,288 + 12,288 + 6,144).
/// - `alpm_routes`, `Alpm(number_partitions = 1024,
///   subtrees_per_partition = 2)` (bf-p4c `SplitAlpm`): the pre-classifier
///   has 1,024 x 2 = 2,048 entries of the whole key, 16 + 32 = 48 bits, two
///   blocks wide: 2 x 2048 / 512 = 8 blocks, which stages 0 and 1 (TCAM
///   full) cannot hold and stage 2 (12 free) can. Its ATCAM goes to stage
///   3, match dependent: an entry is the 32 LPM bits twice (s0q1, s1q0),
///   plus 16 exact and 4, 84 bits, three per two RAMs, 1,024 partitions one
///   RAM deep: ceil(30720 / 1024 / 3) x 2 = 20 RAMs.
///
/// Ingress: stages 0 (first) and 3 (ATCAM) match dependent, and stage 6
/// (always, Tofino 1); 1 and 2 action dependent (tables continued). Lengths
/// 20, +2 for a TCAM in the group: 22 (stage 0, its group 0-2 holds the
/// TCAM tables) + 2 + 2 + 20 (stage 3: the ATCAM is SRAM) + 1 + 1 + 20 +
/// 5 x 1 + corner turn 4 = 77 cycles.
#[test]
fn tables_split_over_stages_and_alpm() {
    let v = common::json(&["resources", ALPM_SPLIT, "--format", "json"]);
    let unit = |n: &str| {
        v["units"]
            .as_array()
            .expect("units")
            .iter()
            .find(|u| u["name"] == n)
            .cloned()
            .unwrap_or_else(|| panic!("no unit {n}"))
    };
    let parts = |u: &Value| -> Vec<(u64, u64, u64, u64)> {
        u["parts"]
            .as_array()
            .expect("parts")
            .iter()
            .map(|p| {
                let g = |k: &str| p[k].as_u64().expect(k);
                (g("stage"), g("entries"), g("sram_blocks"), g("tcam_blocks"))
            })
            .collect()
    };
    assert_eq!(
        parts(&unit("Ig.big_exact")),
        [(0, 245_760, 80, 0), (1, 54_240, 18, 0)]
    );
    assert_eq!(
        parts(&unit("Ig.routes")),
        [(0, 12_288, 0, 24), (1, 12_288, 0, 24), (2, 6_144, 0, 12)]
    );
    let alpm = unit("Ig.alpm_routes");
    assert_eq!(alpm["kind"], "alpm");
    assert_eq!(parts(&alpm), [(2, 2_048, 0, 8), (3, 30_720, 20, 0)]);

    let s = common::json(&["stages", ALPM_SPLIT, "--format", "json"]);
    let ing = &s["mau"]["ingress"];
    let matched: Vec<u64> = ing["stages"]
        .as_array()
        .expect("stages")
        .iter()
        .filter(|x| x["match_dependent"] == true)
        .map(|x| x["stage"].as_u64().expect("stage"))
        .collect();
    assert_eq!(matched, [0, 3, 6]);
    assert_eq!(ing["cycles"], 77);

    let r = p4cost(&["stages", "--explain", ALPM_SPLIT]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    for want in [
        "Ig.big_exact: first stage; split over stages 0-1: 245760 + 54240 entries",
        "ALPM: pre-classifier (TCAM, 2048 entries) in stage 2, ATCAM partitions (30720 entries, \
         SRAM) in stage 3, match dependent on it",
        "Ig.alpm_routes's ATCAM partitions read the partition index its ALPM pre-classifier wrote \
         (stage 2)",
    ] {
        assert!(r.stdout.contains(want), "{want}\n{}", r.stdout);
    }
}

/// The stdout and stderr of `p4cost stages FILE` (exit 1 asserted).
fn no_fit(file: &str) -> String {
    let r = p4cost(&["stages", file]);
    assert_eq!(r.code, 1, "{file}: {}{}", r.stdout, r.stderr);
    format!("{}{}", r.stdout, r.stderr)
}

/// Why a program does not fit, by cause, each worked by hand from the
/// Tofino 1 model file's limits (a stage: 24 TCAM blocks of 512 entries
/// of 44 bits, 16 logical tables; 12 stages):
///
/// - `tcam_full.p4`: two ternary tables of 81,920 entries of a 32-bit key
///   (one block wide, 12,288 entries a stage). `by_src` fills stages 0-5
///   and takes 8,192 entries (16 blocks) of stage 6; `by_dst` finds stages
///   0-5 full, puts 4,096 entries in stage 6's 8 free blocks, 73,728 in
///   stages 7-12 and its last 4,096 in stage 13: 14 stages. In stages
///   0-11: `by_src` 6 x 24 + 16 = 160 blocks, `by_dst` 8 + 5 x 24 = 128.
/// - `logical_tables_full.p4`: sixteen independent tables and a chain of
///   twelve match-dependent ones (12 stages, what the chip has). Placed in
///   control-flow order the sixteen would take stage 0's 16 logical tables
///   and push the chain to stage 12; placed as the compiler does, the
///   table with the longest chain below it first, `c0` takes stage 0 with
///   fifteen of them and `s15` goes to stage 1: it fits in 12 stages.
/// - `chain_too_long.p4`: thirteen match-dependent tables of 4 SRAM blocks
///   each, 13 stages: the chain, all thirteen named.
/// - `pipe_sram_overflow.p4` (SRAM full by action data): [`overflow_human`].
#[test]
fn full_stages_name_the_resource() {
    let dir = "p4-samples/tofino/resources";
    let out = no_fit(&format!("{dir}/tcam_full.p4"));
    assert!(
        out.contains(
            "needs at least 14 stages, the chip has 12 (model `tofino1-mau-estimate`): TCAM \
             blocks fill stages 0-11: Ig.by_src 160, Ig.by_dst 128 (its dependencies alone \
             need 1 stage)"
        ),
        "{out}"
    );
    let r = p4cost(&["stages", &format!("{dir}/logical_tables_full.p4")]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    for want in [
        "      0  match           20    20  Ig.s0, Ig.s1, Ig.s2, Ig.s3, Ig.s4, Ig.s5, Ig.s6, \
         Ig.s7, Ig.s8, Ig.s9, Ig.s10, Ig.s11, Ig.s12, Ig.s13, Ig.s14, Ig.c0  (first stage)",
        "      1  match           20    20  Ig.s15, Ig.c1  (Ig.c1 reads md.x0 written by Ig.c0 \
         (stage 0))",
        "     11  match           20    20  Ig.c11  (Ig.c11 reads md.x10 written by Ig.c10 \
         (stage 10))",
    ] {
        assert!(r.stdout.contains(want), "{want}\n{}", r.stdout);
    }
    let out = no_fit(&format!("{dir}/chain_too_long.p4"));
    let chain: Vec<String> = (0..13).map(|i| format!("Ig.c{i}")).collect();
    assert!(
        out.contains(&format!(
            "needs at least 13 stages, the chip has 12 (model `tofino1-mau-estimate`); the chain \
             that overflows: {}",
            chain.join(" -> ")
        )),
        "{out}"
    );
    assert!(!out.contains("fill"), "{out}");
}

/// On Tofino 2 (20 stages) the same programs fit, and `stages --explain`
/// says which tables the full stages pushed late and why: `by_dst` past
/// TCAM-full stages 0-5, `s15` past stage 0's logical tables (`c0`, with
/// the longest chain below it, placed first).
#[test]
fn explain_names_the_full_stage() {
    let dir = "p4-samples/tofino/resources";
    for (file, want) in [
        (
            "tcam_full.p4",
            "Ig.by_dst: resources: its dependencies allow stage 0; stages 0-5 are full (stage 5: \
             TCAM blocks exhausted); split over stages 6-13",
        ),
        (
            "logical_tables_full.p4",
            "Ig.s15: resources: its dependencies allow stage 0, which is full (no logical table \
             left)",
        ),
    ] {
        let path = format!("{dir}/{file}");
        let r = p4cost(&[
            "stages",
            "--explain",
            &path,
            "--model",
            "tofino2-mau-estimate",
        ]);
        assert_eq!(r.code, 0, "{file}: {}", r.stderr);
        assert!(r.stdout.contains(want), "{file}: {want}\n{}", r.stdout);
    }
}

/// A pipe whose gresses each fit their stages but not together (262
/// SRAM blocks a table, two tables a gress, as in [`overflow_human`]):
/// ingress and egress share the stages, so the four tables' 1,048 blocks
/// meet 12 stages of 80 = 960. Three tables take their 262 whole in
/// stages 0-11 and the fourth the 960 - 3 x 262 = 174 left; its other 88
/// go to stages 12 (80) and 13 (8): 14 stages, SRAM full in stages 0-11,
/// the tables of both gresses named. With `--format json` the finding is
/// on stderr and there is no report; exit 1.
#[test]
fn pipe_overflow_names_both_gresses() {
    let file = "p4-samples/tofino/resources/pipe_sram_two_gresses.p4";
    let r = p4cost(&["resources", file, "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    let out = r.stderr;
    assert!(
        out.contains(
            "needs at least 14 stages, the chip has 12 (model `tofino1-mau-estimate`): SRAM \
             blocks fill stages 0-11: "
        ),
        "{out}"
    );
    for t in ["Eg.by_id", "Eg.by_mac", "Ig.by_dst", "Ig.by_src"] {
        assert!(out.contains(t), "{t}: {out}");
    }
    let amounts: Vec<u32> = ["262", "174"]
        .iter()
        .map(|a| out.matches(&format!(" {a}")).count() as u32)
        .collect();
    assert_eq!(amounts, [3, 1], "{out}");
}

/// `action_data_fills.p4` (its comment works the figures): counting action
/// data, `wide` (65,536 entries, 512 bits: 256 blocks of action data)
/// fills stages 0-2 before c1 is placed and the twelve-table chain would
/// need more than 12 stages; the pipe holds the program several times over
/// (well under 960 blocks) and counting match entries only it fits. So the
/// estimate fits, exit 0, with c11 in stage 11 and a caveat that gives what
/// the full count needed: not a "does not fit" finding.
#[test]
fn action_data_overflow_is_a_caveat_when_the_pipe_holds_it() {
    let r = p4cost(&["stages", "p4-samples/tofino/resources/action_data_fills.p4"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("     11  match           20    20  Ig.c11  "),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains(
            "resource limit: counting the SRAM of action data, counters and registers, the \
             estimate's packing needs "
        ) && r
            .stdout
            .contains("placed counting match entries only in a stage's SRAM"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("Ig.wide"), "{}", r.stdout);
}

/// fabric-tna's Makefile builds its four TNA profiles with bf-p4c
/// (`PROFILES ?= fabric fabric-upf fabric-int fabric-upf-int`, the last
/// with `-DWITH_UPF -DWITH_INT`), so each fits a Tofino 1: the estimate
/// must place every one of them, not call one "does not fit". With action
/// data counted in a stage's SRAM, fabric-upf-int's packing ran past
/// stage 11 while its dependencies need 10 stages and the pipe holds its
/// SRAM: it is now placed counting match entries, with the caveat.
#[test]
fn every_fabric_tna_profile_gets_a_placement() {
    let src = "tests/fixtures/fabric-tna/p4src";
    let main = format!("{src}/tna/fabric_tna.p4");
    for defines in [
        &[][..],
        &["-DWITH_UPF"][..],
        &["-DWITH_INT"][..],
        &["-DWITH_UPF", "-DWITH_INT"][..],
    ] {
        let mut args = vec!["stages", "-I", src];
        args.extend_from_slice(defines);
        args.push(&main);
        let r = p4cost(&args);
        assert_eq!(r.code, 0, "{defines:?}: {}{}", r.stdout, r.stderr);
        assert!(
            r.stdout.starts_with("ingress: "),
            "{defines:?}: {}",
            r.stdout
        );
    }
}

/// `split_or_defer.p4` (its comment works the figures by hand): `b` does
/// not fit whole in stage 0 and waits, whole, for stage 1, where its
/// parts split from stage 0 would have ended; `c`, larger than any
/// stage, is split over stages 1-2 (6,144 + 9,216 entries); `d`, with an
/// indirect meter, is never split: it passes stages 0-2 and goes whole to
/// stage 3.
#[test]
fn split_or_defer_places_by_hand() {
    let r = p4cost(&[
        "stages",
        "--explain",
        "p4-samples/tofino/resources/split_or_defer.p4",
    ]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    for want in [
        "      0  Ig.a: first stage",
        "      1  Ig.b: resources: its dependencies allow stage 0",
        "    1-2  Ig.c: match dependency: reads md.a written by Ig.a (stage 0); split over \
         stages 1-2: 6144 + 9216 entries",
        "      3  Ig.d: resources: its dependencies allow stage 0",
        "resource limit: Ig.b moved past stage 0: TCAM blocks exhausted (it fits whole in \
         stage 1, no later than its parts split from stage 0 would end)",
        "resource limit: Ig.d moved past stage 2: TCAM blocks exhausted (its indirect meter \
         or register keeps it in one stage)",
    ] {
        assert!(r.stdout.contains(want), "{want}\n{}", r.stdout);
    }
    assert!(!r.stdout.contains("egress tables hold 0"), "{}", r.stdout);
}

/// A direct counter's SRAM and its two-port spare bank count in the
/// stage of its table (arithmetic in the sample's header): `counted`
/// takes 8 match + 12 counter + 1 spare = 21 blocks, one more than the 20
/// `big`'s 60 leave in stage 0; split, its parts would end in stage 1, so
/// it waits there whole (the compiler keeps a table whole when splitting
/// ends no sooner). Before, its counter took map RAMs but no SRAM in the
/// fill: the whole table went to stage 0 at 68 blocks.
#[test]
fn direct_counter_sram_fills_the_stage() {
    let file = "p4-samples/tofino/resources/direct_counter_sram.p4";
    let v = common::json(&["resources", file, "--format", "json"]);
    let units = v["units"].as_array().expect("units");
    let counted = units
        .iter()
        .find(|u| u["name"] == "Ig.counted")
        .expect("Ig.counted");
    let parts: Vec<(u64, u64, u64, u64)> = counted["parts"]
        .as_array()
        .expect("parts")
        .iter()
        .map(|p| {
            let f = |k: &str| p[k].as_u64().expect(k);
            (f("stage"), f("entries"), f("sram_blocks"), f("map_rams"))
        })
        .collect();
    assert_eq!(parts, [(1, 24_576, 21, 13)]);
    assert_eq!(counted["match_sram_blocks"], 8);
    assert_eq!(counted["stateful_sram_blocks"], 13);
    assert_eq!(v["stages"][0]["sram_blocks"], 60);
    assert_eq!(v["stages"][1]["sram_blocks"], 21);
    assert_eq!(v["stage_over"].as_array().map(Vec::len), Some(0));
}

/// Hash bits count in a stage's fullness (arithmetic in the sample's
/// header): ten 4-way exact tables take 400 of stage 0's 416 bits, the
/// eleventh goes to stage 1 and `--explain` says why. Before, all eleven
/// went to stage 0 (440 of 416, only a caveat).
#[test]
fn hash_bits_fill_the_stage() {
    let file = "p4-samples/tofino/resources/hash_bits_full.p4";
    let v = common::json(&["resources", file, "--format", "json"]);
    assert_eq!(v["stages"][0]["hash_bits"], 400);
    assert_eq!(v["stages"][1]["hash_bits"], 40);
    assert_eq!(
        v["stages"][1]["units"],
        serde_json::json!(["ingress:Ig.t10"])
    );
    assert_eq!(v["stage_over"].as_array().map(Vec::len), Some(0));
    let r = p4cost(&["stages", "--explain", file]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("Ig.t10: resources: its dependencies allow stage 0, which is full (hash bits exhausted)"),
        "{}",
        r.stdout
    );
}

/// A program whose chain fits the chip and whose tables the pipe's
/// logical table IDs hold (28 of 12 x 16), yet no packing fits:
/// `heads_crowd_stage0.p4`'s seventeen heads each have a chain of eleven
/// stages below them, so all must be in stage 0, which has 16 IDs. The
/// fallbacks that place a program our packing overflows (lighter counts,
/// limits scaled by the overshoot) must not hide it: stage 0's window
/// needs 17 IDs, so it stays a finding, naming logical tables.
#[test]
fn crowded_stage_does_not_fit() {
    let out = no_fit("p4-samples/tofino/resources/heads_crowd_stage0.p4");
    assert!(
        out.contains(
            "needs at least 13 stages, the chip has 12 (model `tofino1-mau-estimate`): logical \
             tables fill stage 0"
        ),
        "{out}"
    );
    assert!(
        out.contains("its dependencies alone need 12 stages"),
        "{out}"
    );
}

/// `stats_alus_full.p4` (derivation in the file): four tables with a
/// direct counter and one with an indirect counter, nothing else short;
/// a stage has 4 statistics ALUs (bf-p4c `STATS_ALUS`), so `t5` goes to
/// stage 1 and `resources` shows 4/4 and 1/4 per stage, one per table.
#[test]
fn counters_take_statistics_alus() {
    let path = "p4-samples/tofino/resources/stats_alus_full.p4";
    let r = common::json(&["resources", path, "--format", "json"]);
    assert_eq!(r["limits"]["stats_alus"], 4, "{r}");
    let stats: Vec<u64> = (0..2)
        .map(|s| r["stages"][s]["stats_alus"].as_u64().unwrap_or(99))
        .collect();
    assert_eq!(stats, [4, 1], "{r}");
    for u in r["units"].as_array().into_iter().flatten() {
        assert_eq!(u["stats_alus"], 1, "{u}");
        let first = if u["name"] == "Ig.t5" { 1 } else { 0 };
        assert_eq!(u["first_stage"], first, "{u}");
    }
    let e = p4cost(&["stages", "--explain", path]);
    assert!(
        e.stdout
            .contains("Ig.t5: resources: its dependencies allow stage 0, which is full (no statistics ALU left)"),
        "{}",
        e.stdout
    );
}

/// `gateways_full.p4` (derivation in the file): nine nested conditions
/// `if (a_i) { if (b_i) { t_i.apply(); } }`. The inner gateway merges into
/// `t_i`, taking a gateway row in its stage; the outer one is a gateway
/// table of its own (a row and a logical table). Stage 0 holds eight
/// pairs, 16/16 rows and 16/16 logical tables, and the ninth goes to
/// stage 1: the fill counts gateways as a stage's resource (the old
/// after-the-fact count put 18 rows in stage 0).
#[test]
fn gateways_fill_a_stage() {
    let path = "p4-samples/tofino/resources/gateways_full.p4";
    let r = common::json(&["resources", path, "--format", "json"]);
    let per_stage: Vec<(u64, u64)> = (0..2)
        .map(|s| {
            let x = &r["stages"][s];
            (
                x["gateways"].as_u64().unwrap_or(99),
                x["logical_tables"].as_u64().unwrap_or(99),
            )
        })
        .collect();
    assert_eq!(per_stage, [(16, 16), (2, 2)], "{r}");
    assert_eq!(r["stage_over"], serde_json::json!([]), "{r}");
    for u in r["units"].as_array().into_iter().flatten() {
        let name = u["name"].as_str().unwrap_or("");
        let want = if name.contains("9") { 1 } else { 0 };
        assert_eq!(u["first_stage"], want, "{u}");
    }
    let s = p4cost(&["stages", path]);
    assert!(
        s.stdout.contains(
            "resource limit: if (hdr.c.a9 == 1) moved past stage 0: no logical table left"
        ),
        "{}",
        s.stdout
    );
    assert!(!s.stdout.contains("more than 16 gateways"), "{}", s.stdout);
}

/// `register_actions.p4` (derivation in the file): registers used only
/// through `RegisterAction`s take their RAM, map RAMs and one meter ALU
/// (however many actions run on them) in the stage of the table whose
/// action executes them: t3's 17 map RAMs do not fit beside t1's and
/// t2's 34, and t4's two actions on one register take one ALU.
#[test]
fn registers_through_register_actions() {
    let path = "p4-samples/tofino/resources/register_actions.p4";
    let r = common::json(&["resources", path, "--format", "json"]);
    let unit = |n: &str| {
        r["units"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|u| u["name"] == n)
            .cloned()
            .unwrap_or_default()
    };
    for (name, stage, stateful, alus) in [
        ("Ig.t1", 0, 17, 1),
        ("Ig.t2", 0, 17, 1),
        ("Ig.t3", 1, 17, 1),
        ("Ig.t4", 0, 2, 1),
    ] {
        let u = unit(name);
        assert_eq!(
            (
                &u["first_stage"],
                &u["stateful_sram_blocks"],
                &u["meter_alus"]
            ),
            (
                &serde_json::json!(stage),
                &serde_json::json!(stateful),
                &serde_json::json!(alus)
            ),
            "{u}"
        );
    }
    let s0 = &r["stages"][0];
    assert_eq!(
        (&s0["sram_blocks"], &s0["map_rams"], &s0["meter_alus"]),
        (
            &serde_json::json!(48),
            &serde_json::json!(36),
            &serde_json::json!(3)
        ),
        "{s0}"
    );
    let s = p4cost(&["stages", path]);
    assert!(
        s.stdout
            .contains("resource limit: Ig.t3 moved past stage 0: map RAMs exhausted"),
        "{}",
        s.stdout
    );
}

/// `selector_words.p4` (derivation in the file): each ActionSelector of
/// up to 1,200 members in 1,024 groups takes 10,240 RAM lines, 10 blocks
/// and the spare: 11 SRAM blocks and 11 map RAMs beside its table's 4
/// match blocks, and a meter ALU; four fill stage 0's ALUs.
#[test]
fn selectors_take_their_words() {
    let path = "p4-samples/tofino/resources/selector_words.p4";
    let r = common::json(&["resources", path, "--format", "json"]);
    for u in r["units"].as_array().into_iter().flatten() {
        assert_eq!(
            (
                &u["match_sram_blocks"],
                &u["stateful_sram_blocks"],
                &u["map_rams"]
            ),
            (
                &serde_json::json!(4),
                &serde_json::json!(11),
                &serde_json::json!(11)
            ),
            "{u}"
        );
    }
    let s0 = &r["stages"][0];
    assert_eq!(
        (&s0["sram_blocks"], &s0["map_rams"], &s0["meter_alus"]),
        (
            &serde_json::json!(60),
            &serde_json::json!(44),
            &serde_json::json!(4)
        ),
        "{s0}"
    );
}

/// The per-table columns stay aligned whatever the tables are called:
/// tc1_enterprise's names (`EnterpriseIngress.station_check`, 31
/// characters) are longer than the 28 the name column once had, which
/// pushed every figure of their rows right of the header's.
#[test]
fn table_columns_align_with_long_names() {
    let r = p4cost(&["resources", "p4-samples/tofino/tc1_enterprise.p4"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    let header = lines
        .iter()
        .find(|l| l.trim_start().starts_with("gress") && l.contains("Scholz 2020"))
        .expect("the per-table header");
    let at = header.find("Scholz 2020").expect("Scholz column");
    let rows: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("  ingress  ") || l.starts_with("  egress  "))
        .collect();
    assert!(rows.len() >= 3, "{}", r.stdout);
    assert!(
        rows.iter()
            .any(|l| l.contains("EnterpriseIngress.station_check")),
        "{}",
        r.stdout
    );
    for row in rows {
        // The Scholz figure (or `-`) starts where its header does, after
        // the two blanks that end the column before it.
        assert_eq!(row.get(at - 2..at), Some("  "), "{row}\n{header}");
        assert_ne!(row.get(at..at + 1), Some(" "), "{row}\n{header}");
    }
}
