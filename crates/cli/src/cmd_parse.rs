//! `p4cost parse`: does every file parse and lower?

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::args::ParseArgs;
use crate::exit::{CliError, Exit};

/// Every `*.p4` under `p` (sorted), or `p` itself when it is a file.
fn collect(p: &Path, out: &mut Vec<PathBuf>) -> Result<(), CliError> {
    if p.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
            .map_err(|e| CliError::input(format!("{}: cannot read directory: {e}", p.display())))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for e in entries {
            // Dangling links inside a tree are skipped, not fatal.
            if e.is_dir() || (e.is_file() && e.extension().is_some_and(|x| x == "p4")) {
                collect(&e, out)?;
            }
        }
        Ok(())
    } else if crate::read::is_stdin(p) || p.exists() {
        out.push(p.to_path_buf());
        Ok(())
    } else {
        Err(CliError::input(format!(
            "{}: no such file or directory",
            p.display()
        )))
    }
}

pub fn run(a: &ParseArgs, out: &mut dyn Write) -> Result<Exit, CliError> {
    let mut files = Vec::new();
    for p in &a.paths {
        collect(p, &mut files)?;
    }
    if files.iter().filter(|f| crate::read::is_stdin(f)).count() > 1 {
        return Err(CliError::input("`-` (stdin) can be given only once"));
    }
    let mut ok = 0usize;
    let mut failed = 0usize;
    let mut text = String::new();
    for f in &files {
        match crate::input::load_source_only(f, &a.source) {
            Ok(_) => {
                ok += 1;
                if !a.summary {
                    text.push_str(&format!("ok     {}\n", crate::read::shown(f)));
                }
            }
            Err(e) => {
                failed += 1;
                let first = e.message;
                let first = first.lines().next().unwrap_or("");
                if a.summary {
                    text.push_str(&format!("{first}\n"));
                } else {
                    let shown = crate::read::shown(f);
                    text.push_str(&format!("FAILED {shown}\n  {first}\n"));
                }
            }
        }
    }
    text.push_str(&format!("{ok} parsed, {failed} failed\n"));
    out.write_all(text.as_bytes()).map_err(CliError::output)?;
    Ok(if failed == 0 { Exit::Ok } else { Exit::Failed })
}
