//! `hibari interface`: list, show, proto, encode, decode.
//!
//! Types are looked up in the bundled definitions of the chosen distro plus
//! any packages found under `HIBARI_INTERFACE_PATH` (colon-separated folders
//! of packages, each holding `msg/`, `srv/`, `action/`), so users' own types
//! work the same as ROS's.

use std::io::{Read, Write};

use anyhow::{bail, Context as _, Result};
use clap::{Args, Subcommand, ValueEnum};
use hibari::dynamic;
use hibari::interfaces::model::TypeName;
use hibari::interfaces::{Distro, Registry};

#[derive(Args, Debug)]
pub struct InterfaceArgs {
    /// Which ROS 2 distro's definitions to use.
    #[arg(long, value_enum, default_value_t = DistroArg::Jazzy, global = true)]
    distro: DistroArg,
    #[command(subcommand)]
    command: InterfaceCommand,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum DistroArg {
    Humble,
    Jazzy,
}

#[derive(Subcommand, Debug)]
enum InterfaceCommand {
    /// List every known message, service and action type.
    List {
        /// Print a JSON array instead of lines.
        #[arg(long)]
        json: bool,
    },
    /// Print a type's full definition, nested types expanded (like `ros2 interface show`).
    Show {
        /// e.g. sensor_msgs/msg/Image, std_srvs/srv/SetBool
        type_name: String,
        /// Also print the RIHS01 type hash.
        #[arg(long)]
        hash: bool,
    },
    /// Print a default instance of a message type as JSON.
    Proto { type_name: String },
    /// Encode a JSON message (rosbridge conventions) as CDR bytes on stdout.
    Encode {
        type_name: String,
        /// The message as JSON; missing fields take their defaults. `-` reads stdin.
        json: String,
        /// Print hex instead of raw bytes.
        #[arg(long)]
        hex: bool,
    },
    /// Decode CDR bytes from stdin and print the message as JSON.
    Decode {
        type_name: String,
        /// Read hex text instead of raw bytes.
        #[arg(long)]
        hex: bool,
    },
}

/// Loads the registry for a distro plus the user's packages.
fn load_registry(distro: DistroArg) -> Result<Registry> {
    let distro = match distro {
        DistroArg::Humble => Distro::Humble,
        DistroArg::Jazzy => Distro::Jazzy,
    };
    let mut registry = Registry::bundled(distro);
    registry
        .add_from_env()
        .context("loading packages from HIBARI_INTERFACE_PATH")?;
    registry
        .validate()
        .context("resolving interface definitions")?;
    Ok(registry)
}

fn message_type(registry: &Registry, name: &str) -> Result<TypeName> {
    match registry.message_str(name) {
        Some(def) => Ok(def.name.clone()),
        None => bail!(
            "unknown message type `{name}`; `hibari interface list` shows the known ones \
             (add your own with HIBARI_INTERFACE_PATH)"
        ),
    }
}

pub fn run(args: InterfaceArgs) -> Result<()> {
    let registry = load_registry(args.distro)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match args.command {
        InterfaceCommand::List { json } => {
            let mut names: Vec<String> = registry.messages().map(|m| m.name.to_string()).collect();
            names.retain(|n| n.contains("/msg/"));
            names.extend(registry.services().map(|s| s.name.to_string()));
            names.extend(registry.actions().map(|a| a.name.to_string()));
            names.sort();
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&names)?)?;
            } else {
                for n in names {
                    writeln!(out, "{n}")?;
                }
            }
        }
        InterfaceCommand::Show { type_name, hash } => {
            let Some(name) = registry.resolve(&type_name) else {
                bail!("unknown type `{type_name}`; `hibari interface list` shows the known ones");
            };
            write!(out, "{}", registry.show(&name)?)?;
            if hash {
                writeln!(out, "# {}", registry.type_hash(&name)?)?;
            }
        }
        InterfaceCommand::Proto { type_name } => {
            let name = message_type(&registry, &type_name)?;
            let value = dynamic::default_value(&registry, &name)?;
            let json = dynamic::to_json(&registry, &name, &value);
            writeln!(out, "{}", serde_json::to_string_pretty(&json)?)?;
        }
        InterfaceCommand::Encode {
            type_name,
            json,
            hex,
        } => {
            let name = message_type(&registry, &type_name)?;
            let text = if json == "-" {
                let mut s = String::new();
                std::io::stdin().read_to_string(&mut s)?;
                s
            } else {
                json
            };
            let parsed: serde_json::Value =
                serde_json::from_str(&text).context("the message is not valid JSON")?;
            let value = dynamic::from_json(&registry, &name, &parsed)?;
            let bytes = dynamic::encode(&registry, &name, &value)?;
            if hex {
                writeln!(out, "{}", to_hex(&bytes))?;
            } else {
                out.write_all(&bytes)?;
            }
        }
        InterfaceCommand::Decode { type_name, hex } => {
            let name = message_type(&registry, &type_name)?;
            let mut input = Vec::new();
            std::io::stdin().read_to_end(&mut input)?;
            let bytes = if hex { from_hex(&input)? } else { input };
            let value = dynamic::decode(&registry, &name, &bytes)?;
            let json = dynamic::to_json(&registry, &name, &value);
            writeln!(out, "{}", serde_json::to_string_pretty(&json)?)?;
        }
    }
    Ok(())
}

/// Lowercase hex, no separators.
pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Parses hex text; whitespace is ignored.
pub fn from_hex(text: &[u8]) -> Result<Vec<u8>> {
    let digits: Vec<u8> = text
        .iter()
        .copied()
        .filter(|c| !c.is_ascii_whitespace())
        .collect();
    if digits.len() % 2 != 0 {
        bail!("hex input has an odd number of digits");
    }
    digits
        .chunks(2)
        .map(|pair| {
            let s = std::str::from_utf8(pair).context("hex input is not ASCII")?;
            u8::from_str_radix(s, 16).with_context(|| format!("`{s}` is not a hex byte"))
        })
        .collect()
}
