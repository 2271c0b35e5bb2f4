//! `hibari-bridge`: serves rosbridge v2 and Foxglove WebSocket (and,
//! optionally, rosbridge over TCP) for the hibari domain of this process
//! until interrupted. The `hibari bridge` subcommand runs the same thing.

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context as _;
use clap::Parser;
use hibari::interfaces::Distro;
use hibari_bridge::{Bridge, BridgeConfig};

/// rosbridge v2 and Foxglove WebSocket on one port, for hibari.
#[derive(Parser, Debug)]
#[command(version)]
struct Args {
    /// The address to listen on (0.0.0.0 for every interface).
    #[arg(long, default_value = "127.0.0.1")]
    address: IpAddr,
    /// The WebSocket port (0: any free port).
    #[arg(long, default_value_t = 9090)]
    port: u16,
    /// The WebSocket path.
    #[arg(long, default_value = "/")]
    path: String,
    /// Also serve rosbridge over TCP (ROS 1 framing) on this port.
    #[arg(long)]
    tcp_port: Option<u16>,
    /// The domain (default: HIBARI_DOMAIN_ID, else 0).
    #[arg(long)]
    domain: Option<u32>,
    /// Bundled interface definitions: humble or jazzy.
    #[arg(long, default_value = "jazzy")]
    distro: Distro,
    /// A folder of interface packages (repeatable; HIBARI_INTERFACE_PATH too).
    #[arg(long = "interfaces")]
    interface_paths: Vec<PathBuf>,
    /// Data messages queued per client subscription before the oldest drop.
    #[arg(long, default_value_t = 1000)]
    queue_depth: usize,
    /// Require rosauth-style authentication with this secret.
    #[arg(long)]
    auth_secret: Option<String>,
    /// Print the clients and their drops every this many seconds (0: never).
    #[arg(long, default_value_t = 0)]
    stats_every: u64,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
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
        .auth_secret(args.auth_secret);
    for p in args.interface_paths {
        config = config.interface_path(p);
    }
    let bridge = Bridge::start(&context, config).context("starting the bridge")?;
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
