//! What reaches whom: hibari participants of one host ignore each other
//! unless asked not to, and a participant's writers never reach its own
//! readers unless `loopback` is set.

use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixListener};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use hibari_transport::conformance::Probe;
use hibari_transport::{
    DomainId, Endpoint, EndpointSpec, Payload, QosProfile, ReaderOptions, Transport, WriterOptions,
};

use crate::{DdsOptions, DdsTransport};

static HELD: Mutex<Vec<UnixListener>> = Mutex::new(Vec::new());

/// A DDS domain in 1..=199 no other test on this host holds (the claims
/// hibari-testkit uses).
fn domain() -> DomainId {
    for id in 1..=199 {
        let claim = SocketAddr::from_abstract_name(hibari_testkit::claim_name(id))
            .and_then(|a| UnixListener::bind_addr(&a));
        if let Ok(c) = claim {
            HELD.lock().unwrap_or_else(|e| e.into_inner()).push(c);
            return id;
        }
    }
    panic!("every DDS test domain is held")
}

fn spec(topic: &str) -> EndpointSpec {
    EndpointSpec::new::<Probe>(hibari_testkit::unique_topic(topic), QosProfile::default())
}

fn wait_matched(e: &dyn Endpoint, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while e.matched_count() != n {
        assert!(
            Instant::now() < deadline,
            "never matched {n}: {:?}",
            e.status()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn hibari_participants_of_one_host_ignore_each_other_unless_same_host_peers() {
    let d = domain();
    let open = |same_host| {
        DdsTransport::open(d, DdsOptions::default().same_host_peers(same_host)).unwrap()
    };
    let (a, b) = (open(false), open(false));
    let (c, e) = (open(true), open(true));
    let ignored = spec("ignored");
    let wa = a
        .create_writer(&ignored, &WriterOptions::default())
        .unwrap();
    let rb = b
        .create_reader(&ignored, &ReaderOptions::default())
        .unwrap();
    // The control: two participants that accept same-host peers do match.
    let seen = spec("control");
    let wc = c.create_writer(&seen, &WriterOptions::default()).unwrap();
    let re = e.create_reader(&seen, &ReaderOptions::default()).unwrap();
    wait_matched(&*wc, 1);
    wait_matched(&*re, 1);
    wc.write(Payload::from_message(Probe::new(0, 0))).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while re.take().is_none() {
        assert!(
            Instant::now() < deadline,
            "the control sample never arrived"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    wa.write(Payload::from_message(Probe::new(0, 0))).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(wa.matched_count(), 0, "{:?}", wa.status());
    assert_eq!(rb.matched_count(), 0);
    assert!(rb.take().is_none());
}

#[test]
fn own_writers_never_reach_own_readers_unless_loopback() {
    let d = domain();
    let plain = DdsTransport::open(d, DdsOptions::default()).unwrap();
    let looped = DdsTransport::open(d, DdsOptions::default().loopback(true)).unwrap();
    let (t1, t2) = (spec("own"), spec("looped"));
    let w = plain.create_writer(&t1, &WriterOptions::default()).unwrap();
    let r = plain.create_reader(&t1, &ReaderOptions::default()).unwrap();
    let lw = looped
        .create_writer(&t2, &WriterOptions::default())
        .unwrap();
    let lr = looped
        .create_reader(&t2, &ReaderOptions::default())
        .unwrap();
    wait_matched(&*lw, 1);
    wait_matched(&*lr, 1);
    w.write(Payload::from_message(Probe::new(0, 0))).unwrap();
    lw.write(Payload::from_message(Probe::new(0, 0))).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while lr.take().is_none() {
        assert!(Instant::now() < deadline, "the looped sample never arrived");
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(w.matched_count(), 0, "{:?}", w.status());
    assert!(r.take().is_none());
}

#[test]
fn a_domain_beyond_232_is_refused_with_advice() {
    let err = DdsTransport::open(233, DdsOptions::default()).unwrap_err();
    assert!(matches!(err, crate::DdsOpenError::Domain { domain: 233 }));
    assert!(err.to_string().contains("ROS_DOMAIN_ID"), "{err}");
}

/// A hibari client and a hibari server on two DDS participants: the request
/// reaches the server with the client's reply reader as `publisher_id`; the
/// server's reply (in hibari's envelope) reaches this client with the
/// envelope addressed to the client's request writer id, and a second
/// client of the same service does not get it.
#[test]
fn a_reply_reaches_only_the_client_that_asked_with_its_own_id_in_the_envelope() {
    use hibari_transport::NodeInfo;

    let d = domain();
    let options = DdsOptions::default().same_host_peers(true);
    let (client_side, server_side) = (
        DdsTransport::open(d, options.clone()).unwrap(),
        DdsTransport::open(d, options).unwrap(),
    );
    let service = hibari_testkit::unique_topic("svc").replace('/', "_");
    let qos = QosProfile::services_default();
    let request = EndpointSpec::new::<Probe>(format!("rq/{service}Request"), qos);
    let reply = EndpointSpec::new::<Probe>(format!("rr/{service}Reply"), qos);
    let node = |n: &str| NodeInfo::new("/", n);
    let client = |n: &str| {
        let w = client_side
            .create_writer(&request, &WriterOptions::default().node(node(n)))
            .unwrap();
        let r = client_side
            .create_reader(&reply, &ReaderOptions::default().node(node(n)))
            .unwrap();
        (w, r)
    };
    let (asks, answers) = client("asker");
    let (_quiet, overhears) = client("bystander");
    let requests = server_side
        .create_reader(&request, &ReaderOptions::default().node(node("server")))
        .unwrap();
    let replies = server_side
        .create_writer(&reply, &WriterOptions::default().node(node("server")))
        .unwrap();
    wait_matched(&*asks, 1);
    wait_matched(&*replies, 2);
    wait_matched(&*answers, 1);
    wait_matched(&*overhears, 1);
    asks.write(Payload::from_message(Probe::new(0, 41)))
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let req = loop {
        if let Some(s) = requests.take() {
            break s;
        }
        assert!(Instant::now() < deadline, "the request never arrived");
        std::thread::sleep(Duration::from_millis(5));
    };
    assert_eq!(req.info.sequence, 1);
    assert_ne!(
        req.info.publisher_id,
        asks.id(),
        "the reply reader, not the writer"
    );
    // The server answers as hibari's runtime does: envelope, then the response.
    let body = hibari_cdr::Message::to_cdr(&Probe::new(1, 42)).unwrap();
    let mut cdr = body[..4].to_vec();
    cdr.extend_from_slice(&req.info.publisher_id.0);
    cdr.extend_from_slice(&req.info.sequence.to_le_bytes());
    cdr.extend_from_slice(&body[4..]);
    replies.write(Payload::Serialized(cdr.into())).unwrap();
    let got = loop {
        if let Some(s) = answers.take() {
            break s;
        }
        assert!(Instant::now() < deadline, "the reply never arrived");
        std::thread::sleep(Duration::from_millis(5));
    };
    let bytes = got.payload.cdr().unwrap().to_vec();
    assert_eq!(bytes[4..20], asks.id().0, "addressed to the client's id");
    assert_eq!(bytes[20..28], 1u64.to_le_bytes());
    let mut response = bytes[..4].to_vec();
    response.extend_from_slice(&bytes[28..]);
    assert_eq!(
        <Probe as hibari_cdr::Message>::from_cdr(&response[..]).unwrap(),
        Probe::new(1, 42)
    );
    std::thread::sleep(Duration::from_millis(100));
    assert!(overhears.take().is_none(), "another client got the reply");
}

/// Encodings of [`Counted`] so far.
static ENCODED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A message that counts how often it is encoded.
#[derive(Clone, Debug, Default, PartialEq)]
struct Counted(u32);

impl hibari_cdr::Message for Counted {
    const TYPE_NAME: &'static str = "hibari_test/msg/Counted";
    const TYPE_HASH: &'static str = "";
    const DEFINITION: &'static str = "uint32 data\n";
    fn encode_fields<S: hibari_cdr::CdrSink>(
        &self,
        w: &mut hibari_cdr::CdrWriter<S>,
    ) -> Result<(), hibari_cdr::CdrEncodeError> {
        ENCODED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        w.write(self.0)
    }
    fn decode_fields_into(
        &mut self,
        r: &mut hibari_cdr::CdrReader<'_>,
    ) -> Result<(), hibari_cdr::CdrDecodeError> {
        self.0 = r.read()?;
        Ok(())
    }
}

fn take_one(r: &dyn hibari_transport::Reader, what: &str) -> hibari_transport::Sample {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(s) = r.take() {
            return s;
        }
        assert!(Instant::now() < deadline, "{what} never arrived");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A volatile writer with no DDS reader does not encode what it is given; a
/// transient-local one does (and keeps it for a late joiner), and so does the
/// volatile one once a reader matched.
#[test]
fn a_volatile_writer_with_no_reader_does_not_encode() {
    use std::sync::atomic::Ordering::SeqCst;
    let encoded = || ENCODED.load(SeqCst);
    let t = DdsTransport::open(domain(), DdsOptions::default().loopback(true)).unwrap();
    let topic =
        |tag: &str, qos| EndpointSpec::new::<Counted>(hibari_testkit::unique_topic(tag), qos);
    let volatile = topic("unheard", QosProfile::default());
    let w = t
        .create_writer(&volatile, &WriterOptions::default())
        .unwrap();
    for i in 0..3 {
        w.write(Payload::from_message(Counted(i))).unwrap();
    }
    assert_eq!(encoded(), 0, "a write nobody can receive was encoded");

    let latched = topic("latched", QosProfile::latched(5));
    let lw = t
        .create_writer(&latched, &WriterOptions::default())
        .unwrap();
    lw.write(Payload::from_message(Counted(7))).unwrap();
    assert!(
        encoded() > 0,
        "a transient-local write must be kept, encoded"
    );
    let lr = t
        .create_reader(&latched, &ReaderOptions::default())
        .unwrap();
    let s = take_one(&*lr, "the late joiner's sample");
    assert_eq!(s.payload.into_owned::<Counted>().unwrap(), Counted(7));

    let r = t
        .create_reader(&volatile, &ReaderOptions::default())
        .unwrap();
    wait_matched(&*w, 1);
    let before = encoded();
    w.write(Payload::from_message(Counted(9))).unwrap();
    assert!(encoded() > before, "a matched write must be encoded");
    let s = take_one(&*r, "the matched sample");
    assert_eq!(s.payload.into_owned::<Counted>().unwrap(), Counted(9));
}
