//! `hibari bench` end to end in a tiny configuration: a real subscriber
//! process over shared memory, the JSON schema, nothing lost, the plots and
//! the HTML report written.

use assert_cmd::Command;

const FIELDS: [&str; 21] = [
    "experiment",
    "system",
    "transport",
    "language",
    "size_bytes",
    "rate_hz",
    "sent",
    "received",
    "lost",
    "p50_us",
    "p90_us",
    "p99_us",
    "p999_us",
    "max_us",
    "mean_us",
    "stddev_us",
    "cpu_pub_s",
    "cpu_sub_s",
    "ctx_switches",
    "published",
    "setup",
];

#[test]
fn e3_laserscan_runs_between_two_processes_and_writes_every_output() {
    let dir = tempfile::tempdir().unwrap();
    let (json, csv, out) = (
        dir.path().join("r.json"),
        dir.path().join("r.csv"),
        dir.path().join("out"),
    );
    let domain = hibari_testkit::TestDomain::reserve();
    let assert = Command::cargo_bin("hibari")
        .unwrap()
        .env("ROS_DOMAIN_ID", domain.to_string())
        .args([
            "bench",
            "e3-laserscan",
            "--quick",
            "--no-peers",
            "--scale",
            "0.1",
        ])
        .arg("--json")
        .arg(&json)
        .arg("--csv")
        .arg(&csv)
        .arg("--out")
        .arg(&out)
        .timeout(std::time::Duration::from_secs(90))
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).to_string();
    assert!(
        stdout.contains("e3-laserscan") && stdout.contains("p50 µs"),
        "{stdout}"
    );

    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert!(report["machine"]["cpu_model"].is_string());
    let records = report["records"].as_array().unwrap();
    let measured: Vec<_> = records.iter().filter(|r| r["published"] == false).collect();
    // 3 sizes × 2 rates, one repetition
    assert_eq!(measured.len(), 6, "{report:#}");
    for r in &measured {
        for f in FIELDS {
            assert!(r.get(f).is_some(), "field {f} missing in {r}");
        }
        assert_eq!(r["system"], "hibari");
        assert_eq!(r["transport"], "shm");
        let sent = r["sent"].as_u64().unwrap();
        assert!(sent >= 3);
        assert_eq!(r["received"].as_u64(), Some(sent), "{r}");
        assert_eq!(r["lost"].as_u64(), Some(0));
        let (p50, max) = (r["p50_us"].as_f64().unwrap(), r["max_us"].as_f64().unwrap());
        assert!(p50 > 0.0 && p50 <= max, "{r}");
        assert_eq!(r["series_us"].as_array().unwrap().len() as u64, sent);
        // hibari alone in each cell: its own best.
        assert_eq!(r["vs_hibari"].as_f64(), Some(1.0), "{r}");
    }
    let csv_text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(csv_text.lines().count(), 1 + records.len());
    assert!(csv_text.starts_with("experiment,system,transport"));
    assert!(csv_text.lines().next().unwrap().contains(",vs_hibari,"));
    let headline =
        "e3-laserscan: The largest LaserScan at 100 Hz between two processes: hibari shm p50";
    assert!(stdout.contains(headline), "{stdout}");
    assert!(
        stdout.contains("no other system measured in this run"),
        "{stdout}"
    );
    for f in ["report.html", "e3-laserscan-per-message.png"] {
        let len = std::fs::metadata(out.join(f)).map(|m| m.len()).unwrap_or(0);
        assert!(len > 1000, "{f} is {len} bytes");
    }
    let png = std::fs::read(out.join("e3-laserscan-per-message.png")).unwrap();
    assert_eq!(&png[..4], b"\x89PNG");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("data:image/png;base64,"));
    // What a reader came for first: the headline and its plot, then the
    // plots, the full table last.
    let at = |what: &str| html.find(what).unwrap_or_else(|| panic!("no {what:?}"));
    assert!(at("<h2>Headlines</h2>") < at("hibari shm p50"));
    assert!(at("hibari shm p50") < at("alt=\"e3-laserscan-headline.png\""));
    assert!(at("alt=\"e3-laserscan-headline.png\"") < at("<h2>Plots</h2>"));
    assert!(at("<h2>Plots</h2>") < at("<h2>Every series</h2>"));
    assert!(at("<h2>Every series</h2>") < at("p50 µs"));
}

#[test]
fn an_unknown_experiment_is_refused_with_the_list() {
    Command::cargo_bin("hibari")
        .unwrap()
        .args(["bench", "e9-nothing"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("e1-images"));
}

/// `--json -` and `--csv -` write to standard output for scripts: the
/// document alone, the table on standard error; both at once is refused.
#[test]
fn json_or_csv_go_to_standard_output_with_a_dash() {
    let run = |flag: &str| {
        let domain = hibari_testkit::TestDomain::reserve();
        let out = Command::cargo_bin("hibari")
            .unwrap()
            .env("ROS_DOMAIN_ID", domain.to_string())
            .args(["bench", "e3-laserscan", "--quick", "--no-peers"])
            .args(["--scale", "0.02", flag, "-"])
            .timeout(std::time::Duration::from_secs(90))
            .assert()
            .success()
            .get_output()
            .clone();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(stderr.contains("p50 µs"), "the table on stderr: {stderr}");
        String::from_utf8(out.stdout).unwrap()
    };
    let json = run("--json");
    let report: serde_json::Value = serde_json::from_str(&json).expect("stdout is the JSON");
    let measured = measured(&report);
    assert!(!measured.is_empty(), "{json}");
    let csv = run("--csv");
    assert!(csv.starts_with("experiment,system,transport"), "{csv}");
    assert_eq!(
        csv.lines().count(),
        1 + report["records"].as_array().unwrap().len(),
        "one row per record: {csv}"
    );
    Command::cargo_bin("hibari")
        .unwrap()
        .args(["bench", "e3-laserscan", "--json", "-", "--csv", "-"])
        .timeout(std::time::Duration::from_secs(30))
        .assert()
        .failure()
        .stderr(predicates::str::contains("standard output"));
}

/// Runs `hibari bench <args> --json <tmp>` and returns the report.
fn run_json(args: &[&str]) -> (serde_json::Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let domain = hibari_testkit::TestDomain::reserve();
    let assert = Command::cargo_bin("hibari")
        .unwrap()
        .env("ROS_DOMAIN_ID", domain.to_string())
        .arg("bench")
        .args(args)
        .arg("--json")
        .arg(&json)
        .timeout(std::time::Duration::from_secs(240))
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).to_string();
    let report = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    (report, stdout)
}

fn measured(report: &serde_json::Value) -> Vec<&serde_json::Value> {
    let records = report["records"].as_array().unwrap();
    records.iter().filter(|r| r["published"] == false).collect()
}

#[test]
fn the_latency_sweep_runs_every_transport_open_loop_in_a_tiny_configuration() {
    let (report, stdout) = run_json(&["latency", "--quick", "--no-peers", "--scale", "0.01"]);
    let m = measured(&report);
    // 4 sizes × 3 rates × (hibari inproc, hibari shm, hibari shm loan, hibari shm
    // reused, hibari-shm transport API, iceoryx2), plus raw Zenoh when this build has it.
    let core: Vec<_> = m.iter().filter(|r| r["system"] != "zenoh").collect();
    assert_eq!(core.len(), 72, "{stdout}");
    for path in ["shm loan", "shm reused"] {
        let n = m.iter().filter(|r| r["transport"] == path).count();
        assert_eq!(n, 12, "{path} at every size and rate: {stdout}");
    }
    for r in &m {
        for f in FIELDS {
            assert!(r.get(f).is_some(), "field {f} missing in {r}");
        }
        let (sent, recv, lost) = (
            r["sent"].as_u64().unwrap(),
            r["received"].as_u64().unwrap(),
            r["lost"].as_u64().unwrap(),
        );
        assert!(sent >= 3, "{r}");
        assert_eq!(recv + lost, sent, "{r}");
        assert_eq!(r["count"].as_u64(), Some(recv), "{r}");
        assert_ne!(
            r["setup"], "two processes, closed loop",
            "--quick has no ping-pong"
        );
    }
    for system in ["iceoryx2", "hibari"] {
        let rates: Vec<f64> = m
            .iter()
            .filter(|r| r["system"] == system && r["size_bytes"] == 64)
            .map(|r| r["rate_hz"].as_f64().unwrap())
            .collect();
        for rate in [100.0, 1000.0, 0.0] {
            assert!(rates.contains(&rate), "{system} @ {rate} Hz: {rates:?}");
        }
    }
    let zenoh_rows = m.iter().any(|r| r["system"] == "zenoh");
    let zenoh_note = report["notes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n.as_str().unwrap_or("").contains("--features zenoh"));
    assert!(
        zenoh_rows || zenoh_note,
        "zenoh neither measured nor explained: {stdout}"
    );
}

#[test]
fn e5_runs_the_six_set_ups_of_the_write_up() {
    let (report, stdout) = run_json(&["e5-type-adapt", "--quick", "--scale", "0.05"]);
    let all = measured(&report);
    let m: Vec<_> = all.iter().filter(|r| r["system"] == "hibari").collect();
    assert_eq!(m.len(), 6, "{stdout}");
    let mut setups: Vec<String> = m
        .iter()
        .map(|r| {
            format!(
                "{} / {}",
                r["setup"].as_str().unwrap(),
                r["transport"].as_str().unwrap()
            )
        })
        .collect();
    setups.sort();
    assert_eq!(
        setups,
        [
            "one process / inproc Image",
            "one process / inproc adapted",
            "one process, no intra-process / shm Image",
            "one process, no intra-process / shm adapted",
            "two processes / shm Image",
            "two processes / shm adapted",
        ],
        "{stdout}"
    );
    for r in &m {
        assert_eq!(r["received"], r["sent"], "{r}");
        assert!(r["cpu_pub_s"].as_f64().unwrap() > 0.0, "{r}");
    }
    // Stock ROS 2 in the same run: 1080p at 30 Hz, the subscriber comparing nothing.
    assert_eq!(
        ros2_series(&all, 1920 * 1080 * 3),
        [
            "c fast dds [one process]",
            "c fast dds shm [two processes]",
            "python fast dds [one process]",
            "python fast dds shm [two processes]",
        ],
        "{stdout}"
    );
    for r in all.iter().filter(|r| r["system"] == "ros2") {
        assert!(
            r["note"].as_str().unwrap().ends_with("bytes not compared"),
            "{r}"
        );
        assert!(r["cpu_pub_s"].as_f64().unwrap() > 0.0, "{r}");
        let one = r["setup"] == "one process";
        assert_eq!(r["cpu_sub_s"].as_f64().unwrap() > 0.0, !one, "{r}");
    }
}

/// The ROS 2 series of a report's measured records, as "language transport
/// [setup]", sorted, after checking that each arrived whole: at least 3
/// messages, all received, one latency per message, `size` payload bytes,
/// and every byte exact unless the note says they were not compared.
fn ros2_series(m: &[&serde_json::Value], size: u64) -> Vec<String> {
    let mut out = Vec::new();
    for r in m.iter().filter(|r| r["system"] == "ros2") {
        let sent = r["sent"].as_u64().unwrap();
        assert!(sent >= 3, "{r}");
        assert_eq!(r["received"].as_u64(), Some(sent), "{r}");
        assert_eq!(r["series_us"].as_array().unwrap().len() as u64, sent, "{r}");
        assert_eq!(r["size_bytes"].as_u64(), Some(size), "{r}");
        let note = r["note"].as_str().unwrap();
        let exact = note.ends_with(&format!("0 of {sent} not exact"));
        assert!(exact || note.ends_with("bytes not compared"), "{r}");
        let (p50, max) = (r["p50_us"].as_f64().unwrap(), r["max_us"].as_f64().unwrap());
        assert!(p50 > 0.0 && p50 <= max, "{r}");
        out.push(format!(
            "{} {} [{}]",
            r["language"].as_str().unwrap(),
            r["transport"].as_str().unwrap(),
            r["setup"].as_str().unwrap()
        ));
    }
    out.sort();
    out
}

/// With the peers, E3 runs rclpy and the native rcl peer at every size and
/// rate beside hibari, two processes over Fast DDS's shared memory.
#[test]
fn e3_runs_stock_ros2_rclpy_and_rcl_at_every_size_and_rate() {
    let (report, stdout) = run_json(&["e3-laserscan", "--quick", "--scale", "0.1"]);
    let m = measured(&report);
    for ranges in [10u64, 1000, 100_000] {
        for rate in [100.0, 10.0] {
            let cell: Vec<_> = m
                .iter()
                .filter(|r| r["size_bytes"] == ranges * 4 && r["rate_hz"] == rate)
                .copied()
                .collect();
            assert_eq!(
                ros2_series(&cell, ranges * 4),
                [
                    "c fast dds shm [two processes]",
                    "python fast dds shm [two processes]"
                ],
                "{ranges} ranges at {rate} Hz: {stdout}"
            );
            assert!(cell.iter().any(|r| r["system"] == "hibari"), "{stdout}");
        }
    }
}

#[test]
fn e1_runs_raw_and_jpeg_in_one_and_two_processes() {
    let (report, stdout) = run_json(&["e1-images", "--quick", "--no-peers", "--scale", "0.05"]);
    let m = measured(&report);
    let mut t: Vec<&str> = m.iter().map(|r| r["transport"].as_str().unwrap()).collect();
    t.sort();
    assert_eq!(
        t,
        ["inproc jpeg q30", "inproc raw", "shm jpeg q30", "shm raw"],
        "{stdout}"
    );
    for r in &m {
        assert_eq!(r["received"], r["sent"], "{r}");
        assert_eq!(r["size_bytes"], 640 * 480 * 3);
        if r["transport"].as_str().unwrap().contains("jpeg") {
            // The peers' encoder (libjpeg-dev is installed by scripts/setup.sh).
            assert!(
                r["note"]
                    .as_str()
                    .unwrap()
                    .contains("B mean (libjpeg-turbo)"),
                "{r}"
            );
        }
    }
}

/// With the peers on, E1 runs stock ROS 2 (rclpy raw, the native rcl peer raw
/// and JPEG, in two processes and one), and the ROS 1 peer's raw and JPEG
/// cells (± tcpNoDelay) when scripts/ros1-peer.sh has installed and built it,
/// and otherwise says how to get it.
#[test]
fn e1_runs_ros2_and_the_ros1_peer_raw_and_jpeg_or_says_how_to_get_ros1() {
    let (report, stdout) = run_json(&["e1-images", "--quick", "--scale", "0.05"]);
    let m = measured(&report);
    assert_eq!(
        ros2_series(&m, 640 * 480 * 3),
        [
            "c fast dds [one process]",
            "c fast dds jpeg q30 [one process]",
            "c fast dds shm [two processes]",
            "c fast dds shm jpeg q30 [two processes]",
            "python fast dds [one process]",
            "python fast dds shm [two processes]",
        ],
        "{stdout}"
    );
    for r in m.iter().filter(|r| r["system"] == "ros2") {
        let ratio = r["vs_hibari"].as_f64();
        assert!(ratio.is_some_and(|v| v > 0.0), "no ratio to hibari: {r}");
        // A JPEG series is compared with hibari's JPEG series of its set-up.
        let transport = r["transport"].as_str().unwrap();
        if transport.contains("jpeg") {
            let hibari = m
                .iter()
                .find(|h| {
                    h["system"] == "hibari"
                        && h["setup"] == r["setup"]
                        && h["transport"].as_str().unwrap().contains("jpeg")
                })
                .unwrap();
            let want = r["p50_us"].as_f64().unwrap() / hibari["p50_us"].as_f64().unwrap();
            assert!((ratio.unwrap() - want).abs() < 1e-9, "{r} against {hibari}");
        }
    }
    let ros1: Vec<_> = m.iter().filter(|r| r["system"] == "ros1").collect();
    if ros1.is_empty() {
        let notes = report["notes"].to_string();
        assert!(notes.contains("scripts/ros1-peer.sh"), "{stdout}");
        return;
    }
    let mut t: Vec<&str> = ros1
        .iter()
        .map(|r| r["transport"].as_str().unwrap())
        .collect();
    t.sort();
    assert_eq!(
        t,
        [
            "tcpros jpeg q30",
            "tcpros raw",
            "tcpros+tcpNoDelay jpeg q30",
            "tcpros+tcpNoDelay raw"
        ],
        "{stdout}"
    );
    for r in &ros1 {
        let sent = r["sent"].as_u64().unwrap();
        assert!(sent >= 3, "{r}");
        assert_eq!(r["received"].as_u64(), Some(sent), "{r}");
        assert_eq!(r["series_us"].as_array().unwrap().len() as u64, sent, "{r}");
        assert!(r["size_bytes"].as_u64().unwrap() >= 640 * 480 * 3, "{r}");
        if r["transport"].as_str().unwrap().contains("jpeg") {
            assert!(r["note"].as_str().unwrap().contains("B mean"), "{r}");
        }
    }
}

#[test]
fn e2_and_e4_give_records_or_say_why_not() {
    for exp in ["e2-bridge", "e4-python"] {
        // --scale shrinks the ROS 2 cells of E4, not the external programs.
        let (report, stdout) = run_json(&[exp, "--quick", "--scale", "0.1"]);
        let notes: Vec<&str> = report["notes"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|n| n.as_str())
            .collect();
        let m = measured(&report);
        // Either the program's RECORD lines became records, or a note says why there are none.
        let explained = notes.iter().any(|n| {
            n.contains("not available")
                || n.contains("no RECORD line")
                || n.contains("could not run")
        });
        assert!(!m.is_empty() || explained, "{exp}: {stdout}");
        for r in &m {
            assert_eq!(r["experiment"], exp, "{r}");
        }
    }
}

/// `dds` in its quick shape at a tiny scale, with the real peers: hibari's
/// public API, rclpy and the native rcl peer (Jazzy wheels) in processes of
/// their own, on one host and across two network namespaces (root; CI runs
/// as root), every direction, every image delivered whole.
#[test]
fn dds_runs_every_pair_between_hibari_rclpy_and_rcl_on_one_host_and_across_two() {
    let (report, stdout) = run_json(&["dds", "--quick", "--scale", "0.1"]);
    assert!(stdout.contains("ros2→hibari"), "{stdout}");
    assert_eq!(
        report["notes"].as_array().map(Vec::len),
        Some(0),
        "{report:#}"
    );
    let m = measured(&report);
    // 3 sizes × (5 (publisher, subscriber) pairs × 2 placements + hibari's
    // shared memory with DDS off + Fast DDS on UDP only), one repetition
    assert_eq!(m.len(), 36, "{report:#}");
    for (system, one_host, two_hosts) in [
        ("hibari", 6, 3),
        ("ros2", 9, 6),
        ("hibari→ros2", 3, 3),
        ("ros2→hibari", 3, 3),
    ] {
        for (setup, want) in [("one host", one_host), ("two hosts (netns)", two_hosts)] {
            let cells = m
                .iter()
                .filter(|r| r["system"] == system && r["setup"] == setup)
                .count();
            assert_eq!(cells, want, "{system} {setup}: {report:#}");
            let native = m
                .iter()
                .filter(|r| r["language"] == "c" && r["setup"] == setup)
                .count();
            assert_eq!(native, 3, "rcl → rcl {setup}: {report:#}");
        }
    }
    for variant in ["shm (dds off)", "fast dds udp loopback"] {
        let n = m.iter().filter(|r| r["transport"] == variant).count();
        assert_eq!(n, 3, "{variant}: {report:#}");
    }
    for r in &m {
        assert_eq!(r["experiment"], "dds");
        let sent = r["sent"].as_u64().unwrap();
        assert!(sent >= 3, "{r}");
        assert_eq!(r["received"].as_u64(), Some(sent), "{r}");
        let note = r["note"].as_str().unwrap();
        assert!(note.ends_with(&format!("0 of {sent} not exact")), "{r}");
        let (p50, max) = (r["p50_us"].as_f64().unwrap(), r["max_us"].as_f64().unwrap());
        assert!(p50 > 0.0 && p50 <= max, "{r}");
        assert!(r["cpu_pub_s"].as_f64().unwrap() > 0.0, "{r}");
        assert!(r["cpu_sub_s"].as_f64().unwrap() > 0.0, "{r}");
    }
    let two_hosts_hibari = m
        .iter()
        .find(|r| r["system"] == "hibari" && r["setup"] == "two hosts (netns)")
        .unwrap();
    assert_eq!(two_hosts_hibari["transport"], "dds udp");
}

/// Without peers `dds` runs hibari → hibari only, and says nothing failed.
#[test]
fn dds_without_peers_runs_hibari_alone() {
    let (report, _) = run_json(&["dds", "--quick", "--no-peers", "--scale", "0.1"]);
    assert_eq!(
        report["notes"].as_array().map(Vec::len),
        Some(0),
        "{report:#}"
    );
    let m = measured(&report);
    // 3 sizes × (two hosts, one host, one host with DDS off)
    assert_eq!(m.len(), 9, "{report:#}");
    assert!(m.iter().all(|r| r["system"] == "hibari"), "{report:#}");
}

/// `scale`: one publisher to 1, 2, 4 and 8 subscriber processes — hibari's
/// typed publish and loan over shared memory, iceoryx2 event-driven through
/// the same runner, and the native rcl peer over Fast DDS — every
/// subscriber getting every message; many topics between two processes; the
/// plots against the subscriber and the topic count.
#[test]
fn scale_runs_one_publisher_to_one_two_four_and_eight_subscriber_processes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let out_arg = out.to_str().unwrap();
    let (report, stdout) = run_json(&["scale", "--quick", "--scale", "0.1", "--out", out_arg]);
    let m = measured(&report);
    let fanout = [
        ("hibari", "shm"),
        ("hibari", "shm loan"),
        ("iceoryx2", "ipc event"),
        ("ros2", "fast dds shm"),
    ];
    for (system, transport) in fanout {
        for size in [64u64, 6_220_800] {
            let mut cells: Vec<(u64, u64)> = m
                .iter()
                .filter(|r| r["system"] == system && r["transport"] == transport)
                .filter(|r| r["size_bytes"] == size)
                .filter_map(|r| {
                    let setup = r["setup"].as_str().unwrap();
                    Some((r, hibari_bench::plots::subscribers_of(setup)?))
                })
                .map(|(r, n)| {
                    let sent = r["sent"].as_u64().unwrap();
                    assert_eq!(r["received"].as_u64(), Some(sent), "{r}");
                    assert!(r["cpu_sub_s"].as_f64().unwrap() > 0.0, "{r}");
                    (n, sent / n)
                })
                .collect();
            cells.sort();
            let counts: Vec<u64> = cells.iter().map(|c| c.0).collect();
            assert_eq!(
                counts,
                [1, 2, 4, 8],
                "{system} {transport} {size}: {stdout}"
            );
            // Every subscriber counted: deliveries = messages × subscribers.
            assert!(
                cells.iter().all(|c| c.1 == cells[0].1 && c.1 >= 3),
                "{cells:?}"
            );
        }
    }
    // Many topics between two processes (1 000 × 0.1, 100 × 0.1, 10 × 0.1),
    // hibari, iceoryx2 and the native ROS 2 peer: every message of every
    // topic arrives, and both processes' CPU counts.
    for (system, transport) in [fanout[0], fanout[2], fanout[3]] {
        let mut topics: Vec<u64> = m
            .iter()
            .filter(|r| r["system"] == system && r["transport"] == transport)
            .filter_map(|r| {
                let n = hibari_bench::experiments::topics_of(r["setup"].as_str()?)?;
                let sent = r["sent"].as_u64().unwrap();
                assert_eq!(r["received"].as_u64(), Some(sent), "{r}");
                assert_eq!(sent % n, 0, "the same count on every topic: {r}");
                assert!(sent / n >= 3, "{r}");
                assert!(r["cpu_pub_s"].as_f64().unwrap() > 0.0, "{r}");
                assert!(r["cpu_sub_s"].as_f64().unwrap() > 0.0, "{r}");
                Some(n)
            })
            .collect();
        topics.sort();
        assert_eq!(topics, [1, 10, 100], "{system}: {stdout}");
    }
    // Throughput, as fast as possible between two processes: hibari's typed
    // publish, loan and transport API, iceoryx2 and the native ROS 2 peer,
    // every message delivered, messages per second over the measured span,
    // and each compared with hibari's best.
    for size in [64u64, 6_220_800] {
        let mut series: Vec<String> = m
            .iter()
            .filter(|r| r["setup"] == hibari_bench::experiments::THROUGHPUT)
            .filter(|r| r["size_bytes"] == size && r["rate_hz"] == 0.0)
            .map(|r| {
                let sent = r["sent"].as_u64().unwrap();
                assert!(sent >= 3, "{r}");
                assert_eq!(r["received"].as_u64(), Some(sent), "{r}");
                let per_s = r["throughput_msgs_s"].as_f64().unwrap_or(0.0);
                let duration = r["duration_s"].as_f64().unwrap();
                assert!((per_s * duration - sent as f64).abs() < 0.5, "{r}");
                assert!(r["vs_hibari"].as_f64().is_some(), "{r}");
                format!("{} {}", r["system"].as_str().unwrap(), r["transport"])
            })
            .collect();
        series.sort();
        assert_eq!(
            series,
            [
                "hibari \"shm loan\"",
                "hibari \"shm transport API\"",
                "hibari \"shm\"",
                "iceoryx2 \"ipc event\"",
                "ros2 \"fast dds shm\""
            ],
            "{size}: {stdout}"
        );
    }
    for f in [
        "scale-p50-64.png",
        "scale-cpu-6220800.png",
        "scale-topics-p99.png",
        "scale-topics-cpu.png",
    ] {
        let png = std::fs::read(out.join(f)).unwrap_or_default();
        assert!(png.starts_with(b"\x89PNG"), "{f}");
    }
}
