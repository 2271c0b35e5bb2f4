//! The data path between two participants: samples are read-only views of
//! the writer's memory, a value is encoded once and only for a reader, and
//! readers are woken through the waker's own eventfd, or not at all when
//! busy-polling.

mod common;

use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::{domain, eventually, spec};
use hibari_cdr::{CdrDecodeError, CdrEncodeError, CdrReader, CdrSink, CdrWriter, Message};
use hibari_shm::ShmTransport;
use hibari_transport::{
    Endpoint, EndpointSpec, Notify, Payload, QosProfile, Reader, ReaderOptions, Writer,
    WriterOptions,
};

const PATIENCE: Duration = Duration::from_secs(10);

/// Counts its encoding passes (the size pass runs the same code).
#[derive(Clone, Debug, Default, PartialEq)]
struct Counted(Vec<u8>);

static ENCODED: AtomicUsize = AtomicUsize::new(0);

impl Message for Counted {
    const TYPE_NAME: &'static str = "hibari_test/msg/Counted";
    const TYPE_HASH: &'static str = "";
    const DEFINITION: &'static str = "uint8[] data\n";
    fn encode_fields<S: CdrSink>(&self, w: &mut CdrWriter<S>) -> Result<(), CdrEncodeError> {
        ENCODED.fetch_add(1, Ordering::SeqCst);
        w.write_prim_seq("data", &self.0, None)
    }
    fn decode_fields_into(&mut self, r: &mut CdrReader<'_>) -> Result<(), CdrDecodeError> {
        r.read_prim_vec_into(&mut self.0)
    }
}

fn pair() -> (ShmTransport, ShmTransport) {
    let d = domain();
    (
        ShmTransport::open(d).unwrap(),
        ShmTransport::open(d).unwrap(),
    )
}

/// The mapping of `/proc/self/maps` that holds `addr`: its permissions and
/// name.
fn mapping_of(addr: usize) -> Option<(String, String)> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines().find_map(|l| {
        let mut parts = l.split_whitespace();
        let (lo, hi) = parts.next()?.split_once('-')?;
        let (lo, hi) = (
            usize::from_str_radix(lo, 16).ok()?,
            usize::from_str_radix(hi, 16).ok()?,
        );
        let perms = parts.next()?.to_string();
        let name = parts.nth(3).unwrap_or("").to_string();
        (lo..hi).contains(&addr).then_some((perms, name))
    })
}

#[test]
fn a_taken_sample_is_a_read_only_view_of_the_writers_shared_memory() {
    let (a, b) = pair();
    let s = spec("/view", true);
    let w = a.writer(&s, &WriterOptions::default()).unwrap();
    let r = b.reader(&s, &ReaderOptions::default()).unwrap();
    assert!(eventually(PATIENCE, || w.matched_count() == 1));
    let mut loan = w.loan(1 << 20).unwrap();
    loan.fill(0x5a);
    let written = loan.as_ptr() as usize;
    loan.send().unwrap();
    let mut got = None;
    assert!(eventually(PATIENCE, || {
        got = r.take();
        got.is_some()
    }));
    let sample = got.unwrap();
    let bytes = sample.payload.cdr().unwrap();
    assert!(bytes.len() == 1 << 20 && bytes.to_vec().iter().all(|&b| b == 0x5a));
    let (perms, name) = mapping_of(bytes.as_ptr() as usize).expect("mapped");
    assert!(name.contains("memfd:hibari-chunks"), "{name}");
    assert_eq!(&perms[..3], "r--", "the reader's view is read-only");
    let (perms, _) = mapping_of(written).expect("mapped");
    assert_eq!(&perms[..2], "rw", "the writer's is not");
    assert_eq!(bytes.as_ptr() as usize % 8, 4, "the CDR body is 8-aligned");
}

#[test]
fn a_value_is_encoded_once_for_any_number_of_readers_and_never_without_one() {
    let (a, b) = pair();
    let s = EndpointSpec::new::<Counted>("/encoded", QosProfile::default());
    let w = a.writer(&s, &WriterOptions::default()).unwrap();
    ENCODED.store(0, Ordering::SeqCst);
    w.write(Payload::from_message(Counted(vec![1; 1000])))
        .unwrap();
    assert_eq!(ENCODED.load(Ordering::SeqCst), 0, "no reader: not encoded");
    let readers: Vec<_> = (0..3)
        .map(|_| b.reader(&s, &ReaderOptions::default()).unwrap())
        .collect();
    assert!(eventually(PATIENCE, || w.matched_count() == 3));
    w.write(Payload::from_message(Counted(vec![2; 1000])))
        .unwrap();
    assert_eq!(
        ENCODED.load(Ordering::SeqCst),
        2,
        "one size pass and one encoding straight into shared memory, for 3 readers"
    );
    for r in &readers {
        let mut got = None;
        assert!(eventually(PATIENCE, || {
            got = r.take();
            got.is_some()
        }));
        let s = got.unwrap();
        assert_eq!(s.info.sequence, 2);
        assert_eq!(
            s.payload.into_owned::<Counted>().unwrap(),
            Counted(vec![2; 1000])
        );
    }
}

/// A waker with its own eventfd: writers write it directly.
struct FdWaker {
    fd: OwnedFd,
    calls: AtomicUsize,
}

impl Notify for FdWaker {
    fn notify(&self) {
        self.calls.fetch_add(1, Ordering::SeqCst);
    }
    fn wake_fd(&self) -> Option<std::os::fd::BorrowedFd<'_>> {
        Some(self.fd.as_fd())
    }
}

fn readable(fd: &OwnedFd) -> bool {
    let mut buf = [0u8; 8];
    rustix::io::read(fd, &mut buf).is_ok()
}

#[test]
fn a_writer_wakes_the_wakers_own_eventfd_directly() {
    let (a, b) = pair();
    let s = spec("/wake_fd", true);
    let r = b.reader(&s, &ReaderOptions::default()).unwrap();
    let flags = rustix::event::EventfdFlags::CLOEXEC | rustix::event::EventfdFlags::NONBLOCK;
    let waker = Arc::new(FdWaker {
        fd: rustix::event::eventfd(0, flags).unwrap(),
        calls: AtomicUsize::new(0),
    });
    r.set_notify(Some(waker.clone()));
    let w = a.writer(&s, &WriterOptions::default()).unwrap();
    assert!(eventually(PATIENCE, || r.matched_count() == 1));
    while r.take_event().is_some() {}
    readable(&waker.fd);
    let calls = waker.calls.load(Ordering::SeqCst);
    for i in 0..5u8 {
        assert!(r.take().is_none());
        w.write(Payload::Serialized(vec![i; 64].into())).unwrap();
        assert!(
            eventually(PATIENCE, || readable(&waker.fd)),
            "sample {i} did not signal the waker's eventfd"
        );
        assert_eq!(r.take().unwrap().payload.cdr().unwrap().get(0), Some(i));
    }
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(
        waker.calls.load(Ordering::SeqCst),
        calls,
        "samples woke through the eventfd alone"
    );
}

#[test]
fn a_busy_polling_reader_is_never_signalled() {
    let (a, b) = pair();
    let s = spec("/busy", true);
    let r = b.reader(&s, &ReaderOptions::default()).unwrap();
    r.set_busy_poll(true);
    let calls = Arc::new(AtomicUsize::new(0));
    let c = calls.clone();
    r.set_notify(Some(Arc::new(move || {
        c.fetch_add(1, Ordering::SeqCst);
    })));
    let w = a.writer(&s, &WriterOptions::default()).unwrap();
    assert!(eventually(PATIENCE, || r.matched_count() == 1));
    // The first sample of a new ring may wake once; none after.
    w.write(Payload::Serialized(vec![0; 64].into())).unwrap();
    assert!(eventually(PATIENCE, || r.take().is_some()));
    // That wake (and the match's events) arrive through the control thread,
    // late under load: wait until nothing has come for 200 ms.
    let mut settled = calls.load(Ordering::SeqCst);
    assert!(eventually(PATIENCE, || {
        std::thread::sleep(Duration::from_millis(200));
        while r.take_event().is_some() {}
        let now = calls.load(Ordering::SeqCst);
        std::mem::replace(&mut settled, now) == now
    }));
    let before = calls.load(Ordering::SeqCst);
    let mut got = 0;
    for i in 0..50u8 {
        w.write(Payload::Serialized(vec![i; 64].into())).unwrap();
        assert!(eventually(PATIENCE, || r.take().is_some()));
        got += 1;
    }
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(got, 50);
    assert_eq!(
        calls.load(Ordering::SeqCst),
        before,
        "busy polling: no wake-up"
    );
}

/// Through the contract, a writer lends shared memory only when a reader in
/// another process will read it (so a combined writer's in-process readers
/// share a plain buffer instead); the concrete loan always lends.
#[test]
fn the_contract_loan_lends_shared_memory_only_for_a_remote_reader() {
    let (a, b) = pair();
    let s = EndpointSpec::new::<Counted>("/lend", QosProfile::default());
    let w = a.writer(&s, &WriterOptions::default()).unwrap();
    assert!(Writer::loan(&w, 64).is_none(), "lent with no reader");
    assert!(w.loan(64).is_ok(), "the concrete loan always lends");
    let r = b.reader(&s, &ReaderOptions::default()).unwrap();
    assert!(eventually(PATIENCE, || w.matched_count() == 1));
    let mut loan = Writer::loan(&w, 8).expect("a reader: lent").unwrap();
    loan.copy_from_slice(&[0, 1, 0, 0, 4, 0, 0, 0]);
    loan.send(8).unwrap();
    let mut got = None;
    assert!(eventually(PATIENCE, || {
        got = r.take();
        got.is_some()
    }));
    assert_eq!(
        got.unwrap().payload.cdr().unwrap(),
        &[0, 1, 0, 0, 4, 0, 0, 0]
    );
}
