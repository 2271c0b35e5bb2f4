//! The message the checks send: who wrote it, which one it is, some bytes.

use hibari_cdr::{CdrDecodeError, CdrEncodeError, CdrReader, CdrSink, CdrWriter, Message};

/// `hibari_conformance/msg/Probe`: `uint32 tag`, `uint64 index`, `uint8[] data`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Probe {
    /// Which writer (or thread) wrote it.
    pub tag: u32,
    /// Its position in that writer's stream, from 0.
    pub index: u64,
    /// Filler.
    pub data: Vec<u8>,
}

impl Probe {
    /// A probe with 16 bytes of filler derived from `index`.
    pub fn new(tag: u32, index: u64) -> Self {
        Probe {
            tag,
            index,
            data: index.to_le_bytes().repeat(2),
        }
    }
}

impl Message for Probe {
    const TYPE_NAME: &'static str = "hibari_conformance/msg/Probe";
    const TYPE_HASH: &'static str =
        "RIHS01_00000000000000000000000000000000000000000000000000000000000000c0";
    const DEFINITION: &'static str = "uint32 tag\nuint64 index\nuint8[] data\n";

    fn encode_fields<S: CdrSink>(&self, w: &mut CdrWriter<S>) -> Result<(), CdrEncodeError> {
        w.write(self.tag)?;
        w.write(self.index)?;
        w.write_prim_seq("data", &self.data, None)
    }

    fn decode_fields_into(&mut self, r: &mut CdrReader<'_>) -> Result<(), CdrDecodeError> {
        self.tag = r.read()?;
        self.index = r.read()?;
        r.read_prim_vec_into(&mut self.data)
    }
}
