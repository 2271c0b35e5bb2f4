//! `hibari param list|get|set|describe|delete|dump|load`, as `ros2 param`
//! does them: calls to a node's six `rcl_interfaces` parameter services,
//! which hibari's nodes and ROS 2's serve alike.

use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context as _, Result};
use clap::{Args, Subcommand};
use hibari::parameter::{parameters_from_file, DEPTH_RECURSIVE};
use hibari::{Parameter, ParameterClient, ParameterType, ParameterValue};

use super::common::{yaml, GraphArgs, Session};
use super::topic::is_hidden;

#[derive(Args, Debug)]
pub struct ParamArgs {
    #[command(flatten)]
    graph: GraphArgs,
    /// Seconds to wait for a node's parameter services and each answer.
    #[arg(long, default_value_t = 5.0, global = true)]
    timeout: f64,
    #[command(subcommand)]
    command: ParamCommand,
}

#[derive(Subcommand, Debug)]
enum ParamCommand {
    /// The parameter names of a node, or of every node.
    List {
        node_name: Option<String>,
        /// Only names under these prefixes.
        #[arg(long, num_args = 1..)]
        param_prefixes: Vec<String>,
        /// Also print each parameter's type.
        #[arg(long)]
        param_type: bool,
    },
    /// A parameter's value.
    Get {
        node_name: String,
        parameter_name: String,
        /// Print the value only.
        #[arg(long)]
        hide_type: bool,
    },
    /// Set a parameter; the value is YAML (`3`, `2.5`, `true`, `hi`, `[1, 2]`).
    Set {
        node_name: String,
        parameter_name: String,
        value: String,
    },
    /// A parameter's descriptor.
    Describe {
        node_name: String,
        #[arg(required = true)]
        parameter_names: Vec<String>,
    },
    /// Undeclare a parameter.
    Delete {
        node_name: String,
        parameter_name: String,
    },
    /// A node's parameters as a parameters file (what `--params-file` reads).
    Dump {
        node_name: String,
        /// Write `<node>.yaml` in this folder instead of printing.
        #[arg(long)]
        output_dir: Option<PathBuf>,
    },
    /// Set the parameters a parameters file gives a node.
    Load {
        node_name: String,
        parameter_file: PathBuf,
    },
}

pub fn run(args: ParamArgs) -> Result<()> {
    let session = Session::discovered(&args.graph)?;
    let timeout = Duration::from_secs_f64(args.timeout.clamp(0.0, 3600.0));
    let client = |name: &str| -> Result<ParameterClient> {
        let client = ParameterClient::new(&session.node, name)?;
        if !client.wait_for_services(timeout) {
            bail!("node {name} has no parameter services (is it running? `hibari node list` shows the nodes)");
        }
        Ok(client)
    };
    let mut out = std::io::stdout().lock();
    match args.command {
        ParamCommand::List {
            node_name,
            param_prefixes,
            param_type,
        } => {
            let nodes = match node_name {
                Some(n) => vec![n],
                None => session
                    .node
                    .get_node_names()
                    .into_iter()
                    .filter(|n| !is_hidden(n))
                    .collect(),
            };
            let prefixes: Vec<&str> = param_prefixes.iter().map(String::as_str).collect();
            for name in nodes {
                let client = client(&name)?;
                let mut names = client
                    .list_parameters(&prefixes, DEPTH_RECURSIVE, timeout)?
                    .names;
                names.sort();
                writeln!(out, "{name}:")?;
                let types = if param_type {
                    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
                    client.get_parameter_types(&refs, timeout)?
                } else {
                    Vec::new()
                };
                for (i, n) in names.iter().enumerate() {
                    match types.get(i) {
                        Some(t) => writeln!(out, "  {n} (type: {})", type_word(*t))?,
                        None => writeln!(out, "  {n}")?,
                    }
                }
            }
        }
        ParamCommand::Get {
            node_name,
            parameter_name,
            hide_type,
        } => {
            let value = client(&node_name)?
                .get_parameters(&[&parameter_name], timeout)?
                .pop()
                .context("the node answered with no value")?;
            if let ParameterValue::NotSet = value {
                bail!("parameter {parameter_name} is not set on {node_name}");
            }
            if hide_type {
                writeln!(out, "{}", plain(&value))?;
            } else {
                writeln!(out, "{}", described(&value))?;
            }
        }
        ParamCommand::Set {
            node_name,
            parameter_name,
            value,
        } => {
            let value = ParameterValue::from_yaml(&value)?;
            let result = client(&node_name)?
                .set_parameters(&[Parameter::new(parameter_name, value)], timeout)?
                .pop()
                .context("the node answered with no result")?;
            if !result.successful {
                bail!("Setting parameter failed: {}", result.reason);
            }
            writeln!(out, "Set parameter successful")?;
        }
        ParamCommand::Describe {
            node_name,
            parameter_names,
        } => {
            let names: Vec<&str> = parameter_names.iter().map(String::as_str).collect();
            for d in client(&node_name)?.describe_parameters(&names, timeout)? {
                writeln!(out, "Parameter name: {}", d.name)?;
                writeln!(out, "  Type: {}", type_word(d.parameter_type))?;
                if !d.description.is_empty() {
                    writeln!(out, "  Description: {}", d.description)?;
                }
                writeln!(out, "  Constraints:")?;
                if d.read_only {
                    writeln!(out, "    Read only: true")?;
                }
                if d.dynamic_typing {
                    writeln!(out, "    Dynamic typing: true")?;
                }
                if !d.additional_constraints.is_empty() {
                    writeln!(out, "    {}", d.additional_constraints)?;
                }
            }
        }
        ParamCommand::Delete {
            node_name,
            parameter_name,
        } => {
            let result = client(&node_name)?
                .set_parameters(
                    &[Parameter::new(parameter_name, ParameterValue::NotSet)],
                    timeout,
                )?
                .pop()
                .context("the node answered with no result")?;
            if !result.successful {
                bail!("Deleting parameter failed: {}", result.reason);
            }
            writeln!(out, "Deleted parameter successfully")?;
        }
        ParamCommand::Dump {
            node_name,
            output_dir,
        } => {
            let client = client(&node_name)?;
            let mut names = client.list_parameters(&[], DEPTH_RECURSIVE, timeout)?.names;
            names.sort();
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            let values = client.get_parameters(&refs, timeout)?;
            let mut text = format!("{node_name}:\n  ros__parameters:\n");
            for (name, value) in names.iter().zip(&values) {
                text.push_str(&format!("    {name}: {}\n", dumped(value)));
            }
            match output_dir {
                None => out.write_all(text.as_bytes())?,
                Some(dir) => {
                    let file = dir.join(format!(
                        "{}.yaml",
                        node_name.trim_start_matches('/').replace('/', "__")
                    ));
                    std::fs::write(&file, text)
                        .with_context(|| format!("writing {}", file.display()))?;
                    writeln!(out, "Saved parameters of {node_name} to {}", file.display())?;
                }
            }
        }
        ParamCommand::Load {
            node_name,
            parameter_file,
        } => {
            let parameters = parameters_from_file(&parameter_file, &node_name)?;
            if parameters.is_empty() {
                bail!(
                    "{} gives {node_name} no parameters",
                    parameter_file.display()
                );
            }
            let results = client(&node_name)?.set_parameters(&parameters, timeout)?;
            for (p, r) in parameters.iter().zip(results) {
                if r.successful {
                    writeln!(out, "Set parameter {} successful", p.name)?;
                } else {
                    writeln!(out, "Set parameter {} failed: {}", p.name, r.reason)?;
                }
            }
        }
    }
    Ok(())
}

/// The type as `ros2 param` names it.
fn type_word(t: ParameterType) -> &'static str {
    match t {
        ParameterType::NotSet => "not set",
        ParameterType::Bool => "boolean",
        ParameterType::Integer => "integer",
        ParameterType::Double => "double",
        ParameterType::String => "string",
        ParameterType::ByteArray => "byte array",
        ParameterType::BoolArray => "boolean array",
        ParameterType::IntegerArray => "integer array",
        ParameterType::DoubleArray => "double array",
        ParameterType::StringArray => "string array",
    }
}

/// `Integer value is: 5`, `String values are: ['a', 'b']`, as `ros2 param get`.
fn described(v: &ParameterValue) -> String {
    let (word, array) = match v {
        ParameterValue::Bool(_) => ("Boolean", false),
        ParameterValue::Integer(_) => ("Integer", false),
        ParameterValue::Double(_) => ("Double", false),
        ParameterValue::String(_) => ("String", false),
        ParameterValue::ByteArray(_) => ("Byte", true),
        ParameterValue::BoolArray(_) => ("Boolean", true),
        ParameterValue::IntegerArray(_) => ("Integer", true),
        ParameterValue::DoubleArray(_) => ("Double", true),
        ParameterValue::StringArray(_) => ("String", true),
        ParameterValue::NotSet => return "Parameter not set.".into(),
    };
    let verb = if array { "values are" } else { "value is" };
    format!("{word} {verb}: {}", plain(v))
}

/// The value alone, as ros2 prints it (`True`, `2.5`, `hello`, `[1, 2]`).
fn plain(v: &ParameterValue) -> String {
    match v {
        ParameterValue::Bool(b) => if *b { "True" } else { "False" }.into(),
        ParameterValue::Double(d) => yaml::py_float(*d),
        ParameterValue::String(s) => s.clone(),
        other => dumped(other),
    }
}

/// The value in a parameters file's YAML.
fn dumped(v: &ParameterValue) -> String {
    let list = |items: Vec<String>| format!("[{}]", items.join(", "));
    match v {
        ParameterValue::NotSet => "null".into(),
        ParameterValue::Bool(b) => b.to_string(),
        ParameterValue::Integer(i) => i.to_string(),
        ParameterValue::Double(d) => yaml::float(*d),
        ParameterValue::String(s) => yaml::quote(s),
        ParameterValue::ByteArray(b) => list(b.iter().map(u8::to_string).collect()),
        ParameterValue::BoolArray(b) => list(b.iter().map(bool::to_string).collect()),
        ParameterValue::IntegerArray(i) => list(i.iter().map(i64::to_string).collect()),
        ParameterValue::DoubleArray(d) => list(d.iter().map(|x| yaml::float(*x)).collect()),
        ParameterValue::StringArray(s) => list(s.iter().map(|x| yaml::quote(x)).collect()),
    }
}
