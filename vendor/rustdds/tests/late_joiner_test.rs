//! What a reliable reader that matches a writer late receives of the samples
//! written before (DDS v1.4 Section 2.2.3.4 DURABILITY, 2.2.3.18 HISTORY):
//! a VOLATILE reader none of them, a TRANSIENT_LOCAL reader of a
//! `KeepLast { depth }` writer the last `depth` of them. The writer and the
//! readers are in two participants of one domain.
use std::time::{Duration, Instant};

use rustdds::{
  no_key::{DataReader, DataWriter},
  policy, DataWriterStatus, DomainParticipant, QosPolicies, QosPolicyBuilder, RTPSEntity,
  StatusEvented, TopicKind,
};
use serde::{Deserialize, Serialize};

mod common;

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Ping {
  seq: u32,
}

const WAIT: Duration = Duration::from_secs(15);

fn qos(durability: policy::Durability, history: policy::History) -> QosPolicies {
  QosPolicyBuilder::new()
    .reliability(policy::Reliability::Reliable {
      max_blocking_time: rustdds::Duration::from_secs(1),
    })
    .durability(durability)
    .history(history)
    .build()
}

fn writer(dp: &DomainParticipant, topic: &str, qos: &QosPolicies) -> DataWriter<Ping> {
  let topic = dp
    .create_topic(topic.to_string(), "Ping".to_string(), qos, TopicKind::NoKey)
    .unwrap();
  dp.create_publisher(qos)
    .unwrap()
    .create_datawriter_no_key_cdr::<Ping>(&topic, None)
    .unwrap()
}

fn reader(dp: &DomainParticipant, topic: &str, qos: &QosPolicies) -> DataReader<Ping> {
  let topic = dp
    .create_topic(topic.to_string(), "Ping".to_string(), qos, TopicKind::NoKey)
    .unwrap();
  dp.create_subscriber(qos)
    .unwrap()
    .create_datareader_no_key_cdr::<Ping>(&topic, None)
    .unwrap()
}

/// Waits until `writer` matched `reader`.
fn wait_matched(writer: &DataWriter<Ping>, reader: &DataReader<Ping>) {
  let deadline = Instant::now() + WAIT;
  loop {
    while let Some(status) = writer.try_recv_status() {
      if let DataWriterStatus::PublicationMatched { reader: r, .. } = status {
        if r == reader.guid() {
          return;
        }
      }
    }
    assert!(
      Instant::now() < deadline,
      "the writer never matched the reader"
    );
    std::thread::sleep(Duration::from_millis(20));
  }
}

/// Takes `n` samples (values of `seq`), failing after `WAIT`.
fn take(reader: &mut DataReader<Ping>, n: usize) -> Vec<u32> {
  let mut got = Vec::new();
  let deadline = Instant::now() + WAIT;
  while got.len() < n {
    match reader.take_next_sample().unwrap() {
      Some(s) => got.push(s.value().seq),
      None => {
        assert!(
          Instant::now() < deadline,
          "took only {got:?} of {n} samples"
        );
        std::thread::sleep(Duration::from_millis(10));
      }
    }
  }
  got
}

/// Nothing more arrives within a while.
fn assert_nothing_more(reader: &mut DataReader<Ping>) {
  std::thread::sleep(Duration::from_millis(500));
  let extra = reader.take_next_sample().unwrap().map(|s| s.value().seq);
  assert_eq!(extra, None, "an extra sample arrived");
}

#[test]
fn late_joiners_get_what_their_durability_asks_for() {
  let domain = common::test_domain_id(54);
  let a = DomainParticipant::new(domain).unwrap();
  let b = DomainParticipant::new(domain).unwrap();
  let latched = qos(
    policy::Durability::TransientLocal,
    policy::History::KeepLast { depth: 5 },
  );
  let w = writer(&a, "late_joiner_test_latched", &latched);
  for seq in 1..=8 {
    w.write(Ping { seq }, None).unwrap();
  }

  // TRANSIENT_LOCAL, KeepLast(5): the last 5 of the 8, then what follows.
  let mut durable = reader(&b, "late_joiner_test_latched", &latched);
  assert_eq!(take(&mut durable, 5), [4, 5, 6, 7, 8]);

  // VOLATILE: none of the 9 written so far, then what follows.
  let volatile_qos = qos(
    policy::Durability::Volatile,
    policy::History::KeepLast { depth: 10 },
  );
  w.write(Ping { seq: 9 }, None).unwrap();
  let mut volatile = reader(&b, "late_joiner_test_latched", &volatile_qos);
  wait_matched(&w, &volatile);
  w.write(Ping { seq: 10 }, None).unwrap();
  assert_eq!(take(&mut volatile, 1), [10]);
  assert_nothing_more(&mut volatile);
  assert_eq!(take(&mut durable, 2), [9, 10]);
}

#[test]
fn a_volatile_reader_added_mid_stream_gets_the_later_samples() {
  let domain = common::test_domain_id(54);
  let a = DomainParticipant::new(domain).unwrap();
  let b = DomainParticipant::new(domain).unwrap();
  let keep_all = qos(policy::Durability::Volatile, policy::History::KeepAll);
  let mut first = reader(&b, "late_joiner_test_mid_stream", &keep_all);
  let w = writer(&a, "late_joiner_test_mid_stream", &keep_all);
  wait_matched(&w, &first);
  for seq in 1..=10 {
    w.write(Ping { seq }, None).unwrap();
  }
  let mut late = reader(&b, "late_joiner_test_mid_stream", &keep_all);
  wait_matched(&w, &late);
  for seq in 11..=20 {
    w.write(Ping { seq }, None).unwrap();
  }
  assert_eq!(take(&mut late, 10), (11..=20).collect::<Vec<_>>());
  assert_nothing_more(&mut late);
  assert_eq!(take(&mut first, 20), (1..=20).collect::<Vec<_>>());
}
