//! Ending a command cleanly: Ctrl-C, SIGTERM and SIGHUP set one flag of the
//! process that loops check and sleeps wake on, so a recorder closes its
//! bag and every command exits 0 instead of dying.

use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Instant;

/// Set by Ctrl-C, SIGTERM or SIGHUP; what long-running commands sleep on.
pub(crate) struct Stop {
    stopped: Mutex<bool>,
    wake: Condvar,
    on_stop: Mutex<Vec<Box<dyn Fn() + Send>>>,
}

impl Stop {
    /// The process's stop, its signal handler installed on first use.
    pub(crate) fn global() -> Arc<Stop> {
        static STOP: OnceLock<Arc<Stop>> = OnceLock::new();
        STOP.get_or_init(|| {
            let stop = Arc::new(Stop {
                stopped: Mutex::new(false),
                wake: Condvar::new(),
                on_stop: Mutex::new(Vec::new()),
            });
            let s = stop.clone();
            // Failing to install leaves the default: the signal ends the
            // process, which leaves nothing behind for other processes.
            if let Err(e) = ctrlc::set_handler(move || s.trigger()) {
                eprintln!("warning: Ctrl-C will not end this command cleanly: {e}");
            }
            stop
        })
        .clone()
    }

    pub(crate) fn trigger(&self) {
        *lock(&self.stopped) = true;
        self.wake.notify_all();
        for hook in lock(&self.on_stop).iter() {
            hook();
        }
    }

    /// Runs `hook` on stop (it must not block): an executor's `cancel`.
    pub(crate) fn on_stop(&self, hook: impl Fn() + Send + 'static) {
        lock(&self.on_stop).push(Box::new(hook));
    }

    pub(crate) fn is_set(&self) -> bool {
        *lock(&self.stopped)
    }

    /// Sleeps until `deadline`; returns `true` if stopped meanwhile (or before).
    pub(crate) fn sleep_until(&self, deadline: Instant) -> bool {
        let mut stopped = lock(&self.stopped);
        loop {
            if *stopped {
                return true;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            stopped = self
                .wake
                .wait_timeout(stopped, deadline - now)
                .map(|(guard, _)| guard)
                .unwrap_or_else(|e| e.into_inner().0);
        }
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
