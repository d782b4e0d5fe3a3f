//! The README's editor section: the VS Code manifest and extension, and
//! the Neovim snippet, as printed, start the server they name, and that
//! command line speaks LSP (initialize, shutdown, exit).

mod common;

use common::lsp::Client;

/// The indented block after the line that ends with `marker`.
fn block_after(marker: &str) -> String {
    let readme = std::fs::read_to_string(common::root().join("README.md")).expect("README");
    let lines: Vec<&str> = readme
        .lines()
        .skip_while(|l| !l.trim_end().ends_with(marker))
        .skip(1)
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| l.starts_with("    ") || l.trim().is_empty())
        .map(|l| l.get(4..).unwrap_or(""))
        .collect();
    assert!(!lines.is_empty(), "the README shows a block after {marker}");
    lines.join("\n").trim_end().to_string()
}

/// Runs `cmd` (a command line from the README) as an LSP server:
/// initialize, then shutdown and exit.
fn speaks_lsp(cmd: &[String]) {
    assert_eq!(cmd[0], "p4cost", "the README's command runs p4cost");
    let args: Vec<&str> = cmd[1..].iter().map(String::as_str).collect();
    let mut c = Client::start_with(&common::root(), &args);
    let mut seen = Vec::new();
    let init = c.initialize(&mut seen);
    assert_eq!(init["capabilities"]["inlayHintProvider"], true, "{init}");
    let down = c.request("shutdown", serde_json::Value::Null, &mut seen);
    assert!(down.is_null(), "{down}");
    c.notify("exit", serde_json::Value::Null);
    assert!(c.child.wait().expect("exit").success());
}

#[test]
fn the_vs_code_extension_starts_p4cost_lsp() {
    let manifest: serde_json::Value =
        serde_json::from_str(&block_after("`package.json`:")).expect("package.json is JSON");
    assert_eq!(manifest["main"], "./extension.js");
    assert_eq!(manifest["activationEvents"][0], "onLanguage:p4");
    assert_eq!(
        manifest["contributes"]["languages"][0]["extensions"][0],
        ".p4"
    );
    assert!(manifest["dependencies"]["vscode-languageclient"].is_string());
    let js = block_after("and `extension.js`:");
    assert!(
        js.contains(r#"require("vscode-languageclient/node")"#),
        "{js}"
    );
    let server = js
        .split("{ command: ")
        .nth(1)
        .and_then(|s| s.split(" }").next())
        .expect("server options");
    // `"p4cost", args: ["lsp"]`
    let mut cmd = vec![server
        .split(',')
        .next()
        .expect("command")
        .trim_matches('"')
        .to_string()];
    let args = server
        .split('[')
        .nth(1)
        .and_then(|a| a.split(']').next())
        .expect("args");
    cmd.extend(
        args.split(',')
            .map(|a| a.trim().trim_matches('"').to_string()),
    );
    speaks_lsp(&cmd);
}

#[test]
fn the_neovim_snippet_starts_p4cost_lsp() {
    let lua = block_after("in `init.lua`:");
    let cmd = lua
        .split("cmd = {")
        .nth(1)
        .and_then(|s| s.split('}').next())
        .expect("cmd");
    let cmd: Vec<String> = cmd
        .split(',')
        .map(|a| a.trim().trim_matches('"').to_string())
        .collect();
    assert!(lua.contains("vim.lsp.enable(\"p4cost\")"), "{lua}");
    speaks_lsp(&cmd);
}
