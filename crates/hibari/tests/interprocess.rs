//! Two real processes on this host, through the public API only: the context
//! picks shared memory by itself. The child is this test binary run again
//! with `HIBARI_TEST_CHILD` set and `--ignored --exact child`: `child` is an
//! ignored helper, not a test, so it is never counted as a passing one.
//! Each test holds a domain of its own (hibari_testkit::TestDomain).

use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use hibari::msg::sensor_msgs::msg::Image;
use hibari::msg::std_msgs::msg::String as RosString;
use hibari::{
    Context, Message, QosProfile, SampleInfo, SingleThreadedExecutor, WaitResult, WaitSet,
};
use hibari_testkit::TestDomain;

const CHILD: &str = "HIBARI_TEST_CHILD";

/// Samples the `pacer` child publishes.
const PACED: usize = 30;

/// Kills the child when dropped, so a failing test leaves no process behind.
struct Kill(Child);

impl Drop for Kill {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn_child(role: &str, domain: u32) -> Kill {
    Kill(
        Command::new(std::env::current_exe().unwrap())
            .args(["--ignored", "--exact", "child", "--nocapture"])
            .env(CHILD, role)
            .env("ROS_DOMAIN_ID", domain.to_string())
            .stdout(Stdio::null())
            .spawn()
            .expect("spawn the child"),
    )
}

fn frame(seq: u32) -> Image {
    Image {
        height: 1080,
        width: 1920,
        encoding: "rgb8".into(),
        step: 1920 * 3,
        data: vec![(seq % 251) as u8; 1920 * 1080 * 3],
        ..Default::default()
    }
}

/// The other process: publishes frames, or echoes strings, as told. A
/// helper the tests run (see `spawn_child`), not a test of its own.
#[test]
#[ignore = "the child process of this file's tests, run by them"]
fn child() {
    let Ok(role) = std::env::var(CHILD) else {
        panic!("`child` is the other process of this file's tests; they run it with {CHILD} set")
    };
    let ctx = Context::new().unwrap();
    let node = ctx.create_node(&format!("child_{role}")).unwrap();
    match role.as_str() {
        "camera" => {
            let p = node
                .create_publisher::<Image>("/camera/image", QosProfile::default().keep_last(4))
                .unwrap();
            assert!(p.wait_for_subscribers(1, Duration::from_secs(20)));
            for seq in 0..20 {
                p.publish(frame(seq)).unwrap();
            }
            // Stay until the parent has taken them (it kills us).
            std::thread::sleep(Duration::from_secs(60));
        }
        "loaner" => {
            // Frames laid out in loans: the pixels written in place in shared
            // memory, never in a Vec of their own.
            let p = node
                .create_publisher::<Image>("/camera/image", QosProfile::default().keep_last(4))
                .unwrap();
            assert!(p.wait_for_subscribers(1, Duration::from_secs(20)));
            let header = Image {
                height: 1080,
                width: 1920,
                encoding: "rgb8".into(),
                step: 1920 * 3,
                ..Default::default()
            };
            for seq in 0..20u32 {
                let (mut loan, pixels) = p.loan_message(&header, "data", 1920 * 1080 * 3).unwrap();
                loan[pixels].fill((seq % 251) as u8);
                loan.send().unwrap();
            }
            std::thread::sleep(Duration::from_secs(60));
        }
        "transport_lender" => {
            // Bytes written where the shared-memory transport lends them
            // (loan_from_transport): the subscriber is in another process.
            let p = node
                .create_generic_publisher(
                    "/camera/image",
                    "sensor_msgs/msg/Image",
                    QosProfile::default().keep_last(4),
                )
                .unwrap();
            assert!(p.wait_for_subscribers(1, Duration::from_secs(20)));
            for seq in 0..20 {
                let cdr = frame(seq).to_cdr().unwrap();
                let mut loan = p
                    .loan_from_transport(cdr.len())
                    .expect("a subscriber in another process: the transport lends")
                    .unwrap();
                loan.copy_from_slice(&cdr);
                loan.send().unwrap();
            }
            std::thread::sleep(Duration::from_secs(60));
        }
        "echo" => {
            let p = node
                .create_publisher::<RosString>("/echo/out", QosProfile::default())
                .unwrap();
            let _s = node
                .create_subscription("/echo/in", QosProfile::default(), move |m: RosString| {
                    // The parent spins while it publishes: waits are short.
                    let mut msg = RosString {
                        data: format!("echo {}", m.data),
                    };
                    while let Err(e) = p.publish(msg) {
                        msg = e.into_message().expect("a full subscription hands it back");
                    }
                })
                .unwrap();
            let exec = SingleThreadedExecutor::new();
            exec.add_node(&node).unwrap();
            // Until the parent kills us, as the other roles.
            let _ = exec
                .spin_until_future_complete(std::future::pending::<()>(), Duration::from_secs(60));
        }
        "pacer" => {
            // Samples far apart, so the parent's executor is asleep for each.
            let p = node
                .create_publisher::<RosString>("/paced", QosProfile::default())
                .unwrap();
            assert!(p.wait_for_subscribers(1, Duration::from_secs(20)));
            std::thread::sleep(Duration::from_millis(200));
            for i in 0..PACED {
                p.publish(RosString {
                    data: format!("{i}"),
                })
                .unwrap();
                std::thread::sleep(Duration::from_millis(15));
            }
            std::thread::sleep(Duration::from_secs(60));
        }
        other => panic!("unknown role {other}"),
    }
}

fn dev_shm() -> Vec<String> {
    // Fast DDS's files (ROS 2 nodes of other tests and processes, which come
    // and go meanwhile) and iceoryx2's under the bench harnesses' prefix
    // (`hbipc_<pid>_`: a `hibari bench` or hibari-bench-ipc run beside this
    // test, which removes its own) are not ours to count.
    let foreign = [
        "hbipc_",
        "fastrtps_",
        "fastdds_",
        "sem.fastrtps_",
        "sem.fastdds_",
        "lttng-ust-",
    ];
    let mut v: Vec<String> = std::fs::read_dir("/dev/shm")
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| !foreign.iter().any(|f| n.starts_with(f)))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn frames_from_another_process_arrive_whole_in_order_with_their_info() {
    let before = dev_shm();
    let reserved = TestDomain::reserve();
    let domain = reserved.id();
    let ctx = Context::with_domain(domain);
    assert_eq!(
        ctx.transport().kind(),
        "fanout",
        "shared memory is not in use"
    );
    let node = ctx.create_node("viewer").unwrap();
    let (tx, rx) = mpsc::channel::<(u32, usize, bool, SampleInfo)>();
    let _sub = node
        .create_subscription(
            "/camera/image",
            QosProfile::default().keep_last(20),
            move |img: &Image, info: &SampleInfo| {
                let whole = img.data.iter().all(|&b| b == img.data[0]);
                tx.send((img.data[0] as u32, img.data.len(), whole, *info))
                    .unwrap();
            },
        )
        .unwrap();
    let child = spawn_child("camera", domain);
    let exec = SingleThreadedExecutor::new();
    exec.add_node(&node).unwrap();
    let mut got = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while got.len() < 20 && std::time::Instant::now() < deadline {
        exec.spin_once(Duration::from_millis(200));
        got.extend(rx.try_iter());
    }
    // The publisher's node is in our graph while it lives.
    assert!(node.get_node_names().contains(&"/child_camera".to_owned()));
    drop(child);
    assert_eq!(got.len(), 20, "received {} of 20 frames", got.len());
    for (i, (first, len, whole, info)) in got.iter().enumerate() {
        assert_eq!(*first, i as u32 % 251);
        assert_eq!(*len, 1920 * 1080 * 3);
        assert!(whole, "frame {i} torn");
        assert_eq!(info.sequence, i as u64 + 1);
        assert!(info.reception_timestamp_ns >= info.source_timestamp_ns);
    }
    // The killed process's node leaves the graph, and nothing stays behind.
    assert!(node.wait_for_graph(
        |g| !g.nodes.iter().any(|n| n.name == "child_camera"),
        Duration::from_secs(10)
    ));
    assert_eq!(dev_shm(), before, "files left in /dev/shm");
}

#[test]
fn a_round_trip_through_another_process_and_back() {
    let reserved = TestDomain::reserve();
    let domain = reserved.id();
    let ctx = Context::with_domain(domain);
    let node = ctx.create_node("asker").unwrap();
    let (tx, rx) = mpsc::channel::<String>();
    let _sub = node
        .create_subscription("/echo/out", QosProfile::default(), move |m: RosString| {
            tx.send(m.data).unwrap();
        })
        .unwrap();
    let p = node
        .create_publisher::<RosString>("/echo/in", QosProfile::default())
        .unwrap();
    let child = spawn_child("echo", domain);
    assert!(p.wait_for_subscribers(1, Duration::from_secs(20)));
    assert!(node.wait_for_graph(
        |g| g.endpoints.iter().any(|e| e.spec.topic == "/echo/out"
            && e.node.as_ref().is_some_and(|n| n.name == "child_echo")),
        Duration::from_secs(20)
    ));
    assert!(node.wait_for_graph(|_| _sub.matched_publishers() == 1, Duration::from_secs(20)));
    let exec = SingleThreadedExecutor::new();
    exec.add_node(&node).unwrap();
    let mut got = Vec::new();
    // Published from another thread while this one spins: reliable QoS with a
    // depth of 10 makes each side wait for the other to take, never lose.
    let sender = std::thread::spawn(move || {
        for i in 0..50 {
            p.publish(RosString {
                data: format!("{i}"),
            })
            .unwrap();
        }
        p
    });
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while got.len() < 50 && std::time::Instant::now() < deadline {
        exec.spin_once(Duration::from_millis(200));
        got.extend(rx.try_iter());
    }
    drop(sender.join().unwrap());
    drop(child);
    let expected: Vec<String> = (0..50).map(|i| format!("echo {i}")).collect();
    assert_eq!(got, expected);
}

/// The mapping of this process that holds `addr`: (permissions, name).
fn mapping_of(addr: usize) -> Option<(String, String)> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines().find_map(|line| {
        let mut parts = line.split_whitespace();
        let (lo, hi) = parts.next()?.split_once('-')?;
        let (lo, hi) = (
            usize::from_str_radix(lo, 16).ok()?,
            usize::from_str_radix(hi, 16).ok()?,
        );
        let perms = parts.next()?.to_owned();
        let name = parts.nth(3).unwrap_or("").to_owned();
        (lo <= addr && addr < hi).then_some((perms, name))
    })
}

#[test]
fn a_view_subscription_reads_frames_in_the_publishers_read_only_shared_memory() {
    view_frames_from("camera");
}

#[test]
fn frames_written_in_place_in_loans_arrive_whole_through_shared_memory() {
    view_frames_from("loaner");
}

#[test]
fn bytes_written_in_memory_the_transport_lends_arrive_through_shared_memory() {
    view_frames_from("transport_lender");
}

fn view_frames_from(role: &str) {
    let reserved = TestDomain::reserve();
    let domain = reserved.id();
    let ctx = Context::with_domain(domain);
    let node = ctx.create_node("viewer").unwrap();
    let (tx, rx) = mpsc::channel::<(usize, usize, u8, u64)>();
    let _sub = node
        .create_view_subscription::<Image, _>(
            "/camera/image",
            QosProfile::default().keep_last(20),
            move |view, info| {
                let pixels = view.data.as_bytes();
                tx.send((
                    pixels.as_ptr() as usize,
                    pixels.len(),
                    pixels.get(0).unwrap_or_default(),
                    info.sequence,
                ))
                .unwrap();
            },
        )
        .unwrap();
    let child = spawn_child(role, domain);
    let exec = SingleThreadedExecutor::new();
    exec.add_node(&node).unwrap();
    let mut got = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while got.len() < 20 && std::time::Instant::now() < deadline {
        exec.spin_once(Duration::from_millis(200));
        for (addr, len, first, seq) in rx.try_iter() {
            // Checked while the process still maps it (the sample is held
            // by the executor until the callback returns; the segment stays).
            got.push((mapping_of(addr), len, first, seq));
        }
    }
    drop(child);
    assert_eq!(got.len(), 20);
    for (i, (mapping, len, first, seq)) in got.iter().enumerate() {
        assert_eq!(*len, 1920 * 1080 * 3);
        assert_eq!(*first as usize, i % 251);
        assert_eq!(*seq, i as u64 + 1);
        let (perms, name) = mapping.clone().expect("the pixels are in a mapping");
        assert!(
            name.contains("memfd:hibari"),
            "pixels not in shared memory: {name}"
        );
        assert!(
            perms.starts_with("r-") && perms.ends_with('s'),
            "mapping is {perms}"
        );
    }
}

/// Voluntary context switches of this process's thread named `name`.
fn thread_switches(name: &str) -> Option<u64> {
    for task in std::fs::read_dir("/proc/self/task").ok()?.flatten() {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        if comm.trim() != name {
            continue;
        }
        let status = std::fs::read_to_string(task.path().join("status")).ok()?;
        return status
            .lines()
            .find_map(|l| l.strip_prefix("voluntary_ctxt_switches:"))
            .and_then(|v| v.trim().parse().ok());
    }
    None
}

/// A sample from another process wakes the sleeping executor in one hop: the
/// publisher writes the node's eventfd, which the executor polls; this
/// process's shared-memory thread is not woken to relay it (were it, its
/// context switches would grow by one per sample). Event-driven and
/// busy-polling subscriptions both get every sample in order.
#[test]
fn a_sample_from_another_process_wakes_the_executor_directly() {
    paced_samples(false);
}

#[test]
fn a_busy_polling_subscription_gets_every_sample_without_being_signalled() {
    paced_samples(true);
}

fn paced_samples(busy: bool) {
    let reserved = TestDomain::reserve();
    let domain = reserved.id();
    let ctx = Context::with_domain(domain);
    let node = ctx.create_node("paced").unwrap();
    let (tx, rx) = mpsc::channel::<String>();
    let _sub = node
        .create_subscription(
            "/paced",
            hibari::SubscriptionOptions::new(QosProfile::default()).busy_poll(busy),
            move |m: RosString| tx.send(m.data).unwrap(),
        )
        .unwrap();
    let relay = format!("hibari-shm-{domain}");
    let child = spawn_child("pacer", domain);
    let exec = SingleThreadedExecutor::new();
    exec.add_node(&node).unwrap();
    let mut got = Vec::new();
    let mut first_switches = None;
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while got.len() < PACED && std::time::Instant::now() < deadline {
        exec.spin_once(Duration::from_millis(200));
        got.extend(rx.try_iter());
        if !got.is_empty() && first_switches.is_none() {
            first_switches = thread_switches(&relay);
        }
    }
    let last_switches = thread_switches(&relay);
    drop(child);
    let expected: Vec<String> = (0..PACED).map(|i| i.to_string()).collect();
    assert_eq!(got, expected);
    let (first, last) = (first_switches.unwrap(), last_switches.unwrap());
    assert!(
        last - first < PACED as u64 / 3,
        "the shared-memory thread woke {} times for {} samples: it relays wake-ups",
        last - first,
        PACED - 1
    );
}

/// A wait set sleeping on a subscription wakes for samples from another
/// process: through the transport's relay for a polled subscription, and by
/// polling the bell of a subscription with a callback that nobody spins.
#[test]
fn a_wait_set_wakes_for_samples_from_another_process_on_a_polled_subscription() {
    wait_set_takes_paced_samples(false);
}

#[test]
fn a_wait_set_wakes_for_samples_from_another_process_on_a_callback_subscription() {
    wait_set_takes_paced_samples(true);
}

fn wait_set_takes_paced_samples(with_callback: bool) {
    let reserved = TestDomain::reserve();
    let domain = reserved.id();
    let ctx = Context::with_domain(domain);
    let node = ctx.create_node("waiting").unwrap();
    let sub = match with_callback {
        true => node
            .create_subscription("/paced", QosProfile::default(), |_: RosString| {})
            .unwrap(),
        false => node
            .create_polled_subscription::<RosString>("/paced", QosProfile::default())
            .unwrap(),
    };
    let mut ws = WaitSet::new();
    ws.add_subscription(&sub);
    let child = spawn_child("pacer", domain);
    let mut got = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    // Once samples flow (one every 15 ms), a wait that times out missed one.
    let mut missed = 0;
    while got.len() < PACED && std::time::Instant::now() < deadline {
        match ws.wait(Duration::from_secs(5)).unwrap() {
            WaitResult::Ready(_) => {
                while let Some((m, _)) = sub.take() {
                    got.push(m.data);
                }
            }
            WaitResult::Timeout => missed += usize::from(!got.is_empty()),
        }
    }
    drop(child);
    let expected: Vec<String> = (0..PACED).map(|i| i.to_string()).collect();
    assert_eq!(got, expected);
    assert_eq!(missed, 0, "a wait slept through samples");
}
