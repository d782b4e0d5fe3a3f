//! The values a model file may hold, checked at load with the JSON path of
//! the first one out of bounds (docs/models.md, "Model file values").
//!
//! Every number must be finite and at most [`MAX_MAGNITUDE`] either side of
//! zero; every string plain text (no control characters, which would reach
//! the terminal raw); a latency coefficient at most [`MAX_COEFF_NS`] and,
//! in a published-form linear model, not below zero; a port speed within
//! [`PORT_GBPS`]; a clock within [`CLOCK_GHZ`].

use std::ops::RangeInclusive;

use serde_json::Value;

/// The largest magnitude of any number in a model file (table entries,
/// memory sizes and fitted coefficients all stay far below it).
pub const MAX_MAGNITUDE: f64 = 1e12;

/// The largest magnitude of a linear latency coefficient, ns (one byte,
/// state or table costing a millisecond is no pipeline).
pub const MAX_COEFF_NS: f64 = 1e6;

/// Port speeds a model may be measured on, Gbit/s.
pub const PORT_GBPS: RangeInclusive<u32> = 1..=1600;

/// Clock speeds a MAU model may name, GHz.
pub const CLOCK_GHZ: RangeInclusive<f64> = 0.01..=10.0;

/// Reads a data file of type `T` (a device, a throughput model): parsed,
/// every value checked by [`check_tree`], then by the type's own `check`;
/// each failure is a [`ModelError::BadFile`] naming `file`.
pub fn parse_file<T: serde::de::DeserializeOwned>(
    file: &str,
    text: &str,
    check: impl FnOnce(&T) -> Result<(), String>,
) -> Result<T, crate::ModelError> {
    let bad = |message: String| crate::ModelError::BadFile {
        file: file.to_string(),
        message,
    };
    let m: T = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
    let tree: Value = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
    check_tree(&tree).map_err(bad)?;
    check(&m).map_err(bad)?;
    Ok(m)
}

/// Checks every number and string of the file `v`, in document order,
/// without recursion (the file controls the nesting).
pub fn check_tree(v: &Value) -> Result<(), String> {
    let mut stack = vec![("$".to_string(), v)];
    while let Some((path, v)) = stack.pop() {
        match v {
            Value::Number(n) => {
                let x = n.as_f64().unwrap_or(f64::INFINITY);
                if !x.is_finite() || x.abs() > MAX_MAGNITUDE {
                    return Err(format!(
                        "{path}: {n} is out of range (numbers in a model file are finite and at most {MAX_MAGNITUDE:e} either side of zero)"
                    ));
                }
            }
            Value::String(s) => {
                if let Some(c) = s.chars().find(|c| c.is_control()) {
                    return Err(format!(
                        "{path}: holds the control character {:?}; model strings are plain text",
                        c
                    ));
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate().rev() {
                    stack.push((format!("{path}[{i}]"), x));
                }
            }
            Value::Object(o) => {
                let fields: Vec<_> = o.iter().collect();
                for (k, x) in fields.into_iter().rev() {
                    stack.push((format!("{path}.{k}"), x));
                }
            }
            Value::Null | Value::Bool(_) => {}
        }
    }
    Ok(())
}

/// Checks one latency coefficient at `path`: at most [`MAX_COEFF_NS`],
/// and not below zero unless `signed` (a model `p4cost fit` made, whose
/// terms predict warns about when they go below zero).
pub fn coefficient(path: &str, x: f64, signed: bool) -> Result<(), String> {
    if !x.is_finite() || x.abs() > MAX_COEFF_NS {
        return Err(format!(
            "{path}: {x} ns is out of range (a coefficient is at most {MAX_COEFF_NS:e} ns either side of zero)"
        ));
    }
    if x < 0.0 && !signed {
        return Err(format!(
            "{path}: {x} ns is below zero (no byte, state or table makes the pipeline faster; only a model `p4cost fit` made, with its `fit` section, may have one)"
        ));
    }
    Ok(())
}

/// Checks a port speed at `path`.
pub fn port(path: &str, gbps: u32) -> Result<(), String> {
    if PORT_GBPS.contains(&gbps) {
        return Ok(());
    }
    Err(format!(
        "{path}: {gbps} is not a port speed (give {}-{} Gbit/s)",
        PORT_GBPS.start(),
        PORT_GBPS.end()
    ))
}

/// Checks a clock at `path`.
pub fn clock(path: &str, ghz: f64) -> Result<(), String> {
    if CLOCK_GHZ.contains(&ghz) {
        return Ok(());
    }
    Err(format!(
        "{path}: {ghz} GHz is not a chip clock (give {}-{} GHz)",
        CLOCK_GHZ.start(),
        CLOCK_GHZ.end()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_bad_value_is_named_by_its_path() {
        let v: Value =
            serde_json::from_str(r#"{"a": [1, {"b": 1e308}], "c": "x\u001b[31m"}"#).unwrap();
        assert_eq!(
            check_tree(&v).unwrap_err().split(' ').next(),
            Some("$.a[1].b:")
        );
        let v: Value = serde_json::from_str(r#"{"a": [1, 2], "c": "x\u001b[31m"}"#).unwrap();
        let e = check_tree(&v).unwrap_err();
        assert!(
            e.starts_with("$.c: holds the control character '\\u{1b}'"),
            "{e}"
        );
        let v: Value = serde_json::from_str(r#"{"a": [-1e12, "plain"]}"#).unwrap();
        assert!(check_tree(&v).is_ok());
    }

    #[test]
    fn coefficients_ports_and_clocks_have_bounds() {
        assert!(coefficient("$.x", 0.5, false).is_ok());
        assert!(coefficient("$.x", -0.5, true).is_ok());
        let e = coefficient("$.base.constant_ns", -848.0, false).unwrap_err();
        assert!(
            e.starts_with("$.base.constant_ns: -848 ns is below zero"),
            "{e}"
        );
        assert!(coefficient("$.x", 2e6, true).is_err());
        assert!(port("$.port_gbps", 0).is_err());
        assert!(port("$.port_gbps", 100).is_ok());
        assert!(clock("$.c", 1.22).is_ok());
        assert!(clock("$.c", 1e9).is_err());
    }
}
