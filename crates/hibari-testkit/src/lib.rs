//! What hibari's tests share so that they stay isolated and bounded.
//!
//! Tests of one crate run on several threads of one process, and `cargo test`
//! runs several test binaries (and people run several `cargo test`s) at once.
//! Everything a test shares with the world must therefore come from a source
//! that cannot collide:
//!
//! - a **domain**: [`TestDomain::reserve`] claims a domain id by binding the
//!   abstract Unix socket `\0hibari-test-domain/<id>`. The kernel lets one
//!   socket hold a name at a time, across all processes of the host, so two
//!   holders of one id cannot exist; the claim lasts as long as the guard (and
//!   ends with the process if it dies). Python tests take ids the same way
//!   (python/tests/conftest.py), and so does hibari-transport's conformance
//!   suite (`conformance::unique_domain`, which a published crate cannot take
//!   from this one): all share one registry.
//! - a **topic**: [`unique_topic`] joins a prefix, the process id and a
//!   process-wide counter (topics are per domain, so this only has to be unique
//!   within one process's domains).
//! - a **directory**: [`tempdir`] (the `tempfile` crate), removed on drop.
//!
//! A peer program in its own process, reporting one line per event on stdout,
//! runs as a [`lines::LineChild`]: bounded waits for its lines, killed on drop.
//!
//! Anything that may block runs under [`with_timeout`] (or is joined with
//! [`join_within`]), which fails the test with what it waited for instead of
//! hanging the suite.
#![forbid(unsafe_code)]

use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixListener};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

pub use tempfile::{tempdir, TempDir};

pub mod lines;
pub mod netns;

/// User plus system CPU time of this process, from `/proc/self/stat`, in
/// clock ticks of 10 ms (Linux's `USER_HZ` is 100): for tests that bound
/// what an idle process spends. Panics when `/proc` cannot be read.
pub fn process_cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("read /proc/self/stat");
    let after_name = &stat[stat.rfind(')').expect("a stat line names its command") + 2..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // Fields 14 and 15 of stat(5) (utime, stime); the slice starts at field 3.
    let tick = |i: usize| fields[i].parse::<u64>().expect("a tick count");
    Duration::from_millis((tick(11) + tick(12)) * 10)
}

/// The first domain id tests claim. Test domains are ROS domains
/// (`ROS_DOMAIN_ID`): a context's DDS participant exists only for 0..=232,
/// where the ports of a domain fit in 16 bits, and tests against rclpy hand
/// the id to ROS 2 itself. 0 is left to users (ROS 2's default) and 200–232
/// to manual runs (the developers' blocks), so tests claim 1..=199.
/// A developer's own ROS 2 nodes in one of these domains would meet the
/// tests: keep yours at 0 or 200 and up while tests run.
pub const FIRST_DOMAIN: u32 = 1;

/// How many ids tests may claim at once on one host (1..=199).
pub const DOMAINS: u32 = 199;

/// A domain id held by this test alone until the guard drops.
///
/// Drop it after everything that uses the domain (declare it first: locals
/// drop in reverse order), child processes included.
#[derive(Debug)]
pub struct TestDomain {
    id: u32,
    _claim: UnixListener,
}

impl TestDomain {
    /// Claims the next free domain id. Panics (the test fails) only if all
    /// [`DOMAINS`] ids are held at once on this host.
    pub fn reserve() -> TestDomain {
        // Where this process looks next: ids it released are not taken again
        // at once, so a straggler of an ended test never meets a new one.
        static NEXT: AtomicU32 = AtomicU32::new(0);
        for _ in 0..DOMAINS {
            let id = FIRST_DOMAIN + NEXT.fetch_add(1, Ordering::Relaxed) % DOMAINS;
            if let Some(claim) = claim(id) {
                return TestDomain { id, _claim: claim };
            }
        }
        panic!("all {DOMAINS} test domains from {FIRST_DOMAIN} are held by other processes")
    }

    /// The domain id, for `Context::builder().domain(..)` or `ROS_DOMAIN_ID`.
    pub fn id(&self) -> u32 {
        self.id
    }
}

impl std::fmt::Display for TestDomain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.id.fmt(f)
    }
}

/// A domain id held until this process ends: for helpers that hand out a
/// bare id (a test process is short-lived, and ids are plenty).
pub fn unique_domain() -> u32 {
    static HELD: std::sync::Mutex<Vec<TestDomain>> = std::sync::Mutex::new(Vec::new());
    let d = TestDomain::reserve();
    let id = d.id();
    HELD.lock().unwrap_or_else(|e| e.into_inner()).push(d);
    id
}

/// The abstract socket name that holds test domain `id`.
pub fn claim_name(id: u32) -> String {
    format!("hibari-test-domain/{id}")
}

fn claim(id: u32) -> Option<UnixListener> {
    let addr = SocketAddr::from_abstract_name(claim_name(id)).ok()?;
    UnixListener::bind_addr(&addr).ok()
}

/// `/<prefix>_<pid>_<n>`: a topic name no other test of this process uses.
pub fn unique_topic(prefix: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("/{prefix}_{}_{n}", std::process::id())
}

/// How long a test waits for something that takes a moment: only a hang
/// reaches it (it is a guard, never a speed requirement).
pub const HANG: Duration = Duration::from_secs(60);

/// Joins `thread` (a spinner after `cancel()`, a worker), or fails the test
/// with "timed out after …: <what>" if it has not ended within `limit`.
///
/// While the thread is already panicking (a guard's `Drop` during a failed
/// test), it prints the message and returns an error instead of panicking
/// again, which would abort the test process.
pub fn join_within<T>(
    thread: std::thread::JoinHandle<T>,
    limit: Duration,
    what: &str,
) -> std::thread::Result<T> {
    let deadline = std::time::Instant::now() + limit;
    while !thread.is_finished() {
        if std::time::Instant::now() >= deadline {
            let message = format!("timed out after {limit:?}: {what}");
            if std::thread::panicking() {
                eprintln!("{message}");
                return Err(Box::new(message));
            }
            panic!("{message}");
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    thread.join()
}

/// Stops a spinner thread: calls `cancel` (an executor's `cancel()`) until
/// `thread` has ended, then joins it; fails like [`join_within`] after `limit`.
///
/// A `cancel()` only stops a spin that is running (as in rclcpp), so a
/// single call made before the spawned thread has entered `spin()` would be
/// lost and the join would wait forever; repeating it closes that race.
pub fn cancel_and_join<T>(
    thread: std::thread::JoinHandle<T>,
    limit: Duration,
    what: &str,
    cancel: impl Fn(),
) -> std::thread::Result<T> {
    let deadline = std::time::Instant::now() + limit;
    while !thread.is_finished() && std::time::Instant::now() < deadline {
        cancel();
        std::thread::sleep(Duration::from_millis(2));
    }
    join_within(thread, Duration::ZERO, what)
}

/// Runs `f` on a thread of its own and returns its value, or fails the test
/// with "timed out after …: <what>" if it has not finished within `limit`.
/// A panic in `f` comes out of this call as it was.
///
/// On a timeout the thread is left behind (a thread cannot be killed); the
/// test fails at once and the test process ends with the run.
pub fn with_timeout<T: Send + 'static>(
    limit: Duration,
    what: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    let worker = std::thread::Builder::new()
        .name(format!("with_timeout: {what}"))
        .spawn(move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
            let _ = tx.send(r);
        })
        .expect("spawn the timed thread");
    match rx.recv_timeout(limit) {
        Ok(Ok(value)) => {
            let _ = worker.join();
            value
        }
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(_) => panic!("timed out after {limit:?}: {what}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reserved_domain_is_held_until_its_guard_drops() {
        let a = TestDomain::reserve();
        assert!(claim(a.id()).is_none(), "a second claim of {a} succeeded");
        let b = TestDomain::reserve();
        assert_ne!(a.id(), b.id());
        let id = a.id();
        drop(a);
        assert!(
            claim(id).is_some(),
            "{id} is still held after its guard dropped"
        );
    }

    #[test]
    fn a_domain_another_holder_has_is_skipped() {
        // Another process holding the next id is simulated by holding it here.
        let probe = TestDomain::reserve();
        let next = probe.id() + 1;
        let held = claim(next);
        let d = TestDomain::reserve();
        assert_ne!(d.id(), probe.id());
        if held.is_some() {
            assert_ne!(d.id(), next);
        }
    }

    #[test]
    fn every_test_domain_keeps_the_shared_memory_threads_name_whole() {
        // The kernel keeps 15 bytes of a thread's name (TASK_COMM_LEN - 1).
        for id in [FIRST_DOMAIN, FIRST_DOMAIN + DOMAINS - 1] {
            assert!(format!("hibari-shm-{id}").len() <= 15, "{id}");
        }
    }

    #[test]
    fn test_domains_are_ros_domains_below_the_manual_blocks() {
        // DDS (and rclpy) take 0..=232; 0 is users', 200..=232 manual runs'.
        assert_eq!(FIRST_DOMAIN, 1);
        assert_eq!(FIRST_DOMAIN + DOMAINS - 1, 199);
        let d = TestDomain::reserve();
        assert!((1..=199).contains(&d.id()), "{d}");
    }

    #[test]
    fn a_unique_domain_stays_held() {
        let id = unique_domain();
        assert!(claim(id).is_none(), "{id} was released");
        assert_ne!(unique_domain(), id);
    }

    #[test]
    fn topics_differ_per_call() {
        assert_ne!(unique_topic("t"), unique_topic("t"));
        assert!(unique_topic("x").starts_with("/x_"));
    }

    #[test]
    fn with_timeout_returns_the_value_or_fails_naming_what_it_waited_for() {
        assert_eq!(with_timeout(Duration::from_secs(5), "a sum", || 2 + 2), 4);
        let e = std::panic::catch_unwind(|| {
            with_timeout(
                Duration::from_millis(20),
                "a reply that never comes",
                || std::thread::sleep(Duration::from_secs(3600)),
            )
        })
        .unwrap_err();
        let msg = e.downcast_ref::<String>().unwrap();
        assert!(msg.contains("a reply that never comes"), "{msg}");
    }

    #[test]
    fn join_within_joins_or_fails_naming_what_it_waited_for() {
        let quick = std::thread::spawn(|| 7);
        assert_eq!(join_within(quick, HANG, "a quick thread").unwrap(), 7);
        let stuck = std::thread::spawn(|| std::thread::sleep(Duration::from_secs(3600)));
        let e = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _ = join_within(stuck, Duration::from_millis(20), "a spinner to stop");
        }))
        .unwrap_err();
        let msg = e.downcast_ref::<String>().unwrap();
        assert!(msg.contains("a spinner to stop"), "{msg}");
    }

    #[test]
    fn a_panic_inside_with_timeout_comes_out_as_it_was() {
        let e = std::panic::catch_unwind(|| {
            with_timeout(Duration::from_secs(5), "a panic", || panic!("boom"))
        })
        .unwrap_err();
        assert_eq!(e.downcast_ref::<&str>(), Some(&"boom"));
    }
}
