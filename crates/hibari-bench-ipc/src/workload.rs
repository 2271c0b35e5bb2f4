//! The workload both sides run, independent of the system carrying it: the
//! 32-byte header stamped into every payload, the 32-byte ack, the subscriber's
//! checks and its optional "touch" (a 64-bit sum over every byte).

use hibari_cdr::Bytes;

/// Bytes of the header at the start of every payload (and of every ack).
pub const HEADER_LEN: usize = 32;

/// The header the publisher writes into the first 32 bytes of every payload,
/// after filling the payload and immediately before the send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Message number, from 0 (warm-up included).
    pub seq: u64,
    /// `CLOCK_MONOTONIC` ns taken just before the send.
    pub t_send: u64,
    /// Payload length the publisher sent.
    pub len: u64,
}

impl Header {
    /// Writes the header into `buf[..32]`. `buf` must hold at least 32 bytes.
    pub fn write(&self, buf: &mut [u8]) {
        buf[0..8].copy_from_slice(&self.seq.to_le_bytes());
        buf[8..16].copy_from_slice(&self.t_send.to_le_bytes());
        buf[16..24].copy_from_slice(&self.len.to_le_bytes());
        buf[24..32].fill(0);
    }

    /// Reads a header from the start of `buf`, if it is long enough.
    pub fn read<'a>(buf: impl Into<Bytes<'a>>) -> Option<Header> {
        let buf = buf.into();
        Some(Header {
            seq: word(buf, 0)?,
            t_send: word(buf, 8)?,
            len: word(buf, 16)?,
        })
    }
}

/// The subscriber's answer to one payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ack {
    /// The `seq` of the payload answered.
    pub seq: u64,
    /// `CLOCK_MONOTONIC` ns right after the receive call returned the payload.
    pub t_recv: u64,
    /// `CLOCK_MONOTONIC` ns after the subscriber's checks (and the touch, if on).
    pub t_touch: u64,
    /// Whether the payload had the expected sequence number, length and fill byte.
    pub ok: bool,
}

impl Ack {
    /// Writes the ack into `buf[..32]`.
    pub fn write(&self, buf: &mut [u8]) {
        buf[0..8].copy_from_slice(&self.seq.to_le_bytes());
        buf[8..16].copy_from_slice(&self.t_recv.to_le_bytes());
        buf[16..24].copy_from_slice(&self.t_touch.to_le_bytes());
        buf[24..32].copy_from_slice(&u64::from(self.ok).to_le_bytes());
    }

    /// Reads an ack from `buf`, if it is long enough.
    pub fn read<'a>(buf: impl Into<Bytes<'a>>) -> Option<Ack> {
        let buf = buf.into();
        Some(Ack {
            seq: word(buf, 0)?,
            t_recv: word(buf, 8)?,
            t_touch: word(buf, 16)?,
            ok: word(buf, 24)? == 1,
        })
    }
}

fn word(buf: Bytes<'_>, at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(buf.array(at)?))
}

/// The fill byte of message `seq` (every payload byte after the header holds it).
pub fn fill_byte(seq: u64) -> u8 {
    (seq & 0xff) as u8
}

/// Checks a received payload: its header says `seq` and `len`, its length is
/// `len`, and its last byte is the fill byte of `seq`.
pub fn payload_ok<'a>(bytes: impl Into<Bytes<'a>>, seq: u64, len: usize) -> bool {
    let bytes = bytes.into();
    match Header::read(bytes) {
        Some(h) => {
            h.seq == seq
                && h.len == len as u64
                && bytes.len() == len
                && bytes.get(len.wrapping_sub(1)) == Some(fill_byte(seq))
        }
        None => false,
    }
}

/// Reads every byte of `bytes` as 64-bit words (plus the unaligned ends) and
/// returns their wrapping sum: the "touch" of an application that uses the data.
/// Shared memory is read as whole words by `Relaxed` loads (the first and
/// last words may add bytes just outside the payload: it is only a sum).
pub fn touch(bytes: Bytes<'_>) -> u64 {
    let bytes = match bytes {
        Bytes::Private(b) => b,
        Bytes::Shared(s) => {
            return s.words().iter().fold(0u64, |sum, w| {
                sum.wrapping_add(w.load(std::sync::atomic::Ordering::Relaxed) as u64)
            })
        }
    };
    let (head, words, tail) = bytemuck::pod_align_to::<u8, u64>(bytes);
    let ends = head
        .iter()
        .chain(tail)
        .fold(0u64, |s, &b| s.wrapping_add(u64::from(b)));
    words.iter().fold(ends, |s, &w| s.wrapping_add(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_ack_round_trip_through_32_bytes() {
        let mut buf = [0xaau8; 64];
        let h = Header {
            seq: 7,
            t_send: 123_456_789,
            len: 64,
        };
        h.write(&mut buf);
        assert_eq!(Header::read(&buf), Some(h));
        let a = Ack {
            seq: 9,
            t_recv: 1,
            t_touch: 2,
            ok: true,
        };
        a.write(&mut buf);
        assert_eq!(Ack::read(&buf[..32]), Some(a));
        assert_eq!(Ack::read(&buf[..31]), None);
    }

    #[test]
    fn payload_check_rejects_a_wrong_sequence_length_or_fill() {
        let mut buf = vec![fill_byte(3); 100];
        Header {
            seq: 3,
            t_send: 0,
            len: 100,
        }
        .write(&mut buf);
        assert!(payload_ok(&buf, 3, 100));
        assert!(!payload_ok(&buf, 4, 100));
        assert!(!payload_ok(&buf[..99], 3, 100));
        *buf.last_mut().unwrap() = 0;
        assert!(!payload_ok(&buf, 3, 100));
    }

    #[test]
    fn touch_sums_every_byte_including_unaligned_ends() {
        let bytes = vec![1u8; 1001];
        let per_word = u64::from_ne_bytes([1; 8]);
        let (head, words, tail) = bytemuck::pod_align_to::<u8, u64>(&bytes[1..]);
        let expected = (head.len() + tail.len()) as u64 + words.len() as u64 * per_word;
        assert_eq!(touch(Bytes::Private(&bytes[1..])), expected);
    }
}
