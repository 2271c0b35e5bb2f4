//! A DDS reader: RustDDS's DataReader drained by the event thread into a
//! bounded queue of hibari samples.
//!
//! The queue keeps at most the keep-last depth (or, with keep-all, the
//! resource limit's sample count); when full it drops the oldest sample and
//! adds it to the next sample of the same writer's `lost_before`. Gaps in a
//! writer's RTPS sequence numbers (best-effort loss, or samples the writer
//! no longer had for a reliable reader) count as lost too. A sample whose
//! writer's lifespan has passed is dropped at `take` and counted as expired.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hibari_transport::{
    now_ns, Endpoint, EndpointEvent, EndpointId, EndpointSpec, EndpointStatus, History, Notify,
    Payload, Reader, Sample, SampleInfo,
};
use rustdds::no_key::DataSample;
use rustdds::GUID;

use super::state::EndpointCore;
use crate::participant::{lock, Shared};
use crate::service;
use crate::wire::raw::RawCdr;
use crate::wire::time::ns_from_timestamp;

/// One queued sample, with the lifespan of its writer.
struct Queued {
    sample: Sample,
    writer: GUID,
    expires_ns: Option<i64>,
}

#[derive(Default)]
struct Queue {
    samples: VecDeque<Queued>,
    /// Per writer: the last sequence number received.
    last_seq: HashMap<GUID, i64>,
    /// Per writer: losses to add to its next queued sample.
    pending_lost: HashMap<GUID, u64>,
    lost_total: u64,
    expired_total: u64,
}

impl Queue {
    /// Queues `s` (sequence number `seq` of its writer), dropping the oldest
    /// sample when `capacity` is reached. A gap in the writer's sequence
    /// numbers and a dropped sample count as lost, in the `lost_before` of
    /// the next sample of the same writer.
    fn push(&mut self, mut s: Queued, seq: i64, capacity: usize) {
        let writer = s.writer;
        let gap = match self.last_seq.insert(writer, seq) {
            Some(last) if seq > last + 1 => (seq - last - 1) as u64,
            _ => 0,
        };
        self.lost_total += gap;
        s.sample.info.lost_before = gap + self.pending_lost.remove(&writer).unwrap_or(0);
        if self.samples.len() >= capacity {
            if let Some(old) = self.samples.pop_front() {
                self.lost_total += 1;
                let carry = old.sample.info.lost_before + 1;
                if let Some(next) = self.samples.iter_mut().find(|q| q.writer == old.writer) {
                    next.sample.info.lost_before += carry;
                } else if old.writer == writer {
                    s.sample.info.lost_before += carry;
                } else {
                    *self.pending_lost.entry(old.writer).or_insert(0) += carry;
                }
            }
        }
        self.samples.push_back(s);
    }
}

/// The state the event thread fills and the [`DdsReader`] takes from.
pub(crate) struct ReaderCore {
    pub core: Arc<EndpointCore>,
    capacity: usize,
    queue: Mutex<Queue>,
    /// How received samples are rewritten for hibari (services).
    pub role: service::ReaderRole,
}

impl ReaderCore {
    pub fn new(core: Arc<EndpointCore>, capacity: usize, role: service::ReaderRole) -> Self {
        ReaderCore {
            core,
            capacity: capacity.max(1),
            queue: Mutex::new(Queue::default()),
            role,
        }
    }

    /// Queues samples taken from RustDDS and wakes the reader.
    pub fn deliver(&self, shared: &Shared, samples: Vec<DataSample<RawCdr>>) {
        let refused: Vec<GUID> = self
            .core
            .lock()
            .incompatible
            .iter()
            .map(|(g, _, _)| *g)
            .collect();
        let reception = now_ns();
        let mut added = false;
        for ds in samples {
            let info = ds.sample_info();
            let writer = info.writer_guid();
            if refused.contains(&writer) {
                continue;
            }
            let seq: i64 = info.sample_identity().sequence_number.into();
            let source = info.source_timestamp().map_or(reception, ns_from_timestamp);
            let related = info.related_sample_identity();
            let Some((bytes, publisher_id)) =
                self.role
                    .incoming(ds.into_value(), shared.remote_id(writer), writer, related)
            else {
                continue;
            };
            let lifespan = lock(&shared.remotes)
                .get(&writer)
                .and_then(|r| r.qos.lifespan)
                .or_else(|| {
                    lock(&shared.locals)
                        .get(&writer)
                        .and_then(|l| l.core.spec.qos.lifespan)
                });
            let expires_ns = lifespan.map(|l| source.saturating_add(dur_ns(l)));
            let queued = Queued {
                sample: Sample {
                    payload: Payload::Serialized(bytes),
                    info: SampleInfo {
                        sequence: seq.max(0) as u64,
                        source_timestamp_ns: source,
                        reception_timestamp_ns: reception,
                        publisher_id,
                        lost_before: 0,
                    },
                },
                writer,
                expires_ns,
            };
            lock(&self.queue).push(queued, seq, self.capacity);
            added = true;
        }
        if added {
            self.core.wake();
        }
    }

    fn take(&self) -> Option<Sample> {
        let now = now_ns();
        let mut q = lock(&self.queue);
        while let Some(s) = q.samples.pop_front() {
            if s.expires_ns.is_some_and(|e| e < now) {
                q.expired_total += 1;
                continue;
            }
            return Some(s.sample);
        }
        None
    }
}

fn dur_ns(d: Duration) -> i64 {
    i64::try_from(d.as_nanos()).unwrap_or(i64::MAX)
}

/// The queue depth a reader with `spec` keeps.
pub(crate) fn capacity(spec: &EndpointSpec, max_samples: usize) -> usize {
    match spec.qos.history {
        History::KeepLast(n) => n,
        History::KeepAll => max_samples,
    }
}

/// A hibari reader over DDS.
pub struct DdsReader {
    pub(crate) shared: Arc<Shared>,
    pub(crate) token: usize,
    pub(crate) core: Arc<ReaderCore>,
}

impl Drop for DdsReader {
    fn drop(&mut self) {
        let slot = lock(&self.shared.readers).remove(&self.token);
        lock(&self.shared.locals).remove(&self.core.core.guid);
        if let Some(mut slot) = slot {
            let _ = self.shared.registry.deregister(&mut slot.dds);
        }
        self.shared.graph.changed();
    }
}

impl Endpoint for DdsReader {
    fn id(&self) -> EndpointId {
        self.core.core.id
    }
    fn spec(&self) -> &EndpointSpec {
        &self.core.core.spec
    }
    fn matched_count(&self) -> usize {
        self.core.core.matched_count()
    }
    fn status(&self) -> EndpointStatus {
        let mut s = self.core.core.status();
        let q = lock(&self.core.queue);
        s.lost_total = q.lost_total;
        s.expired_total = q.expired_total;
        s.queued = q.samples.len();
        s
    }
    fn take_event(&self) -> Option<EndpointEvent> {
        self.core.core.take_event()
    }
    fn set_notify(&self, notify: Option<Arc<dyn Notify>>) {
        let has = notify.is_some();
        let events = self.core.core.set_notify(notify);
        if has && (events || !lock(&self.core.queue).samples.is_empty()) {
            self.core.core.wake();
        }
    }
}

impl Reader for DdsReader {
    fn take(&self) -> Option<Sample> {
        self.core.take()
    }
    fn queued(&self) -> usize {
        lock(&self.core.queue).samples.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn queued(writer: u8, seq: i64) -> Queued {
        Queued {
            sample: Sample {
                payload: Payload::Serialized(Vec::new().into()),
                info: SampleInfo {
                    sequence: seq as u64,
                    source_timestamp_ns: 0,
                    reception_timestamp_ns: 0,
                    publisher_id: EndpointId([writer; 16]),
                    lost_before: 0,
                },
            },
            writer: GUID::from_bytes([writer; 16]),
            expires_ns: None,
        }
    }

    fn lost(q: &Queue) -> Vec<(u64, u64)> {
        q.samples
            .iter()
            .map(|s| (s.sample.info.sequence, s.sample.info.lost_before))
            .collect()
    }

    #[test]
    fn overflow_and_gaps_are_lost_before_the_next_sample_of_the_same_writer() {
        let mut q = Queue::default();
        for seq in 1..=10 {
            q.push(queued(1, seq), seq, 3);
        }
        assert_eq!(lost(&q), [(8, 7), (9, 0), (10, 0)]);
        q.push(queued(1, 13), 13, 5);
        assert_eq!(lost(&q).last(), Some(&(13, 2)));
        assert_eq!(q.lost_total, 9);
    }

    #[test]
    fn a_dropped_sample_of_another_writer_waits_for_that_writers_next_sample() {
        let mut q = Queue::default();
        q.push(queued(1, 1), 1, 1);
        q.push(queued(2, 1), 1, 1);
        assert_eq!(q.pending_lost.get(&GUID::from_bytes([1; 16])), Some(&1));
        q.push(queued(1, 2), 2, 2);
        assert_eq!(lost(&q), [(1, 0), (2, 1)]);
    }
}
