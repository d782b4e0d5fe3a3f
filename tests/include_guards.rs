//! Programs that test the include guards of the architecture files (as p4c's
//! `*-skeleton.p4` samples do) see them defined by our bundled includes.

mod common;

use common::p4cost;

#[test]
fn v1model_program_testing_the_guards_predicts() {
    let r = p4cost(&["predict", "tests/fixtures/guards/guarded.p4"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // the fragment behind `#if defined(_CORE_P4_) && defined(_V1_MODEL_P4_)` was kept:
    // its parser has the two paths eth and eth -> tag
    assert!(
        r.stdout
            .contains("parser    GuardParser (slot parser): 2 paths"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("hdr.eth -> hdr.tag"), "{}", r.stdout);
}

#[test]
fn tna_program_testing_the_guards_predicts() {
    let r = p4cost(&["predict", "tests/fixtures/guards/tna_guarded.p4"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("(tna, p4_source)"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("parser    IgParser (slot ingress_parser): 1 paths"),
        "{}",
        r.stdout
    );
}

/// `bmv2/psa.p4` is p4cost's psa.p4 for the BMv2 target: a program that
/// includes it gets PSA's blocks and package (its own guard of psa.p4's
/// name once emptied it: 'no ingress parser found').
#[test]
fn psa_program_including_bmv2_psa_predicts() {
    let sample = std::fs::read_to_string(common::root().join("p4-samples/psa/nested_pipelines.p4"))
        .expect("sample");
    let src = sample.replace("#include <psa.p4>", "#include <bmv2/psa.p4>");
    assert_ne!(src, sample);
    let d = common::scratch("bmv2-psa");
    let f = d.join("bmv2_psa.p4");
    std::fs::write(&f, src).expect("write");
    let r = p4cost(&["predict", f.to_str().expect("utf-8 path")]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("(psa, p4_source)"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("parser    IgParser (slot ingress_parser): 3 paths"),
        "{}",
        r.stdout
    );
}
