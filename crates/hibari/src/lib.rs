//! hibari: publish/subscribe middleware for robots.
//!
//! This crate is the public API. Today it offers the message layer:
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
    pub use crate::{HasView, Message, MessageView, Service};
}
