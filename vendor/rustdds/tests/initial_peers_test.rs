//! Discovery without multicast: participants find each other only through
//! unicast announcements to initial peers (as ROS 2's
//! `ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST` / `ROS_STATIC_PEERS`), and not at
//! all without them (`ROS_AUTOMATIC_DISCOVERY_RANGE=OFF`).
use std::{
  net::{IpAddr, Ipv4Addr},
  time::{Duration, Instant},
};

use rustdds::{
  DomainParticipant, DomainParticipantBuilder, DomainParticipantStatusEvent, RTPSEntity,
  StatusEvented, GUID,
};

mod common;

/// The participants `dp` discovered within `wait`, stopping early once
/// `expected` is among them.
fn discovered(dp: &DomainParticipant, expected: Option<GUID>, wait: Duration) -> Vec<GUID> {
  let mut found = Vec::new();
  let deadline = Instant::now() + wait;
  while Instant::now() < deadline {
    while let Some(ev) = dp.status_listener().try_recv_status() {
      if let DomainParticipantStatusEvent::ParticipantDiscovered { dpd } = ev {
        found.push(dpd.guid);
      }
    }
    if expected.is_some_and(|g| found.contains(&g)) {
      break;
    }
    std::thread::sleep(Duration::from_millis(20));
  }
  found
}

fn without_multicast(domain: u16) -> DomainParticipantBuilder {
  DomainParticipantBuilder::new(domain)
    .multicast_discovery(false)
    .same_host_loopback(false)
}

#[test]
fn without_multicast_only_initial_peers_are_discovered() {
  let domain = common::test_domain_id(54);

  // E, without multicast and peers, neither hears D's multicast announcements
  // nor announces itself.
  let d = DomainParticipantBuilder::new(domain)
    .same_host_loopback(false)
    .build()
    .unwrap();
  let e = without_multicast(domain).build().unwrap();
  let found = discovered(&e, None, Duration::from_secs(3));
  assert!(!found.contains(&d.guid()), "heard a multicast announcement");
  assert!(!discovered(&d, None, Duration::ZERO).contains(&e.guid()));
  drop((d, e));

  // A announces itself to 127.0.0.1; B, with no peers, learns A from that and
  // answers: both find each other.
  let a = without_multicast(domain)
    .with_initial_peers([IpAddr::V4(Ipv4Addr::LOCALHOST)])
    .build()
    .unwrap();
  let b = without_multicast(domain).build().unwrap();
  let wait = Duration::from_secs(15);
  assert!(
    discovered(&b, Some(a.guid()), wait).contains(&a.guid()),
    "B never found A"
  );
  assert!(
    discovered(&a, Some(b.guid()), wait).contains(&b.guid()),
    "A never found B"
  );
}
