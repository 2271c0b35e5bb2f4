//! The rings over ordinary heap memory, with real threads: what `cargo miri
//! test` checks for data races and undefined behaviour (miri cannot map a
//! memfd, so the shared-memory layout itself is not part of this), and a
//! quick check of the ring logic in every `cargo test`.
//!
//! Run under miri with
//! `cargo +nightly miri test -p hibari-shm --lib ring::`.

use std::collections::HashSet;
use std::sync::Arc;

use super::test_words::{desc, Shared};
use super::*;

/// Fewer rounds under miri, which interprets every instruction.
const ROUNDS: u64 = if cfg!(miri) { 60 } else { 20_000 };

/// A best-effort writer laps a small ring while a reader claims and
/// releases: no descriptor is torn, each position is owned by one side
/// exactly (taken back by the writer, or taken and released by the
/// reader), and the releases all reach the writer.
#[test]
fn a_lapping_writer_and_a_claiming_reader_share_every_chunk_exactly_once() {
    let s = Arc::new(Shared::new(2, 8));
    let s2 = s.clone();
    let finished = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let finished2 = finished.clone();
    let reader = std::thread::spawn(move || {
        let (mut c, mut rel) = (Consumer::new(2), Releaser::new(8));
        let (mut got, mut lost, mut pending) = (Vec::new(), 0, Vec::new());
        let mut done = false;
        while !done {
            done = finished2.load(Acquire); // then one last round takes the rest
            loop {
                let took = c.take(&s2.w(), &s2.r(), &mut lost, &mut |p| pending.push(p));
                let Took::Sample { pos, desc: d } = took else {
                    break;
                };
                assert_eq!(d, desc(pos), "a torn descriptor");
                got.push(pos);
                pending.push(pos);
            }
            pending.retain(|&p| !rel.push(&s2.w(), &s2.r(), p));
            std::thread::yield_now();
        }
        (got, lost, pending)
    });
    let (mut p, mut rec) = (Producer::new(2), Reclaimer::new(8));
    let (mut dropped, mut released) = (Vec::new(), Vec::new());
    for pos in 0..ROUNDS {
        match p.push(&s.w(), &s.r(), &desc(pos), true) {
            Pushed::Done { dropped: d, .. } => dropped.extend(d),
            Pushed::Full => panic!("overwrite never refuses"),
        }
        rec.drain(&s.w(), &s.r(), |p| released.push(p)).unwrap();
    }
    finished.store(true, Release);
    let (got, lost, unsent) = reader.join().unwrap();
    rec.drain(&s.w(), &s.r(), |p| released.push(p)).unwrap();
    let taken_back: HashSet<u64> = dropped.iter().copied().collect();
    assert_eq!(taken_back.len(), dropped.len(), "taken back twice");
    for g in &got {
        assert!(!taken_back.contains(g), "owned twice: {g}");
    }
    let returned: HashSet<u64> = released.iter().chain(&unsent).copied().collect();
    assert!(
        got.iter().all(|g| returned.contains(g)),
        "a release got lost"
    );
    assert!(got.windows(2).all(|w| w[0] < w[1]), "out of order");
    assert_eq!(
        got.len() as u64 + lost,
        ROUNDS,
        "each taken or counted lost"
    );
}

/// A reliable writer never overwrites: everything arrives, in order.
#[test]
fn a_reliable_ring_delivers_everything_in_order_across_threads() {
    let s = Arc::new(Shared::new(4, 16));
    let s2 = s.clone();
    let reader = std::thread::spawn(move || {
        let mut c = Consumer::new(4);
        let (mut got, mut lost) = (Vec::new(), 0);
        while (got.len() as u64) < ROUNDS {
            match c.take(&s2.w(), &s2.r(), &mut lost, &mut |_| panic!("no release")) {
                Took::Sample { pos, desc: d } => {
                    assert_eq!(d, desc(pos));
                    got.push(pos);
                }
                Took::Empty => std::thread::yield_now(),
            }
        }
        (got, lost)
    });
    let mut p = Producer::new(4);
    let mut pos = 0;
    while pos < ROUNDS {
        match p.push(&s.w(), &s.r(), &desc(pos), false) {
            Pushed::Done { dropped, .. } => {
                assert_eq!(dropped, None);
                pos += 1;
            }
            Pushed::Full => std::thread::yield_now(),
        }
    }
    let (got, lost) = reader.join().unwrap();
    assert_eq!(lost, 0);
    assert_eq!(got, (0..ROUNDS).collect::<Vec<_>>());
}

/// A writer behind a full ring asks to be woken once half of it is free:
/// the reader's first claim does not wake it, the one that frees half the
/// ring does; asking for any room wakes it at the first claim.
#[test]
fn a_writer_waiting_for_half_the_ring_is_woken_once_half_is_free() {
    for (free, woken_at) in [(2u64, 2usize), (0, 1), (1, 1), (9, 4)] {
        let s = Shared::new(4, 8);
        let mut p = Producer::new(4);
        for pos in 0..4 {
            assert!(matches!(
                p.push(&s.w(), &s.r(), &desc(pos), false),
                Pushed::Done { .. }
            ));
        }
        assert!(!p.prepare_wait(&s.w(), &s.r(), free), "the ring is full");
        let mut c = Consumer::new(4);
        let mut lost = 0;
        let mut woken = Vec::new();
        for _ in 0..4 {
            let took = c.take(&s.w(), &s.r(), &mut lost, &mut |_| {});
            assert!(matches!(took, Took::Sample { .. }));
            woken.push(c.writer_waits(&s.w()));
        }
        let first = woken.iter().position(|&w| w).map(|i| i + 1);
        assert_eq!(first, Some(woken_at), "asking for {free}: {woken:?}");
        assert!(woken[woken_at - 1..].iter().all(|&w| w), "{woken:?}");
        p.end_wait(&s.w());
        assert!(!c.writer_waits(&s.w()), "no longer waiting");
    }
}
