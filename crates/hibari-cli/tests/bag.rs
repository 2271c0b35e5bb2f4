//! `hibari bag`, run as the real binary against publishers and subscribers
//! of this process, with rosbags (PyPI, in the repository's `.venv`) as the
//! oracle: it reads what `hibari bag record` writes and writes bags (with a
//! type hibari does not know) for `hibari bag play` to read.
//!
//! Each test holds a domain and a temporary directory of its own; every
//! wait is bounded by `HANG`, which only a hang reaches.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{hibari, run};
use hibari::msg::rosgraph_msgs::msg::Clock;
use hibari::msg::std_msgs::msg::{Int32, String as RosString};
use hibari::{CdrBytes, Context, QosProfile, SampleInfo, SingleThreadedExecutor};
use hibari_testkit::lines::{LineChild, NoLine};
use hibari_testkit::{tempdir, unique_topic, with_timeout, TestDomain, HANG};
use serde_json::Value;

/// The repository's Python, with rosbags; fails the test when it is missing.
fn python(script: &str, args: &[&str]) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let python = root.join(".venv/bin/python");
    if !python.exists() {
        panic!("missing: run scripts/setup.sh (.venv with rosbags, the bag tests' oracle)");
    }
    let mut cmd = Command::new(python);
    cmd.arg("-c").arg(script).args(args);
    let out = with_timeout(HANG, "python (rosbags)", move || {
        cmd.output().expect("python runs")
    });
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("No module named 'rosbags'") {
        panic!("missing: run scripts/setup.sh (rosbags in .venv, the bag tests' oracle)");
    }
    assert!(out.status.success(), "python failed:\n{stderr}");
    String::from_utf8(out.stdout).expect("python prints UTF-8")
}

/// Reads a bag with rosbags' `AnyReader` (which checks every type hash
/// against the definitions in the bag): its connections and messages.
const READ_BAG: &str = r#"
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

/// Writes a rosbag2 MCAP bag with rosbags: `/a` std_msgs/String and `/b` of a
/// type only the bag defines, interleaved 20 ms apart; prints each message's
/// topic and CDR (hex) in log-time order.
const WRITE_BAG: &str = r#"
import json, sys
from pathlib import Path
import numpy as np
from rosbags.rosbag2 import Writer, StoragePlugin
from rosbags.typesys import Stores, get_typestore, get_types_from_msg
ts = get_typestore(Stores.ROS2_JAZZY)
ts.register(get_types_from_msg("string name\nfloat64[] values\n", "bag_test_msgs/msg/Reading"))
Reading, String = ts.types["bag_test_msgs/msg/Reading"], ts.types["std_msgs/msg/String"]
out = []
with Writer(Path(sys.argv[1]), version=9, storage_plugin=StoragePlugin.MCAP) as w:
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

/// A `hibari bag record` process; its stderr goes to `stderr` (a file).
fn spawn_recorder(domain: &TestDomain, args: &[&str], stderr: &Path) -> LineChild {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("hibari"));
    cmd.args(["bag", "record"])
        .args(args)
        .env("ROS_DOMAIN_ID", domain.to_string())
        .env_remove("HIBARI_INTERFACE_PATH")
        .stderr(std::fs::File::create(stderr).unwrap())
        .stdin(Stdio::null());
    LineChild::spawn(cmd).expect("hibari bag record starts")
}

/// Reads lines until one contains `text`; fails on a timeout or the end.
fn wait_line(child: &LineChild, text: &str) -> String {
    let deadline = Instant::now() + HANG;
    loop {
        match child.next_line_by(deadline) {
            Ok(line) if line.contains(text) => return line,
            Ok(_) => {}
            Err(e) => panic!("no line with {text:?} from the recorder: {e:?}"),
        }
    }
}

/// Sends `signal` (`INT`, `KILL`) and waits for the process to end.
fn signal_and_wait(child: &mut LineChild, signal: &str) -> std::process::ExitStatus {
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
            "the recorder did not end after SIG{signal}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until reading `file` (an unfinished bag file) counts `want`
/// messages: the recorder wrote out (flushed) everything published.
fn wait_recorded(domain: &TestDomain, file: &Path, want: u64) {
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

fn assert_no_panic(stderr: &Path) {
    let text = std::fs::read_to_string(stderr).unwrap_or_default();
    assert!(!text.contains("panicked"), "the recorder panicked:\n{text}");
}

#[test]
fn a_recording_stopped_by_sigint_holds_every_message_and_rosbags_reads_it() {
    let domain = TestDomain::reserve();
    let dir = tempdir().unwrap();
    let out = dir.path().join("bag");
    let (chatter, counter) = (unique_topic("chatter"), unique_topic("counter"));
    let context = Context::with_domain(domain.id());
    let node = context.create_node("talker").unwrap();
    let strings = node
        .create_publisher::<RosString>(&chatter, QosProfile::default())
        .unwrap();
    let ints = node
        .create_publisher::<Int32>(&counter, QosProfile::sensor_data())
        .unwrap();

    let stderr = dir.path().join("record.err");
    let args = [&chatter, &counter, "-o", out.to_str().unwrap()];
    let mut recorder = spawn_recorder(&domain, &args, &stderr);
    assert!(wait_line(&recorder, "Recording to").contains("bag"));
    for _ in 0..2 {
        wait_line(&recorder, "Subscribed to topic");
    }
    assert!(strings.wait_for_subscribers(1, HANG));
    assert!(ints.wait_for_subscribers(1, HANG));
    for i in 0..20 {
        strings
            .publish(RosString {
                data: format!("hello {i}"),
            })
            .unwrap();
        ints.publish(Int32 { data: i }).unwrap();
        std::thread::sleep(Duration::from_millis(2));
    }
    wait_recorded(&domain, &out.join("bag_0.mcap"), 40);
    let status = signal_and_wait(&mut recorder, "INT");
    assert_eq!(status.code(), Some(0), "the recorder's exit: {status}");
    let last = wait_line(&recorder, "Recording stopped");
    assert!(last.contains("40 messages on 2 topics"), "{last}");
    assert_no_panic(&stderr);
    assert_eq!(recorder.next_line(HANG), Err(NoLine::Ended));

    let info = run(&mut bag(&domain, &["info", out.to_str().unwrap()]))
        .success()
        .stdout_text();
    for line in [
        "Files:             bag_0.mcap".to_string(),
        "Storage id:        mcap".into(),
        "Messages:          40".into(),
        format!(
            "Topic: {chatter} | Type: std_msgs/msg/String | Count: 20 | Serialization Format: cdr"
        ),
        format!(
            "Topic: {counter} | Type: std_msgs/msg/Int32 | Count: 20 | Serialization Format: cdr"
        ),
    ] {
        assert!(info.contains(&line), "no {line:?} in:\n{info}");
    }

    let oracle: Value = serde_json::from_str(&python(READ_BAG, &[out.to_str().unwrap()])).unwrap();
    let conns = oracle["connections"].as_array().unwrap();
    let conn = |topic: &str| conns.iter().find(|c| c["topic"] == topic).unwrap().clone();
    assert_eq!(conn(&chatter)["count"], 20);
    assert_eq!(
        conn(&chatter)["reliability"],
        serde_json::json!(["RELIABLE"])
    );
    assert_eq!(
        conn(&counter)["reliability"],
        serde_json::json!(["BEST_EFFORT"])
    );
    assert!(conn(&chatter)["hash"]
        .as_str()
        .unwrap()
        .starts_with("RIHS01_"));
    let data = |topic: &str| -> Vec<Value> {
        let msgs = oracle["messages"].as_array().unwrap();
        msgs.iter()
            .filter(|m| m["topic"] == topic)
            .map(|m| m["data"].clone())
            .collect()
    };
    let want: Vec<Value> = (0..20).map(|i| format!("hello {i}").into()).collect();
    assert_eq!(data(&chatter), want);
    assert_eq!(data(&counter), (0..20).map(Value::from).collect::<Vec<_>>());
}

/// What a subscription of the test heard: topic, CDR, source timestamp.
type Heard = Arc<Mutex<Vec<(String, Vec<u8>, i64)>>>;

#[test]
fn playing_a_rosbags_bag_publishes_every_message_in_order_even_of_unknown_types() {
    let domain = TestDomain::reserve();
    let dir = tempdir().unwrap();
    let path = dir.path().join("written_by_rosbags");
    let written: Value =
        serde_json::from_str(&python(WRITE_BAG, &[path.to_str().unwrap(), "12"])).unwrap();
    let (a, b) = (unique_topic("played_a"), unique_topic("played_b"));

    let context = Context::with_domain(domain.id());
    let node = context.create_node("listener").unwrap();
    let heard: Heard = Arc::default();
    let mut subscriptions = Vec::new();
    for (topic, ty) in [
        (&a, "std_msgs/msg/String"),
        (&b, "bag_test_msgs/msg/Reading"),
    ] {
        let h = heard.clone();
        let name = topic.clone();
        let qos = QosProfile::default().keep_last(100);
        subscriptions.push(
            node.create_generic_subscription(
                topic,
                ty,
                qos,
                move |bytes: CdrBytes, info: SampleInfo| {
                    h.lock().unwrap().push((
                        name.clone(),
                        bytes.to_vec(),
                        info.source_timestamp_ns,
                    ));
                },
            )
            .unwrap(),
        );
    }
    let clocks: Arc<Mutex<Vec<Clock>>> = Arc::default();
    let c = clocks.clone();
    let _clock = node
        .create_subscription(
            "/clock",
            QosProfile::clock(),
            move |m: Clock, _: SampleInfo| c.lock().unwrap().push(m),
        )
        .unwrap();
    let executor = Arc::new(SingleThreadedExecutor::new());
    executor.add_node(&node).unwrap();
    let e = executor.clone();
    let spinner = std::thread::spawn(move || e.spin());

    let p = path.to_str().unwrap();
    let remap_a = format!("/a:={a}");
    let remap_b = format!("/b:={b}");
    let args = [
        "play",
        p,
        "--wait-for-subscribers",
        "--rate",
        "4",
        "--clock",
        "200",
        "--remap",
        &remap_a,
        &remap_b,
    ];
    let played = run(&mut bag(&domain, &args)).success().stdout_text();
    assert!(played.contains("Played 12 messages"), "{played}");
    let deadline = Instant::now() + HANG;
    while heard.lock().unwrap().len() < 12 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    hibari_testkit::cancel_and_join(spinner, HANG, "the listener's spinner", || {
        executor.cancel()
    })
    .unwrap();

    let mut got = heard.lock().unwrap().clone();
    assert_eq!(got.len(), 12, "heard {} of 12 messages", got.len());
    // The order the player published in (each subscription hears its own
    // in order; across the two, the source timestamps tell).
    got.sort_by_key(|(_, _, stamp)| *stamp);
    for (i, (w, (topic, bytes, _))) in written.as_array().unwrap().iter().zip(&got).enumerate() {
        let want_topic = if w["topic"] == "/a" { &a } else { &b };
        assert_eq!(topic, want_topic, "message {i}");
        assert_eq!(
            common::hex(bytes),
            w["hex"].as_str().unwrap(),
            "message {i} on {topic}"
        );
    }

    // /clock said the bag's time (it starts at 1_700_000_000 s) while playing.
    let clocks = clocks.lock().unwrap();
    assert!(!clocks.is_empty(), "no /clock message");
    assert!(
        clocks.iter().all(|c| c.clock.sec == 1_700_000_000),
        "{clocks:?}"
    );

    let info = run(&mut bag(&domain, &["info", p, "--json"]))
        .success()
        .json();
    assert_eq!(info["message_count"], 12);
    assert_eq!(info["topics"][1]["type"], "bag_test_msgs/msg/Reading");
}

#[test]
fn a_recorder_killed_by_sigkill_leaves_a_bag_that_reindex_makes_whole() {
    let domain = TestDomain::reserve();
    let dir = tempdir().unwrap();
    let out = dir.path().join("killed");
    let topic = unique_topic("killed");
    let context = Context::with_domain(domain.id());
    let node = context.create_node("talker").unwrap();
    let strings = node
        .create_publisher::<RosString>(&topic, QosProfile::default())
        .unwrap();
    let stderr = dir.path().join("record.err");
    let args = [
        topic.as_str(),
        "-o",
        out.to_str().unwrap(),
        "--compression-mode",
        "chunk",
    ];
    let mut recorder = spawn_recorder(&domain, &args, &stderr);
    wait_line(&recorder, "Subscribed to topic");
    assert!(strings.wait_for_subscribers(1, HANG));
    for i in 0..30 {
        strings
            .publish(RosString {
                data: format!("kept {i}"),
            })
            .unwrap();
    }
    let file = out.join("killed_0.mcap");
    wait_recorded(&domain, &file, 30);
    signal_and_wait(&mut recorder, "KILL");
    assert_no_panic(&stderr);
    assert!(!out.join("metadata.yaml").exists());

    // Without a summary, info reads the file whole and says so.
    let o = out.to_str().unwrap();
    let unfinished = run(&mut bag(&domain, &["info", o]));
    assert_eq!(unfinished.code, Some(0), "{}", unfinished.stderr);
    assert!(
        unfinished.stderr.contains("never finished"),
        "{}",
        unfinished.stderr
    );

    let reindexed = run(&mut bag(&domain, &["reindex", o]))
        .success()
        .stdout_text();
    assert!(
        reindexed.contains("rebuilt with 30 messages"),
        "{reindexed}"
    );
    assert!(out.join("metadata.yaml").exists());
    let info = run(&mut bag(&domain, &["info", o])).success().stdout_text();
    assert!(info.contains("Messages:          30"), "{info}");
    let oracle: Value = serde_json::from_str(&python(READ_BAG, &[o])).unwrap();
    let data: Vec<&str> = oracle["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["data"].as_str().unwrap())
        .collect();
    assert_eq!(
        data,
        (0..30).map(|i| format!("kept {i}")).collect::<Vec<_>>()
    );
}

/// A copy of `bag`'s MCAP file changed by `edit`.
fn damaged(bag: &Path, name: &str, edit: impl FnOnce(&mut Vec<u8>)) -> PathBuf {
    let mut bytes = std::fs::read(bag.join("good.mcap")).unwrap();
    edit(&mut bytes);
    let path = bag.parent().unwrap().join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn truncated_or_corrupt_files_are_errors_that_name_the_offset() {
    let domain = TestDomain::reserve();
    let dir = tempdir().unwrap();
    let good = dir.path().join("good");
    python(WRITE_BAG, &[good.to_str().unwrap(), "40"]);
    let size = std::fs::metadata(good.join("good.mcap")).unwrap().len() as usize;

    let truncated = damaged(&good, "truncated.mcap", |b| b.truncate(size / 2));
    let t = truncated.to_str().unwrap();
    for verb in ["info", "play"] {
        run(&mut bag(&domain, &[verb, t])).failure().stderr_has(&[
            "truncated.mcap is damaged at offset ",
            "(truncated)",
            "reindex",
        ]);
    }
    let repaired = run(&mut bag(&domain, &["reindex", t]))
        .success()
        .stdout_text();
    assert!(
        repaired.contains("dropped what follows offset"),
        "{repaired}"
    );
    let kept = run(&mut bag(&domain, &["info", "--json", t]))
        .success()
        .json();
    assert!(kept["message_count"].as_u64().unwrap() < 40, "{kept}");

    // The first record's opcode zeroed: the summary is intact, the data is not.
    let zeroed = damaged(&good, "zeroed.mcap", |b| b[8] = 0);
    run(&mut bag(&domain, &["play", zeroed.to_str().unwrap()]))
        .failure()
        .stderr_has(&["damaged at offset 8", "opcode 0x00"]);

    // The footer points the summary past the end.
    let footer = damaged(&good, "footer.mcap", |b| {
        let at = b.len() - 8 - 20;
        b[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    });
    run(&mut bag(&domain, &["info", footer.to_str().unwrap()]))
        .failure()
        .stderr_has(&["footer.mcap: the Footer at offset", "outside the file"]);

    let garbage = damaged(&good, "garbage.mcap", |b| b.truncate(5));
    run(&mut bag(&domain, &["info", garbage.to_str().unwrap()]))
        .failure()
        .stderr_has(&["is not an MCAP file", "(offset 0)"]);
}

#[test]
fn record_needs_topics_and_a_new_directory() {
    let domain = TestDomain::reserve();
    let dir = tempdir().unwrap();
    run(&mut bag(&domain, &["record", "-o", "x"]))
        .failure()
        .stderr_has(&["say what to record"]);
    let d = dir.path().to_str().unwrap();
    run(&mut bag(&domain, &["record", "-a", "-o", d]))
        .failure()
        .stderr_has(&["exists already"]);
    run(&mut bag(&domain, &["info", &format!("{d}/none")]))
        .failure()
        .stderr_has(&["no bag at"]);
}

/// Waits until the file `path` contains `text`.
fn wait_file_has(path: &Path, text: &str) -> String {
    let deadline = Instant::now() + HANG;
    loop {
        let got = std::fs::read_to_string(path).unwrap_or_default();
        if got.contains(text) {
            return got;
        }
        assert!(
            Instant::now() < deadline,
            "{} never said {text:?}:\n{got}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn recording_all_topics_finds_those_that_appear_later_and_skips_unknown_types() {
    let domain = TestDomain::reserve();
    let dir = tempdir().unwrap();
    let out = dir.path().join("all");
    let stderr = dir.path().join("record.err");
    let args = [
        "-a",
        "-x",
        "^/(rosout|parameter_events)$",
        "-o",
        out.to_str().unwrap(),
    ];
    let mut recorder = spawn_recorder(&domain, &args, &stderr);
    wait_line(&recorder, "Recording to");

    // Publishers that appear after the recorder started.
    let (known, unknown) = (unique_topic("late"), unique_topic("unknown"));
    let context = Context::with_domain(domain.id());
    let node = context.create_node("late_talker").unwrap();
    let strings = node
        .create_publisher::<RosString>(&known, QosProfile::default().transient_local())
        .unwrap();
    let _mystery = node
        .create_generic_publisher(&unknown, "bag_test_msgs/msg/Reading", QosProfile::default())
        .unwrap();
    let line = wait_line(&recorder, "Subscribed to topic");
    assert_eq!(
        line,
        format!("Subscribed to topic '{known}' (std_msgs/msg/String)")
    );
    let warned = wait_file_has(&stderr, &format!("not recording '{unknown}'"));
    assert!(
        warned.contains("bag_test_msgs/msg/Reading is unknown"),
        "{warned}"
    );
    assert!(strings.wait_for_subscribers(1, HANG));
    for i in 0..5 {
        strings
            .publish(RosString {
                data: format!("late {i}"),
            })
            .unwrap();
    }
    wait_recorded(&domain, &out.join("all_0.mcap"), 5);
    assert_eq!(signal_and_wait(&mut recorder, "INT").code(), Some(0));
    assert_no_panic(&stderr);

    let info = run(&mut bag(
        &domain,
        &["info", "--json", out.to_str().unwrap()],
    ))
    .success()
    .json();
    let topics = info["topics"].as_array().unwrap();
    assert_eq!(topics.len(), 1, "{info}");
    assert_eq!(topics[0]["name"], known.as_str());
    assert_eq!(topics[0]["count"], 5);
    let qos = &topics[0]["offered_qos_profiles"][0];
    assert_eq!(qos["durability"], "transient_local", "{info}");
}

#[test]
fn play_skips_the_start_offset_and_plays_only_the_chosen_topics() {
    let domain = TestDomain::reserve();
    let dir = tempdir().unwrap();
    let path = dir.path().join("offset");
    python(WRITE_BAG, &[path.to_str().unwrap(), "12"]);
    let p = path.to_str().unwrap();
    // /a holds messages 0, 2, …, 10, 20 ms apart; 0.1 s in leaves 6, 8, 10.
    let args = [
        "play",
        p,
        "--start-offset",
        "0.1",
        "--topics",
        "/a",
        "--rate",
        "5",
    ];
    let played = run(&mut bag(&domain, &args)).success().stdout_text();
    assert!(played.contains("Played 3 messages"), "{played}");
    run(&mut bag(&domain, &["play", p, "--topics", "/nothing"]))
        .failure()
        .stderr_has(&["nothing to play: [\"/nothing\"] not in the bag, whose topics are /a, /b"]);
}
