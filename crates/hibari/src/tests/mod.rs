//! Tests of the runtime through its public API, in one process.

mod bells;
mod events;
mod executor;
mod groups;
mod multi;
mod pubsub;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use hibari_cdr::{CdrDecodeError, CdrEncodeError, CdrReader, CdrSink, CdrWriter};

use crate::{Context, Message};

/// A context of its own (no other test sees its topics).
pub(crate) fn isolated() -> Context {
    Context::builder().isolated().create().unwrap()
}

/// A message that counts its clones (every clone of one original shares the
/// counter).
#[derive(Debug, Default)]
pub(crate) struct Counted {
    pub n: u64,
    pub body: Vec<u8>,
    pub clones: Arc<AtomicUsize>,
}

impl Counted {
    pub fn new(n: u64, clones: &Arc<AtomicUsize>) -> Self {
        Counted {
            n,
            body: vec![0; 256],
            clones: clones.clone(),
        }
    }
}

impl Clone for Counted {
    fn clone(&self) -> Self {
        self.clones.fetch_add(1, Ordering::SeqCst);
        Counted {
            n: self.n,
            body: self.body.clone(),
            clones: self.clones.clone(),
        }
    }
}

impl PartialEq for Counted {
    fn eq(&self, other: &Self) -> bool {
        self.n == other.n && self.body == other.body
    }
}

impl Message for Counted {
    const TYPE_NAME: &'static str = "hibari_test/msg/Counted";
    const TYPE_HASH: &'static str = "";
    const DEFINITION: &'static str = "uint64 n\nuint8[] body\n";
    fn encode_fields<S: CdrSink>(&self, w: &mut CdrWriter<S>) -> Result<(), CdrEncodeError> {
        w.write(self.n)?;
        w.write_prim_seq("body", &self.body, None)
    }
    fn decode_fields_into(&mut self, r: &mut CdrReader<'_>) -> Result<(), CdrDecodeError> {
        self.n = r.read()?;
        r.read_prim_vec_into(&mut self.body)
    }
}
