//! Behaviour of the in-process transport beyond the shared contract.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::Duration;

use hibari_inproc::InprocTransport;
use hibari_transport::conformance::Probe;
use hibari_transport::{
    Endpoint, EndpointCreateError, EndpointSpec, Payload, QosProfile, Reader, ReaderOptions,
    WhenFull, Writer, WriterOptions,
};

fn spec(topic: &str, qos: QosProfile) -> EndpointSpec {
    EndpointSpec::new::<Probe>(topic, qos)
}

fn probe(i: u64) -> Payload {
    Payload::from_message(Probe::new(0, i))
}

/// Runs `f` on its own thread; fails if it does not finish in 60 s.
fn within_a_minute(f: impl FnOnce() + Send + 'static) {
    let (tx, rx) = mpsc::channel();
    let h = std::thread::spawn(move || {
        f();
        let _ = tx.send(());
    });
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(()) => h.join().unwrap(),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            std::panic::resume_unwind(h.join().unwrap_err())
        }
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("blocked"),
    }
}

#[test]
fn a_reader_dropped_while_a_writer_waits_for_it_releases_the_writer() {
    within_a_minute(|| {
        let t = InprocTransport::isolated(0);
        let r = t
            .reader(
                &spec("/t", QosProfile::default().keep_last(1)),
                &ReaderOptions::default(),
            )
            .unwrap();
        let hour = WhenFull::Block {
            timeout: Duration::from_secs(3600),
        };
        let w = t
            .writer(
                &spec("/t", QosProfile::default()),
                &WriterOptions::default().when_full(hour),
            )
            .unwrap();
        w.write(probe(0)).unwrap();
        std::thread::scope(|s| {
            let blocked = s.spawn(|| w.write(probe(1)));
            std::thread::sleep(Duration::from_millis(20));
            drop(r);
            blocked
                .join()
                .unwrap()
                .expect("the write goes on without the reader");
        });
        assert_eq!(w.matched_count(), 0);
    });
}

#[test]
fn an_isolated_domain_is_unreachable_by_open() {
    let isolated = InprocTransport::isolated(42);
    let shared = InprocTransport::open(42);
    let r = isolated
        .reader(
            &spec("/iso", QosProfile::default()),
            &ReaderOptions::default(),
        )
        .unwrap();
    let w = shared
        .writer(
            &spec("/iso", QosProfile::default()),
            &WriterOptions::default(),
        )
        .unwrap();
    assert_eq!((r.matched_count(), w.matched_count()), (0, 0));
    let same = isolated.clone();
    let w2 = same
        .writer(
            &spec("/iso", QosProfile::default()),
            &WriterOptions::default(),
        )
        .unwrap();
    assert_eq!(w2.matched_count(), 1);
}

#[test]
fn invalid_specs_are_refused_with_advice() {
    let t = InprocTransport::isolated(0);
    let err = t
        .writer(&spec("", QosProfile::default()), &WriterOptions::default())
        .err()
        .unwrap();
    assert!(matches!(err, EndpointCreateError::InvalidTopic { .. }));
    let err = t
        .reader(
            &spec("/t", QosProfile::default().keep_last(0)),
            &ReaderOptions::default(),
        )
        .err()
        .unwrap();
    assert!(err.to_string().contains("keep_last(1)"), "{err}");
}

/// The shape an executor takes: one thread, one wake-up source for many
/// readers, draining whichever have samples.
#[test]
fn one_thread_waits_on_many_readers_through_one_waker() {
    within_a_minute(|| {
        const TOPICS: usize = 8;
        const PER_TOPIC: u64 = 500;
        let t = InprocTransport::isolated(0);
        let bell = Arc::new((Mutex::new(false), Condvar::new()));
        let wakes = Arc::new(AtomicUsize::new(0));
        let readers: Vec<_> = (0..TOPICS)
            .map(|i| {
                let r = t
                    .reader(
                        &spec(&format!("/many/{i}"), QosProfile::default().keep_all()),
                        &ReaderOptions::default(),
                    )
                    .unwrap();
                let (bell, wakes) = (bell.clone(), wakes.clone());
                r.set_notify(Some(Arc::new(move || {
                    wakes.fetch_add(1, Ordering::Relaxed);
                    *bell.0.lock().unwrap() = true;
                    bell.1.notify_one();
                })));
                r
            })
            .collect();
        std::thread::scope(|s| {
            for i in 0..TOPICS {
                let t = &t;
                s.spawn(move || {
                    let w = t
                        .writer(
                            &spec(&format!("/many/{i}"), QosProfile::default()),
                            &WriterOptions::default(),
                        )
                        .unwrap();
                    (0..PER_TOPIC).for_each(|n| w.write(probe(n)).unwrap());
                });
            }
            let mut taken = [0u64; TOPICS];
            while taken.iter().sum::<u64>() < TOPICS as u64 * PER_TOPIC {
                {
                    let mut rung = bell.0.lock().unwrap();
                    while !*rung {
                        rung = bell.1.wait(rung).unwrap();
                    }
                    *rung = false;
                }
                for (i, r) in readers.iter().enumerate() {
                    while let Some(x) = r.take() {
                        assert_eq!(x.info.sequence, taken[i] + 1);
                        taken[i] += 1;
                    }
                }
            }
        });
        assert!(wakes.load(Ordering::Relaxed) >= 1);
    });
}
