//! Which type names hibari knows: the bundled ROS 2 packages of the distro
//! (`HIBARI_DISTRO`, default Jazzy), the packages on `HIBARI_INTERFACE_PATH`
//! and those added with `hibari_add_interface_path` — as the Python binding
//! and the CLI know them. A publisher of a type no one defined would send
//! bytes no peer can read: creating it is `HIBARI_ERROR_UNKNOWN_TYPE`.

use std::ffi::c_char;
use std::path::Path;
use std::sync::{OnceLock, PoisonError, RwLock};

use hibari_rs::interfaces::{InterfaceKind, Registry, TypeName};

use crate::args::{put, str_arg};
use crate::error::{ffi, hibari_ret_t, Error, Result};

static REGISTRY: OnceLock<std::result::Result<RwLock<Registry>, String>> = OnceLock::new();

fn registry() -> Result<&'static RwLock<Registry>> {
    let loaded = REGISTRY.get_or_init(|| {
        Registry::from_env()
            .map(RwLock::new)
            .map_err(|e| e.to_string())
    });
    loaded.as_ref().map_err(Error::other)
}

fn unknown(type_name: &str, kind: &str) -> Error {
    Error::new(
        hibari_ret_t::HIBARI_ERROR_UNKNOWN_TYPE,
        format!(
            "unknown {kind} type `{type_name}`: write it as `package/{kind}/Name` of a bundled \
             package, or put its package folder on HIBARI_INTERFACE_PATH \
             (or hibari_add_interface_path)"
        ),
    )
}

/// Whether the registry holds `type_name`, a type of `kind` written in
/// full (`pkg/msg/Name`), as `holds` finds it.
fn known(
    type_name: &str,
    kind: InterfaceKind,
    holds: impl Fn(&Registry, &TypeName) -> bool,
) -> Result<bool> {
    let registry = registry()?.read().unwrap_or_else(PoisonError::into_inner);
    Ok(TypeName::parse(type_name)
        .filter(|t| t.kind == kind && type_name.matches('/').count() == 2)
        .is_some_and(|t| holds(&registry, &t)))
}

/// Checks that `type_name` is a message type hibari knows.
pub(crate) fn check_message(type_name: &str) -> Result {
    match known(type_name, InterfaceKind::Msg, |r, t| r.message(t).is_some())? {
        true => Ok(()),
        false => Err(unknown(type_name, "msg")),
    }
}

/// Checks that `type_name` is a service type hibari knows.
pub(crate) fn check_service(type_name: &str) -> Result {
    match known(type_name, InterfaceKind::Srv, |r, t| r.service(t).is_some())? {
        true => Ok(()),
        false => Err(unknown(type_name, "srv")),
    }
}

/// Adds the interface packages under `path` (a folder of package folders,
/// or one package folder holding `msg/`, `srv/`, `action/`) to the types
/// hibari knows; writes how many definitions were added to `added_out`
/// (may be NULL).
///
/// # Safety
///
/// `path` is a NUL-terminated string; `added_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_add_interface_path(
    path: *const c_char,
    added_out: *mut usize,
) -> hibari_ret_t {
    ffi(|| {
        // SAFETY: the caller's contract.
        let path = Path::new(unsafe { str_arg(path, "path") }?);
        let mut registry = registry()?.write().unwrap_or_else(PoisonError::into_inner);
        let mut staged = registry.clone();
        let mut added = staged.add_search_path(path).map_err(Error::invalid_from)?;
        if added == 0 {
            added = staged.add_package_dir(path).map_err(Error::invalid_from)?;
        }
        staged.validate().map_err(Error::invalid_from)?;
        *registry = staged;
        drop(registry);
        if !added_out.is_null() {
            // SAFETY: not NULL, writable (the caller's contract).
            unsafe { put(added_out, "added_out", added) }?;
        }
        Ok(())
    })
}
