//! Engine measurement: sensor_msgs/Image-shaped raw CDR over the vendored RustDDS.
//!   engine-measure pub <domain> <topic> <data_len> <count> <hz>
//!   engine-measure sub <domain> <topic> <count> <warmup>
//! Image: header.stamp = send wall time, header.frame_id = sample index; the receiver prints
//! received/expected and p50/p99/max latency (ms) of samples with index >= warmup, and checks bytes.
//! Env: ENGINE_STOCK=1 -> unpatched-equivalent participant options (no new builder calls).
use std::{
  env,
  time::{Duration, Instant, SystemTime, UNIX_EPOCH},
};

use bytes::Bytes;
use rustdds::{
  no_key::{DefaultDecoder, DeserializerAdapter, SerializerAdapter},
  policy, DataWriterStatus, DomainParticipant, DomainParticipantBuilder, QosPolicyBuilder,
  RepresentationIdentifier, StatusEvented, TopicKind,
};

/// Raw CDR bytes: hibari's 4-byte encapsulation header is carried by RustDDS's SerializedPayload
/// header, so the adapter strips it on write and rebuilds it on read.
struct Raw;

#[derive(Debug)]
struct RawError(&'static str);
impl std::fmt::Display for RawError {
  fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    f.write_str(self.0)
  }
}
impl std::error::Error for RawError {}

impl SerializerAdapter<Bytes> for Raw {
  type Error = RawError;
  fn output_encoding() -> RepresentationIdentifier {
    RepresentationIdentifier::CDR_LE
  }
  fn to_bytes(value: &Bytes) -> Result<Bytes, RawError> {
    if value.len() < 4 {
      return Err(RawError("shorter than the encapsulation header"));
    }
    Ok(value.slice(4..))
  }
}

#[derive(Clone)]
struct RawDecoder;
impl<'de> rustdds::no_key::Decode<'de, Bytes> for RawDecoder {
  type Error = RawError;
  fn decode_bytes(self, input: &'de [u8], enc: RepresentationIdentifier) -> Result<Bytes, RawError> {
    let mut v = Vec::with_capacity(4 + input.len());
    v.extend_from_slice(&enc.to_bytes());
    v.extend_from_slice(&[0, 0]);
    v.extend_from_slice(input);
    Ok(Bytes::from(v))
  }
}
impl DeserializerAdapter<Bytes> for Raw {
  type Error = RawError;
  type Decoded = Bytes;
  fn supported_encodings() -> &'static [RepresentationIdentifier] {
    &[RepresentationIdentifier::CDR_LE, RepresentationIdentifier::CDR_BE]
  }
  fn transform_decoded(decoded: Bytes) -> Bytes {
    decoded
  }
}
impl DefaultDecoder<Bytes> for Raw {
  type Decoder = RawDecoder;
  const DECODER: RawDecoder = RawDecoder;
}

fn now_ns() -> u64 {
  SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos() as u64
}

fn put_string(v: &mut Vec<u8>, s: &str) {
  while v.len() % 4 != 0 {
    v.push(0);
  }
  v.extend_from_slice(&((s.len() + 1) as u32).to_le_bytes());
  v.extend_from_slice(s.as_bytes());
  v.push(0);
}
fn align4(v: &mut Vec<u8>) {
  while v.len() % 4 != 0 {
    v.push(0);
  }
}

/// XCDR1 LE sensor_msgs/Image with `data_len` bytes of data (offsets relative to byte 4).
fn image(index: u32, data_len: usize, stamp_ns: u64) -> Vec<u8> {
  let mut v = Vec::with_capacity(data_len + 128);
  v.extend_from_slice(&[0, 1, 0, 0]);
  let mut b = Vec::with_capacity(data_len + 124);
  b.extend_from_slice(&((stamp_ns / 1_000_000_000) as i32).to_le_bytes());
  b.extend_from_slice(&((stamp_ns % 1_000_000_000) as u32).to_le_bytes());
  put_string(&mut b, &format!("{index:06}"));
  align4(&mut b);
  b.extend_from_slice(&1u32.to_le_bytes()); // height
  b.extend_from_slice(&(data_len as u32).to_le_bytes()); // width
  put_string(&mut b, "mono8");
  b.push(0); // is_bigendian
  align4(&mut b);
  b.extend_from_slice(&(data_len as u32).to_le_bytes()); // step
  b.extend_from_slice(&(data_len as u32).to_le_bytes());
  let start = b.len();
  b.resize(start + data_len, 0);
  for (i, x) in b[start..].iter_mut().enumerate() {
    *x = (i as u32).wrapping_add(index % 4).wrapping_mul(2654435761).to_le_bytes()[3];
  }
  v.extend_from_slice(&b);
  v
}

struct Parsed {
  stamp_ns: u64,
  index: u32,
  ok: bool,
}

fn parse(v: &[u8]) -> Option<Parsed> {
  let b = v.get(4..)?;
  let rd = |o: usize| -> Option<u32> { Some(u32::from_le_bytes(b.get(o..o + 4)?.try_into().ok()?)) };
  let sec = rd(0)? as u64;
  let nsec = rd(4)? as u64;
  let flen = rd(8)? as usize;
  let frame = std::str::from_utf8(b.get(12..12 + flen - 1)?).ok()?;
  let index: u32 = frame.parse().ok()?;
  let mut o = (12 + flen + 3) & !3;
  o += 8; // height, width
  let elen = rd(o)? as usize;
  o = (o + 4 + elen + 1 + 3) & !3; // encoding + is_bigendian
  o += 4; // step
  let dlen = rd(o)? as usize;
  let data = b.get(o + 4..o + 4 + dlen)?;
  let ok = data
    .iter()
    .enumerate()
    .all(|(i, x)| *x == (i as u32).wrapping_add(index % 4).wrapping_mul(2654435761).to_le_bytes()[3]);
  Some(Parsed {
    stamp_ns: sec * 1_000_000_000 + nsec,
    index,
    ok,
  })
}

fn participant(domain: u16) -> DomainParticipant {
  if env::var("ENGINE_STOCK").is_ok() {
    DomainParticipant::new(domain).unwrap()
  } else {
    let mut b = DomainParticipantBuilder::new(domain).advertise_loopback(false);
    if let Ok(rate) = env::var("ENGINE_RATE") {
      let burst: usize = env::var("ENGINE_BURST").map_or(131072, |b| b.parse().unwrap());
      b = b.send_rate_limit(rate.parse().unwrap(), burst);
    }
    if let Ok(f) = env::var("ENGINE_FRAG") {
      b = b.fragment_size(f.parse().unwrap());
    }
    b.build().unwrap()
  }
}

fn qos() -> rustdds::QosPolicies {
  QosPolicyBuilder::new()
    .reliability(policy::Reliability::Reliable {
      max_blocking_time: rustdds::Duration::from_secs(1),
    })
    .durability(policy::Durability::Volatile)
    .history(policy::History::KeepLast { depth: 10 })
    .build()
}

const TYPE: &str = "sensor_msgs::msg::dds_::Image_";

fn main() {
  let a: Vec<String> = env::args().collect();
  let domain: u16 = a[2].parse().unwrap();
  let topic_name = format!("rt/{}", a[3]);
  let dp = participant(domain);
  let q = qos();
  let topic = dp
    .create_topic(topic_name, TYPE.to_string(), &q, TopicKind::NoKey)
    .unwrap();
  match a[1].as_str() {
    "pub" => {
      let data_len: usize = a[4].parse().unwrap();
      let count: u32 = a[5].parse().unwrap();
      let hz: f64 = a[6].parse().unwrap();
      let w = dp
        .create_publisher(&q)
        .unwrap()
        .create_datawriter_no_key::<Bytes, Raw>(&topic, None)
        .unwrap();
      let deadline = Instant::now() + Duration::from_secs(30);
      'wait: loop {
        while let Some(s) = w.try_recv_status() {
          if let DataWriterStatus::PublicationMatched { .. } = s {
            break 'wait;
          }
        }
        assert!(Instant::now() < deadline, "no reader matched in 30 s");
        std::thread::sleep(Duration::from_millis(20));
      }
      std::thread::sleep(Duration::from_millis(1000));
      let period = Duration::from_secs_f64(1.0 / hz);
      let mut next = Instant::now();
      let templates: Vec<Vec<u8>> = (0..4).map(|k| image(k, data_len, 0)).collect();
      let loop_start = Instant::now();
      for i in 0..count {
        // stamp and frame_id patched into a prepared image (fixed layout)
        let mut v = templates[(i % 4) as usize].clone();
        v[16..22].copy_from_slice(format!("{i:06}").as_bytes());
        let t = now_ns();
        v[4..8].copy_from_slice(&((t / 1_000_000_000) as i32).to_le_bytes());
        v[8..12].copy_from_slice(&((t % 1_000_000_000) as u32).to_le_bytes());
        let t0 = Instant::now();
        if let Err(e) = w.write(Bytes::from(v), None) {
          eprintln!("write {i}: {e:?}");
        }
        let dt = t0.elapsed();
        if dt > Duration::from_millis(5) {
          eprintln!("write {i} took {dt:?}");
        }
        next += period;
        let now = Instant::now();
        if next > now {
          std::thread::sleep(next - now);
        }
      }
      eprintln!("loop {:?} for {count} samples", loop_start.elapsed());
      // let the tail be repaired
      let _ = w.wait_for_acknowledgments(Duration::from_secs(5));
      std::thread::sleep(Duration::from_millis(500));
    }
    "sub" => {
      let count: u32 = a[4].parse().unwrap();
      let warmup: u32 = a[5].parse().unwrap();
      let mut r = dp
        .create_subscriber(&q)
        .unwrap()
        .create_datareader_no_key::<Bytes, Raw>(&topic, None)
        .unwrap();
      println!("READY");
      let mut lat: Vec<f64> = Vec::new();
      let mut seen = std::collections::BTreeSet::new();
      let mut bad = 0;
      let mut last_rx = Instant::now();
      let mut started = false;
      let start = Instant::now();
      loop {
        match r.take_next_sample() {
          Ok(Some(s)) => {
            let t = now_ns();
            let v = s.into_value();
            match parse(&v) {
              Some(p) => {
                started = true;
                last_rx = Instant::now();
                if !p.ok {
                  bad += 1;
                }
                if p.index >= warmup && seen.insert(p.index) {
                  lat.push((t.saturating_sub(p.stamp_ns)) as f64 / 1e6);
                }
                if p.index + 1 >= count {
                  break;
                }
              }
              None => bad += 1,
            }
          }
          Ok(None) => std::thread::sleep(Duration::from_micros(200)),
          Err(e) => eprintln!("take: {e:?}"),
        }
        if started && last_rx.elapsed() > Duration::from_secs(5) {
          break;
        }
        if start.elapsed() > Duration::from_secs(120) {
          break;
        }
      }
      lat.sort_by(|a, b| a.partial_cmp(b).unwrap());
      let q = |f: f64| {
        if lat.is_empty() {
          f64::NAN
        } else {
          lat[((lat.len() as f64 - 1.0) * f).round() as usize]
        }
      };
      println!(
        "RESULT received {}/{} p50 {:.1} p99 {:.1} max {:.1} ms bad {}",
        lat.len(),
        count - warmup,
        q(0.5),
        q(0.99),
        q(1.0),
        bad
      );
    }
    _ => panic!("pub|sub"),
  }
}
