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
fn round12(x: f64) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    format!("{x:.11e}").parse().unwrap_or(x)
}

#[cfg(test)]
mod tests {
    use super::*;

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
