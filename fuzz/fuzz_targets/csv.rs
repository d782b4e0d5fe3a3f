//! Measurement CSVs (`fit`, `validate`): parsed as `read_file` parses a
//! file's text, and the rows written back as `gen` writes them.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(m) = p4cost_calibrate::data::parse("fuzz.csv", text) else {
        return;
    };
    let _ = m.ports();
    for r in &m.rows {
        let _ = r.features.state_bytes_text();
        let _ = r.features.tables_text();
    }
});
