//! `hibari-bridge`: serves rosbridge v2 and Foxglove WebSocket (and,
//! optionally, rosbridge over TCP) for the hibari domain of this process
//! until interrupted. `hibari bridge` runs the same thing.

#![forbid(unsafe_code)]
use clap::Parser;
use hibari_bridge::cmd::{serve, BridgeArgs};

#[derive(Parser, Debug)]
#[command(
    version,
    about = "rosbridge v2 and Foxglove WebSocket on one port, for hibari"
)]
struct Cli {
    #[command(flatten)]
    args: BridgeArgs,
}

fn main() -> anyhow::Result<()> {
    serve(Cli::parse().args)?;
    Ok(())
}
