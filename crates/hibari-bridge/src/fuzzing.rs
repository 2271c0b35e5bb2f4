//! Entry points for the fuzz target `fuzz/fuzz_targets/bridge_input.rs`;
//! not part of the API (hidden from the docs, may change at any time).
//!
//! One bridge core (node, registry, runtime) is made on first use and
//! shared by every input; each input gets a fresh client session, is fed
//! to it the way the network would, has everything the session queued
//! encoded (as the writer would), and is then closed, so nothing an input
//! creates outlives it (publishers go at once: the unregister timeout is
//! zero).

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use hibari::interfaces::{Distro, Registry};
use hibari::Context;

use crate::config::BridgeConfig;
use crate::core::Core;
use crate::foxglove::FoxSession;
use crate::framer::{FramerError, JsonFramer};
use crate::outbox::{Next, Outbox};
use crate::rosbridge::{Flow, Session};

struct Harness {
    core: Arc<Core>,
    _runtime: tokio::runtime::Runtime,
}

fn core() -> Arc<Core> {
    static HARNESS: OnceLock<Harness> = OnceLock::new();
    HARNESS
        .get_or_init(|| {
            let context = Context::builder().isolated().create().expect("a context");
            let node = context.create_node("fuzz_bridge").expect("a node");
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .expect("a runtime");
            let mut config = BridgeConfig::default()
                .unregister_timeout(Duration::ZERO)
                .call_service_timeout(Duration::from_millis(1))
                .max_message_size(1 << 20);
            config.fragment_timeout = Duration::from_secs(1);
            let registry = Registry::bundled(Distro::Jazzy);
            let core = Core::new(node, registry, config, runtime.handle().clone())
                .expect("the bridge's endpoints");
            Harness {
                core: Arc::new(core),
                _runtime: runtime,
            }
        })
        .core
        .clone()
}

/// Encodes everything queued, as the writer would; returns how many frames.
fn drain(out: &Outbox) -> usize {
    let mut n = 0;
    while let Next::Frame(f) = out.next(Instant::now()) {
        if f.resolve().is_some() {
            n += 1;
        }
    }
    n
}

/// `data` as one rosbridge WebSocket frame.
pub fn rosbridge_frame(data: &[u8]) -> usize {
    let core = core();
    let out = Arc::new(Outbox::new(1 << 20, 10_000));
    let mut session = Session::new(core.clone(), core.next_id(), out.clone(), false);
    session.on_frame(data);
    let n = drain(&out);
    session.close();
    n
}

/// `data` as a TCP stream in `chunk`-byte reads; returns the objects found.
pub fn rosbridge_tcp(data: &[u8], chunk: usize) -> Vec<Vec<u8>> {
    let core = core();
    let out = Arc::new(Outbox::new(1 << 20, 10_000));
    let mut session = Session::new(core.clone(), core.next_id(), out.clone(), true);
    let mut framer = JsonFramer::new(1 << 20);
    let mut objects = Vec::new();
    'read: for piece in data.chunks(chunk.max(1)) {
        framer.push(piece);
        while let Some(object) = framer.next_object() {
            let flow = match object {
                Ok(bytes) => {
                    objects.push(bytes.to_vec());
                    session.on_bytes(bytes)
                }
                Err(e @ FramerError::Garbage { .. }) => {
                    session.report_framing(&e);
                    Flow::Continue
                }
                Err(_) => Flow::Close,
            };
            if flow == Flow::Close {
                break 'read;
            }
        }
    }
    drain(&out);
    session.close();
    objects
}

/// `data` as one Foxglove frame: text if `text`, else binary.
pub fn foxglove_frame(data: &[u8], text: bool) -> usize {
    let core = core();
    let out = Arc::new(Outbox::new(1 << 20, 10_000));
    let mut session = FoxSession::start(core.clone(), core.next_id(), out.clone());
    if text {
        session.on_text(data);
    } else {
        session.on_binary(data);
    }
    let n = drain(&out);
    session.close();
    n
}
