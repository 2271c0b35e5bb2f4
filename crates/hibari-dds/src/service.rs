//! Services the way rmw_fastrtps carries them, translated at this edge.
//!
//! hibari (every transport) and rmw_fastrtps identify a request differently:
//!
//! - **hibari**: a request is the plain request message; the server learns
//!   the client from the sample's `publisher_id` and the request number from
//!   its `sequence`. A reply is a 24-byte envelope (16-byte client id, `u64`
//!   sequence) followed by the response's fields.
//! - **rmw_fastrtps** (`rmw_request.cpp`, `rmw_response.cpp`, `rmw_client.cpp`):
//!   no header in the payload. A request's DATA carries the inline QoS
//!   `PID_RELATED_SAMPLE_IDENTITY` = (the client's *reply reader* GUID,
//!   sequence unknown); its request number is the RTPS sequence number of
//!   that DATA. The reply carries related sample identity = (that GUID, that
//!   sequence number). Every client reads every reply and keeps those whose
//!   related GUID is its own reply reader. A server whose reply writer has
//!   not yet matched that reader waits for the match (bounded) before it
//!   replies.
//!
//! So this transport:
//!
//! - on a **request writer** (`rq/…`), sends the related sample identity
//!   (the GUID of the reply reader created with it on the same node and
//!   service — hibari creates both for one client — or its own GUID before
//!   that reader exists);
//! - on a **request reader**, reports the related GUID's 16 bytes as the
//!   sample's `publisher_id` (the writer's GUID when a vendor sends none),
//!   and the RTPS sequence number as `sequence`;
//! - on a **reply writer** (`rr/…`), strips the envelope and sends its
//!   (client, sequence) as the related sample identity, after waiting up to
//!   [`REPLY_MATCH_WAIT`] for that client's reply reader to match, and sends
//!   the reply to that reader only (RustDDS's `to_single_reader`: the other
//!   matched reply readers get a GAP for its sequence number). rmw_fastrtps
//!   servers send every reply to every client, and its clients drop other
//!   clients' replies only after taking them from a reader that keeps the
//!   last `depth` (10 by default): a client slower than the replies to the
//!   others lost its own to that history (one of two concurrent rclpy clients
//!   stalled in about half the runs before replies were addressed);
//! - on a **reply reader**, keeps only replies whose related GUID is itself
//!   (or its client's request writer) and rebuilds the envelope with its
//!   client's id, which is what the hibari client filters on; a reply reader
//!   that belongs to no client (a recorder) gets every reply that reaches it
//!   (all of an rmw_fastrtps server's, none a hibari server addressed to
//!   another reader), addressed to the related GUID.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use hibari_transport::{CdrBytes, EndpointId};
use rustdds::{SampleIdentity, SequenceNumber, GUID};

use crate::participant::lock;
use crate::wire::raw::{RawCdr, HEADER_LEN};

/// How long a reply waits for the client's reply reader to match.
pub const REPLY_MATCH_WAIT: Duration = Duration::from_millis(100);

/// The length of hibari's reply envelope.
pub const ENVELOPE_LEN: usize = 24;

/// A client's two endpoints: its request writer's id, its reply reader's GUID.
#[derive(Default)]
pub(crate) struct ClientPair {
    pub writer: Option<(EndpointId, GUID)>,
    pub reader: Option<GUID>,
}

pub(crate) type Pair = Arc<Mutex<ClientPair>>;

/// How a reader rewrites what it receives.
pub(crate) enum ReaderRole {
    Plain,
    Request,
    Reply(Pair),
}

/// How a writer rewrites what it sends.
pub(crate) enum WriterRole {
    Plain,
    Request(Pair),
    Reply,
}

/// Whether a DDS topic is a service's request (`rq/`) or reply (`rr/`) topic.
pub(crate) fn is_request(dds_topic: &str) -> bool {
    dds_topic.starts_with("rq/")
}

pub(crate) fn is_reply(dds_topic: &str) -> bool {
    dds_topic.starts_with("rr/")
}

impl ReaderRole {
    /// A received sample as hibari sees it: its CDR bytes and publisher id;
    /// `None` to drop it (a reply for another client).
    pub fn incoming(
        &self,
        raw: RawCdr,
        writer_id: EndpointId,
        writer: GUID,
        related: Option<SampleIdentity>,
    ) -> Option<(CdrBytes, EndpointId)> {
        let bytes = raw.0;
        match self {
            ReaderRole::Plain => Some((cdr_bytes(bytes), writer_id)),
            ReaderRole::Request => {
                let client = related.map_or(writer, |r| r.writer_guid);
                Some((cdr_bytes(bytes), EndpointId(client.to_bytes())))
            }
            ReaderRole::Reply(pair) => {
                let related = related?;
                if bytes.len() < HEADER_LEN {
                    return None;
                }
                let p = lock(pair);
                // A client's reader keeps its own replies; a reply reader
                // without a request writer (a recorder, a bridge) sees every
                // reply, addressed to the related GUID.
                let client_id = match p.writer {
                    Some((id, writer)) => {
                        let ours =
                            Some(related.writer_guid) == p.reader || related.writer_guid == writer;
                        if !ours {
                            return None;
                        }
                        id
                    }
                    None => EndpointId(related.writer_guid.to_bytes()),
                };
                let seq: i64 = related.sequence_number.into();
                let mut out = Vec::with_capacity(bytes.len() + ENVELOPE_LEN);
                out.extend_from_slice(&bytes[..HEADER_LEN]);
                let big_endian = bytes[1] == 0;
                out.extend_from_slice(&client_id.0);
                let seq = seq.max(0) as u64;
                out.extend_from_slice(&if big_endian {
                    seq.to_be_bytes()
                } else {
                    seq.to_le_bytes()
                });
                out.extend_from_slice(&bytes[HEADER_LEN..]);
                Some((CdrBytes::from(out), writer_id))
            }
        }
    }
}

fn cdr_bytes(b: rustdds::bytes::Bytes) -> CdrBytes {
    CdrBytes::new(Arc::new(b))
}

/// A reply's envelope split off: the related sample identity it stands for
/// and the CDR bytes of the bare response (header kept).
pub(crate) fn split_reply(cdr: &[u8]) -> Option<(SampleIdentity, Vec<u8>)> {
    if cdr.len() < HEADER_LEN + ENVELOPE_LEN {
        return None;
    }
    let env = &cdr[HEADER_LEN..HEADER_LEN + ENVELOPE_LEN];
    let mut guid = [0u8; 16];
    guid.copy_from_slice(&env[..16]);
    let mut seq = [0u8; 8];
    seq.copy_from_slice(&env[16..]);
    let seq = if cdr[1] == 0 {
        u64::from_be_bytes(seq)
    } else {
        u64::from_le_bytes(seq)
    };
    let mut body = Vec::with_capacity(cdr.len() - ENVELOPE_LEN);
    body.extend_from_slice(&cdr[..HEADER_LEN]);
    body.extend_from_slice(&cdr[HEADER_LEN + ENVELOPE_LEN..]);
    let identity = SampleIdentity {
        writer_guid: GUID::from_bytes(guid),
        sequence_number: SequenceNumber::from(i64::try_from(seq).unwrap_or(i64::MAX)),
    };
    Some((identity, body))
}

/// The related sample identity a request carries: the client's reply
/// reader (sequence unknown, as rmw_fastrtps sends it).
pub(crate) fn request_identity(pair: &Pair, own: GUID) -> SampleIdentity {
    let reader = lock(pair).reader.unwrap_or(own);
    SampleIdentity {
        writer_guid: reader,
        sequence_number: SequenceNumber::from(-1i64 << 32),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_envelope_splits_into_identity_and_bare_response_and_back() {
        let client = EndpointId([9; 16]);
        let mut cdr = vec![0, 1, 0, 0];
        cdr.extend_from_slice(&client.0);
        cdr.extend_from_slice(&42u64.to_le_bytes());
        cdr.extend_from_slice(&[1, 0, 0, 0]);
        let (id, body) = split_reply(&cdr).unwrap();
        assert_eq!(id.writer_guid.to_bytes(), client.0);
        assert_eq!(i64::from(id.sequence_number), 42);
        assert_eq!(body, [0, 1, 0, 0, 1, 0, 0, 0]);
        assert!(split_reply(&cdr[..27]).is_none());

        let reader = GUID::from_bytes([3; 16]);
        let pair: Pair = Arc::new(Mutex::new(ClientPair {
            writer: Some((client, GUID::from_bytes([4; 16]))),
            reader: Some(reader),
        }));
        let role = ReaderRole::Reply(pair);
        let related = SampleIdentity {
            writer_guid: reader,
            sequence_number: SequenceNumber::from(42),
        };
        let raw = RawCdr(rustdds::bytes::Bytes::from(body.clone()));
        let (back, _) = role
            .incoming(raw.clone(), client, reader, Some(related))
            .unwrap();
        assert_eq!(back.to_vec(), cdr);
        let other = SampleIdentity {
            writer_guid: GUID::from_bytes([5; 16]),
            ..related
        };
        assert!(role
            .incoming(raw.clone(), client, reader, Some(other))
            .is_none());
        // A reply reader of no client sees every reply.
        let recorder = ReaderRole::Reply(Arc::default());
        let (seen, _) = recorder.incoming(raw, client, reader, Some(other)).unwrap();
        assert_eq!(seen.to_vec()[4..20], [5; 16]);
    }

    /// A reply goes on the wire to the reader it is addressed to only (the
    /// others get a GAP for its sequence number): two reply readers of no
    /// client, which keep whatever reaches them, each get exactly the replies
    /// addressed to them, in order. (rmw_fastrtps clients filter only after
    /// taking, so replies to other clients would fill their keep-last
    /// history and evict their own.)
    #[test]
    fn a_reply_reaches_only_the_reply_reader_it_is_addressed_to() {
        use std::time::Instant;

        use hibari_transport::conformance::Probe;
        use hibari_transport::{
            EndpointSpec, NodeInfo, Payload, QosProfile, ReaderOptions, Transport, WriterOptions,
        };

        use crate::{DdsOptions, DdsTransport};

        let domain = hibari_testkit::TestDomain::reserve();
        let open = || {
            DdsTransport::open(domain.id(), DdsOptions::default().same_host_peers(true)).unwrap()
        };
        // A participant per reader: RustDDS's DataReaders of one participant
        // share what it receives.
        let (one, two, server) = (open(), open(), open());
        let service = hibari_testkit::unique_topic("directed").replace('/', "_");
        let reply = EndpointSpec::new::<Probe>(
            format!("rr/{service}Reply"),
            QosProfile::services_default(),
        );
        let reader = |on: &DdsTransport, node: &str| {
            let options = ReaderOptions::default().node(NodeInfo::new("/", node));
            on.create_reader(&reply, &options).unwrap()
        };
        let readers = [reader(&one, "one"), reader(&two, "two")];
        let writer = server
            .create_writer(
                &reply,
                &WriterOptions::default().node(NodeInfo::new("/", "s")),
            )
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        let wait = |what: &str, done: &dyn Fn() -> bool| {
            while !done() {
                assert!(Instant::now() < deadline, "timed out: {what}");
                std::thread::sleep(Duration::from_millis(5));
            }
        };
        wait("the writer matching both readers", &|| {
            writer.matched_count() == 2
        });
        wait("both readers matching the writer", &|| {
            readers.iter().all(|r| r.matched_count() == 1)
        });
        // Replies 1..=5 addressed to one, two, one, two, one (as the runtime
        // writes them: envelope of client id and sequence, then the response).
        let body = hibari_cdr::Message::to_cdr(&Probe::new(1, 42)).unwrap();
        for seq in 1..=5u64 {
            let to = &readers[usize::from(seq % 2 == 0)];
            let mut cdr = body[..4].to_vec();
            cdr.extend_from_slice(&to.id().0);
            cdr.extend_from_slice(&seq.to_le_bytes());
            cdr.extend_from_slice(&body[4..]);
            writer.write(Payload::Serialized(cdr.into())).unwrap();
        }
        for (r, expected) in readers.iter().zip([vec![1, 3, 5], vec![2, 4]]) {
            let mut got: Vec<u64> = Vec::new();
            while got.len() < expected.len() {
                assert!(
                    Instant::now() < deadline,
                    "timed out: got {got:?} of {expected:?}"
                );
                match r.take() {
                    Some(s) => {
                        let b = s.payload.cdr().unwrap().to_vec();
                        assert_eq!(b[4..20], r.id().0, "a reply addressed to another reader");
                        got.push(u64::from_le_bytes(b[20..28].try_into().unwrap()));
                    }
                    None => std::thread::sleep(Duration::from_millis(5)),
                }
            }
            assert_eq!(got, expected);
        }
    }
}
