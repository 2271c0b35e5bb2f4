//! Loading definitions from package folders on disk.
//!
//! A package folder is named after its package and holds `msg/*.msg`,
//! `srv/*.srv` and `action/*.action`, as in a ROS source tree or under
//! `<prefix>/share/<package>` of an installed workspace.

use std::ffi::OsStr;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::{Distro, Registry};
use crate::model::{InterfaceKind, TypeName};
use crate::parse::{is_valid_package_name, IdlParseError};

/// The environment variable [`Registry::add_from_env`] reads: search roots
/// separated by `:` (`;` on Windows).
pub const INTERFACE_PATH_VAR: &str = "HIBARI_INTERFACE_PATH";

/// The environment variable [`Registry::from_env`] reads: the bundled
/// distribution (`jazzy`, the default, or `humble`).
pub const DISTRO_VAR: &str = "HIBARI_DISTRO";

/// What [`Registry::from_env`] could not load.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryFromEnvError {
    /// `HIBARI_DISTRO` names no bundled distribution.
    #[error("HIBARI_DISTRO=`{0}` is not a known distribution: use jazzy or humble")]
    UnknownDistro(String),
    /// A package under `HIBARI_INTERFACE_PATH` does not load.
    #[error("HIBARI_INTERFACE_PATH: {0}")]
    InterfacePath(#[from] IdlLoadError),
}

/// How deep [`Registry::add_search_path`] looks for package folders.
const MAX_SEARCH_DEPTH: usize = 6;

/// Definitions on disk that could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IdlLoadError {
    /// A file or folder could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// A definition file does not parse.
    #[error(transparent)]
    Parse(#[from] IdlParseError),
    /// A folder holding `msg/`, `srv/` or `action/` is not named like a package.
    #[error("{} holds interfaces but `{name}` is not a valid package name; rename the folder after its package", path.display())]
    InvalidPackageName { path: PathBuf, name: String },
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> IdlLoadError + '_ {
    move |source| IdlLoadError::Io {
        path: path.to_path_buf(),
        source,
    }
}

const KINDS: [InterfaceKind; 3] = [
    InterfaceKind::Msg,
    InterfaceKind::Srv,
    InterfaceKind::Action,
];

/// True if `dir` has a `msg`, `srv` or `action` subfolder.
fn is_package_dir(dir: &Path) -> bool {
    KINDS.iter().any(|k| dir.join(k.as_str()).is_dir())
}

/// The entries of `dir`, sorted by path.
fn sorted_entries(dir: &Path) -> Result<Vec<PathBuf>, IdlLoadError> {
    let mut entries = fs::read_dir(dir)
        .map_err(io_error(dir))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(io_error(dir))?;
    entries.sort();
    Ok(entries)
}

impl Registry {
    /// Adds every definition of one package folder and returns how many
    /// files were added. Nothing is added if any file fails.
    pub fn add_package_dir(&mut self, dir: &Path) -> Result<usize, IdlLoadError> {
        let named = match dir.file_name() {
            Some(_) => dir.to_path_buf(),
            None => dir.canonicalize().map_err(io_error(dir))?,
        };
        let package = named
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !is_valid_package_name(&package) {
            return Err(IdlLoadError::InvalidPackageName {
                path: dir.to_path_buf(),
                name: package,
            });
        }
        let mut staged = Registry::empty();
        let mut count = 0;
        for kind in KINDS {
            let kind_dir = dir.join(kind.as_str());
            if !kind_dir.is_dir() {
                continue;
            }
            for path in sorted_entries(&kind_dir)? {
                if path.extension() != Some(OsStr::new(kind.as_str())) || !path.is_file() {
                    continue;
                }
                let text = fs::read_to_string(&path).map_err(io_error(&path))?;
                let stem = path.file_stem().unwrap_or_default().to_string_lossy();
                let name = TypeName::new(&package, kind, stem.as_ref());
                let label = path.display().to_string();
                match kind {
                    InterfaceKind::Msg => staged.add_msg_text(name, &text, &label)?,
                    InterfaceKind::Srv => staged.add_srv_text(name, &text, &label)?,
                    InterfaceKind::Action => staged.add_action_text(name, &text, &label)?,
                }
                count += 1;
            }
        }
        self.extend(staged);
        Ok(count)
    }

    /// Adds every package folder under `root` (searching subfolders a few
    /// levels deep, skipping hidden ones), or `root` itself if it is a
    /// package folder. Returns how many files were added.
    pub fn add_search_path(&mut self, root: &Path) -> Result<usize, IdlLoadError> {
        if is_package_dir(root) {
            return self.add_package_dir(root);
        }
        let mut staged = Registry::empty();
        let count = staged.search(root, MAX_SEARCH_DEPTH)?;
        self.extend(staged);
        Ok(count)
    }

    fn search(&mut self, dir: &Path, depth: usize) -> Result<usize, IdlLoadError> {
        let mut count = 0;
        for path in sorted_entries(dir)? {
            let hidden = path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'));
            if hidden || !path.is_dir() {
                continue;
            }
            if is_package_dir(&path) {
                count += self.add_package_dir(&path)?;
            } else if depth > 1 {
                count += self.search(&path, depth - 1)?;
            }
        }
        Ok(count)
    }

    /// The definitions a program knows at run time, as the bindings and the
    /// tools read them: the bundled packages of `HIBARI_DISTRO` (unset or
    /// empty: Jazzy) and the packages under `HIBARI_INTERFACE_PATH`.
    pub fn from_env() -> Result<Registry, RegistryFromEnvError> {
        let distro = match std::env::var(DISTRO_VAR) {
            Ok(name) if !name.trim().is_empty() => Distro::parse(name.trim())
                .ok_or_else(|| RegistryFromEnvError::UnknownDistro(name.clone()))?,
            _ => Distro::Jazzy,
        };
        let mut registry = Registry::bundled(distro);
        registry.add_from_env()?;
        Ok(registry)
    }

    /// Adds the search roots listed in `HIBARI_INTERFACE_PATH` (see
    /// [`add_path_list`](Self::add_path_list)). An unset variable adds nothing.
    pub fn add_from_env(&mut self) -> Result<usize, IdlLoadError> {
        match std::env::var_os(INTERFACE_PATH_VAR) {
            Some(list) => self.add_path_list(&list),
            None => Ok(0),
        }
    }

    /// Adds each root of a `:`-separated list (`;` on Windows) with
    /// [`add_search_path`](Self::add_search_path), in order, so later roots
    /// override earlier ones. Empty entries are skipped.
    pub fn add_path_list(&mut self, list: &OsStr) -> Result<usize, IdlLoadError> {
        let mut count = 0;
        for root in std::env::split_paths(list) {
            if !root.as_os_str().is_empty() {
                count += self.add_search_path(&root)?;
            }
        }
        Ok(count)
    }
}
