//! `hibari interface`: list, show, proto, encode, decode.
//!
//! Types are looked up in the bundled definitions of the chosen distro plus
//! any packages found under `HIBARI_INTERFACE_PATH` (colon-separated folders
//! of packages, each holding `msg/`, `srv/`, `action/`), so users' own types
//! work the same as ROS's.

use std::io::{IsTerminal as _, Read, Write};

use anyhow::{bail, Context as _, Result};
use clap::{Args, Subcommand, ValueEnum};
use hibari::dynamic;
use hibari::interfaces::model::{InterfaceKind, TypeName};
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
    ///
    /// Nested types are indented by one tab per level. The bundled definitions
    /// carry no comments, so unlike ros2's output only your own files show any.
    Show {
        /// e.g. sensor_msgs/msg/Image, std_srvs/srv/SetBool
        type_name: String,
        /// Also print the RIHS01 type hash (Iron and later; Humble has none).
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

impl DistroArg {
    fn distro(self) -> Distro {
        match self {
            DistroArg::Humble => Distro::Humble,
            DistroArg::Jazzy => Distro::Jazzy,
        }
    }
}

fn message_type(registry: &Registry, name: &str) -> Result<TypeName> {
    if let Some(def) = registry.message_str(name) {
        return Ok(def.name.clone());
    }
    // A service or action has no CDR form of its own; point at its parts.
    if let Some(found) = registry.resolve(name) {
        if registry.service(&found).is_some() {
            bail!(
                "`{found}` is a service, not a message: use `{found}_Request` or `{found}_Response`"
            );
        }
        if registry.action(&found).is_some() {
            bail!(
                "`{found}` is an action, not a message: use one of its parts, \
                 e.g. `{found}_Goal`, `{found}_Result` or `{found}_Feedback`"
            );
        }
    }
    bail!(
        "unknown message type `{name}`; `hibari interface list` shows the known ones \
         (add your own with HIBARI_INTERFACE_PATH)"
    )
}

pub fn run(args: InterfaceArgs) -> Result<()> {
    let distro = args.distro.distro();
    let registry = super::common::registry(distro)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match args.command {
        InterfaceCommand::List { json } => {
            // Like `ros2 interface list`: the parts of services and actions
            // (`_Request`, `_Goal`, `_SendGoal`, …) are not listed on their own.
            let mut names: Vec<String> = registry
                .messages()
                .filter(|m| m.name.kind == InterfaceKind::Msg)
                .map(|m| m.name.to_string())
                .collect();
            names.extend(
                registry
                    .services()
                    .filter(|s| s.name.kind == InterfaceKind::Srv)
                    .map(|s| s.name.to_string()),
            );
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
            // Bundled sources come without their provenance line (the
            // registry strips it), so this is the definition as ROS has it.
            write!(out, "{}", registry.show(&name)?)?;
            if hash {
                match distro {
                    // interop.md §5: RIHS01 exists from Iron on; a hash computed
                    // from a Humble definition is something no Humble peer uses.
                    Distro::Humble => writeln!(
                        out,
                        "# no type hash: Humble has none (RIHS01 starts with Iron; \
                         rmw_zenoh on Humble uses `TypeHashNotSupported`)"
                    )?,
                    _ => writeln!(out, "# {}", registry.type_hash(&name)?)?,
                }
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
            let stdin = std::io::stdin();
            if stdin.is_terminal() {
                bail!(
                    "decode reads the message from stdin: pipe CDR bytes in \
                     (or hex text with --hex), e.g. `hibari interface encode {type_name} '{{}}' | hibari interface decode {type_name}`"
                );
            }
            let mut input = Vec::new();
            stdin.lock().read_to_end(&mut input)?;
            let bytes = if hex { from_hex(&input)? } else { input };
            if bytes.is_empty() {
                bail!(
                    "no input: decode expects the CDR bytes of a `{name}` on stdin{}",
                    if hex { " as hex text" } else { "" }
                );
            }
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
    if !digits.len().is_multiple_of(2) {
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
