//! The Foxglove client ops: subscribe, unsubscribe, advertise, unadvertise,
//! the connection graph, client message data and service calls.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use hibari::dynamic;
use hibari::interfaces::TypeName;
use hibari::QosProfile;
use serde_json::{json, Value as Json};

use super::{ClientChannel, FoxSession};
use crate::encode::Encoding;
use crate::hub::Sink;
use crate::outbox::{Frame, RingSettings};
use crate::rosbridge::normalize_type;

fn u32_field(v: &Json, name: &str) -> Result<u32, String> {
    v.get(name)
        .and_then(Json::as_u64)
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| format!("`{name}` must be an unsigned 32-bit integer"))
}

fn list<'a>(op: &'a Json, name: &str) -> Result<&'a Vec<Json>, String> {
    op.get(name)
        .and_then(Json::as_array)
        .ok_or_else(|| format!("`{name}` must be an array"))
}

/// Reads a little-endian u32 at the front of `b`.
fn take_u32(b: &mut &[u8]) -> Result<u32, String> {
    let (head, rest) = b
        .split_first_chunk::<4>()
        .ok_or("the binary message is truncated")?;
    *b = rest;
    Ok(u32::from_le_bytes(*head))
}

impl FoxSession {
    pub(super) fn on_op(&mut self, op: &Json) -> Result<(), String> {
        let name = op
            .get("op")
            .and_then(Json::as_str)
            .ok_or("`op` is missing")?;
        match name {
            "subscribe" => {
                for s in list(op, "subscriptions")? {
                    let (id, channel) = (u32_field(s, "id")?, u32_field(s, "channelId")?);
                    self.subscribe(id, channel)?;
                }
                Ok(())
            }
            "unsubscribe" => {
                for id in list(op, "subscriptionIds")? {
                    let id = id
                        .as_u64()
                        .and_then(|n| u32::try_from(n).ok())
                        .ok_or("bad id")?;
                    if let Some((topic, ring)) = self.subs.remove(&id) {
                        self.core.hub.detach(&topic, ring);
                        self.out.remove_ring(ring);
                    }
                }
                Ok(())
            }
            "advertise" => {
                for c in list(op, "channels")? {
                    self.advertise(c)?;
                }
                Ok(())
            }
            "unadvertise" => {
                for id in list(op, "channelIds")? {
                    let id = id
                        .as_u64()
                        .and_then(|n| u32::try_from(n).ok())
                        .ok_or("bad id")?;
                    if let Some(c) = self.channels.remove(&id) {
                        self.core.publishers.unregister(
                            &self.core.runtime,
                            self.core.config.unregister_timeout,
                            self.id,
                            &c.resolved,
                            Some(&format!("fox:{id}")),
                        );
                    }
                }
                Ok(())
            }
            "subscribeConnectionGraph" => {
                self.core.fox.watch_graph(self.id, true);
                Ok(())
            }
            "unsubscribeConnectionGraph" => {
                self.core.fox.watch_graph(self.id, false);
                Ok(())
            }
            other => Err(format!("`{other}` is not supported by this server")),
        }
    }

    fn subscribe(&mut self, id: u32, channel_id: u32) -> Result<(), String> {
        if self.subs.contains_key(&id) {
            return Err(format!("subscription id {id} is already in use"));
        }
        if let Some((topic, _)) = self.subs.values().find(|(t, _)| {
            self.core
                .fox
                .channel(channel_id)
                .is_some_and(|c| &c.topic == t)
        }) {
            return Err(format!("already subscribed to `{topic}`"));
        }
        let channel = self
            .core
            .fox
            .channel(channel_id)
            .ok_or_else(|| format!("no channel {channel_id}"))?;
        let ring = self.core.next_id();
        self.out.set_ring(
            ring,
            RingSettings {
                depth: self.core.config.queue_depth,
                throttle: std::time::Duration::ZERO,
                drop_too_soon: false,
            },
        );
        let sink = Sink {
            ring,
            outbox: self.out.clone(),
            encoding: Encoding::Foxglove(id),
            alias: None,
        };
        if let Err(e) = self.core.hub.attach(
            &self.core.node,
            &self.core.registry,
            &channel.topic,
            &channel.type_name,
            sink,
        ) {
            self.out.remove_ring(ring);
            return Err(e.to_string());
        }
        self.subs.insert(id, (channel.topic, ring));
        Ok(())
    }

    fn advertise(&mut self, c: &Json) -> Result<(), String> {
        let id = u32_field(c, "id")?;
        let field = |n: &str| {
            c.get(n)
                .and_then(Json::as_str)
                .ok_or(format!("`{n}` is missing"))
        };
        let (topic, encoding, schema_name) =
            (field("topic")?, field("encoding")?, field("schemaName")?);
        let json = match encoding {
            "cdr" => false,
            "json" => true,
            other => {
                return Err(format!(
                    "channel encoding `{other}` is not supported: use cdr or json"
                ))
            }
        };
        let type_name = normalize_type(schema_name, "msg")
            .ok_or_else(|| format!("`{schema_name}` is not a ROS message type"))?;
        let ty = TypeName::parse(&type_name);
        if json
            && ty
                .as_ref()
                .and_then(|t| self.core.registry.message(t))
                .is_none()
        {
            return Err(format!(
                "unknown message type `{type_name}` for a json channel"
            ));
        }
        let resolved = self.core.resolve(topic).map_err(|e| e.to_string())?;
        if !self.core.topic_allowed(topic, &resolved) {
            return Err(format!(
                "`{topic}` is not allowed by the bridge's topics_glob"
            ));
        }
        let publisher = self
            .core
            .publishers
            .register(
                &self.core.node,
                self.id,
                &format!("fox:{id}"),
                &resolved,
                &type_name,
                QosProfile::default(),
            )
            .map_err(|e| e.to_string())?;
        self.channels.insert(
            id,
            ClientChannel {
                topic: topic.to_owned(),
                resolved,
                json,
                ty,
                publisher,
            },
        );
        Ok(())
    }

    pub(super) fn client_message(&mut self, mut b: &[u8]) -> Result<(), String> {
        let id = take_u32(&mut b)?;
        let c = self
            .channels
            .get(&id)
            .ok_or_else(|| format!("channel {id} was not advertised"))?;
        let bytes = if c.json {
            let ty = c.ty.as_ref().ok_or("unknown type")?;
            let value = dynamic::from_json_str(
                &*self.core.registry,
                ty,
                std::str::from_utf8(b).map_err(|e| e.to_string())?,
            )
            .map_err(|e| format!("`{}`: {e}", c.topic))?;
            dynamic::encode(&*self.core.registry, ty, &value).map_err(|e| e.to_string())?
        } else {
            if b.len() < 4 || b[0] != 0 || b[1] > 3 {
                return Err(format!("`{}`: the payload is not CDR", c.topic));
            }
            b.to_vec()
        };
        c.publisher.publish(bytes).map_err(|e| e.to_string())?;
        self.core.counters.published.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    pub(super) fn service_call(&mut self, mut b: &[u8]) -> Result<(), String> {
        let service_id = take_u32(&mut b)?;
        let call_id = take_u32(&mut b)?;
        let len = take_u32(&mut b)? as usize;
        if b.len() < len {
            return Err("the service call is truncated".into());
        }
        let (encoding, payload) = b.split_at(len);
        let encoding = std::str::from_utf8(encoding)
            .map_err(|_| "bad encoding name")?
            .to_owned();
        let service = self
            .core
            .fox
            .service(service_id)
            .ok_or_else(|| format!("no service {service_id}"))?;
        let registry = self.core.registry.clone();
        let request = match encoding.as_str() {
            "cdr" => payload.to_vec(),
            "json" => {
                let ty =
                    TypeName::parse(&format!("{}_Request", service.type_name)).ok_or("bad type")?;
                let text = std::str::from_utf8(payload).map_err(|e| e.to_string())?;
                let v = dynamic::from_json_str(&*registry, &ty, text).map_err(|e| e.to_string())?;
                dynamic::encode(&*registry, &ty, &v).map_err(|e| e.to_string())?
            }
            other => return Err(format!("service call encoding `{other}` is not supported")),
        };
        let (core, out) = (self.core.clone(), self.out.clone());
        self.core.runtime.spawn(async move {
            let reply = call(core.clone(), &service.name, &service.type_name, request).await;
            let reply = reply.and_then(|bytes| match encoding.as_str() {
                "json" => {
                    let ty = TypeName::parse(&format!("{}_Response", service.type_name)).ok_or("bad type")?;
                    let v = dynamic::decode(&*registry, &ty, &bytes).map_err(|e| e.to_string())?;
                    Ok(dynamic::to_json(&*registry, &ty, &v).to_string().into_bytes())
                }
                _ => Ok(bytes),
            });
            let frame = match reply {
                Ok(payload) => {
                    let mut m = Vec::with_capacity(payload.len() + 13 + encoding.len());
                    m.push(0x03);
                    m.extend_from_slice(&service_id.to_le_bytes());
                    m.extend_from_slice(&call_id.to_le_bytes());
                    m.extend_from_slice(&(encoding.len() as u32).to_le_bytes());
                    m.extend_from_slice(encoding.as_bytes());
                    m.extend_from_slice(&payload);
                    Frame::Binary(m.into())
                }
                Err(message) => Frame::Text(
                    json!({"op": "serviceCallFailure", "serviceId": service_id, "callId": call_id, "message": message})
                        .to_string()
                        .into(),
                ),
            };
            out.push_control(frame);
        });
        Ok(())
    }
}

async fn call(
    core: Arc<crate::core::Core>,
    name: &str,
    type_name: &str,
    request: Vec<u8>,
) -> Result<Vec<u8>, String> {
    let client = core
        .service_client(name, type_name)
        .map_err(|e| e.to_string())?;
    let timeout = core.config.call_service_timeout;
    tokio::time::timeout(timeout, client.call_async(request))
        .await
        .map_err(|_| format!("no reply from {name} within {timeout:?}"))?
        .map(|bytes| bytes.to_vec())
        .map_err(|e| e.to_string())
}
