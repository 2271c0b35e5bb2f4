//! One conformance suite for every transport (feature `conformance`).
//!
//! A transport's `tests/conformance.rs` instantiates it with a factory that
//! opens a participant of the transport in a given domain; two participants
//! opened for the same domain must see each other (for in-process, they share
//! the process's domain; for shared memory and network, they act as two
//! processes would):
//!
//! ```ignore
//! hibari_transport::conformance_suite!(|domain| {
//!     Box::new(hibari_inproc::InprocTransport::open(domain)) as Box<dyn hibari_transport::Transport>
//! });
//! ```
//!
//! This expands into one `#[test]` per check, named after it. Each check uses
//! its own domain and topic names, waits only with timeouts (matching and
//! delivery may be asynchronous) and asserts no durations. A check that does
//! not finish within [`CHECK_TIMEOUT`] fails as blocked.
//! [`run_all`] runs every check in sequence, outside the test harness.

mod delivery;
mod graph;
mod history;
mod loans;
mod matching;
mod probe;

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

pub use delivery::*;
pub use graph::*;
pub use history::*;
pub use loans::*;
pub use matching::*;
pub use probe::Probe;

use crate::{
    DomainId, EndpointSpec, Notify, Payload, QosProfile, Reader, ReaderOptions, Sample, Transport,
    Writer, WriterOptions,
};

/// Opens a participant of the transport under test in a domain.
pub trait TransportFactory: Send + Sync + 'static {
    /// A participant in `domain`. Participants of one domain see each other.
    fn open(&self, domain: DomainId) -> Box<dyn Transport>;
}

impl<F> TransportFactory for F
where
    F: Fn(DomainId) -> Box<dyn Transport> + Send + Sync + 'static,
{
    fn open(&self, domain: DomainId) -> Box<dyn Transport> {
        self(domain)
    }
}

/// The longest one check may run before it counts as blocked.
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(60);

/// The longest one wait inside a check lasts (matching, delivery).
pub const PATIENCE: Duration = Duration::from_secs(10);

/// A check: a function of the factory that panics on failure.
pub type Check = fn(&dyn TransportFactory);

/// Runs `check` on its own thread and fails if it panics or does not finish
/// within [`CHECK_TIMEOUT`] (the blocked thread is left behind).
pub fn run_check(name: &str, factory: impl TransportFactory, check: Check) {
    let (done_tx, done_rx) = mpsc::channel();
    let handle = std::thread::Builder::new()
        .name(name.to_owned())
        .spawn(move || {
            check(&factory);
            let _ = done_tx.send(());
        })
        .expect("spawn the check's thread");
    match done_rx.recv_timeout(CHECK_TIMEOUT) {
        Ok(()) => handle.join().expect("the check finished"),
        Err(mpsc::RecvTimeoutError::Disconnected) => match handle.join() {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(()) => unreachable!("the check ended without reporting"),
        },
        Err(mpsc::RecvTimeoutError::Timeout) => panic!(
            "conformance check `{name}` did not finish within {CHECK_TIMEOUT:?}: \
             a write, take or waker blocked"
        ),
    }
}

/// Every check, by name.
pub const CHECKS: &[(&str, Check)] =
    crate::__hibari_conformance_checks!(__hibari_conformance_table!());

/// Runs every check in sequence (each under [`CHECK_TIMEOUT`]).
pub fn run_all<F: TransportFactory + Clone>(factory: F) {
    for (name, check) in CHECKS {
        run_check(name, factory.clone(), *check);
    }
}

/// Instantiates the suite: one `#[test]` per check, for a factory expression
/// (evaluated once per test) implementing [`TransportFactory`].
#[macro_export]
macro_rules! conformance_suite {
    ($factory:expr) => {
        $crate::__hibari_conformance_checks!(__hibari_conformance_tests!($factory));
    };
}

/// Instantiates the suite for a transport that cannot give every guarantee:
/// the checks it runs, and each one it does not with the reason why, shown by
/// `cargo test -- --ignored --list` and run on demand with `--ignored`. A
/// generated test fails when a check of the suite is in neither list, so a
/// new check is never silently left out.
///
/// ```ignore
/// hibari_transport::conformance_subset! {
///     open;
///     run: [samples_of_one_writer_arrive_in_write_order, /* … */];
///     ignore("DDS keep-last readers never hold a writer back"): [
///         a_full_reliable_reader_blocks_the_writer_until_it_takes,
///     ];
/// }
/// ```
#[macro_export]
macro_rules! conformance_subset {
    ($factory:expr;
     run: [$($run:ident),* $(,)?];
     $(ignore($why:literal): [$($ignored:ident),* $(,)?];)*
    ) => {
        $crate::__hibari_conformance_tests!($factory; $($run),*);
        $($(
            #[test]
            #[ignore = $why]
            fn $ignored() {
                $crate::conformance::run_check(
                    stringify!($ignored),
                    $factory,
                    $crate::conformance::$ignored,
                );
            }
        )*)*
        #[test]
        fn every_conformance_check_is_run_or_ignored_with_a_reason() {
            let listed: &[&str] = &[$(stringify!($run),)* $($(stringify!($ignored),)*)*];
            $crate::conformance::assert_lists_every_check(listed);
        }
    };
}

/// Fails unless `listed` names every check of the suite exactly once.
pub fn assert_lists_every_check(listed: &[&str]) {
    let mut seen = std::collections::BTreeSet::new();
    for name in listed {
        assert!(seen.insert(*name), "`{name}` is listed twice");
        assert!(
            CHECKS.iter().any(|(n, _)| n == name),
            "`{name}` is not a check of the suite"
        );
    }
    let missing: Vec<&str> = CHECKS
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| !seen.contains(n))
        .collect();
    assert!(
        missing.is_empty(),
        "checks neither run nor ignored with a reason: {missing:?}"
    );
}

#[doc(hidden)]
#[macro_export]
macro_rules! __hibari_conformance_tests {
    ($factory:expr; $($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                $crate::conformance::run_check(
                    stringify!($name),
                    $factory,
                    $crate::conformance::$name,
                );
            }
        )*
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __hibari_conformance_table {
    (; $($name:ident),* $(,)?) => {
        &[$((stringify!($name), $crate::conformance::$name as $crate::conformance::Check)),*]
    };
}

/// The list of checks, passed to a callback macro (the one place it is kept).
#[doc(hidden)]
#[macro_export]
macro_rules! __hibari_conformance_checks {
    ($callback:ident ! ($($args:tt)*)) => {
        $crate::$callback! { $($args)*;
            samples_of_one_writer_arrive_in_write_order,
            every_reader_gets_every_sample_of_every_writer,
            writes_from_many_threads_keep_the_order_of_each_writer,
            a_reader_added_mid_stream_gets_the_later_samples_in_order,
            a_reader_added_mid_stream_gets_every_sample_written_after_it_matched,
            a_reader_removed_mid_stream_leaves_the_others_undisturbed,
            different_topics_are_isolated,
            different_domains_are_isolated,
            local_and_serialized_payloads_both_arrive_intact,
            the_reader_waker_fires_when_a_sample_arrives,
            a_busy_polling_reader_gets_every_sample_by_taking,
            a_waker_may_write_and_take_without_deadlock,
            keep_last_overflow_drops_the_oldest_and_counts_the_loss,
            keep_all_keeps_every_sample_up_to_its_limit,
            every_sample_a_reliable_reader_took_is_acknowledged,
            a_sent_loan_arrives_and_a_dropped_one_goes_back,
            best_effort_readers_never_block_the_writer,
            a_full_reliable_reader_makes_the_writer_fail_when_set_to_fail,
            a_full_reliable_reader_blocks_the_writer_until_it_takes,
            a_full_reliable_reader_times_the_blocked_writer_out,
            a_full_reliable_keep_all_reader_is_bounded_by_its_limit,
            a_transient_local_late_joiner_gets_the_last_n_samples,
            a_volatile_late_joiner_gets_no_earlier_samples,
            expired_samples_are_never_taken,
            incompatible_qos_is_not_matched_and_both_sides_see_why,
            different_types_on_one_topic_are_not_matched_and_both_sides_see_why,
            matched_counts_and_events_follow_endpoint_lifetimes,
            sequence_numbers_start_at_one_and_grow_by_one_per_writer,
            source_timestamps_precede_reception_timestamps,
            publisher_ids_are_stable_per_writer_and_distinct_across_writers,
            the_graph_shows_other_participants_nodes_and_endpoints,
        }
    };
}

// ---- helpers shared by the checks ----

/// A domain id no other check or test, in this or another process, uses:
/// claimed host-wide for the rest of this process by binding the abstract
/// socket `hibari-test-domain/<id>`, as hibari's tests claim theirs
/// (crates/hibari-testkit, which this published crate cannot depend on).
pub fn unique_domain() -> DomainId {
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::net::{SocketAddr, UnixListener};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    static HELD: std::sync::Mutex<Vec<UnixListener>> = std::sync::Mutex::new(Vec::new());
    // hibari-testkit's range: ROS domains (DDS takes 0..=232), 0 left to
    // users and 200..=232 to manual runs.
    const FIRST: u32 = 1;
    const COUNT: u32 = 199;
    for _ in 0..COUNT {
        let id = FIRST + NEXT.fetch_add(1, Ordering::Relaxed) % COUNT;
        let name = format!("hibari-test-domain/{id}");
        let claim = SocketAddr::from_abstract_name(name).and_then(|a| UnixListener::bind_addr(&a));
        if let Ok(claim) = claim {
            HELD.lock().unwrap_or_else(|e| e.into_inner()).push(claim);
            return id;
        }
    }
    panic!("all {COUNT} test domains from {FIRST} are held by other processes")
}

/// A topic name no other check uses.
pub fn unique_topic(tag: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!(
        "/hibari_conformance/{tag}_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Two participants in a fresh domain, and a fresh topic.
pub(crate) struct Rig {
    pub a: Box<dyn Transport>,
    pub b: Box<dyn Transport>,
    pub topic: String,
}

impl Rig {
    pub fn new(f: &dyn TransportFactory, tag: &str) -> Self {
        let domain = unique_domain();
        Rig {
            a: f.open(domain),
            b: f.open(domain),
            topic: unique_topic(tag),
        }
    }

    pub fn spec(&self, qos: QosProfile) -> EndpointSpec {
        EndpointSpec::new::<Probe>(self.topic.clone(), qos)
    }

    pub fn writer(&self, qos: QosProfile) -> Box<dyn Writer> {
        self.writer_with(qos, WriterOptions::default())
    }

    pub fn writer_with(&self, qos: QosProfile, options: WriterOptions) -> Box<dyn Writer> {
        self.a
            .create_writer(&self.spec(qos), &options)
            .expect("create a writer")
    }

    /// A reader on the other participant.
    pub fn reader(&self, qos: QosProfile) -> Box<dyn Reader> {
        self.reader_with(qos, ReaderOptions::default())
    }

    pub fn reader_with(&self, qos: QosProfile, options: ReaderOptions) -> Box<dyn Reader> {
        self.b
            .create_reader(&self.spec(qos), &options)
            .expect("create a reader")
    }
}

/// Writes probe `index` of `tag`, expecting success.
pub(crate) fn write(w: &dyn Writer, tag: u32, index: u64) {
    w.write(Payload::from_message(Probe::new(tag, index)))
        .unwrap_or_else(|e| panic!("write {tag}/{index}: {e}"));
}

/// A waker that records calls and lets a thread wait for the next one.
#[derive(Default)]
pub(crate) struct Waiter {
    calls: Mutex<u64>,
    cv: Condvar,
}

impl Waiter {
    pub fn calls(&self) -> u64 {
        *self.calls.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until more than `seen` calls happened, or `timeout`.
    pub fn wait_past(&self, seen: u64, timeout: Duration) -> u64 {
        let guard = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        let (guard, _) = self
            .cv
            .wait_timeout_while(guard, timeout, |n| *n <= seen)
            .unwrap_or_else(|e| e.into_inner());
        *guard
    }
}

impl Notify for Waiter {
    fn notify(&self) {
        *self.calls.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.cv.notify_all();
    }
}

/// Polls `cond` until it holds or [`PATIENCE`] runs out; returns whether it held.
pub(crate) fn eventually(mut cond: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if cond() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Waits until `e` has `n` matched peers.
///
/// Each side sees a match on its own (over a network, discovery reaches the
/// writer and the reader at different times), and a writer delivers to the
/// readers it has matched, which a reader accepts from the writers it has
/// matched: a check that needs a sample to arrive waits for both sides.
pub(crate) fn wait_matched(e: &dyn crate::Endpoint, n: usize) {
    assert!(
        eventually(|| e.matched_count() == n),
        "expected {n} matched peers, have {} (status {:?})",
        e.matched_count(),
        e.status()
    );
}

/// Takes samples until `n` were taken, waiting on the reader's waker.
pub(crate) fn take_n(r: &dyn Reader, n: usize) -> Vec<Sample> {
    let waiter = Arc::new(Waiter::default());
    r.set_notify(Some(waiter.clone()));
    let deadline = Instant::now() + PATIENCE;
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let seen = waiter.calls();
        while out.len() < n {
            match r.take() {
                Some(s) => out.push(s),
                None => break,
            }
        }
        if out.len() == n {
            break;
        }
        let now = Instant::now();
        assert!(
            now < deadline,
            "took {} of {n} samples before the timeout",
            out.len()
        );
        waiter.wait_past(seen, (deadline - now).min(Duration::from_millis(100)));
    }
    r.set_notify(None);
    out
}

/// The probe in a sample.
pub(crate) fn probe(s: &Sample) -> Probe {
    s.payload
        .clone()
        .into_owned::<Probe>()
        .expect("a probe payload")
}
