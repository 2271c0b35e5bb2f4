//! Generic publishers and subscriptions: a topic whose type is known only at
//! run time by its name (`sensor_msgs/msg/Image`), carrying CDR bytes — for
//! tools, recorders, bridges and language bindings (rclcpp's
//! `GenericPublisher` / `GenericSubscription`).
//!
//! They are [`Publisher<Serialized>`] and [`Subscription<Serialized>`]: the
//! same endpoints, QoS, events and statuses as typed ones. A generic publisher
//! sends the bytes it is given, unchanged. A generic subscription receives
//! bytes: a sample from a typed publisher in this process is encoded once and
//! the encoding shared by every generic subscription that wants it; bytes
//! from another process arrive as the transport holds them (from shared
//! memory, without a copy). Matching is by type name; the hash, unknown here,
//! matches any definition of that name.

use std::marker::PhantomData;

use hibari_transport::{CdrBytes, EndpointSpec, Payload, QosProfile, SampleInfo, WriteError};

use crate::node::Node;
use crate::options::{PublisherOptions, SubscriptionOptions};
use crate::topic::pubsub::{PublishError, Publisher, PublisherCreateError};
use crate::topic::subscription::{Handler, Subscription};
use crate::SubscriptionCreateError;

/// Marks a publisher or subscription of CDR bytes whose type is named at run
/// time: `node.create_generic_publisher(topic, "pkg/msg/Name", qos)` and
/// `create_generic_subscription`, carrying CDR bytes unchanged.
#[derive(Debug)]
pub enum Serialized {}

/// Whether `type_name` is `package/<kind>/Name` with `kind` one of `kinds`.
pub(crate) fn is_type_name(type_name: &str, kinds: &[&str]) -> bool {
    let mut parts = type_name.split('/');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(p), Some(kind), Some(n), None) => {
            !p.is_empty() && !n.is_empty() && kinds.contains(&kind)
        }
        _ => false,
    }
}

fn spec(topic: String, type_name: &str, qos: QosProfile) -> Option<EndpointSpec> {
    is_type_name(type_name, &["msg", "srv", "action"]).then(|| EndpointSpec {
        topic,
        type_name: type_name.to_owned(),
        type_hash: String::new(),
        qos,
    })
}

fn bad_type(type_name: &str) -> String {
    format!("`{type_name}` is not a ROS type name: write it as `package/msg/Name`")
}

impl Node {
    /// Creates a publisher of CDR bytes of the type named `type_name`;
    /// `options` is a [`QosProfile`] or [`PublisherOptions`].
    pub fn create_generic_publisher(
        &self,
        topic: &str,
        type_name: &str,
        options: impl Into<PublisherOptions>,
    ) -> Result<Publisher<Serialized>, PublisherCreateError> {
        let options = options.into();
        let topic = self
            .resolve_topic_name(topic)
            .map_err(PublisherCreateError::InvalidTopic)?;
        let spec = spec(topic, type_name, options.qos).ok_or_else(|| {
            PublisherCreateError::Transport(hibari_transport::EndpointCreateError::Unsupported(
                bad_type(type_name),
            ))
        })?;
        Ok(Publisher {
            shared: self.publisher_shared(spec, options)?,
            _adapter: PhantomData,
        })
    }

    /// Creates a subscription of the type named `type_name`; an executor
    /// spinning this node runs `callback` with each sample's CDR bytes.
    /// `options` is a [`QosProfile`] or [`SubscriptionOptions`].
    pub fn create_generic_subscription(
        &self,
        topic: &str,
        type_name: &str,
        options: impl Into<SubscriptionOptions>,
        callback: impl FnMut(CdrBytes, SampleInfo) + Send + 'static,
    ) -> Result<Subscription<Serialized>, SubscriptionCreateError> {
        let mut callback = callback;
        let handler: Handler = Box::new(move |sample| {
            // A local sample that cannot be encoded reaches no generic
            // subscription; it is counted as rejected.
            let bytes = sample.payload.into_cdr_bytes().map_err(|source| {
                hibari_transport::PayloadError::Encode {
                    type_name: "generic",
                    source,
                }
            })?;
            callback(bytes, sample.info);
            Ok(())
        });
        self.generic_subscription(topic, type_name, Some(handler), options.into())
    }

    /// Creates a generic subscription without a callback, for
    /// [`take`](Subscription::take).
    pub fn create_generic_polled_subscription(
        &self,
        topic: &str,
        type_name: &str,
        options: impl Into<SubscriptionOptions>,
    ) -> Result<Subscription<Serialized>, SubscriptionCreateError> {
        self.generic_subscription(topic, type_name, None, options.into())
    }

    pub(crate) fn generic_subscription(
        &self,
        topic: &str,
        type_name: &str,
        handler: Option<Handler>,
        options: SubscriptionOptions,
    ) -> Result<Subscription<Serialized>, SubscriptionCreateError> {
        let topic = self
            .resolve_topic_name(topic)
            .map_err(SubscriptionCreateError::InvalidTopic)?;
        let spec = spec(topic, type_name, options.qos).ok_or_else(|| {
            SubscriptionCreateError::Transport(hibari_transport::EndpointCreateError::Unsupported(
                bad_type(type_name),
            ))
        })?;
        Ok(Subscription {
            shared: self.subscription_shared(spec, handler, options)?,
            _adapter: PhantomData,
        })
    }
}

impl Publisher<Serialized> {
    /// Publishes CDR bytes (header included) as they are. On failure the
    /// bytes come back.
    pub fn publish(&self, cdr: impl Into<CdrBytes>) -> Result<(), PublishError<CdrBytes>> {
        let written = self.shared.writer.write(Payload::Serialized(cdr.into()));
        if written.is_ok() {
            self.shared.events.on_publish();
        }
        written.map_err(|e| match e {
            WriteError::Timeout {
                payload: Payload::Serialized(message),
                timeout,
            } => PublishError::Timeout { message, timeout },
            WriteError::Full {
                payload: Payload::Serialized(message),
            } => PublishError::Full { message },
            other => PublishError::Transport(other),
        })
    }
}

impl Subscription<Serialized> {
    /// The oldest sample's CDR bytes, or `None` at once.
    pub fn take(&self) -> Option<(CdrBytes, SampleInfo)> {
        loop {
            let sample = self.shared.take_one()?;
            match sample.payload.into_cdr_bytes() {
                Ok(bytes) => return Some((bytes, sample.info)),
                Err(source) => self.shared.reject(hibari_transport::PayloadError::Encode {
                    type_name: "generic",
                    source,
                }),
            }
        }
    }
}
