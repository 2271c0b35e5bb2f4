//! Topics both ways: std_msgs/String reliable and best effort, a 1080p
//! sensor_msgs/Image at 30 Hz, transient local for late joiners.

use std::time::{Duration, Instant};

use hibari::msg::sensor_msgs::msg::Image;
use hibari::msg::std_msgs::msg::String as RosString;
use hibari::QosProfile;
use hibari_testkit::unique_topic;

use super::peer::{wait_until, LIMIT};
use super::Rig;

fn string(data: &str) -> RosString {
    RosString { data: data.into() }
}

/// `msg <n>` → n.
fn number(data: &str) -> u64 {
    data.strip_prefix("msg ")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("not a `msg <n>` string: {data:?}"))
}

const STRINGS: u64 = 10;

// ---- std_msgs/String ----

/// `wait_for_all_acked` waits for an rclpy subscription's acknowledgments:
/// not there while the subscriber's process is stopped (SIGSTOP: no thread
/// of it can acknowledge), there once it runs again, and then it has every
/// message.
pub fn all_acked_waits_for_an_rclpy_subscription(distro: &str) {
    let rig = Rig::new("hibari_acked");
    let topic = unique_topic("ros2_acked");
    let publisher = rig
        .node
        .create_publisher::<RosString>(&topic, QosProfile::default())
        .unwrap();
    let mut peer = rig.peer(
        distro,
        "listen",
        "rclpy_acked",
        &[&topic, &STRINGS.to_string(), "reliable"],
    );
    assert!(publisher.wait_for_subscribers(1, LIMIT), "never matched");
    peer.expect("matched");
    peer.signal("STOP");
    for n in 0..STRINGS {
        publisher.publish(string(&format!("msg {n}"))).unwrap();
    }
    let stopped = publisher.wait_for_all_acked(Duration::from_millis(300));
    peer.signal("CONT");
    assert!(!stopped, "acknowledged by a stopped process");
    assert!(publisher.wait_for_all_acked(LIMIT), "not acknowledged");
    for n in 0..STRINGS {
        assert_eq!(number(&peer.expect("got ")[4..]), n, "all, in order, once");
    }
}

pub fn strings_hibari_to_rclpy(distro: &str, reliable: bool) {
    let rig = Rig::new("hibari_talker");
    let topic = unique_topic("ros2_chatter");
    let qos = if reliable {
        QosProfile::default()
    } else {
        QosProfile::default().best_effort()
    };
    let publisher = rig.node.create_publisher::<RosString>(&topic, qos).unwrap();
    let reliability = if reliable { "reliable" } else { "best_effort" };
    let peer = rig.peer(
        distro,
        "listen",
        "rclpy_listener",
        &[&topic, &STRINGS.to_string(), reliability],
    );
    assert!(
        publisher.wait_for_subscribers(1, LIMIT),
        "hibari's publisher never matched the rclpy subscription"
    );
    peer.expect("matched");
    let mut got = Vec::new();
    if reliable {
        for n in 0..STRINGS {
            publisher.publish(string(&format!("msg {n}"))).unwrap();
        }
        while got.len() < STRINGS as usize {
            match peer.next_line(LIMIT) {
                Some(line) if line.starts_with("got ") => got.push(number(&line[4..])),
                Some(_) => {}
                None => peer.fail(&format!("the peer ended after {got:?}")),
            }
        }
        assert_eq!(got, (0..STRINGS).collect::<Vec<_>>(), "all, in order, once");
    } else {
        // Best effort: publish until the peer has enough; what arrives is
        // whole, in order and never twice.
        let deadline = Instant::now() + LIMIT;
        let mut n = 0;
        loop {
            publisher.publish(string(&format!("msg {n}"))).unwrap();
            n += 1;
            while let Some(line) = peer.try_line() {
                if let Some(data) = line.strip_prefix("got ") {
                    got.push(number(data));
                }
            }
            if got.len() >= STRINGS as usize {
                break;
            }
            if Instant::now() > deadline {
                peer.fail(&format!(
                    "{} of {STRINGS} strings after {n} sent",
                    got.len()
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            got.windows(2).all(|w| w[0] < w[1]),
            "in order, once: {got:?}"
        );
    }
}

pub fn strings_rclpy_to_hibari(distro: &str, reliable: bool) {
    let rig = Rig::new("hibari_listener");
    let topic = unique_topic("ros2_chatter");
    let qos = if reliable {
        QosProfile::default()
    } else {
        QosProfile::default().best_effort()
    };
    let sub = rig
        .node
        .create_polled_subscription::<RosString>(&topic, qos)
        .unwrap();
    let reliability = if reliable { "reliable" } else { "best_effort" };
    let mut peer = rig.peer(
        distro,
        "talk",
        "rclpy_talker",
        &[&topic, &STRINGS.to_string(), reliability],
    );
    peer.expect("matched");
    wait_until(
        LIMIT,
        "hibari's subscription matching the rclpy publisher",
        || sub.matched_publishers() > 0,
    );
    peer.go();
    let mut got = Vec::new();
    let deadline = Instant::now() + LIMIT;
    while got.len() < STRINGS as usize {
        match sub.take() {
            Some((m, _)) => got.push(number(&m.data)),
            None if Instant::now() > deadline => {
                peer.fail(&format!("{} of {STRINGS} strings: {got:?}", got.len()))
            }
            None => std::thread::sleep(Duration::from_millis(2)),
        }
    }
    peer.close_stdin();
    if reliable {
        assert_eq!(got, (0..STRINGS).collect::<Vec<_>>(), "all, in order, once");
    } else {
        assert!(
            got.windows(2).all(|w| w[0] < w[1]),
            "in order, once: {got:?}"
        );
    }
}

// ---- a 1920x1080 rgb8 Image at 30 Hz, reliable ----

const WIDTH: u32 = 1920;
const HEIGHT: u32 = 1080;
const FRAMES: usize = 60;

/// Reliable, with a history as deep as the stream on both sides (the peer
/// asks the same, rclpy_peer.py): what these tests assert is that every
/// frame arrives with its bytes exact. With ROS's default depth of 10, a
/// reader more than a third of a second behind loses frames by design
/// (the writer's history overwrites them), so "none lost" would be a
/// timing assertion, and under the suite's own parallel load it failed
/// now and then (55 of 60). How fast a 1080p stream crosses is measured
/// by `hibari bench dds`, not here.
fn stream_qos() -> QosProfile {
    QosProfile::default().keep_last(FRAMES)
}

/// The pixels of frame `seq` (rclpy_peer.py's `pixels`).
fn pixels(seq: usize) -> Vec<u8> {
    (0..(WIDTH * HEIGHT * 3) as usize)
        .map(|k| ((k + seq * 7) % 251) as u8)
        .collect()
}

fn frame(seq: usize, data: Vec<u8>) -> Image {
    let mut image = Image {
        height: HEIGHT,
        width: WIDTH,
        encoding: "rgb8".into(),
        step: WIDTH * 3,
        data,
        ..Default::default()
    };
    image.header.frame_id = seq.to_string();
    image
}

/// Held by a 1080p stream test for its whole run. A 6 MB frame at 30 Hz
/// takes most of a core in rclpy alone; two such streams side by side (the
/// test harness runs tests in parallel) on a 2-core machine measure CPU
/// starvation, not the transport. Lighter tests still run beside them.
static ONE_IMAGE_STREAM_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn image_stream_slot() -> std::sync::MutexGuard<'static, ()> {
    ONE_IMAGE_STREAM_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub fn images_hibari_to_rclpy(distro: &str) {
    let _slot = image_stream_slot();
    let rig = Rig::new("hibari_camera");
    let topic = unique_topic("ros2_image");
    let publisher = rig
        .node
        .create_publisher::<Image>(&topic, stream_qos())
        .unwrap();
    let peer = rig.peer(
        distro,
        "image_listen",
        "rclpy_viewer",
        &[&topic, &FRAMES.to_string()],
    );
    assert!(
        publisher.wait_for_subscribers(1, LIMIT),
        "hibari's image publisher never matched rclpy"
    );
    peer.expect("matched");
    let patterns: Vec<Vec<u8>> = (0..4).map(pixels).collect();
    let start = Instant::now();
    for seq in 0..FRAMES {
        if let Err(e) = publisher.publish(frame(seq, patterns[seq % 4].clone())) {
            peer.fail(&format!("frame {seq} was not published: {e}"));
        }
        let next = start + Duration::from_secs_f64((seq + 1) as f64 / 30.0);
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
    }
    let done = peer.expect("done ");
    eprintln!("{distro} hibari → rclpy, {FRAMES} frames of 6,220,800 B at 30 Hz: {done}");
    assert_eq!(
        done,
        format!("done {FRAMES} {FRAMES}"),
        "received and exact, of {FRAMES}"
    );
}

pub fn images_rclpy_to_hibari(distro: &str) {
    let _slot = image_stream_slot();
    let rig = Rig::new("hibari_viewer");
    let topic = unique_topic("ros2_image");
    let sub = rig
        .node
        .create_polled_subscription::<Image>(&topic, stream_qos())
        .unwrap();
    let mut peer = rig.peer(
        distro,
        "image_talk",
        "rclpy_camera",
        &[&topic, &FRAMES.to_string()],
    );
    peer.expect("matched");
    wait_until(LIMIT, "hibari's image subscription matching rclpy", || {
        sub.matched_publishers() > 0
    });
    // Before `go`: made after it, they would hold up taking the first frames.
    let patterns: Vec<Vec<u8>> = (0..4).map(pixels).collect();
    peer.go();
    let (mut received, mut exact, mut reported_lost) = (0, 0, 0);
    let mut deadline = Instant::now() + LIMIT;
    let mut all_sent = false;
    while received < FRAMES && Instant::now() < deadline {
        if let Some((image, info)) = sub.take() {
            received += 1;
            reported_lost += info.lost_before;
            let seq: usize = image.header.frame_id.parse().unwrap();
            let whole = (image.width, image.height, image.step) == (WIDTH, HEIGHT, WIDTH * 3)
                && image.encoding == "rgb8"
                && image.data == patterns[seq % 4];
            exact += usize::from(whole);
            continue;
        }
        // Once every frame is sent, whatever is still coming comes soon.
        if !all_sent && peer.try_line().is_some_and(|l| l.starts_with("sent")) {
            all_sent = true;
            deadline = deadline.min(Instant::now() + Duration::from_secs(10));
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    eprintln!(
        "{distro} rclpy → hibari, {FRAMES} frames of 6,220,800 B at 30 Hz: \
         {received} received, {exact} exact, {reported_lost} reported lost (lost_before)"
    );
    assert_eq!(
        (received, exact),
        (FRAMES, FRAMES),
        "received and exact, of {FRAMES}; peer stderr:\n{}",
        peer.stderr()
    );
}

// ---- transient local ----

pub fn late_rclpy_joiner_gets_what_hibari_published(distro: &str) {
    let rig = Rig::new("hibari_latched");
    let topic = unique_topic("ros2_latched");
    let publisher = rig
        .node
        .create_publisher::<RosString>(&topic, QosProfile::default().transient_local())
        .unwrap();
    for n in 0..3 {
        publisher.publish(string(&format!("msg {n}"))).unwrap();
    }
    let peer = rig.peer(
        distro,
        "listen",
        "rclpy_late",
        &[&topic, "3", "reliable", "transient_local"],
    );
    let mut got = Vec::new();
    while got.len() < 3 {
        match peer.next_line(LIMIT) {
            Some(line) if line.starts_with("got ") => got.push(number(&line[4..])),
            Some(_) => {}
            None => peer.fail(&format!("the peer ended after {got:?}")),
        }
    }
    assert_eq!(got, [0, 1, 2]);
}

pub fn late_hibari_joiner_gets_what_rclpy_published(distro: &str) {
    let rig = Rig::new("hibari_late");
    let topic = unique_topic("ros2_latched");
    let peer = rig.peer(distro, "latch", "rclpy_latched", &[&topic, "3"]);
    peer.expect("published");
    let sub = rig
        .node
        .create_polled_subscription::<RosString>(&topic, QosProfile::default().transient_local())
        .unwrap();
    let mut got = Vec::new();
    let deadline = Instant::now() + LIMIT;
    while got.len() < 3 {
        match sub.take() {
            Some((m, _)) => got.push(m.data),
            None if Instant::now() > deadline => peer.fail(&format!("got only {got:?}")),
            None => std::thread::sleep(Duration::from_millis(2)),
        }
    }
    assert_eq!(got, ["early 0", "early 1", "early 2"]);
}
