//! The `scale` plots: a figure against the number of subscriber processes
//! (one line per system and transport, for one payload size) or against the
//! number of topics.

use std::path::Path;

use plotters::prelude::*;

use super::{draw_lines, err, font, PlotError};
use crate::output::{groups, size_label};
use crate::record::Record;

/// What a `scale` plot shows.
#[derive(Debug, Clone, Copy)]
pub enum ScaleFigure {
    /// p50 one-way latency, µs (every subscriber's samples together).
    P50,
    /// p99 one-way latency, µs.
    P99,
    /// CPU of one subscriber process, % of a core (their mean).
    CpuPerSubscriber,
    /// CPU of the publisher process, % of a core.
    CpuPublisher,
}

impl ScaleFigure {
    fn of(self, r: &Record) -> f64 {
        let cpu = |s: f64| 100.0 * s / r.duration_s.max(1e-9);
        match self {
            ScaleFigure::P50 => r.stats.p50_us,
            ScaleFigure::P99 => r.stats.p99_us,
            ScaleFigure::CpuPerSubscriber => cpu(r.cpu_sub_s),
            ScaleFigure::CpuPublisher => cpu(r.cpu_pub_s),
        }
    }

    fn label(self) -> (&'static str, &'static str) {
        match self {
            ScaleFigure::P50 => ("p50 one-way", "µs"),
            ScaleFigure::P99 => ("p99 one-way", "µs"),
            ScaleFigure::CpuPerSubscriber => ("CPU per subscriber", "% of a core"),
            ScaleFigure::CpuPublisher => ("CPU of the publisher", "% of a core"),
        }
    }
}

/// What a `scale` plot's x axis counts.
#[derive(Debug, Clone, Copy)]
pub enum ScaleAxis {
    /// Subscriber processes of one publisher (one topic).
    Subscribers,
    /// Topics between two processes (10 Hz each).
    Topics,
}

impl ScaleAxis {
    fn of(self, setup: &str) -> Option<u64> {
        match self {
            ScaleAxis::Subscribers => subscribers_of(setup),
            ScaleAxis::Topics => crate::experiments::topics_of(setup),
        }
    }
}

/// The number of subscriber processes of a `scale` set-up label
/// (`two processes` is one).
pub fn subscribers_of(setup: &str) -> Option<u64> {
    match setup {
        "two processes" => Some(1),
        s => s
            .strip_prefix("1 publisher, ")?
            .strip_suffix(" subscriber processes")?
            .parse()
            .ok(),
    }
}

/// Draws `figure` against the subscriber count for the `scale` records of
/// `size` bytes; `false` when there are none.
pub fn versus_subscribers(
    path: &Path,
    records: &[Record],
    size: u64,
    figure: ScaleFigure,
) -> Result<bool, PlotError> {
    versus(path, records, size, &[figure], ScaleAxis::Subscribers)
}

/// Draws `figures` (one line each per system and transport) against the
/// topic count for the many-topics `scale` records; `false` when there are
/// none.
pub fn versus_topics(
    path: &Path,
    records: &[Record],
    figures: &[ScaleFigure],
) -> Result<bool, PlotError> {
    versus(path, records, 64, figures, ScaleAxis::Topics)
}

fn versus(
    path: &Path,
    records: &[Record],
    size: u64,
    figures: &[ScaleFigure],
    axis: ScaleAxis,
) -> Result<bool, PlotError> {
    let mine: Vec<Record> = records
        .iter()
        .filter(|r| r.experiment == "scale" && !r.published && r.size_bytes == size)
        .cloned()
        .collect();
    let mut lines: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for g in groups(&mine) {
        let a = g[0];
        let Some(n) = axis.of(&a.setup) else {
            continue;
        };
        for &figure in figures {
            let v = g.iter().map(|r| figure.of(r)).sum::<f64>() / g.len() as f64;
            let name = match figures.len() {
                1 => format!("{} {}", a.who(), a.transport),
                _ => format!("{} {}: {}", a.who(), a.transport, figure.label().0),
            };
            match lines.iter_mut().find(|l| l.0 == name) {
                Some(l) => l.1.push((n as f64, v)),
                None => lines.push((name, vec![(n as f64, v)])),
            }
        }
    }
    if lines.is_empty() {
        return Ok(false);
    }
    let e = err(path);
    let max_y = lines
        .iter()
        .flat_map(|l| l.1.iter().map(|p| p.1))
        .fold(1e-3, f64::max)
        * 1.2;
    let (what, unit) = figures[0].label();
    let what = match figures {
        [_] => what.to_owned(),
        _ => "CPU".to_owned(),
    };
    let root = BitMapBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|x| e(&x))?;
    let mut builder = ChartBuilder::on(&root);
    builder
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(70);
    let x_max = lines
        .iter()
        .flat_map(|l| l.1.iter().map(|p| p.0))
        .fold(1.0, f64::max);
    let (caption, x_desc) = match axis {
        ScaleAxis::Subscribers => (
            format!(
                "scale: {what}, {}, against subscriber processes",
                size_label(size)
            ),
            "subscriber processes",
        ),
        ScaleAxis::Topics => (
            format!("scale: {what}, 64 B at 10 Hz per topic, against topics"),
            "topics (two processes)",
        ),
    };
    builder.caption(caption, font(18));
    sort(&mut lines);
    // The two axes are different coordinate types: the same steps on each.
    macro_rules! draw {
        ($chart:expr) => {{
            let mut chart = $chart.map_err(|x| e(&x))?;
            chart
                .configure_mesh()
                .x_desc(x_desc)
                .y_desc(unit)
                .label_style(font(12))
                .axis_desc_style(font(14))
                .draw()
                .map_err(|x| e(&x))?;
            draw_lines(&mut chart, lines, &e)?;
        }};
    }
    match axis {
        ScaleAxis::Subscribers => {
            let chart = builder.build_cartesian_2d(0.5f64..8.5, 0f64..max_y);
            draw!(chart);
        }
        ScaleAxis::Topics => {
            let x = (0.8f64..x_max * 1.25).log_scale();
            let chart = builder.build_cartesian_2d(x, 0f64..max_y);
            draw!(chart);
        }
    }
    root.present().map_err(|x| e(&x))?;
    Ok(true)
}

fn sort(lines: &mut [(String, Vec<(f64, f64)>)]) {
    for l in lines {
        l.1.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
}
