//! The encoding side: a [`CdrWriter`] over a [`CdrSink`].
//!
//! Encoding is written once, generic over where the bytes go: a growing
//! `Vec<u8>`, a caller-provided `&mut [u8]` (shared memory, later), or a
//! [`CountSink`] that only adds up the size. Alignment is measured from the
//! first byte after the 4-byte encapsulation header, as ROS 2 does.

use std::ops::Range;

use crate::error::CdrEncodeError;
use crate::primitive::Primitive;

/// The little-endian encapsulation header hibari always writes.
pub const HEADER_LE: [u8; 4] = [0x00, 0x01, 0x00, 0x00];

/// Where encoded bytes go.
pub trait CdrSink {
    /// Bytes written so far, including the header.
    fn position(&self) -> usize;
    /// Appends bytes.
    fn put(&mut self, bytes: &[u8]) -> Result<(), CdrEncodeError>;
    /// Appends `n` zero bytes (padding).
    fn zeros(&mut self, n: usize) -> Result<(), CdrEncodeError>;
    /// Skips `n` bytes that the caller will fill later (an in-place hole).
    /// Sinks that own their memory zero them.
    fn skip(&mut self, n: usize) -> Result<(), CdrEncodeError> {
        self.zeros(n)
    }
}

impl CdrSink for Vec<u8> {
    #[inline]
    fn position(&self) -> usize {
        self.len()
    }
    #[inline]
    fn put(&mut self, bytes: &[u8]) -> Result<(), CdrEncodeError> {
        self.extend_from_slice(bytes);
        Ok(())
    }
    #[inline]
    fn zeros(&mut self, n: usize) -> Result<(), CdrEncodeError> {
        self.resize(self.len() + n, 0);
        Ok(())
    }
}

/// Writes into a caller-provided slice, failing cleanly when it is too small.
#[derive(Debug)]
pub struct SliceSink<'b> {
    buf: &'b mut [u8],
    pos: usize,
}

impl<'b> SliceSink<'b> {
    pub fn new(buf: &'b mut [u8]) -> Self {
        SliceSink { buf, pos: 0 }
    }

    /// Hands the buffer back.
    pub fn into_inner(self) -> &'b mut [u8] {
        self.buf
    }

    #[inline]
    fn advance(&mut self, n: usize) -> Result<Range<usize>, CdrEncodeError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&end| end <= self.buf.len())
            .ok_or(CdrEncodeError::BufferTooSmall {
                needed: self.pos.saturating_add(n),
                capacity: self.buf.len(),
            })?;
        let range = self.pos..end;
        self.pos = end;
        Ok(range)
    }
}

impl CdrSink for SliceSink<'_> {
    #[inline]
    fn position(&self) -> usize {
        self.pos
    }
    #[inline]
    fn put(&mut self, bytes: &[u8]) -> Result<(), CdrEncodeError> {
        let r = self.advance(bytes.len())?;
        self.buf[r].copy_from_slice(bytes);
        Ok(())
    }
    #[inline]
    fn zeros(&mut self, n: usize) -> Result<(), CdrEncodeError> {
        let r = self.advance(n)?;
        self.buf[r].fill(0);
        Ok(())
    }
    #[inline]
    fn skip(&mut self, n: usize) -> Result<(), CdrEncodeError> {
        self.advance(n).map(|_| ())
    }
}

/// Counts bytes without storing them: `serialized_size()` in O(fields).
#[derive(Debug, Default, Clone, Copy)]
pub struct CountSink(pub usize);

impl CdrSink for CountSink {
    #[inline]
    fn position(&self) -> usize {
        self.0
    }
    #[inline]
    fn put(&mut self, bytes: &[u8]) -> Result<(), CdrEncodeError> {
        self.0 += bytes.len();
        Ok(())
    }
    #[inline]
    fn zeros(&mut self, n: usize) -> Result<(), CdrEncodeError> {
        self.0 += n;
        Ok(())
    }
}

/// A request to leave a top-level primitive array unwritten so the caller can
/// fill it in place (see [`crate::Message::encode_with_hole`]).
#[derive(Debug, Clone)]
pub(crate) struct Hole {
    pub field: FieldName,
    pub count: usize,
    pub range: Option<Range<usize>>,
}

impl Hole {
    /// A hole of `count` elements in the top-level array `field`; a name
    /// longer than any field can be is `NoSuchHole`.
    pub fn new(field: &str, count: usize) -> Result<Hole, CdrEncodeError> {
        let name = FieldName::new(field).ok_or_else(|| CdrEncodeError::NoSuchHole {
            field: field.to_owned(),
        })?;
        Ok(Hole {
            field: name,
            count,
            range: None,
        })
    }
}

/// A hole's field name, kept inline: laying a message out around a hole
/// (a loan of any size, every frame) never allocates.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FieldName {
    len: u8,
    bytes: [u8; u8::MAX as usize],
}

impl FieldName {
    /// `None` for a name longer than 255 bytes (no message field is).
    pub fn new(name: &str) -> Option<FieldName> {
        let len = u8::try_from(name.len()).ok()?;
        let mut bytes = [0; u8::MAX as usize];
        bytes[..name.len()].copy_from_slice(name.as_bytes());
        Some(FieldName { len, bytes })
    }

    fn is(&self, name: &str) -> bool {
        &self.bytes[..usize::from(self.len)] == name.as_bytes()
    }
}

/// Little-endian CDR writer. Create one with [`CdrWriter::new`], which writes
/// the encapsulation header.
#[derive(Debug)]
pub struct CdrWriter<S: CdrSink> {
    sink: S,
    origin: usize,
    depth: usize,
    pub(crate) hole: Option<Hole>,
}

impl<S: CdrSink> CdrWriter<S> {
    /// Starts a message: writes the 4-byte header; alignment starts after it.
    pub fn new(mut sink: S) -> Result<Self, CdrEncodeError> {
        sink.put(&HEADER_LE)?;
        let origin = sink.position();
        Ok(CdrWriter {
            sink,
            origin,
            depth: 0,
            hole: None,
        })
    }

    /// Finishes and returns the sink.
    pub fn into_sink(self) -> S {
        self.sink
    }

    /// Bytes written so far, header included.
    pub fn position(&self) -> usize {
        self.sink.position()
    }

    #[inline]
    pub fn align(&mut self, n: usize) -> Result<(), CdrEncodeError> {
        let rel = self.sink.position() - self.origin;
        let pad = (n - rel % n) % n;
        if pad != 0 {
            self.sink.zeros(pad)?;
        }
        Ok(())
    }

    /// Writes one aligned primitive.
    #[inline]
    pub fn write<P: Primitive>(&mut self, value: P) -> Result<(), CdrEncodeError> {
        self.align(P::SIZE)?;
        value.put_le(&mut self.sink)
    }

    /// Writes a sequence or string length.
    #[inline]
    pub fn write_len(&mut self, field: &'static str, len: usize) -> Result<(), CdrEncodeError> {
        let len = u32::try_from(len).map_err(|_| CdrEncodeError::TooLong { field, len })?;
        self.write(len)
    }

    /// Writes a string: length counting the NUL, bytes, NUL.
    pub fn write_str(
        &mut self,
        field: &'static str,
        s: &str,
        bound: Option<usize>,
    ) -> Result<(), CdrEncodeError> {
        if let Some(bound) = bound {
            if s.len() > bound {
                return Err(CdrEncodeError::BoundExceeded {
                    field,
                    len: s.len(),
                    bound,
                });
            }
        }
        if s.as_bytes().contains(&0) {
            return Err(CdrEncodeError::NulInString { field });
        }
        self.write_len(field, s.len() + 1)?;
        self.sink.put(s.as_bytes())?;
        self.sink.put(&[0])
    }

    /// Checks a sequence's length against its bound and writes its count.
    #[inline]
    pub fn write_seq_len(
        &mut self,
        field: &'static str,
        len: usize,
        bound: Option<usize>,
    ) -> Result<(), CdrEncodeError> {
        check_bound(field, len, bound)?;
        self.write_len(field, len)
    }

    /// Writes the elements of a primitive array (no count) in one copy where
    /// the host is little-endian. Empty arrays add no padding (Fast-CDR rule).
    #[inline]
    pub fn write_prim_slice<P: Primitive>(&mut self, values: &[P]) -> Result<(), CdrEncodeError> {
        if values.is_empty() {
            return Ok(());
        }
        self.align(P::SIZE)?;
        P::put_slice_le(values, &mut self.sink)
    }

    /// Writes a primitive sequence (`T[]`/`T[<=N]`), or leaves it as the
    /// in-place hole when this is the requested top-level field.
    pub fn write_prim_seq<P: Primitive>(
        &mut self,
        field: &'static str,
        values: &[P],
        bound: Option<usize>,
    ) -> Result<(), CdrEncodeError> {
        if let Some(count) = self.take_hole(field) {
            check_bound(field, count, bound)?;
            self.write_len(field, count)?;
            return self.fill_hole::<P>(count);
        }
        self.write_seq_len(field, values.len(), bound)?;
        self.write_prim_slice(values)
    }

    /// Writes a fixed primitive array (`T[N]`), or leaves it as the hole.
    pub fn write_prim_array<P: Primitive>(
        &mut self,
        field: &'static str,
        values: &[P],
        expected: usize,
    ) -> Result<(), CdrEncodeError> {
        if let Some(count) = self.take_hole(field) {
            if count != expected {
                return Err(CdrEncodeError::FixedLengthMismatch {
                    field,
                    len: count,
                    expected,
                });
            }
            return self.fill_hole::<P>(count);
        }
        check_fixed(field, values.len(), expected)?;
        self.write_prim_slice(values)
    }

    /// Runs `f` one nesting level down: in-place holes only match top-level fields.
    #[inline]
    pub fn nested<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, CdrEncodeError>,
    ) -> Result<T, CdrEncodeError> {
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn take_hole(&mut self, field: &str) -> Option<usize> {
        match &self.hole {
            Some(h) if self.depth == 0 && h.range.is_none() && h.field.is(field) => Some(h.count),
            _ => None,
        }
    }

    fn fill_hole<P: Primitive>(&mut self, count: usize) -> Result<(), CdrEncodeError> {
        if count > 0 {
            self.align(P::SIZE)?;
        }
        let start = self.sink.position();
        let bytes = count.checked_mul(P::SIZE).ok_or(CdrEncodeError::TooLong {
            field: "hole",
            len: count,
        })?;
        self.sink.skip(bytes)?;
        if let Some(h) = self.hole.as_mut() {
            h.range = Some(start..start + bytes);
        }
        Ok(())
    }
}

/// Fails when a bounded length is over its bound.
#[inline]
pub fn check_bound(
    field: &'static str,
    len: usize,
    bound: Option<usize>,
) -> Result<(), CdrEncodeError> {
    match bound {
        Some(bound) if len > bound => Err(CdrEncodeError::BoundExceeded { field, len, bound }),
        _ => Ok(()),
    }
}

/// Fails when a fixed array has the wrong length.
#[inline]
pub fn check_fixed(field: &'static str, len: usize, expected: usize) -> Result<(), CdrEncodeError> {
    if len == expected {
        Ok(())
    } else {
        Err(CdrEncodeError::FixedLengthMismatch {
            field,
            len,
            expected,
        })
    }
}
