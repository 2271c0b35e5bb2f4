//! rosbridge's service ops: call_service, advertise_service,
//! service_response, unadvertise_service (bridge.md §1.2–1.3, V1–V4).
//!
//! A call runs as its own task: the request is converted and sent at once,
//! the task awaits the reply (or the timeout) and queues the
//! `service_response`; the client's next ops are read meanwhile. A service
//! a client advertises is a hibari server on the bridge's node whose
//! requests are forwarded as `call_service` messages with ids
//! `service_request:<service>:<n>`; the client's `service_response` with
//! that id answers the waiting caller, from whichever thread reads it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hibari::dynamic;
use hibari::interfaces::TypeName;
use hibari::{QosProfile, ServiceResponder};
use serde_json::{json, Map, Value as Json};

use super::args::{failed, normalize_type, part, value_from_json, Op, OpError};
use super::{rosapi, Session};
use crate::core::{AdvertisedService, Core};
use crate::hub::lock;
use crate::outbox::{Frame, Outbox};

/// A request of a client-advertised service waiting for its response.
pub(crate) struct Pending {
    service: String,
    /// The service's resolved name.
    resolved: String,
    response_type: TypeName,
    responder: ServiceResponder,
}

fn response_frame(service: &str, id: Option<&Json>, values: Result<Json, String>) -> Frame {
    let (values, result) = match values {
        Ok(v) => (v, true),
        Err(e) => (Json::String(e), false),
    };
    let mut m =
        json!({"op": "service_response", "service": service, "values": values, "result": result});
    if let Some(id) = id {
        m["id"] = id.clone();
    }
    Frame::Text(m.to_string().into())
}

/// Sends the request and waits for the reply; the response's JSON or why
/// there is none.
async fn call(
    core: Arc<Core>,
    service: String,
    type_name: String,
    request: Vec<u8>,
    timeout: Duration,
) -> Result<Json, String> {
    let client = core
        .service_client(&service, &type_name)
        .map_err(|e| e.to_string())?;
    if !client.service_is_ready() {
        let waiting = client.clone();
        let wait = timeout.min(Duration::from_secs(1));
        let ready = tokio::task::spawn_blocking(move || waiting.wait_for_service(wait))
            .await
            .unwrap_or(false);
        if !ready {
            return Err(format!("Service {service} does not exist"));
        }
    }
    let reply = tokio::time::timeout(timeout, client.call_async(request))
        .await
        .map_err(|_| format!("Timeout exceeded while waiting for service {service}"))?
        .map_err(|e| e.to_string())?;
    let ty = part(&type_name, "_Response").map_err(|e| e.to_string())?;
    let value = dynamic::decode(&*core.registry, &ty, &reply).map_err(|e| e.to_string())?;
    Ok(dynamic::to_json(&*core.registry, &ty, &value))
}

impl Session {
    pub(super) fn call_service(&mut self, op: &Op<'_>) -> Result<(), OpError> {
        let given = op.str("service")?;
        let id = op.id()?.cloned();
        let timeout = match op.opt_f64("timeout")? {
            Some(s) if s > 0.0 && s.is_finite() => Duration::from_secs_f64(s.min(1e6)),
            _ => self.core.config.call_service_timeout,
        };
        let name = self.core.resolve(given).map_err(failed)?;
        if !self.core.service_allowed(given, &name) {
            // rosbridge leaves the caller waiting; a failed response lets
            // it go on (roslibjs calls its error callback).
            let e = format!("No match found for service, cancelling service call for: {given}");
            self.out
                .push_control(response_frame(given, id.as_ref(), Err(e.clone())));
            return Err(OpError::Denied(e));
        }
        if let Some(rosapi) = name.strip_prefix("/rosapi/") {
            let values = rosapi::call(&self.core, rosapi, op.get("args"));
            self.out
                .push_control(response_frame(given, id.as_ref(), values));
            return Ok(());
        }
        // Only a service with a server is called (rosbridge answers the
        // same when none appears within a second).
        let known = self.core.server_types(&name);
        let asked = op.opt_str("type")?.and_then(|t| normalize_type(t, "srv"));
        let type_name = match (known.as_slice(), asked) {
            ([], _) => None,
            (k, Some(t)) if k.contains(&t) => Some(t),
            (k, _) => k.first().cloned(),
        };
        let Some(type_name) = type_name else {
            let e = format!("Service {name} does not exist");
            self.out
                .push_control(response_frame(given, id.as_ref(), Err(e)));
            return Ok(());
        };
        let request = part(&type_name, "_Request").and_then(|ty| {
            let value = value_from_json(&self.core, &ty, op.get("args"))?;
            dynamic::encode(&*self.core.registry, &ty, &value).map_err(failed)
        });
        let request = match request {
            Ok(r) => r,
            Err(e) => {
                let e = format!("{given}: {e}");
                self.out
                    .push_control(response_frame(given, id.as_ref(), Err(e)));
                return Ok(());
            }
        };
        let (core, out, given) = (self.core.clone(), self.out.clone(), given.to_owned());
        self.core.runtime.spawn(async move {
            let values = call(core, name, type_name, request, timeout).await;
            out.push_control(response_frame(&given, id.as_ref(), values));
        });
        Ok(())
    }

    pub(super) fn advertise_service(&mut self, op: &Op<'_>) -> Result<(), OpError> {
        let given = op.str("service")?.to_owned();
        let type_given = op.str("type")?;
        let type_name = normalize_type(type_given, "srv")
            .ok_or_else(|| failed(format!("`{type_given}` is not a service type name")))?;
        let request = part(&type_name, "_Request")?;
        let response = part(&type_name, "_Response")?;
        if self.core.registry.message(&request).is_none() {
            return Err(failed(format!(
                "unknown service type `{type_name}`: add its package to HIBARI_INTERFACE_PATH"
            )));
        }
        let name = self.core.resolve(&given).map_err(failed)?;
        if !self.core.service_allowed(&given, &name) {
            return Err(OpError::Denied(format!(
                "No match found for service, cancelling service advertisement for: {given}"
            )));
        }
        let counter = AtomicU64::new(0);
        let resolved = name.clone();
        let (registry, out, pending) = (
            self.core.registry.clone(),
            self.out.clone(),
            self.pending.clone(),
        );
        let forward = move |bytes: hibari::CdrBytes, responder: ServiceResponder| {
            let Ok(value) = dynamic::decode(&*registry, &request, &bytes) else {
                return; // unreadable: the caller times out
            };
            let n = counter.fetch_add(1, Ordering::Relaxed) + 1;
            let id = format!("service_request:{given}:{n}");
            let args = dynamic::to_json(&*registry, &request, &value);
            let message = json!({"op": "call_service", "id": id, "service": given, "args": args});
            lock(&pending).insert(
                id,
                Pending {
                    service: given.clone(),
                    resolved: resolved.clone(),
                    response_type: response.clone(),
                    responder,
                },
            );
            forward_request(&out, message);
        };
        let server = self
            .core
            .node
            .create_generic_service(&name, &type_name, QosProfile::services_default(), forward)
            .map_err(failed)?;
        let previous = lock(&self.core.services).insert(
            name.clone(),
            AdvertisedService {
                client: self.id,
                _server: server,
            },
        );
        drop(previous); // a duplicate advertise replaces the old server
        self.services.insert(name);
        Ok(())
    }

    pub(super) fn service_response(&mut self, op: &Op<'_>) -> Result<(), OpError> {
        let id = op.id()?.map(super::args::id_key).unwrap_or_default();
        let result = op.opt_bool("result")?.unwrap_or(true);
        let Some(pending) = lock(&self.pending).remove(&id) else {
            return Err(failed(format!(
                "no request `{id}` is waiting for a response"
            )));
        };
        if !result {
            return Ok(()); // the caller gets no response, as with rosbridge
        }
        let empty = Json::Object(Map::new());
        let values = op.get("values").unwrap_or(&empty);
        let registry = &self.core.registry;
        let bytes = dynamic::from_json(&**registry, &pending.response_type, values)
            .map_err(|e| e.to_string())
            .and_then(|v| {
                dynamic::encode(&**registry, &pending.response_type, &v).map_err(|e| e.to_string())
            })
            .map_err(|e| failed(format!("{}: {e}", pending.service)))?;
        pending.responder.respond(&bytes).map_err(failed)
    }

    pub(super) fn unadvertise_service(&mut self, op: &Op<'_>) -> Result<(), OpError> {
        let given = op.str("service")?;
        let name = self.core.resolve(given).map_err(failed)?;
        if !self.core.service_allowed(given, &name) {
            return Err(OpError::Denied(format!(
                "No match found for service, cancelling service unadvertisement for: {given}"
            )));
        }
        if self.services.remove(&name) {
            self.drop_service(&name);
        }
        Ok(())
    }

    /// Removes the client's server of `name` (if it is still the client's)
    /// and forgets its waiting requests: their callers then fail.
    pub(super) fn drop_service(&mut self, name: &str) {
        let mut services = lock(&self.core.services);
        let gone = match services.get(name) {
            Some(s) if s.client == self.id => services.remove(name),
            _ => None,
        };
        drop(services);
        drop(gone);
        lock(&self.pending).retain(|_, p| p.resolved != name);
    }
}

fn forward_request(out: &Outbox, message: Json) {
    out.push_control(Frame::Text(message.to_string().into()));
}
