//! Writing output files without losing the user's: every command that
//! writes a file (`fit -o`, `validate --plot`, `gen --out`) goes through
//! here.
//!
//! - An output that is one of the command's inputs (the same file, through
//!   any path, link or hard link) is refused, even with `--force`.
//! - An existing output (a file or a symbolic link, a dangling one
//!   included) is refused unless `--force`; with `--force` a link is
//!   replaced by the file itself, its target untouched.
//! - A file is written to a temporary file in its directory, synced, and
//!   renamed into place: an interrupted write leaves the old file whole.
//! - `gen --out DIR` writes into an empty or new DIR, or with `--force`
//!   into any; it replaces only the files it writes (user files beside them
//!   are untouched), never writes through a link inside DIR, and refuses a
//!   linked `programs/` or `entries/` even with `--force`.

use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use crate::exit::CliError;

/// Why an output was not written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The output is one of the inputs.
    #[error("{}: is the input {} (it would be lost): write to another file", path.display(), input.display())]
    IsInput {
        /// The output.
        path: PathBuf,
        /// The input it is.
        input: PathBuf,
    },
    /// The output exists and `--force` was not given.
    #[error("{}: exists ({what}): give another file, or --force to replace it", path.display())]
    Exists {
        /// The output.
        path: PathBuf,
        /// What is there: a file, a symbolic link, a dangling one.
        what: &'static str,
    },
    /// The output is neither a file, a link nor absent.
    #[error("{}: {what}, not a file: it is never replaced (not even with --force)", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What is there.
        what: &'static str,
    },
    /// Where `gen` writes a directory is something else (a link to one
    /// included: gen never writes through a link).
    #[error("{}: {what}, where gen writes a directory: remove it, or give another --out (a link is never written through, not even with --force)", path.display())]
    NotADir {
        /// The path.
        path: PathBuf,
        /// What is there.
        what: &'static str,
    },
    /// `gen --out` names a directory holding a previous suite.
    #[error("{}: exists (measurements would be lost): give another --out, or --force", path.display())]
    SuiteExists {
        /// The manifest.
        path: PathBuf,
    },
    /// `gen --out` names a non-empty directory that is not a suite.
    #[error("{}: not empty and not a suite of `p4cost gen` (no manifest.csv file): give a new or empty --out, or --force to write into it (only the files gen writes are replaced)", path.display())]
    NotASuite {
        /// The directory.
        path: PathBuf,
    },
    /// Reading or writing failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

impl From<OutputError> for CliError {
    fn from(e: OutputError) -> Self {
        CliError::input(e.to_string())
    }
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> OutputError + '_ {
    move |source| OutputError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Refuses `path` as an output: when it is one of `inputs`, when it is a
/// directory, and, unless `force`, when anything (a dangling link
/// included) is there. Call it before long work, so a refusal comes first.
pub fn check(path: &Path, force: bool, inputs: &[&Path]) -> Result<(), OutputError> {
    if let Some(input) = inputs.iter().find(|i| same_file(path, i)) {
        return Err(OutputError::IsInput {
            path: path.to_path_buf(),
            input: input.to_path_buf(),
        });
    }
    let meta = match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        other => other.map_err(io(path))?,
    };
    let what = kind(path, &meta);
    if !meta.is_file() && !meta.file_type().is_symlink() {
        return Err(OutputError::NotAFile {
            path: path.to_path_buf(),
            what,
        });
    }
    if force {
        return Ok(());
    }
    Err(OutputError::Exists {
        path: path.to_path_buf(),
        what,
    })
}

/// What is at `path`, in words.
fn kind(path: &Path, meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_symlink() {
        if path.exists() {
            "a symbolic link"
        } else {
            "a dangling symbolic link"
        }
    } else if t.is_dir() {
        "a directory"
    } else if t.is_file() {
        "a file"
    } else {
        "not a regular file"
    }
}

/// Whether `a` and `b` name the same existing file (links followed).
fn same_file(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (ma.dev(), ma.ino()) == (mb.dev(), mb.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = (ma, mb);
        matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
    }
}

/// Writes `bytes` to `path` after `check`: through a temporary file in the
/// same directory, renamed into place (a link at `path` is replaced, never
/// written through).
pub fn write_new(
    path: &Path,
    bytes: &[u8],
    force: bool,
    inputs: &[&Path],
) -> Result<(), OutputError> {
    check(path, force, inputs)?;
    replace(path, bytes)
}

/// Writes `bytes` to a new temporary file beside `path` and renames it
/// over `path`.
fn replace(path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    let (tmp, mut file) = temp_beside(path)?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::rename(&tmp, path));
    drop(file);
    written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io(path)(e)
    })
}

/// A temporary file created (never opened if it exists) in `path`'s
/// directory.
fn temp_beside(path: &Path) -> Result<(PathBuf, File), OutputError> {
    let name = path
        .file_name()
        .ok_or_else(|| OutputError::NotAFile {
            path: path.to_path_buf(),
            what: "not a file name",
        })?
        .to_string_lossy()
        .into_owned();
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut last = None;
    for n in 0..100u32 {
        let tmp = dir.join(format!(".{name}.{}-{n}.p4cost-tmp", std::process::id()));
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(io(path)(e)),
        }
    }
    Err(io(path)(
        last.unwrap_or_else(|| ErrorKind::AlreadyExists.into()),
    ))
}

/// Writes a `gen` suite into `dir`: `files` are relative paths and texts.
/// Everything is checked before anything is written.
pub fn write_suite(
    dir: &Path,
    files: &[(PathBuf, String)],
    force: bool,
) -> Result<(), OutputError> {
    check_suite_dir(dir, force)?;
    let subdirs = subdirs(files);
    for sub in &subdirs {
        check_subdir(&dir.join(sub))?;
    }
    for (rel, _) in files {
        check(&dir.join(rel), force, &[])?;
    }
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    for sub in &subdirs {
        let p = dir.join(sub);
        match std::fs::create_dir(&p) {
            Err(e) if e.kind() != ErrorKind::AlreadyExists => return Err(io(&p)(e)),
            _ => check_subdir(&p)?,
        }
    }
    for (rel, text) in files {
        replace(&dir.join(rel), text.as_bytes())?;
    }
    Ok(())
}

/// The directories the files are in, below the suite directory, parents
/// first.
fn subdirs(files: &[(PathBuf, String)]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for (rel, _) in files {
        for a in rel.ancestors().skip(1) {
            if !a.as_os_str().is_empty() && !out.iter().any(|o| o == a) {
                out.push(a.to_path_buf());
            }
        }
    }
    out.sort_by_key(|p| p.components().count());
    out
}

/// `dir` may be absent, or an empty directory; a previous suite (a
/// `manifest.csv` file: a link is not one) or any other non-empty
/// directory only with `force`. A link naming `dir` itself is followed
/// (the user named it).
fn check_suite_dir(dir: &Path, force: bool) -> Result<(), OutputError> {
    let not_dir = |m: &std::fs::Metadata| OutputError::NotADir {
        path: dir.to_path_buf(),
        what: kind(dir, m),
    };
    let meta = match std::fs::metadata(dir) {
        Err(e) if e.kind() == ErrorKind::NotFound => {
            // absent, or a dangling link (which gen would not create through)
            return std::fs::symlink_metadata(dir).map_or(Ok(()), |m| Err(not_dir(&m)));
        }
        other => other.map_err(io(dir))?,
    };
    if !meta.is_dir() {
        return Err(not_dir(&meta));
    }
    if force {
        return Ok(());
    }
    let manifest = dir.join(p4cost_calibrate::suite::MANIFEST);
    if std::fs::symlink_metadata(&manifest).is_ok_and(|m| m.is_file()) {
        return Err(OutputError::SuiteExists { path: manifest });
    }
    let mut entries = std::fs::read_dir(dir).map_err(io(dir))?;
    if entries.next().is_some() {
        return Err(OutputError::NotASuite {
            path: dir.to_path_buf(),
        });
    }
    Ok(())
}

/// A directory of the suite must be absent or a real directory: a link is
/// refused even with `--force` (gen would write where it points).
fn check_subdir(p: &Path) -> Result<(), OutputError> {
    match std::fs::symlink_metadata(p) {
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io(p)(e)),
        Ok(m) if m.is_dir() => Ok(()),
        Ok(m) => Err(OutputError::NotADir {
            path: p.to_path_buf(),
            what: kind(p, &m),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("p4cost-output-file-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("scratch");
        d
    }

    #[test]
    fn writes_a_new_file_and_leaves_no_temporary_file() {
        let d = scratch("new");
        let p = d.join("out.json");
        write_new(&p, b"{}\n", false, &[]).expect("written");
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "{}\n");
        let names: Vec<_> = std::fs::read_dir(&d).expect("dir").collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn an_existing_file_is_replaced_only_with_force() {
        let d = scratch("exists");
        let p = d.join("out.json");
        std::fs::write(&p, "old").expect("old");
        let e = write_new(&p, b"new", false, &[]).expect_err("refused");
        assert!(e.to_string().contains("--force"), "{e}");
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "old");
        write_new(&p, b"new", true, &[]).expect("forced");
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "new");
    }

    #[test]
    fn an_input_is_refused_even_with_force() {
        let d = scratch("input");
        let p = d.join("data.csv");
        std::fs::write(&p, "rows").expect("input");
        let other = d.join(".").join("data.csv");
        let e = write_new(&other, b"x", true, &[&p]).expect_err("refused");
        assert!(matches!(e, OutputError::IsInput { .. }), "{e}");
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "rows");
    }

    #[test]
    fn a_directory_is_never_replaced() {
        let d = scratch("dir");
        let e = write_new(&d, b"x", true, &[]).expect_err("refused");
        assert!(matches!(e, OutputError::NotAFile { .. }), "{e}");
        assert!(d.is_dir());
    }

    #[test]
    fn subdirs_lists_parents_first() {
        let files = vec![
            (PathBuf::from("a/b/c.txt"), String::new()),
            (PathBuf::from("a/d.txt"), String::new()),
            (PathBuf::from("top.txt"), String::new()),
        ];
        assert_eq!(
            subdirs(&files),
            vec![PathBuf::from("a"), PathBuf::from("a/b")]
        );
    }
}
