//! Loom models of the rings: every interleaving (and weak-memory outcome
//! loom explores) of one writer and one reader.
//!
//! Run with `RUSTFLAGS="--cfg loom" cargo test -p hibari-shm --release --lib loom`.

use std::collections::HashSet;

use loom::sync::Arc;
use loom::thread;

use super::test_words::{desc, Shared};
use super::*;

/// Explores interleavings with up to three preemptions per execution (the
/// usual loom bound; enough for every race between two steps here).
fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(3);
    builder.check(f);
}

/// Both sides' words of one ring, on the heap.
/// Checks a take result: never torn.
fn check(took: &Took, got: &mut Vec<u64>) {
    if let Took::Sample { pos, desc: d } = took {
        assert_eq!(*d, desc(*pos), "a torn descriptor");
        got.push(*pos);
    }
}

/// A best-effort writer overwrites a one-slot ring while the reader claims:
/// every chunk ends up owned exactly once (taken by the reader, or taken
/// back by the writer, or released), never both, never neither.
#[test]
fn loom_overwrite_and_claim_never_own_a_chunk_twice_or_lose_it() {
    model(|| {
        let s = Arc::new(Shared::new(1, 8));
        let s2 = s.clone();
        let reader = thread::spawn(move || {
            let mut c = Consumer::new(1);
            let (mut got, mut released, mut lost) = (Vec::new(), Vec::new(), 0);
            for _ in 0..2 {
                let took = c.take(&s2.w(), &s2.r(), &mut lost, &mut |p| released.push(p));
                check(&took, &mut got);
            }
            (c, got, released, lost)
        });
        let mut p = Producer::new(1);
        let mut dropped = Vec::new();
        for pos in 0..3 {
            match p.push(&s.w(), &s.r(), &desc(pos), true) {
                Pushed::Done { dropped: d, .. } => dropped.extend(d),
                Pushed::Full => panic!("overwrite never refuses"),
            }
        }
        let (mut c, mut got, mut released, mut lost) = reader.join().unwrap();
        loop {
            let took = c.take(&s.w(), &s.r(), &mut lost, &mut |p| released.push(p));
            if took == Took::Empty {
                break;
            }
            check(&took, &mut got);
        }
        // The writer's books: every position out until taken back or released.
        let mut out: HashSet<u64> = (0..3).collect();
        for d in &dropped {
            assert!(out.remove(d), "taken back twice: {d}");
        }
        for g in &got {
            assert!(
                out.remove(g),
                "the reader holds a chunk the writer took back: {g}"
            );
        }
        for r in &released {
            out.remove(r); // ignored when already taken back
        }
        assert!(out.is_empty(), "chunks lost: {out:?}");
        assert_eq!(
            got.len() as u64 + lost,
            3,
            "each sample taken or counted lost"
        );
        assert!(got.windows(2).all(|w| w[0] < w[1]), "in order: {got:?}");
    });
}

/// A reliable writer never overwrites: the reader gets every sample, in
/// order, and the writer is refused exactly when the ring is full.
#[test]
fn loom_a_reliable_ring_delivers_everything_in_order() {
    model(|| {
        let s = Arc::new(Shared::new(2, 4));
        let s2 = s.clone();
        let reader = thread::spawn(move || {
            let mut c = Consumer::new(2);
            let (mut got, mut lost) = (Vec::new(), 0);
            for _ in 0..3 {
                let took = c.take(&s2.w(), &s2.r(), &mut lost, &mut |_| panic!("no release"));
                check(&took, &mut got);
            }
            (c, got, lost)
        });
        let mut p = Producer::new(2);
        let mut pushed = 0;
        for _ in 0..4 {
            match p.push(&s.w(), &s.r(), &desc(pushed), false) {
                Pushed::Done { dropped, .. } => {
                    assert_eq!(dropped, None);
                    pushed += 1;
                }
                Pushed::Full => {}
            }
        }
        let (mut c, mut got, mut lost) = reader.join().unwrap();
        loop {
            let took = c.take(&s.w(), &s.r(), &mut lost, &mut |_| panic!("no release"));
            if took == Took::Empty {
                break;
            }
            check(&took, &mut got);
        }
        assert_eq!(lost, 0);
        assert_eq!(got, (0..pushed).collect::<Vec<_>>());
    });
}

/// A reader that arms and finds nothing, racing a push, is always either
/// told by `arm` that something arrived or signalled by the writer.
#[test]
fn loom_arming_never_misses_a_wake_up() {
    model(|| {
        let s = Arc::new(Shared::new(2, 2));
        let s2 = s.clone();
        let reader = thread::spawn(move || {
            let c = Consumer::new(2);
            c.arm(&s2.w(), &s2.r())
        });
        let mut p = Producer::new(2);
        let woke = match p.push(&s.w(), &s.r(), &desc(0), false) {
            Pushed::Done { wake, .. } => wake,
            Pushed::Full => unreachable!(),
        };
        let saw = reader.join().unwrap();
        assert!(saw || woke, "the push was neither seen nor signalled");
    });
}

/// A writer waiting for room and a reader claiming: either the writer sees
/// the room, or the reader sees the writer waiting (and signals it).
#[test]
fn loom_a_writer_waiting_for_room_is_never_forgotten() {
    model(|| {
        let s = Arc::new(Shared::new(1, 2));
        let mut p = Producer::new(1);
        assert!(matches!(
            p.push(&s.w(), &s.r(), &desc(0), false),
            Pushed::Done { .. }
        ));
        let s2 = s.clone();
        let reader = thread::spawn(move || {
            let mut c = Consumer::new(1);
            let mut lost = 0;
            let took = c.take(&s2.w(), &s2.r(), &mut lost, &mut |_| {});
            assert!(matches!(took, Took::Sample { pos: 0, .. }));
            c.writer_waits(&s2.w())
        });
        let room = p.prepare_wait(&s.w(), &s.r(), 1);
        let signalled = reader.join().unwrap();
        assert!(room || signalled, "the writer would sleep forever");
    });
}

/// A writer waiting for two free slots of a full ring of two, and a reader
/// claiming both: either the writer sees the room or the reader, at its
/// second claim, sees the writer waiting for it.
#[test]
fn loom_a_writer_waiting_for_half_a_ring_is_never_forgotten() {
    model(|| {
        let s = Arc::new(Shared::new(2, 4));
        let mut p = Producer::new(2);
        for pos in 0..2 {
            assert!(matches!(
                p.push(&s.w(), &s.r(), &desc(pos), false),
                Pushed::Done { .. }
            ));
        }
        let s2 = s.clone();
        let reader = thread::spawn(move || {
            let mut c = Consumer::new(2);
            let mut lost = 0;
            for _ in 0..2 {
                let took = c.take(&s2.w(), &s2.r(), &mut lost, &mut |_| {});
                assert!(matches!(took, Took::Sample { .. }));
            }
            c.writer_waits(&s2.w())
        });
        // Two free: room means both claimed (the writer's check here is
        // for any room, as in `send.rs`; the reader's signal is for two).
        let room = p.prepare_wait(&s.w(), &s.r(), 2);
        let signalled = reader.join().unwrap();
        assert!(room || signalled, "the writer would sleep forever");
    });
}

/// Releases pushed by the reader reach the writer once each, in order.
#[test]
fn loom_releases_arrive_once_each() {
    model(|| {
        let s = Arc::new(Shared::new(1, 2));
        let s2 = s.clone();
        let reader = thread::spawn(move || {
            let mut rel = Releaser::new(2);
            let mut sent = Vec::new();
            for pos in 0..3 {
                if rel.push(&s2.w(), &s2.r(), pos) {
                    sent.push(pos);
                }
            }
            sent
        });
        let mut rec = Reclaimer::new(2);
        let mut seen = Vec::new();
        rec.drain(&s.w(), &s.r(), |p| seen.push(p)).unwrap();
        let sent = reader.join().unwrap();
        rec.drain(&s.w(), &s.r(), |p| seen.push(p)).unwrap();
        assert_eq!(seen, sent);
    });
}
