//! rosbridge v2: one session per client, whatever carries its JSON
//! (WebSocket text or binary frames, or TCP's concatenated objects).
//!
//! A session reads one op at a time and never waits on the network or on
//! hibari: publishes go straight to the shared publisher, subscriptions
//! attach the client's ring to the shared feed, and service calls run as
//! their own tasks that answer when they finish, so a slow service never
//! holds up the client's other ops (bridge.md V2).
//!
//! Errors are reported the rosbridge way: a failed `call_service` answers
//! `result: false`; anything else is a `status` message — sent only to
//! clients that asked for them with `set_level` (roslibpy breaks on
//! unsolicited ones, bridge.md §4.2), counted either way.

mod action_goals;
mod actions;
mod args;
mod auth;
pub(crate) mod fragments;
mod rosapi;
mod services;
mod topics;

pub(crate) use args::normalize_type;
pub use args::OpError;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value as Json};

use crate::core::Core;
use crate::framer::JsonFramer;
use crate::outbox::{Frame, Outbox};

use args::Op;
use fragments::Reassembly;
use services::Pending;
use topics::{ClientPub, ClientSub};

/// Status levels, least severe first; `None` sends nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Level {
    Info,
    Warning,
    Error,
    None,
}

impl Level {
    fn parse(s: &str) -> Option<Level> {
        match s {
            "info" => Some(Level::Info),
            "warning" | "warn" => Some(Level::Warning),
            "error" => Some(Level::Error),
            "none" => Some(Level::None),
            _ => None,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Level::Info => "info",
            Level::Warning => "warning",
            Level::Error => "error",
            Level::None => "none",
        }
    }
}

/// Whether the connection goes on after a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    Continue,
    Close,
}

/// One rosbridge client.
pub(crate) struct Session {
    core: Arc<Core>,
    id: u64,
    out: Arc<Outbox>,
    /// TCP clients cannot frame binary messages: they get JSON.
    tcp: bool,
    level: Level,
    /// The connection's outgoing fragment size (0: none), read by the writer.
    fragment_size: Arc<AtomicUsize>,
    subs: HashMap<String, ClientSub>,
    pubs: HashMap<String, ClientPub>,
    services: HashSet<String>,
    pending: Arc<Mutex<HashMap<String, Pending>>>,
    reassembly: Reassembly,
    authenticated: bool,
    actions: actions::Actions,
}

impl Session {
    pub fn new(core: Arc<Core>, id: u64, out: Arc<Outbox>, tcp: bool) -> Self {
        let reassembly =
            Reassembly::new(core.config.max_message_size, core.config.fragment_timeout);
        Session {
            authenticated: core.config.auth_secret.is_none(),
            core,
            id,
            out,
            tcp,
            level: Level::None,
            fragment_size: Arc::new(AtomicUsize::new(0)),
            subs: HashMap::new(),
            pubs: HashMap::new(),
            services: HashSet::new(),
            pending: Arc::new(Mutex::new(HashMap::new())),
            reassembly,
            actions: actions::Actions::default(),
        }
    }

    /// The fragment size the writer applies to this client's text frames.
    pub fn fragment_size(&self) -> Arc<AtomicUsize> {
        self.fragment_size.clone()
    }

    /// One WebSocket frame's bytes: one JSON object, or several back to back.
    pub fn on_frame(&mut self, bytes: &[u8]) -> Flow {
        match serde_json::from_slice::<Json>(bytes) {
            Ok(json) => self.on_json(&json, 0),
            Err(e) if e.is_syntax() || e.is_eof() => {
                let mut framer = JsonFramer::new(bytes.len() + 1);
                framer.push(bytes);
                let mut objects = Vec::new();
                while let Some(next) = framer.next_object() {
                    objects.push(next.map(<[u8]>::to_vec));
                }
                if objects.len() < 2 {
                    self.report(OpError::NotAMessage(format!("invalid JSON: {e}")), None);
                    return Flow::Continue;
                }
                for object in objects {
                    let flow = match object {
                        Ok(bytes) => self.on_bytes(&bytes),
                        Err(e) => {
                            self.report(OpError::NotAMessage(e.to_string()), None);
                            Flow::Continue
                        }
                    };
                    if flow == Flow::Close {
                        return Flow::Close;
                    }
                }
                Flow::Continue
            }
            Err(e) => {
                self.report(OpError::NotAMessage(format!("invalid JSON: {e}")), None);
                Flow::Continue
            }
        }
    }

    /// One complete JSON object's bytes (TCP, or a split frame).
    pub fn on_bytes(&mut self, bytes: &[u8]) -> Flow {
        match serde_json::from_slice::<Json>(bytes) {
            Ok(json) => self.on_json(&json, 0),
            Err(e) => {
                self.report(OpError::NotAMessage(format!("invalid JSON: {e}")), None);
                Flow::Continue
            }
        }
    }

    /// One parsed message. `depth` counts reassembled fragments around it.
    pub fn on_json(&mut self, json: &Json, depth: u8) -> Flow {
        self.core
            .counters
            .messages_in
            .fetch_add(1, Ordering::Relaxed);
        let op = match Op::parse(json) {
            Ok(op) => op,
            Err(e) => {
                self.report(e, None);
                return Flow::Continue;
            }
        };
        let id = op.get("id").cloned();
        if !self.authenticated && op.name != "auth" {
            return Flow::Close;
        }
        if let Ok(Some(size)) = op.opt_uint("fragment_size") {
            self.fragment_size.store(size as usize, Ordering::Relaxed);
        }
        let result = match op.name {
            "advertise" => self.advertise(&op),
            "unadvertise" => self.unadvertise(&op),
            "publish" => self.publish(&op),
            "subscribe" => self.subscribe(&op),
            "unsubscribe" => self.unsubscribe(&op),
            "call_service" => self.call_service(&op),
            "advertise_service" => self.advertise_service(&op),
            "unadvertise_service" => self.unadvertise_service(&op),
            "service_response" => self.service_response(&op),
            "fragment" => return self.fragment(&op, depth),
            "set_level" => self.set_level(&op),
            "auth" => return self.auth(&op),
            "status" => Ok(()),
            "send_action_goal" => self.send_action_goal(&op),
            "cancel_action_goal" => self.cancel_action_goal(&op),
            "advertise_action" => self.advertise_action(&op),
            "unadvertise_action" => self.unadvertise_action(&op),
            "action_feedback" => self.action_feedback(&op),
            "action_result" => self.action_result(&op),
            other => Err(OpError::UnknownOp(other.to_owned())),
        };
        if let Err(e) = result {
            self.report(e, id.as_ref());
        }
        Flow::Continue
    }

    fn set_level(&mut self, op: &Op<'_>) -> Result<(), OpError> {
        let level = op.str("level")?;
        self.level = Level::parse(level).ok_or_else(|| OpError::InvalidArgument {
            op: "set_level".into(),
            field: "level",
            expected: "one of info, warning, error, none",
        })?;
        Ok(())
    }

    /// Reports bytes between TCP objects that are not JSON.
    pub fn report_framing(&self, error: &crate::framer::FramerError) {
        self.report(OpError::NotAMessage(error.to_string()), None);
    }

    /// Counts an error and tells the client, if it asked for errors.
    fn report(&self, error: OpError, id: Option<&Json>) {
        self.core.counters.errors.fetch_add(1, Ordering::Relaxed);
        self.status(Level::Error, &error.to_string(), id);
    }

    /// Sends a `status` message if the client's level lets it through.
    fn status(&self, level: Level, msg: &str, id: Option<&Json>) {
        if level < self.level || self.level == Level::None {
            return;
        }
        let mut status = json!({"op": "status", "level": level.as_str(), "msg": msg});
        if let Some(id) = id {
            status["id"] = id.clone();
        }
        self.send(&status);
    }

    /// Queues a control message.
    fn send(&self, message: &Json) {
        self.out
            .push_control(Frame::Text(message.to_string().into()));
    }

    /// Undoes everything the client did: its subscriptions, publishers,
    /// services, pending requests and actions go (the tasks of its goals
    /// end; the goals of its actions are aborted).
    pub fn close(mut self) {
        for (topic, sub) in self.subs.drain() {
            self.core.hub.detach(&topic, sub.ring);
        }
        let runtime = self.core.runtime.clone();
        self.core.publishers.unregister_client(
            &runtime,
            self.core.config.unregister_timeout,
            self.id,
        );
        for name in std::mem::take(&mut self.services) {
            self.drop_service(&name);
        }
        crate::hub::lock(&self.pending).clear();
        self.actions.close();
    }
}
