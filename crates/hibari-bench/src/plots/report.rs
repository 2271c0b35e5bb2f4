//! The HTML report: every plot the records allow, drawn into one directory
//! and embedded (base64 PNG) in `report.html` beside the table and notes.

use std::path::{Path, PathBuf};

use base64::Engine as _;

use super::{cpu_bars, err, latency_vs_size, per_message, PlotError};
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
        <h1>hibari bench</h1><p>{}</p><p><code>{}</code> — {:.0} s. Rows marked <b>pub:</b> are the write-ups' figures (other machines, other methods), not measured here. This VM is shared with builds and other benchmarks: treat figures as noisy.</p><pre>{}</pre>",
        esc(&report.machine.line()), esc(&report.command), report.elapsed_s, esc(table));
    if !report.notes.is_empty() {
        html.push_str(&format!(
            "<h2>Notes</h2><pre>{}</pre>",
            esc(&report.notes.join("\n"))
        ));
    }
    for p in &pngs {
        let bytes = std::fs::read(p).map_err(|x| err(p)(&x))?;
        let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        html.push_str(&format!(
            "<h2>{}</h2><img alt=\"{name}\" src=\"data:image/png;base64,{b64}\">",
            esc(&name)
        ));
    }
    let out = dir.join("report.html");
    std::fs::write(&out, html).map_err(|x| err(&out)(&x))?;
    pngs.push(out);
    Ok(pngs)
}
