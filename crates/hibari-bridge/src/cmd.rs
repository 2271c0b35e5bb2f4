//! The command line of the bridge, shared by the `hibari bridge` subcommand
//! and the `hibari-bridge` binary: parse [`BridgeArgs`], then [`serve`].

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use hibari::interfaces::Distro;
use thiserror::Error;

use crate::{parse_glob_list, Bridge, BridgeConfig, BridgeStartError};

/// rosbridge v2 and Foxglove WebSocket on one port, for hibari.
#[derive(clap::Args, Debug, Clone)]
pub struct BridgeArgs {
    /// The address to listen on (0.0.0.0 for every interface).
    #[arg(long, default_value = "127.0.0.1")]
    pub address: IpAddr,
    /// The WebSocket port (0: any free port).
    #[arg(long, default_value_t = 9090)]
    pub port: u16,
    /// The WebSocket path.
    #[arg(long, default_value = "/")]
    pub path: String,
    /// Also serve rosbridge over TCP (ROS 1 framing) on this port.
    #[arg(long)]
    pub tcp_port: Option<u16>,
    /// The domain (default: ROS_DOMAIN_ID, else 0).
    #[arg(long)]
    pub domain: Option<u32>,
    /// Bundled interface definitions: humble or jazzy.
    #[arg(long, default_value = "jazzy")]
    pub distro: Distro,
    /// A folder of interface packages (repeatable; HIBARI_INTERFACE_PATH too).
    #[arg(long = "interfaces")]
    pub interface_paths: Vec<PathBuf>,
    /// Data messages queued per client subscription before the oldest drop.
    #[arg(long, default_value_t = 1000)]
    pub queue_depth: usize,
    /// Require rosauth-style authentication with this secret.
    #[arg(long)]
    pub auth_secret: Option<String>,
    /// rosbridge's topics_glob: only topics matching one of these fnmatch
    /// patterns can be used or listed, written `[/a/*, /b]` or `/a/*,/b`
    /// (empty or absent: all).
    #[arg(long)]
    pub topics_glob: Option<String>,
    /// rosbridge's services_glob: the same for services (include
    /// `/rosapi/*` for the rosapi services).
    #[arg(long)]
    pub services_glob: Option<String>,
    /// rosbridge's params_glob: the same for parameters.
    #[arg(long)]
    pub params_glob: Option<String>,
    /// Print the clients and their drops every this many seconds (0: never).
    #[arg(long, default_value_t = 0)]
    pub stats_every: u64,
}

/// Why the bridge could not be served.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The context (domain from the environment) could not be created.
    #[error(transparent)]
    Context(#[from] hibari::ContextCreateError),
    /// The bridge could not start (address in use, bad interface folder…).
    #[error("starting the bridge: {0}")]
    Start(#[from] BridgeStartError),
}

/// A glob flag: absent or empty (rosbridge's default, `""`) is no
/// restriction; `[]` lets nothing through.
fn globs(flag: Option<String>) -> Option<Vec<String>> {
    flag.filter(|s| !s.trim().is_empty())
        .map(|s| parse_glob_list(&s))
}

/// Starts the bridge as `args` say, prints where it listens, and serves until
/// the process is interrupted.
pub fn serve(args: BridgeArgs) -> Result<(), ServeError> {
    let mut builder = hibari::Context::builder();
    if let Some(d) = args.domain {
        builder = builder.domain(d);
    }
    let context = builder.create()?;
    let mut config = BridgeConfig::default()
        .ip(args.address)
        .port(args.port)
        .path(args.path)
        .tcp_port(args.tcp_port)
        .distro(args.distro)
        .queue_depth(args.queue_depth)
        .auth_secret(args.auth_secret)
        .topics_glob(globs(args.topics_glob))
        .services_glob(globs(args.services_glob))
        .params_glob(globs(args.params_glob));
    for p in args.interface_paths {
        config = config.interface_path(p);
    }
    let bridge = Bridge::start(&context, config)?;
    println!(
        "rosbridge v2 and Foxglove WebSocket on ws://{}",
        bridge.local_addr()
    );
    if let Some(tcp) = bridge.tcp_addr() {
        println!("rosbridge over TCP on {tcp}");
    }
    loop {
        std::thread::sleep(Duration::from_secs(args.stats_every.max(1)));
        if args.stats_every > 0 {
            let stats = bridge.stats();
            println!(
                "{} clients, {} in, {} published, {} errors",
                stats.clients.len(),
                stats.messages_in,
                stats.published,
                stats.errors
            );
            for c in stats.clients {
                println!(
                    "  #{} {} {:?}: {} queued ({} B), {} dropped",
                    c.id, c.peer, c.protocol, c.queued_messages, c.queued_bytes, c.dropped
                );
            }
        }
    }
}
