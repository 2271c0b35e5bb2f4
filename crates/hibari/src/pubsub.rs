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

use std::fmt;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, TryLockError};
use std::time::{Duration, Instant};

use hibari_transport::{
    EndpointCreateError, EndpointId, EndpointSpec, Payload, PayloadError, QosProfile, Reader,
    ReaderOptions, Sample, SampleInfo, Shared, TypeAdapter, WriteError, Writer, WriterOptions,
};
use thiserror::Error;

use crate::callback::{MessageCallback, SubscriptionCallback};
use crate::names::NameError;
use crate::node::{Entity, Node};
use crate::wait::Signal;
use crate::Message;

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

/// Publishes `A::Custom` values on one topic (`A` is a message type, or a
/// [`TypeAdapter`]).
pub struct Publisher<A: TypeAdapter> {
    writer: Box<dyn Writer>,
    /// Fires on every match change.
    signal: Arc<Signal>,
    _adapter: PhantomData<fn() -> A>,
}

impl<A: TypeAdapter> fmt::Debug for Publisher<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Publisher")
            .field("topic", &self.topic())
            .field("type", &self.writer.spec().type_name)
            .finish()
    }
}

impl<A: TypeAdapter> Publisher<A> {
    /// Publishes one message to every matched subscription, without copying
    /// or serializing it in process. On failure the message comes back.
    pub fn publish(&self, message: A::Custom) -> Result<(), PublishError<A::Custom>> {
        self.writer
            .write(Payload::from_value::<A>(message))
            .map_err(|e| match e {
                WriteError::Timeout { payload, timeout } => match recover::<A>(payload) {
                    Ok(message) => PublishError::Timeout { message, timeout },
                    Err(payload) => {
                        PublishError::Transport(WriteError::Timeout { payload, timeout })
                    }
                },
                WriteError::Full { payload } => match recover::<A>(payload) {
                    Ok(message) => PublishError::Full { message },
                    Err(payload) => PublishError::Transport(WriteError::Full { payload }),
                },
                other => PublishError::Transport(other),
            })
    }

    /// The fully qualified topic (after expansion and remapping).
    pub fn topic(&self) -> &str {
        &self.writer.spec().topic
    }

    /// The publisher's id: the `publisher_id` of every sample it sends.
    pub fn id(&self) -> EndpointId {
        self.writer.id()
    }

    /// How many subscriptions are matched now.
    pub fn matched_subscriptions(&self) -> usize {
        self.writer.matched_count()
    }

    /// Waits until at least `n` subscriptions are matched, for at most
    /// `timeout`; returns whether they are. Sleeps until a match changes: no
    /// polling.
    pub fn wait_for_subscribers(&self, n: usize, timeout: Duration) -> bool {
        let deadline = Instant::now().checked_add(timeout);
        loop {
            let seen = self.signal.generation();
            while self.writer.take_event().is_some() {}
            if self.writer.matched_count() >= n {
                return true;
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return false;
            }
            self.signal.wait(seen, deadline);
        }
    }
}

type Handler = Box<dyn FnMut(Sample) -> Result<(), PayloadError> + Send>;

/// What a subscription shares with the executor.
pub(crate) struct SubscriptionShared {
    reader: Box<dyn Reader>,
    /// Set by the reader's waker; cleared before a take that finds nothing.
    ready: Arc<AtomicBool>,
    /// `None` for a polled subscription.
    handler: Mutex<Option<Handler>>,
    rejected: AtomicU64,
}

impl SubscriptionShared {
    fn reject(&self, _why: PayloadError) {
        self.rejected.fetch_add(1, Ordering::Relaxed);
    }
}

/// Receives `A::Custom` values on one topic (`A` is a message type, or a
/// [`TypeAdapter`]): through its callback when an executor spins its node, or
/// by [`take`](Subscription::take). Dropping it unsubscribes.
pub struct Subscription<A: TypeAdapter> {
    pub(crate) shared: Arc<SubscriptionShared>,
    _adapter: PhantomData<fn() -> A>,
}

impl<A: TypeAdapter> fmt::Debug for Subscription<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Subscription")
            .field("topic", &self.topic())
            .field("type", &self.shared.reader.spec().type_name)
            .finish()
    }
}

impl<A: TypeAdapter> Subscription<A> {
    /// The oldest sample not yet taken, owned (moved out when no other
    /// subscription holds it, cloned otherwise), or `None` at once. A sample
    /// that cannot be read as `A` is skipped and counted in
    /// [`rejected_samples`](Subscription::rejected_samples).
    pub fn take(&self) -> Option<(A::Custom, SampleInfo)>
    where
        A::Custom: Clone,
    {
        loop {
            let sample = self.shared.reader.take()?;
            match sample.payload.into_owned::<A>() {
                Ok(value) => return Some((value, sample.info)),
                Err(e) => self.shared.reject(e),
            }
        }
    }

    /// The oldest sample not yet taken, borrowed from the publisher's value
    /// (never copied), or `None` at once.
    pub fn take_shared(&self) -> Option<(Shared<A::Custom>, SampleInfo)> {
        loop {
            let sample = self.shared.reader.take()?;
            match sample.payload.into_shared::<A>() {
                Ok(value) => return Some((value, sample.info)),
                Err(e) => self.shared.reject(e),
            }
        }
    }

    /// The fully qualified topic (after expansion and remapping).
    pub fn topic(&self) -> &str {
        &self.shared.reader.spec().topic
    }

    /// The subscription's endpoint id.
    pub fn id(&self) -> EndpointId {
        self.shared.reader.id()
    }

    /// How many publishers are matched now.
    pub fn matched_publishers(&self) -> usize {
        self.shared.reader.matched_count()
    }

    /// Samples skipped because they could not be read as `A` (bytes that do
    /// not decode, or a publisher of another type).
    pub fn rejected_samples(&self) -> u64 {
        self.shared.rejected.load(Ordering::Relaxed)
    }
}

impl Node {
    /// Creates a publisher of the message type `M` on `topic` (expanded and
    /// remapped as [`resolve_topic_name`](Node::resolve_topic_name) says).
    pub fn create_publisher<M: Message>(
        &self,
        topic: &str,
        qos: QosProfile,
    ) -> Result<Publisher<M>, PublisherCreateError> {
        self.create_publisher_adapted::<M>(topic, qos)
    }

    /// Creates a publisher of the adapter `A`'s custom type, on a topic of
    /// its ROS type. Subscribers of the custom type in this process get the
    /// value as published; the conversion runs only for those that want the
    /// ROS message, at most once per sample.
    pub fn create_publisher_adapted<A: TypeAdapter>(
        &self,
        topic: &str,
        qos: QosProfile,
    ) -> Result<Publisher<A>, PublisherCreateError> {
        let topic = self
            .resolve_topic_name(topic)
            .map_err(PublisherCreateError::InvalidTopic)?;
        let spec = EndpointSpec::new::<A>(topic, qos);
        let writer = self
            .context()
            .transport()
            .create_writer(&spec, &WriterOptions::default().node(self.info()))
            .map_err(PublisherCreateError::Transport)?;
        let signal = Arc::new(Signal::default());
        let wake = signal.clone();
        writer.set_notify(Some(Arc::new(move || wake.notify())));
        Ok(Publisher {
            writer,
            signal,
            _adapter: PhantomData,
        })
    }

    /// Creates a subscription of the message type `M`; an executor spinning
    /// this node runs `callback` for every sample. The callback may take the
    /// message owned or borrowed, with or without its [`SampleInfo`] (see
    /// [`callback`](crate::callback)).
    pub fn create_subscription<M: Message, Marker>(
        &self,
        topic: &str,
        qos: QosProfile,
        callback: impl MessageCallback<M, Marker>,
    ) -> Result<Subscription<M>, SubscriptionCreateError> {
        self.create_subscription_adapted::<M, Marker>(topic, qos, callback)
    }

    /// Creates a subscription of the adapter `A`'s custom type.
    pub fn create_subscription_adapted<A: TypeAdapter, Marker>(
        &self,
        topic: &str,
        qos: QosProfile,
        mut callback: impl SubscriptionCallback<A::Custom, Marker>,
    ) -> Result<Subscription<A>, SubscriptionCreateError> {
        let handler: Handler = Box::new(move |sample| callback.deliver::<A>(sample));
        self.subscribe::<A>(topic, qos, Some(handler))
    }

    /// Creates a subscription without a callback, for
    /// [`take`](Subscription::take) (`A` is a message type or an adapter).
    pub fn create_polled_subscription<A: TypeAdapter>(
        &self,
        topic: &str,
        qos: QosProfile,
    ) -> Result<Subscription<A>, SubscriptionCreateError> {
        self.subscribe::<A>(topic, qos, None)
    }

    fn subscribe<A: TypeAdapter>(
        &self,
        topic: &str,
        qos: QosProfile,
        handler: Option<Handler>,
    ) -> Result<Subscription<A>, SubscriptionCreateError> {
        let topic = self
            .resolve_topic_name(topic)
            .map_err(SubscriptionCreateError::InvalidTopic)?;
        let spec = EndpointSpec::new::<A>(topic, qos);
        let reader = self
            .context()
            .transport()
            .create_reader(&spec, &ReaderOptions::default().node(self.info()))
            .map_err(SubscriptionCreateError::Transport)?;
        let has_handler = handler.is_some();
        let shared = Arc::new(SubscriptionShared {
            reader,
            ready: Arc::new(AtomicBool::new(false)),
            handler: Mutex::new(handler),
            rejected: AtomicU64::new(0),
        });
        if has_handler {
            let ready = shared.ready.clone();
            let waker = self.inner.waker.clone();
            shared.reader.set_notify(Some(Arc::new(move || {
                ready.store(true, Ordering::Release);
                waker.wake();
            })));
            let entity: Arc<dyn Entity> = shared.clone();
            self.add_entity(Arc::downgrade(&entity));
        }
        Ok(Subscription {
            shared,
            _adapter: PhantomData,
        })
    }
}

impl SubscriptionShared {
    /// Takes one sample and runs the callback on it; returns whether it did.
    /// Skips (returns `false`) when another thread is running the callback.
    pub(crate) fn execute_one(&self) -> bool {
        if !self.ready.load(Ordering::Acquire) {
            return false;
        }
        let mut handler = match self.handler.try_lock() {
            Ok(handler) => handler,
            // A callback panicked: the handler itself is still whole.
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => return false,
        };
        let Some(handler) = handler.as_mut() else {
            return false;
        };
        // Cleared before the take: a sample pushed after an empty take wakes
        // us again (the queue went from empty to non-empty).
        self.ready.store(false, Ordering::Release);
        let Some(sample) = self.reader.take() else {
            while self.reader.take_event().is_some() {}
            return false;
        };
        self.ready.store(true, Ordering::Release); // there may be more
        if let Err(e) = handler(sample) {
            self.reject(e);
        }
        true
    }
}

impl Entity for SubscriptionShared {
    fn execute(&self, _now: Instant) -> bool {
        self.execute_one()
    }
}
