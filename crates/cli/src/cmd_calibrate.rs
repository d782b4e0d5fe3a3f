//! `p4cost gen`, `fit` and `validate`: calibrating a model on the user's
//! hardware (the work is `p4cost-calibrate`'s; this parses arguments and
//! renders).

use std::io::Write;
use std::path::Path;

use p4cost_calibrate::programs::Arch;
use p4cost_calibrate::suite::SuiteOptions;
use p4cost_calibrate::validate::Validation;
use p4cost_calibrate::{data, lr, suite, CalibrateError};
use p4cost_model::{ModelSpec, TableMatch};

use crate::args::{FitArgs, FitKind, Format, GenArch, GenArgs, GenMatch, ValidateArgs};
use crate::exit::{CliError, Exit};

fn cal(e: CalibrateError) -> CliError {
    CliError::input(e.to_string())
}

/// Runs `gen`.
pub fn gen(a: &GenArgs, out: &mut dyn Write) -> Result<Exit, CliError> {
    let o = SuiteOptions {
        arch: match a.arch {
            GenArch::Tna => Arch::Tna,
            GenArch::V1model => Arch::V1model,
        },
        max_states: a.max_states,
        header_bytes: a.header_bytes.clone(),
        max_tables: a.max_tables,
        key_bits: a.key_bits.clone(),
        max_keys: a.max_keys,
        matches: a
            .matches
            .iter()
            .map(|m| match m {
                GenMatch::Exact => TableMatch::Exact,
                GenMatch::Lpm => TableMatch::Lpm,
                GenMatch::Ternary => TableMatch::Ternary,
            })
            .collect(),
        control_entries: a.control_entries,
        entries: a.entries.clone(),
        packet_sizes: a.packet_sizes.clone(),
        baseline_sizes: a.baseline_sizes.clone(),
        ports: a.ports.clone(),
    };
    let w = suite::files(&o).map_err(cal)?;
    crate::output_file::write_suite(&a.out, &w.files, a.force)?;
    let dir = a.out.display();
    let text = format!(
        "wrote {programs} {arch} programs to {dir}/programs, {entries} entries files to {dir}/entries\n\
         and {dir}/manifest.csv: {rows} measurements to make (fill in latency_ns; {dir}/README.md says how)\n",
        programs = w.programs,
        arch = o.arch.name(),
        entries = w.entries_files,
        rows = w.rows,
    );
    out.write_all(text.as_bytes()).map_err(CliError::output)?;
    Ok(Exit::Ok)
}

/// The JSON `fit --format json` prints.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct FitReport {
    schema_version: u32,
    p4cost_version: &'static str,
    /// The model file written.
    output: String,
    /// The model, as written.
    model: ModelSpec,
}

/// Runs `fit`.
pub fn fit(a: &FitArgs, out: &mut dyn Write) -> Result<Exit, CliError> {
    crate::output_file::check(&a.output, a.force, &[&a.data])?;
    let m = data::read_file(&a.data).map_err(cal)?;
    let name = match &a.name {
        Some(n) => n.clone(),
        None => a
            .output
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .filter(|s| !s.is_empty())
            .ok_or_else(|| CliError::input("-o: give a file name (my-model.json)"))?,
    };
    let naming = lr::Naming {
        name,
        target: a.target.clone(),
        data: a.data.display().to_string(),
    };
    // --port fits one port; without it, every port of the data, one fit
    // each, in one file.
    let ports = match a.port {
        Some(p) => vec![Some(p)],
        None if m.ports().len() > 1 => m.ports().into_iter().map(Some).collect(),
        None => vec![None],
    };
    let mut fits = Vec::with_capacity(ports.len());
    for port in ports {
        fits.push(
            match a.kind {
                FitKind::Lr => lr::fit(&m, port, a.wide_key_bits, &naming),
                FitKind::Plp => p4cost_calibrate::plp::fit(&m, port, &naming, &Default::default()),
                FitKind::Component => p4cost_calibrate::component::fit(&m, port, &naming),
            }
            .map_err(cal)?,
        );
    }
    for f in &mut fits {
        negative_terms(f, a.allow_negative)?;
    }
    let model = naming.per_port(fits).map_err(cal)?;
    let mut json = crate::json_out::to_pretty(&model)?;
    if !json.ends_with('\n') {
        json.push('\n');
    }
    // The file must load back as a model, as every command will load it.
    p4cost_model::catalog::parse_model(&a.output.display().to_string(), &json)
        .map_err(|e| CliError::input(format!("the fitted model does not load back: {e}")))?;
    crate::output_file::write_new(&a.output, json.as_bytes(), a.force, &[&a.data])?;
    let text = match a.format {
        Format::Json => crate::json_out::to_pretty(&FitReport {
            schema_version: p4cost_engine::report::SCHEMA_VERSION,
            p4cost_version: env!("CARGO_PKG_VERSION"),
            output: a.output.display().to_string(),
            model,
        })?,
        Format::Human => fit_human(&model, &a.output, m.unmeasured),
    };
    out.write_all(text.as_bytes()).map_err(CliError::output)?;
    Ok(Exit::Ok)
}

/// The terms of `m` that go below zero on its training rows, as text.
fn below_zero(m: &ModelSpec) -> Vec<String> {
    let terms = m.fit.as_ref().map_or(&[][..], |f| &f.terms[..]);
    terms
        .iter()
        .filter(|t| t.min_ns < p4cost_model::fitted::NEGATIVE_NS)
        .map(|t| format!("{} {:.3} to {:.3} ns", t.term, t.min_ns, t.max_ns))
        .collect()
}

/// Refuses a fit whose terms go below zero on its own training rows, or
/// with `allow` notes it in the model.
fn negative_terms(m: &mut ModelSpec, allow: bool) -> Result<(), CliError> {
    let bad = below_zero(m);
    if bad.is_empty() {
        return Ok(());
    }
    let port = m.port_gbps.map_or(String::new(), |p| format!("{p}G "));
    if !allow {
        return Err(CliError::input(format!(
            "the {port}fit's terms go below zero on its own training rows ({}): it would price a table or a parse state as making the pipeline faster; measure more, fit another --kind, or give --allow-negative to write it anyway (predict then warns fitted_model_extrapolates)",
            bad.join("; ")
        )));
    }
    m.notes.push(format!(
        "Written with --allow-negative: terms below zero on the training rows: {}.",
        bad.join("; ")
    ));
    Ok(())
}

fn fit_human(m: &ModelSpec, output: &Path, unmeasured: usize) -> String {
    let ports = m.port_list();
    let mut s = format!(
        "fitted {} ({}, {} port{}) -> {}\n",
        m.name,
        m.kind.name(),
        ports
            .iter()
            .map(|p| format!("{p}G"))
            .collect::<Vec<_>>()
            .join(", "),
        if ports.len() == 1 { "" } else { "s" },
        output.display()
    );
    if m.ports.is_empty() {
        s.push_str(&fit_terms(m));
    }
    for one in &m.ports {
        s.push_str(&format!(
            "{}G port\n",
            one.port_gbps.map_or("?".into(), |p| p.to_string())
        ));
        s.push_str(&fit_terms(one));
    }
    if unmeasured > 0 {
        s.push_str(&format!(
            "  ({unmeasured} rows without latency_ns were skipped)\n"
        ));
    }
    s
}

/// The terms, fit figures, training range and notes of one port's fit.
fn fit_terms(m: &ModelSpec) -> String {
    let mut s = String::new();
    if let (Some(b), Some(p)) = (&m.base, &m.parser) {
        s.push_str(&format!(
            "  base     L_B = {:.6} ns/B * packet + {:.4} ns\n  parser   per counted state: {:.6} ns/B * bytes + {:.4} ns\n",
            b.per_packet_byte_ns, b.constant_ns, p.per_header_byte_ns, p.per_state_ns
        ));
    }
    if let Some(p) = &m.plp {
        let part = |what: &str, x: &p4cost_model::plp::PlpPart| {
            format!(
                "  {what:<8} PLP on {}: {} components, alpha {:.3e}, cross-validated RMSE {:.3} ns\n",
                x.inputs.join(", "),
                x.components.len(),
                x.alpha,
                x.cv_rmse_ns
            )
        };
        s.push_str(&part("parser", &p.parser));
        match &p.control {
            Some(c) => s.push_str(&part("control", c)),
            None => s.push_str("  control  none (no table in the data)\n"),
        }
    }
    match &m.control {
        _ if m.kind != p4cost_model::ModelKind::TofinoIngressLinear => {}
        Some(c) => s.push_str(&format!(
            "  control  per table: exact {:.4} (k<{w} or 2+ keys) / {:.4} ns (one key >={w} bits); TCAM {:.4} / {:.4} ns\n",
            c.exact.narrow_key_ns,
            c.exact.wide_key_ns,
            c.lpm.narrow_key_ns,
            c.lpm.wide_key_ns,
            w = c.wide_key_min_bits
        )),
        None => s.push_str("  control  none (no table in the data)\n"),
    }
    if let Some(f) = &m.fit {
        s.push_str(&format!(
            "  fit      {} rows: R^2 {:.5}, RMSE {:.3} ns, MAE {:.3} ns, max |residual| {:.3} ns, sMAPE {:.3} %, accuracy {:.3} %\n",
            f.rows, f.r2, f.rmse_ns, f.mae_ns, f.max_abs_residual_ns, f.smape_percent, f.accuracy_percent
        ));
    }
    if let Some(t) = &m.training {
        s.push_str(&format!(
            "  trained  packets {}-{} B, {}-{} states of {}-{} B, {}-{} tables, keys {}-{} bits, {} match\n",
            t.packet_size_bytes[0],
            t.packet_size_bytes[1],
            t.states_after_ethernet[0],
            t.states_after_ethernet[1],
            t.header_bytes_per_state[0],
            t.header_bytes_per_state[1],
            t.tables[0],
            t.tables[1],
            t.key_bits[0],
            t.key_bits[1],
            if t.match_kinds.is_empty() {
                "no".to_string()
            } else {
                t.match_kinds.join("/")
            }
        ));
    }
    for t in m.fit.as_ref().map_or(&[][..], |f| &f.terms[..]) {
        let neg = p4cost_model::fitted::NEGATIVE_NS;
        let sign = match (t.min_ns < neg, t.max_ns < neg) {
            (false, _) => "+",
            (true, true) => "-",
            (true, false) => "+/-",
        };
        s.push_str(&format!(
            "  sign     {sign:<3} {:<22} {:>9.3} to {:>9.3} ns on the training rows\n",
            t.term, t.min_ns, t.max_ns
        ));
    }
    for n in m.notes.iter().skip(1) {
        s.push_str(&format!("  note     {n}\n"));
    }
    s
}

/// The JSON `validate --format json` prints.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct ValidateReport {
    schema_version: u32,
    p4cost_version: &'static str,
    #[serde(flatten)]
    validation: Validation,
}

/// A model argument: a file when it names one (or ends in `.json`), else
/// an embedded model's name.
fn load_model(arg: &str) -> Result<ModelSpec, CliError> {
    let p = Path::new(arg);
    if p.is_file() || arg.ends_with(".json") {
        p4cost_engine::predict::model_from_file(p, p4cost_front::Limits::DEFAULT_FILE_BYTES)
            .map_err(|e| CliError::input(e.to_string()))
    } else {
        p4cost_model::model_by_name(arg).map_err(|e| CliError::input(e.to_string()))
    }
}

/// Runs `validate`.
pub fn validate(a: &ValidateArgs, out: &mut dyn Write) -> Result<Exit, CliError> {
    let (data_arg, model_args) = a
        .inputs
        .split_last()
        .ok_or_else(|| CliError::input("give MODEL... DATA"))?;
    let inputs: Vec<&Path> = a.inputs.iter().map(Path::new).collect();
    if let Some(svg) = &a.plot {
        crate::output_file::check(svg, a.force, &inputs)?;
    }
    // A file of several ports gives one model per port.
    let mut models = Vec::new();
    for arg in model_args {
        let m = load_model(arg)?;
        if m.ports.is_empty() {
            models.push(m);
        } else {
            models.extend(m.ports);
        }
    }
    // Refuse unusable models before reading what may be a large file.
    p4cost_calibrate::validate::by_port(&models).map_err(cal)?;
    let m = data::read_file(Path::new(data_arg)).map_err(cal)?;
    let v = p4cost_calibrate::validate::validate(&models, &m, data_arg).map_err(cal)?;
    if let Some(svg) = &a.plot {
        let text = crate::plot::validation_svg(&v, svg)?;
        crate::output_file::write_new(svg, text.as_bytes(), a.force, &inputs)?;
    }
    let text = match a.format {
        Format::Json => crate::json_out::to_pretty(&ValidateReport {
            schema_version: p4cost_engine::report::SCHEMA_VERSION,
            p4cost_version: env!("CARGO_PKG_VERSION"),
            validation: v,
        })?,
        Format::Human => validate_human(&v, a.plot.as_deref()),
    };
    out.write_all(text.as_bytes()).map_err(CliError::output)?;
    Ok(Exit::Ok)
}

fn validate_human(v: &Validation, plot: Option<&Path>) -> String {
    let mut s = format!(
        "{} against {}: {} rows compared",
        v.models.join(", "),
        v.data,
        v.overall.rows
    );
    if v.rows_unmeasured > 0 {
        s.push_str(&format!(", {} unmeasured", v.rows_unmeasured));
    }
    if v.rows_without_model > 0 {
        s.push_str(&format!(
            ", {} at ports no model covers",
            v.rows_without_model
        ));
    }
    s.push_str("\n\n");
    s.push_str(&format!(
        "{:<6} {:<20} {:>6} {:>9} {:>9} {:>9} {:>10} {:>9} {:>8} {:>8} {:>8}\n",
        "port",
        "model",
        "rows",
        "accuracy",
        "MAE",
        "RMSE",
        "max |err|",
        "bias",
        "R^2",
        "<=1 ns",
        "<=1 %"
    ));
    let row = |s: &mut String, port: &str, model: &str, a: &p4cost_calibrate::metrics::Accuracy| {
        s.push_str(&format!(
            "{:<6} {:<20} {:>6} {:>8.3}% {:>6.3} ns {:>6.3} ns {:>7.3} ns {:>+6.3} ns {:>8.5} {:>7.1}% {:>7.1}%\n",
            port,
            model,
            a.rows,
            a.accuracy_percent,
            a.mae_ns,
            a.rmse_ns,
            a.max_abs_error_ns,
            a.bias_ns,
            a.r2,
            a.within_1ns_percent,
            a.within_1pct_percent
        ));
    };
    for p in &v.ports {
        row(&mut s, &format!("{}G", p.port_gbps), &p.model, &p.accuracy);
    }
    if v.ports.len() > 1 {
        row(&mut s, "all", "", &v.overall);
    }
    s.push_str(
        "\naccuracy: the papers' metric, mean of 100 - |predicted - measured| / measured * 100\n",
    );
    if let Some(p) = plot {
        s.push_str(&format!("plot: {}\n", p.display()));
    }
    s
}
