//! A reliable writer behind a full ring: it asks to be woken once half the
//! ring is free (so a reader that keeps up wakes it once per half ring, not
//! once per sample), but a reader that takes one sample and no more still
//! lets the waiting write through, as DDS's `max_blocking_time` promises.

mod common;

use std::time::{Duration, Instant};

use common::domain;
use hibari_shm::{ShmReader, ShmTransport, ShmWriter};
use hibari_transport::{
    Endpoint, EndpointSpec, Payload, QosProfile, Reader, ReaderOptions, WhenFull, Writer,
    WriterOptions,
};

const PATIENCE: Duration = Duration::from_secs(10);
const DEPTH: usize = 16;

fn spec(topic: &str) -> EndpointSpec {
    EndpointSpec {
        topic: topic.into(),
        type_name: "hibari_test/msg/Blob".into(),
        type_hash: String::new(),
        qos: QosProfile::default().reliable().keep_last(DEPTH),
    }
}

/// Two transports of one fresh domain, a reader on one and a writer that
/// blocks up to `PATIENCE` on the other, matched.
fn matched(topic: &str) -> ([ShmTransport; 2], ShmReader, ShmWriter) {
    let d = domain();
    let (a, b) = (
        ShmTransport::open(d).unwrap(),
        ShmTransport::open(d).unwrap(),
    );
    let spec = spec(topic);
    let r = b.reader(&spec, &ReaderOptions::default()).unwrap();
    let w = a
        .writer(
            &spec,
            &WriterOptions::default().when_full(WhenFull::Block { timeout: PATIENCE }),
        )
        .unwrap();
    let deadline = Instant::now() + PATIENCE;
    while w.status().matched < 1 {
        assert!(Instant::now() < deadline, "never matched");
        std::thread::sleep(Duration::from_millis(2));
    }
    ([a, b], r, w)
}

fn blob(fill: u8) -> Payload {
    Payload::Serialized(vec![0, 1, 0, 0, fill].into())
}

#[test]
fn a_write_behind_a_full_ring_goes_through_when_the_reader_takes_one_sample() {
    let (_transports, r, w) = matched("/backpressure/one");
    // The ring fills; without a reader taking, the next write waits.
    let mut sent = 0u8;
    while r.queued() < DEPTH {
        w.write(blob(sent)).unwrap();
        sent += 1;
        assert!(
            usize::from(sent) <= DEPTH,
            "wrote past a full reliable ring"
        );
    }
    let writer = std::thread::spawn(move || {
        let result = w.write(blob(sent));
        (w, result)
    });
    std::thread::sleep(Duration::from_millis(50));
    assert!(!writer.is_finished(), "the write did not wait for room");
    // One sample taken, far from half the ring: the write still goes
    // through (within its slice, not at its 10 s timeout, which would fail).
    let taken = Instant::now();
    let first = r.take().expect("a queued sample");
    assert_eq!(first.payload.cdr().unwrap().get(4), Some(0));
    let (_w, result) = writer.join().unwrap();
    assert!(result.is_ok(), "{result:?}");
    // A writer waiting for half the ring would get through only when its
    // wait ends, at its timeout: the take must have let it through before.
    assert!(
        taken.elapsed() < PATIENCE / 2,
        "the write waited for its timeout"
    );
    let rest: Vec<u8> = std::iter::from_fn(|| r.take())
        .map(|s| s.payload.cdr().unwrap().get(4).unwrap())
        .collect();
    assert_eq!(rest, (1..=sent).collect::<Vec<u8>>());
}

#[test]
fn a_reader_that_keeps_up_gets_every_sample_of_a_writer_it_holds_back() {
    let (_transports, r, w) = matched("/backpressure/many");
    const N: u32 = 20_000;
    let writer = std::thread::spawn(move || {
        for i in 0..N {
            w.write(blob(i as u8)).unwrap();
        }
        w
    });
    let mut got = 0u32;
    let deadline = Instant::now() + PATIENCE * 3;
    while got < N {
        match r.take() {
            Some(s) => {
                assert_eq!(s.payload.cdr().unwrap().get(4), Some(got as u8));
                got += 1;
            }
            None => {
                assert!(Instant::now() < deadline, "{got} of {N} samples came");
                std::thread::yield_now();
            }
        }
    }
    let _w = writer.join().unwrap();
    assert_eq!(
        r.take().map(|s| s.info.sequence),
        None,
        "more than was written"
    );
}
