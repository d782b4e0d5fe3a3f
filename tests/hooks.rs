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

/// The pre-commit framework's hook (`.pre-commit-hooks.yaml`, id
/// `p4cost-check`) in a real `git commit`: pre-commit clones this
/// repository at HEAD, builds p4cost with cargo (release, minutes) and
/// runs it. Ignored by default: it needs `pre-commit` on PATH (`pip
/// install pre-commit`) and the build; run with `cargo test --test hooks
/// -- --ignored`.
#[test]
#[ignore = "needs pre-commit on PATH and a release build of p4cost (minutes)"]
fn the_pre_commit_framework_hook_refuses_a_commit_over_budget() {
    let head = common::git(&common::root(), &["rev-parse", "HEAD"])
        .output()
        .expect("git");
    let head = String::from_utf8_lossy(&head.stdout).trim().to_string();
    let repo = common::scratch("pre-commit-framework");
    let run = |args: &[&str]| {
        let (cmd, rest) = args.split_first().expect("a command");
        let c = if *cmd == "git" {
            common::git(&repo, rest).output()
        } else {
            std::process::Command::new(cmd)
                .args(rest)
                .current_dir(&repo)
                .output()
        };
        c.expect("runs")
    };
    assert!(run(&["git", "init", "-q"]).status.success());
    std::fs::copy(
        common::root().join("p4-samples/tofino/tc2_datacenter.p4"),
        repo.join("dc.p4"),
    )
    .expect("copy");
    let config = |budget: u32| {
        std::fs::write(
            repo.join("p4cost.toml"),
            format!("[[program]]\npath = \"dc.p4\"\n\n[program.budget]\nmax-latency = {budget}\n"),
        )
        .expect("config");
    };
    config(310);
    std::fs::write(
        repo.join(".pre-commit-config.yaml"),
        format!(
            "repos:\n  - repo: {}\n    rev: {head}\n    hooks:\n      - id: p4cost-check\n",
            common::root().display()
        ),
    )
    .expect("pre-commit config");
    assert!(run(&["pre-commit", "install"]).status.success());
    assert!(run(&["git", "add", "."]).status.success());
    let ok = run(&["git", "commit", "-q", "-m", "within"]);
    assert!(
        ok.status.success(),
        "{}{}",
        String::from_utf8_lossy(&ok.stdout),
        String::from_utf8_lossy(&ok.stderr)
    );
    // TC2's slowest class is 304.548 ns.
    config(300);
    assert!(run(&["git", "add", "."]).status.success());
    let refused = run(&["git", "commit", "-q", "-m", "over"]);
    assert!(!refused.status.success(), "the hook refuses the commit");
    // git hands a hook's output to stderr.
    let said = String::from_utf8_lossy(&refused.stdout).to_string()
        + &String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("p4cost latency budgets") && said.contains("Failed"),
        "{said}"
    );
    assert!(said.contains("over the 300.000 ns budget"), "{said}");
    let log = run(&["git", "rev-list", "--count", "HEAD"]);
    assert_eq!(String::from_utf8_lossy(&log.stdout).trim(), "1");
}
