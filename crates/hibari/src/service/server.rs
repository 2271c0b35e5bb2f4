//! Service servers: a callback that answers requests, run by the executor
//! spinning its node.
//!
//! A server reads requests on the service's request topic and writes each
//! response, addressed to the client that asked, on its reply topic (see
//! [`Client`](crate::Client) for the other side, and the crate's `reply`
//! module for the wire form). Both endpoints go through the transport
//! contract, so a server answers clients in this process, over shared memory
//! or over the network alike. In one process the request is handed over (the
//! callback gets the value the client sent, moved, not copied) and so is the
//! response.
//!
//! The callback ([`ServiceCallback`]) runs on the executor, one request at a
//! time and in the order they came, like a subscription's callback, in the
//! node's default callback group or the one given in [`ServiceOptions`].

use std::fmt;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use hibari_transport::{
    EndpointCreateError, EndpointSpec, Payload, Reader, ReaderOptions, SampleInfo, Writer,
    WriterOptions,
};
use thiserror::Error;

use crate::executor::bells::{new_bell, Bell};
use crate::group::CallbackGroup;
use crate::node::names::NameError;
use crate::node::{next_request, Entity, Node, NodeWaker, WakeEntity};
use crate::options::ServiceOptions;
use crate::service::reply::{reply_topic, request_topic, ReplyAdapter, ReplyCell, RequestId};
use crate::Service;

/// Why a service server could not be created.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServiceCreateError {
    /// The service name is not valid (or its remapping is not).
    #[error("cannot create the service: {0}")]
    InvalidName(NameError),
    /// The transport refused an endpoint (an invalid QoS, for instance).
    #[error("cannot create the service: {0}")]
    Transport(EndpointCreateError),
}

/// A closure that answers requests of the service `S`, in one of two shapes
/// (`Marker` tells them apart and is inferred):
///
/// | closure | gets |
/// |---|---|
/// | `FnMut(Request) -> Response` | the request, owned (in one process: the value the client sent, moved) |
/// | `FnMut(Request, SampleInfo) -> Response` | the request and its [`SampleInfo`]: `publisher_id` is the client, `sequence` its request number |
///
/// Sealed: these closures are the only implementations.
pub trait ServiceCallback<S: Service, Marker>: sealed::Respond<S, Marker> + Send + 'static {}

impl<S: Service, Marker, F: sealed::Respond<S, Marker> + Send + 'static> ServiceCallback<S, Marker>
    for F
{
}

mod sealed {
    use hibari_transport::SampleInfo;

    use crate::topic::callback::{Owned, OwnedWithInfo};
    use crate::Service;

    /// Answers one request.
    pub trait Respond<S: Service, Marker> {
        fn respond(&mut self, request: S::Request, info: SampleInfo) -> S::Response;
    }

    impl<S: Service, F: FnMut(S::Request) -> S::Response> Respond<S, Owned> for F {
        fn respond(&mut self, request: S::Request, _info: SampleInfo) -> S::Response {
            self(request)
        }
    }

    impl<S: Service, F: FnMut(S::Request, SampleInfo) -> S::Response> Respond<S, OwnedWithInfo> for F {
        fn respond(&mut self, request: S::Request, info: SampleInfo) -> S::Response {
            self(request, info)
        }
    }
}

type Respond<S> =
    Box<dyn FnMut(<S as Service>::Request, SampleInfo) -> <S as Service>::Response + Send>;

/// What a server shares with the executor.
struct ServerShared<S: Service> {
    name: String,
    requests: Box<dyn Reader>,
    replies: Box<dyn Writer>,
    /// Set by the request reader's waker; cleared before a take that finds
    /// nothing.
    ready: Arc<AtomicBool>,
    /// Rung by clients' writers in other processes.
    bell: Option<Bell>,
    callback: Mutex<Respond<S>>,
    group: CallbackGroup,
    /// The node's waker, woken when the group frees up.
    waker: Arc<NodeWaker>,
    rejected: AtomicU64,
    failed_replies: AtomicU64,
}

impl<S: Service> Entity for ServerShared<S> {
    fn probe(&self) {
        self.ready.store(true, Ordering::Release);
    }

    fn bell(&self) -> Option<Bell> {
        self.bell.clone()
    }

    fn execute(&self, _now: Instant) -> bool {
        let Some((group, mut callback, sample)) = next_request(
            &self.ready,
            &self.group,
            &self.waker,
            &self.callback,
            &*self.requests,
        ) else {
            return false;
        };
        let request = match sample.payload.into_owned::<S::Request>() {
            Ok(request) => request,
            Err(_) => {
                self.rejected.fetch_add(1, Ordering::Relaxed);
                return true;
            }
        };
        let response = callback(request, sample.info);
        drop(callback);
        drop(group);
        let id = RequestId {
            client: sample.info.publisher_id,
            sequence: sample.info.sequence,
        };
        let reply = Payload::from_value::<ReplyAdapter<S::Response>>(ReplyCell::new(id, response));
        if self.replies.write(reply).is_err() {
            self.failed_replies.fetch_add(1, Ordering::Relaxed);
        }
        true
    }
}

/// Answers requests of the service `S` with its callback, on the executor
/// spinning its node. Dropping it removes the service; clients waiting for
/// it then fail with [`CallError::ServiceGone`](crate::CallError::ServiceGone).
pub struct ServiceServer<S: Service> {
    shared: Arc<ServerShared<S>>,
    _service: PhantomData<fn() -> S>,
}

impl<S: Service> fmt::Debug for ServiceServer<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServiceServer")
            .field("name", &self.shared.name)
            .field("type", &S::TYPE_NAME)
            .finish()
    }
}

impl<S: Service> ServiceServer<S> {
    /// The fully qualified service name (after expansion and remapping).
    pub fn name(&self) -> &str {
        &self.shared.name
    }

    /// The callback group its callback runs in.
    pub fn callback_group(&self) -> &CallbackGroup {
        &self.shared.group
    }

    /// How many clients are matched now.
    pub fn matched_clients(&self) -> usize {
        self.shared.requests.matched_count()
    }

    /// Requests skipped because they could not be read as `S::Request`.
    pub fn rejected_requests(&self) -> u64 {
        self.shared.rejected.load(Ordering::Relaxed)
    }

    /// Responses that could not be sent (a client's reply queue stayed
    /// full, or a response could not be serialized).
    pub fn failed_replies(&self) -> u64 {
        self.shared.failed_replies.load(Ordering::Relaxed)
    }
}

impl Node {
    /// Creates a server of the service `S` named `name` (expanded and
    /// remapped like a topic name); an executor spinning this node runs
    /// `callback` for each request and sends what it returns to the client
    /// that asked. `options` is the QoS of both its topics
    /// ([`services_default`](crate::QosProfile::services_default) is ROS 2's) or
    /// [`ServiceOptions`].
    ///
    /// ```
    /// use hibari::msg::std_srvs::srv::{SetBool, SetBool_Request, SetBool_Response};
    /// use hibari::{Context, QosProfile};
    ///
    /// let node = Context::builder().isolated().create()?.create_node("light")?;
    /// let qos = QosProfile::services_default();
    /// let _server = node.create_service::<SetBool, _>("switch", qos, |request: SetBool_Request| {
    ///     SetBool_Response { success: true, message: format!("light on: {}", request.data) }
    /// })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create_service<S: Service, Marker>(
        &self,
        name: &str,
        options: impl Into<ServiceOptions>,
        mut callback: impl ServiceCallback<S, Marker>,
    ) -> Result<ServiceServer<S>, ServiceCreateError> {
        let ServiceOptions { qos, group } = options.into();
        let name = self
            .resolve_topic_name(name)
            .map_err(ServiceCreateError::InvalidName)?;
        let transport = self.context().transport();
        let requests = transport
            .create_reader(
                &EndpointSpec::new::<S::Request>(request_topic(&name), qos),
                &ReaderOptions::default().node(self.info()),
            )
            .map_err(ServiceCreateError::Transport)?;
        let replies = transport
            .create_writer(
                &EndpointSpec::new::<ReplyAdapter<S::Response>>(reply_topic(&name), qos),
                &WriterOptions::default().node(self.info()),
            )
            .map_err(ServiceCreateError::Transport)?;
        let respond: Respond<S> =
            Box::new(move |request, info| sealed::Respond::respond(&mut callback, request, info));
        let shared = Arc::new(ServerShared::<S> {
            name,
            requests,
            replies,
            ready: Arc::new(AtomicBool::new(false)),
            bell: new_bell(),
            callback: Mutex::new(respond),
            group: group.unwrap_or_else(|| self.default_callback_group()),
            waker: self.inner.waker.clone(),
            rejected: AtomicU64::new(0),
            failed_replies: AtomicU64::new(0),
        });
        let ready = shared.ready.clone();
        let waker = shared.waker.clone();
        shared.requests.set_notify(Some(Arc::new(WakeEntity {
            mark: move || ready.store(true, Ordering::Release),
            waker: Some(waker),
            bell: shared.bell.clone(),
        })));
        let entity: Arc<dyn Entity> = shared.clone();
        self.add_entity(Arc::downgrade(&entity));
        Ok(ServiceServer {
            shared,
            _service: PhantomData,
        })
    }
}
