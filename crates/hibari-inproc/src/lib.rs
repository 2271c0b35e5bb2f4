//! hibari's in-process transport: writers and readers in one process, the
//! sample handed over, never serialized, never copied.
//!
//! # How a sample travels
//!
//! A publish wraps the value in one `Arc` ([`Payload::from_value`]); that is
//! the only allocation. The writer pushes the `Arc` into each matched
//! reader's bounded queue — clones of it, except that the last reader gets
//! the original — and wakes readers whose queue was empty. A reader takes it
//! and either borrows it ([`Payload::into_shared`]: no copy, however many
//! readers) or owns it ([`Payload::into_owned`]: a move when it holds the last
//! reference, which is always the case with a single reader and a volatile
//! writer; a clone only while others still hold it). A transient-local writer
//! keeps a reference for late joiners, so its readers share.
//!
//! With a [`TypeAdapter`](hibari_transport::TypeAdapter), the custom value
//! travels as is; readers of the ROS type share one conversion, made on first
//! use.
//!
//! # Domains and locks
//!
//! [`InprocTransport::open`] joins the process-wide domain of that id; every
//! transport opened with the same id sees the same topics. Topic tables are
//! locked only while endpoints come and go. A write locks its own writer (to
//! keep its samples in order when threads share it) and each reader's queue
//! briefly; it never holds a lock while it calls a waker, so wakers may write
//! and take. Only a write waiting for room in a full *reliable* reader holds
//! its writer for longer, bounded by [`WhenFull`](hibari_transport::WhenFull).
//!
//! ```
//! use hibari_inproc::InprocTransport;
//! use hibari_transport::{EndpointSpec, Payload, QosProfile, ReaderOptions, Transport, WriterOptions};
//! # #[derive(Clone, Debug, Default, PartialEq)] struct Frame { pixels: Vec<u8> }
//! # impl hibari_cdr::Message for Frame {
//! #   const TYPE_NAME: &'static str = "my_msgs/msg/Frame"; const TYPE_HASH: &'static str = "";
//! #   const DEFINITION: &'static str = "uint8[] pixels\n";
//! #   fn encode_fields<S: hibari_cdr::CdrSink>(&self, w: &mut hibari_cdr::CdrWriter<S>) -> Result<(), hibari_cdr::CdrEncodeError> { w.write_prim_seq("pixels", &self.pixels, None) }
//! #   fn decode_fields_into(&mut self, r: &mut hibari_cdr::CdrReader<'_>) -> Result<(), hibari_cdr::CdrDecodeError> { r.read_prim_vec_into(&mut self.pixels) }
//! # }
//!
//! let transport = InprocTransport::open(0);
//! let spec = EndpointSpec::new::<Frame>("/camera/image", QosProfile::sensor_data());
//! let reader = transport.create_reader(&spec, &ReaderOptions::default())?;
//! let writer = transport.create_writer(&spec, &WriterOptions::default())?;
//!
//! let frame = Frame { pixels: vec![0; 1920 * 1080 * 3] };
//! let address = frame.pixels.as_ptr();
//! writer.write(Payload::from_message(frame))?;
//!
//! let sample = reader.take().expect("delivered synchronously");
//! let frame = sample.payload.into_owned::<Frame>()?;
//! assert_eq!(frame.pixels.as_ptr(), address); // the same buffer: moved, not copied
//! assert_eq!(sample.info.sequence, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod graph;
mod reader;
mod registry;
mod state;
mod writer;

use std::sync::Arc;

use hibari_transport::{
    DomainId, EndpointCreateError, EndpointSpec, GraphSnapshot, GraphToken, NodeInfo, Notify,
    Reader, ReaderOptions, Transport, Writer, WriterOptions,
};

pub use reader::InprocReader;
pub use writer::InprocWriter;

#[cfg(doc)]
use hibari_transport::Payload;

/// The in-process transport for one domain.
#[derive(Clone)]
pub struct InprocTransport {
    domain: Arc<registry::Domain>,
}

impl InprocTransport {
    /// Joins the process-wide domain `domain`: every transport opened with
    /// the same id in this process sees the same topics.
    pub fn open(domain: DomainId) -> Self {
        InprocTransport {
            domain: registry::Domain::shared(domain),
        }
    }

    /// A domain of its own, unreachable by [`open`](InprocTransport::open)
    /// (clone the transport to share it): for tests and embedding.
    pub fn isolated(domain: DomainId) -> Self {
        InprocTransport {
            domain: registry::Domain::private(domain),
        }
    }

    /// Creates a writer (the concrete type; [`Transport::create_writer`]
    /// boxes it).
    pub fn writer(
        &self,
        spec: &EndpointSpec,
        options: &WriterOptions,
    ) -> Result<InprocWriter, EndpointCreateError> {
        check(spec)?;
        Ok(self.domain.create_writer(spec, options))
    }

    /// Creates a reader (the concrete type).
    pub fn reader(
        &self,
        spec: &EndpointSpec,
        options: &ReaderOptions,
    ) -> Result<InprocReader, EndpointCreateError> {
        check(spec)?;
        Ok(self.domain.create_reader(spec, options))
    }
}

fn check(spec: &EndpointSpec) -> Result<(), EndpointCreateError> {
    if spec.topic.is_empty() || spec.topic.contains('\0') {
        return Err(EndpointCreateError::InvalidTopic {
            topic: spec.topic.clone(),
        });
    }
    spec.qos.validate().map_err(EndpointCreateError::InvalidQos)
}

impl Transport for InprocTransport {
    fn kind(&self) -> &'static str {
        "inproc"
    }

    fn domain_id(&self) -> DomainId {
        self.domain.id
    }

    fn create_writer(
        &self,
        spec: &EndpointSpec,
        options: &WriterOptions,
    ) -> Result<Box<dyn Writer>, EndpointCreateError> {
        Ok(Box::new(self.writer(spec, options)?))
    }

    fn create_reader(
        &self,
        spec: &EndpointSpec,
        options: &ReaderOptions,
    ) -> Result<Box<dyn Reader>, EndpointCreateError> {
        Ok(Box::new(self.reader(spec, options)?))
    }

    fn announce_node(&self, node: &NodeInfo) -> GraphToken {
        self.domain.announce_node(node)
    }

    fn graph(&self) -> GraphSnapshot {
        self.domain.graph()
    }

    fn watch_graph(&self, notify: Arc<dyn Notify>) -> GraphToken {
        self.domain.watch_graph(notify)
    }
}
