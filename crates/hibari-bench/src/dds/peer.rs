//! The hibari side of the `dds` experiment: `hibari bench --dds-peer "ROLE"`,
//! one process on hibari's public API (a [`Context`] from the environment:
//! `ROS_DOMAIN_ID`, `HIBARI_TRANSPORT`), speaking the line protocol of the
//! rclpy peer (`peers/ros2/rclpy_peer.py`), so either side of a cell can be
//! hibari or rclpy:
//!
//! ```text
//! pub TOPIC image:BYTES COUNT HZ   READY, MATCHED, DONE sent=n cpu_ns=… vcsw=… ivcsw=…
//! sub TOPIC image:BYTES COUNT      READY, RECV seq=i bytes=n exact=0|1 lat_us=t …,
//!                                  DONE received=n exact=n cpu_ns=… vcsw=… ivcsw=…
//! ```
//!
//! Image `i` (`sensor_msgs/Image`, mono8 BYTES x 1, or rgb8 1920x1080 for
//! 6,220,800 bytes) carries `frame_id` "i" and the pixels of [`frame`]; it
//! is built before its due time `start + (i − 1) / HZ`, stamped with that due
//! time (`CLOCK_REALTIME`) and published at it, so a late publisher shows as
//! latency. QoS: reliable, keep all, volatile. The publisher's usage runs from
//! MATCHED to DONE, the subscriber's from its first sample to DONE.

use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use hibari::msg::sensor_msgs::msg::Image;
use hibari::{Context, Node, PublishError, QosProfile, SampleInfo, SingleThreadedExecutor};

use crate::clock::Usage;

/// 1920 x 1080 rgb8.
const FULL_HD: usize = 1920 * 1080 * 3;
/// The largest image a role may ask for (the base pattern is allocated up
/// front): 256 MiB.
const MAX_IMAGE: usize = 256 << 20;
/// A prime: rotating by 7919 never lines the pattern up with itself again.
const BLOCK: usize = 65_521;

/// Why the peer stopped early.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PeerError {
    /// The role line is not `pub TOPIC image:N COUNT HZ` or `sub TOPIC
    /// image:N COUNT` (N in 1..=256 MiB, HZ a positive finite rate).
    #[error("not a role: {0:?}")]
    Role(String),
    /// The context, node or endpoint could not be made.
    #[error("set up: {0}")]
    Setup(String),
    /// A wait ran past `NETNS_PEER_TIMEOUT`.
    #[error("timed out {0}")]
    Timeout(&'static str),
}

/// `size` bytes of a fixed pseudo-random block, as the rclpy peer's `base`.
fn base(size: usize) -> Vec<u8> {
    let mut x: u32 = 1;
    let mut block = [0u8; BLOCK];
    for b in block.iter_mut() {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345) & 0x7fff_ffff;
        *b = (x >> 16) as u8;
    }
    block.iter().copied().cycle().take(size).collect()
}

/// Where image `i`'s pixels start in `base`: they are `base` rotated left
/// by `i * 7919`.
fn rotation(base: &[u8], i: u64) -> usize {
    (i as usize).wrapping_mul(7919) % base.len().max(1)
}

/// Image `i`'s pixels.
fn frame(base: &[u8], i: u64) -> Vec<u8> {
    let off = rotation(base, i);
    [&base[off..], &base[..off]].concat()
}

/// Whether `data` are image `i`'s pixels, compared in place (no copy of a
/// frame per received image).
fn is_frame(base: &[u8], i: u64, data: &[u8]) -> bool {
    let off = rotation(base, i);
    let (head, tail) = (&base[off..], &base[..off]);
    data.len() == base.len() && data[..head.len()] == *head && data[head.len()..] == *tail
}

fn realtime_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

fn say(line: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

fn usage_words(u: &Usage) -> String {
    format!(
        "cpu_ns={} vcsw={} ivcsw={}",
        u.cpu_ns, u.voluntary, u.involuntary
    )
}

/// A parsed role line.
enum Role<'a> {
    Pub {
        topic: &'a str,
        size: usize,
        count: u64,
        hz: f64,
    },
    Sub {
        topic: &'a str,
        size: usize,
        count: u64,
    },
}

fn parse(role: &str) -> Option<Role<'_>> {
    let words: Vec<&str> = role.split_whitespace().collect();
    let size = |k: &str| {
        k.strip_prefix("image:")
            .and_then(|n| n.parse().ok())
            .filter(|&n| (1..=MAX_IMAGE).contains(&n))
    };
    match words[..] {
        ["pub", topic, kind, count, hz] => Some(Role::Pub {
            topic,
            size: size(kind)?,
            count: count.parse().ok()?,
            hz: hz
                .parse()
                .ok()
                .filter(|h: &f64| h.is_finite() && *h > 0.0)?,
        }),
        ["sub", topic, kind, count] => Some(Role::Sub {
            topic,
            size: size(kind)?,
            count: count.parse().ok()?,
        }),
        _ => None,
    }
}

/// Runs `role` (see the module docs) until done. `NETNS_PEER_TIMEOUT`
/// (seconds, default 60; at most a day) bounds every wait.
pub fn peer_main(role: &str) -> Result<(), PeerError> {
    let parsed = parse(role).ok_or_else(|| PeerError::Role(role.to_string()))?;
    let timeout = std::env::var("NETNS_PEER_TIMEOUT")
        .ok()
        .and_then(|t| t.parse().ok())
        .filter(|t: &f64| t.is_finite() && (0.0..=86_400.0).contains(t))
        .unwrap_or(60.0);
    let deadline = Instant::now() + Duration::from_secs_f64(timeout);
    let setup = |e: &dyn std::fmt::Display| PeerError::Setup(e.to_string());
    let context = Context::new().map_err(|e| setup(&e))?;
    let name = match parsed {
        Role::Pub { .. } => "bench_dds_pub",
        Role::Sub { .. } => "bench_dds_sub",
    };
    let node = context.create_node(name).map_err(|e| setup(&e))?;
    match parsed {
        Role::Pub {
            topic,
            size,
            count,
            hz,
        } => publish(&node, topic, size, count, hz, deadline),
        Role::Sub { topic, size, count } => subscribe(&node, topic, size, count, deadline),
    }
}

fn qos() -> QosProfile {
    QosProfile::default().reliable().keep_all()
}

fn image(size: usize, i: u64, data: Vec<u8>) -> Image {
    let (height, width, encoding, step) = match size {
        FULL_HD => (1080, 1920, "rgb8", 5760),
        _ => (1, size as u32, "mono8", size as u32),
    };
    let mut m = Image {
        height,
        width,
        encoding: encoding.into(),
        step,
        data,
        ..Image::default()
    };
    m.header.frame_id = i.to_string();
    m
}

fn publish(
    node: &Node,
    topic: &str,
    size: usize,
    count: u64,
    hz: f64,
    deadline: Instant,
) -> Result<(), PeerError> {
    let p = node
        .create_publisher::<Image>(topic, qos())
        .map_err(|e| PeerError::Setup(e.to_string()))?;
    let base = base(size);
    say("READY");
    while p.matched_subscriptions() == 0 {
        if Instant::now() > deadline {
            return Err(PeerError::Timeout("waiting for a subscriber"));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    say("MATCHED");
    let before = Usage::process();
    let (start, start_rt) = (Instant::now(), realtime_ns());
    let period = 1e9 / hz;
    for i in 1..=count {
        let mut m = image(size, i, frame(&base, i));
        let due = ((i - 1) as f64 * period) as u64;
        std::thread::sleep(
            (start + Duration::from_nanos(due)).saturating_duration_since(Instant::now()),
        );
        let stamp = start_rt + due;
        m.header.stamp.sec = (stamp / 1_000_000_000) as i32;
        m.header.stamp.nanosec = (stamp % 1_000_000_000) as u32;
        // Keep all: a full window makes the publish wait; it must get through.
        loop {
            match p.publish(m) {
                Ok(()) => break,
                Err(PublishError::Timeout { message, .. } | PublishError::Full { message })
                    if Instant::now() < deadline =>
                {
                    m = message
                }
                Err(_) => return Err(PeerError::Timeout("publishing")),
            }
        }
    }
    let used = Usage::process().since(&before);
    say(&format!("DONE sent={count} {}", usage_words(&used)));
    // Stay until killed (or the deadline), so repairs of the last samples happen.
    std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
    Ok(())
}

fn subscribe(
    node: &Node,
    topic: &str,
    size: usize,
    count: u64,
    deadline: Instant,
) -> Result<(), PeerError> {
    // The callback checks the bytes (what the rclpy peer does too) and hands
    // the figures over: no copy of the image leaves it.
    let base = base(size);
    let (tx, rx) = mpsc::channel::<(u64, u64, usize, bool, u64)>();
    let _sub = node
        .create_subscription(topic, qos(), move |m: &Image, _: &SampleInfo| {
            let now = realtime_ns();
            let seq: u64 = m.header.frame_id.parse().unwrap_or(0);
            let ok = seq > 0 && is_frame(&base, seq, &m.data);
            let stamp =
                m.header.stamp.sec as u64 * 1_000_000_000 + u64::from(m.header.stamp.nanosec);
            let _ = tx.send((now, seq, m.data.len(), ok, stamp));
        })
        .map_err(|e| PeerError::Setup(e.to_string()))?;
    let executor = std::sync::Arc::new(SingleThreadedExecutor::new());
    executor
        .add_node(node)
        .map_err(|e| PeerError::Setup(e.to_string()))?;
    // The spin asks `stop` too: a cancel before it starts is forgotten.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (ex, stopped) = (executor.clone(), stop.clone());
    let spinner = std::thread::spawn(move || {
        ex.spin_until(
            || stopped.load(std::sync::atomic::Ordering::Acquire),
            Duration::MAX,
        )
    });
    let (mut n, mut exact, mut first) = (0u64, 0u64, None);
    say("READY");
    while n < count && Instant::now() < deadline {
        let Ok((now, seq, bytes, ok, stamp)) = rx.recv_timeout(Duration::from_millis(100)) else {
            continue;
        };
        first.get_or_insert_with(Usage::process);
        n += 1;
        exact += u64::from(ok);
        say(&format!(
            "RECV seq={seq} bytes={bytes} exact={} lat_us={}",
            u8::from(ok),
            now.saturating_sub(stamp) / 1000
        ));
    }
    let used = first
        .map(|f| Usage::process().since(&f))
        .unwrap_or_default();
    say(&format!(
        "DONE received={n} exact={exact} {}",
        usage_words(&used)
    ));
    stop.store(true, std::sync::atomic::Ordering::Release);
    executor.cancel();
    let _ = spinner.join();
    if n < count {
        return Err(PeerError::Timeout("waiting for samples"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_frame_accepts_exactly_the_rotated_frame() {
        let b = base(100_000);
        for i in [1, 2, 7, 12_345] {
            let f = frame(&b, i);
            assert!(is_frame(&b, i, &f));
            assert!(!is_frame(&b, i + 1, &f));
            let mut g = f.clone();
            g[f.len() / 2] ^= 1;
            assert!(!is_frame(&b, i, &g));
            assert!(!is_frame(&b, i, &f[1..]));
        }
    }

    #[test]
    fn bad_roles_are_refused_before_anything_opens() {
        for role in [
            "",
            "talk /t image:10 3",
            "pub /t image:0 3 30",
            "pub /t image:99999999999 3 30",
            "pub /t image:10 3 0",
            "pub /t image:10 3 inf",
            "pub /t image:10 3 -5",
            "sub /t string 3",
            "sub /t image:10",
        ] {
            assert!(
                matches!(peer_main(role), Err(PeerError::Role(_))),
                "{role:?}"
            );
        }
    }
}
