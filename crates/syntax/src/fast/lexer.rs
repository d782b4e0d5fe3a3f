//! Byte-level scanning for the fast path: whitespace, words, reserved
//! words, integer and string literals and raw annotation bodies, each
//! exactly as the grammar's atomic rules (`src/p4.pest`) read them.

/// The first offset from `i` on that is not the grammar's `WHITESPACE`.
pub(crate) fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\t'..=b'\r') = b.get(i) {
        i += 1;
    }
    i
}

/// What each byte is to a word: [`WORD_START`] for `ASCII_ALPHA | "_"`,
/// [`WORD_DIGIT`] for `ASCII_DIGIT`, 0 for the rest (one load per byte).
const WORD_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        if b.is_ascii_alphabetic() || b == b'_' {
            t[c] = WORD_START;
        } else if b.is_ascii_digit() {
            t[c] = WORD_DIGIT;
        }
        c += 1;
    }
    t
};
const WORD_START: u8 = 1;
const WORD_DIGIT: u8 = 2;

/// The end of the word `(ASCII_ALPHA | "_") ~ (ASCII_ALPHANUMERIC | "_")*`
/// starting at `i`, or `i` when none starts there.
pub(super) fn word_end(b: &[u8], i: usize) -> usize {
    let Some(rest) = b.get(i..) else {
        return i;
    };
    match rest.first() {
        Some(&c) if WORD_CLASS[usize::from(c)] == WORD_START => {}
        _ => return i,
    }
    i + rest
        .iter()
        .position(|&c| WORD_CLASS[usize::from(c)] == 0)
        .unwrap_or(rest.len())
}

/// The grammar's reserved words (`reserved` in p4.pest): never a name.
pub(super) fn is_reserved(w: &[u8]) -> bool {
    matches!(
        w,
        b"abstract"
            | b"action"
            | b"bit"
            | b"bool"
            | b"break"
            | b"const"
            | b"continue"
            | b"control"
            | b"default"
            | b"else"
            | b"enum"
            | b"error"
            | b"exit"
            | b"extern"
            | b"false"
            | b"for"
            | b"header_union"
            | b"header"
            | b"if"
            | b"inout"
            | b"int"
            | b"in"
            | b"match_kind"
            | b"out"
            | b"table"
            | b"this"
            | b"transition"
            | b"true"
            | b"tuple"
            | b"typedef"
            | b"select"
            | b"string"
            | b"struct"
            | b"switch"
            | b"package"
            | b"parser"
            | b"return"
            | b"varbit"
            | b"value_set"
            | b"void"
    )
}

fn digits_end(b: &[u8], mut i: usize, ok: fn(u8) -> bool) -> usize {
    while b.get(i).is_some_and(|c| ok(*c) || *c == b'_') {
        i += 1;
    }
    i
}

/// The end of `("0x" | "0X") ~ "_"* ~ HEX ~ (HEX | "_")*` (or the binary,
/// octal or decimal form) at `k`, if it matches there.
fn prefixed_end(b: &[u8], k: usize, letter: u8, ok: fn(u8) -> bool) -> Option<usize> {
    if b.get(k) != Some(&b'0') || b.get(k + 1).map(u8::to_ascii_lowercase) != Some(letter) {
        return None;
    }
    let mut m = k + 2;
    while b.get(m) == Some(&b'_') {
        m += 1;
    }
    if !b.get(m).is_some_and(|c| ok(*c)) {
        return None;
    }
    Some(digits_end(b, m + 1, ok))
}

/// The end of the grammar's `int_lit` at `i`, if one starts there.
pub(super) fn int_lit_end(b: &[u8], i: usize) -> Option<usize> {
    let lead = b[i.min(b.len())..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    let k = match b.get(i + lead) {
        Some(b'w' | b's') if lead > 0 => i + lead + 1,
        _ => i,
    };
    let end = prefixed_end(b, k, b'x', |c| c.is_ascii_hexdigit())
        .or_else(|| prefixed_end(b, k, b'b', |c| c == b'0' || c == b'1'))
        .or_else(|| prefixed_end(b, k, b'o', |c| (b'0'..=b'7').contains(&c)))
        .or_else(|| prefixed_end(b, k, b'd', |c| c.is_ascii_digit()))
        .or_else(|| {
            b.get(k)
                .is_some_and(u8::is_ascii_digit)
                .then(|| digits_end(b, k + 1, |c| c.is_ascii_digit()))
        })?;
    match b.get(end) {
        Some(c) if c.is_ascii_alphabetic() => None,
        _ => Some(end),
    }
}

/// Where the string whose opening quote is at `i` ends (one past its
/// closing quote), as `"\"" ~ string_inner ~ "\""` reads it; `None` when
/// it is not closed.
pub(super) fn string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    loop {
        match b.get(j)? {
            b'"' => return Some(j + 1),
            b'\\' => j += 2,
            _ => j += 1,
        }
    }
}

/// True when the string token `s` (quotes included) holds `//`: node spans
/// are trimmed of what looks like a trailing comment (see the builder's
/// `trim_trivia_end`), which such a string can fool, so the fast path
/// leaves it to the builder.
pub(super) fn string_is_plain(s: &[u8]) -> bool {
    !s.windows(2).any(|w| w == b"//")
}

/// The end of the raw body `annot_piece*` of `@name(...)` starting at `i`
/// (just after the `(`): the offset of its closing `)`. `None` when the
/// parentheses do not balance or a string in it is odd (the grammar's
/// backtracking there is left to pest).
pub(super) fn annot_raw_end(b: &[u8], i: usize) -> Option<usize> {
    let mut open = 0usize;
    let mut j = i;
    loop {
        match *b.get(j)? {
            b'"' => {
                let e = string_end(b, j)?;
                if !string_is_plain(b.get(j..e)?) {
                    return None;
                }
                j = e;
            }
            b'(' => {
                open += 1;
                j += 1;
            }
            b')' if open == 0 => return Some(j),
            b')' => {
                open -= 1;
                j += 1;
            }
            _ => j += 1,
        }
    }
}

/// The end of `pragma_raw` from `i`: the rest of the line, where a string
/// may run on over the following lines.
pub(super) fn pragma_raw_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i;
    loop {
        match b.get(j) {
            None | Some(b'\n') => return Some(j),
            Some(b'"') => match string_end(b, j) {
                Some(e) => {
                    if !string_is_plain(b.get(j..e)?) {
                        return None;
                    }
                    j = e;
                }
                None => return None,
            },
            Some(_) => j += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_literals_as_the_grammar_reads_them() {
        let cases: &[(&str, Option<usize>)] = &[
            ("42", Some(2)),
            ("8w0x0F;", Some(6)),
            ("32s5", Some(4)),
            ("0x", None),
            ("0xg", None),
            ("1_000 ", Some(5)),
            ("8w0b_1010", Some(9)),
            ("0b102", Some(4)),
            ("5s", None),
            ("12ab", None),
            ("0d19", Some(4)),
        ];
        for (t, want) in cases {
            assert_eq!(int_lit_end(t.as_bytes(), 0), *want, "{t}");
        }
    }

    #[test]
    fn reserved_words_are_whole_words() {
        for w in ["in", "inout", "int", "header", "header_union", "value_set"] {
            assert!(is_reserved(w.as_bytes()), "{w}");
        }
        for w in [
            "inx", "int8", "headers", "apply", "key", "list", "type", "state",
        ] {
            assert!(!is_reserved(w.as_bytes()), "{w}");
        }
    }

    #[test]
    fn raw_bodies_balance_parentheses_outside_strings() {
        let b = br#"a, (b), ")" ) rest"#;
        assert_eq!(annot_raw_end(b, 0), Some(12));
        assert_eq!(annot_raw_end(b"(a", 0), None);
        assert_eq!(annot_raw_end(br#""http://x")"#, 0), None);
    }
}
