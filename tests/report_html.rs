//! `p4cost report` (issue 29): one self-contained HTML page per input
//! kind (P4 source, BMv2 JSON, context.json + bfrt.json), checked for its
//! structure without a browser: no external URL, each section present,
//! element counts that follow from the engine's own JSON of the same input.

mod common;

use common::{json, p4cost, scratch};

const TNA: &str = "p4-samples/tofino/tc3_edge_mpls.p4";
const CHAIN: &str = "p4-samples/tofino/deps/chain_13.p4";
const CONTEXT: &str = "tests/fixtures/tofino/fabric-tna__fabric__sde9.2.0__context.json";
const BFRT: &str = "tests/fixtures/tofino/fabric-tna__fabric__sde9.2.0__bfrt.json";
const BMV2: &str = "tests/fixtures/bmv2/basic_routing-bmv2.json";

/// Runs `report ARGS -o <scratch>/name.html` and reads the page.
fn page(name: &str, args: &[&str], code: i32) -> String {
    let dir = scratch(name);
    let out = dir.join("report.html");
    let out_s = out.to_str().expect("utf-8 path");
    let mut a = vec!["report"];
    a.extend_from_slice(args);
    a.extend(["-o", out_s]);
    let r = p4cost(&a);
    assert_eq!(r.code, code, "p4cost {a:?}: {}", r.stderr);
    std::fs::read_to_string(&out).expect("the page was written")
}

fn count(hay: &str, needle: &str) -> usize {
    hay.matches(needle).count()
}

/// Nothing the page loads comes from the network: no `src`/`href` to an
/// http(s) URL, no `<link>` or external script, no `@import` or `url(`.
fn assert_offline(html: &str) {
    for bad in [
        "src=\"http",
        "href=\"http",
        "src=\"//",
        "href=\"//",
        "<link",
        "@import",
        "url(",
        "<script src",
    ] {
        assert!(!html.contains(bad), "the page fetches something: {bad}");
    }
    assert!(html.starts_with("<!DOCTYPE html>"), "{}", &html[..40]);
    assert_eq!(count(html, "<script>"), 1, "one inline script");
}

/// The P4 source of a TNA program: every section, the histogram's bars
/// as many as the engine's bins, one stage column per chip stage and
/// gress, one dependency-graph node per unit the `deps` JSON lists.
#[test]
fn tna_source_report_has_every_section_drawn() {
    let html = page("tna", &[TNA], 0);
    assert_offline(&html);
    for id in [
        "id=\"summary\"",
        "id=\"stages\"",
        "id=\"deps\"",
        "id=\"parse\"",
        "id=\"classes\"",
        "id=\"warnings\"",
    ] {
        assert!(html.contains(id), "section {id} missing");
    }
    assert_eq!(
        count(&html, "<rect class=\"bar\""),
        p4cost_engine::pipeline_view::HISTOGRAM_BINS
    );
    assert!(html.contains("median"), "median marked");
    // The bars count every class once.
    let in_bars: u128 = html
        .split("<rect class=\"bar\"")
        .skip(1)
        .map(|b| {
            let t = b.split("<title>").nth(1).expect("bar title");
            t.split(' ')
                .next()
                .expect("count")
                .parse::<u128>()
                .expect("a count")
        })
        .sum();
    // Stage map: 12 stages a gress on Tofino 1, estimated.
    let st = json(&["stages", TNA, "--format", "json"]);
    let gresses = ["ingress", "egress"]
        .iter()
        .filter(|g| !st["mau"][**g].is_null())
        .count();
    assert_eq!(count(&html, "<g class=\"stage\""), 12 * gresses);
    assert!(html.contains("ESTIMATED"));
    assert_eq!(count(&html, "<g class=\"placed chain\""), chain_len(TNA));
    // Memory: each table's SRAM/TCAM blocks per stage as a bar; a stage's
    // totals are its tables' blocks, within the stage's capacity.
    assert!(html.contains("Bars under each table"));
    assert!(count(&html, "class=\"mem sram\"") > 0);
    for svg in html.split("data-gress=").skip(1) {
        let svg = &svg[..svg.find("</svg>").expect("svg end")];
        for stage in svg.split("<g class=\"stage\"").skip(1) {
            let Some(at) = stage.find("memory (estimate): ") else {
                continue;
            };
            let nums: Vec<u32> = stage[at..]
                .split(|c: char| !c.is_ascii_digit())
                .filter(|x| !x.is_empty())
                .take(4)
                .map(|x| x.parse().expect("number"))
                .collect();
            let (sram, cap_s, tcam, cap_t) = (nums[0], nums[1], nums[2], nums[3]);
            assert!(sram <= cap_s && tcam <= cap_t, "{nums:?}");
            let n: u32 = stage["data-stage=\"".len() + 1..]
                .split('"')
                .next()
                .and_then(|x| x.parse().ok())
                .unwrap_or(u32::MAX);
            let tag = format!("memory in stage {n}: ");
            let (mut s, mut t) = (0, 0);
            for m in svg.split(&tag).skip(1) {
                let v: Vec<u32> = m
                    .split(|c: char| !c.is_ascii_digit())
                    .filter(|x| !x.is_empty())
                    .take(2)
                    .map(|x| x.parse().expect("number"))
                    .collect();
                s += v[0];
                t += v[1];
            }
            assert_eq!((s, t), (sram, tcam), "stage {n}");
        }
    }
    // Dependency graph: one node per unit of the estimate's graphs, one
    // path per edge (the estimate's graph is `deps`' with the model's
    // shared containers, so at least as many edges).
    let d = json(&["deps", TNA, "--format", "json"]);
    let units: usize = d["graphs"]
        .as_array()
        .expect("graphs")
        .iter()
        .map(|g| g["units"].as_array().map_or(0, Vec::len))
        .sum();
    let edges: usize = d["graphs"]
        .as_array()
        .expect("graphs")
        .iter()
        .map(|g| g["edges"].as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(count(&html, "<g class=\"unit "), units);
    assert!(count(&html, "<path class=\"edge ") >= edges);
    // Every parse state with bytes and its source line.
    let p = json(&["predict", TNA, "--format", "json"]);
    let states = p["state_terms"].as_array().expect("state terms").len();
    assert!(count(&html, "<g class=\"state\"") >= states);
    // Classes: all counted, listed rows as the predict JSON lists them.
    let listed: usize = p["paths"]
        .as_array()
        .expect("paths")
        .iter()
        .map(|x| x["classes"]["classes"].as_array().map_or(0, Vec::len))
        .sum();
    let body = html.split("id=\"classtable\"").nth(1).expect("class table");
    let body = body.split("</table>").next().expect("table end");
    assert_eq!(count(body, "<tr>") - 1, listed);
    assert_eq!(
        Some(in_bars.to_string().as_str()),
        p["classes"]["count"]["text"].as_str()
    );
    assert!(html.contains(&format!(
        "{} packet classes in all",
        p["classes"]["count"]["text"].as_str().expect("count")
    )));
    // Source lines beside tables: the file and its text.
    assert!(html.contains(&format!("{TNA}:")));
    assert!(html.contains("<code class=\"line\">"));
}

/// Units on the estimate's chains (`stages` JSON `basis[].chain`).
fn chain_len(program: &str) -> usize {
    let st = json(&["stages", program, "--format", "json"]);
    st["basis"]
        .as_array()
        .expect("basis")
        .iter()
        .map(|b| b["chain"].as_array().map_or(0, Vec::len))
        .sum()
}

/// The chain that sets the stage count: each of its units outlined once in
/// the stage map, found by unit, not by name (names such as `tbl_assign`
/// repeat; matched by name, fabric-tna's map outlined 32 boxes for its 15).
#[test]
fn the_chain_is_outlined_unit_by_unit() {
    let p = "p4-samples/tofino/realistic/l3_router.p4";
    let html = page("chain-units", &[p], 0);
    let n = chain_len(p);
    assert!(n >= 4, "{n}");
    assert_eq!(count(&html, "<g class=\"placed chain\""), n);
}

/// A program over its chip's stages: the page is written, the overflow
/// drawn past the chip's 12 stages with the chain, and the exit is 1.
#[test]
fn does_not_fit_is_drawn_as_the_overflow() {
    let html = page("chain", &[CHAIN], 1);
    assert_offline(&html);
    assert!(html.contains("Does not fit"));
    assert_eq!(count(&html, "class=\"fits\""), 12);
    assert!(count(&html, "class=\"over\"") >= 1);
    assert!(html.contains("Ig.t0 → Ig.t1 → Ig.t2"));
}

/// The compiler's context.json with its bfrt.json: the placement is the
/// compiler's, marked exact, each table in the stage it was placed in.
#[test]
fn context_report_shows_the_compilers_placement_as_exact() {
    let html = page("ctx", &[CONTEXT, "--bfrt", BFRT], 0);
    assert_offline(&html);
    assert!(html.contains("The compiler's placement (context.json), exact"));
    assert!(!html.contains("ESTIMATED"));
    assert!(html.contains("No packet classes for this model and input"));
    assert!(html.contains("No parse graph in this input."));
    let st = json(&["stages", CONTEXT, "--format", "json"]);
    let stages = |g: &str| st["mau"][g]["stages"].as_array().map_or(0, Vec::len);
    assert_eq!(
        count(&html, "<g class=\"stage\""),
        stages("ingress") + stages("egress")
    );
    let placed: usize = ["ingress", "egress"]
        .iter()
        .flat_map(|g| st["mau"][*g]["stages"].as_array().into_iter().flatten())
        .map(|s| s["tables"].as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(
        count(&html, "<g class=\"placed\"") + count(&html, "<g class=\"placed chain\""),
        placed
    );
}

/// A BMv2 JSON of a v1model program: no Tofino stage map (said why), the
/// dependency graph by depth, the parse graph and the classes.
#[test]
fn bmv2_report_has_no_stage_map_and_says_why() {
    let html = page("bmv2", &[BMV2], 0);
    assert_offline(&html);
    assert!(html.contains("No stage map: "), "says why");
    assert!(html.contains("not Tofino"));
    assert!(html.contains("depth in match/action dependencies"));
    assert!(count(&html, "<g class=\"unit ") > 0);
    assert!(html.contains("class=\"parsegraph\""));
}

/// Names with markup characters are escaped by the templates: a gateway
/// `if (a.isValid() && b == C)` is text (`&amp;&amp;`), never markup, in
/// everything before the page's script.
#[test]
fn text_is_escaped() {
    let html = page("esc", &["p4-samples/tofino/tc2_datacenter.p4"], 0);
    let body = html.split("<script>").next().expect("page");
    assert!(body.contains("&amp;&amp;"), "a condition with && is shown");
    assert!(!body.contains("&& "), "raw && in the markup");
    assert!(!body.contains("< "), "raw < in the markup");
}

/// An input error is exit 2 with the error, and no page.
#[test]
fn input_errors_write_no_page() {
    let dir = scratch("err");
    let out = dir.join("r.html");
    let r = p4cost(&[
        "report",
        "no/such/file.p4",
        "-o",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(!out.exists());
    // The output may not be an input.
    let r = p4cost(&["report", TNA, "-o", TNA]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}
