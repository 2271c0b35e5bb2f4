//! Hand-over without copies, and type adaptation with at most one conversion,
//! proven by counting: `Counted::clone` and `Samples`' conversions increment
//! global counters. The tests share those counters, so they run one at a time
//! (`serial()`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use hibari_cdr::{CdrDecodeError, CdrEncodeError, CdrReader, CdrSink, CdrWriter, Message};
use hibari_inproc::{InprocReader, InprocTransport, InprocWriter};
use hibari_msgs::std_msgs::msg::Float64MultiArray;
use hibari_transport::{
    EndpointSpec, Payload, QosProfile, Reader, ReaderOptions, TypeAdapter, Writer, WriterOptions,
};

static CLONES: AtomicUsize = AtomicUsize::new(0);
static TO_ROS: AtomicUsize = AtomicUsize::new(0);
static FROM_ROS: AtomicUsize = AtomicUsize::new(0);

fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    let guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    for c in [&CLONES, &TO_ROS, &FROM_ROS] {
        c.store(0, Ordering::SeqCst);
    }
    guard
}

fn count(c: &AtomicUsize) -> usize {
    c.load(Ordering::SeqCst)
}

/// A message whose clones are counted.
#[derive(Debug, Default, PartialEq)]
struct Counted {
    data: Vec<u8>,
}

impl Clone for Counted {
    fn clone(&self) -> Self {
        CLONES.fetch_add(1, Ordering::SeqCst);
        Counted {
            data: self.data.clone(),
        }
    }
}

impl Message for Counted {
    const TYPE_NAME: &'static str = "hibari_test/msg/Counted";
    const TYPE_HASH: &'static str = "";
    const DEFINITION: &'static str = "uint8[] data\n";
    fn encode_fields<S: CdrSink>(&self, w: &mut CdrWriter<S>) -> Result<(), CdrEncodeError> {
        w.write_prim_seq("data", &self.data, None)
    }
    fn decode_fields_into(&mut self, r: &mut CdrReader<'_>) -> Result<(), CdrDecodeError> {
        r.read_prim_vec_into(&mut self.data)
    }
}

/// An application type standing for `std_msgs/msg/Float64MultiArray`.
#[derive(Debug, PartialEq)]
struct Samples(Vec<f64>);

impl Clone for Samples {
    fn clone(&self) -> Self {
        CLONES.fetch_add(1, Ordering::SeqCst);
        Samples(self.0.clone())
    }
}

struct SamplesAdapter;

impl TypeAdapter for SamplesAdapter {
    type Custom = Samples;
    type Ros = Float64MultiArray;
    fn to_ros(s: &Samples) -> Float64MultiArray {
        TO_ROS.fetch_add(1, Ordering::SeqCst);
        Float64MultiArray {
            data: s.0.clone(),
            ..Default::default()
        }
    }
    fn into_ros(s: Samples) -> Float64MultiArray {
        TO_ROS.fetch_add(1, Ordering::SeqCst);
        Float64MultiArray {
            data: s.0,
            ..Default::default()
        }
    }
    fn from_ros(m: &Float64MultiArray) -> Samples {
        FROM_ROS.fetch_add(1, Ordering::SeqCst);
        Samples(m.data.clone())
    }
}

fn pair<W: TypeAdapter, R: TypeAdapter>(
    t: &InprocTransport,
    topic: &str,
    readers: usize,
) -> (InprocWriter, Vec<InprocReader>) {
    let qos = QosProfile::default();
    let rs = (0..readers)
        .map(|_| {
            t.reader(
                &EndpointSpec::new::<R>(topic, qos),
                &ReaderOptions::default(),
            )
            .unwrap()
        })
        .collect();
    let w = t
        .writer(
            &EndpointSpec::new::<W>(topic, qos),
            &WriterOptions::default(),
        )
        .unwrap();
    (w, rs)
}

fn counted() -> Counted {
    Counted {
        data: vec![7; 4096],
    }
}

#[test]
fn one_subscriber_takes_ownership_without_a_clone() {
    let _s = serial();
    let t = InprocTransport::isolated(0);
    let (w, r) = pair::<Counted, Counted>(&t, "/one", 1);
    let msg = counted();
    let buffer = msg.data.as_ptr();
    w.write(Payload::from_message(msg)).unwrap();
    let got = r[0]
        .take()
        .unwrap()
        .payload
        .into_owned::<Counted>()
        .unwrap();
    assert_eq!(got.data.as_ptr(), buffer, "moved, not copied");
    assert_eq!(count(&CLONES), 0);
}

#[test]
fn two_borrowing_subscribers_share_the_sample_without_a_clone() {
    let _s = serial();
    let t = InprocTransport::isolated(0);
    let (w, r) = pair::<Counted, Counted>(&t, "/two", 2);
    let msg = counted();
    let buffer = msg.data.as_ptr();
    w.write(Payload::from_message(msg)).unwrap();
    let a = r[0]
        .take()
        .unwrap()
        .payload
        .into_shared::<Counted>()
        .unwrap();
    let b = r[1]
        .take()
        .unwrap()
        .payload
        .into_shared::<Counted>()
        .unwrap();
    assert_eq!(a.data.as_ptr(), buffer);
    assert_eq!(b.data.as_ptr(), buffer);
    assert!(!a.is_owned() && !b.is_owned());
    assert_eq!(count(&CLONES), 0);
}

#[test]
fn an_owning_subscriber_beside_a_borrowing_one_costs_at_most_one_clone() {
    let _s = serial();
    let t = InprocTransport::isolated(0);
    let (w, r) = pair::<Counted, Counted>(&t, "/mixed", 2);
    // The borrower still holds the sample: the owner gets the one copy.
    w.write(Payload::from_message(counted())).unwrap();
    let borrowed = r[0]
        .take()
        .unwrap()
        .payload
        .into_shared::<Counted>()
        .unwrap();
    let owned = r[1]
        .take()
        .unwrap()
        .payload
        .into_owned::<Counted>()
        .unwrap();
    assert_eq!(*borrowed, owned);
    assert_eq!(count(&CLONES), 1);
    // The borrower is done first: the owner gets the original.
    drop(borrowed);
    let msg = counted();
    let buffer = msg.data.as_ptr();
    w.write(Payload::from_message(msg)).unwrap();
    drop(
        r[0].take()
            .unwrap()
            .payload
            .into_shared::<Counted>()
            .unwrap(),
    );
    let owned = r[1]
        .take()
        .unwrap()
        .payload
        .into_owned::<Counted>()
        .unwrap();
    assert_eq!(owned.data.as_ptr(), buffer);
    assert_eq!(count(&CLONES), 1);
}

#[test]
fn two_owning_subscribers_cost_exactly_one_clone() {
    let _s = serial();
    let t = InprocTransport::isolated(0);
    let (w, r) = pair::<Counted, Counted>(&t, "/owners", 2);
    w.write(Payload::from_message(counted())).unwrap();
    let a = r[0]
        .take()
        .unwrap()
        .payload
        .into_owned::<Counted>()
        .unwrap();
    let b = r[1]
        .take()
        .unwrap()
        .payload
        .into_owned::<Counted>()
        .unwrap();
    assert_eq!(a, b);
    assert_eq!(count(&CLONES), 1);
}

#[test]
fn a_custom_subscriber_gets_the_custom_value_as_is_without_conversion() {
    let _s = serial();
    let t = InprocTransport::isolated(0);
    let (w, r) = pair::<SamplesAdapter, SamplesAdapter>(&t, "/custom", 2);
    let value = Samples(vec![1.0; 1000]);
    let buffer = value.0.as_ptr();
    w.write(Payload::from_value::<SamplesAdapter>(value))
        .unwrap();
    let shared = r[0]
        .take()
        .unwrap()
        .payload
        .into_shared::<SamplesAdapter>()
        .unwrap();
    assert_eq!(shared.0.as_ptr(), buffer);
    drop(shared);
    let owned = r[1]
        .take()
        .unwrap()
        .payload
        .into_owned::<SamplesAdapter>()
        .unwrap();
    assert_eq!(owned.0.as_ptr(), buffer);
    assert_eq!(
        (count(&TO_ROS), count(&FROM_ROS), count(&CLONES)),
        (0, 0, 0)
    );
}

#[test]
fn ros_subscribers_share_one_conversion_made_on_first_use() {
    let _s = serial();
    let t = InprocTransport::isolated(0);
    let (w, r) = pair::<SamplesAdapter, Float64MultiArray>(&t, "/ros", 2);
    w.write(Payload::from_value::<SamplesAdapter>(Samples(vec![
        2.5;
        100
    ])))
    .unwrap();
    assert_eq!(count(&TO_ROS), 0, "no conversion before a reader needs it");
    let a = r[0].take().unwrap().payload;
    let b = r[1].take().unwrap().payload;
    let ra = a.clone().into_shared::<Float64MultiArray>().unwrap();
    let rb = b.into_shared::<Float64MultiArray>().unwrap();
    assert!(
        std::ptr::eq(&*ra, &*rb),
        "both read the one converted message"
    );
    assert_eq!(ra.data, vec![2.5; 100]);
    // Leaving the process: encoded from the same conversion, once.
    let expected = Float64MultiArray {
        data: vec![2.5; 100],
        ..Default::default()
    }
    .to_cdr()
    .unwrap();
    assert_eq!(a.cdr().unwrap(), &expected[..]);
    assert!(
        std::ptr::eq(a.cdr().unwrap().as_ptr(), a.cdr().unwrap().as_ptr()),
        "encoded once"
    );
    assert_eq!(count(&TO_ROS), 1);
    assert_eq!(count(&CLONES), 0);
}

#[test]
fn a_sole_ros_subscriber_of_a_custom_publisher_gets_one_conversion_by_move() {
    let _s = serial();
    let t = InprocTransport::isolated(0);
    let (w, r) = pair::<SamplesAdapter, Float64MultiArray>(&t, "/ros_owned", 1);
    let value = Samples(vec![3.0; 100]);
    let buffer = value.0.as_ptr();
    w.write(Payload::from_value::<SamplesAdapter>(value))
        .unwrap();
    let m = r[0]
        .take()
        .unwrap()
        .payload
        .into_owned::<Float64MultiArray>()
        .unwrap();
    assert_eq!(m.data.as_ptr(), buffer, "into_ros reused the buffer");
    assert_eq!((count(&TO_ROS), count(&CLONES)), (1, 0));
}

#[test]
fn a_ros_publisher_reaches_a_custom_subscriber_through_one_conversion() {
    let _s = serial();
    let t = InprocTransport::isolated(0);
    let (w, r) = pair::<Float64MultiArray, SamplesAdapter>(&t, "/from_ros", 1);
    let m = Float64MultiArray {
        data: vec![4.0; 10],
        ..Default::default()
    };
    w.write(Payload::from_message(m.clone())).unwrap();
    w.write(Payload::Serialized(m.to_cdr().unwrap().into()))
        .unwrap();
    let local = r[0]
        .take()
        .unwrap()
        .payload
        .into_shared::<SamplesAdapter>()
        .unwrap();
    assert!(local.is_owned());
    assert_eq!(local.0, m.data);
    let bytes = r[0]
        .take()
        .unwrap()
        .payload
        .into_owned::<SamplesAdapter>()
        .unwrap();
    assert_eq!(bytes.0, m.data);
    assert_eq!((count(&FROM_ROS), count(&TO_ROS)), (2, 0));
}

#[test]
fn a_transient_local_writer_keeps_a_reference_so_a_sole_owner_gets_a_copy() {
    let _s = serial();
    let t = InprocTransport::isolated(0);
    let spec = EndpointSpec::new::<Counted>("/latched", QosProfile::latched(1));
    let r = t.reader(&spec, &ReaderOptions::default()).unwrap();
    let w = t.writer(&spec, &WriterOptions::default()).unwrap();
    w.write(Payload::from_message(counted())).unwrap();
    let _owned = r.take().unwrap().payload.into_owned::<Counted>().unwrap();
    assert_eq!(count(&CLONES), 1);
    let late = t.reader(&spec, &ReaderOptions::default()).unwrap();
    let kept = late
        .take()
        .unwrap()
        .payload
        .into_shared::<Counted>()
        .unwrap();
    assert_eq!(kept.data.len(), 4096);
    assert_eq!(count(&CLONES), 1);
}
