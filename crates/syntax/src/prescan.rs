//! A linear scan of the raw text that rejects bracket nesting deeper than
//! the builder accepts before pest runs, so that hostile nesting fails in
//! microseconds instead of after pest's backtracking over every level.

use crate::builder::{too_deep_message, MAX_DEPTH};
use crate::error::SyntaxError;

/// Fails at the first `(`, `[` or `{` that opens more than [`MAX_DEPTH`]
/// levels, skipping comments, string literals and `#` lines as the grammar
/// does.  Unbalanced closers are left to the parser to report.
pub(crate) fn check_nesting(text: &str) -> Result<(), SyntaxError> {
    let b = text.as_bytes();
    let mut depth: u32 = 0;
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\n' => {
                line_start = true;
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {
                i += 1;
                continue;
            }
            b'#' if line_start => i = skip_line(b, i),
            b'/' if b.get(i + 1) == Some(&b'/') => i = skip_line(b, i),
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = match find(b, i + 2, b"*/") {
                    Some(end) => end + 2,
                    None => b.len(),
                };
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(SyntaxError {
                        offset: i,
                        message: too_deep_message(),
                    });
                }
                i += 1;
            }
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            _ => i += 1,
        }
        line_start = false;
    }
    Ok(())
}

/// The offset of the `\n` ending the line that contains `i` (or the end).
fn skip_line(b: &[u8], i: usize) -> usize {
    b[i..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |p| i + p)
}

/// The first offset at or after `from` where `pat` occurs.
fn find(b: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
    b.get(from..)?
        .windows(pat.len())
        .position(|w| w == pat)
        .map(|p| from + p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_brackets_outside_comments_and_strings() {
        let deep = "(".repeat(MAX_DEPTH as usize + 1);
        let e = check_nesting(&deep).expect_err("too deep");
        assert_eq!(e.offset, MAX_DEPTH as usize);
        assert!(e.message.contains("limit 1000"), "{}", e.message);
        assert!(check_nesting(&"(".repeat(MAX_DEPTH as usize)).is_ok());
        for wrapped in [
            format!("// {deep}\n"),
            format!("/* {deep} */"),
            format!("\"{deep}\""),
            format!("# 1 \"{deep}\"\n"),
        ] {
            assert!(check_nesting(&wrapped).is_ok(), "{wrapped}");
        }
        // Closers bring the depth back down.
        assert!(check_nesting(&"()".repeat(5000)).is_ok());
    }
}
