//! Legal program shapes that once exploded (issue 25, items 5 and 12),
//! run through the real binary with a wall-clock and a peak-memory bound
//! (the machine running the tests may be loaded: the bounds are generous,
//! the exponential behaviour they guard against took minutes and GBs):
//!
//! * a parser of 70 diamonds whose two arms weigh the same (2^70 paths,
//!   every one tied with 2^69 others): `predict --top` and `explain`;
//! * 30 `if (hdr.aI.isValid()) tI.apply();` blocks over such a parser;
//! * a 4096-element MPLS stack loop, most of whose paths are longer than
//!   the packet: the listing lists the first paths that fit;
//! * a header wider than p4c allows, and one that fits in no packet.
//!
//! Each figure is checked against one computed here from the generator's
//! sizes and the model's coefficients (read from `p4cost models`).
#![cfg(target_os = "linux")]

mod common;
crate::spawner_entry!();

use std::path::{Path, PathBuf};
use std::time::Duration;

/// Wall-clock bound of one run.
const MAX_TIME: Duration = Duration::from_secs(30);

/// Peak resident set bound of one run.
const MAX_RSS: u64 = 512 << 20;

/// One run of the binary with its resources.
struct Measured {
    code: i32,
    stdout: String,
    stderr: String,
    elapsed: Duration,
    peak_rss: u64,
}

/// Runs `p4cost args` from `dir` and measures its time and peak resident
/// set.
fn run(dir: &Path, args: &[&str]) -> Measured {
    let m = common::measured(dir, args, dir);
    Measured {
        code: m.code,
        stdout: m.stdout_text(),
        stderr: m.stderr,
        elapsed: m.elapsed,
        peak_rss: m.peak_rss,
    }
}

/// Runs `p4cost args`, asserting exit 0 within the time and memory bounds.
fn run_ok(dir: &Path, args: &[&str]) -> Measured {
    let m = run(dir, args);
    assert_eq!(m.code, 0, "p4cost {args:?}: {}", m.stderr);
    assert!(m.elapsed < MAX_TIME, "p4cost {args:?} took {:?}", m.elapsed);
    assert!(
        m.peak_rss < MAX_RSS,
        "p4cost {args:?} peaked at {} MiB",
        m.peak_rss >> 20
    );
    m
}

fn json(m: &Measured) -> serde_json::Value {
    serde_json::from_str(&m.stdout).expect("valid JSON")
}

/// A listed path's one-based number.
fn number(p: &serde_json::Value) -> u64 {
    p["number"]["value"].as_u64().expect("an exact path number")
}

fn dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("shapes")
        .join(name);
    std::fs::create_dir_all(&d).expect("tmp dir");
    d
}

/// Bytes of header `aI` / `bI` in the diamond generator: the arms of one
/// diamond tie, diamonds differ.
fn arm_bytes(i: usize) -> u64 {
    2 + (i % 5) as u64
}

/// Bytes of the header `sI` each diamond starts with.
const HEAD_BYTES: u64 = 4;

/// A v1model program whose parser is `n` diamonds (state `sI` extracts
/// `hdr.sI` and selects `aI` or `bI`, which both go on to `s(I+1)`), and
/// whose ingress applies `tI` when `hdr.aI` is valid, for the first `ifs`.
fn diamonds(n: usize, ifs: usize) -> String {
    let mut p = String::from("#include <core.p4>\n#include <v1model.p4>\n");
    p.push_str("header s_t { bit<8> f; bit<24> g; }\n");
    for i in 0..n {
        p.push_str(&format!(
            "header arm{i}_t {{ bit<8> k; bit<{}> f; }}\n",
            (arm_bytes(i) - 1) * 8
        ));
    }
    p.push_str("struct headers {\n");
    for i in 0..n {
        p.push_str(&format!("  s_t s{i}; arm{i}_t a{i}; arm{i}_t b{i};\n"));
    }
    p.push_str("}\nstruct meta_t {}\n");
    p.push_str("parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {\n");
    p.push_str("  state start { transition s0; }\n");
    for i in 0..n {
        let next = if i + 1 < n {
            format!("s{}", i + 1)
        } else {
            "accept".into()
        };
        p.push_str(&format!(
            "  state s{i} {{ pkt.extract(hdr.s{i}); transition select(hdr.s{i}.f) {{ 1: a{i}; default: b{i}; }} }}\n\
             \x20 state a{i} {{ pkt.extract(hdr.a{i}); transition {next}; }}\n\
             \x20 state b{i} {{ pkt.extract(hdr.b{i}); transition {next}; }}\n"
        ));
    }
    p.push_str("}\n");
    p.push_str("control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {\n");
    p.push_str("  action fwd(bit<9> port) { sm.egress_spec = port; }\n");
    for i in 0..ifs {
        p.push_str(&format!(
            "  table t{i} {{ key = {{ hdr.a{i}.k: exact; }} actions = {{ fwd; NoAction; }} size = 1024; }}\n"
        ));
    }
    p.push_str("  apply {\n");
    for i in 0..ifs {
        p.push_str(&format!("    if (hdr.a{i}.isValid()) t{i}.apply();\n"));
    }
    p.push_str("  }\n}\n");
    p.push_str(
        "control V(inout headers h, inout meta_t m) { apply {} }\n\
         control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply {} }\n\
         control C(inout headers h, inout meta_t m) { apply {} }\n\
         control D(packet_out pkt, in headers h) { apply { pkt.emit(h); } }\n\
         V1Switch(P(), V(), I(), E(), C(), D()) main;\n",
    );
    p
}

/// The tofino1-10g coefficients, as `p4cost models` prints them.
struct Coefficients {
    per_packet_byte: f64,
    constant: f64,
    per_header_byte: f64,
    per_state: f64,
    exact_narrow_key: f64,
}

fn coefficients(dir: &Path) -> Coefficients {
    let m = json(&run_ok(dir, &["models", "--format", "json"]));
    let model = m["models"]
        .as_array()
        .expect("models")
        .iter()
        .find(|m| m["name"] == "tofino1-10g")
        .expect("tofino1-10g")
        .clone();
    let f = |v: &serde_json::Value| v.as_f64().expect("a coefficient");
    Coefficients {
        per_packet_byte: f(&model["base"]["per_packet_byte_ns"]),
        constant: f(&model["base"]["constant_ns"]),
        per_header_byte: f(&model["parser"]["per_header_byte_ns"]),
        per_state: f(&model["parser"]["per_state_ns"]),
        exact_narrow_key: f(&model["control"]["exact"]["narrow_key_ns"]),
    }
}

/// The heaviest path of `diamonds(n, ifs)` at `packet` B: every diamond
/// through `aI` (the arms tie in the parser; `aI` applies `tI`). The first
/// header (`s0`) is in the base term; each later state counts its bytes
/// and once.
fn heaviest_ns(c: &Coefficients, n: usize, ifs: usize, packet: u64) -> f64 {
    let base = c.per_packet_byte * packet as f64 + c.constant;
    let counted_states = (2 * n - 1) as f64;
    let counted_bytes: u64 = (0..n).map(|i| HEAD_BYTES + arm_bytes(i)).sum::<u64>() - HEAD_BYTES;
    let parser = c.per_header_byte * counted_bytes as f64 + c.per_state * counted_states;
    // One 8-bit exact key or less: the narrow class.
    base + parser + c.exact_narrow_key * ifs as f64
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 0.01
}

#[test]
fn top_and_explain_over_70_tied_diamonds() {
    let d = dir("diamonds");
    std::fs::write(d.join("d.p4"), diamonds(70, 0)).expect("write");
    let c = coefficients(&d);
    let want = heaviest_ns(&c, 70, 0, 1500);
    let top = json(&run_ok(
        &d,
        &[
            "predict",
            "d.p4",
            "--packet-size",
            "1500",
            "--top",
            "3",
            "--format",
            "json",
        ],
    ));
    let paths = top["paths"].as_array().expect("paths");
    // Every path of 2^70 weighs the same: the first three listed.
    let numbers: Vec<u64> = paths.iter().map(number).collect();
    assert_eq!(numbers, [1, 2, 3]);
    for p in paths {
        assert!(close(p["latency_ns"].as_f64().unwrap(), want), "{p}");
    }
    let ex = json(&run_ok(
        &d,
        &[
            "explain",
            "d.p4",
            "--packet-size",
            "1500",
            "--format",
            "json",
        ],
    ));
    assert!(
        close(ex["total_ns"].as_f64().unwrap(), want),
        "{}",
        ex["total_ns"]
    );
}

#[test]
fn explain_and_top_over_30_validity_ifs() {
    let d = dir("ifs");
    std::fs::write(d.join("i.p4"), diamonds(30, 30)).expect("write");
    let c = coefficients(&d);
    let want = heaviest_ns(&c, 30, 30, 512);
    let ex = json(&run_ok(&d, &["explain", "i.p4", "--format", "json"]));
    assert!(
        close(ex["total_ns"].as_f64().unwrap(), want),
        "{}",
        ex["total_ns"]
    );
    let top = json(&run_ok(
        &d,
        &["predict", "i.p4", "--top", "1", "--format", "json"],
    ));
    assert_eq!(number(&top["paths"][0]), 1);
    assert!(close(top["paths"][0]["latency_ns"].as_f64().unwrap(), want));
}

/// tc3_edge_mpls.p4 with its MPLS stack made 4096 deep.
fn deep_mpls(d: &Path) {
    let src = std::fs::read_to_string(common::root().join("p4-samples/tofino/tc3_edge_mpls.p4"))
        .expect("sample");
    assert!(src.contains("mpls_h[6]"), "the sample's stack changed");
    std::fs::write(d.join("m.p4"), src.replace("mpls_h[6]", "mpls_h[4096]")).expect("write");
}

#[test]
fn listing_skips_paths_longer_than_the_packet() {
    let d = dir("mpls");
    deep_mpls(&d);
    let r = json(&run_ok(&d, &["predict", "m.p4", "--format", "json"]));
    let paths = r["paths"].as_array().expect("paths");
    assert_eq!(paths.len(), 64, "the first 64 paths that fit");
    assert_eq!(r["paths_listed"], 64);
    let mut last = 0;
    for p in paths {
        let n = number(p);
        assert!(n > last, "in listing order");
        last = n;
        // Packet headers only: the port metadata is no part of the packet.
        let headers = p["headers"].as_array().expect("headers");
        let bytes: u64 = p["states"]
            .as_array()
            .expect("states")
            .iter()
            .filter(|s| {
                s["extracts"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|e| headers.contains(e))
            })
            .map(|s| s["bytes"].as_u64().unwrap())
            .sum();
        assert!(bytes <= 512, "path {n} extracts {bytes} B");
    }
    let warns = r["warnings"].to_string();
    assert!(!warns.contains("listing_capped"), "{warns}");
    // The human report says what it lists.
    let h = run_ok(&d, &["predict", "m.p4"]);
    assert!(
        h.stdout
            .contains("listing the first 64 of the 711 that fit the packet"),
        "{}",
        h.stdout
    );
    // And explain finds the slowest of them.
    let ex = run_ok(&d, &["explain", "m.p4"]);
    assert!(ex.stdout.contains("packet class"), "{}", ex.stdout);
}

const WIDE: &str = "#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header w_t { WIDTH }
struct headers { eth_t eth; w_t w; }
struct meta_t {}
parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
  state start { pkt.extract(hdr.eth); transition select(hdr.eth.type) { 0x88b5: parse_w; default: accept; } }
  state parse_w { pkt.extract(hdr.w); transition accept; }
}
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply {} }
control V(inout headers h, inout meta_t m) { apply {} }
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply {} }
control C(inout headers h, inout meta_t m) { apply {} }
control D(packet_out pkt, in headers h) { apply { pkt.emit(h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
";

#[test]
fn a_width_past_p4cs_limit_is_an_error_where_it_is_written() {
    let d = dir("wide");
    for w in ["2147483647", "2049"] {
        std::fs::write(
            d.join("w.p4"),
            WIDE.replace("WIDTH", &format!("bit<{w}> f;")),
        )
        .unwrap();
        let m = run(&d, &["predict", "w.p4"]);
        assert_eq!(m.code, 2, "{}", m.stdout);
        assert!(m.stderr.contains("w.p4:4:18"), "{}", m.stderr);
        assert!(
            m.stderr.contains(&format!("width {w} is above 2048")),
            "{}",
            m.stderr
        );
    }
    std::fs::write(d.join("w.p4"), WIDE.replace("WIDTH", "bit<2048> f;")).unwrap();
    run_ok(&d, &["predict", "w.p4"]);
}

#[test]
fn headers_larger_than_any_packet_are_left_out_saying_so() {
    let d = dir("huge");
    // 64 fields of 2048 bits (16384 B) after 14 B of Ethernet: more than
    // the largest packet, 16384 B.
    let fields: String = (0..64).map(|i| format!("bit<2048> f{i}; ")).collect();
    std::fs::write(d.join("h.p4"), WIDE.replace("WIDTH", &fields)).unwrap();
    let m = run_ok(&d, &["predict", "h.p4", "--packet-size", "16384"]);
    assert!(
        m.stdout.contains("(from 16398 B, path 1, to 16398 B, path 1); they fit in no packet: 16384 B is the largest --packet-size"),
        "{}",
        m.stdout
    );
    assert!(
        m.stdout.contains("listing the 1 that fit the packet"),
        "{}",
        m.stdout
    );
    // Asking for that path by name asks for a packet that cannot exist.
    let m = run(
        &d,
        &[
            "predict",
            "h.p4",
            "--path",
            "eth,w",
            "--packet-size",
            "16384",
        ],
    );
    assert_eq!(m.code, 2, "{}", m.stdout);
    assert!(
        m.stderr.contains("extracts 16398 B of headers, more than the 16384 B packet: no such packet exists; it fits in no packet: 16384 B is the largest --packet-size"),
        "{}",
        m.stderr
    );
}
