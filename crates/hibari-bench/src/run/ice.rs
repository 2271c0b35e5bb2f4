//! iceoryx2 in the N-process runner: the `scale` experiment's fan-out (one
//! publisher, 1 … 8 subscriber processes) and many-topics series, on the
//! same schedule, payload, children and collection as hibari's, so the two
//! are side by side at every point.
//!
//! iceoryx2 is set up as its users would for this: a `publish_subscribe::<[u8]>`
//! service per topic (no history, subscriber buffer = the series' depth,
//! safe overflow: a full buffer loses its oldest sample, which counts as
//! lost), the publisher loans `loan_slice_uninit(size)`, writes every byte in
//! place (fill, then the due time in bytes 0..8 and the per-topic sequence in
//! 8..16) and sends; then it notifies **one** event service shared by the
//! series' topics, with the topic's index as the event id. Each subscriber
//! process has one listener: a wake-up names the topics that have data, and
//! the subscriber drains those. (One listener per topic would cost a socket
//! and a wake-up per topic; the shared event service is iceoryx2's cheaper
//! way to carry many topics.)
//!
//! The publisher creates the services before the children start, waits
//! until every child's subscribers and listener are connected, and removes
//! every file iceoryx2 created under the series' prefix afterwards
//! (`hbipc_<pid>_…`). A run killed before it could do so leaves them; the
//! next series removes those of processes no longer running
//! (`hibari_bench_ipc::remove_stale_iceoryx2_files`, as `hibari-bench-ipc`
//! does at start).

use std::rc::Rc;
use std::time::{Duration, Instant};

use hibari_bench_ipc::System as _;
use iceoryx2::port::listener::Listener;
use iceoryx2::port::notifier::Notifier;
use iceoryx2::port::publisher::Publisher;
use iceoryx2::port::subscriber::Subscriber;
use iceoryx2::port::update_connections::UpdateConnections;
use iceoryx2::prelude::*;

use super::{drain, Child, ChildCommand, ChildResult, ChildSpec, Outcome, SeriesRunError};
use super::{SeriesSpec, SeriesSystem, STRAGGLERS};
use crate::clock::{mono_ns, sleep_until, Pacer, Usage};
use crate::workload::Kind;

type Node = iceoryx2::node::Node<ipc::Service>;
type PubSub =
    iceoryx2::service::port_factory::publish_subscribe::PortFactory<ipc::Service, [u8], ()>;
type Event = iceoryx2::service::port_factory::event::PortFactory<ipc::Service>;

fn fail(what: &str) -> impl FnOnce(&dyn std::fmt::Debug) -> SeriesRunError + '_ {
    move |e| SeriesRunError::Setup(format!("iceoryx2 {what}: {e:?}"))
}

macro_rules! ice {
    ($what:expr, $e:expr) => {
        $e.map_err(|e| fail($what)(&e))?
    };
}

/// A series' services: a node whose files carry `tag`'s prefix, a
/// publish-subscribe service per topic and the one event service.
struct Services {
    topics: Vec<PubSub>,
    event: Event,
    node: Rc<Node>,
}

fn open(
    tag: &str,
    topics: usize,
    subscribers: usize,
    depth: usize,
    create: bool,
) -> Result<Services, SeriesRunError> {
    let mut config = Config::default();
    let prefix = hibari_bench_ipc::iceoryx2_file_prefix(tag);
    config.global.prefix = ice!("prefix", FileName::new(prefix.as_bytes()));
    // No `Node::wait` here, where iceoryx2 would look at signals.
    let builder = NodeBuilder::new()
        .config(&config)
        .signal_handling_mode(SignalHandlingMode::Disabled);
    let node = Rc::new(ice!("node", builder.create::<ipc::Service>()));
    let name = |s: String| ServiceName::new(&format!("hibari-bench/{tag}/{s}"));
    let nodes = subscribers + 1;
    let mut services = Vec::with_capacity(topics);
    for i in 0..topics {
        let b = node
            .service_builder(&ice!("service name", name(format!("t{i}"))))
            .publish_subscribe::<[u8]>()
            .max_publishers(1)
            .max_subscribers(subscribers)
            .max_nodes(nodes)
            .history_size(0)
            .subscriber_max_buffer_size(depth)
            .enable_safe_overflow(true);
        services.push(match create {
            true => ice!("publish_subscribe create", b.create()),
            false => ice!("publish_subscribe open", b.open()),
        });
    }
    let b = node
        .service_builder(&ice!("service name", name("event".into())))
        .event()
        .max_notifiers(1)
        .max_listeners(subscribers)
        .max_nodes(nodes)
        .event_id_max_value(topics);
    let event = match create {
        true => ice!("event create", b.create()),
        false => ice!("event open", b.open()),
    };
    Ok(Services {
        topics: services,
        event,
        node,
    })
}

/// Removes the series' files once its node and ports are gone (declared
/// before them, so dropped after them).
struct RemoveFiles(String);

impl Drop for RemoveFiles {
    fn drop(&mut self) {
        for path in hibari_bench_ipc::Iceoryx2.leftovers(&self.0) {
            let _ = std::fs::remove_file(path);
        }
    }
}

fn tag() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    // `hbipc_<pid>_`: the stale-file sweep recognises it after a killed run.
    format!(
        "hbipc_{}_s{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// The publisher here, `spec.schedule.subscribers` subscriber processes,
/// iceoryx2 between them (byte arrays only).
pub(super) fn two_processes(
    spec: &SeriesSpec,
    cmd: &ChildCommand,
) -> Result<Outcome, SeriesRunError> {
    let Kind::Bytes { size } = spec.kind else {
        return Err(SeriesRunError::Setup(
            "iceoryx2 series carry byte arrays only".into(),
        ));
    };
    let size = (size as usize).max(16);
    let s = spec.schedule;
    let (n, topics) = (s.subscribers.max(1), s.topics.max(1));
    hibari_bench_ipc::remove_stale_iceoryx2_files();
    let tag = tag();
    let _files = RemoveFiles(tag.clone());
    let services = open(&tag, topics, n, spec.depth, true)?;
    let publishers = services
        .topics
        .iter()
        .map(
            |t| -> Result<Publisher<ipc::Service, [u8], ()>, SeriesRunError> {
                Ok(ice!(
                    "publisher",
                    t.publisher_builder().initial_max_slice_len(size).create()
                ))
            },
        )
        .collect::<Result<Vec<_>, _>>()?;
    let notifier: Notifier<ipc::Service> =
        ice!("notifier", services.event.notifier_builder().create());
    let cs = ChildSpec {
        system: SeriesSystem::Iceoryx2,
        kind: spec.kind,
        domain: 0,
        topic: tag.clone(),
        warmup: s.warmup,
        depth: spec.depth,
        count: s.count * topics as u64,
        topics,
    };
    let arg = serde_json::to_string(&cs).map_err(|e| super::child_err(&e))?;
    let mut children = (0..n)
        .map(|_| Child::start(cmd, &arg))
        .collect::<Result<Vec<_>, _>>()?;
    // Every child's subscribers and listener connected (they are when it
    // said `ready`; this checks it from here).
    let until = Instant::now() + Duration::from_secs(30);
    while services.event.dynamic_config().number_of_listeners() < n
        || services
            .topics
            .iter()
            .any(|t| t.dynamic_config().number_of_subscribers() < n)
    {
        if Instant::now() > until {
            return Err(SeriesRunError::Setup(
                "iceoryx2 subscribers did not connect within 30 s".into(),
            ));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    for p in &publishers {
        ice!("update_connections", p.update_connections());
    }
    let published = publish(&publishers, &notifier, size, s);
    std::thread::sleep(drain(spec));
    let reports: Vec<_> = children.iter_mut().map(Child::report).collect();
    let (sent, usage, seconds) = published?;
    super::gather(reports, sent, usage, seconds, n, None)
}

/// Sends `(warmup + count) × topics` messages on the open-loop schedule
/// (one topic: [`Pacer`], as hibari's series; several: sleeping to each due
/// time in turn, as `publish_topics`). Returns measured messages sent,
/// the process's usage over them and their seconds.
fn publish(
    publishers: &[Publisher<ipc::Service, [u8], ()>],
    notifier: &Notifier<ipc::Service>,
    size: usize,
    s: crate::workload::Schedule,
) -> Result<(u64, Usage, f64), SeriesRunError> {
    let n = publishers.len() as u64;
    let pacer = Pacer::new(s.rate_hz);
    let period_ns = match s.rate_hz > 0.0 {
        true => (1e9 / (s.rate_hz * n as f64)) as u64,
        false => 0,
    };
    let start = mono_ns() + period_ns;
    let (mut first, mut t_first) = (Usage::default(), 0);
    for k in 0..(s.warmup + s.count) * n {
        if k == s.warmup * n {
            first = Usage::process();
            t_first = mono_ns();
        }
        let t = match n {
            1 => pacer.wait(k),
            _ => sleep_until(start + k * period_ns),
        };
        let topic = (k % n) as usize;
        let sample = ice!("loan", publishers[topic].loan_slice_uninit(size));
        let mut sample = sample.write_from_fn(|_| 0x5a);
        let payload = sample.payload_mut();
        payload[..8].copy_from_slice(&t.to_le_bytes());
        payload[8..16].copy_from_slice(&(k / n + 1).to_le_bytes());
        ice!("send", sample.send());
        ice!(
            "notify",
            notifier.notify_with_custom_event_id(EventId::new(topic))
        );
    }
    Ok((
        s.count * n,
        Usage::process().since(&first),
        (mono_ns() - t_first) as f64 / 1e9,
    ))
}

/// The subscriber process of an iceoryx2 series (see [`super::child_main`]).
pub(super) fn child_main(spec: &ChildSpec) -> Result<ChildResult, SeriesRunError> {
    let bad = |e: &dyn std::fmt::Display| SeriesRunError::Child(e.to_string());
    let Kind::Bytes { size } = spec.kind else {
        return Err(bad(&"iceoryx2 series carry byte arrays only"));
    };
    let size = (size as usize).max(16);
    let topics = spec.topics.max(1);
    // Opened, not created: the publisher made them with its subscriber
    // count (`max_subscribers`), which `open` accepts as it is.
    let services = open(&spec.topic, topics, 1, spec.depth, false)?;
    let subscribers = services
        .topics
        .iter()
        .map(
            |t| -> Result<Subscriber<ipc::Service, [u8], ()>, SeriesRunError> {
                Ok(ice!(
                    "subscriber",
                    t.subscriber_builder().buffer_size(spec.depth).create()
                ))
            },
        )
        .collect::<Result<Vec<_>, _>>()?;
    let listener: Listener<ipc::Service> =
        ice!("listener", services.event.listener_builder().create());
    let _node = services.node.clone();
    super::child::say_ready()?;
    let stopped = super::child::stdin_closed();
    let (mut samples, mut first) = (Vec::with_capacity(spec.count as usize), None);
    let mut woken = Vec::with_capacity(topics);
    let mut last = Instant::now();
    loop {
        woken.clear();
        ice!(
            "listener wait",
            listener.timed_wait(|a| woken.push(a.id.as_value()), Duration::from_millis(20))
        );
        for &topic in &woken {
            let Some(sub) = subscribers.get(topic) else {
                return Err(bad(&format!("event id {topic} names no topic")));
            };
            while let Some(sample) = ice!("receive", sub.receive()) {
                let now = mono_ns();
                let p = sample.payload();
                if p.len() != size {
                    return Err(bad(&format!("a sample of {} B, not {size}", p.len())));
                }
                let word =
                    |i: usize| u64::from_le_bytes(p[i..i + 8].try_into().unwrap_or_default());
                let (stamp, sequence) = (word(0), word(8));
                if sequence > spec.warmup {
                    first.get_or_insert_with(Usage::process);
                    samples.push((
                        sequence * topics as u64 + topic as u64,
                        now.saturating_sub(stamp),
                    ));
                }
                last = Instant::now();
            }
        }
        let done = samples.len() as u64 >= spec.count || last.elapsed() > STRAGGLERS;
        if stopped.load(std::sync::atomic::Ordering::Relaxed) && done {
            break;
        }
    }
    let used = first
        .map(|f| Usage::process().since(&f))
        .unwrap_or_default();
    Ok(ChildResult {
        samples,
        cpu_ns: used.cpu_ns,
        voluntary: used.voluntary,
        involuntary: used.involuntary,
    })
}
