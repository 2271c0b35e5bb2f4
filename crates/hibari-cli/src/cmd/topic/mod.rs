//! `hibari topic`: `ros2 topic`'s verbs with its flags and output shapes,
//! over whatever transports the context has (shared memory to hibari
//! processes, DDS to ROS 2 nodes and other hosts).

mod echo;
mod graph;
mod publish;
mod rate;

use anyhow::Result;
use clap::{Args, Subcommand};

use super::common::qos::QosArgs;
use super::common::GraphArgs;

#[derive(Args, Debug)]
pub struct TopicArgs {
    #[command(flatten)]
    graph: GraphArgs,
    #[command(subcommand)]
    command: TopicCommand,
}

#[derive(Subcommand, Debug)]
enum TopicCommand {
    /// List the topics (`-t`: with their types).
    List {
        #[arg(short = 't', long = "show-types")]
        show_types: bool,
        /// Also topics with a name part starting with `_`.
        #[arg(long)]
        include_hidden_topics: bool,
        /// Print the number of topics only.
        #[arg(short = 'c', long)]
        count_topics: bool,
        #[arg(long)]
        json: bool,
    },
    /// A topic's type, publisher and subscription counts (`-v`: each endpoint).
    Info {
        topic: String,
        #[arg(short, long)]
        verbose: bool,
        #[arg(long)]
        json: bool,
    },
    /// A topic's type.
    Type { topic: String },
    /// The topics of a type.
    Find {
        type_name: String,
        #[arg(short = 'c', long)]
        count_topics: bool,
        #[arg(long)]
        include_hidden_topics: bool,
    },
    /// Print the messages of a topic (as YAML; `--csv`, `--json`).
    Echo(echo::EchoArgs),
    /// Publish a message given as YAML, repeatedly or once.
    Pub(publish::PubArgs),
    /// The rate of a topic: average, min, max, standard deviation.
    Hz(rate::HzArgs),
    /// The bandwidth a topic uses.
    Bw(rate::BwArgs),
    /// The delay from a message's `header.stamp` to its reception.
    Delay(rate::DelayArgs),
}

/// The QoS flags, shared by `echo` and `pub`.
#[derive(Args, Debug, Clone, Default)]
pub struct TopicQos {
    #[command(flatten)]
    pub qos: QosArgs,
}

pub fn run(args: TopicArgs) -> Result<()> {
    match args.command {
        TopicCommand::List {
            show_types,
            include_hidden_topics,
            count_topics,
            json,
        } => graph::list(
            &args.graph,
            show_types,
            include_hidden_topics,
            count_topics,
            json,
        ),
        TopicCommand::Info {
            topic,
            verbose,
            json,
        } => graph::info(&args.graph, &topic, verbose, json),
        TopicCommand::Type { topic } => graph::type_of(&args.graph, &topic),
        TopicCommand::Find {
            type_name,
            count_topics,
            include_hidden_topics,
        } => graph::find(&args.graph, &type_name, count_topics, include_hidden_topics),
        TopicCommand::Echo(a) => echo::run(&args.graph, a),
        TopicCommand::Pub(a) => publish::run(&args.graph, a),
        TopicCommand::Hz(a) => rate::hz(&args.graph, a),
        TopicCommand::Bw(a) => rate::bw(&args.graph, a),
        TopicCommand::Delay(a) => rate::delay(&args.graph, a),
    }
}

/// Whether a topic or node name has a part starting with `_` (hidden in
/// ROS 2's listings).
pub fn is_hidden(name: &str) -> bool {
    name.split('/').any(|part| part.starts_with('_'))
}
