//! One sentence per experiment for the top of the report: hibari against the
//! best peer measured in the same run, and against the write-up's figure,
//! with the ratios, in the cell the experiment is about.
//!
//! | experiment | cell | figure |
//! |---|---|---|
//! | `e1-images` | 640x480 rgb8, raw, two processes | p50 latency |
//! | `e3-laserscan` | the most ranges, 100 Hz, two processes | p50 latency |
//! | `e4-python` | 1 MiB `Image`, Python, two processes, the publish call | p50 call time |
//! | `e5-type-adapt` | 1080p `Image` at 30 Hz, two processes, no type adaptation | CPU of both processes |
//! | `latency` | 1 MiB at 1 kHz, two processes, open loop | p50 latency |
//! | `dds` | 6.2 MB at 30 Hz, one host | p50 latency |
//! | `scale` | 1,000 topics of 64 B at 10 Hz each, two processes | CPU of both processes |
//!
//! hibari's figure is its best series in the cell through the public API (not
//! hibari-shm's transport API); the peer's the best of the other systems
//! measured (not the mixed pairs of `dds`); published figures are means
//! where a write-up gave no median. The ratio is the other's figure over
//! hibari's: above 1, hibari is ahead.

use crate::record::Record;

/// What a headline says, and the bars of its plot.
#[derive(Debug, Clone)]
pub struct Headline {
    /// The experiment.
    pub experiment: &'static str,
    /// One sentence.
    pub sentence: String,
    /// (label, value) of hibari, the best peer and the published figure,
    /// those that exist, in that order.
    pub bars: Vec<(String, f64)>,
    /// The unit of the values (`µs`, `% of a core`).
    pub unit: &'static str,
}

struct Cell {
    experiment: &'static str,
    what: &'static str,
    setup: &'static str,
    size: fn(&[&Record]) -> Option<u64>,
    rate: Option<f64>,
    language: Option<&'static str>,
    cpu: bool,
}

fn fixed<const N: u64>(_: &[&Record]) -> Option<u64> {
    Some(N)
}

/// The largest payload measured at 100 Hz (E3's most ranges).
fn largest(rs: &[&Record]) -> Option<u64> {
    rs.iter()
        .filter(|r| !r.published && r.rate_hz == 100.0)
        .map(|r| r.size_bytes)
        .max()
}

const CELLS: [Cell; 7] = [
    Cell {
        experiment: "e1-images",
        what: "640x480 rgb8 images every 30 ms between two processes",
        setup: "two processes",
        size: fixed::<921_600>,
        rate: None,
        language: None,
        cpu: false,
    },
    Cell {
        experiment: "e3-laserscan",
        what: "the largest LaserScan at 100 Hz between two processes",
        setup: "two processes",
        size: largest,
        rate: Some(100.0),
        language: None,
        cpu: false,
    },
    Cell {
        experiment: "e4-python",
        what: "the Python publish call of a 1 MiB Image, two processes",
        setup: "two processes, reliable, publish call",
        size: fixed::<1_048_576>,
        rate: None,
        language: Some("python"),
        cpu: false,
    },
    Cell {
        experiment: "e5-type-adapt",
        what: "CPU of a 1080p Image stream at 30 Hz between two processes",
        setup: "two processes",
        size: fixed::<6_220_800>,
        rate: None,
        language: None,
        cpu: true,
    },
    Cell {
        experiment: "latency",
        what: "1 MiB at 1 kHz between two processes, open loop",
        setup: "two processes",
        size: fixed::<1_048_576>,
        rate: Some(1000.0),
        language: None,
        cpu: false,
    },
    Cell {
        experiment: "dds",
        what: "6.2 MB images at 30 Hz on one host",
        setup: "one host",
        size: fixed::<6_220_800>,
        rate: Some(30.0),
        language: None,
        cpu: false,
    },
    Cell {
        experiment: "scale",
        what: "CPU of 1000 topics of 64 B at 10 Hz each between two processes",
        setup: "1000 topics at 10 Hz, two processes",
        size: fixed::<64>,
        rate: Some(10.0),
        language: None,
        cpu: true,
    },
];

impl Cell {
    fn figure(&self, r: &Record) -> f64 {
        match self.cpu {
            // Published CPU rows hold fractions of a core over 1 s.
            true => 100.0 * (r.cpu_pub_s + r.cpu_sub_s) / r.duration_s.max(1e-9),
            false if r.stats.p50_us > 0.0 => r.stats.p50_us,
            false => r.stats.mean_us,
        }
    }

    /// Whether `r` is in the cell (published rows: size 0 matches any).
    fn holds(&self, r: &Record, size: u64) -> bool {
        r.experiment == self.experiment
            && r.setup == self.setup
            && (r.size_bytes == size || (r.published && r.size_bytes == 0))
            && self.rate.is_none_or(|h| r.rate_hz == h || r.published)
            && self.language.is_none_or(|l| r.language == l || r.published)
            && !r.transport.contains("jpeg")
            && !r.transport.contains("adapted")
            && !r.transport.contains("transport API")
            && !r.system.contains('→')
    }
}

/// The headlines the records allow, in the order of [`CELLS`].
pub fn headlines(records: &[Record]) -> Vec<Headline> {
    CELLS.iter().filter_map(|c| headline(c, records)).collect()
}

fn headline(c: &Cell, records: &[Record]) -> Option<Headline> {
    let mine: Vec<&Record> = records
        .iter()
        .filter(|r| r.experiment == c.experiment)
        .collect();
    let size = (c.size)(&mine)?;
    let cell: Vec<&Record> = mine.into_iter().filter(|r| c.holds(r, size)).collect();
    let best = |keep: &dyn Fn(&Record) -> bool| {
        cell.iter()
            .filter(|r| keep(r) && c.figure(r) > 0.0)
            .min_by(|a, b| c.figure(a).total_cmp(&c.figure(b)))
            .copied()
    };
    let hibari = best(&|r| !r.published && r.system == "hibari")?;
    let peer = best(&|r| !r.published && r.system != "hibari");
    let quoted = best(&|r| r.published);
    let unit = if c.cpu { "% of a core" } else { "µs" };
    let show = |v: f64| match c.cpu {
        true => format!("{v:.1}% of a core"),
        false if v >= 1000.0 => format!("{:.2} ms", v / 1000.0),
        false => format!("{v:.0} µs"),
    };
    let h = c.figure(hibari);
    let versus = |r: &Record, whose: &str| {
        let ratio = c.figure(r) / h;
        let stat = match (c.cpu, r.stats.p50_us > 0.0) {
            (true, _) => "",
            (false, true) => " p50",
            (false, false) => " mean",
        };
        format!(
            "{whose}{} {}{stat} {} ({ratio:.1}x)",
            r.who(),
            r.transport,
            show(c.figure(r))
        )
    };
    let mut sentence = format!(
        "{}: hibari {}{} {}",
        capitalize(c.what),
        hibari.transport,
        if c.cpu { "" } else { " p50" },
        show(h)
    );
    let mut bars = vec![(format!("hibari {}", hibari.transport), h)];
    for (r, whose) in [(peer, ""), (quoted, "published: ")] {
        if let Some(r) = r {
            sentence.push_str(&format!("; {}", versus(r, whose)));
            bars.push((format!("{whose}{} {}", r.who(), r.transport), c.figure(r)));
        }
    }
    if peer.is_none() {
        sentence.push_str("; no other system measured in this run");
    }
    sentence.push('.');
    Some(Headline {
        experiment: c.experiment,
        sentence,
        bars,
        unit,
    })
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}
