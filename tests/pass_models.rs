//! `p4cost predict --model nfp4000 | bmv2-coarse` (issue 27, items 2, 3
//! and 6): the pass models in predict's report shape (classes, their
//! passes as the per-pass breakdown, warnings), with the figures
//! `throughput` gives for the same classes. Expected figures are typed
//! from the papers (ANCS 2021, Fig. 3: 134 B with one recirculation is
//! loss-free up to 5.7 Gbit/s and settles at about 4.9, 275 B loses
//! nothing at 10 Gbit/s; the service-chaining paper's Fig. 9: 80-120 us
//! per pass, 1.4 Gbit/s at 1500 B) and counted by hand from the samples.

mod common;

use serde_json::Value;

const RECIRC: &str = "p4-samples/nfp/recirculate_once.p4";
const LATENCY_CONTROL: &str = "p4-samples/bmv2/latency_control.p4";

fn predict(file: &str, model: &str, size: &str) -> Value {
    common::json(&[
        "predict",
        file,
        "--model",
        model,
        "--packet-size",
        size,
        "--format",
        "json",
        "--no-config",
    ])
}

/// Every listed class of a predict report, by id.
fn classes(r: &Value) -> Vec<&Value> {
    r["paths"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["classes"]["classes"].as_array().unwrap())
        .collect()
}

fn class<'a>(r: &'a Value, id: &str) -> &'a Value {
    classes(r)
        .into_iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no class {id}: {r}"))
}

#[test]
fn nfp4000_through_predict_reproduces_the_papers_134_and_275_byte_cases() {
    let r = predict(RECIRC, "nfp4000", "134");
    assert_eq!(r["model"]["name"], "nfp4000");
    assert_eq!(r["figure"]["unit"], "bit/s");
    assert_eq!(r["figure"]["latency_modelled"], false);
    let ipv4 = &class(&r, "1.1")["recirc"];
    assert_eq!(ipv4["passes"], 2, "{ipv4}");
    assert!(ipv4["sites"][0].as_str().unwrap().contains("action again"));
    let t = &ipv4["throughput"];
    assert!((t["loss_free_bps"].as_f64().unwrap() - 5.7e9).abs() < 1.0);
    assert!((t["received_past_bps"].as_f64().unwrap() - 4.9e9).abs() < 1.0);
    assert_eq!(t["line_rate_lossless"], false);
    assert_eq!(class(&r, "2.1")["recirc"]["passes"], 1);
    // The path's worst class is its class of most passes.
    assert_eq!(r["paths"][0]["classes"]["slowest"]["recirc"]["passes"], 2);
    let codes: Vec<&str> = r["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w["code"].as_str())
        .collect();
    assert!(codes.contains(&"latency_not_modelled"), "{codes:?}");
    let r = predict(RECIRC, "nfp4000", "275");
    let t = &class(&r, "1.1")["recirc"]["throughput"];
    assert_eq!(t["line_rate_lossless"], true, "{t}");
    assert_eq!(t["received_past_bps"].as_f64(), Some(10e9));
}

#[test]
fn bmv2_coarse_through_predict_is_fig_9_with_register_ops() {
    let r = predict(LATENCY_CONTROL, "bmv2-coarse", "1500");
    assert_eq!(r["recirc"]["precision"], "coarse");
    assert_eq!(r["figure"]["field"], "latency_ns");
    let c = class(&r, "3.1");
    assert_eq!(c["latency_ns"].as_f64(), Some(120_000.0), "{c}");
    let k = &c["recirc"]["coarse"];
    assert_eq!(k["latency_us"]["min"].as_f64(), Some(80.0));
    assert!((k["throughput_bps"].as_f64().unwrap() - 1.4e9).abs() < 1.0);
    // By hand from the sample (tests/bmv2_coarse.rs): the UDP class of
    // the policy branch reads 6 and writes 4 registers.
    let ops = &class(&r, "1.1")["recirc"]["register_ops"];
    assert_eq!(
        (ops["reads"].as_u64(), ops["writes"].as_u64()),
        (Some(6), Some(4))
    );
    // Two passes: twice the range.
    let r = predict(RECIRC, "bmv2-coarse", "1500");
    let two = class(&r, "1.1");
    assert_eq!(two["latency_ns"].as_f64(), Some(240_000.0), "{two}");
    assert!(r["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w["code"] == "passes_not_measured"));
}

/// One computation: predict and throughput give each class the same
/// passes and figures.
#[test]
fn predict_and_throughput_agree_class_by_class() {
    for (file, model, size, figures) in [
        (RECIRC, "nfp4000", "134", "throughput"),
        (LATENCY_CONTROL, "bmv2-coarse", "700", "coarse"),
        (RECIRC, "bmv2-coarse", "256", "coarse"),
    ] {
        let p = predict(file, model, size);
        let t = common::json(&[
            "throughput",
            file,
            "--model",
            model,
            "--packet-size",
            size,
            "--format",
            "json",
        ]);
        let listed = t["pipelines"][0]["classes"].as_array().unwrap();
        assert_eq!(listed.len(), classes(&p).len(), "{file} {model}");
        for tc in listed {
            let id = tc["class"].as_str().unwrap();
            let pc = &class(&p, id)["recirc"];
            assert_eq!(pc["passes"], tc["passes"], "{file} {model} {id}");
            assert_eq!(pc["sites"], tc["sites"], "{file} {model} {id}");
            for (k, v) in pc[figures].as_object().unwrap() {
                assert_eq!(&tc[k], v, "{file} {model} {id} {k}");
            }
            if model == "bmv2-coarse" {
                assert_eq!(pc["register_ops"], tc["register_ops"], "{id}");
            }
        }
    }
}

#[test]
fn human_output_names_the_units() {
    let r = common::p4cost(&[
        "predict",
        RECIRC,
        "--model",
        "nfp4000",
        "--packet-size",
        "134",
        "--no-config",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r
        .stdout
        .contains("figure    loss-free throughput (bit/s, higher is better)"));
    assert!(
        r.stdout
            .contains("2 passes: loss-free up to 5.7 Gbit/s, received past it 4.9 Gbit/s"),
        "{}",
        r.stdout
    );
    let r = common::p4cost(&[
        "predict",
        LATENCY_CONTROL,
        "--model",
        "bmv2-coarse",
        "--packet-size",
        "1500",
        "--no-config",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("COARSE: one pass 80-120 us"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("1 pass: coarse latency 80-120 us, up to 1.400 Gbit/s (116.7 kpps)"),
        "{}",
        r.stdout
    );
}

#[test]
fn flags_of_other_models_are_refused() {
    let r = common::p4cost(&["predict", RECIRC, "--model", "nfp4000", "--cores", "2"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--cores"), "{}", r.stderr);
    let r = common::p4cost(&["predict", RECIRC, "--model", "nfp4000", "--top", "1"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--top"), "{}", r.stderr);
    let r = common::p4cost(&["predict", RECIRC, "--model", "nfp400"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("did you mean `nfp4000`"), "{}", r.stderr);
}

/// `p4cost models` lists every embedded model of every kind, grouped by
/// what it predicts, each with its units and paper.
#[test]
fn models_lists_every_kind_grouped() {
    let r = common::json(&["models", "--format", "json"]);
    let groups: Vec<(&str, Vec<&str>)> = r["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let names = g["members"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["name"].as_str().unwrap())
                .collect();
            (g["id"].as_str().unwrap(), names)
        })
        .collect();
    let ids: Vec<&str> = groups.iter().map(|(id, _)| *id).collect();
    assert_eq!(
        ids,
        [
            "latency",
            "cpu_cost",
            "recirculation",
            "coarse",
            "nc_devices"
        ]
    );
    assert!(groups[0].1.contains(&"tofino1-10g") && groups[0].1.contains(&"tofino1-mau-cycles"));
    assert_eq!(groups[1].1, ["t4p4s"]);
    assert_eq!(groups[2].1, ["nfp4000"]);
    assert_eq!(groups[3].1, ["bmv2-coarse"]);
    assert!(groups[4].1.contains(&"zodiac-fx") && groups[4].1.contains(&"netfpga-sume"));
    for g in r["groups"].as_array().unwrap() {
        for m in g["members"].as_array().unwrap() {
            for k in ["units", "predicts", "citation", "spec", "target"] {
                assert!(!m[k].as_str().unwrap_or("").is_empty(), "{k}: {m}");
            }
        }
    }
    let human = common::p4cost(&["models"]);
    assert!(
        human.stdout.contains("throughput under recirculation"),
        "{}",
        human.stdout
    );
    assert!(human.stdout.contains("units passes, us, kpps, Gbit/s"));
    assert!(human.stdout.contains("units cycles per packet, Mpps, us"));
}

/// `explain` shows a pass model's arithmetic: one term per pass and the
/// figures for that many passes, equal to predict's.
#[test]
fn explain_shows_each_pass_and_the_models_figures() {
    let e = common::json(&[
        "explain",
        RECIRC,
        "--model",
        "nfp4000",
        "--packet-size",
        "134",
        "--format",
        "json",
        "--no-config",
    ]);
    assert_eq!(e["class"], "1.1", "{e}");
    assert_eq!(e["model"]["file"], "models/nfp/nfp4000.json");
    let terms = e["terms"].as_array().unwrap();
    assert_eq!(terms.len(), 2, "{e}");
    assert!(terms[1]["item"].as_str().unwrap().contains("action again"));
    let fig = |name: &str| {
        e["passes"]["figures"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .and_then(|f| f["value"].as_f64())
            .unwrap_or_else(|| panic!("{name}: {e}"))
    };
    assert!((fig("loss-free throughput") - 5.7e9).abs() < 1.0);
    assert!((fig("received past it") - 4.9e9).abs() < 1.0);
    let e = common::json(&[
        "explain",
        RECIRC,
        "--model",
        "bmv2-coarse",
        "--packet-size",
        "1500",
        "--format",
        "json",
        "--no-config",
    ]);
    assert_eq!(e["passes"]["passes"], 2);
    assert_eq!(e["total_ns"].as_f64(), Some(240_000.0));
    assert_eq!(e["predicted_ns"], e["total_ns"]);
    let human = common::p4cost(&[
        "explain",
        RECIRC,
        "--model",
        "nfp4000",
        "--packet-size",
        "134",
        "--no-config",
    ]);
    assert_eq!(human.code, 0, "{}", human.stderr);
    assert!(
        human
            .stdout
            .contains("5.7 Gbit/s = min(10000000000 bit/s, 10.634 Mpps / 2 x 8 x 134 B)"),
        "{}",
        human.stdout
    );
}

/// `bound --model` needs a latency and a port's rate: a pass model names
/// no port, so it is refused with what to use instead.
#[test]
fn bound_refuses_a_pass_model() {
    let r = common::p4cost(&[
        "bound",
        RECIRC,
        "--model",
        "nfp4000",
        "--arrival",
        "1KB,1Gbps",
        "--no-config",
    ]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(r.stderr.contains("names no port"), "{}", r.stderr);
}

/// The pass models' warning codes are known codes (SARIF rules, `--allow`).
#[test]
fn the_pass_models_warnings_are_known_codes() {
    let known = p4cost_engine::warnings::KNOWN_CODES;
    for (model, size) in [("nfp4000", "134"), ("bmv2-coarse", "9000")] {
        let r = predict(RECIRC, model, size);
        let codes: Vec<&str> = r["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|w| w["code"].as_str())
            .collect();
        assert!(!codes.is_empty(), "{model}");
        for c in codes {
            assert!(known.contains(&c), "{model}: {c} is not in KNOWN_CODES");
        }
    }
    let r = common::p4cost(&[
        "predict",
        RECIRC,
        "--model",
        "bmv2-coarse",
        "--allow",
        "passes_not_measured",
        "--no-config",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stdout.contains("passes_not_measured"), "{}", r.stdout);
}

/// The extrapolation flag covers every class, listed or not: with the
/// recirculating path left out of the listing (`--path ethernet` lists the
/// one-pass path alone), a program whose other path takes three passes
/// (the paper measured two) still warns, from the most calls along any
/// way through the control; listing that path gives the class's exact
/// count. recirculate_once.p4 (two passes at most) stays silent either way.
#[test]
fn passes_past_the_measured_are_flagged_for_classes_not_listed() {
    let text = std::fs::read_to_string(common::root().join(RECIRC)).expect("sample");
    let once = "        recirculate_preserving_field_list(0);\n";
    assert!(text.contains(once), "the sample's recirculate call");
    let twice = text.replacen(once, &format!("{once}{once}"), 1);
    let dir = common::scratch("pass-models-unlisted");
    let file = dir.join("recirculate_twice.p4");
    std::fs::write(&file, twice).expect("write");
    let file = file.to_str().expect("utf-8 path");
    let flagged = |file: &str, extra: &[&str]| -> Vec<String> {
        let mut args = vec![
            "predict",
            file,
            "--model",
            "nfp4000",
            "--format",
            "json",
            "--no-config",
        ];
        args.extend(extra);
        let r = common::json(&args);
        r["warnings"]
            .as_array()
            .expect("warnings")
            .iter()
            .filter(|w| w["code"] == "passes_not_measured")
            .map(|w| w["message"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    let all = flagged(file, &[]);
    assert!(
        all.len() == 1 && all[0].contains("a class takes 3 passes"),
        "{all:?}"
    );
    let left_out = flagged(file, &["--path", "ethernet"]);
    assert!(
        left_out.len() == 1 && left_out[0].contains("may take up to 3 passes"),
        "{left_out:?}"
    );
    assert!(flagged(RECIRC, &[]).is_empty());
    assert!(flagged(RECIRC, &["--path", "ethernet"]).is_empty());
}

/// Without `--packet-size`, predict and throughput price a pass model at
/// the same size: the one its file says the paper measured (nfp4000's
/// recirculation sweep, bmv2-coarse's latency range), read here from the
/// model files.
#[test]
fn predict_and_throughput_default_to_the_models_measured_size() {
    let file = |p: &str| -> Value {
        let text = std::fs::read_to_string(common::root().join(p)).expect("model file");
        serde_json::from_str(&text).expect("json")
    };
    let nfp = file("models/nfp/nfp4000.json")["measured"]["packet_size_bytes"].clone();
    let coarse =
        file("models/bmv2/bmv2-coarse.json")["latency_per_pass_us"]["packet_size_bytes"].clone();
    for (model, want) in [("nfp4000", nfp), ("bmv2-coarse", coarse)] {
        assert!(want.is_u64(), "{model}: {want}");
        let p = common::json(&[
            "predict",
            RECIRC,
            "--model",
            model,
            "--format",
            "json",
            "--no-config",
        ]);
        assert_eq!(p["recirc"]["packet_size_bytes"], want, "predict {model}");
        let t = common::json(&["throughput", RECIRC, "--model", model, "--format", "json"]);
        assert_eq!(t["packet_size_bytes"], want, "throughput {model}");
    }
}
