//! End-to-end checks of the model rules on programs we wrote for them
//! (`tests/fixtures/programs/`): the baseline of resubmitted packets,
//! target mismatches, packet sizes, match kinds and key classes.

mod common;
use common::{json, p4cost};

fn codes(v: &serde_json::Value) -> Vec<String> {
    v["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .map(|w| w["code"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// A resubmitted packet carries its resubmit data where the first pass has
/// its port metadata; extracted into the metadata struct, it is baseline,
/// so both passes cost the same. By hand (tofino1-10g, 512 B):
/// L_B = 0.237 * 512 + 152.42 = 273.764; one exact table with one 32-bit
/// key (wide) 0.601; IPv4 0.221 * 20 + 2.886 = 7.306.
#[test]
fn resubmit_data_is_baseline_like_port_metadata() {
    let v = json(&[
        "predict",
        "tests/fixtures/programs/resubmit_parser.p4",
        "--format",
        "json",
    ]);
    let paths = v["paths"].as_array().expect("paths");
    assert_eq!(paths.len(), 4);
    for p in paths {
        let states = p["states"].as_array().expect("states");
        let resub = states.iter().any(|s| s["name"] == "parse_resubmit");
        let ipv4 = p["headers"].as_array().expect("headers").len() == 2;
        let want = if ipv4 { 281.671 } else { 274.365 };
        let got = p["latency_ns"].as_f64().expect("latency");
        assert!(
            (got - want).abs() < 1e-9,
            "resubmit={resub} ipv4={ipv4}: {got} vs {want}"
        );
        // The resubmit data is not a packet header, but it is what tells
        // the resubmit paths apart: listed as metadata.
        assert_eq!(p["headers"][0], "hdr.ethernet");
        let metadata = p["metadata"].as_array().expect("metadata");
        assert_eq!(metadata.len(), usize::from(resub), "{metadata:?}");
        for s in states {
            if s["name"] == "parse_resubmit" || s["name"] == "parse_ethernet" {
                assert_eq!(s["in_baseline"], true);
                assert_eq!(s["latency_ns"], 0.0);
            }
        }
    }
    assert!(!codes(&v).contains(&"target_mismatch".to_string()));
}

/// A Tofino 2, an eBPF and an XDP program under a Tofino 1 model: each
/// says it is not on its target, with its architecture named.
#[test]
fn programs_for_other_targets_are_warned() {
    for (file, arch) in [
        ("t2na_skeleton.p4", "t2na"),
        ("ebpf_filter.p4", "ebpf"),
        ("xdp_switch.p4", "xdp"),
    ] {
        let path = format!("tests/fixtures/programs/{file}");
        let v = json(&["predict", &path, "--format", "json"]);
        assert_eq!(v["arch"], arch, "{file}");
        let w = v["warnings"]
            .as_array()
            .expect("warnings")
            .iter()
            .find(|w| w["code"] == "target_mismatch")
            .unwrap_or_else(|| panic!("{file}: no target_mismatch"));
        let msg = w["message"].as_str().unwrap_or_default();
        assert!(
            msg.contains(&format!("written for {arch}")),
            "{file}: {msg}"
        );
    }
}

/// The human table says it too.
#[test]
fn t2na_mismatch_shows_in_the_table() {
    let r = p4cost(&["predict", "tests/fixtures/programs/t2na_skeleton.p4"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("target_mismatch: model tofino1-10g is for tofino1 but the program is written for t2na (Tofino 2)"), "{}", r.stdout);
}

/// bf-p4c's parser table `$PORT_METADATA` is the compiler's, not the
/// program's: it is neither listed nor charged, with a context.json as FILE
/// or as `--context`, and a warning names it.
#[test]
fn compiler_internal_tables_are_not_match_tables() {
    let ctx = "tests/fixtures/tofino/open-p4studio__tna_exact_match__context.json";
    let runs = [
        json(&[
            "predict",
            ctx,
            "--model",
            "tofino1-mau-cycles",
            "--format",
            "json",
        ]),
        json(&[
            "predict",
            "tests/fixtures/programs/resubmit_parser.p4",
            "--context",
            ctx,
            "--format",
            "json",
        ]),
    ];
    for v in &runs {
        let tables: Vec<&str> = v["control"]["tables"]
            .as_array()
            .expect("tables")
            .iter()
            .filter_map(|t| t.as_str())
            .collect();
        assert!(!tables.is_empty());
        assert!(tables.iter().all(|t| !t.contains('$')), "{tables:?}");
        assert!(!tables.contains(&"SwitchIngressParser.$PORT_METADATA"));
        for t in v["paths"][0]["breakdown"]["tables"]
            .as_array()
            .expect("breakdown tables")
        {
            assert!(!t["name"].as_str().unwrap_or_default().contains('$'));
        }
        let w = v["warnings"]
            .as_array()
            .expect("warnings")
            .iter()
            .find(|w| w["code"] == "compiler_tables_skipped")
            .expect("compiler_tables_skipped");
        assert!(w["message"]
            .as_str()
            .unwrap_or_default()
            .contains("SwitchIngressParser.$PORT_METADATA"));
    }
    // Nor does it head the classes' table lists (per path, the fastest and
    // slowest class): the warning is the one place that names it.
    assert_eq!(runs[1].to_string().matches("$PORT_METADATA").count(), 1);
    let human = common::p4cost(&[
        "predict",
        "tests/fixtures/programs/resubmit_parser.p4",
        "--context",
        ctx,
    ]);
    assert_eq!(human.code, 0, "{}", human.stderr);
    let naming: Vec<&str> = human
        .stdout
        .lines()
        .filter(|l| l.contains("$PORT_METADATA"))
        .collect();
    assert_eq!(naming.len(), 1, "{naming:?}");
    assert!(naming[0].contains("compiler_tables_skipped"), "{naming:?}");
    // The linear model charges the context's three ingress match tables
    // (forward, ipRoute, forward_timeout), not four.
    let linear = &runs[1];
    assert_eq!(
        linear["paths"][0]["breakdown"]["tables"]
            .as_array()
            .expect("tables")
            .len(),
        3
    );
}

/// A ternary ACL and a range table say their real match kind, the
/// coefficient class the model used (LPM: the only TCAM class measured) and
/// why; the 13-key ACL is "narrow" by the paper's rule, and says so. By
/// hand (tofino1-10g): LPM narrow 0.692, LPM wide 0.887.
#[test]
fn match_kind_and_coefficient_class_are_reported_apart() {
    let v = json(&[
        "predict",
        "tests/fixtures/programs/ternary_acl.p4",
        "--path",
        "ipv4",
        "--format",
        "json",
    ]);
    let tables = v["paths"][0]["breakdown"]["tables"]
        .as_array()
        .expect("tables");
    let acl = &tables[0];
    assert_eq!(acl["name"], "Ig.acl");
    assert_eq!(acl["match_kind"], "ternary");
    assert_eq!(acl["match_class"], "lpm");
    assert_eq!(acl["key_class"], "narrow");
    assert_eq!(acl["keys"], 13);
    assert_eq!(acl["key_bits"], 265);
    assert_eq!(acl["latency_ns"], 0.692);
    let why = acl["class_reason"].as_str().unwrap_or_default();
    assert!(why.contains("ternary keys were not measured"), "{why}");
    assert!(why.contains("13 keys"), "{why}");
    assert!(
        why.contains("2 or more keys in the narrow (k=8) class"),
        "{why}"
    );
    let range = &tables[1];
    assert_eq!(range["match_kind"], "range");
    assert_eq!(range["match_class"], "lpm");
    assert_eq!(range["key_class"], "wide");
    assert_eq!(range["latency_ns"], 0.887);

    let r = p4cost(&[
        "predict",
        "tests/fixtures/programs/ternary_acl.p4",
        "--path",
        "ipv4",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("Ig.acl                           ternary 13 keys, 265 bits  as lpm   narrow [1]  +0.692 ns"), "{}", r.stdout);
    assert!(
        r.stdout.contains("  [1] ternary keys were not measured"),
        "{}",
        r.stdout
    );
    // One line per untrained kind, not one per key.
    assert!(
        r.stdout
            .contains("table `Ig.acl` matches with ternary (trained"),
        "{}",
        r.stdout
    );
}

/// Sizes no packet has are refused (exit 2), sizes outside the training
/// range only warned about.
#[test]
fn impossible_packet_sizes_are_refused() {
    let prog = "p4-samples/tofino/tc2_datacenter.p4";
    for (size, says) in [
        ("0", "smaller than 64 B"),
        ("20", "smaller than 64 B"),
        ("63", "smaller than 64 B"),
        ("16385", "above 16384 B"),
        ("4294967295", "above 16384 B"),
    ] {
        let r = p4cost(&["predict", prog, "--packet-size", size]);
        assert_eq!(r.code, 2, "{size}: {}", r.stdout);
        assert!(r.stderr.contains(says), "{size}: {}", r.stderr);
        assert!(r.stdout.is_empty());
    }
    for size in ["64", "16384"] {
        let v = json(&["predict", prog, "--packet-size", size, "--format", "json"]);
        assert!(codes(&v).contains(&"packet_size_out_of_range".to_string()));
    }
    let v = json(&["predict", prog, "--packet-size", "100", "--format", "json"]);
    assert!(!codes(&v).contains(&"packet_size_out_of_range".to_string()));
}

/// A path whose packet headers (metadata not included) exceed the packet
/// cannot happen at that size: asked for with --path it is an error, in a
/// listing it is left out and named. TC2's longest path extracts
/// Ethernet 14 + VLAN 4 + IPv4 20 + UDP 8 + VXLAN 8 + inner Ethernet 14
/// = 68 B; without the VLAN tag 64 B.
#[test]
fn paths_longer_than_the_packet_are_not_predicted() {
    let prog = "p4-samples/tofino/tc2_datacenter.p4";
    let r = p4cost(&[
        "predict",
        prog,
        "--packet-size",
        "64",
        "--path",
        "ethernet,vlan,ipv4,udp,vxlan,inner_ethernet",
    ]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(
        r.stderr
            .contains("extracts 68 B of headers, more than the 64 B packet"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("--packet-size 68 or more"),
        "{}",
        r.stderr
    );
    // 64 B of headers fit a 64 B packet.
    json(&[
        "predict",
        prog,
        "--packet-size",
        "64",
        "--path",
        "ipv4,udp,vxlan,inner_ethernet",
        "--format",
        "json",
    ]);
    let v = json(&["predict", prog, "--packet-size", "64", "--format", "json"]);
    // The warning counts the impossible paths over the whole graph; none
    // of them is listed.
    let w = v["path_warnings"]
        .as_array()
        .expect("path_warnings")
        .iter()
        .find(|w| w["code"] == "packet_smaller_than_headers")
        .expect("packet_smaller_than_headers");
    let impossible: u64 = w["applies_to"]["text"]
        .as_str()
        .and_then(|t| t.parse().ok())
        .expect("applies_to count");
    assert!(impossible > 0);
    assert!(w["paths"].as_array().expect("listed").is_empty());
    let total: u64 = v["path_count"].as_u64().expect("path_count");
    assert_eq!(
        v["paths"].as_array().expect("paths").len() as u64,
        total - impossible
    );
    for p in v["paths"].as_array().expect("paths") {
        let i = p["index"]["text"].as_str().expect("index").to_string();
        let bytes: u64 = p["states"]
            .as_array()
            .expect("states")
            .iter()
            .flat_map(|s| {
                s["extracts"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|e| e.as_str().is_some_and(|e| e.starts_with("hdr.")))
                    .map(move |_| s["bytes"].as_u64().unwrap_or(0))
            })
            .sum();
        assert!(bytes <= 64, "path {i} listed with {bytes} B");
    }
}

/// Paths longer than the packet are out of every figure, not only the
/// listing (issue 24): at 64 B, tc2's 88-byte path used to be the summary's
/// maximum and `check --max-latency 190` an input error.
#[test]
fn paths_longer_than_the_packet_are_out_of_every_figure() {
    let prog = "p4-samples/tofino/tc2_datacenter.p4";
    let v = json(&[
        "predict",
        prog,
        "--packet-size",
        "64",
        "--format",
        "json",
        "--no-config",
    ]);
    let paths = v["paths"].as_array().expect("paths");
    // Every fitting path is listed (18 paths, 64 listed at most): the
    // summary's extremes are the listed paths' extremes.
    let left: u64 = v["left_out"]["paths"]["value"].as_u64().expect("left_out");
    assert_eq!(left, 6);
    assert_eq!(v["left_out"]["all"], false);
    assert_eq!(v["left_out"]["most"]["bytes"], 88);
    assert!(v["left_out"]["fewest"]["bytes"].as_u64().expect("fewest") > 64);
    assert_eq!(
        paths.len() as u64,
        v["path_count"].as_u64().expect("count") - left
    );
    let max = paths
        .iter()
        .map(|p| p["latency_ns"].as_f64().expect("ns"))
        .fold(f64::NEG_INFINITY, f64::max);
    let min = paths
        .iter()
        .map(|p| p["min_latency_ns"].as_f64().expect("ns"))
        .fold(f64::INFINITY, f64::min);
    assert_eq!(
        v["summary"]["max"]["latency_ns"].as_f64(),
        Some(max),
        "{}",
        v["summary"]
    );
    assert_eq!(v["summary"]["min"]["latency_ns"].as_f64(), Some(min));
    assert_eq!(
        v["summary"]["paths"]["value"].as_u64(),
        Some(paths.len() as u64)
    );
    assert_eq!(
        v["classes"]["count"]["value"].as_u64(),
        Some(paths.len() as u64)
    );
    // check judges the same figure: a finding or a pass, never exit 2.
    let over = format!("{}", max - 0.5);
    let r = p4cost(&[
        "check",
        prog,
        "--packet-size",
        "64",
        "--max-latency",
        &over,
        "--no-config",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let under = format!("{}", max + 0.5);
    let r = p4cost(&[
        "check",
        prog,
        "--packet-size",
        "64",
        "--max-latency",
        &under,
        "--no-config",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // explain explains that maximum.
    let e = json(&[
        "explain",
        prog,
        "--packet-size",
        "64",
        "--format",
        "json",
        "--no-config",
    ]);
    assert_eq!(e["predicted_ns"].as_f64(), Some(max));
}

/// A program none of whose paths fits in the packet: predict says so and
/// predicts nothing, check fails the budget as a finding (exit 1).
#[test]
fn no_path_fitting_is_a_finding() {
    let src =
        std::fs::read_to_string(common::root().join("p4-samples/tofino/classes/deep_listing.p4"))
            .expect("sample");
    // Ethernet (14 B) and a 60 B header on every path: 74 B at least.
    let long = src
        .replacen(
            "header ipv4_h {",
            "header big_h { bit<480> data; }\n\nheader ipv4_h {",
            1,
        )
        .replacen(
            "    ipv4_h     ipv4;\n}",
            "    ipv4_h     ipv4;\n    big_h      big;\n}",
            1,
        )
        .replacen(
            "pkt.extract(hdr.ethernet);\n",
            "pkt.extract(hdr.ethernet);\n        pkt.extract(hdr.big);\n",
            1,
        );
    assert_eq!(long.matches("big").count(), 4, "the sample changed");
    let dir = common::scratch("no-path-fits");
    let f = dir.join("long.p4");
    std::fs::write(&f, long).expect("write");
    let f = f.to_str().expect("path");
    let v = json(&[
        "predict",
        f,
        "--packet-size",
        "64",
        "--format",
        "json",
        "--no-config",
    ]);
    assert_eq!(v["left_out"]["all"], true);
    assert_eq!(v["left_out"]["fewest"]["bytes"], 74);
    assert!(v["paths"].as_array().expect("paths").is_empty());
    assert!(v["summary"]["max"].is_null());
    let human = p4cost(&["predict", f, "--packet-size", "64", "--no-config"]);
    assert_eq!(human.code, 0, "{}", human.stderr);
    assert!(
        human.stdout.contains("no parse path fits in a 64 B packet"),
        "{}",
        human.stdout
    );
    let r = p4cost(&[
        "check",
        f,
        "--packet-size",
        "64",
        "--max-latency",
        "300",
        "--format",
        "json",
        "--no-config",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let c: serde_json::Value = serde_json::from_str(&r.stdout).expect("JSON");
    assert_eq!(c["results"][0]["status"], "no_packet");
    assert!(c["results"][0]["note"]
        .as_str()
        .expect("note")
        .contains("74 B"));
    // At 74 B the shorter path fits again.
    let r = p4cost(&[
        "check",
        f,
        "--packet-size",
        "74",
        "--max-latency",
        "1000",
        "--no-config",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

/// Nothing p4cost ships or prints points outside the repository: no model
/// file and no output of `models` or `predict` mentions `shared/` or the
/// internal `MODELS.md`; the model files point at docs/models.md.
#[test]
fn nothing_points_outside_the_repository() {
    // models/ and its folders (models/nc/ devices, models/nfp/).
    let mut dirs = vec![common::root().join("models")];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).expect("models dir").flatten() {
            if e.path().is_dir() {
                dirs.push(e.path());
                continue;
            }
            let text = std::fs::read_to_string(e.path()).expect("model file");
            assert!(!text.contains("shared/"), "{:?}", e.path());
            assert!(!text.contains("MODELS.md"), "{:?}", e.path());
            assert!(
                text.contains("\"spec\": \"docs/models.md#"),
                "{:?}",
                e.path()
            );
        }
    }
    let runs = [
        p4cost(&["models"]),
        p4cost(&["models", "--format", "json"]),
        p4cost(&["predict", "p4-samples/tofino/tc2_datacenter.p4"]),
        p4cost(&[
            "predict",
            "p4-samples/tofino/tc2_datacenter.p4",
            "--format",
            "json",
        ]),
        p4cost(&[
            "predict",
            "tests/fixtures/tofino/open-p4studio__tna_exact_match__context.json",
            "--model",
            "tofino1-mau-cycles",
            "--format",
            "json",
        ]),
    ];
    for r in &runs {
        assert_eq!(r.code, 0, "{}", r.stderr);
        for text in [&r.stdout, &r.stderr] {
            assert!(!text.contains("shared/"), "{text}");
            assert!(!text.contains("MODELS.md"), "{text}");
        }
    }
    assert!(runs[0]
        .stdout
        .contains("docs/models.md#tofino-1-ingress-latency"));
}

fn strings(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|s| s.as_str().unwrap_or_default().to_string())
        .collect()
}

/// Canonical names from the source: the headers parameter (here called
/// `headers`) is shown as `hdr`, tables are named by the control instance
/// path as p4c names them in BMv2 JSON and context.json, and a global
/// `@name(".x")` is the whole name. Expectations written by hand from
/// p4c's naming rule.
#[test]
fn source_names_are_the_compilers_names() {
    let v = json(&[
        "predict",
        "tests/fixtures/programs/names_v1model.p4",
        "--format",
        "json",
    ]);
    assert_eq!(
        strings(&v["control"]["tables"]),
        ["port_map", "MyIngress.route", "MyIngress.acl_stage.acl"]
    );
    let headers: Vec<Vec<String>> = v["paths"]
        .as_array()
        .expect("paths")
        .iter()
        .map(|p| strings(&p["headers"]))
        .collect();
    assert_eq!(
        headers,
        [vec!["hdr.ethernet", "hdr.ipv4"], vec!["hdr.ethernet"]]
    );
}

/// The same names from p4c's BMv2 JSON: fabric_20190420 (compiled from
/// p4c's testdata/p4_16_samples/fabric_20190420/fabric.p4, whose parser's
/// headers parameter is `hdr` and whose SPGW tables sit in the control
/// instance `spgw_ingress` of `FabricIngress`). Expectations by hand from
/// that source. The JSON also says p4c merged extracting states.
#[test]
fn bmv2_names_are_the_sources_names() {
    let v = json(&[
        "predict",
        "tests/fixtures/bmv2/fabric_20190420-fabric.json",
        "--format",
        "json",
        "--path",
        "packet_out,ethernet,vlan_tag,ipv4,tcp",
    ]);
    assert_eq!(
        strings(&v["paths"][0]["headers"]),
        [
            "hdr.packet_out",
            "hdr.ethernet",
            "hdr.vlan_tag",
            "hdr.ipv4",
            "hdr.tcp"
        ]
    );
    let tables = strings(&v["control"]["tables"]);
    for t in [
        "FabricIngress.spgw_ingress.s1u_filter_table",
        "FabricIngress.spgw_ingress.dl_sess_lookup",
        "FabricIngress.filtering.ingress_port_vlan",
        "FabricIngress.forwarding.bridging",
    ] {
        assert!(tables.iter().any(|x| x == t), "{t} not in {tables:?}");
    }
    let note = v["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .filter(|w| w["code"] == "reader_note")
        .filter_map(|w| w["message"].as_str())
        .find(|m| m.contains("p4c may merge extracting parser states"))
        .expect("merged-state note");
    assert!(note.contains("do_parse_gtpu"), "{note}");
}
