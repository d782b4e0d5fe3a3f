//! `p4cost diff`: two programs, or one file at a git revision and now
//! (issue 10). Its figures are checked against `predict` of each side.

mod common;

use std::path::Path;

use serde_json::Value;

/// The strings of a JSON array (the test fails when it is not one).
fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .expect("an array")
        .iter()
        .filter_map(Value::as_str)
        .collect()
}

fn git(dir: &Path, args: &[&str]) {
    let out = common::git(dir, args).output().expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The micro-benchmark sample split the way real projects are: the
/// ingress control in `include/ingress.p4`, included by `main.p4`.
fn split_sample() -> (String, String) {
    let text =
        std::fs::read_to_string(common::root().join("p4-samples/tofino/micro/tables_1_k8.p4"))
            .expect("sample");
    let start = text.find("control BenchIngress(").expect("ingress control");
    let end = text
        .find("control BenchIngressDeparser(")
        .expect("deparser");
    let main = format!(
        "{}#include \"include/ingress.p4\"\n\n{}",
        &text[..start],
        &text[end..]
    );
    (main, text[start..end].to_string())
}

/// The ingress control with a second table applied after `t0`.
fn with_acl(ingress: &str) -> String {
    let table = "    table acl {
        key = {
            hdr.keys.f0 : ternary;
            hdr.ethernet.src_addr : exact;
        }
        actions = {
            set_port;
            NoAction;
        }
        const default_action = NoAction();
        size = 512;
    }

    apply {";
    ingress.replacen("    apply {", table, 1).replacen(
        "t0.apply();",
        "t0.apply();\n            acl.apply();",
        1,
    )
}

fn write(dir: &Path, main: &str, ingress: &str) {
    std::fs::create_dir_all(dir.join("include")).expect("mkdir");
    std::fs::write(dir.join("main.p4"), main).expect("main");
    std::fs::write(dir.join("include/ingress.p4"), ingress).expect("include");
}

/// `diff p4src/main.p4 --base HEAD --format json` in `repo`, with `extra`
/// flags: its JSON (it must succeed).
fn diff_at_head(repo: &Path, extra: &[&str]) -> Value {
    let mut args = vec![
        "diff",
        "p4src/main.p4",
        "--base",
        "HEAD",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let r = common::p4cost_in(repo, &args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    serde_json::from_str(&r.stdout).expect("json")
}

fn max_latency(dir: &Path, file: &str) -> f64 {
    let r = common::p4cost_in(dir, &["predict", file, "--format", "json", "--no-config"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).expect("json");
    v["summary"]["max"]["latency_ns"].as_f64().expect("max")
}

#[test]
fn base_reads_the_file_and_its_includes_at_the_revision() {
    let d = common::scratch("diff-base");
    let repo = d.join("repo");
    let (main, ingress) = split_sample();
    write(&repo.join("p4src"), &main, &ingress);
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "one table"]);
    // The change is in the include only; the committed version is also
    // kept outside the repository to predict it from the disk.
    write(&repo.join("p4src"), &main, &with_acl(&ingress));
    write(&d.join("before"), &main, &ingress);

    // By default the summaries: acl's term is new, the classes are not
    // compared one by one.
    let v = diff_at_head(&repo, &["--no-config"]);
    let p = &v["pipelines"][0];
    assert_eq!(p["listings_compared"], false, "{p}");
    assert_eq!(p["changed_count"], 0, "{p}");
    assert!(!p["compared"]["complete"].as_bool().unwrap());
    let terms = &p["table_terms_changed"];
    assert_eq!(terms[0]["name"], "BenchIngress.acl", "{terms}");
    assert_eq!(terms[0]["old_ns"], Value::Null, "{terms}");
    assert!(terms[0]["new_ns"].as_f64().unwrap() > 0.0, "{terms}");
    assert_eq!(terms.as_array().unwrap().len(), 1, "{terms}");
    assert_eq!(p["table_terms_unchanged"], 1, "{p}");

    let v = diff_at_head(&repo, &["--no-config", "--paths"]);
    assert_eq!(v["old"]["revision"], "HEAD");
    assert_eq!(v["new"]["revision"], Value::Null);
    let p = &v["pipelines"][0];
    assert_eq!(p["tables_added"], serde_json::json!(["BenchIngress.acl"]));
    assert_eq!(p["tables_removed"], serde_json::json!([]));

    // The old side is what the committed files predict, read from disk.
    let old = max_latency(&d.join("before"), "main.p4");
    let new = max_latency(&repo, "p4src/main.p4");
    let m = &p["max_latency"];
    assert!((m["old"].as_f64().unwrap() - old).abs() < 1e-6, "{m}");
    assert!((m["new"].as_f64().unwrap() - new).abs() < 1e-6, "{m}");
    assert!(new > old, "a table more costs time: {old} -> {new}");

    // Ethernet-only packets skip both tables; keyed packets now apply acl:
    // their class `t0` is gone and `t0, acl` is new.
    assert_eq!(p["paths_unchanged"], 1, "{p}");
    assert_eq!(p["paths_changed_count"], 1, "{p}");
    assert_eq!(
        p["paths_changed"][0]["headers"],
        serde_json::json!(["hdr.ethernet", "hdr.keys"])
    );
    assert_eq!(p["added_count"], 1, "{p}");
    assert_eq!(p["removed_count"], 1, "{p}");
    let added = p["added"][0]["class"].as_str().unwrap();
    let removed = p["removed"][0]["class"].as_str().unwrap();
    assert!(added.contains("acl") && added.contains("t0"), "{added}");
    assert!(
        !removed.contains("acl") && removed.contains("t0"),
        "{removed}"
    );
    assert!(p["compared"]["complete"].as_bool().unwrap());
    let worst = v["worst_increase_ns"].as_f64().unwrap();
    assert!((worst - (new - old)).abs() < 1e-6, "{worst}");

    // --fail-above: exit 1 over the threshold, 0 within it.
    let fail_above = |ns: f64| {
        let ns = format!("{ns}");
        common::p4cost_in(
            &repo,
            &[
                "diff",
                "p4src/main.p4",
                "--base",
                "HEAD",
                "--fail-above",
                &ns,
                "--no-config",
            ],
        )
    };
    let r = fail_above((new - old) / 2.0);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("FAIL: worst increase"), "{}", r.stdout);
    assert!(r.stdout.contains("tables added (1):"), "{}", r.stdout);
    let r = fail_above((new - old) * 2.0);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("ok: worst increase"), "{}", r.stdout);

    // The include is read at the revision even when the working tree no
    // longer has it: the new side then fails, the old one does not.
    std::fs::remove_file(repo.join("p4src/include/ingress.p4")).expect("rm");
    let r = common::p4cost_in(
        &repo,
        &["diff", "p4src/main.p4", "--base", "HEAD", "--no-config"],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("include/ingress.p4") && !r.stderr.contains("at revision HEAD"),
        "the error is the working tree's: {}",
        r.stderr
    );
}

/// With `--base`, the old side is the project as it was at the revision,
/// its p4cost.toml included: a define the configuration dropped removes
/// the table it guarded, though the P4 files did not change. `--config`
/// holds one configuration for both sides.
#[test]
fn base_reads_the_configuration_at_the_revision_too() {
    let d = common::scratch("diff-base-config");
    let repo = d.join("repo");
    let (main, ingress) = split_sample();
    let guarded = with_acl(&ingress)
        .replacen("    table acl {", "#ifdef WITH_ACL\n    table acl {", 1)
        .replacen(
            "        size = 512;\n    }\n",
            "        size = 512;\n    }\n#endif\n",
            1,
        )
        .replacen(
            "            acl.apply();",
            "#ifdef WITH_ACL\n            acl.apply();\n#endif",
            1,
        );
    assert_eq!(guarded.matches("#ifdef WITH_ACL").count(), 2, "{guarded}");
    write(&repo.join("p4src"), &main, &guarded);
    let config = |defines: &str| {
        format!(
            "[defaults]\nmodel = \"tofino1-10g\"\ndefines = [{defines}]\n\n\
             [[program]]\npath = \"p4src/main.p4\"\n"
        )
    };
    std::fs::write(repo.join("p4cost.toml"), config("\"WITH_ACL\"")).expect("config");
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "acl on"]);
    std::fs::write(repo.join("p4cost.toml"), config("")).expect("config");

    let tables = |extra: &[&str]| {
        let v = diff_at_head(&repo, extra);
        let p = &v["pipelines"][0];
        (
            strings(&p["tables_added"]).join(","),
            strings(&p["tables_removed"]).join(","),
        )
    };
    assert_eq!(
        tables(&[]),
        (String::new(), "BenchIngress.acl".to_string()),
        "the committed p4cost.toml defined WITH_ACL"
    );
    let now = repo.join("p4cost.toml");
    assert_eq!(
        tables(&["--config", now.to_str().unwrap()]),
        (String::new(), String::new()),
        "one configuration for both sides"
    );
    // A configuration broken at the revision is named with it.
    std::fs::write(repo.join("p4cost.toml"), "[defaults]\nmodle = 1\n").expect("config");
    git(&repo, &["commit", "-qam", "typo"]);
    std::fs::write(repo.join("p4cost.toml"), config("")).expect("config");
    let r = common::p4cost_in(&repo, &["diff", "p4src/main.p4", "--base", "HEAD"]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(
        r.stderr.contains("p4cost.toml (at HEAD):2:1"),
        "{}",
        r.stderr
    );
}

#[test]
fn base_errors_name_the_revision() {
    let d = common::scratch("diff-base-errors");
    let (main, ingress) = split_sample();
    write(&d.join("p4src"), &main, &ingress);
    git(&d, &["init", "-q"]);
    git(&d, &["add", "."]);
    git(&d, &["commit", "-q", "-m", "one"]);
    std::fs::write(d.join("p4src/new.p4"), &main).expect("new file");

    let r = common::p4cost_in(
        &d,
        &["diff", "p4src/new.p4", "--base", "HEAD", "--no-config"],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("p4src/new.p4: no such file at revision HEAD"),
        "{}",
        r.stderr
    );

    let r = common::p4cost_in(
        &d,
        &[
            "diff",
            "p4src/main.p4",
            "--base",
            "nosuchbranch",
            "--no-config",
        ],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("--base nosuchbranch: no such commit"),
        "{}",
        r.stderr
    );

    let outside = common::scratch("diff-base-outside");
    std::fs::write(outside.join("x.p4"), &main).expect("x");
    let r = common::p4cost_in(&outside, &["diff", "x.p4", "--base", "HEAD", "--no-config"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("not in a git repository"), "{}", r.stderr);

    let r = common::p4cost_in(&d, &["diff", "p4src/main.p4", "--no-config"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("needs two programs"), "{}", r.stderr);
}

/// Two real BMv2 compiler outputs of ONOS fabric.p4: the default profile
/// and the full one (SPGW and INT added).
#[test]
fn two_compiler_outputs_agree_with_predict_of_each() {
    let old = "tests/fixtures/bmv2/onos__fabric.json";
    let new = "tests/fixtures/bmv2/onos__fabric-full.json";
    let v = common::json(&["diff", old, new, "--format", "json", "--paths"]);
    let p = &v["pipelines"][0];
    let po = common::json(&["predict", old, "--format", "json", "--max-paths", "0"]);
    let pn = common::json(&["predict", new, "--format", "json", "--max-paths", "0"]);
    assert_eq!(p["paths"]["old"], po["path_count_text"]);
    assert_eq!(p["paths"]["new"], pn["path_count_text"]);
    assert_eq!(p["classes"]["new"], pn["summary"]["classes"]["text"]);
    assert_eq!(p["max_latency"]["old"], po["summary"]["max"]["latency_ns"]);
    assert_eq!(p["max_latency"]["new"], pn["summary"]["max"]["latency_ns"]);
    let added = strings(&p["tables_added"]);
    assert!(
        added.iter().any(|t| t.contains("spgw")) && added.iter().any(|t| t.contains("int")),
        "{added:?}"
    );
    assert_eq!(p["tables_removed"], serde_json::json!([]));
    // Every path of both sides is listed: paths are compared completely
    // (175 and 1069 paths), classes are not (thousands per path).
    let total = |x: &Value| x.as_u64().unwrap();
    let old_paths = total(&p["paths_changed_count"])
        + total(&p["paths_unchanged"])
        + total(&p["paths_removed_count"]);
    assert!(old_paths > 0 && old_paths <= 175, "{old_paths}");
    assert!(!p["compared"]["complete"].as_bool().unwrap());
    // The largest path change is what `predict --path` says of that path.
    let top = &p["paths_changed"][0];
    let headers = strings(&top["headers"]);
    let sel = headers.join(",");
    let pp = common::json(&["predict", new, "--path", &sel, "--format", "json"]);
    assert_eq!(top["max"]["new"], pp["paths"][0]["latency_ns"], "{sel}");
    // The slowest class of the full profile is slower.
    assert!(v["worst_increase_ns"].as_f64().unwrap() > 0.0);
}

#[test]
fn a_program_against_itself_changes_nothing() {
    let f = "p4-samples/tofino/tc2_datacenter.p4";
    let r = common::p4cost(&["diff", f, f, "--fail-above", "0", "--no-config"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("table terms changed: 0, unchanged: 1")
            && r.stdout.contains("state terms changed: 0, unchanged: 9"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("classes changed"), "{}", r.stdout);
    assert!(r.stdout.contains("ok: worst increase 0 ns"), "{}", r.stdout);
    let r = common::p4cost(&["diff", f, f, "--paths", "--no-config"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("classes changed: 0, unchanged: 18, added: 0, removed: 0"),
        "{}",
        r.stdout
    );
    // The listing bounds belong to --paths.
    let r = common::p4cost(&["diff", f, f, "--max-paths", "3"]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(r.stderr.contains("--paths"), "{}", r.stderr);
    let r = common::p4cost(&["diff", f, f, "--fail-above", "-1"]);
    assert_eq!(r.code, 2);
}

/// Two real context.json files of fabric-tna (with and without INT): no
/// parse graph, so MAU cycles and tables are compared, and they are the
/// compiler's figures as `predict --model tofino1-mau-cycles` reads them.
#[test]
fn two_contexts_are_compared_on_mau_cycles_and_tables() {
    let old = "tests/fixtures/tofino/fabric-tna__fabric__sde9.2.0__context.json";
    let new = "tests/fixtures/tofino/fabric-tna__fabric-int__sde9.2.0__context.json";
    let v = common::json(&["diff", old, new, "--format", "json"]);
    let p = &v["pipelines"][0];
    assert_eq!(p["mau_model"], "tofino1-mau-cycles");
    let cycles = |f: &str, g: &str| {
        let r = common::json(&[
            "predict",
            f,
            "--model",
            "tofino1-mau-cycles",
            "--format",
            "json",
        ]);
        r["mau"][g]["cycles"].as_i64().expect("cycles")
    };
    for (i, g) in ["ingress", "egress"].iter().enumerate() {
        let row = &p["mau"][i];
        assert_eq!(row["gress"], *g);
        assert_eq!(row["old"].as_i64().unwrap(), cycles(old, g));
        assert_eq!(row["new"].as_i64().unwrap(), cycles(new, g));
    }
    let added = strings(&p["tables_added"]);
    assert!(
        added.contains(&"FabricEgress.int_egress.report"),
        "{added:?}"
    );
    assert_eq!(p["max_latency"], Value::Null);
    // Without a latency per class, the worst increase is a gress's MAU ns.
    let worst = p["mau"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|g| g["delta_ns"].as_f64())
        .fold(0.0_f64, f64::max);
    assert!(worst > 0.0);
    assert!((v["worst_increase_ns"].as_f64().unwrap() - worst).abs() < 1e-9);
}

/// A v1model program gets no Tofino MAU figures unasked (issue 24: an
/// empty egress once showed 187 cycles): a note says how to ask, and
/// `--model tofino1-mau-estimate` compares them.
#[test]
fn a_non_tofino_program_is_compared_on_mau_cycles_only_when_asked() {
    let d = common::scratch("diff-v1model");
    let old = common::root().join("p4-samples/v1model/empty_egress.p4");
    let text = std::fs::read_to_string(&old).expect("sample");
    let new = d.join("new.p4");
    std::fs::write(&new, text.replace("size = 1024", "size = 4096")).expect("write");
    let (old, new) = (old.to_string_lossy(), new.to_string_lossy());
    let r = common::p4cost(&["diff", &old, &new]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stdout.contains("egress "), "{}", r.stdout);
    // No MAU figure (egress: 187 cycles under the estimate): looked for with the file names left out,
    // since the scratch path holds the test's pid, which may contain 187.
    let figures = r.stdout.replace(&*new, "").replace(&*old, "");
    assert!(!figures.contains("187"), "{}", r.stdout);
    assert!(
        r.stdout.contains("MAU cycles not compared")
            && r.stdout.contains("--model tofino1-mau-estimate"),
        "{}",
        r.stdout
    );
    let v = common::json(&["diff", &old, &new, "--format", "json"]);
    let p = &v["pipelines"][0];
    assert_eq!(p["mau"].as_array().map(Vec::len), Some(0), "{p}");
    assert!(
        p["mau_note"].as_str().unwrap_or("").contains("v1model"),
        "{p}"
    );
    let v = common::json(&[
        "diff",
        &old,
        &new,
        "--model",
        "tofino1-mau-estimate",
        "--format",
        "json",
    ]);
    let gresses: Vec<&str> = v["pipelines"][0]["mau"]
        .as_array()
        .expect("mau")
        .iter()
        .filter_map(|g| g["gress"].as_str())
        .collect();
    assert_eq!(gresses, ["ingress", "egress"]);
}

/// `--old-define`/`--new-define` and `--old-include`/`--new-include` give
/// one side its own preprocessor flags (two profiles of one program): the
/// diff is that of the two programs they select (issue 24, item 10).
#[test]
fn each_side_takes_its_own_defines_and_include_directories() {
    let d = common::scratch("diff-sides");
    let root = common::root();
    for (dir, sample) in [("a", "tc2_datacenter.p4"), ("b", "tc3_edge_mpls.p4")] {
        std::fs::create_dir_all(d.join(dir)).expect("dir");
        std::fs::copy(
            root.join("p4-samples/tofino").join(sample),
            d.join(dir).join("body.p4"),
        )
        .expect("copy");
    }
    std::fs::write(
        d.join("by_define.p4"),
        "#ifdef EDGE\n#include \"b/body.p4\"\n#else\n#include \"a/body.p4\"\n#endif\n",
    )
    .expect("write");
    std::fs::write(d.join("by_dir.p4"), "#include \"body.p4\"\n").expect("write");
    let diff = |args: &[&str]| {
        let mut all = vec!["diff", "--format", "json", "--no-config"];
        all.extend_from_slice(args);
        let r = common::p4cost_in(&d, &all);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        let v: Value = serde_json::from_str(&r.stdout).expect("json");
        v["pipelines"][0]["max_latency"].clone()
    };
    let want = diff(&["a/body.p4", "b/body.p4"]);
    assert_ne!(want["old"], want["new"], "the two programs differ: {want}");
    assert_eq!(
        diff(&["by_define.p4", "by_define.p4", "--new-define", "EDGE"]),
        want
    );
    assert_eq!(
        diff(&[
            "by_dir.p4",
            "by_dir.p4",
            "--old-include",
            "a",
            "--new-include",
            "b"
        ]),
        want
    );
    // -D applies to both sides, the side's own flag after it.
    let same = diff(&["by_define.p4", "by_define.p4", "-D", "EDGE"]);
    assert_eq!(same["old"], same["new"], "{same}");
    let swapped = diff(&["by_define.p4", "by_define.p4", "--old-define", "EDGE"]);
    assert_eq!(
        (&swapped["old"], &swapped["new"]),
        (&want["new"], &want["old"])
    );
}

/// A statement added to an apply block costs MAU cycles (the estimate
/// places it as a `tbl_*` statement table, as p4c makes one) but is not a
/// table the programmer added: compiler-made tables are not compared by
/// name (a source's `tbl_assign` is p4c's `tbl_<file>l<line>`).
#[test]
fn a_statement_table_is_costed_not_added() {
    let d = common::scratch("diff-statement");
    let old = std::fs::read_to_string(common::root().join("p4-samples/v1model/basic_router.p4"))
        .expect("sample");
    let new = old.replacen(
        "            port_mac.apply();\n",
        "            port_mac.apply();\n            hdr.ipv4.ttl = hdr.ipv4.ttl - 1;\n",
        1,
    );
    assert_ne!(old, new);
    std::fs::write(d.join("old.p4"), &old).expect("write");
    std::fs::write(d.join("new.p4"), &new).expect("write");
    let r = common::p4cost_in(
        &d,
        &[
            "diff",
            "old.p4",
            "new.p4",
            "--no-config",
            // A v1model program: MAU cycles only when asked for.
            "--model",
            "tofino1-mau-estimate",
            "--format",
            "json",
        ],
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).expect("json");
    let p = &v["pipelines"][0];
    assert_eq!(p["tables_added"], serde_json::json!([]), "{p}");
    assert_eq!(p["tables_removed"], serde_json::json!([]), "{p}");
    let egress = p["mau"]
        .as_array()
        .expect("mau")
        .iter()
        .find(|g| g["gress"] == "egress")
        .expect("egress row");
    assert!(egress["delta"].as_i64().expect("delta") > 0, "{egress}");
}
