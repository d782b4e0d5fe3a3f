//! Parse paths over the whole graph: `--path` exactness, the summary,
//! `--top`, warnings that do not depend on `--max-paths`, exact counts in
//! JSON and the analysis-state budget. Programs are ours; expected values
//! are derived by hand in the comments.

mod common;
crate::spawner_entry!();
use common::{json, p4cost, scratch};

const FAKE: &str = "tests/fixtures/paths/fake_ethernet_first.p4";

fn text(v: &serde_json::Value) -> &str {
    v.as_str().unwrap_or("")
}

#[test]
fn exact_header_match_wins_over_the_cpu_loopback_path() {
    // Paths 1 and 3 (fake,eth,ipv4,tcp) must not be taken: 7 and 9 have
    // exactly the asked headers; 7 comes first.
    let v = json(&[
        "predict",
        FAKE,
        "--path",
        "ethernet,ipv4,tcp",
        "--format",
        "json",
    ]);
    assert_eq!(v["paths"][0]["index"]["value"], 6);
    assert_eq!(
        v["paths"][0]["headers"],
        serde_json::json!(["hdr.ethernet", "hdr.ipv4", "hdr.tcp"])
    );
    let m = &v["path_match"];
    assert_eq!(m["matching"]["value"], 2);
    assert_eq!(m["skipped_ethernet"], false);
    assert_eq!(m["latency_differs"], false);
    assert_eq!(m["bytes_differ"], false);
    let r = p4cost(&["predict", FAKE, "--path", "ethernet,ipv4,tcp"]);
    assert!(
        r.stdout
            .contains("showing path 7, the first in graph order of 2 with headers"),
        "{}",
        r.stdout
    );
}

#[test]
fn leaving_out_ethernet_is_a_fallback_that_says_so() {
    // No path has exactly ipv4,tcp; with a leading Ethernet: 7 and 9. The
    // fake Ethernet paths (1, 3) start with fake_ethernet, not Ethernet.
    let v = json(&["predict", FAKE, "--path", "ipv4,tcp", "--format", "json"]);
    assert_eq!(v["path_match"]["skipped_ethernet"], true);
    assert_eq!(v["path_match"]["matching"]["value"], 2);
    assert_eq!(v["paths"][0]["index"]["value"], 6);
    let r = p4cost(&["predict", FAKE, "--path", "ipv4,tcp"]);
    assert!(r.stdout.contains("matched after a leading Ethernet header"));
    // The fake Ethernet path is still reachable by naming it in full.
    let v = json(&[
        "predict",
        FAKE,
        "--path",
        "fake_ethernet,ethernet,ipv4,tcp",
        "--format",
        "json",
    ]);
    assert_eq!(v["paths"][0]["index"]["value"], 0);
    assert_eq!(v["path_match"]["skipped_ethernet"], false);
}

#[test]
fn summary_covers_all_paths() {
    // Tofino 10G: a state of b bytes costs 0.221 b + 2.886 ns (20 B: 7.306,
    // 14 B: 5.980, 8 B: 4.654, 40 B: 11.726). Parser terms per path:
    // 1,3: 20.592  2,4: 17.940  5: 17.706  6: 5.980  7,9: 14.612
    // 8,10: 11.960  11: 11.726  12: 0. Lower median of 12 = 6th smallest
    // = 14.612. Base 273.764 (512 B), no table.
    let v = json(&["predict", FAKE, "--max-paths", "1", "--format", "json"]);
    let s = &v["summary"];
    assert_eq!(s["paths"]["value"], 12);
    let min = s["min"]["latency_ns"].as_f64().unwrap();
    let max = s["max"]["latency_ns"].as_f64().unwrap();
    let med = s["median_ns"].as_f64().unwrap();
    assert!((min - 273.764).abs() < 1e-6, "{min}");
    assert!((max - (273.764 + 20.592)).abs() < 1e-6, "{max}");
    assert!((med - (273.764 + 14.612)).abs() < 1e-6, "{med}");
    assert_eq!(s["min"]["index"]["value"], 11);
    assert_eq!(s["max"]["index"]["value"], 0);
}

#[test]
fn warnings_cover_paths_beyond_max_paths() {
    // Only paths 5 and 11 extract the 40 B IPv6 header; path 1 is listed.
    for max in ["1", "64"] {
        let v = json(&["predict", FAKE, "--max-paths", max, "--format", "json"]);
        let w = v["path_warnings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["code"] == "header_size_out_of_range")
            .expect("header_size_out_of_range over all paths");
        assert_eq!(w["applies_to"]["value"], 2, "--max-paths {max}");
        assert!(text(&w["message"]).contains("`parse_ipv6` 40 B (path 5)"));
        let listed: Vec<u64> = w["paths"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect();
        // Positions in `paths`: none of the first one; 4 and 10 of all.
        let want: Vec<u64> = if max == "1" { vec![] } else { vec![4, 10] };
        assert_eq!(listed, want);
    }
}

#[test]
fn top_lists_the_slowest_and_sort_orders_by_latency() {
    // Slowest: paths 1 and 3 (20.592), then 2 and 4 (17.940).
    let v = json(&["predict", FAKE, "--top", "3", "--format", "json"]);
    let lat: Vec<f64> = v["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["latency_ns"].as_f64().unwrap() - 273.764)
        .collect();
    assert_eq!(lat.len(), 3);
    assert!((lat[0] - 20.592).abs() < 1e-6 && (lat[1] - 20.592).abs() < 1e-6);
    assert!((lat[2] - 17.940).abs() < 1e-6, "{lat:?}");
    let v = json(&["predict", FAKE, "--sort", "latency", "--format", "json"]);
    let idx: Vec<u64> = v["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["index"]["value"].as_u64().unwrap())
        .collect();
    // Stable sort: ties keep graph order; the fastest (path 12) last.
    assert_eq!(&idx[..2], &[0, 2]);
    assert_eq!(idx.last(), Some(&11));
}

/// A parser after Ethernet with `n` binary choices: state d<i> goes to
/// a<i> (2 B header) or b<i> (4 B header), both to d<i+1>: 2^n paths.
fn diamond(n: usize) -> String {
    let mut s = String::from(
        "#include <core.p4>\n#include <tna.p4>\n\
         header ethernet_h { bit<48> dst; bit<48> src; bit<16> ether_type; }\n\
         header two_h { bit<16> x; }\nheader four_h { bit<32> x; }\n\
         struct header_t {\n ethernet_h ethernet;\n",
    );
    for i in 0..n {
        s += &format!(" two_h a{i};\n four_h b{i};\n");
    }
    s += "}\nstruct md_t {}\n\
          parser IP(packet_in pkt, out header_t hdr, out md_t md, out ingress_intrinsic_metadata_t ig_intr_md) {\n\
          state start { pkt.extract(ig_intr_md); pkt.advance(PORT_METADATA_SIZE); pkt.extract(hdr.ethernet); transition d0; }\n";
    for i in 0..n {
        let next = if i + 1 == n {
            "accept".to_string()
        } else {
            format!("d{}", i + 1)
        };
        s += &format!(
            "state d{i} {{ transition select(hdr.ethernet.ether_type) {{ 1: sa{i}; default: sb{i}; }} }}\n\
             state sa{i} {{ pkt.extract(hdr.a{i}); transition {next}; }}\n\
             state sb{i} {{ pkt.extract(hdr.b{i}); transition {next}; }}\n"
        );
    }
    s += "}\n\
control IC(inout header_t hdr, inout md_t md, in ingress_intrinsic_metadata_t ig_intr_md, in ingress_intrinsic_metadata_from_parser_t ig_prsr_md, inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md, inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) { apply { ig_tm_md.ucast_egress_port = 1; } }\n\
control ID(packet_out pkt, inout header_t hdr, in md_t md, in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) { apply { pkt.emit(hdr); } }\n\
struct eh_t { ethernet_h ethernet; }\n\
parser EP(packet_in pkt, out eh_t hdr, out md_t md, out egress_intrinsic_metadata_t eg_intr_md) { state start { pkt.extract(eg_intr_md); transition accept; } }\n\
control EC(inout eh_t hdr, inout md_t md, in egress_intrinsic_metadata_t eg_intr_md, in egress_intrinsic_metadata_from_parser_t eg_prsr_md, inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md, inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) { apply { } }\n\
control ED(packet_out pkt, inout eh_t hdr, in md_t md, in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) { apply { pkt.emit(hdr); } }\n\
Pipeline(IP(), IC(), ID(), EP(), EC(), ED()) pipe;\nSwitch(pipe) main;\n";
    s
}

#[test]
fn a_2_pow_70_diamond_is_summarised_exactly() {
    let dir = scratch("diamond70");
    let f = dir.join("d.p4");
    std::fs::write(&f, diamond(70)).unwrap();
    let f = f.to_string_lossy().to_string();
    let v = json(&["predict", &f, "--max-paths", "2", "--format", "json"]);
    // 2^70 = 1180591620717411303424: above 2^53, so text only.
    assert!(v.get("path_count").is_none());
    assert_eq!(text(&v["path_count_text"]), "1180591620717411303424");
    let s = &v["summary"];
    assert_eq!(text(&s["paths"]["text"]), "1180591620717411303424");
    // Fastest: every choice takes a<i> (listed first): index 0. Slowest:
    // every b<i>: the last path, 2^70 - 1.
    assert_eq!(s["min"]["index"]["value"], 0);
    assert!(s["max"]["index"].get("value").is_none());
    assert_eq!(text(&s["max"]["index"]["text"]), "1180591620717411303423");
    // Every path has 70 counted states; bytes 140 + 2 * (number of b): a
    // binomial, so the lower median (35 b) is the midpoint of min and max.
    let min = s["min"]["latency_ns"].as_f64().unwrap();
    let max = s["max"]["latency_ns"].as_f64().unwrap();
    let med = s["median_ns"].as_f64().unwrap();
    assert!((med - (min + max) / 2.0).abs() < 1e-6, "{min} {med} {max}");
    // 70 states after Ethernet > 10 on every path.
    let w = v["path_warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["code"] == "too_many_states")
        .expect("too_many_states");
    assert_eq!(text(&w["applies_to"]["text"]), "1180591620717411303424");
    // --top 2: all b, then one a (2 B less: 0.442 ns).
    let v = json(&["predict", &f, "--top", "2", "--format", "json"]);
    let l0 = v["paths"][0]["latency_ns"].as_f64().unwrap();
    let l1 = v["paths"][1]["latency_ns"].as_f64().unwrap();
    assert!((l0 - max).abs() < 1e-6);
    assert!((l0 - l1 - 0.442).abs() < 1e-6, "{l0} {l1}");
}

#[test]
fn stacks_in_one_loop_end_with_the_budget_error() {
    // Five 16-deep stacks extracted in one loop: 17^5 = 1.4M fill vectors
    // per state, past the default budget of 1,000,000.
    let dir = scratch("stacks5");
    let f = dir.join("s.p4");
    let mut p = diamond(1);
    let names = ["s0", "s1", "s2", "s3", "s4"];
    let decl: String = names.iter().map(|n| format!(" two_h[16] {n};\n")).collect();
    p = p.replacen(
        " ethernet_h ethernet;\n",
        &format!(" ethernet_h ethernet;\n{decl}"),
        1,
    );
    let sel: String = names
        .iter()
        .enumerate()
        .map(|(i, n)| format!("{i}: l{n}; "))
        .collect();
    let states: String = names
        .iter()
        .map(|n| {
            format!(
                "state l{n} {{ pkt.extract(hdr.{n}.next); transition select(hdr.ethernet.ether_type) {{ {sel}default: accept; }} }}\n"
            )
        })
        .collect();
    p = p.replacen(
        "transition d0; }\n",
        &format!("transition ls0; }}\n{states}"),
        1,
    );
    std::fs::write(&f, p).unwrap();
    let f = f.to_string_lossy().to_string();
    // CPU time, which a loaded machine stretches far less than wall time.
    let r = common::measured(&dir, &["predict", &f], &dir.join("out"));
    assert_ne!(r.code, 0);
    assert!(
        r.stderr.contains("more than 1000000 analysis states")
            && r.stderr.contains("--max-analysis-states"),
        "{}",
        r.stderr
    );
    assert!(r.cpu.as_secs() < 30, "{:?}", r.cpu);
}

/// One numbering: each JSON path (and the summary's extremes) carries the
/// one-based `number` the table prints and its classes' ids `P.C` start
/// with, beside the zero-based `index` (issue 24, item 10).
#[test]
fn json_paths_carry_the_number_the_table_prints() {
    let f = "p4-samples/tofino/tc2_datacenter.p4";
    let v = common::json(&["predict", f, "--no-config", "--format", "json"]);
    let paths = v["paths"].as_array().expect("paths");
    assert!(paths.len() > 1);
    for p in paths {
        let number = p["number"]["value"].as_u64().expect("number");
        assert_eq!(number, p["index"]["value"].as_u64().expect("index") + 1);
        assert_eq!(p["number"]["text"], number.to_string());
        for c in p["classes"]["classes"].as_array().expect("classes") {
            let id = c["id"].as_str().expect("id");
            assert!(
                id.starts_with(&format!("{number}.")),
                "{id} on path {number}"
            );
        }
    }
    for e in ["min", "max"] {
        let x = &v["summary"][e];
        let number = x["number"]["text"].as_str().expect("number");
        let class = x["class"].as_str().expect("class");
        assert!(class.starts_with(&format!("{number}.")), "{x}");
    }
    // `--path`: the number the human output shows.
    let want = "ipv4,udp,vxlan,inner_ethernet";
    let human = common::p4cost(&["predict", f, "--no-config", "--path", want]);
    let one = common::json(&[
        "predict",
        f,
        "--no-config",
        "--path",
        want,
        "--format",
        "json",
    ]);
    let number = one["paths"][0]["number"]["text"].as_str().expect("number");
    assert!(
        human.stdout.contains(&format!("showing path {number}, ")),
        "{}",
        human.stdout
    );
}
