//! Runs one measured cell from the publisher process: pins the CPU, starts the
//! subscriber as a child process (the benchmark binary re-executed with
//! `__child`), opens the system on both sides, plays the ping-pong (or
//! publishes open loop, [`crate::openloop`]) and turns the stamps into a
//! [`Record`].
//!
//! Ping-pong: per message `i` the publisher takes `t0`, loans and fills the payload with
//! the byte `i & 0xff`, stamps `t_send` into the header and sends; the
//! subscriber stamps `t_recv` as soon as the payload is in hand, checks it (and
//! sums every byte with `touch`), stamps `t_touch` and sends a 32-byte ack;
//! the next message leaves only after that ack arrived. One-way latency is
//! `t_recv − t_send` (`t_touch − t_send` with touch), on one `CLOCK_MONOTONIC`.
//!
//! The subscriber process (start, watch, kill) is in `harness/subscriber.rs`.

use crate::control::{ControlError, ControlListener, Message};
use crate::measure::{open_loop_record, publish_loop, total_bytes};
use crate::openloop::publish_open_loop;
use crate::stats::Record;
use crate::sys;
use crate::system::{system_by_name, Link, LinkError, Role, Setup, Variant};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

mod subscriber;

use subscriber::{spawn_subscriber, spawn_watcher};

pub use crate::placement::Placement;

/// One cell to measure.
#[derive(Debug, Clone, PartialEq)]
pub struct CellSpec {
    /// System name (`floor`, `iceoryx2`).
    pub system: String,
    /// Variant name within the system (`futex`, `eventfd`, `spin`, `event`, `poll`).
    pub variant: String,
    /// Payload bytes (at least 32, for the header).
    pub size: usize,
    /// Whether the subscriber reads every byte before its final stamp.
    pub touch: bool,
    /// Where the two processes run.
    pub placement: Placement,
    /// Messages sent before measuring.
    pub warmup: u64,
    /// Messages measured.
    pub samples: u64,
    /// `None`: closed-loop ping-pong (the next message after the ack). `Some(r)`:
    /// open loop at `r` Hz, 0 = as fast as possible ([`crate::openloop`]).
    pub rate_hz: Option<f64>,
    /// Queue depth of the data direction (subscriber buffer / keep-last); 2 in
    /// ping-pong, where at most one message is ever in flight.
    pub depth: usize,
}

/// How to run cells.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The benchmark binary, re-executed as the subscriber.
    pub child_exe: PathBuf,
    /// Give up when no message completes for this long.
    pub stall_timeout: Duration,
}

/// Why a cell could not be measured.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CellRunError {
    /// The spec names an unknown system or variant, or an impossible size.
    #[error("bad cell: {0}")]
    Spec(String),
    /// Pinning, spawning or waiting for the child failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: &'static str,
        /// The OS error.
        source: std::io::Error,
    },
    /// The control channel failed.
    #[error(transparent)]
    Control(#[from] ControlError),
    /// The system failed to set up, send or receive.
    #[error(transparent)]
    Link(#[from] LinkError),
    /// The subscriber process reported an error.
    #[error("subscriber process failed: {0}")]
    Child(String),
}

fn io(what: &'static str) -> impl FnOnce(std::io::Error) -> CellRunError {
    move |source| CellRunError::Io { what, source }
}

/// Looks up the system and variant a spec names.
pub(crate) fn resolve(
    system: &str,
    variant: &str,
) -> Result<(Box<dyn crate::System>, Variant), String> {
    let sys = system_by_name(system).ok_or_else(|| format!("unknown system {system:?}"))?;
    let var = sys.variants().iter().find(|v| v.name == variant).copied();
    let var = var.ok_or_else(|| format!("{system} has no variant {variant:?}"))?;
    Ok((sys, var))
}

static CELL_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Measures one cell (see the module docs). Blocks until the child exited.
pub fn run_cell(spec: &CellSpec, opts: &RunOptions) -> Result<Record, CellRunError> {
    let (system, variant) = resolve(&spec.system, &spec.variant).map_err(CellRunError::Spec)?;
    if spec.rate_hz.is_some() && !system.queues() {
        return Err(CellRunError::Spec(format!(
            "{} has no queue: it runs ping-pong only",
            spec.system
        )));
    }
    if spec.size < crate::workload::HEADER_LEN {
        return Err(CellRunError::Spec(format!(
            "size {} is below the 32-byte header",
            spec.size
        )));
    }
    let tag = format!(
        "hbipc_{}_{}",
        std::process::id(),
        CELL_COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    sys::set_affinity(&spec.placement.cpus(Role::Publisher)).map_err(io("sched_setaffinity"))?;
    // The calling thread gets every CPU back when the cell ends, however it ends.
    let _unpin = Unpin;
    // Declared before the child and the link so that it runs after both are gone,
    // whether the cell succeeds or fails.
    let _cleanup = RemoveLeftovers {
        system: system.as_ref(),
        tag: &tag,
    };
    let listener = ControlListener::bind(&tag)?;
    let mut child = spawn_subscriber(spec, &tag, opts)?;
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut control = listener.accept(deadline, || matches!(child.0.try_wait(), Ok(None)))?;
    match control.recv()? {
        Message::Hello { .. } => {}
        got => return Err(unexpected("hello", got)),
    }
    let abort = Arc::new(AtomicBool::new(false));
    let setup = Setup {
        role: Role::Publisher,
        variant,
        size: spec.size,
        depth: spec.depth.max(1),
        tag: &tag,
        control: &mut control,
        abort: abort.clone(),
    };
    let Link {
        mut tx,
        mut rx,
        unblock,
    } = system.open(setup)?;
    control.set_read_timeout(Some(Duration::from_secs(20)))?;
    match control.recv()? {
        Message::Ready => {}
        Message::Failed { error } => return Err(CellRunError::Child(error)),
        got => return Err(unexpected("ready", got)),
    }
    let running = system.files_while_running(&tag);
    let files_while_running = (running.len() as u64, total_bytes(&running));
    tx.wait_connected()?;

    let progress = Arc::new(AtomicU64::new(0));
    let watcher = spawn_watcher(
        control.try_clone()?,
        &progress,
        &abort,
        unblock,
        child.0.id(),
        opts.stall_timeout,
    );
    let measured = match spec.rate_hz {
        None => publish_loop(spec, tx.as_mut(), rx.as_mut(), &progress)
            .map(|m| Measured::PingPong(Box::new(m))),
        Some(rate) => {
            let sent = publish_open_loop(spec, rate, tx.as_mut(), &progress);
            // Stragglers: wait for the subscriber's report (it stops at the last
            // message), at most a drain time; then tell it to stop.
            let drain = Duration::from_millis(300 + (spec.size as u64 / 10_000).min(1_000));
            let until = Instant::now() + drain;
            while sent.is_ok() && !watcher.is_finished() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(2));
            }
            let _ = control.send(&Message::Stop);
            sent.map(Measured::OpenLoop)
        }
    };
    if measured.is_err() {
        sys::kill_process(child.0.id()); // the watcher then sees the channel close
    }
    let report = watcher
        .join()
        .map_err(|_| CellRunError::Child("watcher thread panicked".into()))?;
    let (measured, report) = match (measured, report) {
        (Ok(m), Ok(r)) => (m, r),
        (_, Err(e)) | (Err(e), _) => return Err(e),
    };
    drop((tx, rx, control));
    child
        .wait(Duration::from_secs(20))
        .map_err(io("wait for subscriber"))?;

    let leftovers = system.leftovers(&tag); // removed by `_cleanup` on return
    let leftover_bytes = total_bytes(&leftovers);
    let files = (files_while_running, leftovers.as_slice(), leftover_bytes);
    Ok(match measured {
        Measured::PingPong(m) => m.into_record(spec, system.as_ref(), variant, &report, files),
        Measured::OpenLoop(s) => {
            open_loop_record(spec, system.as_ref(), variant, &report, s, files)
        }
    })
}

/// The publisher side's measurement, by loop kind.
enum Measured {
    PingPong(Box<crate::measure::Measured>),
    OpenLoop(crate::openloop::Sent),
}

fn unexpected(expected: &'static str, got: Message) -> CellRunError {
    ControlError::Unexpected {
        expected,
        got: Box::new(got),
    }
    .into()
}

/// Removes the files a system left for a cell.
struct RemoveLeftovers<'a> {
    system: &'a dyn crate::System,
    tag: &'a str,
}

impl Drop for RemoveLeftovers<'_> {
    fn drop(&mut self) {
        for path in self.system.leftovers(self.tag) {
            let _ = std::fs::remove_file(&path).or_else(|_| std::fs::remove_dir_all(&path));
        }
    }
}

/// Restores the calling thread's affinity to every online CPU on drop.
struct Unpin;

impl Drop for Unpin {
    fn drop(&mut self) {
        let _ = sys::set_affinity(&Placement::Free.cpus(Role::Publisher));
    }
}
