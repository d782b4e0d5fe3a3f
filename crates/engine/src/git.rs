//! Reading files as they were at a git revision, without checking it out:
//! the program, its includes, and a context.json or bfrt.json committed
//! beside it all come from the same commit (`p4cost diff FILE --base REV`).
//!
//! The revision's tree is listed once (`git ls-tree -r -l`); a file inside
//! the repository exists only if that tree has it (a file that exists now
//! but not then is not read from the disk), and its bytes come from
//! `git cat-file blob`. Files outside the repository (`-I /opt/sde/...`)
//! are read from the disk.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};

use p4cost_front::Files;

use crate::error::Error;

/// The files of one commit of the repository holding a path.
#[derive(Debug, Clone)]
pub struct GitTree {
    /// The repository's top directory (absolute).
    top: PathBuf,
    /// The revision as given (`HEAD~1`, `main`).
    rev: String,
    /// The commit it names.
    commit: String,
    /// Every regular file of the commit (relative to `top`) with its size.
    blobs: HashMap<PathBuf, u64>,
}

impl GitTree {
    /// The tree of revision `rev` of the git repository holding `near`
    /// (a file or directory; it need not exist any more).
    pub fn open(near: &Path, rev: &str) -> Result<GitTree, Error> {
        if rev.is_empty() || rev.starts_with('-') {
            return Err(Error::input(format!(
                "--base {rev:?}: not a git revision (give a commit, branch or tag such as HEAD~1)"
            )));
        }
        if let Err(e) = Command::new("git")
            .arg("--version")
            .stdin(Stdio::null())
            .output()
        {
            return Err(Error::input(format!(
                "--base {rev}: cannot run git ({e}): --base reads the revision with git; install it or put it on PATH"
            )));
        }
        let start = existing_dir(&absolute(near));
        let top = git(&start, &["rev-parse", "--show-toplevel"]).map_err(|e| {
            Error::input(format!(
                "--base {rev}: {} is not in a git repository ({e})",
                near.display()
            ))
        })?;
        let top = PathBuf::from(top.trim_end_matches('\n'));
        let spec = format!("{rev}^{{commit}}");
        let commit = git(&top, &["rev-parse", "--verify", "--quiet", &spec])
            .map_err(|_| {
                Error::input(format!(
                    "--base {rev}: no such commit in the repository at {}",
                    top.display()
                ))
            })?
            .trim()
            .to_string();
        let listing = git(&top, &["ls-tree", "-r", "-l", "-z", &commit])
            .map_err(|e| Error::input(format!("--base {rev}: cannot list the commit: {e}")))?;
        let mut blobs = HashMap::new();
        for entry in listing.split('\0').filter(|e| !e.is_empty()) {
            // `<mode> <type> <object> <size>\t<path>`
            let Some((meta, path)) = entry.split_once('\t') else {
                continue;
            };
            let mut f = meta.split_whitespace();
            let (_mode, kind, _obj, size) = (f.next(), f.next(), f.next(), f.next());
            if kind != Some("blob") {
                continue;
            }
            let size = size.and_then(|s| s.parse().ok()).unwrap_or(u64::MAX);
            blobs.insert(PathBuf::from(path), size);
        }
        Ok(GitTree {
            top,
            rev: rev.to_string(),
            commit,
            blobs,
        })
    }

    /// The revision as given.
    pub fn rev(&self) -> &str {
        &self.rev
    }

    /// `path` relative to the repository's top, when it is inside it.
    fn inside(&self, path: &Path) -> Option<PathBuf> {
        normal(&absolute(path))
            .strip_prefix(&self.top)
            .ok()
            .map(Path::to_path_buf)
    }

    /// Reads `path` as of the revision (at most `max` bytes): an error
    /// that names the revision when the file is not in it.
    pub fn read_input(&self, path: &Path, max: u64) -> Result<Vec<u8>, Error> {
        let shown = path.display();
        if self.inside(path).is_none() {
            return Err(Error::input(format!(
                "{shown}: not in the git repository at {} (needed to read it at {})",
                self.top.display(),
                self.rev
            )));
        }
        if !self.is_file(path) {
            return Err(Error::input(format!(
                "{shown}: no such file at revision {}",
                self.rev
            )));
        }
        self.read(path, max).map_err(|e| match e {
            None => Error::input(format!(
                "{shown}: larger than {max} bytes at revision {} (limit: --max-input-bytes)",
                self.rev
            )),
            Some(e) => Error::input(format!(
                "{shown}: cannot read it at revision {}: {e}",
                self.rev
            )),
        })
    }
}

impl Files for GitTree {
    fn is_file(&self, path: &Path) -> bool {
        match self.inside(path) {
            Some(rel) => self.blobs.contains_key(&rel),
            None => path.is_file(),
        }
    }

    fn read(&self, path: &Path, max: u64) -> Result<Vec<u8>, Option<std::io::Error>> {
        let Some(rel) = self.inside(path) else {
            return p4cost_front::Disk.read(path, max);
        };
        match self.blobs.get(&rel) {
            None => Err(Some(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("not in revision {}", self.rev),
            ))),
            Some(&size) if size > max => Err(None),
            Some(_) => {
                let object = format!("{}:{}", self.commit, rel.display());
                let out = Command::new("git")
                    .arg("-C")
                    .arg(&self.top)
                    .args(["cat-file", "blob", &object])
                    .stdin(Stdio::null())
                    .stderr(Stdio::null())
                    .output()
                    .map_err(Some)?;
                if !out.status.success() {
                    return Err(Some(std::io::Error::other(format!(
                        "git cat-file {object} failed"
                    ))));
                }
                Ok(out.stdout)
            }
        }
    }

    fn key(&self, path: &Path) -> String {
        match self.inside(path) {
            Some(rel) => format!("{}:{}", self.commit, rel.display()),
            None => p4cost_front::Disk.key(path),
        }
    }
}

/// Runs git in `dir`: its standard output, or what it said on error.
fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(err.trim().to_string());
    }
    String::from_utf8(out.stdout).map_err(|_| "git printed a path that is not UTF-8".to_string())
}

/// `p` made absolute against the working directory (not resolved: it
/// need not exist).
fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() {
        return p.to_path_buf();
    }
    match std::env::current_dir() {
        Ok(cwd) => cwd.join(p),
        Err(_) => p.to_path_buf(),
    }
}

/// The nearest directory at or above `p` that exists now, symbolic links
/// resolved (git's top directory is resolved too).
fn existing_dir(p: &Path) -> PathBuf {
    let mut d = p.to_path_buf();
    loop {
        if d.is_dir() {
            return std::fs::canonicalize(&d).unwrap_or(d);
        }
        if !d.pop() {
            return PathBuf::from(".");
        }
    }
}

/// `p` with `.` and `..` taken out lexically, and the part of it that
/// exists now resolved, so it compares with git's resolved top.
fn normal(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    // Resolve the longest existing prefix (symbolic links such as a
    // temporary directory's), keep the rest as written.
    let mut head = out.clone();
    let mut tail = Vec::new();
    while !head.exists() {
        match head.file_name() {
            Some(n) => tail.push(n.to_os_string()),
            None => return out,
        }
        if !head.pop() {
            return out;
        }
    }
    let mut resolved = std::fs::canonicalize(&head).unwrap_or(head);
    for n in tail.into_iter().rev() {
        resolved.push(n);
    }
    resolved
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_and_dot_dot_are_taken_out() {
        let p = normal(Path::new("/nonexistent-p4cost/a/./b/../c.p4"));
        assert_eq!(p, PathBuf::from("/nonexistent-p4cost/a/c.p4"));
    }

    #[test]
    fn a_revision_that_looks_like_a_flag_is_refused() {
        let e = GitTree::open(Path::new("."), "--output=/tmp/x").unwrap_err();
        assert!(e.message().contains("not a git revision"), "{e}");
    }
}
