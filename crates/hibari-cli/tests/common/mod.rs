//! Running the real `hibari` binary and checking what it printed.

#![allow(dead_code)] // each test file uses a different part of this module

pub mod bag;
pub mod domain;

use std::path::Path;

use assert_cmd::Command;

/// What one run of `hibari` produced.
pub struct Run {
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl Run {
    pub fn stdout_text(&self) -> String {
        String::from_utf8(self.stdout.clone()).expect("stdout is UTF-8")
    }

    /// stdout parsed as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}",
                String::from_utf8_lossy(&self.stdout)
            )
        })
    }

    /// Asserts exit status 0 and an empty stderr.
    pub fn success(self) -> Self {
        assert_eq!(
            self.code,
            Some(0),
            "expected success; stderr:\n{}",
            self.stderr
        );
        assert!(
            self.stderr.is_empty(),
            "a successful run printed to stderr:\n{}",
            self.stderr
        );
        self
    }

    /// Asserts exit status 1, nothing on stdout and a one-line `error: …` on stderr.
    pub fn failure(self) -> Self {
        assert_eq!(
            self.code,
            Some(1),
            "expected exit code 1; stdout:\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&self.stdout),
            self.stderr
        );
        assert!(
            self.stdout.is_empty(),
            "a failed run printed to stdout:\n{}",
            String::from_utf8_lossy(&self.stdout)
        );
        assert!(
            self.stderr.starts_with("error: "),
            "stderr does not start with `error: `:\n{}",
            self.stderr
        );
        self
    }

    /// Asserts exit status 1 and an `error: …` on stderr, whatever stdout holds.
    pub fn failure_after_output(self) -> Self {
        assert_eq!(
            self.code,
            Some(1),
            "expected exit code 1; stderr:\n{}",
            self.stderr
        );
        assert!(
            self.stderr.starts_with("error: "),
            "stderr does not start with `error: `:\n{}",
            self.stderr
        );
        self
    }

    /// Asserts stderr contains every one of `parts`.
    pub fn stderr_has(self, parts: &[&str]) -> Self {
        for part in parts {
            assert!(
                self.stderr.contains(part),
                "stderr lacks {part:?}:\n{}",
                self.stderr
            );
        }
        self
    }
}

/// `hibari <args>` with no user packages and no backtrace setting inherited
/// from the environment running the tests.
pub fn hibari<I, S>(args: I) -> Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut cmd = Command::cargo_bin("hibari").expect("the hibari binary is built");
    cmd.args(args)
        .env_remove("HIBARI_INTERFACE_PATH")
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE");
    cmd
}

/// `hibari <args>` with `HIBARI_INTERFACE_PATH` set to `root`.
pub fn hibari_with_path<I, S>(root: &Path, args: I) -> Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut cmd = hibari(args);
    cmd.env("HIBARI_INTERFACE_PATH", root);
    cmd
}

/// Runs the command and checks that nothing panicked, whatever the outcome.
pub fn run(cmd: &mut Command) -> Run {
    let out = cmd.output().expect("hibari runs");
    let run = Run {
        code: out.status.code(),
        stdout: out.stdout,
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    };
    let stdout = String::from_utf8_lossy(&run.stdout);
    for text in [&run.stderr as &str, &stdout] {
        assert!(!text.contains("panicked"), "hibari panicked:\n{text}");
        assert!(
            !text.contains("RUST_BACKTRACE"),
            "hibari printed a panic note:\n{text}"
        );
    }
    run
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Bytes of hex text, whitespace ignored (a test vector laid out as a dump).
pub fn unhex(text: &str) -> Vec<u8> {
    let digits: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    digits
        .chunks(2)
        .map(|pair| {
            let s: String = pair.iter().collect();
            u8::from_str_radix(&s, 16).expect("test vector is hex")
        })
        .collect()
}
