//! The lowering the editor takes back between edits (each unchanged
//! control's lowered actions, tables and graph, moved to where its text
//! now is) gives exactly the program a cold load gives: random sequences
//! of edits (a line inserted or deleted before, inside or after a control,
//! a comment typed, a field width of a type the controls use changed, a
//! table or sub-control application commented out or put back) are loaded
//! through one `Reuse` and compared, program and warnings, with a load
//! from nothing; on switch_p4_16.p4, fabric_tna.p4 (`-DWITH_INT`, and an
//! edit of an included control) and p4c's v1model-special-ops-bmv2.p4,
//! whose controls apply sub-controls (two instances of each).

mod common;

use std::path::{Path, PathBuf};

use p4cost_front::{Disk, Options, Reuse};

use common::{root, scratch, Lcg};

/// The lines of `lines` that start a control, with the line ending it.
fn controls(lines: &[String]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.starts_with("control ") && !l.trim_end().ends_with(';') {
            let end = (i + 1..lines.len()).find(|&j| lines[j].starts_with('}'));
            out.extend(end.map(|e| (i, e)));
        }
    }
    out
}

/// One random edit of `text` and what it was.
fn edit(text: &str, rng: &mut Lcg) -> (String, String) {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let ctls = controls(&lines);
    let pick = |rng: &mut Lcg, lines: &[String], want: &dyn Fn(&str) -> bool| {
        let c: Vec<usize> = (0..lines.len()).filter(|&i| want(&lines[i])).collect();
        c.get(rng.below(c.len())).copied()
    };
    let what = match rng.below(7) {
        k @ 0..=2 if !ctls.is_empty() => {
            let (start, end) = ctls[rng.below(ctls.len())];
            let at = match k {
                0 => start,
                1 => start + 1 + rng.below(end - start),
                _ => end + 1,
            };
            let at = at.min(lines.len());
            lines.insert(at, "    // a line typed".to_string());
            let place = ["before", "inside", "after"][k];
            format!("a line inserted {place} the control at line {}", start + 1)
        }
        3 => match pick(rng, &lines, &|l| {
            l.trim() == "// a line typed" || l.trim().is_empty()
        }) {
            Some(i) => {
                lines.remove(i);
                format!("line {} deleted", i + 1)
            }
            None => "nothing to delete".to_string(),
        },
        4 => match pick(rng, &lines, &|l| l.trim_end().ends_with(';')) {
            Some(i) => {
                lines[i].push_str(" // reviewed");
                format!("a comment typed at line {}", i + 1)
            }
            None => "no statement".to_string(),
        },
        5 => match pick(rng, &lines, &|l| {
            let t = l.trim_start();
            t.starts_with("bit<") && t.ends_with(';') && !t.contains('=')
        }) {
            Some(i) => {
                let l = &lines[i];
                let at = l.find("bit<").unwrap_or(0) + 4;
                let n: u32 = l[at..]
                    .split('>')
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(8);
                let rest = &l[at..][n.to_string().len()..];
                lines[i] = format!("{}{}{rest}", &l[..at], n % 64 + 1);
                format!("a field's width changed at line {}", i + 1)
            }
            None => "no field".to_string(),
        },
        _ => match pick(rng, &lines, &|l| {
            l.contains(".apply(") && l.trim_end().ends_with(';')
        }) {
            Some(i) if lines[i].trim_start().starts_with("//") => {
                lines[i] = lines[i].replacen("//", "", 1);
                format!("the application at line {} put back", i + 1)
            }
            Some(i) => {
                lines[i] = format!("//{}", lines[i]);
                format!("the application at line {} commented out", i + 1)
            }
            None => "no application".to_string(),
        },
    };
    (lines.join("\n") + "\n", what)
}

/// A load of `text` (the document at `path`) from nothing, and one through
/// `reuse`, agree; the load's replayed-control count.
fn agree(path: &Path, text: &str, o: &Options, reuse: &mut Reuse, what: &str) -> usize {
    let cold = p4cost_front::load_file_text_from(path, text.to_string(), o, &Disk);
    let warm = p4cost_front::load_file_text_reusing(path, text.to_string(), o, &Disk, reuse);
    assert_eq!(
        format!("{cold:?}"),
        format!("{warm:?}"),
        "after {what}: the load reusing lowered controls differs from a cold one"
    );
    if warm.is_ok() {
        reuse.lower_counts().0
    } else {
        0
    }
}

/// `edits` random edits of the document at `path`, each compared; how
/// many controls were replayed over all, and over the edits that moved
/// lines.
fn run(path: &Path, o: &Options, edits: usize, seed: u64) -> (usize, usize) {
    let mut rng = Lcg(seed);
    let mut reuse = Reuse::new();
    let mut text = std::fs::read_to_string(path).expect("program");
    agree(path, &text, o, &mut reuse, "opening");
    let (mut all, mut moved) = (0, 0);
    for _ in 0..edits {
        let (next, what) = edit(&text, &mut rng);
        text = next;
        let n = agree(path, &text, o, &mut reuse, &what);
        all += n;
        if what.contains("inserted") || what.contains("deleted") {
            moved += n;
        }
    }
    (all, moved)
}

fn fixture(name: &str) -> PathBuf {
    root().join("tests/fixtures/programs").join(name)
}

#[test]
fn random_edits_of_switch_p4_16_lower_as_a_cold_load() {
    let (all, moved) = run(&fixture("switch_p4_16.p4"), &Options::default(), 24, 5);
    assert!(all > 24 * 10, "unchanged controls were replayed: {all}");
    assert!(moved > 0, "and moved when lines were: {moved}");
}

#[test]
fn random_edits_of_a_program_with_sub_controls_lower_as_a_cold_load() {
    let path = fixture("v1model-special-ops-bmv2.p4");
    let (all, moved) = run(&path, &Options::default(), 40, 9);
    assert!(all > 40, "unchanged controls were replayed: {all}");
    assert!(moved > 0, "and moved when lines were: {moved}");
    // Then each of these in turn: the debug sub-controls compiled in, an instance's application dropped from
    // `ingress` (the later controls' tables and actions get other ids), a
    // sub-control's key and body changed (the controls applying it are
    // lowered again, the others replayed), a line before all controls.
    let edits = [
        ("#undef ENABLE_DEBUG_TABLES", "#define ENABLE_DEBUG_TABLES"),
        (
            "        my_debug_1_1.apply(hdr, meta);",
            "//      my_debug_1_1.apply(hdr, meta);",
        ),
        (
            "//      my_debug_1_1.apply(hdr, meta);",
            "        my_debug_1_1.apply(hdr, meta);",
        ),
        (
            "control my_debug_1(in headers_t hdr, in meta_t meta)\n{\n",
            "control my_debug_1(in headers_t hdr, in meta_t meta)\n{\n\n",
        ),
        (
            "byte0 ++ byte1 ++ byte2 ++ byte3;",
            "byte3 ++ byte2 ++ byte1 ++ byte0;",
        ),
        (
            "        my_debug_1_1.apply(hdr, meta);",
            "        my_debug_1_1.apply(hdr, meta); my_debug_1_1.apply(hdr, meta);",
        ),
        ("#include <v1model.p4>\n", "#include <v1model.p4>\n\n"),
    ];
    let mut reuse = Reuse::new();
    let mut text = std::fs::read_to_string(&path).expect("program");
    agree(&path, &text, &Options::default(), &mut reuse, "opening");
    let mut replayed = 0;
    for (from, to) in edits {
        assert!(text.contains(from), "`{from}` is in the program");
        text = text.replacen(from, to, 1);
        replayed += agree(
            &path,
            &text,
            &Options::default(),
            &mut reuse,
            &format!("`{from}` -> `{to}`"),
        );
    }
    assert!(
        replayed >= edits.len(),
        "controls were replayed: {replayed}"
    );
}

/// fabric-tna's tree, copied into `dir`.
fn fabric_tna(dir: &Path) -> PathBuf {
    let from = root().join("tests/fixtures/fabric-tna/p4src");
    common::copy_tree(&from, dir);
    dir.join("tna/fabric_tna.p4")
}

#[test]
fn random_edits_of_fabric_tna_and_of_an_included_control_lower_as_a_cold_load() {
    let dir = scratch("lower-reuse-fabric");
    let path = fabric_tna(&dir);
    let o = Options {
        include_dirs: vec![dir.clone()],
        defines: vec![("WITH_INT".to_string(), None)],
        ..Options::default()
    };
    let (all, _) = run(&path, &o, 16, 3);
    assert!(all > 16 * 5, "unchanged controls were replayed: {all}");
    // A sub-control in an include changed on disk (a line added to its
    // apply block, then one of its tables' applications dropped): the
    // controls that apply it are lowered again.
    let mut reuse = Reuse::new();
    let text = std::fs::read_to_string(&path).expect("program");
    agree(&path, &text, &o, &mut reuse, "opening");
    let sub = dir.join("tna/include/control/forwarding.p4");
    let before = std::fs::read_to_string(&sub).expect("forwarding.p4");
    let mut rng = Lcg(17);
    let mut now = before.clone();
    for k in 0..4 {
        let (next, what) = edit(&now, &mut rng);
        now = next;
        std::fs::write(&sub, &now).expect("write");
        agree(
            &path,
            &text,
            &o,
            &mut reuse,
            &format!("forwarding.p4 edit {k}: {what}"),
        );
    }
    std::fs::write(&sub, &before).expect("write");
    agree(&path, &text, &o, &mut reuse, "forwarding.p4 put back");
    // The files that did not change were taken back lexed, the root's
    // text each time and the other includes.
    assert!(
        reuse.lexed_hits() > 5 * 10,
        "unchanged files taken back lexed: {}",
        reuse.lexed_hits()
    );
}
