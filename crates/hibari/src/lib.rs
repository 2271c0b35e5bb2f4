//! hibari: publish/subscribe middleware for robots.
//!
//! This crate is the public API: a ROS 2–style runtime and the message layer.
//!
//! # The runtime
//!
//! A [`Context`] is one domain and its transports, chosen by themselves:
//! within the process samples are handed over, never serialized or copied;
//! to other processes of the host they go through shared memory, serialized
//! once (or written in place in a [loan](Publisher::loan)) and read in place
//! by [view subscriptions](Node::create_view_subscription). It creates
//! [`Node`]s, whose names and topic names follow ROS 2's rules
//! ([`names`]) and the command line's remapping rules
//! (`--ros-args -r chatter:=talk`). A node creates [`Publisher`]s,
//! [`Subscription`]s, services and clients ([`ServiceServer`], [`Client`]:
//! blocking calls with timeouts, or futures), steady [`Timer`]s and
//! [`GuardCondition`]s; an executor ([`SingleThreadedExecutor`],
//! [`MultiThreadedExecutor`]) runs their callbacks in [`CallbackGroup`]s,
//! sleeping without using CPU while nothing is ready, and can
//! `spin_until_future_complete`. Without an executor, a subscription is also
//! a [`futures_core::Stream`] ([`SubscriptionStream`]) and a call a `Future`,
//! usable under tokio.
//!
//! Around that: QoS events and statuses (matched, incompatible QoS or type,
//! deadline missed, liveliness, message lost — [`PublisherOptions`],
//! [`SubscriptionOptions`]), graph introspection on a node
//! (`get_node_names`, `get_topic_names_and_types`,
//! `get_publishers_info_by_topic`, …), and generic endpoints whose type is
//! named at run time and which carry CDR bytes ([`Serialized`]), for tools and
//! bridges.
//!
//! ```
//! use hibari::msg::std_msgs::msg::String as RosString;
//! use hibari::{Context, QosProfile, SampleInfo, SingleThreadedExecutor};
//! use std::time::Duration;
//!
//! let context = Context::builder().isolated().create()?;
//! let talker = context.create_node("talker")?;
//! let listener = context.create_node("listener")?;
//! let publisher = talker.create_publisher::<RosString>("chatter", QosProfile::default())?;
//! let _subscription = listener.create_subscription(
//!     "chatter",
//!     QosProfile::default(),
//!     |msg: RosString, info: SampleInfo| println!("heard {} (#{})", msg.data, info.sequence),
//! )?;
//! publisher.publish(RosString { data: "hello".into() })?; // moved, not copied
//!
//! let executor = SingleThreadedExecutor::new();
//! executor.add_node(&listener)?;
//! assert!(executor.spin_once(Duration::from_secs(1)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The message layer
//!
//! - [`msg`]: generated Rust types for the bundled ROS 2 interfaces
//!   (`hibari::msg::sensor_msgs::msg::Image`), byte-identical to ROS 2 CDR, with
//!   zero-copy views ([`HasView`]) and in-place layout
//!   ([`Message::encode_with_hole`]);
//! - [`interfaces`]: definitions known at run time — the bundled Humble and
//!   Jazzy packages and your own folders of `.msg/.srv/.action` files
//!   (`HIBARI_INTERFACE_PATH`) — with RIHS01 type hashes;
//! - [`dynamic`]: messages whose type is known only at run time, as a value
//!   tree, CDR and rosbridge-style JSON.
//!
//! ```
//! use hibari::msg::std_msgs::msg::String as RosString;
//! use hibari::Message;
//!
//! let bytes = RosString { data: "hello".into() }.to_cdr().unwrap();
//! assert_eq!(bytes, b"\x00\x01\x00\x00\x06\x00\x00\x00hello\x00");
//! assert_eq!(RosString::from_cdr(&bytes).unwrap().data, "hello");
//! ```

pub mod callback;
mod context;
mod executor;
mod fd_watch;
mod generic;
mod graph;
pub mod loan;
mod multi;
pub mod names;
mod node;
mod pubsub;
mod remap;
mod timer;
pub mod transports;
pub mod view;
mod wait;
// QoS events and callback groups.
mod create;
pub mod events;
mod group;
mod liveliness;
mod monitor;
mod status;
mod subscription;
// Services, clients and the async face.
mod calls;
mod client;
mod future;
mod reply;
mod service;
mod stream;
// Generic (run-time typed, CDR) services and clients, for bridges and tools.
mod generic_client;
mod generic_service;
// ROS 2 actions over services and topics (typed and generic).
pub mod action;

#[cfg(test)]
mod tests;

pub use action::{
    ActionClient, ActionServer, CancelResponse, ClientGoalHandle, GenericActionClient,
    GenericActionServer, GoalResponse, GoalStatus, ServerGoalHandle,
};
pub use callback::{MessageCallback, SubscriptionCallback};
pub use client::{CallError, Client, ClientCreateError};
pub use context::{Context, ContextBuilder, ContextCreateError, NodeCreateError, DOMAIN_ID_ENV};
pub use events::{
    DeadlineMissedStatus, IncompatibleQosStatus, IncompatibleTypeStatus, LivelinessChangedStatus,
    LivelinessLostStatus, MatchedStatus, MessageLostStatus, PublisherEventCallbacks,
    PublisherOptions, SubscriptionEventCallbacks, SubscriptionOptions,
};
pub use executor::{NodeAddError, SingleThreadedExecutor};
pub use fd_watch::FdWatch;
pub use future::{ResponseFuture, SpinError};
pub use generic::Serialized;
pub use generic_client::{GenericClient, GenericResponseFuture};
pub use generic_service::{GenericServiceServer, ServiceRespondError, ServiceResponder};
pub use graph::TopicEndpointInfo;
pub use group::{CallbackGroup, CallbackGroupType};
pub use loan::{LoanError, PublisherLoan};
pub use multi::MultiThreadedExecutor;
pub use names::NameError;
pub use node::Node;
pub use pubsub::{PublishError, Publisher, PublisherCreateError, SubscriptionCreateError};
pub use service::{ServiceCallback, ServiceCreateError, ServiceOptions, ServiceServer};
pub use stream::{Recv, SubscriptionStream};
pub use subscription::Subscription;
pub use timer::{GuardCondition, Timer, TimerCreateError};

pub use hibari_transport::{
    CdrBytes, Durability, EndpointKind, GraphSnapshot, History, Liveliness, NodeInfo, PayloadError,
    PublisherId, QosProfile, Reliability, SampleInfo, Shared, TypeAdapter,
};
pub use hibari_transport::{Incompatibility, QosIncompatibility, QosMismatch, QosPolicyKind};

pub use hibari_cdr::{
    Action, CdrDecodeError, CdrEncodeError, HasView, Message, MessageView, PrimSeq, Service,
    TypeVisitor,
};

/// Generated message, service and action types (Jazzy at the root; `humble`, `jazzy`).
pub mod msg {
    pub use hibari_msgs::*;
}

/// Interface definitions known at run time.
pub mod interfaces {
    pub use hibari_idl::model;
    pub use hibari_idl::*;
}

/// Messages whose type is known only at run time.
pub mod dynamic {
    pub use hibari_dynamic::*;
}

/// The low-level CDR reader and writer, for code that lays out bytes itself.
pub mod cdr {
    pub use hibari_cdr::*;
}

/// The names most programs need.
pub mod prelude {
    pub use crate::{
        Context, HasView, Message, MessageView, MultiThreadedExecutor, Node, QosProfile,
        SampleInfo, Service, SingleThreadedExecutor,
    };
}
