//! A hostile or broken peer on the network: datagrams that are not RTPS,
//! truncated RTPS, RTPS whose submessages lie about their lengths, fragments
//! that claim a 4 GiB sample — sent to every port of a domain while a
//! reliable stream flows between two hibari participants. Each bad datagram
//! is dropped and counted (`malformed_message_count`); the stream loses
//! nothing, keeps its order, and no allocation follows a length field.

use std::net::{Ipv4Addr, SocketAddrV4, UdpSocket};
use std::time::{Duration, Instant};

use hibari_dds::{DdsOptions, DdsTransport};
use hibari_testkit::TestDomain;
use hibari_transport::conformance::{unique_topic, Probe};
use hibari_transport::{
    EndpointSpec, Payload, QosProfile, ReaderOptions, Transport, WriterOptions,
};

const SAMPLES: u64 = 300;

/// xorshift64: reproducible junk without a dependency.
struct Junk(u64);

impl Junk {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// An RTPS 2.3 header from an unknown participant.
fn rtps_header(junk: &mut Junk) -> Vec<u8> {
    let mut h = b"RTPS\x02\x03\x01\x0f".to_vec();
    h.extend(junk.bytes(12));
    h
}

/// The bad datagrams, each with a name for the failure message.
fn hostile_datagrams(junk: &mut Junk) -> Vec<(&'static str, Vec<u8>)> {
    let mut out = vec![
        ("empty", Vec::new()),
        ("seven random bytes", junk.bytes(7)),
        ("a lone RTPS magic", b"RTPS".to_vec()),
        ("not RTPS at all", junk.bytes(1400)),
    ];
    // A header and a DATA submessage whose length runs past the datagram.
    let mut long = rtps_header(junk);
    long.extend([0x15, 0x01, 0xff, 0xff]);
    long.extend(junk.bytes(40));
    out.push(("a submessage longer than its datagram", long));
    // A header cut in the middle of a submessage header.
    let mut cut = rtps_header(junk);
    cut.extend([0x15, 0x01]);
    out.push(("a truncated submessage header", cut));
    // DATA_FRAG claiming a 4 GiB sample in 1-byte fragments, one fragment
    // carried: a reassembly buffer sized by it would be 4 GiB.
    let mut frag = rtps_header(junk);
    let mut body = vec![0, 0, 28, 0]; // extraFlags, octetsToInlineQos
    body.extend([0, 0, 0, 0, 0, 0, 1, 2]); // readerId (unknown), writerId
    body.extend([0, 0, 0, 0, 1, 0, 0, 0]); // writerSN 1
    body.extend(1u32.to_le_bytes()); // fragmentStartingNum
    body.extend(1u16.to_le_bytes()); // fragmentsInSubmessage
    body.extend(1u16.to_le_bytes()); // fragmentSize
    body.extend(u32::MAX.to_le_bytes()); // sampleSize
    body.extend([0, 1, 0, 0, 7]);
    frag.extend([0x16, 0x01]);
    frag.extend((body.len() as u16).to_le_bytes());
    frag.extend(body);
    out.push(("a DATA_FRAG claiming a 4 GiB sample", frag));
    // Headers followed by random submessages.
    for _ in 0..8 {
        let mut m = rtps_header(junk);
        let n = (junk.next() % 1200) as usize;
        m.extend(junk.bytes(n));
        out.push(("random submessages", m));
    }
    out
}

fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS in /proc/self/status")
}

#[test]
fn malformed_datagrams_are_counted_and_dropped_and_the_stream_loses_nothing() {
    let domain = TestDomain::reserve();
    let options = DdsOptions::default().same_host_peers(true).loopback(true);
    let a = DdsTransport::open(domain.id(), options.clone()).expect("open participant a");
    let b = DdsTransport::open(domain.id(), options).expect("open participant b");
    let spec = EndpointSpec::new::<Probe>(
        unique_topic("hostile"),
        QosProfile::default().reliable().keep_all(),
    );
    let writer = a.create_writer(&spec, &WriterOptions::default()).unwrap();
    let reader = b.create_reader(&spec, &ReaderOptions::default()).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while writer.matched_count() == 0 || reader.matched_count() == 0 {
        assert!(Instant::now() < deadline, "a and b never matched");
        std::thread::sleep(Duration::from_millis(10));
    }

    // Every port a participant of this domain may listen on (ROS 2's port
    // formula: discovery multicast, then two unicast ports per participant).
    let base = 7400 + 250 * domain.id() as u16;
    let ports: Vec<u16> = std::iter::once(base)
        .chain((0..4).flat_map(|p| [base + 10 + 2 * p, base + 11 + 2 * p]))
        .collect();
    let hostile = UdpSocket::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
    let mut junk = Junk(0x9e37_79b9_7f4a_7c15);
    let rss_before = rss_kib();

    let mut sent_bad = 0u64;
    let mut received = Vec::new();
    for i in 0..SAMPLES {
        writer
            .write(Payload::from_message(Probe::new(1, i)))
            .unwrap_or_else(|e| panic!("write {i}: {e}"));
        if i % 10 == 0 {
            for (_, d) in hostile_datagrams(&mut junk) {
                for &port in &ports {
                    let to = SocketAddrV4::new(Ipv4Addr::LOCALHOST, port);
                    if hostile.send_to(&d, to).is_ok() {
                        sent_bad += 1;
                    }
                }
            }
        }
        while let Some(s) = reader.take() {
            received.push(s.payload.into_owned::<Probe>().unwrap().index);
        }
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    while (received.len() as u64) < SAMPLES && Instant::now() < deadline {
        match reader.take() {
            Some(s) => received.push(s.payload.into_owned::<Probe>().unwrap().index),
            None => std::thread::sleep(Duration::from_millis(2)),
        }
    }

    assert_eq!(
        received,
        (0..SAMPLES).collect::<Vec<_>>(),
        "the reliable stream next to the hostile datagrams"
    );
    let counted = a.malformed_message_count() + b.malformed_message_count();
    let grown_kib = rss_kib().saturating_sub(rss_before);
    eprintln!("{sent_bad} bad datagrams sent, {counted} counted malformed, RSS +{grown_kib} KiB");
    assert!(
        counted > 0,
        "{sent_bad} bad datagrams sent, none counted as malformed"
    );
    assert!(counted <= sent_bad, "{counted} counted of {sent_bad} sent");
    let grown_mib = grown_kib / 1024;
    assert!(
        grown_mib < 256,
        "memory grew {grown_mib} MiB while hostile datagrams arrived"
    );
    // Both still discover: a new reader on a matches b's new writer.
    let spec2 = EndpointSpec::new::<Probe>(unique_topic("hostile_after"), QosProfile::default());
    let w2 = b.create_writer(&spec2, &WriterOptions::default()).unwrap();
    let r2 = a.create_reader(&spec2, &ReaderOptions::default()).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while w2.matched_count() == 0 || r2.matched_count() == 0 {
        assert!(
            Instant::now() < deadline,
            "discovery stopped after the hostile datagrams"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}
