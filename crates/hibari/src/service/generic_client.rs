//! Generic service clients: call a service whose type is known only at run
//! time by its name, with CDR bytes in and out (rclcpp's `GenericClient`).
//!
//! The wire and the guarantees are the typed [`Client`](crate::Client)'s:
//! requests go to every matched server of `rq/<name>Request`, replies come
//! on `rr/<name>Reply` and are sorted into the slots of the requests they
//! answer as they arrive, on the thread that delivers them; no executor is
//! needed and nothing polls. A call fails with
//! [`CallError::ServiceUnavailable`] when no server is matched, and with
//! [`CallError::ServiceGone`] when the last one goes away before replying.
//!
//! A reply from a typed server in this process is encoded once (its
//! envelope, shared by every generic client that reads it); the response
//! bytes handed back are the envelope's header and fields, laid out exactly
//! as the response alone.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use hibari_transport::{CdrBytes, EndpointSpec, Payload, ReaderOptions, WriterOptions};

use crate::node::Node;
use crate::options::ClientOptions;
use crate::service::calls::ClientShared;
use crate::service::client::{CallError, ClientCreateError};
use crate::service::future::Call;
use crate::service::generic_service::{bad_service_type, service_parts};
use crate::service::reply::{open_bytes, reply_topic, request_topic};

/// Calls a service whose type is named at run time: CDR request bytes in,
/// CDR response bytes out, on the typed [`Client`](crate::Client)'s wire,
/// so it calls typed and generic servers alike. Many calls may be in flight
/// at once, from any threads; no executor is needed.
pub struct GenericClient {
    shared: Arc<ClientShared<CdrBytes>>,
    type_name: String,
}

impl fmt::Debug for GenericClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GenericClient")
            .field("service", &self.shared.service)
            .field("type", &self.type_name)
            .finish()
    }
}

impl GenericClient {
    /// The fully qualified service name (after expansion and remapping).
    pub fn service_name(&self) -> &str {
        &self.shared.service
    }

    /// The service type (`pkg/srv/Name`).
    pub fn type_name(&self) -> &str {
        &self.type_name
    }

    /// Whether a server is matched both ways, so that a call can be sent now.
    pub fn service_is_ready(&self) -> bool {
        self.shared.is_ready()
    }

    /// Waits until a server is ready, for at most `timeout`; returns whether
    /// one is. Sleeps until a match changes: no polling.
    pub fn wait_for_service(&self, timeout: Duration) -> bool {
        self.shared.wait_for_service(timeout)
    }

    /// Sends `request` (CDR of `pkg/srv/X_Request`, header included) now and
    /// returns a future of the response's CDR bytes. Without a matched
    /// server it resolves at once to [`CallError::ServiceUnavailable`].
    pub fn call_async(&self, request: impl Into<CdrBytes>) -> GenericResponseFuture {
        GenericResponseFuture {
            call: self.shared.call_async(Payload::Serialized(request.into())),
        }
    }

    /// Sends `request` and waits up to `timeout` for the response.
    pub fn call(
        &self,
        request: impl Into<CdrBytes>,
        timeout: Duration,
    ) -> Result<CdrBytes, CallError> {
        self.shared
            .call(Payload::Serialized(request.into()), timeout)
    }

    /// Reply samples whose address could not be read.
    pub fn unreadable_replies(&self) -> u64 {
        self.shared.unreadable()
    }
}

/// The response of [`GenericClient::call_async`]: the response's CDR bytes,
/// or the [`CallError`] that ended the call. Dropping it forgets the request.
#[must_use = "a response future does nothing unless polled; dropping it forgets the request"]
pub struct GenericResponseFuture {
    call: Call<CdrBytes>,
}

impl fmt::Debug for GenericResponseFuture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.call.describe("GenericResponseFuture", f)
    }
}

impl GenericResponseFuture {
    /// The request's sequence number (the `sequence` of its
    /// [`SampleInfo`](crate::SampleInfo) at the server); `None` when it was
    /// not sent.
    pub fn sequence(&self) -> Option<u64> {
        self.call.sequence()
    }
}

impl Future for GenericResponseFuture {
    type Output = Result<CdrBytes, CallError>;

    /// # Panics
    ///
    /// When polled again after it returned `Ready`.
    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.get_mut().call).poll(cx)
    }
}

impl Node {
    /// Creates a client of the service `name` whose type is named
    /// `type_name` (`pkg/srv/Name`). `options` is the QoS of both its
    /// topics ([`services_default`](crate::QosProfile::services_default) is ROS 2's)
    /// or [`ClientOptions`].
    pub fn create_generic_client(
        &self,
        name: &str,
        type_name: &str,
        options: impl Into<ClientOptions>,
    ) -> Result<GenericClient, ClientCreateError> {
        let qos = options.into().qos;
        let (request_type, response_type) = service_parts(type_name).ok_or_else(|| {
            ClientCreateError::Transport(hibari_transport::EndpointCreateError::Unsupported(
                bad_service_type(type_name),
            ))
        })?;
        let service = self
            .resolve_topic_name(name)
            .map_err(ClientCreateError::InvalidName)?;
        let transport = self.context().transport();
        let spec = |topic: String, type_name: String| EndpointSpec {
            topic,
            type_name,
            type_hash: String::new(),
            qos,
        };
        let requests = transport
            .create_writer(
                &spec(request_topic(&service), request_type),
                &WriterOptions::default().node(self.info()),
            )
            .map_err(ClientCreateError::Transport)?;
        let replies = transport
            .create_reader(
                &spec(reply_topic(&service), response_type),
                &ReaderOptions::default().node(self.info()),
            )
            .map_err(ClientCreateError::Transport)?;
        let shared = ClientShared::new(
            service,
            requests,
            replies,
            self.context().clone(),
            open_bytes,
        );
        Ok(GenericClient {
            shared,
            type_name: type_name.to_owned(),
        })
    }
}
