//! Commands that write files never lose the user's: `fit -o`,
//! `validate --plot` and `gen --out` refuse an input as output, refuse an
//! existing file or link without `--force`, never write through a link,
//! and with `--force` replace only what they write (issue 25 items 1-2).
//! Each case checks the file that would have been lost is intact.

mod common;
use common::{p4cost, scratch};
use std::path::{Path, PathBuf};

/// Measurements a linear model fits exactly: 150 ns + 0.1 ns/B, and per
/// parse state 0.2 ns/B + 3 ns.
fn data() -> String {
    let mut s = String::from("program,port_gbps,packet_size,state_bytes,tables,latency_ns\n");
    for sb in ["", "2", "2+2", "10", "10+10+10"] {
        for size in [100u32, 400, 700, 1000, 1400] {
            let states: f64 = sb
                .split('+')
                .filter(|b| !b.is_empty())
                .map(|b| 0.2 * b.parse::<f64>().unwrap() + 3.0)
                .sum();
            let l = 0.1 * f64::from(size) + 150.0 + states;
            s.push_str(&format!("p.p4,100,{size},{sb},,{l:.3}\n"));
        }
    }
    s
}

/// A scratch directory holding `data.csv`.
fn with_data(name: &str) -> (PathBuf, PathBuf) {
    let d = scratch(name);
    let f = d.join("data.csv");
    std::fs::write(&f, data()).unwrap();
    (d, f)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

/// The smallest suite gen writes: programs/baseline.p4,
/// programs/parser_s1_h2.p4, two more programs, two entries files.
const SMALL: [&str; 18] = [
    "--ports",
    "100",
    "--max-tables",
    "1",
    "--max-states",
    "1",
    "--header-bytes",
    "2",
    "--key-bits",
    "8",
    "--max-keys",
    "1",
    "--match",
    "exact",
    "--entries",
    "1",
    "--packet-sizes",
    "100",
];

fn gen(out: &Path, force: bool) -> common::Run {
    let mut args = vec!["gen", "--out", s(out)];
    args.extend(SMALL);
    if force {
        args.push("--force");
    }
    p4cost(&args)
}

#[test]
fn fit_refuses_its_own_input_even_with_force() {
    let (_, f) = with_data("fit-input");
    for force in [false, true] {
        let mut args = vec!["fit", s(&f), "-o", s(&f)];
        if force {
            args.push("--force");
        }
        let r = p4cost(&args);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(r.stderr.contains("is the input"), "{}", r.stderr);
        assert_eq!(read(&f), data(), "the measurements are intact");
    }
}

#[test]
fn fit_replaces_an_existing_file_only_with_force() {
    let (d, f) = with_data("fit-exists");
    let out = d.join("mine.json");
    std::fs::write(&out, "keep me").unwrap();
    let r = p4cost(&["fit", s(&f), "-o", s(&out)]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("mine.json: exists (a file)") && r.stderr.contains("--force"),
        "{}",
        r.stderr
    );
    assert_eq!(read(&out), "keep me");
    let r = p4cost(&["fit", s(&f), "-o", s(&out), "--force"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(read(&out).contains("\"kind\""), "a model now");
    // no temporary file left beside it
    let names: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn validate_plot_refuses_the_input_csv_and_an_existing_file() {
    let (d, f) = with_data("validate-plot");
    let model = d.join("m.json");
    assert_eq!(p4cost(&["fit", s(&f), "-o", s(&model)]).code, 0);
    let m = read(&model);
    for target in [&f, &model] {
        let r = p4cost(&["validate", s(&model), s(&f), "--plot", s(target), "--force"]);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(r.stderr.contains("is the input"), "{}", r.stderr);
    }
    assert_eq!(read(&f), data(), "the measurements are intact");
    assert_eq!(read(&model), m, "the model is intact");
    let svg = d.join("p.svg");
    std::fs::write(&svg, "keep me").unwrap();
    let r = p4cost(&["validate", s(&model), s(&f), "--plot", s(&svg)]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("p.svg: exists"), "{}", r.stderr);
    assert_eq!(read(&svg), "keep me");
    let r = p4cost(&["validate", s(&model), s(&f), "--plot", s(&svg), "--force"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(read(&svg).starts_with("<svg"), "{}", read(&svg));
}

#[test]
fn gen_refuses_a_directory_of_user_files_and_with_force_replaces_only_its_own() {
    let d = scratch("gen-user-files");
    let out = d.join("mine");
    std::fs::create_dir_all(out.join("programs")).unwrap();
    std::fs::write(out.join("README.md"), "my notes").unwrap();
    std::fs::write(out.join("programs/parser_s1_h2.p4"), "my program").unwrap();
    std::fs::write(out.join("programs/other.p4"), "my other program").unwrap();
    let r = gen(&out, false);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("not empty and not a suite") && r.stderr.contains("--force"),
        "{}",
        r.stderr
    );
    assert_eq!(read(&out.join("README.md")), "my notes");
    assert_eq!(read(&out.join("programs/parser_s1_h2.p4")), "my program");
    assert!(!out.join("manifest.csv").exists());
    // --force: gen's own names replaced, the user's other file untouched
    let r = gen(&out, true);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(read(&out.join("README.md")).starts_with("# p4cost profiling suite"));
    assert!(read(&out.join("programs/parser_s1_h2.p4")).contains("parser"));
    assert_eq!(read(&out.join("programs/other.p4")), "my other program");
    // now a suite: refused for its measurements without --force
    let r = gen(&out, false);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("manifest.csv: exists"), "{}", r.stderr);
}

#[cfg(unix)]
mod links {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn fit_never_writes_through_a_link() {
        let (d, f) = with_data("fit-link");
        std::fs::create_dir_all(d.join("victim")).unwrap();
        let victim = d.join("victim/p.txt");
        std::fs::write(&victim, "victim").unwrap();
        let link = d.join("m.json");
        symlink(&victim, &link).unwrap();
        let r = p4cost(&["fit", s(&f), "-o", s(&link)]);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(r.stderr.contains("(a symbolic link)"), "{}", r.stderr);
        assert_eq!(read(&victim), "victim");
        // --force replaces the link by the file, not its target
        let r = p4cost(&["fit", s(&f), "-o", s(&link), "--force"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(read(&victim), "victim");
        let meta = std::fs::symlink_metadata(&link).unwrap();
        assert!(meta.is_file(), "the link is now a file");
        // a link to the data is the data
        let to_data = d.join("data-link.json");
        symlink(&f, &to_data).unwrap();
        let r = p4cost(&["fit", s(&f), "-o", s(&to_data), "--force"]);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(r.stderr.contains("is the input"), "{}", r.stderr);
        assert_eq!(read(&f), data());
    }

    #[test]
    fn fit_never_creates_the_target_of_a_dangling_link() {
        let (d, f) = with_data("fit-dangling");
        std::fs::create_dir_all(d.join("victim")).unwrap();
        let target = d.join("victim/new.json");
        let link = d.join("m.json");
        symlink(&target, &link).unwrap();
        let r = p4cost(&["fit", s(&f), "-o", s(&link)]);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(
            r.stderr.contains("(a dangling symbolic link)"),
            "{}",
            r.stderr
        );
        let r = p4cost(&["fit", s(&f), "-o", s(&link), "--force"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(!target.exists(), "nothing created where the link pointed");
        assert!(std::fs::symlink_metadata(&link).unwrap().is_file());
    }

    #[test]
    fn gen_never_follows_a_link_out_of_its_directory() {
        let d = scratch("gen-link-out");
        std::fs::create_dir_all(d.join("victim")).unwrap();
        let victim = d.join("victim/p.txt");
        std::fs::write(&victim, "victim").unwrap();
        let out = d.join("suite");
        std::fs::create_dir_all(&out).unwrap();
        symlink("../victim/p.txt", out.join("README.md")).unwrap();
        let r = gen(&out, false);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert_eq!(read(&victim), "victim");
        let r = gen(&out, true);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(read(&victim), "victim");
        let readme = std::fs::symlink_metadata(out.join("README.md")).unwrap();
        assert!(readme.is_file(), "the link is replaced by gen's file");
    }

    #[test]
    fn gen_refuses_a_linked_programs_directory_even_with_force() {
        let d = scratch("gen-link-dir");
        std::fs::create_dir_all(d.join("victim")).unwrap();
        let out = d.join("suite");
        std::fs::create_dir_all(&out).unwrap();
        symlink("../victim", out.join("programs")).unwrap();
        let r = gen(&out, true);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(
            r.stderr.contains("programs: a symbolic link")
                && r.stderr.contains("never written through"),
            "{}",
            r.stderr
        );
        let in_victim = std::fs::read_dir(d.join("victim")).unwrap().count();
        assert_eq!(in_victim, 0, "nothing written where the link points");
        assert!(!out.join("manifest.csv").exists(), "nothing written at all");
    }

    #[test]
    fn a_dangling_manifest_link_is_not_a_manifest() {
        let d = scratch("gen-dangling-manifest");
        std::fs::create_dir_all(d.join("victim")).unwrap();
        let target = d.join("victim/new.csv");
        let out = d.join("suite");
        std::fs::create_dir_all(&out).unwrap();
        symlink("../victim/new.csv", out.join("manifest.csv")).unwrap();
        let r = gen(&out, false);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(r.stderr.contains("--force"), "{}", r.stderr);
        assert!(!target.exists());
        let r = gen(&out, true);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(!target.exists(), "nothing created where the link pointed");
        let m = std::fs::symlink_metadata(out.join("manifest.csv")).unwrap();
        assert!(m.is_file(), "the link is replaced by gen's manifest");
    }
}
