//! The write-ups' own figures (shared/EXPERIMENTS.md, shared/specs/anchors.md
//! §1), as records with `published: true`: measured on other machines with
//! other methods, printed beside ours for orientation only. CPU rows have
//! `duration_s = 1`, so `cpu_*_s` is the fraction of one core.

use crate::record::Record;
use crate::stats::Stats;

#[allow(clippy::too_many_arguments)]
fn row(
    experiment: &str,
    system: &str,
    transport: &str,
    setup: &str,
    size: u64,
    rate: f64,
    mean_us: f64,
    stddev_us: f64,
    note: &str,
) -> Record {
    Record {
        experiment: experiment.into(),
        system: system.into(),
        transport: transport.into(),
        language: "cpp".into(),
        size_bytes: size,
        rate_hz: rate,
        stats: Stats {
            mean_us,
            stddev_us,
            ..Stats::default()
        },
        published: true,
        setup: setup.into(),
        note: note.into(),
        ..Record::default()
    }
}

fn cpu(setup: &str, transport: &str, pub_frac: f64, sub_frac: f64, note: &str) -> Record {
    let mut r = row(
        "e5-type-adapt",
        "ros2-humble",
        transport,
        setup,
        6_220_800,
        30.0,
        0.0,
        0.0,
        note,
    );
    r.cpu_pub_s = pub_frac;
    r.cpu_sub_s = sub_frac;
    r.duration_s = 1.0;
    r
}

/// The published rows of `experiment` (none for unknown names).
pub fn published(experiment: &str) -> Vec<Record> {
    const E1: &str = "E1 write-up: ROS 2 Dashing, Ultra96 ARM board";
    let vga = 921_600;
    match experiment {
        "e1-images" => {
            let mut v = vec![
                row(
                    "e1-images",
                    "ros2-dashing",
                    "dds raw",
                    "two processes",
                    vga,
                    33.3,
                    5975.0,
                    3.8e6f64.sqrt(),
                    E1,
                ),
                row(
                    "e1-images",
                    "ros2-dashing",
                    "dds jpeg q30",
                    "two processes",
                    vga,
                    33.3,
                    10_393.0,
                    0.0,
                    E1,
                ),
                row(
                    "e1-images",
                    "ros2-dashing",
                    "intra-process raw",
                    "one process",
                    vga,
                    33.3,
                    746.0,
                    0.0,
                    "E1; the 30 ms period stalled, run at 50 ms",
                ),
                row(
                    "e1-images",
                    "ros2-dashing",
                    "intra-process jpeg q30",
                    "one process",
                    vga,
                    33.3,
                    10_136.0,
                    0.0,
                    E1,
                ),
                row(
                    "e1-images",
                    "ros2-dashing",
                    "dds raw, intra-process off",
                    "one process",
                    vga,
                    33.3,
                    6494.0,
                    0.0,
                    E1,
                ),
            ];
            for r in &mut v {
                r.sent = 500;
                r.received = 500;
            }
            v
        }
        "e5-type-adapt" => vec![
            cpu(
                "two processes",
                "Image",
                0.20,
                0.22,
                "E5 write-up: ROS 2 Humble; fraction of a core",
            ),
            cpu(
                "one process, no intra-process",
                "Image (composed)",
                0.20,
                0.0,
                "E5: ~20% in all",
            ),
            cpu(
                "two processes",
                "adapted",
                0.20,
                0.60,
                "E5: type adaptation, separate processes",
            ),
            cpu(
                "one process, no intra-process",
                "adapted (composed)",
                0.60,
                0.0,
                "E5: ~60% in all",
            ),
            cpu(
                "one process",
                "adapted + intra-process",
                0.01,
                0.0,
                "E5: ~1%, the pointer is handed over",
            ),
        ],
        "latency" => vec![
            row(
                "latency",
                "iceoryx2",
                "shm poll ping-pong",
                "two threads, pinned",
                4096,
                0.0,
                0.095,
                0.0,
                "anchors §1a: mean 92–99 ns flat 64 B–4 MB, i7-13700H",
            ),
            row(
                "latency",
                "eCAL",
                "shm zero-copy",
                "two processes",
                1 << 20,
                0.0,
                3.0,
                0.0,
                "anchors §1a: mean 3 µs flat to 32 MB, Ubuntu 22.04",
            ),
            row(
                "latency",
                "cyclonedds+iceoryx",
                "loaned, 100 Hz",
                "two processes",
                4 << 20,
                100.0,
                211.0,
                0.0,
                "anchors §1a: PointCloud4m, Ryzen 5 5600X",
            ),
            row(
                "latency",
                "zenoh",
                "unix pipe, lowlatency",
                "two processes",
                64,
                0.0,
                7.0,
                0.0,
                "anchors §1a: p50 7 µs, Ryzen 7 5800X",
            ),
        ],
        _ => Vec::new(),
    }
}

/// Published findings without per-series numbers, as lines for the report.
pub fn findings(experiment: &str) -> Vec<String> {
    match experiment {
        "e3-laserscan" => vec!["published (E3, ROS 1 Kinetic / ROS 2 Ardent, i7-6950X): ROS 1 bunched messages of a few KB–tens of KB at 100 Hz (tens of ms latency and jitter; Nagle), cured by tcpNoDelay; ROS 2 lost 14 of 200 at 1 MB / 100 Hz.".into()],
        "e2-bridge" => vec!["published (E2, rosbridge): Noetic TCP 10.5 s send / 11.9 s receive; WebSocket Melodic 5.0 s / 15.5 s, Noetic 4.5 s / 6.1 s for 100,000 messages.".into()],
        "e4-python" => vec!["published (E4, ROS 2 Humble/Foxy, Jetson Orin): rclpy publish call ~6x rclcpp's; end-to-end ~3x.".into()],
        _ => Vec::new(),
    }
}
