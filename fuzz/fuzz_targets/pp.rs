//! The preprocessor on arbitrary text, with the bundled architecture
//! includes as the fallback for `#include <...>`.
#![no_main]

use libfuzzer_sys::fuzz_target;

struct Arch;

impl p4cost_pp::Bundled for Arch {
    fn lookup(&self, name: &str) -> Option<&'static str> {
        p4cost_arch::lookup(name)
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // `#include "/dev/zero"` and friends would read the machine, not the
    // preprocessor: leave device and proc files out.
    if text.contains("/dev") || text.contains("/proc") || text.contains("/sys") {
        return;
    }
    let opts = p4cost_pp::Options::default();
    let mut pp = p4cost_pp::Preprocessor::new(&opts, &Arch);
    let _ = pp.run_source("fuzz.p4", text);
});
