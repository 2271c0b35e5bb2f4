//! Generic services: a service whose type is known only at run time by its
//! name (`std_srvs/srv/SetBool`), answering CDR bytes with CDR bytes — for
//! bridges, tools and language bindings (the service counterpart of
//! [`create_generic_publisher`](Node::create_generic_publisher); the client
//! side is [`GenericClient`](crate::GenericClient)).
//!
//! On the wire a generic service is a typed one exactly (see
//! [`Client`](crate::Client)): requests on `rq/<name>Request` of type
//! `pkg/srv/S_Request`, replies on `rr/<name>Reply` of type
//! `pkg/srv/S_Response` in the reply envelope (the 16-byte client id, the
//! request's sequence number as `uint64`, then the response's fields). So
//! generic and typed servers and clients call each other, in one process or
//! across processes; matching is by type name.
//!
//! The callback runs on the executor spinning the node, with the request's
//! CDR bytes (a typed client's request in this process is encoded once for
//! it) and a [`ServiceResponder`]. It may answer at once or keep the
//! responder and answer later, from any thread: a bridge forwards the
//! request elsewhere and replies when the answer comes back.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Instant;

use hibari_transport::{
    CdrBytes, EndpointSpec, Payload, Reader, ReaderOptions, SampleInfo, WriteError, Writer,
    WriterOptions,
};
use thiserror::Error;

use crate::executor::bells::{new_bell, Bell};
use crate::group::CallbackGroup;
use crate::node::{next_request, Entity, Node, NodeWaker, WakeEntity};
use crate::options::ServiceOptions;
use crate::service::reply::{reply_topic, request_topic, RequestId};
use crate::service::server::ServiceCreateError;

/// The request and response type names of the service type `type_name`
/// (`pkg/srv/S`, or an action's `pkg/action/A_SendGoal`), if it is one.
pub(crate) fn service_parts(type_name: &str) -> Option<(String, String)> {
    crate::topic::generic::is_type_name(type_name, &["srv", "action"]).then(|| {
        (
            format!("{type_name}_Request"),
            format!("{type_name}_Response"),
        )
    })
}

/// What to tell the caller whose `type_name` is not a service type.
pub(crate) fn bad_service_type(type_name: &str) -> String {
    format!("`{type_name}` is not a ROS service type name: write it as `package/srv/Name`")
}

/// Why a [`ServiceResponder`] could not send its reply.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ServiceRespondError {
    /// The server was dropped: nobody can reply for it any more.
    #[error("the service server was dropped before the reply was sent")]
    ServerGone,
    /// The response does not start with a CDR header.
    #[error("the response is not CDR: it must start with the 4-byte header (00 01 00 00)")]
    NotCdr,
    /// The transport refused the reply (the client's reply queue stayed full).
    #[error("the reply could not be sent: {0}")]
    Send(WriteError),
}

/// What a generic server shares with the executor and its responders.
struct GenericServerShared {
    /// Itself, for the responders it hands out.
    me: Weak<GenericServerShared>,
    name: String,
    type_name: String,
    requests: Box<dyn Reader>,
    replies: Box<dyn Writer>,
    /// Set by the request reader's waker; cleared before a take that finds
    /// nothing.
    ready: Arc<AtomicBool>,
    /// Rung by clients' writers in other processes.
    bell: Option<Bell>,
    callback: Mutex<Box<dyn FnMut(CdrBytes, ServiceResponder) + Send>>,
    group: CallbackGroup,
    waker: Arc<NodeWaker>,
    rejected: AtomicU64,
}

impl Entity for GenericServerShared {
    fn probe(&self) {
        self.ready.store(true, Ordering::Release);
    }

    fn bell(&self) -> Option<Bell> {
        self.bell.clone()
    }

    fn execute(&self, _now: Instant) -> bool {
        let Some((_group, mut callback, sample)) = next_request(
            &self.ready,
            &self.group,
            &self.waker,
            &self.callback,
            &*self.requests,
        ) else {
            return false;
        };
        let Ok(request) = sample.payload.into_cdr_bytes() else {
            self.rejected.fetch_add(1, Ordering::Relaxed);
            return true;
        };
        let responder = ServiceResponder {
            server: self.me.clone(),
            info: sample.info,
        };
        callback(request, responder);
        true
    }
}

/// Answers one request of a [`GenericServiceServer`], now or later, from
/// any thread. Dropping it unanswered leaves the client to its timeout.
pub struct ServiceResponder {
    server: Weak<GenericServerShared>,
    info: SampleInfo,
}

impl fmt::Debug for ServiceResponder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServiceResponder")
            .field("client", &self.info.publisher_id)
            .field("sequence", &self.info.sequence)
            .finish()
    }
}

impl ServiceResponder {
    /// The request's sample info: `publisher_id` is the client, `sequence`
    /// its request number.
    pub fn info(&self) -> &SampleInfo {
        &self.info
    }

    /// Sends `response` (the CDR of `pkg/srv/S_Response`, header included)
    /// to the client that asked, in the reply envelope (which copies it once).
    pub fn respond(self, response: &[u8]) -> Result<(), ServiceRespondError> {
        let server = self
            .server
            .upgrade()
            .ok_or(ServiceRespondError::ServerGone)?;
        let id = RequestId {
            client: self.info.publisher_id,
            sequence: self.info.sequence,
        };
        let reply = envelope(id, response).ok_or(ServiceRespondError::NotCdr)?;
        server
            .replies
            .write(Payload::Serialized(reply.into()))
            .map_err(ServiceRespondError::Send)
    }
}

/// The reply envelope for request `id` from the response's CDR bytes; `None`
/// when they do not start with a CDR header.
fn envelope(id: RequestId, response: &[u8]) -> Option<Vec<u8>> {
    let header = response.get(..4)?;
    let sequence = match (header[0], header[1]) {
        (0, 1) => id.sequence.to_le_bytes(),
        (0, 0) => id.sequence.to_be_bytes(),
        _ => return None,
    };
    let mut out = Vec::with_capacity(response.len() + 24);
    out.extend_from_slice(header);
    out.extend_from_slice(id.client.as_bytes());
    out.extend_from_slice(&sequence);
    out.extend_from_slice(&response[4..]);
    Some(out)
}

/// Answers requests of a service whose type is named at run time, with
/// CDR bytes, now or later through each request's [`ServiceResponder`].
/// Dropping it removes the service; responders still held
/// then fail with [`ServiceRespondError::ServerGone`].
pub struct GenericServiceServer {
    shared: Arc<GenericServerShared>,
}

impl fmt::Debug for GenericServiceServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GenericServiceServer")
            .field("name", &self.shared.name)
            .field("type", &self.shared.type_name)
            .finish()
    }
}

impl GenericServiceServer {
    /// The fully qualified service name (after expansion and remapping).
    pub fn name(&self) -> &str {
        &self.shared.name
    }

    /// The service type (`pkg/srv/Name`).
    pub fn type_name(&self) -> &str {
        &self.shared.type_name
    }

    /// How many clients are matched now.
    pub fn matched_clients(&self) -> usize {
        self.shared.requests.matched_count()
    }

    /// Requests skipped because their bytes could not be had.
    pub fn rejected_requests(&self) -> u64 {
        self.shared.rejected.load(Ordering::Relaxed)
    }
}

impl Node {
    /// Creates a server of the service `name` whose type is named
    /// `type_name` (`pkg/srv/Name`); an executor spinning this node runs
    /// `callback` for each request. `options` is the QoS of both its topics
    /// ([`services_default`](crate::QosProfile::services_default) is ROS 2's) or
    /// [`ServiceOptions`].
    pub fn create_generic_service(
        &self,
        name: &str,
        type_name: &str,
        options: impl Into<ServiceOptions>,
        callback: impl FnMut(CdrBytes, ServiceResponder) + Send + 'static,
    ) -> Result<GenericServiceServer, ServiceCreateError> {
        let options = options.into();
        let qos = options.qos;
        let (request_type, response_type) = service_parts(type_name).ok_or_else(|| {
            ServiceCreateError::Transport(hibari_transport::EndpointCreateError::Unsupported(
                bad_service_type(type_name),
            ))
        })?;
        let name = self
            .resolve_topic_name(name)
            .map_err(ServiceCreateError::InvalidName)?;
        let spec = |topic: String, type_name: String| EndpointSpec {
            topic,
            type_name,
            type_hash: String::new(),
            qos,
        };
        let transport = self.context().transport();
        let requests = transport
            .create_reader(
                &spec(request_topic(&name), request_type),
                &ReaderOptions::default().node(self.info()),
            )
            .map_err(ServiceCreateError::Transport)?;
        let replies = transport
            .create_writer(
                &spec(reply_topic(&name), response_type),
                &WriterOptions::default().node(self.info()),
            )
            .map_err(ServiceCreateError::Transport)?;
        let shared = Arc::new_cyclic(|me| GenericServerShared {
            me: me.clone(),
            name,
            type_name: type_name.to_owned(),
            requests,
            replies,
            ready: Arc::new(AtomicBool::new(false)),
            bell: new_bell(),
            callback: Mutex::new(Box::new(callback)),
            group: options
                .group
                .unwrap_or_else(|| self.default_callback_group()),
            waker: self.inner.waker.clone(),
            rejected: AtomicU64::new(0),
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
        Ok(GenericServiceServer { shared })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hibari_transport::EndpointId;

    #[test]
    fn service_type_names_give_their_request_and_response_parts() {
        let (rq, rs) = service_parts("std_srvs/srv/SetBool").unwrap();
        assert_eq!(rq, "std_srvs/srv/SetBool_Request");
        assert_eq!(rs, "std_srvs/srv/SetBool_Response");
        assert!(service_parts("std_msgs/msg/String").is_none());
        assert!(service_parts("SetBool").is_none());
        assert!(service_parts("a/srv/b/c").is_none());
    }

    #[test]
    fn the_envelope_puts_the_address_between_the_header_and_the_fields() {
        let id = RequestId {
            client: EndpointId(core::array::from_fn(|i| i as u8)),
            sequence: 7,
        };
        let little = envelope(id, &[0, 1, 0, 0, 9, 9]).unwrap();
        assert_eq!(&little[..4], &[0, 1, 0, 0]);
        assert_eq!(&little[4..20], id.client.as_bytes());
        assert_eq!(&little[20..28], &7u64.to_le_bytes());
        assert_eq!(&little[28..], &[9, 9]);
        let big = envelope(id, &[0, 0, 0, 0]).unwrap();
        assert_eq!(&big[20..28], &7u64.to_be_bytes());
        assert!(envelope(id, &[1, 2]).is_none());
        assert!(envelope(id, &[7, 7, 0, 0]).is_none());
    }
}
