//! The syntax crate's two-thread parse of large programs against the
//! sequential one: every program of the corpus parses to the same tree
//! (or the same error) with its top-level declarations split between two
//! threads, the split taken whenever the text has a sound split point.

mod common;

use std::path::{Path, PathBuf};

use common::{local_corpus, p4_files, preprocessed, root};
use p4cost_syntax::{parse_split_for_test, Split};

/// `text` split whatever its size parses as it does on one thread;
/// returns how the split went.
fn agree(label: &str, text: &str) -> Split {
    let (one, none) = parse_split_for_test(text, usize::MAX);
    assert_eq!(none, Split::None, "{label}");
    let (two, how) = parse_split_for_test(text, 0);
    if one != two {
        let first = match (&one, &two) {
            (Ok(a), Ok(b)) => a
                .decls
                .iter()
                .zip(&b.decls)
                .find(|(x, y)| x != y)
                .map(|(x, y)| format!("one thread: {x:#?}\ntwo threads: {y:#?}"))
                .unwrap_or_else(|| format!("{} against {}", a.decls.len(), b.decls.len())),
            _ => format!("one thread: {:?}\ntwo threads: {:?}", one.err(), two.err()),
        };
        panic!("{label}: the split ({how:?}) changed the parse\n{first}");
    }
    how
}

/// Checks every file of `files`; returns how many preprocessed and how
/// many of those took the split.
fn check_all(files: &[PathBuf], extra: &[PathBuf], defines: &[&str]) -> (usize, usize) {
    let (mut programs, mut taken) = (0, 0);
    for f in files {
        let Some(text) = preprocessed(f, extra, defines) else {
            continue;
        };
        programs += 1;
        taken += usize::from(agree(&f.display().to_string(), &text) == Split::Taken);
    }
    (programs, taken)
}

#[test]
fn the_committed_corpus_parses_the_same_on_two_threads() {
    let mut files = Vec::new();
    p4_files(&root().join("tests/fixtures"), &mut files);
    p4_files(&root().join("p4-samples"), &mut files);
    let (programs, taken) = check_all(&files, &[], &[]);
    assert!(programs >= 100, "only {programs} programs preprocessed");
    eprintln!("split taken in {taken} of {programs} programs");
    assert!(
        taken * 10 >= programs * 9,
        "split taken in {taken} of {programs}"
    );
}

/// The large real programs, and their concatenation (over the split
/// threshold, so `parse` itself splits it).
#[test]
fn switch_and_fabric_tna_parse_the_same_on_two_threads() {
    let cases: [(&str, &[&str]); 3] = [
        ("tests/fixtures/programs/switch_p4_16.p4", &[]),
        (
            "tests/fixtures/fabric-tna/p4src/tna/fabric_tna.p4",
            &["WITH_UPF", "WITH_INT"],
        ),
        ("tests/fixtures/fabric-tna/p4src/tna/fabric_tna.p4", &[]),
    ];
    let mut all = String::new();
    for (file, defines) in cases {
        let path = root().join(file);
        // fabric-tna includes `shared/...` from `p4src`.
        let up = path.parent().and_then(Path::parent).map(Path::to_path_buf);
        let text = preprocessed(&path, &up.into_iter().collect::<Vec<_>>(), defines).expect(file);
        assert_eq!(agree(file, &text), Split::Taken, "{file}");
        all.push_str(&text);
        all.push('\n');
    }
    assert!(all.len() >= p4cost_syntax::SPLIT_MIN_BYTES);
    assert_eq!(agree("all three", &all), Split::Taken);
    let (split, how) = parse_split_for_test(&all, p4cost_syntax::SPLIT_MIN_BYTES);
    assert_eq!(how, Split::Taken);
    assert_eq!(split, p4cost_syntax::parse(&all));
}

/// Locally, over a directory of real programs (not in CI, which has none):
/// `P4COST_SPLIT_DIR=/path/to/p4_16_samples P4COST_SPLIT_INCLUDE=/path/to/p4include
/// cargo test --test split_parse -- --ignored`.
#[test]
#[ignore]
fn a_local_directory_parses_the_same_on_two_threads() {
    let Some((files, include)) = local_corpus("P4COST_SPLIT_DIR", "P4COST_SPLIT_INCLUDE") else {
        return;
    };
    let (programs, taken) = check_all(&files, &include, &[]);
    eprintln!(
        "{programs} of {} programs preprocessed, split taken in {taken}",
        files.len()
    );
}
