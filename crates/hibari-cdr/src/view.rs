//! Zero-copy views of primitive arrays inside an encoded message.

use std::fmt;
use std::marker::PhantomData;

use crate::primitive::{Endian, Primitive};

/// A primitive array borrowed from the encoded bytes, never copied until asked.
///
/// [`as_slice`](PrimSeq::as_slice) gives `&[T]` directly when the payload is in
/// this machine's byte order and the bytes are suitably aligned in memory
/// (always true for `u8`); [`iter`](PrimSeq::iter), [`get`](PrimSeq::get) and
/// [`to_vec`](PrimSeq::to_vec) work in every case.
#[derive(Clone, Copy)]
pub struct PrimSeq<'a, P: Primitive> {
    bytes: &'a [u8],
    endian: Endian,
    _p: PhantomData<P>,
}

impl<'a, P: Primitive> PrimSeq<'a, P> {
    /// Wraps raw element bytes (`len` must be a multiple of `P::SIZE`).
    pub fn new(bytes: &'a [u8], endian: Endian) -> Self {
        debug_assert_eq!(bytes.len() % P::SIZE, 0);
        PrimSeq {
            bytes,
            endian,
            _p: PhantomData,
        }
    }

    /// An empty view.
    pub fn empty() -> Self {
        PrimSeq::new(&[], Endian::NATIVE)
    }

    pub fn len(&self) -> usize {
        self.bytes.len() / P::SIZE
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The raw element bytes as they sit in the buffer.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// The elements as a slice, with no copy, when the payload is in native
    /// byte order and the bytes are aligned for the type (`None` for `bool`).
    pub fn as_slice(&self) -> Option<&'a [P]> {
        P::view_slice(self.bytes, self.endian)
    }

    /// Element `i`, converted from the payload's byte order.
    pub fn get(&self, i: usize) -> Option<P> {
        let b = self.bytes.get(i * P::SIZE..(i + 1) * P::SIZE)?;
        P::from_bytes(b, self.endian)
    }

    /// Iterates the elements, converting byte order as needed.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = P> + 'a {
        let endian = self.endian;
        self.bytes
            .chunks_exact(P::SIZE)
            .map(move |c| P::from_bytes(c, endian).unwrap_or_default())
    }

    /// Copies the elements into `out`, reusing its allocation.
    pub fn copy_into(&self, out: &mut Vec<P>) {
        out.clear();
        match self.as_slice() {
            Some(s) => out.extend_from_slice(s),
            None => out.extend(self.iter()),
        }
    }

    /// Copies the elements into a new vector.
    pub fn to_vec(&self) -> Vec<P> {
        let mut v = Vec::with_capacity(self.len());
        self.copy_into(&mut v);
        v
    }
}

impl<P: Primitive> fmt::Debug for PrimSeq<'_, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SHOWN: usize = 16;
        let mut list = f.debug_list();
        list.entries(self.iter().take(SHOWN));
        if self.len() > SHOWN {
            list.entry(&format_args!("… {} more", self.len() - SHOWN));
        }
        list.finish()
    }
}

impl<P: Primitive> PartialEq for PrimSeq<'_, P> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}
