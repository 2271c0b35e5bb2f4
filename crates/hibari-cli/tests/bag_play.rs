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

use common::bag::{bag, signal_and_wait, spawn_bag, wait_line, wait_until, write_bag, Listener};
use common::run;
use hibari::{Context, Reliability};
use hibari_testkit::{tempdir, unique_topic, TestDomain};

#[test]
fn a_sqlite3_bag_written_by_rosbags_shows_in_info_and_plays_every_message_byte_exact() {
    let domain = TestDomain::reserve();
    let dir = tempdir().unwrap();
    let path = dir.path().join("old");
    let p = path.to_str().unwrap();
    let written = write_bag(&path, 12, "sqlite3", 8);
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
            .filter(|(t, _, _)| t == topic)
            .map(|(_, cdr, _)| common::hex(cdr))
            .collect();
        assert_eq!(heard, want, "{topic}");
    }
}

#[test]
fn damaged_db3_files_are_clear_errors() {
    let domain = TestDomain::reserve();
    let dir = tempdir().unwrap();
    let path = dir.path().join("cut");
    write_bag(&path, 400, "sqlite3", 9);
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
    write_bag(&path, 4, "mcap", 9);
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
    assert_eq!(signal_and_wait(&mut player, "INT").code(), Some(0));
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
