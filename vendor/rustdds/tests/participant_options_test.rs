//! Participant options that shape discovery: USER_DATA (participant and
//! endpoint), the participant filter, and ignoring local endpoints. Three
//! participants on one domain: A (the filter rejects "role=ignored", ignores
//! its own endpoints), B ("role=ignored") and C.
use std::time::{Duration, Instant};

use rustdds::{
  policy, rpc::SampleIdentity, DataWriterStatus, DomainParticipantBuilder,
  DomainParticipantStatusEvent, QosPolicyBuilder, RTPSEntity, SequenceNumber, StatusEvented,
  TopicKind, WriteOptionsBuilder, GUID,
};
use serde::{Deserialize, Serialize};

mod common;

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Ping {
  seq: u32,
}

const WAIT: Duration = Duration::from_secs(15);

#[test]
fn filter_user_data_and_ignore_local() {
  let domain = common::test_domain_id(53);
  let a = DomainParticipantBuilder::new(domain)
    .with_user_data(b"role=a".to_vec())
    .with_participant_filter(|p| p.user_data != b"role=ignored")
    .ignore_local_endpoints(true)
    .build()
    .unwrap();
  let b = DomainParticipantBuilder::new(domain)
    .with_user_data(b"role=ignored".to_vec())
    .build()
    .unwrap();
  let c = DomainParticipantBuilder::new(domain)
    .with_user_data(b"role=c".to_vec())
    .build()
    .unwrap();

  let qos = QosPolicyBuilder::new()
    .reliability(policy::Reliability::Reliable {
      max_blocking_time: rustdds::Duration::from_secs(1),
    })
    .history(policy::History::KeepAll)
    .build();
  let writer_qos = qos.clone().with_user_data(b"typehash=1;".to_vec());
  let topic_name = "participant_options_test_topic".to_string();

  let reader_of = |dp: &rustdds::DomainParticipant| {
    let topic = dp
      .create_topic(
        topic_name.clone(),
        "Ping".to_string(),
        &qos,
        TopicKind::NoKey,
      )
      .unwrap();
    dp.create_subscriber(&qos)
      .unwrap()
      .create_datareader_no_key_cdr::<Ping>(&topic, None)
      .unwrap()
  };
  let mut reader_a = reader_of(&a);
  let mut reader_b = reader_of(&b);
  let mut reader_c = reader_of(&c);
  let topic_a = a
    .create_topic(
      topic_name.clone(),
      "Ping".to_string(),
      &qos,
      TopicKind::NoKey,
    )
    .unwrap();
  let writer = a
    .create_publisher(&qos)
    .unwrap()
    .create_datawriter_no_key_cdr::<Ping>(&topic_a, Some(writer_qos))
    .unwrap();

  // The writer matches C's reader; then give the others time to (wrongly) match.
  let mut matched: Vec<GUID> = Vec::new();
  let deadline = Instant::now() + WAIT;
  while !matched.contains(&reader_c.guid()) {
    assert!(
      Instant::now() < deadline,
      "A's writer never matched C's reader"
    );
    while let Some(status) = writer.try_recv_status() {
      if let DataWriterStatus::PublicationMatched { reader, .. } = status {
        matched.push(reader);
      }
    }
    std::thread::sleep(Duration::from_millis(50));
  }
  std::thread::sleep(Duration::from_secs(2));
  while let Some(status) = writer.try_recv_status() {
    if let DataWriterStatus::PublicationMatched { reader, .. } = status {
      matched.push(reader);
    }
  }
  assert!(!matched.contains(&reader_b.guid()), "matched ignored B");
  assert!(
    !matched.contains(&reader_a.guid()),
    "matched its own reader"
  );

  // A sample with a related sample identity reaches C only, with its identity.
  let related = SampleIdentity {
    writer_guid: reader_b.guid(),
    sequence_number: SequenceNumber::from(77),
  };
  let written = writer
    .write_with_options(
      Ping { seq: 1 },
      WriteOptionsBuilder::new()
        .related_sample_identity(related)
        .build(),
    )
    .unwrap();
  assert_eq!(written.writer_guid, writer.guid());
  let deadline = Instant::now() + WAIT;
  let sample = loop {
    if let Some(s) = reader_c.take_next_sample().unwrap() {
      break s;
    }
    assert!(Instant::now() < deadline, "C never received the sample");
    std::thread::sleep(Duration::from_millis(20));
  };
  assert_eq!(sample.value(), &Ping { seq: 1 });
  assert_eq!(
    sample.sample_info().related_sample_identity(),
    Some(related)
  );
  assert_eq!(sample.sample_info().sample_identity(), written);
  std::thread::sleep(Duration::from_millis(500));
  assert!(reader_a.take_next_sample().unwrap().is_none());
  assert!(reader_b.take_next_sample().unwrap().is_none());
  // B's reader may match A's writer (B does not filter), but gets no data.
  while let Some(_status) = reader_b.try_recv_status() {}

  // USER_DATA as C sees it: A's participant and A's writer.
  let writer_data = c
    .discovered_writers()
    .into_iter()
    .find(|w| w.writer_proxy.remote_writer_guid == writer.guid())
    .expect("C knows A's writer");
  assert_eq!(writer_data.user_data, b"typehash=1;");
  let mut a_user_data = None;
  while let Some(ev) = c.status_listener().try_recv_status() {
    if let DomainParticipantStatusEvent::ParticipantDiscovered { dpd } = ev {
      if dpd.guid == a.guid() {
        a_user_data = Some(dpd.user_data);
      }
    }
  }
  assert_eq!(a_user_data.as_deref(), Some(&b"role=a"[..]));
  // A never reported B.
  while let Some(ev) = a.status_listener().try_recv_status() {
    if let DomainParticipantStatusEvent::ParticipantDiscovered { dpd } = ev {
      assert_ne!(dpd.guid, b.guid(), "A reported ignored B");
    }
  }
}
