//! Delivery: order, fan-out and fan-in, endpoints coming and going, isolation,
//! payload forms, waking.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use hibari_cdr::Message;

use super::{
    eventually, probe, take_n, unique_topic, wait_matched, write, Probe, Rig, TransportFactory,
    Waiter, PATIENCE,
};
use crate::{
    EndpointId, EndpointSpec, Payload, QosProfile, Reader, ReaderOptions, ResourceLimits, Sample,
    Writer, WriterOptions,
};

fn keep_all() -> QosProfile {
    QosProfile::default().keep_all()
}

/// Asserts that, per writer, sequences grow by exactly one and indices follow.
fn assert_in_order_without_loss(samples: &[Sample]) {
    let mut last: HashMap<EndpointId, (u64, u64)> = HashMap::new();
    for s in samples {
        let p = probe(s);
        if let Some(&(seq, index)) = last.get(&s.info.publisher_id) {
            assert_eq!(s.info.sequence, seq + 1, "sequence after {seq}");
            assert_eq!(p.index, index + 1, "index after {index}");
        }
        assert_eq!(s.info.lost_before, 0);
        last.insert(s.info.publisher_id, (s.info.sequence, p.index));
    }
}

/// One writer, one reader: the reader takes every sample, in write order.
pub fn samples_of_one_writer_arrive_in_write_order(f: &dyn TransportFactory) {
    let rig = Rig::new(f, "order");
    let r = rig.reader(keep_all());
    let w = rig.writer(keep_all());
    wait_matched(&*w, 1);
    for i in 0..200 {
        write(&*w, 0, i);
    }
    let got = take_n(&*r, 200);
    for (i, s) in got.iter().enumerate() {
        assert_eq!(probe(s).index, i as u64);
        assert_eq!(s.info.sequence, i as u64 + 1);
    }
    assert!(r.take().is_none());
}

/// Three writers and three readers on one topic: every reader gets all.
pub fn every_reader_gets_every_sample_of_every_writer(f: &dyn TransportFactory) {
    let rig = Rig::new(f, "fan");
    let readers: Vec<_> = (0..3)
        .map(|i| {
            let spec = rig.spec(keep_all());
            let t = if i % 2 == 0 { &rig.a } else { &rig.b };
            t.create_reader(&spec, &ReaderOptions::default()).unwrap()
        })
        .collect();
    let writers: Vec<_> = (0..3).map(|_| rig.writer(keep_all())).collect();
    for w in &writers {
        wait_matched(&**w, 3);
    }
    for r in &readers {
        wait_matched(&**r, 3);
    }
    for i in 0..20 {
        for (tag, w) in writers.iter().enumerate() {
            write(&**w, tag as u32, i);
        }
    }
    for r in &readers {
        let got = take_n(&**r, 60);
        assert_in_order_without_loss(&got);
        let mut per_tag = [0; 3];
        for s in &got {
            per_tag[probe(s).tag as usize] += 1;
        }
        assert_eq!(per_tag, [20; 3]);
    }
}

/// Threads writing at full speed, some sharing one writer: each writer's
/// samples keep their order (sequence and write order agree).
pub fn writes_from_many_threads_keep_the_order_of_each_writer(f: &dyn TransportFactory) {
    let rig = Rig::new(f, "threads");
    let limits = ResourceLimits {
        max_samples: 100_000,
        ..ResourceLimits::default()
    };
    let r = rig.reader_with(keep_all(), ReaderOptions::default().limits(limits));
    let shared = rig.writer(keep_all());
    let own: Vec<_> = (0..2).map(|_| rig.writer(keep_all())).collect();
    wait_matched(&*r, 3);
    wait_matched(&*shared, 1);
    own.iter().for_each(|w| wait_matched(&**w, 1));
    std::thread::scope(|s| {
        for tag in 0..2u32 {
            let w = &*shared;
            s.spawn(move || (0..500).for_each(|i| write(w, tag, i)));
        }
        for (k, w) in own.iter().enumerate() {
            let w = &**w;
            s.spawn(move || (0..500).for_each(|i| write(w, 10 + k as u32, i)));
        }
    });
    let got = take_n(&*r, 2000);
    let mut by_writer: HashMap<EndpointId, u64> = HashMap::new();
    let mut by_tag: HashMap<u32, u64> = HashMap::new();
    for s in &got {
        let p = probe(s);
        let seq = by_writer.entry(s.info.publisher_id).or_insert(0);
        assert_eq!(s.info.sequence, *seq + 1, "one writer's sequence");
        *seq = s.info.sequence;
        let next = by_tag.entry(p.tag).or_insert(0);
        assert_eq!(p.index, *next, "one thread's write order");
        *next += 1;
    }
    assert_eq!(by_writer[&shared.id()], 1000);
}

/// Writes samples 0..10 to a reader, adds a second reader, waits until the
/// writer and it match, and writes 10..20; returns (first reader, writer,
/// late reader): the writer lives as long as the check that holds it.
fn add_a_reader_mid_stream(rig: &Rig) -> (Box<dyn Reader>, Box<dyn Writer>, Box<dyn Reader>) {
    let first = rig.reader(keep_all());
    let w = rig.writer(keep_all());
    wait_matched(&*w, 1);
    wait_matched(&*first, 1);
    (0..10).for_each(|i| write(&*w, 0, i));
    let late = rig.reader(keep_all());
    wait_matched(&*w, 2);
    wait_matched(&*late, 1);
    (10..20).for_each(|i| write(&*w, 0, i));
    (first, w, late)
}

/// A reader created while a writer writes gets the later samples, in order,
/// with no loss reported for the ones before it existed.
pub fn a_reader_added_mid_stream_gets_the_later_samples_in_order(f: &dyn TransportFactory) {
    let rig = Rig::new(f, "added");
    let (first, _w, late) = add_a_reader_mid_stream(&rig);
    let got = take_n(&*late, 10);
    assert_in_order_without_loss(&got);
    assert_eq!(probe(&got[0]).index, 10);
    assert_eq!(got[0].info.sequence, 11);
    assert_in_order_without_loss(&take_n(&*first, 20));
}

/// A reader added mid-stream gets, in order and without loss, everything
/// written after its writer matched it; of what was written before, at
/// most some samples still in flight, in order and without duplicates.
///
/// This is what DDS promises a VOLATILE reader (DDS v1.4 2.2.3.4: it may get
/// samples written before the writer knew it; RTPS DATA sent to every reader
/// of a participant can reach a reader the writer has not matched yet). A
/// transport that starts the reader exactly at the next sample passes
/// [`a_reader_added_mid_stream_gets_the_later_samples_in_order`] too.
pub fn a_reader_added_mid_stream_gets_every_sample_written_after_it_matched(
    f: &dyn TransportFactory,
) {
    let rig = Rig::new(f, "added_dds");
    let (first, _w, late) = add_a_reader_mid_stream(&rig);
    // Take until index 19 (at most all 20 samples): earlier ones, if any,
    // come first, strictly increasing; 10..=19 then come all, in order.
    let mut got = Vec::new();
    while got.last().map(|s| probe(s).index) != Some(19) {
        assert!(got.len() < 20, "more than 20 samples: {:?}", indices(&got));
        got.extend(take_n(&*late, 1));
    }
    let indices = indices(&got);
    assert!(
        indices.windows(2).all(|p| p[0] < p[1]),
        "out of order or twice: {indices:?}"
    );
    let later: Vec<u64> = indices.iter().copied().filter(|&i| i >= 10).collect();
    assert_eq!(later, (10..20).collect::<Vec<u64>>(), "all of: {indices:?}");
    for s in &got {
        assert_eq!(
            s.info.sequence,
            probe(s).index + 1,
            "sequence of {indices:?}"
        );
    }
    assert!(late.take().is_none(), "a sample after the last one");
    assert_in_order_without_loss(&take_n(&*first, 20));
}

fn indices(samples: &[Sample]) -> Vec<u64> {
    samples.iter().map(|s| probe(s).index).collect()
}

/// Dropping one reader does not disturb the others, and the writer sees it go.
pub fn a_reader_removed_mid_stream_leaves_the_others_undisturbed(f: &dyn TransportFactory) {
    let rig = Rig::new(f, "removed");
    let stays = rig.reader(keep_all());
    let goes = rig.reader(keep_all());
    let w = rig.writer(keep_all());
    wait_matched(&*w, 2);
    (0..10).for_each(|i| write(&*w, 0, i));
    drop(goes);
    wait_matched(&*w, 1);
    (10..20).for_each(|i| write(&*w, 0, i));
    let got = take_n(&*stays, 20);
    assert_in_order_without_loss(&got);
    assert_eq!(probe(&got[19]).index, 19);
}

/// A reader on another topic gets nothing.
pub fn different_topics_are_isolated(f: &dyn TransportFactory) {
    let rig = Rig::new(f, "topic_a");
    let other_spec = EndpointSpec::new::<Probe>(unique_topic("topic_b"), keep_all());
    let other = rig
        .b
        .create_reader(&other_spec, &ReaderOptions::default())
        .unwrap();
    let control = rig.reader(keep_all());
    let w = rig.writer(keep_all());
    wait_matched(&*w, 1);
    write(&*w, 0, 0);
    take_n(&*control, 1);
    assert_eq!(other.matched_count(), 0);
    assert!(other.take().is_none());
}

/// A reader in another domain gets nothing.
pub fn different_domains_are_isolated(f: &dyn TransportFactory) {
    let rig = Rig::new(f, "domain");
    let elsewhere = f.open(super::unique_domain());
    assert_ne!(elsewhere.domain_id(), rig.a.domain_id());
    let other = elsewhere
        .create_reader(&rig.spec(keep_all()), &ReaderOptions::default())
        .unwrap();
    let control = rig.reader(keep_all());
    let w = rig.writer(keep_all());
    wait_matched(&*w, 1);
    write(&*w, 0, 0);
    take_n(&*control, 1);
    assert_eq!(other.matched_count(), 0);
    assert_eq!(w.matched_count(), 1);
    assert!(other.take().is_none());
}

/// A local value and serialized bytes both reach the reader as the message.
pub fn local_and_serialized_payloads_both_arrive_intact(f: &dyn TransportFactory) {
    let rig = Rig::new(f, "payloads");
    let r = rig.reader(keep_all());
    let w = rig.writer(keep_all());
    wait_matched(&*w, 1);
    let local = Probe::new(1, 1);
    let bytes = Probe::new(2, 2).to_cdr().unwrap();
    w.write(Payload::from_message(local.clone())).unwrap();
    w.write(Payload::Serialized(bytes.clone().into())).unwrap();
    let got = take_n(&*r, 2);
    assert_eq!(probe(&got[0]), local);
    assert_eq!(probe(&got[1]), Probe::new(2, 2));
    assert_eq!(got[1].payload.cdr().unwrap(), &bytes[..]);
    assert_eq!(got[0].payload.cdr().unwrap(), &local.to_cdr().unwrap()[..]);
}

/// The waker fires when a sample arrives, and at once when set with samples
/// already queued.
pub fn the_reader_waker_fires_when_a_sample_arrives(f: &dyn TransportFactory) {
    let rig = Rig::new(f, "waker");
    let r = rig.reader(keep_all());
    let w = rig.writer(keep_all());
    wait_matched(&*w, 1);
    let waiter = Arc::new(Waiter::default());
    r.set_notify(Some(waiter.clone()));
    while r.take_event().is_some() {}
    for i in 0..3 {
        let seen = waiter.calls();
        write(&*w, 0, i);
        assert!(
            waiter.wait_past(seen, PATIENCE) > seen,
            "no wake-up for sample {i}"
        );
        assert!(eventually(|| r.take().is_some()));
        while r.take().is_some() {}
    }
    r.set_notify(None);
    write(&*w, 0, 3);
    assert!(eventually(|| r.queued() == 1));
    let late = Arc::new(Waiter::default());
    r.set_notify(Some(late.clone()));
    assert!(
        late.calls() >= 1,
        "set_notify with a sample pending must wake at once"
    );
}

/// A reader in busy-poll mode gets every sample by taking in a loop, in
/// order, and back in event mode its waker fires again.
pub fn a_busy_polling_reader_gets_every_sample_by_taking(f: &dyn TransportFactory) {
    let rig = Rig::new(f, "busy");
    let r = rig.reader(keep_all());
    let w = rig.writer(keep_all());
    wait_matched(&*w, 1);
    let waiter = Arc::new(Waiter::default());
    r.set_notify(Some(waiter.clone()));
    r.set_busy_poll(true);
    for i in 0..20 {
        write(&*w, 0, i);
    }
    // Busy polling: take in a loop, never wait on the waker.
    let mut got = Vec::new();
    assert!(eventually(|| {
        got.extend(std::iter::from_fn(|| r.take()));
        got.len() >= 20
    }));
    assert_eq!(got.len(), 20);
    assert_in_order_without_loss(&got);
    r.set_busy_poll(false);
    // A take that finds nothing re-arms the waker (as everywhere).
    assert!(r.take().is_none());
    while r.take_event().is_some() {}
    let seen = waiter.calls();
    write(&*w, 0, 20);
    assert!(
        waiter.wait_past(seen, PATIENCE) > seen,
        "no wake-up after busy polling ended"
    );
    let last = r.take().expect("the sample that woke the reader");
    assert_eq!(probe(&last).index, 20);
}

/// A waker that writes (to another topic and to its own) and takes does not
/// deadlock, and nothing is lost or reordered.
pub fn a_waker_may_write_and_take_without_deadlock(f: &dyn TransportFactory) {
    let rig = Rig::new(f, "reentrant");
    let echo_spec = EndpointSpec::new::<Probe>(unique_topic("echo"), keep_all());
    let echo_w: Arc<dyn crate::Writer> = Arc::from(
        rig.a
            .create_writer(&echo_spec, &WriterOptions::default())
            .unwrap(),
    );
    let echo_r = rig
        .b
        .create_reader(&echo_spec, &ReaderOptions::default())
        .unwrap();
    let r: Arc<dyn Reader> = Arc::from(rig.reader(keep_all()));
    let w: Arc<dyn crate::Writer> = Arc::from(rig.writer(keep_all()));
    wait_matched(&*w, 1);
    wait_matched(&*echo_w, 1);
    let taken = Arc::new(AtomicU64::new(0));
    let again = Arc::new(AtomicBool::new(true));
    let notify = {
        let (r, w, echo_w) = (Arc::downgrade(&r), Arc::downgrade(&w), echo_w.clone());
        let (taken, again) = (taken.clone(), again.clone());
        move || {
            let (Some(r), Some(w)) = (r.upgrade(), w.upgrade()) else {
                return;
            };
            while let Some(s) = r.take() {
                let _ = probe(&s);
                let n = taken.fetch_add(1, Ordering::SeqCst);
                write(&*echo_w, 9, n);
                if again.swap(false, Ordering::SeqCst) {
                    write(&*w, 1, 0);
                }
            }
        }
    };
    r.set_notify(Some(Arc::new(notify)));
    (0..50).for_each(|i| write(&*w, 0, i));
    assert!(eventually(|| taken.load(Ordering::SeqCst) == 51));
    let echoes = take_n(&*echo_r, 51);
    assert_in_order_without_loss(&echoes);
    r.set_notify(None);
}
