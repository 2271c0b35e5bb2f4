//! `hibari bag play` of what others write and with what others configure:
//! sqlite3 bags (`.db3`, rosbag2's storage before Iron) written by rosbags,
//! described by `info` and played byte for byte, damaged ones refused with
//! a clear error; and `--qos-profile-overrides-path`, whose profiles show
//! in the graph. rosbags is in the repository's `.venv` (scripts/setup.sh
//! installs it).
//!
//! Each test holds a domain and a temporary directory of its own; every
//! wait is bounded by `HANG`, which only a hang reaches.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{hibari, run};
use hibari::{CdrBytes, Context, QosProfile, Reliability, SampleInfo};
use hibari::{Serialized, SingleThreadedExecutor, Subscription};
use hibari_testkit::lines::LineChild;
use hibari_testkit::{tempdir, unique_topic, with_timeout, TestDomain, HANG};
use serde_json::Value;

/// The repository's Python; fails the test, saying how to install what is
/// missing, when it or a package is absent.
fn python(script: &str, args: &[&str]) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let python = root.join(".venv/bin/python");
    if !python.exists() {
        panic!("missing: .venv; run scripts/setup.sh (it installs rosbags, mcap and mcap-ros2-support)");
    }
    let mut cmd = Command::new(python);
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

/// `hibari bag <args>` in `domain`, killed after `HANG`.
fn bag(domain: &TestDomain, args: &[&str]) -> assert_cmd::Command {
    let mut cmd = hibari([&["bag"], args].concat());
    cmd.env("ROS_DOMAIN_ID", domain.to_string()).timeout(HANG);
    cmd
}

/// `hibari bag <args>` running in `domain`, stdin closed, stderr to `stderr`.
fn spawn_bag(domain: &TestDomain, args: &[&str], stderr: &Path) -> LineChild {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("hibari"));
    cmd.arg("bag")
        .args(args)
        .env("ROS_DOMAIN_ID", domain.to_string())
        .env_remove("HIBARI_INTERFACE_PATH")
        .stderr(std::fs::File::create(stderr).unwrap())
        .stdin(Stdio::null());
    LineChild::spawn(cmd).expect("hibari bag starts")
}

/// Reads lines until one contains `text`; fails on a timeout or the end.
fn wait_line(child: &LineChild, text: &str) -> String {
    let deadline = Instant::now() + HANG;
    loop {
        match child.next_line_by(deadline) {
            Ok(line) if line.contains(text) => return line,
            Ok(_) => {}
            Err(e) => panic!("no line with {text:?} from hibari: {e:?}"),
        }
    }
}

/// Sends SIGINT and waits for the process to end.
fn interrupt_and_wait(child: &mut LineChild) -> std::process::ExitStatus {
    let pid = child.child().id().to_string();
    let sent = Command::new("kill").args(["-INT", &pid]).status();
    assert!(sent.is_ok_and(|s| s.success()), "kill -INT {pid}");
    let deadline = Instant::now() + HANG;
    loop {
        if let Some(status) = child.child().try_wait().unwrap() {
            return status;
        }
        assert!(Instant::now() < deadline, "hibari did not end after SIGINT");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Polls `check` until it holds; fails with `what` after `HANG`.
fn wait_until(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + HANG;
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What a subscription of the test heard: topic and CDR, in arrival order.
type Heard = Arc<Mutex<Vec<(String, Vec<u8>)>>>;

/// A listener on `topics` (name, type) spinning on a thread of its own.
struct Listener {
    heard: Heard,
    executor: Arc<SingleThreadedExecutor>,
    spinner: Option<std::thread::JoinHandle<()>>,
    _subscriptions: Vec<Subscription<Serialized>>,
    _node: hibari::Node,
    _context: Context,
}

impl Listener {
    fn new(domain: &TestDomain, topics: &[(&str, &str)]) -> Listener {
        let context = Context::with_domain(domain.id());
        let node = context.create_node("listener").unwrap();
        let heard: Heard = Arc::default();
        let mut subscriptions = Vec::new();
        for (topic, ty) in topics {
            let (h, name) = (heard.clone(), topic.to_string());
            let qos = QosProfile::default().keep_last(100);
            let callback = move |bytes: CdrBytes, _: SampleInfo| {
                h.lock().unwrap().push((name.clone(), bytes.to_vec()));
            };
            let s = node.create_generic_subscription(topic, ty, qos, callback);
            subscriptions.push(s.unwrap());
        }
        let executor = Arc::new(SingleThreadedExecutor::new());
        executor.add_node(&node).unwrap();
        let e = executor.clone();
        let spinner = Some(std::thread::spawn(move || e.spin()));
        Listener {
            heard,
            executor,
            spinner,
            _subscriptions: subscriptions,
            _node: node,
            _context: context,
        }
    }

    /// Waits until `n` messages arrived; what arrived.
    fn wait_for(&self, n: usize) -> Vec<(String, Vec<u8>)> {
        wait_until(&format!("{n} messages"), || {
            self.heard.lock().unwrap().len() >= n
        });
        self.heard.lock().unwrap().clone()
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

#[test]
fn a_sqlite3_bag_written_by_rosbags_shows_in_info_and_plays_every_message_byte_exact() {
    let domain = TestDomain::reserve();
    let dir = tempdir().unwrap();
    let path = dir.path().join("old");
    let p = path.to_str().unwrap();
    let written: Value =
        serde_json::from_str(&python(WRITE_BAG, &[p, "12", "sqlite3", "8"])).unwrap();
    let written = written.as_array().unwrap();
    let db = path.join("old.db3");

    let info = run(&mut bag(&domain, &["info", p])).success().stdout_text();
    for line in [
        "Files:             old.db3",
        "Storage id:        sqlite3",
        "Messages:          12",
        "Topic: /a | Type: std_msgs/msg/String | Count: 6 | Serialization Format: cdr",
        "Topic: /b | Type: bag_test_msgs/msg/Reading | Count: 6 | Serialization Format: cdr",
    ] {
        assert!(info.contains(line), "no {line:?} in:\n{info}");
    }
    // The lone file: what its tables hold.
    let lone = run(&mut bag(&domain, &["info", "--json", db.to_str().unwrap()]))
        .success()
        .json();
    assert_eq!(lone["storage_identifier"], "sqlite3");
    assert_eq!(lone["message_count"], 12);
    assert_eq!(lone["duration_ns"], 11 * 20_000_000);
    assert_eq!(lone["start_ns"], 1_700_000_000_000_000_000u64);
    assert_eq!(lone["topics"][1]["name"], "/b");
    assert_eq!(lone["topics"][1]["count"], 6);

    // Without metadata.yaml, reindex writes it from the tables.
    std::fs::remove_file(path.join("metadata.yaml")).unwrap();
    let reindexed = run(&mut bag(&domain, &["reindex", p]))
        .success()
        .stdout_text();
    assert!(reindexed.contains("12 messages on 2 topics"), "{reindexed}");
    let again = run(&mut bag(&domain, &["info", p])).success().stdout_text();
    assert!(again.contains("Storage id:        sqlite3"), "{again}");
    assert!(again.contains("Messages:          12"), "{again}");

    let (a, b) = (unique_topic("db_a"), unique_topic("db_b"));
    let listener = Listener::new(
        &domain,
        &[
            (&a, "std_msgs/msg/String"),
            (&b, "bag_test_msgs/msg/Reading"),
        ],
    );
    let (remap_a, remap_b) = (format!("/a:={a}"), format!("/b:={b}"));
    let args = [
        "play",
        p,
        "--wait-for-subscribers",
        "--rate",
        "4",
        "--remap",
        &remap_a,
        &remap_b,
    ];
    let played = run(&mut bag(&domain, &args)).success().stdout_text();
    assert!(played.contains("Played 12 messages"), "{played}");
    let got = listener.wait_for(12);
    assert_eq!(got.len(), 12);
    for topic in [&a, &b] {
        let from = if *topic == a { "/a" } else { "/b" };
        let want: Vec<&str> = written
            .iter()
            .filter(|w| w["topic"] == from)
            .map(|w| w["hex"].as_str().unwrap())
            .collect();
        let heard: Vec<String> = got
            .iter()
            .filter(|(t, _)| t == topic)
            .map(|(_, cdr)| common::hex(cdr))
            .collect();
        assert_eq!(heard, want, "{topic}");
    }
}

#[test]
fn damaged_db3_files_are_clear_errors() {
    let domain = TestDomain::reserve();
    let dir = tempdir().unwrap();
    let path = dir.path().join("cut");
    python(WRITE_BAG, &[path.to_str().unwrap(), "400", "sqlite3", "9"]);
    let db = path.join("cut.db3");
    let bytes = std::fs::read(&db).unwrap();

    let junk = dir.path().join("junk.db3");
    std::fs::write(&junk, vec![0x5a; 8192]).unwrap();
    for verb in ["info", "play"] {
        run(&mut bag(&domain, &[verb, junk.to_str().unwrap()]))
            .failure()
            .stderr_has(&[
                "junk.db3 is not a readable rosbag2 sqlite3 file",
                "not a database",
            ]);
    }
    // The bag's own file cut short: its metadata.yaml still names it.
    std::fs::write(&db, &bytes[..bytes.len() / 2]).unwrap();
    run(&mut bag(&domain, &["play", path.to_str().unwrap()]))
        .failure()
        .stderr_has(&["cut.db3", "malformed"]);
}

#[test]
fn qos_overrides_set_what_the_players_publishers_offer() {
    let domain = TestDomain::reserve();
    let dir = tempdir().unwrap();
    let path = dir.path().join("overridden");
    let p = path.to_str().unwrap();
    python(WRITE_BAG, &[p, "4", "mcap", "9"]);
    let overrides = dir.path().join("overrides.yaml");
    std::fs::write(
        &overrides,
        "/a:\n  reliability: best_effort\n  durability: volatile\n  history: keep_last\n  depth: 5\n",
    )
    .unwrap();
    let (a, b) = (unique_topic("qos_a"), unique_topic("qos_b"));
    let (remap_a, remap_b) = (format!("/a:={a}"), format!("/b:={b}"));
    let o = overrides.to_str().unwrap();
    let args = [
        "play",
        p,
        "--start-paused",
        "--qos-profile-overrides-path",
        o,
    ];
    let args = [&args[..], &["--remap", &remap_a, &remap_b]].concat();
    // Paused with no terminal, the player keeps its publishers until Ctrl-C.
    let stderr = dir.path().join("play.err");
    let mut player = spawn_bag(&domain, &args, &stderr);

    let context = Context::with_domain(domain.id());
    let node = context.create_node("observer").unwrap();
    let offered = |topic: &str| {
        let mut found = None;
        wait_until(&format!("the player's publisher on {topic}"), || {
            found = node.get_publishers_info_by_topic(topic).unwrap().pop();
            found.is_some()
        });
        found.unwrap().qos
    };
    assert_eq!(offered(&a).reliability, Reliability::BestEffort);
    assert_eq!(offered(&b).reliability, Reliability::Reliable);
    assert_eq!(interrupt_and_wait(&mut player).code(), Some(0));
    assert!(wait_line(&player, "Played").contains("Played 0 messages"));
    let warned = std::fs::read_to_string(&stderr).unwrap();
    assert!(warned.contains("paused with no key to resume"), "{warned}");

    std::fs::write(&overrides, "/a: {reliability: bestefort}\n").unwrap();
    run(&mut bag(
        &domain,
        &["play", p, "--qos-profile-overrides-path", o],
    ))
    .failure()
    .stderr_has(&[
        "overrides.yaml",
        "topic /a",
        "`reliability: bestefort` is not a value",
    ]);
}
