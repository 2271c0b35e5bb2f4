//! The gate in front of an entity's C callback (`Gate`).

use std::sync::{Condvar, Mutex, PoisonError};
use std::thread::ThreadId;

use crate::handles::Close;

/// Keeps callbacks of a destroyed entity from running, and makes destroy
/// wait for one running on another thread: after `hibari_*_destroy`
/// returns, C may free the callback's `user_data` (unless it destroyed the
/// entity from inside that very callback: then it frees it after the
/// callback returns). An entity's callback never overlaps itself, even in a
/// reentrant callback group on a multi-threaded executor (hibari's
/// executors hold each entity's callback behind a lock that a second
/// thread does not wait for: it skips the entity), so one slot tells who
/// runs it.
#[derive(Default)]
pub(crate) struct Gate {
    state: Mutex<GateState>,
    done: Condvar,
}

#[derive(Default)]
struct GateState {
    closed: bool,
    running: Option<ThreadId>,
    /// Threads in `close` waiting for `running` to finish: only then does
    /// a callback's end notify (a notify is a system call every time, and
    /// this runs once per message).
    waiting: usize,
}

impl Gate {
    /// Runs `f` unless the gate is closed.
    pub fn run(&self, f: impl FnOnce()) {
        {
            let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            if s.closed {
                return;
            }
            s.running = Some(std::thread::current().id());
        }
        // Marks the slot free even if `f` unwinds (a Rust panic; C cannot).
        struct Leave<'a>(&'a Gate);
        impl Drop for Leave<'_> {
            fn drop(&mut self) {
                let mut s = self.0.state.lock().unwrap_or_else(PoisonError::into_inner);
                s.running = None;
                if s.waiting > 0 {
                    self.0.done.notify_all();
                }
            }
        }
        let _leave = Leave(self);
        f();
    }
}

impl Close for Gate {
    fn close(&self) {
        let me = std::thread::current().id();
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        s.closed = true;
        while s.running.is_some_and(|t| t != me) {
            s.waiting += 1;
            s = self.done.wait(s).unwrap_or_else(PoisonError::into_inner);
            s.waiting -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::{mpsc, Arc};
    use std::time::Duration;

    use super::*;

    #[test]
    fn close_waits_for_the_callback_running_on_another_thread() {
        let gate = Arc::new(Gate::default());
        let finished = Arc::new(AtomicBool::new(false));
        let (started, running) = mpsc::channel();
        let (release, released) = mpsc::channel::<()>();
        let runner = {
            let (gate, finished) = (gate.clone(), finished.clone());
            std::thread::spawn(move || {
                gate.run(|| {
                    started.send(()).unwrap();
                    // Held until the closing thread is (very likely) waiting.
                    let _ = released.recv_timeout(Duration::from_secs(10));
                    finished.store(true, Ordering::SeqCst);
                })
            })
        };
        running.recv().unwrap();
        let (closed, close_returned) = mpsc::channel();
        {
            let gate = gate.clone();
            std::thread::spawn(move || {
                gate.close();
                let _ = closed.send(());
            });
        }
        assert!(
            close_returned
                .recv_timeout(Duration::from_millis(50))
                .is_err(),
            "close returned while the callback ran"
        );
        release.send(()).unwrap();
        // A close never woken fails here instead of hanging the test.
        close_returned
            .recv_timeout(Duration::from_secs(10))
            .expect("close did not return once the callback ended");
        assert!(
            finished.load(Ordering::SeqCst),
            "close returned before the callback's end"
        );
        runner.join().unwrap();
    }

    #[test]
    fn a_closed_gate_runs_nothing_and_a_callback_may_close_its_own_gate() {
        let gate = Gate::default();
        let ran = AtomicUsize::new(0);
        gate.run(|| {
            ran.fetch_add(1, Ordering::SeqCst);
            gate.close(); // from inside: returns at once
        });
        gate.run(|| {
            ran.fetch_add(1, Ordering::SeqCst);
        });
        assert_eq!(ran.load(Ordering::SeqCst), 1);
    }
}
