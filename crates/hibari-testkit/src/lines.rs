//! A child process read line by line: what the tests and `hibari bench` use
//! to drive peer programs (rclpy nodes, hibari peers in network namespaces)
//! that report on stdout one line per event.
//!
//! Its stdout goes, line by line, onto a channel that a reader thread fills,
//! so every wait is bounded by a timeout and tells a silent peer (timeout)
//! from one that ended (its stdout closed). The process is killed (SIGKILL)
//! and reaped when the value is dropped: a failed test leaves no process
//! behind.

use std::io::{self, BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Why no line came.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoLine {
    /// Nothing within the time allowed.
    Timeout,
    /// The process closed its stdout (it ended).
    Ended,
}

/// A running child process whose stdout is read line by line; killed when
/// dropped.
pub struct LineChild {
    child: Child,
    lines: Receiver<String>,
}

impl LineChild {
    /// Starts `command` with its stdout piped (stdin and stderr stay as the
    /// command sets them).
    pub fn spawn(mut command: Command) -> io::Result<LineChild> {
        let mut child = command.stdout(Stdio::piped()).spawn()?;
        let out = child.stdout.take().expect("stdout was piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(LineChild { child, lines })
    }

    /// The next line, waiting at most `limit`.
    pub fn next_line(&self, limit: Duration) -> Result<String, NoLine> {
        self.lines.recv_timeout(limit).map_err(|e| match e {
            RecvTimeoutError::Timeout => NoLine::Timeout,
            RecvTimeoutError::Disconnected => NoLine::Ended,
        })
    }

    /// The next line, waiting until `deadline` at most.
    pub fn next_line_by(&self, deadline: Instant) -> Result<String, NoLine> {
        self.next_line(deadline.saturating_duration_since(Instant::now()))
    }

    /// A line that has already arrived, if any.
    pub fn try_line(&self) -> Option<String> {
        self.lines.try_recv().ok()
    }

    /// Reads lines until one equals `want`, each pushed onto `seen`; fails
    /// the test, with everything the program printed, if none comes within
    /// [`HANG`](crate::HANG) or the output ends first.
    pub fn expect_line(&self, want: &str, seen: &mut Vec<String>) {
        let deadline = Instant::now() + crate::HANG;
        loop {
            match self.next_line_by(deadline) {
                Ok(line) => {
                    let found = line == want;
                    seen.push(line);
                    if found {
                        return;
                    }
                }
                Err(why) => panic!(
                    "no line `{want}` ({why:?}); the program printed:\n{}",
                    seen.join("\n")
                ),
            }
        }
    }

    /// Waits for the process to exit, its lines pushed onto `seen`; fails
    /// the test, with them, unless it exits with status 0 within
    /// [`HANG`](crate::HANG).
    pub fn expect_success(&mut self, seen: &mut Vec<String>) {
        let status = self.expect_exit(seen);
        assert!(
            status.success(),
            "the program failed ({status}):\n{}",
            seen.join("\n")
        );
    }

    /// Waits for the process to exit, its lines pushed onto `seen`, and
    /// returns its status; fails the test, with them, unless it exits
    /// within [`HANG`](crate::HANG).
    pub fn expect_exit(&mut self, seen: &mut Vec<String>) -> std::process::ExitStatus {
        let deadline = Instant::now() + crate::HANG;
        let status = loop {
            while let Some(line) = self.try_line() {
                seen.push(line);
            }
            if let Some(status) = self.child.try_wait().expect("wait for the program") {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "the program did not exit:\n{}",
                seen.join("\n")
            );
            std::thread::sleep(Duration::from_millis(10));
        };
        while let Some(line) = self.try_line() {
            seen.push(line);
        }
        status
    }

    /// The process (for its stdin, stderr, id or exit status).
    pub fn child(&mut self) -> &mut Child {
        &mut self.child
    }

    /// SIGKILL, as a crash would end it, and reaps it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for LineChild {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> LineChild {
        let mut c = Command::new("sh");
        c.arg("-c").arg(script);
        LineChild::spawn(c).unwrap()
    }

    #[test]
    fn lines_arrive_in_order_then_the_end_is_told_apart_from_silence() {
        let p = sh("echo one; echo two");
        let limit = Duration::from_secs(10);
        assert_eq!(p.next_line(limit).as_deref(), Ok("one"));
        assert_eq!(p.next_line(limit).as_deref(), Ok("two"));
        assert_eq!(p.next_line(limit), Err(NoLine::Ended));

        let mut quiet = sh("echo ready; exec sleep 60");
        assert_eq!(quiet.next_line(limit).as_deref(), Ok("ready"));
        assert_eq!(
            quiet.next_line(Duration::from_millis(50)),
            Err(NoLine::Timeout)
        );
        assert_eq!(quiet.try_line(), None);
        quiet.kill();
        // Killed by SIGKILL and reaped (what dropping it does too).
        use std::os::unix::process::ExitStatusExt;
        let status = quiet.child().try_wait().unwrap().expect("reaped");
        assert_eq!(status.signal(), Some(9), "{status}");
    }
}
