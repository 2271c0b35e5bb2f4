//! What the graph verbs (`topic`, `node`, `service`, `param`, `action`)
//! share: the command's own node, discovery, type lookup, Ctrl-C.
//!
//! Every command joins the domain as one hidden node, `_hibari_cli_<pid>`
//! (hidden as `ros2`'s `_ros2cli_…` is: names starting with `_` are left
//! out of listings), without parameter services, `/parameter_events` or
//! `/rosout`, so that it adds nothing to what it shows. There is no daemon:
//! a listing first waits `--spin-time` for discovery, as `ros2 … --no-daemon`
//! does.

pub mod qos;
mod scalars;
pub mod stop;
pub mod yaml;
#[cfg(test)]
mod yaml_tests;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};
use clap::Args;
use hibari::interfaces::model::TypeName;
use hibari::interfaces::{Distro, Registry};
use hibari::{Context, Node, NodeOptions, SingleThreadedExecutor};
use stop::Stop;

/// Options every graph verb takes.
#[derive(Args, Debug, Clone)]
pub struct GraphArgs {
    /// Seconds to wait for discovery before answering (there is no daemon).
    #[arg(long, default_value_t = 0.5, global = true)]
    pub spin_time: f64,
}

/// The command's node in the domain (`ROS_DOMAIN_ID`).
pub struct Session {
    pub node: Node,
    _context: Context,
}

impl Session {
    pub fn new() -> Result<Session> {
        let context = Context::new().context("joining the domain")?;
        let name = format!("_hibari_cli_{}", std::process::id());
        let node = tool_node(&context, &name)?;
        Ok(Session {
            node,
            _context: context,
        })
    }

    /// A session that has waited `spin_time` for discovery.
    pub fn discovered(args: &GraphArgs) -> Result<Session> {
        let session = Session::new()?;
        std::thread::sleep(Duration::from_secs_f64(args.spin_time.clamp(0.0, 60.0)));
        Ok(session)
    }

    /// A session for a verb that then waits for what it needs itself (a
    /// topic's type, a publisher, a server): at most 0.2 s of discovery.
    pub fn joined(args: &GraphArgs) -> Result<Session> {
        Session::discovered(&GraphArgs {
            spin_time: args.spin_time.min(0.2),
        })
    }

    /// Runs an executor for the node on a thread of its own until dropped.
    pub fn spin(&self) -> Result<Spinner> {
        let executor = Arc::new(SingleThreadedExecutor::new());
        executor
            .add_node(&self.node)
            .context("spinning the command's node")?;
        // A cancel before the spin starts would be forgotten (a Spinner
        // dropped at once would then join for ever): the spin asks `stop` too.
        let stop = Arc::new(AtomicBool::new(false));
        let (e, stopped) = (executor.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            e.spin_until(|| stopped.load(Ordering::Acquire), Duration::MAX);
        });
        Ok(Spinner {
            executor,
            stop,
            thread: Some(thread),
        })
    }

    /// The type of `topic` as the graph shows it, waiting (until Ctrl-C) for
    /// a publisher or subscription to appear when none is there yet.
    pub fn topic_type(&self, topic: &str, what: &str) -> Result<String> {
        let resolved = self.node.resolve_topic_name(topic)?;
        let mut told = false;
        loop {
            if let Some(types) = self.node.get_topic_names_and_types().get(&resolved) {
                match types.as_slice() {
                    [one] => return Ok(one.clone()),
                    many => bail!(
                        "{resolved} carries several types ({}): name the one to {what}",
                        many.join(", ")
                    ),
                }
            }
            if !told {
                eprintln!("waiting for {resolved} to appear in the graph, to learn its type (Ctrl-C to stop)");
                told = true;
            }
            self.node.wait_for_graph(
                |g| g.endpoints.iter().any(|e| e.spec.topic == resolved),
                Duration::from_millis(200),
            );
            if interrupted() {
                bail!("interrupted before {resolved} appeared");
            }
        }
    }
}

impl Session {
    /// The publishers of `topic`, waiting (until Ctrl-C) for one when there
    /// is none yet: a subscription adapts its QoS to them (see
    /// [`qos::QosArgs::for_subscription`]), as `ros2 topic echo` does.
    pub fn publishers(&self, topic: &str) -> Result<Vec<hibari::TopicEndpointInfo>> {
        let resolved = self.node.resolve_topic_name(topic)?;
        let mut told = false;
        loop {
            let found = self.node.get_publishers_info_by_topic(&resolved)?;
            if !found.is_empty() {
                return Ok(found);
            }
            if !told {
                eprintln!("WARNING: topic [{resolved}] does not appear to be published yet");
                told = true;
            }
            self.node.wait_for_graph(
                |g| {
                    g.endpoints
                        .iter()
                        .any(|e| e.kind == hibari::EndpointKind::Writer && e.spec.topic == resolved)
                },
                Duration::from_millis(200),
            );
            if interrupted() {
                bail!("interrupted before {resolved} had a publisher");
            }
        }
    }
}

/// A node of a command (`_hibari_cli_…`, `rosbag2_recorder`, …) that adds
/// nothing to the graph it looks at: no parameter services, no
/// `/parameter_events`, no `/rosout`, no `--ros-args` of the command line.
pub fn tool_node(context: &Context, name: &str) -> Result<Node> {
    let options = NodeOptions::new()
        .start_parameter_services(false)
        .start_parameter_event_publisher(false)
        .enable_rosout(false)
        .use_global_arguments(false);
    context
        .create_node_with_options(name, options)
        .with_context(|| format!("creating the node {name}"))
}

/// An executor spinning on a thread; cancelled and joined when dropped.
pub struct Spinner {
    executor: Arc<SingleThreadedExecutor>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        self.executor.cancel();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The definitions: Jazzy's bundled ones and `HIBARI_INTERFACE_PATH`'s.
pub fn registry(distro: Distro) -> Result<Registry> {
    let mut registry = Registry::bundled(distro);
    registry
        .add_from_env()
        .context("loading packages from HIBARI_INTERFACE_PATH")?;
    registry
        .validate()
        .context("resolving interface definitions")?;
    Ok(registry)
}

/// A type name from the command line or the graph, with a way forward when
/// the definitions do not know it.
pub fn known_type(registry: &Registry, name: &str, kind: &str) -> Result<TypeName> {
    match registry.resolve(name) {
        Some(t) => Ok(t),
        None => bail!(
            "unknown {kind} type `{name}`: add the package that defines it to \
             HIBARI_INTERFACE_PATH (folders of packages with msg/, srv/, action/)"
        ),
    }
}

/// Installs the Ctrl-C / SIGTERM handler (once): from then on those end
/// loops and sleeps instead of the process.
pub fn catch_interrupts() {
    Stop::global();
}

/// Whether Ctrl-C or SIGTERM arrived.
pub fn interrupted() -> bool {
    Stop::global().is_set()
}

/// Sleeps until `deadline` or an interrupt.
pub fn sleep_until(deadline: Instant) {
    Stop::global().sleep_until(deadline);
}
