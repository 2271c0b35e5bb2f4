//! Running the rclpy side: a real rclpy node (ros2/rclpy_peer.py) from the
//! PyPI wheels that scripts/ros2-peer.sh installs, one virtualenv per distro.

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::process::{ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use hibari_testkit::lines::{LineChild, NoLine};
use hibari_testkit::TempDir;

/// How long a peer may take for anything: only a hang reaches it.
pub const LIMIT: Duration = Duration::from_secs(60);

/// The repository root (this crate is crates/hibari).
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `.venv-ros2-<distro>/env.sh`, or the test fails with one line saying
/// how to install it (never a silent pass).
fn env_sh(distro: &str) -> PathBuf {
    let env = root().join(format!(".venv-ros2-{distro}/env.sh"));
    assert!(
        env.is_file(),
        "ROS 2 {distro} is not installed ({} is missing): run scripts/ros2-peer.sh {distro}",
        env.display()
    );
    env
}

/// An rclpy node in its own process, killed (SIGKILL) when dropped (its
/// [`LineChild`]).
pub struct Peer {
    process: LineChild,
    stdin: Option<ChildStdin>,
    what: String,
    stderr: PathBuf,
    _dir: TempDir,
}

impl Peer {
    /// Starts `rclpy_peer.py <role> <node> <args>` of `distro` in `domain`.
    pub fn start(distro: &str, domain: u32, role: &str, node: &str, args: &[&str]) -> Peer {
        let env = env_sh(distro);
        // From the root: the bridge's tests include this file too.
        let script = root().join("crates/hibari/tests/ros2/rclpy_peer.py");
        let dir = hibari_testkit::tempdir().expect("a temporary directory");
        let stderr = dir.path().join("stderr");
        let mut command = Command::new("bash");
        command
            .arg("-c")
            .arg(r#". "$1" && shift && exec "$ROS2_PYTHON" "$@""#)
            .arg("peer")
            .arg(&env)
            .arg(&script)
            .arg(role)
            .arg(node)
            .args(args)
            .env("ROS_DOMAIN_ID", domain.to_string())
            .env("PYTHONUNBUFFERED", "1")
            .stdin(Stdio::piped())
            .stderr(File::create(&stderr).expect("the peer's stderr file"));
        let mut process = LineChild::spawn(command).expect("start bash for the rclpy peer");
        let stdin = process.child().stdin.take();
        Peer {
            process,
            stdin,
            what: format!("rclpy ({distro}) {role} {node} {}", args.join(" ")),
            stderr,
            _dir: dir,
        }
    }

    /// The peer's stderr so far, for failure messages.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// Fails the test with `why`, the peer's command and its stderr.
    pub fn fail(&self, why: &str) -> ! {
        panic!(
            "{why}\n  peer: {}\n  peer stderr:\n{}",
            self.what,
            self.stderr()
        )
    }

    /// The next stdout line, or `None` when the peer has ended.
    pub fn next_line(&self, limit: Duration) -> Option<String> {
        match self.process.next_line(limit) {
            Ok(line) => Some(line),
            Err(NoLine::Ended) => None,
            Err(NoLine::Timeout) => self.fail(&format!("the peer said nothing for {limit:?}")),
        }
    }

    /// Waits for a line starting with `prefix` (others are skipped) and
    /// returns it; fails after [`LIMIT`] or when the peer ends first.
    pub fn expect(&self, prefix: &str) -> String {
        let deadline = Instant::now() + LIMIT;
        loop {
            match self.process.next_line_by(deadline) {
                Ok(line) if line.starts_with(prefix) => return line,
                Ok(_) => {}
                Err(NoLine::Timeout) => self.fail(&format!("no `{prefix}` line within {LIMIT:?}")),
                Err(NoLine::Ended) => {
                    self.fail(&format!("the peer ended before saying `{prefix}`"))
                }
            }
        }
    }

    /// A stdout line now, if there is one.
    pub fn try_line(&self) -> Option<String> {
        self.process.try_line()
    }

    /// Tells the peer to go on (a `go` line).
    pub fn go(&mut self) {
        self.send("go");
    }

    /// Writes `line` to the peer's stdin.
    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("the peer's stdin is open");
        if writeln!(stdin, "{line}")
            .and_then(|()| stdin.flush())
            .is_err()
        {
            self.fail(&format!("the peer ended before it was sent `{line}`"));
        }
    }

    /// Closes the peer's stdin: its signal to finish.
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Sends the peer `signal` (`STOP`, `CONT`, …) with kill(1).
    pub fn signal(&mut self, signal: &str) {
        let pid = self.process.child().id().to_string();
        let sent = Command::new("kill")
            .args([format!("-{signal}"), pid])
            .status()
            .is_ok_and(|s| s.success());
        if !sent {
            self.fail(&format!("kill -{signal} failed"));
        }
    }

    /// Kills the peer with SIGKILL (as a crash would) and reaps it.
    pub fn kill(&mut self) {
        self.process.kill();
    }
}

/// Waits until `cond` holds, checking every few milliseconds; fails the test
/// with `what` after `limit`.
pub fn wait_until(limit: Duration, what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !cond() {
        assert!(
            Instant::now() < deadline,
            "timed out after {limit:?}: {what}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}
