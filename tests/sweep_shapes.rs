//! Patterns from the robustness sweep over real programs (`scripts/sweep`):
//! each was once rejected or mishandled although p4c's preprocessor and
//! front end accept it. Every program here is our own, minimal, and shows
//! one pattern.

mod common;

use common::{p4cost, scratch};

/// A TNA program whose ingress control body is `ingress`, preceded by `top`.
fn tna(top: &str, ingress: &str) -> String {
    format!(
        "#include <core.p4>\n#include <tna.p4>\n{top}\n\
         header eth_h {{ bit<48> dst; bit<48> src; bit<16> etype; }}\n\
         struct hdr_t {{ eth_h eth; }}\nstruct md_t {{ bit<16> x; }}\n\
         parser IP(packet_in pkt, out hdr_t hdr, out md_t md, out ingress_intrinsic_metadata_t ig_md) {{\n\
           state start {{ pkt.extract(ig_md); pkt.advance(PORT_METADATA_SIZE); pkt.extract(hdr.eth); transition accept; }}\n}}\n\
         control Ig(inout hdr_t hdr, inout md_t md, in ingress_intrinsic_metadata_t ig_md,\n\
           in ingress_intrinsic_metadata_from_parser_t prsr, inout ingress_intrinsic_metadata_for_deparser_t dprsr,\n\
           inout ingress_intrinsic_metadata_for_tm_t tm) {{\n{ingress}\n}}\n\
         control ID(packet_out pkt, inout hdr_t hdr, in md_t md, in ingress_intrinsic_metadata_for_deparser_t dprsr) {{\n\
           apply {{ pkt.emit(hdr); }}\n}}\n\
         parser EP(packet_in pkt, out hdr_t hdr, out md_t md, out egress_intrinsic_metadata_t eg_md) {{\n\
           state start {{ pkt.extract(eg_md); transition accept; }}\n}}\n\
         control Eg(inout hdr_t hdr, inout md_t md, in egress_intrinsic_metadata_t eg_md,\n\
           in egress_intrinsic_metadata_from_parser_t prsr, inout egress_intrinsic_metadata_for_deparser_t dprsr,\n\
           inout egress_intrinsic_metadata_for_output_port_t oport) {{ apply {{ }} }}\n\
         control ED(packet_out pkt, inout hdr_t hdr, in md_t md, in egress_intrinsic_metadata_for_deparser_t dprsr) {{\n\
           apply {{ pkt.emit(hdr); }}\n}}\n\
         Pipeline(IP(), Ig(), ID(), EP(), Eg(), ED()) pipe;\nSwitch(pipe) main;\n"
    )
}

/// Writes `text` as `name` in a scratch directory and runs `p4cost cmd` on it.
fn run(dir: &str, name: &str, text: &str, cmd: &[&str]) -> common::Run {
    let d = scratch(dir);
    let file = d.join(name);
    std::fs::write(&file, text).expect("write program");
    let mut args = cmd.to_vec();
    let path = file.to_string_lossy().into_owned();
    args.push(&path);
    p4cost(&args)
}

#[test]
fn a_backslash_with_blanks_before_the_newline_continues_a_macro() {
    // GCC's and Clang's preprocessors splice `\ ` + newline (with a warning),
    // so p4c accepts a macro whose continuation has trailing blanks.
    let top = "#define SET_BOTH \\\n    md.x = 1; \\   \t\n    md.x = 2;\n";
    let ingress = "apply { SET_BOTH }";
    let r = run("splice-blanks", "p.p4", &tna(top, ingress), &["predict"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn an_unknown_directive_is_ignored_as_p4c_ignores_it() {
    // p4c preprocesses with `cpp -x assembler-with-cpp` (unknown directives
    // pass through) and its lexer skips lines starting with `#`, so a
    // `#`-commented block or a tool's marker line is accepted.
    let top = "#####\n# tool:strip_begin(internal note)\n#enum bit<8> unused_t {\n#    A = 1\n#}\n";
    let r = run(
        "unknown-directive",
        "p.p4",
        &tna(top, "apply { md.x = 1; }"),
        &["predict"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    // The report's front-end warnings name the first of the run only.
    assert!(
        r.stdout.contains("unknown directive #tool ignored") && !r.stdout.contains("#enum"),
        "{}",
        r.stdout
    );
}

#[test]
fn check_of_a_program_whose_every_parse_path_rejects_is_a_no_packet_finding() {
    // Every parse path ends in reject: no class to hold to a budget. That is
    // a finding about the program (as when no path fits the packet), not a
    // complaint that the model has no per-class latency.
    let text = tna("", "apply { md.x = 1; }").replace(
        "pkt.extract(hdr.eth); transition accept;",
        "pkt.extract(hdr.eth); transition reject;",
    );
    let r = run(
        "all-reject",
        "p.p4",
        &text,
        &["check", "--no-config", "--max-latency", "1000"],
    );
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("no parse path reaches accept"),
        "{}{}",
        r.stdout,
        r.stderr
    );
    assert!(
        !r.stderr.contains("gives no latency per packet class"),
        "{}",
        r.stderr
    );
}
