//! The byte encoding of control messages: little-endian integers, strings
//! as a `u32` length and UTF-8, QoS field by field. Decoding checks every
//! length against the bytes left before using it, so a malformed message is
//! an error, never a panic or a large allocation.

use std::time::Duration;

use hibari_transport::{
    Durability, EndpointId, EndpointSpec, History, Liveliness, NodeInfo, QosProfile, Reliability,
};

use crate::proto::ProtoError;

pub(crate) struct Enc(pub Vec<u8>);

impl Enc {
    pub fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    pub fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub fn str(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.0.extend_from_slice(s.as_bytes());
    }
    pub fn id(&mut self, id: &EndpointId) {
        self.0.extend_from_slice(&id.0);
    }
    pub fn pair(&mut self, a: &EndpointId, b: &EndpointId) {
        self.id(a);
        self.id(b);
    }
    pub fn node(&mut self, n: &NodeInfo) {
        self.str(&n.namespace);
        self.str(&n.name);
    }
    pub fn opt_node(&mut self, n: &Option<NodeInfo>) {
        match n {
            None => self.u8(0),
            Some(n) => {
                self.u8(1);
                self.node(n);
            }
        }
    }
    pub fn dur(&mut self, d: Option<Duration>) {
        match d {
            None => self.u8(0),
            Some(d) => {
                self.u8(1);
                self.u64(d.as_secs());
                self.u32(d.subsec_nanos());
            }
        }
    }
    pub fn spec(&mut self, s: &EndpointSpec) {
        self.str(&s.topic);
        self.str(&s.type_name);
        self.str(&s.type_hash);
        let q = &s.qos;
        self.u8(matches!(q.reliability, Reliability::Reliable) as u8);
        match q.history {
            History::KeepLast(n) => {
                self.u8(0);
                self.u64(n as u64);
            }
            History::KeepAll => self.u8(1),
        }
        self.u8(matches!(q.durability, Durability::TransientLocal) as u8);
        self.dur(q.deadline);
        self.dur(q.lifespan);
        self.u8(matches!(q.liveliness, Liveliness::ManualByTopic) as u8);
        self.dur(q.liveliness_lease);
    }
}

pub(crate) struct Dec<'a>(pub &'a [u8]);

impl<'a> Dec<'a> {
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], ProtoError> {
        if self.0.len() < n {
            return Err(ProtoError("too short"));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], ProtoError> {
        Ok(self.bytes(N)?.try_into().expect("N bytes"))
    }
    pub fn u8(&mut self) -> Result<u8, ProtoError> {
        Ok(self.bytes(1)?[0])
    }
    pub fn bool(&mut self) -> Result<bool, ProtoError> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(ProtoError("bad flag")),
        }
    }
    pub fn u32(&mut self) -> Result<u32, ProtoError> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    pub fn u64(&mut self) -> Result<u64, ProtoError> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    pub fn str(&mut self) -> Result<String, ProtoError> {
        let n = self.u32()? as usize;
        let b = self.bytes(n)?;
        String::from_utf8(b.to_vec()).map_err(|_| ProtoError("bad UTF-8"))
    }
    pub fn id(&mut self) -> Result<EndpointId, ProtoError> {
        Ok(EndpointId(self.array()?))
    }
    pub fn pair(&mut self) -> Result<(EndpointId, EndpointId), ProtoError> {
        Ok((self.id()?, self.id()?))
    }
    pub fn node(&mut self) -> Result<NodeInfo, ProtoError> {
        Ok(NodeInfo::new(self.str()?, self.str()?))
    }
    pub fn opt_node(&mut self) -> Result<Option<NodeInfo>, ProtoError> {
        Ok(if self.bool()? {
            Some(self.node()?)
        } else {
            None
        })
    }
    pub fn dur(&mut self) -> Result<Option<Duration>, ProtoError> {
        if !self.bool()? {
            return Ok(None);
        }
        let (secs, nanos) = (self.u64()?, self.u32()?);
        if nanos >= 1_000_000_000 {
            return Err(ProtoError("bad duration"));
        }
        Ok(Some(Duration::new(secs, nanos)))
    }
    pub fn spec(&mut self) -> Result<EndpointSpec, ProtoError> {
        let (topic, type_name, type_hash) = (self.str()?, self.str()?, self.str()?);
        let mut qos = QosProfile::default();
        qos.reliability = if self.bool()? {
            Reliability::Reliable
        } else {
            Reliability::BestEffort
        };
        qos.history = if self.bool()? {
            History::KeepAll
        } else {
            History::KeepLast(usize::try_from(self.u64()?).map_err(|_| ProtoError("depth"))?)
        };
        qos.durability = if self.bool()? {
            Durability::TransientLocal
        } else {
            Durability::Volatile
        };
        qos.deadline = self.dur()?;
        qos.lifespan = self.dur()?;
        qos.liveliness = if self.bool()? {
            Liveliness::ManualByTopic
        } else {
            Liveliness::Automatic
        };
        qos.liveliness_lease = self.dur()?;
        Ok(EndpointSpec {
            topic,
            type_name,
            type_hash,
            qos,
        })
    }
}
