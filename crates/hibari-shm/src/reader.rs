//! The reader endpoint: [`ShmReader`].
//!
//! A reader has one ring per matched writer and no queue of its own: a take
//! claims the oldest sample (by source time) among its rings. Its depth is
//! each ring's capacity, so with several writers it holds up to the depth
//! per writer. A best-effort ring overwrites its oldest unclaimed sample
//! when full; the reader counts the overwritten ones in the next sample's
//! `lost_before` (and in its status before that).
//!
//! Waking: after a take finds nothing, the reader arms every ring; a writer
//! that pushes into an armed ring writes the reader's eventfd once. That
//! eventfd is the waker's own ([`Notify::wake_fd`]) when it has one — the
//! writer then wakes the waiting thread directly — else the reader's, which
//! the participant's thread watches and turns into a `notify()` call. In
//! busy-poll mode ([`ShmReader::set_busy_poll`]) nothing is armed and no
//! writer ever makes a system call for this reader.

use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};

use hibari_transport::{
    now_ns, Endpoint, EndpointEvent, EndpointId, EndpointSpec, EndpointStatus, NodeInfo, Notify,
    Payload, Reader, Sample, SampleInfo,
};

use crate::core::{Core, Handle};
use crate::proto::Msg;
use crate::rlink::LinkState;
use crate::state::{lock, EndpointState};
use crate::sys;

/// Links skipped during one take (a bit set that allocates only past 128).
#[derive(Default)]
struct Skips {
    bits: u128,
    more: Vec<usize>,
}

impl Skips {
    fn has(&self, i: usize) -> bool {
        if i < 128 {
            self.bits & (1 << i) != 0
        } else {
            self.more.contains(&i)
        }
    }
    fn add(&mut self, i: usize) {
        if i < 128 {
            self.bits |= 1 << i;
        } else {
            self.more.push(i);
        }
    }
}

/// Bad descriptors in a row after which a writer's link is dropped.
const MAX_GARBAGE: u32 = 64;

struct Inner {
    links: Vec<LinkState>,
    lost_total: u64,
    expired_total: u64,
}

pub(crate) struct ReaderShared {
    pub id: EndpointId,
    pub spec: EndpointSpec,
    pub node: Option<NodeInfo>,
    /// Each ring's capacity: the depth, or the keep-all sample limit.
    pub capacity: usize,
    /// Keep-all: the most payload bytes each writer may have queued for
    /// this reader and not yet released (`u64::MAX`: no limit).
    pub max_bytes: u64,
    inner: Mutex<Inner>,
    pub state: EndpointState,
    /// Our eventfd, watched by the participant's thread.
    pub wake: OwnedFd,
    /// The waker's own eventfd (its number, and our duplicate), when it
    /// has one: writers signal it.
    wake_target: Mutex<Option<(i32, OwnedFd)>>,
    busy_poll: AtomicBool,
    core: Weak<Core>,
}

impl ReaderShared {
    pub fn new(
        id: EndpointId,
        spec: EndpointSpec,
        node: Option<NodeInfo>,
        capacity: usize,
        max_bytes: u64,
        core: Weak<Core>,
    ) -> rustix::io::Result<ReaderShared> {
        Ok(ReaderShared {
            id,
            spec,
            node,
            capacity,
            max_bytes,
            inner: Mutex::new(Inner {
                links: Vec::new(),
                lost_total: 0,
                expired_total: 0,
            }),
            state: EndpointState::default(),
            wake: sys::new_eventfd()?,
            wake_target: Mutex::new(None),
            busy_poll: AtomicBool::new(false),
            core,
        })
    }

    /// A descriptor for writers to signal: the waker's eventfd if it has
    /// one, else ours.
    pub fn wake_fd_for_writers(&self) -> rustix::io::Result<OwnedFd> {
        match &*lock(&self.wake_target) {
            Some((_, fd)) => rustix::io::fcntl_dupfd_cloexec(fd, 0),
            None => rustix::io::fcntl_dupfd_cloexec(&self.wake, 0),
        }
    }

    pub fn add_link(&self, link: LinkState) {
        lock(&self.inner).links.push(link);
    }

    /// The writer `writer` of `peer` left: its samples already queued are
    /// still taken, then its link goes. Returns whether there was a link.
    pub fn orphan_link(&self, writer: EndpointId, peer: crate::core::PeerKey) -> bool {
        let mut inner = lock(&self.inner);
        let mut found = false;
        for l in inner.links.iter_mut() {
            if l.link.writer == writer && l.link.peer == peer && !l.orphaned {
                l.orphaned = true;
                found = true;
            }
        }
        let broken = Self::drop_drained(&mut inner);
        drop(inner); // the links' last references may post `Closed`
        self.unmatch(broken);
        found
    }

    /// Drops orphaned links with nothing left to take, and broken ones;
    /// returns the writers of broken ones (to report unmatched).
    fn drop_drained(inner: &mut Inner) -> Vec<EndpointId> {
        let broken = inner
            .links
            .iter()
            .filter(|l| l.broken && !l.orphaned)
            .map(|l| l.link.writer)
            .collect();
        inner
            .links
            .retain(|l| !(l.broken || (l.orphaned && l.pending().0 == 0)));
        broken
    }

    /// Whether a live link to `writer` from `peer` exists.
    pub fn has_link(&self, writer: EndpointId, peer: crate::core::PeerKey) -> bool {
        lock(&self.inner)
            .links
            .iter()
            .any(|l| l.link.writer == writer && l.link.peer == peer && !l.orphaned)
    }

    fn queued_and_lost(inner: &Inner) -> (u64, u64) {
        inner.links.iter().fold((0, 0), |(q, l), s| {
            let (sq, sl) = s.pending();
            (q + sq, l + sl)
        })
    }

    /// Arms every ring; returns whether a sample is waiting after all.
    fn arm(inner: &Inner) -> bool {
        inner.links.iter().fold(false, |any, l| l.arm() | any)
    }

    /// Whether anything waits.
    pub fn has_pending(&self) -> bool {
        Self::queued_and_lost(&lock(&self.inner)).0 > 0
    }

    /// Reports writers whose links were dropped as broken (no lock held).
    fn unmatch(&self, writers: Vec<EndpointId>) {
        let wakes = writers
            .into_iter()
            .filter_map(|w| self.state.on_unmatched(w))
            .collect();
        crate::state::wake_all(wakes);
    }

    pub fn take(&self) -> Option<Sample> {
        let (sample, broken) = self.take_inner();
        if !broken.is_empty() {
            self.unmatch(broken);
        }
        sample
    }

    fn take_inner(&self) -> (Option<Sample>, Vec<EndpointId>) {
        let mut broken = Vec::new();
        let mut guard = lock(&self.inner);
        let inner = &mut *guard;
        let mut armed = false;
        // Links that gave nothing during this call: a hostile writer that
        // keeps its ring looking busy cannot starve the others.
        let mut skip = Skips::default();
        let budget = (self.capacity + 2) * (inner.links.len() + 1) * 2;
        for _ in 0..budget {
            let mut best: Option<(usize, u64)> = None;
            // One writer: nothing to order, its ring says itself whether
            // it holds a sample (peeking would read the writer's words
            // twice per sample).
            let alone = inner.links.len() == 1;
            for (i, l) in inner.links.iter().enumerate() {
                if skip.has(i) {
                    continue;
                }
                l.link.flush();
                if alone && !l.broken {
                    best = Some((i, 0));
                } else if let Some(ts) = l.peek_source() {
                    if best.is_none_or(|(_, b)| ts < b) {
                        best = Some((i, ts));
                    }
                }
            }
            let Some((i, _)) = best else {
                if inner.links.iter().any(|l| l.broken || l.orphaned) {
                    broken.extend(Self::drop_drained(inner)); // indices shift
                }
                let sleeps = self.state.has_notify() && !self.busy_poll.load(Ordering::Relaxed);
                if armed || !sleeps {
                    return (None, broken);
                }
                armed = true;
                if !Self::arm(inner) {
                    return (None, broken);
                }
                skip = Skips::default(); // something came: look at all again
                continue;
            };
            let state = &mut inner.links[i];
            let mut lost = 0;
            let took = state.take(&mut lost);
            inner.lost_total += lost;
            let Some((pos, desc)) = took else {
                skip.add(i);
                continue;
            };
            let now = now_ns();
            if let Some(life) = state.lifespan_ns {
                let age = now.saturating_sub(desc.source_ns as i64);
                if u128::try_from(age).unwrap_or(0) > life {
                    state.link.release(pos);
                    inner.expired_total += 1;
                    continue;
                }
            }
            let Some(held) = state.resolve(pos, &desc) else {
                // Bytes outside the writer's memory: garbage, dropped. A
                // writer keeping the protocol never does this.
                state.link.release(pos);
                state.pending_lost += 1;
                state.garbage += 1;
                state.broken |= state.garbage > MAX_GARBAGE;
                inner.lost_total += 1;
                skip.add(i);
                continue;
            };
            state.garbage = 0;
            let info = SampleInfo {
                sequence: desc.seq,
                source_timestamp_ns: desc.source_ns as i64,
                reception_timestamp_ns: now,
                publisher_id: state.link.writer,
                lost_before: std::mem::take(&mut state.pending_lost),
            };
            let sample = Sample {
                payload: Payload::Serialized(held),
                info,
            };
            return (Some(sample), broken);
        }
        (None, broken)
    }

    pub fn queued(&self) -> usize {
        Self::queued_and_lost(&lock(&self.inner)).0 as usize
    }

    fn status(&self) -> EndpointStatus {
        let mut s = self.state.status();
        let inner = lock(&self.inner);
        let (queued, overwritten) = Self::queued_and_lost(&inner);
        s.queued = queued as usize;
        s.lost_total = inner.lost_total + overwritten;
        s.expired_total = inner.expired_total;
        s
    }

    fn set_notify(&self, notify: Option<Arc<dyn Notify>>) {
        let had_events = self.state.set_notify(notify.clone());
        let target = notify.as_ref().and_then(|n| n.wake_fd());
        self.retarget(target);
        let pending = match &notify {
            Some(_) if !self.busy_poll.load(Ordering::Relaxed) => Self::arm(&lock(&self.inner)),
            _ => self.has_pending(),
        };
        if let Some(n) = notify {
            if pending || had_events {
                n.notify();
            }
        }
    }

    /// Points the writers at `target` (the waker's eventfd) or back at ours.
    fn retarget(&self, target: Option<BorrowedFd<'_>>) {
        let mut current = lock(&self.wake_target);
        let raw = target.map(|fd| fd.as_raw_fd());
        if current.as_ref().map(|(raw, _)| *raw) == raw {
            return;
        }
        *current = target.and_then(|fd| {
            // Our own copy: the waker only lends its descriptor.
            let dup = rustix::io::fcntl_dupfd_cloexec(fd, 0).ok()?;
            Some((fd.as_raw_fd(), dup))
        });
        drop(current);
        let Some(core) = self.core.upgrade() else {
            return;
        };
        let links: Vec<_> = lock(&self.inner)
            .links
            .iter()
            .map(|l| (l.link.peer, l.link.writer))
            .collect();
        let msgs = links
            .into_iter()
            .filter_map(|(peer, writer)| {
                let fd = self.wake_fd_for_writers().ok()?;
                Some((
                    peer,
                    Msg::Wake {
                        writer,
                        reader: self.id,
                        fd,
                    },
                ))
            })
            .collect();
        core.post(msgs);
    }
}

/// A reader of the shared-memory transport.
///
/// A taken sample's payload is [`Payload::Serialized`] whose bytes are the
/// writer's shared memory itself, mapped read-only: no copy is made, and the
/// memory is the reader's until the payload (and every clone) is dropped.
pub struct ShmReader {
    pub(crate) shared: Arc<ReaderShared>,
    pub(crate) handle: Arc<Handle>,
}

impl ShmReader {
    /// Busy-poll mode: writers never signal this reader (no system call on
    /// either side); the caller polls [`take`](Reader::take) in a loop,
    /// trading a core for the lowest latency. The waker still fires for
    /// events.
    pub fn set_busy_poll(&self, on: bool) {
        self.shared.busy_poll.store(on, Ordering::Relaxed);
        if !on && self.shared.state.has_notify() {
            ReaderShared::arm(&lock(&self.shared.inner));
        }
    }

    /// The eventfd writers signal when a sample arrives for a sleeping
    /// reader (unless the waker has its own): poll it to wait for samples.
    pub fn event_fd(&self) -> BorrowedFd<'_> {
        self.shared.wake.as_fd()
    }
}

impl Endpoint for ShmReader {
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
        self.shared.status()
    }
    fn take_event(&self) -> Option<EndpointEvent> {
        self.shared.state.take_event()
    }
    fn set_notify(&self, notify: Option<Arc<dyn Notify>>) {
        self.shared.set_notify(notify);
    }
}

impl Reader for ShmReader {
    fn take(&self) -> Option<Sample> {
        self.shared.take()
    }
    fn queued(&self) -> usize {
        self.shared.queued()
    }
    fn set_busy_poll(&self, on: bool) {
        ShmReader::set_busy_poll(self, on);
    }
}

impl Drop for ShmReader {
    fn drop(&mut self) {
        self.handle.core.remove_reader(self.shared.id);
    }
}
