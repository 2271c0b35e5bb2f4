//! ROS 2 interface definitions: the `.msg`, `.srv` and `.action` language,
//! the standard packages of each supported distribution, and RIHS01 type hashes.
//!
//! Everything that talks to ROS 2 needs to know what a type *is*: which
//! fields, in which order, of which types. This crate turns definition text
//! into a [`model`] (fields, constants, defaults, comments), collects
//! definitions that refer to each other in a [`Registry`], and derives from
//! them what peers compare: the RIHS01 hash that rmw_zenoh puts in key
//! expressions and DDS in user data, and the concatenated `ros2msg` text
//! that MCAP files carry as schemas.
//!
//! The registry starts from the packages bundled for a ROS 2 distribution
//! (std_msgs, geometry_msgs, sensor_msgs, ...; Jazzy by default) and can be
//! extended from package folders on disk, from `HIBARI_INTERFACE_PATH`, or
//! from the schemas embedded in a bag. Later definitions replace earlier ones.
//!
//! ```
//! use hibari_idl::{Distro, Registry, TypeName};
//!
//! let mut registry = Registry::bundled(Distro::Jazzy);
//! let name = TypeName::parse("my_msgs/msg/Reading").unwrap();
//! registry
//!     .add_msg_text(name.clone(), "std_msgs/Header header\nfloat64 value 0.0\n", "Reading.msg")
//!     .unwrap();
//! registry.validate().unwrap();
//!
//! let string = TypeName::parse("std_msgs/msg/String").unwrap();
//! assert_eq!(
//!     registry.type_hash(&string).unwrap(),
//!     "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18"
//! );
//! assert!(registry.msgdef_text(&name).unwrap().contains("MSG: std_msgs/msg/Header"));
//! ```

// Resolve errors name the types involved (`TypeName`s, not strings) so callers
// can act on them; they are cold-path values, so their size does not matter.
#![allow(clippy::result_large_err)]
#![forbid(unsafe_code)]

mod derive;
mod hash;
pub mod model;
pub mod parse;
pub mod registry;
mod show;

pub use model::{
    ActionDef, ArrayKind, BaseType, Constant, Field, FieldType, InterfaceKind, Literal, MessageDef,
    Primitive, ServiceDef, TypeName,
};
pub use parse::{parse_action, parse_msg, parse_srv, IdlParseError};
pub use registry::{
    Distro, DistroParseError, IdlLoadError, IdlResolveError, Registry, RegistryFromEnvError,
};
