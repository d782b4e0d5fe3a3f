//! What the editor reuses between keystrokes changes no answer: a sequence
//! of edits (a table's size, a constant, a comment, a line inserted or
//! deleted, a syntax error and its fix, a `#define` of an include changed)
//! is loaded through one `Reuse`, as the language server's worker does,
//! and each load is compared with a fresh one: the program, its warnings
//! and errors, and for some the editor's facts (every hint, hover and
//! diagnostic is rendered from them).

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use p4cost_engine::overlay::Overlay;
use p4cost_engine::{ide, input, PredictOptions, Session};

use common::{root, scratch, Lcg};

/// One realistic one-line edit of `text`, chosen by `rng`, and what it is.
fn edit(text: &str, rng: &mut Lcg) -> (String, String) {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let pick = |rng: &mut Lcg, lines: &[String], want: &dyn Fn(&str) -> bool| {
        let cands: Vec<usize> = (0..lines.len()).filter(|&i| want(&lines[i])).collect();
        cands.get(rng.below(cands.len())).copied()
    };
    let what = match rng.below(6) {
        0 => match pick(rng, &lines, &|l| l.trim_start().starts_with("size")) {
            Some(i) => {
                let n = [16, 512, 4096, 100000][rng.below(4)];
                lines[i] = format!("        size = {n};");
                format!("size = {n} at line {}", i + 1)
            }
            None => "no table size".to_string(),
        },
        1 => match pick(rng, &lines, &|l| l.trim_end().ends_with(';')) {
            Some(i) => {
                lines[i].push_str(" // edited");
                format!("a comment at line {}", i + 1)
            }
            None => "no statement".to_string(),
        },
        2 => {
            let i = rng.below(lines.len());
            lines.insert(i, String::new());
            format!("a line inserted before line {}", i + 1)
        }
        3 => match pick(rng, &lines, &|l| l.trim().is_empty()) {
            Some(i) => {
                lines.remove(i);
                format!("empty line {} deleted", i + 1)
            }
            None => "no empty line".to_string(),
        },
        4 => match pick(rng, &lines, &|l| l.contains("apply();")) {
            Some(i) => {
                lines[i] = lines[i].replace("apply();", "apply()");
                format!("a `;` dropped at line {} (a syntax error)", i + 1)
            }
            None => "no apply".to_string(),
        },
        _ => match pick(rng, &lines, &|l| {
            l.contains("apply()") && !l.contains("apply();")
        }) {
            Some(i) => {
                lines[i] = lines[i].replace("apply()", "apply();");
                format!("the `;` put back at line {}", i + 1)
            }
            None => "nothing to fix".to_string(),
        },
    };
    let mut out = lines.join("\n");
    out.push('\n');
    (out, what)
}

/// A fresh load and one through `reuse` agree on `text` (the document at
/// `path`); with `facts`, so do the editor's facts of both.
fn agree(
    o: &PredictOptions,
    overlay: &Overlay,
    reuse: &mut input::Reuse,
    text: &str,
    facts: bool,
    what: &str,
) {
    let fresh = input::load_text(&o.file, text.to_string(), &o.source, overlay);
    let reused = input::load_text_reusing(&o.file, text.to_string(), &o.source, overlay, reuse);
    assert_eq!(
        format!("{fresh:?}"),
        format!("{reused:?}"),
        "after {what}: the load through the reuse differs"
    );
    if facts {
        let of = |loaded| {
            let mut s = Session::new();
            s.preload(o, loaded);
            format!("{:?}", ide::facts(&mut s, o, &[]))
        };
        assert_eq!(of(fresh), of(reused), "after {what}: the facts differ");
    }
}

/// `edits` edits of the document at `file`, each compared; the facts
/// compared every `facts_every` edits.
fn run(
    o: &PredictOptions,
    overlay: &mut Overlay,
    edits: usize,
    facts_every: usize,
    seed: u64,
) -> usize {
    let mut rng = Lcg(seed);
    let mut reuse = input::Reuse::new();
    let mut text = std::fs::read_to_string(&o.file).expect("program");
    agree(o, overlay, &mut reuse, &text, true, "opening");
    let mut taken = 0;
    for k in 0..edits {
        let (next, what) = edit(&text, &mut rng);
        text = next;
        overlay.set(o.file.clone(), Arc::from(text.as_str()));
        agree(o, overlay, &mut reuse, &text, k % facts_every == 0, &what);
        taken += reuse.parse_counts().0;
    }
    taken
}

#[test]
fn edits_of_switch_p4_16_give_a_fresh_analysis_answers() {
    let dir = scratch("reuse-switch");
    let file = dir.join("switch_p4_16.p4");
    std::fs::copy(
        root().join("tests/fixtures/programs/switch_p4_16.p4"),
        &file,
    )
    .expect("copy");
    let o = PredictOptions::new(&file);
    let taken = run(&o, &mut Overlay::new(), 16, 8, 7);
    assert!(taken > 16, "declarations were taken back: {taken}");
}

/// fabric-tna's tree, copied into `dir`.
fn fabric_tna(dir: &Path) -> PathBuf {
    let from = root().join("tests/fixtures/fabric-tna/p4src");
    common::copy_tree(&from, dir);
    dir.join("tna/fabric_tna.p4")
}

#[test]
fn edits_of_fabric_tna_and_of_its_includes_give_a_fresh_analysis_answers() {
    let dir = scratch("reuse-fabric");
    let file = fabric_tna(&dir);
    let mut o = PredictOptions::new(&file);
    o.source.include_dirs = vec![dir.clone()];
    o.source.defines = vec![("WITH_INT".to_string(), None)];
    let mut overlay = Overlay::new();
    run(&o, &mut overlay, 12, 4, 11);
    // An include's `#define` changed in its open buffer: a table's size.
    let mut reuse = input::Reuse::new();
    let text = std::fs::read_to_string(&file).expect("program");
    overlay.set(file.clone(), Arc::from(text.as_str()));
    agree(&o, &overlay, &mut reuse, &text, false, "opening");
    let size = dir.join("shared/size.p4");
    let sizes = std::fs::read_to_string(&size).expect("size.p4");
    let line = sizes
        .lines()
        .find(|l| l.starts_with("#define") && l.trim_end().ends_with(char::is_numeric))
        .expect("a numeric #define");
    let changed = sizes.replacen(line, &format!("{line}0"), 1);
    overlay.set(size.clone(), Arc::from(changed.as_str()));
    agree(
        &o,
        &overlay,
        &mut reuse,
        &text,
        true,
        &format!("`{line}` x10 in size.p4"),
    );
    // And a `-D` that the program tests (the profile changes).
    o.source.defines.clear();
    agree(&o, &overlay, &mut reuse, &text, true, "-DWITH_INT dropped");
}

/// The editor's facts with its class memo (the language server keeps one
/// per document) equal those of a cold analysis after each edit, and the
/// edits that change no class input take the class figures back.
fn memo_agrees(o: &PredictOptions, edits: &[(&str, &str)]) -> usize {
    let mut memo_o = o.clone();
    memo_o.class_memo = p4cost_engine::class_memo::ClassMemo::new();
    let mut text = std::fs::read_to_string(&o.file).expect("program");
    let mut overlay = Overlay::new();
    let mut reuse = input::Reuse::new();
    let mut step = |text: &str, what: &str| {
        overlay.set(o.file.clone(), Arc::from(text));
        let facts = |o: &PredictOptions, loaded| {
            let mut s = Session::new();
            s.preload(o, loaded);
            format!("{:?}", ide::facts(&mut s, o, &[]))
        };
        let cold = input::load_text(&o.file, text.to_string(), &o.source, &overlay);
        let warm =
            input::load_text_reusing(&o.file, text.to_string(), &o.source, &overlay, &mut reuse);
        assert_eq!(
            facts(o, cold),
            facts(&memo_o, warm),
            "after {what}: the facts with the class memo differ"
        );
    };
    step(&text, "opening");
    for (from, to) in edits {
        let at = text.find(from).expect("the text to edit");
        text = format!("{}{to}{}", &text[..at], &text[at + from.len()..]);
        step(&text, &format!("`{from}` -> `{to}`"));
    }
    memo_o.class_memo.hits()
}

#[test]
fn class_figures_kept_between_edits_equal_a_cold_analysis() {
    let dir = scratch("memo-switch");
    let file = dir.join("switch_p4_16.p4");
    std::fs::copy(
        root().join("tests/fixtures/programs/switch_p4_16.p4"),
        &file,
    )
    .expect("copy");
    let o = PredictOptions::new(&file);
    let hits = memo_agrees(
        &o,
        &[
            // A comment: every later declaration moves, no class input changes.
            ("size = 1024;", "size = 1024; // reviewed"),
            // A table's size: the program changes, the memo is not used.
            ("size = 1024;", "size = 4096;"),
            // A line inserted near the top.
            ("\nheader ", "\n\nheader "),
            // And the comment taken out again.
            (" // reviewed", ""),
        ],
    );
    assert!(
        hits >= 2,
        "the comment and the line took the classes back: {hits}"
    );
}

/// Definitions in the root file that unchanged controls use: a
/// `#define` used by later tables, a constant and a typedef; each changed
/// alone, with the controls that use them left as they are. The facts
/// through the document's `Reuse` and class memo are a cold analysis's
/// (a changed `#define` re-expands every use after it, a changed const or
/// typedef lowers again what reads it).
#[test]
fn root_definitions_used_by_unchanged_controls_answer_as_a_fresh_analysis() {
    let dir = scratch("defs-switch");
    let file = dir.join("switch_p4_16.p4");
    std::fs::copy(
        root().join("tests/fixtures/programs/switch_p4_16.p4"),
        &file,
    )
    .expect("copy");
    let o = PredictOptions::new(&file);
    let edits = [
        (
            "#define V1MODEL_VERSION 20200408\n",
            "#define V1MODEL_VERSION 20200408\n#define SIZE_A 1024\n\
             typedef bit<12> label_t;\nconst bit<32> SIZE_B = 512;\n",
        ),
        ("size = 1024;", "size = SIZE_A;"),
        ("size = 1024;", "size = SIZE_A;"),
        ("size = 1024;", "size = SIZE_B;"),
        ("bit<16> if_label;", "label_t if_label;"),
        ("#define SIZE_A 1024", "#define SIZE_A 4096"),
        ("const bit<32> SIZE_B = 512;", "const bit<32> SIZE_B = 64;"),
        ("typedef bit<12> label_t;", "typedef bit<8> label_t;"),
        ("#define SIZE_A 4096", "#define SIZE_A 16"),
        ("#define SIZE_A 16\n", "\n#define SIZE_A 16\n"),
    ];
    // The loads and facts through one `Reuse`, each edit changing the program.
    let mut overlay = Overlay::new();
    let mut reuse = input::Reuse::new();
    let mut text = std::fs::read_to_string(&file).expect("program");
    let program = |text: &str, overlay: &Overlay| {
        let loaded = input::load_text(&file, text.to_string(), &o.source, overlay);
        format!("{:?}", loaded.expect("loads").program)
    };
    let mut before = program(&text, &overlay);
    for (from, to) in edits {
        let at = text.find(from).expect("the text to edit");
        text = format!("{}{to}{}", &text[..at], &text[at + from.len()..]);
        overlay.set(file.clone(), Arc::from(text.as_str()));
        let what = format!("`{from}` -> `{to}`");
        agree(&o, &overlay, &mut reuse, &text, true, &what);
        let now = program(&text, &overlay);
        assert_ne!(now, before, "{what} changes the program");
        before = now;
    }
    // And with the class memo, as the language server keeps it.
    memo_agrees(&o, &edits);
}

#[allow(dead_code)]
#[path = "edits/timed.rs"]
mod edits;
use edits::{fabric_edit, switch_edit as timed_edit};

/// The 20 edits the latency test times, analysed as the language server's
/// worker does (the document's `Reuse` and class memo), give after each
/// edit the facts of a fresh analysis (every diagnostic, hint and hover is
/// rendered from them); a comment added moves every later declaration,
/// which is taken back, not parsed again.
#[test]
fn the_timed_edits_of_switch_p4_16_answer_as_a_fresh_analysis() {
    let dir = scratch("timed-switch");
    let file = dir.join("switch_p4_16.p4");
    std::fs::copy(
        root().join("tests/fixtures/programs/switch_p4_16.p4"),
        &file,
    )
    .expect("copy");
    let o = PredictOptions::new(&file);
    let mut kept = o.clone();
    kept.class_memo = p4cost_engine::class_memo::ClassMemo::new();
    let mut text = std::fs::read_to_string(&file).expect("program");
    let mut overlay = Overlay::new();
    let mut reuse = input::Reuse::new();
    let facts = |o: &PredictOptions, loaded| {
        let mut s = Session::new();
        s.preload(o, loaded);
        format!("{:?}", ide::facts(&mut s, o, &[]))
    };
    for k in 0..=20 {
        if k > 0 {
            text = timed_edit(k - 1, &text);
        }
        overlay.set(file.clone(), Arc::from(text.as_str()));
        let warm = input::load_text_reusing(&file, text.clone(), &o.source, &overlay, &mut reuse);
        let (taken, parsed) = reuse.parse_counts();
        let cold = input::load_text(&file, text.clone(), &o.source, &overlay);
        assert_eq!(facts(&o, cold), facts(&kept, warm), "after edit {k}");
        if k > 0 && (k - 1) % 4 == 1 {
            assert_eq!(
                parsed, 1,
                "edit {k}: only the edited declaration ({taken} taken)"
            );
        }
    }
}

/// fabric_tna.p4's 20 timed edits, then edits of what its includes see:
/// a macro the root defines before `#include "shared/size.p4"` (which
/// that file then redefines, with a warning), taken out again, and
/// size.p4's own text changed in its buffer, a typedef and a header
/// field the unchanged controls use changed in theirs. After each, the facts
/// through the document's `Reuse` (its preprocessed includes taken back
/// when the state they start from is the same) and class memo are a fresh
/// analysis's.
#[test]
fn the_timed_edits_of_fabric_tna_and_its_includes_macro_context_answer_as_a_fresh_analysis() {
    let dir = scratch("timed-fabric");
    let file = fabric_tna(&dir);
    let mut o = PredictOptions::new(&file);
    o.source.include_dirs = vec![dir.clone()];
    o.source.defines = vec![("WITH_INT".to_string(), None)];
    let mut kept = o.clone();
    kept.class_memo = p4cost_engine::class_memo::ClassMemo::new();
    let mut text = std::fs::read_to_string(&file).expect("program");
    let mut overlay = Overlay::new();
    let mut reuse = input::Reuse::new();
    let facts = |o: &PredictOptions, loaded| {
        let mut s = Session::new();
        s.preload(o, loaded);
        format!("{:?}", ide::facts(&mut s, o, &[]))
    };
    let step = |text: &str, overlay: &Overlay, reuse: &mut input::Reuse, what: &str| {
        let warm = input::load_text_reusing(&file, text.to_string(), &o.source, overlay, reuse);
        let cold = input::load_text(&file, text.to_string(), &o.source, overlay);
        assert_eq!(facts(&o, cold), facts(&kept, warm), "after {what}");
    };
    for k in 0..=20 {
        if k > 0 {
            text = fabric_edit(k - 1, &text);
        }
        overlay.set(file.clone(), Arc::from(text.as_str()));
        step(&text, &overlay, &mut reuse, &format!("edit {k}"));
    }
    assert!(
        reuse.include_hits() >= 20 * 10,
        "each edit took the includes back: {}",
        reuse.include_hits()
    );
    let size_include = "#include \"shared/size.p4\"";
    let redefined = text.replacen(
        size_include,
        &format!("#define PORT_VLAN_TABLE_SIZE 64\n{size_include}"),
        1,
    );
    assert_ne!(redefined, text, "fabric_tna.p4 includes shared/size.p4");
    for (t, what) in [
        (&redefined, "a macro size.p4 defines, defined before it"),
        (&text, "that macro taken out"),
    ] {
        overlay.set(file.clone(), Arc::from(t.as_str()));
        step(t, &overlay, &mut reuse, what);
    }
    let size = dir.join("shared/size.p4");
    let sizes = std::fs::read_to_string(&size).expect("size.p4");
    let changed = sizes.replacen("1024", "2048", 1);
    overlay.set(size, Arc::from(changed.as_str()));
    step(
        &text,
        &overlay,
        &mut reuse,
        "a size in size.p4's buffer doubled",
    );
    // A typedef and a header field the unchanged controls use, changed in
    // their includes' buffers: keys and extracts read the new widths.
    for (file, from, to) in [
        (
            "shared/define.p4",
            "typedef bit<32> next_id_t;",
            "typedef bit<16> next_id_t;",
        ),
        (
            "shared/header.p4",
            "bit<16> ether_type;",
            "bit<8> ether_type;",
        ),
    ] {
        let path = dir.join(file);
        let old = std::fs::read_to_string(&path).expect("include");
        let new = old.replacen(from, to, 1);
        assert_ne!(new, old, "{file} has `{from}`");
        overlay.set(path, Arc::from(new.as_str()));
        step(
            &text,
            &overlay,
            &mut reuse,
            &format!("`{from}` -> `{to}` in {file}"),
        );
        step(
            &text.replacen("\n", "\n\n", 1),
            &overlay,
            &mut reuse,
            "then a line inserted in the root",
        );
    }
}
