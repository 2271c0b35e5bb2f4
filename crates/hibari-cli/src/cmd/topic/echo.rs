//! `topic echo`: decode each message of a topic with its definition and
//! print it as `ros2 topic echo` does (YAML, then `---`), or as CSV, flow
//! YAML or rosbridge JSON lines.

use std::io::Write as _;
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{bail, Context as _, Result};
use clap::Args;
use hibari::dynamic::{self, Value};
use hibari::interfaces::model::{ArrayKind, BaseType, FieldType, TypeName};
use hibari::interfaces::{Distro, Registry};
use hibari::{CdrBytes, SampleInfo};

use super::TopicQos;
use crate::cmd::common::yaml::{self, Printer, Style};
use crate::cmd::common::{self, catch_interrupts, interrupted, GraphArgs, Session};

#[derive(Args, Debug)]
pub struct EchoArgs {
    topic: String,
    /// The message type; read from the graph when left out.
    type_name: Option<String>,
    /// Print the first message and exit.
    #[arg(long)]
    once: bool,
    /// Print only this field (`header.stamp`, `data`).
    #[arg(long)]
    field: Option<String>,
    /// Comma-separated values, one line per message.
    #[arg(long)]
    csv: bool,
    /// One rosbridge JSON object per line.
    #[arg(long, conflicts_with_all = ["csv", "flow_style"])]
    json: bool,
    /// YAML in flow style (`{data: hello}`).
    #[arg(long)]
    flow_style: bool,
    /// Leave array contents out.
    #[arg(long)]
    no_arr: bool,
    /// Leave string contents out.
    #[arg(long)]
    no_str: bool,
    /// Cut arrays, bytes and strings longer than this.
    #[arg(short = 'l', long, default_value_t = 128)]
    truncate_length: usize,
    /// Print arrays and strings in full.
    #[arg(short = 'f', long)]
    full_length: bool,
    /// Also print each message's sequence, stamps and publisher.
    #[arg(short = 'i', long)]
    include_message_info: bool,
    #[command(flatten)]
    qos: TopicQos,
}

pub fn run(graph: &GraphArgs, args: EchoArgs) -> Result<()> {
    catch_interrupts();
    let registry = common::registry(Distro::Jazzy)?;
    let session = Session::joined(graph)?;
    let type_name = match &args.type_name {
        Some(t) => t.clone(),
        None => session.topic_type(&args.topic, "echo")?,
    };
    let ty = common::known_type(&registry, &type_name, "message")?;
    if registry.message(&ty).is_none() {
        bail!("`{ty}` is not a message type");
    }
    let field_ty = match &args.field {
        Some(path) => Some(field_type(&registry, &ty, path)?),
        None => None,
    };
    let publishers = session.publishers(&args.topic)?;
    let qos = args.qos.qos.for_subscription(&publishers);
    // Bounded: a terminal slower than the topic drops the excess, counted.
    let (tx, rx) = mpsc::sync_channel::<(CdrBytes, SampleInfo)>(1024);
    let _subscription = session
        .node
        .create_generic_subscription(&args.topic, &ty.to_string(), qos, move |bytes, info| {
            let _ = tx.try_send((bytes, info));
        })
        .context("subscribing")?;
    let _spinner = session.spin()?;
    let printer = Printer {
        registry: &registry,
        style: Style {
            truncate: (!args.full_length).then_some(args.truncate_length),
            no_arr: args.no_arr,
            no_str: args.no_str,
        },
    };
    let mut out = std::io::stdout().lock();
    while !interrupted() {
        let Ok((bytes, info)) = rx.recv_timeout(Duration::from_millis(100)) else {
            continue;
        };
        let value = match dynamic::decode(&registry, &ty, bytes.bytes()) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("a message that does not decode as {ty}: {e}");
                continue;
            }
        };
        let text = render(&args, &printer, &ty, &value, field_ty.as_ref())?;
        out.write_all(text.as_bytes())?;
        if args.include_message_info {
            writeln!(
                out,
                "source_timestamp: {}\nreceived_timestamp: {}\npublication_sequence_number: {}\n---",
                info.source_timestamp_ns, info.reception_timestamp_ns, info.sequence
            )?;
        }
        out.flush()?;
        if args.once {
            break;
        }
    }
    Ok(())
}

fn render(
    args: &EchoArgs,
    printer: &Printer<'_>,
    ty: &TypeName,
    value: &Value,
    field_ty: Option<&FieldType>,
) -> Result<String> {
    let selected = match &args.field {
        Some(path) => value
            .get_path(path)
            .with_context(|| format!("the message has no field `{path}`"))?,
        None => value,
    };
    if args.json {
        let json = match field_ty {
            None => dynamic::to_json(printer.registry, ty, value),
            Some(_) => {
                serde_json::Value::String(printer.lone(selected, field_ty).trim_end().to_owned())
            }
        };
        return Ok(format!("{json}\n"));
    }
    if args.csv {
        let mut cells = Vec::new();
        csv_cells(printer, selected, &mut cells);
        return Ok(format!("{}\n", cells.join(",")));
    }
    if args.flow_style {
        return Ok(format!("{}\n---\n", printer.flow(selected)));
    }
    let body = match field_ty {
        Some(f) => printer.lone(selected, Some(f)),
        None => printer.message(ty, value),
    };
    Ok(format!("{body}---\n"))
}

/// The type of the field at a dotted path, for printing it alone.
fn field_type(registry: &Registry, ty: &TypeName, path: &str) -> Result<FieldType> {
    let mut current = ty.clone();
    let mut found: Option<FieldType> = None;
    for part in path.split('.') {
        if let Some(f) = &found {
            match (&f.base, f.array) {
                (BaseType::Named(n), ArrayKind::Single) => current = n.clone(),
                _ => bail!("`{path}`: `{part}` is not inside a message"),
            }
        }
        let def = registry
            .message(&current)
            .with_context(|| format!("unknown type {current}"))?;
        let field = def
            .fields
            .iter()
            .find(|f| f.name == part)
            .with_context(|| format!("`{path}`: {current} has no field `{part}`"))?;
        found = Some(field.ty.clone());
    }
    found.context("an empty --field")
}

fn csv_cells(printer: &Printer<'_>, v: &Value, cells: &mut Vec<String>) {
    match v {
        Value::Message(s) => s.iter().for_each(|(_, f)| csv_cells(printer, f, cells)),
        Value::String(s) => cells.push(s.clone()),
        _ if v.array_len().is_some() => {
            let items = yaml::items(v);
            let shown = printer
                .style
                .truncate
                .map_or(items.len(), |n| n.min(items.len()));
            items[..shown]
                .iter()
                .for_each(|i| csv_cells(printer, i, cells));
            if shown < items.len() {
                cells.push("...".into());
            }
        }
        Value::Bool(b) => cells.push(if *b { "True" } else { "False" }.into()),
        Value::Float(f) => cells.push(yaml::py_float(*f)),
        Value::Int(i) => cells.push(i.to_string()),
        Value::UInt(u) => cells.push(u.to_string()),
        other => cells.push(format!("{other:?}")),
    }
}
