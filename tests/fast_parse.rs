//! The syntax crate's hand-written fast path against pest: every program
//! of the corpus parses to the same tree (or the same error) with the fast
//! path on and off, and the fast path takes nearly every declaration.

mod common;

use std::path::{Path, PathBuf};

use common::{local_corpus, p4_files, preprocessed, root};
use p4cost_syntax::parse_for_test;

/// Fast and slow parses of `text` agree; returns (fast, total) counts.
fn agree(label: &str, text: &str) -> (usize, usize) {
    let (fast, taken, items) = parse_for_test(text, true);
    let (slow, _, _) = parse_for_test(text, false);
    if fast != slow {
        panic!(
            "{label}: the fast path changed the parse\n{}",
            first_difference(&fast, &slow)
        );
    }
    (taken, items)
}

type Parse = Result<p4cost_syntax::ast::Program, p4cost_syntax::SyntaxError>;

/// The first declaration (or the error) where two parses differ.
fn first_difference(fast: &Parse, slow: &Parse) -> String {
    let (Ok(f), Ok(s)) = (fast, slow) else {
        return format!(
            "fast: {:?}\nslow: {:?}",
            fast.as_ref().err(),
            slow.as_ref().err()
        );
    };
    for (a, b) in f.decls.iter().zip(&s.decls) {
        if a != b {
            return format!("fast: {a:#?}\nslow: {b:#?}");
        }
    }
    format!("{} declarations against {}", f.decls.len(), s.decls.len())
}

/// Checks every file of `files`; returns the declarations taken and seen.
fn check_all(files: &[PathBuf], extra: &[PathBuf], defines: &[&str]) -> (usize, usize, usize) {
    let (mut taken, mut items, mut programs) = (0, 0, 0);
    for f in files {
        let Some(text) = preprocessed(f, extra, defines) else {
            continue;
        };
        let (t, i) = agree(&f.display().to_string(), &text);
        taken += t;
        items += i;
        programs += 1;
    }
    (taken, items, programs)
}

#[test]
fn the_committed_corpus_parses_the_same_and_mostly_fast() {
    let mut files = Vec::new();
    p4_files(&root().join("tests/fixtures"), &mut files);
    p4_files(&root().join("p4-samples"), &mut files);
    assert!(files.len() >= 100, "corpus has {} files", files.len());
    let (taken, items, programs) = check_all(&files, &[], &[]);
    assert!(programs >= 100, "only {programs} programs preprocessed");
    let share = taken as f64 / items.max(1) as f64;
    eprintln!(
        "fast path: {taken} of {items} declarations ({:.1} %)",
        share * 100.0
    );
    assert!(share >= 0.98, "fast path took {taken} of {items}");
}

/// The two large real programs: the fast path takes nearly every
/// declaration (a regression that sends them to pest fails here).
#[test]
fn switch_and_fabric_tna_take_the_fast_path() {
    let cases: [(&str, &[&str], f64); 3] = [
        ("tests/fixtures/programs/switch_p4_16.p4", &[], 0.99),
        (
            "tests/fixtures/fabric-tna/p4src/tna/fabric_tna.p4",
            &["WITH_UPF", "WITH_INT"],
            0.99,
        ),
        (
            "tests/fixtures/fabric-tna/p4src/tna/fabric_tna.p4",
            &[],
            0.99,
        ),
    ];
    for (file, defines, min) in cases {
        let path = root().join(file);
        // fabric-tna includes `shared/...` from `p4src`.
        let up = path.parent().and_then(Path::parent).map(Path::to_path_buf);
        let text = preprocessed(&path, &up.into_iter().collect::<Vec<_>>(), defines).expect(file);
        let (taken, items) = agree(file, &text);
        let share = taken as f64 / items.max(1) as f64;
        eprintln!("{file} {defines:?}: {taken} of {items}");
        assert!(items > 50, "{file}: {items} declarations");
        assert!(share >= min, "{file}: fast path took {taken} of {items}");
    }
}

/// Locally, over a directory of real programs (not in CI, which has none):
/// `P4COST_FAST_DIR=/path/to/p4_16_samples P4COST_FAST_INCLUDE=/path/to/p4include
/// [P4COST_FAST_DEFINES=A,B] cargo test --test fast_parse -- --ignored`.
#[test]
#[ignore]
fn a_local_directory_parses_the_same() {
    let Some((files, include)) = local_corpus("P4COST_FAST_DIR", "P4COST_FAST_INCLUDE") else {
        return;
    };
    let defines = std::env::var("P4COST_FAST_DEFINES").unwrap_or_default();
    let defines: Vec<&str> = defines.split(',').filter(|d| !d.is_empty()).collect();
    let (taken, items, programs) = check_all(&files, &include, &defines);
    eprintln!(
        "{programs} of {} programs preprocessed; fast path: {taken} of {items} declarations ({:.2} %)",
        files.len(),
        taken as f64 * 100.0 / items.max(1) as f64
    );
}
