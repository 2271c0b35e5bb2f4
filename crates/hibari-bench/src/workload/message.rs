//! The messages of the experiments ([`Kind`]), the application frame of
//! E5's type adaptation ([`RgbFrame`], [`RgbAdapter`]) and where each
//! carries its intended send time ([`Stamped`]): `header.stamp` for images
//! and scans, the first 8 bytes (little endian) for byte arrays.

use hibari::msg::builtin_interfaces::msg::Time;
use hibari::msg::sensor_msgs::msg::{CompressedImage, Image, LaserScan};
use hibari::msg::std_msgs::msg::{Header, UInt8MultiArray};
use hibari::TypeAdapter;

/// What a series sends.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Kind {
    /// `sensor_msgs/Image`, rgb8.
    Image {
        /// Pixels per row.
        width: u32,
        /// Rows.
        height: u32,
    },
    /// `sensor_msgs/CompressedImage`: the rgb8 frame JPEG-encoded at `quality` per message.
    Jpeg {
        /// Pixels per row.
        width: u32,
        /// Rows.
        height: u32,
        /// JPEG quality, 1–100.
        quality: u8,
    },
    /// An rgb8 frame of the application's own type, adapted to `sensor_msgs/Image`.
    Adapted {
        /// Pixels per row.
        width: u32,
        /// Rows.
        height: u32,
    },
    /// `sensor_msgs/LaserScan` with this many ranges (and no intensities).
    Laser {
        /// `ranges.len()`.
        ranges: u32,
    },
    /// `std_msgs/UInt8MultiArray` of this many bytes (at least 16).
    Bytes {
        /// `data.len()`.
        size: u32,
    },
    /// The same message published by loan (`Publisher::loan_message`): laid
    /// out in the transport's memory with `data` a hole the publisher fills
    /// in place, no `Vec` built; received as [`Kind::Bytes`].
    BytesLoan {
        /// `data.len()`.
        size: u32,
    },
    /// The same message kept by the publisher and refilled for every
    /// publish (`Publisher::publish_ref`: encoded straight into the
    /// transport's memory, nothing allocated); received as [`Kind::Bytes`].
    BytesReused {
        /// `data.len()`.
        size: u32,
    },
}

impl Kind {
    /// Payload bytes the message carries (pixels, ranges × 4, data).
    pub fn payload_bytes(&self) -> u64 {
        match *self {
            Kind::Image { width, height }
            | Kind::Jpeg { width, height, .. }
            | Kind::Adapted { width, height } => u64::from(width) * u64::from(height) * 3,
            Kind::Laser { ranges } => u64::from(ranges) * 4,
            Kind::Bytes { size } | Kind::BytesLoan { size } | Kind::BytesReused { size } => {
                u64::from(size)
            }
        }
    }
}

/// An application-side rgb8 frame (E5's `cv::Mat`), adapted to `Image`.
#[derive(Debug, Clone, Default)]
pub struct RgbFrame {
    /// Intended send time, ns.
    pub stamp_ns: u64,
    /// Pixels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// `width × height × 3` bytes.
    pub pixels: Vec<u8>,
}

/// The type adapter `RgbFrame` ⇄ `sensor_msgs/Image`.
#[derive(Debug)]
pub struct RgbAdapter;

impl TypeAdapter for RgbAdapter {
    type Custom = RgbFrame;
    type Ros = Image;
    fn to_ros(f: &RgbFrame) -> Image {
        Self::into_ros(f.clone())
    }
    fn from_ros(ros: &Image) -> RgbFrame {
        Self::from_ros_owned(ros.clone())
    }
    fn into_ros(f: RgbFrame) -> Image {
        Image {
            header: header(f.stamp_ns),
            height: f.height,
            width: f.width,
            encoding: "rgb8".into(),
            is_bigendian: 0,
            step: f.width * 3,
            data: f.pixels,
        }
    }
    fn from_ros_owned(ros: Image) -> RgbFrame {
        RgbFrame {
            stamp_ns: stamp_of(&ros.header),
            width: ros.width,
            height: ros.height,
            pixels: ros.data,
        }
    }
}

pub(crate) fn header(stamp_ns: u64) -> Header {
    Header {
        stamp: Time {
            sec: (stamp_ns / 1_000_000_000) as i32,
            nanosec: (stamp_ns % 1_000_000_000) as u32,
        },
        frame_id: "bench".into(),
    }
}

fn stamp_of(h: &Header) -> u64 {
    h.stamp.sec as u64 * 1_000_000_000 + u64::from(h.stamp.nanosec)
}

/// A message that carries its intended send time.
pub trait Stamped {
    /// The intended send time, ns (`CLOCK_MONOTONIC`).
    fn stamp_ns(&self) -> u64;
}

impl Stamped for Image {
    fn stamp_ns(&self) -> u64 {
        stamp_of(&self.header)
    }
}
impl Stamped for CompressedImage {
    fn stamp_ns(&self) -> u64 {
        stamp_of(&self.header)
    }
}
impl Stamped for LaserScan {
    fn stamp_ns(&self) -> u64 {
        stamp_of(&self.header)
    }
}
impl Stamped for RgbFrame {
    fn stamp_ns(&self) -> u64 {
        self.stamp_ns
    }
}
impl Stamped for UInt8MultiArray {
    fn stamp_ns(&self) -> u64 {
        let mut b = [0u8; 8];
        if let Some(s) = self.data.get(..8) {
            b.copy_from_slice(s);
        }
        u64::from_le_bytes(b)
    }
}
