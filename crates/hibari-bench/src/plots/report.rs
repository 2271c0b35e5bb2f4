//! The HTML report: every plot the records allow, drawn into one directory
//! and embedded (base64 PNG) in `report.html`. It opens with what a reader
//! came for — per experiment one sentence and one plot, hibari against the
//! best peer and the write-up ([`crate::headline`]) — then the plots, the
//! notes, and the full table last.

use std::path::{Path, PathBuf};

use base64::Engine as _;

use plotters::prelude::*;

use super::{
    cpu_bars, err, font, latency_vs_size, per_message, versus_subscribers, versus_topics,
    PlotError, ScaleFigure,
};
use crate::headline::{headlines, Headline};
use crate::record::{Record, Report};

/// Draws every plot the records allow into `dir` and writes
/// `dir/report.html` embedding them; returns the files written.
pub fn write_report(dir: &Path, report: &Report, table: &str) -> Result<Vec<PathBuf>, PlotError> {
    std::fs::create_dir_all(dir).map_err(|x| err(dir)(&x))?;
    let mut pngs = Vec::new();
    for exp in ["e1-images", "e3-laserscan", "e5-type-adapt"] {
        let p = dir.join(format!("{exp}-per-message.png"));
        if per_message(&p, exp, &report.records)? {
            pngs.push(p);
        }
    }
    // The sweep has too many series for one plot over time: 64 KiB at 1 kHz.
    let one: Vec<Record> = report
        .records
        .iter()
        .filter(|r| r.rate_hz == 1000.0 && (65_536..66_000).contains(&r.size_bytes))
        .cloned()
        .collect();
    let p = dir.join("latency-64KiB-1kHz-per-message.png");
    if per_message(&p, "latency", &one)? {
        pngs.push(p);
    }
    let sweeps = [
        ("latency", 100.0, "100hz"),
        ("latency", 1000.0, "1khz"),
        ("latency", 0.0, "max"),
        ("dds", 100.0, "100hz"),
        ("dds", 30.0, "30hz"),
    ];
    for (exp, rate, name) in sweeps {
        let p = dir.join(format!("{exp}-vs-size-{name}.png"));
        if latency_vs_size(&p, &report.records, exp, rate)? {
            pngs.push(p);
        }
    }
    for size in [64, 6_220_800] {
        for (figure, name) in [
            (ScaleFigure::P50, "p50"),
            (ScaleFigure::CpuPerSubscriber, "cpu"),
        ] {
            let p = dir.join(format!("scale-{name}-{size}.png"));
            if versus_subscribers(&p, &report.records, size, figure)? {
                pngs.push(p);
            }
        }
    }
    for (figures, name) in [
        (&[ScaleFigure::P99][..], "p99"),
        (
            &[ScaleFigure::CpuPublisher, ScaleFigure::CpuPerSubscriber][..],
            "cpu",
        ),
    ] {
        let p = dir.join(format!("scale-topics-{name}.png"));
        if versus_topics(&p, &report.records, figures)? {
            pngs.push(p);
        }
    }
    let p = dir.join("e5-cpu.png");
    if cpu_bars(&p, &report.records)? {
        pngs.push(p);
    }
    let esc = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let mut html = format!("<!doctype html><meta charset=utf-8><title>hibari bench</title>\
        <style>body{{font-family:sans-serif;max-width:1100px;margin:2em auto}}pre{{font-size:11px;overflow-x:auto}}</style>\
        <h1>hibari bench</h1><p>{}</p><p><code>{}</code> — {:.0} s. Published figures are the write-ups' (other machines, other methods), not measured here; ratios are the other's figure over hibari's (above 1: hibari ahead).</p>",
        esc(&report.machine.line()), esc(&report.command), report.elapsed_s);
    html.push_str("<h2>Headlines</h2>");
    for h in headlines(&report.records) {
        let p = dir.join(format!("{}-headline.png", h.experiment));
        html.push_str(&format!(
            "<h3>{}</h3><p>{}</p>",
            h.experiment,
            esc(&h.sentence)
        ));
        if headline_bars(&p, &h)? {
            html.push_str(&img(&p)?);
            pngs.push(p);
        }
    }
    html.push_str("<h2>Plots</h2>");
    for p in &pngs {
        if p.to_string_lossy().ends_with("-headline.png") {
            continue;
        }
        let name = p.file_name().map(|n| n.to_string_lossy().to_string());
        let name = name.unwrap_or_default();
        html.push_str(&format!("<h3>{}</h3>{}", esc(&name), img(p)?));
    }
    if !report.notes.is_empty() {
        html.push_str(&format!(
            "<h2>Notes</h2><pre>{}</pre>",
            esc(&report.notes.join("\n"))
        ));
    }
    html.push_str(&format!(
        "<h2>Every series</h2><p>Rows marked <b>pub:</b> are published figures.</p><pre>{}</pre>",
        esc(table)
    ));
    let out = dir.join("report.html");
    std::fs::write(&out, html).map_err(|x| err(&out)(&x))?;
    pngs.push(out);
    Ok(pngs)
}

/// An `<img>` embedding the PNG at `p`.
fn img(p: &Path) -> Result<String, PlotError> {
    let bytes = std::fs::read(p).map_err(|x| err(p)(&x))?;
    let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
    let name = p.file_name().map(|n| n.to_string_lossy().to_string());
    Ok(format!(
        "<img alt=\"{}\" src=\"data:image/png;base64,{b64}\">",
        name.unwrap_or_default()
    ))
}

/// A headline's bars: hibari first (blue), the others grey, each with its
/// value; `false` when there is nothing to draw.
fn headline_bars(path: &Path, h: &Headline) -> Result<bool, PlotError> {
    if h.bars.is_empty() {
        return Ok(false);
    }
    let e = err(path);
    let n = h.bars.len();
    let max_x = h.bars.iter().map(|b| b.1).fold(0.0, f64::max).max(1e-9) * 1.25;
    let root = BitMapBackend::new(path, (900, 70 + 45 * n as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(|x| e(&x))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("{} ({})", h.experiment, h.unit), font(16))
        .margin(10)
        .x_label_area_size(25)
        .y_label_area_size(300)
        .build_cartesian_2d(0f64..max_x, 0f64..n as f64)
        .map_err(|x| e(&x))?;
    let names: Vec<String> = h.bars.iter().map(|b| b.0.clone()).collect();
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(n * 2 + 1)
        .y_label_formatter(&|y| {
            let i = (n as f64 - *y) - 0.5;
            match i >= 0.0 && i.fract().abs() < 1e-6 {
                true => names.get(i as usize).cloned().unwrap_or_default(),
                false => String::new(),
            }
        })
        .label_style(font(12))
        .draw()
        .map_err(|x| e(&x))?;
    for (i, (_, v)) in h.bars.iter().enumerate() {
        let y = (n - 1 - i) as f64;
        let color = if i == 0 {
            BLUE
        } else {
            RGBColor(150, 150, 150)
        };
        chart
            .draw_series([Rectangle::new(
                [(0.0, y + 0.2), (*v, y + 0.8)],
                color.filled(),
            )])
            .map_err(|x| e(&x))?;
        let text = if *v >= 100.0 {
            format!("{v:.0}")
        } else {
            format!("{v:.2}")
        };
        chart
            .draw_series([Text::new(text, (*v, y + 0.6), font(12))])
            .map_err(|x| e(&x))?;
    }
    root.present().map_err(|x| e(&x))?;
    Ok(true)
}
