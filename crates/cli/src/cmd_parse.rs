//! `p4cost parse`: does every file parse and lower?

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::args::ParseArgs;
use crate::exit::{CliError, Exit};

/// One file to check, and whether a directory walk found it (a file the
/// user named is always a program; one found under a directory may be a
/// fragment that other files include).
struct Found {
    path: PathBuf,
    walked: bool,
}

/// Every `*.p4` under `p` (sorted, depth first), or `p` itself when it is
/// a file. Iterative; a directory reached twice (a link back up the tree)
/// is walked once.
fn collect(p: &Path, out: &mut Vec<Found>) -> Result<(), CliError> {
    if crate::read::is_stdin(p) || p.is_file() {
        out.push(Found {
            path: p.to_path_buf(),
            walked: false,
        });
        return Ok(());
    }
    if !p.is_dir() {
        return Err(CliError::input(format!(
            "{}: no such file or directory",
            p.display()
        )));
    }
    let before = out.len();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut stack: Vec<PathBuf> = vec![p.to_path_buf()];
    while let Some(dir) = stack.pop() {
        if !seen.insert(std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone())) {
            continue;
        }
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map_err(|e| CliError::input(format!("{}: cannot read directory: {e}", dir.display())))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        // Files of this directory first, then its subdirectories in order.
        let mut subdirs = Vec::new();
        for e in entries {
            // Dangling links inside a tree are skipped, not fatal.
            if e.is_dir() {
                subdirs.push(e);
            } else if e.is_file() && e.extension().is_some_and(|x| x == "p4") {
                out.push(Found {
                    path: e,
                    walked: true,
                });
            }
        }
        stack.extend(subdirs.into_iter().rev());
    }
    if out.len() == before {
        return Err(CliError::input(format!(
            "{}: no P4 file (*.p4) under this directory",
            p.display()
        )));
    }
    Ok(())
}

/// The files that some other file of `files` includes with `#include
/// "name"` (resolved next to the includer, then in the `-I` directories),
/// by canonical path: fragments, checked as part of their includers.
fn included(files: &[Found], include_dirs: &[PathBuf]) -> HashSet<PathBuf> {
    let mut out = HashSet::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f.path) else {
            continue;
        };
        let here = f.path.parent().map(Path::to_path_buf).unwrap_or_default();
        for line in text.lines() {
            let Some(rest) = line.trim_start().strip_prefix('#') else {
                continue;
            };
            let Some(rest) = rest.trim_start().strip_prefix("include") else {
                continue;
            };
            let rest = rest.trim();
            let name = match (rest.strip_prefix('"'), rest.strip_prefix('<')) {
                (Some(r), _) => r.split('"').next(),
                (_, Some(r)) => r.split('>').next(),
                _ => None,
            };
            let Some(name) = name else { continue };
            for dir in std::iter::once(&here).chain(include_dirs) {
                if let Ok(c) = std::fs::canonicalize(dir.join(name)) {
                    out.insert(c);
                    break;
                }
            }
        }
    }
    out
}

pub fn run(a: &ParseArgs, out: &mut dyn Write) -> Result<Exit, CliError> {
    let mut files = Vec::new();
    for p in &a.paths {
        collect(p, &mut files)?;
    }
    if files
        .iter()
        .filter(|f| crate::read::is_stdin(&f.path))
        .count()
        > 1
    {
        return Err(CliError::input("`-` (stdin) can be given only once"));
    }
    let fragments = included(&files, &a.source.include_dirs);
    let (mut ok, mut failed, mut skipped) = (0usize, 0usize, 0usize);
    let mut text = String::new();
    for f in &files {
        let shown = crate::read::shown(&f.path);
        if f.walked && std::fs::canonicalize(&f.path).is_ok_and(|c| fragments.contains(&c)) {
            skipped += 1;
            if !a.summary {
                text.push_str(&format!("incl   {shown} (included by another file here)\n"));
            }
            continue;
        }
        match crate::input::load(&f.path, &a.source) {
            Ok(_) => {
                ok += 1;
                if !a.summary {
                    text.push_str(&format!("ok     {shown}\n"));
                }
            }
            Err(e) => {
                failed += 1;
                let first = e.message;
                let first = first.lines().next().unwrap_or("");
                if a.summary {
                    // Name the file that failed, not only the include
                    // where the error is.
                    if first.starts_with(&shown) {
                        text.push_str(&format!("{first}\n"));
                    } else {
                        text.push_str(&format!("{shown}: {first}\n"));
                    }
                } else {
                    text.push_str(&format!("FAILED {shown}\n  {first}\n"));
                }
            }
        }
    }
    text.push_str(&format!("{ok} parsed, {failed} failed"));
    if skipped > 0 {
        text.push_str(&format!(
            ", {skipped} included by other files (checked through them)"
        ));
    }
    text.push('\n');
    out.write_all(text.as_bytes()).map_err(CliError::output)?;
    Ok(if failed == 0 { Exit::Ok } else { Exit::Failed })
}
