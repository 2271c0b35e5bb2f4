//! What the monitor is told (samples, publishes, assertions), what it is
//! asked (statuses), and what the executor has it do (run a callback).

use std::sync::atomic::Ordering;
use std::sync::TryLockError;
use std::time::{Duration, Instant};

use super::*;

/// One callback's call, its status taken out of the state.
enum Delivery {
    Matched(MatchedStatus),
    IncompatibleQos(IncompatibleQosStatus),
    IncompatibleType(IncompatibleTypeStatus),
    Deadline(DeadlineMissedStatus),
    LivelinessLost(LivelinessLostStatus),
    LivelinessChanged(LivelinessChangedStatus),
    MessageLost(MessageLostStatus),
}

impl Delivery {
    /// Snapshots the status of `bit` and resets its changes.
    fn take(side: Side, s: &mut Statuses, bit: u8) -> Delivery {
        match bit {
            MATCHED => {
                let out = s.matched.clone();
                s.matched.total_count_change = 0;
                s.matched.current_count_change = 0;
                Delivery::Matched(out)
            }
            INCOMPATIBLE_QOS => {
                let out = s.incompatible_qos.clone();
                s.incompatible_qos.total_count_change = 0;
                Delivery::IncompatibleQos(out)
            }
            INCOMPATIBLE_TYPE => {
                let out = s.incompatible_type.clone();
                s.incompatible_type.total_count_change = 0;
                Delivery::IncompatibleType(out)
            }
            DEADLINE => {
                let out = s.deadline_missed.clone();
                s.deadline_missed.total_count_change = 0;
                Delivery::Deadline(out)
            }
            LIVELINESS if side == Side::Publisher => {
                let out = s.liveliness_lost.clone();
                s.liveliness_lost.total_count_change = 0;
                Delivery::LivelinessLost(out)
            }
            LIVELINESS => {
                let out = s.liveliness_changed.clone();
                s.liveliness_changed.alive_count_change = 0;
                s.liveliness_changed.not_alive_count_change = 0;
                Delivery::LivelinessChanged(out)
            }
            _ => {
                let out = s.message_lost.clone();
                s.message_lost.total_count_change = 0;
                Delivery::MessageLost(out)
            }
        }
    }

    fn call(self, c: &mut Callbacks) {
        fn call<S>(callback: &mut Option<crate::events::EventCallback<S>>, status: S) {
            if let Some(callback) = callback {
                callback(&status);
            }
        }
        match self {
            Delivery::Matched(s) => call(&mut c.matched, s),
            Delivery::IncompatibleQos(s) => call(&mut c.incompatible_qos, s),
            Delivery::IncompatibleType(s) => call(&mut c.incompatible_type, s),
            Delivery::Deadline(s) => call(&mut c.deadline_missed, s),
            Delivery::LivelinessLost(s) => call(&mut c.liveliness_lost, s),
            Delivery::LivelinessChanged(s) => call(&mut c.liveliness_changed, s),
            Delivery::MessageLost(s) => call(&mut c.message_lost, s),
        }
    }
}

impl EventMonitor {
    /// A subscription took a sample (from the executor or a polled take).
    /// Free unless the sample reports loss, or the QoS sets a deadline, or a
    /// matched publisher has a lease.
    pub fn on_sample<E: Endpoint + ?Sized>(&self, info: &SampleInfo, endpoint: &E) {
        let leased = self.leased_writers.load(Ordering::Acquire);
        if info.lost_before == 0 && self.deadline.is_none() && !leased {
            return;
        }
        let t = info.reception_timestamp_ns;
        let mut guard = lock(&self.state);
        let st = &mut *guard;
        let mut bits = 0;
        if info.lost_before > 0 {
            st.status.message_lost.total_count += info.lost_before;
            st.status.message_lost.total_count_change += info.lost_before;
            bits |= MESSAGE_LOST;
        }
        let (b, mut lowered) = self.deadline_at(st, t, true);
        bits |= b;
        if leased {
            let id = info.publisher_id;
            let mut heard = st.writers.heard(id, t, &mut st.status.liveliness_changed);
            if heard.is_none() {
                // Its match may still wait in the transport.
                let (b, l) = self.pump(st, endpoint);
                bits |= b;
                lowered |= l;
                heard = st.writers.heard(id, t, &mut st.status.liveliness_changed);
            }
            if heard == Some(true) {
                bits |= LIVELINESS;
                lowered |= self.lower_due(st.writers.due());
            }
        }
        self.commit(guard, bits, lowered);
    }

    /// A publisher published: it restarts its deadline and asserts its
    /// liveliness. Free unless the QoS sets a deadline or a manual lease.
    pub fn on_publish(&self) {
        if self.deadline.is_none() && self.own_lease.is_none() {
            return;
        }
        let now = now_ns();
        self.assert_at(now);
        if self.deadline.is_some() {
            let mut st = lock(&self.state);
            let (bits, lowered) = self.deadline_at(&mut st, now, true);
            self.commit(st, bits, lowered);
        }
    }

    /// A publisher asserted its liveliness without publishing.
    pub fn assert_liveliness(&self) {
        if self.own_lease.is_some() {
            self.assert_at(now_ns());
        }
    }

    fn assert_at(&self, now: i64) {
        let Some(own) = &self.own_lease else { return };
        own.lease.last_assert.store(now, Ordering::SeqCst);
        if !own.lease.alive.load(Ordering::SeqCst) {
            // Back after a lapse: its lease is timed again.
            let st = lock(&self.state);
            let lowered = self.lower_due(Some(now.saturating_add(own.lease.lease) + 1));
            self.commit(st, 0, lowered);
        }
    }

    /// Drains the transport's events now (a publisher's waker does; it has no
    /// samples to wait for).
    pub fn pump_now<E: Endpoint + ?Sized>(&self, endpoint: &E) {
        self.flag.store(false, Ordering::Release);
        let mut st = lock(&self.state);
        let (bits, lowered) = self.pump(&mut st, endpoint);
        self.commit(st, bits, lowered);
    }

    /// Drains the transport's events if the waker said there may be some.
    pub fn pump_flagged<E: Endpoint + ?Sized>(&self, endpoint: &E) {
        if self.flag.load(Ordering::Acquire) {
            self.pump_now(endpoint);
        }
    }

    /// The statuses brought up to date, read by `read`.
    pub fn query<E: Endpoint + ?Sized, T>(
        &self,
        endpoint: &E,
        samples_waiting: bool,
        read: impl FnOnce(&Statuses) -> T,
    ) -> T {
        let mut st = lock(&self.state);
        let (mut bits, lowered) = self.pump(&mut st, endpoint);
        bits |= self.settle(&mut st, now_ns(), samples_waiting);
        let out = read(&st.status);
        self.commit(st, bits, lowered);
        out
    }

    /// Whether [`run`](Self::run) may find work: events flagged, callbacks
    /// pending, or a due time passed.
    pub fn may_run(&self) -> bool {
        if self.flag.load(Ordering::Acquire) || self.has_pending.load(Ordering::Acquire) {
            return true;
        }
        self.timed && {
            let due = self.due.load(Ordering::Acquire);
            due != NEVER && now_ns() >= due
        }
    }

    /// On the executor, in the endpoint's group: takes flagged events,
    /// settles passed due times, and runs one pending callback; returns
    /// whether it ran one.
    pub fn run<E: Endpoint + ?Sized>(&self, endpoint: &E, samples_waiting: bool) -> bool {
        let mut st = lock(&self.state);
        let mut bits = 0;
        if self.flag.swap(false, Ordering::AcqRel) {
            // A lowered due time needs no wake: this executor looks at due
            // times before it sleeps.
            bits |= self.pump(&mut st, endpoint).0;
        }
        if self.timed {
            let now = now_ns();
            if now >= self.due.load(Ordering::Acquire) {
                bits |= self.settle(&mut st, now, samples_waiting);
            }
        }
        st.pending |= bits & self.wanted;
        if st.pending == 0 {
            self.has_pending.store(false, Ordering::Release);
            return false;
        }
        self.has_pending.store(true, Ordering::Release);
        let mut callbacks = match self.callbacks.try_lock() {
            Ok(c) => c,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            // Another thread runs one of these callbacks and looks again.
            Err(TryLockError::WouldBlock) => return false,
        };
        let bit = st.pending & st.pending.wrapping_neg();
        st.pending &= !bit;
        self.has_pending.store(st.pending != 0, Ordering::Release);
        let delivery = Delivery::take(self.side, &mut st.status, bit);
        drop(st);
        delivery.call(&mut callbacks);
        true
    }

    /// When a timed callback may next have work.
    pub fn next_due(&self) -> Option<Instant> {
        if !self.timed {
            return None;
        }
        let due = self.due.load(Ordering::Acquire);
        if due == NEVER {
            return None;
        }
        let wait = u64::try_from(due.saturating_sub(now_ns())).unwrap_or(0);
        Instant::now().checked_add(Duration::from_nanos(wait))
    }
}
