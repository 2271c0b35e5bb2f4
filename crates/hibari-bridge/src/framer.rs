//! Splitting a byte stream of concatenated JSON objects, in linear time.
//!
//! rosbridge's TCP transport (and clients that put several objects in one
//! WebSocket frame) send JSON objects back to back with no delimiter,
//! arbitrary whitespace between them, and chunk boundaries anywhere — in
//! the middle of a string, or of a multi-byte UTF-8 character. rosbridge
//! finds the objects by re-parsing the whole buffer and then every pair of
//! braces, which is quadratic (E2's hour for 100,000 messages).
//!
//! [`JsonFramer`] scans each byte once, keeping its state (depth, inside a
//! string, after a backslash) across chunks, and hands out each complete
//! top-level object as a byte slice; parsing it (and checking its UTF-8) is
//! the caller's job. JSON's structural characters are ASCII and never occur
//! inside a multi-byte UTF-8 sequence, so a split character needs no special
//! care. Bytes outside any object that are not whitespace are skipped and
//! reported once per run; an object longer than the limit is an error after
//! which the stream cannot be trusted.

use thiserror::Error;

/// A buffer grown past this (by one large object) shrinks once it holds
/// little again.
const SHRINK_ABOVE: usize = 1 << 20;

/// What the framer found wrong.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FramerError {
    /// Bytes between objects that are not whitespace (skipped up to the
    /// next `{`).
    #[error("{skipped} bytes of garbage between JSON objects were skipped")]
    Garbage {
        /// How many bytes were skipped.
        skipped: usize,
    },
    /// An object grew past the limit without closing.
    #[error("a JSON object is longer than {limit} bytes: the connection is closed")]
    TooLong {
        /// The limit.
        limit: usize,
    },
}

/// An incremental splitter of concatenated JSON objects, in linear time:
/// each byte is scanned once, with the scan's state (depth, inside a
/// string, after a backslash) kept across chunks, so chunk boundaries may
/// fall anywhere — inside a string or a multi-byte UTF-8 character too
/// (JSON's structural characters are ASCII). Each complete top-level object
/// comes out as a byte slice for the caller to parse; non-whitespace bytes
/// between objects are skipped and reported; an object longer than the
/// limit is an error that ends the stream.
///
/// ```
/// use hibari_bridge::JsonFramer;
/// let mut framer = JsonFramer::new(1 << 20);
/// framer.push(br#"{"op":"a"} {"op":"b","s":"}{"#);
/// assert_eq!(framer.next_object().unwrap().unwrap(), br#"{"op":"a"}"#);
/// assert!(framer.next_object().is_none()); // the second is not complete yet
/// framer.push(br#""}"#);
/// assert_eq!(framer.next_object().unwrap().unwrap(), br#"{"op":"b","s":"}{"}"#);
/// ```
#[derive(Debug)]
pub struct JsonFramer {
    buf: Vec<u8>,
    /// Bytes before this are consumed.
    consumed: usize,
    /// Bytes before this are scanned.
    scanned: usize,
    /// Start of the object being scanned.
    start: Option<usize>,
    depth: u32,
    in_string: bool,
    escaped: bool,
    garbage: usize,
    limit: usize,
    failed: bool,
}

impl JsonFramer {
    /// A framer refusing objects longer than `limit` bytes.
    pub fn new(limit: usize) -> Self {
        JsonFramer {
            buf: Vec::new(),
            consumed: 0,
            scanned: 0,
            start: None,
            depth: 0,
            in_string: false,
            escaped: false,
            garbage: 0,
            limit,
            failed: false,
        }
    }

    /// Appends the next chunk of the stream.
    pub fn push(&mut self, chunk: &[u8]) {
        // Drop what was consumed once it is most of the buffer: each byte is
        // moved at most a constant number of times.
        if self.consumed > 0 && self.consumed >= self.buf.len() / 2 {
            self.buf.drain(..self.consumed);
            self.scanned -= self.consumed;
            if let Some(s) = &mut self.start {
                *s -= self.consumed;
            }
            self.consumed = 0;
            // After one big object, give its room back.
            if self.buf.capacity() > SHRINK_ABOVE && self.buf.len() + chunk.len() < SHRINK_ABOVE / 4
            {
                self.buf.shrink_to(SHRINK_ABOVE / 4);
            }
        }
        self.buf.extend_from_slice(chunk);
    }

    /// Bytes held (consumed ones not yet dropped included).
    pub fn buffered(&self) -> usize {
        self.buf.len() - self.consumed
    }

    /// The next complete object, an error, or `None` until more bytes come.
    pub fn next_object(&mut self) -> Option<Result<&[u8], FramerError>> {
        if self.failed {
            return None;
        }
        let mut i = self.scanned;
        while i < self.buf.len() {
            let b = self.buf[i];
            match self.start {
                None => {
                    if b == b'{' {
                        if self.garbage > 0 {
                            let skipped = std::mem::take(&mut self.garbage);
                            self.scanned = i;
                            self.consumed = i;
                            return Some(Err(FramerError::Garbage { skipped }));
                        }
                        self.start = Some(i);
                        self.depth = 1;
                    } else if !b.is_ascii_whitespace() {
                        self.garbage += 1;
                    }
                    self.consumed = i + 1;
                    if self.start.is_some() {
                        self.consumed = i;
                    }
                }
                Some(start) => {
                    if self.in_string {
                        if self.escaped {
                            self.escaped = false;
                        } else if b == b'\\' {
                            self.escaped = true;
                        } else if b == b'"' {
                            self.in_string = false;
                        }
                    } else {
                        match b {
                            b'"' => self.in_string = true,
                            b'{' | b'[' => self.depth += 1,
                            b'}' | b']' => self.depth -= 1,
                            _ => {}
                        }
                        if self.depth == 0 {
                            self.start = None;
                            self.scanned = i + 1;
                            self.consumed = i + 1;
                            return Some(Ok(&self.buf[start..=i]));
                        }
                    }
                    if i + 1 - start > self.limit {
                        self.failed = true;
                        return Some(Err(FramerError::TooLong { limit: self.limit }));
                    }
                }
            }
            i += 1;
        }
        self.scanned = i;
        if self.start.is_none() && self.garbage > 0 {
            let skipped = std::mem::take(&mut self.garbage);
            return Some(Err(FramerError::Garbage { skipped }));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(framer: &mut JsonFramer) -> (Vec<String>, usize) {
        let mut objects = Vec::new();
        let mut garbage = 0;
        while let Some(next) = framer.next_object() {
            match next {
                Ok(b) => objects.push(String::from_utf8(b.to_vec()).unwrap()),
                Err(FramerError::Garbage { skipped }) => garbage += skipped,
                Err(e) => panic!("{e}"),
            }
        }
        (objects, garbage)
    }

    #[test]
    fn every_split_point_gives_the_same_objects() {
        let stream = "{\"op\":\"a\",\"s\":\"}{\\\"\\\\\"} \n\t{\"op\":\"b\",\"v\":[1,{\"x\":[]}],\"t\":\"héllo ✓\"}{}";
        let bytes = stream.as_bytes();
        let mut whole = JsonFramer::new(1 << 10);
        whole.push(bytes);
        let expected = all(&mut whole);
        assert_eq!(expected.0.len(), 3);
        assert_eq!(expected.1, 0);
        for cut in 0..=bytes.len() {
            let mut f = JsonFramer::new(1 << 10);
            f.push(&bytes[..cut]);
            let (mut objects, garbage) = all(&mut f);
            f.push(&bytes[cut..]);
            let (rest, more) = all(&mut f);
            objects.extend(rest);
            assert_eq!((objects, garbage + more), expected, "cut at {cut}");
        }
        let mut byte_by_byte = JsonFramer::new(1 << 10);
        let mut objects = Vec::new();
        for b in bytes {
            byte_by_byte.push(std::slice::from_ref(b));
            objects.extend(all(&mut byte_by_byte).0);
        }
        assert_eq!(objects, expected.0);
    }

    #[test]
    fn garbage_between_objects_is_skipped_and_counted() {
        let mut f = JsonFramer::new(1 << 10);
        f.push(b"xx {\"a\":1} ]] {\"b\":2} zz");
        let (objects, garbage) = all(&mut f);
        assert_eq!(objects, ["{\"a\":1}", "{\"b\":2}"]);
        assert_eq!(garbage, 6);
    }

    #[test]
    fn an_object_past_the_limit_ends_the_stream() {
        let mut f = JsonFramer::new(8);
        f.push(b"{\"a\":\"123456789\"} {\"b\":1}");
        assert_eq!(
            f.next_object(),
            Some(Err(FramerError::TooLong { limit: 8 }))
        );
        assert_eq!(f.next_object(), None);
    }

    #[test]
    fn consumed_bytes_are_released_as_the_stream_goes_on() {
        let mut f = JsonFramer::new(1 << 10);
        for _ in 0..10_000 {
            f.push(b"{\"op\":\"publish\"}");
            assert!(f.next_object().is_some());
            assert!(f.next_object().is_none());
        }
        assert!(f.buf.len() < 64, "{} bytes held", f.buf.len());
    }
}
