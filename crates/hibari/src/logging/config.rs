//! What the command line and the environment say about logging, per
//! context: levels by logger name, where records go and how they look.

use std::collections::BTreeMap;
use std::sync::Mutex;

use thiserror::Error;

use super::console::Format;
use super::Severity;
use crate::context::lock;

/// A logging argument or environment variable that cannot be read.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("`{argument}` is not valid: {reason}")]
pub struct LogOptionsError {
    /// The argument or variable.
    pub argument: String,
    /// What to write instead.
    pub reason: String,
}

/// Logging settings of one context.
#[derive(Debug)]
pub(crate) struct LogConfig {
    default: Mutex<Severity>,
    levels: Mutex<BTreeMap<String, Severity>>,
    pub console: bool,
    pub rosout: bool,
    pub format: Format,
}

impl Default for LogConfig {
    fn default() -> Self {
        LogConfig {
            default: Mutex::new(Severity::Info),
            levels: Mutex::new(BTreeMap::new()),
            console: true,
            rosout: true,
            format: Format::from_env(),
        }
    }
}

impl LogConfig {
    /// Applies one `--log-level` value: `level` or `name:=level`.
    pub fn log_level(&mut self, value: &str) -> Result<(), LogOptionsError> {
        let (name, level) = match value.split_once(":=") {
            Some((name, level)) => (Some(name), level),
            None => (None, value),
        };
        let severity = Severity::parse(level).ok_or_else(|| LogOptionsError {
            argument: format!("--log-level {value}"),
            reason: "the level must be debug, info, warn, error or fatal".into(),
        })?;
        match name {
            Some(n) if !n.is_empty() => {
                lock(&self.levels).insert(n.to_string(), severity);
            }
            Some(_) => {
                return Err(LogOptionsError {
                    argument: format!("--log-level {value}"),
                    reason: "name the logger before `:=`, or give the level alone".into(),
                })
            }
            None => *lock(&self.default) = severity,
        }
        Ok(())
    }

    /// The level a logger logs from: its own, its nearest ancestor's, or
    /// the default.
    pub fn effective(&self, name: &str) -> Severity {
        let levels = lock(&self.levels);
        let mut n = name;
        loop {
            if let Some(s) = levels.get(n) {
                return *s;
            }
            match n.rsplit_once('.') {
                Some((parent, _)) => n = parent,
                None => return *lock(&self.default),
            }
        }
    }

    pub fn set_level(&self, name: &str, level: Option<Severity>) {
        let mut levels = lock(&self.levels);
        match level {
            Some(s) => levels.insert(name.to_string(), s),
            None => levels.remove(name),
        };
    }
}
