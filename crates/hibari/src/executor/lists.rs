//! What one pass of the executor looks at: its nodes' entities, kept in a
//! cache rebuilt only when an entity or a node comes or goes, and lists of
//! the few entities that need more than a look (bells, watched descriptors,
//! busy polling, due times).

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

use crate::context::lock;
use crate::executor::bells::BellFds;
use crate::executor::Core;
use crate::node::{Entity, Node};

pub(super) type EntityList = Arc<[Weak<dyn Entity>]>;

/// What one pass of the executor looks at.
pub(super) struct Lists {
    pub entities: EntityList,
    pub bells: BellFds,
    pub timed: EntityList,
    pub watches: EntityList,
    pub busy: EntityList,
}

pub(super) struct EntityCache {
    key: (u64, u64),
    entities: EntityList,
    /// What to poll for the entities' bells (none before the first pass,
    /// whose key never matches the default's).
    bells: BellFds,
    /// The entities that may have a due time.
    timed: EntityList,
    /// The entities that watch a descriptor of their own.
    watches: EntityList,
    /// The entities that busy-poll: while one lives, the executor never
    /// sleeps.
    busy: EntityList,
}

impl Default for EntityCache {
    fn default() -> Self {
        EntityCache {
            key: (u64::MAX, u64::MAX),
            entities: Arc::new([]),
            bells: BellFds::Each(Arc::new([])),
            timed: Arc::new([]),
            watches: Arc::new([]),
            busy: Arc::new([]),
        }
    }
}

impl Core {
    /// The entities of all nodes and their bells; rebuilt (and the bells
    /// registered) only when a node or an entity was added or a node removed
    /// since the last pass.
    pub(super) fn entities(&self) -> Lists {
        let nodes = lock(&self.nodes);
        let key = (
            self.nodes_version.load(Ordering::Acquire),
            nodes.iter().map(Node::entities_version).sum(),
        );
        let mut cache = lock(&self.cache);
        if cache.key != key {
            let mut entities = Vec::new();
            for node in nodes.iter() {
                node.collect_entities(&mut entities);
            }
            let having = |has: fn(&dyn Entity) -> bool| -> EntityList {
                entities
                    .iter()
                    .filter(|e| e.upgrade().is_some_and(|e| has(&*e)))
                    .cloned()
                    .collect()
            };
            *cache = EntityCache {
                key,
                watches: having(|e| e.watched_fd().is_some()),
                busy: having(|e| e.busy()),
                timed: having(|e| e.timed()),
                bells: self.bells.sync(&entities),
                entities: entities.into(),
            };
        }
        Lists {
            entities: Arc::clone(&cache.entities),
            bells: cache.bells.clone(),
            timed: Arc::clone(&cache.timed),
            watches: Arc::clone(&cache.watches),
            busy: Arc::clone(&cache.busy),
        }
    }
}

thread_local! {
    static SCRATCH: std::cell::Cell<Vec<bool>> = const { std::cell::Cell::new(Vec::new()) };
}

/// The poll's readiness flags, kept by each thread from one spin to the
/// next: a `spin_once` per message would otherwise allocate them anew each
/// time it sleeps (a spin inside a callback gets a fresh one).
pub(super) struct Scratch(pub Vec<bool>);

impl Scratch {
    pub(super) fn take() -> Scratch {
        Scratch(SCRATCH.with(std::cell::Cell::take))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let kept = std::mem::take(&mut self.0);
        // A thread being torn down has no locals left: the flags just go.
        let _ = SCRATCH.try_with(|s| s.set(kept));
    }
}
