//! `hibari service list|type|find|call`, as `ros2 service` does them.
//! Requests are YAML, encoded with the service's definition; responses are
//! printed in flow YAML (`{success: true, message: ''}`).

use std::io::Write as _;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};
use clap::{Args, Subcommand};
use hibari::dynamic;
use hibari::interfaces::model::TypeName;
use hibari::interfaces::Distro;

use super::common::yaml::{self, Printer};
use super::common::{self, catch_interrupts, interrupted, sleep_until, GraphArgs, Session};
use super::topic::is_hidden;

#[derive(Args, Debug)]
pub struct ServiceArgs {
    #[command(flatten)]
    graph: GraphArgs,
    #[command(subcommand)]
    command: ServiceCommand,
}

#[derive(Subcommand, Debug)]
enum ServiceCommand {
    /// List the services (`-t`: with their types).
    List {
        #[arg(short = 't', long = "show-types")]
        show_types: bool,
        /// Also hidden services (`_action/…`, a part starting with `_`).
        #[arg(long)]
        include_hidden_services: bool,
        #[arg(short = 'c', long)]
        count_services: bool,
        #[arg(long)]
        json: bool,
    },
    /// A service's type.
    Type { service_name: String },
    /// The services of a type.
    Find {
        type_name: String,
        #[arg(short = 'c', long)]
        count_services: bool,
    },
    /// Call a service with a request given as YAML and print the response.
    Call {
        service_name: String,
        /// `pkg/srv/Name`; read from the graph when left out.
        service_type: Option<String>,
        /// The request as YAML; missing fields take their defaults.
        #[arg(default_value = "{}")]
        values: String,
        /// Repeat the call at this rate (Hz) until Ctrl-C.
        #[arg(short, long)]
        rate: Option<f64>,
        /// Seconds to wait for each response.
        #[arg(long, default_value_t = 10.0)]
        timeout: f64,
    },
}

pub fn run(args: ServiceArgs) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match args.command {
        ServiceCommand::List {
            show_types,
            include_hidden_services,
            count_services,
            json,
        } => {
            let session = Session::discovered(&args.graph)?;
            let services: Vec<(String, Vec<String>)> = session
                .node
                .get_service_names_and_types()
                .into_iter()
                .filter(|(n, _)| include_hidden_services || !is_hidden(n))
                .collect();
            if count_services {
                writeln!(out, "{}", services.len())?;
            } else if json {
                let list: Vec<_> = services
                    .iter()
                    .map(|(n, t)| serde_json::json!({"name": n, "types": t}))
                    .collect();
                writeln!(out, "{}", serde_json::to_string_pretty(&list)?)?;
            } else {
                for (n, t) in services {
                    if show_types {
                        writeln!(out, "{n} [{}]", t.join(", "))?;
                    } else {
                        writeln!(out, "{n}")?;
                    }
                }
            }
        }
        ServiceCommand::Type { service_name } => {
            let session = Session::discovered(&args.graph)?;
            let resolved = session.node.resolve_topic_name(&service_name)?;
            match session.node.get_service_names_and_types().get(&resolved) {
                Some(types) => writeln!(out, "{}", types.join("\n"))?,
                None => bail!("unknown service {resolved}: no server or client has it"),
            }
        }
        ServiceCommand::Find {
            type_name,
            count_services,
        } => {
            let session = Session::discovered(&args.graph)?;
            let found: Vec<String> = session
                .node
                .get_service_names_and_types()
                .into_iter()
                .filter(|(n, t)| !is_hidden(n) && t.contains(&type_name))
                .map(|(n, _)| n)
                .collect();
            if count_services {
                writeln!(out, "{}", found.len())?;
            } else {
                for n in found {
                    writeln!(out, "{n}")?;
                }
            }
        }
        ServiceCommand::Call {
            service_name,
            service_type,
            values,
            rate,
            timeout,
        } => call(
            &args.graph,
            &service_name,
            service_type,
            &values,
            rate,
            timeout,
        )?,
    }
    Ok(())
}

fn call(
    graph: &GraphArgs,
    name: &str,
    service_type: Option<String>,
    values: &str,
    rate: Option<f64>,
    timeout: f64,
) -> Result<()> {
    catch_interrupts();
    if rate.is_some_and(|r| !(r > 0.0 && r.is_finite())) {
        bail!("--rate must be a positive number of calls per second");
    }
    let registry = common::registry(Distro::Jazzy)?;
    let json = yaml::parse(values)?;
    let session = Session::joined(graph)?;
    let type_name = match service_type {
        Some(t) => t,
        None => {
            let resolved = session.node.resolve_topic_name(name)?;
            match session.node.get_service_names_and_types().get(&resolved) {
                Some(types) if types.len() == 1 => types[0].clone(),
                _ => bail!("could not find the type of service {resolved}: give it after the name"),
            }
        }
    };
    let ty = common::known_type(&registry, &type_name, "service")?;
    let Some(def) = registry.service(&ty) else {
        bail!("`{ty}` is not a service type");
    };
    let request_ty: TypeName = def.request.name.clone();
    let response_ty: TypeName = def.response.name.clone();
    let request = dynamic::from_json(&registry, &request_ty, &json)
        .with_context(|| format!("the values do not make a {request_ty}"))?;
    let bytes = hibari::CdrBytes::from(dynamic::encode(&registry, &request_ty, &request)?);
    let client = session
        .node
        .create_generic_client(
            name,
            &ty.to_string(),
            hibari::QosProfile::services_default(),
        )
        .context("creating the client")?;
    let printer = Printer::new(&registry);
    if !client.service_is_ready() {
        println!("waiting for service to become available...");
    }
    while !client.wait_for_service(Duration::from_millis(200)) {
        if interrupted() {
            return Ok(());
        }
    }
    let period = rate.map(|r| Duration::from_secs_f64(1.0 / r));
    let mut next = Instant::now();
    loop {
        println!("requester: making request: {}\n", printer.flow(&request));
        let reply = client
            .call(
                bytes.clone(),
                Duration::from_secs_f64(timeout.clamp(0.0, 86_400.0)),
            )
            .with_context(|| format!("calling {}", client.service_name()))?;
        let response = dynamic::decode(&registry, &response_ty, reply.bytes())
            .with_context(|| format!("the response does not decode as {response_ty}"))?;
        println!("response:\n{}\n", printer.flow(&response));
        let Some(period) = period else { break };
        next += period;
        sleep_until(next);
        if interrupted() {
            break;
        }
    }
    Ok(())
}
