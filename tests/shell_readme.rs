//! The README's shell workflow: the example output is what p4cost prints
//! for its command, and each line of "In the shell" runs as printed.

mod common;

use common::{p4cost, root};

fn readme() -> String {
    std::fs::read_to_string(root().join("README.md")).expect("README")
}

#[test]
fn the_example_is_what_p4cost_prints() {
    let text = readme();
    let block = text
        .split("```\n$ p4cost ")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("the README's example");
    let (command, shown) = block.split_once('\n').expect("a command line");
    let args: Vec<&str> = command.split_whitespace().collect();
    let r = p4cost(&[&args[..], &["--no-config"]].concat());
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout, shown,
        "README example is stale: `p4cost {command}`"
    );
}

#[test]
fn each_shell_line_runs_as_printed() {
    let text = readme();
    let lines: Vec<String> = text
        .lines()
        .skip_while(|l| l.trim() != "### In the shell")
        .skip(1)
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| l.starts_with("    "))
        .map(|l| l.trim().to_string())
        .collect();
    assert!(lines.len() >= 4, "{lines:?}");
    for line in &lines {
        let args: Vec<&str> = line
            .strip_prefix("p4cost ")
            .expect("a p4cost command")
            .split_whitespace()
            .collect();
        let r = p4cost(&[&args[..], &["--no-config"]].concat());
        let ok = if args[0] == "check" {
            [0, 1].contains(&r.code)
        } else {
            r.code == 0
        };
        assert!(ok, "`{line}` exited {}: {}", r.code, r.stderr);
        assert!(!r.stdout.is_empty(), "`{line}` printed nothing");
    }
}
