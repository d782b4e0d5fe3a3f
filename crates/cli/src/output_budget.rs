//! The budget on `predict --format json`'s bytes: the listed paths are
//! what grows (a path of switch_p4_16 with its classes is tens of KB), so
//! the listing is cut where the budget would be exceeded, and the report
//! says so (`output_cut`) rather than writing without bound.

use std::io::{self, Write};

use p4cost_engine::report::{OutputCutOut, Report};

use crate::exit::CliError;

/// Default of `--max-output-bytes`: 64 MiB.
pub const DEFAULT_MAX_OUTPUT_BYTES: u64 = 64 << 20;

/// Bytes and line breaks written to it.
#[derive(Default)]
struct Count {
    bytes: u64,
    lines: u64,
}

impl Write for Count {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.bytes += buf.len() as u64;
        self.lines += memchr::memchr_iter(b'\n', buf).count() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Bytes of `v` as the pretty writer prints it `depth` levels down (each
/// line after the first indented 2 more spaces per level), with the comma,
/// line break and indent that put it in its array.
fn bytes_at<T: serde::Serialize>(v: &T, depth: u64) -> Result<u64, CliError> {
    let mut c = Count::default();
    crate::json_out::pretty_to(v, &mut c)?;
    Ok(c.bytes + c.lines * 2 * depth + 2 + 2 * depth)
}

/// Room kept for what the JSON holds besides the reports (a batch's
/// summary, the `output_cut` notes themselves).
const SLACK: u64 = 64 << 10;

/// Cuts the listings of `reports` (in order: the first ones keep theirs)
/// so that the JSON holding them, each report `depth` levels down (its
/// paths two more), stays within `max` bytes. Each cut report gets its
/// `output_cut`; returns the number of paths left out in all.
pub fn fit(mut reports: Vec<&mut Report>, depth: u64, max: u64) -> Result<usize, CliError> {
    let mut used = SLACK;
    for r in reports.iter_mut() {
        let paths = std::mem::take(&mut r.paths);
        let bytes = bytes_at(&**r, depth);
        r.paths = paths;
        used += bytes?;
    }
    let mut dropped = 0;
    let mut full = false;
    for r in reports {
        let mut keep = 0;
        while !full && keep < r.paths.len() {
            let b = bytes_at(&r.paths[keep], depth + 2)?;
            if used + b > max {
                full = true;
                break;
            }
            used += b;
            keep += 1;
        }
        // The engine may have cut already (it stops listing at the same
        // budget): the listing's size before any cut is its.
        let before = r
            .output_cut
            .as_ref()
            .map_or(r.paths.len(), |c| c.paths_before);
        dropped += before - keep.min(before);
        if keep < r.paths.len() || r.output_cut.is_some() {
            r.output_cut = Some(OutputCutOut {
                max_output_bytes: max,
                paths_before: before,
                note: format!(
                    "{keep} of the {before} listed paths written: more would exceed \
                     --max-output-bytes {max}"
                ),
            });
            r.paths.truncate(keep);
            r.paths_listed = keep;
        }
    }
    Ok(dropped)
}

/// The JSON of `doc` as [`crate::json_out::write_pretty`] writes it, when
/// Largest document [`whole_if_fits`] holds in memory to write it at once
/// (switch_p4_16's is 5.9 MB). Past it the document is measured path by
/// path and streamed, as it always was: a listing near the 64 MiB default
/// budget is not held whole (a 4096-deep MPLS stack: 96 -> 161 MiB peak
/// without this bound).
pub const WHOLE_MAX: u64 = 8 << 20;

/// [`fit`] would leave `reports` (those in `doc`) as they are: none was
/// cut by the engine, and the document is short enough that no cut can
/// follow (`None`: call [`fit`], then write). The document is written
/// once, not measured path by path first (`predict --format json
/// switch_p4_16.p4`: 87 M instructions measuring, of 370 M).
///
/// [`fit`] counts each report without its paths and each path as an
/// element of its array: each part of the document once, plus at most 2
/// bytes a report and 1 a path (a separator counted in full, `[]` for the
/// paths). So its total stays within the budget when the document and
/// those bytes do.
pub fn whole_if_fits<T: serde::Serialize>(
    doc: &T,
    reports: &[&Report],
    max: u64,
) -> Result<Option<Vec<u8>>, CliError> {
    if reports.iter().any(|r| r.output_cut.is_some()) {
        return Ok(None);
    }
    let parts = reports
        .iter()
        .map(|r| 2 + r.paths.len() as u64)
        .fold(SLACK, u64::saturating_add);
    let Some(room) = max.checked_sub(parts) else {
        return Ok(None);
    };
    // Held in memory before it is written: a larger document is measured
    // and streamed as before.
    let room = room.min(WHOLE_MAX);
    let mut w = Capped {
        text: Vec::new(),
        room,
        over: false,
    };
    // Buffered: the serializer writes a few bytes at a time.
    let written = {
        let mut buf = io::BufWriter::with_capacity(1 << 16, &mut w);
        crate::json_out::pretty_to(doc, &mut buf)
            .and_then(|()| buf.flush().map_err(CliError::output))
    };
    match written {
        Ok(()) => {}
        // Past the room: measured as before.
        Err(_) if w.over => return Ok(None),
        Err(e) => return Err(e),
    }
    w.text.push(b'\n');
    Ok(Some(w.text).filter(|t| t.len() as u64 <= room))
}

/// The bytes written to it, refused past `room` bytes.
struct Capped {
    text: Vec<u8>,
    room: u64,
    over: bool,
}

impl Write for Capped {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if (self.text.len() + buf.len()) as u64 > self.room {
            self.over = true;
            return Err(io::Error::other("over the output budget"));
        }
        self.text.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The stderr line that says a listing was cut.
pub fn note(dropped: usize, max: u64) -> String {
    format!(
        "note: {dropped} listed path(s) left out of the JSON to stay within --max-output-bytes \
         {max} (see output_cut; fewer --max-paths or --max-classes, or a larger budget, list \
         them)"
    )
}
