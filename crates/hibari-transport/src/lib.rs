//! The contract between hibari's runtime and its transports (in-process,
//! shared memory, network), and one conformance suite all of them pass.
//!
//! This crate does no I/O and starts no threads. A [`Transport`] serves one
//! domain and creates [`Writer`]s and [`Reader`]s for an [`EndpointSpec`]
//! (topic, ROS type name and hash, [`QosProfile`]). Samples travel as a
//! [`Payload`]: an in-process value behind one `Arc` (handed over, never
//! serialized, converted from a [custom type](TypeAdapter) at most once), or
//! CDR bytes.
//!
//! # The contract
//!
//! Every transport guarantees, and the `conformance` module checks (feature
//! `conformance`):
//!
//! - **Matching.** A writer and a reader match when they are in the same
//!   domain, on the same topic, of the same type (name, and hash when both
//!   know it) and [QoS-compatible](check_compatibility). Otherwise both sides
//!   see an [`EndpointEvent::Incompatible`] saying why, and the peer in
//!   [`EndpointStatus::incompatible`]. Matched counts and
//!   [`Matched`](EndpointEvent::Matched)/[`Unmatched`](EndpointEvent::Unmatched)
//!   events follow endpoints' lifetimes, and the waker fires on each, so
//!   `wait_for_matched` is a wait on the waker.
//! - **Order.** A reader takes the samples of one writer in the order they
//!   were written; sequence numbers start at 1 and grow by one per write.
//! - **Sample info.** Every sample carries its [`SampleInfo`]: sequence,
//!   source and reception timestamps (`source <= reception` on one host),
//!   the writer's id (the same for all its samples, distinct across writers),
//!   and `lost_before`.
//! - **History.** A reader queues at most its keep-last depth, or with keep-all
//!   its [`ResourceLimits`]. A full best-effort reader drops its oldest sample
//!   and counts it in the next sample's `lost_before`: the writer never waits
//!   for it. A full reliable reader makes the writer wait (bounded) or fail
//!   ([`WhenFull`]); a failed write reaches no reader and hands the payload back.
//! - **Durability.** A transient-local reader that matches a transient-local
//!   writer first gets the writer's last `depth` samples, oldest first; a
//!   volatile reader gets everything written after its writer matched it.
//!   Shared memory and in-process start it exactly there; over a network
//!   (DDS) samples still in flight as it is created may reach it too, in
//!   order, as DDS allows (v1.4 2.2.3.4).
//! - **Lifespan.** A sample older than its writer's lifespan is never taken.
//! - **Waking.** [`Reader::take`] never blocks. A reader's waker
//!   ([`Notify`], set with [`Endpoint::set_notify`]) fires when its queue goes
//!   from empty to non-empty and when an event is queued, with no transport
//!   lock held, so one executor thread can wait on many readers, and a waker
//!   may itself write or take.
//! - **Isolation.** Different topics and different domains never exchange
//!   samples; endpoints may come and go while others write, without stalls.
//!
//! # Use
//!
//! ```
//! use hibari_transport::{EndpointSpec, Payload, QosProfile, ReaderOptions, Transport, WriterOptions};
//! # #[derive(Clone, Debug, Default, PartialEq)] struct Chatter { data: u32 }
//! # impl hibari_cdr::Message for Chatter {
//! #   const TYPE_NAME: &'static str = "my_msgs/msg/Chatter"; const TYPE_HASH: &'static str = "";
//! #   const DEFINITION: &'static str = "uint32 data\n";
//! #   fn encode_fields<S: hibari_cdr::CdrSink>(&self, w: &mut hibari_cdr::CdrWriter<S>) -> Result<(), hibari_cdr::CdrEncodeError> { w.write(self.data) }
//! #   fn decode_fields_into(&mut self, r: &mut hibari_cdr::CdrReader<'_>) -> Result<(), hibari_cdr::CdrDecodeError> { self.data = r.read()?; Ok(()) }
//! # }
//!
//! fn hello(transport: &dyn Transport) -> Result<(), Box<dyn std::error::Error>> {
//!     let spec = EndpointSpec::new::<Chatter>("/chatter", QosProfile::default());
//!     let reader = transport.create_reader(&spec, &ReaderOptions::default())?;
//!     let writer = transport.create_writer(&spec, &WriterOptions::default())?;
//!     writer.write(Payload::from_message(Chatter { data: 7 }))?;
//!     if let Some(sample) = reader.take() {
//!         let chatter = sample.payload.into_owned::<Chatter>()?; // moved, not copied
//!         println!("{} (#{}, {:?})", chatter.data, sample.info.sequence, sample.info.latency());
//!     }
//!     Ok(())
//! }
//! ```
#![warn(missing_docs)]
// `unsafe` here: only the declarations of two `unsafe fn`s whose callers (a
// transport's own code) promise what soundness rests on — `WriterLoan::new`
// (the lent bytes are the lender's under that ticket; see the `loan`
// module) and `CdrBytes::from_slot` (the caller hands over a counted
// reference on a shared-memory slot); no `unsafe` block.
#![deny(unsafe_code)]

mod cdr_bytes;
mod compat;
mod contract;
mod fanout;
mod foreign;
mod graph;
mod loan;
mod payload;
mod qos;
mod rmw;
mod sample;

#[cfg(feature = "conformance")]
pub mod conformance;

pub use cdr_bytes::{CdrBytes, SharedBuffer, SharedSlots};
pub use compat::{check_compatibility, QosIncompatibility, QosMismatch, QosPolicyKind};
pub use contract::{
    DomainId, Endpoint, EndpointCreateError, EndpointEvent, EndpointSpec, EndpointStatus,
    Incompatibility, Notify, Reader, ReaderOptions, ResourceLimits, Sample, Transport, WhenFull,
    WriteError, Writer, WriterOptions,
};
pub use fanout::Fanout;
pub use foreign::ForeignMessage;
pub use graph::{EndpointKind, GraphEndpoint, GraphSnapshot, GraphToken, NodeInfo};
pub use loan::{LentSendError, Ticket, WriterLoan, WriterLoanSendError, TICKET_BITS};
pub use payload::{LocalSample, Payload, PayloadError, Shared, TypeAdapter};
pub use qos::{Durability, History, Liveliness, QosProfile, Reliability};
pub use rmw::{RmwQosProfile, RmwTime, RMW_DURATION_INFINITE};
pub use sample::{now_ns, EndpointId, PublisherId, SampleInfo};
