//! `topic pub`: a message given as YAML (`'{data: hello}'`), published at a
//! rate, a number of times or once, as `ros2 topic pub` does. With `--once`
//! or `--times` it first waits for a matching subscription (`-w`, 1 by
//! default then, as ros2), so that the message is not published into the
//! void, and stays `--keep-alive` seconds after the last one so that a
//! reliable subscriber receives it.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context as _, Result};
use clap::Args;
use hibari::dynamic::{self, FromJsonOptions};
use hibari::interfaces::Distro;

use super::TopicQos;
use crate::cmd::common::yaml::{self, Printer};
use crate::cmd::common::{self, catch_interrupts, interrupted, sleep_until, GraphArgs, Session};

#[derive(Args, Debug)]
pub struct PubArgs {
    topic: String,
    type_name: String,
    /// The message as YAML; missing fields take their defaults.
    #[arg(default_value = "{}")]
    values: String,
    /// Publishing rate in Hz.
    #[arg(short, long, default_value_t = 1.0)]
    rate: f64,
    /// Publish one message and exit.
    #[arg(short = '1', long)]
    once: bool,
    /// Publish this many messages and exit.
    #[arg(short, long)]
    times: Option<u64>,
    /// Wait for this many matching subscriptions first (default: 1 with
    /// `--once`/`--times`, else 0).
    #[arg(short, long)]
    wait_matching_subscriptions: Option<usize>,
    /// Seconds to stay after the last message (`--once`, `--times`), once
    /// every reliable subscription has acknowledged them (waited for up to
    /// 3 s: a subscription that matched late still gets the repairs).
    #[arg(long, default_value_t = 0.1)]
    keep_alive: f64,
    /// Print every N-th message published (0: none).
    #[arg(short, long, default_value_t = 1)]
    print: u64,
    #[command(flatten)]
    qos: TopicQos,
}

pub fn run(_graph: &GraphArgs, args: PubArgs) -> Result<()> {
    catch_interrupts();
    if !(args.rate > 0.0 && args.rate.is_finite()) {
        bail!("--rate must be a positive number of messages per second");
    }
    let registry = common::registry(Distro::Jazzy)?;
    let ty = common::known_type(&registry, &args.type_name, "message")?;
    if registry.message(&ty).is_none() {
        bail!("`{ty}` is not a message type");
    }
    let json = yaml::parse(&args.values)?;
    let uses_now = args.values.contains("now");
    // Checked once before anything joins the domain: a typo fails at once.
    let encode = |now: Option<(i32, u32)>| -> Result<(Vec<u8>, String)> {
        let mut options = FromJsonOptions::default();
        if let Some((s, n)) = now {
            options = options.with_now(s, n);
        }
        let value = dynamic::from_json_with(&registry, &ty, &json, &options)
            .with_context(|| format!("the values do not make a {ty}"))?;
        let printer = Printer::new(&registry);
        let text = printer.flow(&value);
        Ok((dynamic::encode(&registry, &ty, &value)?, text))
    };
    let now = || {
        let d = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        (d.as_secs() as i32, d.subsec_nanos())
    };
    let (first, mut text) = encode(uses_now.then(now))?;
    // Shared, not copied, by each publish.
    let mut bytes = hibari::CdrBytes::from(first);
    let session = Session::new()?;
    let publisher = session
        .node
        .create_generic_publisher(&args.topic, &ty.to_string(), args.qos.qos.for_publisher())
        .context("creating the publisher")?;
    let times = if args.once { Some(1) } else { args.times };
    let wait_for = args
        .wait_matching_subscriptions
        .unwrap_or(if times.is_some() { 1 } else { 0 });
    if wait_for > 0 {
        let mut told = false;
        while publisher.matched_subscriptions() < wait_for {
            if !told {
                println!("Waiting for at least {wait_for} matching subscription(s)...");
                told = true;
            }
            if interrupted() {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    println!("publisher: beginning loop");
    let period = Duration::from_secs_f64(1.0 / args.rate);
    let mut next = Instant::now();
    let mut count = 0u64;
    while !interrupted() && times.is_none_or(|t| count < t) {
        if uses_now && count > 0 {
            let (fresh, t) = encode(Some(now()))?;
            (bytes, text) = (hibari::CdrBytes::from(fresh), t);
        }
        publisher
            .publish(bytes.clone())
            .map_err(|e| anyhow::anyhow!("publishing: {e}"))?;
        count += 1;
        if args.print > 0 && count.is_multiple_of(args.print) {
            println!("publishing #{count}: {text}\n");
        }
        if times.is_some_and(|t| count >= t) {
            break;
        }
        next += period;
        sleep_until(next);
    }
    if times.is_some() {
        if !publisher.wait_for_all_acked(ACK_WAIT) {
            eprintln!(
                "warning: a subscription had not acknowledged every message after {ACK_WAIT:?}"
            );
        }
        sleep_until(Instant::now() + Duration::from_secs_f64(args.keep_alive.clamp(0.0, 3600.0)));
    }
    Ok(())
}

/// How long `--once`/`--times` wait for reliable subscriptions to acknowledge.
const ACK_WAIT: Duration = Duration::from_secs(3);
