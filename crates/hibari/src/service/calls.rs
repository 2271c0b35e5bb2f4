//! The client's half of the service wire: sending requests with known
//! sequence numbers, and sorting replies into the slots of the requests they
//! answer as they arrive (on the thread that delivers them), waking whoever
//! waits for each.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::Waker;
use std::time::{Duration, Instant};

use hibari_transport::{EndpointId, Payload, Reader, Writer};

use crate::context::{lock, Context};
use crate::service::client::CallError;
use crate::service::future::{block_on, Call};
use crate::service::reply::Opened;
use crate::wait::Signal;

/// Reads a reply sample for the client `EndpointId`: a typed response
/// ([`open`](crate::service::reply::open)) or CDR bytes ([`open_bytes`](crate::service::reply::open_bytes)).
pub(crate) type OpenReply<R> = fn(Payload, EndpointId) -> Opened<R>;

/// Where a sent request stands.
pub(crate) enum Slot<R> {
    /// No reply yet; the waker of whoever waits for it.
    Waiting(Option<Waker>),
    /// Answered (or failed), not yet collected.
    Done(Result<R, CallError>),
}

/// What a client shares with its futures and its endpoints' wakers.
pub(crate) struct ClientShared<R> {
    pub(crate) service: String,
    requests: Box<dyn Writer>,
    replies: Box<dyn Reader>,
    /// The sequence number of the last request written; held across a
    /// write, so that the number a request gets is known before it leaves.
    last_sequence: Mutex<u64>,
    pub(crate) pending: Mutex<HashMap<u64, Slot<R>>>,
    /// Wakes blocking waiters: match changes, replies, shutdown.
    pub(crate) signal: Arc<Signal>,
    pub(crate) context: Context,
    unreadable: AtomicU64,
    open: OpenReply<R>,
}

impl<R: Send + 'static> ClientShared<R> {
    pub(crate) fn is_ready(&self) -> bool {
        self.requests.matched_count() > 0 && self.replies.matched_count() > 0
    }

    /// Sorts the replies that arrived into their slots (the reply reader's
    /// waker).
    fn on_replies(&self) {
        let me = self.requests.id();
        while let Some(sample) = self.replies.take() {
            match (self.open)(sample.payload, me) {
                Opened::Reply { sequence, response } => {
                    let result = response.map_err(|source| CallError::InvalidReply {
                        service: self.service.clone(),
                        source,
                    });
                    self.complete(sequence, result);
                }
                Opened::NotForUs => {}
                Opened::Unreadable => {
                    self.unreadable.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        let mut changed = false;
        while self.replies.take_event().is_some() {
            changed = true;
        }
        if changed {
            self.on_match_change();
        }
    }

    /// A server came or went: wake `wait_for_service`, and fail the waiting
    /// calls when no server is left.
    fn on_match_change(&self) {
        if !self.is_ready() {
            self.fail_waiting();
        }
        self.signal.notify();
    }

    fn fail_waiting(&self) {
        let wakers: Vec<Waker> = {
            let mut pending = lock(&self.pending);
            pending
                .values_mut()
                .filter_map(|slot| match slot {
                    Slot::Waiting(waker) => {
                        let waker = waker.take();
                        *slot = Slot::Done(Err(CallError::ServiceGone {
                            service: self.service.clone(),
                        }));
                        waker
                    }
                    Slot::Done(_) => None,
                })
                .collect()
        };
        wakers.into_iter().for_each(Waker::wake);
    }

    /// Completes request `sequence` if it still waits (a forgotten or
    /// already answered request drops the result).
    fn complete(&self, sequence: u64, result: Result<R, CallError>) {
        let waker = {
            let mut pending = lock(&self.pending);
            match pending.get_mut(&sequence) {
                Some(slot @ Slot::Waiting(_)) => {
                    match std::mem::replace(slot, Slot::Done(result)) {
                        Slot::Waiting(waker) => waker,
                        Slot::Done(_) => None,
                    }
                }
                _ => None,
            }
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Forgets request `sequence` (its future was dropped).
    pub(crate) fn forget(&self, sequence: u64) {
        lock(&self.pending).remove(&sequence);
    }

    /// Sends `payload` as the next request and registers its slot; returns
    /// its sequence number.
    pub(crate) fn send(&self, payload: Payload) -> Result<u64, CallError> {
        if self.context.is_shut_down() {
            return Err(CallError::Shutdown);
        }
        let mut last = lock(&self.last_sequence);
        if !self.is_ready() {
            return Err(CallError::ServiceUnavailable {
                service: self.service.clone(),
            });
        }
        let sequence = *last + 1;
        lock(&self.pending).insert(sequence, Slot::Waiting(None));
        if let Err(source) = self.requests.write(payload) {
            self.forget(sequence);
            return Err(CallError::Send {
                service: self.service.clone(),
                source,
            });
        }
        *last = sequence;
        drop(last);
        // A server that left during the write was seen by the match waker
        // before our slot existed, or is seen here.
        if !self.is_ready() {
            self.fail_waiting();
        }
        Ok(sequence)
    }
}

impl<R: Send + 'static> ClientShared<R> {
    /// Wires the endpoints' wakers to a new shared client, whose replies
    /// `open` reads.
    pub(crate) fn new(
        service: String,
        requests: Box<dyn Writer>,
        replies: Box<dyn Reader>,
        context: Context,
        open: OpenReply<R>,
    ) -> Arc<Self> {
        let signal = Arc::new(Signal::default());
        context.register(&signal);
        let shared = Arc::new(ClientShared {
            service,
            requests,
            replies,
            last_sequence: Mutex::new(0),
            pending: Mutex::new(HashMap::new()),
            signal,
            context,
            unreadable: AtomicU64::new(0),
            open,
        });
        // The wakers hold the client weakly: its endpoints own them.
        let weak: Weak<Self> = Arc::downgrade(&shared);
        shared.replies.set_notify(Some(Arc::new(move || {
            if let Some(shared) = weak.upgrade() {
                shared.on_replies();
            }
        })));
        let weak: Weak<Self> = Arc::downgrade(&shared);
        shared.requests.set_notify(Some(Arc::new(move || {
            if let Some(shared) = weak.upgrade() {
                while shared.requests.take_event().is_some() {}
                shared.on_match_change();
            }
        })));
        shared
    }

    /// The client's id: its request writer's.
    pub(crate) fn id(&self) -> EndpointId {
        self.requests.id()
    }

    /// Requests whose response was not collected yet.
    pub(crate) fn pending_count(&self) -> usize {
        lock(&self.pending).len()
    }

    /// Reply samples whose address could not be read.
    pub(crate) fn unreadable(&self) -> u64 {
        self.unreadable.load(Ordering::Relaxed)
    }

    /// Waits until a server is ready, for at most `timeout`; whether one is
    /// (`false` also when the context is shut down). Sleeps until a match
    /// changes.
    pub(crate) fn wait_for_service(&self, timeout: Duration) -> bool {
        let deadline = Instant::now().checked_add(timeout);
        loop {
            let seen = self.signal.generation();
            if self.is_ready() {
                return true;
            }
            if self.context.is_shut_down() || deadline.is_some_and(|d| Instant::now() >= d) {
                return false;
            }
            self.signal.wait(seen, deadline);
        }
    }

    /// Sends `request` and returns the call's future.
    pub(crate) fn call_async(self: &Arc<Self>, request: Payload) -> Call<R> {
        match self.send(request) {
            Ok(sequence) => Call::sent(self.clone(), sequence),
            Err(e) => Call::failed(e),
        }
    }

    /// Sends `request` and waits up to `timeout` for the response.
    pub(crate) fn call(
        self: &Arc<Self>,
        request: Payload,
        timeout: Duration,
    ) -> Result<R, CallError> {
        let deadline = Instant::now().checked_add(timeout);
        block_on(self.call_async(request), &self.signal, deadline).unwrap_or_else(|| {
            Err(CallError::Timeout {
                service: self.service.clone(),
                timeout,
            })
        })
    }
}
