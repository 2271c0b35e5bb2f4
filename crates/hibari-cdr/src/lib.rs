//! ROS 2 CDR: the bytes ROS 2 puts on the wire, byte for byte.
//!
//! A ROS 2 payload is a 4-byte encapsulation header (`00 01 00 00` for
//! little-endian) followed by plain XCDR1: each primitive aligned to its own
//! size, measured from the end of the header; strings as a `u32` length that
//! counts a trailing NUL; sequences as a `u32` count and their elements; nested
//! messages inline. hibari always writes little-endian and reads both orders.
//!
//! # Bytes another process may change
//!
//! Decoders take [`Bytes`]: [`Private`](Bytes::Private) bytes (a `&[u8]`,
//! which converts) are borrowed without a copy; [`Shared`](Bytes::Shared)
//! bytes ([`SharedBytes`], a publisher's shared-memory chunk) may be changed
//! by that publisher while they are read — a bug or a hostile peer of the
//! same user (see the trust model in `docs/architecture.md`). This crate
//! never makes a `&[u8]` or `&str` of shared bytes: it reads them by
//! `Relaxed` word loads, reads each scalar once and checks that copy, copies
//! strings out before checking their UTF-8, and gives arrays as
//! [`PrimSeq`] (a slice only over private bytes). A change shows up as other
//! values or a [`CdrDecodeError`], never as undefined behaviour.
//!
//! Generated message types (crate `hibari-msgs`) implement [`Message`] on top
//! of [`CdrWriter`] and [`CdrReader`]; their view types implement
//! [`MessageView`] and borrow big arrays as [`PrimSeq`] without copying.
//!
//! ```
//! use hibari_cdr::{CdrReader, CdrWriter};
//! let mut w = CdrWriter::new(Vec::new()).unwrap();
//! w.write_str("data", "hello", None).unwrap();
//! let bytes = w.into_sink();
//! assert_eq!(bytes, b"\x00\x01\x00\x00\x06\x00\x00\x00hello\x00");
//! let mut r = CdrReader::new(&bytes).unwrap();
//! assert_eq!(r.read_str().unwrap(), "hello");
//! ```

#![forbid(unsafe_code)]
mod bytes;
mod error;
mod message;
mod primitive;
mod reader;
mod view;
mod view_str;
mod writer;

pub use bytes::{Bytes, SharedBytes, WORD};
pub use error::{CdrDecodeError, CdrEncodeError};
pub use message::{Action, HasView, Message, MessageView, Service, TypeVisitor};
pub use primitive::{Endian, Primitive};
pub use reader::{CdrReader, MAX_DEPTH};
pub use view::PrimSeq;
pub use view_str::ViewStr;
pub use writer::{check_bound, check_fixed, CdrSink, CdrWriter, CountSink, SliceSink, HEADER_LE};
