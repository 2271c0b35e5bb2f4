//! iceoryx2 0.10 (crates.io), set up as in `shared/specs/measured-ipc.md`.
//!
//! Payloads travel on a `publish_subscribe::<[u8]>()` service with one
//! publisher, one subscriber, no history and a subscriber buffer of 2 (the
//! cell's depth in open loop; a full buffer overwrites its oldest sample); the
//! publisher declares `initial_max_slice_len(size)` (default `Static`
//! allocation), loans `loan_slice_uninit(size)`, fills it in place and sends.
//! The 32-byte ack returns on a second `[u8]` service. In `event` mode each
//! direction also has an event service: the sender calls `Notifier::notify()`
//! after `send()`, the receiver blocks in `Listener::timed_wait` and then calls
//! `receive()` (iceoryx2's ipc events are Unix datagram sockets). In `poll`
//! mode the receiver spins on `receive()`.
//!
//! Both processes use a config whose file prefix is unique to the cell, so
//! the files iceoryx2 creates in `/dev/shm` and under its root path
//! (`/tmp/iceoryx2/`) can be counted, reported and removed afterwards.

use crate::system::{
    Link, LinkError, Mode, Publish, Role, Setup, Subscribe, System, Variant, ACK_LEN,
};
use hibari_cdr::Bytes;
use iceoryx2::port::listener::Listener;
use iceoryx2::port::notifier::Notifier;
use iceoryx2::port::publisher::Publisher;
use iceoryx2::port::subscriber::Subscriber;
use iceoryx2::prelude::*;
use std::path::{Path as StdPath, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

const VARIANTS: &[Variant] = &[
    Variant {
        name: "event",
        mode: Mode::Event,
        transport: "iceoryx2 ipc + listener (unix dgram)",
    },
    Variant {
        name: "poll",
        mode: Mode::Poll,
        transport: "iceoryx2 ipc + receive() spin",
    },
];
const WAIT_SLICE: Duration = Duration::from_millis(200);
const CREATED: &str = "iceoryx2 services created";

/// iceoryx2 as a measured system (see the module docs).
pub struct Iceoryx2;

type Node = iceoryx2::node::Node<ipc::Service>;

fn err(what: &'static str) -> impl FnOnce(&dyn std::fmt::Debug) -> LinkError {
    move |e| LinkError::System {
        system: "iceoryx2",
        what,
        detail: format!("{e:?}"),
    }
}

macro_rules! ice {
    ($what:literal, $e:expr) => {
        $e.map_err(|e| err($what)(&e))?
    };
}

/// The file prefix iceoryx2 uses for the cell `tag`.
pub fn file_prefix(tag: &str) -> String {
    format!("{tag}_")
}

impl System for Iceoryx2 {
    fn name(&self) -> &'static str {
        "iceoryx2"
    }

    fn variants(&self) -> &'static [Variant] {
        VARIANTS
    }

    fn open(&self, setup: Setup<'_>) -> Result<Link, LinkError> {
        if setup.role == Role::Subscriber {
            setup.control.expect_note(CREATED)?;
        }
        let mut config = Config::default();
        config.global.prefix = ice!("prefix", FileName::new(file_prefix(setup.tag).as_bytes()));
        // This harness never calls `Node::wait`, where iceoryx2 checks for termination
        // requests, so it asks for no signal handling at all (Ctrl-C ends the run; the
        // next run removes the files it left, see `remove_stale_files`).
        let builder = NodeBuilder::new()
            .config(&config)
            .signal_handling_mode(SignalHandlingMode::Disabled);
        let node: Rc<Node> = Rc::new(ice!("node", builder.create::<ipc::Service>()));
        let name = |suffix: &str| ServiceName::new(&format!("hibari-bench/{}/{suffix}", setup.tag));
        let pubsub = |suffix: &str, depth: usize| -> Result<_, LinkError> {
            let name = ice!("service name", name(suffix));
            Ok(ice!(
                "publish_subscribe service",
                node.service_builder(&name)
                    .publish_subscribe::<[u8]>()
                    .max_publishers(1)
                    .max_subscribers(1)
                    .history_size(0)
                    .subscriber_max_buffer_size(depth)
                    // Reliable, as every other series: a full queue holds
                    // the publisher back (it retries) instead of losing the
                    // oldest message. Only "as fast as possible" fills it.
                    .enable_safe_overflow(false)
                    .open_or_create()
            ))
        };
        let event = |suffix: &str| -> Result<_, LinkError> {
            let name = ice!("service name", name(suffix));
            Ok(ice!(
                "event service",
                node.service_builder(&name).event().open_or_create()
            ))
        };
        let (data, ack) = (pubsub("data", setup.depth.max(2))?, pubsub("ack", 2)?);
        let evented = setup.variant.mode == Mode::Event;
        let (data_ev, ack_ev) = match evented {
            true => (Some(event("data-event")?), Some(event("ack-event")?)),
            false => (None, None),
        };
        let (out_svc, out_len, out_ev, in_svc, in_ev) = match setup.role {
            Role::Publisher => (&data, setup.size, &data_ev, &ack, &ack_ev),
            Role::Subscriber => (&ack, ACK_LEN, &ack_ev, &data, &data_ev),
        };
        let publisher = ice!(
            "publisher",
            out_svc
                .publisher_builder()
                .initial_max_slice_len(out_len)
                .backpressure_strategy(BackpressureStrategy::RetryUntilDelivered)
                .create()
        );
        let subscriber = ice!("subscriber", in_svc.subscriber_builder().create());
        let notifier = match out_ev {
            Some(ev) => Some(ice!("notifier", ev.notifier_builder().create())),
            None => None,
        };
        let listener = match in_ev {
            Some(ev) => Some(ice!("listener", ev.listener_builder().create())),
            None => None,
        };
        if setup.role == Role::Publisher {
            setup.control.send(&crate::control::Message::Note {
                text: CREATED.into(),
            })?;
        }
        Ok(Link {
            tx: Box::new(IceTx {
                publisher,
                notifier,
                _node: node.clone(),
            }),
            rx: Box::new(IceRx {
                subscriber,
                listener,
                abort: setup.abort,
                _node: node,
            }),
            unblock: Box::new(|| {}),
        })
    }

    fn leftovers(&self, tag: &str) -> Vec<PathBuf> {
        let prefix = file_prefix(tag);
        let mut found = Vec::new();
        collect_prefixed(StdPath::new("/dev/shm"), &prefix, false, &mut found);
        collect_prefixed(&root_path(), &prefix, true, &mut found);
        found.sort();
        found
    }
}

/// Removes files of cells whose publisher process no longer exists (a run
/// killed before it could clean up): names `hbipc_<pid>_…` under `/dev/shm` and
/// iceoryx2's root path, with `<pid>` not running. Returns how many were removed.
pub fn remove_stale_files() -> usize {
    let mut found = Vec::new();
    collect_prefixed(StdPath::new("/dev/shm"), "hbipc_", false, &mut found);
    collect_prefixed(&root_path(), "hbipc_", true, &mut found);
    let dead = |p: &PathBuf| {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let pid = name
            .strip_prefix("hbipc_")
            .and_then(|r| r.split('_').next());
        pid.is_some_and(|pid| {
            !pid.is_empty()
                && pid.bytes().all(|b| b.is_ascii_digit())
                && !StdPath::new("/proc").join(pid).exists()
        })
    };
    found
        .into_iter()
        .filter(dead)
        .filter(|p| std::fs::remove_file(p).is_ok())
        .count()
}

/// iceoryx2's root path for node and service files (`/tmp/iceoryx2/` by default).
pub fn root_path() -> PathBuf {
    let config = Config::default();
    PathBuf::from(String::from_utf8_lossy(config.global.root_path().as_bytes()).into_owned())
}

fn collect_prefixed(dir: &StdPath, prefix: &str, recurse: bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if entry.file_name().to_string_lossy().starts_with(prefix) {
            out.push(path.clone());
        }
        if recurse && is_dir {
            collect_prefixed(&path, prefix, true, out);
        }
    }
}

struct IceTx {
    publisher: Publisher<ipc::Service, [u8], ()>,
    notifier: Option<Notifier<ipc::Service>>,
    _node: Rc<Node>,
}

impl Publish for IceTx {
    fn publish(
        &mut self,
        len: usize,
        fill: u8,
        stamp: &mut dyn FnMut(&mut [u8]),
    ) -> Result<(), LinkError> {
        let sample = ice!("loan", self.publisher.loan_slice_uninit(len));
        let mut sample = sample.write_from_fn(|_| fill);
        stamp(sample.payload_mut());
        ice!("send", sample.send());
        if let Some(notifier) = &self.notifier {
            ice!("notify", notifier.notify());
        }
        Ok(())
    }
}

struct IceRx {
    subscriber: Subscriber<ipc::Service, [u8], ()>,
    listener: Option<Listener<ipc::Service>>,
    abort: Arc<AtomicBool>,
    _node: Rc<Node>,
}

impl Subscribe for IceRx {
    fn receive(&mut self, read: &mut dyn FnMut(Bytes<'_>)) -> Result<(), LinkError> {
        loop {
            // A sample already queued is taken first: one wake-up may announce
            // several samples (open loop), and waiting again would sleep on them.
            if let Some(sample) = ice!("receive", self.subscriber.receive()) {
                read(Bytes::Private(sample.payload()));
                return Ok(());
            }
            if self.abort.load(Ordering::Relaxed) {
                return Err(LinkError::Aborted);
            }
            match &self.listener {
                Some(listener) => {
                    ice!("listener wait", listener.timed_wait(|_| {}, WAIT_SLICE));
                }
                None => std::hint::spin_loop(),
            }
        }
    }
}
