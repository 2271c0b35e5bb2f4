//! The rosapi services roslibjs, roslibpy and Lichtblick call, answered
//! inside the bridge from the hibari graph and the interface registry (no
//! separate rosapi node, no polling round trips). Request and response
//! fields are rosapi_msgs' (bridge.md §4.1, V4).
//!
//! hibari has no parameter server: the parameter services answer as for an
//! empty one (`get_param` gives back the `default` it was passed) — which
//! is also what rosapi answers for a parameter `params_glob` keeps out, so
//! that glob changes nothing here.
//!
//! The access-control globs filter the answers as rosapi's do: topics
//! `topics_glob` keeps out are not listed and have no type, publishers or
//! subscribers; services `services_glob` keeps out (the rosapi services
//! themselves included) are not listed and have no type or provider.
//! Unlike rosapi, `node_details` is filtered too.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use hibari::interfaces::model::{ArrayKind, BaseType, Literal, MessageDef};
use hibari::interfaces::TypeName;
use hibari::EndpointKind;
use serde_json::{json, Value as Json};

use super::args::normalize_type;
use crate::core::Core;

/// The rosapi services the bridge answers (listed by `services`).
pub(crate) const SERVICES: &[&str] = &[
    "action_servers",
    "delete_param",
    "get_param",
    "get_param_names",
    "get_time",
    "has_param",
    "interfaces",
    "message_details",
    "node_details",
    "nodes",
    "publishers",
    "search_param",
    "service_node",
    "service_providers",
    "service_request_details",
    "service_response_details",
    "service_type",
    "services",
    "services_for_type",
    "set_param",
    "subscribers",
    "topic_type",
    "topics",
    "topics_and_raw_types",
    "topics_for_type",
];

fn arg<'a>(args: Option<&'a Json>, name: &str) -> &'a str {
    args.and_then(|a| a.get(name))
        .and_then(Json::as_str)
        .unwrap_or("")
}

fn base_name(base: &BaseType) -> String {
    match base {
        BaseType::Primitive(p) => p.msg_name().to_owned(),
        BaseType::String { .. } => "string".into(),
        BaseType::WString { .. } => "wstring".into(),
        BaseType::Named(t) => t.to_string(),
    }
}

fn literal(l: &Literal) -> String {
    match l {
        Literal::Bool(b) => if *b { "True" } else { "False" }.into(),
        Literal::Int(i) => i.to_string(),
        Literal::Float(f) => f.to_string(),
        Literal::String(s) => s.clone(),
        Literal::Array(items) => format!(
            "[{}]",
            items.iter().map(literal).collect::<Vec<_>>().join(", ")
        ),
    }
}

fn typedef(def: &MessageDef) -> Json {
    let mut names = Vec::new();
    let mut types = Vec::new();
    let mut lens = Vec::new();
    let mut examples = Vec::new();
    for f in &def.fields {
        names.push(f.name.clone());
        types.push(base_name(&f.ty.base));
        let (len, example) = match f.ty.array {
            ArrayKind::Single => (
                -1i64,
                match &f.ty.base {
                    BaseType::Named(_) => "{}".into(),
                    BaseType::String { .. } | BaseType::WString { .. } => String::new(),
                    BaseType::Primitive(p) if p.msg_name() == "bool" => "False".into(),
                    BaseType::Primitive(_) => "0".into(),
                },
            ),
            ArrayKind::Fixed(n) => (n as i64, "[]".into()),
            ArrayKind::Bounded(_) | ArrayKind::Unbounded => (0, "[]".into()),
        };
        lens.push(len);
        examples.push(example);
    }
    json!({
        "type": def.name.to_string(),
        "fieldnames": names,
        "fieldtypes": types,
        "fieldarraylen": lens,
        "examples": examples,
        "constnames": def.constants.iter().map(|c| c.name.clone()).collect::<Vec<_>>(),
        "constvalues": def.constants.iter().map(|c| literal(&c.value)).collect::<Vec<_>>(),
    })
}

/// The typedefs of `ty` and every type it contains, `ty` first.
fn typedefs(core: &Core, ty: &str, kind: &str) -> Vec<Json> {
    let Some(top) = normalize_type(ty, kind).and_then(|t| TypeName::parse(&t)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    let mut queue = VecDeque::from([top]);
    while let Some(t) = queue.pop_front() {
        if !seen.insert(t.clone()) {
            continue;
        }
        let Some(def) = core.registry.message(&t) else {
            continue;
        };
        out.push(typedef(def));
        for f in &def.fields {
            if let BaseType::Named(n) = &f.ty.base {
                queue.push_back(n.clone());
            }
        }
    }
    out
}

fn node_names(core: &Core, topic: &str, kind: EndpointKind) -> Vec<String> {
    let infos = match kind {
        EndpointKind::Writer => core.node.get_publishers_info_by_topic(topic),
        EndpointKind::Reader => core.node.get_subscriptions_info_by_topic(topic),
    };
    let names: BTreeSet<String> = infos
        .unwrap_or_default()
        .iter()
        .filter(|i| !i.node_name.is_empty())
        .map(|i| match i.node_namespace.as_str() {
            "/" | "" => format!("/{}", i.node_name),
            ns => format!("{ns}/{}", i.node_name),
        })
        .collect();
    names.into_iter().collect()
}

fn services(core: &Core) -> BTreeMap<String, Vec<String>> {
    let mut all = core.node.get_service_names_and_types();
    for s in SERVICES {
        all.entry(format!("/rosapi/{s}")).or_default();
    }
    all.retain(|s, _| core.service_allowed(s, s));
    all
}

/// Answers the rosapi service `name` (without `/rosapi/`).
pub(crate) fn call(core: &Core, name: &str, args: Option<&Json>) -> Result<Json, String> {
    let topics = || {
        let mut all = core.node.get_topic_names_and_types();
        all.retain(|t, _| core.topic_allowed(t, t));
        all
    };
    let first = |types: &Vec<String>| types.first().cloned().unwrap_or_default();
    Ok(match name {
        "topics" => {
            let t = topics();
            json!({"topics": t.keys().collect::<Vec<_>>(), "types": t.values().map(first).collect::<Vec<_>>()})
        }
        "topics_for_type" => {
            let want = normalize_type(arg(args, "type"), "msg").unwrap_or_default();
            let found: Vec<String> = topics()
                .into_iter()
                .filter(|(_, types)| types.contains(&want))
                .map(|(t, _)| t)
                .collect();
            json!({ "topics": found })
        }
        "topic_type" => {
            let topic = core.resolve(arg(args, "topic")).unwrap_or_default();
            json!({ "type": topics().get(&topic).map(first).unwrap_or_default() })
        }
        "topics_and_raw_types" => {
            let t = topics();
            let types: Vec<String> = t.values().map(first).collect();
            let texts: Vec<String> = types.iter().map(|ty| core.schema_text(ty)).collect();
            json!({"topics": t.keys().collect::<Vec<_>>(), "types": types, "typedefs_full_text": texts})
        }
        "publishers" | "subscribers" => {
            let topic = core.resolve(arg(args, "topic")).unwrap_or_default();
            if !core.topic_allowed(&topic, &topic) {
                return Ok(json!({ name: [] }));
            }
            let kind = if name == "publishers" {
                EndpointKind::Writer
            } else {
                EndpointKind::Reader
            };
            json!({ name: node_names(core, &topic, kind) })
        }
        "services" => json!({ "services": services(core).keys().collect::<Vec<_>>() }),
        "services_for_type" => {
            let want = normalize_type(arg(args, "type"), "srv").unwrap_or_default();
            let found: Vec<String> = services(core)
                .into_iter()
                .filter(|(_, types)| types.contains(&want))
                .map(|(s, _)| s)
                .collect();
            json!({ "services": found })
        }
        "service_type" => {
            let service = core.resolve(arg(args, "service")).unwrap_or_default();
            let types = match core.service_allowed(&service, &service) {
                true => core.service_types(&service),
                false => Vec::new(),
            };
            json!({ "type": types.first().cloned().unwrap_or_default() })
        }
        "service_node" | "service_providers" => {
            let service = core.resolve(arg(args, "service")).unwrap_or_default();
            let request_topic = match core.service_allowed(&service, &service) {
                true => format!("rq{service}Request"),
                false => String::new(),
            };
            let nodes: BTreeSet<String> = core
                .node
                .graph()
                .endpoints
                .iter()
                .filter(|e| e.kind == EndpointKind::Reader && e.spec.topic == request_topic)
                .filter_map(|e| e.node.as_ref().map(|n| n.fully_qualified_name()))
                .collect();
            let nodes: Vec<String> = nodes.into_iter().collect();
            match name {
                "service_node" => json!({ "node": nodes.first().cloned().unwrap_or_default() }),
                _ => json!({ "providers": nodes }),
            }
        }
        "nodes" => json!({ "nodes": core.node.get_node_names() }),
        "node_details" => node_details(core, arg(args, "node")),
        "message_details" => json!({ "typedefs": typedefs(core, arg(args, "type"), "msg") }),
        "service_request_details" | "service_response_details" => {
            let suffix = if name == "service_request_details" {
                "_Request"
            } else {
                "_Response"
            };
            let ty = normalize_type(arg(args, "type"), "srv").unwrap_or_default();
            json!({ "typedefs": typedefs(core, &format!("{ty}{suffix}"), "srv") })
        }
        "get_time" => {
            let (sec, nanosec) = core.now();
            json!({"time": {"sec": sec, "nanosec": nanosec}})
        }
        "interfaces" => {
            let mut names: Vec<String> = core
                .registry
                .messages()
                .map(|d| d.name.to_string())
                .collect();
            names.extend(core.registry.services().map(|d| d.name.to_string()));
            names.extend(core.registry.actions().map(|d| d.name.to_string()));
            json!({ "interfaces": names })
        }
        "action_servers" => json!({ "action_servers": action_servers(core) }),
        "get_param" => {
            let default = args.and_then(|a| a.get("default")).cloned();
            json!({ "value": default.unwrap_or(Json::String(String::new())) })
        }
        "set_param" | "delete_param" => json!({}),
        "has_param" => json!({ "exists": false }),
        "search_param" => json!({ "global_name": "" }),
        "get_param_names" => json!({ "names": [] }),
        other => return Err(format!("Service /rosapi/{other} does not exist")),
    })
}

/// The actions some node serves: those whose `send_goal` service has a
/// server (an action client alone does not make an action server, though
/// it also makes the action's topics). Sorted; `services_glob` applies, as
/// it does to every action op.
fn action_servers(core: &Core) -> Vec<String> {
    let servers: BTreeSet<String> = core
        .node
        .graph()
        .endpoints
        .iter()
        .filter(|e| e.kind == EndpointKind::Reader)
        .filter_map(|e| {
            e.spec
                .topic
                .strip_prefix("rq")?
                .strip_suffix("/_action/send_goalRequest")
                .map(str::to_owned)
        })
        .filter(|a| core.service_allowed(a, a))
        .collect();
    servers.into_iter().collect()
}

fn node_details(core: &Core, node: &str) -> Json {
    let graph = core.node.graph();
    let mut publishing = BTreeSet::new();
    let mut subscribing = BTreeSet::new();
    let mut services = BTreeSet::new();
    for e in &graph.endpoints {
        let Some(n) = &e.node else { continue };
        if n.fully_qualified_name() != node {
            continue;
        }
        let topic = &e.spec.topic;
        if let Some(s) = topic
            .strip_prefix("rq/")
            .and_then(|t| t.strip_suffix("Request"))
        {
            let s = format!("/{s}");
            if e.kind == EndpointKind::Reader && core.service_allowed(&s, &s) {
                services.insert(s);
            }
        } else if topic.starts_with("rr/") || !core.topic_allowed(topic, topic) {
        } else if e.kind == EndpointKind::Writer {
            publishing.insert(topic.clone());
        } else {
            subscribing.insert(topic.clone());
        }
    }
    json!({"subscribing": subscribing, "publishing": publishing, "services": services})
}
