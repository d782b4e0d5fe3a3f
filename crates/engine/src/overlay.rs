//! An editor's view of the files: the open buffers (unsaved text) over the
//! disk, with what was read from the disk kept between analyses, so that a
//! keystroke re-reads no include that did not change.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use p4cost_front::Files;

/// A file read from the disk, with what identifies its version.
#[derive(Debug, Clone)]
struct Cached {
    modified: Option<SystemTime>,
    len: u64,
    bytes: Arc<[u8]>,
}

/// Open buffers over the disk.
#[derive(Debug, Default)]
pub struct Overlay {
    open: HashMap<PathBuf, Arc<str>>,
    disk: Mutex<HashMap<PathBuf, Cached>>,
    disk_reads: Mutex<u64>,
}

impl Overlay {
    /// An overlay with no open buffer.
    pub fn new() -> Overlay {
        Overlay::default()
    }

    /// Sets the text of an open buffer (`didOpen`, `didChange`).
    pub fn set(&mut self, path: PathBuf, text: Arc<str>) {
        self.open.insert(path, text);
    }

    /// Closes a buffer: the disk's version counts again.
    pub fn close(&mut self, path: &Path) {
        self.open.remove(path);
    }

    /// The open buffer's text.
    pub fn get(&self, path: &Path) -> Option<&Arc<str>> {
        self.open.get(path)
    }

    /// How many times a file was read from the disk (not from the cache):
    /// what the reuse saves is measurable.
    pub fn disk_reads(&self) -> u64 {
        self.disk_reads.lock().map_or(0, |n| *n)
    }
}

impl Files for Overlay {
    fn is_file(&self, path: &Path) -> bool {
        self.open.contains_key(path) || path.is_file()
    }

    fn refusal(&self, path: &Path) -> Option<&'static str> {
        if self.open.contains_key(path) {
            return None;
        }
        p4cost_front::refusal(path)
    }

    fn read(&self, path: &Path, max: u64) -> Result<Vec<u8>, Option<std::io::Error>> {
        if let Some(text) = self.open.get(path) {
            if text.len() as u64 > max {
                return Err(None);
            }
            return Ok(text.as_bytes().to_vec());
        }
        let meta = std::fs::metadata(path).map_err(Some)?;
        let modified = meta.modified().ok();
        if let Ok(cache) = self.disk.lock() {
            if let Some(c) = cache.get(path) {
                if c.modified == modified && c.len == meta.len() && modified.is_some() {
                    if c.len > max {
                        return Err(None);
                    }
                    return Ok(c.bytes.to_vec());
                }
            }
        }
        let bytes = p4cost_front::Disk.read(path, max)?;
        if let Ok(mut n) = self.disk_reads.lock() {
            *n += 1;
        }
        if meta.is_file() {
            if let Ok(mut cache) = self.disk.lock() {
                cache.insert(
                    path.to_path_buf(),
                    Cached {
                        modified,
                        len: bytes.len() as u64,
                        bytes: Arc::from(bytes.as_slice()),
                    },
                );
            }
        }
        Ok(bytes)
    }

    fn key(&self, path: &Path) -> String {
        p4cost_front::Disk.key(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_win_over_the_disk_and_the_disk_is_read_once_per_version() {
        let dir = std::env::temp_dir().join(format!("p4cost-overlay-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let inc = dir.join("inc.p4");
        std::fs::write(&inc, "const bit<8> X = 1;\n").expect("write");
        let mut o = Overlay::new();
        assert_eq!(
            o.read(&inc, 1 << 20).expect("read"),
            b"const bit<8> X = 1;\n"
        );
        assert_eq!(
            o.read(&inc, 1 << 20).expect("read"),
            b"const bit<8> X = 1;\n"
        );
        assert_eq!(o.disk_reads(), 1);
        // A larger file on disk is read again.
        std::fs::write(&inc, "const bit<8> X = 22;\n").expect("write");
        assert_eq!(
            o.read(&inc, 1 << 20).expect("read"),
            b"const bit<8> X = 22;\n"
        );
        assert_eq!(o.disk_reads(), 2);
        // An open buffer is what counts, unsaved.
        o.set(inc.clone(), Arc::from("const bit<8> X = 3;\n"));
        assert_eq!(
            o.read(&inc, 1 << 20).expect("read"),
            b"const bit<8> X = 3;\n"
        );
        assert!(o.read(&inc, 4).is_err(), "the budget holds for buffers");
        o.close(&inc);
        assert_eq!(
            o.read(&inc, 1 << 20).expect("read"),
            b"const bit<8> X = 22;\n"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
