//! Publishers and subscriptions.
//!
//! A publish takes the message by value and hands it to the transport in one
//! `Arc` ([`Payload::from_value`]): in one process nothing is serialized or
//! copied, and a single subscriber that takes the message by value gets the
//! very value that was published. Several owning subscribers share it until
//! the last one, which gets the original; the others get a clone each.
//! Borrowing callbacks (`|msg: &T|`) never copy.
//!
//! A failed publish (a reliable subscription stayed full) hands the message
//! back in the [`PublishError`].
//!
//! A publisher's [QoS events](crate::events) are kept by its event monitor,
//! fed straight from the writer's waker (a writer has no samples to wait
//! for); the executor runs it only when it has event callbacks.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hibari_transport::{EndpointCreateError, EndpointId, Payload, TypeAdapter, WriteError, Writer};
use thiserror::Error;

use crate::events::monitor::EventMonitor;
use crate::group::CallbackGroup;
use crate::node::names::NameError;
use crate::node::{Entity, NodeWaker};
use crate::topic::loan::recycle::HeapPool;
use crate::wait::Signal;

/// Why a publisher could not be created.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PublisherCreateError {
    /// The topic name is not valid (or its remapping is not).
    #[error("cannot create the publisher: {0}")]
    InvalidTopic(NameError),
    /// The transport refused the endpoint (an invalid QoS, for instance).
    #[error("cannot create the publisher: {0}")]
    Transport(EndpointCreateError),
}

/// Why a subscription could not be created.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SubscriptionCreateError {
    /// The topic name is not valid (or its remapping is not).
    #[error("cannot create the subscription: {0}")]
    InvalidTopic(NameError),
    /// The transport refused the endpoint (an invalid QoS, for instance).
    #[error("cannot create the subscription: {0}")]
    Transport(EndpointCreateError),
}

/// Why a publish failed. The message reached no subscription, and comes back
/// where the transport still had it.
#[non_exhaustive]
pub enum PublishError<T> {
    /// A reliable subscription stayed full for `timeout`: it takes too
    /// slowly. Retry, deepen its history, or make it best effort.
    Timeout {
        /// The message, back.
        message: T,
        /// How long the publish waited.
        timeout: Duration,
    },
    /// A reliable subscription is full and the publisher does not wait.
    Full {
        /// The message, back.
        message: T,
    },
    /// The transport failed without handing the message back (it could not
    /// be serialized, for instance).
    Transport(WriteError),
}

impl<T> PublishError<T> {
    /// The message, if the error carries it.
    pub fn into_message(self) -> Option<T> {
        match self {
            PublishError::Timeout { message, .. } | PublishError::Full { message } => Some(message),
            PublishError::Transport(_) => None,
        }
    }
}

impl<T> fmt::Debug for PublishError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PublishError::Timeout { timeout, .. } => f
                .debug_struct("Timeout")
                .field("timeout", timeout)
                .finish_non_exhaustive(),
            PublishError::Full { .. } => f.debug_struct("Full").finish_non_exhaustive(),
            PublishError::Transport(e) => f.debug_tuple("Transport").field(e).finish(),
        }
    }
}

impl<T> fmt::Display for PublishError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PublishError::Timeout { timeout, .. } => write!(
                f,
                "a reliable subscription stayed full for {timeout:?}: it takes too slowly; \
                 retry, deepen its history, or make it best effort"
            ),
            PublishError::Full { .. } => f.write_str(
                "a reliable subscription is full: retry after it takes, or let the publisher wait",
            ),
            PublishError::Transport(e) => write!(f, "the transport failed: {e}"),
        }
    }
}

impl<T> std::error::Error for PublishError<T> {}

/// Gets the published value back out of a payload nobody else holds, or the
/// payload itself.
fn recover<A: TypeAdapter>(payload: Payload) -> Result<A::Custom, Payload> {
    let Payload::Local(sample) = payload else {
        return Err(payload);
    };
    let mut out: Option<A::Custom> = None;
    match sample.take_into(&mut out) {
        Ok(()) => out.ok_or_else(|| unreachable!("take_into fills the slot")),
        Err(sample) => Err(Payload::Local(sample)),
    }
}

/// What a publisher shares with its writer's waker and the executor.
pub(crate) struct PublisherShared {
    pub(crate) writer: Box<dyn Writer>,
    /// Fires on every match change.
    pub(crate) signal: Arc<Signal>,
    pub(crate) group: CallbackGroup,
    pub(crate) waker: Arc<NodeWaker>,
    pub(crate) events: EventMonitor,
    /// The type name as foreign values carry it (made on first use).
    pub(crate) foreign_type: std::sync::OnceLock<&'static str>,
    /// Heap loans' buffers, back from the subscriptions for reuse.
    pub(crate) heap: Arc<HeapPool>,
}

impl Entity for PublisherShared {
    fn execute(&self, _now: Instant) -> bool {
        if !self.events.may_run() {
            return false;
        }
        let Some(_group) = self.group.try_enter(&self.waker) else {
            return false;
        };
        self.events.run(&*self.writer, false)
    }

    fn timed(&self) -> bool {
        self.events.is_timed()
    }

    fn next_due(&self) -> Option<Instant> {
        let due = self.events.next_due()?;
        self.group.is_free(&self.waker).then_some(due)
    }
}

/// Publishes `A::Custom` values on one topic (`A` is a message type, or a
/// [`TypeAdapter`]).
///
/// Its QoS events can be queried at any time
/// ([`matched_status`](Publisher::matched_status), …) or delivered to
/// callbacks given in [`PublisherOptions`](crate::PublisherOptions).
pub struct Publisher<A> {
    pub(crate) shared: Arc<PublisherShared>,
    pub(crate) _adapter: PhantomData<fn() -> A>,
}

impl<A> fmt::Debug for Publisher<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Publisher")
            .field("topic", &self.topic())
            .field("type", &self.shared.writer.spec().type_name)
            .finish()
    }
}

impl<A: TypeAdapter> Publisher<A> {
    /// Publishes one message to every matched subscription, without copying
    /// or serializing it in process. On failure the message comes back.
    ///
    /// A successful publish restarts the offered deadline and asserts a
    /// manual-by-topic liveliness.
    pub fn publish(&self, message: A::Custom) -> Result<(), PublishError<A::Custom>> {
        let written = self.shared.writer.write(Payload::from_value::<A>(message));
        if written.is_ok() {
            self.shared.events.on_publish();
        }
        written.map_err(|e| match e {
            WriteError::Timeout { payload, timeout } => match recover::<A>(payload) {
                Ok(message) => PublishError::Timeout { message, timeout },
                Err(payload) => PublishError::Transport(WriteError::Timeout { payload, timeout }),
            },
            WriteError::Full { payload } => match recover::<A>(payload) {
                Ok(message) => PublishError::Full { message },
                Err(payload) => PublishError::Transport(WriteError::Full { payload }),
            },
            other => PublishError::Transport(other),
        })
    }
}

impl<A> Publisher<A> {
    /// Asserts the publisher's liveliness without publishing (rclcpp's
    /// `assert_liveliness`): with manual-by-topic liveliness and a lease, it
    /// keeps the publisher from losing its liveliness. It reaches
    /// subscriptions in this process only — the transport carries samples,
    /// not assertions — so remote subscriptions need samples within the
    /// lease. Without a manual-by-topic lease it does nothing.
    pub fn assert_liveliness(&self) {
        self.shared.events.assert_liveliness();
    }

    /// The fully qualified topic (after expansion and remapping).
    pub fn topic(&self) -> &str {
        &self.shared.writer.spec().topic
    }

    /// The publisher's id: the `publisher_id` of every sample it sends.
    pub fn id(&self) -> EndpointId {
        self.shared.writer.id()
    }

    /// How many subscriptions are matched now.
    pub fn matched_subscriptions(&self) -> usize {
        self.shared.writer.matched_count()
    }

    /// How many of them are in this process (rclcpp's
    /// `get_intra_process_subscription_count`): the ones a published
    /// message reaches as it is, without being encoded.
    pub fn matched_in_process_subscriptions(&self) -> usize {
        self.shared.writer.matched_in_process()
    }

    /// The callback group its event callbacks run in.
    pub fn callback_group(&self) -> &CallbackGroup {
        &self.shared.group
    }

    /// Waits until every matched reliable subscription has acknowledged
    /// every message published so far, for at most `timeout`; returns
    /// whether they have (rclcpp's `wait_for_all_acked`). Only DDS readers
    /// acknowledge later than `publish` returns: in-process and shared-memory
    /// subscriptions hold a message once it is published. Call it before a
    /// process that has just published exits, so that a subscription that
    /// matched late still gets the repairs.
    pub fn wait_for_all_acked(&self, timeout: Duration) -> bool {
        self.shared.writer.wait_for_all_acked(timeout)
    }

    /// Waits until at least `n` subscriptions are matched, for at most
    /// `timeout`; returns whether they are. Sleeps until a match changes: no
    /// polling.
    pub fn wait_for_subscribers(&self, n: usize, timeout: Duration) -> bool {
        let deadline = Instant::now().checked_add(timeout);
        let signal = &self.shared.signal;
        loop {
            let seen = signal.generation();
            if self.shared.writer.matched_count() >= n {
                return true;
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return false;
            }
            signal.wait(seen, deadline);
        }
    }
}
