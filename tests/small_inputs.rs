//! Small inputs that used to get a wrong or unclear answer (issue 25
//! item 14), each with the clear answer it gets now.

mod common;

use common::{p4cost, root, scratch};

const TC2: &str = "p4-samples/tofino/tc2_datacenter.p4";

#[test]
fn json_after_a_byte_order_mark_is_read_as_json() {
    let dir = scratch("bom-json");
    let f = dir.join("bom.json");
    let mut bytes = b"\xef\xbb\xbf".to_vec();
    bytes.extend(
        std::fs::read(root().join("tests/fixtures/bmv2/basic_routing-bmv2.json")).expect("fixture"),
    );
    std::fs::write(&f, bytes).expect("write");
    let r = p4cost(&["predict", f.to_str().expect("path"), "--no-config"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("(v1model, bmv2_json)"), "{}", r.stdout);
    // A model file too.
    let m = dir.join("model.json");
    let mut bytes = b"\xef\xbb\xbf".to_vec();
    bytes.extend(std::fs::read(root().join("models/tofino1-10g.json")).expect("model"));
    std::fs::write(&m, bytes).expect("write");
    let r = p4cost(&[
        "predict",
        TC2,
        "--model-file",
        m.to_str().expect("path"),
        "--no-config",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn diff_base_without_git_says_git_cannot_run() {
    let empty = scratch("no-git-path");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_p4cost"))
        .args(["diff", "--base", "HEAD", TC2, "--no-config"])
        .current_dir(root())
        .env("PATH", &empty)
        .output()
        .expect("p4cost runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--base HEAD: cannot run git"), "{err}");
    assert!(!err.contains("not in a git repository"), "{err}");
}

#[test]
fn fit_of_a_constant_latency_column_says_so() {
    let dir = scratch("fit-constant");
    let mut csv = String::from("program,port_gbps,packet_size,state_bytes,tables,latency_ns\n");
    for i in 1..=10 {
        let states: Vec<String> = (1..=i % 4 + 1).map(|b| b.to_string()).collect();
        csv.push_str(&format!(
            "p{i}.p4,10,{},{},exact:8:1,200\n",
            i * 100,
            states.join("+")
        ));
    }
    let data = dir.join("const.csv");
    std::fs::write(&data, csv).expect("write");
    let out = dir.join("m.json");
    let r = p4cost(&[
        "fit",
        data.to_str().expect("path"),
        "-o",
        out.to_str().expect("path"),
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("every row measured the same latency (200 ns)"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("null"), "{}", r.stderr);
    assert!(!out.exists());
}

#[test]
fn an_empty_define_is_reported_where_it_is_written() {
    let dir = scratch("empty-define");
    let toml = dir.join("p4cost.toml");
    std::fs::write(&toml, "[defaults]\ndefines = [\"\"]\n").expect("write");
    let shown = toml.display().to_string();
    let r = p4cost(&["predict", TC2, "--config", &shown]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!(
            "{shown}:2:12: define ``: the macro name `` is not an identifier"
        )),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("<command-line>"), "{}", r.stderr);
    for bad in ["", "=1", "1X", "A-B=2"] {
        let r = p4cost(&["predict", TC2, "-D", bad, "--no-config"]);
        assert_eq!(r.code, 2, "{bad}: {}", r.stderr);
        assert!(
            r.stderr.contains("is not an identifier"),
            "{bad}: {}",
            r.stderr
        );
    }
    let r = p4cost(&["predict", TC2, "-D", "WITH_X=3", "-D", "_Y", "--no-config"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn cr_only_line_endings_read_as_lines() {
    let dir = scratch("cr-only");
    let text = std::fs::read_to_string(root().join(TC2)).expect("program");
    let f = dir.join("cr.p4");
    std::fs::write(&f, text.replace('\n', "\r")).expect("write");
    let json = |p: &str| {
        let r = p4cost(&["predict", p, "--format", "json", "--no-config"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("JSON");
        let paths = v["paths"].as_array().expect("paths").clone();
        paths
            .iter()
            .map(|p| {
                (
                    p["latency_ns"].to_string(),
                    p["states"][2]["span"]["line"].to_string(),
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(json(f.to_str().expect("path")), json(TC2));
    // An error is at its line.
    let bad = dir.join("bad.p4");
    std::fs::write(&bad, "// one\rconst bit<8> A = 1;\rconst bit<8> B = ;\r").expect("write");
    let r = p4cost(&["parse", bad.to_str().expect("path")]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.contains("bad.p4:3:"), "{}", r.stdout);
}
