//! How a bridge is set up: where it listens, how much it queues per client,
//! and the rosbridge knobs that clients cannot set themselves.
//!
//! Every field has a default that just works ([`BridgeConfig::default`]):
//! WebSocket on `127.0.0.1:9090` path `/` (rosbridge's port; the Foxglove
//! protocol on the same port, chosen by subprotocol), no TCP listener, 1000
//! queued data messages and 16 MiB per client, publishers kept 10 s after
//! their last client left (rosbridge's `unregister_timeout`), service calls
//! that time out after 10 s unless the client says otherwise.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use hibari::interfaces::Distro;

/// The bridge's settings. Build one from [`BridgeConfig::default`] and
/// change what you need with the builder methods.
///
/// ```
/// use hibari_bridge::BridgeConfig;
/// let config = BridgeConfig::default().port(0).tcp_port(Some(0));
/// assert_eq!(config.address().ip().to_string(), "127.0.0.1");
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct BridgeConfig {
    /// The WebSocket address (port 0: any free port; see
    /// [`Bridge::local_addr`](crate::Bridge::local_addr)).
    pub address: SocketAddr,
    /// The HTTP path WebSocket clients connect to (rosbridge's `url_path`).
    pub path: String,
    /// A TCP listener for rosbridge's ROS 1 framing (concatenated JSON),
    /// on this port of the same IP; `None`: no TCP.
    pub tcp_port: Option<u16>,
    /// The name of the bridge's node; rosbridge-relative service names
    /// (`rosapi/topics`) resolve in its namespace, `/`.
    pub node_name: String,
    /// Which bundled interface definitions to use (plus the packages found
    /// through `HIBARI_INTERFACE_PATH`).
    pub distro: Distro,
    /// Extra folders of interface packages.
    pub interface_paths: Vec<PathBuf>,
    /// Data messages queued per client subscription before the oldest is
    /// dropped (when the subscription sets no `queue_length`).
    pub queue_depth: usize,
    /// Bytes of data messages queued per client before the oldest are
    /// dropped: with it, a stalled client holds at most this much.
    pub max_queued_bytes: usize,
    /// Control messages (service responses, status, advertisements) queued
    /// per client before the client is disconnected: control messages are
    /// never dropped.
    pub max_control_messages: usize,
    /// The largest incoming message (a WebSocket message, a TCP JSON
    /// object, a reassembled fragment series); larger ones close the
    /// connection.
    pub max_message_size: usize,
    /// How long a publisher stays after its last client unadvertised it.
    pub unregister_timeout: Duration,
    /// A `call_service` without a `timeout` fails after this long.
    pub call_service_timeout: Duration,
    /// How long incoming fragments wait for the rest of their message.
    pub fragment_timeout: Duration,
    /// When set, rosbridge clients must `auth` first (rosauth's MAC over
    /// this secret) and Foxglove clients are refused.
    pub auth_secret: Option<String>,
    /// How often Foxglove clients get the server's time.
    pub time_interval: Duration,
    /// Worker threads of the bridge's own tokio runtime.
    pub worker_threads: usize,
    /// rosbridge's `topics_glob`: when set, only topics one of these
    /// fnmatch patterns matches can be advertised, published, subscribed
    /// or listed (see [`fnmatch`](crate::fnmatch)); unset: all.
    pub topics_glob: Option<Vec<String>>,
    /// rosbridge's `services_glob`: the same for services (calling,
    /// advertising, listing; the rosapi services included, as rosbridge)
    /// and actions (sending goals, advertising).
    pub services_glob: Option<Vec<String>>,
    /// rosbridge's `params_glob`: the same for the rosapi parameter
    /// services. hibari has no parameters, and rosapi answers a parameter
    /// the glob keeps out as it answers a missing one, so for now this
    /// changes nothing a client can see; it is accepted for compatibility.
    pub params_glob: Option<Vec<String>>,
}

impl Default for BridgeConfig {
    fn default() -> Self {
        BridgeConfig {
            address: SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 9090),
            path: "/".into(),
            tcp_port: None,
            node_name: "hibari_bridge".into(),
            distro: Distro::Jazzy,
            interface_paths: Vec::new(),
            queue_depth: 1000,
            max_queued_bytes: 16 << 20,
            max_control_messages: 10_000,
            max_message_size: 64 << 20,
            unregister_timeout: Duration::from_secs(10),
            call_service_timeout: Duration::from_secs(10),
            fragment_timeout: Duration::from_secs(600),
            auth_secret: None,
            time_interval: Duration::from_secs(1),
            worker_threads: 2,
            topics_glob: None,
            services_glob: None,
            params_glob: None,
        }
    }
}

impl BridgeConfig {
    /// The WebSocket address.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Listens on `ip` (default `127.0.0.1`; `0.0.0.0` for every interface).
    pub fn ip(mut self, ip: IpAddr) -> Self {
        self.address.set_ip(ip);
        self
    }

    /// The WebSocket port (0: any free one).
    pub fn port(mut self, port: u16) -> Self {
        self.address.set_port(port);
        self
    }

    /// The WebSocket path (default `/`).
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// A TCP listener on `port` (0: any free one), or none.
    pub fn tcp_port(mut self, port: Option<u16>) -> Self {
        self.tcp_port = port;
        self
    }

    /// The bridge node's name.
    pub fn node_name(mut self, name: impl Into<String>) -> Self {
        self.node_name = name.into();
        self
    }

    /// The bundled definitions to use.
    pub fn distro(mut self, distro: Distro) -> Self {
        self.distro = distro;
        self
    }

    /// Adds a folder of interface packages.
    pub fn interface_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.interface_paths.push(path.into());
        self
    }

    /// Data messages queued per client subscription.
    pub fn queue_depth(mut self, depth: usize) -> Self {
        self.queue_depth = depth.max(1);
        self
    }

    /// Bytes of data queued per client.
    pub fn max_queued_bytes(mut self, bytes: usize) -> Self {
        self.max_queued_bytes = bytes;
        self
    }

    /// The largest incoming message.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// How long a publisher outlives its last client.
    pub fn unregister_timeout(mut self, timeout: Duration) -> Self {
        self.unregister_timeout = timeout;
        self
    }

    /// The default `call_service` timeout.
    pub fn call_service_timeout(mut self, timeout: Duration) -> Self {
        self.call_service_timeout = timeout;
        self
    }

    /// Requires rosauth-style authentication with `secret`.
    pub fn auth_secret(mut self, secret: Option<String>) -> Self {
        self.auth_secret = secret;
        self
    }

    /// The bridge runtime's worker threads.
    pub fn worker_threads(mut self, threads: usize) -> Self {
        self.worker_threads = threads.max(1);
        self
    }

    /// Only topics matching one of `globs` (fnmatch; `None`: all).
    pub fn topics_glob(mut self, globs: Option<Vec<String>>) -> Self {
        self.topics_glob = globs;
        self
    }

    /// Only services matching one of `globs` (fnmatch; `None`: all).
    pub fn services_glob(mut self, globs: Option<Vec<String>>) -> Self {
        self.services_glob = globs;
        self
    }

    /// Only parameters matching one of `globs` (fnmatch; `None`: all).
    pub fn params_glob(mut self, globs: Option<Vec<String>>) -> Self {
        self.params_glob = globs;
        self
    }
}
