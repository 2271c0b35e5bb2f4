//! The subscriber process: the benchmark binary re-executed by
//! [`run_cell`](crate::run_cell) with the hidden `__child` subcommand.
//!
//! It pins itself, connects to the parent's control socket, opens its ends of
//! the system, answers every payload with an ack (open loop: only stamps
//! it), and finally reports its CPU time and context switches over the
//! measured window (open loop: and its samples). If the parent goes
//! away (the control socket closes) before the cell is done, it exits at once
//! rather than wait forever for a message.

use crate::control::{ChildReport, Control, ControlError, Message};
use crate::harness::{resolve, Placement};
use crate::openloop::receive_open_loop;
use crate::sys::{self, Usage};
use crate::system::{Link, LinkError, Role, Setup, ACK_LEN};
use crate::workload::{payload_ok, touch, Ack};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// What the parent tells the child (its command line).
#[derive(Debug, Clone, PartialEq)]
pub struct ChildArgs {
    /// System name.
    pub system: String,
    /// Variant name.
    pub variant: String,
    /// The cell's tag: also the control socket's abstract name.
    pub tag: String,
    /// Payload bytes.
    pub size: usize,
    /// Placement (the child pins itself to the subscriber's CPUs).
    pub placement: Placement,
    /// Warm-up messages.
    pub warmup: u64,
    /// Measured messages.
    pub samples: u64,
    /// Whether to read every byte before the final stamp.
    pub touch: bool,
    /// Open loop at this rate (no acks; see [`crate::openloop`]); `None`: ping-pong.
    pub rate_hz: Option<f64>,
    /// Queue depth of the data direction.
    pub depth: usize,
}

/// Why the subscriber process failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ChildRunError {
    /// The arguments name an unknown system or variant.
    #[error("{0}")]
    Spec(String),
    /// Pinning failed.
    #[error("sched_setaffinity: {0}")]
    Affinity(std::io::Error),
    /// The control channel failed.
    #[error(transparent)]
    Control(#[from] ControlError),
    /// The system failed.
    #[error(transparent)]
    Link(#[from] LinkError),
}

/// Runs the subscriber side of one cell; returns when the cell is done.
pub fn child_main(args: &ChildArgs) -> Result<(), ChildRunError> {
    sys::set_affinity(&args.placement.cpus(Role::Subscriber)).map_err(ChildRunError::Affinity)?;
    let mut control = Control::connect(&args.tag)?;
    control.send(&Message::Hello {
        pid: std::process::id(),
    })?;
    match run(args, &mut control) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = control.send(&Message::Failed {
                error: e.to_string(),
            });
            Err(e)
        }
    }
}

fn run(args: &ChildArgs, control: &mut Control) -> Result<(), ChildRunError> {
    let (system, variant) = resolve(&args.system, &args.variant).map_err(ChildRunError::Spec)?;
    let abort = Arc::new(AtomicBool::new(false));
    let setup = Setup {
        role: Role::Subscriber,
        variant,
        size: args.size,
        depth: args.depth.max(1),
        tag: &args.tag,
        control,
        abort: abort.clone(),
    };
    let Link {
        mut tx,
        mut rx,
        unblock,
    } = system.open(setup)?;
    // The acks go to the parent's reader, created before the parent waits for
    // "ready". Without this wait the first ack could be sent before our writer
    // has matched it (a discovery message still queued under load), be dropped
    // as a publish before matching is, and stall the cell for its whole timeout.
    tx.wait_connected()?;
    control.send(&Message::Ready)?;

    let done = Arc::new(AtomicBool::new(false));
    {
        let (mut watch, done, abort) = (control.try_clone()?, done.clone(), abort.clone());
        std::thread::spawn(move || {
            // After "ready" the parent sends only "stop" (open loop); any other
            // return means it closed the channel.
            if let Ok(Message::Stop) = watch.recv() {
                abort.store(true, Ordering::SeqCst);
                unblock();
                let _ = watch.recv();
            }
            if !done.load(Ordering::SeqCst) {
                eprintln!("hibari-bench-ipc subscriber: the publisher went away; exiting");
                std::process::exit(3);
            }
        });
    }
    if args.rate_hz.is_some() {
        let got = receive_open_loop(rx.as_mut(), args.size, args.warmup, args.samples, &abort)?;
        let used = got
            .first
            .map(|f| Usage::now().since(&f))
            .unwrap_or_default();
        let report = ChildReport {
            // Every measured arrival; the parent tallies the samples (duplicates, losses).
            received: got.samples.len() as u64,
            errors: got.errors,
            cpu_us: used.cpu_us,
            ctx_vol: used.ctx_vol,
            ctx_invol: used.ctx_invol,
            samples: got.samples,
        };
        done.store(true, Ordering::SeqCst);
        control.send(&Message::Report(report))?;
        drop((tx, rx));
        return Ok(());
    }

    let mut report = ChildReport::default();
    let mut start = Usage::now();
    for i in 0..args.warmup + args.samples {
        if i == args.warmup {
            start = Usage::now();
        }
        let mut ack = Ack {
            seq: u64::MAX,
            t_recv: 0,
            t_touch: 0,
            ok: false,
        };
        rx.receive(&mut |bytes| {
            let t_recv = sys::monotonic_ns();
            let ok = payload_ok(bytes, i, args.size);
            if args.touch {
                std::hint::black_box(touch(bytes));
            }
            ack = Ack {
                seq: i,
                t_recv,
                t_touch: sys::monotonic_ns(),
                ok,
            };
        })?;
        tx.publish(ACK_LEN, 0, &mut |buf| ack.write(buf))?;
        if i >= args.warmup {
            match ack.ok {
                true => report.received += 1,
                false => report.errors += 1,
            }
        }
    }
    let used = Usage::now().since(&start);
    (report.cpu_us, report.ctx_vol, report.ctx_invol) = (used.cpu_us, used.ctx_vol, used.ctx_invol);
    done.store(true, Ordering::SeqCst);
    control.send(&Message::Report(report))?;
    drop((tx, rx));
    Ok(())
}
