//! Logging as ROS 2 logs: a node's [`Logger`] (named after the node,
//! `r1.cam` for `/r1/cam`; children `r1.cam.child`) writes records of a
//! [`Severity`] to the console in ROS 2's format and publishes them on
//! `/rosout` (`rcl_interfaces/msg/Log`, ROS 2's QoS for it), so an rclpy
//! subscriber or `rqt_console` sees them.
//!
//! A record is written when its severity is at least the logger's
//! effective level: its own (set with [`Logger::set_level`] or
//! `--ros-args --log-level name:=level`), else its nearest ancestor's, else
//! the default (`--log-level level`, INFO when not given). The console line
//! follows `RCUTILS_CONSOLE_OUTPUT_FORMAT` (default
//! `[{severity}] [{time}] [{name}]: {message}`), goes to stderr unless
//! `RCUTILS_LOGGING_USE_STDOUT=1`, and is coloured when
//! `RCUTILS_COLORIZED_OUTPUT=1` (or, unset, when the stream is a terminal).
//! `--disable-stdout-logs` and `--disable-rosout-logs` turn either off.
//!
//! The macros ([`info!`](crate::info) and its siblings) take a logger, an
//! optional condition and a format: `hibari::info!(logger, "{} Hz", rate)`,
//! `hibari::warn!(logger, once; "no camera")`,
//! `hibari::debug!(logger, throttle = Duration::from_secs(1); "{x}")`,
//! `hibari::error!(logger, skip_first; "...")` — rclcpp's `RCLCPP_INFO`,
//! `_ONCE`, `_THROTTLE` and `_SKIPFIRST`.
//!
//! Records of the `log` crate reach the same sink once
//! [`forward_log_records`] is called, and `tracing` events once a
//! [`TracingLayer`] is added to the tracing subscriber (feature `tracing`).

mod bridge;
mod config;
mod console;
mod logger;
#[macro_use]
mod macros;
#[cfg(feature = "tracing")]
mod tracing_layer;

pub use bridge::{forward_log_records, LogBridgeError};
pub(crate) use config::LogConfig;
pub use config::LogOptionsError;
pub use logger::{get_logger, CallSite, Location, Logger};
#[cfg(feature = "tracing")]
pub use tracing_layer::TracingLayer;

/// A record's importance (rcutils' levels; the `level` of
/// `rcl_interfaces/msg/Log`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Severity {
    /// Everything, for developers.
    Debug = 10,
    /// What is going on (the default threshold).
    Info = 20,
    /// Something unexpected that was handled.
    Warn = 30,
    /// Something failed.
    Error = 40,
    /// The node cannot go on.
    Fatal = 50,
}

impl Severity {
    /// The name ROS 2 prints (`INFO`).
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Debug => "DEBUG",
            Severity::Info => "INFO",
            Severity::Warn => "WARN",
            Severity::Error => "ERROR",
            Severity::Fatal => "FATAL",
        }
    }

    /// A level named as `--log-level` takes it (any case; `warning` too).
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name.to_ascii_lowercase().as_str() {
            "debug" => Severity::Debug,
            "info" => Severity::Info,
            "warn" | "warning" => Severity::Warn,
            "error" => Severity::Error,
            "fatal" => Severity::Fatal,
            _ => return None,
        })
    }

    /// The level of a number (10, 20, …), rounded up to the next level as
    /// rcutils does (an unset 0 is DEBUG).
    pub fn from_level(level: u8) -> Option<Self> {
        Some(match level {
            0..=10 => Severity::Debug,
            11..=20 => Severity::Info,
            21..=30 => Severity::Warn,
            31..=40 => Severity::Error,
            41..=50 => Severity::Fatal,
            _ => return None,
        })
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests;
