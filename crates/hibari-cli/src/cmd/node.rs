//! `hibari node list|info`, as `ros2 node` prints them.

use std::collections::BTreeMap;
use std::io::Write as _;

use anyhow::{bail, Result};
use clap::{Args, Subcommand};
use serde_json::json;

use super::common::{GraphArgs, Session};
use super::topic::is_hidden;

#[derive(Args, Debug)]
pub struct NodeArgs {
    #[command(flatten)]
    graph: GraphArgs,
    #[command(subcommand)]
    command: NodeCommand,
}

#[derive(Subcommand, Debug)]
enum NodeCommand {
    /// List the nodes of the domain.
    List {
        /// Also hidden nodes (a name part starting with `_`).
        #[arg(short, long)]
        all: bool,
        /// Print the number of nodes only.
        #[arg(short, long)]
        count_nodes: bool,
        #[arg(long)]
        json: bool,
    },
    /// A node's publishers, subscriptions, services and actions.
    Info {
        /// The fully qualified name (`/talker`, `/robot1/camera`).
        node_name: String,
        /// Also hidden topics and services (`_action/…`, …).
        #[arg(long)]
        include_hidden: bool,
        #[arg(long)]
        json: bool,
    },
}

pub fn run(args: NodeArgs) -> Result<()> {
    let session = Session::discovered(&args.graph)?;
    let mut out = std::io::stdout().lock();
    match args.command {
        NodeCommand::List {
            all,
            count_nodes,
            json,
        } => {
            let names: Vec<String> = session
                .node
                .get_node_names()
                .into_iter()
                .filter(|n| all || !is_hidden(n))
                .collect();
            if count_nodes {
                writeln!(out, "{}", names.len())?;
            } else if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&names)?)?;
            } else {
                for n in names {
                    writeln!(out, "{n}")?;
                }
            }
        }
        NodeCommand::Info {
            node_name,
            include_hidden,
            json,
        } => {
            let (namespace, name) = split(&node_name);
            if !session.node.get_node_names().contains(&node_name) {
                bail!("unable to find node '{node_name}' (`hibari node list` shows the nodes)");
            }
            let node = &session.node;
            let keep = |m: BTreeMap<String, Vec<String>>| -> BTreeMap<String, Vec<String>> {
                m.into_iter()
                    .filter(|(n, _)| include_hidden || !is_hidden(n))
                    .collect()
            };
            let services = node.get_service_names_and_types_by_node(name, namespace);
            let clients = node.get_client_names_and_types_by_node(name, namespace);
            let sections = [
                (
                    "Subscribers",
                    keep(node.get_subscriber_names_and_types_by_node(name, namespace)),
                ),
                (
                    "Publishers",
                    keep(node.get_publisher_names_and_types_by_node(name, namespace)),
                ),
                ("Service Servers", keep(services.clone())),
                ("Service Clients", keep(clients.clone())),
                ("Action Servers", actions(&services)),
                ("Action Clients", actions(&clients)),
            ];
            if json {
                let mut doc = serde_json::Map::new();
                doc.insert("name".into(), json!(node_name));
                for (title, entries) in &sections {
                    let key = title.to_lowercase().replace(' ', "_");
                    doc.insert(key, json!(entries));
                }
                writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
                return Ok(());
            }
            writeln!(out, "{node_name}")?;
            for (title, entries) in &sections {
                writeln!(out, "  {title}:")?;
                for (topic, types) in entries {
                    writeln!(out, "    {topic}: {}", types.join(", "))?;
                }
            }
        }
    }
    Ok(())
}

/// `/ns/name` → (`/ns`, `name`); `/name` → (`/`, `name`).
fn split(fqn: &str) -> (&str, &str) {
    match fqn.rsplit_once('/') {
        Some(("", name)) => ("/", name),
        Some((ns, name)) => (ns, name),
        None => ("/", fqn),
    }
}

/// The actions among services: `<action>/_action/send_goal` of type
/// `pkg/action/Name_SendGoal` is action `<action>` of type `pkg/action/Name`.
pub fn actions(services: &BTreeMap<String, Vec<String>>) -> BTreeMap<String, Vec<String>> {
    services
        .iter()
        .filter_map(|(name, types)| {
            let action = name.strip_suffix("/_action/send_goal")?;
            let types = types
                .iter()
                .filter_map(|t| t.strip_suffix("_SendGoal").map(str::to_owned))
                .collect();
            Some((action.to_owned(), types))
        })
        .collect()
}
