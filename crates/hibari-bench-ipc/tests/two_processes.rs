//! The harness run for real: two processes (this crate's binary as the
//! subscriber), real shared memory, futexes, eventfds and iceoryx2. No timing
//! is asserted, only counts, ordering and cleanup.

use hibari_bench_ipc::{
    iceoryx2_root_path, run_cell, CellRunError, CellSpec, Placement, Record, RunOptions,
};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn opts() -> RunOptions {
    RunOptions {
        child_exe: env!("CARGO_BIN_EXE_hibari-bench-ipc").into(),
        stall_timeout: Duration::from_secs(20),
    }
}

fn cell(system: &str, variant: &str, size: usize, touch: bool) -> CellSpec {
    CellSpec {
        system: system.into(),
        variant: variant.into(),
        size,
        touch,
        // Free: a spinning pair must not share one CPU; event cells work anywhere.
        placement: Placement::Free,
        warmup: 50,
        samples: 300,
        rate_hz: None,
        depth: 2,
    }
}

fn assert_complete_and_ordered(r: &Record, spec: &CellSpec) {
    let what = format!(
        "{}/{} {} B touch={}",
        r.system, r.variant, r.size_bytes, r.touch
    );
    assert_eq!(r.size_bytes, spec.size as u64, "{what}");
    assert_eq!(r.sent, spec.samples, "{what}");
    assert_eq!(
        r.received, spec.samples,
        "{what}: every message acknowledged"
    );
    assert_eq!(
        r.latency.count, spec.samples,
        "{what}: one latency per message"
    );
    assert_eq!(
        (r.lost, r.errors),
        (0, 0),
        "{what}: no loss, no bad payload"
    );
    let l = &r.latency;
    assert!(l.min_us > 0.0, "{what}: {l:?}");
    assert!(
        l.min_us <= l.p50_us && l.p50_us <= l.p90_us && l.p90_us <= l.p99_us,
        "{what}: {l:?}"
    );
    assert!(
        l.p99_us <= l.p999_us && l.p999_us <= l.max_us,
        "{what}: {l:?}"
    );
    assert!(
        l.mean_us >= l.min_us && l.mean_us <= l.max_us,
        "{what}: {l:?}"
    );
    assert!(
        r.cpu_pub_us_per_msg >= 0.0 && r.cpu_sub_us_per_msg >= 0.0,
        "{what}"
    );
    assert_eq!(r.ctx_vol, r.ctx_vol_pub + r.ctx_vol_sub, "{what}");
    if r.touch {
        // Reading every byte happens after the arrival stamp.
        assert!(
            l.p50_us >= r.arrival_p50_us,
            "{what}: {} < {}",
            l.p50_us,
            r.arrival_p50_us
        );
    } else {
        assert_eq!(l.p50_us, r.arrival_p50_us, "{what}");
    }
}

#[test]
fn the_floor_delivers_every_message_at_64_b_and_64_kib_with_each_wake_up() {
    for variant in ["futex", "eventfd", "spin"] {
        for size in [64, 65_536] {
            let spec = cell("floor", variant, size, false);
            let r = run_cell(&spec, &opts())
                .unwrap_or_else(|e| panic!("floor/{variant} {size} B: {e}"));
            assert_complete_and_ordered(&r, &spec);
            let mode = if variant == "spin" { "poll" } else { "event" };
            assert_eq!(r.mode, mode);
            assert!(
                r.leftover_files.is_empty() && r.files_while_running == 0,
                "memfd leaves no file"
            );
        }
    }
}

#[test]
fn the_floor_with_touch_reads_every_byte_of_a_large_payload() {
    let spec = cell("floor", "futex", 921_600, true);
    let r = run_cell(&spec, &opts()).expect("floor/futex with touch");
    assert_complete_and_ordered(&r, &spec);
}

fn prefixed(dir: &Path, prefix: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with(prefix) {
            out.push(entry.path());
        }
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            prefixed(&entry.path(), prefix, out);
        }
    }
}

/// Everything in /dev/shm and iceoryx2's root path that carries this test
/// process's cell prefix (`hbipc_<pid>_`).
fn ours() -> Vec<PathBuf> {
    let prefix = format!("hbipc_{}_", std::process::id());
    let mut found = Vec::new();
    prefixed(Path::new("/dev/shm"), &prefix, &mut found);
    prefixed(&iceoryx2_root_path(), &prefix, &mut found);
    found
}

#[test]
fn iceoryx2_runs_both_modes_and_the_harness_removes_the_files_it_left() {
    for (variant, size, touch) in [("event", 64, false), ("poll", 65_536, true)] {
        let before = ours();
        let spec = cell("iceoryx2", variant, size, touch);
        let r = run_cell(&spec, &opts()).unwrap_or_else(|e| panic!("iceoryx2/{variant}: {e}"));
        assert_complete_and_ordered(&r, &spec);
        assert!(
            r.files_while_running > 0,
            "iceoryx2 keeps files while running: {r:?}"
        );
        for left in &r.leftover_files {
            assert!(
                !Path::new(left).exists(),
                "{left} was reported and must be gone"
            );
        }
        let after = ours();
        let new: Vec<_> = after.iter().filter(|p| !before.contains(p)).collect();
        assert!(new.is_empty(), "files left behind after cleanup: {new:?}");
    }
}

#[test]
fn a_cell_fails_with_an_error_instead_of_hanging_when_the_subscriber_cannot_run() {
    let opts = RunOptions {
        child_exe: "/bin/false".into(),
        stall_timeout: Duration::from_secs(5),
    };
    let err = run_cell(&cell("floor", "futex", 64, false), &opts).expect_err("no subscriber");
    assert!(matches!(err, CellRunError::Control(_)), "{err}");
    let err = run_cell(&cell("floor", "nope", 64, false), &opts).expect_err("unknown variant");
    assert!(matches!(err, CellRunError::Spec(_)), "{err}");
}

#[test]
fn hibari_shared_memory_delivers_every_message_in_both_modes_and_leaves_no_file() {
    for variant in ["event", "poll"] {
        for size in [64, 921_600] {
            let spec = cell("hibari", variant, size, true);
            let r = run_cell(&spec, &opts())
                .unwrap_or_else(|e| panic!("hibari/{variant} {size} B: {e}"));
            assert_complete_and_ordered(&r, &spec);
            assert!(
                r.leftover_files.is_empty() && r.files_while_running == 0,
                "memfd and abstract sockets leave no file"
            );
        }
    }
}

/// Open loop between two real processes: every measured message is either
/// received once or lost, one latency per received message, the series in
/// sequence order, and a queueless system is refused.
#[test]
fn open_loop_cells_account_for_every_message_and_refuse_the_floor() {
    for (system, variant, size, rate) in [
        ("hibari", "event", 64, 1000.0),
        ("iceoryx2", "event", 65_536, 0.0),
        ("hibari", "poll", 921_600, 200.0),
    ] {
        let mut spec = cell(system, variant, size, false);
        (spec.rate_hz, spec.depth, spec.samples) = (Some(rate), 16, 200);
        let r = run_cell(&spec, &opts()).unwrap_or_else(|e| panic!("{system}/{variant}: {e}"));
        let what = format!("{system}/{variant} {size} B @ {rate} Hz: {r:?}");
        assert!(r.open_loop && r.rate_hz == rate && r.depth == 16, "{what}");
        assert_eq!(r.sent, 200, "{what}");
        assert_eq!(r.received + r.lost, r.sent, "{what}");
        assert_eq!(r.errors, 0, "{what}");
        assert_eq!(r.latency.count, r.received, "{what}");
        assert_eq!(r.series_us.len() as u64, r.received, "{what}");
        if rate > 0.0 {
            // Paced well below what any of them can carry: nothing is overwritten.
            assert_eq!(r.lost, 0, "{what}");
        }
        assert!(r.received > 0, "{what}");
        let l = &r.latency;
        assert!(
            l.p50_us > 0.0 && l.p50_us <= l.p99_us && l.p99_us <= l.max_us,
            "{what}"
        );
    }
    let mut spec = cell("floor", "futex", 64, false);
    spec.rate_hz = Some(100.0);
    let err = run_cell(&spec, &opts()).expect_err("the floor has no queue");
    assert!(matches!(err, CellRunError::Spec(_)), "{err}");
}

/// Raw Zenoh, each variant, when this crate is built with `--features zenoh`
/// (`cargo test -p hibari-bench-ipc --features zenoh`; CI does not compile
/// Zenoh): every message delivered whole and in order, the `shm` variant's
/// payloads in Zenoh's shared memory, and no socket left behind.
#[cfg(feature = "zenoh")]
#[test]
fn zenoh_delivers_every_message_over_tcp_a_unix_socket_and_its_shared_memory() {
    for variant in ["tcp", "unix", "shm"] {
        for size in [64, 921_600] {
            let spec = cell("zenoh", variant, size, true);
            let r = run_cell(&spec, &opts())
                .unwrap_or_else(|e| panic!("zenoh/{variant} {size} B: {e}"));
            assert_complete_and_ordered(&r, &spec);
            assert!(r.leftover_files.is_empty(), "{:?}", r.leftover_files);
        }
    }
}
