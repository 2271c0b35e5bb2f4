//! [`NetnsPair::verify`]: proof that the topology carries what DDS needs,
//! independent of any DDS code: a unicast UDP datagram to the other host's
//! address and a multicast one to DDS's SPDP group, each way.

use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use super::{Netns, NetnsPair};

/// DDS's default SPDP multicast group (RTPS 2.x, 9.6.1.4.1).
const GROUP: &str = "239.255.0.1";

/// A port no DDS domain uses (domain 0 starts at 7400).
const PORT: u16 = 7399;

/// How long the receiver listens; only a broken topology reaches it.
const LISTEN: Duration = Duration::from_secs(10);

/// The receiver prints `ready`, then `unicast`/`multicast` once each as they
/// arrive, and exits when it has seen both (or after its timeout).
const RECEIVER: &str = r#"
import socket, struct, sys
group, port, timeout = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("", port))
s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
             struct.pack("4s4s", socket.inet_aton(group), socket.inet_aton("0.0.0.0")))
s.settimeout(timeout)
print("ready", flush=True)
seen = set()
try:
    while len(seen) < 2:
        data, _ = s.recvfrom(64)
        kind = {b"u": "unicast", b"m": "multicast"}.get(data)
        if kind and kind not in seen:
            seen.add(kind)
            print(kind, flush=True)
except socket.timeout:
    pass
"#;

/// The sender sends one of each every 50 ms until killed (a datagram sent
/// before the receiver's socket joined is simply lost).
const SENDER: &str = r#"
import socket, sys, time
to, group, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
for _ in range(400):
    for addr, data in ((to, b"u"), (group, b"m")):
        try:
            s.sendto(data, (addr, port))
        except OSError as e:
            print(f"send to {addr}: {e}", file=sys.stderr, flush=True)
    time.sleep(0.05)
"#;

/// Why [`NetnsPair::verify`] failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum NetnsVerifyError {
    /// `python3` (which runs the probe) could not be started.
    Python(std::io::Error),
    /// The receiver ended before listening (its standard error says why:
    /// joining the multicast group fails without a multicast route).
    Receiver {
        /// The namespace it ran in.
        ns: String,
        /// Its standard error.
        stderr: String,
    },
    /// A datagram did not arrive.
    NotReached {
        /// `unicast` or `multicast`.
        kind: &'static str,
        /// Sending namespace.
        from: String,
        /// Receiving namespace.
        to: String,
        /// How long the receiver listened.
        within: Duration,
    },
}

impl std::fmt::Display for NetnsVerifyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Python(e) => write!(
                f,
                "network-namespace test: `python3` (the topology probe) could not run: {e}"
            ),
            Self::Receiver { ns, stderr } => write!(
                f,
                "network-namespace test: the probe's receiver in {ns} failed: {stderr}"
            ),
            Self::NotReached {
                kind,
                from,
                to,
                within,
            } => write!(
                f,
                "network-namespace test: a {kind} UDP datagram from {from} did not reach {to} within {within:?}"
            ),
        }
    }
}

impl std::error::Error for NetnsVerifyError {}

impl NetnsPair {
    /// Checks that a unicast and a multicast (239.255.0.1) UDP datagram get
    /// from each host to the other: with the link up this must pass; with it
    /// down it must fail. Runs `python3` inside the namespaces.
    pub fn verify(&self) -> Result<(), NetnsVerifyError> {
        verify_within(self, LISTEN)
    }
}

/// [`NetnsPair::verify`] with a receiver listening `listen` each way.
pub(super) fn verify_within(pair: &NetnsPair, listen: Duration) -> Result<(), NetnsVerifyError> {
    one_way(&pair.a, &pair.b, listen)?;
    one_way(&pair.b, &pair.a, listen)
}

/// Kills a child when dropped (the probe never outlives its check).
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn one_way(from: &Netns, to: &Netns, listen: Duration) -> Result<(), NetnsVerifyError> {
    let mut receiver = Reaped(
        to.command("python3")
            .args(["-c", RECEIVER, GROUP, &PORT.to_string()])
            .arg(listen.as_secs_f64().to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(NetnsVerifyError::Python)?,
    );
    let stdout = receiver.0.stdout.take().expect("piped stdout");
    let mut lines = BufReader::new(stdout).lines();
    if !matches!(lines.next(), Some(Ok(l)) if l == "ready") {
        let mut stderr = String::new();
        if let Some(mut e) = receiver.0.stderr.take() {
            // The receiver has ended (its stdout closed), so this read ends.
            let _ = std::io::Read::read_to_string(&mut e, &mut stderr);
        }
        return Err(NetnsVerifyError::Receiver {
            ns: to.name.clone(),
            stderr: stderr.trim().lines().last().unwrap_or("").to_owned(),
        });
    }
    let deadline = Instant::now() + listen;
    let _sender = Reaped(
        from.command("python3")
            .args(["-c", SENDER, &to.addr.to_string(), GROUP, &PORT.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(NetnsVerifyError::Python)?,
    );
    let mut seen = Vec::new();
    // The receiver ends by itself after `listen`, so this loop is bounded.
    for line in lines.map_while(Result::ok) {
        seen.push(line);
        if seen.len() == 2 || Instant::now() > deadline {
            break;
        }
    }
    for kind in ["unicast", "multicast"] {
        if !seen.iter().any(|s| s == kind) {
            return Err(NetnsVerifyError::NotReached {
                kind,
                from: from.name.clone(),
                to: to.name.clone(),
                within: listen,
            });
        }
    }
    Ok(())
}
