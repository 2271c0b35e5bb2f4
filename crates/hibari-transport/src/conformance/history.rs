//! History, reliability, durability and lifespan.

use std::time::Duration;

use super::{eventually, probe, take_n, wait_matched, write, Probe, Rig, TransportFactory};
use crate::{
    Payload, QosProfile, ReaderOptions, ResourceLimits, WhenFull, WriteError, WriterOptions,
};

fn limits(max_samples: usize) -> ResourceLimits {
    ResourceLimits {
        max_samples,
        ..ResourceLimits::default()
    }
}

/// Once a reliable reader has taken every sample, the writer's
/// `wait_for_all_acked` says so within the wait (DDS: the reader's
/// acknowledgments arrived; in-process and shared memory: at once).
pub fn every_sample_a_reliable_reader_took_is_acknowledged(f: &dyn TransportFactory) {
    let rig = Rig::new(f, "all_acked");
    let r = rig.reader(QosProfile::default().keep_all());
    let w = rig.writer(QosProfile::default().keep_all());
    wait_matched(&*w, 1);
    wait_matched(&*r, 1);
    (0..10).for_each(|i| write(&*w, 0, i));
    assert_eq!(take_n(&*r, 10).len(), 10);
    assert!(w.wait_for_all_acked(super::PATIENCE), "not acknowledged");
}

/// A best-effort keep-last(3) reader that falls behind keeps the newest 3 and
/// reports the 7 it lost in the first one's `lost_before`.
pub fn keep_last_overflow_drops_the_oldest_and_counts_the_loss(f: &dyn TransportFactory) {
    let rig = Rig::new(f, "keep_last");
    let r = rig.reader(QosProfile::default().best_effort().keep_last(3));
    let w = rig.writer(QosProfile::default());
    wait_matched(&*w, 1);
    wait_matched(&*r, 1);
    (0..10).for_each(|i| write(&*w, 0, i));
    assert!(
        eventually(|| r.status().lost_total == 7 && r.queued() == 3),
        "status {:?}",
        r.status()
    );
    let got = take_n(&*r, 3);
    let seqs: Vec<_> = got.iter().map(|s| s.info.sequence).collect();
    assert_eq!(seqs, [8, 9, 10]);
    let lost: Vec<_> = got.iter().map(|s| s.info.lost_before).collect();
    assert_eq!(lost, [7, 0, 0]);
    assert_eq!(probe(&got[0]).index, 7);
    write(&*w, 0, 10);
    assert_eq!(take_n(&*r, 1)[0].info.lost_before, 0);
}

/// A best-effort keep-all reader keeps everything up to its sample limit,
/// then drops the oldest and counts it.
pub fn keep_all_keeps_every_sample_up_to_its_limit(f: &dyn TransportFactory) {
    let rig = Rig::new(f, "keep_all");
    let qos = QosProfile::default().best_effort().keep_all();
    let r = rig.reader_with(qos, ReaderOptions::default().limits(limits(20)));
    let w = rig.writer(QosProfile::default());
    wait_matched(&*w, 1);
    wait_matched(&*r, 1);
    (0..15).for_each(|i| write(&*w, 0, i));
    assert!(
        eventually(|| r.queued() == 15),
        "queued {}, status {:?}",
        r.queued(),
        r.status()
    );
    let got = take_n(&*r, 15);
    assert!(got.iter().all(|s| s.info.lost_before == 0));
    (15..40).for_each(|i| write(&*w, 0, i));
    assert!(eventually(|| r.queued() == 20 && r.status().lost_total == 5));
    let got = take_n(&*r, 20);
    assert_eq!(got[0].info.sequence, 21);
    assert_eq!(got[0].info.lost_before, 5);
}

/// 10 000 writes to a best-effort reader that never takes, from a writer that
/// would block for an hour on a reliable one, all return at once.
pub fn best_effort_readers_never_block_the_writer(f: &dyn TransportFactory) {
    let rig = Rig::new(f, "never_block");
    let r = rig.reader(QosProfile::sensor_data().keep_last(1));
    let hour = WhenFull::Block {
        timeout: Duration::from_secs(3600),
    };
    let w = rig.writer_with(
        QosProfile::default(),
        WriterOptions::default().when_full(hour),
    );
    wait_matched(&*w, 1);
    wait_matched(&*r, 1);
    (0..10_000).for_each(|i| write(&*w, 0, i));
    assert!(
        eventually(|| r.status().lost_total >= 9_999 - 1),
        "status {:?}, queued {}",
        r.status(),
        r.queued()
    );
    assert!(r.queued() <= 1);
}

/// A reliable keep-last(2) reader that does not take makes the third write of
/// a `WhenFull::Fail` writer fail with its payload back and nothing
/// delivered; after a take, retrying that payload succeeds with no gap.
pub fn a_full_reliable_reader_makes_the_writer_fail_when_set_to_fail(f: &dyn TransportFactory) {
    let rig = Rig::new(f, "fail");
    let r = rig.reader(QosProfile::default().keep_last(2));
    let w = rig.writer_with(
        QosProfile::default(),
        WriterOptions::default().when_full(WhenFull::Fail),
    );
    wait_matched(&*w, 1);
    write(&*w, 0, 0);
    write(&*w, 0, 1);
    let back = match w.write(Payload::from_message(Probe::new(0, 2))) {
        Err(WriteError::Full { payload }) => payload,
        other => panic!("expected WriteError::Full, got {other:?}"),
    };
    assert_eq!(back.clone().into_owned::<Probe>().unwrap().index, 2);
    assert_eq!(r.queued(), 2);
    assert_eq!(r.take().unwrap().info.sequence, 1);
    w.write(back).expect("room after a take");
    let got = take_n(&*r, 2);
    assert_eq!(
        got[1].info.sequence, 3,
        "a failed write consumes no sequence number"
    );
    assert_eq!(probe(&got[1]).index, 2);
    assert!(got.iter().all(|s| s.info.lost_before == 0));
    assert_eq!(r.status().lost_total, 0);
}

/// A blocked writer completes once the full reliable reader takes.
pub fn a_full_reliable_reader_blocks_the_writer_until_it_takes(f: &dyn TransportFactory) {
    let rig = Rig::new(f, "block");
    let r = rig.reader(QosProfile::default().keep_last(1));
    let patient = WhenFull::Block {
        timeout: super::PATIENCE,
    };
    let w = rig.writer_with(
        QosProfile::default(),
        WriterOptions::default().when_full(patient),
    );
    wait_matched(&*w, 1);
    write(&*w, 0, 0);
    assert!(eventually(|| r.queued() == 1));
    std::thread::scope(|s| {
        let blocked = s.spawn(|| w.write(Payload::from_message(Probe::new(0, 1))));
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(r.take().expect("the first sample").info.sequence, 1);
        blocked
            .join()
            .unwrap()
            .expect("the write completes after the take");
    });
    let got = take_n(&*r, 1);
    assert_eq!((got[0].info.sequence, got[0].info.lost_before), (2, 0));
}

/// A writer blocked on a reader that never takes gives up after its timeout,
/// with the payload back and nothing delivered.
pub fn a_full_reliable_reader_times_the_blocked_writer_out(f: &dyn TransportFactory) {
    let rig = Rig::new(f, "timeout");
    let r = rig.reader(QosProfile::default().keep_last(1));
    let other = rig.reader(QosProfile::default().keep_all());
    let short = WhenFull::Block {
        timeout: Duration::from_millis(20),
    };
    let w = rig.writer_with(
        QosProfile::default(),
        WriterOptions::default().when_full(short),
    );
    wait_matched(&*w, 2);
    write(&*w, 0, 0);
    match w.write(Payload::from_message(Probe::new(0, 1))) {
        Err(e @ WriteError::Timeout { .. }) => {
            assert_eq!(
                e.into_payload()
                    .unwrap()
                    .into_owned::<Probe>()
                    .unwrap()
                    .index,
                1
            );
        }
        other => panic!("expected WriteError::Timeout, got {other:?}"),
    }
    assert_eq!(take_n(&*other, 1)[0].info.sequence, 1);
    assert!(other.take().is_none(), "a failed write reaches no reader");
    assert_eq!(r.queued(), 1);
}

/// A reliable keep-all reader holds up to its sample limit; beyond it a
/// failing writer fails.
pub fn a_full_reliable_keep_all_reader_is_bounded_by_its_limit(f: &dyn TransportFactory) {
    let rig = Rig::new(f, "keep_all_bound");
    let r = rig.reader_with(
        QosProfile::default().keep_all(),
        ReaderOptions::default().limits(limits(5)),
    );
    let w = rig.writer_with(
        QosProfile::default(),
        WriterOptions::default().when_full(WhenFull::Fail),
    );
    wait_matched(&*w, 1);
    (0..5).for_each(|i| write(&*w, 0, i));
    assert!(matches!(
        w.write(Payload::from_message(Probe::new(0, 5))),
        Err(WriteError::Full { .. })
    ));
    let got = take_n(&*r, 5);
    assert_eq!(got[4].info.sequence, 5);
}

/// A transient-local reader that joins after 8 writes to a latched(5) writer
/// gets samples 4..=8, oldest first, without loss; a shallower one the last 2.
pub fn a_transient_local_late_joiner_gets_the_last_n_samples(f: &dyn TransportFactory) {
    let rig = Rig::new(f, "transient");
    let w = rig.writer(QosProfile::latched(5));
    (0..8).for_each(|i| write(&*w, 0, i));
    let r = rig.reader(QosProfile::latched(10));
    let got = take_n(&*r, 5);
    let seqs: Vec<_> = got.iter().map(|s| s.info.sequence).collect();
    assert_eq!(seqs, [4, 5, 6, 7, 8]);
    assert!(got.iter().all(|s| s.info.lost_before == 0));
    assert_eq!(probe(&got[0]).index, 3);
    let shallow = rig.reader(QosProfile::latched(2));
    let got = take_n(&*shallow, 2);
    assert_eq!((got[0].info.sequence, got[1].info.sequence), (7, 8));
    write(&*w, 0, 8);
    assert_eq!(take_n(&*r, 1)[0].info.sequence, 9);
}

/// A volatile reader that joins a transient-local writer late gets only what
/// is written after it matched.
pub fn a_volatile_late_joiner_gets_no_earlier_samples(f: &dyn TransportFactory) {
    let rig = Rig::new(f, "volatile");
    let w = rig.writer(QosProfile::latched(5));
    (0..8).for_each(|i| write(&*w, 0, i));
    let r = rig.reader(QosProfile::default());
    wait_matched(&*w, 1);
    write(&*w, 0, 8);
    let got = take_n(&*r, 1);
    assert_eq!(got[0].info.sequence, 9);
    assert!(r.take().is_none());
}

/// A sample whose lifespan has passed is dropped (and counted), not taken;
/// one with a long lifespan is taken.
pub fn expired_samples_are_never_taken(f: &dyn TransportFactory) {
    let rig = Rig::new(f, "lifespan");
    let r = rig.reader(QosProfile::default().keep_all());
    let short = rig.writer(QosProfile::default().lifespan(Duration::from_millis(1)));
    let long = rig.writer(QosProfile::default().lifespan(Duration::from_secs(3600)));
    wait_matched(&*r, 2);
    wait_matched(&*short, 1);
    wait_matched(&*long, 1);
    write(&*short, 0, 0);
    std::thread::sleep(Duration::from_millis(20));
    assert!(
        eventually(|| {
            let got = r.take();
            assert!(got.is_none(), "an expired sample was taken: {got:?}");
            r.status().expired_total == 1
        }),
        "status {:?}",
        r.status()
    );
    write(&*long, 1, 0);
    let got = take_n(&*r, 1);
    assert_eq!(probe(&got[0]).tag, 1);
}
