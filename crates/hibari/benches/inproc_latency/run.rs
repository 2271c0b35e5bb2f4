//! One run: a publisher thread and an executor thread, pinned, a pool of
//! frames going round, the latencies and (if asked) the CPU they used.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Barrier, Condvar, Mutex};
use std::time::{Duration, Instant};

use hibari::msg::sensor_msgs::msg::Image;
use hibari::msg::std_msgs::msg::UInt8MultiArray;
use hibari::transports::now_ns;
use hibari::{Context, Message, QosProfile, SampleInfo, SingleThreadedExecutor};

use crate::proc_stats::{self, ThreadSample};

/// A message the bench sends: made ahead of time, with a buffer whose
/// address tells a move from a copy.
pub trait Frame: Message {
    const LABEL: &'static str;
    fn make() -> Self;
    fn buffer(&self) -> usize;
    fn bytes(&self) -> usize;
}

impl Frame for UInt8MultiArray {
    const LABEL: &'static str = "UInt8MultiArray 64 B";
    fn make() -> Self {
        UInt8MultiArray {
            data: vec![0xa5; 64],
            ..Default::default()
        }
    }
    fn buffer(&self) -> usize {
        self.data.as_ptr() as usize
    }
    fn bytes(&self) -> usize {
        self.data.len()
    }
}

impl Frame for Image {
    const LABEL: &'static str = "Image 1920x1080 rgb8";
    fn make() -> Self {
        let (width, height) = (1920u32, 1080u32);
        let data = (0..width as usize * height as usize * 3)
            .map(|i| (i % 251) as u8)
            .collect();
        Image {
            width,
            height,
            encoding: "rgb8".into(),
            step: width * 3,
            data,
            ..Default::default()
        }
    }
    fn buffer(&self) -> usize {
        self.data.as_ptr() as usize
    }
    fn bytes(&self) -> usize {
        self.data.len()
    }
}

/// Where the two threads run.
#[derive(Clone, Copy, Debug)]
pub struct Placement {
    pub name: &'static str,
    pub executor_core: usize,
    pub publisher_core: usize,
}

/// One run's settings.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    pub rate_hz: f64,
    pub messages: usize,
    /// The first messages, left out of the statistics.
    pub warmup: usize,
    pub pool: usize,
    /// How long before a message is due the publisher stops sleeping and spins.
    pub spin_before: Duration,
    pub measure_cpu: bool,
    /// Instead of an executor, the receiving thread spins on
    /// `Subscription::take` (never sleeps): the transport without the wake-up.
    pub busy_take: bool,
}

/// What one run measured.
#[derive(Debug, Default)]
pub struct Outcome {
    pub message: &'static str,
    /// What received: the executor, a thread spinning on `take`, a Condvar.
    pub receiver: &'static str,
    pub bytes: usize,
    /// Latency from the due time and from the source timestamp, ns, after warm-up.
    pub from_send: Vec<u64>,
    pub from_source: Vec<u64>,
    pub received: usize,
    pub copies: usize,
    /// Whether `copies` was checked (not by the Condvar floor).
    pub checks_copies: bool,
    pub lost: u64,
    pub publish_errors: usize,
    pub cpu: Option<CpuOutcome>,
}

/// CPU over a run.
#[derive(Debug)]
pub struct CpuOutcome {
    pub wall: Duration,
    pub publisher: ThreadSample,
    pub executor: ThreadSample,
    pub process: Duration,
}

pub fn pin(core: usize) {
    if !core_affinity::set_for_current(core_affinity::CoreId { id: core }) {
        eprintln!("warning: could not pin a thread to core {core}");
    }
}

/// Waits until `due` (ns, [`now_ns`]'s clock): sleeps, then spins the last `spin`.
pub fn wait_until(due: i64, spin: Duration) {
    let spin = i64::try_from(spin.as_nanos()).unwrap_or(i64::MAX);
    loop {
        let left = due - now_ns();
        if left <= 0 {
            return;
        }
        if left > spin {
            std::thread::sleep(Duration::from_nanos((left - spin) as u64));
        } else {
            std::hint::spin_loop();
        }
    }
}

pub fn run<M: Frame>(
    placement: Placement,
    plan: Plan,
) -> Result<Outcome, Box<dyn std::error::Error>> {
    let context = Context::builder().isolated().create()?;
    let talker = context.create_node("bench_publisher")?;
    let listener = context.create_node("bench_subscriber")?;
    let qos = QosProfile::default().keep_last(plan.pool);
    let publisher = talker.create_publisher::<M>("bench", qos)?;

    let (pool_back, pool) = mpsc::sync_channel::<M>(plan.pool);
    let mut bytes = 0;
    for _ in 0..plan.pool {
        let frame = M::make();
        bytes = frame.bytes();
        pool_back.send(frame)?;
    }
    let expected: Arc<[AtomicUsize]> = (0..plan.messages).map(|_| AtomicUsize::new(0)).collect();
    let start_ns = Arc::new(AtomicI64::new(0));
    let period_ns = (1e9 / plan.rate_hz) as i64;
    let tally = Arc::new((Mutex::new(Outcome::default()), Condvar::new()));
    {
        let mut t = tally.0.lock().map_err(|_| "poisoned")?;
        t.from_send.reserve(plan.messages);
        t.from_source.reserve(plan.messages);
    }
    let (expected_cb, start_cb, tally_cb) = (expected.clone(), start_ns.clone(), tally.clone());
    let mut record = Some(move |msg: M, info: SampleInfo| {
        let now = now_ns();
        let k = (info.sequence - 1) as usize;
        let due = start_cb.load(Ordering::Acquire) + k as i64 * period_ns;
        let moved = expected_cb
            .get(k)
            .is_some_and(|a| a.load(Ordering::Acquire) == msg.buffer());
        let _ = pool_back.try_send(msg);
        let (lock, done) = &*tally_cb;
        let mut o = lock.lock().unwrap_or_else(|e| e.into_inner());
        if k >= plan.warmup {
            o.from_send.push((now - due).max(0) as u64);
            o.from_source
                .push((now - info.source_timestamp_ns).max(0) as u64);
        }
        o.received += 1;
        o.copies += usize::from(!moved);
        o.lost += info.lost_before;
        if o.received == plan.messages {
            done.notify_all();
        }
    });
    let (_subscription, polled) = if plan.busy_take {
        let polled = listener.create_polled_subscription::<M>("bench", qos)?;
        (None, Some(polled))
    } else {
        let callback = record.take().ok_or("the callback is made above")?;
        let subscription = listener.create_subscription("bench", qos, callback)?;
        (Some(subscription), None)
    };
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&listener)?;
    let stop = AtomicBool::new(false);

    // Both threads start together; the publisher stays alive until its
    // counters have been read at the end.
    let (ready, finished) = (Barrier::new(3), Barrier::new(2));
    let (tid_tx, tid_rx) = mpsc::channel();
    let outcome = std::thread::scope(|s| -> Result<Outcome, Box<dyn std::error::Error>> {
        let executor_tid = tid_tx.clone();
        let (executor, ready, stop) = (&executor, &ready, &stop);
        s.spawn(move || {
            pin(placement.executor_core);
            let _ = executor_tid.send(("executor", proc_stats::current_tid()));
            ready.wait();
            match (polled, record) {
                (Some(subscription), Some(record)) => {
                    while !stop.load(Ordering::Relaxed) {
                        match subscription.take() {
                            Some((msg, info)) => record(msg, info),
                            None => std::hint::spin_loop(),
                        }
                    }
                }
                _ => executor.spin(),
            }
        });
        let (publisher, expected, start_ns, finished) =
            (&publisher, &expected, &start_ns, &finished);
        let sender = s.spawn(move || {
            pin(placement.publisher_core);
            let _ = tid_tx.send(("publisher", proc_stats::current_tid()));
            ready.wait();
            let start = now_ns() + 20_000_000;
            start_ns.store(start, Ordering::Release);
            let mut errors = 0;
            for k in 0..plan.messages {
                // Frames come back from the callback; none is lost unless
                // the run is failing, which must not hang it.
                let Ok(frame) = pool.recv_timeout(Duration::from_secs(10)) else {
                    break;
                };
                expected[k].store(frame.buffer(), Ordering::Release);
                wait_until(start + k as i64 * period_ns, plan.spin_before);
                errors += usize::from(publisher.publish(frame).is_err());
            }
            finished.wait();
            errors
        });
        let mut tids = [0; 2];
        for (who, tid) in tid_rx.iter().take(2) {
            tids[usize::from(who == "publisher")] = tid.unwrap_or(0);
        }
        ready.wait();
        let (cpu0, t0) = (tids.map(ThreadSample::read), Instant::now());
        let process0 = proc_stats::process_cpu();
        let patience = Duration::from_secs_f64(plan.messages as f64 / plan.rate_hz + 20.0);
        let (lock, done) = &*tally;
        let guard = lock.lock().map_err(|_| "poisoned")?;
        let (mut guard, _) = done
            .wait_timeout_while(guard, patience, |o| o.received < plan.messages)
            .map_err(|_| "poisoned")?;
        let wall = t0.elapsed();
        let cpu1 = tids.map(ThreadSample::read);
        let process = proc_stats::process_cpu().saturating_sub(process0);
        finished.wait();
        stop.store(true, Ordering::Relaxed);
        executor.cancel();
        let mut outcome = std::mem::take(&mut *guard);
        drop(guard);
        outcome.publish_errors = sender.join().map_err(|_| "the publisher panicked")?;
        outcome.cpu = plan.measure_cpu.then(|| CpuOutcome {
            wall,
            executor: cpu1[0].since(&cpu0[0]),
            publisher: cpu1[1].since(&cpu0[1]),
            process,
        });
        Ok(outcome)
    })?;
    Ok(Outcome {
        message: M::LABEL,
        receiver: if plan.busy_take {
            "busy take()"
        } else {
            "executor"
        },
        bytes,
        checks_copies: true,
        ..outcome
    })
}
