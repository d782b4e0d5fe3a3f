//! Where SARIF artifact URIs are relative to: `%SRCROOT%`, the root of the
//! git work tree the command runs in (the directory holding `.git`), else
//! the working directory. GitHub code scanning reads relative URIs from the
//! repository root, so a log written from a subdirectory still points at
//! the right files; a path outside `%SRCROOT%` becomes an absolute
//! `file:///` URI.

use std::path::{Component, Path, PathBuf};

/// The `uriBaseId` of every relative artifact URI.
pub const SRCROOT: &str = "%SRCROOT%";

/// How many directories above the working directory are searched for
/// `.git` (deeper trees are not work trees anyone runs p4cost in).
const MAX_ANCESTORS: usize = 64;

/// The directory relative URIs are made from, and the working directory
/// the reports' paths are relative to.
#[derive(Debug, Clone)]
pub struct Base {
    /// Absolute, without `.` or `..`.
    root: PathBuf,
    /// Absolute, without `.` or `..`.
    cwd: PathBuf,
    /// `true` when `root` is a git work tree's root.
    in_git: bool,
}

impl Base {
    /// The base of a command run in the current directory; `None` when
    /// the working directory cannot be read (the URIs are then absolute
    /// when the paths are, relative to nothing otherwise).
    pub fn current() -> Option<Base> {
        let cwd = std::env::current_dir().ok()?;
        Some(Base::at(&cwd))
    }

    /// The base of a command run in `cwd` (absolute).
    pub fn at(cwd: &Path) -> Base {
        let cwd = normal(cwd);
        let git_root = cwd
            .ancestors()
            .take(MAX_ANCESTORS)
            .find(|d| d.join(".git").exists())
            .map(Path::to_path_buf);
        Base {
            root: git_root.clone().unwrap_or_else(|| cwd.clone()),
            in_git: git_root.is_some(),
            cwd,
        }
    }

    /// `%SRCROOT%` as an absolute `file:///` URI ending in `/`.
    pub fn root_uri(&self) -> String {
        let mut u = file_uri(&self.root);
        if !u.ends_with('/') {
            u.push('/');
        }
        u
    }

    /// What `%SRCROOT%` is, for its description in the log.
    pub fn root_description(&self) -> &'static str {
        if self.in_git {
            "The root of the git work tree p4cost ran in"
        } else {
            "The directory p4cost ran in (not inside a git work tree)"
        }
    }

    /// A report's path (relative to the working directory, or absolute)
    /// as a URI and its base: relative to `%SRCROOT%` when inside it, an
    /// absolute `file:///` URI otherwise.
    pub fn locate(&self, path: &str) -> (String, Option<&'static str>) {
        let abs = normal(&self.cwd.join(path));
        match abs.strip_prefix(&self.root) {
            Ok(rel) => (relative_uri(rel), Some(SRCROOT)),
            Err(_) => (file_uri(&abs), None),
        }
    }
}

/// `path` without `.` and with `..` taken against the component before
/// it (lexically: symbolic links are not followed).
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// A relative path as a relative URI reference: `/` separators, each
/// segment percent-encoded (a `:` too, which would read as a scheme).
fn relative_uri(rel: &Path) -> String {
    let segments: Vec<String> = rel
        .components()
        .map(|c| encode(&c.as_os_str().to_string_lossy(), false))
        .collect();
    segments.join("/")
}

/// An absolute path as a `file:///` URI (a Windows drive `C:\x` as
/// `file:///C:/x`).
fn file_uri(abs: &Path) -> String {
    let p = abs.to_string_lossy().replace('\\', "/");
    let p = if p.starts_with('/') {
        p
    } else {
        format!("/{p}")
    };
    format!("file://{}", encode(&p, true))
}

/// Percent-encodes every byte outside RFC 3986's unreserved set and `/`
/// (and `:` when `keep_colon`).
fn encode(s: &str, keep_colon: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            b':' if keep_colon => out.push(':'),
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base(root: &str, cwd: &str) -> Base {
        Base {
            root: PathBuf::from(root),
            cwd: PathBuf::from(cwd),
            in_git: true,
        }
    }

    #[test]
    fn paths_inside_the_root_are_relative_to_it_from_any_subdirectory() {
        let b = base("/repo", "/repo/p4src/sub");
        assert_eq!(
            b.locate("../main.p4"),
            ("p4src/main.p4".to_string(), Some(SRCROOT))
        );
        assert_eq!(
            b.locate("./a b/c#1.p4"),
            ("p4src/sub/a%20b/c%231.p4".to_string(), Some(SRCROOT))
        );
        assert_eq!(
            b.locate("/repo/x:y.p4"),
            ("x%3Ay.p4".to_string(), Some(SRCROOT))
        );
    }

    #[test]
    fn paths_outside_the_root_are_absolute_file_uris() {
        let b = base("/repo", "/repo");
        assert_eq!(
            b.locate("/opt/p4 lib/tna.p4"),
            ("file:///opt/p4%20lib/tna.p4".to_string(), None)
        );
        assert_eq!(b.locate("../other/é.p4").0, "file:///other/%C3%A9.p4");
        assert_eq!(b.root_uri(), "file:///repo/");
        assert_eq!(base("/", "/").root_uri(), "file:///");
    }

    #[test]
    fn the_root_is_the_git_work_tree_else_the_working_directory() {
        let d = std::env::temp_dir().join(format!("p4cost-sarif-base-{}", std::process::id()));
        let sub = d.join("p4src/deep");
        std::fs::create_dir_all(&sub).expect("mkdir");
        if !d.ancestors().any(|a| a.join(".git").exists()) {
            let b = Base::at(&sub);
            assert_eq!((b.root, b.in_git), (sub.clone(), false));
        }
        // A worktree's `.git` is a file; a repository's a directory.
        std::fs::write(d.join(".git"), "gitdir: elsewhere\n").expect(".git");
        let b = Base::at(&sub);
        assert_eq!(b.root, d);
        assert!(b.in_git);
        assert_eq!(b.locate("../main.p4").0, "p4src/main.p4");
        let _ = std::fs::remove_dir_all(&d);
    }
}
