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
//! by [view subscriptions](Node::create_view_subscription); to ROS 2 nodes
//! and other hosts they go over DDS-RTPS, as ROS 2 sends them, in the domain
//! of `ROS_DOMAIN_ID` ([`transports`]). It creates
//! [`Node`]s, whose names and topic names follow ROS 2's rules
//! ([`names`]) and the command line's remapping rules
//! (`--ros-args -r chatter:=talk`). A node creates [`Publisher`]s,
//! [`Subscription`]s, services and clients ([`ServiceServer`], [`Client`]:
//! blocking calls with timeouts, or futures), steady [`Timer`]s and
//! [`GuardCondition`]s; an executor ([`SingleThreadedExecutor`],
//! [`MultiThreadedExecutor`]) runs their callbacks in [`CallbackGroup`]s,
//! sleeping without using CPU while nothing is ready, and can
//! `spin_until_future_complete`. Without an executor, a subscription is also
//! a [`Stream`] ([`SubscriptionStream`]) and a call a `Future`,
//! usable under tokio; or a [`WaitSet`] (rcl's) sleeps until subscriptions,
//! guard conditions and timers are ready, and the caller takes and calls.
//!
//! Every entity is created the same way, as in rclcpp: a name, its options,
//! then its callback. The options are one value per kind of entity
//! ([`PublisherOptions`], [`SubscriptionOptions`], [`ServiceOptions`],
//! [`ClientOptions`], [`TimerOptions`], [`GuardConditionOptions`],
//! [`FdWatchOptions`], [`ActionServerOptions`]), and the setting nearly
//! everyone gives converts into them: pass a [`QosProfile`] (or a timer's
//! period) alone, or the options value with the rest — callback group, event
//! callbacks, busy polling, a [`TypeAdapter`].
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

#![forbid(unsafe_code)]
// The public surface is the `pub use` list below (and the public modules:
// `callback`, `loan`, `view`, `names`, `events`, `transports`, `action`,
// `parameter`, `logging` and
// the message layer's `msg`, `interfaces`, `dynamic`, `cdr`): every type a
// public signature names is re-exported by name, never by glob. The code
// sits in folders by concept.
mod context;
mod options;
pub mod transports;
// Nodes: names, remapping, graph queries.
mod node;
// Topics: publishers, subscriptions, loans, views, streams, generic ends.
mod topic;
// Services and clients, typed and generic, and the async face of calls.
mod service;
// QoS events and statuses.
pub mod events;
// ROS 2 actions over services and topics (typed and generic).
pub mod action;
// Parameters: declare/get/set on a node, its services, overrides, a client.
pub mod parameter;
// Loggers: console in ROS 2's format and /rosout; the `info!` macros.
pub mod logging;
// Clocks, ROS and simulated time, rates.
pub mod time;
// Managed nodes: the lifecycle state machine and its services.
pub mod lifecycle;
// The executors and what they run: callback groups, timers and guard
// conditions, watched descriptors, and the signal they all sleep on.
mod executor;
use executor::{group, wait};

pub use node::names;
pub use topic::{callback, loan, view};

#[cfg(test)]
mod tests;

pub use action::{
    ActionClient, ActionServer, ActionServerOptions, CancelResponse, ClientGoalHandle,
    GenericActionClient, GenericActionServer, GoalResponse, GoalStatus, ServerGoalHandle,
};
pub use callback::{NoAdapter, SubscriptionCallback};
pub use context::{Context, ContextBuilder, ContextCreateError, NodeCreateError, DOMAIN_ID_ENV};
pub use events::{
    DeadlineMissedStatus, IncompatibleQosStatus, IncompatibleTypeStatus, LivelinessChangedStatus,
    LivelinessLostStatus, MatchedStatus, MessageLostStatus, PublisherEventCallbacks,
    SubscriptionEventCallbacks,
};
pub use executor::fd_watch::FdWatch;
pub use executor::group::{CallbackGroup, CallbackGroupType};
pub use executor::guard::GuardCondition;
pub use executor::multi::MultiThreadedExecutor;
pub use executor::timer::{Timer, TimerCreateError};
pub use executor::wait_set::{ReadyEntities, WaitError, WaitResult, WaitSet};
pub use executor::{NodeAddError, SingleThreadedExecutor};
pub use lifecycle::{LifecycleNode, LifecyclePublisher};
pub use loan::{LoanError, LoanSendError, PublishRefError, PublisherLoan};
pub use names::NameError;
pub use node::graph::TopicEndpointInfo;
pub use node::options::NodeOptions;
pub use node::Node;
pub use options::{
    ClientOptions, FdWatchOptions, GuardConditionOptions, PublisherOptions, ServiceOptions,
    SubscriptionOptions, TimerOptions,
};
pub use parameter::{
    Parameter, ParameterClient, ParameterDescriptor, ParameterType, ParameterValue,
    SetParametersResult,
};
pub use service::client::{CallError, Client, ClientCreateError};
pub use service::future::{ResponseFuture, SpinError};
pub use service::generic_client::{GenericClient, GenericResponseFuture};
pub use service::generic_service::{GenericServiceServer, ServiceRespondError, ServiceResponder};
pub use service::server::{ServiceCallback, ServiceCreateError, ServiceServer};
pub use time::{Clock, ClockType, Rate, Time};
pub use topic::foreign::ForeignSample;
pub use topic::generic::Serialized;
pub use topic::pubsub::{PublishError, Publisher, PublisherCreateError, SubscriptionCreateError};
pub use topic::stream::{Recv, SubscriptionStream};
pub use topic::subscription::Subscription;

/// The trait [`SubscriptionStream`] implements (`futures_core::Stream`),
/// re-exported so that it can be named without another dependency.
pub use futures_core::Stream;

pub use hibari_transport::{
    CdrBytes, DomainId, Durability, EndpointCreateError, EndpointId, EndpointKind, ForeignMessage,
    GraphSnapshot, History, Liveliness, NodeInfo, PayloadError, PublisherId, QosProfile,
    Reliability, SampleInfo, Shared, TypeAdapter, WriteError,
};
pub use hibari_transport::{Incompatibility, QosIncompatibility, QosMismatch, QosPolicyKind};

pub use hibari_cdr::{
    Action, Bytes, CdrDecodeError, CdrEncodeError, HasView, Message, MessageView, PrimSeq, Service,
    SharedBytes, TypeVisitor,
};

/// Generated message, service and action types: the Jazzy packages at the
/// root (`hibari::msg::std_msgs::msg::String`), each distro in its module
/// (`humble`, `jazzy`).
pub mod msg {
    pub use hibari_msgs::jazzy::{
        action_msgs, actionlib_msgs, builtin_interfaces, diagnostic_msgs, geometry_msgs,
        lifecycle_msgs, nav_msgs, rcl_interfaces, rosgraph_msgs, sensor_msgs, service_msgs,
        shape_msgs, statistics_msgs, std_msgs, std_srvs, stereo_msgs, tf2_msgs, trajectory_msgs,
        type_description_interfaces, unique_identifier_msgs, visualization_msgs,
    };
    pub use hibari_msgs::{humble, jazzy};
}

/// Interface definitions known at run time.
pub mod interfaces {
    pub use hibari_idl::{
        model, parse_action, parse_msg, parse_srv, ActionDef, ArrayKind, BaseType, Constant,
        Distro, DistroParseError, Field, FieldType, IdlLoadError, IdlParseError, IdlResolveError,
        InterfaceKind, Literal, MessageDef, Primitive, Registry, RegistryFromEnvError, ServiceDef,
        TypeName,
    };
}

/// Messages whose type is known only at run time.
pub mod dynamic {
    pub use hibari_dynamic::{
        decode, default_value, encode, encode_into, encoded_size, from_json, from_json_str,
        from_json_with, json, to_json, to_json_string, DynamicDecodeError, DynamicDefaultError,
        DynamicEncodeError, DynamicJsonError, FieldPath, FromJsonOptions, PathSegment, Struct,
        TypeLookup, Value, MAX_DEPTH,
    };
}

/// The low-level CDR reader and writer, for code that lays out bytes itself.
pub mod cdr {
    pub use hibari_cdr::{
        check_bound, check_fixed, Action, Bytes, CdrDecodeError, CdrEncodeError, CdrReader,
        CdrSink, CdrWriter, CountSink, Endian, HasView, Message, MessageView, PrimSeq, Primitive,
        Service, SharedBytes, SliceSink, TypeVisitor, ViewStr, HEADER_LE, MAX_DEPTH, WORD,
    };
}

/// The names most programs need.
pub mod prelude {
    pub use crate::{
        CallbackGroupType, Context, HasView, Message, MessageView, MultiThreadedExecutor, Node,
        PublisherOptions, QosProfile, SampleInfo, Service, SingleThreadedExecutor,
        SubscriptionOptions,
    };
}
