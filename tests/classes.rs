//! Packet classes in `p4cost predict` (issue 9): counted over all parse
//! paths x control paths, each class charged only the tables its control
//! path applies. Expectations derived by hand from the sample programs.

mod common;
use common::json;

const TC2: &str = "p4-samples/tofino/tc2_datacenter.p4";

#[test]
fn classes_are_decided_by_validity_and_pay_only_their_tables() {
    // TC2's ingress applies vxlan_tunnel_steer only under
    // `hdr.ipv4.isValid() && hdr.udp.isValid()`: validity decides the
    // condition on every parse path, so each of the 18 paths is one class.
    let v = json(&["predict", TC2, "--format", "json", "--max-paths", "100"]);
    assert_eq!(v["schema_version"], 15);
    let c = &v["classes"];
    assert_eq!(c["count"]["text"], "18");
    assert_eq!(
        c["tested_headers"],
        serde_json::json!(["hdr.ipv4", "hdr.udp"])
    );
    let table_ns = v["paths"][0]["breakdown"]["tables"][0]["latency_ns"]
        .as_f64()
        .expect("table term");
    // Each path has one class, which pays the table only when the path has
    // IPv4 and UDP: the path's min and max are that class.
    let close = |a: f64, b: f64| (a - b).abs() < 1e-6;
    let mut best: Option<f64> = None;
    let mut worst: Option<f64> = None;
    for p in v["paths"].as_array().expect("paths") {
        let headers: Vec<&str> = p["headers"]
            .as_array()
            .expect("headers")
            .iter()
            .filter_map(|h| h.as_str())
            .collect();
        let applies = headers.contains(&"hdr.ipv4") && headers.contains(&"hdr.udp");
        let b = &p["breakdown"];
        let parse = b["base_ns"].as_f64().expect("base") + b["parser_ns"].as_f64().expect("parser");
        let l = parse + if applies { table_ns } else { 0.0 };
        assert!(
            close(p["latency_ns"].as_f64().expect("latency"), l),
            "{headers:?}"
        );
        assert!(
            close(p["min_latency_ns"].as_f64().expect("min"), l),
            "{headers:?}"
        );
        best = Some(best.map_or(l, |b: f64| b.min(l)));
        worst = Some(worst.map_or(l, |w: f64| w.max(l)));
    }
    // The summary ranges over classes.
    let sum = &v["summary"];
    assert_eq!(sum["over"], "class");
    assert_eq!(sum["classes"]["text"], "18");
    assert!(close(
        sum["min"]["latency_ns"].as_f64().expect("min"),
        best.expect("paths")
    ));
    assert!(close(
        sum["max"]["latency_ns"].as_f64().expect("max"),
        worst.expect("paths")
    ));
    // The slowest class's tables are exactly those it applies.
    let max_headers = sum["max"]["headers"].to_string();
    let max_tables = sum["max"]["tables"].as_array().expect("tables").len();
    assert_eq!(
        max_tables,
        usize::from(max_headers.contains("hdr.ipv4") && max_headers.contains("hdr.udp"))
    );
}

/// `--path` lists that path's classes: dep_kinds' only parse path meets a
/// validity test made undecidable by `tag` (its action may set hdr.vlan
/// valid) and acl's hit/miss: 2 x 2 = 4 classes, each with its tables and
/// why the others are skipped.
#[test]
fn the_selected_path_lists_its_classes_with_skip_reasons() {
    let v = json(&[
        "predict",
        "p4-samples/tofino/deps/dep_kinds.p4",
        "--path",
        "ethernet",
        "--format",
        "json",
    ]);
    let pc = &v["paths"][0]["classes"];
    assert_eq!(pc["total"]["text"], "4");
    assert_eq!(pc["truncated"], false);
    let classes = pc["classes"].as_array().expect("classes");
    assert_eq!(classes.len(), 4);
    let reasons: Vec<String> = classes.iter().flat_map(|c| skip_reasons(&v, c)).collect();
    assert!(
        reasons.contains(&"Ig.fallback: on hit of Ig.acl".to_string()),
        "{reasons:?}"
    );
    assert!(
        reasons.contains(&"Ig.vlan_fwd: branch not taken: hdr.vlan.isValid()".to_string()),
        "{reasons:?}"
    );
    // A class pays the path's parse terms plus the tables it applies; the
    // path's max and min are its slowest and fastest class.
    let b = &v["paths"][0]["breakdown"];
    let parse_ns = b["base_ns"].as_f64().expect("base") + b["parser_ns"].as_f64().expect("parser");
    let table_ns = |name: &str| {
        v["paths"][0]["breakdown"]["tables"]
            .as_array()
            .and_then(|a| a.iter().find(|t| t["name"] == name))
            .and_then(|t| t["latency_ns"].as_f64())
            .expect("table term")
    };
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for c in classes {
        let applied: f64 = applied(&v, c)
            .into_iter()
            .map(|t| table_ns(t["name"].as_str().unwrap_or("")))
            .sum();
        let l = c["latency_ns"].as_f64().expect("latency");
        assert!(
            (l - (parse_ns + applied)).abs() < 1e-9,
            "{l} vs {parse_ns} + {applied}"
        );
        lo = lo.min(l);
        hi = hi.max(l);
    }
    let p = &v["paths"][0];
    assert!((p["latency_ns"].as_f64().expect("max") - hi).abs() < 1e-9);
    assert!((p["min_latency_ns"].as_f64().expect("min") - lo).abs() < 1e-9);
}

/// Thirty optional headers, each tested by the control: 2^30 validity
/// combinations. The class analysis stops at its budget with a warning
/// naming it; the rest of the report stands (this input once took 210 MB).
#[test]
fn too_many_validity_combinations_end_in_a_warning() {
    let n = 30;
    let mut src = String::from("#include <core.p4>\n#include <tna.p4>\nheader e_h { bit<8> k; }\n");
    for i in 0..n {
        src.push_str(&format!("header h{i}_h {{ bit<8> k; }}\n"));
    }
    src.push_str("struct header_t { e_h e; ");
    for i in 0..n {
        src.push_str(&format!("h{i}_h h{i}; "));
    }
    src.push_str("}\nstruct md_t { bit<8> x; }\nstruct emd_t {}\n");
    src.push_str("parser IP(packet_in pkt, out header_t hdr, out md_t md, out ingress_intrinsic_metadata_t ig) {\n    state start { pkt.extract(ig); pkt.advance(PORT_METADATA_SIZE); pkt.extract(hdr.e); transition s0; }\n");
    for i in 0..n {
        let next = if i + 1 < n {
            format!("s{}", i + 1)
        } else {
            "accept".into()
        };
        src.push_str(&format!(
            "    state s{i} {{ transition select(hdr.e.k) {{ {i}: x{i}; default: {next}; }} }}\n    state x{i} {{ pkt.extract(hdr.h{i}); transition {next}; }}\n"
        ));
    }
    src.push_str("}\ncontrol Ig(inout header_t hdr, inout md_t md, in ingress_intrinsic_metadata_t ig,\n  in ingress_intrinsic_metadata_from_parser_t pr, inout ingress_intrinsic_metadata_for_deparser_t dp,\n  inout ingress_intrinsic_metadata_for_tm_t tm) {\n    apply {\n");
    for i in 0..n {
        src.push_str(&format!(
            "        if (hdr.h{i}.isValid()) {{ md.x = {i}; }}\n"
        ));
    }
    src.push_str("    }\n}\ncontrol ID(packet_out pkt, inout header_t hdr, in md_t md, in ingress_intrinsic_metadata_for_deparser_t dp) { apply { pkt.emit(hdr); } }\nparser EP(packet_in pkt, out header_t hdr, out emd_t md, out egress_intrinsic_metadata_t eg) { state start { pkt.extract(eg); transition accept; } }\ncontrol Eg(inout header_t hdr, inout emd_t md, in egress_intrinsic_metadata_t eg, in egress_intrinsic_metadata_from_parser_t pr,\n  inout egress_intrinsic_metadata_for_deparser_t dp, inout egress_intrinsic_metadata_for_output_port_t op) { apply { } }\ncontrol ED(packet_out pkt, inout header_t hdr, in emd_t md, in egress_intrinsic_metadata_for_deparser_t dp) { apply { pkt.emit(hdr); } }\nPipeline(IP(), Ig(), ID(), EP(), Eg(), ED()) pipe;\nSwitch(pipe) main;\n");
    let dir = common::scratch("optional30");
    let file = dir.join("opt.p4");
    std::fs::write(&file, src).expect("write");
    let f = file.to_string_lossy().to_string();
    let started = std::time::Instant::now();
    let v = json(&["predict", &f, "--format", "json"]);
    assert!(
        started.elapsed().as_secs() < 30,
        "took {:?}",
        started.elapsed()
    );
    assert!(v.get("classes").is_none());
    let warnings = v["warnings"].to_string();
    assert!(warnings.contains("classes_not_computed"), "{warnings}");
    assert!(warnings.contains("100000"), "names the budget: {warnings}");
    assert_eq!(v["path_count"], 1u64 << 30);
}

const HMA: &str = "p4-samples/tofino/classes/hit_miss_action_run.p4";

/// The report `v`'s entries of the tables class `c` applies: a class
/// names them by index into the report's `tables` (schema 12).
fn applied<'a>(v: &'a serde_json::Value, c: &serde_json::Value) -> Vec<&'a serde_json::Value> {
    entries(v, c, "tables")
}

/// The report `v`'s entries of class `c`'s `list` (`tables`, `decisions`
/// or `skipped`): the class holds indexes into the report's list of that
/// name.
fn entries<'a>(
    v: &'a serde_json::Value,
    c: &serde_json::Value,
    list: &str,
) -> Vec<&'a serde_json::Value> {
    c[list]
        .as_array()
        .unwrap_or_else(|| panic!("classes[].{list}"))
        .iter()
        .map(|i| {
            let i = i.as_u64().expect("an index") as usize;
            v[list]
                .get(i)
                .unwrap_or_else(|| panic!("an index into the report's {list}"))
        })
        .collect()
}

/// The tables of a listed class with the way taken after each where the
/// control branches on it: `route_v4[set_nhop]`, `acl[miss]`.
fn class_tables(v: &serde_json::Value, c: &serde_json::Value) -> Vec<String> {
    let decisions = entries(v, c, "decisions");
    applied(v, c)
        .into_iter()
        .map(|t| {
            let name = t["name"].as_str().unwrap_or("").to_string();
            let short = name.rsplit('.').next().unwrap_or("").to_string();
            match decisions.iter().find(|d| d["at"] == name.as_str()) {
                Some(d) => format!(
                    "{short}[{}]",
                    d["outcome"]
                        .as_str()
                        .unwrap_or("")
                        .trim_start_matches("action_run = ")
                ),
                None => short,
            }
        })
        .collect()
}

/// A listed class's skipped tables as `table: reason` (report `v`'s).
fn skip_reasons(v: &serde_json::Value, class: &serde_json::Value) -> Vec<String> {
    entries(v, class, "skipped")
        .into_iter()
        .map(|s| {
            format!(
                "{}: {}",
                s["table"].as_str().unwrap_or(""),
                s["reason"].as_str().unwrap_or("")
            )
        })
        .collect()
}

/// Every listed class as `headers: tables` (headers without `hdr.`,
/// space-separated), sorted.
fn by_headers(v: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    for p in v["paths"].as_array().expect("paths") {
        let headers: Vec<&str> = p["headers"]
            .as_array()
            .expect("headers")
            .iter()
            .filter_map(|h| h.as_str())
            .map(|h| h.trim_start_matches("hdr."))
            .collect();
        for c in p["classes"]["classes"].as_array().expect("classes") {
            out.push(format!(
                "{}: {}",
                headers.join(" "),
                class_tables(v, c).join(" ")
            ));
        }
    }
    out.sort();
    out
}

/// Every listed path's classes as `id: tables`.
fn listed(v: &serde_json::Value) -> Vec<String> {
    v["paths"]
        .as_array()
        .expect("paths")
        .iter()
        .flat_map(|p| {
            p["classes"]["classes"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .map(|c| {
            format!(
                "{}: {}",
                c["id"].as_str().unwrap_or(""),
                class_tables(v, &c).join(" ")
            )
        })
        .collect()
}

/// hit_miss_action_run.p4 (derived in its header): IPv4 packets fork on
/// route_v4's action_run (set_nhop applies nexthop; drop_pkt goes the way
/// of the actions without a case, NoAction, and is named with it, as p4c
/// lists the arms) and every packet on acl's hit/miss (a miss applies
/// default_route): 4 + 2 + 2 = 8 classes, numbered in the canonical order
/// (arms by action name: drop_pkt before set_nhop; hit before miss). Each class pays
/// its path's base and parser terms plus exactly its tables.
#[test]
fn classes_differ_by_action_run_and_hit_miss() {
    let v = json(&["predict", HMA, "--format", "json"]);
    assert_eq!(v["classes"]["count"]["text"], "8");
    assert_eq!(
        listed(&v),
        [
            "1.1: route_v4[drop_pkt | NoAction] acl[hit]",
            "1.2: route_v4[drop_pkt | NoAction] acl[miss] default_route",
            "1.3: route_v4[set_nhop] nexthop acl[hit]",
            "1.4: route_v4[set_nhop] nexthop acl[miss] default_route",
            "2.1: route_v6 acl[hit]",
            "2.2: route_v6 acl[miss] default_route",
            "3.1: acl[hit]",
            "3.2: acl[miss] default_route",
        ]
    );
    for p in v["paths"].as_array().expect("paths") {
        let b = &p["breakdown"];
        let fixed = b["base_ns"].as_f64().expect("base") + b["parser_ns"].as_f64().expect("parser");
        let term = |name: &str| {
            b["tables"]
                .as_array()
                .and_then(|a| a.iter().find(|t| t["name"] == name))
                .and_then(|t| t["latency_ns"].as_f64())
                .expect("table term")
        };
        for c in p["classes"]["classes"].as_array().expect("classes") {
            let want: f64 = fixed
                + applied(&v, c)
                    .into_iter()
                    .map(|t| term(t["name"].as_str().unwrap_or("")))
                    .sum::<f64>();
            let got = c["latency_ns"].as_f64().expect("latency");
            assert!((got - want).abs() < 1e-9, "{}: {got} vs {want}", c["id"]);
        }
    }
    // The acl decision points at the `if (!acl.apply().hit)` line, the
    // validity tests are marked as decided by the parse path.
    let src = std::fs::read_to_string(HMA).expect("sample");
    let acl_line = src
        .lines()
        .position(|l| l.contains("if (!acl.apply().hit) {"))
        .expect("acl line")
        + 1;
    let c = &v["paths"][0]["classes"]["classes"][0];
    let decisions = entries(&v, c, "decisions");
    let d = decisions
        .iter()
        .find(|d| d["at"] == "Ingress.acl")
        .expect("acl decision");
    assert_eq!(d["span"]["line"].as_u64(), Some(acl_line as u64));
    assert_eq!(d["forced"], false);
    let valid = decisions[0].clone();
    assert_eq!(valid["at"], "if (hdr.ipv4.isValid())");
    assert_eq!(valid["forced"], true);
}

/// `--class` keeps the classes whose control path does what its terms
/// say, with the ids they have unfiltered.
#[test]
fn class_filters_select_by_table_hit_miss_and_action() {
    let pick = |spec: &str| {
        listed(&json(&[
            "predict", HMA, "--format", "json", "--class", spec,
        ]))
    };
    assert_eq!(
        pick("route_v4:set_nhop"),
        [
            "1.3: route_v4[set_nhop] nexthop acl[hit]",
            "1.4: route_v4[set_nhop] nexthop acl[miss] default_route",
        ]
    );
    assert_eq!(
        pick("acl:miss,!nexthop"),
        [
            "1.2: route_v4[drop_pkt | NoAction] acl[miss] default_route",
            "2.2: route_v6 acl[miss] default_route",
            "3.2: acl[miss] default_route",
        ]
    );
    assert_eq!(
        pick("Ingress.route_v6"),
        [
            "2.1: route_v6 acl[hit]",
            "2.2: route_v6 acl[miss] default_route"
        ]
    );
    // With --path: that path's classes only.
    let v = json(&[
        "predict",
        HMA,
        "--format",
        "json",
        "--path",
        "ethernet,ipv4",
        "--class",
        "acl:hit",
    ]);
    assert_eq!(
        listed(&v),
        [
            "1.1: route_v4[drop_pkt | NoAction] acl[hit]",
            "1.3: route_v4[set_nhop] nexthop acl[hit]",
        ]
    );
    assert_eq!(v["paths"][0]["classes"]["filter"], "acl:hit");
    assert_eq!(v["paths"][0]["classes"]["total"]["text"], "4");
    // A name the control does not apply is an error naming its tables.
    let r = common::p4cost(&["predict", HMA, "--class", "acl,route_v5"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("`route_v5` names no table"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("Ingress.route_v4"), "{}", r.stderr);
    // The MAU models cost the whole pipeline: --class is refused.
    let r = common::p4cost(&[
        "predict",
        HMA,
        "--model",
        "tofino1-mau-estimate",
        "--class",
        "acl",
    ]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("every stage"), "{}", r.stderr);
}

/// `--max-classes` caps each path's listing; the count stays whole.
#[test]
fn class_listing_is_capped_per_path() {
    let v = json(&["predict", HMA, "--format", "json", "--max-classes", "1"]);
    let p = &v["paths"][0]["classes"];
    assert_eq!(p["total"]["text"], "4");
    assert_eq!(p["classes"].as_array().map(|a| a.len()), Some(1));
    assert_eq!(p["truncated"], true);
    let human = common::p4cost(&["predict", HMA, "--max-classes", "1"]);
    assert!(
        human.stdout.contains("4 classes (first 1 listed)"),
        "{}",
        human.stdout
    );
}

/// set_validity.p4 (derived in its header): a statement's setValid makes
/// the next test true on both paths, a table whose every action pops the
/// tag makes the one after false, a table that may or may not push it
/// leaves the last test open: 2 classes per path, `never` never applied.
#[test]
fn set_valid_and_set_invalid_decide_later_tests() {
    let v = json(&[
        "predict",
        "p4-samples/tofino/classes/set_validity.p4",
        "--format",
        "json",
    ]);
    assert_eq!(v["classes"]["count"]["text"], "4");
    assert_eq!(
        listed(&v),
        [
            "1.1: vlan_map strip tag maybe",
            "1.2: vlan_map strip tag",
            "2.1: vlan_map strip tag maybe",
            "2.2: vlan_map strip tag",
        ]
    );
    for p in v["paths"].as_array().expect("paths") {
        for c in p["classes"]["classes"].as_array().expect("classes") {
            let never = entries(&v, c, "skipped")
                .into_iter()
                .find(|s| s["table"] == "Ingress.never")
                .expect("never is skipped");
            assert_eq!(never["reason"], "hdr.vlan invalid on this path");
        }
    }
}

/// mpls_stack8.p4 (derived in its header): the loop over a stack of 8
/// unrolls to 9 paths (ethernet alone, 1 to 8 labels); validity decides
/// both tests on each, so 9 classes: l2 alone, mpls_fib for 1 to 7
/// labels, mpls_fib and deep for 8.
#[test]
fn an_mpls_stack_of_eight_unrolls_to_one_class_per_depth() {
    let v = json(&[
        "predict",
        "p4-samples/tofino/classes/mpls_stack8.p4",
        "--format",
        "json",
    ]);
    assert_eq!(v["path_count"], 9);
    assert_eq!(v["classes"]["count"]["text"], "9");
    let mut by_depth: Vec<(usize, Vec<String>)> = v["paths"]
        .as_array()
        .expect("paths")
        .iter()
        .map(|p| {
            let labels = p["headers"]
                .as_array()
                .expect("headers")
                .iter()
                .filter(|h| h.as_str().unwrap_or("").starts_with("hdr.mpls["))
                .count();
            let classes = p["classes"]["classes"].as_array().expect("classes");
            assert_eq!(classes.len(), 1, "one class per path");
            (labels, class_tables(&v, &classes[0]))
        })
        .collect();
    by_depth.sort();
    let want: Vec<(usize, Vec<String>)> = (0..=8)
        .map(|d| {
            let tables: &[&str] = match d {
                0 => &["l2"],
                8 => &["mpls_fib", "deep"],
                _ => &["mpls_fib"],
            };
            (d, tables.iter().map(|t| t.to_string()).collect())
        })
        .collect();
    assert_eq!(by_depth, want);
}

/// parser_set_fields.p4 (derived in its header): the selects on
/// `ether_type` and `protocol` decide the control's comparisons of those
/// fields, so each of the 8 parse paths has exactly one class (validity
/// alone would fork them into 18), and the skip reasons say which fact
/// decided.
#[test]
fn conditions_on_fields_the_parser_selected_on_prune_classes() {
    let v = json(&[
        "predict",
        "p4-samples/tofino/classes/parser_set_fields.p4",
        "--format",
        "json",
    ]);
    assert_eq!(v["path_count"], 8);
    assert_eq!(v["classes"]["count"]["text"], "8");
    assert_eq!(
        v["classes"]["tested_fields"],
        serde_json::json!(["hdr.ethernet.ether_type == 0x800", "hdr.ipv4.protocol == 6"])
    );
    for p in v["paths"].as_array().expect("paths") {
        let classes = p["classes"]["classes"].as_array().expect("classes");
        assert_eq!(classes.len(), 1, "{}", p["headers"]);
    }
    let by_path = by_headers(&v);
    assert_eq!(
        by_path,
        [
            "ethernet ipv4 tcp: ipv4_host tcp_acl",
            "ethernet ipv4 udp: ipv4_host",
            "ethernet ipv4: ipv4_host",
            "ethernet vlan ipv4 tcp: vlan_map tcp_acl",
            "ethernet vlan ipv4 udp: vlan_map",
            "ethernet vlan ipv4: vlan_map",
            "ethernet vlan: vlan_map",
            "ethernet: l2",
        ]
    );
    // On a tagged path the first test fails because the select took 0x8100.
    let v = json(&[
        "predict",
        "p4-samples/tofino/classes/parser_set_fields.p4",
        "--path",
        "ethernet,vlan,ipv4,udp",
        "--format",
        "json",
    ]);
    let class = &v["paths"][0]["classes"]["classes"][0];
    let reason = |t: &str| {
        entries(&v, class, "skipped")
            .into_iter()
            .find(|s| s["table"] == t)
            .map(|s| s["reason"].as_str().unwrap_or("").to_string())
    };
    assert_eq!(
        reason("Ingress.ipv4_host").as_deref(),
        Some("`hdr.ethernet.ether_type == 0x800` fails on this path")
    );
    assert_eq!(
        reason("Ingress.tcp_acl").as_deref(),
        Some("hdr.ipv4 valid and `hdr.ipv4.protocol == 6` fails on this path")
    );
}

/// parser_set_metadata.p4 (derived in its header): constants the parser
/// writes into metadata decide the control's tests until a table may
/// rewrite the field.
#[test]
fn conditions_on_metadata_the_parser_set_prune_classes() {
    let file = "p4-samples/tofino/classes/parser_set_metadata.p4";
    let v = json(&["predict", file, "--format", "json"]);
    assert_eq!(v["path_count"], 4);
    assert_eq!(v["classes"]["count"]["text"], "7");
    assert_eq!(
        v["classes"]["tested_fields"],
        serde_json::json!([
            "ig_md.l4_type == 0",
            "ig_md.l4_type == 1",
            "ig_md.l4_type == 2"
        ])
    );
    let by_path = by_headers(&v);
    assert_eq!(
        by_path,
        [
            "ethernet ipv4 tcp: tcp_acl classify",
            "ethernet ipv4 tcp: tcp_acl classify l4_stats",
            "ethernet ipv4 udp: udp_acl classify",
            "ethernet ipv4 udp: udp_acl classify l4_stats",
            "ethernet ipv4: classify",
            "ethernet ipv4: classify l4_stats",
            "ethernet: ",
        ]
    );
    let v = json(&["predict", file, "--path", "ethernet", "--format", "json"]);
    let reasons = skip_reasons(&v, &v["paths"][0]["classes"]["classes"][0]);
    assert!(
        reasons.contains(&"Ingress.tcp_acl: `ig_md.l4_type == 1` fails on this path".to_string()),
        "{reasons:?}"
    );
    assert!(
        reasons.contains(&"Ingress.l4_stats: `ig_md.l4_type == 0` holds on this path".to_string()),
        "{reasons:?}"
    );
}

/// rejects.p4 (derived in its header): 4 rejected paths, counted apart
/// from the 5 accepted ones, each costing the base term and its states up
/// to the reject. With the printed 10G model at 512 B (docs/models.md):
/// L_B = 273.764; vlan (4 B) adds 0.221*4 + 2.886 = 3.770, ipv4 (20 B)
/// 0.221*20 + 2.886 = 7.306. Cheapest: the 0x9999 case at start, 273.764;
/// dearest: verify after vlan and ipv4, 273.764 + 3.770 + 7.306 = 284.840.
#[test]
fn rejected_paths_are_counted_apart_with_their_cost_up_to_the_reject() {
    let v = json(&[
        "predict",
        "p4-samples/tofino/classes/rejects.p4",
        "--format",
        "json",
    ]);
    assert_eq!(v["path_count"], 5);
    let r = &v["rejects"];
    assert_eq!(r["count"]["text"], "4");
    assert_eq!(r["by_reason"]["transition"]["text"], "1");
    assert_eq!(r["by_reason"]["no_match"]["text"], "1");
    assert_eq!(r["by_reason"]["verify"]["text"], "2");
    assert!(r["by_reason"].get("stack_overflow").is_none());
    let close =
        |x: &serde_json::Value, want: f64| (x.as_f64().expect("number") - want).abs() < 1e-9;
    assert!(close(&r["min"]["latency_ns"], 273.764), "{}", r["min"]);
    assert_eq!(r["min"]["states"], serde_json::json!(["start"]));
    assert_eq!(r["min"]["reason"], "transition");
    assert!(close(&r["max"]["latency_ns"], 284.840), "{}", r["max"]);
    assert_eq!(
        r["max"]["states"],
        serde_json::json!(["start", "parse_vlan", "parse_ipv4"])
    );
    assert_eq!(r["max"]["reason"], "verify");
    // A select on a 1-bit field that lists 0 and 1 never finds no case:
    // mpls_stack8's only rejected path is the ninth label overflowing.
    let v = json(&[
        "predict",
        "p4-samples/tofino/classes/mpls_stack8.p4",
        "--format",
        "json",
    ]);
    assert_eq!(v["rejects"]["count"]["text"], "1");
    assert_eq!(v["rejects"]["by_reason"]["stack_overflow"]["text"], "1");
}

const EGRESS: &str = "p4-samples/tofino/classes/egress.p4";

/// egress.p4 (derived in its header): every class runs through ingress
/// and then egress. Per path, acl hit (then `exit`, which still goes on to
/// egress) or miss, times port_stats hit or miss: 4 classes, 12 in all.
/// Egress sees vlan valid only on the IPv4 path (ingress pushed it), and
/// ipv6 never (the egress parser does not extract it). Latencies by hand,
/// 10G, 512 B: base 0.237 * 512 + 152.42 = 273.764; the IPv4 state 0.221 *
/// 20 + 2.886 = 7.306, the IPv6 state 0.221 * 40 + 2.886 = 11.726; LPM
/// wide 0.887, exact wide 0.601; egress tables are not charged.
#[test]
fn classes_run_through_ingress_and_egress() {
    let v = json(&["predict", EGRESS, "--format", "json"]);
    assert_eq!(v["classes"]["count"]["text"], "12");
    let e = &v["control"]["egress"];
    assert_eq!(e["name"], "Egress");
    assert_eq!(e["parser"], "egress_parser");
    assert_eq!(e["parser_declared"], "EgParser");
    assert_eq!(e["invalid_at_start"], serde_json::json!(["hdr.ipv6"]));
    assert_eq!(e["unknown_at_start"], serde_json::json!([]));
    assert_eq!(e["charged"], false);
    assert_eq!(
        e["tables"],
        serde_json::json!([
            "Egress.vlan_xlate",
            "Egress.v6_acl",
            "Egress.port_stats",
            "Egress.unknown_port"
        ])
    );
    assert_eq!(
        listed(&v),
        [
            "1.1: route_v4 acl[hit] vlan_xlate port_stats[hit]",
            "1.2: route_v4 acl[hit] vlan_xlate port_stats[miss] unknown_port",
            "1.3: route_v4 acl[miss] vlan_xlate port_stats[hit]",
            "1.4: route_v4 acl[miss] vlan_xlate port_stats[miss] unknown_port",
            "2.1: route_v6 acl[hit] port_stats[hit]",
            "2.2: route_v6 acl[hit] port_stats[miss] unknown_port",
            "2.3: route_v6 acl[miss] port_stats[hit]",
            "2.4: route_v6 acl[miss] port_stats[miss] unknown_port",
            "3.1: acl[hit] port_stats[hit]",
            "3.2: acl[hit] port_stats[miss] unknown_port",
            "3.3: acl[miss] port_stats[hit]",
            "3.4: acl[miss] port_stats[miss] unknown_port",
        ]
    );
    let close = |a: &serde_json::Value, b: f64| (a.as_f64().expect("number") - b).abs() < 1e-6;
    let want = [282.558, 286.978, 274.365];
    for (p, w) in v["paths"].as_array().expect("paths").iter().zip(want) {
        assert!(close(&p["latency_ns"], w), "{}", p["latency_ns"]);
        assert!(close(&p["min_latency_ns"], w), "{}", p["min_latency_ns"]);
        for c in p["classes"]["classes"].as_array().expect("classes") {
            assert!(close(&c["latency_ns"], w));
            for t in applied(&v, c) {
                let egress = t["name"].as_str().unwrap_or("").starts_with("Egress.");
                assert_eq!(t["gress"], if egress { "egress" } else { "ingress" });
                if egress {
                    assert!(close(&t["latency_ns"], 0.0));
                }
            }
        }
    }
    assert!(close(&v["summary"]["min"]["latency_ns"], 274.365));
    assert!(close(&v["summary"]["max"]["latency_ns"], 286.978));
    // Why the IPv6 path skips the egress tables: what egress starts with.
    let c21 = &v["paths"][1]["classes"]["classes"][0];
    assert_eq!(
        skip_reasons(&v, c21),
        [
            "Ingress.route_v4: hdr.ipv4 invalid on this path",
            "Egress.vlan_xlate: hdr.vlan invalid on this path, in egress",
            "Egress.v6_acl: hdr.ipv6 invalid on this path, in egress",
            "Egress.unknown_port: on hit of Egress.port_stats",
        ]
    );
    // --class selects by egress tables too.
    let f = json(&[
        "predict",
        EGRESS,
        "--format",
        "json",
        "--class",
        "vlan_xlate,port_stats:miss",
    ]);
    let ids: Vec<String> = f["paths"]
        .as_array()
        .expect("paths")
        .iter()
        .flat_map(|p| {
            p["classes"]["classes"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .map(|c| c["id"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(ids, ["1.2", "1.4"]);
}

/// A class's table list under `--path` wraps at the line width (`COLUMNS`)
/// with each further line indented under the first table, and loses no
/// table: the 40-odd tables of a switch_p4_16 class (issue 24, item 10).
#[test]
fn a_long_class_table_list_wraps_under_itself() {
    let f = "tests/fixtures/bmv2/switch_p4_16.json";
    let first = common::json(&[
        "predict",
        f,
        "--no-config",
        "--max-paths",
        "1",
        "--format",
        "json",
    ]);
    let headers: Vec<&str> = first["paths"][0]["headers"]
        .as_array()
        .expect("headers")
        .iter()
        .filter_map(|h| h.as_str())
        .collect();
    let want = headers.join(",");
    let args = [
        "predict",
        f,
        "--no-config",
        "--path",
        &want,
        "--max-classes",
        "1",
    ];
    let v = common::json(&[&args[..], &["--format", "json"]].concat());
    let tables: Vec<&str> = applied(&v, &v["paths"][0]["classes"]["classes"][0])
        .into_iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(tables.len() > 14, "{tables:?}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_p4cost"))
        .args(args)
        .env("COLUMNS", "80")
        .current_dir(common::root())
        .output()
        .expect("p4cost runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut lines = stdout.lines().skip_while(|l| !l.contains(" ns  tables: "));
    let head = lines.next().expect("the class line");
    let indent = head.find("tables: ").expect("tables") + "tables: ".len();
    let rest: Vec<&str> = lines
        .take_while(|l| l.len() > indent && l[..indent].trim().is_empty())
        .collect();
    assert!(!rest.is_empty(), "{stdout}");
    let mut listed = head[indent..].to_string();
    for l in &rest {
        assert!(l.chars().count() <= 80, "{l}");
        listed.push(' ');
        listed.push_str(&l[indent..]);
    }
    assert!(head.chars().count() <= 80, "{head}");
    assert_eq!(listed, tables.join(", "));
}

/// One naming of a switch on action_run whatever the reader (issue 24,
/// item 10): an action without a case is named in the arm it takes, by the
/// last component of its name, and a table that declares no default action
/// runs NoAction, as p4c's BMv2 JSON lists them. Our basic_router with
/// next_hops switched on (one case, no default_action) names its arms as
/// p4c's basic_routing-bmv2.json names ipv4_fib's.
#[test]
fn action_run_arms_are_named_alike_from_a_source_and_from_bmv2_json() {
    let arms = |v: &serde_json::Value| -> Vec<String> {
        let mut all: Vec<String> = listed(v)
            .iter()
            .flat_map(|c| c.split(' ').map(str::to_string).collect::<Vec<_>>())
            .filter(|t| t.contains('['))
            .collect();
        all.sort();
        all.dedup();
        all
    };
    let json_side = json(&[
        "predict",
        "tests/fixtures/bmv2/basic_routing-bmv2.json",
        "--format",
        "json",
    ]);
    let got = arms(&json_side);
    assert!(got.iter().any(|a| a == "ipv4_fib[on_miss]"), "{got:?}");
    assert!(
        listed(&json_side)
            .iter()
            .any(|c| c.contains("ipv4_fib[fib_hit_nexthop | NoAction]")),
        "{:?}",
        listed(&json_side)
    );
    let text = std::fs::read_to_string(common::root().join("p4-samples/v1model/basic_router.p4"))
        .expect("sample");
    let text = text.replacen(
        "        default_action = discard();\n        size = 1024;",
        "        size = 1024;",
        1,
    );
    let start = text
        .find("        if (std_meta.checksum_error == 1w1) {")
        .expect("ingress apply");
    let end = start
        + text[start..]
            .find("            discard();\n        }\n    }\n")
            .expect("its end")
        + "            discard();\n        }\n".len();
    let program = format!(
        "{}        switch (next_hops.apply().action_run) {{\n            forward: {{ ipv4_routes.apply(); }}\n        }}\n{}",
        &text[..start],
        &text[end..]
    );
    let dir = common::scratch("classes-arms");
    let file = dir.join("router.p4");
    std::fs::write(&file, program).expect("write");
    let source_side = json(&["predict", &file.to_string_lossy(), "--format", "json"]);
    assert_eq!(
        arms(&source_side),
        ["next_hops[discard", "next_hops[forward]"],
        "{:?}",
        listed(&source_side)
    );
    assert!(
        listed(&source_side)
            .iter()
            .any(|c| c.contains("next_hops[discard | NoAction]")),
        "{:?}",
        listed(&source_side)
    );
}
