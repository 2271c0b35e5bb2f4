//! `tracing` events into a hibari logger: add [`TracingLayer`] to the
//! process's tracing subscriber (feature `tracing`, on by default), beside
//! any other layer (`fmt`, a file, OpenTelemetry). Unlike the `log` bridge,
//! it works while a tracing subscriber is installed, and it takes every
//! event's fields, not only its message.

use std::fmt::{self, Write as _};

use tracing_core::field::{Field, Visit};
use tracing_core::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, Layer};

use super::bridge::{child_for_target, Writing};
use super::{Location, Logger, Severity};

/// A tracing layer writing each event as a ROS 2 record (console line and
/// `/rosout`) of a child of its logger: an event of target
/// `my_crate::camera` is written by `<logger>.my_crate.camera` (so
/// `--log-level name.my_crate:=debug` selects it), at the ROS severity of
/// its level (trace counts as debug). The record's text is the event's
/// `message` followed by its other fields as `name=value`. Events below
/// a logger's level cost a level check here and are left to the other
/// layers. An event raised while a record is written (by the transport
/// publishing it on `/rosout`) is dropped rather than looped back.
///
/// ```no_run
/// use tracing_subscriber::layer::SubscriberExt;
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let context = hibari::Context::new()?;
/// let node = context.create_node("camera")?;
/// let layer = hibari::logging::TracingLayer::new(node.get_logger());
/// tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer))?;
/// tracing::info!(exposure_us = 250, "frame captured");
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct TracingLayer {
    logger: Logger,
}

impl TracingLayer {
    /// A layer writing through `logger` and its children.
    pub fn new(logger: &Logger) -> Self {
        TracingLayer {
            logger: logger.clone(),
        }
    }
}

fn severity(level: &Level) -> Severity {
    match *level {
        Level::ERROR => Severity::Error,
        Level::WARN => Severity::Warn,
        Level::INFO => Severity::Info,
        _ => Severity::Debug,
    }
}

/// An event's text: its `message`, then its other fields.
#[derive(Default)]
struct Text {
    message: String,
    fields: String,
}

impl Visit for Text {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message.push_str(value);
        } else {
            let _ = write!(self.fields, " {}={value}", field.name());
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.message, "{value:?}");
        } else {
            let _ = write!(self.fields, " {}={value:?}", field.name());
        }
    }
}

impl<S: Subscriber> Layer<S> for TracingLayer {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let metadata = event.metadata();
        let logger = child_for_target(&self.logger, metadata.target());
        let s = severity(metadata.level());
        if !logger.is_enabled_for(s) {
            return;
        }
        let Some(_writing) = Writing::enter() else {
            return;
        };
        let mut text = Text::default();
        event.record(&mut text);
        let at = Location {
            file: metadata.file().unwrap_or(""),
            function: metadata.module_path().unwrap_or(""),
            line: metadata.line().unwrap_or(0),
        };
        let mut line = text.message;
        line.push_str(&text.fields);
        logger.log_at(s, at, format_args!("{}", line.trim_start()));
    }
}
