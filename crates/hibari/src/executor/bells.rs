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
//! A bell is registered under its descriptor's number, which stays its own
//! while the registration holds the descriptor open. An entity dropped
//! between two rebuilds of the executor's lists is found dead when its bell
//! rings, or at the next rebuild, and its bell is unregistered then.
//!
//! Without `epoll` (the system refused one), the executor polls every bell
//! directly: the same wake-ups, a cost linear in the entities.

use std::collections::HashMap;
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
}

impl Default for Bells {
    fn default() -> Self {
        Bells {
            epoll: epoll::create(epoll::CreateFlags::CLOEXEC)
                .ok()
                .map(Arc::new),
            registered: Mutex::default(),
        }
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
    /// Registers the bells of `entities` and unregisters those of entities
    /// no longer among them (or dropped); returns what to poll.
    pub fn sync(&self, entities: &[Weak<dyn Entity>]) -> BellFds {
        let live: Vec<Belled> = entities
            .iter()
            .filter_map(|w| Some((w.clone(), w.upgrade()?.bell()?)))
            .collect();
        let Some(ep) = &self.epoll else {
            return BellFds::Each(live.into());
        };
        let mut registered = lock(&self.registered);
        registered.retain(|_, (_, bell)| {
            let keep = live.iter().any(|(_, b)| Arc::ptr_eq(b, bell));
            if !keep {
                let _ = epoll::delete(ep, bell);
            }
            keep
        });
        for (entity, bell) in live {
            let fd = bell.as_raw_fd();
            if registered.contains_key(&fd) {
                continue;
            }
            let data = epoll::EventData::new_u64(fd as u64);
            if epoll::add(ep, &bell, data, epoll::EventFlags::IN).is_ok() {
                registered.insert(fd, (entity, bell));
            }
        }
        BellFds::Epoll(ep.clone())
    }

    /// After `fds` were polled (`ready[i]` for the `i`-th of
    /// [`BellFds::fds`]): resets the bells that rang and probes their
    /// entities. Returns whether one rang.
    pub fn ring(&self, fds: &BellFds, ready: &[bool]) -> bool {
        match fds {
            BellFds::Each(bells) => {
                let mut rang = false;
                for ((entity, bell), _) in bells.iter().zip(ready).filter(|(_, r)| **r) {
                    rang |= Self::answer(entity, bell);
                }
                rang
            }
            BellFds::Epoll(ep) if ready.first() == Some(&true) => self.take_events(ep),
            BellFds::Epoll(_) => false,
        }
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
                let fd = event.data.u64() as RawFd;
                let Some((entity, bell)) = registered.get(&fd) else {
                    continue;
                };
                if !Self::answer(entity, bell) {
                    // Its entity is gone: nobody will drain it again.
                    let _ = epoll::delete(ep, bell);
                    registered.remove(&fd);
                } else {
                    rang = true;
                }
            }
            if !full {
                return rang;
            }
        }
    }

    /// Resets `bell` and flags its entity; `false` when the entity is gone.
    fn answer(entity: &Weak<dyn Entity>, bell: &Bell) -> bool {
        hibari_shm::eventfd::drain(bell.as_fd());
        match entity.upgrade() {
            Some(e) => {
                e.probe();
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Instant;

    struct Probed {
        probes: AtomicUsize,
        bell: Bell,
    }

    impl Entity for Probed {
        fn execute(&self, _now: Instant) -> bool {
            false
        }
        fn probe(&self) {
            self.probes.fetch_add(1, Ordering::Relaxed);
        }
        fn bell(&self) -> Option<Bell> {
            Some(self.bell.clone())
        }
    }

    fn entities(n: usize) -> Vec<Arc<Probed>> {
        (0..n)
            .map(|_| {
                Arc::new(Probed {
                    probes: AtomicUsize::new(0),
                    bell: new_bell().expect("eventfd"),
                })
            })
            .collect()
    }

    fn weak(all: &[Arc<Probed>]) -> Vec<Weak<dyn Entity>> {
        all.iter()
            .map(|e| {
                let e: Arc<dyn Entity> = e.clone();
                Arc::downgrade(&e)
            })
            .collect()
    }

    /// Polls what `bells` said to poll, without waiting, and rings.
    fn look(bells: &Bells, fds: &BellFds) -> bool {
        let polled: Vec<BorrowedFd<'_>> = fds.fds().collect();
        let mut ready = Vec::new();
        hibari_shm::eventfd::poll_readable(&polled, Some(Instant::now()), &mut ready);
        bells.ring(fds, &ready)
    }

    fn probes(all: &[Arc<Probed>]) -> Vec<usize> {
        all.iter()
            .map(|e| e.probes.load(Ordering::Relaxed))
            .collect()
    }

    fn rings_only_the_entity_whose_bell_was_written(bells: Bells) {
        let all = entities(100);
        let fds = bells.sync(&weak(&all));
        assert!(!look(&bells, &fds), "nothing written, nothing rings");
        hibari_shm::eventfd::signal(all[42].bell.as_fd());
        hibari_shm::eventfd::signal(all[42].bell.as_fd());
        hibari_shm::eventfd::signal(all[7].bell.as_fd());
        assert!(look(&bells, &fds));
        let mut want = vec![0; 100];
        want[7] = 1;
        want[42] = 1; // two writes, one probe: the bell was reset
        assert_eq!(probes(&all), want);
        assert!(!look(&bells, &fds), "reset: it does not ring again");
        assert_eq!(probes(&all), want);
    }

    #[test]
    fn a_bell_probes_its_own_entity_and_no_other() {
        let bells = Bells::default();
        assert!(bells.epoll.is_some(), "this machine gives an epoll");
        rings_only_the_entity_whose_bell_was_written(bells);
    }

    #[test]
    fn without_epoll_every_bell_is_polled_with_the_same_result() {
        let bells = Bells {
            epoll: None,
            registered: Mutex::default(),
        };
        rings_only_the_entity_whose_bell_was_written(bells);
    }

    #[test]
    fn more_bells_than_one_batch_ring_together() {
        let bells = Bells::default();
        let all = entities(3 * BATCH + 5);
        let fds = bells.sync(&weak(&all));
        for e in &all {
            hibari_shm::eventfd::signal(e.bell.as_fd());
        }
        assert!(look(&bells, &fds));
        assert!(probes(&all).iter().all(|&p| p == 1), "{:?}", probes(&all));
    }

    #[test]
    fn the_bells_of_entities_gone_are_unregistered() {
        let bells = Bells::default();
        let mut all = entities(3);
        let fds = bells.sync(&weak(&all));
        assert_eq!(lock(&bells.registered).len(), 3);
        // Dropped between two rebuilds: found gone when its bell rings (a
        // writer still holding it), and unregistered.
        let gone = all.pop().expect("three");
        let stale = gone.bell.clone();
        drop(gone);
        hibari_shm::eventfd::signal(stale.as_fd());
        assert!(!look(&bells, &fds), "a dead entity's bell rings nobody");
        assert_eq!(lock(&bells.registered).len(), 2);
        assert!(!look(&bells, &fds), "and is not polled again");
        // Left out of the next rebuild: unregistered there.
        let fds = bells.sync(&weak(&all[..1]));
        assert_eq!(lock(&bells.registered).len(), 1);
        hibari_shm::eventfd::signal(all[1].bell.as_fd());
        assert!(!look(&bells, &fds));
        assert_eq!(probes(&all), vec![0, 0]);
    }
}
