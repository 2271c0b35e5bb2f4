//! `hibari bag` on bags cut short or damaged: a recorder killed by SIGKILL
//! leaves a bag that `reindex` makes whole (rosbags, in the repository's
//! `.venv`, reads it back), and truncated or corrupt files are errors that
//! name the offset.
//!
//! Each test holds a domain and a temporary directory of its own; every
//! wait is bounded by `HANG`, which only a hang reaches.

mod common;

use std::path::{Path, PathBuf};

use common::bag::{assert_no_panic, bag, python, signal_and_wait, spawn_recorder, wait_line};
use common::bag::{wait_recorded, write_bag, READ_BAG};
use common::run;
use hibari::msg::std_msgs::msg::String as RosString;
use hibari::{Context, QosProfile};
use hibari_testkit::{tempdir, unique_topic, TestDomain, HANG};
use serde_json::Value;

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
    write_bag(&good, 40, "mcap", 9);
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
