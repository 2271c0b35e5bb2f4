//! The subscriber process of a cell: started as this binary again
//! ([`spawn_subscriber`]), watched for its report while the publisher runs
//! ([`spawn_watcher`]), and killed if the cell ends before it exits
//! ([`KillOnDrop`]).

use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{io, unexpected, CellRunError, CellSpec, RunOptions};
use crate::control::{ChildReport, Control, ControlError, Message};
use crate::sys;

/// Starts the subscriber process: this binary again, with the hidden `__child` command.
pub(super) fn spawn_subscriber(
    spec: &CellSpec,
    tag: &str,
    opts: &RunOptions,
) -> Result<KillOnDrop, CellRunError> {
    let mut cmd = Command::new(&opts.child_exe);
    cmd.arg("__child");
    cmd.args([
        "--system",
        &spec.system,
        "--variant",
        &spec.variant,
        "--tag",
        tag,
    ]);
    cmd.args([
        "--size",
        &spec.size.to_string(),
        "--placement",
        spec.placement.as_str(),
    ]);
    cmd.args([
        "--warmup",
        &spec.warmup.to_string(),
        "--samples",
        &spec.samples.to_string(),
    ]);
    if spec.touch {
        cmd.arg("--touch");
    }
    if let Some(rate) = spec.rate_hz {
        cmd.args(["--rate", &rate.to_string()]);
    }
    cmd.args(["--depth", &spec.depth.to_string()]);
    let child = cmd.stdin(Stdio::null()).stdout(Stdio::null()).spawn();
    Ok(KillOnDrop(child.map_err(io("spawn subscriber"))?))
}

/// Waits on the control channel for the subscriber's final report. If the
/// subscriber dies, fails, or no message completes for `stall`, it kills the
/// subscriber, sets `abort` and calls `unblock` so the publisher loop returns.
pub(super) fn spawn_watcher(
    mut control: Control,
    progress: &Arc<AtomicU64>,
    abort: &Arc<AtomicBool>,
    unblock: Box<dyn Fn() + Send + Sync>,
    pid: u32,
    stall: Duration,
) -> std::thread::JoinHandle<Result<ChildReport, CellRunError>> {
    let (progress, abort) = (progress.clone(), abort.clone());
    std::thread::spawn(move || {
        control.set_read_timeout(Some(Duration::from_millis(250)))?;
        let (mut seen, mut since) = (0, Instant::now());
        let fail = |e: CellRunError| {
            abort.store(true, Ordering::SeqCst);
            sys::kill_process(pid);
            unblock();
            Err(e)
        };
        loop {
            match control.recv() {
                Ok(Message::Report(r)) => return Ok(r),
                Ok(Message::Failed { error }) => return fail(CellRunError::Child(error)),
                Ok(got) => return fail(unexpected("report", got)),
                Err(ControlError::Timeout(_)) => {
                    let now = progress.load(Ordering::Relaxed);
                    if now != seen {
                        (seen, since) = (now, Instant::now());
                    } else if since.elapsed() > stall {
                        let e = format!("no message completed for {stall:?}");
                        return fail(CellRunError::Child(e));
                    }
                }
                Err(e) => return fail(e.into()),
            }
        }
    })
}

/// Kills the child if the cell fails before it exited on its own.
pub(super) struct KillOnDrop(pub(super) Child);

impl KillOnDrop {
    pub(super) fn wait(&mut self, timeout: Duration) -> std::io::Result<()> {
        let deadline = Instant::now() + timeout;
        while self.0.try_wait()?.is_none() {
            if Instant::now() > deadline {
                let _ = self.0.kill();
                self.0.wait()?;
                return Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    "subscriber did not exit",
                ));
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        Ok(())
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}
