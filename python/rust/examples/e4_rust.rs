//! The Rust side of `python/bench/e4.py` (EXPERIMENTS.md E4, in one
//! process): the time of the publish call and the end-to-end latency of a
//! `sensor_msgs/Image` of each size, printed as one JSON object per line.
//!
//! ```text
//! e4_rust [--sizes 1024,4194304] [--mode thread|same] [--iterations N]
//! ```
//!
//! Each iteration builds the message from the application's pixel buffer
//! (`pixels.clone()`: the one copy a Rust application makes, as Python's
//! publish makes one), publishes it, and waits for the callback before the
//! next (closed loop, no queueing). "publish" is the build and the call;
//! "e2e" ends at the first clock reading in the callback. In `thread` mode a
//! `SingleThreadedExecutor` spins on its own thread; in `same` mode the
//! publishing thread runs `spin_once` itself.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use hibari::msg::sensor_msgs::msg::Image;
use hibari::{Context, QosProfile, SingleThreadedExecutor};

const DEFAULT_SIZES: [usize; 8] = [
    1024, 4096, 16384, 65536, 262_144, 1_048_576, 4_194_304, 6_220_800,
];

fn iterations(size: usize) -> usize {
    (2_000_000_000 / size).clamp(200, 5000)
}

fn stats(mut v: Vec<f64>) -> String {
    v.sort_by(f64::total_cmp);
    let pct = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    format!(
        "{{\"mean\": {mean:.2}, \"p50\": {:.2}, \"p90\": {:.2}, \"p99\": {:.2}}}",
        pct(0.5),
        pct(0.9),
        pct(0.99)
    )
}

fn run(size: usize, mode: &str, n: usize) -> Result<String, Box<dyn std::error::Error>> {
    let context = Context::builder().isolated().create()?;
    let node = context.create_node("e4")?;
    let (tx, rx) = mpsc::channel::<Instant>();
    let _sub = node.create_subscription("/e4", QosProfile::default(), move |msg: Image| {
        let now = Instant::now();
        std::hint::black_box(msg.data.first());
        let _ = tx.send(now);
    })?;
    let publisher = node.create_publisher::<Image>("/e4", QosProfile::default())?;
    let executor = std::sync::Arc::new(SingleThreadedExecutor::new());
    executor.add_node(&node)?;
    let spinner = (mode == "thread").then(|| {
        let e = executor.clone();
        std::thread::spawn(move || e.spin())
    });
    let pixels = vec![7u8; size];
    let warmup = n / 10 + 5;
    let (mut publish, mut e2e) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for i in 0..warmup + n {
        let t0 = Instant::now();
        let image = Image {
            height: 1,
            width: size as u32,
            encoding: "mono8".into(),
            step: size as u32,
            data: pixels.clone(),
            ..Image::default()
        };
        publisher.publish(image)?;
        let t1 = Instant::now();
        if spinner.is_none() {
            executor.spin_once(Duration::from_secs(5));
        }
        let t2 = rx.recv_timeout(Duration::from_secs(5))?;
        if i >= warmup {
            publish.push((t1 - t0).as_secs_f64() * 1e6);
            e2e.push((t2 - t0).as_secs_f64() * 1e6);
        }
    }
    executor.cancel();
    if let Some(s) = spinner {
        let _ = s.join();
    }
    Ok(format!(
        "{{\"impl\": \"rust\", \"mode\": \"{mode}\", \"size\": {size}, \"n\": {n}, \"publish_us\": {}, \"e2e_us\": {}}}",
        stats(publish),
        stats(e2e)
    ))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let sizes: Vec<usize> = match value("--sizes") {
        Some(list) => list.split(',').map(str::parse).collect::<Result<_, _>>()?,
        None => DEFAULT_SIZES.to_vec(),
    };
    let modes = match value("--mode") {
        Some(m) => vec![m],
        None => vec!["thread".to_string(), "same".to_string()],
    };
    let fixed: Option<usize> = value("--iterations").map(|n| n.parse()).transpose()?;
    for mode in &modes {
        for &size in &sizes {
            println!(
                "{}",
                run(size, mode, fixed.unwrap_or_else(|| iterations(size)))?
            );
        }
    }
    Ok(())
}
