//! Rust types for the ROS 2 interfaces bundled with hibari, generated at build
//! time, in the modules a ROS user knows: `hibari_msgs::sensor_msgs::msg::Image`.
//!
//! Two distros are generated because their definitions differ (Jazzy added
//! `sensor_msgs/msg/Range.variance`, shortened `rmw_dds_common/msg/Gid`, and
//! more): [`jazzy`] (also re-exported at the crate root) and [`humble`]. Both
//! produce the CDR bytes of their distro exactly.
//!
//! Every message implements [`Message`](hibari_cdr::Message) (encode/decode,
//! in-place layout) and [`HasView`](hibari_cdr::HasView) (zero-copy views):
//!
//! ```
//! use hibari_msgs::sensor_msgs::msg::{Image, ImageView};
//! use hibari_msgs::{HasView, Message};
//!
//! // Lay out a 4x2 rgb8 image, writing the pixels straight into the buffer.
//! let header = Image { width: 4, height: 2, encoding: "rgb8".into(), step: 12, ..Default::default() };
//! let mut buf = vec![0u8; header.serialized_size_with_hole("data", 24).unwrap()];
//! let (len, pixels) = header.encode_with_hole("data", 24, &mut buf).unwrap();
//! buf[pixels].fill(7);
//!
//! // Decode without copying the pixels.
//! let view: ImageView = Image::view(&buf[..len]).unwrap();
//! assert_eq!(view.encoding, "rgb8");
//! assert_eq!(view.data.as_slice().unwrap(), &[7u8; 24][..]);
//! ```

#![forbid(unsafe_code)]
pub use hibari_cdr::{Action, HasView, Message, MessageView, PrimSeq, Service, TypeVisitor};

/// ROS 2 Humble Hawksbill definitions.
#[allow(missing_docs, clippy::all)]
pub mod humble {
    include!(concat!(env!("OUT_DIR"), "/humble.rs"));
}

/// ROS 2 Jazzy Jalisco definitions (the default).
#[allow(missing_docs, clippy::all)]
pub mod jazzy {
    include!(concat!(env!("OUT_DIR"), "/jazzy.rs"));
}

pub use jazzy::*;
