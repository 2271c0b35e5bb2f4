//! What the bridge's integration tests share: a bridge in an isolated
//! hibari domain with a native node spun beside it, the real client peers
//! (Node scripts, Python scripts) run as processes under a timeout, and a
//! raw WebSocket client for wire-level checks.
#![allow(dead_code)]

use std::io::Read;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use hibari::{Context, Node, SingleThreadedExecutor};
use hibari_bridge::{Bridge, BridgeConfig};
use serde_json::Value as Json;
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

pub const LONG: Duration = Duration::from_secs(20);

/// A bridge in a domain of its own, and a native node spinning beside it.
pub struct Fixture {
    pub context: Context,
    pub bridge: Bridge,
    pub node: Node,
    executor: Arc<SingleThreadedExecutor>,
    spinner: Option<JoinHandle<()>>,
    /// The interface files of [`Fixture::with_interfaces`], removed last.
    interfaces: Option<hibari_testkit::TempDir>,
}

impl Fixture {
    pub fn new() -> Self {
        Self::with(|c| c)
    }

    /// With a config adjusted by `f` (from: port 0, TCP port 0, publishers
    /// kept 300 ms, calls timing out after 5 s).
    pub fn with(f: impl FnOnce(BridgeConfig) -> BridgeConfig) -> Self {
        let context = Context::builder().isolated().create().unwrap();
        let config = BridgeConfig::default()
            .port(0)
            .tcp_port(Some(0))
            .unregister_timeout(Duration::from_millis(300))
            .call_service_timeout(Duration::from_secs(5));
        let bridge = Bridge::start(&context, f(config)).expect("the bridge starts");
        let node = context.create_node("native").unwrap();
        let executor = Arc::new(SingleThreadedExecutor::new());
        executor.add_node(&node).unwrap();
        let e = executor.clone();
        let spinner = Some(std::thread::spawn(move || e.spin()));
        Fixture {
            context,
            bridge,
            node,
            executor,
            spinner,
            interfaces: None,
        }
    }

    /// With `files` (path under the interface root, text) in a temporary
    /// directory of this fixture's own, on the bridge's interface path, and
    /// a config adjusted by `f`.
    pub fn with_interfaces(
        files: &[(&str, &str)],
        f: impl FnOnce(BridgeConfig) -> BridgeConfig,
    ) -> Self {
        let root = hibari_testkit::tempdir().expect("a temporary directory");
        for (path, text) in files {
            let file = root.path().join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        }
        let path = root.path().to_owned();
        let mut fixture = Self::with(move |c| f(c.interface_path(path)));
        fixture.interfaces = Some(root);
        fixture
    }

    pub fn url(&self) -> String {
        format!("ws://{}", self.bridge.local_addr())
    }

    /// A second native node, spun by the same executor.
    pub fn another_node(&self, name: &str) -> Node {
        let node = self.context.create_node(name).unwrap();
        self.executor.add_node(&node).unwrap();
        node
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        if let Some(s) = self.spinner.take() {
            let _ = hibari_testkit::cancel_and_join(
                s,
                hibari_testkit::HANG,
                "the spinner to stop after cancel()",
                || self.executor.cancel(),
            );
        }
    }
}

/// Waits until `cond` holds, up to `timeout`.
pub fn wait_until(timeout: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    cond()
}

fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

/// A running peer process.
pub struct Peer {
    child: Child,
    what: String,
}

impl Peer {
    /// Waits for the peer to finish (up to `LONG`) and fails the test with
    /// its output unless it exited 0; returns its stdout.
    pub fn finish(mut self) -> String {
        let deadline = Instant::now() + LONG;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break Some(status);
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let mut out = String::new();
        let mut err = String::new();
        if let Some(mut o) = self.child.stdout.take() {
            o.read_to_string(&mut out).unwrap();
        }
        if let Some(mut e) = self.child.stderr.take() {
            e.read_to_string(&mut err).unwrap();
        }
        match status {
            Some(s) if s.success() => out,
            Some(s) => panic!(
                "{} failed ({s}):\n--- stdout\n{out}\n--- stderr\n{err}",
                self.what
            ),
            None => panic!(
                "{} timed out:\n--- stdout\n{out}\n--- stderr\n{err}",
                self.what
            ),
        }
    }
}

fn spawn(mut command: Command, what: String) -> Peer {
    let child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
    Peer { child, what }
}

/// Runs `tests/js/<script>` under Node with `args`.
pub fn node_script(script: &str, args: &[&str]) -> Peer {
    let js = tests_dir().join("js");
    if !on_path("node") {
        missing("Node.js for the bridge's JS peers");
    }
    for package in ["roslib", "ws", "@foxglove/ws-protocol", "playwright-core"] {
        if !js.join("node_modules").join(package).exists() {
            missing("node_modules for the bridge's JS peers: npm ci in tests/js");
        }
    }
    let mut c = Command::new("node");
    c.arg(js.join(script)).args(args).current_dir(&js);
    spawn(c, format!("node {script} {}", args.join(" ")))
}

/// The Python of the repository's `.venv`.
pub fn python() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let python = root.join(".venv/bin/python");
    if !python.exists() {
        missing(".venv for the bridge's Python peers");
    }
    let has_roslibpy = Command::new(&python)
        .args(["-c", "import roslibpy"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !has_roslibpy {
        missing("roslibpy in .venv for the bridge's Python peers");
    }
    python
}

/// Fails the test with one line naming the setup step it needs.
pub fn missing(what: &str) -> ! {
    panic!("missing: run scripts/setup.sh ({what})")
}

/// Whether `program` is an executable file in a directory of `PATH`.
pub fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

/// Runs `tests/py/<script>` with the repository's Python.
pub fn python_script(script: &str, args: &[&str]) -> Peer {
    let mut c = Command::new(python());
    c.arg(tests_dir().join("py").join(script)).args(args);
    spawn(c, format!("python {script} {}", args.join(" ")))
}

/// A plain WebSocket client for wire-level checks.
pub struct Raw {
    pub ws: WebSocket<MaybeTlsStream<TcpStream>>,
}

impl Raw {
    pub fn connect(url: &str) -> Raw {
        let (ws, _) = tungstenite::connect(url).expect("connects");
        if let MaybeTlsStream::Plain(s) = ws.get_ref() {
            s.set_read_timeout(Some(Duration::from_millis(200)))
                .unwrap();
        }
        Raw { ws }
    }

    pub fn send(&mut self, json: Json) {
        self.ws.send(Message::text(json.to_string())).unwrap();
    }

    pub fn send_text(&mut self, text: &str) {
        self.ws.send(Message::text(text)).unwrap();
    }

    /// The next message (text parsed as JSON; binary as-is), or `None`
    /// after `timeout`.
    pub fn recv(&mut self, timeout: Duration) -> Option<Message> {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            match self.ws.read() {
                Ok(m @ (Message::Text(_) | Message::Binary(_))) => return Some(m),
                Ok(_) => {}
                Err(tungstenite::Error::Io(e))
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(e) => panic!("the connection failed: {e}"),
            }
        }
        None
    }

    /// The next JSON message whose `op` is `op`, skipping others.
    pub fn recv_op(&mut self, op: &str, timeout: Duration) -> Option<Json> {
        let deadline = Instant::now() + timeout;
        while let Some(m) = self.recv(deadline.saturating_duration_since(Instant::now())) {
            if let Message::Text(t) = m {
                let j: Json = serde_json::from_str(&t).unwrap();
                if j["op"] == op {
                    return Some(j);
                }
            }
        }
        None
    }
}
