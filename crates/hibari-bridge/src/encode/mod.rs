//! Outgoing encodings of one received sample, each made at most once.
//!
//! A sample reaching many clients is queued for each of them as one shared
//! [`Sample`]. Each encoding a client asked for — rosbridge JSON, CBOR,
//! cbor-raw, PNG — is made on first need, by the first client writer that
//! needs it, and then shared by every client wanting it (the frames are
//! reference-counted). The sample is decoded (CDR → value) for each
//! encoding made, and the decoded value is not kept: kept, it would double
//! what a sample queued for a slow client holds. Foxglove
//! clients get the CDR bytes untouched behind a 13-byte header carrying
//! their own subscription id.
//!
//! A sample keeps its own copy of the CDR bytes, made once when it arrives
//! (one copy per topic, not per client). The buffer hibari hands over may
//! be much more than those bytes: an in-process sample keeps the sender's
//! typed message alive beside its encoding, and a shared-memory sample is
//! a loan of the writer's memory. Queued for a stalled client, either would
//! cost the bridge more than its queues are charged for, or hold the
//! writer's memory; the copy makes what a queue is charged what it holds.

pub(crate) mod cbor;
pub(crate) mod png;

use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use hibari::dynamic::{self, Value};
use hibari::interfaces::{Registry, TypeName};
use tokio_tungstenite::tungstenite::Utf8Bytes;

use crate::outbox::Frame;

/// How a client wants a topic's messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Encoding {
    /// rosbridge JSON (`compression: "none"`).
    Json,
    /// rosbridge CBOR (`"cbor"`).
    Cbor,
    /// rosbridge CBOR around the raw CDR (`"cbor-raw"`).
    CborRaw,
    /// rosbridge PNG (`"png"`).
    Png,
    /// Foxglove Message Data for the client's subscription id.
    Foxglove(u32),
}

impl Encoding {
    /// rosbridge's priority when one client's subscriptions to a topic ask
    /// for different compressions: cbor-raw > cbor > png > none.
    pub fn rank(self) -> u8 {
        match self {
            Encoding::Json => 0,
            Encoding::Png => 1,
            Encoding::Cbor => 2,
            Encoding::CborRaw => 3,
            Encoding::Foxglove(_) => 4,
        }
    }

    /// Parses a rosbridge `compression` value.
    pub fn from_compression(c: &str) -> Option<Encoding> {
        match c {
            "none" | "" => Some(Encoding::Json),
            "cbor" => Some(Encoding::Cbor),
            "cbor-raw" => Some(Encoding::CborRaw),
            "png" => Some(Encoding::Png),
            _ => None,
        }
    }
}

/// `{"op":"publish","topic":T,"msg":…}` as text.
pub(crate) fn publish_json(topic: &str, msg: &serde_json::Value) -> String {
    let mut out = Vec::with_capacity(64 + topic.len());
    out.extend_from_slice(br#"{"op":"publish","topic":"#);
    // Writing JSON into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut out, topic);
    out.extend_from_slice(br#","msg":"#);
    let _ = serde_json::to_writer(&mut out, msg);
    out.push(b'}');
    String::from_utf8(out).unwrap_or_default()
}

/// One received sample and the encodings made of it so far, shared by
/// every client queue it is in.
///
/// Nothing is encoded when the sample arrives: the first client writer that
/// needs an encoding makes it, and every later one reuses it. A client
/// whose queue drops the sample unsent (a stalled client) costs no
/// encoding at all.
pub(crate) struct Sample {
    topic: Arc<str>,
    ty: Option<Arc<TypeName>>,
    registry: Arc<Registry>,
    cdr: Bytes,
    received_ns: i64,
    json: OnceLock<Option<Utf8Bytes>>,
    cbor: OnceLock<Option<Bytes>>,
    raw: OnceLock<Bytes>,
    png: OnceLock<Option<Utf8Bytes>>,
}

impl Sample {
    /// A sample of `topic` holding `cdr`, a copy of the received bytes (see
    /// the [module](self)).
    pub fn new(
        topic: Arc<str>,
        ty: Option<Arc<TypeName>>,
        registry: Arc<Registry>,
        cdr: Vec<u8>,
        received_ns: i64,
    ) -> Self {
        Sample {
            topic,
            ty,
            registry,
            cdr: Bytes::from(cdr),
            received_ns,
            json: OnceLock::new(),
            cbor: OnceLock::new(),
            raw: OnceLock::new(),
            png: OnceLock::new(),
        }
    }

    /// The CDR size: what a queued sample is charged before it is encoded.
    pub fn len(&self) -> usize {
        self.cdr.len()
    }

    /// The decoded message, or `None` when the type is unknown or the bytes
    /// do not decode.
    fn value(&self) -> Option<Value> {
        dynamic::decode(&*self.registry, self.ty.as_deref()?, &self.cdr[..]).ok()
    }

    fn json_for(&self, topic: &str) -> Option<Utf8Bytes> {
        let ty = self.ty.as_deref()?;
        let msg = dynamic::to_json(&*self.registry, ty, &self.value()?);
        Some(publish_json(topic, &msg).into())
    }

    fn json_text(&self) -> Option<&Utf8Bytes> {
        self.json
            .get_or_init(|| self.json_for(&self.topic))
            .as_ref()
    }

    /// The frame for `encoding`, or `None` when this sample cannot be had
    /// that way (an unknown type for JSON, CBOR and PNG). With an `alias`
    /// (the topic as one client spelled it), the frame is made for that
    /// client alone.
    pub fn frame(&self, encoding: Encoding, alias: Option<&str>) -> Option<Frame> {
        if let Some(topic) = alias {
            return match encoding {
                Encoding::Json => self.json_for(topic).map(Frame::Text),
                Encoding::Png => {
                    let json = self.json_for(topic)?;
                    Some(Frame::Text(png::png_message(json.as_bytes()).into()))
                }
                Encoding::Cbor => Some(Frame::Binary(cbor::publish(topic, &self.value()?).into())),
                Encoding::CborRaw => Some(Frame::Binary(
                    cbor::publish_raw(topic, &self.cdr, self.received_ns).into(),
                )),
                Encoding::Foxglove(_) => self.frame(encoding, None),
            };
        }
        match encoding {
            Encoding::Json => self.json_text().cloned().map(Frame::Text),
            Encoding::Png => self
                .png
                .get_or_init(|| {
                    let json = self.json_text()?;
                    Some(png::png_message(json.as_bytes()).into())
                })
                .clone()
                .map(Frame::Text),
            Encoding::Cbor => self
                .cbor
                .get_or_init(|| Some(cbor::publish(&self.topic, &self.value()?).into()))
                .clone()
                .map(Frame::Binary),
            Encoding::CborRaw => Some(Frame::Binary(
                self.raw
                    .get_or_init(|| {
                        cbor::publish_raw(&self.topic, &self.cdr, self.received_ns).into()
                    })
                    .clone(),
            )),
            Encoding::Foxglove(subscription) => {
                let mut out = Vec::with_capacity(13 + self.cdr.len());
                out.push(0x01);
                out.extend_from_slice(&subscription.to_le_bytes());
                out.extend_from_slice(&(self.received_ns.max(0) as u64).to_le_bytes());
                out.extend_from_slice(&self.cdr);
                Some(Frame::Binary(out.into()))
            }
        }
    }
}
