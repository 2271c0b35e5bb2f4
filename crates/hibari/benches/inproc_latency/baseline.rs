//! The floor under the numbers: the same two pinned threads and the same
//! open-loop schedule, with no hibari at all — the publisher stores a stamp
//! under a `Mutex` and notifies a `Condvar`; the other thread, asleep on it,
//! reads the clock as soon as it wakes. An executor that sleeps until woken
//! (as hibari's does, to use no CPU when idle) cannot beat this.

use std::sync::{Condvar, Mutex};

use hibari::transports::now_ns;

use crate::run::{pin, wait_until, Outcome, Placement, Plan};

#[derive(Default)]
struct Slot {
    /// How many stamps were posted.
    posted: usize,
    /// When the last one was due and when it was posted.
    due_ns: i64,
    posted_ns: i64,
}

/// Runs the schedule of `plan` through a bare `Condvar`.
pub fn run(placement: Placement, plan: Plan) -> Outcome {
    let slot = Mutex::new(Slot::default());
    let wake = Condvar::new();
    let lock = || slot.lock().unwrap_or_else(|e| e.into_inner());
    let mut outcome = std::thread::scope(|s| {
        let waiter = s.spawn(|| {
            pin(placement.executor_core);
            let mut outcome = Outcome::default();
            let mut seen = 0;
            let mut guard = lock();
            while seen < plan.messages {
                guard = wake
                    .wait_while(guard, |s| s.posted == seen)
                    .unwrap_or_else(|e| e.into_inner());
                let now = now_ns();
                if seen >= plan.warmup {
                    outcome.from_send.push((now - guard.due_ns).max(0) as u64);
                    outcome
                        .from_source
                        .push((now - guard.posted_ns).max(0) as u64);
                }
                // Stamps posted again before this thread woke are lost.
                outcome.lost += (guard.posted - seen - 1) as u64;
                outcome.received += 1;
                seen = guard.posted;
            }
            outcome
        });
        s.spawn(|| {
            pin(placement.publisher_core);
            let start = now_ns() + 20_000_000;
            let period_ns = (1e9 / plan.rate_hz) as i64;
            for k in 0..plan.messages {
                let due = start + k as i64 * period_ns;
                wait_until(due, plan.spin_before);
                let mut s = lock();
                (s.posted, s.due_ns, s.posted_ns) = (k + 1, due, now_ns());
                drop(s);
                wake.notify_one();
            }
        });
        waiter.join().unwrap_or_default()
    });
    outcome.message = "a stamp";
    outcome.receiver = "bare Condvar";
    outcome
}
