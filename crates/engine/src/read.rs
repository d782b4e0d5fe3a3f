//! Reading an input exactly once, within a size budget and without hanging.
//!
//! `-` is stdin. A regular file is read with the size limit (never more than the limit plus one
//! byte). A directory, a named FIFO, a socket or a device is refused, naming its kind
//! ([`p4cost_front::refusal`]). A descriptor the process already holds (`<(cat f.p4)`,
//! `/dev/stdin`) is opened without blocking and read as data arrives; one that delivers nothing
//! for [`IDLE_SECS`] seconds is an error rather than a wait forever.

use std::path::Path;

use crate::error::Error;

/// How long a pipe, FIFO or device may stay silent before reading it fails.
pub const IDLE_SECS: u64 = 10;

/// The name stdin is shown as in messages.
pub const STDIN_NAME: &str = "<stdin>";

/// Whether `path` means stdin.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// An input read into memory.
pub struct ReadInput {
    /// The name messages use (`<stdin>` for `-`).
    pub shown: String,
    /// The content.
    pub bytes: Vec<u8>,
}

/// The name messages use for `path`.
pub fn shown(path: &Path) -> String {
    if is_stdin(path) {
        STDIN_NAME.to_string()
    } else {
        path.display().to_string()
    }
}

fn too_large(shown: &str, max: u64) -> Error {
    Error::input(format!(
        "{shown}: input larger than {max} bytes (limit: --max-input-bytes)"
    ))
}

/// Reads `path` (or stdin for `-`) into memory, at most `max` bytes.
pub fn read_input(path: &Path, max: u64) -> Result<ReadInput, Error> {
    let shown = shown(path);
    let bytes = if is_stdin(path) {
        match read_capped(std::io::stdin().lock(), max) {
            Ok(b) => b,
            Err(None) => return Err(too_large(&shown, max)),
            Err(Some(e)) => return Err(Error::input(format!("{shown}: cannot read: {e}"))),
        }
    } else {
        if let Some(why) = p4cost_front::refusal(path) {
            return Err(Error::input(format!("{shown}: {why}")));
        }
        read_path(path, &shown, max)?
    };
    Ok(ReadInput { shown, bytes })
}

// Reads at most `max` bytes, `Err(None)` when there are more: the same
// bounded read the preprocessor uses for included files.
use p4cost_front::read_limited as read_capped;

#[cfg(unix)]
fn read_path(path: &Path, shown: &str, max: u64) -> Result<Vec<u8>, Error> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let cannot = |e: std::io::Error| Error::input(format!("{shown}: cannot read: {e}"));
    // Non-blocking open: opening a FIFO without a writer would otherwise block forever.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(cannot)?;
    let ft = file.metadata().map_err(cannot)?.file_type();
    if ft.is_file() || ft.is_block_device() {
        return match read_capped(file, max) {
            Ok(b) => Ok(b),
            Err(None) => Err(too_large(shown, max)),
            Err(Some(e)) => Err(cannot(e)),
        };
    }
    read_stream(file, shown, max)
}

#[cfg(not(unix))]
fn read_path(path: &Path, shown: &str, max: u64) -> Result<Vec<u8>, Error> {
    let file = std::fs::File::open(path)
        .map_err(|e| Error::input(format!("{shown}: cannot read: {e}")))?;
    match read_capped(file, max) {
        Ok(b) => Ok(b),
        Err(None) => Err(too_large(shown, max)),
        Err(Some(e)) => Err(Error::input(format!("{shown}: cannot read: {e}"))),
    }
}

/// Reads a non-blocking pipe, FIFO or device as data arrives, waiting at most [`IDLE_SECS`]
/// for each chunk.
#[cfg(unix)]
fn read_stream(mut file: std::fs::File, shown: &str, max: u64) -> Result<Vec<u8>, Error> {
    use std::io::Read;
    use std::os::unix::io::AsRawFd;
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let mut pfd = libc::pollfd {
            fd: file.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let timeout_ms = (IDLE_SECS * 1000) as libc::c_int;
        // SAFETY: `pfd` is one valid pollfd that outlives the call.
        let n = unsafe { libc::poll(&mut pfd, 1, timeout_ms) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(Error::input(format!("{shown}: cannot read: {e}")));
        }
        if n == 0 {
            return Err(Error::input(format!(
                "{shown}: no data for {IDLE_SECS} s (a pipe or FIFO nobody writes to?): \
                 give a regular file, or `-` for stdin"
            )));
        }
        match file.read(&mut chunk) {
            Ok(0) => return Ok(buf),
            Ok(k) => {
                buf.extend_from_slice(chunk.get(..k).unwrap_or(&[]));
                if buf.len() as u64 > max {
                    return Err(too_large(shown, max));
                }
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted
                ) => {}
            Err(e) => return Err(Error::input(format!("{shown}: cannot read: {e}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dash_is_stdin_and_shown_as_such() {
        assert!(is_stdin(Path::new("-")));
        assert!(!is_stdin(Path::new("./-")));
        assert_eq!(shown(Path::new("-")), "<stdin>");
    }

    #[test]
    fn reading_stops_one_byte_past_the_limit() {
        let big = std::io::repeat(b'x');
        assert!(matches!(read_capped(big, 1000), Err(None)));
        assert_eq!(read_capped(&b"abc"[..], 3).ok(), Some(b"abc".to_vec()));
        assert!(matches!(read_capped(&b"abcd"[..], 3), Err(None)));
    }

    #[test]
    fn a_directory_is_refused() {
        let e = read_input(Path::new("."), 10).err().map(|e| e.to_string());
        assert_eq!(e.as_deref(), Some(".: is a directory"));
    }
}
