//! Loggers, the records they write, and the per-call-site state of the
//! `once`, `throttle` and `skip_first` conditions.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::{LogConfig, Severity};
use crate::msg::builtin_interfaces::msg::Time;
use crate::msg::rcl_interfaces::msg::Log;
use crate::Publisher;

/// Where a record was written in the source.
#[derive(Clone, Copy, Debug)]
pub struct Location<'a> {
    /// `file!()`.
    pub file: &'a str,
    /// `module_path!()` (Rust has no function name macro).
    pub function: &'a str,
    /// `line!()`.
    pub line: u32,
}

/// A named logger: a node's ([`Node::get_logger`](crate::Node::get_logger)),
/// a child of one, or one of its own ([`get_logger`]). Cloning shares it.
#[derive(Clone)]
pub struct Logger {
    name: Arc<str>,
    config: Arc<LogConfig>,
    rosout: Option<Arc<Publisher<Log>>>,
}

impl fmt::Debug for Logger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Logger({})", self.name)
    }
}

/// A logger of its own (rclcpp's `rclcpp::get_logger`): to the console
/// only, with the default level.
pub fn get_logger(name: &str) -> Logger {
    static CONFIG: OnceLock<Arc<LogConfig>> = OnceLock::new();
    Logger {
        name: name.into(),
        config: CONFIG.get_or_init(Default::default).clone(),
        rosout: None,
    }
}

impl Logger {
    pub(crate) fn new(
        name: String,
        config: Arc<LogConfig>,
        rosout: Option<Arc<Publisher<Log>>>,
    ) -> Self {
        Logger {
            name: name.into(),
            config,
            rosout,
        }
    }

    /// The logger's name (`r1.cam`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A child logger, `name.suffix`, publishing where this one does.
    pub fn get_child(&self, suffix: &str) -> Logger {
        Logger {
            name: format!("{}.{suffix}", self.name).into(),
            ..self.clone()
        }
    }

    /// Sets this logger's level (`None`: inherit again).
    pub fn set_level(&self, level: Option<Severity>) {
        self.config.set_level(&self.name, level);
    }

    /// The level it logs from.
    pub fn effective_level(&self) -> Severity {
        self.config.effective(&self.name)
    }

    /// Whether a record of `severity` would be written.
    pub fn is_enabled_for(&self, severity: Severity) -> bool {
        severity >= self.effective_level()
    }

    /// Writes a record (the macros call this after `is_enabled_for`).
    pub fn log_at(&self, severity: Severity, at: Location<'_>, message: fmt::Arguments<'_>) {
        let message = message.to_string();
        let now = SystemTime::now();
        if self.config.console {
            let format = &self.config.format;
            format.write(
                severity,
                &format.line(severity, &self.name, &message, &at, now),
            );
        }
        if let Some(rosout) = self.rosout.as_ref().filter(|_| self.config.rosout) {
            let since = now.duration_since(UNIX_EPOCH).unwrap_or_default();
            let record = Log {
                stamp: Time {
                    sec: i32::try_from(since.as_secs()).unwrap_or(i32::MAX),
                    nanosec: since.subsec_nanos(),
                },
                level: severity as u8,
                name: self.name.to_string(),
                msg: message,
                file: at.file.into(),
                function: at.function.into(),
                line: at.line,
            };
            // No transport taking it loses this record only.
            let _ = rosout.publish(record);
        }
    }
}

/// The state of one logging macro call: whether it ran once, how often it
/// was reached, when it last wrote (for `throttle`).
#[derive(Debug)]
pub struct CallSite {
    done_once: AtomicBool,
    reached: AtomicU64,
    /// Nanoseconds after [`epoch`] of the last write, plus one (0: never).
    last: AtomicU64,
}

impl Default for CallSite {
    fn default() -> Self {
        Self::new()
    }
}

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

impl CallSite {
    /// A call site that has not run.
    pub const fn new() -> Self {
        CallSite {
            done_once: AtomicBool::new(false),
            reached: AtomicU64::new(0),
            last: AtomicU64::new(0),
        }
    }

    /// True the first time only.
    pub fn once(&self) -> bool {
        !self.done_once.swap(true, Ordering::AcqRel)
    }

    /// False the first time, true after.
    pub fn skip_first(&self) -> bool {
        self.reached.fetch_add(1, Ordering::AcqRel) > 0
    }

    /// True when `period` has passed since it last returned true.
    pub fn throttle(&self, period: Duration) -> bool {
        let now = epoch().elapsed().as_nanos() as u64 + 1;
        let last = self.last.load(Ordering::Acquire);
        let period = period.as_nanos() as u64;
        if last != 0 && now.saturating_sub(last) < period {
            return false;
        }
        self.last
            .compare_exchange(last, now, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }
}
