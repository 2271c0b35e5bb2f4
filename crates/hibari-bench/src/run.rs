//! Running one series: publisher and subscriber in one process (the
//! subscriber's node on its own executor thread, in-process transport), or
//! in separate processes (each subscriber is this program re-executed with
//! `--child`, shared-memory transport; `scale` runs up to 8 of them). The
//! same children and schedule carry iceoryx2 for `scale` (`ice.rs`).

use std::sync::Arc;
use std::time::Duration;

use hibari::{Context, SingleThreadedExecutor};

use crate::clock::Usage;
use crate::workload::{publish, subscribe_topics, Collector, Kind, Schedule};

mod child;
mod ice;

pub use child::child_main;
use child::{child_err, Child, ChildResult, ChildSpec, STRAGGLERS};

/// Who carries a two-process series.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SeriesSystem {
    /// hibari's public API.
    #[default]
    Hibari,
    /// iceoryx2 0.10, event-driven (byte arrays, two processes only; `ice.rs`).
    Iceoryx2,
}

impl SeriesSystem {
    /// The records' `system`.
    pub fn name(self) -> &'static str {
        match self {
            SeriesSystem::Hibari => "hibari",
            SeriesSystem::Iceoryx2 => "iceoryx2",
        }
    }
}

/// One series to run.
#[derive(Debug, Clone, Copy)]
pub struct SeriesSpec {
    /// The message.
    pub kind: Kind,
    /// The schedule.
    pub schedule: Schedule,
    /// Keep-last depth of publisher and subscriber.
    pub depth: usize,
    /// Two processes (shared memory) or one (in-process).
    pub two_processes: bool,
    /// One process, but publisher and subscriber in two contexts that reach
    /// each other only through shared memory (ROS 2's composition without
    /// intra-process communication: the message is serialized and goes
    /// through the middleware although both nodes share the process).
    pub shm_in_one_process: bool,
    /// Who carries it (iceoryx2: two processes only).
    pub system: SeriesSystem,
}

/// What a series produced.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// Measured messages sent.
    pub sent: u64,
    /// Latencies (ns) of the measured messages received, in sequence order.
    pub latencies_ns: Vec<u64>,
    /// Publisher usage (thread in one process, process in two).
    pub publisher: Usage,
    /// Subscriber usage.
    pub subscriber: Usage,
    /// Seconds the measured part took at the publisher.
    pub seconds: f64,
    /// The encoded frames of a JPEG series (`None` for other kinds).
    pub jpeg: Option<crate::workload::JpegFrames>,
}

/// Why a series failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SeriesRunError {
    /// The node or subscription could not be made.
    #[error("set up: {0}")]
    Setup(String),
    /// Publishing failed.
    #[error(transparent)]
    Publish(#[from] crate::workload::PublishRunError),
    /// The subscriber process failed.
    #[error("subscriber process: {0}")]
    Child(String),
}

/// How to start the subscriber process: the program and the arguments
/// before the spec (`hibari bench --child`).
#[derive(Debug, Clone)]
pub struct ChildCommand {
    /// The program.
    pub program: std::path::PathBuf,
    /// Arguments before the JSON spec.
    pub args: Vec<String>,
}

fn topic_name() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    format!(
        "bench_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// `ROS_DOMAIN_ID` when set (tests give each run a domain of its own),
/// else a domain few others use: this process's own, 150–229.
pub(crate) fn domain() -> u32 {
    std::env::var("ROS_DOMAIN_ID")
        .ok()
        .and_then(|d| d.trim().parse().ok())
        .unwrap_or(150 + std::process::id() % 80)
}

fn finish(collected: crate::workload::Collected, end: Usage) -> (Vec<u64>, Usage) {
    let mut samples = collected.samples;
    samples.sort_unstable();
    samples.dedup_by_key(|s| s.0);
    let usage = collected.first.map(|f| end.since(&f)).unwrap_or_default();
    (samples.into_iter().map(|s| s.1).collect(), usage)
}

/// Runs one series.
pub fn run_series(spec: &SeriesSpec, child: &ChildCommand) -> Result<Outcome, SeriesRunError> {
    match (spec.system, spec.two_processes) {
        (SeriesSystem::Iceoryx2, true) => ice::two_processes(spec, child),
        (SeriesSystem::Iceoryx2, false) => Err(SeriesRunError::Setup(
            "the iceoryx2 series runs between processes only".into(),
        )),
        (SeriesSystem::Hibari, true) => two_processes(spec, child),
        (SeriesSystem::Hibari, false) => one_process(spec),
    }
}

fn one_process(spec: &SeriesSpec) -> Result<Outcome, SeriesRunError> {
    let setup = |e: &dyn std::fmt::Display| SeriesRunError::Setup(e.to_string());
    let (sub_ctx, pub_ctx) = if spec.shm_in_one_process {
        // Two shared-memory participants of one domain, no in-process path
        // (this process's domain: no child runs beside them).
        let d = domain();
        let shm = || -> Result<Context, SeriesRunError> {
            let t = hibari::transports::ShmTransport::open(d).map_err(|e| setup(&e))?;
            Context::builder()
                .transport(Arc::new(t))
                .create()
                .map_err(|e| setup(&e))
        };
        (shm()?, shm()?)
    } else {
        let c = Context::builder()
            .isolated()
            .create()
            .map_err(|e| setup(&e))?;
        (c.clone(), c)
    };
    let topic = topic_name();
    let sub_node = sub_ctx.create_node("bench_sub").map_err(|e| setup(&e))?;
    let pub_node = pub_ctx.create_node("bench_pub").map_err(|e| setup(&e))?;
    let collector = Collector::new(spec.schedule.warmup);
    let _subs = subscribe_topics(
        &sub_node,
        &topic,
        spec.kind,
        spec.depth,
        collector.clone(),
        false,
        spec.schedule.topics,
    )
    .map_err(|e| setup(&e))?;
    let executor = Arc::new(SingleThreadedExecutor::new());
    executor.add_node(&sub_node).map_err(|e| setup(&e))?;
    let ex = executor.clone();
    let spinner = std::thread::spawn(move || {
        ex.spin();
        Usage::thread()
    });
    let published = publish(
        &pub_node,
        &topic,
        spec.kind,
        spec.depth,
        spec.schedule,
        false,
    );
    std::thread::sleep(drain(spec));
    executor.cancel();
    let end = spinner.join().unwrap_or_default();
    let published = published?;
    let (latencies_ns, subscriber) = finish(collector.take(), end);
    Ok(Outcome {
        sent: published.sent,
        latencies_ns,
        publisher: published.usage,
        subscriber,
        seconds: published.seconds,
        jpeg: published.jpeg,
    })
}

fn drain(spec: &SeriesSpec) -> Duration {
    let bytes = spec.kind.payload_bytes();
    Duration::from_millis(200 + (bytes / 20_000).min(800))
}

/// The publisher here, `spec.schedule.subscribers` subscriber processes.
/// Latencies are every subscriber's, per subscriber in sequence order; the
/// subscriber's usage is the mean of theirs.
fn two_processes(spec: &SeriesSpec, cmd: &ChildCommand) -> Result<Outcome, SeriesRunError> {
    let cs = ChildSpec {
        system: SeriesSystem::Hibari,
        kind: spec.kind,
        domain: domain(),
        topic: topic_name(),
        warmup: spec.schedule.warmup,
        depth: spec.depth,
        count: spec.schedule.count * spec.schedule.topics.max(1) as u64,
        topics: spec.schedule.topics,
    };
    let arg = serde_json::to_string(&cs).map_err(|e| child_err(&e))?;
    let n = spec.schedule.subscribers.max(1);
    let mut children = (0..n)
        .map(|_| Child::start(cmd, &arg))
        .collect::<Result<Vec<_>, _>>()?;
    let context = Context::with_domain(cs.domain);
    let node = context
        .create_node("bench_pub")
        .map_err(|e| SeriesRunError::Setup(e.to_string()))?;
    let published = publish(&node, &cs.topic, spec.kind, spec.depth, spec.schedule, true);
    std::thread::sleep(drain(spec));
    let reports: Vec<_> = children.iter_mut().map(Child::report).collect();
    let published = published?;
    let (sent, usage, seconds) = (published.sent, published.usage, published.seconds);
    gather(reports, sent, usage, seconds, n, published.jpeg)
}

/// The outcome of a series with `n` subscriber processes: every
/// subscriber's latencies (each in key order, duplicates dropped), the
/// subscribers' mean CPU and their context switches summed.
fn gather(
    reports: Vec<Result<ChildResult, SeriesRunError>>,
    sent: u64,
    publisher: Usage,
    seconds: f64,
    n: usize,
    jpeg: Option<crate::workload::JpegFrames>,
) -> Result<Outcome, SeriesRunError> {
    let (mut latencies_ns, mut subscriber) = (Vec::new(), Usage::default());
    for r in reports {
        let r = r?;
        let mut samples = r.samples;
        samples.sort_unstable();
        samples.dedup_by_key(|s| s.0);
        latencies_ns.extend(samples.into_iter().map(|s| s.1));
        subscriber.cpu_ns += r.cpu_ns / n as u64;
        subscriber.voluntary += r.voluntary;
        subscriber.involuntary += r.involuntary;
    }
    Ok(Outcome {
        sent: sent * n as u64,
        latencies_ns,
        publisher,
        subscriber,
        seconds,
        jpeg,
    })
}
