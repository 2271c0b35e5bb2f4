//! Helpers of the multi-process tests: the peer binary, its output, the
//! payload format it uses, and what a test leaves behind.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use hibari_transport::{EndpointSpec, QosProfile};

/// A domain no other test (in this or a concurrent run) uses: claimed
/// host-wide for the rest of this process (hibari_testkit::unique_domain).
pub fn domain() -> u32 {
    hibari_testkit::unique_domain()
}

/// The spec the peer binary uses.
pub fn spec(topic: &str, reliable: bool) -> EndpointSpec {
    let qos = if reliable {
        QosProfile::default().keep_last(64)
    } else {
        QosProfile::sensor_data().keep_last(8)
    };
    EndpointSpec {
        topic: topic.into(),
        type_name: "hibari_test/msg/Blob".into(),
        type_hash: String::new(),
        qos,
    }
}

/// A peer process, killed (SIGKILL) when dropped, with its stdout lines.
pub struct Peer {
    pub child: Child,
    pub lines: Receiver<String>,
}

impl Peer {
    pub fn spawn(args: &[&str]) -> Peer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_shm-peer"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn shm-peer");
        let out = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Peer { child, lines }
    }

    /// Waits for a line starting with `prefix`; returns it.
    pub fn expect(&self, prefix: &str, timeout: Duration) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.starts_with(prefix) => return line,
                Ok(_) => continue,
                Err(e) => panic!("no `{prefix}` line from the peer: {e:?}"),
            }
        }
    }

    /// SIGKILL, and reap.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Waits for the exit (SIGKILL after `timeout`); true if it succeeded.
    pub fn wait(&mut self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.success();
            }
            if Instant::now() >= deadline {
                self.kill();
                return false;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        self.kill();
    }
}

fn word(w: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    b[..w.len()].copy_from_slice(w);
    u64::from_le_bytes(b)
}

/// Checks a payload of the peer binary; its number if intact.
pub fn check<'a>(buf: impl Into<hibari_cdr::Bytes<'a>>) -> Option<u64> {
    let buf = &*buf.into().to_cow();
    if buf.len() < 16 {
        return None;
    }
    let sum = buf[16..]
        .chunks(8)
        .fold(0u64, |s, w| s.wrapping_add(word(w)));
    (sum == word(&buf[8..16])).then(|| word(&buf[..8]))
}

/// Fills a payload like the peer binary does.
pub fn fill(buf: &mut [u8], seq: u64) {
    let mut sum = 0u64;
    let mut k = seq.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    for w in buf[16..].chunks_mut(8) {
        k = k.rotate_left(7) ^ 0x5851_f42d_4c95_7f2d;
        w.copy_from_slice(&k.to_le_bytes()[..w.len()]);
        sum = sum.wrapping_add(word(w));
    }
    buf[..8].copy_from_slice(&seq.to_le_bytes());
    buf[8..16].copy_from_slice(&sum.to_le_bytes());
}

/// Entries of /dev/shm and /tmp named like hibari's shared-memory objects
/// (`hibari-ring`, `hibari-release`, `hibari-chunks`; anything `hibari` in
/// /dev/shm): none may ever exist, since memfds have no path.
pub fn leftovers() -> Vec<String> {
    let mut found = Vec::new();
    for dir in ["/dev/shm", "/tmp"] {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let ours = ["hibari-ring", "hibari-release", "hibari-chunks"]
                .iter()
                .any(|n| name.contains(n));
            if ours || (dir == "/dev/shm" && name.contains("hibari")) {
                found.push(format!("{dir}/{name}"));
            }
        }
    }
    found
}

/// Mappings of hibari's memfds in this process (`/proc/self/maps`).
pub fn own_mappings() -> usize {
    std::fs::read_to_string("/proc/self/maps")
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("memfd:hibari"))
        .count()
}

/// Polls `cond` for up to `timeout`.
pub fn eventually(timeout: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    cond()
}
