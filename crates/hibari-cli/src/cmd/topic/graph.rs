//! `topic list|info|type|find`: what the graph knows of topics.

use std::io::Write as _;

use anyhow::{bail, Result};
use hibari::{EndpointKind, TopicEndpointInfo};
use serde_json::json;

use super::is_hidden;
use crate::cmd::common::{qos, GraphArgs, Session};

pub fn list(args: &GraphArgs, types: bool, hidden: bool, count: bool, as_json: bool) -> Result<()> {
    let session = Session::discovered(args)?;
    let topics: Vec<(String, Vec<String>)> = session
        .node
        .get_topic_names_and_types()
        .into_iter()
        .filter(|(name, _)| hidden || !is_hidden(name))
        .collect();
    let mut out = std::io::stdout().lock();
    if count {
        writeln!(out, "{}", topics.len())?;
    } else if as_json {
        let list: Vec<_> = topics
            .iter()
            .map(|(name, types)| json!({"name": name, "types": types}))
            .collect();
        writeln!(out, "{}", serde_json::to_string_pretty(&list)?)?;
    } else {
        for (name, t) in &topics {
            if types {
                writeln!(out, "{name} [{}]", t.join(", "))?;
            } else {
                writeln!(out, "{name}")?;
            }
        }
    }
    Ok(())
}

pub fn type_of(args: &GraphArgs, topic: &str) -> Result<()> {
    let session = Session::discovered(args)?;
    let resolved = session.node.resolve_topic_name(topic)?;
    match session.node.get_topic_names_and_types().get(&resolved) {
        Some(types) => {
            let mut out = std::io::stdout().lock();
            for t in types {
                writeln!(out, "{t}")?;
            }
            Ok(())
        }
        None => bail!("unknown topic {resolved}: no publisher or subscription has it"),
    }
}

pub fn find(args: &GraphArgs, type_name: &str, count: bool, hidden: bool) -> Result<()> {
    let session = Session::discovered(args)?;
    let topics: Vec<String> = session
        .node
        .get_topic_names_and_types()
        .into_iter()
        .filter(|(name, types)| {
            (hidden || !is_hidden(name)) && types.iter().any(|t| t == type_name)
        })
        .map(|(name, _)| name)
        .collect();
    let mut out = std::io::stdout().lock();
    if count {
        writeln!(out, "{}", topics.len())?;
    } else {
        for t in topics {
            writeln!(out, "{t}")?;
        }
    }
    Ok(())
}

pub fn info(args: &GraphArgs, topic: &str, verbose: bool, as_json: bool) -> Result<()> {
    let session = Session::discovered(args)?;
    let node = &session.node;
    let resolved = node.resolve_topic_name(topic)?;
    let Some(types) = node.get_topic_names_and_types().remove(&resolved) else {
        bail!("unknown topic {resolved}: no publisher or subscription has it");
    };
    let publishers = node.get_publishers_info_by_topic(&resolved)?;
    let subscriptions: Vec<_> = node
        .get_subscriptions_info_by_topic(&resolved)?
        .into_iter()
        .filter(|s| s.node_name != node.name())
        .collect();
    let mut out = std::io::stdout().lock();
    if as_json {
        let doc = json!({
            "name": resolved,
            "types": types,
            "publishers": publishers.iter().map(endpoint_json).collect::<Vec<_>>(),
            "subscriptions": subscriptions.iter().map(endpoint_json).collect::<Vec<_>>(),
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
        return Ok(());
    }
    let type_line = format!("Type: {}", types.join(", "));
    if !verbose {
        writeln!(out, "{type_line}")?;
        writeln!(out, "Publisher count: {}", publishers.len())?;
        writeln!(out, "Subscription count: {}", subscriptions.len())?;
        return Ok(());
    }
    writeln!(out, "{type_line}\n")?;
    writeln!(out, "Publisher count: {}\n", publishers.len())?;
    for p in &publishers {
        write!(out, "{}", endpoint_text(p))?;
    }
    writeln!(out, "Subscription count: {}\n", subscriptions.len())?;
    for s in &subscriptions {
        write!(out, "{}", endpoint_text(s))?;
    }
    Ok(())
}

fn kind_name(kind: EndpointKind) -> &'static str {
    match kind {
        EndpointKind::Writer => "PUBLISHER",
        EndpointKind::Reader => "SUBSCRIPTION",
    }
}

/// One endpoint as `ros2 topic info -v` prints it, with a blank line after.
fn endpoint_text(e: &TopicEndpointInfo) -> String {
    let namespace = if e.node_namespace.is_empty() {
        "_"
    } else {
        &e.node_namespace
    };
    let name = if e.node_name.is_empty() {
        "_CREATED_BY_BARE_DDS_APP_"
    } else {
        &e.node_name
    };
    format!(
        "Node name: {name}\nNode namespace: {namespace}\nTopic type: {}\nTopic type hash: {}\n\
         Endpoint type: {}\nGID: {}\n{}\n",
        e.topic_type,
        if e.topic_type_hash.is_empty() {
            "INVALID"
        } else {
            &e.topic_type_hash
        },
        kind_name(e.endpoint_type),
        gid(e),
        qos::describe(&e.qos),
    )
}

/// The endpoint id as ROS 2 prints a GID: dot-separated hex bytes.
fn gid(e: &TopicEndpointInfo) -> String {
    e.gid
        .0
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(".")
}

fn endpoint_json(e: &TopicEndpointInfo) -> serde_json::Value {
    json!({
        "node_name": e.node_name,
        "node_namespace": e.node_namespace,
        "topic_type": e.topic_type,
        "topic_type_hash": e.topic_type_hash,
        "endpoint_type": kind_name(e.endpoint_type),
        "gid": gid(e),
        "qos": qos::json(&e.qos),
    })
}
