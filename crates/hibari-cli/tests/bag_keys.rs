//! `hibari bag play`'s keys, typed into a real pseudo-terminal: a small
//! Python driver (`pty.fork`, the standard library's) runs the player on a
//! terminal of its own, copies what it prints to its stdout and types the
//! keys the test writes to its stdin, one name a line. After the player it
//! prints the terminal's settings (`stty -a`) and the exit code, so the test
//! sees that they were put back.
//!
//! The checks are on order and count, never on time: started paused, each
//! `s` must bring exactly one message; a message 1000 s ahead of the others
//! arrives only because `s` asks for it while paused.
//!
//! Each test holds a domain and a temporary directory of its own; every
//! wait is bounded by `HANG`, which only a hang reaches.

mod common;

use std::io::Write as _;
use std::path::Path;
use std::process::{ChildStdin, Command, Stdio};
use std::time::Instant;

use common::bag::{python, venv_python, Listener};
use hibari_testkit::lines::LineChild;
use hibari_testkit::{tempdir, unique_topic, TestDomain, HANG};

/// Runs `argv` on a new pseudo-terminal; types the keys named on stdin.
const DRIVER: &str = r#"
import os, pty, select, signal, subprocess, sys
argv = sys.argv[1:]
pid, fd = pty.fork()
if pid == 0:
    # Ctrl-C reaches the whole foreground group: this parent lives on to
    # report the terminal's settings (a handler, unlike SIG_IGN, is not
    # inherited by the player).
    signal.signal(signal.SIGINT, lambda *_: None)
    code = subprocess.call(argv)
    stty = subprocess.run(["stty", "-a"], capture_output=True, text=True).stdout
    print("STTY: " + " ".join(stty.split()), flush=True)
    os._exit(code & 0xFF)
keys = {"space": b" ", "s": b"s", "right": b"\x1b[C", "ctrl-c": b"\x03"}
pending, watch = b"", [fd, 0]
while True:
    ready, _, _ = select.select(watch, [], [])
    if 0 in ready:
        chunk = os.read(0, 1024)
        if not chunk:
            watch = [fd]
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            os.write(fd, keys[line.decode().strip()])
    if fd in ready:
        try:
            data = os.read(fd, 4096)
        except OSError:
            data = b""
        if not data:
            break
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
_, status = os.waitpid(pid, 0)
print(f"EXIT {os.waitstatus_to_exitcode(status)}", flush=True)
"#;

/// Writes an MCAP bag with rosbags: `/k` std_msgs/String `k0`…`k8`, the
/// first eight 10 ms apart, the last 1000 s after them.
const WRITE_BAG: &str = r#"
import sys
from pathlib import Path
from rosbags.rosbag2 import Writer, StoragePlugin
from rosbags.typesys import Stores, get_typestore
ts = get_typestore(Stores.ROS2_JAZZY)
String = ts.types["std_msgs/msg/String"]
with Writer(Path(sys.argv[1]), version=9, storage_plugin=StoragePlugin.MCAP) as w:
    k = w.add_connection("/k", "std_msgs/msg/String", typestore=ts)
    times = [i * 10_000_000 for i in range(8)] + [1_000_000_000_000]
    for i, t in enumerate(times):
        raw = ts.serialize_cdr(String(data=f"k{i}"), "std_msgs/msg/String")
        w.write(k, 1_700_000_000_000_000_000 + t, raw)
"#;

fn write_bag(path: &Path) {
    python(WRITE_BAG, &[path.to_str().unwrap()]);
}

/// A subscription of the test on `topic` (std_msgs/String).
fn listener(domain: &TestDomain, topic: &str) -> Listener {
    Listener::new(domain, &[(topic, "std_msgs/msg/String")])
}

/// `hibari bag play <args>` on a pseudo-terminal, in `domain`.
struct Terminal {
    child: LineChild,
    keys: ChildStdin,
}

impl Terminal {
    fn play(domain: &TestDomain, args: &[&str]) -> Terminal {
        let hibari = assert_cmd::cargo::cargo_bin("hibari");
        let mut cmd = Command::new(venv_python());
        cmd.arg("-c")
            .arg(DRIVER)
            .arg(hibari)
            .args(["bag", "play"])
            .args(args)
            .env("ROS_DOMAIN_ID", domain.to_string())
            .env_remove("HIBARI_INTERFACE_PATH")
            .stdin(Stdio::piped());
        let mut child = LineChild::spawn(cmd).expect("python starts");
        let keys = child.child().stdin.take().expect("stdin is piped");
        Terminal { child, keys }
    }

    fn press(&mut self, key: &str) {
        writeln!(self.keys, "{key}").expect("the driver reads keys");
    }

    /// Reads lines until one contains `text`; fails on a timeout or the end.
    fn wait_line(&self, text: &str) -> String {
        let deadline = Instant::now() + HANG;
        loop {
            match self.child.next_line_by(deadline) {
                Ok(line) if line.contains(text) => return line.trim_end().to_string(),
                Ok(line) => assert!(!line.contains("panicked"), "hibari panicked: {line}"),
                Err(e) => panic!("no line with {text:?} on the terminal: {e:?}"),
            }
        }
    }

    /// The player's end: its last lines, the terminal put back, exit 0.
    fn assert_ended_cleanly(&self, played: usize) {
        self.wait_line(&format!("Played {played} messages"));
        let stty = self.wait_line("STTY:");
        let flags: Vec<&str> = stty.split_whitespace().collect();
        for flag in ["icanon", "echo", "isig"] {
            assert!(
                flags.contains(&flag),
                "the terminal was left without {flag}: {stty}"
            );
        }
        assert_eq!(self.wait_line("EXIT"), "EXIT 0");
    }
}

#[test]
fn started_paused_each_s_plays_one_message_and_space_pauses_and_resumes() {
    let domain = TestDomain::reserve();
    let dir = tempdir().unwrap();
    let path = dir.path().join("keys");
    write_bag(&path);
    let topic = unique_topic("keys");
    let listener = listener(&domain, &topic);
    let remap = format!("/k:={topic}");
    let p = path.to_str().unwrap();
    let args = [
        "--start-paused",
        "--wait-for-subscribers",
        "--remap",
        &remap,
    ];
    let mut terminal = Terminal::play(&domain, &[&[p][..], &args[..]].concat());
    terminal.wait_line("Press SPACE for Pause/Resume, s for Play Next");

    // Paused from the start: one message per `s` (→ too), and no more.
    for (i, key) in ["s", "right", "s"].into_iter().enumerate() {
        terminal.press(key);
        assert_eq!(listener.wait_for(i + 1).len(), i + 1, "after {key} #{i}");
    }
    // Resumed, the rest of the first eight plays; the ninth is 1000 s on.
    terminal.press("space");
    terminal.wait_line("Resumed");
    assert_eq!(listener.wait_for(8).len(), 8);
    terminal.press("space");
    terminal.wait_line("Paused");
    // Paused, `s` plays the ninth at once, 1000 s ahead of its time.
    terminal.press("s");
    assert_eq!(listener.wait_for(9).len(), 9);
    terminal.assert_ended_cleanly(9);

    let want: Vec<String> = (0..9).map(|i| format!("k{i}")).collect();
    assert_eq!(listener.strings(), want);
}

#[test]
fn ctrl_c_while_paused_ends_playback_and_puts_the_terminal_back() {
    let domain = TestDomain::reserve();
    let dir = tempdir().unwrap();
    let path = dir.path().join("interrupted");
    write_bag(&path);
    let topic = unique_topic("interrupted");
    let listener = listener(&domain, &topic);
    let remap = format!("/k:={topic}");
    let p = path.to_str().unwrap();
    let args = [p, "-p", "--wait-for-subscribers", "--remap", &remap];
    let mut terminal = Terminal::play(&domain, &args);
    terminal.wait_line("Press SPACE for Pause/Resume");
    terminal.press("s");
    assert_eq!(listener.wait_for(1).len(), 1);
    terminal.press("ctrl-c");
    terminal.assert_ended_cleanly(1);
    assert_eq!(listener.strings(), ["k0"]);
}
