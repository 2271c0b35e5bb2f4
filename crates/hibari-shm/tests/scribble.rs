//! A writer that keeps changing a chunk after sending it (a buggy publisher
//! writing into its loan after `send`, or a hostile one) cannot make a
//! reader misbehave: decoding gives garbage values or a `CdrDecodeError`,
//! never undefined behaviour, a panic or a read outside the chunk. Strings of
//! views over shared memory are copies, checked after the copy; arrays are
//! read through `PrimSeq`, never as a slice over the writer's memory.

mod common;

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{domain, eventually};
use hibari_cdr::{HasView, Message, MessageView};
use hibari_msgs::sensor_msgs::msg::{Image, JointState};
use hibari_shm::ShmTransport;
use hibari_transport::{
    Endpoint, EndpointSpec, QosProfile, Reader, ReaderOptions, Sample, WriterOptions,
};

const PATIENCE: Duration = Duration::from_secs(10);

/// The writer's own address of a chunk it sent: it may still write there.
#[derive(Clone, Copy)]
struct Scribbler {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the pointer is only used for atomic byte stores (below).
unsafe impl Send for Scribbler {}

impl Scribbler {
    /// Sets byte `i` (`i < len`).
    fn set(self, i: usize, value: u8) {
        assert!(i < self.len);
        // SAFETY: `i` is inside the chunk, which stays mapped writable in
        // this process while the writer lives (the test keeps it alive);
        // the store is atomic, and no Rust reference to these bytes exists
        // in this process: the reader reads its own read-only mapping of
        // them by atomic loads only.
        unsafe { (*self.ptr.add(i).cast::<AtomicU8>()).store(value, Ordering::Relaxed) }
    }
}

/// Sends `payload` from a fresh writer and takes it from a fresh reader of
/// the same domain. Returns the sample (the writer's chunk, lent) and what
/// the writer needs to keep scribbling on it.
fn lend(payload: &[u8], topic: &str, type_name: &str) -> (impl Sized, Sample, Scribbler) {
    let d = domain();
    let (a, b) = (
        ShmTransport::open(d).unwrap(),
        ShmTransport::open(d).unwrap(),
    );
    let spec = EndpointSpec {
        topic: topic.into(),
        type_name: type_name.into(),
        type_hash: String::new(),
        qos: QosProfile::default().keep_last(4),
    };
    let w = a.writer(&spec, &WriterOptions::default()).unwrap();
    let r = b.reader(&spec, &ReaderOptions::default()).unwrap();
    assert!(eventually(PATIENCE, || w.matched_count() == 1));
    let mut loan = w.loan(payload.len()).unwrap();
    loan.copy_from_slice(payload);
    let scribbler = Scribbler {
        ptr: loan.as_mut_ptr(),
        len: payload.len(),
    };
    loan.send().unwrap();
    let mut got = None;
    assert!(eventually(PATIENCE, || {
        got = r.take();
        got.is_some()
    }));
    let sample = got.unwrap();
    assert!(
        sample.payload.clone().into_cdr_bytes().unwrap().is_shared(),
        "a shared-memory sample's bytes are marked shared"
    );
    ((r, w, b, a), sample, scribbler)
}

fn image() -> Image {
    let mut m = Image {
        width: 64,
        height: 16,
        encoding: "mono8".into(),
        step: 64,
        data: (0..1024).map(|i| i as u8).collect(),
        ..Default::default()
    };
    m.header.frame_id = "camera_optical_frame".into();
    m
}

#[test]
fn a_view_keeps_the_strings_it_copied_when_the_writer_changes_them_later() {
    let m = image();
    let bytes = m.to_cdr().unwrap();
    let (_keep, sample, scribbler) = lend(&bytes, "/scribble/once", Image::TYPE_NAME);
    let cdr = sample.payload.cdr().unwrap();
    let view = Image::view(cdr).unwrap();
    assert_eq!(view.header.frame_id, "camera_optical_frame");
    assert!(
        view.data.as_slice().is_none(),
        "no slice over shared memory"
    );
    // The writer overwrites the frame id (in place, valid UTF-8) and a pixel.
    let at = bytes
        .windows(6)
        .position(|w| w == b"camera")
        .expect("the frame id");
    for (i, b) in b"CAMERA".iter().enumerate() {
        scribbler.set(at + i, *b);
    }
    let pixel = bytes.len() - 1024;
    scribbler.set(pixel, 0xEE);
    // The string was copied out before it was checked: it keeps its value.
    // (Borrowed as `&str` from the chunk, it would now read "CAMERA_…".)
    assert_eq!(view.header.frame_id, "camera_optical_frame");
    // The pixels are read from the chunk as they are now: defined, current.
    assert_eq!(view.data.get(0), Some(0xEE));
    assert_eq!(
        Image::view(cdr).unwrap().header.frame_id,
        "CAMERA_optical_frame"
    );
}

/// Decodes `cdr` every way a subscriber can, touching every value; returns
/// whether decoding succeeded.
fn decode_all<M: HasView>(cdr: hibari_cdr::Bytes<'_>, sink: &mut u64) -> bool {
    let owned = M::from_cdr(cdr);
    let view = M::view(cdr);
    if let Ok(v) = &view {
        let again = v.to_owned_message();
        *sink = sink.wrapping_add(format!("{again:?}").len() as u64);
    }
    if let Ok(m) = &owned {
        *sink = sink.wrapping_add(format!("{m:?}").len() as u64);
    }
    owned.is_ok() && view.is_ok()
}

fn scribble_while_decoding<M: HasView>(message: &M, topic: &str) {
    let bytes = message.to_cdr().unwrap();
    let (_keep, sample, scribbler) = lend(&bytes, topic, M::TYPE_NAME);
    let stop = Arc::new(AtomicBool::new(false));
    let flipper = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut x = 0x9e37_79b9_7f4a_7c15u64;
            let mut flips = 0u64;
            while !stop.load(Ordering::Relaxed) && flips < 50_000_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Past the encapsulation header: mostly the first 64 bytes
                // (counts, lengths, strings), sometimes anywhere; half of the
                // time back to the truth, so that decoding gets deep.
                let i = 4 + if x & 3 == 0 {
                    (x >> 8) as usize % (scribbler.len - 4)
                } else {
                    (x >> 8) as usize % (scribbler.len.min(64) - 4)
                };
                let value = if x & 0x10 == 0 {
                    bytes[i]
                } else {
                    (x >> 40) as u8
                };
                scribbler.set(i, value);
                flips += 1;
            }
            flips
        })
    };
    let cdr = sample.payload.cdr().unwrap();
    let (mut ok, mut failed, mut sink) = (0u64, 0u64, 0u64);
    let until = Instant::now() + Duration::from_secs(2);
    for _ in 0..200_000 {
        if decode_all::<M>(cdr, &mut sink) {
            ok += 1;
        } else {
            failed += 1;
        }
        if Instant::now() > until {
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    let flips = flipper.join().expect("the writer thread");
    assert!(flips > 0 && ok + failed > 0);
    eprintln!("{topic}: {ok} decoded, {failed} refused, {flips} bytes flipped ({sink})");
}

#[test]
fn a_writer_scribbling_on_a_lent_image_gives_garbage_or_errors_never_a_crash() {
    scribble_while_decoding(&image(), "/scribble/image");
}

#[test]
fn a_writer_scribbling_on_lent_strings_and_arrays_gives_garbage_or_errors() {
    let mut m = JointState {
        name: ["shoulder", "elbow", "wrist_ü", "gripper"]
            .map(String::from)
            .to_vec(),
        position: vec![0.5; 4],
        velocity: vec![-1.0; 4],
        effort: vec![2.0; 4],
        ..Default::default()
    };
    m.header.frame_id = "base_link".into();
    scribble_while_decoding(&m, "/scribble/joints");
}
