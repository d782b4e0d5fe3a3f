//! The README's plain git pre-commit hook, verbatim, in a real repository:
//! a commit within budget lands, one over budget is refused (issue 10).

mod common;

use std::path::Path;

/// The hook as the README prints it (the indented block that starts with
/// `#!/bin/sh`).
fn readme_hook() -> String {
    let readme = std::fs::read_to_string(common::root().join("README.md")).expect("README");
    let lines: Vec<&str> = readme
        .lines()
        .skip_while(|l| l.trim() != "#!/bin/sh")
        .take_while(|l| l.starts_with("    "))
        .map(|l| &l[4..])
        .collect();
    assert!(!lines.is_empty(), "the README shows a pre-commit hook");
    lines.join("\n") + "\n"
}

fn git(dir: &Path, args: &[&str]) -> std::process::Output {
    // The hook calls `p4cost` by name.
    common::git(dir, args)
        .env("PATH", common::path_with_p4cost())
        .output()
        .expect("git runs")
}

#[test]
fn the_readme_pre_commit_hook_refuses_a_commit_over_budget() {
    let repo = common::scratch("hook-repo");
    assert!(git(&repo, &["init", "-q"]).status.success());
    let hook = repo.join(".git/hooks/pre-commit");
    std::fs::write(&hook, readme_hook()).expect("hook");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let src = repo.join("p4src");
    std::fs::create_dir_all(&src).expect("p4src");
    // Within 300 ns: TC2's slowest class is 304.548 ns, too slow; the
    // metadata sample's is 286.534 ns (tests/check.rs).
    let sample = common::root().join("p4-samples/tofino/classes/parser_set_metadata.p4");
    std::fs::copy(&sample, src.join("prog.p4")).expect("copy");
    assert!(git(&repo, &["add", "."]).status.success());
    let ok = git(&repo, &["commit", "-q", "-m", "within budget"]);
    assert!(
        ok.status.success(),
        "{}{}",
        String::from_utf8_lossy(&ok.stdout),
        String::from_utf8_lossy(&ok.stderr)
    );
    let tc2 = common::root().join("p4-samples/tofino/tc2_datacenter.p4");
    std::fs::copy(&tc2, src.join("prog.p4")).expect("copy");
    assert!(git(&repo, &["add", "."]).status.success());
    let refused = git(&repo, &["commit", "-q", "-m", "over budget"]);
    assert!(!refused.status.success(), "the hook refuses the commit");
    let said = String::from_utf8_lossy(&refused.stdout).to_string()
        + &String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("FAIL p4src/prog.p4"), "{said}");
    // Nothing was committed: one commit in the log.
    let log = git(&repo, &["rev-list", "--count", "HEAD"]);
    assert_eq!(String::from_utf8_lossy(&log.stdout).trim(), "1");
}
