//! Preprocessor, parser and lowering on arbitrary source text (bundled
//! includes available), as `p4cost predict file.p4` runs them.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if text.contains("/dev") || text.contains("/proc") || text.contains("/sys") {
        return;
    }
    let _ = p4cost_front::load_source("fuzz.p4", text, &p4cost_front::Options::default());
});
