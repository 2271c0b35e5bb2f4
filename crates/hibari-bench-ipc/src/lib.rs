//! One-way latency between two processes on one host, for shared-memory
//! systems, measured the way `shared/specs/measured-ipc.md` measured the
//! anchors on this machine.
//!
//! # What is measured
//!
//! A publisher process and a subscriber process (the same binary, re-executed
//! as a child) play ping-pong: for each message the publisher fills **every
//! byte** of a payload of the chosen size in the system's memory, stamps
//! `CLOCK_MONOTONIC` into a 32-byte header and sends; the subscriber stamps
//! the time as soon as it holds the payload (or, with `touch`, after summing
//! every byte as 64-bit words), checks the sequence number, length and fill
//! byte, and sends back a 32-byte ack. The next message leaves only after the
//! ack. After the warm-up (200 messages by default) each message gives one
//! one-way latency (receive stamp − send stamp) into an HDR histogram; each
//! process measures its CPU time (user+sys) and context switches over the
//! measured window. Payload sizes are those of issue 4: 64 B, 4 KiB, 64 KiB,
//! 921,600 B (640x480 RGB) and 6,220,800 B (1920x1080 RGB).
//!
//! Closed-loop ping-pong is what the anchors used; it understates tails
//! compared with open-loop publishing (anchors.md §2, item 1), so compare it
//! only with itself.
//!
//! **Open loop** ([`openloop`]; `CellSpec::rate_hz`, `--rates`): the
//! publisher sends at a fixed rate (or as fast as possible) without waiting
//! for anything, stamps each message's *due* time, and the subscriber only
//! stamps and keeps `(sequence, receive − due)`; messages a full queue
//! overwrote count as lost. This is what `hibari bench latency` uses.
//!
//! # Systems
//!
//! - [`Floor`]: the machine's bare wake-up floor doing the same payload
//!   writes — a `memfd` mapping and a futex, an eventfd (passed with
//!   `SCM_RIGHTS`), or a spin on a shared atomic. Nothing is left behind.
//! - [`Iceoryx2`]: iceoryx2 0.10 from crates.io, event-driven (Listener /
//!   Notifier) and busy-polled, with the anchors' settings. The files it
//!   creates under `/dev/shm` and `/tmp/iceoryx2` are counted, reported and
//!   removed after every cell.
//! - [`HibariShm`](crate::all_systems): hibari's shared-memory transport
//!   (`hibari-shm`) through its transport API, loaned.
//! - `Zenoh` (cargo feature `zenoh`, off by default: it compiles slowly):
//!   raw Zenoh 1.x from crates.io, peer to peer over TCP or a Unix socket.
//!
//! A new system implements [`System`] (set-up in both processes),
//! [`Publish`] (fill a loan of `len` bytes, stamp, send, wake) and
//! [`Subscribe`] (wait, view the bytes), and is added to
//! [`all_systems`].
//!
//! # CPU placement
//!
//! On this 2-vCPU VM where the woken process runs dominates event-driven
//! latency, so every cell runs under one [`Placement`]: `same` (both on CPU 0;
//! busy-poll cells are skipped there), `cross` (CPU 0 and CPU 1) or `free`.
//!
//! # Example
//!
//! ```no_run
//! use hibari_bench_ipc::{run_cell, CellSpec, Placement, RunOptions};
//! use std::time::Duration;
//!
//! // The child process is the `hibari-bench-ipc` binary.
//! let opts = RunOptions {
//!     child_exe: "target/release/hibari-bench-ipc".into(),
//!     stall_timeout: Duration::from_secs(10),
//! };
//! let spec = CellSpec {
//!     system: "floor".into(),
//!     variant: "futex".into(),
//!     size: 921_600,
//!     touch: false,
//!     placement: Placement::Same,
//!     warmup: 200,
//!     samples: 2_000,
//!     rate_hz: None, // ping-pong; Some(1000.0): open loop at 1 kHz
//!     depth: 2,
//! };
//! let record = run_cell(&spec, &opts)?;
//! println!("p50 {} µs, p99 {} µs", record.latency.p50_us, record.latency.p99_us);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # `unsafe`
//!
//! hibari allows `unsafe` only in its shared-memory crate. This benchmark-only
//! crate needs `mmap`, futexes, eventfds, `SCM_RIGHTS`, `sched_setaffinity` and
//! `getrusage`, and libjpeg-turbo for the JPEG series (the peers' encoder);
//! every `unsafe` block is in the one module `sys`, each with a
//! `// SAFETY:` comment, behind safe wrappers.
#![warn(missing_docs)]
#![deny(unsafe_code)] // allowed again only in `sys`

mod child;
mod control;
mod floor;
mod harness;
mod ice;
mod jpeg;
mod machine;
mod measure;
pub mod openloop;
mod placement;
mod shm;
mod stats;
mod suite;
mod sys;
mod system;
mod table;
mod workload;
#[cfg(feature = "zenoh")]
mod zenoh;

#[cfg(feature = "zenoh")]
pub use crate::zenoh::Zenoh;
pub use child::{child_main, ChildArgs, ChildRunError};
pub use control::{ChildReport, Control, ControlError, Message};
pub use floor::Floor;
pub use harness::{run_cell, CellRunError, CellSpec, RunOptions};
pub use ice::{
    file_prefix as iceoryx2_file_prefix, remove_stale_files as remove_stale_iceoryx2_files,
    root_path as iceoryx2_root_path, Iceoryx2,
};
pub use jpeg::{EncodeError, FrameEncoder};
pub use machine::{wait_until_quiet, Machine, MachineCpu};
pub use placement::Placement;
pub use stats::{Latencies, Record, Summary};
pub use suite::{Plan, Report, Skipped, SIZES};
#[cfg(libjpeg)]
pub use sys::jpeg::{JpegError, LibJpeg};
pub use system::{
    all_systems, system_by_name, Link, LinkError, Mode, Publish, Role, Setup, Subscribe, System,
    Variant, ACK_LEN,
};
pub use table::{render as render_table, size_label};
pub use workload::{Ack, Header, HEADER_LEN};
