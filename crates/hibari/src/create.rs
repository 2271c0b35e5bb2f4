//! Creating publishers and subscriptions from a node.
//!
//! Each `create_*` has a `create_*_with` twin that takes options (rclcpp's
//! `PublisherOptions`/`SubscriptionOptions`): event callbacks and the callback
//! group they — and a subscription's message callback — run in.

use std::marker::PhantomData;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use hibari_transport::{EndpointSpec, QosProfile, ReaderOptions, TypeAdapter, WriterOptions};

use crate::callback::{MessageCallback, SubscriptionCallback};
use crate::events::{PublisherOptions, SubscriptionOptions};
use crate::monitor::{EventMonitor, Side};
use crate::node::{Entity, Node, WakeEntity};
use crate::pubsub::{Publisher, PublisherCreateError, PublisherShared};
use crate::subscription::{Handler, Subscription, SubscriptionShared};
use crate::wait::Signal;
use crate::{Message, SubscriptionCreateError};

impl Node {
    /// Creates a publisher of the message type `M` on `topic` (expanded and
    /// remapped as [`resolve_topic_name`](Node::resolve_topic_name) says).
    pub fn create_publisher<M: Message>(
        &self,
        topic: &str,
        qos: QosProfile,
    ) -> Result<Publisher<M>, PublisherCreateError> {
        self.create_publisher_adapted_with::<M>(topic, qos, PublisherOptions::default())
    }

    /// [`create_publisher`](Node::create_publisher) with options: event
    /// callbacks and their callback group.
    pub fn create_publisher_with<M: Message>(
        &self,
        topic: &str,
        qos: QosProfile,
        options: PublisherOptions,
    ) -> Result<Publisher<M>, PublisherCreateError> {
        self.create_publisher_adapted_with::<M>(topic, qos, options)
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
        self.create_publisher_adapted_with::<A>(topic, qos, PublisherOptions::default())
    }

    /// [`create_publisher_adapted`](Node::create_publisher_adapted) with
    /// options.
    pub fn create_publisher_adapted_with<A: TypeAdapter>(
        &self,
        topic: &str,
        qos: QosProfile,
        options: PublisherOptions,
    ) -> Result<Publisher<A>, PublisherCreateError> {
        let topic = self
            .resolve_topic_name(topic)
            .map_err(PublisherCreateError::InvalidTopic)?;
        let shared = self.publisher_shared(EndpointSpec::new::<A>(topic, qos), options)?;
        Ok(Publisher {
            shared,
            _adapter: PhantomData,
        })
    }

    /// The publisher behind every `create_publisher*`: a writer for `spec`
    /// (topic already resolved), its event monitor and its waker.
    pub(crate) fn publisher_shared(
        &self,
        spec: EndpointSpec,
        options: PublisherOptions,
    ) -> Result<Arc<PublisherShared>, PublisherCreateError> {
        let qos = spec.qos;
        let writer = self
            .context()
            .transport()
            .create_writer(&spec, &WriterOptions::default().node(self.info()))
            .map_err(PublisherCreateError::Transport)?;
        let waker = self.inner.waker.clone();
        let events = EventMonitor::new(
            Side::Publisher,
            writer.id(),
            &qos,
            options.events.0,
            waker.clone(),
        );
        let shared = Arc::new(PublisherShared {
            writer,
            signal: Arc::new(Signal::default()),
            group: options
                .group
                .unwrap_or_else(|| self.default_callback_group()),
            waker,
            events,
        });
        // The waker keeps the statuses current: a writer's waker fires only
        // for events. Weak: the writer owns its waker.
        let weak = Arc::downgrade(&shared);
        let signal = shared.signal.clone();
        shared.writer.set_notify(Some(Arc::new(move || {
            if let Some(shared) = weak.upgrade() {
                shared.events.pump_now(&*shared.writer);
            }
            signal.notify();
        })));
        if shared.events.has_callbacks() {
            let entity: Arc<dyn Entity> = shared.clone();
            self.add_entity(Arc::downgrade(&entity));
        }
        Ok(shared)
    }

    /// Creates a subscription of the message type `M`; an executor spinning
    /// this node runs `callback` for every sample. The callback may take the
    /// message owned or borrowed, with or without its [`SampleInfo`](crate::SampleInfo)
    /// (see [`callback`](crate::callback)).
    pub fn create_subscription<M: Message, Marker>(
        &self,
        topic: &str,
        qos: QosProfile,
        callback: impl MessageCallback<M, Marker>,
    ) -> Result<Subscription<M>, SubscriptionCreateError> {
        self.create_subscription_with(topic, qos, callback, SubscriptionOptions::default())
    }

    /// [`create_subscription`](Node::create_subscription) with options:
    /// event callbacks and the callback group of all its callbacks.
    pub fn create_subscription_with<M: Message, Marker>(
        &self,
        topic: &str,
        qos: QosProfile,
        callback: impl MessageCallback<M, Marker>,
        options: SubscriptionOptions,
    ) -> Result<Subscription<M>, SubscriptionCreateError> {
        self.create_subscription_adapted_with::<M, Marker>(topic, qos, callback, options)
    }

    /// Creates a subscription of the adapter `A`'s custom type.
    pub fn create_subscription_adapted<A: TypeAdapter, Marker>(
        &self,
        topic: &str,
        qos: QosProfile,
        callback: impl SubscriptionCallback<A::Custom, Marker>,
    ) -> Result<Subscription<A>, SubscriptionCreateError> {
        self.create_subscription_adapted_with::<A, Marker>(
            topic,
            qos,
            callback,
            SubscriptionOptions::default(),
        )
    }

    /// [`create_subscription_adapted`](Node::create_subscription_adapted)
    /// with options.
    pub fn create_subscription_adapted_with<A: TypeAdapter, Marker>(
        &self,
        topic: &str,
        qos: QosProfile,
        mut callback: impl SubscriptionCallback<A::Custom, Marker>,
        options: SubscriptionOptions,
    ) -> Result<Subscription<A>, SubscriptionCreateError> {
        let handler: Handler = Box::new(move |sample| callback.deliver::<A>(sample));
        self.subscribe::<A>(topic, qos, Some(handler), options)
    }

    /// Creates a subscription without a callback, for
    /// [`take`](Subscription::take) (`A` is a message type or an adapter).
    pub fn create_polled_subscription<A: TypeAdapter>(
        &self,
        topic: &str,
        qos: QosProfile,
    ) -> Result<Subscription<A>, SubscriptionCreateError> {
        self.subscribe::<A>(topic, qos, None, SubscriptionOptions::default())
    }

    /// [`create_polled_subscription`](Node::create_polled_subscription) with
    /// options: its event callbacks still run on the executor spinning the
    /// node.
    pub fn create_polled_subscription_with<A: TypeAdapter>(
        &self,
        topic: &str,
        qos: QosProfile,
        options: SubscriptionOptions,
    ) -> Result<Subscription<A>, SubscriptionCreateError> {
        self.subscribe::<A>(topic, qos, None, options)
    }

    fn subscribe<A: TypeAdapter>(
        &self,
        topic: &str,
        qos: QosProfile,
        handler: Option<Handler>,
        options: SubscriptionOptions,
    ) -> Result<Subscription<A>, SubscriptionCreateError> {
        let topic = self
            .resolve_topic_name(topic)
            .map_err(SubscriptionCreateError::InvalidTopic)?;
        let shared =
            self.subscription_shared(EndpointSpec::new::<A>(topic, qos), handler, options)?;
        Ok(Subscription {
            shared,
            _adapter: PhantomData,
        })
    }

    /// The subscription behind every `create_*subscription*`: a reader for
    /// `spec` (topic already resolved), registered with the executor when it
    /// has a callback or event callbacks.
    pub(crate) fn subscription_shared(
        &self,
        spec: EndpointSpec,
        handler: Option<Handler>,
        options: SubscriptionOptions,
    ) -> Result<Arc<SubscriptionShared>, SubscriptionCreateError> {
        let qos = spec.qos;
        let reader = self
            .context()
            .transport()
            .create_reader(&spec, &ReaderOptions::default().node(self.info()))
            .map_err(SubscriptionCreateError::Transport)?;
        if options.busy_poll {
            reader.set_busy_poll(true);
        }
        let waker = self.inner.waker.clone();
        let events = EventMonitor::new(
            Side::Subscription,
            reader.id(),
            &qos,
            options.events.0,
            waker.clone(),
        );
        let group = options
            .group
            .unwrap_or_else(|| self.default_callback_group());
        let shared = Arc::new(SubscriptionShared::new(
            reader,
            handler,
            group,
            waker.clone(),
            events,
            options.busy_poll,
        ));
        let entity = shared.is_entity();
        let ready = shared.ready.clone();
        let flag = shared.events.flag();
        // Samples and events both fire it; only an executor's entity wakes.
        shared.reader.set_notify(Some(Arc::new(WakeEntity {
            mark: move || {
                ready.store(true, Ordering::Release);
                flag.store(true, Ordering::Release);
            },
            waker: entity.then_some(waker),
        })));
        if entity {
            let entity: Arc<dyn Entity> = shared.clone();
            self.add_entity(Arc::downgrade(&entity));
        }
        Ok(shared)
    }
}
