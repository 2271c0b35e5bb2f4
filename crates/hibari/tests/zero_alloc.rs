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
use hibari::{Context, QosProfile, SingleThreadedExecutor};
use hibari_testkit::TestDomain;

const CHILD: &str = "HIBARI_TEST_CHILD";
const TOPIC: &str = "/zero_alloc/image";
/// Samples sent before counting starts, and counted samples.
const WARMUP: u64 = 200;
const MEASURED: u64 = 1000;
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

/// The publisher process: warm-up sends, then counted ones, paced so that a
/// keep-last history never has to drop; prints `ALLOCS n` for the counted
/// sends. A helper the test runs, not a test of its own.
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
        .create_publisher::<Image>(TOPIC, QosProfile::default().reliable().keep_last(16))
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
        std::thread::sleep(Duration::from_micros(500));
        if i + 1 == WARMUP + MEASURED {
            counted = stop_counting();
        }
    }
    println!("ALLOCS {counted}");
    // Stay until the parent has taken every sample (it kills us).
    std::thread::sleep(Duration::from_secs(60));
}

/// Not met yet (issue 16). Measured 5 allocations per message sending and
/// about 7 taking; after this test's first fixes (the hole's field name kept
/// inline, `FanoutLoan` without a list of the other writers, the executor's
/// poll sets on the stack) 2 sending and 4 taking (`(2000, 4000)`).
/// Backtraces taken in this allocator name what is left: sending, the two
/// `Box<dyn WriterLoan>` of the transport contract's `Writer::loan` (the
/// shared-memory loan and the fanout's around it); taking, the view's two
/// strings (`header.frame_id`, `encoding`: `CdrReader::read_str` copies them
/// out of shared memory into `String`s), `Arc<Held>` in the shared-memory
/// reader's `take`, and while the publisher's pool still grows, the new
/// segment's `Arc<Mapping>` and the socket message that announces it.
#[test]
#[ignore = "issue 16: the hot path still allocates (2 per message sending, 4 taking); see the doc comment"]
fn loan_send_and_view_take_make_no_allocation_per_message_between_processes() {
    let reserved = TestDomain::reserve();
    let ctx = Context::with_domain(reserved.id());
    let node = ctx.create_node("zero_alloc_sub").unwrap();
    let received = Arc::new(AtomicU64::new(0));
    let bad = Arc::new(AtomicU64::new(0));
    let (r, b) = (received.clone(), bad.clone());
    let _sub = node
        .create_view_subscription::<Image, _>(
            TOPIC,
            QosProfile::default().reliable().keep_last(16),
            move |view, info| {
                let n = r.fetch_add(1, Ordering::Relaxed) + 1;
                // Every counted sample is checked where it lies, in place.
                let want = (info.sequence - 1) as u8;
                let pixels = view.data.as_bytes();
                let len = pixels.len();
                if len != (WIDTH * HEIGHT * 3) as usize
                    || pixels.get(0) != Some(want)
                    || pixels.get(len - 1) != Some(want)
                {
                    b.fetch_add(1, Ordering::Relaxed);
                }
                if n == WARMUP {
                    start_counting();
                }
            },
        )
        .unwrap();
    let child = publisher(&reserved, "loan");
    let exec = SingleThreadedExecutor::new();
    exec.add_node(&node).unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while received.load(Ordering::Relaxed) < WARMUP + MEASURED && Instant::now() < deadline {
        exec.spin_once(Duration::from_millis(100));
    }
    let taking = stop_counting();
    assert_eq!(received.load(Ordering::Relaxed), WARMUP + MEASURED);
    assert_eq!(bad.load(Ordering::Relaxed), 0, "samples not as sent");
    let sending = sent_allocations(child);
    assert_eq!(
        (sending, taking),
        (0, 0),
        "allocations over {MEASURED} messages: (loan + send, executor + view take)"
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
/// thread, no executor). Not met yet: measured `(2000, 1000)`, 2
/// allocations per message sending (the same two `Box<dyn WriterLoan>` as the
/// loan path: `publish_ref` encodes into a loan) and 1 taking (the
/// shared-memory reader's `Arc<Held>`); the frame's own buffer is reused on
/// both sides.
#[test]
#[ignore = "issue 16: publish_ref and take_into still allocate (2 per message sending, 1 taking); see the doc comment"]
fn publish_ref_and_take_into_make_no_allocation_per_message_between_processes() {
    let reserved = TestDomain::reserve();
    let ctx = Context::with_domain(reserved.id());
    let node = ctx.create_node("zero_alloc_sub").unwrap();
    let qos = QosProfile::default().reliable().keep_last(16);
    let sub = node
        .create_subscription(TOPIC, qos, |_: &Image| {})
        .unwrap();
    let child = publisher(&reserved, "reused");
    let mut kept = Image::default();
    let (mut received, mut bad) = (0u64, 0u64);
    let deadline = Instant::now() + Duration::from_secs(60);
    while received < WARMUP + MEASURED && Instant::now() < deadline {
        let Some(info) = sub.take_into(&mut kept) else {
            std::thread::sleep(Duration::from_micros(50));
            continue;
        };
        received += 1;
        let want = (info.sequence - 1) as u8;
        let whole = kept.data.len() == (WIDTH * HEIGHT * 3) as usize;
        if !whole || kept.data.first() != Some(&want) || kept.data.last() != Some(&want) {
            bad += 1;
        }
        if received == WARMUP {
            start_counting();
        }
    }
    let taking = stop_counting();
    assert_eq!(received, WARMUP + MEASURED);
    assert_eq!(bad, 0, "samples not as sent");
    let sending = sent_allocations(child);
    assert_eq!(
        (sending, taking),
        (0, 0),
        "allocations over {MEASURED} messages: (publish_ref, take_into)"
    );
}
