//! hibari's DDS-RTPS transport: hibari nodes as first-class citizens of a
//! ROS 2 system (rmw_fastrtps, and any RTPS vendor), and hibari across hosts,
//! on the RustDDS engine (vendored in `vendor/rustdds`, patched upstream-style).
//!
//! # What reaches whom
//!
//! A [`DdsTransport`] is one DDS participant in one ROS domain (`ROS_DOMAIN_ID`,
//! 0..=232). Its writers and readers match every compatible endpoint of that
//! domain that discovery finds: ROS 2 nodes on this host and others, and
//! hibari processes on other hosts. Two kinds of peers are left out on purpose:
//!
//! - **hibari processes on this host** (same boot and network namespace). They
//!   talk over shared memory; DDS would deliver every sample twice. Each hibari
//!   participant announces `hibari=<boot id>/<netns inode>;` in its participant
//!   USER_DATA and ignores participants with its own tag (no matching, no
//!   traffic) unless [`DdsOptions::same_host_peers`] is set. A network namespace
//!   counts as another host: shared-memory discovery (abstract sockets) does not
//!   cross it. ROS 2 nodes carry no tag and are always used.
//! - **its own endpoints**: within a process the in-process transport delivers,
//!   so a participant's writers never match its own readers, unless
//!   [`DdsOptions::loopback`] is set (the conformance suite).
//!
//! # On the wire, as rmw_fastrtps does it
//!
//! - Topic `/a/b` is DDS topic `rt/a/b`; service topics `rq/<svc>Request` and
//!   `rr/<svc>Reply` go out as hibari names them; type `pkg/msg/Name` is
//!   `pkg::msg::dds_::Name_`; topics are keyless; data is XCDR1.
//! - hibari's CDR bytes (encapsulation header included) are the payload: no
//!   second serializer. Received bytes are handed up as CDR bytes and decoded
//!   by hibari's bounds-checked decoders.
//! - QoS maps one to one (reliability, durability, history/depth, deadline,
//!   lifespan, liveliness and lease). Endpoint USER_DATA carries
//!   `typehash=RIHS01_…;` (and, between hibari peers, `history=<depth>;` and the
//!   endpoint id hibari chose, `hibariid=<hex>;`); participant USER_DATA
//!   carries `enclave=/;`.
//! - Each sample's [`SampleInfo`](hibari_transport::SampleInfo): `sequence` is
//!   the RTPS sequence number, `source_timestamp_ns` the DATA's source
//!   timestamp, `publisher_id` the writer's 16-byte GUID (or its `hibariid`).
//! - The graph: own endpoints, every SEDP-discovered endpoint of a ROS topic,
//!   and nodes from `ros_discovery_info`, which this participant also
//!   publishes (reliable, transient local, keep last 1) so that rclpy's
//!   `get_node_names_and_namespaces()` lists hibari's nodes.
//! - Services carry the client in `PID_RELATED_SAMPLE_IDENTITY` as rmw_fastrtps
//!   does; this edge translates to and from hibari's 24-byte reply envelope
//!   (see the `service` module's documentation in the source).
//!
//! # Waking
//!
//! One thread per participant sleeps in `poll(2)` on RustDDS's notifications
//! (participant status events and each reader's data) and moves what arrived
//! into the readers' queues, then calls their wakers. Nothing polls while idle.
//!
//! # Where DDS differs from hibari's other transports
//!
//! - A reliable DDS reader never makes the writer wait because *its* queue is
//!   full (a keep-last reader overwrites, acknowledging anyway); a writer
//!   waits only for unacknowledged samples in its own send window
//!   ([`WhenFull`](hibari_transport::WhenFull) bounds that wait).
//! - Matching is seen by each side on its own schedule: a best-effort reader
//!   drops samples that arrive before it has matched the writer.
//!
//! ```no_run
//! use hibari_dds::{DdsOptions, DdsTransport};
//! use hibari_transport::{EndpointSpec, Payload, QosProfile, Transport, WriterOptions};
//! # #[derive(Clone, Debug, Default, PartialEq)] struct Chatter { data: u32 }
//! # impl hibari_cdr::Message for Chatter {
//! #   const TYPE_NAME: &'static str = "my_msgs/msg/Chatter"; const TYPE_HASH: &'static str = "";
//! #   const DEFINITION: &'static str = "uint32 data\n";
//! #   fn encode_fields<S: hibari_cdr::CdrSink>(&self, w: &mut hibari_cdr::CdrWriter<S>) -> Result<(), hibari_cdr::CdrEncodeError> { w.write(self.data) }
//! #   fn decode_fields_into(&mut self, r: &mut hibari_cdr::CdrReader<'_>) -> Result<(), hibari_cdr::CdrDecodeError> { self.data = r.read()?; Ok(()) }
//! # }
//! let dds = DdsTransport::open(0, DdsOptions::from_env()?)?;
//! let spec = EndpointSpec::new::<Chatter>("/chatter", QosProfile::default());
//! let writer = dds.create_writer(&spec, &WriterOptions::default())?;
//! writer.write(Payload::from_message(Chatter { data: 7 }))?; // an rclpy node on `chatter` gets it
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]

mod endpoint;
mod graph;
mod options;
mod participant;
mod service;
mod wire;

pub use options::{DdsOpenError, DdsOptions, DiscoveryRange, DEFAULT_SEND_RATE, MAX_DOMAIN};
pub use participant::DdsTransport;
