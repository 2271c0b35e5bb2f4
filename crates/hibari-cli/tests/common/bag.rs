//! What the `hibari bag` tests share: the repository's Python (with
//! rosbags, mcap and mcap-ros2-support, the oracles), `hibari bag` run to
//! its end or as a process of its own, and a listener of this process that
//! keeps what it hears.
//!
//! Every wait is bounded by `HANG`, which only a hang reaches.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use hibari::msg::rosgraph_msgs::msg::Clock;
use hibari::msg::std_msgs::msg::String as RosString;
use hibari::{CdrBytes, Context, Message, Node, QosProfile, SampleInfo};
use hibari::{Serialized, SingleThreadedExecutor, Subscription};
use hibari_testkit::lines::LineChild;
use hibari_testkit::{with_timeout, TestDomain, HANG};
use serde_json::Value;

use super::{hibari, run};

/// Reads a bag with rosbags' `AnyReader` (which checks every type hash
/// against the definitions in the bag): its connections and messages.
pub const READ_BAG: &str = r#"
import json, sys
from pathlib import Path
from rosbags.highlevel import AnyReader
with AnyReader([Path(sys.argv[1])]) as r:
    conns = [{"topic": c.topic, "type": c.msgtype, "count": c.msgcount, "hash": c.digest,
              "reliability": [q.reliability.name for q in c.ext.offered_qos_profiles]}
             for c in r.connections]
    msgs = []
    for c, t, raw in r.messages():
        m = r.deserialize(raw, c.msgtype)
        msgs.append({"topic": c.topic, "t": t, "data": m.data})
print(json.dumps({"connections": conns, "messages": msgs}))
"#;

/// Writes a rosbag2 bag with rosbags: `/a` std_msgs/String and `/b` of a
/// type only the bag defines, interleaved 20 ms apart, in `argv[3]` storage
/// (`sqlite3` or `mcap`) and metadata version `argv[4]`; prints each
/// message's topic and CDR (hex) in log-time order.
const WRITE_BAG: &str = r#"
import json, sys, numpy as np
from pathlib import Path
from rosbags.rosbag2 import Writer, StoragePlugin
from rosbags.typesys import Stores, get_typestore, get_types_from_msg
ts = get_typestore(Stores.ROS2_JAZZY)
ts.register(get_types_from_msg("string name\nfloat64[] values\n", "bag_test_msgs/msg/Reading"))
Reading, String = ts.types["bag_test_msgs/msg/Reading"], ts.types["std_msgs/msg/String"]
storage, out = StoragePlugin.SQLITE3 if sys.argv[3] == "sqlite3" else StoragePlugin.MCAP, []
with Writer(Path(sys.argv[1]), version=int(sys.argv[4]), storage_plugin=storage) as w:
    a = w.add_connection("/a", "std_msgs/msg/String", typestore=ts)
    b = w.add_connection("/b", "bag_test_msgs/msg/Reading", typestore=ts)
    for i in range(int(sys.argv[2])):
        if i % 2 == 0:
            conn, raw = a, ts.serialize_cdr(String(data=f"a{i}"), "std_msgs/msg/String")
        else:
            msg = Reading(name=f"b{i}", values=np.array([i, 0.5]))
            conn, raw = b, ts.serialize_cdr(msg, "bag_test_msgs/msg/Reading")
        w.write(conn, 1_700_000_000_000_000_000 + i * 20_000_000, raw)
        out.append({"topic": conn.topic, "hex": bytes(raw).hex()})
print(json.dumps(out))
"#;

/// The repository's Python; fails the test, saying how to install it, when
/// it is absent.
pub fn venv_python() -> PathBuf {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/python");
    if !python.exists() {
        panic!("missing: .venv; run scripts/setup.sh (it installs rosbags, mcap and mcap-ros2-support)");
    }
    python
}

/// Runs `script` with the repository's Python; what it printed. Fails the
/// test, saying how to install what is missing, when a package is absent.
pub fn python(script: &str, args: &[&str]) -> String {
    let mut cmd = Command::new(venv_python());
    cmd.arg("-c").arg(script).args(args);
    let out = with_timeout(HANG, "python", move || cmd.output().expect("python runs"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    if let Some(at) = stderr.find("No module named") {
        let line = stderr[at..].lines().next().unwrap_or_default();
        panic!("missing: {line}; run scripts/setup.sh (or .venv/bin/pip install rosbags==0.11.9 mcap mcap-ros2-support)");
    }
    assert!(out.status.success(), "python failed:\n{stderr}");
    String::from_utf8(out.stdout).expect("python prints UTF-8")
}

/// Writes `count` messages on `/a` (std_msgs/String) and `/b` (a type only
/// the bag defines), interleaved 20 ms apart from 1_700_000_000 s, as a
/// rosbag2 bag at `path` with rosbags: in `storage` (`sqlite3` or `mcap`),
/// metadata version `version`. Each message's `topic` and CDR (`hex`), in
/// log-time order.
pub fn write_bag(path: &Path, count: usize, storage: &str, version: u32) -> Vec<Value> {
    let args = [
        path.to_str().unwrap(),
        &count.to_string(),
        storage,
        &version.to_string(),
    ];
    let written: Value = serde_json::from_str(&python(WRITE_BAG, &args)).unwrap();
    written.as_array().unwrap().clone()
}

/// `hibari bag <args>` in `domain`, killed after `HANG`.
pub fn bag(domain: &TestDomain, args: &[&str]) -> assert_cmd::Command {
    let mut cmd = hibari([&["bag"], args].concat());
    cmd.env("ROS_DOMAIN_ID", domain.to_string()).timeout(HANG);
    cmd
}

/// `hibari bag <args>` running in `domain`, stdin closed, stderr to `stderr`.
pub fn spawn_bag(domain: &TestDomain, args: &[&str], stderr: &Path) -> LineChild {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("hibari"));
    cmd.arg("bag")
        .args(args)
        .env("ROS_DOMAIN_ID", domain.to_string())
        .env_remove("HIBARI_INTERFACE_PATH")
        .stderr(std::fs::File::create(stderr).unwrap())
        .stdin(Stdio::null());
    LineChild::spawn(cmd).expect("hibari bag starts")
}

/// `hibari bag record <args>` running in `domain`, stderr to `stderr`.
pub fn spawn_recorder(domain: &TestDomain, args: &[&str], stderr: &Path) -> LineChild {
    spawn_bag(domain, &[&["record"], args].concat(), stderr)
}

/// Reads lines until one contains `text`; fails on a timeout or the end.
pub fn wait_line(child: &LineChild, text: &str) -> String {
    let deadline = Instant::now() + HANG;
    loop {
        match child.next_line_by(deadline) {
            Ok(line) if line.contains(text) => return line,
            Ok(_) => {}
            Err(e) => panic!("no line with {text:?} from hibari: {e:?}"),
        }
    }
}

/// Sends `signal` (`INT`, `KILL`) and waits for the process to end.
pub fn signal_and_wait(child: &mut LineChild, signal: &str) -> ExitStatus {
    let pid = child.child().id().to_string();
    let sent = Command::new("kill")
        .args([&format!("-{signal}"), &pid])
        .status();
    assert!(sent.is_ok_and(|s| s.success()), "kill -{signal} {pid}");
    let deadline = Instant::now() + HANG;
    loop {
        if let Some(status) = child.child().try_wait().unwrap() {
            return status;
        }
        assert!(
            Instant::now() < deadline,
            "hibari did not end after SIG{signal}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Polls `check` until it holds; fails with `what` after `HANG`.
pub fn wait_until(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + HANG;
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until reading `file` (an unfinished bag file) counts `want`
/// messages: the recorder wrote out (flushed) everything published.
pub fn wait_recorded(domain: &TestDomain, file: &Path, want: u64) {
    let deadline = Instant::now() + HANG;
    let mut last = String::new();
    while Instant::now() < deadline {
        let out = run(&mut bag(
            domain,
            &["info", "--json", file.to_str().unwrap()],
        ));
        if out.code == Some(0) && out.json()["message_count"] == want {
            return;
        }
        last = format!("{}{}", out.stderr, String::from_utf8_lossy(&out.stdout));
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!(
        "{} never held {want} messages; last:\n{last}",
        file.display()
    );
}

/// Fails when the process whose stderr went to `stderr` panicked.
pub fn assert_no_panic(stderr: &Path) {
    let text = std::fs::read_to_string(stderr).unwrap_or_default();
    assert!(!text.contains("panicked"), "the recorder panicked:\n{text}");
}

/// What a subscription of the test heard: topic, CDR, source timestamp.
pub type Heard = (String, Vec<u8>, i64);

/// A listener on topics (name, type), and on `/clock` if asked, spinning on
/// a thread of its own.
pub struct Listener {
    heard: Arc<Mutex<Vec<Heard>>>,
    clocks: Arc<Mutex<Vec<Clock>>>,
    executor: Arc<SingleThreadedExecutor>,
    spinner: Option<JoinHandle<()>>,
    _subscriptions: Vec<Subscription<Serialized>>,
    _clock: Option<Subscription<Clock>>,
    _node: Node,
    _context: Context,
}

impl Listener {
    pub fn new(domain: &TestDomain, topics: &[(&str, &str)]) -> Listener {
        Listener::spawn(domain, topics, false)
    }

    /// A listener that also keeps what `/clock` says.
    pub fn with_clock(domain: &TestDomain, topics: &[(&str, &str)]) -> Listener {
        Listener::spawn(domain, topics, true)
    }

    fn spawn(domain: &TestDomain, topics: &[(&str, &str)], clock: bool) -> Listener {
        let context = Context::with_domain(domain.id());
        let node = context.create_node("listener").unwrap();
        let heard: Arc<Mutex<Vec<Heard>>> = Arc::default();
        let mut subscriptions = Vec::new();
        for (topic, ty) in topics {
            let (h, name) = (heard.clone(), topic.to_string());
            let qos = QosProfile::default().keep_last(100);
            let callback = move |bytes: CdrBytes, info: SampleInfo| {
                let sample = (name.clone(), bytes.to_vec(), info.source_timestamp_ns);
                h.lock().unwrap().push(sample);
            };
            let s = node.create_generic_subscription(topic, ty, qos, callback);
            subscriptions.push(s.unwrap());
        }
        let clocks: Arc<Mutex<Vec<Clock>>> = Arc::default();
        let c = clocks.clone();
        let clock = clock.then(|| {
            let callback = move |m: Clock, _: SampleInfo| c.lock().unwrap().push(m);
            let s = node.create_subscription("/clock", QosProfile::clock(), callback);
            s.unwrap()
        });
        let executor = Arc::new(SingleThreadedExecutor::new());
        executor.add_node(&node).unwrap();
        let e = executor.clone();
        let spinner = Some(std::thread::spawn(move || e.spin()));
        Listener {
            heard,
            clocks,
            executor,
            spinner,
            _subscriptions: subscriptions,
            _clock: clock,
            _node: node,
            _context: context,
        }
    }

    /// Waits until `n` messages arrived; what arrived.
    pub fn wait_for(&self, n: usize) -> Vec<Heard> {
        wait_until(&format!("{n} messages"), || {
            self.heard.lock().unwrap().len() >= n
        });
        self.heard.lock().unwrap().clone()
    }

    /// What arrived so far, decoded as std_msgs/String: their `data`.
    pub fn strings(&self) -> Vec<String> {
        let heard = self.heard.lock().unwrap();
        let decode = |cdr: &Vec<u8>| RosString::from_cdr(&cdr[..]).unwrap().data;
        heard.iter().map(|(_, cdr, _)| decode(cdr)).collect()
    }

    /// What `/clock` said so far (when listened to).
    pub fn clocks(&self) -> Vec<Clock> {
        self.clocks.lock().unwrap().clone()
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        if let Some(spinner) = self.spinner.take() {
            let e = self.executor.clone();
            let _ = hibari_testkit::cancel_and_join(spinner, HANG, "the listener", || e.cancel());
        }
    }
}
