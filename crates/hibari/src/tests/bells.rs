//! The executor's bells: a wake-up by a bell runs the entities whose bells
//! rang without looking at the others, and never keeps timers waiting.
//! The test rings bells itself, as a writer in another process does.

use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::thread;
use std::time::{Duration, Instant};

use super::isolated;
use crate::executor::bells::{new_bell, Bell};
use crate::node::{Entity, Node};
use crate::SingleThreadedExecutor;

/// Long enough never to be hit unless something is broken.
const PATIENCE: Duration = Duration::from_secs(60);

/// An entity with a bell: one run per probe, or every time once probed
/// (`endless`: a stream that never runs dry).
struct Rings {
    bell: Bell,
    ready: AtomicBool,
    endless: bool,
    runs: AtomicUsize,
    looked: AtomicUsize,
}

impl Entity for Rings {
    fn execute(&self, _now: Instant) -> bool {
        self.looked.fetch_add(1, Ordering::Relaxed);
        let ran = match self.endless {
            true => self.ready.load(Ordering::Acquire),
            false => self.ready.swap(false, Ordering::AcqRel),
        };
        if ran {
            self.runs.fetch_add(1, Ordering::Relaxed);
        }
        ran
    }
    fn probe(&self) {
        self.ready.store(true, Ordering::Release);
    }
    fn bell(&self) -> Option<Bell> {
        Some(self.bell.clone())
    }
}

fn add(node: &Node, n: usize, endless: bool) -> Vec<Arc<Rings>> {
    (0..n)
        .map(|_| {
            let e = Arc::new(Rings {
                bell: new_bell().expect("an eventfd"),
                ready: AtomicBool::new(false),
                endless,
                runs: AtomicUsize::new(0),
                looked: AtomicUsize::new(0),
            });
            let entity: Arc<dyn Entity> = e.clone();
            node.add_entity(Arc::downgrade(&entity) as Weak<dyn Entity>);
            e
        })
        .collect()
}

fn ring(e: &Rings) {
    hibari_shm::eventfd::signal(e.bell.as_fd());
}

#[test]
fn a_bell_runs_its_entity_and_the_executor_looks_at_no_other() {
    let context = isolated();
    let node = context.create_node("bells").unwrap();
    let all = add(&node, 200, false);
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&node).unwrap();
    let target = all[123].clone();
    let ringer = {
        let target = target.clone();
        thread::spawn(move || {
            for n in 1..=20 {
                ring(&target);
                let since = Instant::now();
                while target.runs.load(Ordering::Relaxed) < n && since.elapsed() < PATIENCE {
                    thread::sleep(Duration::from_millis(1));
                }
            }
        })
    };
    let done = executor.spin_until(|| target.runs.load(Ordering::Relaxed) == 20, PATIENCE);
    ringer.join().unwrap();
    assert!(
        done,
        "20 rings, {} runs",
        target.runs.load(Ordering::Relaxed)
    );
    let others: Vec<usize> = (all.iter().enumerate())
        .filter(|(i, _)| *i != 123)
        .map(|(_, e)| e.looked.load(Ordering::Relaxed))
        .collect();
    assert!(all
        .iter()
        .enumerate()
        .all(|(i, e)| i == 123 || e.runs.load(Ordering::Relaxed) == 0));
    // One pass over every entity when the spin starts, and one more should
    // something else wake the executor meanwhile (node set-up): not one per
    // ring, which would be 20 or more.
    assert!(
        others.iter().all(|&l| l <= 3),
        "the others were looked at {:?} times",
        others.iter().max()
    );
}

#[test]
fn a_timer_runs_while_a_rung_entity_never_runs_dry() {
    let context = isolated();
    let node = context.create_node("bells").unwrap();
    let stream = add(&node, 3, true);
    let ticks = Arc::new(AtomicUsize::new(0));
    let t = ticks.clone();
    let _timer = node
        .create_timer(Duration::from_millis(5), move || {
            t.fetch_add(1, Ordering::Relaxed);
        })
        .unwrap();
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&node).unwrap();
    for e in &stream {
        ring(e);
    }
    let done = executor.spin_until(
        || {
            ticks.load(Ordering::Relaxed) >= 3
                && stream.iter().all(|e| e.runs.load(Ordering::Relaxed) > 100)
        },
        PATIENCE,
    );
    assert!(
        done,
        "ticks {}, stream runs {:?}",
        ticks.load(Ordering::Relaxed),
        stream
            .iter()
            .map(|e| e.runs.load(Ordering::Relaxed))
            .collect::<Vec<_>>()
    );
}

#[test]
fn a_bell_rung_while_its_node_moves_wakes_the_executor_it_moved_to() {
    let context = isolated();
    let node = context.create_node("bells").unwrap();
    let all = add(&node, 1, false);
    let first = SingleThreadedExecutor::new();
    first.add_node(&node).unwrap();
    assert!(
        !first.spin_once(Duration::from_millis(10)),
        "nothing rang yet"
    );
    first.remove_node(&node);
    ring(&all[0]); // unregistered from `first`: left readable
    assert!(
        !first.spin_once(Duration::from_millis(10)),
        "not first's any more"
    );
    let second = SingleThreadedExecutor::new();
    second.add_node(&node).unwrap();
    assert!(
        second.spin_once(PATIENCE),
        "the ring reaches the node's new executor"
    );
    assert_eq!(all[0].runs.load(Ordering::Relaxed), 1);
}
