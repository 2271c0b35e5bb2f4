//! Subscriptions as asynchronous streams.
//!
//! A [`SubscriptionStream`] is a subscription without a callback and without
//! an executor: its reader's waker wakes the task awaiting it, through the
//! standard [`Waker`], so it runs under tokio (or any runtime) and never
//! blocks the runtime's threads. Samples wait in the reader's queue (its QoS
//! history) until the task takes them, as they would for a callback.

use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll, Waker};

use futures_core::Stream;
use hibari_transport::{
    EndpointId, EndpointSpec, QosProfile, Reader, ReaderOptions, SampleInfo, TypeAdapter,
};

use crate::context::lock;
use crate::node::Node;
use crate::topic::pubsub::SubscriptionCreateError;

/// Receives `A::Custom` values on one topic as a [`Stream`] of
/// `(value, SampleInfo)` (`A` is a message type, or a [`TypeAdapter`]).
///
/// In one process a value is handed over as a callback would get it: moved
/// when no other subscription still holds the sample, cloned otherwise. The
/// stream never ends; dropping it unsubscribes.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use hibari::msg::std_msgs::msg::String as RosString;
/// use hibari::{Context, QosProfile};
///
/// let node = Context::builder().isolated().create()?.create_node("listener")?;
/// let mut chatter = node.create_subscription_stream::<RosString>("chatter", QosProfile::default())?;
/// let publisher = node.create_publisher::<RosString>("chatter", QosProfile::default())?;
/// publisher.publish(RosString { data: "hello".into() })?;
///
/// let (message, info) = chatter.recv().await; // or `StreamExt::next`
/// assert_eq!((message.data.as_str(), info.sequence), ("hello", 1));
/// # Ok(())
/// # }
/// ```
pub struct SubscriptionStream<A: TypeAdapter> {
    reader: Box<dyn Reader>,
    /// The task to wake; shared with the reader's waker.
    waker: Arc<Mutex<Option<Waker>>>,
    rejected: AtomicU64,
    _adapter: PhantomData<fn() -> A>,
}

impl<A: TypeAdapter> fmt::Debug for SubscriptionStream<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SubscriptionStream")
            .field("topic", &self.topic())
            .field("type", &self.reader.spec().type_name)
            .finish()
    }
}

impl<A: TypeAdapter> SubscriptionStream<A>
where
    A::Custom: Clone,
{
    /// The oldest sample not yet taken, or `None` at once. A sample that
    /// cannot be read as `A` is skipped and counted in
    /// [`rejected_samples`](Self::rejected_samples).
    pub fn try_recv(&self) -> Option<(A::Custom, SampleInfo)> {
        loop {
            let sample = self.reader.take()?;
            match sample.payload.into_owned::<A>() {
                Ok(value) => return Some((value, sample.info)),
                Err(_) => {
                    self.rejected.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    }

    /// The next sample: `stream.recv().await`. Needs no extension trait; the
    /// same as `StreamExt::next` without the `Option` (the stream never
    /// ends). Cancel-safe: dropping the future loses no sample.
    pub fn recv(&mut self) -> Recv<'_, A> {
        Recv { stream: self }
    }

    fn poll_take(&self, cx: &mut TaskContext<'_>) -> Poll<(A::Custom, SampleInfo)> {
        if let Some(item) = self.try_recv() {
            return Poll::Ready(item);
        }
        {
            let mut slot = lock(&self.waker);
            match &*slot {
                Some(w) if w.will_wake(cx.waker()) => {}
                _ => *slot = Some(cx.waker().clone()),
            }
        }
        while self.reader.take_event().is_some() {}
        // A sample that arrived between the take and the registration woke
        // nobody: look once more.
        match self.try_recv() {
            Some(item) => Poll::Ready(item),
            None => Poll::Pending,
        }
    }
}

impl<A: TypeAdapter> SubscriptionStream<A> {
    /// The fully qualified topic (after expansion and remapping).
    pub fn topic(&self) -> &str {
        &self.reader.spec().topic
    }

    /// The subscription's endpoint id.
    pub fn id(&self) -> EndpointId {
        self.reader.id()
    }

    /// How many publishers are matched now.
    pub fn matched_publishers(&self) -> usize {
        self.reader.matched_count()
    }

    /// Samples skipped because they could not be read as `A`.
    pub fn rejected_samples(&self) -> u64 {
        self.rejected.load(Ordering::Relaxed)
    }
}

impl<A: TypeAdapter> Stream for SubscriptionStream<A>
where
    A::Custom: Clone,
{
    type Item = (A::Custom, SampleInfo);

    fn poll_next(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        self.poll_take(cx).map(Some)
    }
}

/// The future of [`SubscriptionStream::recv`].
#[must_use = "futures do nothing unless awaited"]
pub struct Recv<'a, A: TypeAdapter> {
    stream: &'a mut SubscriptionStream<A>,
}

impl<A: TypeAdapter> fmt::Debug for Recv<'_, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Recv")
            .field("topic", &self.stream.topic())
            .finish()
    }
}

impl<A: TypeAdapter> Future for Recv<'_, A>
where
    A::Custom: Clone,
{
    type Output = (A::Custom, SampleInfo);

    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        self.stream.poll_take(cx)
    }
}

impl Node {
    /// Creates a subscription of `A` (a message type, or an adapter whose
    /// custom type it yields) that is a [`Stream`] (see
    /// [`SubscriptionStream`]). No executor is involved, so it runs no
    /// callbacks: it takes only a QoS (no callback group, no event
    /// callbacks; query its statuses on a [`Subscription`](crate::Subscription)
    /// instead).
    pub fn create_subscription_stream<A: TypeAdapter>(
        &self,
        topic: &str,
        qos: QosProfile,
    ) -> Result<SubscriptionStream<A>, SubscriptionCreateError> {
        let topic = self
            .resolve_topic_name(topic)
            .map_err(SubscriptionCreateError::InvalidTopic)?;
        let reader = self
            .context()
            .transport()
            .create_reader(
                &EndpointSpec::new::<A>(topic, qos),
                &ReaderOptions::default().node(self.info()),
            )
            .map_err(SubscriptionCreateError::Transport)?;
        let waker: Arc<Mutex<Option<Waker>>> = Arc::default();
        let slot = waker.clone();
        reader.set_notify(Some(Arc::new(move || {
            let waker = lock(&slot).take();
            if let Some(w) = waker {
                w.wake();
            }
        })));
        Ok(SubscriptionStream {
            reader,
            waker,
            rejected: AtomicU64::new(0),
            _adapter: PhantomData,
        })
    }
}
