//! Views of primitive arrays inside an encoded message, copied only when asked.

use std::fmt;
use std::marker::PhantomData;

use crate::bytes::{Bytes, PIECE};
use crate::primitive::{Endian, Primitive};

/// A primitive array inside the encoded bytes, never copied until asked.
///
/// Over [private](Bytes::Private) bytes, [`as_slice`](PrimSeq::as_slice)
/// gives `&[T]` directly when the payload is in this machine's byte order and
/// the bytes are suitably aligned in memory (always true for `u8`). Over
/// [shared](Bytes::Shared) bytes — a publisher's chunk in shared memory, which
/// that publisher could still change — there is no slice:
/// [`copy_to_slice`](PrimSeq::copy_to_slice), [`to_vec`](PrimSeq::to_vec),
/// [`get`](PrimSeq::get) and [`iter`](PrimSeq::iter) work in every case and
/// read each element as it is at that moment.
#[derive(Clone, Copy)]
pub struct PrimSeq<'a, P: Primitive> {
    bytes: Bytes<'a>,
    endian: Endian,
    _p: PhantomData<P>,
}

impl<'a, P: Primitive> PrimSeq<'a, P> {
    /// Wraps raw element bytes (`len` must be a multiple of `P::SIZE`; a
    /// partial last element is never read).
    pub fn new(bytes: impl Into<Bytes<'a>>, endian: Endian) -> Self {
        let bytes = bytes.into();
        debug_assert_eq!(bytes.len() % P::SIZE, 0);
        PrimSeq {
            bytes,
            endian,
            _p: PhantomData,
        }
    }

    /// An empty view.
    pub fn empty() -> Self {
        PrimSeq::new(Bytes::Private(&[]), Endian::NATIVE)
    }

    pub fn len(&self) -> usize {
        self.bytes.len() / P::SIZE
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The raw element bytes as they sit in the buffer.
    pub fn as_bytes(&self) -> Bytes<'a> {
        self.bytes
    }

    /// Whether the elements may change while they are read (see [`Bytes`]).
    pub fn is_shared(&self) -> bool {
        self.bytes.is_shared()
    }

    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// The elements as a slice, with no copy, when the bytes are private, in
    /// native byte order and aligned for the type (`None` for `bool`).
    pub fn as_slice(&self) -> Option<&'a [P]> {
        P::view_slice(self.bytes.as_private()?, self.endian)
    }

    /// Element `i`, converted from the payload's byte order.
    pub fn get(&self, i: usize) -> Option<P> {
        if i >= self.len() {
            return None;
        }
        let mut buf = [0u8; 8];
        let elem = &mut buf[..P::SIZE];
        self.bytes.slice(i * P::SIZE, P::SIZE)?.copy_to_slice(elem);
        P::from_bytes(elem, self.endian)
    }

    /// Iterates the elements, converting byte order as needed (an invalid
    /// `bool` reads as `false`).
    pub fn iter(&self) -> impl ExactSizeIterator<Item = P> + 'a {
        let seq = *self;
        (0..self.len()).map(move |i| seq.get(i).unwrap_or_default())
    }

    /// Copies the elements into `out`, which must hold exactly
    /// [`len`](Self::len) elements.
    ///
    /// # Panics
    /// If the lengths differ.
    pub fn copy_to_slice(&self, out: &mut [P]) {
        assert_eq!(
            out.len(),
            self.len(),
            "destination and source lengths differ"
        );
        let whole = self.bytes.slice(0, self.len() * P::SIZE);
        if let (Some(dst), Some(src)) = (P::bytes_mut(out), whole) {
            if self.endian == Endian::NATIVE || P::SIZE == 1 {
                src.copy_to_slice(dst);
                return;
            }
        }
        for (i, slot) in out.iter_mut().enumerate() {
            *slot = self.get(i).unwrap_or_default();
        }
    }

    /// Copies the elements into `out`, reusing its allocation.
    ///
    /// When `out` already holds at least as many elements (a message
    /// decoded into again, as a subscription's kept message is, usually the
    /// same size each time), it is cut to length and overwritten in place:
    /// one pass over the bytes, with neither a fill first nor a buffer
    /// between. (1 MiB of shared memory still in this core's cache: 73 µs
    /// against 108 through the pieces below. Bytes another core has just
    /// written cost their reads, ~190 µs per MiB here, either way.)
    pub fn copy_into(&self, out: &mut Vec<P>) {
        if out.len() >= self.len() {
            out.truncate(self.len());
            self.copy_to_slice(out);
            return;
        }
        out.clear();
        let bytes = self.len() * P::SIZE;
        if let Some(s) = self.as_slice() {
            out.extend_from_slice(s);
        } else if let (Bytes::Shared(src), true) = (self.bytes, bytes > PIECE) {
            // Long shared arrays go through a buffer on the stack, piece by
            // piece, so `out` is written once instead of zeroed first.
            out.reserve(self.len());
            let whole = src.slice(0, bytes).unwrap_or(src);
            whole.copy_in_pieces(|piece| match P::view_slice(piece, self.endian) {
                Some(values) => out.extend_from_slice(values),
                None => out.extend(
                    piece
                        .chunks_exact(P::SIZE)
                        .map(|e| P::from_bytes(e, self.endian).unwrap_or_default()),
                ),
            });
        } else {
            out.resize(self.len(), P::default());
            self.copy_to_slice(out);
        }
    }

    /// Copies the elements into a new vector.
    pub fn to_vec(&self) -> Vec<P> {
        let mut v = Vec::new();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::{SharedBytes, PIECE, WORD};

    #[test]
    fn a_sequence_reads_the_same_over_private_and_shared_bytes() {
        let values: Vec<u16> = (0..21).map(|i| i * 1000 + 7).collect();
        let mut raw = vec![0xAB];
        raw.extend(values.iter().flat_map(|v| v.to_le_bytes()));
        let w = SharedBytes::words_of(&raw);
        let shared = PrimSeq::<u16>::new(SharedBytes::new(&w, 1, 42).unwrap(), Endian::Little);
        let private = PrimSeq::<u16>::new(&raw[1..], Endian::Little);
        for seq in [shared, private] {
            assert_eq!(seq.len(), 21);
            assert_eq!(seq.to_vec(), values);
            assert_eq!(seq.iter().collect::<Vec<_>>(), values);
            assert_eq!(seq.get(20), Some(20_007));
            assert_eq!(seq.get(21), None);
            let mut out = vec![0; 21];
            seq.copy_to_slice(&mut out);
            assert_eq!(out, values);
        }
        assert!(shared.as_slice().is_none(), "no slice over shared bytes");
        assert!(shared.is_shared() && !private.is_shared());
        assert_eq!(shared, private);
    }

    /// Long shared sequences (past one [`PIECE`]) at each start offset,
    /// decoded into a reused vector, equal the private decode.
    fn long_shared_matches_private<P: Primitive>(elems: usize, endian: Endian) {
        let raw: Vec<u8> = (0..elems * P::SIZE + WORD)
            .map(|i| (i * 37 + i / 256) as u8 % if P::SIZE == 1 { 3 } else { 255 })
            .collect();
        let w = SharedBytes::words_of(&raw);
        let mut out = vec![P::default(); 3];
        for start in 0..WORD {
            let bytes = &raw[start..start + elems * P::SIZE];
            let private = PrimSeq::<P>::new(bytes, endian);
            let want: Vec<P> = private.iter().collect();
            let shared = SharedBytes::new(&w, start, bytes.len()).unwrap();
            PrimSeq::<P>::new(shared, endian).copy_into(&mut out);
            assert!(out == want, "{} start {start}", std::any::type_name::<P>());
            assert_eq!(PrimSeq::<P>::new(shared, endian).to_vec(), want);
        }
    }

    #[test]
    fn long_shared_sequences_decode_piece_by_piece_like_private_ones() {
        for elems in [PIECE - 1, PIECE, PIECE + 1, 2 * PIECE + 3] {
            long_shared_matches_private::<u8>(elems, Endian::Little);
            long_shared_matches_private::<bool>(elems, Endian::Little);
        }
        for endian in [Endian::Little, Endian::Big] {
            for elems in [PIECE / 2 + 1, PIECE + 5] {
                long_shared_matches_private::<u16>(elems, endian);
                long_shared_matches_private::<f64>(elems, endian);
            }
        }
    }

    #[test]
    fn a_longer_reused_vector_is_cut_to_length_and_overwritten() {
        let raw = [0u8, 1, 0, 2, 1, 0, 7, 9];
        let w = SharedBytes::words_of(&raw);
        let mut out = vec![0xEEEEu16; 9];
        let be = PrimSeq::<u16>::new(SharedBytes::new(&w, 0, 4).unwrap(), Endian::Big);
        be.copy_into(&mut out);
        assert_eq!(out, [1, 2]);
        let mut flags = vec![true; 5];
        let bools = PrimSeq::<bool>::new(SharedBytes::new(&w, 4, 3).unwrap(), Endian::Little);
        bools.copy_into(&mut flags);
        assert_eq!(flags, [true, false, false], "7 is no bool: false");
        let mut bytes = vec![0u8; 20];
        PrimSeq::<u8>::new(&raw[1..], Endian::Little).copy_into(&mut bytes);
        assert_eq!(bytes, raw[1..]);
    }

    #[test]
    fn big_endian_and_bool_sequences_convert_element_by_element() {
        let raw = [0u8, 1, 0, 2, 1, 0, 7];
        let w = SharedBytes::words_of(&raw);
        let be = PrimSeq::<u16>::new(SharedBytes::new(&w, 0, 4).unwrap(), Endian::Big);
        assert_eq!(be.to_vec(), [1, 2]);
        let bools = PrimSeq::<bool>::new(SharedBytes::new(&w, 4, 3).unwrap(), Endian::Little);
        assert_eq!(bools.to_vec(), [true, false, false], "7 is no bool: false");
        assert_eq!(bools.get(2), None);
        let private = PrimSeq::<u16>::new(&raw[..4], Endian::Big);
        assert_eq!(private.to_vec(), [1, 2]);
    }
}
