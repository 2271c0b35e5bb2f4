//! The messages of the experiments and how a stamp travels in them.
//!
//! Every message carries the **intended** send time (`CLOCK_MONOTONIC`, ns)
//! written by the publisher before anything else is done to it (before the
//! JPEG encoding, before the copy of the frame): in `header.stamp` for
//! images and scans, in the first 8 bytes for byte arrays. The subscriber
//! reads the clock first thing in its callback, so latency = receive −
//! intended, coordinated omission included.
//!
//! The message types live in `workload/message.rs` and are re-exported
//! here; this module publishes and subscribes them.

use std::sync::{Arc, Mutex};

use hibari::msg::sensor_msgs::msg::{CompressedImage, Image, LaserScan};
use hibari::msg::std_msgs::msg::UInt8MultiArray;
use hibari::{Node, Publisher, QosProfile, SampleInfo, SubscriptionOptions, TypeAdapter};

use crate::clock::{mono_ns, sleep_until, Pacer, Usage};

mod message;

use message::header;
pub use message::{Kind, RgbAdapter, RgbFrame, Stamped};

/// What a subscription saw: `(sequence, latency ns)` of every measured
/// message, and the CPU/context-switch snapshot at the first one.
#[derive(Debug, Default)]
pub struct Collector {
    warmup: u64,
    inner: Mutex<Collected>,
}

/// The contents of a [`Collector`].
#[derive(Debug, Default, Clone)]
pub struct Collected {
    /// `(key, latency ns)` in arrival order: the key is the sequence
    /// number (with several topics, `sequence × topics + topic`).
    pub samples: Vec<(u64, u64)>,
    /// Usage of the subscriber (thread or process) at the first measured message.
    pub first: Option<Usage>,
}

impl Collector {
    /// Messages with a sequence number ≤ `warmup` are not measured.
    pub fn new(warmup: u64) -> Arc<Collector> {
        Arc::new(Collector {
            warmup,
            inner: Mutex::default(),
        })
    }

    /// Records a sample whose key is `key` (its sequence number, or with
    /// several topics one that tells their samples apart).
    fn record(&self, info: &SampleInfo, key: u64, latency_ns: u64, per_process: bool) {
        if info.sequence <= self.warmup {
            return;
        }
        let mut c = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if c.first.is_none() {
            c.first = Some(if per_process {
                Usage::process()
            } else {
                Usage::thread()
            });
        }
        c.samples.push((key, latency_ns));
    }

    /// Measured samples collected so far.
    pub fn len(&self) -> usize {
        self.inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .samples
            .len()
    }

    /// Whether no measured sample came yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What was collected so far.
    pub fn take(&self) -> Collected {
        std::mem::take(&mut *self.inner.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

/// Keeps a subscription alive.
pub type Held = Box<dyn std::any::Any + Send>;

/// The QoS of every series: reliable, keep last `depth`.
pub fn qos(depth: usize) -> QosProfile {
    QosProfile::default().reliable().keep_last(depth)
}

/// One topic of several (`index` of `of`): its samples' keys tell them
/// apart from the other topics' (same sequence numbers).
#[derive(Debug, Clone, Copy)]
struct Lane {
    index: u64,
    of: u64,
}

/// Subscribes `node` to `topic` for `kind`, recording into `collector` under
/// `lane`'s keys. `per_process`: take the CPU snapshot of the process, not
/// the thread.
fn subscribe_lane(
    node: &Node,
    topic: &str,
    kind: Kind,
    depth: usize,
    c: Arc<Collector>,
    per_process: bool,
    lane: Lane,
) -> Result<Held, hibari::SubscriptionCreateError> {
    fn sub<A: TypeAdapter>(
        node: &Node,
        topic: &str,
        depth: usize,
        record: impl FnMut(&A::Custom, &SampleInfo) + Send + 'static,
    ) -> Result<Held, hibari::SubscriptionCreateError> {
        let options = SubscriptionOptions::new(qos(depth)).adapter::<A>();
        Ok(Box::new(node.create_subscription(topic, options, record)?))
    }
    // A message type as a user subscribes to it (no adapter): the borrowed
    // callback gets the message the subscription decodes each sample into,
    // its buffers reused.
    fn msg<M: hibari::Message>(
        node: &Node,
        topic: &str,
        depth: usize,
        record: impl FnMut(&M, &SampleInfo) + Send + 'static,
    ) -> Result<Held, hibari::SubscriptionCreateError> {
        Ok(Box::new(node.create_subscription(
            topic,
            qos(depth),
            record,
        )?))
    }
    // Records a stamped message's latency under `lane`'s keys.
    fn recorder<T: Stamped>(
        c: Arc<Collector>,
        per_process: bool,
        lane: Lane,
    ) -> impl FnMut(&T, &SampleInfo) + Send + 'static {
        move |m, info| {
            let now = mono_ns();
            let key = info.sequence * lane.of + lane.index;
            c.record(info, key, now.saturating_sub(m.stamp_ns()), per_process);
        }
    }
    match kind {
        // The zero-copy path end to end, as the transport API's series:
        // written in a loan, read in place through a view.
        Kind::BytesLoan { .. } => {
            let s = node.create_view_subscription::<UInt8MultiArray, _>(
                topic,
                qos(depth),
                move |view, info| {
                    let now = mono_ns();
                    let key = info.sequence * lane.of + lane.index;
                    let head = view.data.as_bytes().array::<8>(0).unwrap_or_default();
                    let stamp = u64::from_le_bytes(head);
                    c.record(info, key, now.saturating_sub(stamp), per_process);
                },
            )?;
            Ok(Box::new(s))
        }
        Kind::Image { .. } => msg::<Image>(node, topic, depth, recorder(c, per_process, lane)),
        Kind::Jpeg { .. } => {
            msg::<CompressedImage>(node, topic, depth, recorder(c, per_process, lane))
        }
        Kind::Adapted { .. } => {
            sub::<RgbAdapter>(node, topic, depth, recorder(c, per_process, lane))
        }
        Kind::Laser { .. } => msg::<LaserScan>(node, topic, depth, recorder(c, per_process, lane)),
        Kind::Bytes { .. } | Kind::BytesReused { .. } => {
            msg::<UInt8MultiArray>(node, topic, depth, recorder(c, per_process, lane))
        }
    }
}

/// The name of topic `i` of a series on `topics` topics named after `base`
/// (`base` itself when there is one).
pub fn lane_topic(base: &str, i: usize, topics: usize) -> String {
    if topics <= 1 {
        base.to_owned()
    } else {
        format!("{base}/t{i}")
    }
}

/// Subscribes to every topic of a series on `topics` topics (see
/// [`lane_topic`]).
pub fn subscribe_topics(
    node: &Node,
    base: &str,
    kind: Kind,
    depth: usize,
    collector: Arc<Collector>,
    per_process: bool,
    topics: usize,
) -> Result<Vec<Held>, hibari::SubscriptionCreateError> {
    let of = topics.max(1) as u64;
    (0..topics.max(1))
        .map(|i| {
            let lane = Lane {
                index: i as u64,
                of,
            };
            let topic = lane_topic(base, i, topics);
            subscribe_lane(
                node,
                &topic,
                kind,
                depth,
                collector.clone(),
                per_process,
                lane,
            )
        })
        .collect()
}

/// Why a series could not be published.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PublishRunError {
    /// The publisher could not be created.
    #[error("create the publisher: {0}")]
    Create(#[from] hibari::PublisherCreateError),
    /// No subscriber matched in time.
    #[error("no subscriber matched `{0}` within 10 s")]
    NoSubscriber(String),
    /// A publish call failed.
    #[error("publish: {0}")]
    Publish(String),
}

/// What the publisher did: measured messages sent and its usage over them.
#[derive(Debug, Clone, Copy, Default)]
pub struct Published {
    /// Measured messages sent.
    pub sent: u64,
    /// Publisher usage from the first measured message to the last.
    pub usage: Usage,
    /// Seconds from the first measured message to the last.
    pub seconds: f64,
    /// The encoded frames of a JPEG series (`None` for other kinds).
    pub jpeg: Option<JpegFrames>,
}

/// What a JPEG series' publisher encoded.
#[derive(Debug, Clone, Copy)]
pub struct JpegFrames {
    /// Mean size of the encoded frames.
    pub bytes_mean: f64,
    /// The encoder ([`hibari_bench_ipc::FrameEncoder::name`]).
    pub encoder: &'static str,
}

/// The schedule of a series.
#[derive(Debug, Clone, Copy)]
pub struct Schedule {
    /// Messages per second; 0 = as fast as possible.
    pub rate_hz: f64,
    /// Messages sent first and not measured.
    pub warmup: u64,
    /// Measured messages.
    pub count: u64,
    /// Subscriptions to wait for before publishing (at least 1).
    pub subscribers: usize,
    /// Topics (at least 1), each with its own publisher and subscription:
    /// `rate_hz`, `warmup` and `count` are per topic, and the publisher
    /// sends on them in turn (see [`lane_topic`]). Byte arrays only.
    pub topics: usize,
}

/// Publishes `kind` on `topic` on the open-loop schedule once a subscriber
/// matched. `per_process`: measure the process's usage, not the thread's.
pub fn publish(
    node: &Node,
    topic: &str,
    kind: Kind,
    depth: usize,
    schedule: Schedule,
    per_process: bool,
) -> Result<Published, PublishRunError> {
    let rgb = |w: u32, h: u32| -> Vec<u8> {
        (0..(w as usize * h as usize * 3))
            .map(|i| (i % 251) as u8)
            .collect()
    };
    if schedule.topics > 1 {
        let Kind::Bytes { size } = kind else {
            return Err(PublishRunError::Publish(
                "several topics are published as byte arrays only".into(),
            ));
        };
        return publish_topics(node, topic, size, depth, schedule, per_process);
    }
    match kind {
        Kind::Image { width, height } => {
            let pixels = rgb(width, height);
            let p = node.create_publisher::<Image>(topic, qos(depth))?;
            run(&p, topic, schedule, per_process, |t| {
                RgbAdapter::into_ros(RgbFrame {
                    stamp_ns: t,
                    width,
                    height,
                    pixels: pixels.clone(),
                })
            })
        }
        Kind::Adapted { width, height } => {
            let pixels = rgb(width, height);
            let p = node.create_publisher::<RgbAdapter>(topic, qos(depth))?;
            run(&p, topic, schedule, per_process, |t| RgbFrame {
                stamp_ns: t,
                width,
                height,
                pixels: pixels.clone(),
            })
        }
        Kind::Jpeg {
            width,
            height,
            quality,
        } => {
            let pixels = rgb(width, height);
            let p = node.create_publisher::<CompressedImage>(topic, qos(depth))?;
            let (mut bytes, mut frames) = (0u64, 0u64);
            let mut encoder = hibari_bench_ipc::FrameEncoder::new();
            let name = encoder.name();
            let published = run(&p, topic, schedule, per_process, |t| {
                let mut data = Vec::with_capacity(pixels.len() / 8);
                // Encoding a well-formed rgb8 frame cannot fail; an empty
                // message would show up as a tiny size in the record.
                let _ = encoder.encode(&pixels, width as u16, height as u16, quality, &mut data);
                (bytes, frames) = (bytes + data.len() as u64, frames + 1);
                CompressedImage {
                    header: header(t),
                    format: "jpeg".into(),
                    data,
                }
            });
            published.map(|p| Published {
                jpeg: Some(JpegFrames {
                    bytes_mean: bytes as f64 / frames.max(1) as f64,
                    encoder: name,
                }),
                ..p
            })
        }
        Kind::Laser { ranges } => {
            let p = node.create_publisher::<LaserScan>(topic, qos(depth))?;
            let r: Vec<f32> = (0..ranges).map(|i| 1.0 + (i % 100) as f32 * 0.01).collect();
            run(&p, topic, schedule, per_process, |t| LaserScan {
                header: header(t),
                angle_min: -std::f32::consts::PI,
                angle_max: std::f32::consts::PI,
                angle_increment: std::f32::consts::TAU / ranges.max(1) as f32,
                range_max: 30.0,
                ranges: r.clone(),
                ..LaserScan::default()
            })
        }
        Kind::Bytes { size } => {
            let p = node.create_publisher::<UInt8MultiArray>(topic, qos(depth))?;
            let base = vec![0x5au8; (size as usize).max(16)];
            run(&p, topic, schedule, per_process, |t| {
                let mut data = base.clone();
                data[..8].copy_from_slice(&t.to_le_bytes());
                UInt8MultiArray {
                    data,
                    ..UInt8MultiArray::default()
                }
            })
        }
        Kind::BytesLoan { size } => {
            let p = node.create_publisher::<UInt8MultiArray>(topic, qos(depth))?;
            let len = (size as usize).max(16);
            let template = UInt8MultiArray::default();
            let failed = |e: &dyn std::fmt::Display| PublishRunError::Publish(e.to_string());
            run_sends(&p, topic, schedule, per_process, |p, t| {
                let (mut lent, hole) = p
                    .loan_message(&template, "data", len)
                    .map_err(|e| failed(&e))?;
                // Every byte written in place, as the transport API's series
                // writes its loan (a copy from another buffer would read as
                // many bytes again).
                let data = &mut lent[hole];
                data.fill(0x5a);
                data[..8].copy_from_slice(&t.to_le_bytes());
                lent.send().map_err(|e| failed(&e.into_reason()))
            })
        }
        Kind::BytesReused { size } => {
            let p = node.create_publisher::<UInt8MultiArray>(topic, qos(depth))?;
            let mut kept = UInt8MultiArray {
                data: vec![0x5au8; (size as usize).max(16)],
                ..UInt8MultiArray::default()
            };
            run_sends(&p, topic, schedule, per_process, |p, t| {
                kept.data[..8].copy_from_slice(&t.to_le_bytes());
                p.publish_ref(&kept)
                    .map_err(|e| PublishRunError::Publish(e.to_string()))
            })
        }
    }
}

/// [`publish`] on `schedule.topics` topics: one publisher each, sent in
/// turn on one schedule of `topics × rate_hz` messages per second.
fn publish_topics(
    node: &Node,
    base: &str,
    size: u32,
    depth: usize,
    s: Schedule,
    per_process: bool,
) -> Result<Published, PublishRunError> {
    let n = s.topics as u64;
    let publishers = (0..s.topics)
        .map(|i| {
            node.create_publisher::<UInt8MultiArray>(&lane_topic(base, i, s.topics), qos(depth))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    for (i, p) in publishers.iter().enumerate() {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if !p.wait_for_subscribers(s.subscribers.max(1), left) {
            return Err(PublishRunError::NoSubscriber(lane_topic(base, i, s.topics)));
        }
    }
    std::thread::sleep(std::time::Duration::from_millis(100)); // discovery settles
    let usage = || usage_of(per_process);
    let mut data = vec![0x5au8; (size as usize).max(16)];
    // Sleeps to each due time, never spins (`sleep_until`): a spin would
    // count a core in the publisher's CPU and take it from the subscriber
    // on two cores. The ROS 2 peer sleeps the same way (`clock_nanosleep`).
    let period_ns = match s.rate_hz > 0.0 {
        true => (1e9 / (s.rate_hz * n as f64)) as u64,
        false => 0, // as fast as possible
    };
    let start = mono_ns() + period_ns;
    let (mut first, mut t_first) = (Usage::default(), 0);
    for k in 0..(s.warmup + s.count) * n {
        if k == s.warmup * n {
            first = usage();
            t_first = mono_ns();
        }
        let t = sleep_until(start + k * period_ns);
        data[..8].copy_from_slice(&t.to_le_bytes());
        let message = UInt8MultiArray {
            data: data.clone(),
            ..UInt8MultiArray::default()
        };
        publishers[(k % n) as usize]
            .publish(message)
            .map_err(|e| PublishRunError::Publish(e.to_string()))?;
    }
    Ok(Published {
        sent: s.count * n,
        usage: usage().since(&first),
        seconds: (mono_ns() - t_first) as f64 / 1e9,
        jpeg: None,
    })
}

/// The process's usage, or this thread's.
fn usage_of(per_process: bool) -> Usage {
    match per_process {
        true => Usage::process(),
        false => Usage::thread(),
    }
}

fn run<A: TypeAdapter>(
    p: &Publisher<A>,
    topic: &str,
    s: Schedule,
    per_process: bool,
    mut make: impl FnMut(u64) -> A::Custom,
) -> Result<Published, PublishRunError> {
    run_sends(p, topic, s, per_process, |p, t| {
        p.publish(make(t))
            .map_err(|e| PublishRunError::Publish(e.to_string()))
    })
}

/// The open-loop schedule: waits for the subscribers, then `send(p, t)`
/// each message at its time `t`, measuring the usage over the measured ones.
fn run_sends<A: TypeAdapter>(
    p: &Publisher<A>,
    topic: &str,
    s: Schedule,
    per_process: bool,
    mut send: impl FnMut(&Publisher<A>, u64) -> Result<(), PublishRunError>,
) -> Result<Published, PublishRunError> {
    if !p.wait_for_subscribers(s.subscribers.max(1), std::time::Duration::from_secs(10)) {
        return Err(PublishRunError::NoSubscriber(topic.into()));
    }
    std::thread::sleep(std::time::Duration::from_millis(100)); // discovery settles
    let usage = || usage_of(per_process);
    let pacer = Pacer::new(s.rate_hz);
    let (mut first, mut t_first) = (Usage::default(), 0);
    for k in 0..s.warmup + s.count {
        if k == s.warmup {
            first = usage();
            t_first = mono_ns();
        }
        let t = pacer.wait(k);
        send(p, t)?;
    }
    Ok(Published {
        sent: s.count,
        usage: usage().since(&first),
        seconds: (mono_ns() - t_first) as f64 / 1e9,
        jpeg: None,
    })
}
