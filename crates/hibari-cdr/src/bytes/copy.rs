//! Copying shared bytes out: every word loaded once, in order, with as
//! little work per word as safe code allows.
//!
//! A [`Cursor`] walks the words of a [`SharedBytes`] front to back. It keeps
//! the last word it loaded, so a copy that ends inside a word and the next
//! copy that starts there share one load: every byte of the shared memory is
//! read exactly once, through one `Relaxed` load of its word. The whole
//! words in between go four at a time into the destination (plain stores at
//! any alignment; the loads stay aligned, since they are whole words).

use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::Relaxed;

use super::{SharedBytes, WORD};

/// Words loaded per turn of the main loop.
const UNROLL: usize = 4;
/// Bytes stored per turn of the main loop.
const BLOCK: usize = UNROLL * WORD;

/// Bytes per piece of [`SharedBytes::copy_in_pieces`] (a multiple of every
/// primitive's size, small enough to stay in the L1 cache).
pub(crate) const PIECE: usize = 4096;

/// A read position in the words of a [`SharedBytes`].
pub(super) struct Cursor<'a> {
    /// The words not loaded yet.
    words: &'a [AtomicUsize],
    /// The last word loaded; `word[at..]` are its bytes not handed out yet.
    word: [u8; WORD],
    at: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the first byte of `bytes`.
    pub(super) fn new(bytes: &SharedBytes<'a>) -> Self {
        let mut cursor = Cursor {
            words: bytes.words,
            word: [0; WORD],
            at: WORD,
        };
        if bytes.start != 0 && bytes.len != 0 {
            cursor.load();
            cursor.at = bytes.start;
        }
        cursor
    }

    /// Loads the next word (zeros past the end, which callers never reach).
    fn load(&mut self) {
        self.word = match self.words.split_first() {
            Some((w, rest)) => {
                self.words = rest;
                w.load(Relaxed).to_ne_bytes()
            }
            None => [0; WORD],
        };
        self.at = 0;
    }

    /// Copies the next `dst.len()` bytes into `dst`.
    pub(super) fn fill(&mut self, dst: &mut [u8]) {
        // The rest of the word loaded last, then whole words, then the first
        // bytes of one more word. The whole words are stored wherever they
        // land in `dst`: an unaligned store costs less than shifting pairs
        // of words into line (measured: about 1.1-1.4x the time of memcpy
        // against 1.7-2.2x, x86-64 without BMI2).
        let head = (WORD - self.at).min(dst.len());
        let (head, rest) = dst.split_at_mut(head);
        self.fill_bytes(head);
        let used = copy_words(self.words, rest);
        self.words = &self.words[used..];
        self.fill_bytes(&mut rest[used * WORD..]);
    }

    /// Copies a few bytes one by one.
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        for b in dst {
            if self.at == WORD {
                self.load();
            }
            *b = self.word[self.at];
            self.at += 1;
        }
    }
}

/// Copies words of `src` into the `WORD`-byte chunks at the front of `dst`
/// (as many as both have; at any address) and returns how many it copied.
#[inline]
fn copy_words(src: &[AtomicUsize], dst: &mut [u8]) -> usize {
    let (dst_blocks, _) = dst.as_chunks_mut::<BLOCK>();
    let (src_blocks, _) = src.as_chunks::<UNROLL>();
    let blocks = dst_blocks.len().min(src_blocks.len());
    for (d, s) in dst_blocks.iter_mut().zip(src_blocks) {
        // All loads first, then all stores: the loads of one turn are
        // independent of each other and of the stores.
        let w: [usize; UNROLL] = std::array::from_fn(|i| s[i].load(Relaxed));
        let (d, _) = d.as_chunks_mut::<WORD>();
        for (d, w) in d.iter_mut().zip(w) {
            *d = w.to_ne_bytes();
        }
    }
    let done = blocks * UNROLL;
    let (dst_words, _) = dst[done * WORD..].as_chunks_mut::<WORD>();
    let src_words = &src[done..];
    let rest = dst_words.len().min(src_words.len());
    for (d, s) in dst_words.iter_mut().zip(src_words) {
        *d = s.load(Relaxed).to_ne_bytes();
    }
    done + rest
}

impl SharedBytes<'_> {
    /// Copies the bytes out piece by piece through a buffer on the stack and
    /// hands each piece to `f`: 4 KiB each but the last, which holds the
    /// rest. Each piece starts at an address aligned to 8 bytes.
    ///
    /// Every byte is read once, so the pieces are the bytes of one read. For
    /// filling a `Vec` without zeroing it first (`extend_from_slice` per
    /// piece); short ranges are cheaper through
    /// [`copy_to_slice`](Self::copy_to_slice), which needs no buffer.
    pub fn copy_in_pieces(&self, mut f: impl FnMut(&[u8])) {
        let mut buf = [0u64; PIECE / 8];
        let buf: &mut [u8] = bytemuck::cast_slice_mut(&mut buf);
        let mut cursor = Cursor::new(self);
        let mut left = self.len;
        while left > 0 {
            let piece = &mut buf[..left.min(PIECE)];
            cursor.fill(piece);
            f(piece);
            left -= piece.len();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 131 + i / 251) as u8 ^ 0xA5).collect()
    }

    #[test]
    fn long_copies_cross_the_unrolled_blocks_at_every_source_and_destination_offset() {
        let data = data(3 * PIECE + 100);
        let w = SharedBytes::words_of(&data);
        let mut buf = vec![0u64; data.len() / 8 + 2];
        let buf: &mut [u8] = bytemuck::cast_slice_mut(&mut buf);
        for start in 0..2 * WORD {
            let long = [PIECE - 1, PIECE, PIECE + 1, 3 * PIECE + 100 - start];
            for len in (0..=6 * BLOCK + WORD).chain(long) {
                let s = SharedBytes::new(&w, start, len).unwrap();
                let want = &data[start..start + len];
                // Same, and different, alignment of source and destination.
                for at in 0..WORD {
                    let dst = &mut buf[at..at + len];
                    dst.fill(0xEE);
                    s.copy_to_slice(dst);
                    assert!(dst == want, "start {start} len {len} at {at}");
                }
            }
        }
    }

    #[test]
    fn pieces_are_full_aligned_and_together_the_bytes() {
        let data = data(3 * PIECE + 100);
        let w = SharedBytes::words_of(&data);
        for start in 0..WORD {
            for len in [
                0,
                1,
                PIECE - 1,
                PIECE,
                PIECE + 1,
                2 * PIECE + 7,
                3 * PIECE + 100 - start,
            ] {
                let s = SharedBytes::new(&w, start, len).unwrap();
                let mut got = Vec::new();
                let mut sizes = Vec::new();
                s.copy_in_pieces(|p| {
                    assert_eq!(p.as_ptr() as usize % 8, 0);
                    sizes.push(p.len());
                    got.extend_from_slice(p);
                });
                assert_eq!(got, &data[start..start + len], "start {start} len {len}");
                let full = sizes.iter().rev().skip(1).all(|&n| n == PIECE);
                assert!(full && sizes.iter().all(|&n| n > 0), "{sizes:?}");
            }
        }
    }

    #[test]
    fn a_cursor_hands_out_consecutive_ranges_loading_each_word_once() {
        let data = data(40 * WORD);
        let w = SharedBytes::words_of(&data);
        for start in 0..WORD {
            let s = SharedBytes::new(&w, start, 39 * WORD).unwrap();
            let mut cursor = Cursor::new(&s);
            let mut at = start;
            let mut buf = [0u64; 16];
            let buf: &mut [u8] = bytemuck::cast_slice_mut(&mut buf);
            for (i, n) in [0, 1, 3, 8, 9, 33, 0, 2, 64, 7, 100]
                .into_iter()
                .enumerate()
            {
                let dst = &mut buf[i % WORD..i % WORD + n];
                cursor.fill(dst);
                assert_eq!(dst, &data[at..at + n], "start {start} at {at} n {n}");
                at += n;
                // Loaded so far: exactly the words of the bytes handed out.
                let loaded = s.words.len() - cursor.words.len();
                assert_eq!(loaded, at.div_ceil(WORD), "start {start} at {at}");
            }
        }
    }
}
