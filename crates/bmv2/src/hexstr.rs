//! BMv2 hex strings (`0x0800`, `7`, `-0x1`) and the splitting of a
//! concatenated transition value into one keyset per select key.

use p4cost_ir::Keyset;

/// The hex digits of a hex string (sign and `0x` removed, lower case), or
/// `None` when the text is not a hex string. The flag is true for a
/// negative value.
pub(crate) fn digits(text: &str) -> Option<(bool, String)> {
    let (neg, rest) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text),
    };
    let rest = rest
        .strip_prefix("0x")
        .or_else(|| rest.strip_prefix("0X"))
        .unwrap_or(rest);
    if rest.is_empty() || !rest.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    Some((neg, rest.to_ascii_lowercase()))
}

/// The value of a non-negative hex string that fits 64 bits.
pub(crate) fn to_u64(text: &str) -> Option<u64> {
    let (neg, d) = digits(text)?;
    if neg {
        return None;
    }
    let trimmed = d.trim_start_matches('0');
    if trimmed.is_empty() {
        return Some(0);
    }
    u64::from_str_radix(trimmed, 16).ok()
}

/// The most hex digits [`to_decimal`] converts (1024 bits); longer
/// constants are not worth quadratic work.
const MAX_DECIMAL_DIGITS: usize = 256;

/// The decimal text of a hex string (`0x0100` -> `256`, `-0x1` -> `-1`),
/// exact whatever its width; `None` when the text is not a hex string or
/// has more than [`MAX_DECIMAL_DIGITS`] significant digits.
pub(crate) fn to_decimal(text: &str) -> Option<String> {
    let (neg, d) = digits(text)?;
    let d = d.trim_start_matches('0');
    if d.len() > MAX_DECIMAL_DIGITS {
        return None;
    }
    // Little-endian limbs of 10^9.
    let mut limbs: Vec<u64> = vec![0];
    for c in d.chars() {
        let mut carry = u64::from(c.to_digit(16)?);
        for l in limbs.iter_mut() {
            let v = *l * 16 + carry;
            *l = v % 1_000_000_000;
            carry = v / 1_000_000_000;
        }
        if carry > 0 {
            limbs.push(carry);
        }
    }
    let mut out = String::new();
    if neg && limbs.iter().any(|&l| l != 0) {
        out.push('-');
    }
    let mut iter = limbs.iter().rev();
    if let Some(top) = iter.next() {
        out.push_str(&top.to_string());
    }
    for l in iter {
        out.push_str(&format!("{l:09}"));
    }
    Some(out)
}

/// Resizes a digit string to exactly `n` digits: pads with leading zeros,
/// or drops leading zeros; `None` if a non-zero digit would be dropped.
fn fit(d: &str, n: usize) -> Option<String> {
    if d.len() <= n {
        let mut s = "0".repeat(n - d.len());
        s.push_str(d);
        Some(s)
    } else {
        let (extra, keep) = d.split_at(d.len() - n);
        extra.bytes().all(|b| b == b'0').then(|| keep.to_string())
    }
}

/// Whether bit `i` (0 = least significant) of a digit string is set.
fn bit(d: &str, i: u32) -> bool {
    let pos = (i / 4) as usize;
    let Some(idx) = d.len().checked_sub(pos + 1) else {
        return false;
    };
    let nib = d
        .as_bytes()
        .get(idx)
        .and_then(|b| (*b as char).to_digit(16))
        .unwrap_or(0);
    nib & (1 << (i % 4)) != 0
}

/// The number of set bits of a non-negative hex string (a key mask),
/// counting only the low `limit` bits when a limit is given; `None` when
/// the text is not a non-negative hex string.
pub(crate) fn count_ones(text: &str, limit: Option<u32>) -> Option<u32> {
    let (neg, d) = digits(text)?;
    if neg {
        return None;
    }
    let bits = u32::try_from(d.len()).ok()?.checked_mul(4)?;
    let top = limit.map_or(bits, |l| l.min(bits));
    Some((0..top).filter(|i| bit(&d, *i)).count() as u32)
}

/// Splits a BMv2 transition value (and optional mask), which concatenates
/// every key field padded to whole bytes, into one keyset per key. Returns
/// `None` when the widths are not all known or the text does not have the
/// expected length, in which case the caller keeps one keyset for the
/// whole tuple.
pub(crate) fn split_keyset(
    value: &str,
    mask: Option<&str>,
    widths: &[Option<u32>],
) -> Option<Vec<Keyset>> {
    if widths.is_empty() {
        return None;
    }
    let widths: Vec<u32> = widths.iter().copied().collect::<Option<Vec<u32>>>()?;
    let sizes: Vec<usize> = widths
        .iter()
        .map(|w| (*w as usize).div_ceil(8) * 2)
        .collect();
    let total: usize = sizes.iter().sum();
    let (vneg, vd) = digits(value)?;
    if vneg {
        return None;
    }
    let vd = fit(&vd, total)?;
    let md = match mask {
        Some(m) => {
            let (mneg, md) = digits(m)?;
            if mneg {
                return None;
            }
            Some(fit(&md, total)?)
        }
        None => None,
    };
    let mut out = Vec::with_capacity(widths.len());
    let mut at = 0usize;
    for (w, size) in widths.iter().zip(&sizes) {
        let v = vd.get(at..at + size)?;
        let ks = match &md {
            None => Keyset::Value {
                value: format!("0x{v}"),
            },
            Some(md) => {
                let m = md.get(at..at + size)?;
                let set = (0..*w).filter(|i| bit(m, *i)).count() as u32;
                if set == *w {
                    Keyset::Value {
                        value: format!("0x{v}"),
                    }
                } else if set == 0 {
                    Keyset::Default
                } else {
                    Keyset::Mask {
                        value: format!("0x{v}"),
                        mask: format!("0x{m}"),
                    }
                }
            }
        };
        out.push(ks);
        at += size;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_text_of_any_width() {
        assert_eq!(to_decimal("0x0100").as_deref(), Some("256"));
        assert_eq!(to_decimal("0x0000").as_deref(), Some("0"));
        assert_eq!(to_decimal("-0x1").as_deref(), Some("-1"));
        assert_eq!(
            to_decimal("0xffffffffffffffffffffffffffffffff").as_deref(),
            Some("340282366920938463463374607431768211455")
        );
        assert_eq!(
            to_decimal("0x3b9aca00").as_deref(), // 10^9: a whole limb
            Some("1000000000")
        );
        assert_eq!(to_decimal("xyz"), None);
        assert_eq!(to_decimal(&format!("0x1{}", "0".repeat(300))), None);
    }

    fn val(s: &str) -> Keyset {
        Keyset::Value {
            value: s.to_string(),
        }
    }

    #[test]
    fn hex_digits_and_values() {
        assert_eq!(digits("0x0aBa"), Some((false, "0aba".to_string())));
        assert_eq!(digits("7"), Some((false, "7".to_string())));
        assert_eq!(digits("-0x1"), Some((true, "1".to_string())));
        assert_eq!(digits("0x"), None);
        assert_eq!(digits("0xg1"), None);
        assert_eq!(to_u64("0x00000020"), Some(32));
        assert_eq!(to_u64("0x0000000000000000000010"), Some(16));
        assert_eq!(to_u64("0x1ffffffffffffffff"), None);
    }

    #[test]
    fn counts_mask_bits() {
        assert_eq!(count_ones("0xff000000", None), Some(8));
        assert_eq!(
            count_ones("0xffff0000000000000000000000000000", None),
            Some(16)
        );
        assert_eq!(count_ones("0xff00ff00", Some(32)), Some(16));
        // Bits above the limit (the field width) are not counted.
        assert_eq!(count_ones("0x1ff", Some(8)), Some(8));
        assert_eq!(count_ones("0x0", None), Some(0));
        assert_eq!(count_ones("-0xff", None), None);
        assert_eq!(count_ones("mask", None), None);
    }

    #[test]
    fn splits_the_documented_example() {
        // A 12-bit and a 2-bit key: 0xaba and 0x3 are written 0x0aba03.
        let ks = split_keyset("0x0aba03", None, &[Some(12), Some(2)]).unwrap();
        assert_eq!(ks, vec![val("0x0aba"), val("0x03")]);
    }

    #[test]
    fn masks_become_value_mask_or_dont_care() {
        // 16-bit full mask, 3-bit partial mask, 6-bit zero mask.
        let ks = split_keyset(
            "0x08100432",
            Some("0xffff0600"),
            &[Some(16), Some(3), Some(6)],
        )
        .unwrap();
        assert_eq!(
            ks,
            vec![
                val("0x0810"),
                Keyset::Mask {
                    value: "0x04".to_string(),
                    mask: "0x06".to_string()
                },
                Keyset::Default,
            ]
        );
        // A mask with bits set above the width still covers the field.
        let ks = split_keyset("0x03", Some("0xff"), &[Some(2)]).unwrap();
        assert_eq!(ks, vec![val("0x03")]);
    }

    #[test]
    fn refuses_unknown_widths_or_wrong_lengths() {
        assert!(split_keyset("0x0800", None, &[None]).is_none());
        assert!(split_keyset("0x123456", None, &[Some(8)]).is_none());
        // Short values are padded; extra leading zeros are dropped.
        assert_eq!(
            split_keyset("0x8", None, &[Some(16)]).unwrap(),
            vec![val("0x0008")]
        );
        assert_eq!(
            split_keyset("0x000800", None, &[Some(16)]).unwrap(),
            vec![val("0x0800")]
        );
    }
}
