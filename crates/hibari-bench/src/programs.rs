//! `e2-bridge` and `e4-python`: programs of other parts of the project,
//! run when they are built, with `--records`. Each measured series comes
//! back as one stdout line `RECORD {json}` (the fields of [`Record`], the
//! statistics flattened); every other line is the program's own report and
//! is kept as a note. A program that prints no `RECORD` line gives no record:
//! the bench says so rather than invent one.

use std::process::Command;

use crate::experiments::Config;
use crate::record::Record;

/// The records in `stdout` (lines `RECORD {json}`) and a note per line that
/// starts with `RECORD` but does not hold one.
pub fn parse_records(stdout: &str, experiment: &str) -> (Vec<Record>, Vec<String>) {
    let (mut records, mut bad) = (Vec::new(), Vec::new());
    for line in stdout.lines() {
        let Some(json) = line.trim_start().strip_prefix("RECORD") else {
            continue;
        };
        match serde_json::from_str::<Record>(json.trim()) {
            Ok(mut r) => {
                if r.experiment.is_empty() {
                    r.experiment = experiment.into();
                }
                records.push(r);
            }
            Err(e) => bad.push(format!(
                "{experiment}: unreadable RECORD line ({e}): {line}"
            )),
        }
    }
    (records, bad)
}

/// Runs `e2-bridge` or `e4-python`: its records, and notes (how to build it,
/// its own report, or why no record came back).
pub fn program(name: &str, cfg: &Config) -> (Vec<Record>, Vec<String>) {
    let (program, args): (std::path::PathBuf, Vec<String>) = match name {
        "e2-bridge" => {
            let exe = cfg.target_dir.join("examples/e2_bridge");
            if !exe.exists() {
                let how = "cargo build --release -p hibari-bridge --example e2_bridge";
                let note = format!(
                    "e2-bridge not available: build with `{how}` (looked for {})",
                    exe.display()
                );
                return (Vec::new(), vec![note]);
            }
            let n = if cfg.quick { "10000" } else { "100000" };
            let runs = cfg.reps.to_string();
            let a = [
                "--variants",
                "W1,T1",
                "--n",
                n,
                "--runs",
                &runs,
                "--records",
            ];
            (exe, a.map(String::from).to_vec())
        }
        _ => {
            let script = cfg.repo.join("python/bench/e4.py");
            // scripts/python.sh builds the package into the project venv.
            let venv = cfg.repo.join(".venv/bin/python");
            let python: std::path::PathBuf = if venv.exists() {
                venv
            } else {
                "python3".into()
            };
            let ok = Command::new(&python).args(["-c", "import hibari"]).output();
            if !matches!(ok, Ok(ref o) if o.status.success()) {
                let note = format!("e4-python not available: build the Python package with scripts/python.sh, then `python3 {}`", script.display());
                return (Vec::new(), vec![note]);
            }
            let sizes = if cfg.quick {
                "1024,1048576,4194304"
            } else {
                "1024,4096,65536,1048576,4194304"
            };
            let s = script.display().to_string();
            let mut a: Vec<String> = [s.as_str(), "--sizes", sizes, "--records"]
                .map(String::from)
                .to_vec();
            // The Rust twin, when built beside this program.
            let rust = cfg.target_dir.join("examples/e4_rust");
            if rust.exists() {
                a.extend(["--rust".to_string(), rust.display().to_string()]);
            }
            (python, a)
        }
    };
    let cmdline = format!("{} {}", program.display(), args.join(" "));
    let o = match Command::new(&program).args(&args).output() {
        Ok(o) => o,
        Err(e) => {
            return (
                Vec::new(),
                vec![format!("{name}: could not run {cmdline}: {e}")],
            )
        }
    };
    let stdout = String::from_utf8_lossy(&o.stdout);
    let (records, mut notes) = parse_records(&stdout, name);
    let mut head = format!("{name}: `{cmdline}` (exit {:?})", o.status.code());
    if records.is_empty() {
        head.push_str(
            ": printed no RECORD line, so no record (does it support `--records`?); its output:",
        );
    } else {
        head.push_str(&format!(": {} record(s); its own report:", records.len()));
    }
    notes.insert(0, head);
    notes.extend(
        stdout
            .lines()
            .filter(|l| !l.trim_start().starts_with("RECORD"))
            .map(|l| format!("    {l}")),
    );
    if !o.status.success() {
        notes.extend(
            stderr_tail(&o.stderr, 5)
                .into_iter()
                .map(|l| format!("    stderr: {l}")),
        );
    }
    (records, notes)
}

/// The last `n` lines of a program's `stderr`, in order.
pub(crate) fn stderr_tail(stderr: &[u8], n: usize) -> Vec<String> {
    let err = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = err.lines().collect();
    lines[lines.len().saturating_sub(n)..]
        .iter()
        .map(|l| l.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = r#"RECORD {"experiment":"e2-bridge","system":"hibari","transport":"websocket","language":"rust","size_bytes":20,"rate_hz":0,"sent":100000,"received":100000,"lost":0,"count":100000,"p50_us":12.5,"p90_us":20,"p99_us":40,"p999_us":90,"max_us":300,"mean_us":14,"stddev_us":6,"cpu_pub_s":1.5,"cpu_sub_s":1.2,"ctx_switches":400,"published":false,"rep":0,"setup":"bridge W1","note":"send 0.8 s, completion 1.1 s","duration_s":1.1}"#;

    #[test]
    fn record_lines_become_records_and_other_lines_are_ignored() {
        let out = format!("W1 send 0.8 s\n{LINE}\n  {LINE}\nsummary\n");
        let (r, bad) = parse_records(&out, "e2-bridge");
        assert!(bad.is_empty(), "{bad:?}");
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].transport, "websocket");
        assert_eq!((r[0].sent, r[0].received, r[0].lost), (100_000, 100_000, 0));
        assert_eq!(r[0].stats.count, 100_000);
        assert_eq!(r[0].stats.p50_us, 12.5);
        assert_eq!(r[0].ctx_switches, 400);
        assert!(r[0].series_us.is_empty());
    }

    #[test]
    fn the_stderr_tail_keeps_the_last_lines_in_order() {
        assert_eq!(stderr_tail(b"a\nb\nc\nd\n", 3), ["b", "c", "d"]);
        assert_eq!(stderr_tail(b"only", 5), ["only"]);
        assert!(stderr_tail(b"", 3).is_empty());
    }

    #[test]
    fn a_broken_record_line_is_reported_and_no_lines_give_no_records() {
        let (r, bad) = parse_records("RECORD {\"experiment\": \"e4-python\"}\n", "e4-python");
        assert!(r.is_empty());
        assert_eq!(bad.len(), 1, "{bad:?}");
        assert!(bad[0].contains("unreadable RECORD"));
        let (r, bad) = parse_records("just a table\n| a | b |\n", "e4-python");
        assert!(r.is_empty() && bad.is_empty());
    }
}
