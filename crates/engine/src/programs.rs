//! The programs a command runs over: files named on the command line, and
//! `*.p4` files under named directories, less the fragments other files
//! there include.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::error::Error;

/// One file to check, and whether a directory walk found it (a file the
/// user named is always a program; one found under a directory may be a
/// fragment that other files include).
pub struct Found {
    /// The file.
    pub path: PathBuf,
    /// Found by walking a directory (not named by the user).
    pub walked: bool,
}

/// Every `*.p4` under `p` (sorted, depth first), or `p` itself when it is
/// a file. Iterative; a directory reached twice (a link back up the tree)
/// is walked once.
pub fn collect(p: &Path, out: &mut Vec<Found>) -> Result<(), Error> {
    // A descriptor the process holds (`<(cmd)`) is read once, as stdin.
    let held = p.exists() && !p.is_dir() && p4cost_front::refusal(p).is_none();
    if crate::read::is_stdin(p) || p.is_file() || held {
        out.push(Found {
            path: p.to_path_buf(),
            walked: false,
        });
        return Ok(());
    }
    if let Some(why) = p4cost_front::refusal(p).filter(|_| !p.is_dir()) {
        return Err(Error::input(format!("{}: {why}", p.display())));
    }
    if !p.is_dir() {
        return Err(Error::input(format!(
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
            .map_err(|e| Error::input(format!("{}: cannot read directory: {e}", dir.display())))?
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
        return Err(Error::input(format!(
            "{}: no P4 file (*.p4) under this directory",
            p.display()
        )));
    }
    Ok(())
}

/// The files that some other file of `files` includes with `#include
/// "name"` (resolved next to the includer, then in the `-I` directories),
/// by canonical path: fragments, checked as part of their includers.
pub fn included(files: &[Found], include_dirs: &[PathBuf]) -> HashSet<PathBuf> {
    let mut out = HashSet::new();
    // Only a file a walk found can be a fragment: with none, nothing to read.
    if !files.iter().any(|f| f.walked) {
        return out;
    }
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

/// True when `f`, found by a directory walk, is one of `fragments`.
pub fn is_fragment(f: &Found, fragments: &HashSet<PathBuf>) -> bool {
    f.walked && std::fs::canonicalize(&f.path).is_ok_and(|c| fragments.contains(&c))
}
