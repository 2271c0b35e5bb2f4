//! Keep-all is bounded by memory, not only by a sample count: a reliable
//! keep-all reader's `ResourceLimits::max_bytes` stops a writer (full, or a
//! bounded wait) once that many payload bytes are queued or held for it,
//! and a keep-all writer's shared memory stays under its own `max_bytes`.

mod common;

use std::time::Duration;

use common::domain;
use hibari_shm::ShmTransport;
use hibari_transport::{
    Endpoint, EndpointSpec, Payload, QosProfile, Reader, ReaderOptions, ResourceLimits, WhenFull,
    WriteError, Writer, WriterOptions,
};

const PATIENCE: Duration = Duration::from_secs(10);

fn keep_all(topic: &str) -> EndpointSpec {
    EndpointSpec {
        topic: topic.into(),
        type_name: "hibari_test/msg/Blob".into(),
        type_hash: String::new(),
        qos: QosProfile::default().keep_all(),
    }
}

/// A serialized payload of `len` bytes (a CDR header and filler).
fn blob(len: usize, fill: u8) -> Payload {
    let mut b = vec![fill; len];
    b[..4].copy_from_slice(&[0, 1, 0, 0]);
    Payload::Serialized(b.into())
}

fn wait_matched(w: &dyn Writer) {
    let deadline = std::time::Instant::now() + PATIENCE;
    while w.status().matched < 1 {
        assert!(std::time::Instant::now() < deadline, "never matched");
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn a_keep_all_reader_is_bounded_by_its_byte_limit() {
    let d = domain();
    let (a, b) = (
        ShmTransport::open(d).unwrap(),
        ShmTransport::open(d).unwrap(),
    );
    let spec = keep_all("/limits/reader");
    let limits = ResourceLimits {
        max_samples: 1_000,
        max_bytes: 3 * 10_000,
    };
    let r = b
        .reader(&spec, &ReaderOptions::default().limits(limits))
        .unwrap();
    let w = a
        .writer(&spec, &WriterOptions::default().when_full(WhenFull::Fail))
        .unwrap();
    wait_matched(&w);
    for i in 0..3 {
        w.write(blob(10_000, i)).unwrap();
    }
    // Far from 1,000 samples, but at 30,000 bytes: full.
    match w.write(blob(10_000, 3)) {
        Err(WriteError::Full { .. }) => {}
        other => panic!("a fourth 10 kB sample went past a 30 kB limit: {other:?}"),
    }
    // Small samples do not fit either: the limit is in bytes.
    assert!(w.write(blob(100, 4)).is_err());
    // Taking and dropping one sample makes room for one more.
    let first = r.take().expect("a sample");
    assert_eq!(first.payload.cdr().unwrap().get(4).unwrap(), 0);
    drop(first);
    let deadline = std::time::Instant::now() + PATIENCE;
    loop {
        match w.write(blob(10_000, 5)) {
            Ok(()) => break,
            Err(_) if std::time::Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(2))
            }
            Err(e) => panic!("no room after a release: {e}"),
        }
    }
    let got: Vec<u8> = std::iter::from_fn(|| r.take())
        .map(|s| s.payload.cdr().unwrap().get(4).unwrap())
        .collect();
    assert_eq!(got, vec![1, 2, 5], "in order, nothing lost");
    assert_eq!(w.status().matched, 1);
}

#[test]
fn a_reliable_writer_blocked_by_a_byte_limit_waits_for_a_release() {
    let d = domain();
    let (a, b) = (
        ShmTransport::open(d).unwrap(),
        ShmTransport::open(d).unwrap(),
    );
    let spec = keep_all("/limits/blocked");
    let limits = ResourceLimits {
        max_samples: 1_000,
        max_bytes: 2 * 50_000,
    };
    let r = b
        .reader(&spec, &ReaderOptions::default().limits(limits))
        .unwrap();
    let w = a
        .writer(
            &spec,
            &WriterOptions::default().when_full(WhenFull::Block { timeout: PATIENCE }),
        )
        .unwrap();
    wait_matched(&w);
    w.write(blob(50_000, 0)).unwrap();
    w.write(blob(50_000, 1)).unwrap();
    let writer = std::thread::spawn(move || {
        let result = w.write(blob(50_000, 2));
        (w, result.is_ok())
    });
    std::thread::sleep(Duration::from_millis(100));
    assert!(!writer.is_finished(), "the write did not wait for room");
    drop(r.take().expect("first"));
    let (_w, ok) = writer.join().unwrap();
    assert!(ok, "the write failed after a release");
    let rest: Vec<u8> = std::iter::from_fn(|| r.take())
        .map(|s| s.payload.cdr().unwrap().get(4).unwrap())
        .collect();
    assert_eq!(rest, vec![1, 2]);
}

#[test]
fn a_keep_all_writer_times_out_at_its_own_byte_limit() {
    let d = domain();
    let (a, b) = (
        ShmTransport::open(d).unwrap(),
        ShmTransport::open(d).unwrap(),
    );
    let spec = keep_all("/limits/writer");
    // The reader would take 1,000 samples of any size; the writer's own
    // keep-all limit is 1 MiB of shared memory.
    let r = b.reader(&spec, &ReaderOptions::default()).unwrap();
    let limits = ResourceLimits {
        max_samples: 1_000,
        max_bytes: 1 << 20,
    };
    let w = a
        .writer(
            &spec,
            &WriterOptions::default()
                .limits(limits)
                .when_full(WhenFull::Block {
                    timeout: Duration::from_millis(50),
                }),
        )
        .unwrap();
    wait_matched(&w);
    let mut sent = 0;
    let err = loop {
        match w.write(blob(100_000, sent as u8)) {
            Ok(()) => sent += 1,
            Err(e) => break e,
        }
        assert!(sent < 100, "wrote 10 MB through a 1 MiB keep-all writer");
    };
    assert!(
        matches!(err, WriteError::Timeout { .. } | WriteError::Full { .. }),
        "{err}"
    );
    assert!(sent >= 5, "only {sent} samples fit in 1 MiB");
    assert_eq!(r.queued(), sent);
}
