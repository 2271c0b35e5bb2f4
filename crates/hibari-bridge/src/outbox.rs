//! A client's outgoing queue: bounded, never blocking the sender, fair
//! between subscriptions.
//!
//! Two planes:
//! - **control** (service responses and requests, status, advertisements):
//!   never dropped, sent first. If a client lets more than the configured
//!   number pile up it is too slow to serve at all, and it is disconnected.
//! - **data** (published messages): one ring per client subscription, of
//!   the subscription's depth (`queue_length`, else the bridge default). A
//!   full ring drops its oldest message; so does the whole client when its
//!   queued data exceeds its byte budget. Each drop is counted. The writer
//!   takes one message from each ready ring in turn, so a big topic cannot
//!   crowd out a small one, and a ring with a `throttle_rate` is ready at
//!   most once per interval.
//!
//! Whoever pushes never waits: a stalled client loses its oldest data and
//! nothing else happens. Frames are shared (`Bytes`), so a message queued
//! for many clients is held once. The outbox keeps the high-water marks of
//! its queued data (messages and bytes), so its bounds can be checked, and
//! gives back the room of a backlog once it is drained.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio::sync::Notify;
use tokio_tungstenite::tungstenite::Utf8Bytes;

use crate::encode::{Encoding, Sample};

/// One outgoing message.
#[derive(Clone)]
pub(crate) enum Frame {
    /// JSON (a text frame, or the bytes themselves on TCP).
    Text(Utf8Bytes),
    /// CBOR or a Foxglove binary message (WebSocket only).
    Binary(Bytes),
    /// A received sample, encoded by the writer when it is sent (see
    /// [`Sample`]); with the client's spelling of the topic, if it differs.
    Sample(Arc<Sample>, Encoding, Option<Arc<str>>),
}

impl Frame {
    pub fn len(&self) -> usize {
        match self {
            Frame::Text(t) => t.len(),
            Frame::Binary(b) => b.len(),
            Frame::Sample(s, ..) => s.len(),
        }
    }

    /// The frame to write: a sample's encoding is made (or reused) now;
    /// `None` when the sample cannot be encoded that way.
    pub fn resolve(self) -> Option<Frame> {
        match self {
            Frame::Sample(sample, encoding, alias) => sample.frame(encoding, alias.as_deref()),
            other => Some(other),
        }
    }
}

/// How a data ring behaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RingSettings {
    /// Messages kept before the oldest is dropped.
    pub depth: usize,
    /// At most one message per interval (zero: no limit).
    pub throttle: Duration,
    /// With a throttle and no explicit queue, messages arriving too soon
    /// after the last accepted one are dropped on arrival (rosbridge's
    /// throttle without a queue); otherwise they wait in the ring.
    pub drop_too_soon: bool,
}

struct Ring {
    items: VecDeque<Frame>,
    settings: RingSettings,
    last_sent: Option<Instant>,
    last_accepted: Option<Instant>,
    in_ready: bool,
}

/// A queue drained after a backlog keeps at most this much room.
const KEEP_ROOM: usize = 64;

/// Gives a drained queue's room back after a backlog.
fn shrink_if_drained<T>(q: &mut VecDeque<T>) {
    if q.is_empty() && q.capacity() > KEEP_ROOM {
        q.shrink_to(KEEP_ROOM);
    }
}

#[derive(Default)]
struct State {
    control: VecDeque<Frame>,
    rings: HashMap<u64, Ring>,
    ready: VecDeque<u64>,
    data_bytes: usize,
    /// Data messages queued, over all rings.
    data_frames: usize,
    closed: bool,
}

/// What the writer should do next.
pub(crate) enum Next {
    Frame(Frame),
    /// Nothing is ready before this instant (a throttled ring).
    WaitUntil(Instant),
    Empty,
    Closed,
}

/// A client's outgoing queue (see the [module](self)).
pub(crate) struct Outbox {
    state: Mutex<State>,
    notify: Notify,
    max_bytes: usize,
    max_control: usize,
    dropped: AtomicU64,
    throttled: AtomicU64,
    /// The most data messages and bytes ever queued at once.
    peak_frames: AtomicUsize,
    peak_bytes: AtomicUsize,
}

fn lock(m: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Outbox {
    pub fn new(max_bytes: usize, max_control: usize) -> Self {
        Outbox {
            state: Mutex::new(State::default()),
            notify: Notify::new(),
            max_bytes,
            max_control,
            dropped: AtomicU64::new(0),
            throttled: AtomicU64::new(0),
            peak_frames: AtomicUsize::new(0),
            peak_bytes: AtomicUsize::new(0),
        }
    }

    /// Queues a control message; `false` (and the outbox closes) when the
    /// client let too many pile up, or it is already closed.
    pub fn push_control(&self, frame: Frame) -> bool {
        let mut s = lock(&self.state);
        if s.closed {
            return false;
        }
        if s.control.len() >= self.max_control {
            s.closed = true;
            drop(s);
            self.notify.notify_one();
            return false;
        }
        s.control.push_back(frame);
        drop(s);
        self.notify.notify_one();
        true
    }

    /// Creates or reconfigures ring `id` (its queued messages stay, the
    /// oldest dropped if the new depth is smaller).
    pub fn set_ring(&self, id: u64, settings: RingSettings) {
        let mut s = lock(&self.state);
        let ring = s.rings.entry(id).or_insert_with(|| Ring {
            items: VecDeque::new(),
            settings,
            last_sent: None,
            last_accepted: None,
            in_ready: false,
        });
        ring.settings = settings;
        let (mut freed, mut removed) = (0, 0);
        while ring.items.len() > settings.depth.max(1) {
            freed += ring.items.pop_front().map_or(0, |f| f.len());
            removed += 1;
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
        s.data_bytes -= freed;
        s.data_frames -= removed;
    }

    /// Removes ring `id` and its queued messages.
    pub fn remove_ring(&self, id: u64) {
        let mut s = lock(&self.state);
        if let Some(ring) = s.rings.remove(&id) {
            let bytes: usize = ring.items.iter().map(Frame::len).sum();
            s.data_bytes -= bytes;
            s.data_frames -= ring.items.len();
            s.ready.retain(|r| *r != id);
        }
    }

    /// Queues a data message on ring `id`, dropping the oldest as needed:
    /// first from the ring itself (its depth, then the client's byte
    /// budget), then — when the ring is empty and the budget still does not
    /// allow the message — the oldest of the client's other rings. So the
    /// queued bytes never exceed the budget, or the one message alone when
    /// it is larger.
    pub fn push_data(&self, id: u64, frame: Frame, now: Instant) {
        let mut guard = lock(&self.state);
        let s = &mut *guard;
        if s.closed {
            return;
        }
        let Some(ring) = s.rings.get_mut(&id) else {
            return;
        };
        let st = ring.settings;
        if st.drop_too_soon && !st.throttle.is_zero() {
            if ring.last_accepted.is_some_and(|t| now < t + st.throttle) {
                self.throttled.fetch_add(1, Ordering::Relaxed);
                return;
            }
            ring.last_accepted = Some(now);
        }
        // Make room first, so the bounds hold at every instant.
        let size = frame.len();
        let mut freed = (0, 0);
        while ring.items.len() >= st.depth.max(1)
            || (!ring.items.is_empty() && s.data_bytes - freed.0 + size > self.max_bytes)
        {
            let Some(old) = ring.items.pop_front() else {
                break;
            };
            freed = (freed.0 + old.len(), freed.1 + 1);
        }
        let became_ready = !std::mem::replace(&mut ring.in_ready, true);
        ring.items.push_back(frame);
        while s.data_bytes - freed.0 + size > self.max_bytes {
            let Some(old) = s
                .rings
                .iter_mut()
                .filter(|(r, _)| **r != id)
                .max_by_key(|(_, r)| r.items.len())
                .and_then(|(_, r)| r.items.pop_front())
            else {
                break;
            };
            freed = (freed.0 + old.len(), freed.1 + 1);
        }
        s.data_bytes = s.data_bytes - freed.0 + size;
        s.data_frames = s.data_frames - freed.1 + 1;
        self.peak_frames.fetch_max(s.data_frames, Ordering::Relaxed);
        self.peak_bytes.fetch_max(s.data_bytes, Ordering::Relaxed);
        if freed.1 > 0 {
            self.dropped.fetch_add(freed.1 as u64, Ordering::Relaxed);
        }
        if became_ready {
            s.ready.push_back(id);
        }
        drop(guard);
        self.notify.notify_one();
    }

    /// The next frame to send (control first, then the data rings in turn).
    pub fn next(&self, now: Instant) -> Next {
        let mut s = lock(&self.state);
        if s.closed {
            return Next::Closed;
        }
        if let Some(f) = s.control.pop_front() {
            shrink_if_drained(&mut s.control);
            return Next::Frame(f);
        }
        let State {
            rings,
            ready,
            data_bytes,
            data_frames,
            ..
        } = &mut *s;
        let mut earliest: Option<Instant> = None;
        for _ in 0..ready.len() {
            let Some(id) = ready.pop_front() else { break };
            let Some(ring) = rings.get_mut(&id) else {
                continue;
            };
            let due = match (ring.settings.throttle.is_zero(), ring.last_sent) {
                (false, Some(t)) if !ring.settings.drop_too_soon => t + ring.settings.throttle,
                _ => now,
            };
            if due > now {
                earliest = Some(earliest.map_or(due, |e: Instant| e.min(due)));
                ready.push_back(id);
                continue;
            }
            let Some(frame) = ring.items.pop_front() else {
                ring.in_ready = false;
                continue;
            };
            *data_bytes -= frame.len();
            *data_frames -= 1;
            ring.last_sent = Some(now);
            if ring.items.is_empty() {
                ring.in_ready = false;
                shrink_if_drained(&mut ring.items);
            } else {
                ready.push_back(id);
            }
            return Next::Frame(frame);
        }
        earliest.map_or(Next::Empty, Next::WaitUntil)
    }

    /// Waits until something may have been queued (or the outbox closed).
    pub async fn changed(&self) {
        self.notify.notified().await;
    }

    /// Closes the outbox: the writer stops, pushes are ignored.
    pub fn close(&self) {
        lock(&self.state).closed = true;
        self.notify.notify_one();
    }

    /// Data messages dropped so far (full rings, the byte budget).
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Messages skipped by a throttle without a queue.
    pub fn throttled(&self) -> u64 {
        self.throttled.load(Ordering::Relaxed)
    }

    /// `(frames, bytes)` queued now (data only).
    pub fn queued(&self) -> (usize, usize) {
        let s = lock(&self.state);
        (s.data_frames, s.data_bytes)
    }

    /// The most `(frames, bytes)` of data ever queued at once.
    pub fn peak(&self) -> (usize, usize) {
        (
            self.peak_frames.load(Ordering::Relaxed),
            self.peak_bytes.load(Ordering::Relaxed),
        )
    }
}

#[cfg(test)]
#[path = "outbox_tests.rs"]
mod tests;
