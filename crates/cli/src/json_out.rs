//! JSON output: every report is written through here, so numbers read as
//! a person would write them.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter};

use crate::exit::CliError;

/// `v` as pretty JSON with a final newline. Floating-point results are
/// rounded to 12 significant digits: sums of model terms carry binary noise
/// in their last digits (`312.54499999999996`), which is not a property of
/// the prediction and makes reports differ between equal inputs.
pub fn to_pretty<T: Serialize>(v: &T) -> Result<String, CliError> {
    let mut text = Vec::new();
    write_pretty(v, &mut text)?;
    String::from_utf8(text).map_err(|e| CliError::input(e.to_string()))
}

/// Writes `v` as [`to_pretty`] would, straight to `out` through a buffer
/// as it is serialized: no document is built in memory first, so a large
/// report costs its own size, not several times that.
pub fn write_pretty<T: Serialize>(v: &T, out: &mut dyn Write) -> Result<(), CliError> {
    let mut buf = io::BufWriter::with_capacity(1 << 16, out);
    pretty_to(v, &mut buf)?;
    buf.write_all(b"\n").map_err(CliError::output)?;
    buf.flush().map_err(CliError::output)
}

/// Serializes `v` pretty (floats rounded) to `w`, without the final
/// newline.
pub fn pretty_to<T: Serialize, W: Write>(v: &T, w: W) -> Result<(), CliError> {
    let mut ser = serde_json::Serializer::with_formatter(w, Rounded(PrettyFormatter::new()));
    v.serialize(&mut ser).map_err(|e| {
        if e.is_io() {
            CliError::output(io::Error::other(e))
        } else {
            CliError::input(e.to_string())
        }
    })
}

/// serde_json's pretty formatter with every float rounded by [`round12`]
/// as it is written.
struct Rounded(PrettyFormatter<'static>);

impl Formatter for Rounded {
    fn write_f64<W: ?Sized + Write>(&mut self, w: &mut W, x: f64) -> io::Result<()> {
        self.0.write_f64(w, round12(x))
    }
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

/// `x` with 12 significant digits.
///
/// When the shortest digits that read back as `x` (ryu's, what
/// serde_json writes) are at most 12, `x` is its own rounding: it lies
/// within half an ulp of those digits, far less than half a unit of the
/// 12th digit, so rounding it to 12 digits gives them, which read back
/// as `x`. Most figures are such; the others (`312.54499999999996`) are
/// formatted and read back (`predict --format json switch_p4_16.p4`:
/// 2,000 instructions a float).
fn round12(x: f64) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    let mut shortest = ryu::Buffer::new();
    if significant_digits(shortest.format_finite(x)) <= 12 {
        return x;
    }
    format!("{x:.11e}").parse().unwrap_or(x)
}

/// The digits of a number written as ryu does (`-0.00120`, `1.5e-7`,
/// `1e22`) from its first digit that is not 0 to the end of its mantissa:
/// its significant digits, with any trailing zeros (never fewer).
fn significant_digits(text: &str) -> usize {
    let mantissa = text.split(['e', 'E']).next().unwrap_or(text);
    mantissa
        .bytes()
        .filter(u8::is_ascii_digit)
        .skip_while(|&b| b == b'0')
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shortcut gives what formatting and reading back gives.
    #[test]
    fn rounding_is_formatting_and_reading_back() {
        let slow = |x: f64| -> f64 { format!("{x:.11e}").parse().unwrap_or(x) };
        let mut v: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut xs = vec![
            1e22,
            1e-7,
            0.001,
            123456789012.0,
            1234567890123.0,
            0.1 + 0.2,
            1.0 / 3.0,
            999.9999999999999,
            9.999999999995,
            9.9999999999995,
            5e-324,
            f64::MAX,
        ];
        for i in 0..20_000u32 {
            v ^= v << 13;
            v ^= v >> 7;
            v ^= v << 17;
            xs.push(f64::from_bits(v));
            // Sums of short figures: the usual noisy ones.
            let a = f64::from((v % 1_000_000) as u32) / 1000.0;
            let b = f64::from((v >> 20) as u32 % 100_000) / 1000.0;
            xs.push(a + b + f64::from(i % 7) * 0.1);
        }
        for x in xs.into_iter().filter(|x| x.is_finite() && *x != 0.0) {
            assert_eq!(round12(x).to_bits(), slow(x).to_bits(), "{x:e}");
            assert_eq!(round12(-x).to_bits(), slow(-x).to_bits(), "{x:e}");
        }
        assert_eq!(significant_digits("-0.00120"), 3);
        assert_eq!(significant_digits("1.5e-7"), 2);
        assert_eq!(significant_digits("312.54499999999996"), 17);
    }

    #[test]
    fn binary_noise_is_rounded_away_and_real_digits_kept() {
        assert_eq!(round12(312.54499999999996), 312.545);
        assert_eq!(round12(0.1 + 0.2), 0.3);
        assert_eq!(round12(273.764), 273.764);
        assert_eq!(round12(1.23456789012e-9), 1.23456789012e-9);
        assert_eq!(round12(1.2345678901234e-9), 1.23456789012e-9);
        assert_eq!(round12(-5.0), -5.0);
        let text = to_pretty(&serde_json::json!({"a": [0.1 + 0.2, 3], "b": {"c": 2.5}})).unwrap();
        assert_eq!(
            text,
            "{\n  \"a\": [\n    0.3,\n    3\n  ],\n  \"b\": {\n    \"c\": 2.5\n  }\n}\n"
        );
    }

    /// The streamed writer prints what the document built in memory did
    /// (serde_json's `Value`, then its pretty text), rounding included.
    #[test]
    fn streamed_output_is_the_built_document() {
        #[derive(Serialize)]
        struct S {
            x: f64,
            whole: f64,
            nan: f64,
            big: u128,
            empty: Vec<u8>,
            list: Vec<Option<f64>>,
            nested: serde_json::Value,
        }
        let v = S {
            x: 312.54499999999996,
            whole: 5.0,
            nan: f64::NAN,
            big: 1 << 60,
            empty: vec![],
            list: vec![Some(0.1 + 0.2), None],
            nested: serde_json::json!({"k": [1, {"z": 1.5e-12}], "e": {}}),
        };
        let mut built = serde_json::to_value(&v).unwrap();
        let mut stack = vec![&mut built];
        while let Some(x) = stack.pop() {
            match x {
                serde_json::Value::Number(n) if n.is_f64() => {
                    let r = round12(n.as_f64().unwrap());
                    *n = serde_json::Number::from_f64(r).unwrap();
                }
                serde_json::Value::Array(a) => stack.extend(a.iter_mut()),
                serde_json::Value::Object(m) => stack.extend(m.values_mut()),
                _ => {}
            }
        }
        let expected = format!("{}\n", serde_json::to_string_pretty(&built).unwrap());
        assert_eq!(to_pretty(&v).unwrap(), expected);
        assert!(expected.contains("312.545") && expected.contains("\"whole\": 5.0"));
    }
}
