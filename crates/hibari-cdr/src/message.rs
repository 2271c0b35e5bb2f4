//! The traits generated message types implement.

use std::ops::Range;

use crate::bytes::Bytes;
use crate::error::{CdrDecodeError, CdrEncodeError};
use crate::reader::CdrReader;
use crate::writer::{CdrSink, CdrWriter, CountSink, Hole, SliceSink};

/// A ROS 2 message type with its CDR encoding.
///
/// Implemented by generated code (`hibari-codegen`); users call the provided
/// methods: [`to_cdr`](Message::to_cdr), [`encode_into_vec`](Message::encode_into_vec),
/// [`encode_into_slice`](Message::encode_into_slice), [`from_cdr`](Message::from_cdr),
/// [`decode_into`](Message::decode_into) and, for writing big arrays in place,
/// [`encode_with_hole`](Message::encode_with_hole).
pub trait Message: Clone + Default + std::fmt::Debug + PartialEq + Send + Sync + 'static {
    /// `pkg/msg/Name`.
    const TYPE_NAME: &'static str;
    /// The RIHS01 type hash of this definition.
    const TYPE_HASH: &'static str;
    /// The `ros2msg` definition text with its dependencies (MCAP schema form).
    const DEFINITION: &'static str;

    /// Writes the fields (no header).
    fn encode_fields<S: CdrSink>(&self, w: &mut CdrWriter<S>) -> Result<(), CdrEncodeError>;

    /// Reads the fields (no header) into `self`, reusing allocations.
    fn decode_fields_into(&mut self, r: &mut CdrReader<'_>) -> Result<(), CdrDecodeError>;

    /// Reads the fields (no header).
    fn decode_fields(r: &mut CdrReader<'_>) -> Result<Self, CdrDecodeError> {
        let mut m = Self::default();
        m.decode_fields_into(r)?;
        Ok(m)
    }

    /// Exact encoded size in bytes, header included. O(fields): primitive
    /// arrays are counted, not walked.
    fn serialized_size(&self) -> Result<usize, CdrEncodeError> {
        let mut w = CdrWriter::new(CountSink::default())?;
        self.encode_fields(&mut w)?;
        Ok(w.into_sink().0)
    }

    /// Encodes into a new vector.
    fn to_cdr(&self) -> Result<Vec<u8>, CdrEncodeError> {
        let mut v = Vec::new();
        self.encode_into_vec(&mut v)?;
        Ok(v)
    }

    /// Encodes into `out` (cleared first), reusing its allocation.
    fn encode_into_vec(&self, out: &mut Vec<u8>) -> Result<(), CdrEncodeError> {
        out.clear();
        out.reserve(self.serialized_size()?);
        let mut w = CdrWriter::new(std::mem::take(out))?;
        let r = self.encode_fields(&mut w);
        *out = w.into_sink();
        r
    }

    /// Encodes into the front of a caller-provided buffer; returns the length used.
    fn encode_into_slice(&self, buf: &mut [u8]) -> Result<usize, CdrEncodeError> {
        let mut w = CdrWriter::new(SliceSink::new(buf))?;
        self.encode_fields(&mut w)?;
        Ok(w.position())
    }

    /// Lays the message out into `buf` but leaves the top-level primitive
    /// array `field` unwritten, sized for `count` elements, and returns the
    /// total length and the byte range of that array, for the caller to fill in
    /// place (a camera writing pixels straight into the buffer that travels).
    /// The value of `field` in `self` is ignored. Size `buf` with
    /// [`serialized_size_with_hole`](Message::serialized_size_with_hole).
    fn encode_with_hole(
        &self,
        field: &str,
        count: usize,
        buf: &mut [u8],
    ) -> Result<(usize, Range<usize>), CdrEncodeError> {
        let mut w = CdrWriter::new(SliceSink::new(buf))?;
        w.hole = Some(Hole::new(field, count)?);
        self.encode_fields(&mut w)?;
        let len = w.position();
        match w.hole.and_then(|h| h.range) {
            Some(range) => Ok((len, range)),
            None => Err(CdrEncodeError::NoSuchHole {
                field: field.to_owned(),
            }),
        }
    }

    /// The encoded size when `field` holds `count` elements.
    fn serialized_size_with_hole(
        &self,
        field: &str,
        count: usize,
    ) -> Result<usize, CdrEncodeError> {
        let mut w = CdrWriter::new(CountSink::default())?;
        w.hole = Some(Hole::new(field, count)?);
        self.encode_fields(&mut w)?;
        match w.hole.as_ref().and_then(|h| h.range.as_ref()) {
            Some(_) => Ok(w.position()),
            None => Err(CdrEncodeError::NoSuchHole {
                field: field.to_owned(),
            }),
        }
    }

    /// Decodes a whole payload (header, fields, at most 3 trailing bytes):
    /// `&[u8]`, or [`Bytes`] that may be shared with a writer in another
    /// process (then the result may hold garbage values, never breaks a rule
    /// of Rust).
    fn from_cdr<'b>(bytes: impl Into<Bytes<'b>>) -> Result<Self, CdrDecodeError> {
        with_snapshot(bytes.into(), |bytes| {
            let mut r = CdrReader::new(bytes)?;
            let m = Self::decode_fields(&mut r)?;
            r.finish()?;
            Ok(m)
        })
    }

    /// Decodes a whole payload into `self`, reusing its allocations.
    fn decode_into<'b>(&mut self, bytes: impl Into<Bytes<'b>>) -> Result<(), CdrDecodeError> {
        with_snapshot(bytes.into(), |bytes| {
            let mut r = CdrReader::new(bytes)?;
            self.decode_fields_into(&mut r)?;
            r.finish()
        })
    }
}

/// Shared payloads up to this many bytes are copied out in one pass before
/// they are decoded into an owned message.
const SNAPSHOT: usize = 512;

/// Runs `decode` on `bytes`, or on a private copy of them when they are
/// shared and small: one pass of word copies instead of one small copy per
/// field (each read of shared memory goes through atomic loads; see
/// [`SharedBytes`](crate::SharedBytes)). Only for decoders whose result
/// borrows nothing from the bytes; the copy is a snapshot, as the reads it
/// replaces would be.
fn with_snapshot<R>(bytes: Bytes<'_>, decode: impl FnOnce(Bytes<'_>) -> R) -> R {
    match bytes {
        Bytes::Shared(shared) if shared.len() <= SNAPSHOT => {
            let mut copy = [0u8; SNAPSHOT];
            let copy = &mut copy[..shared.len()];
            shared.copy_to_slice(copy);
            decode(Bytes::Private(copy))
        }
        bytes => decode(bytes),
    }
}

/// A message decoded without copying its arrays: primitive arrays are
/// [`PrimSeq`](crate::PrimSeq) views of the input bytes, strings are
/// [`ViewStr`](crate::ViewStr)s — borrowed from private bytes, copied (then
/// checked) out of [shared](Bytes::Shared) ones, inline when short. Decoding
/// a view costs O(fields) plus the bytes of strings read from shared memory,
/// independent of array sizes.
pub trait MessageView<'a>: Sized + std::fmt::Debug {
    /// The owned message this is a view of.
    type Owned: Message;

    /// Reads the fields (no header) as a view.
    fn decode_view_fields(r: &mut CdrReader<'a>) -> Result<Self, CdrDecodeError>;

    /// Copies the view into an owned message.
    fn to_owned_message(&self) -> Self::Owned;

    /// Views a whole payload (header, fields, at most 3 trailing bytes).
    fn view(bytes: impl Into<Bytes<'a>>) -> Result<Self, CdrDecodeError> {
        let mut r = CdrReader::new(bytes)?;
        let v = Self::decode_view_fields(&mut r)?;
        r.finish()?;
        Ok(v)
    }
}

/// Links an owned message to its view type: `Image::view(&bytes)`.
pub trait HasView: Message {
    type View<'a>: MessageView<'a, Owned = Self>;

    /// Views a whole payload without copying its arrays.
    fn view<'a>(bytes: impl Into<Bytes<'a>>) -> Result<Self::View<'a>, CdrDecodeError> {
        <Self::View<'a> as MessageView<'a>>::view(bytes)
    }
}

/// A ROS 2 service type: a request and a response message.
pub trait Service: Send + Sync + 'static {
    type Request: Message;
    type Response: Message;
    /// `pkg/srv/Name`.
    const TYPE_NAME: &'static str;
    /// RIHS01 hash of the service (request, response and event).
    const TYPE_HASH: &'static str;
}

/// A ROS 2 action type: goal, result and feedback messages.
pub trait Action: Send + Sync + 'static {
    type Goal: Message;
    type Result: Message;
    type Feedback: Message;
    /// `pkg/action/Name`.
    const TYPE_NAME: &'static str;
}

/// Calls back with a concrete message type chosen at run time by name: the
/// generated `visit_type(name, visitor)` of each distro module matches the
/// name and calls [`visit`](TypeVisitor::visit) with that type. Tools that
/// handle "any bundled type" (tests, fuzzers, benchmarks) use this.
pub trait TypeVisitor {
    type Output;
    fn visit<M: HasView>(self) -> Self::Output;
}
