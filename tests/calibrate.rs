//! Calibration end to end: `gen` writes a suite p4cost reads back; the
//! published Tofino model (Table 2 of the latency study, computed here
//! from the paper's equations, not by p4cost) plus seeded noise stands in
//! for measurements; `fit --kind lr` recovers Table 2 within 1 %;
//! `validate` scores the fit at 99 % or more and draws it.

mod common;
use common::{p4cost, scratch};
use p4cost_calibrate::noise::Noise;

/// Table 2: (a, b, c, d, exact k=8, exact k=16/32, LPM k=8, LPM k=16/32).
const TABLE2: [(u32, [f64; 8]); 2] = [
    (
        10,
        [0.237, 152.42, 0.221, 2.886, 0.492, 0.601, 0.692, 0.887],
    ),
    (
        100,
        [0.056, 143.441, 0.105, 1.431, 0.607, 0.685, 0.749, 0.896],
    ),
];

/// The paper's prediction for one manifest row: L_B + sum over counted
/// states (c * bytes + d) + per table the cost of its match and key class
/// (TCAM kinds use the LPM costs; one key of 16+ bits is the wide class).
fn table2(port: u32, size: f64, state_bytes: &str, tables: &str) -> f64 {
    let k = TABLE2.iter().find(|(p, _)| *p == port).unwrap().1;
    let mut l = k[0] * size + k[1];
    for b in state_bytes.split('+').filter(|s| !s.is_empty()) {
        l += k[2] * b.parse::<f64>().unwrap() + k[3];
    }
    for t in tables.split(';').filter(|s| !s.is_empty()) {
        let mut parts = t.split(':');
        let kind = parts.next().unwrap();
        let keys: Vec<&str> = parts.next().unwrap().split('+').collect();
        let wide = keys.len() == 1 && keys[0].parse::<u32>().unwrap() >= 16;
        let tcam = kind == "lpm" || kind == "ternary";
        l += k[4 + 2 * usize::from(tcam) + usize::from(wide)];
    }
    l
}

/// The columns of a manifest row a synthetic latency depends on.
struct ManifestRow<'a> {
    port: u32,
    size: f64,
    state_bytes: &'a str,
    tables: &'a str,
}

/// The suite's manifest with latency_ns (its last column) filled by
/// `latency`, rows it gives `None` left out; and the rows kept.
fn measured(
    suite: &std::path::Path,
    mut latency: impl FnMut(&ManifestRow) -> Option<f64>,
) -> (String, usize) {
    let manifest = std::fs::read_to_string(suite.join("manifest.csv")).unwrap();
    let mut lines = manifest.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header.last(), Some(&"latency_ns"));
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (port, size, sb, tb) = (
        col("port_gbps"),
        col("packet_size"),
        col("state_bytes"),
        col("tables"),
    );
    let mut data = format!("{}\n", header.join(","));
    let mut rows = 0;
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), header.len(), "{line}");
        let row = ManifestRow {
            port: f[port].parse().unwrap(),
            size: f[size].parse().unwrap(),
            state_bytes: f[sb],
            tables: f[tb],
        };
        if let Some(l) = latency(&row) {
            data.push_str(&format!("{},{l:.3}\n", f[..f.len() - 1].join(",")));
            rows += 1;
        }
    }
    (data, rows)
}

#[test]
fn gen_fit_validate_round_trip_recovers_table_2() {
    let dir = scratch("calibrate-round-trip");
    let suite = dir.join("suite");
    let r = p4cost(&["gen", "--out", suite.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("measurements to make"), "{}", r.stdout);

    // Fill latency_ns (the last column) from Table 2 plus noise.
    let mut noise = Noise::new(0x2545_f491_4f6c_dd1d);
    let (data, rows) = measured(&suite, |r| {
        Some(table2(r.port, r.size, r.state_bytes, r.tables) + noise.normal(0.1))
    });
    assert!(rows > 1000, "{rows} rows");
    let data_path = dir.join("data.csv");
    std::fs::write(&data_path, data).unwrap();
    let data_arg = data_path.to_str().unwrap();

    for (port, k) in TABLE2 {
        let model = dir.join(format!("my-{port}g.json"));
        let r = p4cost(&[
            "fit",
            data_arg,
            "--kind",
            "lr",
            "--port",
            &port.to_string(),
            "-o",
            model.to_str().unwrap(),
            "--target",
            "tofino1",
            "--format",
            "json",
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        let m = &doc["model"];
        let got = [
            m["base"]["per_packet_byte_ns"].as_f64().unwrap(),
            m["base"]["constant_ns"].as_f64().unwrap(),
            m["parser"]["per_header_byte_ns"].as_f64().unwrap(),
            m["parser"]["per_state_ns"].as_f64().unwrap(),
            m["control"]["exact"]["narrow_key_ns"].as_f64().unwrap(),
            m["control"]["exact"]["wide_key_ns"].as_f64().unwrap(),
            m["control"]["lpm"]["narrow_key_ns"].as_f64().unwrap(),
            m["control"]["lpm"]["wide_key_ns"].as_f64().unwrap(),
        ];
        for (i, (g, w)) in got.iter().zip(k).enumerate() {
            assert!(
                (g - w).abs() <= 0.01 * w,
                "{port}G coefficient {i}: fitted {g}, Table 2 {w}"
            );
        }
        assert_eq!(m["port_gbps"], port);
        assert_eq!(m["kind"], "tofino_ingress_linear");
        assert!(m["fit"]["r2"].as_f64().unwrap() > 0.999);
        assert_eq!(
            m["training"]["packet_size_bytes"],
            serde_json::json!([100, 1400])
        );
        assert_eq!(
            m["training"]["states_after_ethernet"],
            serde_json::json!([0, 10])
        );
        assert_eq!(
            m["training"]["match_kinds"],
            serde_json::json!(["exact", "lpm", "ternary"])
        );
    }

    // Each fitted model on its port, per port and overall, with a plot.
    let svg = dir.join("fit.svg");
    let m10 = dir.join("my-10g.json");
    let m100 = dir.join("my-100g.json");
    let r = p4cost(&[
        "validate",
        m10.to_str().unwrap(),
        m100.to_str().unwrap(),
        data_arg,
        "--format",
        "json",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = serde_json::from_str::<serde_json::Value>(&r.stdout).unwrap();
    assert_eq!(v["rows"], rows);
    assert!(
        v["accuracy_percent"].as_f64().unwrap() >= 99.0,
        "{}",
        v["accuracy_percent"]
    );
    assert!(v["mae_ns"].as_f64().unwrap() < 0.2);
    assert!(v["rmse_ns"].as_f64().unwrap() < 0.2);
    let ports = v["ports"].as_array().unwrap();
    assert_eq!(ports.len(), 2);
    for p in ports {
        assert!(p["accuracy_percent"].as_f64().unwrap() >= 99.0, "{p}");
    }
    assert_eq!(v["points"].as_array().unwrap().len(), rows);
    let drawn = std::fs::read_to_string(&svg).unwrap();
    assert!(drawn.starts_with("<svg"), "not SVG");
    assert!(drawn.contains("predicted vs measured"), "no title");
    assert!(
        drawn.matches("<circle").count() >= 2 * rows,
        "every row on both panels"
    );

    // The fitted model predicts programs like any other model.
    let r = p4cost(&[
        "predict",
        "p4-samples/tofino/tc1_enterprise.p4",
        "--path",
        "vlan,vlan,ipv6,udp",
        "--packet-size",
        "600",
        "--model-file",
        m10.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let p = serde_json::from_str::<serde_json::Value>(&r.stdout).unwrap();
    let got = p["paths"][0]["latency_ns"].as_f64().unwrap();
    // Table 2's own L_B + L_PD for TC1 at 10G (MODELS.md 1.1), plus the
    // three tables of its slowest class: the fit is within 1 ns of it.
    let published = table2(
        10,
        600.0,
        "4+4+40+8",
        "exact:48+12:;exact:128+128:;lpm:128+16:",
    );
    assert!(
        (got - published).abs() < 1.0,
        "fitted {got} vs Table 2 {published}"
    );

    // Without --port, one file holds a fit per port of the data.
    let both = dir.join("both.json");
    let r = p4cost(&["fit", data_arg, "-o", both.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("10G, 100G ports"), "{}", r.stdout);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&both).unwrap()).unwrap();
    assert_eq!(doc["ports"][0]["port_gbps"], 10);
    assert_eq!(doc["ports"][1]["port_gbps"], 100);
    // --port picks the port's fit: the same figure as the single-port file.
    let latency = |model: &std::path::Path, port: Option<&str>| {
        let mut args = vec![
            "predict",
            "p4-samples/tofino/tc1_enterprise.p4",
            "--path",
            "vlan,vlan,ipv6,udp",
            "--model-file",
            model.to_str().unwrap(),
            "--format",
            "json",
        ];
        if let Some(p) = port {
            args.extend(["--port", p]);
        }
        let r = p4cost(&args);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let p = serde_json::from_str::<serde_json::Value>(&r.stdout).unwrap();
        (
            p["paths"][0]["latency_ns"].as_f64().unwrap(),
            p["port_gbps"].clone(),
        )
    };
    for (port, single) in [("10g", &m10), ("100g", &m100)] {
        let (got, at) = latency(&both, Some(port));
        assert_eq!(got, latency(single, None).0, "{port}");
        assert_eq!(at, if port == "10g" { 10 } else { 100 });
    }
    assert_ne!(
        latency(&both, Some("10g")).0,
        latency(&both, Some("100g")).0
    );
    // Without --port: the first (slowest) port's fit.
    assert_eq!(latency(&both, None), latency(&both, Some("10g")));
    // validate reports the file's ports and all of them.
    let r = p4cost(&["validate", both.to_str().unwrap(), data_arg]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    for row in ["\n10G    both ", "\n100G   both ", "\nall   "] {
        assert!(r.stdout.contains(row), "{row}: {}", r.stdout);
    }
    assert!(
        r.stdout.contains(&format!("{rows} rows compared")),
        "{}",
        r.stdout
    );
}

#[test]
fn gen_writes_programs_p4cost_reads_and_entries_for_each_table() {
    let dir = scratch("calibrate-gen");
    for arch in ["tna", "v1model"] {
        let out = dir.join(arch);
        let r = p4cost(&[
            "gen",
            "--out",
            out.to_str().unwrap(),
            "--arch",
            arch,
            "--max-states",
            "2",
            "--max-tables",
            "2",
            "--max-keys",
            "2",
            "--key-bits",
            "8,32",
            "--entries",
            "1,300",
            "--ports",
            "25",
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let r = p4cost(&["parse", out.join("programs").to_str().unwrap()]);
        assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
        let manifest = std::fs::read_to_string(out.join("manifest.csv")).unwrap();
        let ext = if arch == "tna" {
            "bfrt.py"
        } else {
            "commands.txt"
        };
        for line in manifest.lines().skip(1) {
            let f: Vec<&str> = line.split(',').collect();
            assert!(out.join(f[0]).is_file(), "{}", f[0]);
            assert_eq!(f[2], "25");
            assert!(line.ends_with(','), "latency_ns starts empty: {line}");
            if !f[8].is_empty() {
                assert!(f[9].ends_with(ext), "{line}");
                assert!(out.join(f[9]).is_file(), "{}", f[9]);
            }
        }
        // The entries sweep installs what the manifest says: 300 entries.
        let e = std::fs::read_to_string(
            out.join("entries")
                .join(format!("entries_exact_e300.{ext}")),
        )
        .unwrap();
        if arch == "tna" {
            assert!(
                e.contains("for i in range(300):")
                    && e.contains("bfrt.entries_exact_e300.pipe.Ingress"),
                "{e}"
            );
        } else {
            assert_eq!(
                e.lines()
                    .filter(|l| l.starts_with("table_add Ingress.t0 "))
                    .count(),
                300
            );
        }
        assert!(
            manifest.contains("exact:32:300"),
            "entries in the tables column"
        );
        // A suite is never overwritten by accident.
        let r = p4cost(&["gen", "--out", out.to_str().unwrap(), "--arch", arch]);
        assert_eq!(r.code, 2);
        assert!(r.stderr.contains("manifest.csv: exists"), "{}", r.stderr);
    }
}

#[test]
fn fit_and_validate_refuse_bad_data_with_the_line() {
    let dir = scratch("calibrate-errors");
    let bad = dir.join("bad.csv");
    std::fs::write(
        &bad,
        "program,port_gbps,packet_size,state_bytes,tables,latency_ns\nx.p4,10,100,,,150\nx.p4,10,200,4+z,,160\n",
    )
    .unwrap();
    let bad_arg = bad.to_str().unwrap();
    let r = p4cost(&["fit", bad_arg, "-o", dir.join("m.json").to_str().unwrap()]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("bad.csv:3: state bytes `z`"),
        "{}",
        r.stderr
    );
    assert!(!dir.join("m.json").exists(), "nothing written on error");

    let r = p4cost(&["validate", "tofino1-mau-cycles", bad_arg]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("validate takes the models that price features"),
        "{}",
        r.stderr
    );

    let empty = dir.join("empty.csv");
    std::fs::write(
        &empty,
        "program,port_gbps,packet_size,state_bytes,tables,latency_ns\nx.p4,10,100,,,\n",
    )
    .unwrap();
    let r = p4cost(&[
        "fit",
        empty.to_str().unwrap(),
        "-o",
        dir.join("m.json").to_str().unwrap(),
    ]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("no measured row") && r.stderr.contains("1 rows to measure"),
        "{}",
        r.stderr
    );
    let r = p4cost(&["validate", "tofino1-10g", empty.to_str().unwrap()]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("no measured row at the models' ports"),
        "{}",
        r.stderr
    );
}

/// The non-linear kinds end to end: `gen`, measurements from Table 2 with
/// a regime change past 5 parse states (the 10G behaviour the paper saw)
/// and an entries cost, `fit --kind plp` and `--kind component`,
/// `validate`, and `predict --model-file` on a program of ours. The
/// component model must find the breakpoint and beat the linear fit on
/// this data (a step, which neither LR nor PLP's quadratic can follow);
/// both must validate >= 99 %.
#[test]
fn plp_and_component_fits_predict_and_validate() {
    let dir = scratch("calibrate-nonlinear");
    let suite = dir.join("suite");
    let r = p4cost(&["gen", "--out", suite.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let mut noise = Noise::new(77);
    let (data, _) = measured(&suite, |r| {
        if r.port != 10 {
            return None;
        }
        let mut l = table2(10, r.size, r.state_bytes, r.tables);
        if r.state_bytes.split('+').filter(|s| !s.is_empty()).count() > 5 {
            l += 6.0;
        }
        for t in r.tables.split(';').filter(|t| !t.is_empty()) {
            let entries: f64 = t.rsplit(':').next().unwrap().parse().unwrap();
            l += 0.05 * (entries / 100.0).ln();
        }
        Some(l + noise.normal(0.1))
    });
    let data_path = dir.join("data.csv");
    std::fs::write(&data_path, data).unwrap();
    let data_arg = data_path.to_str().unwrap();
    let sample = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/p4-samples/tofino/ctor_params.p4"
    );
    let mut rmse = Vec::new();
    for kind in ["lr", "plp", "component"] {
        let model = dir.join(format!("{kind}.json"));
        let model_arg = model.to_str().unwrap();
        let r = p4cost(&[
            "fit", data_arg, "--kind", kind, "-o", model_arg, "--format", "json",
        ]);
        assert_eq!(r.code, 0, "{kind}: {}", r.stderr);
        let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        let m = &doc["model"];
        assert_eq!(m["port_gbps"], 10);
        if kind == "component" {
            for s in m["component"]["states"].as_array().unwrap() {
                let pieces = s["curve"]["pieces"].as_array().unwrap();
                assert_eq!(pieces.len(), 2, "{s}");
                assert_eq!(pieces[0]["to"], 5.0, "{s}");
            }
        }
        let r = p4cost(&["validate", model_arg, data_arg, "--format", "json"]);
        assert_eq!(r.code, 0, "{kind}: {}", r.stderr);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        assert!(
            v["accuracy_percent"].as_f64().unwrap() >= 99.0,
            "{kind}: {v}"
        );
        rmse.push(v["rmse_ns"].as_f64().unwrap());
        // The engine evaluates the file: a prediction, its warnings.
        let r = p4cost(&[
            "predict",
            sample,
            "--model-file",
            model_arg,
            "--format",
            "json",
        ]);
        assert_eq!(r.code, 0, "{kind}: {}", r.stderr);
        let p: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        let rep = &p;
        let max = rep["summary"]["max"]["latency_ns"].as_f64().unwrap();
        let first = rep["paths"][0]["latency_ns"].as_f64().unwrap();
        assert!(
            max >= first - 1e-9 && (150.0..400.0).contains(&max),
            "{kind}: {max}"
        );
        assert!(
            rep["path_warnings"].is_array()
                && rep["warnings"]
                    .to_string()
                    .contains("key_width_out_of_range"),
            "{kind}: {rep}"
        );
    }
    assert!(rmse[2] < 0.8 * rmse[0], "lr, plp, component RMSE: {rmse:?}");
}

/// Item 5 of issue 24: a fit whose terms go below zero on its own rows is
/// refused (here every table makes the pipeline 1 ns faster than Table 2
/// says, so each table's cost comes out negative), written only with
/// --allow-negative, and predict then warns `fitted_model_extrapolates`
/// naming each table; a latency past the measured ones warns too.
#[test]
fn a_fit_with_terms_below_zero_is_refused_or_flagged() {
    let dir = scratch("calibrate-negative");
    let suite = dir.join("suite");
    let r = p4cost(&[
        "gen",
        "--out",
        suite.to_str().unwrap(),
        "--max-states",
        "3",
        "--max-tables",
        "3",
        "--max-keys",
        "1",
        "--key-bits",
        "8,32",
        "--entries",
        "1,100",
        "--ports",
        "10",
        "--packet-sizes",
        "100,700,1400",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let mut noise = Noise::new(5);
    // Each table and each parse state 1 ns faster than none.
    let (data, _) = measured(&suite, |r| {
        let tables = r.tables.split(';').filter(|t| !t.is_empty()).count() as f64;
        let states = r.state_bytes.split('+').filter(|s| !s.is_empty()).count() as f64;
        Some(table2(10, r.size, "", r.tables) - tables - states + noise.normal(0.05))
    });
    let data_path = dir.join("data.csv");
    std::fs::write(&data_path, data).unwrap();
    let data_arg = data_path.to_str().unwrap();
    let model = dir.join("neg.json");
    let model_arg = model.to_str().unwrap();

    let r = p4cost(&["fit", data_arg, "--kind", "lr", "-o", model_arg]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(
        r.stderr.contains("go below zero on its own training rows")
            && r.stderr.contains("table share (exact) -0.")
            && r.stderr.contains("--allow-negative"),
        "{}",
        r.stderr
    );
    assert!(!model.exists(), "nothing written when refused");

    let r = p4cost(&[
        "fit",
        data_arg,
        "--kind",
        "lr",
        "-o",
        model_arg,
        "--allow-negative",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("sign     -   table share (exact)"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("sign     +   base"), "{}", r.stdout);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    assert!(
        doc["notes"].to_string().contains("--allow-negative"),
        "{doc}"
    );
    let [lo, hi] = [0, 1].map(|i| doc["training"]["latency_ns"][i].as_f64().unwrap());
    assert!(150.0 < lo && lo < hi && hi < 600.0, "{lo} {hi}");

    // tc2 applies tables: each one's negative cost is named.
    let predict = |size: &str| {
        let r = p4cost(&[
            "predict",
            "p4-samples/tofino/tc2_datacenter.p4",
            "--model-file",
            model_arg,
            "--packet-size",
            size,
            "--format",
            "json",
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|w| w["code"] == "fitted_model_extrapolates")
            .map(|w| w["message"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let w = predict("512");
    assert!(
        w.iter()
            .any(|m| m.starts_with("table `") && m.contains(" adds -0.")),
        "{w:?}"
    );
    assert!(!w.iter().any(|m| m.contains("slowest")), "{w:?}");
    // Far past the largest packet measured: above the slowest latency.
    let w = predict("9000");
    assert!(
        w.iter().any(|m| m.contains("above the slowest measured")),
        "{w:?}"
    );

    // A component model (priced over all paths by the engine's automaton)
    // names a parse state whose share is below zero on some path.
    let comp = dir.join("comp.json");
    let r = p4cost(&[
        "fit",
        data_arg,
        "--kind",
        "component",
        "-o",
        comp.to_str().unwrap(),
        "--allow-negative",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let state_sign = r
        .stdout
        .lines()
        .find(|l| l.contains(" state share "))
        .unwrap();
    assert!(
        state_sign.starts_with("  sign     -   ") || state_sign.starts_with("  sign     +/- "),
        "{}",
        r.stdout
    );
    let r = p4cost(&[
        "predict",
        "p4-samples/tofino/tc2_datacenter.p4",
        "--model-file",
        comp.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("fitted_model_extrapolates: parse state `parse_")
            && r.stdout.contains(" on path "),
        "{}",
        r.stdout
    );
}
