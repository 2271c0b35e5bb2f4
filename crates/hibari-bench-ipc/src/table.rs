//! Human-readable tables of records: one table per (placement, touch), a row
//! per (system, variant, size), latency in µs, CPU in µs per message.

use crate::stats::Record;
use std::fmt::Write;

/// `64 B`, `4 KiB`, `64 KiB`, `921,600 B`, … .
pub fn size_label(size: u64) -> String {
    match size {
        s if s >= 1024 && s % 1024 == 0 && s <= 65_536 => format!("{} KiB", s / 1024),
        s => format!("{} B", thousands(s)),
    }
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A µs figure with 2–3 significant digits: `0.31`, `5.7`, `152`, `6,946`.
pub fn us(v: f64) -> String {
    match v {
        v if v < 10.0 => format!("{v:.2}"),
        v if v < 100.0 => format!("{v:.1}"),
        v => thousands(v.round() as u64),
    }
}

const HEAD: [&str; 17] = [
    "system",
    "variant",
    "mode",
    "size",
    "n",
    "lost",
    "p50",
    "p90",
    "p99",
    "p99.9",
    "max",
    "mean",
    "fill p50",
    "CPU pub",
    "CPU sub",
    "ctx vol/invol",
    "others",
];

/// Renders the records as Markdown tables, one per (placement, touch) in order of appearance.
pub fn render(records: &[Record]) -> String {
    let mut groups: Vec<(String, bool)> = Vec::new();
    for r in records {
        if !groups.contains(&(r.placement.clone(), r.touch)) {
            groups.push((r.placement.clone(), r.touch));
        }
    }
    let mut out = String::new();
    for (placement, touch) in groups {
        let what = if touch {
            "until every byte was read (touch)"
        } else {
            "until the payload is in hand"
        };
        let _ = writeln!(
            out,
            "\nplacement {placement}; one-way latency {what}; µs; CPU in µs per message; \
             others = cores used by other processes meanwhile\n"
        );
        let rows: Vec<Vec<String>> = records
            .iter()
            .filter(|r| r.placement == placement && r.touch == touch)
            .map(row)
            .collect();
        let mut width: Vec<usize> = HEAD.iter().map(|h| h.chars().count()).collect();
        for row in &rows {
            for (w, cell) in width.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let line = |cells: &[String]| {
            let padded: Vec<String> = cells
                .iter()
                .zip(&width)
                .enumerate()
                .map(|(i, (c, w))| match i < 3 {
                    true => format!("{c:<w$}"),
                    false => format!("{c:>w$}"),
                })
                .collect();
            format!("| {} |\n", padded.join(" | "))
        };
        out.push_str(&line(&HEAD.map(String::from)));
        let rule: Vec<String> = width.iter().map(|w| "-".repeat(*w)).collect();
        out.push_str(&line(&rule));
        for row in &rows {
            out.push_str(&line(row));
        }
        for r in records
            .iter()
            .filter(|r| r.placement == placement && r.touch == touch)
        {
            if r.files_while_running > 0 || !r.leftover_files.is_empty() {
                let _ = writeln!(
                    out,
                    "files: {} {} {}: {} while running ({} B), {} left after a clean exit ({} B), removed",
                    r.system,
                    r.variant,
                    size_label(r.size_bytes),
                    r.files_while_running,
                    thousands(r.bytes_while_running),
                    r.leftover_files.len(),
                    thousands(r.leftover_bytes)
                );
            }
        }
    }
    out
}

fn row(r: &Record) -> Vec<String> {
    let l = &r.latency;
    vec![
        r.system.clone(),
        r.variant.clone(),
        r.mode.clone(),
        size_label(r.size_bytes),
        r.latency.count.to_string(),
        r.lost.to_string(),
        us(l.p50_us),
        us(l.p90_us),
        us(l.p99_us),
        us(l.p999_us),
        us(l.max_us),
        us(l.mean_us),
        us(r.fill_p50_us),
        us(r.cpu_pub_us_per_msg),
        us(r.cpu_sub_us_per_msg),
        format!("{}/{}", r.ctx_vol, r.ctx_invol),
        r.others_cores.map_or("-".into(), |c| format!("{c:.2}")),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_figures_are_labelled_like_the_anchor_tables() {
        assert_eq!(size_label(64), "64 B");
        assert_eq!(size_label(4096), "4 KiB");
        assert_eq!(size_label(65_536), "64 KiB");
        assert_eq!(size_label(921_600), "921,600 B");
        assert_eq!(size_label(6_220_800), "6,220,800 B");
        assert_eq!(us(0.314), "0.31");
        assert_eq!(us(57.26), "57.3");
        assert_eq!(us(6946.4), "6,946");
    }
}
