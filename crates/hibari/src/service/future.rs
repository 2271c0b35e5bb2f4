//! Futures and the executors: the response of an asynchronous service call,
//! and running an executor until a future completes.
//!
//! Nothing here polls in a loop. A [`ResponseFuture`] is woken by the
//! client's reply reader when its reply arrives (through the standard
//! [`Waker`], so it runs under tokio or any runtime). An executor's
//! `spin_until_future_complete` gives the future a waker that wakes the
//! executor's own wait, and polls the future only after that waker fired.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll, Wake, Waker};
use std::time::{Duration, Instant};

use thiserror::Error;

use crate::context::lock;
use crate::node::lock_callback;
use crate::service::calls::{ClientShared, Slot};
use crate::service::client::CallError;
use crate::wait::Signal;
use crate::{MultiThreadedExecutor, Service, SingleThreadedExecutor};

/// The response of a call sent with [`Client::call_async`](crate::Client::call_async).
///
/// Resolves to the response, or to the [`CallError`] that ended the call.
/// Woken when the reply arrives; dropping it before then forgets the request
/// (its reply, if any, is dropped). It keeps the client's endpoints alive, so
/// it completes even when the [`Client`](crate::Client) itself was dropped.
#[must_use = "a response future does nothing unless polled; dropping it forgets the request"]
pub struct ResponseFuture<S: Service> {
    call: Call<S::Response>,
    _service: PhantomData<fn() -> S>,
}

impl<S: Service> std::fmt::Debug for ResponseFuture<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.call.describe("ResponseFuture", f)
    }
}

impl<S: Service> ResponseFuture<S> {
    pub(crate) fn new(call: Call<S::Response>) -> Self {
        ResponseFuture {
            call,
            _service: PhantomData,
        }
    }

    /// The request's sequence number (the `sequence` of its
    /// [`SampleInfo`](crate::SampleInfo) at the server); `None` when it was
    /// not sent.
    pub fn sequence(&self) -> Option<u64> {
        self.call.sequence()
    }
}

impl<S: Service> Future for ResponseFuture<S> {
    type Output = Result<S::Response, CallError>;

    /// # Panics
    ///
    /// When polled again after it returned `Ready`, like most futures.
    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.get_mut().call).poll(cx)
    }
}

/// One sent call, typed or generic: the request's slot in its client, until
/// the response is collected. Dropping it forgets the request.
pub(crate) struct Call<R: Send + 'static> {
    state: State<R>,
}

enum State<R: Send + 'static> {
    Sent {
        shared: Arc<ClientShared<R>>,
        sequence: u64,
    },
    Failed(CallError),
    Finished,
}

impl<R: Send + 'static> Call<R> {
    pub(crate) fn sent(shared: Arc<ClientShared<R>>, sequence: u64) -> Self {
        Call {
            state: State::Sent { shared, sequence },
        }
    }

    pub(crate) fn failed(error: CallError) -> Self {
        Call {
            state: State::Failed(error),
        }
    }

    pub(crate) fn sequence(&self) -> Option<u64> {
        match &self.state {
            State::Sent { sequence, .. } => Some(*sequence),
            _ => None,
        }
    }

    /// `Debug` under the public future's `name`.
    pub(crate) fn describe(&self, name: &str, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct(name);
        match &self.state {
            State::Sent { shared, sequence } => d
                .field("service", &shared.service)
                .field("sequence", sequence),
            State::Failed(e) => d.field("failed", e),
            State::Finished => d.field("finished", &true),
        };
        d.finish()
    }
}

impl<R: Send + 'static> Future for Call<R> {
    type Output = Result<R, CallError>;

    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let (shared, sequence) = match std::mem::replace(&mut this.state, State::Finished) {
            State::Sent { shared, sequence } => (shared, sequence),
            State::Failed(error) => return Poll::Ready(Err(error)),
            State::Finished => panic!("a service call's future was polled after it completed"),
        };
        let mut pending = lock(&shared.pending);
        let outcome = match pending.get_mut(&sequence) {
            Some(Slot::Waiting(_)) if shared.context.is_shut_down() => {
                pending.remove(&sequence);
                Some(Err(CallError::Shutdown))
            }
            Some(Slot::Waiting(waker)) => {
                match waker {
                    Some(w) if w.will_wake(cx.waker()) => {}
                    _ => *waker = Some(cx.waker().clone()),
                }
                None
            }
            Some(Slot::Done(_)) => match pending.remove(&sequence) {
                Some(Slot::Done(result)) => Some(result),
                _ => None,
            },
            // Only this future removes its slot.
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

impl<R: Send + 'static> Drop for Call<R> {
    fn drop(&mut self) {
        if let State::Sent { shared, sequence } = &self.state {
            shared.forget(*sequence);
        }
    }
}

/// Wakes a [`Signal`]: a blocking wait on a future.
struct SignalWake(Arc<Signal>);

impl Wake for SignalWake {
    fn wake(self: Arc<Self>) {
        self.0.notify();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.0.notify();
    }
}

/// Polls `future` on this thread until it is ready (`Some`) or `deadline`
/// passes (`None`), sleeping on `signal`, which the future's waker wakes.
pub(crate) fn block_on<F: Future + Unpin>(
    mut future: F,
    signal: &Arc<Signal>,
    deadline: Option<Instant>,
) -> Option<F::Output> {
    let waker = Waker::from(Arc::new(SignalWake(signal.clone())));
    let mut cx = TaskContext::from_waker(&waker);
    loop {
        let seen = signal.generation();
        if let Poll::Ready(output) = Pin::new(&mut future).poll(&mut cx) {
            return Some(output);
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return None;
        }
        signal.wait(seen, deadline);
    }
}

/// Why `spin_until_future_complete` returned without the future's output.
#[derive(Debug, Error, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SpinError {
    /// The future was not ready within the timeout; it was dropped.
    #[error("the future did not complete within {timeout:?}")]
    Timeout {
        /// How long the executor spun.
        timeout: Duration,
    },
    /// The executor was canceled or a node's context shut down first; the
    /// future was dropped.
    #[error("the spin was interrupted: the executor was canceled or its context shut down")]
    Interrupted,
}

/// The waker an executor gives a future: marks it woken and wakes the
/// executor's wait.
struct ExecutorWake {
    woken: AtomicBool,
    signal: Arc<Signal>,
}

impl Wake for ExecutorWake {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        self.signal.notify();
    }
}

fn why_not(deadline: Option<Instant>, timeout: Duration) -> SpinError {
    if deadline.is_some_and(|d| Instant::now() >= d) {
        SpinError::Timeout { timeout }
    } else {
        SpinError::Interrupted
    }
}

impl SingleThreadedExecutor {
    /// Runs callbacks until `future` is ready and returns its output, or
    /// until `timeout`, [`cancel`](Self::cancel) or shutdown.
    ///
    /// The future is polled on this thread, once at first and then only
    /// when its waker fires (which wakes the executor): between callbacks,
    /// never in a loop. It may be any future — a
    /// [`ResponseFuture`], a channel's receiver, an `async` block awaiting
    /// several calls — as long as whatever completes it does not need this
    /// thread to be somewhere else.
    pub fn spin_until_future_complete<F: Future>(
        &self,
        future: F,
        timeout: Duration,
    ) -> Result<F::Output, SpinError> {
        let deadline = Instant::now().checked_add(timeout);
        let wake = Arc::new(ExecutorWake {
            woken: AtomicBool::new(false),
            signal: self.core.signal.clone(),
        });
        let waker = Waker::from(wake.clone());
        let mut cx = TaskContext::from_waker(&waker);
        let mut future = pin!(future);
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return Ok(output);
        }
        let mut output = None;
        self.core.spin_until(deadline, |_| {
            if wake.woken.swap(false, Ordering::AcqRel) {
                if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
                    output = Some(v);
                }
            }
            output.is_some()
        });
        output.ok_or_else(|| why_not(deadline, timeout))
    }
}

impl MultiThreadedExecutor {
    /// Runs callbacks on the executor's threads until `future` is ready and
    /// returns its output, or until `timeout`, [`cancel`](Self::cancel) or
    /// shutdown.
    ///
    /// The future is polled by one thread at a time, whichever sees its
    /// waker fire first; never in a loop.
    pub fn spin_until_future_complete<F>(
        &self,
        future: F,
        timeout: Duration,
    ) -> Result<F::Output, SpinError>
    where
        F: Future + Send,
        F::Output: Send,
    {
        let wake = Arc::new(ExecutorWake {
            woken: AtomicBool::new(true),
            signal: self.core.signal.clone(),
        });
        let waker = Waker::from(wake.clone());
        let future = Mutex::new(Box::pin(future));
        let output = Mutex::new(None);
        let ready = AtomicBool::new(false);
        let done = || {
            if ready.load(Ordering::Acquire) {
                return true;
            }
            if !wake.woken.load(Ordering::Acquire) {
                return false;
            }
            // Another thread polls it, and looks at `woken` again after.
            let Some(mut future) = lock_callback(&future) else {
                return false;
            };
            let mut cx = TaskContext::from_waker(&waker);
            while wake.woken.swap(false, Ordering::AcqRel) {
                if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
                    *lock(&output) = Some(v);
                    ready.store(true, Ordering::Release);
                    return true;
                }
            }
            drop(future);
            // A wake that came after our last look, while another thread
            // found the future locked: have it look again.
            if wake.woken.load(Ordering::Acquire) {
                wake.signal.notify();
            }
            false
        };
        let deadline = Instant::now().checked_add(timeout);
        self.spin_until(done, timeout);
        let output = output.into_inner().unwrap_or_else(|e| e.into_inner());
        output.ok_or_else(|| why_not(deadline, timeout))
    }
}
