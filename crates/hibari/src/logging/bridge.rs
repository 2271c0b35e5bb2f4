//! The `log` crate's records into a hibari logger: opt in with
//! [`forward_log_records`], and every `log::info!` (and, with the `tracing`
//! crate's `log` feature, every `tracing` event while no tracing subscriber
//! is installed) is written as a ROS 2 record — console line and `/rosout`.
//! [`TracingLayer`](super::TracingLayer) does the same for `tracing` events
//! with a subscriber installed, sharing the target naming and the guard
//! against records looping back.

use std::cell::Cell;

use thiserror::Error;

use super::{Location, Logger, Severity};

/// Why the bridge could not be installed.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LogBridgeError {
    /// The process has a `log` logger already (`log` allows one).
    #[error("the process already has a `log` logger (env_logger, another bridge…); the log crate allows one")]
    AlreadySet,
}

struct Bridge {
    logger: Logger,
}

thread_local! {
    /// Set while this thread writes a bridged record: a record logged while
    /// writing one (by the transport publishing on `/rosout`) is dropped, not
    /// looped back.
    static WRITING: Cell<bool> = const { Cell::new(false) };
}

fn severity(level: log::Level) -> Severity {
    match level {
        log::Level::Error => Severity::Error,
        log::Level::Warn => Severity::Warn,
        log::Level::Info => Severity::Info,
        log::Level::Debug | log::Level::Trace => Severity::Debug,
    }
}

/// Marks this thread as writing a bridged record, while it lives; `None`
/// when it already is (the record being written raised another one).
pub(super) struct Writing(());

impl Writing {
    pub(super) fn enter() -> Option<Writing> {
        if WRITING.with(|w| w.replace(true)) {
            return None;
        }
        Some(Writing(()))
    }
}

impl Drop for Writing {
    fn drop(&mut self) {
        WRITING.with(|w| w.set(false));
    }
}

/// The logger of a record's target: `base.my_crate.camera` for
/// `my_crate::camera`.
pub(super) fn child_for_target(base: &Logger, target: &str) -> Logger {
    match target {
        "" => base.clone(),
        t => base.get_child(&t.replace("::", ".")),
    }
}

impl Bridge {
    fn child(&self, target: &str) -> Logger {
        child_for_target(&self.logger, target)
    }
}

impl log::Log for Bridge {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        self.child(metadata.target())
            .is_enabled_for(severity(metadata.level()))
    }

    fn log(&self, record: &log::Record<'_>) {
        let logger = self.child(record.target());
        let s = severity(record.level());
        if !logger.is_enabled_for(s) {
            return;
        }
        let Some(_writing) = Writing::enter() else {
            return;
        };
        let at = Location {
            file: record.file().unwrap_or(""),
            function: record.module_path().unwrap_or(""),
            line: record.line().unwrap_or(0),
        };
        logger.log_at(s, at, *record.args());
    }

    fn flush(&self) {}
}

/// Makes `logger` the process's `log` logger: a record of target
/// `my_crate::camera` is written by its child `my_crate.camera` (so
/// `--log-level name.my_crate:=debug` selects it), at the ROS severity of
/// its level (trace counts as debug). Records below a logger's level cost a
/// level check. hibari's own dependencies log through `log` too: their
/// records appear under their crate names, and a record logged while one is
/// being written (the transport publishing it on `/rosout`) is dropped
/// rather than looped back.
pub fn forward_log_records(logger: &Logger) -> Result<(), LogBridgeError> {
    log::set_boxed_logger(Box::new(Bridge {
        logger: logger.clone(),
    }))
    .map_err(|_| LogBridgeError::AlreadySet)?;
    log::set_max_level(log::LevelFilter::Trace);
    Ok(())
}
