//! `validate --plot`: predicted against measured (with the y = x line a
//! perfect model sits on) and the residuals against the measurement, one
//! colour per port, as SVG (plotters).

use std::path::Path;

use p4cost_calibrate::validate::Validation;
use plotters::prelude::*;

use crate::exit::CliError;

const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(23, 190, 207),
];

/// Draws `v` as SVG text (`out`, the file it is for, names it in errors).
pub fn validation_svg(v: &Validation, out: &Path) -> Result<String, CliError> {
    let mut svg = String::new();
    draw(v, &mut svg).map_err(|e| CliError::input(format!("--plot {}: {e}", out.display())))?;
    Ok(svg)
}

/// Both charts of `v`, side by side under one title, into `out`.
fn draw(v: &Validation, out: &mut String) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::with_string(out, (1200, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let title = format!(
        "{} on {}: accuracy {:.2} %, MAE {:.2} ns, RMSE {:.2} ns ({} rows)",
        v.models.join(", "),
        v.data,
        v.overall.accuracy_percent,
        v.overall.mae_ns,
        v.overall.rmse_ns,
        v.overall.rows
    );
    let root = root.titled(&title, ("sans-serif", 20))?;
    let (left, right) = root.split_horizontally(600);
    let range = latency_range(v);
    draw_predicted(v, &left, range)?;
    draw_residuals(v, &right, range)?;
    root.present()?;
    Ok(())
}

/// The latencies measured and predicted, padded by 5 % (at least 1 ns)
/// on each side: both charts' x axis, and the first one's y axis.
fn latency_range(v: &Validation) -> (f64, f64) {
    let (lo, hi) = v.points.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| {
        (
            lo.min(p.measured_ns).min(p.predicted_ns),
            hi.max(p.measured_ns).max(p.predicted_ns),
        )
    });
    let pad = ((hi - lo) * 0.05).max(1.0);
    (lo - pad, hi + pad)
}

/// The area a chart is drawn on.
type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// Predicted against measured, with the y = x line and a legend of the
/// ports' accuracy.
fn draw_predicted(
    v: &Validation,
    area: &Area<'_>,
    (lo, hi): (f64, f64),
) -> Result<(), Box<dyn std::error::Error>> {
    let mut chart = ChartBuilder::on(area)
        .caption("predicted vs measured (ns)", ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(lo..hi, lo..hi)?;
    chart
        .configure_mesh()
        .x_desc("measured latency (ns)")
        .y_desc("predicted latency (ns)")
        .draw()?;
    chart
        .draw_series(LineSeries::new(vec![(lo, lo), (hi, hi)], BLACK.mix(0.5)))?
        .label("y = x")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], BLACK.mix(0.5)));
    for (i, p) in v.ports.iter().enumerate() {
        let c = PALETTE[i % PALETTE.len()];
        chart
            .draw_series(
                v.points
                    .iter()
                    .filter(|q| q.port_gbps == p.port_gbps)
                    .map(|q| Circle::new((q.measured_ns, q.predicted_ns), 2, c.mix(0.6).filled())),
            )?
            .label(format!(
                "{}G ({}): {:.2} %",
                p.port_gbps, p.model, p.accuracy.accuracy_percent
            ))
            .legend(move |(x, y)| Circle::new((x + 8, y), 4, c.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .draw()?;
    Ok(())
}

/// Residuals (predicted - measured) against the measurement, with the
/// zero line and bands at +-1 ns.
fn draw_residuals(
    v: &Validation,
    area: &Area<'_>,
    (lo, hi): (f64, f64),
) -> Result<(), Box<dyn std::error::Error>> {
    let r = v
        .points
        .iter()
        .map(|p| (p.predicted_ns - p.measured_ns).abs())
        .fold(0.0, f64::max)
        .max(0.5)
        * 1.1;
    let mut res = ChartBuilder::on(area)
        .caption("residual: predicted - measured (ns)", ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(lo..hi, -r..r)?;
    res.configure_mesh()
        .x_desc("measured latency (ns)")
        .y_desc("residual (ns)")
        .draw()?;
    res.draw_series(LineSeries::new(vec![(lo, 0.0), (hi, 0.0)], BLACK.mix(0.5)))?;
    for band in [-1.0, 1.0] {
        res.draw_series(LineSeries::new(
            vec![(lo, band), (hi, band)],
            RGBColor(150, 150, 150).stroke_width(1),
        ))?;
    }
    for (i, p) in v.ports.iter().enumerate() {
        let c = PALETTE[i % PALETTE.len()];
        res.draw_series(
            v.points
                .iter()
                .filter(|q| q.port_gbps == p.port_gbps)
                .map(|q| {
                    Circle::new(
                        (q.measured_ns, q.predicted_ns - q.measured_ns),
                        2,
                        c.mix(0.6).filled(),
                    )
                }),
        )?;
    }
    Ok(())
}
