//! The console line of a record, as rcutils writes it: a format with
//! `{severity}`, `{name}`, `{message}`, `{time}`, `{time_as_nanoseconds}`,
//! `{date_time_with_ms}`, `{function_name}`, `{file_name}` and
//! `{line_number}`, optionally coloured, to stderr or stdout.

use std::io::{IsTerminal, Write};
use std::time::{SystemTime, UNIX_EPOCH};

use super::{Location, Severity};

const DEFAULT_FORMAT: &str = "[{severity}] [{time}] [{name}]: {message}";

/// How console lines look and where they go (read from the environment
/// once per context).
#[derive(Clone, Debug)]
pub(crate) struct Format {
    pattern: String,
    /// `None`: colour when the stream is a terminal.
    colorized: Option<bool>,
    stdout: bool,
}

impl Format {
    pub fn from_env() -> Self {
        let var = |n: &str| std::env::var(n).ok().filter(|v| !v.is_empty());
        Format {
            pattern: var("RCUTILS_CONSOLE_OUTPUT_FORMAT").unwrap_or_else(|| DEFAULT_FORMAT.into()),
            colorized: var("RCUTILS_COLORIZED_OUTPUT").map(|v| v != "0"),
            stdout: var("RCUTILS_LOGGING_USE_STDOUT").is_some_and(|v| v == "1"),
        }
    }

    /// The line (without colour or newline).
    pub fn line(
        &self,
        severity: Severity,
        name: &str,
        message: &str,
        at: &Location<'_>,
        time: SystemTime,
    ) -> String {
        let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
        let mut out = String::with_capacity(self.pattern.len() + message.len() + name.len());
        let mut rest = self.pattern.as_str();
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let after = &rest[open..];
            let Some(close) = after.find('}') else {
                rest = after;
                break;
            };
            let token = &after[1..close];
            match token {
                "severity" => out.push_str(severity.as_str()),
                "name" => out.push_str(name),
                "message" => out.push_str(message),
                "function_name" => out.push_str(at.function),
                "file_name" => out.push_str(at.file),
                "line_number" => out.push_str(&at.line.to_string()),
                "time" => out.push_str(&format!("{}.{:09}", since.as_secs(), since.subsec_nanos())),
                "time_as_nanoseconds" => out.push_str(&since.as_nanos().to_string()),
                "date_time_with_ms" => out.push_str(&date_time_with_ms(since.as_millis())),
                _ => out.push_str(&after[..=close]),
            }
            rest = &after[close + 1..];
        }
        out.push_str(rest);
        out
    }

    /// Writes the line, coloured as rcutils colours it when asked.
    pub fn write(&self, severity: Severity, line: &str) {
        let colour = |is_terminal: bool| {
            self.colorized
                .unwrap_or(is_terminal)
                .then_some(match severity {
                    Severity::Debug => "\x1b[32m",
                    Severity::Info => "\x1b[0m",
                    Severity::Warn => "\x1b[33m",
                    Severity::Error | Severity::Fatal => "\x1b[31m",
                })
        };
        // A console that cannot be written to loses the line, not the record
        // (it still goes to /rosout).
        let _ = if self.stdout {
            let out = std::io::stdout();
            let c = colour(out.is_terminal());
            emit(&mut out.lock(), c, line)
        } else {
            let err = std::io::stderr();
            let c = colour(err.is_terminal());
            emit(&mut err.lock(), c, line)
        };
    }
}

fn emit(w: &mut dyn Write, colour: Option<&str>, line: &str) -> std::io::Result<()> {
    match colour {
        Some(c) => writeln!(w, "{c}{line}\x1b[0m"),
        None => writeln!(w, "{line}"),
    }
}

/// `YYYY-MM-DD HH:MM:SS.mmm` in UTC.
fn date_time_with_ms(ms: u128) -> String {
    let secs = (ms / 1000) as i64;
    let (days, sod) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{:03}",
        sod / 3600,
        sod % 3600 / 60,
        sod % 60,
        ms % 1000
    )
}

#[cfg(test)]
pub(crate) fn with_pattern(pattern: &str) -> Format {
    Format {
        pattern: pattern.into(),
        colorized: Some(false),
        stdout: false,
    }
}

#[cfg(test)]
pub(crate) fn date(ms: u128) -> String {
    date_time_with_ms(ms)
}
