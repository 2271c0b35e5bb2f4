//! Creating publishers and subscriptions from a node.
//!
//! Each takes its options as `impl Into<…Options>` (see [`options`](crate::options)):
//! a [`QosProfile`] alone, or rclcpp's `PublisherOptions`/`SubscriptionOptions`
//! with event callbacks, the callback group they — and a subscription's
//! message callback — run in, busy polling and the type adapter.

use std::marker::PhantomData;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use hibari_transport::{EndpointSpec, ReaderOptions, TypeAdapter, WriterOptions};

use crate::events::monitor::{EventMonitor, Side};
use crate::node::{Entity, Node, WakeEntity};
use crate::options::{PublisherOptions, SubscriptionOptions};
use crate::topic::callback::SubscriptionCallback;
use crate::topic::pubsub::{Publisher, PublisherCreateError, PublisherShared};
use crate::topic::subscription::{Handler, Subscription, SubscriptionShared};
use crate::wait::Signal;
use crate::SubscriptionCreateError;

impl Node {
    /// Creates a publisher of `A` on `topic` (expanded and remapped as
    /// [`resolve_topic_name`](Node::resolve_topic_name) says). `A` is a
    /// message type, or a [`TypeAdapter`] whose custom type it then publishes
    /// on a topic of its ROS type: subscribers of the custom type in this
    /// process get the value as published; the conversion runs only for those
    /// that want the ROS message, at most once per sample. `options` is a
    /// [`QosProfile`](crate::QosProfile) or [`PublisherOptions`].
    pub fn create_publisher<A: TypeAdapter>(
        &self,
        topic: &str,
        options: impl Into<PublisherOptions>,
    ) -> Result<Publisher<A>, PublisherCreateError> {
        let options = options.into();
        let topic = self
            .resolve_topic_name(topic)
            .map_err(PublisherCreateError::InvalidTopic)?;
        let shared = self.publisher_shared(EndpointSpec::new::<A>(topic, options.qos), options)?;
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
            foreign_type: Default::default(),
            heap: Default::default(),
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

    /// Creates a subscription; an executor spinning this node runs
    /// `callback` for every sample. The callback may take the message owned
    /// or borrowed, with or without its [`SampleInfo`](crate::SampleInfo)
    /// (see [`callback`](crate::callback)); its argument's type names the
    /// message type, or, with
    /// [`SubscriptionOptions::adapter`], the adapter's custom type.
    /// `options` is a [`QosProfile`](crate::QosProfile) or
    /// [`SubscriptionOptions`].
    pub fn create_subscription<A: TypeAdapter, Ad, Marker>(
        &self,
        topic: &str,
        options: impl Into<SubscriptionOptions<Ad>>,
        mut callback: impl SubscriptionCallback<A, Ad, Marker>,
    ) -> Result<Subscription<A>, SubscriptionCreateError> {
        let mut kept = None;
        let handler: Handler = Box::new(move |sample| callback.deliver(sample, &mut kept));
        self.subscribe::<A>(topic, Some(handler), options.into().unadapted())
    }

    /// Creates a subscription without a callback, for
    /// [`take`](Subscription::take) (`A` is a message type or an adapter);
    /// its event callbacks, if any, still run on the executor spinning the
    /// node.
    pub fn create_polled_subscription<A: TypeAdapter>(
        &self,
        topic: &str,
        options: impl Into<SubscriptionOptions>,
    ) -> Result<Subscription<A>, SubscriptionCreateError> {
        self.subscribe::<A>(topic, None, options.into())
    }

    fn subscribe<A: TypeAdapter>(
        &self,
        topic: &str,
        handler: Option<Handler>,
        options: SubscriptionOptions,
    ) -> Result<Subscription<A>, SubscriptionCreateError> {
        let topic = self
            .resolve_topic_name(topic)
            .map_err(SubscriptionCreateError::InvalidTopic)?;
        let spec = EndpointSpec::new::<A>(topic, options.qos);
        let shared = self.subscription_shared(spec, handler, options)?;
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
        let watchers = shared.watchers.clone();
        // Samples and events both fire it; only an executor's entity wakes
        // its executor, and any entity the wait sets holding it (sequentially
        // consistent: see `watchers`).
        shared.reader.set_notify(Some(Arc::new(WakeEntity {
            mark: move || {
                ready.store(true, Ordering::SeqCst);
                flag.store(true, Ordering::Release);
                watchers.notify();
            },
            waker: entity.then_some(waker),
            bell: shared.bell.clone(),
        })));
        if entity {
            let entity: Arc<dyn Entity> = shared.clone();
            self.add_entity(Arc::downgrade(&entity));
        }
        Ok(shared)
    }
}
