//! In-process publish → callback latency when publisher and subscriber are
//! spun by the same executor thread — the common pipeline of nodes composed
//! in one process (a driver's timer publishes, a consumer's subscription
//! takes) — so no thread has to be woken.
//!
//! ```text
//! cargo bench -p hibari --bench inproc_same_thread            # 20,000 messages per size
//! cargo bench -p hibari --bench inproc_same_thread -- --quick # 2,000
//! ```
//!
//! A 1 kHz timer callback takes a pre-made message from a pool (no
//! allocation of the payload, pixels written once before the run), reads the
//! monotonic clock and publishes; the subscription's `FnMut(M)` callback reads
//! the clock first thing, checks the buffer is the published one (a move, not
//! a copy) and returns it to the pool. Latency = the two readings' difference:
//! the publish (payload cell, queue push), the executor finding the
//! subscription ready, the take and the move out. Warm-up: 200 messages.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use hibari::msg::sensor_msgs::msg::Image;
use hibari::msg::std_msgs::msg::UInt8MultiArray;
use hibari::{Context, Message, QosProfile, SingleThreadedExecutor};

trait Buffer: Message {
    fn make(size: usize) -> Self;
    fn addr(&self) -> usize;
}

impl Buffer for UInt8MultiArray {
    fn make(size: usize) -> Self {
        UInt8MultiArray {
            data: vec![7; size],
            ..Default::default()
        }
    }
    fn addr(&self) -> usize {
        self.data.as_ptr() as usize
    }
}

impl Buffer for Image {
    fn make(size: usize) -> Self {
        Image {
            height: 1080,
            width: 1920,
            encoding: "rgb8".into(),
            step: 1920 * 3,
            data: vec![7; size],
            ..Default::default()
        }
    }
    fn addr(&self) -> usize {
        self.data.as_ptr() as usize
    }
}

struct Shared<M> {
    pool: Vec<M>,
    sent_at: Option<Instant>,
    addr: usize,
    hist: Histogram<u64>,
    copies: usize,
    seen: usize,
}

fn measure<M: Buffer>(label: &str, size: usize, messages: usize) {
    let ctx = Context::builder().isolated().create().expect("context");
    let node = ctx.create_node("pipeline").expect("node");
    let warmup = 200;
    let shared = Arc::new(Mutex::new(Shared::<M> {
        pool: (0..8).map(|_| M::make(size)).collect(),
        sent_at: None,
        addr: 0,
        hist: Histogram::new_with_bounds(1, 60_000_000_000, 3).expect("histogram"),
        copies: 0,
        seen: 0,
    }));
    let publisher = node
        .create_publisher::<M>("/frames", QosProfile::default())
        .expect("publisher");
    let sent = Arc::new(AtomicUsize::new(0));
    let (s, n) = (shared.clone(), sent.clone());
    let _timer = node
        .create_timer(Duration::from_millis(1), move || {
            if n.load(Ordering::Relaxed) >= messages + warmup {
                return;
            }
            let msg = {
                let mut g = s.lock().unwrap();
                let msg = g.pool.pop().expect("the pool never runs dry");
                g.addr = msg.addr();
                g.sent_at = Some(Instant::now());
                msg
            };
            n.fetch_add(1, Ordering::Relaxed);
            publisher.publish(msg).expect("publish");
        })
        .expect("timer");
    let s = shared.clone();
    let _sub = node
        .create_subscription("/frames", QosProfile::default(), move |msg: M| {
            let now = Instant::now();
            let mut g = s.lock().unwrap();
            g.seen += 1;
            if g.seen > warmup {
                let ns = now.duration_since(g.sent_at.expect("stamped")).as_nanos() as u64;
                g.hist.record(ns.max(1)).expect("in range");
                if msg.addr() != g.addr {
                    g.copies += 1;
                }
            }
            g.pool.push(msg);
        })
        .expect("subscription");
    let exec = SingleThreadedExecutor::new();
    exec.add_node(&node).expect("add node");
    let s = shared.clone();
    exec.spin_until(
        move || s.lock().unwrap().seen >= messages + warmup,
        Duration::from_secs(600),
    );
    let g = shared.lock().unwrap();
    let us = |q: f64| g.hist.value_at_quantile(q) as f64 / 1000.0;
    println!(
        "| {label:<22} | {size:>9} | {:>6} | {:>6.2} | {:>6.2} | {:>6.2} | {:>7.2} | {:>8.2} | {:>6} |",
        g.hist.len(),
        us(0.5),
        us(0.9),
        us(0.99),
        us(0.999),
        g.hist.max() as f64 / 1000.0,
        g.copies
    );
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let n = if quick { 2_000 } else { 20_000 };
    println!("same executor thread, publish in a 1 kHz timer callback → subscription callback; µs");
    println!("| message                | bytes     | n      | p50    | p90    | p99    | p99.9   | max      | copies |");
    println!("|---|---|---|---|---|---|---|---|---|");
    measure::<UInt8MultiArray>("UInt8MultiArray 64 B", 64, n);
    measure::<Image>("Image 1920x1080 rgb8", 1920 * 1080 * 3, n);
}
