//! `--arrival BURST,RATE`: a token bucket as people write it.

use p4cost_model::nc::TokenBucket;

use crate::error::Error;

/// Burst units: bytes (`B`), bits (`b`), kilobytes (`KB`, 1000 B).
const BURST_UNITS: &[(&str, f64)] = &[("KB", 8000.0), ("B", 8.0), ("b", 1.0)];

/// Rate units, bit/s (decimal prefixes).
const RATE_UNITS: &[(&str, f64)] = &[("Gbps", 1e9), ("Mbps", 1e6), ("Kbps", 1e3), ("bps", 1.0)];

/// Parses `BURST,RATE` (`640B,10Mbps`, `5120b,10Mbps`, `1.5KB,1Gbps`):
/// a burst above zero and a rate above zero, each with its unit; every
/// error names `--arrival`.
pub fn parse_arrival(text: &str) -> Result<TokenBucket, Error> {
    parse_named(text, "--arrival")
}

/// [`parse_arrival`] with errors naming `what` (a flag, or p4cost.toml's
/// `arrival`).
pub fn parse_named(text: &str, what: &str) -> Result<TokenBucket, Error> {
    let bad = |why: String| {
        Error::input(format!(
            "{what} `{text}`: {why} (expected BURST,RATE such as 640B,10Mbps; burst in B, b or KB, rate in bps, Kbps, Mbps or Gbps)"
        ))
    };
    let (burst, rate) = text
        .split_once(',')
        .ok_or_else(|| bad("no comma between burst and rate".into()))?;
    let burst_bits = quantity(burst.trim(), BURST_UNITS).map_err(|w| bad(format!("burst: {w}")))?;
    let rate_bps = quantity(rate.trim(), RATE_UNITS).map_err(|w| bad(format!("rate: {w}")))?;
    if rate_bps <= 0.0 {
        return Err(bad("rate: must be above zero".into()));
    }
    Ok(TokenBucket {
        burst_bits,
        rate_bps,
    })
}

/// A number followed by one of `units` (the first that ends the text),
/// scaled; not negative, finite, at most 1e15 after scaling.
pub(crate) fn quantity(text: &str, units: &[(&str, f64)]) -> Result<f64, String> {
    let (unit, scale) = units
        .iter()
        .find(|(u, _)| text.ends_with(u))
        .ok_or_else(|| format!("`{text}` has no unit"))?;
    let number = text[..text.len() - unit.len()].trim();
    let v: f64 = number
        .parse()
        .map_err(|_| format!("`{number}` is not a number"))?;
    let scaled = v * scale;
    if !v.is_finite() || v < 0.0 || scaled > 1e15 {
        return Err(format!(
            "`{text}` is out of range (0 up to 1e15 in base units)"
        ));
    }
    Ok(scaled)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_scale() {
        let t = parse_arrival("640B,10Mbps").unwrap();
        assert_eq!((t.burst_bits, t.rate_bps), (5120.0, 10e6));
        let t = parse_arrival("5120b, 1Gbps").unwrap();
        assert_eq!((t.burst_bits, t.rate_bps), (5120.0, 1e9));
        let t = parse_arrival("1.5KB,100Kbps").unwrap();
        assert_eq!((t.burst_bits, t.rate_bps), (12000.0, 1e5));
        let t = parse_arrival("0B,500bps").unwrap();
        assert_eq!((t.burst_bits, t.rate_bps), (0.0, 500.0));
    }

    #[test]
    fn bad_arrivals_name_the_flag() {
        for bad in [
            "640B",
            "640,10Mbps",
            "640B,10",
            "-1B,1Mbps",
            "xB,1Mbps",
            "1B,0Mbps",
            "1B,NaNMbps",
            "1e30B,1Mbps",
            "",
        ] {
            let e = parse_arrival(bad).unwrap_err().to_string();
            assert!(e.starts_with("--arrival"), "{bad}: {e}");
        }
    }
}
