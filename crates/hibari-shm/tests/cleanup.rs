//! Nothing stays behind: after a peer is killed and the participant is
//! dropped, this process maps no hibari memory and holds no descriptor of
//! it, and neither /dev/shm nor /tmp ever saw a file. (One test in its own
//! binary, so that no other test's mappings are counted.)

mod common;

use std::time::Duration;

use common::{check, domain, eventually, leftovers, own_mappings, spec, Peer};
use hibari_shm::ShmTransport;
use hibari_transport::{Endpoint, Reader, ReaderOptions, WriterOptions};

fn own_memfd_descriptors() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| {
                    std::fs::read_link(e.path())
                        .is_ok_and(|t| t.to_string_lossy().contains("memfd:hibari"))
                })
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn a_killed_peer_and_a_dropped_participant_leave_no_mapping_descriptor_or_file() {
    assert_eq!(own_mappings(), 0);
    let d = domain();
    let t = ShmTransport::open(d).unwrap();
    let r = t
        .reader(&spec("/clean", false), &ReaderOptions::default())
        .unwrap();
    let w = t
        .writer(&spec("/clean_back", false), &WriterOptions::default())
        .unwrap();
    let mut publ = Peer::spawn(&[
        "pub",
        &d.to_string(),
        "/clean",
        "100-7000000",
        "0",
        "500",
        "best",
    ]);
    let _sub = Peer::spawn(&["sub", &d.to_string(), "/clean_back", "0", "best"]);
    let mut held = Vec::new();
    assert!(eventually(Duration::from_secs(20), || {
        held.extend(std::iter::from_fn(|| r.take()));
        held.len() >= 20 && w.matched_count() == 1
    }));
    for i in 0..50u64 {
        let mut loan = w.loan(1 + (i as usize * 99_991) % 3_000_000).unwrap();
        loan.fill(i as u8);
        loan.send().unwrap();
    }
    assert!(own_mappings() > 0, "the test maps shared memory");
    publ.kill();
    assert!(eventually(Duration::from_secs(20), || {
        held.extend(std::iter::from_fn(|| r.take()));
        r.matched_count() == 0
    }));
    assert!(held
        .iter()
        .all(|s| check(s.payload.cdr().unwrap()).is_some()));
    drop(held);
    drop((r, w, t));
    assert!(
        eventually(Duration::from_secs(10), || own_mappings() == 0
            && own_memfd_descriptors() == 0),
        "left: {} mappings, {} descriptors",
        own_mappings(),
        own_memfd_descriptors()
    );
    assert_eq!(leftovers(), Vec::<String>::new());
}
