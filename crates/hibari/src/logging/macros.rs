//! `hibari::info!(logger, "...")` and its siblings (rclcpp's `RCLCPP_*`).

/// Writes a record of a [`Severity`](crate::logging::Severity) to a
/// [`Logger`](crate::logging::Logger), with an optional condition before a
/// `;`: `once`, `skip_first` or `throttle = <Duration>`.
#[macro_export]
macro_rules! log {
    (@write $logger:expr, $severity:expr, $($arg:tt)+) => {
        $logger.log_at(
            $severity,
            $crate::logging::Location { file: file!(), function: module_path!(), line: line!() },
            format_args!($($arg)+),
        )
    };
    ($logger:expr, $severity:expr, once; $($arg:tt)+) => {{
        static SITE: $crate::logging::CallSite = $crate::logging::CallSite::new();
        let logger: &$crate::logging::Logger = &$logger;
        if logger.is_enabled_for($severity) && SITE.once() {
            $crate::log!(@write logger, $severity, $($arg)+);
        }
    }};
    ($logger:expr, $severity:expr, skip_first; $($arg:tt)+) => {{
        static SITE: $crate::logging::CallSite = $crate::logging::CallSite::new();
        let logger: &$crate::logging::Logger = &$logger;
        if logger.is_enabled_for($severity) && SITE.skip_first() {
            $crate::log!(@write logger, $severity, $($arg)+);
        }
    }};
    ($logger:expr, $severity:expr, throttle = $period:expr; $($arg:tt)+) => {{
        static SITE: $crate::logging::CallSite = $crate::logging::CallSite::new();
        let logger: &$crate::logging::Logger = &$logger;
        if logger.is_enabled_for($severity) && SITE.throttle($period) {
            $crate::log!(@write logger, $severity, $($arg)+);
        }
    }};
    ($logger:expr, $severity:expr, $($arg:tt)+) => {{
        let logger: &$crate::logging::Logger = &$logger;
        if logger.is_enabled_for($severity) {
            $crate::log!(@write logger, $severity, $($arg)+);
        }
    }};
}

/// A DEBUG record: `hibari::debug!(logger, [once; | skip_first; | throttle = d;] "fmt", args…)`.
#[macro_export]
macro_rules! debug {
    ($logger:expr, $($rest:tt)+) => { $crate::log!($logger, $crate::logging::Severity::Debug, $($rest)+) };
}

/// An INFO record: `hibari::info!(logger, [once; | skip_first; | throttle = d;] "fmt", args…)`.
#[macro_export]
macro_rules! info {
    ($logger:expr, $($rest:tt)+) => { $crate::log!($logger, $crate::logging::Severity::Info, $($rest)+) };
}

/// A WARN record: `hibari::warn!(logger, [once; | skip_first; | throttle = d;] "fmt", args…)`.
#[macro_export]
macro_rules! warn {
    ($logger:expr, $($rest:tt)+) => { $crate::log!($logger, $crate::logging::Severity::Warn, $($rest)+) };
}

/// An ERROR record: `hibari::error!(logger, [once; | skip_first; | throttle = d;] "fmt", args…)`.
#[macro_export]
macro_rules! error {
    ($logger:expr, $($rest:tt)+) => { $crate::log!($logger, $crate::logging::Severity::Error, $($rest)+) };
}

/// A FATAL record: `hibari::fatal!(logger, [once; | skip_first; | throttle = d;] "fmt", args…)`.
#[macro_export]
macro_rules! fatal {
    ($logger:expr, $($rest:tt)+) => { $crate::log!($logger, $crate::logging::Severity::Fatal, $($rest)+) };
}
