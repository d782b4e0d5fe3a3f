//! JSON output: every report is written through here, so numbers read as
//! a person would write them.

use serde::Serialize;
use serde_json::Value;

use crate::exit::CliError;

/// `v` as pretty JSON with a final newline. Floating-point results are
/// rounded to 12 significant digits: sums of model terms carry binary noise
/// in their last digits (`312.54499999999996`), which is not a property of
/// the prediction and makes reports differ between equal inputs.
pub fn to_pretty<T: Serialize>(v: &T) -> Result<String, CliError> {
    let mut value = serde_json::to_value(v).map_err(|e| CliError::input(e.to_string()))?;
    tidy(&mut value);
    let mut text =
        serde_json::to_string_pretty(&value).map_err(|e| CliError::input(e.to_string()))?;
    text.push('\n');
    Ok(text)
}

/// Rounds every non-integer number in `v` to 12 significant digits, with an
/// explicit stack (the depth of a report is the caller's, not the input's,
/// but no recursion is cheaper than a proof).
fn tidy(v: &mut Value) {
    let mut stack: Vec<&mut Value> = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Number(n) if n.is_f64() => {
                if let Some(x) = n.as_f64().map(round12) {
                    if let Some(m) = serde_json::Number::from_f64(x) {
                        *n = m;
                    }
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(map) => stack.extend(map.values_mut()),
            _ => {}
        }
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
}
