//! The wire form of services: topic names, and the envelope a reply travels in.
//!
//! A service `/add` is two topics, named as ROS 2's rmw names them:
//! requests on `rq/addRequest` (type `pkg/srv/Add_Request`) and replies on
//! `rr/addReply` (type `pkg/srv/Add_Response`). A request is the plain request
//! message; the client that sent it and its place in that client's stream are
//! the sample's [`SampleInfo`](crate::SampleInfo) (`publisher_id` is the
//! client's request writer, `sequence` its request number).
//!
//! Every client of a service reads the one reply topic, so a reply says whom
//! it answers. It travels in an envelope whose CDR form is the 16-byte client
//! id, the request's sequence number (`uint64`) and then the response's own
//! fields — 24 bytes ahead of the body, a multiple of 8, so the body is laid
//! out exactly as the response alone would be. The envelope keeps the
//! response's type name, hash and definition, so the reply topic has the
//! response's type as in ROS 2.
//!
//! In one process a reply is not serialized: the envelope is handed over as a
//! [`ReplyCell`], from which the addressed client moves the response out
//! (no copy, however many clients read the topic); the others only look at
//! the address and drop the sample. Were the sample serialized after that (a
//! recorder on another transport), it would carry a default response: only
//! the addressee ever reads it.

use std::sync::Mutex;

use hibari_cdr::{CdrDecodeError, CdrEncodeError, CdrReader, CdrSink, CdrWriter};
use hibari_transport::{CdrBytes, EndpointId, Payload, PayloadError, TypeAdapter};

use crate::context::lock;
use crate::Message;

/// The request topic of the fully qualified service name `service`.
pub(crate) fn request_topic(service: &str) -> String {
    format!("rq/{}Request", service.trim_start_matches('/'))
}

/// The reply topic of the fully qualified service name `service`.
pub(crate) fn reply_topic(service: &str) -> String {
    format!("rr/{}Reply", service.trim_start_matches('/'))
}

/// Which request a reply answers: the client's request writer and the
/// request's sequence number in it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct RequestId {
    pub client: EndpointId,
    pub sequence: u64,
}

/// A reply as a ROS message (what crosses a process boundary).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ReplyEnvelope<R> {
    pub id: RequestId,
    pub response: R,
}

impl<R: Message> Message for ReplyEnvelope<R> {
    const TYPE_NAME: &'static str = R::TYPE_NAME;
    const TYPE_HASH: &'static str = R::TYPE_HASH;
    const DEFINITION: &'static str = R::DEFINITION;

    fn encode_fields<S: CdrSink>(&self, w: &mut CdrWriter<S>) -> Result<(), CdrEncodeError> {
        w.write_prim_slice(&self.id.client.0)?;
        w.write(self.id.sequence)?;
        w.nested(|w| self.response.encode_fields(w))
    }

    fn decode_fields_into(&mut self, r: &mut CdrReader<'_>) -> Result<(), CdrDecodeError> {
        self.id = read_id(r)?;
        self.response.decode_fields_into(r)
    }
}

fn read_id(r: &mut CdrReader<'_>) -> Result<RequestId, CdrDecodeError> {
    let client = EndpointId(r.read_prim_array::<u8, 16>()?);
    let sequence = r.read()?;
    Ok(RequestId { client, sequence })
}

/// A reply as handed over in one process: the response moves out of it to
/// the addressed client, whoever else still holds the sample.
pub(crate) struct ReplyCell<R> {
    id: RequestId,
    response: Mutex<Option<R>>,
}

impl<R> ReplyCell<R> {
    pub fn new(id: RequestId, response: R) -> Self {
        ReplyCell {
            id,
            response: Mutex::new(Some(response)),
        }
    }
}

/// Publishes [`ReplyCell`]s as [`ReplyEnvelope`]s.
pub(crate) struct ReplyAdapter<R>(std::marker::PhantomData<fn() -> R>);

impl<R: Message> TypeAdapter for ReplyAdapter<R> {
    type Custom = ReplyCell<R>;
    type Ros = ReplyEnvelope<R>;

    fn to_ros(cell: &ReplyCell<R>) -> ReplyEnvelope<R> {
        ReplyEnvelope {
            id: cell.id,
            response: lock(&cell.response).clone().unwrap_or_default(),
        }
    }

    fn from_ros(envelope: &ReplyEnvelope<R>) -> ReplyCell<R> {
        ReplyCell::new(envelope.id, envelope.response.clone())
    }

    fn into_ros(cell: ReplyCell<R>) -> ReplyEnvelope<R> {
        let response = cell
            .response
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        ReplyEnvelope {
            id: cell.id,
            response: response.unwrap_or_default(),
        }
    }

    fn from_ros_owned(envelope: ReplyEnvelope<R>) -> ReplyCell<R> {
        ReplyCell::new(envelope.id, envelope.response)
    }
}

/// What a client makes of one sample of the reply topic.
pub(crate) enum Opened<R> {
    /// A reply to the client's request `sequence`: the response, or why it
    /// cannot be read.
    Reply {
        sequence: u64,
        response: Result<R, PayloadError>,
    },
    /// A reply to another client (or one already taken): dropped.
    NotForUs,
    /// A sample whose address cannot be read.
    Unreadable,
}

/// Opens a reply sample for the client whose request writer is `client`:
/// only the address is read unless the reply is the client's.
pub(crate) fn open<R: Message>(payload: Payload, client: EndpointId) -> Opened<R> {
    match payload {
        Payload::Local(sample) => {
            if let Some(cell) = sample.value_any().downcast_ref::<ReplyCell<R>>() {
                if cell.id.client != client {
                    return Opened::NotForUs;
                }
                return match lock(&cell.response).take() {
                    Some(response) => Opened::Reply {
                        sequence: cell.id.sequence,
                        response: Ok(response),
                    },
                    None => Opened::NotForUs,
                };
            }
            // Not a cell: an envelope published as a plain message.
            match Payload::Local(sample).into_owned::<ReplyEnvelope<R>>() {
                Ok(envelope) if envelope.id.client == client => Opened::Reply {
                    sequence: envelope.id.sequence,
                    response: Ok(envelope.response),
                },
                Ok(_) => Opened::NotForUs,
                Err(_) => Opened::Unreadable,
            }
        }
        Payload::Serialized(bytes) => {
            let Ok(id) = CdrReader::new(&bytes).and_then(|mut r| read_id(&mut r)) else {
                return Opened::Unreadable;
            };
            if id.client != client {
                return Opened::NotForUs;
            }
            let response = ReplyEnvelope::<R>::from_cdr(&bytes)
                .map(|envelope| envelope.response)
                .map_err(|source| PayloadError::Decode {
                    type_name: R::TYPE_NAME,
                    source,
                });
            Opened::Reply {
                sequence: id.sequence,
                response,
            }
        }
    }
}

/// Opens a reply sample as CDR bytes for the generic client `client`: the
/// response's bytes as the response alone would be laid out (the envelope's
/// encapsulation header and the fields after its 24-byte address). A local
/// reply is encoded once first, shared by every generic client.
pub(crate) fn open_bytes(payload: Payload, client: EndpointId) -> Opened<CdrBytes> {
    let Ok(bytes) = payload.into_cdr_bytes() else {
        return Opened::Unreadable;
    };
    let Ok(id) = CdrReader::new(&bytes).and_then(|mut r| read_id(&mut r)) else {
        return Opened::Unreadable;
    };
    if id.client != client {
        return Opened::NotForUs;
    }
    // The address was read, so the header (4) and the address (24) are
    // there. Copied piecewise: the bytes may be shared memory.
    let all = bytes.bytes();
    let mut response = vec![0; all.len() - 24];
    let (head, fields) = response.split_at_mut(4);
    if let (Some(h), Some(f)) = (all.slice(0, 4), all.slice(28, fields.len())) {
        h.copy_to_slice(head);
        f.copy_to_slice(fields);
    }
    Opened::Reply {
        sequence: id.sequence,
        response: Ok(response.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msg::std_msgs::msg::String as RosString;

    #[test]
    fn service_topics_follow_the_rmw_naming() {
        assert_eq!(request_topic("/ns/add"), "rq/ns/addRequest");
        assert_eq!(reply_topic("/add"), "rr/addReply");
    }

    #[test]
    fn the_envelope_is_the_address_then_the_response_laid_out_as_alone() {
        let client = EndpointId(core::array::from_fn(|i| i as u8));
        let response = RosString { data: "hi".into() };
        let envelope = ReplyEnvelope {
            id: RequestId {
                client,
                sequence: 7,
            },
            response: response.clone(),
        };
        let bytes = envelope.to_cdr().unwrap();
        let alone = response.to_cdr().unwrap();
        assert_eq!(&bytes[..4], &alone[..4], "header");
        assert_eq!(&bytes[4..20], client.as_bytes());
        assert_eq!(&bytes[20..28], &7u64.to_le_bytes());
        assert_eq!(&bytes[28..], &alone[4..], "body");
        assert_eq!(
            ReplyEnvelope::<RosString>::from_cdr(&bytes).unwrap(),
            envelope
        );
    }

    #[test]
    fn a_serialized_reply_opens_only_for_its_client() {
        let me = EndpointId::random();
        let envelope = ReplyEnvelope {
            id: RequestId {
                client: me,
                sequence: 3,
            },
            response: RosString { data: "x".into() },
        };
        let bytes = Payload::Serialized(envelope.to_cdr().unwrap().into());
        assert!(matches!(
            open::<RosString>(bytes.clone(), EndpointId::random()),
            Opened::NotForUs
        ));
        match open::<RosString>(bytes, me) {
            Opened::Reply {
                sequence: 3,
                response: Ok(r),
            } => assert_eq!(r.data, "x"),
            _ => panic!("the reply is ours"),
        }
        let garbage = Payload::Serialized(vec![0, 1, 0, 0, 1].into());
        assert!(matches!(open::<RosString>(garbage, me), Opened::Unreadable));
    }

    #[test]
    fn a_local_reply_moves_to_its_client_even_when_others_hold_it() {
        let me = EndpointId::random();
        let body = "payload".to_string();
        let address = body.as_ptr();
        let cell = ReplyCell::new(
            RequestId {
                client: me,
                sequence: 1,
            },
            RosString { data: body },
        );
        let payload = Payload::from_value::<ReplyAdapter<RosString>>(cell);
        let other = payload.clone();
        assert!(matches!(
            open::<RosString>(other.clone(), EndpointId::random()),
            Opened::NotForUs
        ));
        match open::<RosString>(payload, me) {
            Opened::Reply {
                response: Ok(r), ..
            } => assert_eq!(r.data.as_ptr(), address, "moved, not copied"),
            _ => panic!("the reply is ours"),
        }
        assert!(matches!(open::<RosString>(other, me), Opened::NotForUs));
    }
}
