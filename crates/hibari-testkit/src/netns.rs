//! Two hosts on one machine: a pair of Linux network namespaces joined by a
//! veth pair, for tests of what crosses hosts (DDS discovery over multicast,
//! data over UDP at MTU 1500, a link that goes down and comes back).
//!
//! # The topology
//!
//! [`NetnsPair::create`] makes namespaces `a` and `b`, each with its loopback
//! up and one end of a veth pair named [`LINK`] (MTU [`MTU`]) holding an
//! address of a private `/30`, and a route for `224.0.0.0/4` on the veth so
//! that multicast (DDS's SPDP) leaves through it. Nothing else is reachable:
//! no default route, no bridge to the machine's own network. Each namespace is
//! a network stack of its own, so pairs of parallel tests cannot collide even
//! on equal addresses; the `/30` still differs per pair (derived from the
//! pair's name), which keeps logs unambiguous and keeps Fast DDS's host id
//! (a hash of the host name and the IPv4 addresses) distinct between pairs.
//!
//! Each namespace is also a machine of its own to programs that tell hosts
//! apart by `/etc/machine-id` (Fast DDS does, to decide whether a peer is
//! reachable through its shared-memory transport): `ip netns exec` bind-mounts
//! the files of `/etc/netns/<name>/` over `/etc`, and each namespace gets a
//! random `machine-id` there. Without it two rclpy nodes in the two namespaces
//! would exchange data through `/dev/shm` (which namespaces share), never
//! crossing the link.
//!
//! Processes run inside with [`Netns::command`] (`ip netns exec`): a real
//! [`Command`] the test spawns, waits for or kills as it likes; `ip` execs the
//! program in place, so the child's pid is the program's.
//!
//! # Names and cleaning up
//!
//! A namespace is named `hibari-t-<pid>-<start>-<n>-<random>-a|b` (process id,
//! the process's start time in clock ticks, a per-process counter, a random
//! number), so no two live pairs share a name. Dropping the pair (also while
//! a failed test unwinds) kills every process still inside and deletes both
//! namespaces, which destroys the veth pair. A test process killed outright
//! cannot drop anything: every [`NetnsPair::create`] first sweeps namespaces
//! of this naming whose process is gone (no such pid, or a pid reused by a
//! process with another start time), see [`sweep_stale`].
//!
//! # Requirements
//!
//! Root (CI runs as root) and iproute2's `ip`. Without them `create` returns
//! an error saying what is missing, which a test turns into its failure:
//! a test of the network never passes without having used it.
//!
//! ```no_run
//! use hibari_testkit::netns::NetnsPair;
//! let hosts = NetnsPair::create().unwrap_or_else(|e| panic!("{e}"));
//! hosts.verify().unwrap_or_else(|e| panic!("{e}"));
//! let mut listener = hosts.b().command("python3").arg("listener.py").spawn().unwrap();
//! hosts.set_link(false).unwrap(); // host a's end goes down, b sees no carrier
//! hosts.set_link(true).unwrap();
//! # let _ = listener.kill();
//! ```

use std::ffi::OsStr;
use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::process::Command;

mod probe;
mod system;

pub use probe::NetnsVerifyError;
pub use system::sweep_stale;
use system::{
    find_ip, is_root, own_machine_id, pids_in, remove, run, subnet_for, sweep_stale_with,
    unique_base,
};

/// The name of the veth end inside each namespace.
pub const LINK: &str = "veth0";

/// The veth pair's MTU: Ethernet's, so DDS fragments as it would on a LAN.
pub const MTU: u32 = 1500;

/// What every namespace this module creates is named with first.
pub const PREFIX: &str = "hibari-t-";

/// One end of the pair: a network namespace with one address on [`LINK`].
#[derive(Debug)]
pub struct Netns {
    name: String,
    addr: Ipv4Addr,
    ip: PathBuf,
}

impl Netns {
    /// The namespace's name (as `ip netns list` shows it).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// This host's address on [`LINK`].
    pub fn addr(&self) -> Ipv4Addr {
        self.addr
    }

    /// `program` to be run inside this namespace (`ip netns exec <name>
    /// <program>`); add arguments, environment and pipes as to any command.
    /// The environment passes through `ip` unchanged.
    pub fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut c = Command::new(&self.ip);
        c.args(["netns", "exec"]).arg(&self.name).arg(program);
        c
    }

    /// The processes running inside this namespace now.
    pub fn pids(&self) -> Vec<u32> {
        pids_in(&self.ip, &self.name)
    }

    fn ip(&self, args: &[&str]) -> Result<(), NetnsCommandError> {
        let mut all = vec!["-n", self.name.as_str()];
        all.extend_from_slice(args);
        run(&self.ip, &all)
    }
}

/// Two network namespaces `a` and `b` joined by a veth pair; removed on drop.
#[derive(Debug)]
pub struct NetnsPair {
    a: Netns,
    b: Netns,
}

impl NetnsPair {
    /// Sweeps stale namespaces, then creates the pair (see the module docs).
    pub fn create() -> Result<NetnsPair, NetnsCreateError> {
        let ip = find_ip().ok_or(NetnsCreateError::IpMissing)?;
        if !is_root() {
            return Err(NetnsCreateError::NotRoot);
        }
        sweep_stale_with(&ip);
        let base = unique_base();
        let net = subnet_for(&base);
        let pair = NetnsPair {
            a: Netns {
                name: format!("{base}-a"),
                addr: net[0],
                ip: ip.clone(),
            },
            b: Netns {
                name: format!("{base}-b"),
                addr: net[1],
                ip: ip.clone(),
            },
        };
        // From here on a failure drops `pair`, which removes what was made.
        for ns in [&pair.a, &pair.b] {
            run(&ip, &["netns", "add", &ns.name])?;
            own_machine_id(&ns.name)?;
        }
        let mtu = MTU.to_string();
        let veth = [
            "link",
            "add",
            LINK,
            "netns",
            &pair.a.name,
            "mtu",
            &mtu,
            "type",
            "veth",
            "peer",
            "name",
            LINK,
            "netns",
            &pair.b.name,
            "mtu",
            &mtu,
        ];
        run(&ip, &veth)?;
        for ns in [&pair.a, &pair.b] {
            ns.ip(&["addr", "add", &format!("{}/30", ns.addr), "dev", LINK])?;
            ns.ip(&["link", "set", "lo", "up"])?;
            ns.ip(&["link", "set", LINK, "up"])?;
            ns.ip(&["route", "replace", "224.0.0.0/4", "dev", LINK])?;
        }
        Ok(pair)
    }

    /// Host `a`.
    pub fn a(&self) -> &Netns {
        &self.a
    }

    /// Host `b`.
    pub fn b(&self) -> &Netns {
        &self.b
    }

    /// Takes the link down or brings it back, as `ifdown`/`ifup` on host `a`:
    /// down, `a`'s end is administratively down (its routes go, so its sends
    /// fail with "network unreachable") and `b` sees the carrier drop (its
    /// sends vanish); up, both ends run again with every route restored.
    pub fn set_link(&self, up: bool) -> Result<(), NetnsCommandError> {
        if !up {
            return self.a.ip(&["link", "set", LINK, "down"]);
        }
        for ns in [&self.a, &self.b] {
            ns.ip(&["link", "set", LINK, "up"])?;
            // The kernel drops a downed device's routes; the connected route
            // comes back with the address, the multicast one does not.
            ns.ip(&["route", "replace", "224.0.0.0/4", "dev", LINK])?;
        }
        Ok(())
    }
}

impl Drop for NetnsPair {
    fn drop(&mut self) {
        for ns in [&self.a, &self.b] {
            remove(&ns.ip, &ns.name);
        }
    }
}

/// Why [`NetnsPair::create`] failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum NetnsCreateError {
    /// No `ip` (iproute2) on `PATH`, `/usr/sbin` or `/sbin`.
    IpMissing,
    /// Creating namespaces needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN).
    NotRoot,
    /// An `ip` command failed.
    Command(NetnsCommandError),
}

impl std::fmt::Display for NetnsCreateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::IpMissing => f.write_str(
                "network-namespace test: `ip` (iproute2) is missing; install it (apt-get install iproute2)",
            ),
            Self::NotRoot => f.write_str(
                "network-namespace test: needs root to create namespaces; run the tests as root (CI does)",
            ),
            Self::Command(e) => write!(f, "network-namespace test: {e}"),
        }
    }
}

impl std::error::Error for NetnsCreateError {}

impl From<NetnsCommandError> for NetnsCreateError {
    fn from(e: NetnsCommandError) -> Self {
        Self::Command(e)
    }
}

/// An `ip` command that failed: what ran and what it said.
#[derive(Debug)]
pub struct NetnsCommandError {
    /// The command line.
    pub command: String,
    /// Its exit status and standard error (or why it could not start).
    pub detail: String,
}

impl std::fmt::Display for NetnsCommandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` failed: {}", self.command, self.detail)
    }
}

impl std::error::Error for NetnsCommandError {}

#[cfg(test)]
mod tests;
