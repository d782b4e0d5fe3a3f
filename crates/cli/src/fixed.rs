//! Figures with three decimals, as `{:.3}` and `{:+.3}` print them,
//! written without the formatting machinery: the table prints about a
//! thousand of them (a class line, a path line, a table line), and std's
//! exact-precision path costs about 1,500 instructions each (grisu's
//! exact mode through `core::fmt::write`); this is a few dozen.

use std::fmt::Write as _;

/// Largest magnitude written here (2^52): below it a figure's binary
/// exponent is negative, so its thousandths are an integer shift away.
const LIMIT: f64 = 4_503_599_627_370_496.0;

/// Writes `x` as `format!("{x:.3}")` would (`plus`: `{x:+.3}`) onto `s`.
pub fn push_fixed3(s: &mut String, x: f64, plus: bool) {
    let Some(q) = thousandths(x.abs()) else {
        // Not finite, or too large for the shift: std's formatter.
        let _ = if plus {
            write!(s, "{x:+.3}")
        } else {
            write!(s, "{x:.3}")
        };
        return;
    };
    // Written backwards into a buffer, then onto `s` at once: q < 2^63,
    // at most 19 digits, a point and a sign.
    let mut text = [0u8; 24];
    let mut at = text.len();
    let mut put = |b: u8| {
        at -= 1;
        text[at] = b;
    };
    let (mut whole, part) = (q / 1000, q % 1000);
    put(b'0' + (part % 10) as u8);
    put(b'0' + (part / 10 % 10) as u8);
    put(b'0' + (part / 100) as u8);
    put(b'.');
    loop {
        put(b'0' + (whole % 10) as u8);
        whole /= 10;
        if whole == 0 {
            break;
        }
    }
    if x.is_sign_negative() {
        put(b'-');
    } else if plus {
        put(b'+');
    }
    // ASCII digits, point and sign.
    s.push_str(std::str::from_utf8(&text[at..]).unwrap_or_default());
}

/// `x` (not negative) in thousandths rounded to the nearest, a tie to the
/// even one (std's rounding of the exact binary value); `None` when `x`
/// is not finite or not below [`LIMIT`].
fn thousandths(x: f64) -> Option<u64> {
    if !x.is_finite() || x >= LIMIT {
        return None;
    }
    if x == 0.0 {
        return Some(0);
    }
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    // x = m * 2^-k exactly, k >= 1 (x < 2^52).
    let (m, k) = if biased == 0 {
        (fraction, 1074)
    } else {
        (fraction | (1 << 52), (1075 - biased) as u32)
    };
    // m < 2^53: m * 1000 < 2^63.
    let n = m * 1000;
    if k >= 64 {
        // n < 2^63 <= half a unit: rounds to zero.
        return Some(0);
    }
    let q = n >> k;
    let rest = n & ((1 << k) - 1);
    let half = 1 << (k - 1);
    Some(if rest > half || (rest == half && q & 1 == 1) {
        q + 1
    } else {
        q
    })
}

/// Writes `n` in decimal onto `s`.
pub fn push_u64(s: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // ASCII digits.
    s.push_str(std::str::from_utf8(&digits[at..]).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both(x: f64) {
        let mut s = String::new();
        push_fixed3(&mut s, x, false);
        assert_eq!(s, format!("{x:.3}"), "{x:e}");
        s.clear();
        push_fixed3(&mut s, x, true);
        assert_eq!(s, format!("{x:+.3}"), "{x:e}");
    }

    #[test]
    fn special_and_edge_values_are_std_s() {
        let edges = [
            0.0,
            -0.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            5e-324,
            1e-300,
            0.0005,
            0.0015,
            0.0025,
            f64::from_bits(0.0005f64.to_bits() - 1),
            0.9995,
            0.9994999999999999,
            999.9995,
            312.54499999999996,
            273.764,
            LIMIT,
            LIMIT - 1.0,
            LIMIT / 2.0 + 0.5,
            LIMIT * 2.0,
            f64::MAX,
            -1234.5675,
            u64::MAX as f64,
        ];
        for x in edges {
            both(x);
            both(-x);
        }
    }

    #[test]
    fn ties_round_as_std_does() {
        // k/2000 and k/16: exact binary ties at the third decimal among them.
        for k in 0..20_000u32 {
            both(f64::from(k) / 2000.0);
            both(f64::from(k) / 16.0);
            both(f64::from(k) / 1024.0);
        }
    }

    #[test]
    fn pseudo_random_values_are_std_s() {
        // A xorshift over the bit patterns, and over figures near 10^k.
        let mut v: u64 = 0x9E37_79B9_7F4A_7C15;
        for i in 0..50_000u32 {
            v ^= v << 13;
            v ^= v >> 7;
            v ^= v << 17;
            both(f64::from_bits(v));
            let scale = 10f64.powi((i % 18) as i32 - 4);
            both((v >> 11) as f64 / (1u64 << 53) as f64 * scale);
        }
    }

    #[test]
    fn integers_are_decimal() {
        for n in [0, 1, 9, 10, 99, 100, 12345, u64::MAX] {
            let mut s = String::from("x");
            push_u64(&mut s, n);
            assert_eq!(s, format!("x{n}"));
        }
    }
}
