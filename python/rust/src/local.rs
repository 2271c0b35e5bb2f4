//! Which subscriptions of a topic live in this process: the routing of a
//! publish between a plain buffer and lent shared memory.
//!
//! A publish into a buffer is one copy for subscribers in this process (they
//! share the buffer) and two for those in other processes (the transport
//! copies the buffer into shared memory). A publish into a loan of shared
//! memory is one copy for other processes and two for this one (the buffer
//! for this process's subscribers is copied out of the loan). So a
//! publisher writes into a loan exactly when some matched subscription is
//! in another process: when it has more matches than this process has
//! subscriptions on the topic, as counted here by every subscription this
//! module makes (on contexts that reach other processes).

use std::collections::HashMap;
use std::sync::Mutex;

/// Live subscriptions per `(domain, topic)`.
static LOCAL: Mutex<Option<HashMap<(u32, String), usize>>> = Mutex::new(None);

fn with<R>(f: impl FnOnce(&mut HashMap<(u32, String), usize>) -> R) -> R {
    let mut map = LOCAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    f(map.get_or_insert_with(HashMap::new))
}

/// Counts one subscription of this process while it lives.
pub(crate) struct LocalSubscription {
    key: Option<(u32, String)>,
}

impl LocalSubscription {
    /// Counts a subscription on `topic` (fully qualified) of a context of
    /// `domain`; nothing is counted when the context reaches only this
    /// process (`interprocess` false).
    pub fn new(interprocess: bool, domain: u32, topic: &str) -> Self {
        let key = interprocess.then(|| (domain, topic.to_owned()));
        if let Some(k) = &key {
            with(|m| *m.entry(k.clone()).or_insert(0) += 1);
        }
        LocalSubscription { key }
    }

    /// Counts a subscription of `node` on `topic` (fully qualified).
    pub fn of(node: &hibari::Node, topic: &str) -> Self {
        let context = node.context();
        Self::new(
            crate::runtime::reaches_other_processes(context),
            context.domain_id(),
            topic,
        )
    }
}

impl Drop for LocalSubscription {
    fn drop(&mut self) {
        let Some(k) = self.key.take() else { return };
        with(|m| {
            if let Some(n) = m.get_mut(&k) {
                *n -= 1;
                if *n == 0 {
                    m.remove(&k);
                }
            }
        });
    }
}

/// Subscriptions of this process on `topic` in `domain`.
pub(crate) fn count(domain: u32, topic: &str) -> usize {
    with(|m| m.get(&(domain, topic.to_owned())).copied().unwrap_or(0))
}
