//! The contract a measured system implements: how the harness sends one
//! payload, receives one, and sets both up across two processes.
//!
//! A *system* (the wake-up floor, iceoryx2, later hibari's shared memory)
//! offers one or more [`Variant`]s — an event-driven wake-up, a busy poll.
//! For one measured cell the harness calls [`System::open`] once in each
//! process: the publisher process (the parent) gets a [`Link`] whose `tx`
//! carries payloads and whose `rx` receives the subscriber's 32-byte acks;
//! the subscriber process (the re-executed child) gets the mirror image. Both
//! directions use the same two traits, so adding a system means writing one
//! [`Publish`], one [`Subscribe`] and the `open` that builds them.
//!
//! The harness owns the workload: it fills every byte of the payload, stamps
//! a header just before the send, and touches the bytes on receive when
//! asked. A system only moves bytes and wakes the other side.

use crate::control::{Control, ControlError};
use hibari_cdr::Bytes;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// How the receiving side waits for the next message.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// The receiver blocks in the kernel and is woken by the sender.
    Event,
    /// The receiver spins on shared memory and burns its CPU.
    Poll,
}

impl Mode {
    /// `"event"` or `"poll"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Event => "event",
            Mode::Poll => "poll",
        }
    }
}

/// One way a system can be driven, e.g. the floor's `futex` or iceoryx2's `poll`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Variant {
    /// Short name used on the command line and passed to the child (`futex`, `event`, …).
    pub name: &'static str,
    /// Event-driven or busy-polled.
    pub mode: Mode,
    /// What carries the bytes and the wake-up, for the table and the JSON `transport` field.
    pub transport: &'static str,
}

/// Which side of the ping-pong this process plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The parent: sends payloads, receives acks.
    Publisher,
    /// The re-executed child: receives payloads, sends acks.
    Subscriber,
}

/// Everything [`System::open`] needs to know about the cell it sets up.
pub struct Setup<'a> {
    /// This process's side.
    pub role: Role,
    /// The variant being measured (one of [`System::variants`]).
    pub variant: Variant,
    /// Payload size in bytes of the data direction (acks are [`ACK_LEN`] bytes).
    pub size: usize,
    /// Queue depth of the data direction (the receiver's buffer, keep-last): 2 in
    /// ping-pong; open loop may ask for more. The ack direction keeps 2.
    pub depth: usize,
    /// A name unique to this cell and this run (letters, digits, `_`), the same in both
    /// processes: use it for service names, file prefixes and the like.
    pub tag: &'a str,
    /// The control channel to the other process, for exchanging fds or waiting until the
    /// other side has created what this side opens. Each system defines its own exchange;
    /// the harness sends nothing on it while `open` runs.
    pub control: &'a mut Control,
    /// Set by the harness when the other process died or stalled; a blocked
    /// [`Subscribe::receive`] must notice it (after [`Link::unblock`] or a timeout of
    /// its own) and return [`LinkError::Aborted`].
    pub abort: Arc<AtomicBool>,
}

/// Length of the acknowledgement the subscriber sends back for every payload.
pub const ACK_LEN: usize = 32;

/// The two ends one process holds for a cell.
pub struct Link {
    /// Sends this process's messages (payloads for the publisher, acks for the subscriber).
    pub tx: Box<dyn Publish>,
    /// Receives the other process's messages.
    pub rx: Box<dyn Subscribe>,
    /// Called from another thread after `abort` was set, to wake a `receive` that blocks
    /// without a timeout (e.g. a read on an eventfd). May be a no-op.
    pub unblock: Box<dyn Fn() + Send + Sync>,
}

/// The sending end of one direction.
pub trait Publish {
    /// Obtains `len` bytes of memory the receiver will see (a loan in shared memory,
    /// ideally), sets every byte to `fill` (the payload write of the workload), then
    /// calls `stamp` on the filled bytes (it writes the header and the send time), then
    /// makes the message visible and wakes the receiver as the variant prescribes.
    fn publish(
        &mut self,
        len: usize,
        fill: u8,
        stamp: &mut dyn FnMut(&mut [u8]),
    ) -> Result<(), LinkError>;

    /// Waits until a receiver is connected, if the system connects asynchronously.
    /// The harness calls it once after both sides opened, before the first message.
    fn wait_connected(&mut self) -> Result<(), LinkError> {
        Ok(())
    }
}

/// The receiving end of one direction.
pub trait Subscribe {
    /// Waits for the next message (blocking in the kernel or spinning, as the variant
    /// prescribes), then calls `read` with a view of its bytes, then releases it.
    /// hibari's shared memory gives [`Bytes::Shared`] (the publisher could
    /// still write them); the other systems give a slice.
    fn receive(&mut self, read: &mut dyn FnMut(Bytes<'_>)) -> Result<(), LinkError>;
}

/// A system under measurement.
pub trait System {
    /// Name for the table and the JSON `system` field (`floor`, `iceoryx2`).
    fn name(&self) -> &'static str;

    /// The variants this system offers.
    fn variants(&self) -> &'static [Variant];

    /// Builds this process's ends for one cell. Called once in each process; the
    /// subscriber process starts it only after the publisher process has started its own.
    fn open(&self, setup: Setup<'_>) -> Result<Link, LinkError>;

    /// Whether messages queue (open loop possible); `false` for a single
    /// buffer that only ping-pong keeps from being overwritten.
    fn queues(&self) -> bool {
        true
    }

    /// Files this system left on disk or in `/dev/shm` for the cell `tag`, looked for after
    /// both processes exited cleanly. The default says "none that we know of".
    fn leftovers(&self, tag: &str) -> Vec<std::path::PathBuf> {
        let _ = tag;
        Vec::new()
    }

    /// Files this system keeps while a cell runs (counted once both sides are open).
    fn files_while_running(&self, tag: &str) -> Vec<std::path::PathBuf> {
        self.leftovers(tag)
    }
}

/// Why sending, receiving or setting up a link failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LinkError {
    /// The other process died or stalled; the harness asked the wait to give up.
    #[error("aborted: the other process died or stopped answering")]
    Aborted,
    /// An OS call failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: &'static str,
        /// The OS error.
        source: std::io::Error,
    },
    /// The control channel failed during setup.
    #[error("control channel: {0}")]
    Control(#[from] ControlError),
    /// The system under test reported an error (its text).
    #[error("{system}: {what}: {detail}")]
    System {
        /// The system's name.
        system: &'static str,
        /// What was being done.
        what: &'static str,
        /// The system's error, as text.
        detail: String,
    },
}

impl LinkError {
    /// Shorthand for [`LinkError::Io`].
    pub fn io(what: &'static str) -> impl FnOnce(std::io::Error) -> LinkError {
        move |source| LinkError::Io { what, source }
    }
}

/// Every system this build knows, in table order.
pub fn all_systems() -> Vec<Box<dyn System>> {
    vec![
        Box::new(crate::floor::Floor),
        Box::new(crate::ice::Iceoryx2),
        Box::new(crate::shm::HibariShm),
        #[cfg(feature = "zenoh")]
        Box::new(crate::zenoh::Zenoh),
    ]
}

/// The system called `name`, if this build knows it.
pub fn system_by_name(name: &str) -> Option<Box<dyn System>> {
    all_systems().into_iter().find(|s| s.name() == name)
}
