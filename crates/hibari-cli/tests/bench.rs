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
    let assert = Command::cargo_bin("hibari")
        .unwrap()
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
    }
    let csv_text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(csv_text.lines().count(), 1 + records.len());
    assert!(csv_text.starts_with("experiment,system,transport"));
    for f in ["report.html", "e3-laserscan-per-message.png"] {
        let len = std::fs::metadata(out.join(f)).map(|m| m.len()).unwrap_or(0);
        assert!(len > 1000, "{f} is {len} bytes");
    }
    let png = std::fs::read(out.join("e3-laserscan-per-message.png")).unwrap();
    assert_eq!(&png[..4], b"\x89PNG");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("data:image/png;base64,"));
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
