//! No stall at 1 kHz with publishes from callbacks (E1's intra-process
//! set-up stalled after a dozen frames).
//!
//! A source thread publishes 1200 numbers at 1 kHz (open loop, 1.2 s) down a
//! chain of three nodes: `relay_a` republishes `/first` on `/second` from its
//! callback, `relay_b` republishes `/second` on `/third`, `sink` records
//! `/third`. Meanwhile subscribers come and go: a churn thread adds and drops
//! subscriptions on `/second` and `/third` every few milliseconds, and the
//! sink's callback itself adds one on `/second` and drops it later. Every
//! subscription is reliable, so the sink must get all 1200 in order, and each
//! transient subscriber a gap-free run. The last number waits until
//! [`CHURNS`] subscribers came and went and one of them heard something, so
//! no rate of this machine is asserted; the timeout is there to turn a stall
//! into a failure.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use hibari::msg::std_msgs::msg::UInt64;
use hibari::{
    Context, MultiThreadedExecutor, Node, QosProfile, SingleThreadedExecutor, Subscription,
};

const N: u64 = 1200;
const PERIOD: Duration = Duration::from_millis(1);
/// Long enough never to be hit unless something stalls.
const PATIENCE: Duration = Duration::from_secs(60);
/// Transient subscribers that come and go before the stream ends.
const CHURNS: usize = 10;

/// What a subscription heard, shared with the test.
type Heard = Arc<Mutex<Vec<u64>>>;

fn qos() -> QosProfile {
    // Reliable; keep all so that no queue ever makes a publish wait.
    QosProfile::default().keep_all()
}

fn listen(node: &Node, topic: &str) -> (Subscription<UInt64>, Heard) {
    let heard = Heard::default();
    let h = heard.clone();
    let sub = node
        .create_subscription(topic, qos(), move |m: &UInt64| {
            h.lock().unwrap().push(m.data)
        })
        .unwrap();
    (sub, heard)
}

fn relay(node: &Node, from: &str, to: &str, errors: &Arc<AtomicUsize>) -> Subscription<UInt64> {
    let publisher = node.create_publisher::<UInt64>(to, qos()).unwrap();
    let errors = errors.clone();
    node.create_subscription(from, qos(), move |m: UInt64| {
        if publisher.publish(m).is_err() {
            errors.fetch_add(1, Ordering::SeqCst);
        }
    })
    .unwrap()
}

/// Asserts that a transient subscriber heard consecutive numbers.
fn assert_gap_free(what: &str, heard: &[u64]) {
    for pair in heard.windows(2) {
        assert_eq!(
            pair[1],
            pair[0] + 1,
            "{what} skipped or reordered: {heard:?}"
        );
    }
}

/// [`run_chain`], failing the test with a message if it has not ended (a
/// spinner that `cancel()` does not stop would hang its thread scope).
fn run_chain_within_patience(layout: Layout) {
    hibari_testkit::with_timeout(
        PATIENCE * 3,
        "the chain's run and its spinners to end",
        || run_chain(layout),
    );
}

/// Whether enough transient subscribers came and went, one hearing something.
fn churned_enough(churned: &[(String, Heard)]) -> bool {
    churned.len() >= CHURNS && churned.iter().any(|(_, h)| !h.lock().unwrap().is_empty())
}

/// How the three nodes are spun.
enum Layout {
    OneExecutor,
    ExecutorPerNode,
    MultiThreaded,
}

fn run_chain(layout: Layout) {
    let context = Context::builder().isolated().create().unwrap();
    let [a, b, c] = ["relay_a", "relay_b", "sink"].map(|n| context.create_node(n).unwrap());
    let errors = Arc::new(AtomicUsize::new(0));
    let _ab = relay(&a, "/first", "/second", &errors);
    let _bc = relay(&b, "/second", "/third", &errors);

    // The sink: records, signals completion, and adds a subscriber on
    // `/second` at the 400th number and drops it at the 800th.
    let sunk = Arc::new((Mutex::new(Vec::new()), Condvar::new()));
    let from_callback = Arc::new(Mutex::new(Vec::<Heard>::new()));
    let (s, node, added) = (sunk.clone(), c.clone(), from_callback.clone());
    let mut extra: Option<Subscription<UInt64>> = None;
    let _sink = c
        .create_subscription("/third", qos(), move |m: UInt64| {
            match m.data {
                400 => {
                    let (sub, heard) = listen(&node, "/second");
                    added.lock().unwrap().push(heard);
                    extra.get_or_insert(sub);
                }
                800 => drop(extra.take()),
                _ => {}
            }
            let (heard, done) = &*s;
            let mut heard = heard.lock().unwrap();
            heard.push(m.data);
            if heard.len() as u64 == N {
                done.notify_all();
            }
        })
        .unwrap();

    let source = a.create_publisher::<UInt64>("/first", qos()).unwrap();
    assert!(source.wait_for_subscribers(1, PATIENCE));
    let single: Vec<SingleThreadedExecutor> = match layout {
        Layout::OneExecutor => vec![SingleThreadedExecutor::new()],
        Layout::ExecutorPerNode => (0..3).map(|_| SingleThreadedExecutor::new()).collect(),
        Layout::MultiThreaded => Vec::new(),
    };
    let multi = MultiThreadedExecutor::new(2);
    for (i, node) in [&a, &b, &c].into_iter().enumerate() {
        match single.len() {
            0 => multi.add_node(node).unwrap(),
            n => single[i % n].add_node(node).unwrap(),
        }
    }

    let streaming = std::sync::atomic::AtomicBool::new(true);
    let churned = Mutex::new(Vec::<(String, Heard)>::new());
    let published = std::thread::scope(|s| {
        for executor in &single {
            s.spawn(|| executor.spin());
        }
        if single.is_empty() {
            s.spawn(|| multi.spin());
        }
        // Subscribers come and go while the stream runs.
        s.spawn(|| {
            let mut round = 0;
            while streaming.load(Ordering::SeqCst) {
                let (node, topic) = if round % 2 == 0 {
                    (&b, "/second")
                } else {
                    (&c, "/third")
                };
                let (sub, heard) = listen(node, topic);
                std::thread::sleep(Duration::from_millis(7 + round % 5));
                drop(sub);
                churned
                    .lock()
                    .unwrap()
                    .push((format!("churn #{round} on {topic}"), heard));
                round += 1;
            }
        });
        let start = Instant::now();
        let mut published = 0;
        for data in 1..=N {
            if data == N {
                // Not a panic here: the spinners are cancelled below.
                let deadline = Instant::now() + PATIENCE;
                while Instant::now() < deadline && !churned_enough(&churned.lock().unwrap()) {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
            std::thread::sleep(
                (start + PERIOD * data as u32).saturating_duration_since(Instant::now()),
            );
            published += u64::from(source.publish(UInt64 { data }).is_ok());
        }
        let (heard, done) = &*sunk;
        let heard = heard.lock().unwrap();
        let _ = done
            .wait_timeout_while(heard, PATIENCE, |h| (h.len() as u64) < N)
            .unwrap();
        streaming.store(false, Ordering::SeqCst);
        for executor in &single {
            executor.cancel();
        }
        multi.cancel();
        published
    });

    assert_eq!(published, N, "a source publish failed");
    assert_eq!(
        errors.load(Ordering::SeqCst),
        0,
        "a publish from a callback failed"
    );
    let expected: Vec<u64> = (1..=N).collect();
    assert_eq!(
        *sunk.0.lock().unwrap(),
        expected,
        "the sink did not get every number in order"
    );

    let churned = churned.into_inner().unwrap();
    assert!(
        churned_enough(&churned),
        "timed out after {PATIENCE:?}: {} of {CHURNS} subscribers came and went, \
         {} of them heard something",
        churned.len(),
        churned
            .iter()
            .filter(|(_, h)| !h.lock().unwrap().is_empty())
            .count()
    );
    let mut heard_by_churn = 0;
    for (what, heard) in &churned {
        let heard = heard.lock().unwrap();
        assert_gap_free(what, &heard);
        heard_by_churn += heard.len();
    }
    assert!(heard_by_churn > 0);
    let from_callback = from_callback.lock().unwrap();
    assert_eq!(from_callback.len(), 1);
    let heard = from_callback[0].lock().unwrap();
    assert!(
        !heard.is_empty(),
        "the subscriber added from a callback heard nothing"
    );
    assert_gap_free("the subscriber added from a callback", &heard);
}

#[test]
fn a_chain_of_three_nodes_republishing_from_callbacks_at_1_khz_never_stalls_on_one_executor() {
    run_chain_within_patience(Layout::OneExecutor);
}

#[test]
fn a_chain_of_three_nodes_republishing_from_callbacks_at_1_khz_never_stalls_with_an_executor_per_node(
) {
    run_chain_within_patience(Layout::ExecutorPerNode);
}

#[test]
fn a_chain_of_three_nodes_republishing_from_callbacks_at_1_khz_never_stalls_on_a_multi_threaded_executor(
) {
    run_chain_within_patience(Layout::MultiThreaded);
}
