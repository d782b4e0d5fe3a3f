//! The JSON Schemas under `schema/` (issue 10): each is what `p4cost
//! schema COMMAND` generates from the serialized Rust types, and real
//! outputs of every command validate against the committed file.
//!
//! After a change to a report's shape, regenerate them with
//! `for c in predict check diff stages resources deps models explain validate fit bound throughput; do cargo run -q -- schema $c > schema/$c.schema.json; done`
//! and bump `SCHEMA_VERSION`.

mod common;

use serde_json::Value;

const COMMANDS: [&str; 12] = [
    "predict",
    "check",
    "diff",
    "stages",
    "deps",
    "models",
    "explain",
    "resources",
    "validate",
    "fit",
    "bound",
    "throughput",
];

fn committed(command: &str) -> String {
    let p = common::root().join(format!("schema/{command}.schema.json"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn committed_schemas_are_what_the_types_generate() {
    for c in COMMANDS {
        let r = common::p4cost(&["schema", c]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(
            r.stdout == committed(c),
            "schema/{c}.schema.json is stale: regenerate it (see tests/schema.rs)"
        );
    }
}

/// Validates the JSON output of `args` (exit `code`) against the committed
/// schema of `command`.
fn valid(command: &str, args: &[&str], code: i32) -> Value {
    let schema: Value = serde_json::from_str(&committed(command)).expect("schema is JSON");
    let r = common::p4cost(args);
    assert_eq!(r.code, code, "p4cost {args:?}: {}", r.stderr);
    let out: Value = serde_json::from_str(&r.stdout).expect("JSON output");
    common::assert_valid(&schema, &out, &format!("p4cost {args:?}"));
    out
}

#[test]
fn real_outputs_validate_against_the_committed_schemas() {
    let tc2 = "p4-samples/tofino/tc2_datacenter.p4";
    let fabric_ctx = "tests/fixtures/tofino/fabric-tna__fabric__sde9.2.0__context.json";
    let one = valid("predict", &["predict", tc2, "--format", "json"], 0);
    let res = valid("resources", &["resources", tc2, "--format", "json"], 0);
    assert!(res["units"].as_array().is_some_and(|u| !u.is_empty()));
    assert!(one.get("paths").is_some());
    valid(
        "predict",
        &[
            "predict",
            "tests/fixtures/bmv2/onos__fabric.json",
            "--top",
            "3",
            "--format",
            "json",
        ],
        0,
    );
    valid(
        "predict",
        &[
            "predict",
            fabric_ctx,
            "--model",
            "tofino1-mau-cycles",
            "--format",
            "json",
        ],
        0,
    );
    let multi = valid(
        "predict",
        &[
            "predict",
            "p4-samples/tofino/multi_pipe/two_pipes.p4",
            "--format",
            "json",
        ],
        0,
    );
    assert!(multi.get("pipelines").is_some(), "a multi-pipeline report");
    valid(
        "check",
        &[
            "check",
            "--config",
            "p4-samples/project/p4cost.toml",
            "--format",
            "json",
        ],
        0,
    );
    valid(
        "check",
        &[
            "check",
            tc2,
            "--max-latency",
            "300",
            "--format",
            "json",
            "--no-config",
        ],
        1,
    );
    valid(
        "diff",
        &[
            "diff",
            tc2,
            "p4-samples/tofino/tc3_edge_mpls.p4",
            "--format",
            "json",
            "--no-config",
        ],
        0,
    );
    valid("stages", &["stages", fabric_ctx, "--format", "json"], 0);
    valid("stages", &["stages", tc2, "--format", "json"], 0);
    valid("deps", &["deps", tc2, "--format", "json"], 0);
    valid("models", &["models", "--format", "json"], 0);
    for model in ["nfp4000", "bmv2-coarse"] {
        let r = valid(
            "predict",
            &[
                "predict",
                "p4-samples/bmv2/latency_control.p4",
                "--model",
                model,
                "--format",
                "json",
                "--no-config",
            ],
            0,
        );
        assert!(r["recirc"].is_object(), "{model}");
    }
    valid(
        "explain",
        &["explain", tc2, "--format", "json", "--no-config"],
        0,
    );
    valid(
        "predict",
        &[
            "predict",
            "p4-samples/tofino/classes",
            "--format",
            "json",
            "--no-config",
        ],
        0,
    );
    valid(
        "explain",
        &[
            "explain",
            fabric_ctx,
            "--model",
            "tofino1-mau-cycles",
            "--format",
            "json",
            "--no-config",
        ],
        0,
    );
}

/// `fit` and `validate` on a small measurement file.
#[test]
fn bound_outputs_match_their_schema() {
    let sample = "p4-samples/nc/five_tuple_set_tp_src.p4";
    let arrival = [
        "--arrival",
        "640B,10Mbps",
        "--format",
        "json",
        "--no-config",
    ];
    let device = [
        &["bound", sample, "--device", "zodiac-fx"][..],
        &arrival[..],
    ]
    .concat();
    let out = valid("bound", &device, 0);
    assert!(out["delay_bound_ns"].is_f64(), "{out}");
    let model = [
        &["bound", sample, "--model", "tofino1-100g"][..],
        &arrival[..],
    ]
    .concat();
    valid("bound", &model, 0);
    let nfp = [
        "throughput",
        "p4-samples/nfp/recirculate_once.p4",
        "--format",
        "json",
    ];
    valid("throughput", &nfp, 0);
    let bmv2 = [
        "throughput",
        "p4-samples/bmv2/latency_control.p4",
        "--model",
        "bmv2-coarse",
        "--packet-size",
        "9000",
        "--format",
        "json",
    ];
    let out = valid("throughput", &bmv2, 0);
    assert_eq!(out["precision"], "coarse", "{out}");
}

#[test]
fn calibration_outputs_match_their_schemas() {
    let dir = common::scratch("schema-calibrate");
    let data = dir.join("d.csv");
    let mut csv = String::from("program,port_gbps,packet_size,state_bytes,tables,latency_ns\n");
    let states = ["", "4", "4+20", "20+20+8", "8"];
    let tables = [
        "",
        "exact:8:1",
        "lpm:32:1",
        "exact:32:1",
        "ternary:8+8:1;exact:8:1",
    ];
    for (i, p) in [100, 400, 900, 1400].iter().enumerate() {
        for sb in states {
            for t in tables {
                let n = sb.split('+').filter(|x| !x.is_empty()).count() as f64;
                let bytes: f64 = sb.split('+').filter_map(|x| x.parse::<f64>().ok()).sum();
                let tables = t.split(';').filter(|x| !x.is_empty()).count() as f64;
                let wobble = (i % 2) as f64 * 0.2;
                let l =
                    0.05 * f64::from(*p) + 140.0 + 1.5 * n + 0.1 * bytes + 0.7 * tables + wobble;
                csv.push_str(&format!("p.p4,100,{p},{sb},{t},{l}\n"));
            }
        }
    }
    std::fs::write(&data, csv).unwrap();
    let (d, m) = (data.to_str().unwrap(), dir.join("m.json"));
    let m = m.to_str().unwrap();
    valid("fit", &["fit", d, "-o", m, "--format", "json"], 0);
    valid("validate", &["validate", m, d, "--format", "json"], 0);
    valid(
        "validate",
        &["validate", "tofino1-100g", d, "--format", "json"],
        0,
    );
}

/// `stages` and `predict --model tofino1-mau-cycles` describe the same
/// thing with the same shape (a new user's report, issue 10 item 12).
#[test]
fn stages_and_predict_share_the_mau_shape() {
    let ctx = "tests/fixtures/tofino/open-p4studio__tna_exact_match__context.json";
    let s = common::json(&["stages", ctx, "--format", "json"]);
    let p = common::json(&[
        "predict",
        ctx,
        "--model",
        "tofino1-mau-cycles",
        "--format",
        "json",
    ]);
    assert_eq!(s["model"], p["model"]);
    for g in ["ingress", "egress"] {
        for k in ["gress", "cycles", "corner_turn_cycles", "ns"] {
            assert_eq!(s["mau"][g][k], p["mau"][g][k], "{g}.{k}");
        }
        let (ss, ps) = (&s["mau"][g]["stages"], &p["mau"][g]["stages"]);
        assert_eq!(ss.as_array().map(Vec::len), ps.as_array().map(Vec::len));
        for (a, b) in ss.as_array().unwrap().iter().zip(ps.as_array().unwrap()) {
            for k in [
                "stage",
                "tables",
                "match_dependent",
                "clock_cycles",
                "cycles",
                "ns",
            ] {
                assert_eq!(a[k], b[k], "{g} stage {}: {k}", a["stage"]);
            }
        }
    }
    assert_eq!(s["p4cost_version"], p["p4cost_version"]);
}
