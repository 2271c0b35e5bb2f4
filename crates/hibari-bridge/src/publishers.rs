//! One hibari publisher per topic, shared by every client that advertises
//! it (rosbridge's `MultiPublisher`).
//!
//! Each advertisement is a registration `(client, id)`; the publisher lives
//! while it has one, and for `unregister_timeout` after the last one goes
//! (rosbridge keeps it 10 s, so a client that reconnects, or unadvertises
//! and advertises again, does not make subscribers lose the topic). The
//! first advertisement decides the type; a different one is refused.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hibari::{Node, Publisher, QosProfile, Serialized};

use crate::hub::lock;

/// Why a topic could not be advertised.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AdvertiseError {
    #[error("`{topic}` is already advertised as `{existing}`, not `{requested}`")]
    TypeConflict {
        topic: String,
        existing: String,
        requested: String,
    },
    #[error("cannot advertise `{topic}`: {reason}")]
    Create { topic: String, reason: String },
}

struct Entry {
    type_name: String,
    publisher: Arc<Publisher<Serialized>>,
    owners: HashSet<(u64, String)>,
    /// Bumped whenever the last owner leaves, so a stale removal timer
    /// knows it is stale.
    epoch: u64,
}

/// The shared publishers by resolved topic.
#[derive(Clone, Default)]
pub(crate) struct Publishers {
    map: Arc<Mutex<HashMap<String, Entry>>>,
}

impl Publishers {
    /// Registers `(client, id)` on `topic`, creating the publisher with
    /// `qos` if there is none; returns it.
    pub fn register(
        &self,
        node: &Node,
        client: u64,
        id: &str,
        topic: &str,
        type_name: &str,
        qos: QosProfile,
    ) -> Result<Arc<Publisher<Serialized>>, AdvertiseError> {
        let mut map = lock(&self.map);
        if let Some(entry) = map.get_mut(topic) {
            if entry.type_name != type_name {
                return Err(AdvertiseError::TypeConflict {
                    topic: topic.into(),
                    existing: entry.type_name.clone(),
                    requested: type_name.into(),
                });
            }
            entry.owners.insert((client, id.into()));
            return Ok(entry.publisher.clone());
        }
        let publisher = node
            .create_generic_publisher(topic, type_name, qos)
            .map_err(|e| AdvertiseError::Create {
                topic: topic.into(),
                reason: e.to_string(),
            })?;
        let publisher = Arc::new(publisher);
        map.insert(
            topic.into(),
            Entry {
                type_name: type_name.into(),
                publisher: publisher.clone(),
                owners: HashSet::from([(client, id.to_owned())]),
                epoch: 0,
            },
        );
        Ok(publisher)
    }

    /// The type `topic` is published as by the bridge, if it is.
    pub fn type_of(&self, topic: &str) -> Option<String> {
        lock(&self.map).get(topic).map(|e| e.type_name.clone())
    }

    /// Removes `client`'s registration `id` on `topic` (all of them with
    /// `None`); returns whether the client still has one there.
    pub fn unregister(
        &self,
        runtime: &tokio::runtime::Handle,
        timeout: Duration,
        client: u64,
        topic: &str,
        id: Option<&str>,
    ) -> bool {
        let mut map = lock(&self.map);
        let Some(entry) = map.get_mut(topic) else {
            return false;
        };
        entry
            .owners
            .retain(|(c, i)| *c != client || id.is_some_and(|id| id != i));
        let still = entry.owners.iter().any(|(c, _)| *c == client);
        if entry.owners.is_empty() {
            entry.epoch += 1;
            let epoch = entry.epoch;
            let this = self.clone();
            let topic = topic.to_owned();
            runtime.spawn(async move {
                tokio::time::sleep(timeout).await;
                let mut map = lock(&this.map);
                let stale = map
                    .get(&topic)
                    .is_some_and(|e| e.owners.is_empty() && e.epoch == epoch);
                if stale {
                    let gone = map.remove(&topic);
                    drop(map);
                    drop(gone);
                }
            });
        }
        still
    }

    /// Removes every registration of `client`.
    pub fn unregister_client(
        &self,
        runtime: &tokio::runtime::Handle,
        timeout: Duration,
        client: u64,
    ) {
        let topics: Vec<String> = lock(&self.map)
            .iter()
            .filter(|(_, e)| e.owners.iter().any(|(c, _)| *c == client))
            .map(|(t, _)| t.clone())
            .collect();
        for topic in topics {
            self.unregister(runtime, timeout, client, &topic, None);
        }
    }

    /// Topics with a live publisher.
    pub fn len(&self) -> usize {
        lock(&self.map).len()
    }
}
