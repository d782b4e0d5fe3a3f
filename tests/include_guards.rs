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
        r.stdout.contains("parser    GuardParser: 2 paths"),
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
        r.stdout.contains("parser    IgParser: 1 paths"),
        "{}",
        r.stdout
    );
}
