//! The native side of the E2 benchmark: a counting hibari subscriber on
//! `/chatter` that writes each receive time into a preallocated array and
//! checks order, duplicates and the payload byte for byte.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hibari::msg::std_msgs::msg::String as RosString;
use hibari::{Node, QosProfile, SampleInfo, Subscription};

use crate::mono_ns;

#[derive(Default)]
pub struct State {
    pub expected: u64,
    pub received: u64,
    /// Receive time of message i (0: not yet).
    pub rx: Vec<i64>,
    /// Send time of message i (from its payload).
    pub tx: Vec<i64>,
    /// Scratch room for the latencies, allocated and touched once, so that
    /// computing them never counts as the bridge's memory growth.
    scratch: Vec<i64>,
    /// The longest a sample waited in the sink subscription's queue.
    pub max_queue_wait_ns: i64,
    pub first_rx: i64,
    pub last_rx: i64,
    pub out_of_order: u64,
    pub duplicates: u64,
    pub bad_payloads: u64,
    next: u64,
}

pub struct Sink {
    pub state: Arc<Mutex<State>>,
    pub subscription: Subscription<RosString>,
}

/// A number written the way the client writes it: digits, no sign, no
/// leading zero.
fn canonical(digits: &str) -> bool {
    !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
}

fn parse(data: &str) -> Option<(u64, i64)> {
    let mut parts = data.split(", ");
    let word = parts.next()?;
    let (i, t) = (parts.next()?, parts.next()?);
    // Byte-exact (without allocating, so the sink keeps up): the payload
    // is exactly what the client wrote.
    let exact = (word == "hello" || word == "héllo")
        && parts.next().is_none()
        && canonical(i)
        && canonical(t);
    exact.then_some((i.parse().ok()?, t.parse().ok()?))
}

impl Sink {
    pub fn new(node: &Node, capacity: usize) -> Sink {
        // Written once now, so the pages are resident before the idle RSS
        // is read and the runs do not count them as the bridge's growth.
        let state = Arc::new(Mutex::new(State {
            rx: vec![-1; capacity],
            tx: vec![-1; capacity],
            scratch: vec![-1; capacity],
            ..State::default()
        }));
        let s = state.clone();
        let qos = QosProfile::default().keep_last(capacity + 1);
        let subscription = node
            .create_subscription("/chatter", qos, move |m: RosString, info: SampleInfo| {
                let now = mono_ns();
                let mut st = s.lock().unwrap();
                // How long the sample waited in the subscription's queue
                // (hibari's reception time is wall-clock).
                let wall = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos() as i64);
                let waited = wall - info.reception_timestamp_ns;
                st.max_queue_wait_ns = st.max_queue_wait_ns.max(waited);
                let Some((i, t)) = parse(&m.data) else {
                    st.bad_payloads += 1;
                    return;
                };
                let i_us = i as usize;
                if i_us >= st.rx.len() {
                    st.bad_payloads += 1;
                    return;
                }
                if st.rx[i_us] != 0 {
                    st.duplicates += 1;
                    return;
                }
                if i != st.next {
                    st.out_of_order += 1;
                }
                st.next = i + 1;
                st.rx[i_us] = now;
                st.tx[i_us] = t;
                if st.received == 0 {
                    st.first_rx = now;
                }
                st.last_rx = now;
                st.received += 1;
            })
            .unwrap();
        Sink {
            state,
            subscription,
        }
    }

    /// Clears the counters for a run of `n` messages.
    pub fn reset(&self, n: u64) {
        let mut st = self.state.lock().unwrap();
        assert!(
            n as usize <= st.rx.len(),
            "the sink holds {} at most",
            st.rx.len()
        );
        st.rx[..n as usize].fill(0);
        st.expected = n;
        st.received = 0;
        st.out_of_order = 0;
        st.duplicates = 0;
        st.bad_payloads = 0;
        st.max_queue_wait_ns = 0;
        st.next = 0;
    }

    /// Waits until all `n` arrived, or nothing arrived for `idle`.
    pub fn wait_all(&self, idle: Duration) -> u64 {
        let mut last = (0, Instant::now());
        loop {
            let got = self.state.lock().unwrap().received;
            let expected = self.state.lock().unwrap().expected;
            if got >= expected {
                return got;
            }
            if got != last.0 {
                last = (got, Instant::now());
            } else if last.1.elapsed() > idle {
                return got;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Latency statistics over the received messages.
    pub fn latencies(&self) -> Latency {
        let mut guard = self.state.lock().unwrap();
        let st = &mut *guard;
        let n = st.expected as usize;
        st.scratch.clear();
        for i in 0..n {
            if st.rx[i] != 0 {
                st.scratch.push(st.rx[i] - st.tx[i]);
            }
        }
        let l = &mut st.scratch;
        if l.is_empty() {
            return Latency::default();
        }
        l.sort_unstable();
        let at = |q: f64| l[((l.len() - 1) as f64 * q).round() as usize] as f64 / 1e3;
        let mean = l.iter().map(|&v| v as f64).sum::<f64>() / l.len() as f64;
        let var = l.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / l.len() as f64;
        Latency {
            count: l.len() as u64,
            p50_us: at(0.5),
            p90_us: at(0.9),
            p99_us: at(0.99),
            p999_us: at(0.999),
            max_us: at(1.0),
            mean_us: mean / 1e3,
            stddev_us: var.sqrt() / 1e3,
        }
    }
}

/// Latency statistics in µs (the bench record's `stats` fields).
#[derive(Clone, Copy, Debug, Default)]
pub struct Latency {
    pub count: u64,
    pub p50_us: f64,
    pub p90_us: f64,
    pub p99_us: f64,
    pub p999_us: f64,
    pub max_us: f64,
    pub mean_us: f64,
    pub stddev_us: f64,
}
