//! Running one series: publisher and subscriber in one process (the
//! subscriber's node on its own executor thread, in-process transport), or
//! in separate processes (each subscriber is this program re-executed with
//! `--child`, shared-memory transport; `scale` runs up to 8 of them).

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use hibari::{Context, SingleThreadedExecutor};
use hibari_testkit::lines::LineChild;

use crate::clock::Usage;
use crate::workload::{publish, subscribe_topics, Collector, Kind, Schedule};

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

#[derive(serde::Serialize, serde::Deserialize)]
struct ChildSpec {
    kind: Kind,
    domain: u32,
    topic: String,
    warmup: u64,
    depth: usize,
    /// Measured messages the publisher sends (on all topics): after stdin
    /// closes, the child keeps taking until it has them all or none came
    /// for [`STRAGGLERS`].
    count: u64,
    /// Topics of the series (`Schedule::topics`).
    #[serde(default = "one")]
    topics: usize,
}

fn one() -> usize {
    1
}

/// How long a subscriber process waits for a next late sample once the
/// publisher is done (a slow build or a loaded machine delays big ones).
const STRAGGLERS: Duration = Duration::from_secs(2);

#[derive(serde::Serialize, serde::Deserialize)]
struct ChildResult {
    samples: Vec<(u64, u64)>,
    cpu_ns: u64,
    voluntary: u64,
    involuntary: u64,
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
    if spec.two_processes {
        two_processes(spec, child)
    } else {
        one_process(spec)
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

fn child_err(e: &dyn std::fmt::Display) -> SeriesRunError {
    SeriesRunError::Child(e.to_string())
}

/// How long a subscriber process may take to say `ready`, and to report
/// once told to stop: past these it failed (no bench run hangs on one).
const READY_WITHIN: Duration = Duration::from_secs(30);
const REPORT_WITHIN: Duration = Duration::from_secs(60);

/// A subscriber process (killed when dropped): started, it says `ready`;
/// its stdin closed, it stops and prints its report.
struct Child(LineChild);

impl Child {
    /// Starts one and waits for its `ready`.
    fn start(cmd: &ChildCommand, arg: &str) -> Result<Child, SeriesRunError> {
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
    fn report(&mut self) -> Result<ChildResult, SeriesRunError> {
        drop(self.0.child().stdin.take());
        let line = self
            .0
            .next_line(REPORT_WITHIN)
            .map_err(|e| child_err(&format!("no report ({e:?})")))?;
        let _ = self.0.child().wait();
        serde_json::from_str(&line).map_err(|e| child_err(&format!("bad report {line:?}: {e}")))
    }
}

/// The publisher here, `spec.schedule.subscribers` subscriber processes.
/// Latencies are every subscriber's, per subscriber in sequence order; the
/// subscriber's usage is the mean of theirs.
fn two_processes(spec: &SeriesSpec, cmd: &ChildCommand) -> Result<Outcome, SeriesRunError> {
    let cs = ChildSpec {
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
        sent: published.sent * n as u64,
        latencies_ns,
        publisher: published.usage,
        subscriber,
        seconds: published.seconds,
        jpeg: published.jpeg,
    })
}

/// The subscriber process: `spec_json` as written by the parent. Prints
/// `ready` once subscribed, collects until stdin closes and then until it has
/// every measured message (or none came for [`STRAGGLERS`]), then prints one
/// JSON line with its samples and its usage since the first measured message.
pub fn child_main(spec_json: &str) -> Result<(), SeriesRunError> {
    let bad = |e: &dyn std::fmt::Display| SeriesRunError::Child(e.to_string());
    let spec: ChildSpec = serde_json::from_str(spec_json).map_err(|e| bad(&e))?;
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
    let ex = executor.clone();
    let spinner = std::thread::spawn(move || ex.spin());
    let mut stdout = std::io::stdout();
    writeln!(stdout, "ready").map_err(|e| bad(&e))?;
    stdout.flush().map_err(|e| bad(&e))?;
    let mut sink = Vec::new();
    let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut sink);
    let (mut had, mut since) = (collector.len(), std::time::Instant::now());
    while (had as u64) < spec.count && since.elapsed() < STRAGGLERS {
        std::thread::sleep(Duration::from_millis(10));
        if collector.len() > had {
            (had, since) = (collector.len(), std::time::Instant::now());
        }
    }
    executor.cancel();
    let _ = spinner.join();
    let end = Usage::process();
    let c = collector.take();
    let used = c.first.map(|f| end.since(&f)).unwrap_or_default();
    let r = ChildResult {
        samples: c.samples,
        cpu_ns: used.cpu_ns,
        voluntary: used.voluntary,
        involuntary: used.involuntary,
    };
    let text = serde_json::to_string(&r).map_err(|e| bad(&e))?;
    writeln!(stdout, "{text}").map_err(|e| bad(&e))?;
    Ok(())
}
