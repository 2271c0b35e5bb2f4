//! Subscriptions: a reader, the callback an executor runs for each sample,
//! and the subscription's [event monitor](crate::events).
//!
//! One unit of executor work is one sample delivered to the callback, or one
//! event callback. Samples come first: a subscription's deadline and its
//! publishers' leases are judged after the samples already queued have been
//! taken, by their reception timestamps.

use std::fmt;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use hibari_cdr::Message;
use hibari_transport::{
    EndpointId, Payload, PayloadError, Reader, Sample, SampleInfo, Shared, TypeAdapter,
};

use crate::events::monitor::EventMonitor;
use crate::executor::bells::{new_bell, Bell};
use crate::executor::watchers::Watchers;
use crate::group::CallbackGroup;
use crate::node::{lock_callback, take_ready, Entity, NodeWaker};

pub(crate) type Handler = Box<dyn FnMut(Sample) -> Result<(), PayloadError> + Send>;

/// What a subscription shares with the executor.
pub(crate) struct SubscriptionShared {
    pub(crate) reader: Box<dyn Reader>,
    /// Set by the reader's waker; cleared before a take that finds nothing.
    pub(crate) ready: Arc<AtomicBool>,
    /// `None` for a polled subscription.
    handler: Mutex<Option<Handler>>,
    has_handler: bool,
    /// Polled in a loop by the executor instead of woken.
    busy_poll: bool,
    rejected: AtomicU64,
    group: CallbackGroup,
    waker: Arc<NodeWaker>,
    pub(crate) events: EventMonitor,
    /// Rung by writers in other processes (an executor's entity only).
    pub(crate) bell: Option<Bell>,
    /// Wait sets holding it, woken by its reader's waker after `ready`.
    pub(crate) watchers: Arc<Watchers>,
}

impl SubscriptionShared {
    pub(crate) fn new(
        reader: Box<dyn Reader>,
        handler: Option<Handler>,
        group: CallbackGroup,
        waker: Arc<NodeWaker>,
        events: EventMonitor,
        busy_poll: bool,
    ) -> Self {
        let entity = handler.is_some() || events.has_callbacks();
        SubscriptionShared {
            bell: entity.then(new_bell).flatten(),
            busy_poll,
            reader,
            ready: Arc::new(AtomicBool::new(false)),
            has_handler: handler.is_some(),
            handler: Mutex::new(handler),
            rejected: AtomicU64::new(0),
            group,
            waker,
            events,
            watchers: Arc::default(),
        }
    }

    /// Whether an executor must run it: it has a callback, or event callbacks.
    pub(crate) fn is_entity(&self) -> bool {
        self.has_handler || self.events.has_callbacks()
    }

    pub(crate) fn reject(&self, _why: PayloadError) {
        self.rejected.fetch_add(1, Ordering::Relaxed);
    }

    /// Takes one sample for a caller, telling the event monitor. The ready
    /// flag is kept as the executor keeps it ([`take_ready`]): a take that
    /// finds nothing leaves the subscription not ready, for executors and
    /// wait sets alike, until the next sample.
    pub(crate) fn take_one(&self) -> Option<Sample> {
        let Some(sample) = take_ready(&self.ready, &*self.reader) else {
            self.events.pump_flagged(&*self.reader);
            return None;
        };
        self.events.on_sample(&sample.info, &*self.reader);
        Some(sample)
    }

    /// Runs one unit of work now (one sample, or one event callback);
    /// returns whether it did.
    #[cfg(test)]
    pub(crate) fn execute_one(&self) -> bool {
        self.execute(Instant::now())
    }

    /// Takes one sample and runs the callback on it; returns whether it did.
    /// Skips (returns `false`) when another thread is running the callback.
    fn deliver_sample(&self) -> bool {
        let Some(mut handler) = lock_callback(&self.handler) else {
            return false;
        };
        let Some(handler) = handler.as_mut() else {
            return false;
        };
        let Some(sample) = take_ready(&self.ready, &*self.reader) else {
            return false;
        };
        self.events.on_sample(&sample.info, &*self.reader);
        if let Err(e) = handler(sample) {
            self.reject(e);
        }
        true
    }
}

impl Entity for SubscriptionShared {
    fn probe(&self) {
        self.ready.store(true, Ordering::Release);
    }

    fn busy(&self) -> bool {
        self.busy_poll
    }

    fn bell(&self) -> Option<Bell> {
        self.bell.clone()
    }

    fn execute(&self, _now: Instant) -> bool {
        let samples = self.has_handler && (self.busy_poll || self.ready.load(Ordering::Acquire));
        if !samples && !self.events.may_run() {
            return false;
        }
        let Some(_group) = self.group.try_enter(&self.waker) else {
            return false;
        };
        if samples && self.deliver_sample() {
            return true;
        }
        if !self.events.may_run() {
            return false;
        }
        // Samples still queued (a polled subscription's, or ones whose
        // callback runs on another thread) count as on time.
        let waiting = self.reader.queued() > 0;
        self.events.run(&*self.reader, waiting)
    }

    fn timed(&self) -> bool {
        self.events.is_timed()
    }

    fn next_due(&self) -> Option<Instant> {
        let due = self.events.next_due()?;
        self.group.is_free(&self.waker).then_some(due)
    }
}

/// Receives `A::Custom` values on one topic (`A` is a message type, or a
/// [`TypeAdapter`]): through its callback when an executor spins its node, or
/// by [`take`](Subscription::take). Dropping it unsubscribes.
///
/// Its QoS events can be queried at any time
/// ([`matched_status`](Subscription::matched_status), …) or delivered to
/// callbacks given in [`SubscriptionOptions`](crate::SubscriptionOptions).
pub struct Subscription<A> {
    pub(crate) shared: Arc<SubscriptionShared>,
    pub(crate) _adapter: PhantomData<fn() -> A>,
}

impl<A> fmt::Debug for Subscription<A> {
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
            let sample = self.shared.take_one()?;
            match sample.payload.into_owned::<A>() {
                Ok(value) => return Some((value, sample.info)),
                Err(e) => self.shared.reject(e),
            }
        }
    }

    /// Takes the oldest sample into `message`, reusing its allocations (a
    /// sequence's buffer is refilled, not replaced, when it is large
    /// enough): a subscriber that keeps one message takes samples from other
    /// processes without allocating. Returns the sample's info, or `None` at
    /// once when there is none. A sample from this process is moved in
    /// (its value replaces `message`). A sample that cannot be read as `A`
    /// is skipped and counted in [`rejected_samples`](Subscription::rejected_samples).
    pub fn take_into(&self, message: &mut A::Ros) -> Option<SampleInfo>
    where
        A::Custom: Clone,
    {
        loop {
            let sample = self.shared.take_one()?;
            let read = match sample.payload {
                Payload::Serialized(bytes) => {
                    message
                        .decode_into(bytes.bytes())
                        .map_err(|source| PayloadError::Decode {
                            type_name: <A::Ros as Message>::TYPE_NAME,
                            source,
                        })
                }
                local => local
                    .into_owned::<A>()
                    .map(|value| *message = A::into_ros(value)),
            };
            match read {
                Ok(()) => return Some(sample.info),
                Err(e) => self.shared.reject(e),
            }
        }
    }

    /// The oldest sample not yet taken, borrowed from the publisher's value
    /// (never copied), or `None` at once.
    pub fn take_shared(&self) -> Option<(Shared<A::Custom>, SampleInfo)> {
        loop {
            let sample = self.shared.take_one()?;
            match sample.payload.into_shared::<A>() {
                Ok(value) => return Some((value, sample.info)),
                Err(e) => self.shared.reject(e),
            }
        }
    }
}

impl<A> Subscription<A> {
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

    /// The callback group its callbacks run in.
    pub fn callback_group(&self) -> &CallbackGroup {
        &self.shared.group
    }
}
