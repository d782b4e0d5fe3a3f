//! Measurement files: the `manifest.csv` that `gen` writes and the user
//! fills in, one row per (program, port, packet size).
//!
//! Columns (a header row names them; order is free, unknown columns are
//! kept for the user and ignored): `program` (path relative to the file),
//! `sweep`, `port_gbps`, `packet_size`, `n_states`, `header_bytes`,
//! `n_tables` (counts for people and spreadsheets), `state_bytes` and
//! `tables` (the class's features, [`p4cost_model::features`]),
//! `entries_file`, and `latency_ns` (empty until measured: the mean
//! ingress latency, ns). Fitting and validation read `port_gbps`,
//! `packet_size`, `state_bytes`, `tables` and `latency_ns`.

use std::path::Path;

use p4cost_model::Features;
use serde::{Deserialize, Serialize};

use crate::CalibrateError;

/// One row as written and read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The program, relative to the measurement file.
    pub program: String,
    /// The sweep it belongs to.
    #[serde(default)]
    pub sweep: String,
    /// Port speed, Gbit/s.
    pub port_gbps: u32,
    /// Packet size, bytes.
    pub packet_size: u32,
    /// Counted parse states (informational).
    #[serde(default)]
    pub n_states: Option<u32>,
    /// Bytes the counted states extract (informational).
    #[serde(default)]
    pub header_bytes: Option<u64>,
    /// Tables applied (informational).
    #[serde(default)]
    pub n_tables: Option<u32>,
    /// Bytes of each counted state: `20+8+8`.
    #[serde(default)]
    pub state_bytes: String,
    /// Table descriptors: `exact:32+16:1000;lpm:32:500`.
    #[serde(default)]
    pub tables: String,
    /// The control-plane file installing the entries, if any.
    #[serde(default)]
    pub entries_file: String,
    /// The measured mean latency, ns (empty until measured).
    #[serde(default)]
    pub latency_ns: Option<f64>,
}

/// One measured row, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// Line in the file (1-based; the header is line 1).
    pub line: u64,
    /// The program column.
    pub program: String,
    /// Port speed, Gbit/s.
    pub port_gbps: u32,
    /// The class's features.
    pub features: Features,
    /// Measured latency, ns.
    pub latency_ns: f64,
}

/// The rows of a measurement file, with how many had no latency yet.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurements {
    /// The measured rows.
    pub rows: Vec<Measurement>,
    /// Rows whose `latency_ns` is empty.
    pub unmeasured: usize,
}

impl Measurements {
    /// The distinct ports, ascending.
    pub fn ports(&self) -> Vec<u32> {
        let mut p: Vec<u32> = self.rows.iter().map(|r| r.port_gbps).collect();
        p.sort_unstable();
        p.dedup();
        p
    }
}

/// Largest measurement file read (256 MiB: millions of rows).
pub const MAX_FILE_BYTES: u64 = 256 << 20;

/// Reads a measurement file from disk (at most [`MAX_FILE_BYTES`]).
pub fn read_file(path: &Path) -> Result<Measurements, CalibrateError> {
    use std::io::Read;
    let io = |e: std::io::Error| CalibrateError::io(path, e);
    if let Some(why) = p4cost_front::refusal(path) {
        return Err(io(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            why,
        )));
    }
    let f = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    f.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(CalibrateError::Invalid(format!(
            "{}: larger than {} MiB",
            path.display(),
            MAX_FILE_BYTES >> 20
        )));
    }
    let text = String::from_utf8(bytes)
        .map_err(|e| CalibrateError::Invalid(format!("{}: not UTF-8 text: {e}", path.display())))?;
    parse(&path.display().to_string(), &text)
}

/// Parses a measurement file's text (`file` names it in errors).
pub fn parse(file: &str, text: &str) -> Result<Measurements, CalibrateError> {
    let err = |line: u64, message: String| CalibrateError::Data {
        file: file.to_string(),
        line,
        message,
    };
    // The csv reader counts a CRLF file's lines one short after the
    // header; LF endings keep every error at its real line.
    let text = text.replace("\r\n", "\n");
    let mut rdr = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let headers = rdr.headers().map_err(|e| err(1, e.to_string()))?.clone();
    for need in ["program", "port_gbps", "packet_size", "latency_ns"] {
        if !headers.iter().any(|h| h == need) {
            return Err(err(
                1,
                format!(
                    "no `{need}` column (the header names: {})",
                    headers.iter().collect::<Vec<_>>().join(", ")
                ),
            ));
        }
    }
    let mut rows = Vec::new();
    let mut unmeasured = 0;
    for rec in rdr.records() {
        let rec = rec.map_err(|e| {
            let line = e.position().map_or(0, |p| p.line());
            err(line, e.to_string())
        })?;
        let line = rec.position().map_or(0, |p| p.line());
        let row: Row = rec
            .deserialize(Some(&headers))
            .map_err(|e| err(line, field_error(&e, &headers)))?;
        let Some(latency_ns) = row.latency_ns else {
            unmeasured += 1;
            continue;
        };
        if !(latency_ns.is_finite() && latency_ns > 0.0) {
            return Err(err(
                line,
                format!("latency_ns {latency_ns} is not a positive number of ns"),
            ));
        }
        if row.port_gbps == 0 {
            return Err(err(line, "port_gbps must be positive".into()));
        }
        let state_bytes =
            Features::parse_state_bytes(&row.state_bytes).map_err(|m| err(line, m))?;
        let tables = Features::parse_tables(&row.tables).map_err(|m| err(line, m))?;
        rows.push(Measurement {
            line,
            program: row.program,
            port_gbps: row.port_gbps,
            features: Features {
                packet_size: row.packet_size,
                state_bytes,
                tables,
            },
            latency_ns,
        });
    }
    Ok(Measurements { rows, unmeasured })
}

/// A deserialisation error as `column `name`: what` (csv's own text
/// repeats the record and byte offsets).
fn field_error(e: &csv::Error, headers: &csv::StringRecord) -> String {
    match e.kind() {
        csv::ErrorKind::Deserialize { err, .. } => {
            let column = err
                .field()
                .and_then(|i| headers.get(i as usize))
                .map(|h| format!("column `{h}`: "))
                .unwrap_or_default();
            let what = match err.kind() {
                csv::DeserializeErrorKind::ParseInt(e) => format!("not a whole number ({e})"),
                csv::DeserializeErrorKind::ParseFloat(e) => format!("not a number ({e})"),
                k => k.to_string(),
            };
            format!("{column}{what}")
        }
        _ => e.to_string(),
    }
}

/// Rows as the text of a measurement file (a header line, then one line
/// per row).
pub fn to_csv(rows: &[Row]) -> Result<String, CalibrateError> {
    let invalid = |e: &dyn std::fmt::Display| CalibrateError::Invalid(format!("manifest.csv: {e}"));
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.serialize(r).map_err(|e| invalid(&e))?;
    }
    let bytes = w.into_inner().map_err(|e| invalid(&e))?;
    String::from_utf8(bytes).map_err(|e| invalid(&e))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "program,port_gbps,packet_size,state_bytes,tables,latency_ns\n";

    #[test]
    fn a_crlf_file_reports_errors_at_their_line() {
        let text = format!("{HEAD}a.p4,10,100,,,200\nb.p4,10,x,,,200\n").replace('\n', "\r\n");
        let e = parse("d.csv", &text).unwrap_err().to_string();
        assert!(e.starts_with("d.csv:3: column `packet_size`"), "{e}");
        let m = parse(
            "d.csv",
            &format!("{HEAD}a.p4,10,100,,,200\n").replace('\n', "\r\n"),
        )
        .unwrap();
        assert_eq!(m.rows[0].line, 2);
    }

    #[test]
    fn reads_measured_rows_and_counts_the_rest() {
        let m = parse(
            "d.csv",
            &format!("{HEAD}a.p4,10,100,20+8,exact:32:10,200.5\nb.p4,100,200,,,\n"),
        )
        .unwrap();
        assert_eq!(m.unmeasured, 1);
        assert_eq!(m.rows.len(), 1);
        let r = &m.rows[0];
        assert_eq!((r.line, r.port_gbps, r.latency_ns), (2, 10, 200.5));
        assert_eq!(r.features.state_bytes, vec![20, 8]);
        assert_eq!(r.features.tables[0].to_string(), "exact:32:10");
    }

    #[test]
    fn errors_name_the_file_and_line() {
        for (body, line, why) in [
            ("a.p4,10,100,20+x,,5\n", 2, "state bytes"),
            (
                "a.p4,10,100,,,5\na.p4,10,1x0,,,5\n",
                3,
                "column `packet_size`: not a whole number",
            ),
            (
                "a.p4,10,100,,,fast\n",
                2,
                "column `latency_ns`: not a number",
            ),
            ("a.p4,10,100,,hash:1:1,5\n", 2, "match kind"),
            ("a.p4,10,100,,,-5\n", 2, "positive"),
            ("a.p4,10,100\n", 2, "found record with 3 fields"),
        ] {
            let e = parse("d.csv", &format!("{HEAD}{body}"))
                .unwrap_err()
                .to_string();
            assert!(e.starts_with(&format!("d.csv:{line}: ")), "{e}");
            assert!(e.contains(why), "{e}");
        }
        let e = parse("d.csv", "program,port_gbps\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("d.csv:1: no `packet_size` column"), "{e}");
    }
}
