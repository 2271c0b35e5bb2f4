//! Bells: which reading entity a writer in another process woke.
//!
//! Every entity that reads (a subscription or a service server an executor
//! runs) has an eventfd of its own, its *bell*. Its reader hands the bell to
//! writers in other processes ([`Notify::wake_fd`](hibari_transport::Notify::wake_fd)),
//! and a writer that pushes a sample into an armed ring writes it: the
//! executor sleeping in `poll(2)` wakes in one hop, with no thread of ours in
//! between.
//!
//! The executor registers its entities' bells in one `epoll` instance and
//! polls that, not the bells: a wake-up costs the bells that rang, whatever
//! the number of entities. A node with 1,000 subscriptions is woken for one
//! sample as cheaply as a node with one (before bells, the node had one
//! eventfd and a wake-up looked at every reader of the node).
//!
//! The entities whose bells rang wait in a queue, *rung*, which the executor
//! serves without looking at the others: a sample from another process
//! costs its own entity, not a pass over every entity (see the executor's
//! "How waiting works").
//!
//! A bell is registered under its descriptor's number, which stays its own
//! while the registration holds the descriptor open. An entity dropped
//! between two rebuilds of the executor's lists is found dead when its bell
//! rings, or at the next rebuild, and its bell is unregistered then. A node
//! removed from the executor has its bells unregistered before
//! `remove_node` returns, so a bell that rings afterwards is left readable
//! for the executor the node joins next.
//!
//! Without `epoll` (the system refused one), the executor polls every bell
//! directly: the same wake-ups, a cost linear in the entities.

use std::collections::{HashMap, HashSet, VecDeque};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::sync::{Arc, Mutex, Weak};

use rustix::event::epoll;

use crate::context::lock;
use crate::node::Entity;

/// An entity's eventfd, shared by the entity and its reader's waker.
pub(crate) type Bell = Arc<OwnedFd>;

/// A new bell, or `None` if the system refused an eventfd (the transport
/// then wakes through `notify`: one more hop).
pub(crate) fn new_bell() -> Option<Bell> {
    hibari_shm::eventfd::new().ok().map(Arc::new)
}

/// An entity and its bell.
type Belled = (Weak<dyn Entity>, Bell);

/// Events taken from `epoll` per call (more are taken on the next look).
const BATCH: usize = 32;

/// The executor's registrations.
pub(crate) struct Bells {
    /// `None`: no `epoll` to be had; the bells are polled one by one.
    epoll: Option<Arc<OwnedFd>>,
    registered: Mutex<HashMap<RawFd, Belled>>,
    /// Entities whose bells rang, to be run (an entity may be in twice).
    rung: Mutex<VecDeque<Weak<dyn Entity>>>,
}

impl Default for Bells {
    fn default() -> Self {
        let epoll = epoll::create(epoll::CreateFlags::CLOEXEC).ok();
        Bells::new(epoll)
    }
}

/// What a pass of the executor polls for its bells.
#[derive(Clone)]
pub(crate) enum BellFds {
    /// The `epoll` instance all bells are registered in.
    Epoll(Arc<OwnedFd>),
    /// Every bell, with its entity (no `epoll`).
    Each(Arc<[Belled]>),
}

impl BellFds {
    /// The descriptors to poll.
    pub fn fds(&self) -> impl Iterator<Item = BorrowedFd<'_>> {
        let (one, each) = match self {
            BellFds::Epoll(fd) => (Some(fd.as_fd()), &[][..]),
            BellFds::Each(bells) => (None, &bells[..]),
        };
        one.into_iter().chain(each.iter().map(|(_, b)| b.as_fd()))
    }
}

impl Bells {
    fn new(epoll: Option<OwnedFd>) -> Bells {
        Bells {
            epoll: epoll.map(Arc::new),
            registered: Mutex::default(),
            rung: Mutex::default(),
        }
    }

    /// Registers the bells of `entities` and unregisters those of entities
    /// no longer among them (or dropped); returns what to poll.
    pub fn sync(&self, entities: &[Weak<dyn Entity>]) -> BellFds {
        let live: Vec<Belled> = entities
            .iter()
            .filter_map(|w| Some((w.clone(), w.upgrade()?.bell()?)))
            .collect();
        // A registered bell's descriptor stays open (the registration holds
        // it), so its number is its own: no live bell can have it unless it
        // is the same bell.
        let numbers: HashSet<RawFd> = live.iter().map(|(_, b)| b.as_raw_fd()).collect();
        let mut registered = lock(&self.registered);
        registered.retain(|fd, (_, bell)| {
            let keep = numbers.contains(fd);
            if let (false, Some(ep)) = (keep, &self.epoll) {
                let _ = epoll::delete(ep, bell);
            }
            keep
        });
        for (entity, bell) in &live {
            let fd = bell.as_raw_fd();
            if registered.contains_key(&fd) {
                continue;
            }
            let data = epoll::EventData::new_u64(fd as u64);
            let added = match &self.epoll {
                Some(ep) => epoll::add(ep, bell, data, epoll::EventFlags::IN).is_ok(),
                None => true,
            };
            if added {
                registered.insert(fd, (entity.clone(), bell.clone()));
            }
        }
        match &self.epoll {
            Some(ep) => BellFds::Epoll(ep.clone()),
            None => BellFds::Each(live.into()),
        }
    }

    /// After `fds` were polled (`ready[i]` for the `i`-th of
    /// [`BellFds::fds`]): resets the bells that rang, probes their entities
    /// and queues them to run. Returns whether one rang.
    pub fn ring(&self, fds: &BellFds, ready: &[bool]) -> bool {
        match fds {
            BellFds::Each(bells) => {
                let mut registered = lock(&self.registered);
                let mut rang = false;
                for ((_, bell), _) in bells.iter().zip(ready).filter(|(_, r)| **r) {
                    rang |= self.answer(&mut registered, bell.as_raw_fd());
                }
                rang
            }
            BellFds::Epoll(ep) if ready.first() == Some(&true) => self.take_events(ep),
            BellFds::Epoll(_) => false,
        }
    }

    /// The next entity whose bell rang, if any.
    pub fn next_rung(&self) -> Option<Weak<dyn Entity>> {
        lock(&self.rung).pop_front()
    }

    /// Queues `entity` again (it ran, and may have more to run).
    pub fn again(&self, entity: Weak<dyn Entity>) {
        lock(&self.rung).push_back(entity);
    }

    /// Forgets the queue: a pass over every entity is about to serve them.
    pub fn forget_rung(&self) {
        lock(&self.rung).clear();
    }

    /// Takes what `epoll` has, without waiting, and answers each bell.
    fn take_events(&self, ep: &OwnedFd) -> bool {
        let zero = rustix::time::Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        let mut rang = false;
        loop {
            let mut buf = [MaybeUninit::<epoll::Event>::uninit(); BATCH];
            let Ok((events, _)) = epoll::wait(ep, &mut buf, Some(&zero)) else {
                return rang;
            };
            let full = events.len() == BATCH;
            let mut registered = lock(&self.registered);
            for event in events.iter() {
                rang |= self.answer(&mut registered, event.data.u64() as RawFd);
            }
            if !full {
                return rang;
            }
        }
    }

    /// Resets the bell registered as `fd`, flags its entity and queues it;
    /// `false` when the bell is not registered (any more) or its entity is
    /// gone (then it is unregistered: nobody would drain it again). A bell
    /// unregistered since the poll is left as it is, readable for whoever
    /// registers it next.
    fn answer(&self, registered: &mut HashMap<RawFd, Belled>, fd: RawFd) -> bool {
        let Some((entity, bell)) = registered.get(&fd) else {
            return false;
        };
        hibari_shm::eventfd::drain(bell.as_fd());
        let Some(e) = entity.upgrade() else {
            if let Some(ep) = &self.epoll {
                let _ = epoll::delete(ep, bell);
            }
            registered.remove(&fd);
            return false;
        };
        e.probe();
        lock(&self.rung).push_back(entity.clone());
        true
    }
}

#[cfg(test)]
#[path = "bells_tests.rs"]
mod tests;
