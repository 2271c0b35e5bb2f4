//! An executor waits on the user's descriptors beside subscriptions and
//! timers: real sockets, real threads.

use std::io::{Read, Write};
use std::os::fd::BorrowedFd;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use hibari::msg::std_msgs::msg::String as RosString;
use hibari::{Context, FdWatchOptions, QosProfile, SingleThreadedExecutor};

fn read_all(fd: BorrowedFd<'_>) -> Vec<u8> {
    let mut stream = UnixStream::from(fd.try_clone_to_owned().unwrap());
    let mut out = Vec::new();
    let mut buf = [0u8; 256];
    loop {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
        }
    }
    out
}

#[test]
fn a_sleeping_executor_wakes_for_a_socket_a_subscription_and_a_timer() {
    let ctx = Context::builder().isolated().create().unwrap();
    let node = ctx.create_node("watcher").unwrap();
    let (mut ours, theirs) = UnixStream::pair().unwrap();
    theirs.set_nonblocking(true).unwrap();
    let (tx, rx) = mpsc::channel::<String>();
    let socket_tx = tx.clone();
    let _watch = node.create_fd_watch(theirs, FdWatchOptions::default(), move |fd| {
        let bytes = read_all(fd);
        socket_tx
            .send(format!("socket {}", String::from_utf8_lossy(&bytes)))
            .unwrap();
    });
    let topic_tx = tx.clone();
    let _sub = node
        .create_subscription("topic", QosProfile::default(), move |m: RosString| {
            topic_tx.send(format!("topic {}", m.data)).unwrap();
        })
        .unwrap();
    let ticks = Arc::new(AtomicUsize::new(0));
    let t = ticks.clone();
    let _timer = node
        .create_timer(Duration::from_millis(30), move || {
            t.fetch_add(1, Ordering::Relaxed);
        })
        .unwrap();
    let publisher = node
        .create_publisher::<RosString>("topic", QosProfile::default())
        .unwrap();
    let executor = Arc::new(SingleThreadedExecutor::new());
    executor.add_node(&node).unwrap();
    let spinner = {
        let executor = executor.clone();
        std::thread::spawn(move || executor.spin())
    };
    // The executor is asleep in poll(2) by now; each source must wake it.
    std::thread::sleep(Duration::from_millis(50));
    ours.write_all(b"ping").unwrap();
    let first = rx.recv_timeout(Duration::from_secs(10)).unwrap();
    publisher
        .publish(RosString {
            data: "hello".into(),
        })
        .unwrap();
    let second = rx.recv_timeout(Duration::from_secs(10)).unwrap();
    ours.write_all(b"pong").unwrap();
    let third = rx.recv_timeout(Duration::from_secs(10)).unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while ticks.load(Ordering::Relaxed) < 2 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    hibari_testkit::cancel_and_join(
        spinner,
        hibari_testkit::HANG,
        "the spinner to stop after cancel()",
        || executor.cancel(),
    )
    .unwrap();
    assert_eq!(
        [first, second, third],
        ["socket ping", "topic hello", "socket pong"].map(String::from)
    );
    assert!(ticks.load(Ordering::Relaxed) >= 2, "the timer did not run");
}

#[test]
fn a_dropped_watch_closes_its_descriptor_and_runs_no_more() {
    let ctx = Context::builder().isolated().create().unwrap();
    let node = ctx.create_node("watcher").unwrap();
    let (mut ours, theirs) = UnixStream::pair().unwrap();
    theirs.set_nonblocking(true).unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let c = calls.clone();
    let watch = node.create_fd_watch(theirs, FdWatchOptions::default(), move |fd| {
        read_all(fd);
        c.fetch_add(1, Ordering::Relaxed);
    });
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&node).unwrap();
    ours.write_all(b"x").unwrap();
    assert!(executor.spin_once(Duration::from_secs(5)));
    assert_eq!(calls.load(Ordering::Relaxed), 1);
    drop(watch);
    // The peer sees the socket closed, and nothing more runs.
    let mut buf = [0u8; 1];
    assert_eq!(ours.read(&mut buf).unwrap(), 0);
    let _ = ours.write_all(b"y");
    assert!(!executor.spin_once(Duration::from_millis(100)));
    assert_eq!(calls.load(Ordering::Relaxed), 1);
}

/// A pipe whose writer closed (poll reports a hang-up, not input) wakes the
/// watch's callback, which sees the end of file: the executor neither sleeps
/// through it nor spins on it unseen.
#[test]
fn a_hung_up_pipe_reaches_the_callback_as_end_of_file() {
    let ctx = Context::builder().isolated().create().unwrap();
    let node = ctx.create_node("watcher").unwrap();
    let (reader, writer) = std::io::pipe().unwrap();
    let (tx, rx) = mpsc::channel::<usize>();
    let _watch = node.create_fd_watch(reader, FdWatchOptions::default(), move |fd| {
        let mut file = std::fs::File::from(fd.try_clone_to_owned().unwrap());
        let mut buf = [0u8; 16];
        tx.send(file.read(&mut buf).unwrap()).unwrap();
    });
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&node).unwrap();
    drop(writer);
    assert!(executor.spin_once(Duration::from_secs(5)), "no callback");
    assert_eq!(rx.try_recv().unwrap(), 0, "end of file");
}
