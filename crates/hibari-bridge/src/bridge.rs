//! Starting and stopping a bridge: its node, its runtime, its listeners.
//!
//! [`Bridge::start`] creates the bridge's node in the given context, loads
//! the interface registry, starts a small tokio runtime of its own (the
//! network side) and one executor thread spinning the node (hibari's side:
//! subscription callbacks, which only encode and queue, and the servers of
//! client-advertised services), binds the listeners and returns. Dropping
//! the [`Bridge`] (or [`Bridge::shutdown`]) closes every connection and
//! removes every endpoint it made.

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use hibari::interfaces::Registry;
use hibari::{Context, Node, SingleThreadedExecutor};
use thiserror::Error;
use tokio::net::TcpListener;

use crate::config::BridgeConfig;
use crate::conn;
use crate::core::Core;
use crate::outbox::Frame;
use crate::stats::BridgeStats;

/// Why a bridge could not start.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum BridgeStartError {
    /// The bridge's node could not be created (a bad `node_name`?).
    #[error("cannot create the bridge's node: {0}")]
    Node(#[from] hibari::NodeCreateError),
    /// An interface folder could not be read or parsed.
    #[error("cannot load the interface definitions: {0}")]
    Interfaces(#[from] hibari::interfaces::IdlLoadError),
    /// The bridge's own endpoints could not be created.
    #[error("cannot create the bridge's endpoints: {0}")]
    Endpoints(#[from] hibari::PublisherCreateError),
    /// The node could not be given to the executor.
    #[error("cannot spin the bridge's node: {0}")]
    Executor(#[from] hibari::NodeAddError),
    /// The tokio runtime could not start.
    #[error("cannot start the bridge's runtime: {0}")]
    Runtime(std::io::Error),
    /// A listener could not bind (the port is taken, or not allowed).
    #[error("cannot listen on {address}: {source}; choose another port (0 picks a free one)")]
    Bind {
        /// The address.
        address: SocketAddr,
        /// What the OS said.
        source: std::io::Error,
    },
}

/// A running bridge (see the [crate docs](crate)).
pub struct Bridge {
    core: Arc<Core>,
    runtime: Option<tokio::runtime::Runtime>,
    executor: Arc<SingleThreadedExecutor>,
    /// Set before `cancel()`: a cancel only stops a spin already running,
    /// so the spinner also looks at this (when it starts, and after every
    /// wake-up).
    stopping: Arc<std::sync::atomic::AtomicBool>,
    spinner: Option<JoinHandle<()>>,
    ws_addr: SocketAddr,
    tcp_addr: Option<SocketAddr>,
}

impl std::fmt::Debug for Bridge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bridge")
            .field("websocket", &self.ws_addr)
            .field("tcp", &self.tcp_addr)
            .finish()
    }
}

async fn bind(address: SocketAddr) -> Result<TcpListener, BridgeStartError> {
    TcpListener::bind(address)
        .await
        .map_err(|source| BridgeStartError::Bind { address, source })
}

impl Bridge {
    /// Starts a bridge in `context` with `config`; it serves until dropped.
    pub fn start(context: &Context, config: BridgeConfig) -> Result<Bridge, BridgeStartError> {
        let mut registry = Registry::bundled(config.distro);
        registry.add_from_env()?;
        for path in &config.interface_paths {
            registry.add_search_path(path)?;
        }
        let node = context.create_node(&config.node_name)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(config.worker_threads)
            .thread_name("hibari-bridge")
            .enable_all()
            .build()
            .map_err(BridgeStartError::Runtime)?;
        let (ws, tcp) = runtime.block_on(async {
            let ws = bind(config.address).await?;
            let tcp = match config.tcp_port {
                Some(port) => Some(bind(SocketAddr::new(config.address.ip(), port)).await?),
                None => None,
            };
            Ok::<_, BridgeStartError>((ws, tcp))
        })?;
        let ws_addr = ws.local_addr().map_err(BridgeStartError::Runtime)?;
        let tcp_addr = match &tcp {
            Some(t) => Some(t.local_addr().map_err(BridgeStartError::Runtime)?),
            None => None,
        };
        let core = Arc::new(Core::new(
            node.clone(),
            registry,
            config,
            runtime.handle().clone(),
        )?);
        let executor = Arc::new(SingleThreadedExecutor::new());
        executor.add_node(&node)?;
        let e = executor.clone();
        let stopping = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stop = stopping.clone();
        let spinner = std::thread::Builder::new()
            .name("hibari-bridge-exec".into())
            .spawn(move || {
                e.spin_until(
                    || stop.load(std::sync::atomic::Ordering::Acquire),
                    Duration::MAX,
                );
            })
            .map_err(BridgeStartError::Runtime)?;
        runtime.spawn(accept(core.clone(), ws, false));
        if let Some(tcp) = tcp {
            runtime.spawn(accept(core.clone(), tcp, true));
        }
        runtime.spawn(watch(core.clone()));
        Ok(Bridge {
            core,
            runtime: Some(runtime),
            executor,
            stopping,
            spinner: Some(spinner),
            ws_addr,
            tcp_addr,
        })
    }

    /// The WebSocket address (with the real port when the config said 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.ws_addr
    }

    /// The TCP address, if the bridge listens on TCP.
    pub fn tcp_addr(&self) -> Option<SocketAddr> {
        self.tcp_addr
    }

    /// The bridge's node.
    pub fn node(&self) -> &Node {
        &self.core.node
    }

    /// Clients, queues, drops and counters now.
    pub fn stats(&self) -> BridgeStats {
        let c = &self.core.counters;
        BridgeStats {
            clients: self.core.client_stats(),
            connections: c.connections.load(Ordering::Relaxed),
            messages_in: c.messages_in.load(Ordering::Relaxed),
            published: c.published.load(Ordering::Relaxed),
            errors: c.errors.load(Ordering::Relaxed),
            subscribed_topics: self.core.hub.len(),
            published_topics: self.core.publishers.len(),
            action_goals: c.goals.load(Ordering::Relaxed),
        }
    }

    /// Stops serving: closes every connection and removes the bridge's
    /// endpoints. Dropping the bridge does the same.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_timeout(Duration::from_secs(1));
        }
        self.stopping
            .store(true, std::sync::atomic::Ordering::Release);
        self.executor.cancel();
        if let Some(spinner) = self.spinner.take() {
            let _ = spinner.join();
        }
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        self.stop();
    }
}

async fn accept(core: Arc<Core>, listener: TcpListener, tcp: bool) {
    loop {
        let Ok((stream, peer)) = listener.accept().await else {
            // Out of file descriptors, for instance: wait, then go on.
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let core = core.clone();
        if tcp {
            tokio::spawn(conn::serve_tcp(core, stream, peer));
        } else {
            tokio::spawn(conn::serve_ws(core, stream, peer));
        }
    }
}

/// Keeps the Foxglove directory in step with the graph, and sends the
/// Foxglove clients the time.
async fn watch(core: Arc<Core>) {
    let changed = Arc::new(tokio::sync::Notify::new());
    let n = changed.clone();
    let _token = core
        .node
        .context()
        .transport()
        .watch_graph(Arc::new(move || n.notify_one()));
    core.fox.refresh(&core);
    let mut tick = tokio::time::interval(core.config.time_interval);
    loop {
        tokio::select! {
            _ = changed.notified() => {
                // Let a burst of graph changes settle into one update.
                tokio::time::sleep(Duration::from_millis(10)).await;
                core.fox.refresh(&core);
            }
            _ = tick.tick() => {
                let (sec, nanosec) = core.now();
                let ns = sec as u64 * 1_000_000_000 + nanosec as u64;
                let mut frame = Vec::with_capacity(9);
                frame.push(0x02);
                frame.extend_from_slice(&ns.to_le_bytes());
                core.fox.broadcast(&Frame::Binary(frame.into()));
            }
        }
    }
}
