//! iceoryx2 through hibari-bench's N-process runner (the `scale`
//! experiment's fan-out and many-topics series), driven from this test
//! process with `hibari bench --child` as the subscriber processes: every
//! subscriber gets every message, and no file of the series is left behind.

use std::path::Path;

use hibari_bench::workload::{Kind, Schedule};
use hibari_bench::{run_series, ChildCommand, SeriesRunError, SeriesSpec, SeriesSystem};

fn child() -> ChildCommand {
    ChildCommand {
        program: assert_cmd::cargo::cargo_bin("hibari"),
        args: vec!["bench".into(), "--child".into()],
    }
}

fn spec(kind: Kind, subscribers: usize, topics: usize, count: u64) -> SeriesSpec {
    SeriesSpec {
        kind,
        schedule: Schedule {
            rate_hz: 200.0,
            warmup: 2,
            count,
            subscribers,
            topics,
        },
        depth: 10,
        two_processes: true,
        shm_in_one_process: false,
        system: SeriesSystem::Iceoryx2,
    }
}

/// Files under `dir` (recursively) whose name starts with `prefix`.
fn files_with(dir: &Path, prefix: &str) -> Vec<String> {
    let mut found = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with(prefix) {
            found.push(e.path().display().to_string());
        }
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            found.extend(files_with(&e.path(), prefix));
        }
    }
    found
}

/// The series' files carry this process's id (`hbipc_<pid>_s…`).
fn left_behind() -> Vec<String> {
    let prefix = format!("hbipc_{}_s", std::process::id());
    let mut found = files_with(Path::new("/dev/shm"), &prefix);
    found.extend(files_with(&hibari_bench_ipc::iceoryx2_root_path(), &prefix));
    found
}

/// A process id nobody runs now.
fn dead_pid() -> u32 {
    (4_000_000..4_194_304)
        .find(|p| !Path::new(&format!("/proc/{p}")).exists())
        .expect("a free pid")
}

#[test]
fn iceoryx2_fans_out_to_every_subscriber_process_and_carries_many_topics() {
    // What a killed run left goes with the next series.
    let stale = format!("/dev/shm/hbipc_{}_s0_left_by_a_killed_run", dead_pid());
    std::fs::write(&stale, b"").unwrap();
    // One publisher, three subscriber processes, 64 B and 1 MiB.
    for size in [64, 1 << 20] {
        let o = run_series(&spec(Kind::Bytes { size }, 3, 1, 20), &child()).unwrap();
        assert_eq!(o.sent, 60, "20 messages × 3 subscribers");
        assert_eq!(
            o.latencies_ns.len(),
            60,
            "every subscriber got every message"
        );
        assert!(
            o.latencies_ns.iter().all(|&l| l > 0),
            "{:?}",
            o.latencies_ns
        );
        assert!(o.subscriber.cpu_ns > 0 && o.publisher.cpu_ns > 0);
    }
    // Seven topics between two processes: four measured messages each.
    let o = run_series(&spec(Kind::Bytes { size: 64 }, 1, 7, 4), &child()).unwrap();
    assert_eq!((o.sent, o.latencies_ns.len()), (28, 28));
    assert!(!Path::new(&stale).exists(), "{stale} was left");
    assert_eq!(left_behind(), Vec::<String>::new());
}

/// Refused before anything is created (no file to check: the test above
/// owns this process's `hbipc_<pid>_s…` names while it runs).
#[test]
fn iceoryx2_series_refuse_what_they_cannot_carry() {
    let image = Kind::Image {
        width: 4,
        height: 4,
    };
    let e = run_series(&spec(image, 1, 1, 3), &child()).unwrap_err();
    assert!(
        matches!(e, SeriesRunError::Setup(ref m) if m.contains("byte arrays")),
        "{e}"
    );
    let mut one = spec(Kind::Bytes { size: 64 }, 1, 1, 3);
    one.two_processes = false;
    let e = run_series(&one, &child()).unwrap_err();
    assert!(
        matches!(e, SeriesRunError::Setup(ref m) if m.contains("between processes")),
        "{e}"
    );
}
