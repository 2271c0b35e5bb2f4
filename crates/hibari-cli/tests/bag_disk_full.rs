//! `hibari bag record` onto a disk that fills up: a 4 MiB tmpfs mounted for
//! the test (CI runs as root; without root the test fails saying so). The
//! recorder must stop with a clear message and a non-zero exit, and leave
//! a file that `hibari bag info` still reads up to its last complete chunk.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::bag::{bag, spawn_recorder, wait_line};
use common::run;
use hibari::msg::sensor_msgs::msg::Image;
use hibari::{Context, QosProfile};
use hibari_testkit::{tempdir, unique_topic, TestDomain, HANG};

/// A tmpfs of `size` mounted at `at`, unmounted when dropped.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(at: &Path, size: &str) -> Tmpfs {
        std::fs::create_dir_all(at).unwrap();
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(at)
            .status()
            .expect("mount runs");
        assert!(
            status.success(),
            "mounting a tmpfs failed (this test needs root, as CI has): {status}"
        );
        Tmpfs(at.to_owned())
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn a_full_disk_stops_recording_with_a_clear_error_and_a_readable_file() {
    let domain = TestDomain::reserve();
    let dir = tempdir().unwrap();
    let disk = Tmpfs::mount(&dir.path().join("disk"), "4m");
    let out = disk.0.join("bag");
    let topic = unique_topic("filling");
    let context = Context::with_domain(domain.id());
    let node = context.create_node("filler").unwrap();
    let images = node
        .create_publisher::<Image>(&topic, QosProfile::default().keep_last(100))
        .unwrap();
    let stderr = dir.path().join("record.err");
    let mut recorder = spawn_recorder(&domain, &[&topic, "-o", out.to_str().unwrap()], &stderr);
    wait_line(&recorder, "Subscribed to topic");
    assert!(images.wait_for_subscribers(1, HANG));

    // 64 KiB frames until the recorder gives up (a 4 MiB disk takes ~60).
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    let publisher = std::thread::spawn(move || {
        let mut sent = 0u32;
        while !s.load(Ordering::Relaxed) && sent < 100_000 {
            let frame = Image {
                height: 128,
                width: 512,
                encoding: "mono8".into(),
                step: 512,
                data: vec![(sent % 251) as u8; 128 * 512],
                ..Image::default()
            };
            // The recorder may be gone: a failed publish is not the test's subject.
            let _ = images.publish(frame);
            sent += 1;
            std::thread::sleep(Duration::from_millis(2));
        }
    });
    let deadline = Instant::now() + HANG;
    let status = loop {
        if let Some(status) = recorder.child().try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "the recorder never stopped on a full disk"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    stop.store(true, Ordering::Relaxed);
    publisher.join().unwrap();
    let text = std::fs::read_to_string(&stderr).unwrap();
    assert_eq!(status.code(), Some(1), "stderr:\n{text}");
    assert!(!text.contains("panicked"), "{text}");
    assert!(text.contains("No space left on device"), "{text}");

    // What reached the disk before it filled reads back: copied off the
    // full disk, `reindex` keeps every complete chunk and `info` reads them.
    let copy = dir.path().join("copy");
    std::fs::create_dir(&copy).unwrap();
    std::fs::copy(out.join("bag_0.mcap"), copy.join("bag_0.mcap")).unwrap();
    let reindexed = run(&mut bag(&domain, &["reindex", copy.to_str().unwrap()]));
    assert_eq!(reindexed.code, Some(0), "{}", reindexed.stderr);
    let info = run(&mut bag(
        &domain,
        &["info", "--json", copy.to_str().unwrap()],
    ));
    assert_eq!(info.code, Some(0), "{}", info.stderr);
    let count = info.json()["message_count"].as_u64().unwrap();
    assert!(count > 0, "the full disk's bag holds no message");
    drop(disk);
}
