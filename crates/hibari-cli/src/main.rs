//! `hibari`: the command-line tool. One file per subcommand under `cmd/`.

mod cmd;

use clap::{Parser, Subcommand};

/// hibari: publish/subscribe middleware for robots.
#[derive(Parser, Debug)]
#[command(name = "hibari", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Inspect ROS 2 interface definitions; encode and decode CDR.
    Interface(cmd::interface::InterfaceArgs),
    /// Run the demo: a message round-trip through CDR, typed and dynamic.
    Demo(cmd::demo::DemoArgs),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Interface(args) => cmd::interface::run(args),
        Command::Demo(args) => cmd::demo::run(args),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
