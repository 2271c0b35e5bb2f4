//! The hibari peer of the network-namespace tests (`tests/netns_dds.rs`):
//! one `DdsTransport` in a process of its own, which the tests start inside
//! a namespace as `netns_peer ROLE…`. It speaks the line protocol of
//! `rclpy_peer.py` (roles `pub`, `sub`, `graph`; kinds `string` and
//! `image[:BYTES]`; the same `frame(i)` pixels), so a test can swap either
//! side for the other. `cargo test` builds it with the tests.
#![forbid(unsafe_code)]

use std::io::Write;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use hibari_dds::{DdsOptions, DdsTransport};
use hibari_msgs::sensor_msgs::msg::Image;
use hibari_msgs::std_msgs::msg::String as RosString;
use hibari_transport::{
    EndpointSpec, NodeInfo, Payload, QosProfile, ReaderOptions, Transport, WhenFull, WriteError,
    WriterOptions,
};

/// 1920 x 1080 rgb8.
const FULL_HD: usize = 1920 * 1080 * 3;

/// A prime: rotating by 7919 never lines the pattern up with itself again.
const BLOCK: usize = 65_521;

/// The pixels every image `i` carries: [`base`] rotated by `i * 7919`.
fn frame(base: &[u8], i: u64, out: &mut Vec<u8>) {
    let off = (i as usize).wrapping_mul(7919) % base.len();
    out.clear();
    out.extend_from_slice(&base[off..]);
    out.extend_from_slice(&base[..off]);
}

/// `size` pseudo-random bytes, the same as `rclpy_peer.py`'s `base`.
fn base(size: usize) -> Vec<u8> {
    let mut x: u32 = 1;
    let block: Vec<u8> = (0..BLOCK)
        .map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345) & 0x7fff_ffff;
            (x >> 16) as u8
        })
        .collect();
    block.iter().copied().cycle().take(size).collect()
}

enum Kind {
    String,
    Image(usize),
}

fn kind_of(spec: &str) -> Kind {
    match spec.split_once(':') {
        _ if spec == "string" => Kind::String,
        Some((_, n)) => Kind::Image(n.parse().expect("image:BYTES")),
        None => Kind::Image(FULL_HD),
    }
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// Runs the role its arguments name (`pub TOPIC KIND COUNT HZ`, `sub TOPIC
/// KIND COUNT`, `graph`); exits 2 when a wait ends by `NETNS_PEER_TIMEOUT`.
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let env = |k: &str| std::env::var(k).ok();
    let domain = env("ROS_DOMAIN_ID")
        .and_then(|d| d.parse().ok())
        .unwrap_or(0);
    let timeout = Duration::from_secs_f64(
        env("NETNS_PEER_TIMEOUT")
            .and_then(|t| t.parse().ok())
            .unwrap_or(60.0),
    );
    let name = env("NETNS_PEER_NAME").unwrap_or_else(|| format!("netns_hibari_{}", args[0]));
    let dds =
        DdsTransport::open(domain, DdsOptions::from_env().expect("DDS options")).expect("open DDS");
    let node = NodeInfo::new("/", name);
    let _token = dds.announce_node(&node);
    let deadline = Instant::now() + timeout;
    let qos = QosProfile::default().reliable().keep_all();
    let ok = match args[..] {
        ["pub", topic, kind, count, hz] => publish(
            &dds,
            node,
            EndpointSpecs::new(topic, kind_of(kind), qos),
            count.parse().expect("COUNT"),
            hz.parse().expect("HZ"),
            deadline,
        ),
        ["sub", topic, kind, count] => subscribe(
            &dds,
            node,
            EndpointSpecs::new(topic, kind_of(kind), qos),
            count.parse().expect("COUNT"),
            deadline,
        ),
        ["graph"] => graph(&dds, &node, deadline),
        _ => {
            panic!("{args:?}: not a role (pub TOPIC KIND COUNT HZ | sub TOPIC KIND COUNT | graph)")
        }
    };
    if !ok {
        say("TIMEOUT");
        std::process::exit(2);
    }
}

struct EndpointSpecs {
    spec: EndpointSpec,
    kind: Kind,
}

impl EndpointSpecs {
    fn new(topic: &str, kind: Kind, qos: QosProfile) -> Self {
        let spec = match kind {
            Kind::String => EndpointSpec::new::<RosString>(topic, qos),
            Kind::Image(_) => EndpointSpec::new::<Image>(topic, qos),
        };
        EndpointSpecs { spec, kind }
    }
}

fn image(size: usize, i: u64, pixels: Vec<u8>) -> Image {
    let (height, width, encoding, step) = if size == FULL_HD {
        (1080, 1920, "rgb8", 5760)
    } else {
        (1, size as u32, "mono8", size as u32)
    };
    let stamp = now_ns();
    let mut m = Image {
        height,
        width,
        encoding: encoding.into(),
        step,
        data: pixels,
        ..Image::default()
    };
    m.header.frame_id = i.to_string();
    m.header.stamp.sec = (stamp / 1_000_000_000) as i32;
    m.header.stamp.nanosec = (stamp % 1_000_000_000) as u32;
    m
}

fn publish(
    dds: &DdsTransport,
    node: NodeInfo,
    e: EndpointSpecs,
    count: u64,
    hz: f64,
    deadline: Instant,
) -> bool {
    let opts = WriterOptions::default()
        .node(node)
        .when_full(WhenFull::Block {
            timeout: Duration::from_secs(1),
        });
    let w = dds.create_writer(&e.spec, &opts).expect("writer");
    let base = match e.kind {
        Kind::Image(size) => base(size),
        Kind::String => Vec::new(),
    };
    say("READY");
    while w.matched_count() == 0 {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    say("MATCHED");
    let start = Instant::now();
    for i in 1..=count {
        let mut payload = match e.kind {
            Kind::String => Payload::from_message(RosString {
                data: format!("netns {i}"),
            }),
            Kind::Image(size) => {
                let mut pixels = Vec::with_capacity(size);
                frame(&base, i, &mut pixels);
                Payload::from_message(image(size, i, pixels))
            }
        };
        // A full send window (a reader behind, or the link down) makes the
        // write wait; keep-all means it must get through, so write again.
        loop {
            match w.write(payload) {
                Ok(()) => break,
                Err(err @ (WriteError::Timeout { .. } | WriteError::Full { .. }))
                    if Instant::now() < deadline =>
                {
                    payload = err.into_payload().expect("a full write hands it back");
                }
                Err(err) => {
                    say(&format!("WRITE_ERROR seq={i} {err}"));
                    return false;
                }
            }
        }
        say(&format!("SENT seq={i}"));
        let next = start + Duration::from_secs_f64(i as f64 / hz);
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
    }
    say(&format!("DONE sent={count}"));
    // Stay, so that repairs of the last samples can still happen.
    std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
    true
}

fn subscribe(
    dds: &DdsTransport,
    node: NodeInfo,
    e: EndpointSpecs,
    count: u64,
    deadline: Instant,
) -> bool {
    let r = dds
        .create_reader(&e.spec, &ReaderOptions::default().node(node))
        .expect("reader");
    let (tx, rx) = mpsc::channel::<()>();
    let tx = Mutex::new(tx);
    r.set_notify(Some(Arc::new(move || {
        let _ = tx.lock().map(|t| t.send(()));
    })));
    let base = match e.kind {
        Kind::Image(size) => base(size),
        Kind::String => Vec::new(),
    };
    let mut expected = Vec::new();
    let (mut n, mut exact, mut last, mut in_order) = (0u64, 0u64, 0i64, true);
    say("READY");
    while n < count && Instant::now() < deadline {
        let _ = rx.recv_timeout(Duration::from_millis(100));
        while let Some(s) = r.take() {
            let now = now_ns();
            let (seq, bytes, ok, lat_us) = match e.kind {
                Kind::String => {
                    let m = s.payload.into_owned::<RosString>().expect("a String");
                    let seq = m.data.strip_prefix("netns ").and_then(|n| n.parse().ok());
                    let seq: i64 = seq.unwrap_or(-1);
                    (seq, m.data.len(), m.data == format!("netns {seq}"), 0)
                }
                Kind::Image(_) => {
                    let m = s.payload.into_owned::<Image>().expect("an Image");
                    let seq: i64 = m.header.frame_id.parse().unwrap_or(-1);
                    let ok = seq > 0 && {
                        frame(&base, seq as u64, &mut expected);
                        m.data == expected
                    };
                    let stamp = m.header.stamp.sec as u64 * 1_000_000_000
                        + u64::from(m.header.stamp.nanosec);
                    (seq, m.data.len(), ok, now.saturating_sub(stamp) / 1000)
                }
            };
            n += 1;
            exact += u64::from(ok);
            in_order &= seq == last + 1;
            last = seq;
            say(&format!(
                "RECV seq={seq} bytes={bytes} exact={} lat_us={lat_us}",
                u8::from(ok)
            ));
        }
    }
    say(&format!(
        "DONE received={n} exact={exact} in_order={}",
        u8::from(in_order)
    ));
    n >= count
}

fn graph(dds: &DdsTransport, me: &NodeInfo, deadline: Instant) -> bool {
    let mut shown = None;
    while Instant::now() < deadline {
        let mut names: Vec<String> = dds
            .graph()
            .nodes
            .iter()
            .map(|n| n.name.clone())
            .filter(|n| *n != me.name)
            .collect();
        names.sort();
        names.dedup();
        if shown.as_ref() != Some(&names) {
            say(&format!("NODES {}", names.join(",")));
            shown = Some(names);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    true
}
