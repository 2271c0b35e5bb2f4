//! ROS 2 messages whose type is only known at run time.
//!
//! A bridge, a recorder or a command-line tool meets types it was not
//! compiled with. This crate handles them from their `.msg` definitions:
//!
//! - a [`Value`] tree holds one message: scalars, strings, typed vectors for
//!   numeric arrays (so a camera image is one `Vec<u8>`, not millions of
//!   nodes), and [`Struct`]s that keep the definition's field order;
//! - [`decode`] and [`encode`] convert between a `Value` and ROS 2 CDR bytes,
//!   byte-identical to what rmw_fastrtps, rmw_cyclonedds and rmw_zenoh put on
//!   the wire (interop.md §1): alignment from the end of the header, strings
//!   with their NUL, no padding for empty sequences, one `00` byte for an
//!   empty message. Encoding enforces string and sequence bounds and fixed
//!   array lengths; `wstring` is refused both ways, because ROS 2 vendors
//!   disagree on its bytes;
//! - decoding treats its input as hostile: a truncated buffer, a count of
//!   four billion, bad UTF-8, a bool byte of 7, or a recursive definition
//!   nested past [`MAX_DEPTH`] give a typed error, never a panic, and no
//!   count is trusted before it has been checked against the bytes left;
//! - [`to_json`] and [`from_json`] speak rosbridge v2's JSON: base64 for
//!   `uint8[]`/`char[]`, `{sec, nanosec}` times, `null` for NaN, exact 64-bit
//!   integers, defaults for missing fields, errors that name the path
//!   (`header.stamp.sec: expected integer, got string`). The module [`json`]
//!   lists every rule with its source;
//! - [`default_value`] builds the default instance of a type.
//!
//! Definitions come from any [`TypeLookup`]: the bundled registry of
//! `hibari-idl`, or a map of your own.
//!
//! ```
//! use hibari_dynamic::{decode, encode, from_json_str, to_json, Value};
//! use hibari_idl::{Distro, Registry, TypeName};
//!
//! let registry = Registry::bundled_ref(Distro::Jazzy);
//! let ty = TypeName::parse("sensor_msgs/msg/Image").unwrap();
//!
//! // rosbridge JSON in: missing fields take their defaults, bytes may be base64.
//! let json = r#"{"header": {"frame_id": "cam"}, "width": 2, "height": 1,
//!                "encoding": "mono8", "step": 2, "data": "AAE="}"#;
//! let image = from_json_str(registry, &ty, json).unwrap();
//!
//! // CDR out and back, exactly as a ROS 2 node would see it.
//! let bytes = encode(registry, &ty, &image).unwrap();
//! assert_eq!(&bytes[..4], &[0x00, 0x01, 0x00, 0x00]);
//! let back = decode(registry, &ty, &bytes).unwrap();
//! assert_eq!(back.get_path("data"), Some(&Value::Bytes(vec![0, 1])));
//!
//! // And JSON again, with the pixels as base64.
//! assert_eq!(to_json(registry, &ty, &back)["data"], "AAE=");
//! //! ```

#![forbid(unsafe_code)]
mod decode;
mod defaults;
mod encode;
mod error;
pub mod json;
mod lookup;
mod schema;
mod value;

pub use decode::decode;
pub use defaults::default_value;
pub use encode::{encode, encode_into, encoded_size};
pub use error::{
    DynamicDecodeError, DynamicDefaultError, DynamicEncodeError, DynamicJsonError, FieldPath,
    PathSegment,
};
pub use hibari_cdr::MAX_DEPTH;
pub use json::{
    from_json, from_json_str, from_json_with, to_json, to_json_string, FromJsonOptions,
};
pub use lookup::TypeLookup;
pub use value::{Struct, Value};
