//! One options value per entity kind: everything about an entity beyond its
//! name and callback, each setting with one route.
//!
//! Every `Node::create_*` takes its options as `impl Into<…Options>`, and the
//! one setting nearly everyone gives converts into them: a [`QosProfile`]
//! for publishers, subscriptions, services and clients, a period
//! ([`Duration`]) for timers. So the short form and the long form are the
//! same method:
//!
//! ```
//! use hibari::msg::std_msgs::msg::String as RosString;
//! use hibari::{CallbackGroupType, Context, QosProfile, SubscriptionOptions};
//!
//! let node = Context::builder().isolated().create()?.create_node("options")?;
//! let group = node.create_callback_group(CallbackGroupType::Reentrant);
//! let _plain = node.create_subscription("chatter", QosProfile::default(), |_: RosString| {})?;
//! let _tuned = node.create_subscription(
//!     "chatter",
//!     SubscriptionOptions::new(QosProfile::default()).callback_group(&group).busy_poll(true),
//!     |_: &RosString| {},
//! )?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::marker::PhantomData;
use std::time::Duration;

use hibari_transport::QosProfile;

use crate::events::{PublisherEventCallbacks, SubscriptionEventCallbacks};
use crate::group::CallbackGroup;
use crate::topic::callback::NoAdapter;

/// How to create a publisher (rclcpp's `qos` and `PublisherOptions`): its
/// QoS, event callbacks and the callback group they run in.
#[derive(Debug, Default)]
pub struct PublisherOptions {
    pub(crate) qos: QosProfile,
    pub(crate) group: Option<CallbackGroup>,
    pub(crate) events: PublisherEventCallbacks,
}

impl PublisherOptions {
    /// `qos`, no event callbacks, the node's default group.
    pub fn new(qos: QosProfile) -> Self {
        PublisherOptions {
            qos,
            ..Self::default()
        }
    }

    /// The group the event callbacks run in (default: the node's).
    pub fn callback_group(mut self, group: &CallbackGroup) -> Self {
        self.group = Some(group.clone());
        self
    }

    /// The event callbacks.
    pub fn event_callbacks(mut self, callbacks: PublisherEventCallbacks) -> Self {
        self.events = callbacks;
        self
    }
}

impl From<QosProfile> for PublisherOptions {
    fn from(qos: QosProfile) -> Self {
        PublisherOptions::new(qos)
    }
}

/// How to create a subscription (rclcpp's `qos` and `SubscriptionOptions`):
/// its QoS, event callbacks, the callback group that the message callback
/// and event callbacks run in, busy polling, and the [type
/// adapter](crate::TypeAdapter) its callback receives.
///
/// `A` is [`NoAdapter`] until [`adapter`](SubscriptionOptions::adapter) names
/// one: the callback then takes the message type its argument names.
pub struct SubscriptionOptions<A = NoAdapter> {
    pub(crate) qos: QosProfile,
    pub(crate) group: Option<CallbackGroup>,
    pub(crate) events: SubscriptionEventCallbacks,
    pub(crate) busy_poll: bool,
    _adapter: PhantomData<fn() -> A>,
}

impl SubscriptionOptions {
    /// `qos`, no event callbacks, the node's default group, event-driven.
    pub fn new(qos: QosProfile) -> Self {
        SubscriptionOptions {
            qos,
            group: None,
            events: SubscriptionEventCallbacks::default(),
            busy_poll: false,
            _adapter: PhantomData,
        }
    }

    /// The callback receives the custom type of the adapter `B` (rclcpp's
    /// `TypeAdapter`): samples published as that type in this process reach
    /// it without any conversion.
    pub fn adapter<B: crate::TypeAdapter>(self) -> SubscriptionOptions<B> {
        SubscriptionOptions {
            qos: self.qos,
            group: self.group,
            events: self.events,
            busy_poll: self.busy_poll,
            _adapter: PhantomData,
        }
    }
}

impl<A> SubscriptionOptions<A> {
    /// The group the callbacks run in (default: the node's).
    pub fn callback_group(mut self, group: &CallbackGroup) -> Self {
        self.group = Some(group.clone());
        self
    }

    /// The event callbacks.
    pub fn event_callbacks(mut self, callbacks: SubscriptionEventCallbacks) -> Self {
        self.events = callbacks;
        self
    }

    /// Busy polling, for who trades a core for latency: publishers in other
    /// processes never signal this subscription (no system call on either
    /// side), and an executor spinning its node never sleeps — it looks for
    /// samples in a loop, keeping one core busy while it spins. Delivery,
    /// order and QoS are the same as without. Default: off (event-driven).
    pub fn busy_poll(mut self, on: bool) -> Self {
        self.busy_poll = on;
        self
    }

    /// Drops the adapter, for the subscriptions that take none.
    pub(crate) fn unadapted(self) -> SubscriptionOptions {
        SubscriptionOptions {
            qos: self.qos,
            group: self.group,
            events: self.events,
            busy_poll: self.busy_poll,
            _adapter: PhantomData,
        }
    }
}

impl Default for SubscriptionOptions {
    fn default() -> Self {
        SubscriptionOptions::new(QosProfile::default())
    }
}

impl From<QosProfile> for SubscriptionOptions {
    fn from(qos: QosProfile) -> Self {
        SubscriptionOptions::new(qos)
    }
}

impl<A> fmt::Debug for SubscriptionOptions<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SubscriptionOptions")
            .field("qos", &self.qos)
            .field("group", &self.group)
            .field("events", &self.events)
            .field("busy_poll", &self.busy_poll)
            .field("adapter", &std::any::type_name::<A>())
            .finish()
    }
}

/// How to create a service server (rclcpp's `qos` and `group` arguments of
/// `create_service`).
#[derive(Clone, Debug)]
pub struct ServiceOptions {
    pub(crate) qos: QosProfile,
    pub(crate) group: Option<CallbackGroup>,
}

impl Default for ServiceOptions {
    /// [`services_default`](QosProfile::services_default), the node's
    /// default callback group.
    fn default() -> Self {
        ServiceOptions::new(QosProfile::services_default())
    }
}

impl ServiceOptions {
    /// `qos` for both topics, the node's default callback group. A deeper
    /// history lets more requests wait for the callback: with the default
    /// depth of 10, a client's request waits (up to 100 ms) when 10 are
    /// already queued.
    pub fn new(qos: QosProfile) -> Self {
        ServiceOptions { qos, group: None }
    }

    /// The group the callback runs in (default: the node's).
    pub fn callback_group(mut self, group: &CallbackGroup) -> Self {
        self.group = Some(group.clone());
        self
    }
}

impl From<QosProfile> for ServiceOptions {
    fn from(qos: QosProfile) -> Self {
        ServiceOptions::new(qos)
    }
}

/// How to create a service client: the QoS of its request and reply topics
/// (rclcpp's `qos` argument of `create_client`). A client runs no callback,
/// so it has no callback group.
#[derive(Clone, Debug)]
pub struct ClientOptions {
    pub(crate) qos: QosProfile,
}

impl Default for ClientOptions {
    /// [`services_default`](QosProfile::services_default).
    fn default() -> Self {
        ClientOptions::new(QosProfile::services_default())
    }
}

impl ClientOptions {
    /// `qos` for both topics.
    pub fn new(qos: QosProfile) -> Self {
        ClientOptions { qos }
    }
}

impl From<QosProfile> for ClientOptions {
    fn from(qos: QosProfile) -> Self {
        ClientOptions::new(qos)
    }
}

/// How to create a timer: its period, the callback group its callback
/// runs in, and (for `create_timer`) the clock it runs on (rclcpp's
/// `period`, `group` and `clock` arguments).
#[derive(Clone, Debug)]
pub struct TimerOptions {
    pub(crate) period: Duration,
    pub(crate) group: Option<CallbackGroup>,
    pub(crate) clock: Option<crate::Clock>,
}

impl TimerOptions {
    /// Every `period`, in the node's default group, on the node's clock.
    pub fn new(period: Duration) -> Self {
        TimerOptions {
            period,
            group: None,
            clock: None,
        }
    }

    /// The group the callback runs in (default: the node's).
    pub fn callback_group(mut self, group: &CallbackGroup) -> Self {
        self.group = Some(group.clone());
        self
    }

    /// The clock [`Node::create_timer`](crate::Node::create_timer) runs the
    /// timer on (default: the node's). A ROS-time clock is followed as the
    /// node's is: on its override while one is active (simulated time), on
    /// steady time otherwise. A system-time or steady-time clock gives a
    /// steady schedule. `create_wall_timer` ignores it (always steady).
    pub fn clock(mut self, clock: &crate::Clock) -> Self {
        self.clock = Some(clock.clone());
        self
    }
}

impl From<Duration> for TimerOptions {
    fn from(period: Duration) -> Self {
        TimerOptions::new(period)
    }
}

macro_rules! group_only_options {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default)]
        pub struct $name {
            pub(crate) group: Option<CallbackGroup>,
        }

        impl $name {
            /// The node's default callback group.
            pub fn new() -> Self {
                Self::default()
            }

            /// The group the callback runs in (default: the node's).
            pub fn callback_group(mut self, group: &CallbackGroup) -> Self {
                self.group = Some(group.clone());
                self
            }
        }
    };
}

group_only_options!(
    /// How to create a guard condition: the callback group its callback runs
    /// in.
    GuardConditionOptions
);

group_only_options!(
    /// How to create an fd watch: the callback group its callback runs in.
    FdWatchOptions
);
