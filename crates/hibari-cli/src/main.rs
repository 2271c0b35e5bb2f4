//! `hibari`: the command-line tool. One file per subcommand under `cmd/`.

#![forbid(unsafe_code)]
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
    /// Topics: list, info, type, find, echo, pub, hz, bw, delay (as `ros2 topic`).
    Topic(cmd::topic::TopicArgs),
    /// Nodes: list, info (as `ros2 node`).
    Node(cmd::node::NodeArgs),
    /// Services: list, type, find, call (as `ros2 service`).
    Service(cmd::service::ServiceArgs),
    /// Parameters of a node: list, get, set, describe, delete, dump, load.
    Param(cmd::param::ParamArgs),
    /// Actions: list, info, send_goal (as `ros2 action`).
    Action(cmd::action::ActionArgs),
    /// Bags: record, play, info, reindex (as `ros2 bag`, MCAP storage).
    Bag(cmd::bag::BagArgs),
    /// Run the demo: a message round-trip through CDR, typed and dynamic.
    Demo(cmd::demo::DemoArgs),
    /// Serve rosbridge v2 and Foxglove WebSocket (and rosbridge over TCP).
    Bridge(hibari_bridge::cmd::BridgeArgs),
    /// Measure: the published experiments and a latency sweep, with the peers.
    Bench(cmd::bench::BenchArgs),
    /// Print a shell completion script (`source <(hibari completions bash)`).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Internal: the ping-pong subscriber process of `hibari bench latency`.
    #[command(name = "__child", hide = true)]
    BenchIpcChild(cmd::bench::IpcChildArgs),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Interface(args) => cmd::interface::run(args),
        Command::Topic(args) => cmd::topic::run(args),
        Command::Node(args) => cmd::node::run(args),
        Command::Service(args) => cmd::service::run(args),
        Command::Param(args) => cmd::param::run(args),
        Command::Action(args) => cmd::action::run(args),
        Command::Bag(args) => cmd::bag::run(args),
        Command::Demo(args) => cmd::demo::run(args),
        Command::Bridge(args) => hibari_bridge::cmd::serve(args).map_err(Into::into),
        Command::Bench(args) => cmd::bench::run(args),
        Command::BenchIpcChild(args) => cmd::bench::ipc_child(args),
        Command::Completions { shell } => {
            use clap::CommandFactory as _;
            clap_complete::generate(shell, &mut Cli::command(), "hibari", &mut std::io::stdout());
            Ok(())
        }
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        // The reader went away (`hibari interface list | head`): not an error.
        Err(e) if is_broken_pipe(&e) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", error_text(&e));
            std::process::ExitCode::FAILURE
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The error and its causes joined by `: `, leaving out a cause whose text
/// the message before it already ends with (many errors print their source
/// and also return it from `source()`, which would say everything twice).
fn error_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    let mut previous = String::new();
    for cause in e.chain() {
        let message = cause.to_string();
        if previous.ends_with(&message) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&message);
        previous = message;
    }
    text
}
