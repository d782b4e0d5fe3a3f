//! `p4cost predict`.

use std::io::Write;

use p4cost_analysis::{control_path_count, control_tables, find_path, parse_paths, PathOptions};
use p4cost_model::{tofino_linear, ModelSpec};

use crate::args::{Format, PredictArgs};
use crate::exit::{CliError, Exit};
use crate::input;
use crate::report::{self, ControlOut, ModelRef, Report, WarningOut};

/// Packet size used when `--packet-size` is not given: inside the training
/// range of the Tofino models, below the 10G non-linear region.
pub const DEFAULT_PACKET_SIZE: u32 = 512;

/// Picks the model from `--model` and `--port`.
fn resolve_model(a: &PredictArgs) -> Result<ModelSpec, CliError> {
    let name = match (&a.model, a.port) {
        (Some(m), _) => m.clone(),
        (None, Some(p)) => format!("tofino1-{}g", p.gbps()),
        (None, None) => "tofino1-10g".to_string(),
    };
    let m = p4cost_model::model_by_name(&name).map_err(|e| CliError::input(e.to_string()))?;
    if let Some(p) = a.port {
        if p.gbps() != m.port_gbps {
            return Err(CliError::input(format!(
                "--port {}g contradicts --model {} (a {}G model)",
                p.gbps(),
                m.name,
                m.port_gbps
            )));
        }
    }
    Ok(m)
}

pub fn run(a: &PredictArgs, out: &mut dyn Write) -> Result<Exit, CliError> {
    let model = resolve_model(a)?;
    let packet_size = a.packet_size.unwrap_or(DEFAULT_PACKET_SIZE);
    if packet_size == 0 {
        return Err(CliError::input("--packet-size must be at least 1 byte"));
    }
    let loaded = input::load(&a.file, &a.source)?;
    let program = &loaded.program;
    let shown = a.file.display().to_string();

    let parser = program.ingress_parser().ok_or_else(|| {
        CliError::input(format!(
            "{shown}: no ingress parser found: p4cost predicts per parse path and needs the parse graph ({})",
            match program.input {
                p4cost_ir::InputKind::TofinoContext =>
                    "context.json has none: use `p4cost stages` for the compiler's MAU latency",
                _ => "the program declares no parser bound to a package",
            }
        ))
    })?;

    let opts = PathOptions {
        max_paths: a.max_paths,
        ..PathOptions::default()
    };
    let all = parse_paths(program, parser, &opts);
    let mut program_warnings: Vec<(String, String)> = loaded
        .warnings
        .iter()
        .map(|w| ("front_end".to_string(), w.clone()))
        .collect();
    for w in &all.warnings {
        program_warnings.push(("parse_graph".to_string(), w.clone()));
    }
    for n in &program.notes {
        program_warnings.push(("reader_note".to_string(), n.clone()));
    }

    let paths = match &a.path {
        Some(want) => match find_path(program, parser, want, &opts) {
            Some(p) => vec![p],
            None => {
                return Err(CliError::input(format!(
                    "{shown}: no parse path of `{}` extracts exactly {} (program headers in order; the leading Ethernet header may be left out)",
                    program.parser(parser).name,
                    want.join(",")
                )))
            }
        },
        None => all.paths.clone(),
    };

    let control = program.ingress_control();
    let tables = control
        .map(|c| control_tables(program, c))
        .unwrap_or_default();
    if control.is_none() {
        program_warnings.push((
            "no_ingress_control".to_string(),
            "no ingress control found: the control term is zero".to_string(),
        ));
    }

    let mut path_outs = Vec::with_capacity(paths.len());
    let mut warns: Vec<WarningOut> = program_warnings
        .into_iter()
        .map(|(code, message)| WarningOut {
            code,
            message,
            paths: Vec::new(),
        })
        .collect();
    for (i, path) in paths.iter().enumerate() {
        let pred = tofino_linear::predict(
            &model,
            &tofino_linear::Inputs {
                program,
                path,
                tables: &tables,
                packet_size,
            },
        );
        for w in &pred.warnings {
            match warns
                .iter_mut()
                .find(|x| x.code == w.code && x.message == w.message)
            {
                Some(x) => x.paths.push(i),
                None => warns.push(WarningOut {
                    code: w.code.clone(),
                    message: w.message.clone(),
                    paths: vec![i],
                }),
            }
        }
        path_outs.push(report::path_out(program, i, path, &pred));
    }

    let r = Report {
        schema_version: report::SCHEMA_VERSION,
        p4cost_version: env!("CARGO_PKG_VERSION").to_string(),
        program: shown,
        input: serde_json::to_value(program.input)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        arch: serde_json::to_value(program.arch)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        model: ModelRef {
            name: model.name.clone(),
            title: model.title.clone(),
            citation: model.source.citation.clone(),
            spec: model.source.spec.clone(),
        },
        port_gbps: model.port_gbps,
        packet_size,
        packet_size_is_default: a.packet_size.is_none(),
        parser: program.parser(parser).name.clone(),
        path_count: all.count.value,
        path_count_saturated: all.count.saturated,
        paths_listed: path_outs.len(),
        max_paths: a.max_paths,
        path_selector: a.path.clone(),
        control: ControlOut {
            name: control.map(|c| program.control(c).name.clone()),
            tables: tables
                .iter()
                .map(|t| program.table(*t).name.clone())
                .collect(),
            control_paths: control.map(|c| control_path_count(program, c).value),
            path_sensitive: false,
            note: if model.control.is_some() {
                "every table the ingress control applies counts on every path; path-sensitive control flow is not analysed yet".to_string()
            } else {
                format!("model {} has no control term", model.name)
            },
        },
        paths: path_outs,
        warnings: warns,
    };
    let text = match a.format {
        Format::Json => {
            serde_json::to_string_pretty(&r).map_err(|e| CliError::input(e.to_string()))? + "\n"
        }
        Format::Human => report::render_human(&r),
    };
    out.write_all(text.as_bytes())
        .map_err(|e| CliError::input(format!("cannot write output: {e}")))?;
    Ok(Exit::Ok)
}
