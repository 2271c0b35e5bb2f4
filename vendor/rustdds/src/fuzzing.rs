//! Entry points for fuzzing (feature `fuzzing`; not a stable API, hidden
//! from the docs): what a datagram from the network goes through before a
//! reader's cache sees it, without sockets or a participant.
//!
//! [`rtps_datagram`] parses one datagram as the message receiver does
//! (header, then every submessage), decodes the payload of every DATA as
//! each discovery type (SPDP participant, SEDP reader, writer and topic; the
//! receiver would pick one by the writer's entity id) and feeds every
//! DATA_FRAG to one fragment assembler per fragment size, bounded to
//! `max_reassembly_bytes`, the participant's reassembly limit.

use bytes::Bytes;

use crate::{
  dds::ddsdata::DDSData,
  discovery::{
    DiscoveredReaderData, DiscoveredTopicData, DiscoveredWriterData, SpdpDiscoveredParticipantData,
  },
  messages::submessages::submessages::WriterSubmessage,
  rtps::{fragment_assembler::FragmentAssembler, Message, SubmessageBody},
  serialization::{pl_cdr_adapters::PlCdrDeserialize, RepresentationIdentifier},
};

/// What one datagram gave.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Parsed {
  /// The datagram parsed as an RTPS message.
  pub message: bool,
  /// Submessages in it.
  pub submessages: usize,
  /// Discovery payloads that decoded as one of the discovery types.
  pub discovery: usize,
  /// Samples a fragment assembler completed.
  pub reassembled: usize,
}

/// Runs `bytes` through parsing and reassembly (see the module docs).
pub fn rtps_datagram(bytes: &[u8], max_reassembly_bytes: usize) -> Parsed {
  let mut out = Parsed::default();
  let Ok(message) = Message::read_from_buffer(&Bytes::copy_from_slice(bytes)) else {
    return out;
  };
  out.message = true;
  out.submessages = message.submessages.len();
  let mut assemblers: Vec<(u16, FragmentAssembler)> = Vec::new();
  for sub in message.submessages {
    match sub.body {
      SubmessageBody::Writer(WriterSubmessage::Data(data, _flags)) => {
        if let Some(payload) = data.serialized_payload {
          out.discovery += usize::from(discovery(&payload));
        }
      }
      SubmessageBody::Writer(WriterSubmessage::DataFrag(frag, flags)) => {
        let size = frag.fragment_size;
        let i = match assemblers.iter().position(|(s, _)| *s == size) {
          Some(i) => i,
          None => {
            let a = FragmentAssembler::new(size, true).with_max_bytes(max_reassembly_bytes);
            assemblers.push((size, a));
            assemblers.len() - 1
          }
        };
        if let Some(done) = assemblers[i].1.new_datafrag(&frag, flags) {
          out.reassembled += 1;
          if let DDSData::Data {
            serialized_payload: p,
          } = &done
          {
            out.discovery += usize::from(decode_all(&p.value, p.representation_identifier));
          }
        }
      }
      _ => {}
    }
  }
  out
}

/// Decodes an encapsulated payload as every discovery type; true if one did.
fn discovery(payload: &[u8]) -> bool {
  let Some((head, body)) = payload.split_first_chunk::<4>() else {
    return false;
  };
  match RepresentationIdentifier::from_bytes(&head[..2]) {
    Ok(rep) => decode_all(body, rep),
    Err(_) => false,
  }
}

fn decode_all(body: &[u8], rep: RepresentationIdentifier) -> bool {
  let a = SpdpDiscoveredParticipantData::from_pl_cdr_bytes(body, rep).is_ok();
  let b = DiscoveredReaderData::from_pl_cdr_bytes(body, rep).is_ok();
  let c = DiscoveredWriterData::from_pl_cdr_bytes(body, rep).is_ok();
  let d = DiscoveredTopicData::from_pl_cdr_bytes(body, rep).is_ok();
  a || b || c || d
}
