//! PNG plots (plotters) and the HTML report that embeds them.
//!
//! - `<experiment>-per-message.png`: latency of every measured message in
//!   send order, one line per series (first repetition);
//! - `latency-vs-size-<rate>.png`, `dds-vs-size-<rate>.png`: p50 against
//!   payload size, one line per system, transport, set-up and rate (log–log);
//! - `e5-cpu.png`: CPU of publisher and subscriber per set-up, ours and the
//!   write-up's, % of one core;
//! - `scale-{p50,cpu}-<size>.png`: p50 and CPU per subscriber against the
//!   number of subscriber processes.
//!
//! Text needs a TrueType font: DejaVu Sans or Liberation Sans from
//! `/usr/share/fonts`; without one the plots are drawn without text.
//! [`write_report`] (`plots/report.rs`) gathers them into one HTML page.

use std::path::Path;
use std::sync::OnceLock;

use plotters::prelude::*;

use crate::output::{groups, size_label};
use crate::record::Record;

mod report;
mod scale;

pub use report::write_report;
pub use scale::{subscribers_of, versus_subscribers, versus_topics, ScaleAxis, ScaleFigure};

const FONTS: [&str; 3] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
];

fn have_font() -> bool {
    static OK: OnceLock<bool> = OnceLock::new();
    *OK.get_or_init(|| {
        FONTS
            .iter()
            .find_map(|p| std::fs::read(p).ok())
            .is_some_and(|bytes| {
                let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok()
            })
    })
}

/// Why a plot could not be drawn.
#[derive(Debug, thiserror::Error)]
#[error("plot {path}: {message}")]
pub struct PlotError {
    path: String,
    message: String,
}

fn err(path: &Path) -> impl Fn(&dyn std::fmt::Display) -> PlotError + '_ {
    move |e| PlotError {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// Draws one line with dots per `(name, points)`, in palette order, and
/// their legend in the upper left.
fn draw_lines<'a, X, Y>(
    chart: &mut ChartContext<'a, BitMapBackend<'a>, Cartesian2d<X, Y>>,
    lines: Vec<(String, Vec<(f64, f64)>)>,
    e: &dyn Fn(&dyn std::fmt::Display) -> PlotError,
) -> Result<(), PlotError>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    for (i, (name, pts)) in lines.into_iter().enumerate() {
        let c = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))
            .map_err(|x| e(&x))?
            .label(name)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], c.stroke_width(2)));
        chart
            .draw_series(pts.into_iter().map(|p| Circle::new(p, 3, c.filled())))
            .map_err(|x| e(&x))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font(font(11))
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|x| e(&x))?;
    Ok(())
}

fn font(size: u32) -> TextStyle<'static> {
    if have_font() {
        ("sans-serif", size).into_font().into()
    } else {
        ("sans-serif", 0).into_font().into()
    }
}

/// Latency per message over time for each measured series of `experiment`.
pub fn per_message(path: &Path, experiment: &str, records: &[Record]) -> Result<bool, PlotError> {
    let series: Vec<&Record> = records
        .iter()
        .filter(|r| r.experiment == experiment && r.rep == 0 && !r.series_us.is_empty())
        .collect();
    if series.is_empty() {
        return Ok(false);
    }
    let e = err(path);
    let max_n = series.iter().map(|r| r.series_us.len()).max().unwrap_or(1);
    let max_y = series
        .iter()
        .flat_map(|r| r.series_us.iter().copied())
        .fold(1.0f64, f64::max);
    let root = BitMapBackend::new(path, (1000, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|x| e(&x))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("{experiment}: latency per message (receive − intended send)"),
            font(20),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(60)
        .build_cartesian_2d(0..max_n, (0.5f64..max_y * 1.5).log_scale())
        .map_err(|x| e(&x))?;
    chart
        .configure_mesh()
        .x_desc("message")
        .y_desc("µs")
        .label_style(font(12))
        .axis_desc_style(font(14))
        .draw()
        .map_err(|x| e(&x))?;
    for (i, r) in series.iter().enumerate() {
        let c = Palette99::pick(i).to_rgba();
        let label = format!(
            "{} {}, {}, {}",
            r.who(),
            r.transport,
            r.setup,
            size_label(r.size_bytes)
        );
        chart
            .draw_series(LineSeries::new(
                r.series_us
                    .iter()
                    .enumerate()
                    .map(|(k, &v)| (k, v.max(0.5))),
                c.stroke_width(1),
            ))
            .map_err(|x| e(&x))?
            .label(label)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], c.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .label_font(font(12))
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|x| e(&x))?;
    root.present().map_err(|x| e(&x))?;
    Ok(true)
}

/// p50 against size for every series of `experiment` (`latency`, `dds`) at
/// `rate_hz` (0: as fast as possible, and the closed-loop ping-pong rows).
pub fn latency_vs_size(
    path: &Path,
    records: &[Record],
    experiment: &str,
    rate_hz: f64,
) -> Result<bool, PlotError> {
    let lat: Vec<Record> = records
        .iter()
        .filter(|r| r.experiment == experiment && !r.published && r.rate_hz == rate_hz)
        .cloned()
        .collect();
    if lat.is_empty() {
        return Ok(false);
    }
    let e = err(path);
    let mut lines: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for g in groups(&lat) {
        let a = g[0];
        let rate = if a.rate_hz == 0.0 {
            "max".to_string()
        } else {
            format!("{:.0} Hz", a.rate_hz)
        };
        let name = format!("{} {} [{}] {rate}", a.who(), a.transport, a.setup);
        let p50 = g.iter().map(|r| r.stats.p50_us).sum::<f64>() / g.len() as f64;
        let point = (a.size_bytes.max(1) as f64, p50.max(0.05));
        match lines.iter_mut().find(|l| l.0 == name) {
            Some(l) => l.1.push(point),
            None => lines.push((name, vec![point])),
        }
    }
    let max_x = lat.iter().map(|r| r.size_bytes as f64).fold(64.0, f64::max);
    let max_y = lines
        .iter()
        .flat_map(|l| l.1.iter().map(|p| p.1))
        .fold(1.0, f64::max);
    let root = BitMapBackend::new(path, (1000, 640)).into_drawing_area();
    root.fill(&WHITE).map_err(|x| e(&x))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!(
                "{experiment}: p50 one-way against payload size, {}",
                if rate_hz == 0.0 {
                    "as fast as possible".to_string()
                } else {
                    format!("{rate_hz:.0} Hz")
                }
            ),
            font(20),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(60)
        .build_cartesian_2d(
            (32f64..max_x * 2.0).log_scale(),
            (0.05f64..max_y * 3.0).log_scale(),
        )
        .map_err(|x| e(&x))?;
    chart
        .configure_mesh()
        .x_desc("bytes")
        .y_desc("p50 µs")
        .label_style(font(12))
        .axis_desc_style(font(14))
        .draw()
        .map_err(|x| e(&x))?;
    draw_lines(&mut chart, lines, &e)?;
    root.present().map_err(|x| e(&x))?;
    Ok(true)
}

/// CPU bars (% of one core) of publisher and subscriber per `e5-type-adapt` set-up.
pub fn cpu_bars(path: &Path, records: &[Record]) -> Result<bool, PlotError> {
    let rows: Vec<(String, f64, f64)> = groups(
        &records
            .iter()
            .filter(|r| r.experiment == "e5-type-adapt")
            .cloned()
            .collect::<Vec<_>>(),
    )
    .into_iter()
    .map(|g| {
        let d: f64 = g.iter().map(|r| r.duration_s).sum::<f64>().max(1e-9);
        let a = g[0];
        let name = format!(
            "{}{} {} [{}]",
            if a.published { "published " } else { "" },
            a.who(),
            a.transport,
            a.setup
        );
        (
            name,
            100.0 * g.iter().map(|r| r.cpu_pub_s).sum::<f64>() / d,
            100.0 * g.iter().map(|r| r.cpu_sub_s).sum::<f64>() / d,
        )
    })
    .collect();
    if rows.is_empty() {
        return Ok(false);
    }
    let e = err(path);
    let max_y = rows.iter().map(|r| r.1.max(r.2)).fold(5.0, f64::max) * 1.2;
    let root = BitMapBackend::new(path, (1000, 120 + 40 * rows.len() as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(|x| e(&x))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "e5-type-adapt: CPU, % of one core (blue publisher, red subscriber)",
            font(18),
        )
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(330)
        .build_cartesian_2d(0f64..max_y, 0f64..rows.len() as f64)
        .map_err(|x| e(&x))?;
    let names: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(rows.len() * 2 + 1)
        .y_label_formatter(&|y| {
            let i = *y - 0.5;
            if i >= 0.0 && i.fract().abs() < 1e-6 {
                names.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .label_style(font(12))
        .draw()
        .map_err(|x| e(&x))?;
    for (i, (_, p, s)) in rows.iter().enumerate() {
        let y = i as f64;
        chart
            .draw_series([
                Rectangle::new([(0.0, y + 0.5), (*p, y + 0.85)], BLUE.filled()),
                Rectangle::new([(0.0, y + 0.15), (*s, y + 0.5)], RED.filled()),
            ])
            .map_err(|x| e(&x))?;
    }
    root.present().map_err(|x| e(&x))?;
    Ok(true)
}
