//! What a multi-threaded executor's threads do while they wait: no thread
//! spins on a descriptor whose callback group is busy, and work that arrives
//! from another process wakes as many threads as it needs.
//!
//! The other process is this test binary run again, only its ignored helper
//! `peer_publisher` (an ignored test, so it is not counted as a passing one).

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use hibari::msg::std_msgs::msg::String as RosString;
use hibari::{
    CallbackGroupType, Context, FdWatchOptions, GuardConditionOptions, MultiThreadedExecutor,
    QosProfile, SubscriptionOptions,
};

/// A bound only a hang reaches.
const LONG: Duration = Duration::from_secs(20);

/// The CPU time this process used so far (user + system), from
/// `/proc/self/stat`, in clock ticks.
fn cpu_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    // The fields after the command (which may hold spaces) in parentheses.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    // utime and stime are fields 14 and 15 of the whole line.
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

/// Clock ticks a second (`getconf CLK_TCK`; 100 on Linux's ABI).
const TICKS_PER_SECOND: f64 = 100.0;

#[test]
fn a_readable_watch_whose_group_is_busy_leaves_the_cpu_idle() {
    let ctx = Context::builder().isolated().create().unwrap();
    let node = ctx.create_node("watcher").unwrap();
    let group = node.create_callback_group(CallbackGroupType::MutuallyExclusive);
    let (mut ours, theirs) = UnixStream::pair().unwrap();
    theirs.set_nonblocking(true).unwrap();
    let read = Arc::new(AtomicBool::new(false));
    let r = read.clone();
    let _watch = node.create_fd_watch(
        theirs,
        FdWatchOptions::new().callback_group(&group),
        move |fd| {
            let mut stream = UnixStream::from(fd.try_clone_to_owned().unwrap());
            let _ = std::io::Read::read(&mut stream, &mut [0u8; 64]);
            r.store(true, Ordering::SeqCst);
        },
    );
    // A callback of the same group that holds it for a second.
    let (started_tx, started) = mpsc::channel();
    let (release_tx, release) = mpsc::channel::<()>();
    let release = Mutex::new(release);
    let blocker = node.create_guard_condition(
        GuardConditionOptions::new().callback_group(&group),
        move || {
            let _ = started_tx.send(());
            let _ = release.lock().unwrap().recv_timeout(LONG);
        },
    );
    let executor = MultiThreadedExecutor::new(2);
    executor.add_node(&node).unwrap();
    let measured = std::thread::scope(|s| {
        let spinning = s.spawn(|| executor.spin_until(|| read.load(Ordering::SeqCst), LONG));
        blocker.trigger();
        started
            .recv_timeout(LONG)
            .expect("the blocking callback runs");
        // The descriptor is readable while its group is busy.
        ours.write_all(b"ping").unwrap();
        let (cpu0, t0) = (cpu_ticks(), Instant::now());
        std::thread::sleep(Duration::from_secs(1));
        let (cpu1, t1) = (cpu_ticks(), Instant::now());
        release_tx.send(()).unwrap();
        assert!(spinning.join().unwrap(), "the watch's callback ran after");
        (cpu1 - cpu0) as f64 / TICKS_PER_SECOND / (t1 - t0).as_secs_f64()
    });
    // A busy loop uses a whole core (1.0); a sleeping executor next to none.
    assert!(
        measured < 0.3,
        "the executor used {:.0}% of a core while waiting for a busy group",
        measured * 100.0
    );
}

const ROLE: &str = "HIBARI_EXECUTOR_THREADS_PEER";
const TOPIC: &str = "/executor_threads/work";
/// Rounds of work: each needs both subscriptions' callbacks at once.
const ROUNDS: usize = 10;

/// Kills the peer when dropped, so a failing test leaves no process behind.
struct Kill(Child);

impl Drop for Kill {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Where two callbacks meet: `meet` returns whether the other one came
/// within `LONG`.
#[derive(Default)]
struct Meeting {
    arrived: Mutex<usize>,
    changed: Condvar,
}

impl Meeting {
    fn meet(&self, round: usize) -> bool {
        let mut arrived = self.arrived.lock().unwrap();
        *arrived += 1;
        self.changed.notify_all();
        let (arrived, _) = self
            .changed
            .wait_timeout_while(arrived, Duration::from_secs(5), |a| *a < 2 * (round + 1))
            .unwrap();
        *arrived >= 2 * (round + 1)
    }
}

fn domain() -> u32 {
    std::env::var("ROS_DOMAIN_ID")
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(150 + std::process::id() % 50)
}

#[test]
fn two_threads_run_work_from_another_process_at_once() {
    let domain = domain();
    let ctx = Context::builder().domain(domain).create().unwrap();
    let node = ctx.create_node("two_hands").unwrap();
    let both = node.create_callback_group(CallbackGroupType::Reentrant);
    let meeting = Arc::new(Meeting::default());
    let (met, failed) = (
        Arc::new(AtomicUsize::new(0)),
        Arc::new(AtomicBool::new(false)),
    );
    let subscribe = |_: usize| {
        let (meeting, met, failed) = (meeting.clone(), met.clone(), failed.clone());
        node.create_subscription(
            TOPIC,
            SubscriptionOptions::new(QosProfile::default().keep_last(ROUNDS)).callback_group(&both),
            move |m: RosString| {
                let round: usize = m.data.parse().unwrap();
                if meeting.meet(round) {
                    met.fetch_add(1, Ordering::SeqCst);
                } else {
                    failed.store(true, Ordering::SeqCst);
                }
            },
        )
        .unwrap()
    };
    let _subs = [subscribe(0), subscribe(1)];
    let _peer = Kill(
        Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "peer_publisher", "--ignored", "--nocapture"])
            .env(ROLE, "publisher")
            .env("ROS_DOMAIN_ID", domain.to_string())
            .stdout(Stdio::null())
            .spawn()
            .expect("start the peer process"),
    );
    let executor = MultiThreadedExecutor::new(2);
    executor.add_node(&node).unwrap();
    executor.spin_until(
        || failed.load(Ordering::SeqCst) || met.load(Ordering::SeqCst) == 2 * ROUNDS,
        LONG,
    );
    assert!(
        !failed.load(Ordering::SeqCst),
        "a callback waited alone: the second thread did not run the other subscription"
    );
    assert_eq!(met.load(Ordering::SeqCst), 2 * ROUNDS, "every round ran");
}

/// The other process of `two_threads_run_work_from_another_process_at_once`:
/// publishes one sample a round, apart, so that the executor sleeps between
/// rounds and each is woken through the node's eventfd.
#[test]
#[ignore = "a helper process of two_threads_run_work_from_another_process_at_once"]
fn peer_publisher() {
    if std::env::var(ROLE).is_err() {
        return;
    }
    let ctx = Context::new().unwrap();
    let node = ctx.create_node("peer_publisher").unwrap();
    let publisher = node
        .create_publisher::<RosString>(TOPIC, QosProfile::default().keep_last(ROUNDS))
        .unwrap();
    assert!(publisher.wait_for_subscribers(2, LONG));
    for round in 0..ROUNDS {
        std::thread::sleep(Duration::from_millis(100));
        publisher
            .publish(RosString {
                data: round.to_string(),
            })
            .unwrap();
    }
    // Stay until the parent has taken them (it kills us).
    std::thread::sleep(LONG);
}
