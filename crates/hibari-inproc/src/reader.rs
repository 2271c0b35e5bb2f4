//! A reader's bounded queue.
//!
//! The queue holds at most `capacity` samples: the keep-last depth, or the
//! keep-all sample limit. A writer pushing into a full best-effort queue
//! drops its oldest sample and counts the loss against that sample's writer,
//! to be reported in `lost_before` of the next sample taken from that writer.
//! Reliable queues are never overfilled: writers first reserve room (waiting
//! on `room` if need be), then push.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Instant;

use hibari_transport::{
    now_ns, Durability, Endpoint, EndpointId, EndpointSpec, EndpointStatus, History, Notify,
    Payload, Reader, ReaderOptions, Reliability, Sample, SampleInfo, WhenFull, WriteError,
};

use crate::registry::{Domain, Topic};
use crate::state::{lock, wake_all, EndpointState, Wake};

/// `expires_at` of a sample without a lifespan.
pub(crate) const NEVER: i64 = i64::MAX;

/// Everything about a queued sample but its payload.
#[derive(Clone, Copy)]
pub(crate) struct Meta {
    pub sequence: u64,
    pub source_ns: i64,
    pub reception_ns: i64,
    pub publisher: EndpointId,
    pub expires_at: i64,
}

/// A queued sample.
#[derive(Clone)]
pub(crate) struct Entry {
    pub payload: Payload,
    pub meta: Meta,
}

struct Queue {
    entries: VecDeque<Entry>,
    capacity: usize,
    /// Slots promised to writers that are about to push.
    reserved: usize,
    /// Writers waiting on `room`.
    waiting: usize,
    closed: bool,
    /// Per writer: samples lost since the last one taken from it.
    pending_loss: Vec<(EndpointId, u64)>,
    lost_total: u64,
    expired_total: u64,
}

impl Queue {
    fn has_room(&self) -> bool {
        self.entries.len() + self.reserved < self.capacity
    }
}

/// Why a reliable queue refused a sample.
pub(crate) enum Refused {
    Full,
    TimedOut,
}

/// How long one write may wait for room, shared by all the readers it
/// waits on; the deadline is computed on the first wait only.
pub(crate) struct Wait {
    when_full: WhenFull,
    deadline: Option<Instant>,
    /// Whether the write had to wait (its reception time is then later).
    pub waited: bool,
}

impl Wait {
    pub fn new(when_full: WhenFull) -> Self {
        Wait {
            when_full,
            deadline: None,
            waited: false,
        }
    }

    /// The deadline, or `None` to fail at once.
    fn deadline(&mut self) -> Option<Instant> {
        self.waited = true;
        match self.when_full {
            WhenFull::Fail => None,
            WhenFull::Block { timeout } => Some(
                *self
                    .deadline
                    .get_or_insert_with(|| Instant::now() + timeout),
            ),
        }
    }

    /// The error for a refused write, handing the payload back.
    pub fn error(&self, why: Refused, payload: Payload) -> WriteError {
        match (why, self.when_full) {
            (Refused::TimedOut, WhenFull::Block { timeout }) => {
                WriteError::Timeout { payload, timeout }
            }
            _ => WriteError::Full { payload },
        }
    }
}

pub(crate) struct ReaderShared {
    pub id: EndpointId,
    pub spec: EndpointSpec,
    /// The node it belongs to (for the graph).
    pub node: Option<hibari_transport::NodeInfo>,
    pub reliable: bool,
    pub transient_local: bool,
    queue: Mutex<Queue>,
    room: Condvar,
    /// Set when the queue went from empty to non-empty; whoever clears it
    /// calls the waker.
    notify_pending: AtomicBool,
    pub state: EndpointState,
}

impl ReaderShared {
    pub fn new(spec: &EndpointSpec, options: &ReaderOptions) -> Self {
        let capacity = match spec.qos.history {
            History::KeepLast(n) => n,
            History::KeepAll => options.limits.max_samples,
        }
        .max(1);
        ReaderShared {
            id: options.id.unwrap_or_else(EndpointId::random),
            spec: spec.clone(),
            node: options.node.clone(),
            reliable: spec.qos.reliability == Reliability::Reliable,
            transient_local: spec.qos.durability == Durability::TransientLocal,
            queue: Mutex::new(Queue {
                entries: VecDeque::with_capacity(capacity.min(1024)),
                capacity,
                reserved: 0,
                waiting: 0,
                closed: false,
                pending_loss: Vec::new(),
                lost_total: 0,
                expired_total: 0,
            }),
            room: Condvar::new(),
            notify_pending: AtomicBool::new(false),
            state: EndpointState::default(),
        }
    }

    /// Waits until a reliable queue has room (or is closed), as `wait`
    /// allows. Returns the guard, and whether the queue is still open.
    fn wait_for_room(&self, wait: &mut Wait) -> Result<(MutexGuard<'_, Queue>, bool), Refused> {
        let mut q = lock(&self.queue);
        loop {
            if q.closed {
                return Ok((q, false));
            }
            if q.has_room() {
                return Ok((q, true));
            }
            let Some(deadline) = wait.deadline() else {
                return Err(Refused::Full);
            };
            let now = Instant::now();
            if now >= deadline {
                return Err(Refused::TimedOut);
            }
            q.waiting += 1;
            q = self
                .room
                .wait_timeout(q, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
            q.waiting -= 1;
        }
    }

    /// Reserves a slot in a reliable queue (nothing if the reader is gone).
    pub fn reserve(&self, wait: &mut Wait) -> Result<(), Refused> {
        let (mut q, open) = self.wait_for_room(wait)?;
        if open {
            q.reserved += 1;
        }
        Ok(())
    }

    /// Waits for room in a reliable queue and pushes, under one lock; returns
    /// whether the queue went from empty to non-empty. On refusal, hands the
    /// entry back.
    pub fn push_waiting(
        &self,
        mut entry: Entry,
        wait: &mut Wait,
    ) -> Result<bool, (Refused, Entry)> {
        let waited_before = wait.waited;
        let (mut q, open) = match self.wait_for_room(wait) {
            Ok(x) => x,
            Err(why) => return Err((why, entry)),
        };
        if !open {
            drop(q);
            return Ok(false);
        }
        if wait.waited && !waited_before {
            entry.meta.reception_ns = now_ns();
        }
        q.entries.push_back(entry);
        let edge = q.entries.len() == 1;
        if edge {
            self.notify_pending.store(true, Ordering::Release);
        }
        Ok(edge)
    }

    /// Gives back a reserved slot.
    pub fn unreserve(&self) {
        let mut q = lock(&self.queue);
        q.reserved = q.reserved.saturating_sub(1);
        if q.waiting > 0 {
            self.room.notify_all();
        }
    }

    /// Pushes a sample into a reserved slot (`reserved`) or, for best effort
    /// and late-joiner history, dropping the oldest if full. Returns what was
    /// dropped, for the caller to release outside the lock, and whether the
    /// queue went from empty to non-empty (the waker is then due).
    pub fn push(&self, entry: Entry, reserved: bool) -> (Option<Entry>, bool) {
        let mut q = lock(&self.queue);
        if q.closed {
            return (Some(entry), false);
        }
        let mut dropped = None;
        if reserved {
            q.reserved = q.reserved.saturating_sub(1);
        } else if !q.has_room() {
            if let Some(old) = q.entries.pop_front() {
                q.lost_total += 1;
                let publisher = old.meta.publisher;
                match q.pending_loss.iter_mut().find(|(p, _)| *p == publisher) {
                    Some((_, n)) => *n += 1,
                    None => q.pending_loss.push((publisher, 1)),
                }
                dropped = Some(old);
            }
        }
        q.entries.push_back(entry);
        let edge = q.entries.len() == 1;
        if edge {
            self.notify_pending.store(true, Ordering::Release);
        }
        (dropped, edge)
    }

    /// Calls the waker if a push made the queue non-empty since the last call.
    pub fn flush_notify(&self) {
        if self.notify_pending.load(Ordering::Acquire)
            && self.notify_pending.swap(false, Ordering::AcqRel)
        {
            if let Some(n) = self.state.notifier() {
                n.notify();
            }
        }
    }

    /// Pushes a writer's kept samples (oldest first) into this new reader.
    pub fn push_history<'a>(&self, history: impl Iterator<Item = &'a Entry>) {
        let now = now_ns();
        let mut dropped = Vec::new();
        for e in history.filter(|e| e.meta.expires_at == NEVER || e.meta.expires_at >= now) {
            let mut e = e.clone();
            e.meta.reception_ns = now;
            dropped.extend(self.push(e, false).0);
        }
    }

    /// Marks the reader gone and releases writers waiting for its room.
    pub fn close(&self) {
        lock(&self.queue).closed = true;
        self.room.notify_all();
    }

    /// A writer unmatched: forget its pending loss unless samples of it remain.
    pub fn forget_writer(&self, writer: EndpointId) {
        let mut q = lock(&self.queue);
        if !q.entries.iter().any(|e| e.meta.publisher == writer) {
            q.pending_loss.retain(|(p, _)| *p != writer);
        }
    }

    pub fn take(&self) -> Option<Sample> {
        let mut q = lock(&self.queue);
        let mut expired = Vec::new();
        let mut now = None;
        let entry = loop {
            let Some(e) = q.entries.pop_front() else {
                break None;
            };
            if e.meta.expires_at != NEVER && *now.get_or_insert_with(now_ns) > e.meta.expires_at {
                q.expired_total += 1;
                expired.push(e);
                continue;
            }
            break Some(e);
        };
        let lost_before = match &entry {
            Some(e) if !q.pending_loss.is_empty() => {
                match q
                    .pending_loss
                    .iter()
                    .position(|(p, _)| *p == e.meta.publisher)
                {
                    Some(i) => q.pending_loss.swap_remove(i).1,
                    None => 0,
                }
            }
            _ => 0,
        };
        let wake_writers = q.waiting > 0 && (entry.is_some() || !expired.is_empty());
        drop(q);
        if wake_writers {
            self.room.notify_all();
        }
        drop(expired);
        entry.map(|Entry { payload, meta }| Sample {
            payload,
            info: SampleInfo {
                sequence: meta.sequence,
                source_timestamp_ns: meta.source_ns,
                reception_timestamp_ns: meta.reception_ns,
                publisher_id: meta.publisher,
                lost_before,
            },
        })
    }

    fn queued(&self) -> usize {
        lock(&self.queue).entries.len()
    }
}

/// A reader of the in-process transport.
pub struct InprocReader {
    pub(crate) shared: Arc<ReaderShared>,
    pub(crate) topic: Arc<Topic>,
    pub(crate) domain: Arc<Domain>,
}

impl Endpoint for InprocReader {
    fn id(&self) -> EndpointId {
        self.shared.id
    }
    fn spec(&self) -> &EndpointSpec {
        &self.shared.spec
    }
    fn matched_count(&self) -> usize {
        self.shared.state.matched_count()
    }
    fn status(&self) -> EndpointStatus {
        let mut s = self.shared.state.status();
        let q = lock(&self.shared.queue);
        s.lost_total = q.lost_total;
        s.expired_total = q.expired_total;
        s.queued = q.entries.len();
        s
    }
    fn take_event(&self) -> Option<hibari_transport::EndpointEvent> {
        self.shared.state.take_event()
    }
    fn set_notify(&self, notify: Option<Arc<dyn Notify>>) {
        let events = self.shared.state.set_notify(notify.clone());
        let samples = self.shared.queued() > 0;
        let wake: Option<Wake> = if samples { notify } else { events };
        wake_all(wake.into_iter().collect());
    }
}

impl Reader for InprocReader {
    fn take(&self) -> Option<Sample> {
        self.shared.take()
    }
    fn queued(&self) -> usize {
        self.shared.queued()
    }
}

impl Drop for InprocReader {
    fn drop(&mut self) {
        self.shared.close();
        self.domain.remove_reader(&self.topic, &self.shared);
    }
}
