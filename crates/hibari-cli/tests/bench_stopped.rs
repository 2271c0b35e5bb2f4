//! A `hibari bench` run of several experiments writes its JSON and CSV as
//! each experiment finishes: killed part way, it keeps the experiments it
//! finished, in whole files (a full run takes hours; stopped at 90 % it
//! used to keep nothing).

use std::os::unix::process::CommandExt as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The run in a process group of its own (its subscriber processes too),
/// killed whole when dropped: a failing test leaves no process behind.
struct Kill(std::process::Child);

impl Kill {
    fn kill(&mut self) {
        let group = format!("-{}", self.0.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.0.wait();
    }
}

impl Drop for Kill {
    fn drop(&mut self) {
        self.kill();
    }
}

#[test]
fn a_run_stopped_part_way_keeps_the_experiments_it_finished() {
    let dir = tempfile::tempdir().unwrap();
    let (json, csv) = (dir.path().join("r.json"), dir.path().join("r.csv"));
    let domain = hibari_testkit::TestDomain::reserve();
    // E5 after E3: a second experiment of several seconds, stopped as soon
    // as the first one's files are there.
    let mut run = Kill(
        Command::new(assert_cmd::cargo::cargo_bin("hibari"))
            .env("ROS_DOMAIN_ID", domain.to_string())
            .args([
                "bench",
                "e3-laserscan, e5-type-adapt",
                "--quick",
                "--no-peers",
            ])
            .args(["--scale", "0.02", "--json"])
            .arg(&json)
            .arg("--csv")
            .arg(&csv)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("run hibari bench"),
    );
    let deadline = Instant::now() + Duration::from_secs(120);
    while !(json.exists() && csv.exists()) {
        if let Some(status) = run.0.try_wait().unwrap() {
            panic!("the run ended ({status}) before writing the first experiment's files");
        }
        assert!(Instant::now() < deadline, "no files after 120 s");
        std::thread::sleep(Duration::from_millis(5));
    }
    run.kill();
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).expect("whole JSON");
    let experiments: Vec<&str> = report["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["published"] == false)
        .map(|r| r["experiment"].as_str().unwrap())
        .collect();
    assert!(!experiments.is_empty(), "{report}");
    assert!(
        experiments.iter().all(|e| *e == "e3-laserscan"),
        "only the finished experiment: {experiments:?}"
    );
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(
        csv.lines().count(),
        1 + report["records"].as_array().unwrap().len(),
        "the CSV has the same records: {csv}"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".part"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
