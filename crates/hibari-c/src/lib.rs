//! libhibari: hibari's C ABI (`include/hibari.h`, generated from this crate
//! by cbindgen), and under `include/hibari/` the header-only C++17 layer
//! over it, shaped like rclcpp.
//!
//! It wraps the generic endpoints of hibari's Rust API — types named at run
//! time (`std_msgs/msg/String`), messages as CDR bytes — as the Python
//! binding does: contexts, nodes, publishers (and loans of shared memory),
//! subscriptions (callbacks that read samples in place, or polled),
//! services and clients, timers, guard conditions, callback groups,
//! executors, wait sets, graph queries, parameters and logging.
//!
//! # Why this crate uses `unsafe`
//!
//! It is a foreign function interface: C hands it raw pointers (strings,
//! byte ranges, out-parameters, callbacks and their `user_data`), and
//! nothing in Rust can check what they point to. Each use is an `unsafe`
//! block with a `// SAFETY:` comment naming the caller's promise it rests
//! on, which the header states for every function (a NULL pointer is
//! checked and refused, never assumed away). Objects C holds are never
//! pointers: they are numbers in a registry ([`handles`]), so a stale or
//! forged handle is an error, not undefined behaviour. Enumerations C
//! passes in are `int32_t`s checked against their names, because a C enum
//! may hold any int and an out-of-range Rust enum is undefined behaviour.
//! One `unsafe` is not about C: a loan is kept beside the `Arc` of the
//! publisher it borrows (`loan.rs`), which a self-referencing cell would
//! do with a box allocated per message.
//!
//! # Rules every function keeps
//!
//! - It returns a `hibari_ret_t`; on failure `hibari_last_error()` says why.
//! - A panic never crosses into C: it is caught and returned as
//!   `HIBARI_ERROR_PANIC`.
//! - No lock of this library is held while a C callback runs, so callbacks
//!   may call any function. Callbacks must return normally: a C++ exception
//!   must not unwind through Rust (the C++ layer catches every one).

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]

// The modules in the order the header shows them (cbindgen follows it;
// one comment each keeps rustfmt from sorting them).
// Return codes and the last error.
mod error;
// The registry behind every handle.
mod handles;
// Each thread's recent handle lookups.
mod handle_cache;
// What stands before each C callback.
mod gate;
// Contexts.
mod context;
// Ctrl-C and SIGTERM: shutting every context down.
mod signals;
// Nodes.
mod node;
// Callback groups.
mod group;
// QoS profiles.
mod qos;
// Publishers.
mod publisher;
// Loans of the transport's memory.
mod loan;
// Loans and taken samples, by id.
mod slab;
// Subscriptions and taken samples.
mod subscription;
// Values of the caller's types, handed over in this process.
mod value;
// Service servers.
mod service;
// Service clients.
mod client;
// Their asynchronous requests.
mod request;
// Timers.
mod timer;
// Guard conditions.
mod guard;
// Executors.
mod executor;
// Wait sets.
mod wait_set;
// Graph queries.
mod graph;
// Parameters.
mod parameter;
// Parameter values.
mod parameter_value;
// Logging.
mod logging;
// Bytes and strings hibari hands out.
mod owned;
// The type names hibari knows.
mod interfaces;
// Checking what C passes in.
mod args;

#[cfg(test)]
mod tests;

pub use client::*;
pub use context::*;
pub use error::*;
pub use executor::*;
pub use graph::*;
pub use group::*;
pub use guard::*;
pub use handles::{
    hibari_callback_group_t, hibari_client_t, hibari_context_t, hibari_executor_t,
    hibari_guard_condition_t, hibari_node_t, hibari_publisher_t, hibari_service_t,
    hibari_subscription_t, hibari_timer_t, hibari_wait_set_t,
};
pub use interfaces::*;
pub use loan::*;
pub use logging::*;
pub use node::*;
pub use owned::*;
pub use parameter::*;
pub use parameter_value::*;
pub use publisher::*;
pub use qos::*;
pub use request::*;
pub use service::*;
pub use subscription::*;
pub use timer::*;
pub use value::*;
pub use wait_set::*;

/// hibari's version (`0.1.0`), a static string.
#[no_mangle]
pub extern "C" fn hibari_version() -> *const std::ffi::c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}
