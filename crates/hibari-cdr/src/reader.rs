//! The decoding side: a bounds-checked [`CdrReader`] over borrowed bytes.
//!
//! Every read checks the remaining length first, so hostile input yields a
//! [`CdrDecodeError`], never a panic. Counts are checked against the bytes
//! left *before* anything is allocated, so a forged count of 4 billion cannot
//! make the decoder reserve gigabytes. Padding content is never checked.
//!
//! The input is [`Bytes`]: over [shared](Bytes::Shared) bytes, which a writer
//! in another process may change while they are read, every value is read
//! once into a local and checked there, and strings are copied out before
//! their UTF-8 is checked, so a change shows up as other values or an error.

use std::borrow::Cow;

use crate::bytes::Bytes;
use crate::error::CdrDecodeError;
use crate::primitive::{Endian, Primitive};
use crate::view::PrimSeq;
use crate::view_str::ViewStr;

/// How deep nested messages may go before decoding stops (dynamic decoders
/// and JSON share it; typed messages are bounded by their definitions).
pub const MAX_DEPTH: usize = 64;

/// A cursor over one encapsulated CDR payload.
#[derive(Debug, Clone)]
pub struct CdrReader<'a> {
    buf: Bytes<'a>,
    pos: usize,
    origin: usize,
    endian: Endian,
}

impl<'a> CdrReader<'a> {
    /// Reads the 4-byte encapsulation header; accepts plain CDR in either byte order.
    /// Private bytes (`&[u8]`, `&Vec<u8>`) are borrowed as they are; see
    /// [`Bytes`] for bytes another process may change.
    pub fn new(buf: impl Into<Bytes<'a>>) -> Result<Self, CdrDecodeError> {
        let buf = buf.into();
        let header: [u8; 4] = match buf.array::<4>(0) {
            Some(h) => h,
            None => {
                return Err(CdrDecodeError::Truncated {
                    offset: 0,
                    needed: 4,
                    available: buf.len(),
                })
            }
        };
        let endian = match (header[0], header[1]) {
            (0, 1) => Endian::Little,
            (0, 0) => Endian::Big,
            _ => return Err(CdrDecodeError::BadHeader(header)),
        };
        Ok(CdrReader {
            buf,
            pos: 4,
            origin: 4,
            endian,
        })
    }

    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// Offset in the buffer, header included.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes not yet read.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Checks that at most 3 bytes remain (ROS 2 readers' tolerance).
    pub fn finish(&self) -> Result<(), CdrDecodeError> {
        match self.remaining() {
            0..=3 => Ok(()),
            extra => Err(CdrDecodeError::TrailingBytes { extra }),
        }
    }

    #[inline]
    fn check(&self, n: usize) -> Result<(), CdrDecodeError> {
        if n > self.remaining() {
            return Err(CdrDecodeError::Truncated {
                offset: self.pos,
                needed: n,
                available: self.remaining(),
            });
        }
        Ok(())
    }

    #[inline]
    fn take(&mut self, n: usize) -> Result<Bytes<'a>, CdrDecodeError> {
        self.check(n)?;
        let s = self
            .buf
            .slice(self.pos, n)
            .ok_or(CdrDecodeError::Truncated {
                offset: self.pos,
                needed: n,
                available: self.remaining(),
            })?;
        self.pos += n;
        Ok(s)
    }

    #[inline]
    pub fn align(&mut self, n: usize) -> Result<(), CdrDecodeError> {
        let rel = self.pos - self.origin;
        let pad = (n - rel % n) % n;
        self.check(pad)?;
        self.pos += pad;
        Ok(())
    }

    /// Reads one aligned primitive.
    #[inline]
    pub fn read<P: Primitive>(&mut self) -> Result<P, CdrDecodeError> {
        self.align(P::SIZE)?;
        let offset = self.pos;
        self.check(P::SIZE)?;
        let mut buf = [0u8; 8];
        let local = &mut buf[..P::SIZE];
        match self.buf {
            Bytes::Private(b) => local.copy_from_slice(&b[offset..offset + P::SIZE]),
            Bytes::Shared(_) => self.take(P::SIZE)?.copy_to_slice(local),
        }
        self.pos = offset + P::SIZE;
        P::from_bytes(local, self.endian).ok_or(CdrDecodeError::InvalidBool {
            offset,
            value: local[0],
        })
    }

    /// Reads a sequence count and checks that `count * min_elem_size` bytes
    /// are left, so callers may allocate `count` elements safely.
    #[inline]
    pub fn read_count(&mut self, min_elem_size: usize) -> Result<usize, CdrDecodeError> {
        let offset = self.pos;
        let count = self.read::<u32>()? as usize;
        let needed = count as u64 * min_elem_size.max(1) as u64;
        if needed > self.remaining() as u64 {
            return Err(CdrDecodeError::LengthTooLarge {
                offset,
                len: count as u64,
                available: self.remaining(),
            });
        }
        Ok(count)
    }

    /// Reads a string: borrowed from private bytes, copied out of shared ones
    /// (and checked after the copy). A length of 0 reads as `""` and a
    /// missing NUL is tolerated (as Fast-CDR does).
    pub fn read_str(&mut self) -> Result<Cow<'a, str>, CdrDecodeError> {
        let len = self.read_count(1)?;
        let offset = self.pos;
        match self.take(len)? {
            Bytes::Private(bytes) => std::str::from_utf8(strip_nul(bytes))
                .map(Cow::Borrowed)
                .map_err(|_| CdrDecodeError::InvalidUtf8 { offset }),
            shared @ Bytes::Shared(_) => {
                let mut copy = shared.to_vec();
                let keep = strip_nul(&copy).len();
                copy.truncate(keep);
                String::from_utf8(copy)
                    .map(Cow::Owned)
                    .map_err(|_| CdrDecodeError::InvalidUtf8 { offset })
            }
        }
    }

    /// Reads a string for a message view: borrowed from private bytes,
    /// copied out of shared ones — into the value itself when short enough
    /// ([`ViewStr::INLINE`]), so that no allocation is made.
    pub fn read_view_str(&mut self) -> Result<ViewStr<'a>, CdrDecodeError> {
        let len = self.read_count(1)?;
        let offset = self.pos;
        let invalid = CdrDecodeError::InvalidUtf8 { offset };
        match self.take(len)? {
            Bytes::Private(bytes) => std::str::from_utf8(strip_nul(bytes))
                .map(ViewStr::borrowed)
                .map_err(|_| invalid),
            shared @ Bytes::Shared(_) if len <= ViewStr::INLINE + 1 => {
                let mut buf = [0u8; ViewStr::INLINE + 1];
                shared.copy_to_slice(&mut buf[..len]);
                ViewStr::from_copy(strip_nul(&buf[..len])).ok_or(invalid)
            }
            shared @ Bytes::Shared(_) => {
                let copy = shared.to_vec();
                ViewStr::from_copy(strip_nul(&copy)).ok_or(invalid)
            }
        }
    }

    /// Reads a string into `out`, reusing its allocation (the owned decode).
    pub fn read_string_into(&mut self, out: &mut String) -> Result<(), CdrDecodeError> {
        let len = self.read_count(1)?;
        let offset = self.pos;
        let bytes = self.take(len)?;
        let mut buf = std::mem::take(out).into_bytes();
        buf.clear();
        buf.resize(len, 0);
        bytes.copy_to_slice(&mut buf);
        let keep = strip_nul(&buf).len();
        buf.truncate(keep);
        match String::from_utf8(buf) {
            Ok(s) => {
                *out = s;
                Ok(())
            }
            Err(e) => {
                let mut buf = e.into_bytes();
                buf.clear();
                *out = String::from_utf8(buf).unwrap_or_default();
                Err(CdrDecodeError::InvalidUtf8 { offset })
            }
        }
    }

    /// Borrows `count` primitives as a view; empty arrays add no padding.
    #[inline]
    pub fn read_prim_seq<P: Primitive>(
        &mut self,
        count: usize,
    ) -> Result<PrimSeq<'a, P>, CdrDecodeError> {
        if count > 0 {
            self.align(P::SIZE)?;
        }
        let offset = self.pos;
        let len = count
            .checked_mul(P::SIZE)
            .ok_or(CdrDecodeError::LengthTooLarge {
                offset,
                len: count as u64,
                available: self.remaining(),
            })?;
        let bytes = self.take(len)?;
        if P::SIZE == 1 && std::any::TypeId::of::<P>() == std::any::TypeId::of::<bool>() {
            // Over shared bytes this checks the values of this moment; later
            // reads of a changed byte give `false` or `None`, never a bad bool.
            let copy = bytes.to_cow();
            if let Some(i) = copy.iter().position(|&b| b > 1) {
                return Err(CdrDecodeError::InvalidBool {
                    offset: offset + i,
                    value: copy[i],
                });
            }
        }
        Ok(PrimSeq::new(bytes, self.endian))
    }

    /// Reads a counted primitive sequence (`T[]`, `T[<=N]`) as a view.
    #[inline]
    pub fn read_prim_seq_counted<P: Primitive>(
        &mut self,
    ) -> Result<PrimSeq<'a, P>, CdrDecodeError> {
        let count = self.read_count(P::SIZE)?;
        self.read_prim_seq(count)
    }

    /// Reads a counted primitive sequence into `out`, reusing its allocation:
    /// one copy straight from the input, shared or private.
    #[inline]
    pub fn read_prim_vec_into<P: Primitive>(
        &mut self,
        out: &mut Vec<P>,
    ) -> Result<(), CdrDecodeError> {
        let view = self.read_prim_seq_counted::<P>()?;
        view.copy_into(out);
        Ok(())
    }

    /// Reads a fixed array of `N` primitives.
    #[inline]
    pub fn read_prim_array<P: Primitive, const N: usize>(
        &mut self,
    ) -> Result<[P; N], CdrDecodeError> {
        let view = self.read_prim_seq::<P>(N)?;
        let mut out = [P::default(); N];
        view.copy_to_slice(&mut out);
        Ok(out)
    }
}

/// `bytes` without one trailing NUL.
fn strip_nul(bytes: &[u8]) -> &[u8] {
    match bytes.split_last() {
        Some((0, rest)) => rest,
        _ => bytes,
    }
}
