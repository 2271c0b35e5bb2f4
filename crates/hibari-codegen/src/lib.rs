//! Rust code generation for ROS 2 interfaces.
//!
//! For every message `pkg/msg/Name` this emits, in module `pkg::msg`:
//! - `struct Name` with public fields (`Clone`, `Debug`, `PartialEq`, a
//!   `Default` that honours the definition's default values) and its constants;
//! - `impl hibari_cdr::Message` (CDR encode/decode identical to ROS 2; bounded
//!   strings and sequences are checked on encode);
//! - `struct NameView<'a>`, a zero-copy view, and `impl HasView`.
//!
//! Services become `pkg::srv::Name` (implementing `hibari_cdr::Service`) with
//! `Name_Request`/`Name_Response`; actions become `pkg::action::Name` with
//! their goal, result, feedback and derived messages.
//!
//! Users generate their own packages from a `build.rs` with [`build`]; types of
//! bundled packages are referenced through `::hibari_msgs`.
//!
//! [`generate_cpp`] emits the same types as C++17 headers, one per interface
//! as rosidl names them (`<sensor_msgs/msg/point_cloud2.hpp>`), whose CDR
//! code runs on the header-only `hibari/cdr.hpp`, each with its zero-copy
//! view `NameView` (over `hibari/view.hpp`); the `hibari-cpp-gen` binary
//! writes them.

#![forbid(unsafe_code)]
mod emit_cpp;
mod emit_msg;
mod emit_view;
mod names;

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

use hibari_idl::model::{InterfaceKind, MessageDef, TypeName};
use hibari_idl::Registry;

pub use emit_cpp::{
    generate_cpp, snake_case, write_if_changed, CppHeader, CppOutput, CppType, CppWriteError,
    WriteSummary,
};
pub use names::PathResolver;

/// What to generate and how to name things.
pub struct Context<'r> {
    registry: &'r Registry,
    /// Packages generated here; others are referenced under `external_root`.
    local: Vec<String>,
    local_root: String,
    external_root: String,
    cdr_path: String,
}

impl<'r> Context<'r> {
    /// Generates `packages` of `registry`; their Rust paths start at
    /// `local_root` (e.g. `crate` or `crate::jazzy`), every other package's at
    /// `external_root` (e.g. `::hibari_msgs`).
    pub fn new(
        registry: &'r Registry,
        packages: impl IntoIterator<Item = String>,
        local_root: &str,
        external_root: &str,
    ) -> Self {
        Context {
            registry,
            local: packages.into_iter().collect(),
            local_root: local_root.to_owned(),
            external_root: external_root.to_owned(),
            cdr_path: "::hibari_cdr".to_owned(),
        }
    }

    /// Where generated code finds the CDR runtime (default `::hibari_cdr`;
    /// user crates that depend only on `hibari` use `::hibari::cdr`).
    pub fn with_cdr_path(mut self, path: &str) -> Self {
        self.cdr_path = path.to_owned();
        self
    }

    /// The Rust source of all local packages, as nested modules.
    pub fn generate(&self) -> String {
        let mut by_pkg: BTreeMap<&str, BTreeMap<InterfaceKind, Vec<&MessageDef>>> = BTreeMap::new();
        for m in self.registry.messages() {
            if self.local.contains(&m.name.package) {
                by_pkg
                    .entry(m.name.package.as_str())
                    .or_default()
                    .entry(m.name.kind)
                    .or_default()
                    .push(m);
            }
        }
        let mut out = String::new();
        for (pkg, kinds) in &by_pkg {
            let _ = writeln!(out, "#[allow(non_camel_case_types, clippy::all, unused_imports, unused_variables, unused_mut, unreachable_code)]\npub mod {pkg} {{");
            for (kind, defs) in kinds {
                let _ = writeln!(out, "pub mod {} {{", kind.as_str());
                for def in defs {
                    emit_msg::emit_struct(&mut out, def, self);
                    emit_msg::emit_message_impl(&mut out, def, self);
                    emit_view::emit_view(&mut out, def, self);
                }
                self.emit_markers(&mut out, pkg, *kind);
                let _ = writeln!(out, "}}");
            }
            let _ = writeln!(out, "}}");
        }
        self.emit_visit(&mut out, &by_pkg);
        if self.cdr_path != "::hibari_cdr" {
            out = out.replace("::hibari_cdr::", &format!("{}::", self.cdr_path));
        }
        out
    }

    fn emit_visit(
        &self,
        out: &mut String,
        by_pkg: &BTreeMap<&str, BTreeMap<InterfaceKind, Vec<&MessageDef>>>,
    ) {
        let defs: Vec<&MessageDef> = by_pkg
            .values()
            .flat_map(|k| k.values().flatten().copied())
            .collect();
        let _ = writeln!(out, "/// Every message type generated here, by ROS name.");
        let _ = writeln!(out, "pub const TYPE_NAMES: &[&str] = &[");
        for d in &defs {
            let _ = writeln!(out, "    \"{}\",", d.name);
        }
        let _ = writeln!(out, "];\n");
        let _ = writeln!(out, "/// Calls `visitor` with the message type named `type_name` (`pkg/msg/Name`), if generated here.");
        let _ = writeln!(out, "pub fn visit_type<V: ::hibari_cdr::TypeVisitor>(type_name: &str, visitor: V) -> ::core::option::Option<V::Output> {{");
        let _ = writeln!(out, "    match type_name {{");
        for d in &defs {
            let _ = writeln!(
                out,
                "        \"{}\" => ::core::option::Option::Some(visitor.visit::<{}>()),",
                d.name,
                self.type_path(&d.name)
            );
        }
        let _ = writeln!(
            out,
            "        _ => ::core::option::Option::None,\n    }}\n}}"
        );
    }

    fn emit_markers(&self, out: &mut String, pkg: &str, kind: InterfaceKind) {
        let services = self
            .registry
            .services()
            .filter(|s| s.name.package == pkg && s.name.kind == kind);
        for s in services {
            emit_service(out, &s.name, &s.request.name, &s.response.name, self);
        }
        if kind != InterfaceKind::Action {
            return;
        }
        for a in self.registry.actions().filter(|a| a.name.package == pkg) {
            let n = &a.name.name;
            let _ = writeln!(out, "/// The action `{}`.\n#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]\npub struct {n};", a.name);
            let _ = writeln!(out, "impl ::hibari_cdr::Action for {n} {{");
            let _ = writeln!(out, "    type Goal = {};", a.goal.name.name);
            let _ = writeln!(out, "    type Result = {};", a.result.name.name);
            let _ = writeln!(out, "    type Feedback = {};", a.feedback.name.name);
            let _ = writeln!(
                out,
                "    const TYPE_NAME: &'static str = \"{}\";\n}}\n",
                a.name
            );
        }
    }
}

fn emit_service(
    out: &mut String,
    name: &TypeName,
    req: &TypeName,
    resp: &TypeName,
    cx: &Context<'_>,
) {
    let hash = cx.registry.type_hash(name).unwrap_or_default();
    let n = &name.name;
    let _ = writeln!(out, "/// The service `{name}`.\n#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]\npub struct {n};");
    let _ = writeln!(out, "impl ::hibari_cdr::Service for {n} {{");
    let _ = writeln!(out, "    type Request = {};", cx.type_path(req));
    let _ = writeln!(out, "    type Response = {};", cx.type_path(resp));
    let _ = writeln!(out, "    const TYPE_NAME: &'static str = \"{name}\";");
    let _ = writeln!(out, "    const TYPE_HASH: &'static str = \"{hash}\";\n}}\n");
}

impl PathResolver for Context<'_> {
    fn type_path(&self, name: &TypeName) -> String {
        let root = if self.local.contains(&name.package) {
            &self.local_root
        } else {
            &self.external_root
        };
        format!(
            "{root}::{}::{}::{}",
            name.package,
            name.kind.as_str(),
            name.name
        )
    }
}

/// Why [`build`] failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CodegenBuildError {
    #[error(transparent)]
    Load(#[from] hibari_idl::IdlLoadError),
    #[error(transparent)]
    Resolve(Box<hibari_idl::IdlResolveError>),
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// For a user crate's `build.rs`: generates Rust types for every package
/// found under `roots` (folders of packages, or package folders, each with
/// `msg/`, `srv/`, `action/`), on top of the bundled Jazzy interfaces, into
/// `$OUT_DIR/hibari_interfaces.rs`.
///
/// The crate depends on `hibari` (the generated code refers to
/// `::hibari::cdr` and to bundled types under `::hibari::msg`) and includes the
/// file **at its root**, so that `crate::my_pkg::msg::MyType` resolves:
///
/// ```text
/// // build.rs
/// fn main() { hibari_codegen::build(&[std::path::Path::new("interfaces")]).unwrap(); }
/// // src/lib.rs
/// include!(concat!(env!("OUT_DIR"), "/hibari_interfaces.rs"));
/// ```
pub fn build(roots: &[&Path]) -> Result<PathBuf, CodegenBuildError> {
    let mut registry = Registry::bundled(hibari_idl::Distro::Jazzy);
    let mut local = Vec::new();
    for root in roots {
        println!("cargo:rerun-if-changed={}", root.display());
        let mut user = Registry::empty();
        user.add_search_path(root)?;
        for m in user.messages() {
            if !local.contains(&m.name.package) {
                local.push(m.name.package.clone());
            }
        }
        registry.extend(user);
    }
    registry
        .validate()
        .map_err(|e| CodegenBuildError::Resolve(Box::new(e)))?;
    let code = Context::new(&registry, local, "crate", "::hibari::msg")
        .with_cdr_path("::hibari::cdr")
        .generate();
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_else(|| ".".into()));
    let path = out_dir.join("hibari_interfaces.rs");
    std::fs::write(&path, code).map_err(|source| CodegenBuildError::Write {
        path: path.clone(),
        source,
    })?;
    Ok(path)
}
