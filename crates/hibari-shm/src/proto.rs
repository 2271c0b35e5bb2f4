//! The control messages participants exchange, and their encoding.
//!
//! One message per `SOCK_SEQPACKET` packet: a tag byte, then the fields in
//! little-endian, strings as a `u32` length and UTF-8 bytes. Descriptors
//! travel beside it (`SCM_RIGHTS`), their number fixed per message. A
//! message that does not decode exactly — unknown tag, short, trailing
//! bytes, wrong descriptor count, bad UTF-8 — is a protocol error and the
//! connection is dropped; decoding never panics.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use hibari_transport::{EndpointId, EndpointSpec, NodeInfo};
use thiserror::Error;

use crate::codec::{Dec, Enc};

/// Bumped on any incompatible change; peers of another version are refused.
pub(crate) const VERSION: u32 = 2;

/// A control message.
#[derive(Debug)]
pub(crate) enum Msg {
    /// First message on a connection.
    Hello { participant: [u8; 16], version: u32 },
    /// A node of the sender.
    Node { key: u64, node: NodeInfo },
    /// A node of the sender went away.
    NodeGone { key: u64 },
    /// A writer of the sender.
    Writer {
        id: EndpointId,
        spec: EndpointSpec,
        node: Option<NodeInfo>,
    },
    /// A reader of the sender, the ring capacity it wants, and (keep-all)
    /// the most bytes a writer may have queued for it.
    Reader {
        id: EndpointId,
        spec: EndpointSpec,
        node: Option<NodeInfo>,
        capacity: u32,
        max_bytes: u64,
    },
    /// An endpoint of the sender went away.
    Gone { id: EndpointId },
    /// Writer → reader: a ring for this pair (writer region, segment socket,
    /// the writer's room eventfd).
    Connect {
        writer: EndpointId,
        reader: EndpointId,
        capacity: u32,
        fds: [OwnedFd; 3],
    },
    /// Reader → writer: accepted (reader region, wake eventfd).
    Accept {
        writer: EndpointId,
        reader: EndpointId,
        release_capacity: u32,
        fds: [OwnedFd; 2],
    },
    /// Reader → writer: not accepted (the reader is gone or the offer bad).
    Refuse {
        writer: EndpointId,
        reader: EndpointId,
    },
    /// Writer → reader: the ring is live.
    Ready {
        writer: EndpointId,
        reader: EndpointId,
    },
    /// Reader → writer: the reader side of the ring is gone and every sample
    /// it held released; reclaim the rest.
    Closed {
        writer: EndpointId,
        reader: EndpointId,
    },
    /// Reader → writer: wake the reader through this eventfd from now on.
    Wake {
        writer: EndpointId,
        reader: EndpointId,
        fd: OwnedFd,
    },
}

/// Why a message did not decode.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("malformed control message: {0}")]
pub(crate) struct ProtoError(pub &'static str);

impl Msg {
    /// The bytes and the descriptors to send.
    pub fn encode(&self) -> (Vec<u8>, Vec<BorrowedFd<'_>>) {
        let mut e = Enc(Vec::with_capacity(128));
        let fds: Vec<BorrowedFd<'_>> = match self {
            Msg::Hello {
                participant,
                version,
            } => {
                e.u8(1);
                e.0.extend_from_slice(participant);
                e.u32(*version);
                vec![]
            }
            Msg::Node { key, node } => {
                e.u8(2);
                e.u64(*key);
                e.node(node);
                vec![]
            }
            Msg::NodeGone { key } => {
                e.u8(3);
                e.u64(*key);
                vec![]
            }
            Msg::Writer { id, spec, node } => {
                e.u8(4);
                e.id(id);
                e.spec(spec);
                e.opt_node(node);
                vec![]
            }
            Msg::Reader {
                id,
                spec,
                node,
                capacity,
                max_bytes,
            } => {
                e.u8(5);
                e.id(id);
                e.spec(spec);
                e.opt_node(node);
                e.u32(*capacity);
                e.u64(*max_bytes);
                vec![]
            }
            Msg::Gone { id } => {
                e.u8(6);
                e.id(id);
                vec![]
            }
            Msg::Connect {
                writer,
                reader,
                capacity,
                fds,
            } => {
                e.u8(7);
                e.pair(writer, reader);
                e.u32(*capacity);
                fds.iter().map(|f| f.as_fd()).collect()
            }
            Msg::Accept {
                writer,
                reader,
                release_capacity,
                fds,
            } => {
                e.u8(8);
                e.pair(writer, reader);
                e.u32(*release_capacity);
                fds.iter().map(|f| f.as_fd()).collect()
            }
            Msg::Refuse { writer, reader } => {
                e.u8(9);
                e.pair(writer, reader);
                vec![]
            }
            Msg::Ready { writer, reader } => {
                e.u8(10);
                e.pair(writer, reader);
                vec![]
            }
            Msg::Closed { writer, reader } => {
                e.u8(11);
                e.pair(writer, reader);
                vec![]
            }
            Msg::Wake { writer, reader, fd } => {
                e.u8(12);
                e.pair(writer, reader);
                vec![fd.as_fd()]
            }
        };
        (e.0, fds)
    }

    /// Decodes one message and takes its descriptors.
    pub fn decode(bytes: &[u8], fds: Vec<OwnedFd>) -> Result<Msg, ProtoError> {
        let mut d = Dec(bytes);
        let tag = d.u8()?;
        let mut fds = Fds(fds);
        let msg = match tag {
            1 => Msg::Hello {
                participant: d.array()?,
                version: d.u32()?,
            },
            2 => Msg::Node {
                key: d.u64()?,
                node: d.node()?,
            },
            3 => Msg::NodeGone { key: d.u64()? },
            4 => Msg::Writer {
                id: d.id()?,
                spec: d.spec()?,
                node: d.opt_node()?,
            },
            5 => Msg::Reader {
                id: d.id()?,
                spec: d.spec()?,
                node: d.opt_node()?,
                capacity: d.u32()?,
                max_bytes: d.u64()?,
            },
            6 => Msg::Gone { id: d.id()? },
            7 => {
                let (writer, reader) = d.pair()?;
                Msg::Connect {
                    writer,
                    reader,
                    capacity: d.u32()?,
                    fds: fds.take()?,
                }
            }
            8 => {
                let (writer, reader) = d.pair()?;
                Msg::Accept {
                    writer,
                    reader,
                    release_capacity: d.u32()?,
                    fds: fds.take()?,
                }
            }
            9..=11 => {
                let (writer, reader) = d.pair()?;
                match tag {
                    9 => Msg::Refuse { writer, reader },
                    10 => Msg::Ready { writer, reader },
                    _ => Msg::Closed { writer, reader },
                }
            }
            12 => {
                let (writer, reader) = d.pair()?;
                let [fd] = fds.take()?;
                Msg::Wake { writer, reader, fd }
            }
            _ => return Err(ProtoError("unknown message")),
        };
        if !d.0.is_empty() {
            return Err(ProtoError("trailing bytes"));
        }
        if !fds.0.is_empty() {
            return Err(ProtoError("unexpected descriptors"));
        }
        Ok(msg)
    }
}

struct Fds(Vec<OwnedFd>);

impl Fds {
    fn take<const N: usize>(&mut self) -> Result<[OwnedFd; N], ProtoError> {
        let all = std::mem::take(&mut self.0);
        all.try_into()
            .map_err(|_| ProtoError("wrong number of descriptors"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hibari_transport::{Liveliness, QosProfile};
    use std::time::Duration;

    fn spec() -> EndpointSpec {
        EndpointSpec {
            topic: "/a/b".into(),
            type_name: "p/msg/T".into(),
            type_hash: "RIHS01_00".into(),
            qos: QosProfile::rosout()
                .best_effort()
                .keep_all()
                .deadline(Duration::from_millis(7))
                .liveliness(Liveliness::ManualByTopic),
        }
    }

    fn roundtrip(m: Msg) -> Msg {
        let (bytes, fds) = m.encode();
        let owned = fds
            .iter()
            .map(|f| f.try_clone_to_owned().unwrap())
            .collect();
        Msg::decode(&bytes, owned).unwrap()
    }

    #[test]
    fn announcements_round_trip() {
        let id = EndpointId([3; 16]);
        let node = Some(NodeInfo::new("/ns", "n"));
        match roundtrip(Msg::Reader {
            id,
            spec: spec(),
            node: node.clone(),
            capacity: 9,
            max_bytes: 1 << 20,
        }) {
            Msg::Reader {
                id: i,
                spec: s,
                node: n,
                capacity,
                max_bytes,
            } => {
                assert_eq!(
                    (i, s, n, capacity, max_bytes),
                    (id, spec(), node, 9, 1 << 20)
                );
            }
            other => panic!("{other:?}"),
        }
        match roundtrip(Msg::Hello {
            participant: [9; 16],
            version: VERSION,
        }) {
            Msg::Hello {
                participant,
                version,
            } => assert_eq!((participant, version), ([9; 16], VERSION)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn descriptors_are_counted() {
        let fd = || crate::sys::new_eventfd().unwrap();
        let (w, r) = (EndpointId([1; 16]), EndpointId([2; 16]));
        let m = Msg::Accept {
            writer: w,
            reader: r,
            release_capacity: 5,
            fds: [fd(), fd()],
        };
        assert!(matches!(
            roundtrip(m),
            Msg::Accept {
                release_capacity: 5,
                ..
            }
        ));
        let (bytes, _) = Msg::Ready {
            writer: w,
            reader: r,
        }
        .encode();
        assert!(Msg::decode(&bytes, vec![fd()]).is_err(), "an unexpected fd");
        let (bytes, _) = Msg::Wake {
            writer: w,
            reader: r,
            fd: fd(),
        }
        .encode();
        assert!(Msg::decode(&bytes, vec![]).is_err(), "a missing fd");
    }

    #[test]
    fn every_truncation_and_garbage_is_an_error_not_a_panic() {
        let (bytes, _) = Msg::Writer {
            id: EndpointId([5; 16]),
            spec: spec(),
            node: None,
        }
        .encode();
        for n in 0..bytes.len() {
            assert!(Msg::decode(&bytes[..n], vec![]).is_err(), "prefix {n}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(Msg::decode(&longer, vec![]).is_err());
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = (x % 96) as usize;
            let junk: Vec<u8> = (0..len)
                .map(|i| (x >> (i % 8 * 8)) as u8 ^ i as u8)
                .collect();
            let _ = Msg::decode(&junk, vec![]);
            let mut flipped = bytes.clone();
            let at = (x as usize) % flipped.len();
            flipped[at] ^= (x >> 32) as u8 | 1;
            let _ = Msg::decode(&flipped, vec![]);
        }
    }
}
