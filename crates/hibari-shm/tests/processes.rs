//! Real processes: streams between them, and `kill -9` of either side.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{check, domain, eventually, leftovers, spec, Peer};
use hibari_shm::ShmTransport;
use hibari_transport::{
    Endpoint, EndpointEvent, Payload, Reader, ReaderOptions, WhenFull, Writer, WriterOptions,
};

const PATIENCE: Duration = Duration::from_secs(20);

fn stream(size: &str, count: &str) {
    let d = domain().to_string();
    let mut sub = Peer::spawn(&["sub", &d, "/stream", count, "reliable"]);
    let mut publ = Peer::spawn(&["pub", &d, "/stream", size, count, "0", "reliable"]);
    sub.expect("ready", PATIENCE);
    let summary = sub.expect("summary", Duration::from_secs(60));
    assert_eq!(
        summary,
        format!("summary received={count} torn=0 order=0 lost=0")
    );
    assert!(sub.wait(PATIENCE), "the subscriber failed");
    assert!(publ.wait(PATIENCE), "the publisher failed");
    assert_eq!(leftovers(), Vec::<String>::new());
}

#[test]
fn a_64_byte_stream_crosses_processes_intact_and_in_order() {
    stream("64", "3000");
}

#[test]
fn a_6_mb_stream_crosses_processes_intact_and_in_order() {
    stream("6220800", "40");
}

#[test]
fn a_stream_of_mixed_sizes_grows_segments_and_crosses_intact() {
    stream("16-3000000", "200");
}

/// The publisher dies mid-stream: the reader sees it unmatched, the samples
/// it holds stay readable and intact, and a new publisher is matched.
#[test]
fn killing_the_publisher_mid_stream_unmatches_it_and_held_samples_stay_intact() {
    let d = domain();
    let t = ShmTransport::open(d).unwrap();
    let r = t
        .reader(&spec("/killed", false), &ReaderOptions::default())
        .unwrap();
    let mut publ = Peer::spawn(&[
        "pub",
        &d.to_string(),
        "/killed",
        "100-300000",
        "0",
        "100",
        "best",
    ]);
    let mut held = Vec::new();
    assert!(eventually(PATIENCE, || {
        while let Some(s) = r.take() {
            held.push(s);
        }
        held.len() >= 50
    }));
    let writer = held[0].info.publisher_id;
    publ.kill();
    let mut events = Vec::new();
    assert!(
        eventually(PATIENCE, || {
            events.extend(std::iter::from_fn(|| r.take_event()));
            events.contains(&EndpointEvent::Unmatched { peer: writer })
        }),
        "no Unmatched after kill -9: {events:?}"
    );
    assert_eq!(r.matched_count(), 0);
    while let Some(s) = r.take() {
        held.push(s);
    }
    for s in &held {
        assert!(
            check(s.payload.cdr().unwrap()).is_some(),
            "a held sample changed"
        );
    }
    drop(held);
    let _again = Peer::spawn(&["pub", &d.to_string(), "/killed", "64", "0", "100", "best"]);
    let mut got = None;
    assert!(eventually(PATIENCE, || {
        got = r.take();
        got.is_some()
    }));
    let s = got.unwrap();
    assert_ne!(s.info.publisher_id, writer);
    assert!(check(s.payload.cdr().unwrap()).is_some());
    assert_eq!(leftovers(), Vec::<String>::new());
}

/// The subscriber dies holding samples: the publisher sees it unmatched,
/// takes every chunk back, is not blocked by it, and a new subscriber is
/// matched.
#[test]
fn killing_the_subscriber_returns_its_chunks_and_never_blocks_the_publisher() {
    let d = domain();
    let t = ShmTransport::open(d).unwrap();
    let long = WhenFull::Block {
        timeout: Duration::from_secs(3600),
    };
    let w = Arc::new(
        t.writer(
            &spec("/holder", true),
            &WriterOptions::default().when_full(long),
        )
        .unwrap(),
    );
    let mut sub = Peer::spawn(&[
        "sub",
        &d.to_string(),
        "/holder",
        "0",
        "reliable",
        "hold",
        "40",
    ]);
    assert!(eventually(PATIENCE, || w.matched_count() == 1));
    for i in 0..100u64 {
        let mut loan = w.loan(100_000).unwrap();
        common::fill(&mut loan, i);
        loan.send().unwrap();
    }
    assert!(
        eventually(PATIENCE, || w.chunks_in_use() >= 40),
        "the subscriber holds 40 samples: {}",
        w.chunks_in_use()
    );
    sub.kill();
    assert!(eventually(PATIENCE, || w.matched_count() == 0));
    assert!(
        eventually(PATIENCE, || w.chunks_in_use() == 0),
        "chunks not returned: {}",
        w.chunks_in_use()
    );
    // No reader: writes return at once.
    for i in 0..1000u64 {
        w.write(Payload::Serialized(vec![i as u8; 64].into()))
            .unwrap();
    }
    let _again = Peer::spawn(&["sub", &d.to_string(), "/holder", "0", "reliable"]);
    assert!(
        eventually(PATIENCE, || w.matched_count() == 1),
        "no reconnection"
    );
    let events: Vec<_> = std::iter::from_fn(|| w.take_event()).collect();
    let matched = events
        .iter()
        .filter(|e| matches!(e, EndpointEvent::Matched { .. }))
        .count();
    let unmatched = events
        .iter()
        .filter(|e| matches!(e, EndpointEvent::Unmatched { .. }))
        .count();
    assert_eq!((matched, unmatched), (2, 1), "{events:?}");
    assert_eq!(leftovers(), Vec::<String>::new());
}

/// A hostile writer scribbles garbage into the ring and announces bogus
/// segments; the reader never crashes, never reads outside a mapping, and
/// still takes the writer's real samples and other writers' samples.
#[test]
fn a_hostile_writer_cannot_crash_a_reader() {
    let d = domain();
    let t = ShmTransport::open(d).unwrap();
    let r = t
        .reader(&spec("/hostile", false), &ReaderOptions::default())
        .unwrap();
    let mut bad = Peer::spawn(&["hostile", &d.to_string(), "/hostile"]);
    let (mut taken, mut intact) = (0u64, 0u64);
    let until = std::time::Instant::now() + Duration::from_secs(3);
    while std::time::Instant::now() < until {
        while let Some(s) = r.take() {
            taken += 1;
            let bytes = s.payload.cdr().unwrap().to_cow();
            let _sum: u64 = bytes.iter().map(|&b| u64::from(b)).sum(); // touch all
            intact += u64::from(check(&bytes[..]).is_some());
        }
        let _ = r.status();
        std::thread::sleep(Duration::from_micros(300));
    }
    // Garbage shows as dropped samples (descriptors outside the writer's
    // memory) or as samples of garbage bytes; real ones arrive intact.
    assert!(
        taken > intact || r.status().lost_total > 0,
        "took {taken} ({intact} intact): the garbage went unnoticed: {:?}",
        r.status()
    );
    bad.kill();
    let good = Peer::spawn(&[
        "pub",
        &d.to_string(),
        "/hostile",
        "1000",
        "0",
        "100",
        "best",
    ]);
    good.expect("ready", PATIENCE);
    let mut fine = 0;
    assert!(eventually(PATIENCE, || {
        while let Some(s) = r.take() {
            fine += u64::from(check(s.payload.cdr().unwrap()).is_some());
        }
        fine > 10
    }));
}
