//! These need root and `ip`, as every user of the module does; without them
//! they fail with the reason (never pass without having made a namespace).

use std::time::Duration;

use std::path::Path;

use super::probe::verify_within;
use super::system::{etc_dir, owner, start_time};
use super::*;

fn pair() -> NetnsPair {
    NetnsPair::create().unwrap_or_else(|e| panic!("{e}"))
}

fn exists(name: &str) -> bool {
    Path::new("/run/netns").join(name).exists()
}

fn link_of(ns: &Netns) -> String {
    let out = Command::new(&ns.ip)
        .args(["-n", ns.name(), "-o", "link", "show", LINK])
        .output()
        .expect("run ip");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Alive and not a zombie (a killed child of this process stays a zombie
/// until waited for).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit(')')
                .next()
                .map(|r| !r.trim_start().starts_with('Z'))
        })
        .unwrap_or(false)
}

#[test]
fn a_pair_reaches_across_by_unicast_and_multicast_at_mtu_1500_and_is_gone_after_drop() {
    let hosts = pair();
    let names = [hosts.a().name().to_owned(), hosts.b().name().to_owned()];
    assert!(names.iter().all(|n| exists(n)), "{names:?} not created");
    assert_ne!(hosts.a().addr(), hosts.b().addr());
    for ns in [hosts.a(), hosts.b()] {
        let link = link_of(ns);
        assert!(link.contains("mtu 1500") && link.contains(",UP,"), "{link}");
    }
    hosts.verify().unwrap_or_else(|e| panic!("{e}"));
    drop(hosts);
    assert!(names.iter().all(|n| !exists(n)), "{names:?} left behind");
}

#[test]
fn a_link_taken_down_carries_nothing_until_it_is_brought_up() {
    let hosts = pair();
    hosts.set_link(false).unwrap_or_else(|e| panic!("{e}"));
    let down = verify_within(&hosts, Duration::from_secs(2));
    assert!(
        matches!(down, Err(NetnsVerifyError::NotReached { .. })),
        "{down:?}"
    );
    hosts.set_link(true).unwrap_or_else(|e| panic!("{e}"));
    hosts
        .verify()
        .unwrap_or_else(|e| panic!("after the link came back: {e}"));
}

#[test]
fn a_command_runs_inside_its_namespace() {
    let hosts = pair();
    let out = hosts
        .b()
        .command("ip")
        .args(["-o", "-4", "addr", "show", LINK])
        .output()
        .expect("ip netns exec");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("inet {}/30", hosts.b().addr())),
        "{text}"
    );
}

#[test]
fn each_namespace_is_a_machine_of_its_own_to_fast_dds() {
    let hosts = pair();
    let id = |ns: &Netns| {
        let out = ns
            .command("cat")
            .arg("/etc/machine-id")
            .output()
            .expect("cat");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    let (a, b) = (id(hosts.a()), id(hosts.b()));
    let host = std::fs::read_to_string("/etc/machine-id").expect("this machine's id");
    assert_eq!(a.len(), 32, "{a:?}");
    assert!(
        a != b && a != host.trim() && b != host.trim(),
        "{a} {b} {host}"
    );
    let dir = etc_dir(hosts.a().name());
    drop(hosts);
    assert!(!dir.exists(), "{} left behind", dir.display());
}

#[test]
fn a_failed_test_leaves_no_namespace_and_no_process_behind() {
    let mut seen = None;
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let hosts = pair();
        let child = hosts.a().command("sleep").arg("600").spawn();
        let child = child.expect("spawn sleep");
        // `ip netns exec` enters the namespace after it started: wait (bounded).
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !hosts.a().pids().contains(&child.id()) {
            assert!(
                std::time::Instant::now() < deadline,
                "process {} never entered {}",
                child.id(),
                hosts.a().name()
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        seen = Some((hosts.a().name().to_owned(), child));
        panic!("the test fails here");
    }));
    assert!(r.is_err());
    let (name, mut child) = seen.expect("the pair was made");
    assert!(!exists(&name), "{name} left behind");
    assert!(!running(child.id()), "process {} still runs", child.id());
    let _ = child.wait();
}

#[test]
fn namespaces_of_ended_processes_are_swept_and_live_ones_kept() {
    let ip = find_ip().expect("ip (iproute2) is missing");
    assert!(is_root(), "needs root to create namespaces");
    let mut ended = Command::new("true").spawn().expect("spawn true");
    let dead = ended.id();
    ended.wait().expect("wait");
    let me = std::process::id();
    let start = start_time(me).expect("own start time");
    let stale = format!("{PREFIX}{dead}-1-0-00000000-a");
    // A live pid with a start time that is not its own: a reused pid.
    let reused = format!("{PREFIX}{me}-{}-0-00000000-a", start + 1);
    let live = format!("{PREFIX}{me}-{start}-999999-00000000-a");
    for n in [&stale, &reused, &live] {
        run(&ip, &["netns", "add", n]).unwrap_or_else(|e| panic!("{e}"));
    }
    sweep_stale();
    let kept = exists(&live);
    let gone = !exists(&stale) && !exists(&reused);
    remove(&ip, &live);
    remove(&ip, &stale);
    remove(&ip, &reused);
    assert!(gone, "stale namespaces were not swept");
    assert!(kept, "a live process's namespace was swept");
}

#[test]
fn names_carry_their_owner_and_subnets_are_private_30s() {
    let base = unique_base();
    assert_ne!(base, unique_base());
    let (pid, start) = owner(&format!("{base}-a")).expect("parse");
    assert_eq!(pid, std::process::id());
    assert_eq!(Some(start), start_time(pid));
    assert_eq!(owner("other-namespace"), None);
    let [a, b] = subnet_for(&base);
    assert_eq!(a.octets()[0], 10);
    assert_eq!(u32::from(a) % 4, 1);
    assert_eq!(u32::from(b), u32::from(a) + 1);
}
