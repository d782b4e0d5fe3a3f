//! The values the traffic-dependent portability lints take, as people
//! write them: a packet rate (`10Mpps`), a time window (`1ms`), an MTU and
//! a hop count. Every error names the flag or p4cost.toml key given as
//! `what`; the units are parsed as `--arrival`'s are
//! ([`crate::bound::parse_named`]).

use crate::error::Error;

/// Packet-rate units, packets per second (decimal prefixes).
const RATE_UNITS: &[(&str, f64)] = &[("Gpps", 1e9), ("Mpps", 1e6), ("Kpps", 1e3), ("pps", 1.0)];

/// Time units, ns (`s` last: `ns`, `us` and `ms` end with it too).
const TIME_UNITS: &[(&str, f64)] = &[("ns", 1.0), ("us", 1e3), ("ms", 1e6), ("s", 1e9)];

/// A packet rate above zero (`10Mpps`, `2.5Mpps`, `6000pps`), packets per
/// second.
pub fn parse_rate(text: &str, what: &str) -> Result<f64, Error> {
    if text.trim().ends_with("bps") {
        return Err(Error::input(format!(
            "{what} `{text}`: a bit rate; give packets per second (10 Gbit/s of 500 B packets is 2.5Mpps)"
        )));
    }
    positive(
        text,
        what,
        RATE_UNITS,
        "a packet rate such as 10Mpps (pps, Kpps, Mpps or Gpps)",
    )
}

/// A time window above zero (`1ms`, `20ms`, `500us`), ns.
pub fn parse_window(text: &str, what: &str) -> Result<f64, Error> {
    positive(
        text,
        what,
        TIME_UNITS,
        "a time such as 20ms (ns, us, ms or s)",
    )
}

/// A count of at least 1 (`--hops`), or bytes (`--mtu`) of at least
/// `min`, from a whole number as given (a flag's text or a toml integer).
pub fn whole(value: i64, what: &str, min: u32, of: &str) -> Result<u32, Error> {
    u32::try_from(value)
        .ok()
        .filter(|v| *v >= min)
        .ok_or_else(|| Error::input(format!("{what} {value}: give {of}, {min} or more")))
}

/// A packet rate as people write it (`10 Mpps`).
pub fn rate_text(pps: f64) -> String {
    scaled(pps, &[(1e9, "Gpps"), (1e6, "Mpps"), (1e3, "Kpps")], "pps")
}

/// A time window as people write it (`20 ms`).
pub fn window_text(ns: f64) -> String {
    scaled(ns, &[(1e9, "s"), (1e6, "ms"), (1e3, "us")], "ns")
}

/// `v` in the largest unit of `units` it is at least one of, else `base`;
/// at most 6 decimals, no trailing zeros.
fn scaled(v: f64, units: &[(f64, &str)], base: &str) -> String {
    let (x, u) = units
        .iter()
        .find(|(s, _)| v >= *s)
        .map_or((v, base), |(s, u)| (v / s, u));
    let t = format!("{x:.6}");
    format!("{} {u}", t.trim_end_matches('0').trim_end_matches('.'))
}

fn positive(text: &str, what: &str, units: &[(&str, f64)], expected: &str) -> Result<f64, Error> {
    let bad = |why: String| Error::input(format!("{what} `{text}`: {why} (expected {expected})"));
    let v = crate::bound::quantity(text.trim(), units).map_err(bad)?;
    if v <= 0.0 {
        return Err(bad("must be above zero".into()));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_scale() {
        assert_eq!(parse_rate("10Mpps", "--rate").unwrap(), 1e7);
        assert_eq!(parse_rate("2.5Mpps", "--rate").unwrap(), 2.5e6);
        assert_eq!(parse_rate("6000pps", "--rate").unwrap(), 6000.0);
        assert_eq!(parse_rate("1Gpps", "--rate").unwrap(), 1e9);
        assert_eq!(parse_rate("100Kpps", "--rate").unwrap(), 1e5);
        assert_eq!(parse_window("20ms", "--window").unwrap(), 2e7);
        assert_eq!(parse_window("500us", "--window").unwrap(), 5e5);
        assert_eq!(parse_window("7ns", "--window").unwrap(), 7.0);
        assert_eq!(parse_window("1s", "--window").unwrap(), 1e9);
    }

    #[test]
    fn bad_values_name_the_flag() {
        for bad in ["0Mpps", "-1Mpps", "10", "10Mbps", "xMpps", "NaNpps", ""] {
            let e = parse_rate(bad, "--rate").unwrap_err().to_string();
            assert!(e.starts_with("--rate"), "{bad}: {e}");
        }
        for bad in ["0ms", "-1ms", "1", "1h", "ms"] {
            let e = parse_window(bad, "window").unwrap_err().to_string();
            assert!(e.starts_with("window"), "{bad}: {e}");
        }
        assert!(whole(0, "--hops", 1, "a hop count").is_err());
        assert!(whole(-3, "hops", 1, "a hop count")
            .unwrap_err()
            .to_string()
            .starts_with("hops -3"));
        assert_eq!(whole(4, "--hops", 1, "a hop count").unwrap(), 4);
    }

    #[test]
    fn texts_pick_the_largest_unit() {
        assert_eq!(rate_text(2.5e6), "2.5 Mpps");
        assert_eq!(rate_text(6000.0), "6 Kpps");
        assert_eq!(rate_text(12.0), "12 pps");
        assert_eq!(window_text(2e7), "20 ms");
        assert_eq!(window_text(5e5), "500 us");
        assert_eq!(window_text(1.5e9), "1.5 s");
    }
}
