//! `p4cost throughput`: the engine's recirculation throughput
//! (`p4cost_engine::recirc`) as a table or JSON.

use std::fmt::Write as _;
use std::io::Write;

use p4cost_engine::bound::rate_text;
use p4cost_engine::recirc::{self, RecircClass, RecircReport};

use crate::args::{Format, ThroughputArgs};
use crate::exit::{CliError, Exit};

/// Runs `throughput`.
pub fn run(a: &ThroughputArgs, out: &mut dyn Write) -> Result<Exit, CliError> {
    let coarse = match a.model.as_deref() {
        None | Some("nfp4000") => false,
        Some("bmv2-coarse") => true,
        Some(m) => {
            return Err(CliError::input(format!(
                "--model {m}: throughput has the models nfp4000 and bmv2-coarse \
                 (latency models: p4cost predict)"
            )))
        }
    };
    let mut o = p4cost_engine::PredictOptions::new(a.file.clone());
    o.source = a.source.options();
    o.max_paths = a.max_paths;
    o.max_classes = a.max_classes;
    o.pipe.clone_from(&a.pipe);
    let text = if coarse {
        let r = recirc::coarse::throughput(&o, a.packet_size)?;
        match a.format {
            Format::Human => crate::render_coarse::render(&r),
            Format::Json => crate::json_out::to_pretty(&r)?,
        }
    } else {
        let r = recirc::throughput(&o, a.packet_size)?;
        match a.format {
            Format::Human => render(&r),
            Format::Json => crate::json_out::to_pretty(&r)?,
        }
    };
    out.write_all(text.as_bytes()).map_err(CliError::output)?;
    Ok(Exit::Ok)
}

fn render(r: &RecircReport) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "p4cost throughput: {}", r.program);
    let _ = writeln!(s, "model     {}: {}", r.model, r.title);
    let _ = writeln!(
        s,
        "packet    {} B at line rate {}",
        r.packet_size_bytes,
        rate_text(r.line_rate_bps)
    );
    for p in &r.pipelines {
        let name = p.pipeline.as_deref().unwrap_or("main");
        let all = if p.complete { "all" } else { "the listed" };
        let _ = writeln!(s, "\npipeline {name}: {all} {} classes", p.classes.len());
        if let Some(c) = &p.most_passes {
            let _ = writeln!(s, "  most   {}", line(c));
        }
        for c in &p.classes {
            let _ = writeln!(s, "  {:<6} {}", c.class, line(c));
        }
    }
    let _ = writeln!(s, "\nsource    {} ({})", r.citation, r.spec);
    for n in &r.notes {
        let _ = writeln!(s, "note      {n}");
    }
    s
}

fn line(c: &RecircClass) -> String {
    let t = &c.throughput;
    let past = if t.line_rate_lossless {
        "no loss at line rate".to_string()
    } else {
        format!(
            "received past it {}; line rate without loss from {:.0} B",
            rate_text(t.received_past_bps),
            t.smallest_lossless_size_bytes.ceil()
        )
    };
    let sites = if c.sites.is_empty() {
        String::new()
    } else {
        format!("  via {}", c.sites.join(", "))
    };
    format!(
        "{} pass(es): loss-free up to {}, {past}  [{}]{sites}",
        t.passes,
        rate_text(t.loss_free_bps),
        c.headers.join(" -> ")
    )
}
