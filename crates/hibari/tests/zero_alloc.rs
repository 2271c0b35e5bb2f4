//! The hot paths between two processes never touch the heap: after warm-up,
//! a publisher's `loan_message` → fill → `send` and a subscriber's executor
//! taking each sample into a view callback, and a publisher's `publish_ref`
//! of one message it keeps and refills to a subscriber that `take_into`s
//! one message it keeps, make no allocation per message (issue 16's
//! real-time requirement).
//!
//! A counting global allocator counts, per thread, the allocations made while
//! the thread has switched counting on: the publishing thread around its
//! measured sends, the executor's thread between the first and the last
//! measured callbacks. Both processes run with `HIBARI_TRANSPORT=shm`, what
//! hibari picks on one host; DDS (off here) has a thread of its own, not
//! these. The publisher is this test binary run again with
//! `HIBARI_TEST_CHILD` set (`--ignored --exact child`): an ignored helper,
//! never counted as a passing test.
//!
//! `unsafe` here: `GlobalAlloc` is an unsafe trait; the allocator forwards
//! every call unchanged to `System`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hibari::msg::sensor_msgs::msg::Image;
use hibari::{Context, QosProfile, SampleInfo, SingleThreadedExecutor};
use hibari_testkit::TestDomain;

const CHILD: &str = "HIBARI_TEST_CHILD";
/// Set, the first counted allocations print their backtraces.
const TRACE: &str = "HIBARI_ZERO_ALLOC_TRACE";
const TOPIC: &str = "/zero_alloc/image";
/// Samples sent before counting starts, and counted samples.
const WARMUP: u64 = 200;
const MEASURED: u64 = 1000;
/// The first warm-up samples go out back to back: the subscriber falls
/// behind, so the publisher's memory (shared-memory chunks, its books of
/// them) grows to the most a keep-last(`DEPTH`) subscriber can make it
/// hold, which the paced, counted samples then never exceed. Some of the
/// burst may be overwritten before they are taken (keep-last): the
/// subscriber counts by sequence number, not by samples taken.
const BURST: u64 = 64;
const DEPTH: usize = 16;
/// Allocations allowed on each side over the counted samples, none of them
/// per message: should a subscriber stall longer than the burst made it
/// (a loaded machine), the publisher's memory grows once more — a new
/// segment (its memfd's name, the mapping, the socket message announcing
/// it: 5 allocations measured) and its books of chunks — and the
/// subscriber maps that segment (2). A message-by-message allocation makes
/// 1 000 or more.
const GROWTH: u64 = 12;
/// The last sample's sequence number.
const LAST: u64 = WARMUP + MEASURED;
/// A 640x480 rgb8 frame (E1's image).
const WIDTH: u32 = 640;
const HEIGHT: u32 = 480;

struct Counting;

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<u64> = const { Cell::new(0) };
}

fn note_alloc() {
    // `try_with`: a thread being torn down has no locals left; not counted.
    let _ = ON.try_with(|on| {
        if on.get() {
            let _ = COUNT.try_with(|c| c.set(c.get() + 1));
            // What allocated: the first few counted allocations' backtraces
            // with `HIBARI_ZERO_ALLOC_TRACE` set (counting is off meanwhile:
            // reading the variable and printing allocate).
            on.set(false);
            if COUNT.with(Cell::get) <= 8 && std::env::var_os(TRACE).is_some() {
                eprintln!("ALLOC\n{}", std::backtrace::Backtrace::force_capture());
            }
            on.set(true);
        }
    });
}

// SAFETY: every method forwards its arguments unchanged to `System`, which
// upholds `GlobalAlloc`'s contract; the counting touches only const-initialized
// thread locals without destructors, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_alloc();
        // SAFETY: the caller's `layout` contract is `System.alloc`'s.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_alloc();
        // SAFETY: as `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_alloc();
        // SAFETY: `ptr` came from this allocator, that is from `System`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, that is from `System`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Counts this thread's allocations from now on.
fn start_counting() {
    COUNT.with(|c| c.set(0));
    ON.with(|on| on.set(true));
}

/// Stops counting; returns this thread's allocations since `start_counting`.
fn stop_counting() -> u64 {
    ON.with(|on| on.set(false));
    COUNT.with(Cell::get)
}

fn header() -> Image {
    Image {
        height: HEIGHT,
        width: WIDTH,
        encoding: "rgb8".into(),
        step: WIDTH * 3,
        ..Default::default()
    }
}

/// Kills the child when dropped, so a failing test leaves no process behind.
struct Kill(Child);

impl Drop for Kill {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The publisher process: warm-up sends (a burst, then paced), then counted
/// ones, paced so that a keep-last history never has to drop; prints
/// `ALLOCS n` for the counted sends. A helper the test runs, not a test of its own.
#[test]
#[ignore = "the publisher process of this file's test, run by it"]
fn child() {
    assert!(
        std::env::var(CHILD).is_ok(),
        "`child` is the other process of this file's test; it runs it with {CHILD} set"
    );
    let reused = std::env::var(CHILD).is_ok_and(|m| m == "reused");
    let ctx = Context::new().unwrap();
    let node = ctx.create_node("zero_alloc_pub").unwrap();
    let p = node
        .create_publisher::<Image>(TOPIC, QosProfile::default().reliable().keep_last(DEPTH))
        .unwrap();
    assert!(p.wait_for_subscribers(1, Duration::from_secs(20)));
    let header = header();
    let pixels = (WIDTH * HEIGHT * 3) as usize;
    let mut kept = Image {
        data: vec![0; pixels],
        ..header.clone()
    };
    let mut counted = 0;
    for i in 0..WARMUP + MEASURED {
        if i == WARMUP {
            start_counting();
        }
        if reused {
            kept.data.fill(i as u8);
            p.publish_ref(&kept).unwrap();
        } else {
            let (mut loan, hole) = p.loan_message(&header, "data", pixels).unwrap();
            loan[hole].fill(i as u8);
            loan.send().unwrap();
        }
        if i >= BURST {
            std::thread::sleep(Duration::from_micros(500));
        }
        if i + 1 == WARMUP + MEASURED {
            counted = stop_counting();
        }
    }
    println!("ALLOCS {counted}");
    // Stay until the parent has taken every sample (it kills us).
    std::thread::sleep(Duration::from_secs(60));
}

/// The loan path: `loan_message` → fill → `send` in the publisher, a view
/// callback run by the executor in the subscriber. What made it allocate
/// before, and what took it away (issue 16): the transport contract's loan
/// was two `Box<dyn WriterLoan>` (now a plain `WriterLoan` value and a
/// ticket); each taken sample was an `Arc` guard (now a slot of the link's
/// table, counted by hand); the view's strings (`header.frame_id`,
/// `encoding`) were `String`s copied out of shared memory (now `ViewStr`,
/// inline up to 30 bytes). Backtraces of what allocates, should it come
/// back: set `HIBARI_ZERO_ALLOC_TRACE`.
#[test]
fn loan_send_and_view_take_make_no_allocation_per_message_between_processes() {
    let reserved = TestDomain::reserve();
    let ctx = Context::with_domain(reserved.id());
    let node = ctx.create_node("zero_alloc_sub").unwrap();
    let latest = Arc::new(AtomicU64::new(0));
    let bad = Arc::new(AtomicU64::new(0));
    let (l, b) = (latest.clone(), bad.clone());
    let _sub = node
        .create_view_subscription::<Image, _>(
            TOPIC,
            QosProfile::default().reliable().keep_last(DEPTH),
            move |view, info| {
                let before = l.swap(info.sequence, Ordering::Relaxed);
                // Every sample is checked where it lies, in place.
                let want = (info.sequence - 1) as u8;
                let pixels = view.data.as_bytes();
                let len = pixels.len();
                if len != (WIDTH * HEIGHT * 3) as usize
                    || pixels.get(0) != Some(want)
                    || pixels.get(len - 1) != Some(want)
                    || view.encoding != "rgb8"
                {
                    b.fetch_add(1, Ordering::Relaxed);
                }
                if before < WARMUP && info.sequence >= WARMUP {
                    start_counting();
                }
            },
        )
        .unwrap();
    let child = publisher(&reserved, "loan");
    spin_and_count(
        &node,
        &latest,
        &bad,
        child,
        "loan + send, executor + view take",
    );
}

/// Spins `node` until the last sample came (its callback stores the latest
/// sequence in `latest`, counts bad samples in `bad` and starts counting
/// after the warm-up), then checks what both sides allocated.
fn spin_and_count(
    node: &hibari::Node,
    latest: &AtomicU64,
    bad: &AtomicU64,
    child: Kill,
    what: &str,
) {
    let exec = SingleThreadedExecutor::new();
    exec.add_node(node).unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while latest.load(Ordering::Relaxed) < LAST && Instant::now() < deadline {
        exec.spin_once(Duration::from_millis(100));
    }
    let taking = stop_counting();
    assert_eq!(latest.load(Ordering::Relaxed), LAST, "the last sample came");
    assert_eq!(bad.load(Ordering::Relaxed), 0, "samples not as sent");
    let sending = sent_allocations(child);
    assert!(
        sending <= GROWTH && taking <= GROWTH,
        "allocations over {MEASURED} messages: {:?} ({what}), more than the {GROWTH} of memory growth",
        (sending, taking)
    );
}

/// The publisher process in `mode` (`loan` or `reused`).
fn publisher(domain: &TestDomain, mode: &str) -> Kill {
    Kill(
        Command::new(std::env::current_exe().unwrap())
            .args(["--ignored", "--exact", "child", "--nocapture"])
            .env(CHILD, mode)
            .env("ROS_DOMAIN_ID", domain.id().to_string())
            .env("HIBARI_TRANSPORT", "shm")
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn the publisher"),
    )
}

/// The allocations the publisher counted over its measured sends.
fn sent_allocations(mut child: Kill) -> u64 {
    let stdout = child.0.stdout.take().unwrap();
    let line = BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .find(|l| l.starts_with("ALLOCS "))
        .expect("the publisher reports its allocations");
    line["ALLOCS ".len()..].trim().parse().unwrap()
}

/// A reused message both ways: `publish_ref` of one `Image` the publisher
/// refills, `take_into` one `Image` the subscriber keeps (polled on this
/// thread, no executor); the frame's own buffer is reused on both sides.
#[test]
fn publish_ref_and_take_into_make_no_allocation_per_message_between_processes() {
    let reserved = TestDomain::reserve();
    let ctx = Context::with_domain(reserved.id());
    let node = ctx.create_node("zero_alloc_sub").unwrap();
    let qos = QosProfile::default().reliable().keep_last(DEPTH);
    let sub = node
        .create_subscription(TOPIC, qos, |_: &Image| {})
        .unwrap();
    let child = publisher(&reserved, "reused");
    let mut kept = Image::default();
    let (mut latest, mut bad) = (0u64, 0u64);
    let deadline = Instant::now() + Duration::from_secs(60);
    while latest < LAST && Instant::now() < deadline {
        let Some(info) = sub.take_into(&mut kept) else {
            std::thread::sleep(Duration::from_micros(50));
            continue;
        };
        let before = std::mem::replace(&mut latest, info.sequence);
        let want = (info.sequence - 1) as u8;
        let whole = kept.data.len() == (WIDTH * HEIGHT * 3) as usize;
        if !whole || kept.data.first() != Some(&want) || kept.data.last() != Some(&want) {
            bad += 1;
        }
        if before < WARMUP && info.sequence >= WARMUP {
            start_counting();
        }
    }
    let taking = stop_counting();
    assert_eq!(latest, LAST, "the last sample came");
    assert_eq!(bad, 0, "samples not as sent");
    let sending = sent_allocations(child);
    assert!(
        sending <= GROWTH && taking <= GROWTH,
        "allocations over {MEASURED} messages: {:?} (publish_ref, take_into), more than the {GROWTH} of memory growth",
        (sending, taking)
    );
}

/// `publish_ref` to a borrowed callback (`FnMut(&Image, &SampleInfo)`) run
/// by an executor: the subscription decodes each sample into a message it
/// keeps, reusing the frame's buffer, so taking allocates nothing either.
#[test]
fn publish_ref_to_a_borrowed_callback_makes_no_allocation_per_message_between_processes() {
    let reserved = TestDomain::reserve();
    let ctx = Context::with_domain(reserved.id());
    let node = ctx.create_node("zero_alloc_sub").unwrap();
    let latest = Arc::new(AtomicU64::new(0));
    let bad = Arc::new(AtomicU64::new(0));
    let (l, b) = (latest.clone(), bad.clone());
    let _sub = node
        .create_subscription(
            TOPIC,
            QosProfile::default().reliable().keep_last(DEPTH),
            move |m: &Image, info: &SampleInfo| {
                let before = l.swap(info.sequence, Ordering::Relaxed);
                let want = (info.sequence - 1) as u8;
                let whole = m.data.len() == (WIDTH * HEIGHT * 3) as usize;
                if !whole || m.data.first() != Some(&want) || m.data.last() != Some(&want) {
                    b.fetch_add(1, Ordering::Relaxed);
                }
                if before < WARMUP && info.sequence >= WARMUP {
                    start_counting();
                }
            },
        )
        .unwrap();
    let child = publisher(&reserved, "reused");
    let what = "publish_ref, executor + borrowed callback";
    spin_and_count(&node, &latest, &bad, child, what);
}
