//! [`LifecyclePublisher`]: a publisher that publishes only while its
//! lifecycle node is active.

use std::fmt;
use std::ops::Deref;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use hibari_transport::TypeAdapter;

use crate::options::PublisherOptions;
use crate::{PublishError, Publisher, PublisherCreateError};

use super::node::LifecycleNode;

/// A publisher managed by its [`LifecycleNode`] (rclcpp's
/// `LifecyclePublisher`): activated when the node enters `active`,
/// deactivated when it leaves. While inactive, [`publish`](Self::publish)
/// drops the message and logs a warning once (until the next activation),
/// as rclcpp does; the publisher stays matched, so subscribers see it in the
/// graph all along. It derefs to the [`Publisher`] for everything else.
pub struct LifecyclePublisher<A> {
    publisher: Publisher<A>,
    active: Arc<AtomicBool>,
    warned: AtomicBool,
    logger: crate::logging::Logger,
}

impl<A> fmt::Debug for LifecyclePublisher<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LifecyclePublisher")
            .field("topic", &self.publisher.topic())
            .field("activated", &self.is_activated())
            .finish()
    }
}

impl<A> Deref for LifecyclePublisher<A> {
    type Target = Publisher<A>;
    fn deref(&self) -> &Publisher<A> {
        &self.publisher
    }
}

impl<A> LifecyclePublisher<A> {
    /// Whether it publishes (its node is active, or it was activated by hand).
    pub fn is_activated(&self) -> bool {
        self.active.load(Ordering::Acquire)
    }

    /// Activates it by hand (its node does this on entering `active`).
    pub fn on_activate(&self) {
        self.active.store(true, Ordering::Release);
    }

    /// Deactivates it by hand (its node does this on leaving `active`).
    pub fn on_deactivate(&self) {
        self.active.store(false, Ordering::Release);
    }
}

impl<A: TypeAdapter> LifecyclePublisher<A> {
    /// Publishes `message` while activated; otherwise drops it (`Ok`) and
    /// warns once.
    pub fn publish(&self, message: A::Custom) -> Result<(), PublishError<A::Custom>> {
        if !self.is_activated() {
            if !self.warned.swap(true, Ordering::AcqRel) {
                crate::warn!(
                    self.logger,
                    "Trying to publish message on the topic '{}', but the publisher is not activated",
                    self.publisher.topic()
                );
            }
            return Ok(());
        }
        self.warned.store(false, Ordering::Release);
        self.publisher.publish(message)
    }
}

impl LifecycleNode {
    /// A publisher on `topic` that publishes only while this node is
    /// `active` (`options`: a QoS profile or [`PublisherOptions`]).
    pub fn create_lifecycle_publisher<A: TypeAdapter>(
        &self,
        topic: &str,
        options: impl Into<PublisherOptions>,
    ) -> Result<LifecyclePublisher<A>, PublisherCreateError> {
        let publisher = self.node().create_publisher::<A>(topic, options)?;
        Ok(LifecyclePublisher {
            publisher,
            active: self.managed_flag(),
            warned: AtomicBool::new(false),
            logger: self.node().get_logger().clone(),
        })
    }
}
