//! hibari-bridge: rosbridge v2 and the Foxglove WebSocket protocol on one
//! port, over hibari's public API — for web pages, remote tools and viewers.
//!
//! # What it does
//!
//! A [`Bridge`] serves WebSocket on `127.0.0.1:9090`, path `/` (by default;
//! see [`BridgeConfig`]). Clients that offer no subprotocol — roslibjs,
//! roslibpy, Lichtblick's rosbridge player — speak **rosbridge v2**: JSON
//! ops to advertise, publish, subscribe (type inferred from the graph,
//! `throttle_rate`, `queue_length`, `fragment_size`, compression
//! none/png/cbor/cbor-raw), call and advertise services, fragments,
//! `set_level`/`status` and `auth`; the rosapi services answer from the
//! hibari graph. Clients that offer `foxglove.websocket.v1` or
//! `foxglove.sdk.v1` speak **Foxglove**: channels advertised from the
//! graph with their `ros2msg` schemas, CDR forwarded untouched, client
//! publishing, services, the connection graph and the time. An optional
//! TCP port speaks rosbridge with ROS 1's framing (concatenated JSON).
//!
//! # How it behaves under load
//!
//! - Each received message is decoded at most once and encoded at most once
//!   per encoding, whatever the number of clients; the frames are shared.
//! - Every client has bounded queues (see [`BridgeConfig::queue_depth`],
//!   [`BridgeConfig::max_queued_bytes`]): a slow or stalled client loses its
//!   own oldest data messages — counted in [`ClientStats::dropped`] — and
//!   never slows another client or grows the bridge's memory. Control
//!   messages (service responses, status) are never dropped.
//! - Input is split and parsed in linear time (see [`JsonFramer`]); bad
//!   input gets a `status` (to clients that asked for them) or a closed
//!   connection, never a panic, and never touches another client.
//! - A service call runs on its own; the client's other ops go on.
//!
//! ```no_run
//! use hibari::Context;
//! use hibari_bridge::{Bridge, BridgeConfig};
//!
//! let context = Context::new()?;
//! let bridge = Bridge::start(&context, BridgeConfig::default())?;
//! println!("rosbridge and Foxglove on ws://{}", bridge.local_addr());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod acl;
mod bridge;
pub mod cmd;
mod config;
mod conn;
mod core;
mod encode;
mod foxglove;
mod framer;
mod graph_topics;
mod hub;
mod outbox;
mod publishers;
mod rosbridge;
mod stats;
mod writer;

#[doc(hidden)]
pub mod fuzzing;

pub use acl::{fnmatch, parse_glob_list};
pub use bridge::{Bridge, BridgeStartError};
pub use config::BridgeConfig;
pub use framer::{FramerError, JsonFramer};
pub use rosbridge::OpError;
pub use stats::{BridgeStats, ClientStats, Protocol};
