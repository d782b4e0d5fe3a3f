//! `p4cost parse`: does every file parse and lower?

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::args::{parse_define, ParseArgs};
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
    } else if p.exists() {
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
    let opts = p4cost_front::Options {
        defines: a.source.defines.iter().map(|d| parse_define(d)).collect(),
        include_dirs: a.source.include_dirs.clone(),
        max_inlined: a.source.max_inlined,
    };
    let mut ok = 0usize;
    let mut failed = 0usize;
    let mut text = String::new();
    for f in &files {
        match p4cost_front::load_file(f, &opts) {
            Ok(_) => {
                ok += 1;
                if !a.summary {
                    text.push_str(&format!("ok     {}\n", f.display()));
                }
            }
            Err(e) => {
                failed += 1;
                let first = e.to_string();
                let first = first.lines().next().unwrap_or("");
                if a.summary {
                    text.push_str(&format!("{first}\n"));
                } else {
                    text.push_str(&format!("FAILED {}\n  {first}\n", f.display()));
                }
            }
        }
    }
    text.push_str(&format!("{ok} parsed, {failed} failed\n"));
    out.write_all(text.as_bytes())
        .map_err(|e| CliError::input(format!("cannot write output: {e}")))?;
    Ok(if failed == 0 { Exit::Ok } else { Exit::Failed })
}
