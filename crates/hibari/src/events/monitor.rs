//! The machinery behind [QoS events](crate::events): one [`EventMonitor`]
//! per publisher or subscription keeps its statuses, turns the transport's
//! endpoint events, its samples or publishes and the passing of time into
//! changes, and runs the event callbacks on the executor.
//!
//! Nothing polls. Transport events arrive through the endpoint's waker;
//! deadlines and leases are due times that the executor sleeps until
//! ([`Entity::next_due`](crate::node::Entity::next_due)), kept in one atomic
//! so that a publish or a sample moves them with at most one uncontended lock
//! (and none when the QoS sets neither a deadline nor a lease). Due times may
//! be early — the executor then wakes, finds nothing, and sleeps until the
//! right one — but never late.

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use hibari_transport::{
    now_ns, Endpoint, EndpointEvent, EndpointId, Incompatibility, Liveliness, QosProfile,
    SampleInfo,
};

use crate::context::lock;
use crate::events::liveliness::{lookup, Registration, WriterTable};
use crate::events::{
    Callbacks, DeadlineMissedStatus, IncompatibleQosStatus, IncompatibleTypeStatus,
    LivelinessChangedStatus, LivelinessLostStatus, MatchedStatus, MessageLostStatus,
};
use crate::node::NodeWaker;

const MATCHED: u8 = 1;
const INCOMPATIBLE_QOS: u8 = 1 << 1;
const INCOMPATIBLE_TYPE: u8 = 1 << 2;
const DEADLINE: u8 = 1 << 3;
/// Liveliness lost (publisher) or changed (subscription).
const LIVELINESS: u8 = 1 << 4;
const MESSAGE_LOST: u8 = 1 << 5;
const NEVER: i64 = i64::MAX;

fn ns(d: Option<Duration>) -> Option<i64> {
    d.map(|d| i64::try_from(d.as_nanos()).unwrap_or(NEVER).max(1))
}

/// Every status an endpoint keeps (each side uses its own).
#[derive(Default)]
pub(crate) struct Statuses {
    pub matched: MatchedStatus,
    pub incompatible_qos: IncompatibleQosStatus,
    pub incompatible_type: IncompatibleTypeStatus,
    pub deadline_missed: DeadlineMissedStatus,
    pub liveliness_lost: LivelinessLostStatus,
    pub liveliness_changed: LivelinessChangedStatus,
    pub message_lost: MessageLostStatus,
}

struct State {
    status: Statuses,
    /// Kinds with a callback and changes it has not seen.
    pending: u8,
    /// When the deadline is next missed; `None` before the first sample or
    /// publish.
    deadline_due: Option<i64>,
    /// Subscription: its matched publishers.
    writers: WriterTable,
    /// Publisher: whether its own lease holds, and the assertion time it
    /// lapsed at.
    own_alive: bool,
    lapsed_at: i64,
}

/// Which side an endpoint is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    Publisher,
    Subscription,
}

pub(crate) struct EventMonitor {
    side: Side,
    deadline: Option<i64>,
    /// Subscription: the lease a remote manual-by-topic publisher is timed by.
    requested_lease: Option<i64>,
    /// Publisher: its registered manual-by-topic lease.
    own_lease: Option<Registration>,
    /// Kinds with a callback.
    wanted: u8,
    /// Whether a callback waits on a due time.
    timed: bool,
    /// Set by the endpoint's waker: events may wait in the transport.
    flag: Arc<AtomicBool>,
    /// Whether `state.pending` is non-zero.
    has_pending: AtomicBool,
    /// Whether samples must be recorded for liveliness.
    leased_writers: AtomicBool,
    /// When a timed callback may next have work (`NEVER`: no such time).
    due: AtomicI64,
    state: Mutex<State>,
    callbacks: Mutex<Callbacks>,
    waker: Arc<NodeWaker>,
}

impl EventMonitor {
    pub fn new(
        side: Side,
        id: EndpointId,
        qos: &QosProfile,
        callbacks: Callbacks,
        waker: Arc<NodeWaker>,
    ) -> Self {
        let manual = qos.liveliness == Liveliness::ManualByTopic;
        let lease = ns(qos.liveliness_lease);
        let own_lease = match (side, manual, lease) {
            (Side::Publisher, true, Some(lease)) => Some(Registration::new(id, lease)),
            _ => None,
        };
        let c = &callbacks;
        let wanted = [
            (c.matched.is_some(), MATCHED),
            (c.incompatible_qos.is_some(), INCOMPATIBLE_QOS),
            (c.incompatible_type.is_some(), INCOMPATIBLE_TYPE),
            (c.deadline_missed.is_some(), DEADLINE),
            (c.liveliness_lost.is_some(), LIVELINESS),
            (c.liveliness_changed.is_some(), LIVELINESS),
            (c.message_lost.is_some(), MESSAGE_LOST),
        ]
        .into_iter()
        .fold(0, |bits, (set, bit)| if set { bits | bit } else { bits });
        let deadline = ns(qos.deadline);
        let timed = (wanted & DEADLINE != 0 && deadline.is_some())
            || (wanted & LIVELINESS != 0 && (side == Side::Subscription || own_lease.is_some()));
        EventMonitor {
            side,
            deadline,
            requested_lease: lease.filter(|_| manual),
            own_lease,
            wanted,
            timed,
            flag: Arc::new(AtomicBool::new(false)),
            has_pending: AtomicBool::new(false),
            leased_writers: AtomicBool::new(false),
            due: AtomicI64::new(NEVER),
            state: Mutex::new(State {
                status: Statuses::default(),
                pending: 0,
                deadline_due: None,
                writers: WriterTable::default(),
                own_alive: true,
                lapsed_at: i64::MIN,
            }),
            callbacks: Mutex::new(callbacks),
            waker,
        }
    }

    /// Whether the executor must run this monitor (it has callbacks).
    pub fn has_callbacks(&self) -> bool {
        self.wanted != 0
    }

    /// Whether [`next_due`](Self::next_due) may ever be `Some` (a callback
    /// waits on a due time); fixed at creation.
    pub fn is_timed(&self) -> bool {
        self.timed
    }

    /// The flag the endpoint's waker sets.
    pub fn flag(&self) -> Arc<AtomicBool> {
        self.flag.clone()
    }

    /// Records changes; wakes the executor when a callback newly has work or
    /// a due time moved earlier.
    fn commit(&self, mut st: MutexGuard<'_, State>, bits: u8, lowered: bool) {
        let fresh = bits & self.wanted & !st.pending;
        st.pending |= bits & self.wanted;
        if fresh != 0 {
            self.has_pending.store(true, Ordering::Release);
        }
        drop(st);
        if fresh != 0 || (lowered && self.timed) {
            self.waker.wake();
        }
    }

    /// Lowers the cached due time to `at`; returns whether it did.
    fn lower_due(&self, at: Option<i64>) -> bool {
        at.is_some_and(|at| self.due.fetch_min(at, Ordering::AcqRel) > at)
    }

    /// Drains the transport's events into the statuses.
    fn pump<E: Endpoint + ?Sized>(&self, st: &mut State, endpoint: &E) -> (u8, bool) {
        let (mut bits, mut lowered) = (0, false);
        while let Some(event) = endpoint.take_event() {
            let (b, l) = self.apply(st, event);
            bits |= b;
            lowered |= l;
        }
        (bits, lowered)
    }

    fn apply(&self, st: &mut State, event: EndpointEvent) -> (u8, bool) {
        let s = &mut st.status;
        match event {
            EndpointEvent::Matched { peer } => {
                s.matched.total_count += 1;
                s.matched.total_count_change += 1;
                s.matched.current_count += 1;
                s.matched.current_count_change += 1;
                if self.side == Side::Publisher {
                    return (MATCHED, false);
                }
                let shared = lookup(&peer);
                let lease = shared.as_ref().map(|s| s.lease).or(self.requested_lease);
                let now = now_ns();
                let known = st
                    .writers
                    .matched(peer, lease, shared, now, &mut s.liveliness_changed);
                if lease.is_some() {
                    self.leased_writers.store(true, Ordering::Release);
                }
                let lowered = self.lower_due(lease.map(|l| now.saturating_add(l) + 1));
                (MATCHED | if known { 0 } else { LIVELINESS }, lowered)
            }
            EndpointEvent::Unmatched { peer } => {
                s.matched.current_count = s.matched.current_count.saturating_sub(1);
                s.matched.current_count_change -= 1;
                let gone = self.side == Side::Subscription
                    && st.writers.unmatched(peer, &mut s.liveliness_changed);
                (MATCHED | if gone { LIVELINESS } else { 0 }, false)
            }
            EndpointEvent::Incompatible { peer, why } => match why {
                Incompatibility::Qos(q) => {
                    let s = &mut s.incompatible_qos;
                    s.total_count += 1;
                    s.total_count_change += 1;
                    s.last_policy_kind = Some(q.policy());
                    s.last_incompatibility = Some(q);
                    s.last_peer = Some(peer);
                    (INCOMPATIBLE_QOS, false)
                }
                Incompatibility::Type {
                    type_name,
                    type_hash,
                } => {
                    let s = &mut s.incompatible_type;
                    s.total_count += 1;
                    s.total_count_change += 1;
                    s.last_type_name = Some(type_name);
                    s.last_type_hash = Some(type_hash);
                    s.last_peer = Some(peer);
                    (INCOMPATIBLE_TYPE, false)
                }
                _ => (0, false),
            },
            _ => (0, false),
        }
    }

    /// Counts the deadline periods that ended without a sample or publish
    /// before `t`; with `heard`, one came at `t` and restarts the clock.
    fn deadline_at(&self, st: &mut State, t: i64, heard: bool) -> (u8, bool) {
        let Some(d) = self.deadline else {
            return (0, false);
        };
        let mut bits = 0;
        if let Some(due) = st.deadline_due.filter(|&due| t > due) {
            let missed = 1 + (t - due - 1) / d;
            let s = &mut st.status.deadline_missed;
            s.total_count += missed as u64;
            s.total_count_change += missed as u64;
            st.deadline_due = Some(due.saturating_add(missed.saturating_mul(d)));
            bits = DEADLINE;
        }
        let started = heard && st.deadline_due.is_none();
        if heard {
            let next = t.saturating_add(d);
            st.deadline_due = Some(st.deadline_due.map_or(next, |due| due.max(next)));
        }
        (
            bits,
            started && self.lower_due(st.deadline_due.map(|d| d + 1)),
        )
    }

    /// Brings every timed status up to `now`. A polled subscription with
    /// `samples_waiting` counts them as meeting the deadline.
    fn settle(&self, st: &mut State, now: i64, samples_waiting: bool) -> u8 {
        let mut bits = 0;
        match (self.deadline, st.deadline_due) {
            (Some(d), Some(due)) if samples_waiting && now > due => {
                st.deadline_due = Some(now.saturating_add(d));
            }
            _ => bits |= self.deadline_at(st, now, false).0,
        }
        if let Some(own) = &self.own_lease {
            let last = own.lease.last_assert.load(Ordering::SeqCst);
            if !st.own_alive && last != st.lapsed_at {
                st.own_alive = true;
            }
            if st.own_alive && now > last.saturating_add(own.lease.lease) {
                st.own_alive = false;
                st.lapsed_at = last;
                st.status.liveliness_lost.total_count += 1;
                st.status.liveliness_lost.total_count_change += 1;
                bits |= LIVELINESS;
            }
            own.lease.alive.store(st.own_alive, Ordering::SeqCst);
        }
        if self.side == Side::Subscription
            && st.writers.settle(now, &mut st.status.liveliness_changed)
        {
            bits |= LIVELINESS;
        }
        self.due.store(self.next_due_ns(st), Ordering::Release);
        bits
    }

    /// The earliest due time of a kind with a callback.
    fn next_due_ns(&self, st: &State) -> i64 {
        let mut due = NEVER;
        if self.wanted & DEADLINE != 0 {
            due = due.min(st.deadline_due.map_or(NEVER, |d| d.saturating_add(1)));
        }
        if self.wanted & LIVELINESS != 0 {
            due = due.min(st.writers.due().unwrap_or(NEVER));
            if let Some(own) = &self.own_lease {
                let last = own.lease.last_assert.load(Ordering::SeqCst);
                if st.own_alive || last != st.lapsed_at {
                    due = due.min(last.saturating_add(own.lease.lease).saturating_add(1));
                }
            }
        }
        due
    }
}

mod run;
