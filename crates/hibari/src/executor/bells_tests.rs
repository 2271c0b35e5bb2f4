//! Tests of [`Bells`](super::Bells).

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
    let bells = Bells::new(None);
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
