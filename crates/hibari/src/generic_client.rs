//! Generic service clients: call a service whose type is known only at run
//! time by its name, with CDR bytes in and out (rclcpp's `GenericClient`).
//!
//! The wire and the guarantees are the typed [`Client`](crate::Client)'s:
//! requests go to every matched server of `rq/<name>Request`, replies come
//! on `rr/<name>Reply` and are sorted into the slots of the requests they
//! answer as they arrive, on the thread that delivers them; no executor is
//! needed and nothing polls. A call fails with
//! [`CallError::ServiceUnavailable`] when no server is matched, and with
//! [`CallError::ServiceGone`] when the last one goes away before replying.
//!
//! A reply from a typed server in this process is encoded once (its
//! envelope, shared by every generic client that reads it); the response
//! bytes handed back are the envelope's header and fields, laid out exactly
//! as the response alone.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context as TaskContext, Poll, Waker};
use std::time::{Duration, Instant};

use hibari_cdr::CdrReader;
use hibari_transport::{
    CdrBytes, EndpointId, EndpointSpec, Payload, QosProfile, Reader, ReaderOptions, Writer,
    WriterOptions,
};

use crate::calls::Slot;
use crate::client::{CallError, ClientCreateError};
use crate::context::{lock, Context};
use crate::future::block_on;
use crate::generic_service::{bad_service_type, service_parts};
use crate::node::Node;
use crate::reply::{reply_topic, request_topic};
use crate::wait::Signal;

struct Shared {
    service: String,
    type_name: String,
    requests: Box<dyn Writer>,
    replies: Box<dyn Reader>,
    last_sequence: Mutex<u64>,
    pending: Mutex<HashMap<u64, Slot<CdrBytes>>>,
    signal: Arc<Signal>,
    context: Context,
    unreadable: AtomicU64,
}

/// `(client, sequence, response)` of a reply envelope's bytes.
fn open_reply(bytes: &[u8]) -> Option<(EndpointId, u64, Vec<u8>)> {
    let mut r = CdrReader::new(bytes).ok()?;
    let client = EndpointId(r.read_prim_array::<u8, 16>().ok()?);
    let sequence: u64 = r.read().ok()?;
    let mut response = Vec::with_capacity(bytes.len() - 24);
    response.extend_from_slice(&bytes[..4]);
    response.extend_from_slice(&bytes[28..]);
    Some((client, sequence, response))
}

impl Shared {
    fn is_ready(&self) -> bool {
        self.requests.matched_count() > 0 && self.replies.matched_count() > 0
    }

    fn on_replies(&self) {
        let me = self.requests.id();
        while let Some(sample) = self.replies.take() {
            let opened = sample
                .payload
                .into_cdr_bytes()
                .ok()
                .and_then(|b| open_reply(&b));
            match opened {
                Some((client, sequence, response)) if client == me => {
                    self.complete(sequence, Ok(response.into()));
                }
                Some(_) => {}
                None => {
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

    fn on_match_change(&self) {
        if !self.is_ready() {
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
        self.signal.notify();
    }

    fn complete(&self, sequence: u64, result: Result<CdrBytes, CallError>) {
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
        self.signal.notify();
    }

    fn send(&self, request: CdrBytes) -> Result<u64, CallError> {
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
        if let Err(source) = self.requests.write(Payload::Serialized(request)) {
            lock(&self.pending).remove(&sequence);
            return Err(CallError::Send {
                service: self.service.clone(),
                source,
            });
        }
        *last = sequence;
        drop(last);
        if !self.is_ready() {
            self.on_match_change();
        }
        Ok(sequence)
    }
}

/// Calls a service whose type is named at run time: CDR request bytes in,
/// CDR response bytes out, on the typed [`Client`](crate::Client)'s wire,
/// so it calls typed and generic servers alike. Many calls may be in flight
/// at once, from any threads; no executor is needed.
pub struct GenericClient {
    shared: Arc<Shared>,
}

impl fmt::Debug for GenericClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GenericClient")
            .field("service", &self.shared.service)
            .field("type", &self.shared.type_name)
            .finish()
    }
}

impl GenericClient {
    /// The fully qualified service name (after expansion and remapping).
    pub fn service_name(&self) -> &str {
        &self.shared.service
    }

    /// The service type (`pkg/srv/Name`).
    pub fn type_name(&self) -> &str {
        &self.shared.type_name
    }

    /// Whether a server is matched both ways, so that a call can be sent now.
    pub fn service_is_ready(&self) -> bool {
        self.shared.is_ready()
    }

    /// Waits until a server is ready, for at most `timeout`; returns whether
    /// one is. Sleeps until a match changes: no polling.
    pub fn wait_for_service(&self, timeout: Duration) -> bool {
        let deadline = Instant::now().checked_add(timeout);
        loop {
            let seen = self.shared.signal.generation();
            if self.shared.is_ready() {
                return true;
            }
            if self.shared.context.is_shut_down() || deadline.is_some_and(|d| Instant::now() >= d) {
                return false;
            }
            self.shared.signal.wait(seen, deadline);
        }
    }

    /// Sends `request` (CDR of `pkg/srv/X_Request`, header included) now and
    /// returns a future of the response's CDR bytes. Without a matched
    /// server it resolves at once to [`CallError::ServiceUnavailable`].
    pub fn call_async(&self, request: impl Into<CdrBytes>) -> GenericResponseFuture {
        let state = match self.shared.send(request.into()) {
            Ok(sequence) => State::Sent {
                shared: self.shared.clone(),
                sequence,
            },
            Err(e) => State::Failed(e),
        };
        GenericResponseFuture { state }
    }

    /// Sends `request` and waits up to `timeout` for the response.
    pub fn call(
        &self,
        request: impl Into<CdrBytes>,
        timeout: Duration,
    ) -> Result<CdrBytes, CallError> {
        let deadline = Instant::now().checked_add(timeout);
        let future = self.call_async(request);
        block_on(future, &self.shared.signal, deadline).unwrap_or_else(|| {
            Err(CallError::Timeout {
                service: self.shared.service.clone(),
                timeout,
            })
        })
    }

    /// Reply samples whose address could not be read.
    pub fn unreadable_replies(&self) -> u64 {
        self.shared.unreadable.load(Ordering::Relaxed)
    }
}

enum State {
    Sent { shared: Arc<Shared>, sequence: u64 },
    Failed(CallError),
    Finished,
}

/// The response of [`GenericClient::call_async`]: the response's CDR bytes,
/// or the [`CallError`] that ended the call. Dropping it forgets the request.
#[must_use = "a response future does nothing unless polled; dropping it forgets the request"]
pub struct GenericResponseFuture {
    state: State,
}

impl fmt::Debug for GenericResponseFuture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.state {
            State::Sent { shared, sequence } => f
                .debug_struct("GenericResponseFuture")
                .field("service", &shared.service)
                .field("sequence", sequence)
                .finish(),
            State::Failed(e) => write!(f, "GenericResponseFuture(failed: {e})"),
            State::Finished => f.write_str("GenericResponseFuture(finished)"),
        }
    }
}

impl Future for GenericResponseFuture {
    type Output = Result<CdrBytes, CallError>;

    /// # Panics
    ///
    /// When polled again after it returned `Ready`.
    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let (shared, sequence) = match std::mem::replace(&mut this.state, State::Finished) {
            State::Sent { shared, sequence } => (shared, sequence),
            State::Failed(error) => return Poll::Ready(Err(error)),
            State::Finished => panic!("a GenericResponseFuture was polled after it completed"),
        };
        let mut pending = lock(&shared.pending);
        let outcome = match pending.get_mut(&sequence) {
            Some(Slot::Waiting(_)) if shared.context.is_shut_down() => {
                pending.remove(&sequence);
                Some(Err(CallError::Shutdown))
            }
            Some(Slot::Waiting(waker)) => {
                if !waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                    *waker = Some(cx.waker().clone());
                }
                None
            }
            Some(Slot::Done(_)) => match pending.remove(&sequence) {
                Some(Slot::Done(result)) => Some(result),
                _ => None,
            },
            None => Some(Err(CallError::ServiceGone {
                service: shared.service.clone(),
            })),
        };
        drop(pending);
        match outcome {
            Some(result) => Poll::Ready(result),
            None => {
                this.state = State::Sent { shared, sequence };
                Poll::Pending
            }
        }
    }
}

impl Drop for GenericResponseFuture {
    fn drop(&mut self) {
        if let State::Sent { shared, sequence } = &self.state {
            lock(&shared.pending).remove(sequence);
        }
    }
}

impl Node {
    /// Creates a client of the service `name` whose type is named
    /// `type_name` (`pkg/srv/Name`), with the QoS of both its topics
    /// ([`services_default`](QosProfile::services_default) is ROS 2's).
    pub fn create_generic_client(
        &self,
        name: &str,
        type_name: &str,
        qos: QosProfile,
    ) -> Result<GenericClient, ClientCreateError> {
        let (request_type, response_type) = service_parts(type_name).ok_or_else(|| {
            ClientCreateError::Transport(hibari_transport::EndpointCreateError::Unsupported(
                bad_service_type(type_name),
            ))
        })?;
        let service = self
            .resolve_topic_name(name)
            .map_err(ClientCreateError::InvalidName)?;
        let transport = self.context().transport();
        let spec = |topic: String, type_name: String| EndpointSpec {
            topic,
            type_name,
            type_hash: String::new(),
            qos,
        };
        let requests = transport
            .create_writer(
                &spec(request_topic(&service), request_type),
                &WriterOptions::default().node(self.info()),
            )
            .map_err(ClientCreateError::Transport)?;
        let replies = transport
            .create_reader(
                &spec(reply_topic(&service), response_type),
                &ReaderOptions::default().node(self.info()),
            )
            .map_err(ClientCreateError::Transport)?;
        let signal = Arc::new(Signal::default());
        self.context().register(&signal);
        let shared = Arc::new(Shared {
            service,
            type_name: type_name.to_owned(),
            requests,
            replies,
            last_sequence: Mutex::new(0),
            pending: Mutex::new(HashMap::new()),
            signal,
            context: self.context().clone(),
            unreadable: AtomicU64::new(0),
        });
        let weak: Weak<Shared> = Arc::downgrade(&shared);
        shared.replies.set_notify(Some(Arc::new(move || {
            if let Some(shared) = weak.upgrade() {
                shared.on_replies();
            }
        })));
        let weak: Weak<Shared> = Arc::downgrade(&shared);
        shared.requests.set_notify(Some(Arc::new(move || {
            if let Some(shared) = weak.upgrade() {
                while shared.requests.take_event().is_some() {}
                shared.on_match_change();
            }
        })));
        Ok(GenericClient { shared })
    }
}
