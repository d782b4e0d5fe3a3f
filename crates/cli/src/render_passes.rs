//! The table of a pass model's report (`predict --model nfp4000`,
//! `--model bmv2-coarse`): the settings, then each listed path's classes
//! with their passes and the model's figures. Units are named on every
//! figure: passes, Gbit/s, kpps, us.

use p4cost_engine::bound::rate_text;
use p4cost_engine::pass_out::{ClassPassOut, PassesOut};
use p4cost_engine::path_classes;
use p4cost_engine::report::Report;

/// The settings line(s) under the model.
pub fn head_line(r: &Report, p: &PassesOut) -> String {
    let mut s = format!("packet    {} B", p.packet_size_bytes);
    if r.packet_size_is_default {
        s.push_str(" (default; set --packet-size)");
    }
    if let Some(l) = p.line_rate_bps {
        s.push_str(&format!(" at line rate {}", rate_text(l)));
    }
    if let (Some(l), Some(g)) = (&p.latency_per_pass_us, &p.register_logic_us) {
        s.push_str(&format!(
            "; COARSE: one pass {}-{} us, register logic measured at +{}-{} us (not added)",
            l.min, l.max, g.min, g.max
        ));
    }
    s.push('\n');
    s
}

/// `2 passes: loss-free up to 5.7 Gbit/s, ...`.
fn figures(c: &ClassPassOut) -> String {
    let passes = format!("{} pass{}", c.passes, if c.passes == 1 { "" } else { "es" });
    if let Some(t) = &c.throughput {
        let past = if t.line_rate_lossless {
            "no loss at line rate".to_string()
        } else {
            format!(
                "received past it {}, line rate without loss from {:.0} B",
                rate_text(t.received_past_bps),
                t.smallest_lossless_size_bytes.ceil()
            )
        };
        return format!(
            "{passes}: loss-free up to {}, {past}",
            rate_text(t.loss_free_bps)
        );
    }
    if let Some(k) = &c.coarse {
        let g = &c.register_ops;
        return format!(
            "{passes}: coarse latency {}-{} us, up to {:.3} Gbit/s ({:.1} kpps); registers {} read(s), {} write(s), {} other",
            k.latency_us.min,
            k.latency_us.max,
            k.throughput_bps / 1e9,
            k.packets_per_second / 1e3,
            g.reads,
            g.writes,
            g.other
        );
    }
    passes
}

/// The pass part of the table: the rule, then paths with their classes.
pub fn render(s: &mut String, r: &Report, p: &PassesOut) {
    s.push_str(&format!(
        "figure    {} ({}{}), per class\nrule      {}\n",
        r.figure.name,
        r.figure.unit,
        if r.figure.higher_is_better {
            ", higher is better"
        } else {
            ""
        },
        p.formula
    ));
    crate::render_cpu::listing_head(s);
    for path in &r.paths {
        crate::render_cpu::path_line(s, path);
        let Some(pc) = &path.classes else { continue };
        if pc.truncated {
            s.push_str(&format!(
                "{:>8}  {} classes (first {} listed)\n",
                "",
                pc.total.text,
                pc.classes.len()
            ));
        }
        for k in &pc.classes {
            let Some(f) = &k.recirc else { continue };
            s.push_str(&format!(
                "{:>8}  {}  {}\n",
                k.id,
                figures(f),
                path_classes::class_brief(k, &r.tables, &r.decisions)
            ));
            if !f.sites.is_empty() {
                s.push_str(&format!("{:>8}  via {}\n", "", f.sites.join(", ")));
            }
        }
    }
}
