//! `--model-file`: a model of the user's (the embedded models' format)
//! used by every command that takes `--model`, checked as the embedded
//! ones are.

mod common;

use common::{json, p4cost, root, scratch};

const TC2: &str = "p4-samples/tofino/tc2_datacenter.p4";

/// The 10G model renamed, with a per-state cost of 5 ns.
fn my_model(dir: &std::path::Path) -> String {
    let mut m: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("models/tofino1-10g.json")).expect("model"),
    )
    .expect("JSON");
    m["name"] = "my-switch-10g".into();
    m["parser"]["per_state_ns"] = 5.0.into();
    let f = dir.join("my-switch.json");
    std::fs::write(&f, m.to_string()).expect("write");
    f.display().to_string()
}

#[test]
fn a_model_file_is_used_like_an_embedded_model() {
    let dir = scratch("model-file");
    let f = my_model(&dir);
    let args = ["--path", "ethernet,ipv4", "--format", "json", "--no-config"];
    let mine = json(&[&["predict", TC2, "--model-file", &f], &args[..]].concat());
    let theirs = json(&[&["predict", TC2], &args[..]].concat());
    assert_eq!(mine["model"]["name"], "my-switch-10g");
    let ns = |v: &serde_json::Value| {
        v["paths"][0]["states"]
            .as_array()
            .expect("states")
            .iter()
            .find(|s| s["name"] == "parse_ipv4")
            .expect("parse_ipv4")["latency_ns"]
            .as_f64()
            .expect("ns")
    };
    // 0.221 ns/B x 20 B + 5 ns, against + 2.886 ns.
    assert!((ns(&mine) - 9.42).abs() < 1e-9, "{}", ns(&mine));
    assert!((ns(&theirs) - 7.306).abs() < 1e-9, "{}", ns(&theirs));
    // explain names the file; check and diff take it too.
    let e = json(&[
        "explain",
        TC2,
        "--model-file",
        &f,
        "--format",
        "json",
        "--no-config",
    ]);
    assert_eq!(e["model"]["file"], f.as_str());
    assert_eq!(e["model"]["embedded"], false);
    let r = p4cost(&["explain", TC2, "--model-file", &f, "--no-config"]);
    assert!(
        r.stdout.contains(&format!("file    {f} (--model-file)")),
        "{}",
        r.stdout
    );
    let r = p4cost(&[
        "check",
        TC2,
        "--model-file",
        &f,
        "--max-latency",
        "300",
        "--no-config",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stdout.contains("315.118 ns, over the 300.000 ns budget"),
        "{}",
        r.stdout
    );
    let r = p4cost(&[
        "diff",
        TC2,
        "p4-samples/tofino/tc3_edge_mpls.p4",
        "--model-file",
        &f,
        "--no-config",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("my-switch-10g"), "{}", r.stdout);
}

#[test]
fn a_bad_model_file_is_an_error_naming_it() {
    let dir = scratch("model-file-bad");
    let bad = dir.join("bad.json");
    std::fs::write(&bad, r#"{"schema": 1, "name": 3}"#).expect("write");
    let b = bad.display().to_string();
    let r = p4cost(&["predict", TC2, "--model-file", &b, "--no-config"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains(&format!("--model-file: model file `{b}`")),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("line 1 column"), "{}", r.stderr);
    let r = p4cost(&[
        "predict",
        TC2,
        "--model-file",
        "/no/such.json",
        "--no-config",
    ]);
    assert_eq!(r.code, 2);
    let r = p4cost(&[
        "predict",
        TC2,
        "--model-file",
        &b,
        "--model",
        "tofino1-10g",
        "--no-config",
    ]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("cannot be used with"), "{}", r.stderr);
    // Its port is checked against --port as an embedded model's is.
    let f = my_model(&dir);
    let r = p4cost(&[
        "predict",
        TC2,
        "--model-file",
        &f,
        "--port",
        "100g",
        "--no-config",
    ]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("contradicts --model my-switch-10g"),
        "{}",
        r.stderr
    );
}

/// `stages --model-file`: a placement model of the user's (here the
/// embedded Tofino 1 estimate with 8 stages) drives the estimate; a model
/// of another kind is refused by name.
#[test]
fn stages_takes_a_placement_model_file() {
    let dir = scratch("model-file-stages");
    let mut m: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("models/tofino1-mau-estimate.json")).expect("model"),
    )
    .expect("JSON");
    m["name"] = "my-8-stage-chip".into();
    m["mau_cycles"]["stages"] = 8.into();
    let f = dir.join("chip.json");
    std::fs::write(&f, m.to_string()).expect("write");
    let f = f.display().to_string();
    let out = json(&["stages", TC2, "--model-file", &f, "--format", "json"]);
    assert_eq!(out["model"]["name"], "my-8-stage-chip", "{out}");
    let lin = my_model(&dir);
    let r = p4cost(&["stages", TC2, "--model-file", &lin]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("my-switch-10g does not estimate a placement"),
        "{}",
        r.stderr
    );
    let r = p4cost(&[
        "stages",
        TC2,
        "--model-file",
        &f,
        "--model",
        "tofino1-mau-estimate",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

/// A parse state whose term comes out below zero (per-state cost -10 ns)
/// and a base below zero are `fitted_model_extrapolates` warnings naming
/// them, at the state's declaration.
#[test]
fn terms_below_zero_are_warnings_naming_the_term() {
    let dir = scratch("model-file-negative");
    let mut m: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("models/tofino1-10g.json")).expect("model"),
    )
    .expect("JSON");
    m["parser"]["per_state_ns"] = (-10.0).into();
    m["base"]["constant_ns"] = (-500.0).into();
    // Only a model `fit` made may have terms below zero.
    m["fit"] = fit_section();
    let f = dir.join("neg.json");
    std::fs::write(&f, m.to_string()).expect("write");
    let v = json(&[
        "predict",
        TC2,
        "--model-file",
        f.to_str().expect("path"),
        "--format",
        "json",
        "--no-config",
    ]);
    let w: Vec<&serde_json::Value> = v["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .filter(|w| w["code"] == "fitted_model_extrapolates")
        .collect();
    let ipv4 = w
        .iter()
        .find(|w| {
            w["message"]
                .as_str()
                .expect("text")
                .starts_with("parse state `parse_ipv4` adds -")
        })
        .unwrap_or_else(|| panic!("{w:?}"));
    assert!(ipv4["span"]["file"]
        .as_str()
        .expect("file")
        .ends_with("tc2_datacenter.p4"));
    assert!(
        w.iter().any(|w| w["message"]
            .as_str()
            .expect("text")
            .starts_with("the base term is -")),
        "{w:?}"
    );
    // The published model has no term below zero.
    let v = json(&["predict", TC2, "--format", "json", "--no-config"]);
    assert!(!v["warnings"]
        .to_string()
        .contains("fitted_model_extrapolates"));
}

/// A `fit` section, as `p4cost fit` writes it.
fn fit_section() -> serde_json::Value {
    serde_json::json!({"method": "lr", "data": "d.csv", "rows": 3, "r2": 1.0,
        "rmse_ns": 0.0, "mae_ns": 0.0, "max_abs_residual_ns": 0.0,
        "smape_percent": 0.0, "accuracy_percent": 100.0})
}

/// The 10G model with one value replaced (`at`: JSON pointer), written to
/// `dir`.
fn edited(dir: &std::path::Path, file: &str, at: &str, v: serde_json::Value) -> String {
    let mut m: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("models/tofino1-10g.json")).expect("model"),
    )
    .expect("JSON");
    *m.pointer_mut(at).expect("field") = v;
    let f = dir.join(file);
    std::fs::write(&f, m.to_string()).expect("write");
    f.display().to_string()
}

#[test]
fn a_model_value_out_of_bounds_is_refused_with_its_json_path() {
    let dir = scratch("model-file-values");
    let cases = [
        ("/base/constant_ns", 1e308.into(), "$.base.constant_ns: "),
        (
            "/base/constant_ns",
            (-1000.0).into(),
            "$.base.constant_ns: -1000 ns is below zero",
        ),
        (
            "/control/lpm/wide_key_ns",
            5e6.into(),
            "$.control.lpm.wide_key_ns: 5000000 ns is out of range",
        ),
        ("/port_gbps", 0.into(), "$.port_gbps: 0 is not a port speed"),
        (
            "/name",
            "x\u{1b}[2Jy".into(),
            "$.name: holds the control character '\\u{1b}'",
        ),
        (
            "/title",
            "a\u{7}".into(),
            "$.title: holds the control character",
        ),
    ];
    for (i, (at, v, want)) in cases.into_iter().enumerate() {
        let f = edited(&dir, &format!("m{i}.json"), at, v);
        for cmd in [&["predict"][..], &["check", "--max-latency", "1000"]] {
            let r = p4cost(
                &[
                    cmd,
                    &[TC2, "--model-file", &f, "--no-config", "--color", "never"],
                ][..]
                    .concat(),
            );
            assert_eq!(r.code, 2, "{at} {cmd:?}: {}{}", r.stdout, r.stderr);
            assert!(r.stderr.contains(want), "{at} {cmd:?}: {}", r.stderr);
            assert!(!r.stderr.contains('\u{1b}') && !r.stdout.contains('\u{1b}'));
        }
    }
    // A model `fit` made may carry a coefficient below zero (predict warns).
    let f = edited(&dir, "fitted.json", "/parser/per_state_ns", (-1.0).into());
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&f).expect("read")).expect("JSON");
    m["fit"] = fit_section();
    std::fs::write(&f, m.to_string()).expect("write");
    let r = p4cost(&["predict", TC2, "--model-file", &f, "--no-config"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}
