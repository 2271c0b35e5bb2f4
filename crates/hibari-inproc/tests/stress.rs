//! Four writers at full speed; readers created and dropped mid-stream; a
//! reader whose waker publishes (on its own topic and another). Nothing may
//! deadlock (the test runs under a watchdog) and no reader may see a writer's
//! samples out of order or lose one without counting it.

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::Duration;

use hibari_inproc::{InprocReader, InprocTransport};
use hibari_transport::conformance::Probe;
use hibari_transport::{
    Endpoint, EndpointId, EndpointSpec, Payload, QosProfile, Reader, ReaderOptions, Sample,
    WhenFull, Writer, WriterOptions,
};

const WRITERS: u32 = 4;
const PER_WRITER: u64 = 20_000;
const ECHO_BUDGET: u64 = 5_000;

fn patient() -> WriterOptions {
    WriterOptions::default().when_full(WhenFull::Block {
        timeout: Duration::from_secs(60),
    })
}

/// Per-writer bookkeeping of one reader: order, and loss accounted exactly.
#[derive(Default)]
struct Order {
    last: HashMap<EndpointId, u64>,
    taken: u64,
}

impl Order {
    fn check(&mut self, s: &Sample, lossless: bool) {
        let i = s.info;
        if let Some(&prev) = self.last.get(&i.publisher_id) {
            assert!(i.sequence > prev, "reordered: {} after {prev}", i.sequence);
            assert_eq!(
                i.sequence - prev - 1,
                i.lost_before,
                "loss not counted: {i:?}"
            );
        }
        if lossless {
            assert_eq!(i.lost_before, 0, "a reliable reader lost samples: {i:?}");
        }
        self.last.insert(i.publisher_id, i.sequence);
        self.taken += 1;
    }
}

#[derive(Default)]
struct Bell {
    rung: Mutex<bool>,
    cv: Condvar,
}

impl Bell {
    fn ring(&self) {
        *self.rung.lock().unwrap() = true;
        self.cv.notify_all();
    }
    fn wait(&self) {
        let g = self.rung.lock().unwrap();
        let mut g = self
            .cv
            .wait_timeout_while(g, Duration::from_millis(50), |r| !*r)
            .unwrap()
            .0;
        *g = false;
    }
}

#[test]
fn four_writers_with_reader_churn_and_publishing_wakers_never_deadlock_or_reorder() {
    let (done_tx, done_rx) = mpsc::channel();
    std::thread::spawn(move || {
        stress();
        let _ = done_tx.send(());
    });
    match done_rx.recv_timeout(Duration::from_secs(300)) {
        Ok(()) => {}
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("the stress run failed (see above)"),
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("deadlock: the stress run did not finish"),
    }
}

fn stress() {
    let t = InprocTransport::isolated(7);
    let spec = |topic: &str, qos| EndpointSpec::new::<Probe>(topic, qos);
    let main = |qos| spec("/stress", qos);

    // A reliable reader that must see everything.
    let consumer = t
        .reader(
            &main(QosProfile::default().keep_last(64)),
            &ReaderOptions::default(),
        )
        .unwrap();
    let bell = Arc::new(Bell::default());
    consumer.set_notify(Some({
        let bell = bell.clone();
        Arc::new(move || bell.ring())
    }));

    // A reader whose waker publishes on the same topic and on a side topic.
    let echo_w = t.writer(&main(QosProfile::default()), &patient()).unwrap();
    let side_w = t
        .writer(&spec("/stress_side", QosProfile::default()), &patient())
        .unwrap();
    let side_r = t
        .reader(
            &spec("/stress_side", QosProfile::sensor_data().keep_last(100)),
            &ReaderOptions::default(),
        )
        .unwrap();
    let echo_r = Arc::new(
        t.reader(
            &main(QosProfile::sensor_data().keep_last(8)),
            &ReaderOptions::default(),
        )
        .unwrap(),
    );
    let budget = Arc::new(AtomicU64::new(ECHO_BUDGET));
    let echoes = Arc::new(AtomicU64::new(0));
    {
        let (budget, echoes) = (budget.clone(), echoes.clone());
        echo_r.set_notify(Some(Arc::new(move || {
            thread_local!(static DEPTH: Cell<u32> = const { Cell::new(0) });
            if DEPTH.get() >= 4
                || budget
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |b| b.checked_sub(1))
                    .is_err()
            {
                return;
            }
            DEPTH.set(DEPTH.get() + 1);
            let n = echoes.fetch_add(1, Ordering::SeqCst);
            echo_w
                .write(Payload::from_message(Probe::new(99, n)))
                .expect("echo write");
            side_w
                .write(Payload::from_message(Probe::new(98, n)))
                .expect("side write");
            DEPTH.set(DEPTH.get() - 1);
        })));
    }

    let writers_done = AtomicBool::new(false);
    std::thread::scope(|s| {
        // Drains the echo reader so that it keeps waking.
        s.spawn(|| {
            let mut order = Order::default();
            while !writers_done.load(Ordering::SeqCst) {
                match echo_r.take() {
                    Some(x) => order.check(&x, false),
                    None => std::thread::yield_now(),
                }
            }
        });
        // Creates and drops readers mid-stream (at least one, however
        // quickly the writers finish: no count of rounds is asserted).
        s.spawn(|| {
            let mut round = 0u32;
            while round == 0 || !writers_done.load(Ordering::SeqCst) {
                round += 1;
                let qos = if round.is_multiple_of(3) {
                    QosProfile::default().keep_last(16)
                } else {
                    QosProfile::sensor_data().keep_last(16)
                };
                let r: InprocReader = t.reader(&main(qos), &ReaderOptions::default()).unwrap();
                let mut order = Order::default();
                for _ in 0..200 {
                    match r.take() {
                        Some(x) => order.check(&x, false),
                        None => std::thread::yield_now(),
                    }
                }
                drop(r);
            }
        });
        // The reliable consumer, running before any writer exists: creating
        // a writer wakes the echo reader, whose waker writes reliably.
        let consumer = s.spawn(|| {
            let mut order = Order::default();
            let mut per_tag = HashMap::<u32, u64>::new();
            loop {
                while let Some(x) = consumer.take() {
                    order.check(&x, true);
                    let p = x.payload.into_shared::<Probe>().unwrap();
                    let next = per_tag.entry(p.tag).or_insert(0);
                    // Echo indices are numbered outside the echo writer's
                    // lock (by concurrent wakers): only its sequence is ordered.
                    if p.tag != 99 {
                        assert_eq!(p.index, *next, "writer {} out of order", p.tag);
                    }
                    *next += 1;
                }
                let all = (0..WRITERS).all(|w| per_tag.get(&w) == Some(&PER_WRITER));
                if all && writers_done.load(Ordering::SeqCst) {
                    let echoed = echoes.load(Ordering::SeqCst);
                    if per_tag.get(&99).copied().unwrap_or(0) == echoed {
                        return (order.taken, echoed);
                    }
                }
                bell.wait();
            }
        });
        // The writers.
        let handles: Vec<_> = (0..WRITERS)
            .map(|tag| {
                let w = t.writer(&main(QosProfile::default()), &patient()).unwrap();
                s.spawn(move || {
                    for i in 0..PER_WRITER {
                        w.write(Payload::from_message(Probe::new(tag, i)))
                            .expect("a write");
                    }
                    w.id()
                })
            })
            .collect();
        let ids: Vec<EndpointId> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        writers_done.store(true, Ordering::SeqCst);
        bell.ring();
        let (taken, echoed) = consumer.join().unwrap();
        assert_eq!(taken, u64::from(WRITERS) * PER_WRITER + echoed);
        assert!(echoed > 0, "the waker never published");
        assert_eq!(ids.len(), WRITERS as usize);
    });
    let mut order = Order::default();
    while let Some(x) = side_r.take() {
        order.check(&x, false);
    }
    assert!(order.taken > 0);
}
