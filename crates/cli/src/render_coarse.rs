//! Human output of `p4cost throughput --model bmv2-coarse`: per class its
//! passes, the coarse latency range (us), the sustainable rate (Gbit/s,
//! kpps) and its register calls.

use std::fmt::Write as _;

use p4cost_engine::recirc::coarse::{CoarseClass, CoarseReport};

/// The report as text.
pub fn render(r: &CoarseReport) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "p4cost throughput: {}", r.program);
    let _ = writeln!(s, "model     {} (COARSE): {}", r.model, r.title);
    let _ = writeln!(
        s,
        "packet    {} B; one pass {}-{} us; register logic measured at +{}-{} us (not added)",
        r.packet_size_bytes,
        r.latency_per_pass_us.min,
        r.latency_per_pass_us.max,
        r.register_logic_us.min,
        r.register_logic_us.max
    );
    for p in &r.pipelines {
        let name = p.pipeline.as_deref().unwrap_or("main");
        let all = if p.complete { "all" } else { "the listed" };
        let _ = writeln!(s, "\npipeline {name}: {all} {} classes", p.classes.len());
        for c in &p.classes {
            let _ = writeln!(s, "  {:<6} {}", c.class, line(c));
        }
    }
    for w in &r.warnings {
        let _ = writeln!(s, "\nwarning   {w}");
    }
    let _ = writeln!(s, "\nsource    {} ({})", r.citation, r.spec);
    for n in &r.notes {
        let _ = writeln!(s, "note      {n}");
    }
    s
}

fn line(c: &CoarseClass) -> String {
    let k = &c.coarse;
    let r = &c.register_ops;
    let sites = if c.sites.is_empty() {
        String::new()
    } else {
        format!("  via {}", c.sites.join(", "))
    };
    format!(
        "{} pass(es): coarse latency {}-{} us, up to {:.3} Gbit/s ({:.1} kpps); \
         registers {} read(s), {} write(s), {} other  [{}]{sites}",
        k.passes,
        k.latency_us.min,
        k.latency_us.max,
        k.throughput_bps / 1e9,
        k.packets_per_second / 1e3,
        r.reads,
        r.writes,
        r.other,
        c.headers.join(" -> ")
    )
}
