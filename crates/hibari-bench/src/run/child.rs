//! The subscriber processes of a two-process series: the parent's side
//! ([`Child`]: start, wait for `ready`, close stdin, read the report) and
//! the child's ([`child_main`]: hibari's subscriber here, iceoryx2's in
//! `ice.rs`).

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hibari::{Context, SingleThreadedExecutor};
use hibari_testkit::lines::LineChild;

use super::{ChildCommand, SeriesRunError, SeriesSystem};
use crate::clock::Usage;
use crate::workload::{subscribe_topics, Collector, Kind};

/// What the parent tells a subscriber process (one JSON argument).
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct ChildSpec {
    /// Who subscribes (hibari when absent).
    #[serde(default)]
    pub system: SeriesSystem,
    pub kind: Kind,
    pub domain: u32,
    /// The topic (hibari) or the series' file tag (iceoryx2).
    pub topic: String,
    pub warmup: u64,
    pub depth: usize,
    /// Measured messages the publisher sends (on all topics): after stdin
    /// closes, the child keeps taking until it has them all or none came
    /// for [`STRAGGLERS`].
    pub count: u64,
    /// Topics of the series (`Schedule::topics`).
    #[serde(default = "one")]
    pub topics: usize,
}

fn one() -> usize {
    1
}

/// How long a subscriber process waits for a next late sample once the
/// publisher is done (a slow build or a loaded machine delays big ones).
pub(super) const STRAGGLERS: Duration = Duration::from_secs(2);

/// A subscriber process's report: `(key, latency ns)` of each measured
/// sample, and its usage since the first.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct ChildResult {
    pub samples: Vec<(u64, u64)>,
    pub cpu_ns: u64,
    pub voluntary: u64,
    pub involuntary: u64,
}

pub(super) fn child_err(e: &dyn std::fmt::Display) -> SeriesRunError {
    SeriesRunError::Child(e.to_string())
}

/// How long a subscriber process may take to say `ready`, and to report
/// once told to stop: past these it failed (no bench run hangs on one).
const READY_WITHIN: Duration = Duration::from_secs(30);
const REPORT_WITHIN: Duration = Duration::from_secs(60);

/// A subscriber process (killed when dropped): started, it says `ready`;
/// its stdin closed, it stops and prints its report.
pub(super) struct Child(LineChild);

impl Child {
    /// Starts one and waits for its `ready`.
    pub fn start(cmd: &ChildCommand, arg: &str) -> Result<Child, SeriesRunError> {
        let mut command = Command::new(&cmd.program);
        command.args(&cmd.args).arg(arg).stdin(Stdio::piped());
        let child = Child(LineChild::spawn(command).map_err(|e| child_err(&e))?);
        match child.0.next_line(READY_WITHIN) {
            Ok(line) if line.trim() == "ready" => Ok(child),
            Ok(line) => Err(child_err(&format!("expected `ready`, got {line:?}"))),
            Err(e) => Err(child_err(&format!("no `ready` ({e:?})"))),
        }
    }

    /// Closes its stdin (it stops) and reads its report.
    pub fn report(&mut self) -> Result<ChildResult, SeriesRunError> {
        drop(self.0.child().stdin.take());
        let line = self
            .0
            .next_line(REPORT_WITHIN)
            .map_err(|e| child_err(&format!("no report ({e:?})")))?;
        let _ = self.0.child().wait();
        serde_json::from_str(&line).map_err(|e| child_err(&format!("bad report {line:?}: {e}")))
    }
}

/// Prints `ready` (the child subscribed).
pub(super) fn say_ready() -> Result<(), SeriesRunError> {
    let mut stdout = std::io::stdout();
    writeln!(stdout, "ready").map_err(|e| child_err(&e))?;
    stdout.flush().map_err(|e| child_err(&e))
}

/// A flag raised once the parent closed this process's stdin (read on a
/// thread of its own).
pub(super) fn stdin_closed() -> Arc<AtomicBool> {
    let closed = Arc::new(AtomicBool::new(false));
    let flag = closed.clone();
    std::thread::spawn(move || {
        let mut sink = Vec::new();
        let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut sink);
        flag.store(true, Ordering::Relaxed);
    });
    closed
}

/// The subscriber process: `spec_json` as written by the parent. Prints
/// `ready` once subscribed, collects until stdin closes and then until it has
/// every measured message (or none came for [`STRAGGLERS`]), then prints one
/// JSON line with its samples and its usage since the first measured message.
pub fn child_main(spec_json: &str) -> Result<(), SeriesRunError> {
    let spec: ChildSpec = serde_json::from_str(spec_json).map_err(|e| child_err(&e))?;
    let r = match spec.system {
        SeriesSystem::Hibari => hibari_child(&spec)?,
        SeriesSystem::Iceoryx2 => super::ice::child_main(&spec)?,
    };
    let text = serde_json::to_string(&r).map_err(|e| child_err(&e))?;
    writeln!(std::io::stdout(), "{text}").map_err(|e| child_err(&e))?;
    Ok(())
}

fn hibari_child(spec: &ChildSpec) -> Result<ChildResult, SeriesRunError> {
    let bad = |e: &dyn std::fmt::Display| SeriesRunError::Child(e.to_string());
    let context = Context::with_domain(spec.domain);
    let node = context.create_node("bench_sub").map_err(|e| bad(&e))?;
    let collector = Collector::new(spec.warmup);
    let _subs = subscribe_topics(
        &node,
        &spec.topic,
        spec.kind,
        spec.depth,
        collector.clone(),
        true,
        spec.topics,
    )
    .map_err(|e| bad(&e))?;
    let executor = Arc::new(SingleThreadedExecutor::new());
    executor.add_node(&node).map_err(|e| bad(&e))?;
    // A cancel that comes before the spin starts is forgotten (the
    // executor's docs): the spin also asks `stop`, so it ends either way.
    let stop = Arc::new(AtomicBool::new(false));
    let (ex, stopped) = (executor.clone(), stop.clone());
    let spinner = std::thread::spawn(move || {
        ex.spin_until(|| stopped.load(Ordering::Acquire), Duration::MAX)
    });
    say_ready()?;
    let mut sink = Vec::new();
    let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut sink);
    let (mut had, mut since) = (collector.len(), std::time::Instant::now());
    while (had as u64) < spec.count && since.elapsed() < STRAGGLERS {
        std::thread::sleep(Duration::from_millis(10));
        if collector.len() > had {
            (had, since) = (collector.len(), std::time::Instant::now());
        }
    }
    stop.store(true, Ordering::Release);
    executor.cancel();
    let _ = spinner.join();
    let end = Usage::process();
    let c = collector.take();
    let used = c.first.map(|f| end.since(&f)).unwrap_or_default();
    Ok(ChildResult {
        samples: c.samples,
        cpu_ns: used.cpu_ns,
        voluntary: used.voluntary,
        involuntary: used.involuntary,
    })
}
