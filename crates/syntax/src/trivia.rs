//! Comments and leftover `#` lines turned into blanks before pest runs.
//!
//! pest tries the grammar's `WHITESPACE` rule between any two elements of
//! every sequence, and most of those calls find nothing to skip.  With
//! comments and `#` lines in that rule, each such call cost a sequence and
//! a lookahead (a checkpoint of pest's state each) before failing; with
//! them replaced by spaces here, one linear pass, the rule is two character
//! tests.  The preprocessor already blanks comments, so on its output this
//! pass mostly finds `#pragma` lines.
//!
//! Every byte keeps its offset (comment bytes become spaces, line breaks
//! stay), so spans, line numbers and error positions are those of the text
//! given.  What the grammar reads as text rather than trivia is left alone:
//! string literals, the raw body of `@name(...)` annotations, the rest of a
//! `@pragma` line and the invalid-header literal `{#}`.  An unterminated
//! `/*` is left too: the parser then reports it where it starts, as before.

use std::borrow::Cow;

use crate::prescan::{find, skip_line as line_end};

/// The bytes that start anything but a plain token or blank: `/`, `#`,
/// `"` and `@` (one table load per byte where four compares were).
const STARTS: [bool; 256] = {
    let mut t = [false; 256];
    t[b'/' as usize] = true;
    t[b'#' as usize] = true;
    t[b'"' as usize] = true;
    t[b'@' as usize] = true;
    t
};

/// The first offset from `i` on of a byte [`STARTS`] holds, read eight
/// bytes at a time (most text has none: a program has a few thousand
/// such bytes in a megabyte).
fn next_start(b: &[u8], mut i: usize) -> Option<usize> {
    while let Some(chunk) = b.get(i..i + 8) {
        let Ok(bytes) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let x = u64::from_le_bytes(bytes);
        let found = has_byte(x, b'/') | has_byte(x, b'#') | has_byte(x, b'"') | has_byte(x, b'@');
        if found != 0 {
            // The lowest flag marks the first such byte exactly (only
            // flags above a match may be spurious).
            return Some(i + (found.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    let rest = b.get(i..)?;
    rest.iter()
        .position(|&c| STARTS[usize::from(c)])
        .map(|p| i + p)
}

/// The high bit of each byte of `x` equal to `c` set (and maybe of bytes
/// above one), every other bit clear.
fn has_byte(x: u64, c: u8) -> u64 {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGH: u64 = ONES << 7;
    let v = x ^ (ONES * u64::from(c));
    v.wrapping_sub(ONES) & !v & HIGH
}

/// `text` with its comments and `#` lines (outside strings and raw
/// annotation bodies) replaced by spaces, line breaks kept; borrowed when
/// there is nothing to blank.
pub(crate) fn blank(text: &str) -> Cow<'_, str> {
    let b = text.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    let mut i = 0;
    // An annotation name was just read: a `(` after trivia opens its raw body.
    let mut after_annotation = false;
    while i < b.len() {
        if !after_annotation {
            // Only these bytes start anything but a plain token or blank.
            match next_start(b, i) {
                Some(p) => i = p,
                None => break,
            }
        }
        let c = b[i];
        let next = b.get(i + 1).copied();
        let (end, blanked) = match c {
            b' ' | b'\t'..=b'\r' => (i + 1, false),
            b'/' if next == Some(b'/') => (line_end(b, i), true),
            b'/' if next == Some(b'*') => match find(b, i + 2, b"*/") {
                Some(e) => (e + 2, true),
                None => (b.len(), false),
            },
            b'#' if !closes_invalid_header(b, i + 1) => (line_end(b, i), true),
            _ => {
                let end = token_end(b, i, after_annotation);
                after_annotation = c == b'@' && !pragma_at(b, i);
                (end, false)
            }
        };
        if blanked {
            let o = out.get_or_insert_with(|| b.to_vec());
            for byte in &mut o[i..end] {
                if !matches!(*byte, b'\t'..=b'\r') {
                    *byte = b' ';
                }
            }
        }
        i = end.max(i + 1);
    }
    match out.map(String::from_utf8) {
        Some(Ok(s)) => Cow::Owned(s),
        // Only ASCII bytes (and whole comments) were replaced by spaces, so
        // this cannot happen; the text as given is still a correct answer.
        Some(Err(_)) | None => Cow::Borrowed(text),
    }
}

/// The end of the token (not trivia) starting at `i`: a string literal, a
/// `@pragma` line, an annotation name, the raw body of an annotation when
/// `after_annotation`, or one byte.
fn token_end(b: &[u8], i: usize, after_annotation: bool) -> usize {
    match b[i] {
        b'"' => string_end(b, i),
        b'(' if after_annotation => raw_body_end(b, i),
        b'@' if pragma_at(b, i) => pragma_end(b, i),
        b'@' => b[i + 1..]
            .iter()
            .position(|&c| !(c.is_ascii_alphanumeric() || c == b'_'))
            .map_or(b.len(), |p| i + 1 + p),
        _ => i + 1,
    }
}

/// `@pragma` followed by a blank: the grammar's `pragma_annotation`, whose
/// text runs to the end of the line.
fn pragma_at(b: &[u8], i: usize) -> bool {
    b[i..].starts_with(b"@pragma") && matches!(b.get(i + 7), Some(b' ' | b'\t'))
}

/// The end of the `@pragma` line at `i`: its line break, strings (which
/// may span lines) skipped whole.
fn pragma_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i] != b'\n' {
        i = if b[i] == b'"' {
            string_end(b, i)
        } else {
            i + 1
        };
    }
    i
}

/// The offset after the string literal opening at `i` (its `\` escapes
/// skipped), or the end of the text.
pub(crate) fn string_end(b: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// The offset after the `)` that closes the `(` at `i` (nested parentheses
/// and strings skipped, as the grammar's `annot_raw`), or the end.
fn raw_body_end(b: &[u8], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i = string_end(b, i);
                continue;
            }
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    b.len()
}

/// Whether blanks and then `}` follow offset `i` (the `#` before it is the
/// invalid-header literal `{#}`, not a directive line).
fn closes_invalid_header(b: &[u8], i: usize) -> bool {
    let rest = b.get(i..).unwrap_or(&[]);
    let blanks = rest
        .iter()
        .take_while(|&&c| c == b' ' || c == b'\t')
        .count();
    rest.get(blanks) == Some(&b'}')
}

#[cfg(test)]
mod tests {
    use super::blank;

    #[test]
    fn comments_and_hash_lines_become_blanks_in_place() {
        let src = "a // x\n/* y\nz */ b\n#pragma once\nc";
        let out = blank(src);
        assert_eq!(out, "a     \n    \n     b\n            \nc");
        assert_eq!(out.len(), src.len());
    }

    #[test]
    fn text_the_grammar_reads_is_kept() {
        for src in [
            "x = \"// not a comment /* \\\" # \";",
            "@name(\"a\" /* raw */ (b // c\n)) x;",
            "@pragma foo bar // kept\nx;",
            "@pragma foo \"multi\n// line\" y\nx;",
            "h = {#}; g = { #\t};",
            "a /* unterminated",
        ] {
            assert_eq!(blank(src), src);
        }
        assert_eq!(
            blank("@name /* c */ (/* raw */) x; // y"),
            "@name         (/* raw */) x;     "
        );
        assert_eq!(
            blank("@pragma foo // kept\nx; // gone"),
            "@pragma foo // kept\nx;        "
        );
        assert_eq!(blank("{ # x }\ny"), "{      \ny");
    }

    /// Read eight bytes at a time, the next `/`, `#`, `"` or `@` is the
    /// one a byte-by-byte search finds, wherever it falls in a word.
    #[test]
    fn next_start_finds_the_first_special_byte() {
        let base = "abcdefgh ijklmnop qrstuvwx yz\u{e9}\u{20ac}\u{7f}012345";
        for pos in 0..base.len() {
            for special in ['/', '#', '"', '@'] {
                let mut text = base.as_bytes().to_vec();
                text[pos] = special as u8;
                text.extend_from_slice(b"@/");
                for from in 0..=pos {
                    let want = text[from..]
                        .iter()
                        .position(|c| b"/#\"@".contains(c))
                        .map(|p| from + p);
                    assert_eq!(super::next_start(&text, from), want, "{pos} {from}");
                }
            }
        }
        assert_eq!(super::next_start(b"abcdefghijklmnop", 3), None);
        assert_eq!(super::next_start(b"", 0), None);
    }

    #[test]
    fn nothing_to_blank_borrows() {
        assert!(matches!(
            blank("control C() { apply { x = a / b; } }"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn multibyte_text_in_comments_keeps_offsets() {
        let src = "a // ünïcode\nb /* € */ c";
        let out = blank(src);
        assert_eq!(out.len(), src.len());
        assert_eq!(out, "a             \nb           c");
    }
}
