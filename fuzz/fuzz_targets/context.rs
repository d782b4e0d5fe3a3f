//! The Tofino context.json reader on arbitrary bytes; the first half of a
//! document that splits on a NUL byte is read as context.json and the rest
//! merged as bfrt.json.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (ctx, bfrt) = match data.iter().position(|b| *b == 0) {
        Some(i) => (&data[..i], Some(&data[i + 1..])),
        None => (data, None),
    };
    let Ok(ctx) = std::str::from_utf8(ctx) else {
        return;
    };
    let Ok(mut prog) = p4cost_tofino::read_context(ctx, "fuzz.json") else {
        return;
    };
    if let Some(Ok(bfrt)) = bfrt.map(std::str::from_utf8) {
        let _ = p4cost_tofino::merge_bfrt(&mut prog, bfrt, "bfrt.json");
    }
});
