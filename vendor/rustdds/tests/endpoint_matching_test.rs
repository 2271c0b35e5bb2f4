//! Which remote endpoints of its topic a local one matches: only those of the
//! same type name, and only those the participant's endpoint match filter
//! accepts (here: equal USER_DATA).
use std::time::{Duration, Instant};

use rustdds::{
  policy, DataWriterStatus, DomainParticipant, DomainParticipantBuilder, QosPolicyBuilder,
  RTPSEntity, StatusEvented, TopicKind, GUID,
};
use serde::{Deserialize, Serialize};

mod common;

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Ping {
  seq: u32,
}

const WAIT: Duration = Duration::from_secs(15);
const TOPIC: &str = "endpoint_matching_test_topic";

#[test]
fn only_endpoints_of_the_same_type_accepted_by_the_filter_match() {
  let domain = common::test_domain_id(54);
  let a = DomainParticipantBuilder::new(domain)
    .with_endpoint_match_filter(|local, remote| local.user_data == remote.user_data)
    .build()
    .unwrap();
  let b = DomainParticipant::new(domain).unwrap();
  let qos = QosPolicyBuilder::new()
    .reliability(policy::Reliability::Reliable {
      max_blocking_time: rustdds::Duration::from_secs(1),
    })
    .build();

  let reader = |type_name: &str, user_data: &[u8]| {
    let topic = b
      .create_topic(
        TOPIC.to_string(),
        type_name.to_string(),
        &qos,
        TopicKind::NoKey,
      )
      .unwrap();
    b.create_subscriber(&qos)
      .unwrap()
      .create_datareader_no_key_cdr::<Ping>(
        &topic,
        Some(qos.clone().with_user_data(user_data.to_vec())),
      )
      .unwrap()
  };
  let other_type = reader("Pong", b"typehash=1;");
  let other_hash = reader("Ping", b"typehash=2;");
  let same = reader("Ping", b"typehash=1;");

  let topic = a
    .create_topic(
      TOPIC.to_string(),
      "Ping".to_string(),
      &qos,
      TopicKind::NoKey,
    )
    .unwrap();
  let writer = a
    .create_publisher(&qos)
    .unwrap()
    .create_datawriter_no_key_cdr::<Ping>(
      &topic,
      Some(qos.clone().with_user_data(b"typehash=1;".to_vec())),
    )
    .unwrap();

  // The writer matches `same`; then give the others time to (wrongly) match.
  let mut matched: Vec<GUID> = Vec::new();
  let collect = |matched: &mut Vec<GUID>| {
    while let Some(status) = writer.try_recv_status() {
      if let DataWriterStatus::PublicationMatched { reader, .. } = status {
        matched.push(reader);
      }
    }
  };
  let deadline = Instant::now() + WAIT;
  while !matched.contains(&same.guid()) {
    assert!(
      Instant::now() < deadline,
      "the writer never matched its reader"
    );
    collect(&mut matched);
    std::thread::sleep(Duration::from_millis(20));
  }
  std::thread::sleep(Duration::from_secs(1));
  collect(&mut matched);
  assert!(
    !matched.contains(&other_type.guid()),
    "matched a reader of another type"
  );
  assert!(
    !matched.contains(&other_hash.guid()),
    "matched a reader the filter refuses"
  );
  assert_eq!(matched, [same.guid()]);
}
