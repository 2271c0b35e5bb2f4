//! `hibari action list|info|send_goal`, as `ros2 action` does them. An
//! action is found in the graph by its goal service,
//! `<name>/_action/send_goal` of type `pkg/action/Name_SendGoal`.

use std::io::Write as _;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context as _, Result};
use clap::{Args, Subcommand};
use hibari::dynamic::{self, Value};
use hibari::interfaces::Distro;
use hibari::EndpointKind;

use super::common::yaml::{self, Printer};
use super::common::{self, catch_interrupts, interrupted, GraphArgs, Session};
use super::node::actions;

#[derive(Args, Debug)]
pub struct ActionArgs {
    #[command(flatten)]
    graph: GraphArgs,
    #[command(subcommand)]
    command: ActionCommand,
}

#[derive(Subcommand, Debug)]
enum ActionCommand {
    /// List the actions (`-t`: with their types).
    List {
        #[arg(short = 't', long = "show-types")]
        show_types: bool,
        #[arg(short = 'c', long)]
        count_actions: bool,
    },
    /// An action's servers and clients.
    Info {
        action_name: String,
        #[arg(short = 't', long = "show-types")]
        show_types: bool,
    },
    /// Send a goal given as YAML; print the result (and feedback).
    #[command(name = "send_goal")]
    SendGoal {
        action_name: String,
        /// `pkg/action/Name`.
        action_type: String,
        /// The goal as YAML; missing fields take their defaults.
        #[arg(default_value = "{}")]
        goal: String,
        /// Print the feedback messages.
        #[arg(short, long)]
        feedback: bool,
    },
}

pub fn run(args: ActionArgs) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match args.command {
        ActionCommand::List {
            show_types,
            count_actions,
        } => {
            let session = Session::discovered(&args.graph)?;
            let found = actions(&session.node.get_service_names_and_types());
            if count_actions {
                writeln!(out, "{}", found.len())?;
            }
            for (name, types) in found.iter().filter(|_| !count_actions) {
                if show_types {
                    writeln!(out, "{name} [{}]", types.join(", "))?;
                } else {
                    writeln!(out, "{name}")?;
                }
            }
        }
        ActionCommand::Info {
            action_name,
            show_types,
        } => {
            let session = Session::discovered(&args.graph)?;
            let name = session.node.resolve_topic_name(&action_name)?;
            let topic = format!("rq{name}/_action/send_goalRequest");
            let graph = session.node.graph();
            let ends = |kind: EndpointKind| -> Vec<String> {
                let mut v: Vec<String> = graph
                    .endpoints
                    .iter()
                    .filter(|e| e.kind == kind && e.spec.topic == topic)
                    .map(|e| {
                        let node = e
                            .node
                            .as_ref()
                            .map(|n| n.fully_qualified_name())
                            .unwrap_or_default();
                        let ty = e.spec.type_name.trim_end_matches("_SendGoal_Request");
                        if show_types {
                            format!("{node} [{ty}]")
                        } else {
                            node
                        }
                    })
                    .collect();
                v.sort();
                v
            };
            let (clients, servers) = (ends(EndpointKind::Writer), ends(EndpointKind::Reader));
            if clients.is_empty() && servers.is_empty() {
                bail!("unknown action {name}: no server or client has it");
            }
            writeln!(out, "Action: {name}\nAction clients: {}", clients.len())?;
            for c in clients {
                writeln!(out, "    {c}")?;
            }
            writeln!(out, "Action servers: {}", servers.len())?;
            for s in servers {
                writeln!(out, "    {s}")?;
            }
        }
        ActionCommand::SendGoal {
            action_name,
            action_type,
            goal,
            feedback,
        } => {
            drop(out);
            send_goal(&args.graph, &action_name, &action_type, &goal, feedback)?;
        }
    }
    Ok(())
}

fn send_goal(
    graph: &GraphArgs,
    name: &str,
    type_name: &str,
    goal: &str,
    feedback: bool,
) -> Result<()> {
    catch_interrupts();
    let registry = Arc::new(common::registry(Distro::Jazzy)?);
    let ty = common::known_type(&registry, type_name, "action")?;
    let Some(def) = registry.action(&ty) else {
        bail!("`{ty}` is not an action type");
    };
    let goal_ty = def.goal.name.clone();
    let goal_value = dynamic::from_json(&*registry, &goal_ty, &yaml::parse(goal)?)
        .with_context(|| format!("the goal does not make a {goal_ty}"))?;
    let session = Session::joined(graph)?;
    let client = session
        .node
        .create_generic_action_client(name, &ty.to_string(), registry.clone())
        .context("creating the action client")?;
    let _spinner = session.spin()?;
    let printer = Printer::new(&registry);
    let indented = |v: &Value, t| {
        printer
            .message(t, v)
            .lines()
            .map(|l| format!("    {l}\n"))
            .collect::<String>()
    };
    println!("Waiting for an action server to become available...");
    while !client.wait_for_server(Duration::from_millis(200)) {
        if interrupted() {
            return Ok(());
        }
    }
    println!("Sending goal:\n{}", indented(&goal_value, &goal_ty));
    let feedback_ty = def.feedback.name.clone();
    let feedback_registry = registry.clone();
    let on_feedback: Option<Box<dyn FnMut(Value) + Send>> = feedback.then(|| {
        Box::new(move |fb: Value| {
            let p = Printer::new(&feedback_registry);
            let text: String = p
                .message(&feedback_ty, &fb)
                .lines()
                .map(|l| format!("    {l}\n"))
                .collect();
            println!("Feedback:\n{text}");
        }) as Box<dyn FnMut(Value) + Send>
    });
    let handle = match client.send_goal(goal_value, on_feedback, Duration::from_secs(30)) {
        Ok(h) => h,
        Err(hibari::action::ActionSendGoalError::Rejected) => {
            println!("Goal was rejected.");
            return Ok(());
        }
        Err(e) => return Err(e).context("sending the goal"),
    };
    println!("Goal accepted with ID: {}\n", hex(handle.goal_id()));
    let result = loop {
        match handle.get_result(Duration::from_millis(500)) {
            Ok(r) => break r,
            Err(_) if !interrupted() => continue,
            Err(e) => {
                // Ctrl-C: cancel the goal, as ros2 does.
                let _ = handle.cancel(Duration::from_secs(2));
                return Err(e).context("interrupted; the goal was asked to cancel");
            }
        }
    };
    println!("Result:\n{}", indented(&result.result, &def.result.name));
    println!("Goal finished with status: {}", status_word(result.status));
    Ok(())
}

fn hex(id: &[u8; 16]) -> String {
    id.iter().map(|b| format!("{b:02x}")).collect()
}

fn status_word(s: hibari::GoalStatus) -> &'static str {
    use hibari::GoalStatus as G;
    match s {
        G::Unknown => "UNKNOWN",
        G::Accepted => "ACCEPTED",
        G::Executing => "EXECUTING",
        G::Canceling => "CANCELING",
        G::Succeeded => "SUCCEEDED",
        G::Canceled => "CANCELED",
        G::Aborted => "ABORTED",
    }
}
