//! The native side of the E2 benchmark: a counting hibari subscriber on
//! `/chatter` that writes each receive time into a preallocated array and
//! checks order, duplicates and the payload byte for byte.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hibari::msg::std_msgs::msg::String as RosString;
use hibari::{Node, QosProfile, Subscription};

use crate::mono_ns;

#[derive(Default)]
pub struct State {
    pub expected: u64,
    pub received: u64,
    /// Receive time of message i (0: not yet).
    pub rx: Vec<i64>,
    /// Send time of message i (from its payload).
    pub tx: Vec<i64>,
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

fn parse(data: &str) -> Option<(u64, i64)> {
    let mut parts = data.split(", ");
    let word = parts.next()?;
    let i: u64 = parts.next()?.parse().ok()?;
    let t: i64 = parts.next()?.parse().ok()?;
    // Byte-exact: the payload is exactly what the client wrote.
    let exact = (word == "hello" || word == "héllo") && format!("{word}, {i}, {t}") == data;
    exact.then_some((i, t))
}

impl Sink {
    pub fn new(node: &Node, capacity: usize) -> Sink {
        // Written once now, so the pages are resident before the idle RSS
        // is read and the runs do not count them as the bridge's growth.
        let state = Arc::new(Mutex::new(State {
            rx: vec![-1; capacity],
            tx: vec![-1; capacity],
            ..State::default()
        }));
        let s = state.clone();
        let qos = QosProfile::default().keep_last(capacity + 1);
        let subscription = node
            .create_subscription("/chatter", qos, move |m: RosString| {
                let now = mono_ns();
                let mut st = s.lock().unwrap();
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

    /// Latency percentiles (p50, p99, max) in µs over the received ones.
    pub fn latencies(&self) -> (f64, f64, f64) {
        let st = self.state.lock().unwrap();
        let n = st.expected as usize;
        let mut l: Vec<i64> = (0..n)
            .filter(|&i| st.rx[i] != 0)
            .map(|i| st.rx[i] - st.tx[i])
            .collect();
        if l.is_empty() {
            return (0.0, 0.0, 0.0);
        }
        l.sort_unstable();
        let at = |q: f64| l[((l.len() - 1) as f64 * q) as usize] as f64 / 1e3;
        (at(0.5), at(0.99), *l.last().unwrap() as f64 / 1e3)
    }
}
