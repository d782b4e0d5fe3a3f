//! The map from offsets in the preprocessed text back to original files, lines and columns.

/// An original source position for one byte of preprocessed output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    /// Index into [`crate::Output::files`].
    pub file: usize,
    /// Byte offset into that file's text.
    pub offset: usize,
    /// 1-based line, after any `#line` adjustment in force where the byte came from.
    pub line: u32,
    /// 1-based byte column within the physical line.
    pub col: u32,
    /// When a `#line N "name"` renamed the file, the index of that name in
    /// [`SourceMap::presumed_names`]; `None` means the file's own path applies.
    pub presumed_name: Option<usize>,
}

/// One run of output bytes that all come from the same place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Segment {
    /// Output offset where the run starts.
    pub out: usize,
    /// File index.
    pub file: u32,
    /// Offset in the original file of the run's first byte.
    pub src: usize,
    /// True when output byte `out + k` comes from `src + k` (copied text); false when every byte
    /// of the run maps to `src` (macro expansions, synthesized newlines).
    pub verbatim: bool,
    /// `#line` adjustment: reported line minus physical line.
    pub delta: i64,
    /// `#line` file name, as an index into the presumed names.
    pub name: Option<u32>,
}

/// Maps output offsets to original locations by binary search over segments (O(log n)).
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    pub(crate) segs: Vec<Segment>,
    pub(crate) line_starts: Vec<Vec<usize>>,
    pub(crate) file_lens: Vec<usize>,
    pub(crate) names: Vec<String>,
}

/// Appends `gap` (whitespace and comments, as between two tokens) to
/// `dst` with every byte of a comment made a space and newlines kept: the
/// same length, so every offset after it still maps byte for byte.
pub(crate) fn append_blanked(dst: &mut String, gap: &str) {
    let b = gap.as_bytes();
    let mut copied = 0;
    let mut i = 0;
    while let Some(k) = b.get(i..).and_then(|r| r.iter().position(|&c| c == b'/')) {
        let at = i + k;
        if !matches!(b.get(at + 1), Some(b'/' | b'*')) {
            i = at + 1;
            continue;
        }
        let end = crate::lexer::comment_end(gap, at).unwrap_or(gap.len());
        dst.push_str(gap.get(copied..at).unwrap_or(""));
        let blanked = b.get(at..end).unwrap_or_default();
        dst.extend(blanked.iter().map(|&c| if c == b'\n' { '\n' } else { ' ' }));
        copied = end;
        i = end;
    }
    dst.push_str(gap.get(copied..).unwrap_or(""));
}

/// Offsets at which each line of `text` starts (always begins with 0).
pub(crate) fn line_starts(text: &str) -> Vec<usize> {
    const LOW7: u64 = u64::from_le_bytes([0x7f; 8]);
    const NL: u64 = u64::from_le_bytes([b'\n'; 8]);
    let b = text.as_bytes();
    // About one line per 30 bytes in real programs.
    let mut v = Vec::with_capacity(b.len() / 30 + 2);
    v.push(0);
    let mut chunks = b.chunks_exact(8);
    let mut base = 0;
    for chunk in chunks.by_ref() {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word) ^ NL;
        // The high bit of each byte of `x` that is zero (a newline), and
        // no other: word at a time, most words have none.
        let mut hits = !(((x & LOW7) + LOW7) | x | LOW7);
        while hits != 0 {
            v.push(base + (hits.trailing_zeros() / 8) as usize + 1);
            hits &= hits - 1;
        }
        base += 8;
    }
    let rest = chunks.remainder().iter().enumerate();
    v.extend(rest.filter(|p| *p.1 == b'\n').map(|p| base + p.0 + 1));
    v
}

/// 1-based physical (line, column) of `offset` given the line-start table.
pub(crate) fn line_col(starts: &[usize], offset: usize) -> (u32, u32) {
    line_col_at(starts, offset, starts.partition_point(|&s| s <= offset))
}

/// Applies a `#line` delta to a physical line, keeping the result at least 1.
pub(crate) fn adjust_line(line: u32, delta: i64) -> u32 {
    let v = i64::from(line).saturating_add(delta);
    u32::try_from(v.max(1)).unwrap_or(u32::MAX)
}

/// Where the last [`SourceMap::lookup_near`] through it ended: the next
/// one searches outward from there.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cursor {
    /// How many segments start at or before the last offset.
    seg: usize,
    /// The line-start table the last offset was in (its address; 0 for none).
    file: usize,
    /// How many of that table's lines start at or before the last offset.
    line: usize,
}

/// How many elements of `v`, sorted by `key`, have a key at most `x`
/// (`v.partition_point(|e| key(e) <= x)`), found by galloping outward
/// from `hint` (a guess of the answer): O(log d) for an answer `d` away.
fn count_le<T>(v: &[T], key: impl Fn(&T) -> usize, x: usize, hint: usize) -> usize {
    let n = v.len();
    let hint = hint.min(n);
    let le = |i: usize| v.get(i).is_some_and(|e| key(e) <= x);
    // The answer lies in lo..=hi.
    let (mut lo, mut hi) = (0, n);
    let mut step = 1;
    if hint > 0 && !le(hint - 1) {
        hi = hint - 1;
        while step <= hi {
            let i = hi - step;
            if le(i) {
                lo = i + 1;
                break;
            }
            hi = i;
            step *= 2;
        }
    } else {
        lo = hint;
        while lo + step - 1 < n {
            let i = lo + step - 1;
            if !le(i) {
                hi = i;
                break;
            }
            lo = i + 1;
            step *= 2;
        }
    }
    lo + v
        .get(lo..hi)
        .map_or(0, |r| r.partition_point(|e| key(e) <= x))
}

/// [`line_col`] given `n`, how many of `starts` are at most `offset`.
fn line_col_at(starts: &[usize], offset: usize, n: usize) -> (u32, u32) {
    let k = n.max(1);
    let start = starts.get(k - 1).copied().unwrap_or(0);
    let line = u32::try_from(k).unwrap_or(u32::MAX);
    let col = u32::try_from(offset.saturating_sub(start) + 1).unwrap_or(u32::MAX);
    (line, col)
}

impl SourceMap {
    /// The original location of output byte `output_offset`. Offsets past the end map to the
    /// last byte's location; an empty output maps everything to the start of file 0.
    pub fn lookup(&self, output_offset: usize) -> Location {
        let k = self.segs.partition_point(|s| s.out <= output_offset);
        self.locate(k, output_offset, line_col)
    }

    /// [`SourceMap::lookup`] searching outward from where `cursor` was
    /// left, and leaving it at the result: a lookup near the one before
    /// (the next statement, the last byte of a span) costs a few steps,
    /// whatever the size of the map; any offset gives the same location.
    pub fn lookup_near(&self, cursor: &mut Cursor, output_offset: usize) -> Location {
        let k = count_le(&self.segs, |s| s.out, output_offset, cursor.seg);
        cursor.seg = k;
        self.locate(k, output_offset, |starts, offset| {
            let file = starts.as_ptr() as usize;
            let hint = if cursor.file == file {
                cursor.line
            } else {
                starts.len() / 2
            };
            let n = count_le(starts, |&s| s, offset, hint);
            *cursor = Cursor {
                seg: k,
                file,
                line: n,
            };
            line_col_at(starts, offset, n)
        })
    }

    /// The file and original offset of output byte `output_offset` (the
    /// `file` and `offset` of [`SourceMap::lookup`]), found as
    /// [`SourceMap::lookup_near`] finds them but without the line and
    /// column: for the end of a span, whose line nobody reads.
    pub fn origin_near(&self, cursor: &mut Cursor, output_offset: usize) -> (usize, usize) {
        let k = count_le(&self.segs, |s| s.out, output_offset, cursor.seg);
        cursor.seg = k;
        self.segs
            .get(k.saturating_sub(1))
            .map_or((0, 0), |seg| self.origin(seg, output_offset))
    }

    /// The file and original offset of `output_offset` in segment `seg`.
    fn origin(&self, seg: &Segment, output_offset: usize) -> (usize, usize) {
        let file = seg.file as usize;
        let offset = if seg.verbatim {
            seg.src + (output_offset.saturating_sub(seg.out))
        } else {
            seg.src
        };
        let len = self.file_lens.get(file).copied().unwrap_or(0);
        (file, offset.min(len))
    }

    /// The location of `output_offset` in the segment before the `k`-th
    /// (`k`: how many segments start at or before it), its line and
    /// column by `line_col`.
    fn locate(
        &self,
        k: usize,
        output_offset: usize,
        line_col: impl FnOnce(&[usize], usize) -> (u32, u32),
    ) -> Location {
        let Some(seg) = self.segs.get(k.saturating_sub(1)) else {
            return Location {
                file: 0,
                offset: 0,
                line: 1,
                col: 1,
                presumed_name: None,
            };
        };
        let (file, offset) = self.origin(seg, output_offset);
        let (line, col) = self
            .line_starts
            .get(file)
            .map_or((1, 1), |s| line_col(s, offset));
        Location {
            file,
            offset,
            line: adjust_line(line, seg.delta),
            col,
            presumed_name: seg.name.map(|n| n as usize),
        }
    }

    /// File names introduced by `#line N "name"`, indexed by [`Location::presumed_name`].
    pub fn presumed_names(&self) -> &[String] {
        &self.names
    }

    /// Where output bytes `lo..hi` come from, up to a move of the whole
    /// range within its file: the first byte's location and a hash of the
    /// rest relative to it (every run's offset, origin and `#line` state,
    /// the line starts the range's original text has). Two ranges with
    /// equal `form` and `col` map every byte `lo + k` to the same place
    /// moved by the difference of their offsets and lines. `None` for an
    /// empty range or one drawn from more than one file.
    pub fn range_shape(&self, lo: usize, hi: usize) -> Option<RangeShape> {
        use std::hash::{Hash, Hasher};
        if hi <= lo {
            return None;
        }
        let first = self.lookup(lo);
        let k0 = self.segs.partition_point(|s| s.out <= lo).saturating_sub(1);
        let mut h = std::collections::hash_map::DefaultHasher::new();
        let mut src_hi = first.offset;
        let segs = self.segs.get(k0..).unwrap_or_default();
        for (i, s) in segs.iter().enumerate().take_while(|(_, s)| s.out < hi) {
            if s.file as usize != first.file {
                return None;
            }
            let start = s.out.max(lo);
            let end = segs.get(i + 1).map_or(hi, |n| n.out.min(hi));
            let src = if s.verbatim {
                s.src + (start - s.out)
            } else {
                s.src
            };
            let rel = src.checked_sub(first.offset)?;
            (start - lo, rel, s.verbatim, s.delta, s.name).hash(&mut h);
            let last = if s.verbatim {
                src + end.saturating_sub(start)
            } else {
                src + 1
            };
            src_hi = src_hi.max(last);
        }
        let starts = self.line_starts.get(first.file)?;
        let a = starts.partition_point(|&x| x <= first.offset);
        let b = starts.partition_point(|&x| x <= src_hi);
        for &x in starts.get(a..b).unwrap_or_default() {
            (x - first.offset).hash(&mut h);
        }
        let len = self.file_lens.get(first.file).copied().unwrap_or(0);
        len.saturating_sub(first.offset)
            .min(src_hi - first.offset + 1)
            .hash(&mut h);
        Some(RangeShape {
            file: first.file,
            offset: first.offset,
            line: first.line,
            col: first.col,
            form: h.finish(),
        })
    }

    /// Number of segments (runs of output with one origin); useful to check map compactness.
    pub fn segment_count(&self) -> usize {
        self.segs.len()
    }
}

/// Where a range of output comes from, up to a move (see
/// [`SourceMap::range_shape`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RangeShape {
    /// Index into [`crate::Output::files`].
    pub file: usize,
    /// Original offset of the range's first byte.
    pub offset: usize,
    /// Reported line of the first byte.
    pub line: u32,
    /// Column of the first byte.
    pub col: u32,
    /// Hash of the mapping of the rest of the range, relative to the first byte.
    pub form: u64,
}

/// Output text under construction together with its segments.
#[derive(Debug, Default)]
pub(crate) struct OutBuf {
    pub text: String,
    pub segs: Vec<Segment>,
    /// `#line` state of the file currently being processed.
    pub delta: i64,
    /// `#line` name of the file currently being processed.
    pub name: Option<u32>,
}

impl OutBuf {
    /// Appends `s`, which comes from `file` at `src` (byte for byte if `verbatim`).
    pub fn push(&mut self, s: &str, file: u32, src: usize, verbatim: bool) {
        if s.is_empty() {
            return;
        }
        self.seg(file, src, verbatim);
        self.text.push_str(s);
    }

    /// Appends `n` newlines that all map to `file` at `src` (no string is
    /// made for them).
    pub fn push_newlines(&mut self, n: usize, file: u32, src: usize) {
        if n == 0 {
            return;
        }
        self.seg(file, src, false);
        self.text.extend(std::iter::repeat_n('\n', n));
    }

    /// Appends `gap`, whitespace and comments from `file` at `src`, with
    /// the comments blanked ([`append_blanked`]): as [`OutBuf::push`] of
    /// the blanked text, which has `gap`'s length.
    pub fn push_blanked(&mut self, gap: &str, file: u32, src: usize) {
        if gap.is_empty() {
            return;
        }
        self.seg(file, src, true);
        append_blanked(&mut self.text, gap);
    }

    /// Makes the last segment the one of text from `file` at `src` written
    /// next: extends it when that text continues it, else starts one.
    fn seg(&mut self, file: u32, src: usize, verbatim: bool) {
        let out = self.text.len();
        let merge = self.segs.last().is_some_and(|l| {
            l.file == file
                && l.delta == self.delta
                && l.name == self.name
                && l.verbatim == verbatim
                && if verbatim {
                    l.src + (out - l.out) == src
                } else {
                    l.src == src
                }
        });
        if !merge {
            self.segs.push(Segment {
                out,
                file,
                src,
                verbatim,
                delta: self.delta,
                name: self.name,
            });
        }
    }

    /// The last byte written, if any.
    pub fn last_byte(&self) -> Option<u8> {
        self.text.as_bytes().last().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_basics() {
        let s = line_starts("ab\ncd\n\nx");
        assert_eq!(s, vec![0, 3, 6, 7]);
        assert_eq!(line_col(&s, 0), (1, 1));
        assert_eq!(line_col(&s, 1), (1, 2));
        assert_eq!(line_col(&s, 3), (2, 1));
        assert_eq!(line_col(&s, 4), (2, 2));
        assert_eq!(line_col(&s, 6), (3, 1));
        assert_eq!(line_col(&s, 7), (4, 1));
    }

    /// The word-at-a-time scan finds every newline, at any alignment.
    #[test]
    fn line_starts_matches_a_byte_scan() {
        let text = "a\n\nbc\u{e9}\n\n\n0123456789abcdef\nxy\n\u{1f600}\n\n".repeat(3);
        for from in 0..text.len() {
            let Some(t) = text.get(from..) else { continue };
            let mut want = vec![0];
            want.extend(
                t.bytes()
                    .enumerate()
                    .filter(|p| p.1 == b'\n')
                    .map(|p| p.0 + 1),
            );
            assert_eq!(line_starts(t), want, "from {from}");
        }
    }

    /// Comments are blanked byte for byte, newlines kept.
    #[test]
    fn append_blanked_keeps_length_and_newlines() {
        let mut s = String::from(">");
        let gap = " /* a\u{e9}\n*/ // x/*\n\t/*/ */ //";
        append_blanked(&mut s, gap);
        assert_eq!(s, ">       \n         \n\t         ");
        assert_eq!(s.len(), gap.len() + 1);
    }

    #[test]
    fn merges_contiguous_and_splits_otherwise() {
        let mut o = OutBuf::default();
        o.push("ab", 0, 10, true);
        o.push("cd", 0, 12, true);
        assert_eq!(o.segs.len(), 1);
        o.push("x", 0, 40, true);
        assert_eq!(o.segs.len(), 2);
        o.push("yy", 0, 50, false);
        o.push("zz", 0, 50, false);
        assert_eq!(o.segs.len(), 3);
        let map = SourceMap {
            segs: o.segs.clone(),
            line_starts: vec![line_starts(&"x\n".repeat(40))],
            file_lens: vec![80],
            names: vec![],
        };
        assert_eq!(map.lookup(3).offset, 13);
        assert_eq!(map.lookup(4).offset, 40);
        assert_eq!(map.lookup(5).offset, 50);
        assert_eq!(map.lookup(8).offset, 50);
        // offset 13 is "\n" of line 7 (lines are 2 bytes): line 7, col 2
        assert_eq!((map.lookup(3).line, map.lookup(3).col), (7, 2));
    }

    /// Galloping from any hint finds what a binary search does.
    #[test]
    fn count_le_matches_partition_point() {
        let v: Vec<usize> = (0..40).map(|i| i * 3 + (i % 4)).collect();
        for n in [0, 1, 2, 7, 40] {
            let v = &v[..n];
            for x in 0..130 {
                let want = v.partition_point(|&e| e <= x);
                for hint in 0..=n + 2 {
                    assert_eq!(
                        count_le(v, |&e| e, x, hint),
                        want,
                        "n {n} x {x} hint {hint}"
                    );
                }
            }
        }
    }

    /// Lookups through a cursor, in any order, equal plain lookups.
    #[test]
    fn lookup_near_matches_lookup() {
        let mut o = OutBuf::default();
        o.push(&"ab\ncd\n".repeat(20), 0, 0, true);
        o.push("xyz", 1, 3, false);
        o.push(&"q\n".repeat(30), 0, 10, true);
        let map = SourceMap {
            segs: o.segs.clone(),
            line_starts: vec![
                line_starts(&"ab\ncd\n".repeat(20)),
                line_starts("0123456\n"),
            ],
            file_lens: vec![120, 8],
            names: vec![],
        };
        let mut c = Cursor::default();
        let order = (0..o.text.len() + 3)
            .chain((0..o.text.len()).rev())
            .chain([5, 90, 2, 61, 40]);
        for off in order {
            let want = map.lookup(off);
            assert_eq!(map.lookup_near(&mut c, off), want, "offset {off}");
            // The end of a span: found from the start's cursor, and
            // leaving one the next lookup still finds its way from.
            for d in [0, 1, 7, 70] {
                let end = map.lookup(off + d);
                let got = map.origin_near(&mut c, off + d);
                assert_eq!(got, (end.file, end.offset), "offset {off} + {d}");
            }
        }
        let empty = SourceMap::default();
        assert_eq!(empty.lookup_near(&mut c, 3), empty.lookup(3));
        let start = empty.lookup(3);
        assert_eq!(empty.origin_near(&mut c, 3), (start.file, start.offset));
    }

    #[test]
    fn empty_map_is_start_of_file() {
        let m = SourceMap::default();
        let l = m.lookup(5);
        assert_eq!((l.file, l.line, l.col), (0, 1, 1));
    }
}
