//! Encoded bytes that may live in memory another process can change.
//!
//! A payload received over shared memory sits in the publisher's chunk,
//! mapped read-only here. The publisher keeps write access: a buggy or
//! hostile one can change the bytes while this process reads them. Rust
//! must then never hold a `&[u8]` (or a `&str`) over them — a shared
//! reference promises that the bytes do not change, and code built on that
//! promise (a UTF-8 check followed by unchecked decoding) could read out of
//! bounds. [`SharedBytes`] reads such memory only through `Relaxed` atomic
//! loads of whole machine words, which stay defined whatever the other side
//! does: a change shows up as other values, never as undefined behaviour.
//!
//! [`Bytes`] is what decoders take: [`Private`](Bytes::Private) bytes that
//! nobody else can change (a `Vec`, a socket buffer, an in-process sample)
//! are borrowed as before, without a copy; [`Shared`](Bytes::Shared) bytes
//! are copied out once, and validated after the copy.

use std::borrow::Cow;
use std::fmt;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::Relaxed;

mod copy;

pub(crate) use copy::PIECE;

/// Bytes of one machine word, the unit of every load from shared memory.
pub const WORD: usize = std::mem::size_of::<usize>();

/// A byte range of memory another process may write at any time, read by
/// `Relaxed` word loads.
///
/// Built from the words of a mapping (the shared-memory transport does that)
/// and a byte range inside them. Every read returns the bytes as they were at
/// some moment: two reads of the same byte may differ, so callers read a value
/// once into a local and validate that copy.
#[derive(Clone, Copy)]
pub struct SharedBytes<'a> {
    words: &'a [AtomicUsize],
    /// The first byte, counted from the start of `words` (`< WORD`).
    start: usize,
    len: usize,
}

impl<'a> SharedBytes<'a> {
    /// Words holding a copy of `bytes` (the last word padded with zeros),
    /// for [`SharedBytes::new`]: how tests and benchmarks give code that reads
    /// shared memory the same bytes in ordinary memory.
    pub fn words_of(bytes: &[u8]) -> Vec<AtomicUsize> {
        bytes
            .chunks(WORD)
            .map(|c| {
                let mut w = [0u8; WORD];
                w[..c.len()].copy_from_slice(c);
                AtomicUsize::new(usize::from_ne_bytes(w))
            })
            .collect()
    }

    /// The `len` bytes from byte `start` of `words`, or `None` if they do not
    /// lie inside `words`.
    pub fn new(words: &'a [AtomicUsize], start: usize, len: usize) -> Option<Self> {
        let end = start.checked_add(len)?;
        if end > words.len().checked_mul(WORD)? {
            return None;
        }
        let first = start / WORD;
        let last = end.div_ceil(WORD).max(first);
        Some(SharedBytes {
            words: &words[first..last],
            start: start % WORD,
            len,
        })
    }

    /// No bytes.
    pub const fn empty() -> SharedBytes<'static> {
        SharedBytes {
            words: &[],
            start: 0,
            len: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The address of the first byte, for foreign code that reads the memory
    /// itself (a numpy array over a sample); Rust code reads through `self`.
    pub fn as_ptr(&self) -> *const u8 {
        self.words.as_ptr().cast::<u8>().wrapping_add(self.start)
    }

    /// The words that hold the bytes (the first and the last may hold bytes
    /// outside the range too), for code that reads whole words itself.
    pub fn words(&self) -> &'a [AtomicUsize] {
        self.words
    }

    /// Byte `i` as it is now.
    pub fn get(&self, i: usize) -> Option<u8> {
        if i >= self.len {
            return None;
        }
        let at = self.start + i;
        Some(self.words[at / WORD].load(Relaxed).to_ne_bytes()[at % WORD])
    }

    /// The bytes `from..from + len`, or `None` if they are not all inside.
    pub fn slice(&self, from: usize, len: usize) -> Option<SharedBytes<'a>> {
        if from.checked_add(len)? > self.len {
            return None;
        }
        SharedBytes::new(self.words, self.start + from, len)
    }

    /// Copies the bytes into `dst`, a word at a time.
    ///
    /// # Panics
    /// If `dst` is not exactly [`len`](Self::len) bytes long (as
    /// [`<[u8]>::copy_from_slice`](slice::copy_from_slice)).
    pub fn copy_to_slice(&self, dst: &mut [u8]) {
        assert_eq!(dst.len(), self.len, "destination and source lengths differ");
        copy::Cursor::new(self).fill(dst);
    }

    /// Copies the bytes into a new vector.
    pub fn to_vec(&self) -> Vec<u8> {
        if self.len <= PIECE {
            let mut v = vec![0; self.len];
            self.copy_to_slice(&mut v);
            return v;
        }
        // Long: no zero fill before the copy.
        let mut v = Vec::with_capacity(self.len);
        self.copy_in_pieces(|piece| v.extend_from_slice(piece));
        v
    }
}

impl fmt::Debug for SharedBytes<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SharedBytes({} bytes)", self.len)
    }
}

/// Encoded bytes to decode: private (nobody else can change them) or shared
/// with a writer in another process.
#[derive(Clone, Copy, Debug)]
pub enum Bytes<'a> {
    /// Bytes only this process holds: borrowed as they are.
    Private(&'a [u8]),
    /// Bytes another process may change while they are read.
    Shared(SharedBytes<'a>),
}

impl<'a> Bytes<'a> {
    pub fn len(&self) -> usize {
        match self {
            Bytes::Private(b) => b.len(),
            Bytes::Shared(s) => s.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The address of the first byte (see [`SharedBytes::as_ptr`]).
    pub fn as_ptr(&self) -> *const u8 {
        match self {
            Bytes::Private(b) => b.as_ptr(),
            Bytes::Shared(s) => s.as_ptr(),
        }
    }

    /// Whether the bytes may change while they are read.
    pub fn is_shared(&self) -> bool {
        matches!(self, Bytes::Shared(_))
    }

    /// The bytes as a slice, when they are private.
    pub fn as_private(&self) -> Option<&'a [u8]> {
        match self {
            Bytes::Private(b) => Some(b),
            Bytes::Shared(_) => None,
        }
    }

    /// Byte `i` (of shared bytes: as it is now).
    pub fn get(&self, i: usize) -> Option<u8> {
        match self {
            Bytes::Private(b) => b.get(i).copied(),
            Bytes::Shared(s) => s.get(i),
        }
    }

    /// The bytes `from..from + len`, or `None` if they are not all inside.
    pub fn slice(&self, from: usize, len: usize) -> Option<Bytes<'a>> {
        match self {
            Bytes::Private(b) => b.get(from..from.checked_add(len)?).map(Bytes::Private),
            Bytes::Shared(s) => s.slice(from, len).map(Bytes::Shared),
        }
    }

    /// Copies the bytes into `dst`, which must be exactly as long.
    ///
    /// # Panics
    /// If the lengths differ.
    pub fn copy_to_slice(&self, dst: &mut [u8]) {
        match self {
            Bytes::Private(b) => dst.copy_from_slice(b),
            Bytes::Shared(s) => s.copy_to_slice(dst),
        }
    }

    /// Copies the bytes into a new vector.
    pub fn to_vec(&self) -> Vec<u8> {
        match self {
            Bytes::Private(b) => b.to_vec(),
            Bytes::Shared(s) => s.to_vec(),
        }
    }

    /// Private bytes borrowed, shared bytes copied.
    pub fn to_cow(&self) -> Cow<'a, [u8]> {
        match self {
            Bytes::Private(b) => Cow::Borrowed(b),
            Bytes::Shared(s) => Cow::Owned(s.to_vec()),
        }
    }

    /// `N` bytes from `at`, copied into an array (`None` if not all inside).
    #[inline]
    pub fn array<const N: usize>(&self, at: usize) -> Option<[u8; N]> {
        let mut out = [0; N];
        match self {
            Bytes::Private(b) => out.copy_from_slice(b.get(at..at.checked_add(N)?)?),
            Bytes::Shared(s) => s.slice(at, N)?.copy_to_slice(&mut out),
        }
        Some(out)
    }
}

impl<'a> From<&'a [u8]> for Bytes<'a> {
    fn from(b: &'a [u8]) -> Self {
        Bytes::Private(b)
    }
}

impl<'a> From<&'a Vec<u8>> for Bytes<'a> {
    fn from(b: &'a Vec<u8>) -> Self {
        Bytes::Private(b)
    }
}

impl<'a, const N: usize> From<&'a [u8; N]> for Bytes<'a> {
    fn from(b: &'a [u8; N]) -> Self {
        Bytes::Private(b)
    }
}

impl<'a> From<SharedBytes<'a>> for Bytes<'a> {
    fn from(s: SharedBytes<'a>) -> Self {
        Bytes::Shared(s)
    }
}

/// Compares the bytes as they are now.
impl PartialEq<[u8]> for Bytes<'_> {
    fn eq(&self, other: &[u8]) -> bool {
        self.len() == other.len() && *self.to_cow() == *other
    }
}

impl PartialEq<&[u8]> for Bytes<'_> {
    fn eq(&self, other: &&[u8]) -> bool {
        *self == **other
    }
}

impl<const N: usize> PartialEq<&[u8; N]> for Bytes<'_> {
    fn eq(&self, other: &&[u8; N]) -> bool {
        *self == other[..]
    }
}

impl PartialEq<Vec<u8>> for Bytes<'_> {
    fn eq(&self, other: &Vec<u8>) -> bool {
        *self == other[..]
    }
}

impl PartialEq for Bytes<'_> {
    fn eq(&self, other: &Self) -> bool {
        *self == *other.to_cow()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_offset_and_length_copies_exactly_those_bytes() {
        let data: Vec<u8> = (0..64u8).map(|i| i.wrapping_mul(37) ^ 0x5a).collect();
        let w = SharedBytes::words_of(&data);
        for start in 0..16 {
            for len in 0..=40 {
                let s = SharedBytes::new(&w, start, len).unwrap();
                let want = &data[start..start + len];
                assert_eq!(s.to_vec(), want, "start {start} len {len}");
                let mut dst = vec![0xEE; len];
                s.copy_to_slice(&mut dst);
                assert_eq!(dst, want);
                for (i, &b) in want.iter().enumerate() {
                    assert_eq!(s.get(i), Some(b));
                }
                assert_eq!(s.get(len), None);
                for from in 0..=len {
                    let sub = s.slice(from, len - from).unwrap();
                    assert_eq!(sub.to_vec(), &want[from..]);
                }
                assert!(s.slice(len, 1).is_none());
            }
        }
    }

    #[test]
    fn a_range_outside_the_words_is_refused() {
        let w = SharedBytes::words_of(&[0; 16]);
        assert!(SharedBytes::new(&w, 0, 16).is_some());
        assert!(SharedBytes::new(&w, 16, 0).is_some());
        assert!(SharedBytes::new(&w, 1, 16).is_none());
        assert!(SharedBytes::new(&w, usize::MAX, 2).is_none());
        let b = Bytes::Shared(SharedBytes::new(&w, 3, 10).unwrap());
        assert!(b.slice(5, 6).is_none());
        assert!(b.slice(usize::MAX, 2).is_none());
        assert!(Bytes::Private(&[1, 2]).slice(1, usize::MAX).is_none());
    }

    #[test]
    fn private_and_shared_bytes_read_the_same() {
        let data: Vec<u8> = (0..29).collect();
        let w = SharedBytes::words_of(&data);
        let shared = Bytes::Shared(SharedBytes::new(&w, 0, 29).unwrap());
        let private = Bytes::Private(&data);
        assert_eq!(shared, private);
        assert_eq!(shared.array::<4>(25), Some([25, 26, 27, 28]));
        assert_eq!(private.array::<4>(25), Some([25, 26, 27, 28]));
        assert_eq!(shared.array::<4>(26), None);
        assert_eq!(private.array::<4>(26), None);
        assert!(shared.as_private().is_none());
        assert_eq!(private.as_private(), Some(&data[..]));
        assert!(matches!(shared.to_cow(), Cow::Owned(_)));
        assert!(matches!(private.to_cow(), Cow::Borrowed(_)));
    }
}
