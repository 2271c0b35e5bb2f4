//! A DDS writer: hibari's CDR bytes to RustDDS's DataWriter, with the
//! source timestamp from hibari's clock and, on service topics, the related
//! sample identity (see [`crate::service`]).
//!
//! A reliable writer whose send window is full (a reliable reader has not
//! acknowledged) waits up to its `WhenFull` timeout (DDS's
//! `max_blocking_time`), then fails with the payload back; a failed write
//! consumes no sequence number.
//!
//! A volatile writer that has matched no DDS reader drops a write before
//! encoding it: nothing could receive the sample (a reader matched later
//! gets only what is written after it matched), and in a Context that
//! publishes to every transport, a local value must not pay a CDR encoding
//! for DDS when no DDS peer listens. Delivery is guaranteed to the readers
//! this writer has matched (its `matched_count`). A transient-local writer
//! always encodes: it keeps its last samples for readers that join later.

use std::sync::Arc;
use std::time::Duration;

use hibari_cdr::CdrEncodeError;
use hibari_transport::{
    now_ns, Durability, Endpoint, EndpointEvent, EndpointId, EndpointSpec, EndpointStatus, Notify,
    Payload, WhenFull, WriteError, Writer,
};
use rustdds::bytes::Bytes;
use rustdds::dds::result::WriteError as DdsWriteError;
use rustdds::no_key::DataWriter;
use rustdds::{WriteOptionsBuilder, GUID};

use super::state::EndpointCore;
use crate::participant::{lock, Shared};
use crate::service::{self, WriterRole, REPLY_MATCH_WAIT};
use crate::wire::raw::{is_plain_cdr, RawAdapter, RawCdr};
use crate::wire::time::timestamp_from_ns;

/// A hibari writer over DDS.
pub struct DdsWriter {
    pub(crate) shared: Arc<Shared>,
    pub(crate) core: Arc<EndpointCore>,
    pub(crate) dds: DataWriter<RawCdr, RawAdapter>,
    pub(crate) when_full: WhenFull,
    pub(crate) role: WriterRole,
}

impl Drop for DdsWriter {
    fn drop(&mut self) {
        lock(&self.shared.locals).remove(&self.core.guid);
        self.shared.graph.changed();
    }
}

/// The bytes of a payload as RustDDS takes them (no copy of private bytes).
fn raw_bytes(payload: &Payload) -> Result<Bytes, WriteError> {
    let cdr = payload.clone().into_cdr_bytes()?;
    Ok(match cdr.as_private() {
        Some(_) => Bytes::from_owner(PrivateCdr(cdr)),
        None => Bytes::from(cdr.to_vec()),
    })
}

struct PrivateCdr(hibari_transport::CdrBytes);

impl AsRef<[u8]> for PrivateCdr {
    fn as_ref(&self) -> &[u8] {
        self.0.as_private().unwrap_or(&[])
    }
}

impl DdsWriter {
    fn timeout(&self) -> Duration {
        match self.when_full {
            WhenFull::Block { timeout } => timeout,
            WhenFull::Fail => Duration::ZERO,
        }
    }

    /// Whether a write can reach nobody, now or later: volatile, nothing
    /// matched. (A reply writer first waits for its client; see
    /// [`wait_for_match`](Self::wait_for_match).)
    fn reaches_nobody(&self) -> bool {
        !matches!(self.role, WriterRole::Reply)
            && self.core.spec.qos.durability == Durability::Volatile
            && self.core.matched_count() == 0
    }

    /// Waits (bounded) until `reader` matched this writer, as rmw_fastrtps
    /// does before a reply to a client whose reply reader it has not seen;
    /// whether it did (`false` for a GUID that is not a reader's).
    fn wait_for_match(&self, reader: GUID) -> bool {
        reader.entity_id.kind().is_reader() && self.core.wait_matched(reader, REPLY_MATCH_WAIT)
    }
}

impl Endpoint for DdsWriter {
    fn id(&self) -> EndpointId {
        self.core.id
    }
    fn spec(&self) -> &EndpointSpec {
        &self.core.spec
    }
    fn matched_count(&self) -> usize {
        self.core.matched_count()
    }
    fn status(&self) -> EndpointStatus {
        self.core.status()
    }
    fn take_event(&self) -> Option<EndpointEvent> {
        self.core.take_event()
    }
    fn set_notify(&self, notify: Option<Arc<dyn Notify>>) {
        let has = notify.is_some();
        if self.core.set_notify(notify) && has {
            self.core.wake();
        }
    }
}

impl Writer for DdsWriter {
    /// RustDDS's `wait_for_acknowledgments`: every matched reliable reader
    /// has acknowledged through the last sequence number written.
    fn wait_for_all_acked(&self, timeout: Duration) -> bool {
        // RustDDS adds the wait to `Instant::now()`: a year stands for "ever".
        let timeout = timeout.min(Duration::from_secs(365 * 86_400));
        self.dds.wait_for_acknowledgments(timeout).unwrap_or(false)
    }

    fn write(&self, payload: Payload) -> Result<(), WriteError> {
        if self.reaches_nobody() {
            return Ok(());
        }
        let mut bytes = raw_bytes(&payload)?;
        let mut options = WriteOptionsBuilder::new().source_timestamp(timestamp_from_ns(now_ns()));
        match &self.role {
            WriterRole::Plain => {}
            WriterRole::Request(pair) => {
                options = options
                    .related_sample_identity(service::request_identity(pair, self.core.guid));
            }
            WriterRole::Reply => match service::split_reply(&bytes) {
                Some((identity, body)) => {
                    if self.wait_for_match(identity.writer_guid) {
                        // To the client's reply reader only: the other
                        // matched readers get a GAP for this sequence number.
                        options = options.to_single_reader(identity.writer_guid);
                    }
                    options = options.related_sample_identity(identity);
                    bytes = Bytes::from(body);
                }
                None => {
                    // Shorter than a header and hibari's 24-byte envelope.
                    return Err(WriteError::Encode(CdrEncodeError::BufferTooSmall {
                        needed: service::ENVELOPE_LEN + 4,
                        capacity: bytes.len(),
                    }));
                }
            },
        }
        if !is_plain_cdr(&bytes) {
            // Not CDR at all (a header shorter than 4 bytes or of another
            // encoding): nothing a DDS reader could decode.
            return Err(WriteError::Encode(CdrEncodeError::BufferTooSmall {
                needed: 4,
                capacity: bytes.len(),
            }));
        }
        match self.dds.write_with_options(RawCdr(bytes), options.build()) {
            Ok(_) => Ok(()),
            Err(DdsWriteError::WouldBlock { .. }) => Err(match self.when_full {
                WhenFull::Fail => WriteError::Full { payload },
                WhenFull::Block { .. } => WriteError::Timeout {
                    payload,
                    timeout: self.timeout(),
                },
            }),
            Err(_) => Err(WriteError::Timeout {
                payload,
                timeout: self.timeout(),
            }),
        }
    }
}
