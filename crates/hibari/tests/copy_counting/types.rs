//! The types the copy-counting tests send: a ROS message `Frame` and an
//! application type `Pixels` adapted to it, both counting their clones, and
//! the adapter counting its conversions.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use hibari::cdr::{CdrReader, CdrSink, CdrWriter};
use hibari::{CdrDecodeError, CdrEncodeError, Message, TypeAdapter};

#[derive(Debug, Default)]
pub struct Counters {
    /// Clones of the ROS message `Frame`.
    pub frame_clones: AtomicUsize,
    /// Clones of the custom type `Pixels`.
    pub pixel_clones: AtomicUsize,
    /// `Pixels` → `Frame` conversions.
    pub to_ros: AtomicUsize,
}

pub fn count(c: &AtomicUsize) -> usize {
    c.load(Ordering::SeqCst)
}

/// `hibari_test/msg/Frame`: a sequence number and a buffer.
#[derive(Debug, Default)]
pub struct Frame {
    pub n: u64,
    pub data: Vec<u8>,
    pub counters: Arc<Counters>,
}

impl Frame {
    pub fn new(n: u64, counters: &Arc<Counters>) -> Self {
        Frame {
            n,
            data: vec![n as u8; 1024],
            counters: counters.clone(),
        }
    }
}

impl Clone for Frame {
    fn clone(&self) -> Self {
        self.counters.frame_clones.fetch_add(1, Ordering::SeqCst);
        Frame {
            n: self.n,
            data: self.data.clone(),
            counters: self.counters.clone(),
        }
    }
}

impl PartialEq for Frame {
    fn eq(&self, other: &Self) -> bool {
        (self.n, &self.data) == (other.n, &other.data)
    }
}

impl Message for Frame {
    const TYPE_NAME: &'static str = "hibari_test/msg/Frame";
    const TYPE_HASH: &'static str =
        "RIHS01_0000000000000000000000000000000000000000000000000000000000000f4a";
    const DEFINITION: &'static str = "uint64 n\nuint8[] data\n";
    fn encode_fields<S: CdrSink>(&self, w: &mut CdrWriter<S>) -> Result<(), CdrEncodeError> {
        w.write(self.n)?;
        w.write_prim_seq("data", &self.data, None)
    }
    fn decode_fields_into(&mut self, r: &mut CdrReader<'_>) -> Result<(), CdrDecodeError> {
        self.n = r.read()?;
        r.read_prim_vec_into(&mut self.data)
    }
}

/// The application's own type for a `Frame`.
#[derive(Debug)]
pub struct Pixels {
    pub n: u64,
    pub buffer: Vec<u8>,
    pub counters: Arc<Counters>,
}

impl Clone for Pixels {
    fn clone(&self) -> Self {
        self.counters.pixel_clones.fetch_add(1, Ordering::SeqCst);
        Pixels {
            n: self.n,
            buffer: self.buffer.clone(),
            counters: self.counters.clone(),
        }
    }
}

pub struct PixelsAsFrame;

impl TypeAdapter for PixelsAsFrame {
    type Custom = Pixels;
    type Ros = Frame;
    fn to_ros(p: &Pixels) -> Frame {
        p.counters.to_ros.fetch_add(1, Ordering::SeqCst);
        Frame {
            n: p.n,
            data: p.buffer.clone(),
            counters: p.counters.clone(),
        }
    }
    fn into_ros(p: Pixels) -> Frame {
        p.counters.to_ros.fetch_add(1, Ordering::SeqCst);
        Frame {
            n: p.n,
            data: p.buffer,
            counters: p.counters,
        }
    }
    fn from_ros(f: &Frame) -> Pixels {
        Pixels {
            n: f.n,
            buffer: f.data.clone(),
            counters: f.counters.clone(),
        }
    }
}
