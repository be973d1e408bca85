//! `vkprims plot`: throughput against n on log-log axes, one line per primitive and file,
//! the copy references dashed.

use std::collections::BTreeMap;
use std::path::Path;

use plotters::prelude::*;

use super::Results;
use crate::error::{invalid, Error, Result};

/// One series: (label, is a copy reference, points (log2 n, GB/s)).
pub type Series = (String, bool, Vec<(f64, f64)>);

/// The series a plot of `files` draws, in a stable order: every primitive whose name
/// contains one of `only` (all when empty), and the copy references.
pub fn series(files: &[(String, Results)], only: &[String]) -> Vec<Series> {
    let mut out = Vec::new();
    for (label, res) in files {
        let mut by: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
        let wanted = |p: &str| p.starts_with("copy") || only.is_empty() || only.iter().any(|o| p.contains(o.as_str()));
        // Policies name the lines only where the sweep compared them; the tuned policy that
        // changes with n stays one line.
        let by_policy = res.sweep.policies.len() > 1;
        for r in res.rows.iter().filter(|r| r.valid() && wanted(&r.primitive)) {
            let name = match &r.policy {
                Some(p) if by_policy => format!("{} [{}]", r.primitive, p),
                _ => r.primitive.clone(),
            };
            by.entry(name).or_default().push(((r.n.max(1) as f64).log2(), r.gbps));
        }
        for (name, mut pts) in by {
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            let copy = name.starts_with("copy");
            let full = if files.len() > 1 { format!("{label}: {name}") } else { name };
            out.push((full, copy, pts));
        }
    }
    out
}

/// Draw `files` (label, results) into an SVG at `out`; `only` as for [`series`].
pub fn plot(files: &[(String, Results)], only: &[String], out: &Path) -> Result<()> {
    let series = series(files, only);
    let pts: Vec<(f64, f64)> = series.iter().flat_map(|s| s.2.iter().copied()).filter(|p| p.1 > 0.0).collect();
    if pts.is_empty() {
        return invalid("nothing to plot: no validated rows in the files");
    }
    let (xmin, xmax) = pts.iter().fold((f64::MAX, 0.0f64), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (ymin, ymax) = pts.iter().fold((f64::MAX, 0.0f64), |(a, b), p| (a.min(p.1), b.max(p.1)));
    let err = |e: &dyn std::fmt::Display| Error::Invalid(format!("{}: {e}", out.display()));
    let device = &files[0].1.device.name;
    let root = SVGBackend::new(out, (1100, 700)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("vkprims throughput on {device}"), ("sans-serif", 24))
        .margin(20)
        .x_label_area_size(55)
        .y_label_area_size(75)
        .build_cartesian_2d(xmin.floor() - 0.5..xmax.ceil() + 0.5, (ymin / 1.5..ymax * 1.5).log_scale())
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("n (elements)")
        .y_desc("GB/s moved (bytes per element x n / time)")
        .x_labels((xmax.ceil() - xmin.floor()) as usize + 2)
        .x_label_formatter(&|x| if x.fract() == 0.0 { format!("2^{x:.0}") } else { String::new() })
        .y_labels(12)
        .y_label_formatter(&|y| format!("{y:.0}"))
        .label_style(("sans-serif", 15))
        .draw()
        .map_err(|e| err(&e))?;
    for (i, (name, copy, pts)) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let style = color.stroke_width(if *copy { 2 } else { 3 });
        let drawn = if *copy {
            chart.draw_series(DashedLineSeries::new(pts.iter().copied(), 8, 6, style))
        } else {
            chart.draw_series(LineSeries::new(pts.iter().copied(), style))
        };
        drawn
            .map_err(|e| err(&e))?
            .label(name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], color.stroke_width(3)));
        chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled()))).map_err(|e| err(&e))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

/// `vkprims plot --timeline`: for each row of `files` with tile timelines (`xtimeline`), an
/// SVG of the tiles in each phase over the pass's time, one line per phase, at `out` with the
/// row's ordinal before the extension (`out-1.svg`, ...). Returns the files written.
pub fn plot_timelines(files: &[(String, Results)], out: &Path) -> Result<Vec<std::path::PathBuf>> {
    let mut written = Vec::new();
    for (label, res) in files {
        for r in res.rows.iter().filter(|r| !r.timeline.is_empty()) {
            let Some((span_us, phases)) = super::timeline::occupancy(&r.timeline, 400) else { continue };
            let stem = out.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "timeline".into());
            let path = out.with_file_name(format!("{stem}-{}.svg", written.len() + 1));
            let err = |e: &dyn std::fmt::Display| Error::Invalid(format!("{}: {e}", path.display()));
            let top = phases.iter().flat_map(|p| p.1.iter().copied()).fold(1.0f64, f64::max);
            let root = SVGBackend::new(&path, (1400, 700)).into_drawing_area();
            root.fill(&WHITE).map_err(|e| err(&e))?;
            let policy = r.policy.as_deref().unwrap_or("-");
            let mut chart = ChartBuilder::on(&root)
                .caption(format!("{label}: {} n={} on {}", r.primitive, r.n, res.device.name), ("sans-serif", 20))
                .margin(20)
                .x_label_area_size(55)
                .y_label_area_size(65)
                .build_cartesian_2d(0.0..span_us, 0.0..top * 1.05)
                .map_err(|e| err(&e))?;
            chart
                .configure_mesh()
                .x_desc(format!("time in one middle pass (us; {policy})"))
                .y_desc("tiles in the phase")
                .label_style(("sans-serif", 14))
                .draw()
                .map_err(|e| err(&e))?;
            let step = span_us / 400.0;
            for (i, (name, c)) in phases.iter().enumerate() {
                let color = Palette99::pick(i).to_rgba();
                chart
                    .draw_series(LineSeries::new(c.iter().enumerate().map(|(k, &v)| ((k as f64 + 0.5) * step, v)), color.stroke_width(2)))
                    .map_err(|e| err(&e))?
                    .label(name.clone())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], color.stroke_width(3)));
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperRight)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .label_font(("sans-serif", 13))
                .draw()
                .map_err(|e| err(&e))?;
            root.present().map_err(|e| err(&e))?;
            drop(chart);
            drop(root);
            written.push(path);
        }
    }
    if written.is_empty() {
        return invalid("nothing to plot: no row of the files has tile timelines (xtimeline)");
    }
    Ok(written)
}
