//! A robot's sensor load for measuring tools (a recorder, `topic hz`): a
//! 1920x1080 RGB camera at 30 Hz on `/camera/image_raw` and a 1080-beam
//! LaserScan at 100 Hz on `/scan`, each stamped with the time it was taken,
//! for `--seconds`; then it prints what it sent (`sent images N scans M`).
//!
//! Frames are published by loan (`loan_message`): the pixels are written
//! straight into the shared-memory chunk another process reads, as a camera
//! driver would.
//!
//! ```text
//! cargo run -p hibari --release --example sensor_load -- --seconds 60
//! ```

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use hibari::msg::builtin_interfaces::msg::Time;
use hibari::msg::sensor_msgs::msg::{Image, LaserScan};
use hibari::{Context, QosProfile};

const WIDTH: u32 = 1920;
const HEIGHT: u32 = 1080;
const PIXELS: usize = (WIDTH * HEIGHT * 3) as usize;

fn now() -> Time {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    Time {
        sec: d.as_secs() as i32,
        nanosec: d.subsec_nanos(),
    }
}

fn main() {
    let mut seconds = 10.0f64;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--seconds" => {
                seconds = args
                    .next()
                    .and_then(|s| s.parse().ok())
                    .expect("--seconds takes a number")
            }
            other => panic!("unknown argument {other}: use --seconds N"),
        }
    }
    let context = Context::new().expect("a context");
    let node = context.create_node("sensor_load").expect("a node");
    let camera = node
        .create_publisher::<Image>("/camera/image_raw", QosProfile::default().keep_last(5))
        .expect("the camera publisher");
    let lidar = node
        .create_publisher::<LaserScan>("/scan", QosProfile::default())
        .expect("the scan publisher");
    // Let subscribers of other processes match before the first sample.
    std::thread::sleep(Duration::from_millis(500));
    let start = Instant::now();
    let end = start + Duration::from_secs_f64(seconds);
    let (mut images, mut scans) = (0u64, 0u64);
    let (frame_period, scan_period) = (Duration::from_nanos(33_333_333), Duration::from_millis(10));
    let (mut next_frame, mut next_scan) = (start, start);
    while Instant::now() < end {
        let due = next_frame.min(next_scan);
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        if Instant::now() >= next_scan {
            let mut scan = LaserScan {
                angle_min: -2.35,
                angle_max: 2.35,
                angle_increment: 4.7 / 1080.0,
                range_max: 30.0,
                ranges: (0..1080)
                    .map(|i| 1.0 + (i + scans as usize) as f32 * 1e-3)
                    .collect(),
                ..LaserScan::default()
            };
            scan.header.stamp = now();
            scan.header.frame_id = "laser".into();
            lidar.publish(scan).expect("publish a scan");
            scans += 1;
            next_scan += scan_period;
        }
        if Instant::now() >= next_frame {
            // Laid out in a loan: the pixels go straight into the chunk that
            // readers in other processes map (a driver's DMA copy would).
            let mut image = Image {
                height: HEIGHT,
                width: WIDTH,
                encoding: "rgb8".into(),
                step: WIDTH * 3,
                ..Image::default()
            };
            image.header.stamp = now();
            image.header.frame_id = "camera".into();
            let (mut loan, hole) = camera
                .loan_message(&image, "data", PIXELS)
                .expect("a loan for a frame");
            let pixels = &mut loan[hole];
            pixels.fill(0x80);
            // A frame differs from the last: it starts with its number.
            pixels[..8].copy_from_slice(&images.to_le_bytes());
            loan.send()
                .map_err(|e| e.to_string())
                .expect("publish a frame");
            images += 1;
            next_frame += frame_period;
        }
    }
    println!("sent images {images} scans {scans}");
    // Reliable readers finish taking what was sent before the process ends.
    std::thread::sleep(Duration::from_millis(500));
}
