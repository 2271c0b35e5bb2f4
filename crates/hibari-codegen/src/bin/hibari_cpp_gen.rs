//! `hibari-cpp-gen`: writes C++ headers for ROS 2 interfaces.
//!
//! ```text
//! hibari-cpp-gen --out DIR [--distro jazzy|humble] [--bundled] [--manifest FILE] [PACKAGE_DIR ...]
//! ```
//!
//! `--bundled` generates every package bundled for the distro (std_msgs,
//! sensor_msgs, ...); each PACKAGE_DIR is a package folder (`<pkg>/msg/*.msg`,
//! `srv/*.srv`, `action/*.action`) or a folder of them, loaded as
//! `HIBARI_INTERFACE_PATH` roots are, whose types may use the bundled ones.
//! Headers land in `DIR/<pkg>/{msg,srv,action}/<snake_name>.hpp`; only
//! those whose text changed are rewritten. `--manifest` writes one line per
//! message type: `ros_name<TAB>cpp_name<TAB>header`.
//!
//! The arguments are parsed by hand: this crate is every user's build
//! dependency (`hibari_codegen::build`), which should not pull in clap.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context as _, Result};
use hibari_codegen::{generate_cpp, write_if_changed};
use hibari_idl::{Distro, Registry};

const USAGE: &str = "usage: hibari-cpp-gen --out DIR [--distro jazzy|humble] [--bundled] [--manifest FILE] [PACKAGE_DIR ...]

Writes C++17 headers for ROS 2 interfaces: DIR/<pkg>/msg/<name>.hpp, srv/, action/,
as rosidl names them. Compile them with crates/hibari-c/include on the include path.

  --out DIR         where the headers go (created if missing)
  --distro NAME     the bundled interfaces to build on: jazzy (default) or humble
  --bundled         generate every bundled package of the distro
  --manifest FILE   also write one line per message type: ros_name, cpp_name, header
  PACKAGE_DIR       a package folder (msg/, srv/, action/) or a folder of packages";

struct Args {
    out: PathBuf,
    distro: Distro,
    bundled: bool,
    manifest: Option<PathBuf>,
    packages: Vec<PathBuf>,
}

fn parse_args() -> Result<Option<Args>> {
    let mut out = None;
    let mut distro = Distro::Jazzy;
    let mut bundled = false;
    let mut manifest = None;
    let mut packages = Vec::new();
    let mut args = std::env::args_os().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| {
            args.next()
                .with_context(|| format!("{flag} needs a value\n\n{USAGE}"))
        };
        match arg.to_str() {
            Some("-h" | "--help") => return Ok(None),
            Some("--out") => out = Some(PathBuf::from(value("--out")?)),
            Some("--manifest") => manifest = Some(PathBuf::from(value("--manifest")?)),
            Some("--distro") => {
                let name = value("--distro")?;
                distro = name.to_string_lossy().parse()?;
            }
            Some("--bundled") => bundled = true,
            Some(flag) if flag.starts_with('-') => bail!("unknown option {flag}\n\n{USAGE}"),
            _ => packages.push(PathBuf::from(arg)),
        }
    }
    let Some(out) = out else {
        bail!("--out DIR is required\n\n{USAGE}");
    };
    if !bundled && packages.is_empty() {
        bail!("nothing to generate: pass --bundled and/or package folders\n\n{USAGE}");
    }
    Ok(Some(Args {
        out,
        distro,
        bundled,
        manifest,
        packages,
    }))
}

fn run(args: Args) -> Result<()> {
    let mut registry = Registry::bundled(args.distro);
    let mut local: Vec<String> = Vec::new();
    if args.bundled {
        local.extend(registry.messages().map(|m| m.name.package.clone()));
        local.dedup();
    }
    for dir in &args.packages {
        if !dir.is_dir() {
            bail!(
                "{} is not a folder: pass package folders (with msg/, srv/, action/) or folders of them",
                dir.display()
            );
        }
        let mut user = Registry::empty();
        let count = user
            .add_search_path(dir)
            .with_context(|| format!("cannot load the interfaces in {}", dir.display()))?;
        if count == 0 {
            bail!(
                "{} holds no interfaces: expected a package folder with msg/*.msg, srv/*.srv or action/*.action, or a folder of such packages",
                dir.display()
            );
        }
        for m in user.messages() {
            if !local.contains(&m.name.package) {
                local.push(m.name.package.clone());
            }
        }
        registry.extend(user);
    }
    registry.validate().with_context(|| {
        format!(
            "the interfaces do not resolve against the bundled {} packages",
            args.distro
        )
    })?;
    let output = generate_cpp(&registry, &local);
    let summary = output.write_to(&args.out)?;
    if let Some(path) = &args.manifest {
        write_if_changed(path, &output.manifest())?;
    }
    println!(
        "hibari-cpp-gen: {} headers for {} packages in {} ({} written, {} unchanged)",
        output.headers.len(),
        local.len(),
        args.out.display(),
        summary.written,
        summary.unchanged
    );
    Ok(())
}

fn main() -> ExitCode {
    let result = parse_args().and_then(|args| match args {
        Some(args) => run(args),
        None => {
            println!("{USAGE}");
            Ok(())
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hibari-cpp-gen: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
