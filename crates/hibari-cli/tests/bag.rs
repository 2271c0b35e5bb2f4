//! `hibari bag record` and `hibari bag play`, run as the real binary
//! against publishers and subscribers of this process, with rosbags (PyPI,
//! in the repository's `.venv`) as the oracle: it reads what `hibari bag
//! record` writes and writes bags (with a type hibari does not know) for
//! `hibari bag play` to read. Bags cut short or damaged are in
//! `bag_faults.rs`.
//!
//! Each test holds a domain and a temporary directory of its own; every
//! wait is bounded by `HANG`, which only a hang reaches.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::bag::{assert_no_panic, bag, python, signal_and_wait, spawn_recorder, wait_line};
use common::bag::{wait_recorded, write_bag, Listener, READ_BAG};
use common::run;
use hibari::msg::std_msgs::msg::{Int32, String as RosString};
use hibari::{Context, QosProfile};
use hibari_testkit::lines::NoLine;
use hibari_testkit::{tempdir, unique_topic, TestDomain, HANG};
use serde_json::Value;

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

#[test]
fn playing_a_rosbags_bag_publishes_every_message_in_order_even_of_unknown_types() {
    let domain = TestDomain::reserve();
    let dir = tempdir().unwrap();
    let path = dir.path().join("written_by_rosbags");
    let written = write_bag(&path, 12, "mcap", 9);
    let (a, b) = (unique_topic("played_a"), unique_topic("played_b"));
    let listener = Listener::with_clock(
        &domain,
        &[
            (&a, "std_msgs/msg/String"),
            (&b, "bag_test_msgs/msg/Reading"),
        ],
    );

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
    let mut got = listener.wait_for(12);
    assert_eq!(got.len(), 12, "heard {} of 12 messages", got.len());
    // The order the player published in (each subscription hears its own
    // in order; across the two, the source timestamps tell).
    got.sort_by_key(|(_, _, stamp)| *stamp);
    for (i, (w, (topic, bytes, _))) in written.iter().zip(&got).enumerate() {
        let want_topic = if w["topic"] == "/a" { &a } else { &b };
        assert_eq!(topic, want_topic, "message {i}");
        assert_eq!(
            common::hex(bytes),
            w["hex"].as_str().unwrap(),
            "message {i} on {topic}"
        );
    }

    // /clock said the bag's time (it starts at 1_700_000_000 s) while playing.
    let clocks = listener.clocks();
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
    write_bag(&path, 12, "mcap", 9);
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
