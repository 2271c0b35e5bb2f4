//! What the module asks of the system: `ip` (iproute2), `/proc`, and the
//! files `ip netns exec` mounts from `/etc/netns`; the names it gives
//! namespaces and the sweep of those whose process has ended.

use std::hash::{BuildHasher, Hasher};
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

use super::{NetnsCommandError, PREFIX};

/// Deletes namespaces named by this module whose creating process has ended
/// (killing what still runs inside), and returns how many it deleted.
/// [`NetnsPair::create`] calls it; it needs root and `ip` like `create`.
pub fn sweep_stale() -> usize {
    find_ip().map_or(0, |ip| sweep_stale_with(&ip))
}

pub(super) fn sweep_stale_with(ip: &Path) -> usize {
    let Ok(dir) = std::fs::read_dir("/run/netns") else {
        return 0;
    };
    let mut swept = 0;
    for entry in dir.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some((pid, start)) = owner(&name) else {
            continue;
        };
        if start_time(pid) != Some(start) {
            remove(ip, &name);
            swept += 1;
        }
    }
    swept
}

/// The (pid, start time) in a name this module made.
pub(super) fn owner(name: &str) -> Option<(u32, u64)> {
    let mut parts = name.strip_prefix(PREFIX)?.split('-');
    let pid = parts.next()?.parse().ok()?;
    let start = parts.next()?.parse().ok()?;
    Some((pid, start))
}

/// Gives namespace `name` a random `/etc/machine-id` (when the machine has
/// one: `ip netns exec` can only bind-mount over an existing file).
pub(super) fn own_machine_id(name: &str) -> Result<(), NetnsCommandError> {
    if !Path::new("/etc/machine-id").exists() {
        return Ok(());
    }
    let dir = etc_dir(name);
    let id = format!("{:016x}{:016x}\n", random(), random());
    std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(dir.join("machine-id"), id))
        .map_err(|e| NetnsCommandError {
            command: format!("write {}/machine-id", dir.display()),
            detail: e.to_string(),
        })
}

/// The files `ip netns exec` mounts over `/etc` in namespace `name`.
pub(super) fn etc_dir(name: &str) -> PathBuf {
    Path::new("/etc/netns").join(name)
}

pub(super) fn random() -> u64 {
    // RandomState is seeded from the OS's randomness (and differs per call).
    std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish()
}

/// Kills what runs in namespace `name`, then deletes it (errors printed: this
/// runs in `Drop`, also while a test unwinds).
pub(super) fn remove(ip: &Path, name: &str) {
    let pids = pids_in(ip, name);
    if !pids.is_empty() {
        let list: Vec<String> = pids.iter().map(u32::to_string).collect();
        let _ = Command::new("kill")
            .arg("-KILL")
            .args(&list)
            .stderr(Stdio::null())
            .status();
    }
    if let Err(e) = run(ip, &["netns", "delete", name]) {
        eprintln!("netns cleanup: {e}");
    }
    let _ = std::fs::remove_dir_all(etc_dir(name));
}

pub(super) fn pids_in(ip: &Path, name: &str) -> Vec<u32> {
    Command::new(ip)
        .args(["netns", "pids", name])
        .stderr(Stdio::null())
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

pub(super) fn run(ip: &Path, args: &[&str]) -> Result<(), NetnsCommandError> {
    let command = format!("ip {}", args.join(" "));
    match Command::new(ip).args(args).stdin(Stdio::null()).output() {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(NetnsCommandError {
            command,
            detail: format!(
                "{}: {}",
                o.status,
                String::from_utf8_lossy(&o.stderr).trim()
            ),
        }),
        Err(e) => Err(NetnsCommandError {
            command,
            detail: e.to_string(),
        }),
    }
}

pub(super) fn find_ip() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin".into(), "/sbin".into()])
        .map(|d| d.join("ip"))
        .find(|p| p.is_file())
}

pub(super) fn is_root() -> bool {
    // The effective uid is the second field of `Uid:` in /proc/self/status.
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("Uid:"))?;
            line.split_whitespace().nth(2).map(|u| u == "0")
        })
        .unwrap_or(false)
}

/// A process's start time (clock ticks after boot), `None` if it is gone.
pub(super) fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Field 22; the command name (field 2) may hold spaces and parentheses.
    let after = &stat[stat.rfind(')')? + 2..];
    after.split_whitespace().nth(19)?.parse().ok()
}

/// `hibari-t-<pid>-<start>-<n>-<random>`.
pub(super) fn unique_base() -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let pid = std::process::id();
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let start = start_time(pid).unwrap_or(0);
    let random = random() as u32;
    format!("{PREFIX}{pid}-{start}-{n}-{random:08x}")
}

/// A `/30` in 10.0.0.0/8 chosen from the pair's name: hosts `.1` and `.2`.
pub(super) fn subnet_for(base: &str) -> [Ipv4Addr; 2] {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    h.write(base.as_bytes());
    let net = (h.finish() as u32 & 0x00ff_fffc) | 0x0a00_0000;
    [Ipv4Addr::from(net + 1), Ipv4Addr::from(net + 2)]
}
