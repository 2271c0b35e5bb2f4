//! The `scale` plots: a figure against the number of subscriber processes,
//! one line per system and transport, for one payload size.

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
    /// CPU of one subscriber process, % of a core (their mean).
    CpuPerSubscriber,
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
    let mine: Vec<Record> = records
        .iter()
        .filter(|r| r.experiment == "scale" && !r.published && r.size_bytes == size)
        .cloned()
        .collect();
    let mut lines: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for g in groups(&mine) {
        let a = g[0];
        let Some(n) = subscribers_of(&a.setup) else {
            continue;
        };
        let v = g
            .iter()
            .map(|r| match figure {
                ScaleFigure::P50 => r.stats.p50_us,
                ScaleFigure::CpuPerSubscriber => 100.0 * r.cpu_sub_s / r.duration_s.max(1e-9),
            })
            .sum::<f64>()
            / g.len() as f64;
        let name = format!("{} {}", a.who(), a.transport);
        match lines.iter_mut().find(|l| l.0 == name) {
            Some(l) => l.1.push((n as f64, v)),
            None => lines.push((name, vec![(n as f64, v)])),
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
    let (what, unit) = match figure {
        ScaleFigure::P50 => ("p50 one-way", "µs"),
        ScaleFigure::CpuPerSubscriber => ("CPU per subscriber", "% of a core"),
    };
    let root = BitMapBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|x| e(&x))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!(
                "scale: {what}, {}, against subscriber processes",
                size_label(size)
            ),
            font(18),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(70)
        .build_cartesian_2d(0.5f64..8.5, 0f64..max_y)
        .map_err(|x| e(&x))?;
    chart
        .configure_mesh()
        .x_desc("subscriber processes")
        .y_desc(unit)
        .label_style(font(12))
        .axis_desc_style(font(14))
        .draw()
        .map_err(|x| e(&x))?;
    for l in &mut lines {
        l.1.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    draw_lines(&mut chart, lines, &e)?;
    root.present().map_err(|x| e(&x))?;
    Ok(true)
}
