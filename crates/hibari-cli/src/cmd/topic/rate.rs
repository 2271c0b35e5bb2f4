//! `topic hz|bw|delay`: statistics over a window of the latest messages,
//! printed once a second in `ros2 topic`'s format until Ctrl-C.

use std::collections::VecDeque;
use std::io::Write as _;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context as _, Result};
use clap::Args;
use hibari::dynamic::{self, Value};
use hibari::interfaces::model::TypeName;
use hibari::interfaces::{Distro, Registry};
use hibari::CdrBytes;

use super::TopicQos;
use crate::cmd::common::stop::lock;
use crate::cmd::common::{self, catch_interrupts, interrupted, sleep_until, GraphArgs, Session};

#[derive(Args, Debug)]
pub struct HzArgs {
    topic: String,
    /// How many of the latest intervals the statistics cover.
    #[arg(short, long, default_value_t = 10_000)]
    window: usize,
    #[command(flatten)]
    qos: TopicQos,
}

#[derive(Args, Debug)]
pub struct BwArgs {
    topic: String,
    /// How many of the latest messages the statistics cover.
    #[arg(short, long, default_value_t = 100)]
    window: usize,
    #[command(flatten)]
    qos: TopicQos,
}

#[derive(Args, Debug)]
pub struct DelayArgs {
    topic: String,
    /// How many of the latest messages the statistics cover.
    #[arg(short, long, default_value_t = 10_000)]
    window: usize,
    #[command(flatten)]
    qos: TopicQos,
}

/// A statistic over a topic's messages.
trait Meter {
    /// One message and when it arrived.
    fn each(&mut self, bytes: CdrBytes, at: Instant);
    /// Prints the statistic (called once a second).
    fn report(&mut self, out: &mut dyn std::io::Write) -> Result<()>;
}

/// Subscribes to `topic` (any type, bytes only) and feeds `meter` every
/// message in the subscription's callback (one wake-up per message: no
/// hand-over to another thread), printing its report once a second, until
/// Ctrl-C.
fn watch<M: Meter + Send + 'static>(
    session: &Session,
    topic: &str,
    type_name: &str,
    qos: &TopicQos,
    meter: M,
) -> Result<()> {
    let publishers = session.publishers(topic)?;
    let meter = Arc::new(Mutex::new(meter));
    let fed = meter.clone();
    let _subscription = session
        .node
        .create_generic_subscription(
            topic,
            type_name,
            qos.qos.for_subscription(&publishers),
            move |b, _| lock(&fed).each(b, Instant::now()),
        )
        .context("subscribing")?;
    let _spinner = session.spin()?;
    let mut next_report = Instant::now() + Duration::from_secs(1);
    let mut out = std::io::stdout().lock();
    loop {
        sleep_until(next_report);
        if interrupted() {
            return Ok(());
        }
        lock(&meter).report(&mut out)?;
        out.flush()?;
        next_report += Duration::from_secs(1);
    }
}

/// The session and the topic's type, waiting for the topic to appear.
fn join(graph: &GraphArgs, topic: &str) -> Result<(Session, String)> {
    catch_interrupts();
    let session = Session::joined(graph)?;
    let type_name = session.topic_type(topic, "measure")?;
    Ok((session, type_name))
}

/// Mean, min, max and standard deviation of a window of values.
fn stats(values: &VecDeque<f64>) -> Option<(f64, f64, f64, f64)> {
    if values.is_empty() {
        return None;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some((mean, min, max, var.sqrt()))
}

fn push<T>(window: &mut VecDeque<T>, limit: usize, v: T) {
    window.push_back(v);
    while window.len() > limit.max(1) {
        window.pop_front();
    }
}

struct Hz {
    window: usize,
    last: Option<Instant>,
    intervals: VecDeque<f64>,
    fresh: bool,
}

impl Meter for Hz {
    fn each(&mut self, _: CdrBytes, at: Instant) {
        if let Some(prev) = self.last {
            push(&mut self.intervals, self.window, (at - prev).as_secs_f64());
            self.fresh = true;
        }
        self.last = Some(at);
    }

    fn report(&mut self, out: &mut dyn std::io::Write) -> Result<()> {
        match stats(&self.intervals) {
            Some((mean, min, max, sd)) if self.fresh && mean > 0.0 => writeln!(
                out,
                "average rate: {:.3}\n\tmin: {min:.3}s max: {max:.3}s std dev: {sd:.5}s window: {}",
                1.0 / mean,
                self.intervals.len() + 1
            )?,
            _ => writeln!(out, "no new messages")?,
        }
        self.fresh = false;
        Ok(())
    }
}

pub fn hz(graph: &GraphArgs, args: HzArgs) -> Result<()> {
    let (session, ty) = join(graph, &args.topic)?;
    let meter = Hz {
        window: args.window,
        last: None,
        intervals: VecDeque::new(),
        fresh: false,
    };
    watch(&session, &args.topic, &ty, &args.qos, meter)
}

/// Bytes in ros2 bw's units.
fn size(bytes: f64) -> String {
    if bytes < 1000.0 {
        format!("{bytes:.2} B")
    } else if bytes < 1_000_000.0 {
        format!("{:.2} KB", bytes / 1000.0)
    } else {
        format!("{:.2} MB", bytes / 1_000_000.0)
    }
}

struct Bw {
    limit: usize,
    window: VecDeque<(Instant, f64)>,
}

impl Meter for Bw {
    fn each(&mut self, bytes: CdrBytes, at: Instant) {
        push(&mut self.window, self.limit, (at, bytes.len() as f64));
    }

    fn report(&mut self, out: &mut dyn std::io::Write) -> Result<()> {
        let (Some(first), Some(last)) = (self.window.front(), self.window.back()) else {
            return Ok(());
        };
        let sizes: VecDeque<f64> = self.window.iter().map(|(_, s)| *s).collect();
        let span = (last.0 - first.0).as_secs_f64();
        let total: f64 = sizes.iter().sum();
        let (mean, min, max, _) = stats(&sizes).unwrap_or_default();
        let rate = if span > 0.0 { total / span } else { 0.0 };
        writeln!(
            out,
            "{}/s from {} messages\n\tMessage size mean: {} min: {} max: {}",
            size(rate),
            self.window.len(),
            size(mean),
            size(min),
            size(max)
        )?;
        Ok(())
    }
}

pub fn bw(graph: &GraphArgs, args: BwArgs) -> Result<()> {
    let (session, ty) = join(graph, &args.topic)?;
    let meter = Bw {
        limit: args.window,
        window: VecDeque::new(),
    };
    watch(&session, &args.topic, &ty, &args.qos, meter)
}

struct Delay {
    registry: Arc<Registry>,
    ty: TypeName,
    window: usize,
    delays: VecDeque<f64>,
    bad: Option<String>,
}

impl Meter for Delay {
    fn each(&mut self, bytes: CdrBytes, _: Instant) {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        match dynamic::decode(&*self.registry, &self.ty, bytes.bytes()) {
            Ok(v) => {
                if let Some(stamp) = stamp_seconds(&v) {
                    push(&mut self.delays, self.window, now.as_secs_f64() - stamp);
                }
            }
            Err(e) => self.bad = Some(e.to_string()),
        }
    }

    fn report(&mut self, out: &mut dyn std::io::Write) -> Result<()> {
        if let Some(e) = self.bad.take() {
            eprintln!("a message that does not decode as {}: {e}", self.ty);
        }
        if let Some((mean, min, max, sd)) = stats(&self.delays) {
            writeln!(
                out,
                "average delay: {mean:.3}\n\tmin: {min:.3}s max: {max:.3}s std dev: {sd:.5}s window: {}",
                self.delays.len()
            )?;
        }
        Ok(())
    }
}

pub fn delay(graph: &GraphArgs, args: DelayArgs) -> Result<()> {
    let registry = Arc::new(common::registry(Distro::Jazzy)?);
    let (session, type_name) = join(graph, &args.topic)?;
    let ty = common::known_type(&registry, &type_name, "message")?;
    let has_header = registry
        .message(&ty)
        .is_some_and(|d| d.fields.iter().any(|f| f.name == "header"));
    if !has_header {
        bail!("{type_name} has no `header` field: `topic delay` needs header.stamp");
    }
    let meter = Delay {
        registry: registry.clone(),
        ty,
        window: args.window,
        delays: VecDeque::new(),
        bad: None,
    };
    watch(&session, &args.topic, &type_name, &args.qos, meter)
}

fn stamp_seconds(v: &Value) -> Option<f64> {
    let sec = v.get_path("header.stamp.sec")?.as_i64()?;
    let nanosec = v.get_path("header.stamp.nanosec")?.as_u64()?;
    Some(sec as f64 + nanosec as f64 * 1e-9)
}
