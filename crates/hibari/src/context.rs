//! The context: one domain, its transport, the command line's remapping
//! rules, and the shutdown switch every executor of its nodes obeys.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};

use hibari_inproc::InprocTransport;
use hibari_transport::{DomainId, Transport};
use thiserror::Error;

use crate::logging::LogConfig;
use crate::node::names::{normalize_namespace, validate_node_name, NameError};
use crate::node::options::NodeOptions;
use crate::node::remap::{self, RemapRule, RosArgs};
use crate::node::Node;
use crate::parameter::overrides::OverrideRule;
use crate::wait::Signal;

/// The environment variable holding the default domain id: ROS 2's own, so
/// that hibari and ROS 2 nodes started from one shell share a domain.
pub const DOMAIN_ID_ENV: &str = "ROS_DOMAIN_ID";

/// Why a context could not be created.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ContextCreateError {
    /// `ROS_DOMAIN_ID` is set but is not a number.
    #[error(
        "{DOMAIN_ID_ENV}=`{value}` is not a domain id: set it to a number such as 0, or unset it"
    )]
    InvalidDomainId {
        /// The variable's value.
        value: String,
    },
    /// A ROS argument hibari does not understand.
    #[error("the ROS argument `{argument}` is not valid: {reason}")]
    InvalidArgument {
        /// The argument.
        argument: String,
        /// Why, and what to write instead.
        reason: String,
    },
    /// A `-p` value or a `--params-file` that cannot be read.
    #[error("bad parameter override: {0}")]
    InvalidParameterOverride(#[from] crate::parameter::ParameterOverrideError),
    /// A `--log-level` that cannot be read.
    #[error("bad logging argument: {0}")]
    InvalidLogOption(#[from] crate::logging::LogOptionsError),
    /// A remapping rule that cannot be parsed.
    #[error("the remapping rule `{rule}` is not valid: {reason}")]
    InvalidRemapRule {
        /// The rule.
        rule: String,
        /// Why, and what to write instead.
        reason: String,
    },
}

/// Why a node could not be created.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NodeCreateError {
    /// The node name (after remapping) is not valid.
    #[error("cannot create the node: {0}")]
    InvalidName(NameError),
    /// The namespace (after remapping) is not valid.
    #[error("cannot create the node: {0}")]
    InvalidNamespace(NameError),
    /// Its `/rosout` publisher could not be created.
    #[error("cannot create the node's /rosout publisher: {0}")]
    Rosout(crate::PublisherCreateError),
    /// Its parameter services or event publisher could not be created.
    #[error("cannot create the node: {0}")]
    Parameters(crate::parameter::ParameterServicesError),
    /// Its `use_sim_time` parameter could not be declared (an override of
    /// another type than bool).
    #[error("cannot create the node: {reason}")]
    UseSimTime {
        /// The declaration's error.
        reason: String,
    },
    /// The context was shut down.
    #[error("cannot create the node `{name}`: the context was shut down; create a new context")]
    ShutDown {
        /// The node's name.
        name: String,
    },
}

/// The shared state behind a [`Context`].
pub(crate) struct ContextInner {
    pub(crate) transport: Arc<dyn Transport>,
    pub(crate) rules: Vec<RemapRule>,
    /// Parameter overrides from the command line, in order.
    pub(crate) params: Vec<OverrideRule>,
    /// Log levels and outputs.
    pub(crate) logging: Arc<LogConfig>,
    shutdown: AtomicBool,
    /// Executors to wake on shutdown.
    signals: Mutex<Vec<Weak<Signal>>>,
}

/// One domain seen by this process: its transport, the remapping rules from
/// the command line, and a shutdown switch.
///
/// Cloning shares it. Every node belongs to one context; shutting it down
/// stops the executors spinning its nodes and refuses new nodes.
///
/// ```
/// use hibari::Context;
/// let context = Context::builder().domain(7).args(["--ros-args", "-r", "chatter:=talk"]).create()?;
/// let node = context.create_node("talker")?;
/// assert_eq!(node.resolve_topic_name("chatter")?, "/talk");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Context {
    inner: Arc<ContextInner>,
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("domain_id", &self.domain_id())
            .field("transport", &self.inner.transport.kind())
            .field("shut_down", &self.is_shut_down())
            .finish()
    }
}

fn parse_domain_id(value: Option<&str>) -> Result<DomainId, ContextCreateError> {
    match value.map(str::trim) {
        None | Some("") => Ok(0),
        Some(v) => v.parse().map_err(|_| ContextCreateError::InvalidDomainId {
            value: v.to_string(),
        }),
    }
}

fn env_domain_id() -> Result<DomainId, ContextCreateError> {
    let value = std::env::var(DOMAIN_ID_ENV).ok();
    parse_domain_id(value.as_deref())
}

impl Context {
    /// The domain in `ROS_DOMAIN_ID` (0 when unset), reaching this process,
    /// the others on this host and ROS 2 nodes
    /// ([`transports`](crate::transports)), no remapping.
    pub fn new() -> Result<Self, ContextCreateError> {
        Self::builder().create()
    }

    /// Domain `domain_id`, reaching this process, the others on this host and
    /// ROS 2 nodes (DDS only in ROS 2's domains, 0..=232), no remapping.
    pub fn with_domain(domain_id: DomainId) -> Self {
        Self::from_parts(
            crate::transports::default_transport(domain_id),
            RosArgs::default(),
        )
    }

    /// Like [`new`](Context::new), with the remapping rules found in `args`
    /// (a program's arguments: `--ros-args -r from:=to … [--]`).
    pub fn with_args<I, S>(args: I) -> Result<Self, ContextCreateError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        Self::builder().args(args).create()
    }

    /// Chooses the domain, transport and arguments one by one.
    pub fn builder() -> ContextBuilder {
        ContextBuilder::default()
    }

    fn from_parts(transport: Arc<dyn Transport>, args: RosArgs) -> Self {
        Context {
            inner: Arc::new(ContextInner {
                transport,
                rules: args.rules,
                params: args.params,
                logging: Arc::new(args.logging),
                shutdown: AtomicBool::new(false),
                signals: Mutex::new(Vec::new()),
            }),
        }
    }

    /// The domain.
    pub fn domain_id(&self) -> DomainId {
        self.inner.transport.domain_id()
    }

    /// The transport the context's nodes use.
    pub fn transport(&self) -> &Arc<dyn Transport> {
        &self.inner.transport
    }

    /// Creates a node in the root namespace.
    pub fn create_node(&self, name: &str) -> Result<Node, NodeCreateError> {
        self.create_node_with_namespace(name, "/")
    }

    /// Creates a node in `namespace` (`/robot1`; a relative `robot1` is made
    /// absolute, an empty one is `/`). Remapping rules `__node:=` and
    /// `__ns:=` apply.
    pub fn create_node_with_namespace(
        &self,
        name: &str,
        namespace: &str,
    ) -> Result<Node, NodeCreateError> {
        self.create_node_with_options(name, NodeOptions::new().namespace(namespace))
    }

    /// Creates a node with [`NodeOptions`]: its namespace and parameters.
    pub fn create_node_with_options(
        &self,
        name: &str,
        options: NodeOptions,
    ) -> Result<Node, NodeCreateError> {
        let namespace = options.namespace.clone();
        if self.is_shut_down() {
            return Err(NodeCreateError::ShutDown { name: name.into() });
        }
        validate_node_name(name).map_err(NodeCreateError::InvalidName)?;
        let namespace =
            normalize_namespace(&namespace).map_err(NodeCreateError::InvalidNamespace)?;
        let rules = &self.inner.rules;
        let final_name = remap::node_name(rules, name);
        let final_ns = remap::namespace(rules, name, &namespace);
        validate_node_name(final_name).map_err(NodeCreateError::InvalidName)?;
        Node::new(self.clone(), final_name.into(), final_ns.into(), options)
    }

    /// Shuts the context down: executors spinning its nodes return, and no
    /// node can be created any more. Publishers and subscriptions keep working
    /// for whoever still holds them.
    pub fn shutdown(&self) {
        self.inner.shutdown.store(true, Ordering::Release);
        let signals: Vec<_> = lock(&self.inner.signals)
            .iter()
            .filter_map(Weak::upgrade)
            .collect();
        for s in signals {
            s.notify();
        }
    }

    /// Whether [`shutdown`](Context::shutdown) was called.
    pub fn is_shut_down(&self) -> bool {
        self.inner.shutdown.load(Ordering::Acquire)
    }

    /// Wakes `signal` on shutdown.
    pub(crate) fn register(&self, signal: &Arc<Signal>) {
        let mut signals = lock(&self.inner.signals);
        signals.retain(|s| s.strong_count() > 0);
        let signal = Arc::downgrade(signal);
        if !signals.iter().any(|s| s.ptr_eq(&signal)) {
            signals.push(signal);
        }
    }

    pub(crate) fn rules(&self) -> &[RemapRule] {
        &self.inner.rules
    }

    pub(crate) fn log_config(&self) -> &Arc<LogConfig> {
        &self.inner.logging
    }

    pub(crate) fn parameter_rules(&self) -> &[OverrideRule] {
        &self.inner.params
    }
}

/// Builds a [`Context`]: `Context::builder().domain(3).args(std::env::args()).create()`.
#[derive(Default)]
#[must_use]
pub struct ContextBuilder {
    domain: Option<DomainId>,
    transport: Option<Arc<dyn Transport>>,
    rules: Option<Result<RosArgs, ContextCreateError>>,
}

impl ContextBuilder {
    /// The domain (default: `ROS_DOMAIN_ID`, else 0).
    pub fn domain(mut self, domain_id: DomainId) -> Self {
        self.domain = Some(domain_id);
        self
    }

    /// A transport of your own (default: the in-process, shared-memory and
    /// DDS transports of the domain); the domain is then the transport's.
    pub fn transport(mut self, transport: Arc<dyn Transport>) -> Self {
        self.transport = Some(transport);
        self
    }

    /// A domain of its own that no other context reaches: for tests.
    pub fn isolated(self) -> Self {
        let domain = self.domain.unwrap_or(0);
        self.transport(Arc::new(InprocTransport::isolated(domain)))
    }

    /// The program's arguments, for the remapping rules and parameter
    /// overrides after `--ros-args`.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.rules = Some(remap::parse_ros_args(args));
        self
    }

    /// Creates the context.
    pub fn create(self) -> Result<Context, ContextCreateError> {
        let rules = self.rules.transpose()?.unwrap_or_default();
        let transport = match self.transport {
            Some(t) => t,
            None => {
                let domain = match self.domain {
                    Some(d) => d,
                    None => env_domain_id()?,
                };
                crate::transports::default_transport(domain)
            }
        };
        Ok(Context::from_parts(transport, rules))
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_domain_id_defaults_to_zero_and_must_be_a_number() {
        assert_eq!(parse_domain_id(None), Ok(0));
        assert_eq!(parse_domain_id(Some("")), Ok(0));
        assert_eq!(parse_domain_id(Some(" 42 ")), Ok(42));
        let e = parse_domain_id(Some("seven")).unwrap_err();
        assert_eq!(
            e,
            ContextCreateError::InvalidDomainId {
                value: "seven".into()
            }
        );
        assert!(e.to_string().contains("set it to a number"), "{e}");
    }

    #[test]
    fn with_domain_serves_that_domain_in_process_and_on_this_host() {
        let domain = hibari_testkit::TestDomain::reserve();
        let c = Context::with_domain(domain.id());
        assert_eq!(c.domain_id(), domain.id());
        // In-process with shared memory and DDS, unless they are unavailable.
        assert!(["fanout", "inproc"].contains(&c.transport().kind()));
        assert!(Context::builder()
            .isolated()
            .create()
            .is_ok_and(|c| c.transport().kind() == "inproc"));
    }

    #[test]
    fn nodes_get_an_absolute_namespace() {
        let c = Context::builder().isolated().create().unwrap();
        assert_eq!(c.create_node("a").unwrap().namespace(), "/");
        let n = c.create_node_with_namespace("a", "robot1").unwrap();
        assert_eq!(n.namespace(), "/robot1");
        assert_eq!(n.fully_qualified_name(), "/robot1/a");
    }

    #[test]
    fn invalid_node_names_and_namespaces_are_refused() {
        let c = Context::builder().isolated().create().unwrap();
        assert!(matches!(
            c.create_node("a-b"),
            Err(NodeCreateError::InvalidName(_))
        ));
        assert!(matches!(
            c.create_node_with_namespace("a", "/x//y"),
            Err(NodeCreateError::InvalidNamespace(_))
        ));
    }

    #[test]
    fn remapping_rules_rename_nodes_and_topics() {
        let c = Context::builder()
            .isolated()
            .args([
                "prog",
                "--ros-args",
                "-r",
                "__ns:=/r9",
                "-r",
                "chatter:=talk",
            ])
            .create()
            .unwrap();
        let n = c.create_node("talker").unwrap();
        assert_eq!(n.namespace(), "/r9");
        assert_eq!(n.resolve_topic_name("chatter").unwrap(), "/r9/talk");
        assert_eq!(n.resolve_topic_name("/abs").unwrap(), "/abs");
    }

    #[test]
    fn a_bad_remapping_rule_fails_context_creation() {
        let e = Context::with_args(["--ros-args", "-r", "nope"]).unwrap_err();
        assert!(
            matches!(e, ContextCreateError::InvalidRemapRule { .. }),
            "{e}"
        );
    }

    #[test]
    fn a_shut_down_context_refuses_new_nodes() {
        let c = Context::builder().isolated().create().unwrap();
        c.shutdown();
        assert!(c.is_shut_down());
        assert!(matches!(
            c.create_node("a"),
            Err(NodeCreateError::ShutDown { .. })
        ));
    }
}
