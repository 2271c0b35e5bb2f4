//! Service clients: send a request, get the response, blocking or as a
//! `Future`.
//!
//! A client writes requests on the service's request topic and reads the
//! reply topic, which every client of the service shares; each reply names
//! the client and request it answers, and a client drops the others' unread
//! (in one process it only looks at the address). Replies are sorted as they
//! arrive, on the thread that delivers them, into the slot of the request
//! they answer, whose waiter is woken: a client needs no executor, and
//! nothing polls.
//!
//! A call fails rather than hang where it can know better: with
//! [`CallError::ServiceUnavailable`] when no server is there to send to, and
//! [`CallError::ServiceGone`] when the last server goes away before it
//! replies. Every blocking wait has a timeout.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use hibari_transport::{
    EndpointCreateError, EndpointId, EndpointSpec, Payload, PayloadError, ReaderOptions,
    WriteError, WriterOptions,
};
use thiserror::Error;

use crate::node::names::NameError;
use crate::node::Node;
use crate::options::ClientOptions;
use crate::service::calls::ClientShared;
use crate::service::future::ResponseFuture;
use crate::service::reply::{reply_topic, request_topic, ReplyAdapter};
use crate::Service;

/// Why a client could not be created.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClientCreateError {
    /// The service name is not valid (or its remapping is not).
    #[error("cannot create the client: {0}")]
    InvalidName(NameError),
    /// The transport refused an endpoint (an invalid QoS, for instance).
    #[error("cannot create the client: {0}")]
    Transport(EndpointCreateError),
}

/// Why a service call failed.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum CallError {
    /// No server of the service was matched when the request was to be
    /// sent, so it was not sent.
    #[error("no server of `{service}` is available: wait for it with `wait_for_service` first")]
    ServiceUnavailable {
        /// The service.
        service: String,
    },
    /// No reply came within the timeout; the request is forgotten (a late
    /// reply is dropped).
    #[error(
        "no reply from `{service}` within {timeout:?}: the server is slow or stuck, or it cannot \
         run while the callback waiting here blocks (a single-threaded executor, or the same \
         mutually exclusive callback group); call from another thread, use `call_async`, put the \
         server in another callback group of a multi-threaded executor, or spin it elsewhere"
    )]
    Timeout {
        /// The service.
        service: String,
        /// How long the call waited.
        timeout: Duration,
    },
    /// Every server of the service went away before one replied.
    #[error("the server of `{service}` went away before it replied: retry when it is back")]
    ServiceGone {
        /// The service.
        service: String,
    },
    /// The request could not be sent: the server's request queue stayed
    /// full, or the request could not be serialized.
    #[error("the request to `{service}` could not be sent: {source}")]
    Send {
        /// The service.
        service: String,
        /// What the transport said.
        source: WriteError,
    },
    /// The reply could not be read as the response type.
    #[error("the reply of `{service}` cannot be read: {source}")]
    InvalidReply {
        /// The service.
        service: String,
        /// What was wrong with it.
        source: PayloadError,
    },
    /// The client's context was shut down.
    #[error("the context was shut down: no call can complete any more")]
    Shutdown,
}

/// Calls the service `S`: sends requests to its servers and gets their
/// responses, with [`call`](Client::call) (blocking, with a timeout) or
/// [`call_async`](Client::call_async) (a `Future`).
///
/// Many calls may be in flight at once, from any threads. A client needs no
/// executor: its replies are sorted as they arrive.
///
/// # On the wire
///
/// As in ROS 2, the service `/a/b` is the request topic `rq/a/bRequest`
/// (type `pkg/srv/X_Request`) and the reply topic `rr/a/bReply` (type
/// `pkg/srv/X_Response`), both with the client's QoS
/// ([`services_default`](crate::QosProfile::services_default) unless chosen). A
/// request is the plain request message; the server learns who sent it and
/// its number from the sample's [`SampleInfo`](crate::SampleInfo)
/// (`publisher_id` = [`Client::id`], `sequence` = the request's number, from
/// 1). A reply is an envelope: in CDR, the 16-byte client id, the request's
/// sequence as `uint64`, then the response's fields, laid out as the
/// response alone would be (the 24-byte prefix keeps 8-byte alignment).
/// Every client reads every reply and drops those addressed to others; in
/// one process it only looks at the address, and the addressed client moves
/// the response out, so neither request nor response is copied or
/// serialized.
///
/// ```
/// use hibari::msg::std_srvs::srv::{SetBool, SetBool_Request, SetBool_Response};
/// use hibari::{Context, QosProfile, SingleThreadedExecutor};
/// use std::time::Duration;
///
/// let context = Context::builder().isolated().create()?;
/// let server = context.create_node("light")?;
/// let qos = QosProfile::services_default();
/// let _service = server.create_service::<SetBool, _>("switch", qos, |r: SetBool_Request| {
///     SetBool_Response { success: r.data, message: "done".into() }
/// })?;
/// let client = context.create_node("user")?.create_client::<SetBool>("switch", qos)?;
/// assert!(client.wait_for_service(Duration::from_secs(1)));
///
/// let executor = SingleThreadedExecutor::new();
/// executor.add_node(&server)?;
/// let response = client.call_async(SetBool_Request { data: true });
/// let response = executor.spin_until_future_complete(response, Duration::from_secs(5))??;
/// assert!(response.success);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Client<S: Service> {
    shared: Arc<ClientShared<S::Response>>,
    _service: PhantomData<fn() -> S>,
}

impl<S: Service> fmt::Debug for Client<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("service", &self.shared.service)
            .field("type", &S::TYPE_NAME)
            .finish()
    }
}

impl<S: Service> Client<S> {
    /// The fully qualified service name (after expansion and remapping).
    pub fn service_name(&self) -> &str {
        &self.shared.service
    }

    /// The client's id: the `publisher_id` its requests reach servers with.
    pub fn id(&self) -> EndpointId {
        self.shared.id()
    }

    /// Whether a server is matched both ways (it gets requests and the
    /// client gets its replies), so that a call can be sent now.
    pub fn service_is_ready(&self) -> bool {
        self.shared.is_ready()
    }

    /// Waits until a server is ready, for at most `timeout`; returns whether
    /// one is (`false` also when the context is shut down). Sleeps until a
    /// match changes: no polling.
    pub fn wait_for_service(&self, timeout: Duration) -> bool {
        self.shared.wait_for_service(timeout)
    }

    /// Sends `request` and waits up to `timeout` for the response.
    ///
    /// Works whether or not an executor spins the client's node. Calling it
    /// from a callback that the server cannot run beside — on the
    /// single-threaded executor that also runs the server, or in the
    /// server's mutually exclusive callback group — cannot succeed (the
    /// server does not run while the callback waits): it fails with
    /// [`CallError::Timeout`] after `timeout`. There, use
    /// [`call_async`](Client::call_async) and complete the future later, or
    /// give the server a callback group of its own on a
    /// [`MultiThreadedExecutor`](crate::MultiThreadedExecutor).
    pub fn call(&self, request: S::Request, timeout: Duration) -> Result<S::Response, CallError> {
        self.shared
            .call(Payload::from_value::<S::Request>(request), timeout)
    }

    /// Sends `request` now and returns a future of the response. In one
    /// process the request is handed over, not serialized or copied.
    ///
    /// The future is woken when the reply arrives (no polling, no
    /// executor needed: it runs under tokio or any other runtime, or under
    /// [`spin_until_future_complete`](crate::SingleThreadedExecutor::spin_until_future_complete)).
    /// Dropping it forgets the request: a late reply is dropped. Sending
    /// does not wait for a server: with none, the future resolves at once to
    /// [`CallError::ServiceUnavailable`]. It may wait, up to 100 ms, for room
    /// in a server's request queue when that is full.
    pub fn call_async(&self, request: S::Request) -> ResponseFuture<S> {
        ResponseFuture::new(
            self.shared
                .call_async(Payload::from_value::<S::Request>(request)),
        )
    }

    /// Requests sent whose response has not been collected yet.
    pub fn pending_requests(&self) -> usize {
        self.shared.pending_count()
    }

    /// Reply samples whose address could not be read (not counting replies
    /// to other clients, which are dropped unread).
    pub fn unreadable_replies(&self) -> u64 {
        self.shared.unreadable()
    }
}

impl Node {
    /// Creates a client of the service `S` named `name` (expanded and
    /// remapped like a topic name). `options` is the QoS of both its topics
    /// ([`services_default`](crate::QosProfile::services_default) is ROS 2's) or
    /// [`ClientOptions`].
    pub fn create_client<S: Service>(
        &self,
        name: &str,
        options: impl Into<ClientOptions>,
    ) -> Result<Client<S>, ClientCreateError> {
        let qos = options.into().qos;
        let service = self
            .resolve_topic_name(name)
            .map_err(ClientCreateError::InvalidName)?;
        let transport = self.context().transport();
        let requests = transport
            .create_writer(
                &EndpointSpec::new::<S::Request>(request_topic(&service), qos),
                &WriterOptions::default().node(self.info()),
            )
            .map_err(ClientCreateError::Transport)?;
        let replies = transport
            .create_reader(
                &EndpointSpec::new::<ReplyAdapter<S::Response>>(reply_topic(&service), qos),
                &ReaderOptions::default().node(self.info()),
            )
            .map_err(ClientCreateError::Transport)?;
        let shared = ClientShared::new(
            service,
            requests,
            replies,
            self.context().clone(),
            crate::service::reply::open::<S::Response>,
        );
        Ok(Client {
            shared,
            _service: PhantomData,
        })
    }
}
