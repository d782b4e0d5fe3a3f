//! `p4cost bound`: the engine's network-calculus bounds
//! (`p4cost_engine::bound`) as a table, JSON, or Saihu's network file.
//! A flow faster than a class's service rate has no bound: the sentence
//! naming both rates on stderr, exit 1.

use std::fmt::Write as _;
use std::io::Write;

use p4cost_engine::bound::{self, BoundOptions, BoundReport, ClassBound};
use p4cost_model::nc::Level;

use crate::args::{BoundArgs, BoundFormat, BoundLevel};
use crate::exit::{CliError, Exit};

/// Runs `bound`.
pub fn run(a: &BoundArgs, out: &mut dyn Write) -> Result<Exit, CliError> {
    let o = options(a)?;
    let r = match bound::bound(&o)? {
        Ok(r) => r,
        Err(u) => {
            return Err(CliError {
                message: format!("{}: {}", p4cost_engine::read::shown(&a.file), u.message),
                code: Exit::Failed,
                engine: None,
            })
        }
    };
    let text = match a.format {
        BoundFormat::Human => render(&r),
        BoundFormat::Json => crate::json_out::to_pretty(&r)?,
        BoundFormat::Saihu => crate::json_out::to_pretty(&bound::saihu::network(&r))?,
    };
    out.write_all(text.as_bytes()).map_err(CliError::output)?;
    Ok(Exit::Ok)
}

/// The engine's options: the flags over p4cost.toml's settings for FILE.
fn options(a: &BoundArgs) -> Result<BoundOptions, CliError> {
    let cfg = crate::project::config(&a.config, Some(&a.file))?;
    let mut p = p4cost_engine::PredictOptions::new(a.file.clone());
    p.max_classes = a.max_classes;
    p.max_paths = a.max_paths;
    p.pipe.clone_from(&a.pipe);
    let mut p = crate::project::with_config(p, cfg.as_ref());
    crate::project::overlay(&a.target, &a.source, &mut p);
    Ok(BoundOptions {
        predict: p,
        device: a.device.clone(),
        level: a.level.map(|l| match l {
            BoundLevel::Min => Level::Min,
            BoundLevel::Median => Level::Median,
            BoundLevel::Max => Level::Max,
        }),
        arrival: bound::parse_arrival(&a.arrival)?,
    })
}

/// The table.
fn render(r: &BoundReport) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "p4cost bound: {}", r.program);
    let level = r
        .service
        .level
        .map(|l| format!(", level {}", l.name()))
        .unwrap_or_default();
    let _ = writeln!(
        s,
        "service   {} {}{level}: {}",
        r.service.kind, r.service.name, r.service.title
    );
    let _ = writeln!(
        s,
        "arrival   token bucket b = {} B ({} bit), r = {}",
        num(r.arrival.burst_bits / 8.0),
        num(r.arrival.burst_bits),
        bound::rate_text(r.arrival.rate_bps)
    );
    let _ = writeln!(
        s,
        "bound     delay {} us, backlog {} B (worst class)",
        num(r.delay_bound_ns / 1e3),
        num(r.backlog_bound_bytes)
    );
    for p in &r.pipelines {
        let name = p.pipeline.as_deref().unwrap_or("main");
        let _ = writeln!(s, "\npipeline {name}: {} classes", p.classes_total);
        let _ = writeln!(s, "  worst  {}", class_line(&p.worst));
        for c in &p.classes {
            let _ = writeln!(
                s,
                "  {:<6} {}",
                c.class.as_deref().unwrap_or("-"),
                class_line(c)
            );
        }
    }
    if !r.warnings.is_empty() {
        let _ = writeln!(s, "\nwarnings");
        for w in &r.warnings {
            let _ = writeln!(s, "  {}: {}", w.code, w.message);
        }
    }
    let _ = writeln!(s, "\nnote      {}", r.caveat);
    let _ = writeln!(s, "source    {} ({})", r.service.citation, r.service.spec);
    s
}

/// One class: its curve, bounds, headers and tables.
fn class_line(c: &ClassBound) -> String {
    let tables = if c.tables.is_empty() {
        "none".to_string()
    } else {
        c.tables.join(", ")
    };
    format!(
        "R {} T {} us: delay {} us, backlog {} B, output burst {} B  [{}] tables: {tables}",
        bound::rate_text(c.service.rate_bps),
        num(c.service.latency_ns / 1e3),
        num(c.bounds.delay_bound_ns / 1e3),
        num(c.bounds.backlog_bound_bytes),
        num(c.bounds.output_burst_bytes),
        c.headers.join(" -> ")
    )
}

/// Three decimals.
fn num(v: f64) -> String {
    format!("{v:.3}")
}
