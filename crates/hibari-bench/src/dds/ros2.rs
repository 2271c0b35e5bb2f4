//! The ROS 2 series of the experiments other than `dds`: stock ROS 2 from
//! the Jazzy wheels, rclpy and the native rcl peer, measured in the same run
//! as hibari's series and beside them in every table.
//!
//! | experiment | ROS 2 series (rclpy and rcl unless said) |
//! |---|---|
//! | `e1-images` | 640x480 rgb8 `Image` every 30 ms, two processes and one; JPEG q30 (`CompressedImage`, encoded per message inside the latency, libjpeg-turbo) by the native peer only: the wheels carry no image codec for Python |
//! | `e3-laserscan` | `LaserScan` 10 … 100,000 ranges at 100 Hz and 10 Hz, two processes |
//! | `e4-python` | `Image` 1 KiB … 6.2 MB, two processes, open loop (100 Hz; 30 Hz at 6.2 MB): publish-call time and end-to-end, Python against native |
//! | `e5-type-adapt` | 1920x1080 rgb8 at 30 Hz, the subscriber compares nothing; CPU of each process, two processes and one |
//! | `latency` | 64 B … 8 MiB `Image` at 100 Hz and 1 kHz, two processes |
//! | `scale` | the native peer only: one publisher to 1, 2, 4, 8 subscriber processes, `Image` of 64 B at 100 Hz and 6.2 MB at 30 Hz; throughput (as fast as possible, 64 B and 6.2 MB, two processes); 10, 100, 1,000 topics of 64 B at 10 Hz each between two processes |
//!
//! "One process" is the peers' `both` role: two nodes in one context. rcl
//! has no intra-process path (rclcpp's is above rcl and not in the wheels),
//! so the sample still goes through Fast DDS, as the write-up's "composed,
//! without intra-process" set-up; the tables say so in the transport
//! column. Latency is receipt minus the message's due time, as for every
//! other open-loop series.

use super::{venv, DdsCell, Hosts, Payload, Side, Variant};
use crate::experiments::{count, scale_topics, Config, SCALE_SUBSCRIBERS};

/// The ROS 2 cells of `experiment`, and notes for what could not be planned
/// (no peers, no venv). Empty for experiments without ROS 2 series.
pub fn cells(experiment: &'static str, cfg: &Config) -> (Vec<DdsCell>, Vec<String>) {
    if !cfg.peers {
        return (Vec::new(), Vec::new());
    }
    if let Err(e) = venv(&cfg.repo) {
        return (Vec::new(), vec![format!("{experiment}: ROS 2: {e}")]);
    }
    let both = [Side::Rclpy, Side::Rcl];
    let cell = |side, hosts, payload, rate_hz, count: u64, variant| DdsCell {
        experiment,
        from: side,
        to: side,
        hosts,
        payload,
        rate_hz,
        count,
        warmup: (count / 10).clamp(2, 20),
        variant,
        subscribers: 1,
        topics: None,
    };
    let mut cells = Vec::new();
    let mut notes = Vec::new();
    match experiment {
        "e1-images" => {
            let n = count(cfg, 500, 60);
            for hosts in [Hosts::One, Hosts::Process] {
                for side in both {
                    let raw = Payload::Rgb(640, 480);
                    cells.push(cell(side, hosts, raw, 1000.0 / 30.0, n, Variant::Defaults));
                }
                let jpeg = Payload::Jpeg(640, 480, 30);
                cells.push(cell(
                    Side::Rcl,
                    hosts,
                    jpeg,
                    1000.0 / 30.0,
                    n,
                    Variant::Defaults,
                ));
            }
            notes.push(
                "e1-images: ROS 2 JPEG by the native peer only (the ROS 2 wheels carry no image \
                 codec for rclpy)"
                    .into(),
            );
        }
        "e3-laserscan" => {
            let ranges: &[u32] = if cfg.quick {
                &[10, 1000, 100_000]
            } else {
                &[10, 100, 1000, 10_000, 100_000]
            };
            for rate in [100.0, 10.0] {
                let n = if rate > 50.0 {
                    count(cfg, 200, 60)
                } else {
                    count(cfg, 200, 12)
                };
                for &r in ranges {
                    for side in both {
                        let laser = Payload::Laser(r);
                        cells.push(cell(side, Hosts::One, laser, rate, n, Variant::Defaults));
                    }
                }
            }
        }
        "e4-python" => {
            for size in [1024, 65_536, 1 << 20, 6_220_800] {
                let rate = if size > 1 << 20 { 30.0 } else { 100.0 };
                let n = count(cfg, 300, 45);
                for side in both {
                    let image = Payload::Image(size);
                    cells.push(cell(side, Hosts::One, image, rate, n, Variant::Defaults));
                }
            }
        }
        "e5-type-adapt" => {
            let n = count(cfg, 300, 60);
            for hosts in [Hosts::One, Hosts::Process] {
                for side in both {
                    let frame = Payload::Rgb(1920, 1080);
                    cells.push(cell(side, hosts, frame, 30.0, n, Variant::NoCheck));
                }
            }
        }
        "scale" => {
            for (size, rate, n) in [
                (64, 100.0, count(cfg, 300, 30)),
                (6_220_800, 30.0, count(cfg, 150, 15)),
            ] {
                for subscribers in SCALE_SUBSCRIBERS {
                    let image = Payload::Image(size);
                    let mut c = cell(Side::Rcl, Hosts::One, image, rate, n, Variant::Defaults);
                    c.subscribers = subscribers as u64;
                    cells.push(c);
                }
            }
            // Throughput: as fast as possible, reliable keep-all.
            for (size, n) in [
                (64, count(cfg, 200_000, 20_000)),
                (6_220_800, count(cfg, 60, 15)),
            ] {
                let image = Payload::Image(size);
                cells.push(cell(
                    Side::Rcl,
                    Hosts::One,
                    image,
                    0.0,
                    n,
                    Variant::Defaults,
                ));
            }
            for topics in scale_topics(cfg) {
                let image = Payload::Image(64);
                let n = count(cfg, 100, 20);
                let mut c = cell(Side::Rcl, Hosts::One, image, 10.0, n, Variant::Defaults);
                c.topics = Some(topics as u64);
                c.warmup = 2;
                cells.push(c);
            }
        }
        "latency" => {
            let sizes: &[u64] = if cfg.quick {
                &[64, 65_536, 1 << 20, 8 << 20]
            } else {
                &[64, 4096, 65_536, 1 << 20, 4 << 20, 8 << 20]
            };
            for &size in sizes {
                for (rate, n) in [
                    (100.0, count(cfg, 300, 30)),
                    (1000.0, count(cfg, 2000, 300)),
                ] {
                    for side in both {
                        let image = Payload::Image(size);
                        cells.push(cell(side, Hosts::One, image, rate, n, Variant::Defaults));
                    }
                }
            }
        }
        _ => {}
    }
    (cells, notes)
}
