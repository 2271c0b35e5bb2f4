//! A node: a name in a namespace, in one context. Publishers, subscriptions
//! and timers are created from it.

use std::any::Any;
use std::fmt;
use std::os::fd::{AsFd, BorrowedFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, TryLockError, Weak};
use std::time::Instant;

use hibari_transport::{GraphToken, NodeInfo, Notify, Reader, Sample};

pub(crate) mod graph;
pub(crate) mod graph_by_node;
pub mod names;
pub(crate) mod options;
pub(crate) mod remap;

use crate::context::{lock, Context, NodeCreateError};
use crate::executor::bells::Bell;
use crate::group::{CallbackGroup, CallbackGroupType, GroupGuard};
use crate::node::names::{expand_topic_name, NameError};
use crate::parameter::overrides;
use crate::parameter::store::ParameterStore;
use crate::wait::Signal;

/// Something an executor runs: a subscription, a timer, a guard condition.
pub(crate) trait Entity: Send + Sync {
    /// Runs one piece of ready work (one sample, one timer tick); returns
    /// whether it ran a callback. Never blocks: work another thread is
    /// running is skipped.
    fn execute(&self, now: Instant) -> bool;
    /// When a timer is next due; `None` for entities woken by events.
    fn next_due(&self) -> Option<Instant> {
        None
    }
    /// Whether [`next_due`](Entity::next_due) may ever say a time: fixed at
    /// creation, so an executor asks only these before it sleeps (not a
    /// thousand subscriptions without deadlines). The default says yes.
    fn timed(&self) -> bool {
        true
    }
    /// The entity's [`bell`](Entity::bell) rang (a writer in another process
    /// wrote it): look at the reader on the next pass.
    fn probe(&self) {}
    /// The eventfd its reader hands to writers in other processes, which
    /// the executor polls ([`bells`](crate::executor::bells)).
    fn bell(&self) -> Option<Bell> {
        None
    }
    /// Whether the entity polls instead of being woken (a busy-polling
    /// subscription): an executor with one never sleeps.
    fn busy(&self) -> bool {
        false
    }
    /// A descriptor the executor polls for this entity (an
    /// [`FdWatch`](crate::FdWatch)).
    fn watched_fd(&self) -> Option<BorrowedFd<'_>> {
        None
    }
    /// The descriptor of [`watched_fd`](Entity::watched_fd) is readable.
    fn fd_ready(&self) {}
    /// The descriptor was found readable and its callback has not run yet:
    /// the executor leaves it out of `poll(2)` until then.
    fn fd_pending(&self) -> bool {
        false
    }
}

/// Locks an entity's callback for one run, or `None` when another thread is
/// running it. A callback that panicked leaves the closure itself whole, so
/// a poisoned lock is used as is.
pub(crate) fn lock_callback<T: ?Sized>(callback: &Mutex<T>) -> Option<MutexGuard<'_, T>> {
    match callback.try_lock() {
        Ok(c) => Some(c),
        Err(TryLockError::Poisoned(p)) => Some(p.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    }
}

/// Takes the next sample of an entity's reader whose waker sets `ready`.
/// `ready` is cleared before the take, so a sample pushed after an empty
/// take wakes the entity again (the queue went from empty to non-empty), and
/// set again after a sample, since there may be more.
pub(crate) fn take_ready(ready: &AtomicBool, reader: &dyn Reader) -> Option<Sample> {
    ready.store(false, Ordering::Release);
    let sample = reader.take()?;
    ready.store(true, Ordering::Release);
    Some(sample)
}

/// The first half of every entity that serves requests: flagged ready, its
/// group and its callback free, and a request taken (pending events are
/// dropped when there is none). The caller runs the callback and may drop
/// the guards before replying.
pub(crate) fn next_request<'a, C: ?Sized>(
    ready: &AtomicBool,
    group: &'a CallbackGroup,
    waker: &Arc<NodeWaker>,
    callback: &'a Mutex<C>,
    requests: &dyn Reader,
) -> Option<(GroupGuard<'a>, MutexGuard<'a, C>, Sample)> {
    if !ready.load(Ordering::Acquire) {
        return None;
    }
    let group = group.try_enter(waker)?;
    let callback = lock_callback(callback)?;
    let Some(sample) = take_ready(ready, requests) else {
        while requests.take_event().is_some() {}
        return None;
    };
    Some((group, callback, sample))
}

/// Where a node's entities send their wake-ups: the signal of the executor
/// spinning the node, if any. (Writers in other processes ring an entity's
/// own eventfd instead, its [`Bell`].)
#[derive(Default)]
pub(crate) struct NodeWaker {
    signal: Mutex<Option<Arc<Signal>>>,
}

impl NodeWaker {
    /// A waker attached to no executor.
    pub fn new() -> NodeWaker {
        NodeWaker::default()
    }

    /// Wakes the executor spinning the node (no lock is held while it wakes).
    pub fn wake(&self) {
        let signal = lock(&self.signal).clone();
        if let Some(s) = signal {
            s.notify();
        }
    }

    /// Attaches the node to `signal`; fails if another executor has it.
    pub fn attach(&self, signal: &Arc<Signal>) -> bool {
        let mut current = lock(&self.signal);
        match &*current {
            Some(s) if !Arc::ptr_eq(s, signal) => false,
            _ => {
                *current = Some(signal.clone());
                true
            }
        }
    }

    /// Detaches the node from `signal` (if it is attached to it).
    pub fn detach(&self, signal: &Arc<Signal>) {
        let mut current = lock(&self.signal);
        if current.as_ref().is_some_and(|s| Arc::ptr_eq(s, signal)) {
            *current = None;
        }
    }
}

/// The waker of an entity that reads: `mark` flags it ready, then the
/// executor spinning its node (if any) is woken. Its
/// [`wake_fd`](Notify::wake_fd) is the entity's bell, so a writer in another
/// process wakes the executor directly; the executor then probes that
/// entity, which does what `mark` does.
pub(crate) struct WakeEntity<F> {
    pub mark: F,
    /// `None`: the entity is not run by executors (nothing to wake).
    pub waker: Option<Arc<NodeWaker>>,
    /// The entity's bell (`None` when not run by executors, or when the
    /// system refused an eventfd).
    pub bell: Option<Bell>,
}

impl<F: Fn() + Send + Sync> Notify for WakeEntity<F> {
    fn notify(&self) {
        (self.mark)();
        if let Some(w) = &self.waker {
            w.wake();
        }
    }

    fn wake_fd(&self) -> Option<BorrowedFd<'_>> {
        self.waker.as_ref()?;
        Some(self.bell.as_ref()?.as_fd())
    }
}

pub(crate) struct NodeInner {
    name: String,
    namespace: String,
    context: Context,
    /// The node's subscriptions, timers and guard conditions; their handles
    /// own them, so dropping a handle removes it.
    entities: Mutex<Vec<Weak<dyn Entity>>>,
    /// Bumped whenever an entity is added, so executors rebuild their list
    /// of entities only then (dropped entities just fail to upgrade).
    version: AtomicU64,
    pub(crate) waker: Arc<NodeWaker>,
    /// The mutually exclusive group of entities created without one.
    pub(crate) default_group: CallbackGroup,
    /// The node's parameters.
    pub(crate) parameters: Arc<ParameterStore>,
    /// The node's logger (publishing on `/rosout` unless disabled).
    logger: OnceLock<crate::logging::Logger>,
    /// The node's ROS clock, and what keeps it following `use_sim_time`.
    pub(crate) clock: crate::time::Clock,
    time_source: OnceLock<crate::time::TimeSource>,
    /// Keeps the parameter services served.
    parameter_services: OnceLock<Vec<Box<dyn Any + Send + Sync>>>,
    /// Keeps the node in the graph; dropped with the last handle.
    _announcement: GraphToken,
}

/// A named participant: it owns nothing but its name, and creates publishers,
/// subscriptions and timers. Cloning shares it.
///
/// Topic names given to it are expanded (relative names go in its namespace,
/// `~/x` under its own name) and then remapped by the context's rules.
#[derive(Clone)]
pub struct Node {
    pub(crate) inner: Arc<NodeInner>,
}

impl fmt::Debug for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Node")
            .field("name", &self.name())
            .field("namespace", &self.namespace())
            .finish()
    }
}

impl Node {
    pub(crate) fn new(
        context: Context,
        name: String,
        namespace: String,
        options: crate::NodeOptions,
    ) -> Result<Self, NodeCreateError> {
        let fqn = match namespace.as_str() {
            "/" => format!("/{name}"),
            ns => format!("{ns}/{name}"),
        };
        let mut parameter_overrides = match options.use_global_arguments {
            true => overrides::for_node(context.parameter_rules(), &fqn),
            false => Default::default(),
        };
        parameter_overrides.extend(options.parameter_overrides);
        let parameters = Arc::new(ParameterStore::new(
            parameter_overrides,
            options.allow_undeclared_parameters,
            options.automatically_declare_parameters_from_overrides,
        ));
        let announcement = context
            .transport()
            .announce_node(&NodeInfo::new(namespace.clone(), name.clone()));
        let node = Node {
            inner: Arc::new(NodeInner {
                parameters,
                logger: OnceLock::new(),
                parameter_services: OnceLock::new(),
                clock: crate::time::Clock::ros(),
                time_source: OnceLock::new(),
                _announcement: announcement,
                name,
                namespace,
                context,
                entities: Mutex::new(Vec::new()),
                version: AtomicU64::new(0),
                waker: Arc::new(NodeWaker::new()),
                default_group: CallbackGroup::new(CallbackGroupType::MutuallyExclusive),
            }),
        };
        let rosout = match options.enable_rosout && node.context().log_config().rosout {
            true => Some(Arc::new(
                node.create_publisher("/rosout", crate::QosProfile::rosout())
                    .map_err(NodeCreateError::Rosout)?,
            )),
            false => None,
        };
        let logger_name = match node.namespace() {
            "/" => node.name().to_string(),
            ns => format!(
                "{}.{}",
                ns.trim_start_matches('/').replace('/', "."),
                node.name()
            ),
        };
        let config = node.context().log_config().clone();
        let _ = (node.inner.logger).set(crate::logging::Logger::new(logger_name, config, rosout));
        let store = &node.inner.parameters;
        if options.start_parameter_event_publisher {
            crate::parameter::start_events(&node, store).map_err(NodeCreateError::Parameters)?;
        }
        if options.start_parameter_services {
            let services = crate::parameter::start_services(&node, store)
                .map_err(NodeCreateError::Parameters)?;
            let _ = node.inner.parameter_services.set(services);
        }
        let time_source =
            crate::time::TimeSource::attach(&node).map_err(|e| NodeCreateError::UseSimTime {
                reason: e.to_string(),
            })?;
        let _ = node.inner.time_source.set(time_source);
        Ok(node)
    }

    /// The node's name (after remapping).
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The node's absolute namespace (after remapping).
    pub fn namespace(&self) -> &str {
        &self.inner.namespace
    }

    /// `/namespace/name`.
    pub fn fully_qualified_name(&self) -> String {
        match self.namespace() {
            "/" => format!("/{}", self.name()),
            ns => format!("{ns}/{}", self.name()),
        }
    }

    /// The node as the graph shows it (and as its endpoints name it).
    pub fn info(&self) -> NodeInfo {
        NodeInfo::new(self.namespace(), self.name())
    }

    /// The node's logger, named `namespace.name` with dots (`r1.cam` for
    /// `/r1/cam`): to the console and `/rosout` (see [`crate::logging`]).
    pub fn get_logger(&self) -> &crate::logging::Logger {
        self.inner
            .logger
            .get()
            .expect("a node's logger is set when it is created")
    }

    /// The context the node belongs to.
    pub fn context(&self) -> &Context {
        &self.inner.context
    }

    /// Registers an entity and wakes the executor so that it sees it.
    pub(crate) fn add_entity(&self, entity: Weak<dyn Entity>) {
        let mut entities = lock(&self.inner.entities);
        entities.retain(|e| e.strong_count() > 0);
        entities.push(entity);
        self.inner.version.fetch_add(1, Ordering::AcqRel);
        drop(entities);
        self.inner.waker.wake();
    }

    /// How many entities were ever added: changes exactly when the list does
    /// (apart from drops, which the `Weak`s show).
    pub(crate) fn entities_version(&self) -> u64 {
        self.inner.version.load(Ordering::Acquire)
    }

    /// The entities, still alive or not, appended to `out`.
    pub(crate) fn collect_entities(&self, out: &mut Vec<Weak<dyn Entity>>) {
        out.extend(lock(&self.inner.entities).iter().cloned());
    }

    /// Whether two handles are the same node.
    pub(crate) fn same(&self, other: &Node) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// The topic a name stands for from this node: expanded, then remapped.
    pub fn resolve_topic_name(&self, topic: &str) -> Result<String, NameError> {
        let expanded = expand_topic_name(topic, self.name(), self.namespace())?;
        remap::topic(
            self.inner.context.rules(),
            &expanded,
            self.name(),
            self.namespace(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topic_names_are_expanded_from_the_nodes_name_and_namespace() {
        let c = Context::builder().isolated().create().unwrap();
        let n = c.create_node_with_namespace("cam", "/r1").unwrap();
        assert_eq!(n.resolve_topic_name("image").unwrap(), "/r1/image");
        assert_eq!(n.resolve_topic_name("~/info").unwrap(), "/r1/cam/info");
        assert_eq!(n.resolve_topic_name("/tf").unwrap(), "/tf");
        assert!(n.resolve_topic_name("bad name").is_err());
    }
}
