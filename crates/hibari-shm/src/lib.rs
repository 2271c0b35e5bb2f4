//! hibari's same-host transport: processes on one machine exchange
//! messages through shared memory, without copying them, whatever their
//! size; subscribers are woken by an event, not by polling; and any process
//! may be killed at any moment without harming the others or leaving
//! anything behind.
//!
//! # How it works
//!
//! - **Discovery** needs no daemon and no file: each participant listens on
//!   an abstract Unix socket (`hibari/<uid>/<domain>/<slot>`, freed by the
//!   kernel when the process ends) and connects to the others of its domain;
//!   endpoints are announced over these connections, and a new one is
//!   matched as soon as its announcement arrives. Only the same user is
//!   accepted (`SO_PEERCRED`); other users' participants are never found.
//! - **Data** lives in the writer's shared memory: sealed memfds, passed to
//!   readers over the sockets as read-only descriptors, so a reader can map
//!   but never modify them. A write takes a chunk (segments grow for larger
//!   messages) and encodes the message once, straight into it — or the
//!   application writes into a [`Loan`] itself. Each (writer, reader) pair
//!   has a lock-free ring of chunk descriptors; the reader's sample is a view
//!   of the chunk, returned when dropped.
//! - **Waking** is an eventfd write, only when the reader is about to sleep,
//!   straight to the executor's own eventfd when its waker has one
//!   ([`Notify::wake_fd`](hibari_transport::Notify::wake_fd)).
//! - **Crash safety** is by construction: memfds and abstract sockets are
//!   freed by the kernel with their last holder; a participant's death is its
//!   socket's end of file, upon which the others unmatch its endpoints and
//!   take back every chunk its readers held. Nothing is ever created in
//!   `/dev/shm`, `/tmp` or anywhere in a file system.
//!
//! # Read-only for readers, enforced by the kernel
//!
//! Each shared memfd is written by the participant that created it and only
//! read by the other side: a writer's chunk segments and delivery rings, a
//! reader's release rings. The owner maps it writable and then seals it
//! with `F_SEAL_FUTURE_WRITE` besides `F_SEAL_SHRINK`, `F_SEAL_GROW` and
//! `F_SEAL_SEAL` (and sets its mode to 0400). From then on nobody, the owner
//! included, can map it writable again, `write`/`pwrite` it, punch holes in
//! it, resize it or change its seals, not even through a descriptor reopened
//! read-write by path (`/proc/<pid>/fd/<n>`, `/proc/<pid>/map_files/…`,
//! which root may open whatever the mode says); a read-only mapping cannot be
//! `mprotect`ed writable. The owner's own mapping is the only writable one.
//! So a reader cannot change the samples other readers see, the writer's
//! ring or anything else of the writer's, and a writer cannot write a
//! reader's release ring. A peer's memfd is mapped only if it is sealed
//! against shrinking and as long as announced, so reading it never faults;
//! its words are read with `Relaxed` atomic loads (ordered by fences), the
//! only atomic access Rust promises works on read-only memory.
//!
//! # Trust model: what a peer can and cannot do
//!
//! Only processes of the same user connect (`SO_PEERCRED` on every
//! connection; discovery names embed the uid). Such a peer, buggy or
//! hostile, cannot write this process's memory through hibari (above), nor
//! make it fault or read outside a mapping (every segment and descriptor is
//! checked first). It *can* change its own chunk after sending it, while a
//! reader looks: so a sample's bytes are [`SharedBytes`](hibari_cdr::SharedBytes)
//! (`CdrBytes::bytes()` is `Bytes::Shared`), read only by `Relaxed` word
//! loads, never a `&[u8]`, and decoders copy each value before checking it.
//! Readers then see garbage values or decode errors, never undefined
//! behaviour, a panic or a crash. See `docs/architecture.md`, "Shared-memory
//! trust model".
//!
//! One [`ShmTransport`] is one participant: it matches the endpoints of the
//! other participants of its domain. It does not deliver to its own readers
//! (the runtime uses the in-process transport within a process) unless
//! [`ShmConfig::loopback`] is set, which makes it behave like two processes
//! in one — that is how the conformance suite runs it.
//!
//! ```no_run
//! use hibari_shm::ShmTransport;
//! use hibari_transport::{EndpointSpec, QosProfile, Reader, ReaderOptions, Writer, WriterOptions};
//! # #[derive(Clone, Debug, Default, PartialEq)] struct Frame { pixels: Vec<u8> }
//! # impl hibari_cdr::Message for Frame {
//! #   const TYPE_NAME: &'static str = "my_msgs/msg/Frame"; const TYPE_HASH: &'static str = "";
//! #   const DEFINITION: &'static str = "uint8[] pixels\n";
//! #   fn encode_fields<S: hibari_cdr::CdrSink>(&self, w: &mut hibari_cdr::CdrWriter<S>) -> Result<(), hibari_cdr::CdrEncodeError> { w.write_prim_seq("pixels", &self.pixels, None) }
//! #   fn decode_fields_into(&mut self, r: &mut hibari_cdr::CdrReader<'_>) -> Result<(), hibari_cdr::CdrDecodeError> { r.read_prim_vec_into(&mut self.pixels) }
//! # }
//! let spec = EndpointSpec::new::<Frame>("/camera/image", QosProfile::sensor_data());
//! // Process A:
//! let a = ShmTransport::open(0)?;
//! let writer = a.writer(&spec, &WriterOptions::default())?;
//! let mut loan = writer.loan(6_220_800)?; // shared memory, nothing copied
//! loan.fill(0x7f);
//! loan.send().map_err(|e| e.reason)?;
//! // Process B:
//! let b = ShmTransport::open(0)?;
//! let reader = b.reader(&spec, &ReaderOptions::default())?;
//! if let Some(sample) = reader.take() {
//!     let bytes = sample.payload.cdr()?; // the writer's memory, read-only
//!     println!("{} bytes, #{}", bytes.len(), sample.info.sequence);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Limits
//!
//! - A reader's depth applies per matched writer (each pair has its own
//!   ring). Keep-all readers are bounded by `ResourceLimits::max_samples`
//!   (at most 65 536 per writer) and, when reliable, by `max_bytes` per
//!   writer: payload bytes queued or still held count, and a writer past it
//!   waits for releases or fails as when the ring is full ([`WhenFull`](hibari_transport::WhenFull)).
//!   Best-effort keep-all readers are bounded by their ring and the
//!   writer's memory.
//! - A reader holding more than 4 096 samples of one writer beyond its ring
//!   gets no more from it until it drops some; a writer's shared memory is
//!   bounded by [`ShmConfig::max_writer_bytes`], and a keep-all writer's
//!   also by its own `ResourceLimits::max_bytes`.
//! - A reader maps at most 64 GiB of one writer's segments (each at most
//!   8 GiB): a hostile writer cannot fill its address space.
//! - Linux 5.1 or later (memfd with `F_SEAL_FUTURE_WRITE`, eventfd,
//!   abstract sockets, `SO_PEERCRED`), on 64-bit targets where Rust
//!   promises that `Relaxed` 64-bit atomic loads work on read-only memory
//!   (x86-64, AArch64 and the other 64-bit targets `core::sync::atomic`
//!   lists), as peers' memory is mapped read-only.
//!
//! # Where `unsafe` is, and why
//!
//! Shared memory is outside what safe Rust can express, so this crate uses
//! `unsafe`, each block with a `// SAFETY:` comment: `sys` (`mmap`, and
//! shared memory read as `AtomicUsize` words), `layout` (the rings' atomics
//! in a mapping), `pool` (a chunk's bytes), `writer` (a loan's `&mut [u8]`
//! into its chunk, and the transport contract's `WriterLoan::new`) and
//! `held` (the slot table that hands taken samples out without allocating,
//! and the contract's `CdrBytes::from_slot`).
//!
//! # Tests
//!
//! Besides unit tests, the transport conformance suite (`tests/conformance.rs`),
//! real processes (`tests/processes.rs`, `tests/cleanup.rs`, with the
//! `shm-peer` binary), a reader process attacking the writer's memory every
//! way the kernel offers (`tests/hostile_reader.rs`, with the
//! `shm-hostile-reader` binary), a bounded random-kill stress test
//! (`tests/stress.rs`), a loom model of the rings, and the rings over heap
//! memory under miri (both run by `scripts/test.sh`):
//!
//! ```text
//! RUSTFLAGS="--cfg loom" cargo test -p hibari-shm --release --lib loom
//! cargo +nightly miri test -p hibari-shm --lib -- ring:: proto:: --skip every_truncation
//! ```
//!
//! Latency figures: `cargo run -p hibari-shm --release --example shm_pingpong`.
#![warn(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

#[allow(dead_code)]
mod ring;

#[cfg(not(loom))]
mod codec;
#[cfg(not(loom))]
mod control;
#[cfg(not(loom))]
mod core;
#[cfg(not(loom))]
mod discovery;
#[cfg(not(loom))]
pub mod eventfd;
#[cfg(not(loom))]
mod handshake;
#[cfg(not(loom))]
mod held;
#[cfg(not(loom))]
mod layout;
#[cfg(not(loom))]
mod matching;
#[cfg(not(loom))]
mod pool;
#[cfg(not(loom))]
mod proto;
#[cfg(not(loom))]
mod publish;
#[cfg(not(loom))]
mod reader;
#[cfg(not(loom))]
mod rlink;
#[cfg(not(loom))]
mod send;
#[cfg(not(loom))]
mod sock;
#[cfg(not(loom))]
mod state;
#[cfg(not(loom))]
mod sys;
#[cfg(not(loom))]
mod transport;
#[cfg(not(loom))]
mod watch;
#[cfg(not(loom))]
mod wlink;
#[cfg(not(loom))]
mod writer;

#[cfg(not(loom))]
pub use reader::ShmReader;
#[cfg(not(loom))]
pub use transport::{ShmConfig, ShmOpenError, ShmTransport};
#[cfg(not(loom))]
pub use writer::{Loan, LoanError, SendError, ShmWriter};
